// Timeline memory: episodic Event nodes and the recall statistics (recall_count, g,
// last_recalled_at) carried by Event, Proposition, Segment and MetaSegment nodes.
// Labels cannot be parameters, so statements that serve every label are a UNION ALL (reads) or
// unit subqueries (writes) with one flat id list per label: $event, $proposition, $segment,
// $metasegment (empty lists cost nothing). Never a subquery importing an outer variable:
// FalkorDB runs those for the first outer row only.
// A memory's own time is coalesce(n.ts, n.start, n.created_at): its date for events and
// propositions (a proposition's created_at is when it was ingested, not when it was true).
// Nodes that were never reinforced may lack recall_count and g: they mean 0 and 1.0.

// name: existing_events
UNWIND $ids AS eid
MATCH (n:Event {id: eid})
RETURN n.id AS id

// One statement per batch, so a batch lands whole; MERGE makes a re-sent event a no-op.
// Embeddings are stored as text (graphmem/embcodec.py: base64 float32), passed through as is.
// name: add_events
UNWIND $rows AS row
MERGE (n:Event {id: row.id})
ON CREATE SET n.text = row.text, n.date = row.date, n.ts = row.ts, n.source = row.source,
              n.vid = row.vid,
              n.embedding = row.embedding,
              n.recall_count = 0, n.g = 1.0, n.created_at = row.ts
RETURN count(n) AS events

// Statistics of the search candidates that were ever recalled; the rest are at their defaults
// and their time comes from the vector index, so they need no row. Hundreds of candidate ids
// travel as one comma-joined string per label (rendered in C, not id by id in Python: ~1.5 ms
// less per recall); the rare id containing a comma comes in the $<label>_extra list instead.
// name: recalled_stats
UNWIND split($event, ',') + $event_extra AS nid
MATCH (n:Event {id: nid}) WHERE n.last_recalled_at IS NOT NULL
RETURN n.id AS id, n.recall_count AS recall_count, n.g AS g,
       n.last_recalled_at AS last_recalled_at
UNION ALL
UNWIND split($proposition, ',') + $proposition_extra AS nid
MATCH (n:Proposition {id: nid}) WHERE n.last_recalled_at IS NOT NULL
RETURN n.id AS id, n.recall_count AS recall_count, n.g AS g,
       n.last_recalled_at AS last_recalled_at
UNION ALL
UNWIND split($segment, ',') + $segment_extra AS nid
MATCH (n:Segment {id: nid}) WHERE n.last_recalled_at IS NOT NULL
RETURN n.id AS id, n.recall_count AS recall_count, n.g AS g,
       n.last_recalled_at AS last_recalled_at
UNION ALL
UNWIND split($metasegment, ',') + $metasegment_extra AS nid
MATCH (n:MetaSegment {id: nid}) WHERE n.last_recalled_at IS NOT NULL
RETURN n.id AS id, n.recall_count AS recall_count, n.g AS g,
       n.last_recalled_at AS last_recalled_at

// What a recall result shows of a memory; segments have a summary instead of a text.
// name: details
UNWIND $event AS nid
MATCH (n:Event {id: nid})
RETURN n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date, n.source AS source
UNION ALL
UNWIND $proposition AS nid
MATCH (n:Proposition {id: nid})
RETURN n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date, n.source AS source
UNION ALL
UNWIND $segment AS nid
MATCH (n:Segment {id: nid})
RETURN n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date, n.source AS source
UNION ALL
UNWIND $metasegment AS nid
MATCH (n:MetaSegment {id: nid})
RETURN n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date, n.source AS source

// Every node with one of $ids, whatever its label, with its statistics.
// name: locate
UNWIND $ids AS nid
MATCH (n:Event {id: nid})
RETURN 'Event' AS label, n.id AS id, coalesce(n.ts, n.start, n.created_at) AS ts,
       coalesce(n.recall_count, 0) AS recall_count, coalesce(n.g, 1.0) AS g,
       n.last_recalled_at AS last_recalled_at
UNION ALL
UNWIND $ids AS nid
MATCH (n:Proposition {id: nid})
RETURN 'Proposition' AS label, n.id AS id, coalesce(n.ts, n.start, n.created_at) AS ts,
       coalesce(n.recall_count, 0) AS recall_count, coalesce(n.g, 1.0) AS g,
       n.last_recalled_at AS last_recalled_at
UNION ALL
UNWIND $ids AS nid
MATCH (n:Segment {id: nid})
RETURN 'Segment' AS label, n.id AS id, coalesce(n.ts, n.start, n.created_at) AS ts,
       coalesce(n.recall_count, 0) AS recall_count, coalesce(n.g, 1.0) AS g,
       n.last_recalled_at AS last_recalled_at
UNION ALL
UNWIND $ids AS nid
MATCH (n:MetaSegment {id: nid})
RETURN 'MetaSegment' AS label, n.id AS id, coalesce(n.ts, n.start, n.created_at) AS ts,
       coalesce(n.recall_count, 0) AS recall_count, coalesce(n.g, 1.0) AS g,
       n.last_recalled_at AS last_recalled_at

