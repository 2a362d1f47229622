// Statements the store benchmark runs (labels with graphmem's id index).

// name: merge_rows
UNWIND $rows AS row
MERGE (n:Event {space: $space, id: row.id})
SET n.text = row.text, n.ts = row.ts
RETURN count(n) AS written

// name: get
MATCH (n:Event {space: $space, id: $id}) RETURN n
