// Chunk nodes: the raw points archive of a series, CHUNK_SIZE points each, by index.

// name: by_index_range
MATCH (c:Chunk {space: $space, series_id: $series_id})
WHERE c.idx >= $k0 AND c.idx <= $k1
RETURN c.idx AS idx, c.ts AS ts, c.xs AS xs
ORDER BY idx

// name: by_time_range
MATCH (c:Chunk {space: $space, series_id: $series_id})
WHERE c.t1 >= $start AND c.t0 <= $end
RETURN c.idx AS idx, c.ts AS ts, c.xs AS xs
ORDER BY idx

// name: by_time_ranges
UNWIND $ranges AS r
MATCH (c:Chunk {space: $space, series_id: $series_id})
WHERE c.t1 >= r.start AND c.t0 <= r.end
RETURN DISTINCT c.idx AS idx, c.ts AS ts, c.xs AS xs
ORDER BY idx

// The same reads with the lists as JSON text (engines whose dialect has json_lists).

// name: by_index_range_json
MATCH (c:Chunk {space: $space, series_id: $series_id})
WHERE c.idx >= $k0 AND c.idx <= $k1
RETURN c.idx AS idx, toJSON(c.ts) AS ts, toJSON(c.xs) AS xs
ORDER BY idx

// name: by_time_range_json
MATCH (c:Chunk {space: $space, series_id: $series_id})
WHERE c.t1 >= $start AND c.t0 <= $end
RETURN c.idx AS idx, toJSON(c.ts) AS ts, toJSON(c.xs) AS xs
ORDER BY idx

// name: by_time_ranges_json
UNWIND $ranges AS r
MATCH (c:Chunk {space: $space, series_id: $series_id})
WHERE c.t1 >= r.start AND c.t0 <= r.end
RETURN DISTINCT c.idx AS idx, toJSON(c.ts) AS ts, toJSON(c.xs) AS xs
ORDER BY idx