// One recall of each listed memory at $now, all in one statement. t is the time since the last
// recall (or the memory's own time) in units of $unit seconds, and
// g_n = g_(n-1) + (1 - e^-t) / (1 + e^-t). The guard makes each (id, now) count once: a $now at
// or before the last recall changes nothing, and neither does a $now before the memory's time.
// name: reinforce
CALL {
  UNWIND $event AS nid
  MATCH (n:Event {id: nid})
  WITH n, (toFloat($now) - coalesce(n.last_recalled_at, n.ts, n.start, n.created_at)) / $unit AS t
  WHERE t > 0 OR (n.last_recalled_at IS NULL AND t >= 0)
  SET n.recall_count = coalesce(n.recall_count, 0) + 1,
      n.g = coalesce(n.g, 1.0) + (1 - exp(-t)) / (1 + exp(-t)),
      n.last_recalled_at = $now
}
CALL {
  UNWIND $proposition AS nid
  MATCH (n:Proposition {id: nid})
  WITH n, (toFloat($now) - coalesce(n.last_recalled_at, n.ts, n.start, n.created_at)) / $unit AS t
  WHERE t > 0 OR (n.last_recalled_at IS NULL AND t >= 0)
  SET n.recall_count = coalesce(n.recall_count, 0) + 1,
      n.g = coalesce(n.g, 1.0) + (1 - exp(-t)) / (1 + exp(-t)),
      n.last_recalled_at = $now
}
CALL {
  UNWIND $segment AS nid
  MATCH (n:Segment {id: nid})
  WITH n, (toFloat($now) - coalesce(n.last_recalled_at, n.ts, n.start, n.created_at)) / $unit AS t
  WHERE t > 0 OR (n.last_recalled_at IS NULL AND t >= 0)
  SET n.recall_count = coalesce(n.recall_count, 0) + 1,
      n.g = coalesce(n.g, 1.0) + (1 - exp(-t)) / (1 + exp(-t)),
      n.last_recalled_at = $now
}
CALL {
  UNWIND $metasegment AS nid
  MATCH (n:MetaSegment {id: nid})
  WITH n, (toFloat($now) - coalesce(n.last_recalled_at, n.ts, n.start, n.created_at)) / $unit AS t
  WHERE t > 0 OR (n.last_recalled_at IS NULL AND t >= 0)
  SET n.recall_count = coalesce(n.recall_count, 0) + 1,
      n.g = coalesce(n.g, 1.0) + (1 - exp(-t)) / (1 + exp(-t)),
      n.last_recalled_at = $now
}
RETURN size($event) + size($proposition) + size($segment) + size($metasegment) AS asked

// Memories of the enabled labels dated in [$start, $end], oldest first, at most $limit per label
// (range scans of the ts indexes). A segment's or meta-segment's time is its start (indexed for
// segments), whether or not it has been embedded yet: only embedding sets its ts.
// name: in_range
MATCH (n:Event)
WHERE $event AND n.ts >= $start AND n.ts <= $end
RETURN 'Event' AS label, n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date,
       n.ts AS ts, coalesce(n.recall_count, 0) AS recall_count, coalesce(n.g, 1.0) AS g,
       n.last_recalled_at AS last_recalled_at
ORDER BY ts, id LIMIT $limit
UNION ALL
MATCH (n:Proposition)
WHERE $proposition AND n.ts >= $start AND n.ts <= $end
RETURN 'Proposition' AS label, n.id AS id, coalesce(n.text, n.summary, '') AS text,
       n.date AS date, n.ts AS ts, coalesce(n.recall_count, 0) AS recall_count,
       coalesce(n.g, 1.0) AS g, n.last_recalled_at AS last_recalled_at
ORDER BY ts, id LIMIT $limit
UNION ALL
MATCH (n:Segment)
WHERE $segment AND n.start >= $start AND n.start <= $end
RETURN 'Segment' AS label, n.id AS id, coalesce(n.text, n.summary, '') AS text,
       n.date AS date, toInteger(floor(n.start)) AS ts, coalesce(n.recall_count, 0) AS recall_count,
       coalesce(n.g, 1.0) AS g, n.last_recalled_at AS last_recalled_at
ORDER BY ts, id LIMIT $limit
UNION ALL
MATCH (n:MetaSegment)
WHERE $metasegment AND n.start >= $start AND n.start <= $end
RETURN 'MetaSegment' AS label, n.id AS id, coalesce(n.text, n.summary, '') AS text,
       n.date AS date, toInteger(floor(n.start)) AS ts, coalesce(n.recall_count, 0) AS recall_count,
       coalesce(n.g, 1.0) AS g, n.last_recalled_at AS last_recalled_at
ORDER BY ts, id LIMIT $limit
