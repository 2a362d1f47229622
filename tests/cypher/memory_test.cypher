// What tests/test_memory.py reads back from the graph.

// The tool calls that recorded meta-segment builds, with what each built.
// name: builds
MATCH (t:ToolCall)-[:BUILT]->(m:MetaSegment)
RETURN t.tool AS tool, t.session AS session, m.id AS meta
