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

// name: get_many
UNWIND $ids AS id
MATCH (g:Segment {id: id})
RETURN g

// name: filtered
MATCH (g:Segment {series_id: $series_id})
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
RETURN g ORDER BY g.start
LIMIT $limit
