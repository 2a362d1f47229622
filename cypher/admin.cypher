// Maintenance statements.

// name: wipe
MATCH (n) DETACH DELETE n

// name: count_nodes
MATCH (n) RETURN count(n) AS n
