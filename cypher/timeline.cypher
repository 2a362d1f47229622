// Timeline memory: episodic Event nodes and the recall statistics (recall_count, g,
// last_recalled_at) carried by Event, Proposition, Segment and MetaSegment nodes.
// Labels cannot be parameters, so statements that serve every kind (graphmem/kinds.py) repeat a
// block per kind (`// each kind`, expanded by graphmem/cypher.py): a UNION ALL (reads) or
// subqueries (writes) with one flat id list per kind: $event, $proposition, $segment,
// $metasegment (empty lists cost nothing). Never a subquery importing an outer variable:
// FalkorDB runs those for the first outer row only.
// A memory's own time is coalesce(n.ts, n.start, n.created_at): its date for events and
// propositions (a proposition's created_at is when it was ingested, not when it was true).
// Nodes that were never reinforced may lack recall_count and g: they mean 0 and 1.0.

// name: existing_events
UNWIND $ids AS eid
MATCH (n:Event {space: $space, id: eid})
RETURN n.id AS id

// One statement per batch, so a batch lands whole; MERGE makes a re-sent event a no-op.
// Embeddings are stored as text (graphmem/embcodec.py: base64 float32), passed through as is.
// The Event vector clock's `seq` moves and stamps the events created (cypher/vectors.cypher
// added_*); its lock is taken first, as in delete_*.
// name: add_events
MERGE (c:VectorClock {space: $space, label: 'Event'})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
SET c.seq = coalesce(c.seq, 0) + 1
WITH c
UNWIND $rows AS row
MERGE (n:Event {space: $space, id: row.id})
ON CREATE SET n.text = row.text, n.date = row.date, n.ts = row.ts, n.source = row.source,
              n.vid = row.vid,
              n.embedding = row.embedding,
              n.recall_count = 0, n.g = 1.0, n.created_at = row.ts, n.seq = c.seq
RETURN count(n) AS events

// Statistics of the search candidates that were ever recalled; the rest are at their defaults
// and their time comes from the vector index, so they need no row. Hundreds of candidate ids
// travel as one comma-joined string per kind (rendered in C, not id by id in Python: ~1.5 ms
// less per recall); the rare id containing a comma comes in the $<kind>_extra list instead.
// name: recalled_stats
// each kind with recall, joined by UNION ALL
UNWIND split($<kind>, ',') + $<kind>_extra AS nid
MATCH (n:<Kind> {space: $space, id: nid}) WHERE n.last_recalled_at IS NOT NULL
RETURN n.id AS id, n.recall_count AS recall_count, n.g AS g,
       n.last_recalled_at AS last_recalled_at
// end each

// What a recall result shows of a memory; segments have a summary instead of a text.
// name: details
// each kind with recall, joined by UNION ALL
UNWIND $<kind> AS nid
MATCH (n:<Kind> {space: $space, id: nid})
RETURN n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date, n.source AS source
// end each

// Every node with one of $ids, whatever its kind, with its statistics.
// name: locate
// each kind with recall, joined by UNION ALL
UNWIND $ids AS nid
MATCH (n:<Kind> {space: $space, id: nid})
RETURN '<Kind>' AS label, n.id AS id, coalesce(n.ts, n.start, n.created_at) AS ts,
       coalesce(n.recall_count, 0) AS recall_count, coalesce(n.g, 1.0) AS g,
       n.last_recalled_at AS last_recalled_at
// end each

// One recall of each listed memory at $now, all in one statement. t is the time since the last
// recall (or the memory's own time) in units of $unit seconds, and
// g_n = g_(n-1) + (1 - e^-t) / (1 + e^-t). The guard makes each (id, now) count once: a $now at
// or before the last recall changes nothing, and neither does a $now before the memory's time.
// The node is locked (written) before the guard reads it: engines that run writes in parallel
// (Neo4j) would otherwise let two writers both pass the guard and count one recall twice.
// Returns the ids this statement changed.
// name: reinforce
// each kind with recall
CALL {
  UNWIND $<kind> AS nid
  MATCH (n:<Kind> {space: $space, id: nid})
  SET n._lock = true
  REMOVE n._lock
  WITH n, (toFloat($now) - coalesce(n.last_recalled_at, n.ts, n.start, n.created_at)) / $unit AS t
  WHERE t > 0 OR (n.last_recalled_at IS NULL AND t >= 0)
  SET n.recall_count = coalesce(n.recall_count, 0) + 1,
      n.g = coalesce(n.g, 1.0) + (1 - exp(-t)) / (1 + exp(-t)),
      n.last_recalled_at = $now
  RETURN collect(n.id) AS <kind>_changed
}
// end each
RETURN
// each kind with recall, joined by +
<kind>_changed
// end each
AS changed

// Memories of the enabled kinds dated in [$start, $end], oldest first, at most $limit per kind
// (range scans of the ts and start indexes). A segment's or meta-segment's time is its start,
// whether or not it has been embedded yet: only embedding sets its ts.
// name: in_range
// each kind with recall, joined by UNION ALL
MATCH (n:<Kind> {space: $space})
WHERE $<kind> AND n.<time> >= $start AND n.<time> <= $end
RETURN '<Kind>' AS label, n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date,
       toInteger(floor(n.<time>)) AS ts, coalesce(n.recall_count, 0) AS recall_count,
       coalesce(n.g, 1.0) AS g, n.last_recalled_at AS last_recalled_at
ORDER BY ts, id LIMIT $limit
// end each

// How many memories in_range lists without a limit: one row per enabled kind.
// name: count_in_range
// each kind with recall, joined by UNION ALL
MATCH (n:<Kind> {space: $space})
WHERE $<kind> AND n.<time> >= $start AND n.<time> <= $end
RETURN count(n) AS n
// end each
