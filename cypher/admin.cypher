// Maintenance statements. wipe and count_nodes are store-wide (every space): tests and admins.

// name: wipe
MATCH (n) DETACH DELETE n

// name: count_nodes
MATCH (n) RETURN count(n) AS n

// The spaces holding memories: every other node (chunk, segment, batch, clock) belongs to one of
// these roots' spaces. Admin only: a scan of each root label.
// name: spaces
MATCH (n:Series) RETURN DISTINCT n.space AS space
UNION
MATCH (n:Document) RETURN DISTINCT n.space AS space
UNION
MATCH (n:Proposition) RETURN DISTINCT n.space AS space
UNION
MATCH (n:Event) RETURN DISTINCT n.space AS space
UNION
MATCH (n:ToolCall) RETURN DISTINCT n.space AS space
UNION
MATCH (n:Ask) RETURN DISTINCT n.space AS space
