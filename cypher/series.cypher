// Series nodes: the root every chunk, segment and meta-segment of a series hangs off.

// name: create
CREATE (s:Series {id: $id, name: $name, unit: $unit, description: $description,
                  created_at: $created_at, created_at_iso: $created_at_iso})
RETURN s

// name: get
MATCH (s:Series {id: $id}) RETURN s

// name: get_by_name
MATCH (s:Series {name: $name}) RETURN s

// name: list
MATCH (s:Series) RETURN s ORDER BY s.name SKIP $offset LIMIT $limit

// name: n_points
// How many points a series holds, without its (large) ingestion state.
MATCH (s:Series {id: $id}) RETURN coalesce(s.n_points, 0) AS n_points

// name: count
MATCH (s:Series) RETURN count(s) AS n

// name: delete
MATCH (s:Series {id: $id})
CALL { MATCH (c:Chunk {series_id: $id}) DETACH DELETE c }
CALL { MATCH (g:Segment {series_id: $id}) DETACH DELETE g }
CALL { MATCH (m:MetaSegment {series_id: $id}) DETACH DELETE m }
CALL { MATCH (t:ToolCall {series_id: $id}) DETACH DELETE t }
CALL { MATCH (a:Ask {series_id: $id}) DETACH DELETE a }
CALL { MATCH (b:Batch {series_id: $id}) DETACH DELETE b }
DETACH DELETE s
RETURN $id AS id
