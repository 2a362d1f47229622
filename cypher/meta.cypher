// MetaSegment nodes: groups of segments (and of other meta-segments) built on demand.

// name: get_many
UNWIND $ids AS id
MATCH (m:MetaSegment {space: $space, id: id})
RETURN m {.*, embedding: null} AS m

// name: currency
// What a cache check needs, without the full nodes: is each one current?
UNWIND $ids AS id
MATCH (m:MetaSegment {space: $space, id: id})
RETURN m.id AS id, m.built_n_points AS built_n_points, m.stable_before AS stable_before

// name: list
MATCH (m:MetaSegment {space: $space, series_id: $series_id})
WHERE ($kind IS NULL OR m.kind = $kind) AND ($freq IS NULL OR m.freq = $freq)
RETURN m {.*, embedding: null} AS m ORDER BY m.start, m.id SKIP $offset LIMIT $limit

// name: count
MATCH (m:MetaSegment {space: $space, series_id: $series_id})
WHERE ($kind IS NULL OR m.kind = $kind) AND ($freq IS NULL OR m.freq = $freq)
RETURN count(m) AS n

// name: members
MATCH (x)-[:MEMBER_OF]->(m:MetaSegment {space: $space, id: $id})
RETURN x {.*, embedding: null} AS x, x:Segment AS is_segment
ORDER BY x.start, x.id SKIP $offset LIMIT $limit

// name: segments_filtered
// One page of the segments of a series meeting a SegmentFilter (bounds inclusive).
MATCH (g:Segment {space: $space, series_id: $series_id})
WHERE ($slope_min IS NULL OR g.slope_per_day >= $slope_min)
  AND ($slope_max IS NULL OR g.slope_per_day <= $slope_max)
  AND ($std_min IS NULL OR g.std >= $std_min)
  AND ($std_max IS NULL OR g.std <= $std_max)
  AND ($mean_min IS NULL OR g.mean >= $mean_min)
  AND ($mean_max IS NULL OR g.mean <= $mean_max)
  AND ($min_below IS NULL OR g.min <= $min_below)
  AND ($max_above IS NULL OR g.max >= $max_above)
  AND ($duration_min IS NULL OR g.duration_days >= $duration_min)
  AND ($duration_max IS NULL OR g.duration_days <= $duration_max)
  AND ($start IS NULL OR g.end >= $start)
  AND ($end IS NULL OR g.start <= $end)
RETURN g {.*, embedding: null} AS g ORDER BY g.start SKIP $offset LIMIT $limit

// name: upsert
// Unit subqueries over flat lists: FalkorDB runs a subquery that imports variables for the
// first outer row only, so nothing here is per-row.
WITH 1 AS one
CALL {
  UNWIND $metas AS row
  MERGE (m:MetaSegment {space: $space, id: row.id})
  SET m += row.props
  // raw power sums written by versions before the centred statistics (series/stats.py)
  REMOVE m.sum_x, m.sum_x2, m.sum_t, m.sum_t2, m.sum_tx
}
CALL {
  UNWIND $ids AS meta_id
  MATCH (x)-[r:MEMBER_OF]->(:MetaSegment {space: $space, id: meta_id})
  DELETE r
}
CALL {
  UNWIND $links AS link
  MATCH (s:Segment {space: $space, id: link.member})
  MATCH (m:MetaSegment {space: $space, id: link.meta})
  MERGE (s)-[:MEMBER_OF]->(m)
}
CALL {
  UNWIND $links AS link
  MATCH (x:MetaSegment {space: $space, id: link.member})
  MATCH (m:MetaSegment {space: $space, id: link.meta})
  MERGE (x)-[:MEMBER_OF]->(m)
}
RETURN size($metas) AS written

// name: tool_calls
MATCH (t:ToolCall)-[r:BUILT|READ]->(m:MetaSegment {space: $space, id: $id})
RETURN t, type(r) AS how
ORDER BY t.at, t.id

// name: clear
MATCH (m:MetaSegment {space: $space, series_id: $series_id})
DETACH DELETE m
RETURN count(*) AS deleted
