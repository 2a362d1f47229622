// Segment nodes: statistically stable intervals of a series, linked by NEXT in time order.

// name: in_range
MATCH (g:Segment {space: $space, series_id: $series_id})
WHERE g.end >= $start AND g.start <= $end
RETURN g {.*, embedding: null} AS g ORDER BY g.start SKIP $offset LIMIT $limit

// name: count_in_range
MATCH (g:Segment {space: $space, series_id: $series_id})
WHERE g.end >= $start AND g.start <= $end
RETURN count(g) AS n

// name: get
MATCH (g:Segment {space: $space, id: $id}) RETURN g {.*, embedding: null} AS g

// name: last_starting_before
MATCH (g:Segment {space: $space, series_id: $series_id})
WHERE g.start < $start
RETURN g {.*, embedding: null} AS g ORDER BY g.start DESC LIMIT 1

// name: bounds
MATCH (s:Series {space: $space, id: $series_id})
OPTIONAL MATCH (s)-[:HAS_SEGMENT]->(g:Segment)
RETURN s.t0 AS start, s.end_ts AS end, s.n_points AS n_points,
       s.n_skipped AS n_skipped, count(g) AS n_segments

// name: get_many
UNWIND $ids AS id
MATCH (g:Segment {space: $space, id: id})
RETURN g {.*, embedding: null} AS g

// name: unembedded
// Segments whose summary has no embedding yet, or changed since (the open segment grows).
MATCH (g:Segment {space: $space, series_id: $series_id})
WHERE g.embedding IS NULL OR g.embedded_summary <> g.summary
RETURN g.id AS id, g.summary AS summary, g.start AS start, g.vid AS vid

// name: vids
// The vector ids of the series' embedded segments (a text search is restricted to them).
MATCH (g:Segment {space: $space, series_id: $series_id})
WHERE g.vid IS NOT NULL
RETURN g.vid AS vid
