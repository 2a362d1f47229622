// Statements the restart and healing benchmarks run.

// What a restarted store holds, to check it came back whole.
// name: census
MATCH (n)
WITH labels(n)[0] AS label, count(n) AS n
RETURN label, n ORDER BY label

// name: edge_count
MATCH ()-[r]->() RETURN count(r) AS n

// One acknowledged write: a new node under a unique id, so a statement that ran twice fails.
// name: put
CREATE (n:Event {space: $space, id: $id, n: $n}) RETURN n.id AS id

// name: written_ids
MATCH (n:Event {space: $space}) WHERE n.id STARTS WITH $prefix RETURN n.id AS id
