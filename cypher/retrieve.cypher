// Retrieval's document context (graphmem/props/retrieve.py): the other propositions stated by
// the documents that state each anchor. A sentence of an article often leaves out the name its
// neighbours carry ("The company named ... as its new chief executive."), so the anchor that
// names the entity brings the statement that answers. At most $cap per anchor (the newest),
// dated <= $as_of, none of $members.

// One step at a time (WITH): as one pattern, FalkorDB's plan scanned every proposition
// (~250 ms at 3,000 of them, against ~1 ms).
// name: siblings
UNWIND $ids AS pid
MATCH (a:Proposition {space: $space, id: pid})
WITH pid, a
MATCH (a)<-[:STATES]-(d:Document)
WITH pid, d
MATCH (d)-[:STATES]->(s:Proposition)
WHERE s.ts <= $as_of AND NOT s.id IN $members AND s.vid IS NOT NULL
WITH pid, s ORDER BY s.ts DESC, s.id
RETURN pid AS id, collect(DISTINCT s.vid)[..$cap] AS vids
