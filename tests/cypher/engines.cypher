// The test database guard (tests/conftest.py): a database the tests wipe carries a marker
// node; one holding data but no marker is refused, so the suite never wipes real data.

// name: census
OPTIONAL MATCH (m:GraphmemTestDatabase)
WITH count(m) AS marked
OPTIONAL MATCH (n)
RETURN marked, count(n) AS nodes

// name: mark
MERGE (:GraphmemTestDatabase {id: 'graphmem test database'})

// name: wipe
MATCH (n) WHERE NOT n:GraphmemTestDatabase DETACH DELETE n

// Every node but the marker.
// name: count_data
MATCH (n) WHERE NOT n:GraphmemTestDatabase RETURN count(n) AS n
