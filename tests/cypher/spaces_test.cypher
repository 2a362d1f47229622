// What tests/test_spaces.py writes and reads around graphmem's own statements.

// The tool calls of the store's space that built meta-segments, with what each built.
// name: builds
MATCH (t:ToolCall {space: $space})-[:BUILT]->(m:MetaSegment)
RETURN t.id AS call, m.id AS meta

// A series and a proposition as a version before spaces wrote them: no space property.
// name: legacy_nodes
CREATE (:Series {id: 'ser_legacy', name: 'legacy', n_points: 0})
CREATE (:Proposition {id: 'prop_legacy', text: 'Written before spaces.', date: '2019-05-01',
                      ts: 1556668800})

// The test run's marker (tests/cypher/engines.cypher) is no memory.
// name: without_space
MATCH (n) WHERE n.space IS NULL AND NOT n:GraphmemTestDatabase RETURN labels(n) AS labels

// name: nodes_of_space
MATCH (n {space: $space}) RETURN count(n) AS n
