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
UNWIND $rows AS row MERGE (n:Chunk {space: $space, id: row.id}) SET n.n = row.n RETURN count(n) AS written

// name: count_merged
MATCH (n:Chunk) RETURN count(n) AS n

// name: fail_midway
UNWIND $rows AS row CREATE (n:Item {id: row.id, n: 10 / row.d}) RETURN count(n) AS written

// name: count
MATCH (n:Item) RETURN count(n) AS n

// name: create_series_like
CREATE (s:Series {space: $space, id: $id, name: $name}) RETURN s

// name: plant_batch
CREATE (b:Batch {space: $space, id: $id, series_id: $series_id})

// name: series_graph
MATCH (s:Series {space: $space, id: $series_id})
OPTIONAL MATCH (s)-[:HAS_SEGMENT]->(g:Segment)
WITH s, g ORDER BY g.idx
WITH s, collect(g {.*}) AS segments
OPTIONAL MATCH (s)-[:HAS_CHUNK]->(c:Chunk)
WITH s, segments, c ORDER BY c.idx
RETURN s {.*} AS series, segments, collect(c {.*}) AS chunks

// name: next_links
MATCH (a:Segment {space: $space, series_id: $series_id})-[:NEXT]->(b:Segment)
RETURN a.idx AS a, b.idx AS b ORDER BY a

// name: echo
RETURN $value AS value, $rows AS rows
