// Statements tests/test_store_healing.py uses.

// Many nodes in one statement: the server replays it for about as long as it ran.
// name: filler
UNWIND range(1, $n) AS i CREATE (:Filler {i: i}) RETURN count(i) AS n

// name: count_filler
MATCH (n:Filler) RETURN count(n) AS n

// A read that runs for n * n rows (hours for n = 10^5), to stop the server under.
// name: slow_read
UNWIND range(1, $n) AS i UNWIND range(1, $n) AS j WITH i + j AS k WHERE k < 0
RETURN count(k) AS n

// Every node and edge, to compare a graph before and after a restart.
// name: nodes
MATCH (n) RETURN labels(n) AS labels, properties(n) AS props

// name: edges
MATCH (a)-[r]->(b) RETURN a.id AS src, type(r) AS type, properties(r) AS props, b.id AS dst
