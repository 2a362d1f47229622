// ToolCall nodes: every tool call, linked to what it built or read (provenance).

// name: record
CREATE (t:ToolCall {space: $space, id: $id, series_id: $series_id, session: $session, tool: $tool,
                    args: $args, result: $result, digest: $digest, ok: $ok, error: $error,
                    at: $at, at_iso: $at_iso})
WITH t
CALL {
  WITH t
  UNWIND $built AS target_id
  MATCH (m:MetaSegment {space: $space, id: target_id})
  MERGE (t)-[:BUILT]->(m)
}
CALL {
  WITH t
  UNWIND $read AS target_id
  MATCH (m:MetaSegment {space: $space, id: target_id})
  MERGE (t)-[:READ]->(m)
}
CALL {
  WITH t
  UNWIND $read AS target_id
  MATCH (g:Segment {space: $space, id: target_id})
  MERGE (t)-[:READ]->(g)
}
RETURN t.id AS id

// name: by_session
MATCH (t:ToolCall {space: $space, session: $session})
OPTIONAL MATCH (t)-[r:BUILT|READ]->(x)
RETURN t, collect(x.id) AS targets
ORDER BY t.at, t.id
