// Statements the store contract tests run on every engine.

// name: create
CREATE (n:Item {id: $id, text: $text, n: $n, xs: $xs}) RETURN n

// name: get
MATCH (n:Item {id: $id}) RETURN n, n {.*} AS props, n.xs AS xs

// name: update
MATCH (n:Item {id: $id}) SET n += $changes RETURN n

// name: delete
MATCH (n:Item {id: $id}) DETACH DELETE n RETURN count(*) AS deleted

// name: merge_many
UNWIND $rows AS row MERGE (n:Chunk {id: row.id}) SET n.n = row.n RETURN count(n) AS written

// name: count_merged
MATCH (n:Chunk) RETURN count(n) AS n

// name: fail_midway
UNWIND $rows AS row CREATE (n:Item {id: row.id, n: 10 / row.d}) RETURN count(n) AS written

// name: count
MATCH (n:Item) RETURN count(n) AS n

// name: create_series_like
CREATE (s:Series {id: $id, name: $name}) RETURN s
