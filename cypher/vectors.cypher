// Vector-index upkeep: which nodes carry an embedding, and their embeddings.
// One statement per label because labels cannot be parameters. A node counts as embedded
// only when it has id, vid, ts and embedding; the rest are invisible to graphmem/vectors.py.
// fetch_* looks nodes up by id (unique-indexed) rather than vid (not indexed), so a
// rebuild costs one index seek per node instead of a label scan.
// fetch_json_* is FalkorDB's variant: one JSON string per embedding parses about 7x faster
// in the Python client than a list of floats (0.4 vs 2.9 ms per 384-dim row).

// name: vids_proposition
MATCH (n:Proposition)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_proposition
UNWIND $ids AS node_id
MATCH (n:Proposition {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_proposition
UNWIND $ids AS node_id
MATCH (n:Proposition {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// name: vids_event
MATCH (n:Event)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_event
UNWIND $ids AS node_id
MATCH (n:Event {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_event
UNWIND $ids AS node_id
MATCH (n:Event {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// name: vids_segment
MATCH (n:Segment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_segment
UNWIND $ids AS node_id
MATCH (n:Segment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_segment
UNWIND $ids AS node_id
MATCH (n:Segment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// name: vids_metasegment
MATCH (n:MetaSegment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_metasegment
UNWIND $ids AS node_id
MATCH (n:MetaSegment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_metasegment
UNWIND $ids AS node_id
MATCH (n:MetaSegment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding
