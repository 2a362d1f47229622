// Appending a batch of points: one statement, so points, segments and detector state land
// together or not at all. The n_points guard makes a concurrent append fail instead of
// interleaving; the caller then reads batch_seen to tell a re-sent batch that another writer
// landed first (a duplicate) from a different one.

// name: batch_seen
MATCH (b:Batch {space: $space, id: $id}) RETURN b.id AS id, b.n AS n, b.n_skipped AS n_skipped

// The guard locks first: writing the series node takes its write lock, so on Neo4j, which does
// not serialise writes as FalkorDB does, the guard reads what the last append committed.
// name: append
MATCH (s:Series {space: $space, id: $series_id})
SET s._lock = true
REMOVE s._lock
WITH s
WHERE coalesce(s.n_points, 0) = $expected_points AND coalesce(s.n_batches, 0) = $expected_batches
  AND coalesce(s.n_closes, 0) = $expected_closes
SET s += $series
WITH s
CALL {
  WITH s
  UNWIND $chunks AS c
  MERGE (ch:Chunk {space: $space, id: c.id})
  SET ch += c
  MERGE (s)-[:HAS_CHUNK]->(ch)
}
CALL {
  WITH s
  UNWIND $segments AS g
  MERGE (seg:Segment {space: $space, id: g.id})
  SET seg += g
  // raw power sums written by versions before the centred statistics (series/stats.py)
  REMOVE seg.sum_x, seg.sum_x2, seg.sum_t, seg.sum_t2, seg.sum_tx
  MERGE (s)-[:HAS_SEGMENT]->(seg)
}
CALL {
  UNWIND $links AS link
  MATCH (a:Segment {space: $space, id: link.prev})
  MATCH (b:Segment {space: $space, id: link.next})
  MERGE (a)-[:NEXT]->(b)
}
CREATE (b:Batch {space: $space, id: $batch.id, series_id: $series_id, n: $batch.n, n_skipped: $batch.n_skipped,
                 first_ts: $batch.first_ts, last_ts: $batch.last_ts, at: $batch.at})
RETURN s.n_points AS n_points

// Closing a stream: the open segment split at the tail's boundaries, every segment closed and
// the detector state, in one statement guarded like append (n_closes makes an append prepared
// before the close fail rather than drop it). Meta-segments reaching into the tail are marked
// stale, so they are rebuilt over the new segments when next read.
// name: close
MATCH (s:Series {space: $space, id: $series_id})
SET s._lock = true
REMOVE s._lock
WITH s
WHERE coalesce(s.n_points, 0) = $expected_points AND coalesce(s.n_batches, 0) = $expected_batches
  AND coalesce(s.n_closes, 0) = $expected_closes
SET s += $series
WITH s
CALL {
  WITH s
  UNWIND $segments AS g
  MERGE (seg:Segment {space: $space, id: g.id})
  SET seg += g
  MERGE (s)-[:HAS_SEGMENT]->(seg)
}
CALL {
  UNWIND $links AS link
  MATCH (a:Segment {space: $space, id: link.prev})
  MATCH (b:Segment {space: $space, id: link.next})
  MERGE (a)-[:NEXT]->(b)
}
CALL {
  MATCH (m:MetaSegment {space: $space, series_id: $series_id})
  WHERE m.end >= $tail_start
  SET m.built_n_points = -1
}
RETURN s.n_points AS n_points
