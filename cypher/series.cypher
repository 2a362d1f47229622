// Series nodes: the root every chunk, segment and meta-segment of a series hangs off.

// name: create
CREATE (s:Series {space: $space, id: $id, name: $name, unit: $unit, description: $description,
                  created_at: $created_at, created_at_iso: $created_at_iso})
RETURN s

// name: get
MATCH (s:Series {space: $space, id: $id}) RETURN s

// name: get_by_name
MATCH (s:Series {space: $space, name: $name}) RETURN s

// name: info
// What a series is (catalog.SeriesInfo), without its (large) ingestion state: cheaper to read.
MATCH (s:Series {space: $space, id: $id})
RETURN s {.id, .name, .unit, .description, .created_at, .t0} AS s

// name: info_by_name
MATCH (s:Series {space: $space, name: $name})
RETURN s {.id, .name, .unit, .description, .created_at, .t0} AS s

// name: list
MATCH (s:Series {space: $space}) RETURN s ORDER BY s.name SKIP $offset LIMIT $limit

// name: n_points
// How many points a series holds, without its (large) ingestion state.
MATCH (s:Series {space: $space, id: $id}) RETURN coalesce(s.n_points, 0) AS n_points

// name: count
MATCH (s:Series {space: $space}) RETURN count(s) AS n

// name: delete
MATCH (s:Series {space: $space, id: $id})
CALL { MATCH (c:Chunk {space: $space, series_id: $id}) DETACH DELETE c }
CALL { MATCH (g:Segment {space: $space, series_id: $id}) DETACH DELETE g }
CALL { MATCH (m:MetaSegment {space: $space, series_id: $id}) DETACH DELETE m }
CALL { MATCH (t:ToolCall {space: $space, series_id: $id}) DETACH DELETE t }
CALL { MATCH (a:Ask {space: $space, series_id: $id}) DETACH DELETE a }
CALL { MATCH (b:Batch {space: $space, series_id: $id}) DETACH DELETE b }
DETACH DELETE s
RETURN $id AS id
