// Segment nodes: statistically stable intervals of a series, linked by NEXT in time order.

// name: in_range
MATCH (g:Segment {series_id: $series_id})
WHERE g.end >= $start AND g.start <= $end
RETURN g ORDER BY g.start SKIP $offset LIMIT $limit

// name: get
MATCH (g:Segment {id: $id}) RETURN g

// name: bounds
MATCH (s:Series {id: $series_id})
OPTIONAL MATCH (s)-[:HAS_SEGMENT]->(g:Segment)
RETURN s.t0 AS start, s.end_ts AS end, s.n_points AS n_points,
       s.n_skipped AS n_skipped, count(g) AS n_segments
