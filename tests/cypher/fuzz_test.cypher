// What tests/test_api_fuzz.py compares before and after a refused request. ToolCall nodes are
// left out: a tool call is recorded, failed or not, as provenance (graphmem/series/meta/tools.py).

// name: nodes
MATCH (n) WHERE NOT n:ToolCall RETURN labels(n) AS labels, properties(n) AS props

// name: edges
MATCH (a)-[r]->(b) WHERE NOT a:ToolCall
RETURN type(r) AS type, a.id AS src, b.id AS dst, properties(r) AS props
