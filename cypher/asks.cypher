// Ask nodes: a question put to the agent, its answer, the tool calls it made and the
// segments / meta-segments those calls showed it (its evidence). Written once the answer is in.

// name: record
CREATE (a:Ask {space: $space, id: $id, session: $id, series_id: $series_id, question: $question,
               answer: $answer, complete: $complete, error: $error, model: $model,
               tokens: $tokens, at: $at, at_iso: $at_iso})
WITH a
CALL {
  WITH a
  UNWIND $calls AS call
  MATCH (t:ToolCall {space: $space, id: call.id})
  MERGE (a)-[:CALLED {step: call.step}]->(t)
}
CALL {
  WITH a
  UNWIND $evidence AS target_id
  MATCH (m:MetaSegment {space: $space, id: target_id})
  MERGE (a)-[:EVIDENCE]->(m)
}
CALL {
  WITH a
  UNWIND $evidence AS target_id
  MATCH (g:Segment {space: $space, id: target_id})
  MERGE (a)-[:EVIDENCE]->(g)
}
RETURN a.id AS id

// name: tool_calls
MATCH (a:Ask {space: $space, id: $id})-[c:CALLED]->(t:ToolCall)
RETURN t, c.step AS step
ORDER BY step

// name: evidence
MATCH (a:Ask {space: $space, id: $id})-[:EVIDENCE]->(x)
RETURN x.id AS id
ORDER BY id
