// Statements tests/test_vectors.py uses to put embedded nodes into the graph.

// name: create_propositions
UNWIND $rows AS row
CREATE (n:Proposition {space: $space, id: row.id, vid: row.vid, ts: row.ts, embedding: row.embedding})
RETURN count(n) AS created

// name: create_bare_proposition
CREATE (n:Proposition {space: $space, id: $id}) RETURN n.id AS id

// name: delete_propositions
UNWIND $ids AS node_id
MATCH (n:Proposition {space: $space, id: node_id}) DETACH DELETE n
RETURN count(*) AS deleted

// name: create_segments
UNWIND $ids AS node_id
CREATE (g:Segment {space: $space, id: node_id, summary: node_id})
RETURN count(g) AS created

// name: wipe_segments
// The Segment label and its vector clock gone, as after a wiped graph.
MATCH (n) WHERE n:Segment OR n:VectorClock
DETACH DELETE n
RETURN count(*) AS deleted
