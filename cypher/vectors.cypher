// Vector-index upkeep: which nodes carry an embedding, and their embeddings.
// One statement per label because labels cannot be parameters. A node counts as embedded
// only when it has id, vid, ts and embedding; the rest are invisible to graphmem/vectors/.
// fetch_* looks nodes up by id (unique-indexed) rather than vid (not indexed), so a
// rebuild costs one index seek per node instead of a label scan.
// fetch_json_* is FalkorDB's variant: one JSON string per embedding parses about 7x faster
// in the Python client than a list of floats (0.4 vs 2.9 ms per 384-dim row) for nodes that
// hold a list (written before embeddings were stored as text, graphmem/embcodec.py).
// vid_pairs_* is FalkorDB's variant of vids_*: every (vid, id) as one JSON string, about 70 ms
// at 10^5 nodes against 1.2-1.5 s for 10^5 rows.
// count_* is the freshness signature graphmem/vectors/ compares before searches (another
// process may have written): every Proposition and Event is written with its embedding, so
// their label count (constant time in FalkorDB, ~0.25 ms) counts the embedded ones; segments
// and meta-segments are embedded lazily, so theirs counts embedded nodes (a scan, but those
// labels stay small: a segment stands for many points). Segments and meta-segments are also
// re-embedded in place when their summary changes (same id, same vid, same count), so their
// signature adds the revision of a (:VectorClock {label}) node, which every statement that
// sets their embeddings increments and stamps on the nodes it embeds (emb_rev), and the
// epoch the clock was created in (a random id: a wiped and refilled graph has a new one):
// revised_* finds what changed since a revision. Propositions and events never change.

// name: vids_proposition
MATCH (n:Proposition)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: vid_pairs_proposition
MATCH (n:Proposition)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN toJSON(collect([n.vid, n.id])) AS pairs

// name: count_proposition
MATCH (n:Proposition) RETURN count(n) AS n, 0 AS rev, '' AS epoch

// name: fetch_proposition
UNWIND $ids AS node_id
MATCH (n:Proposition {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_proposition
UNWIND $ids AS node_id
MATCH (n:Proposition {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// name: vids_event
MATCH (n:Event)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: vid_pairs_event
MATCH (n:Event)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN toJSON(collect([n.vid, n.id])) AS pairs

// name: count_event
MATCH (n:Event) RETURN count(n) AS n, 0 AS rev, '' AS epoch

// name: fetch_event
UNWIND $ids AS node_id
MATCH (n:Event {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_event
UNWIND $ids AS node_id
MATCH (n:Event {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// name: vids_segment
MATCH (n:Segment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: vid_pairs_segment
MATCH (n:Segment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN toJSON(collect([n.vid, n.id])) AS pairs

// name: count_segment
MATCH (n:Segment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
WITH count(n) AS n
OPTIONAL MATCH (c:VectorClock {label: 'Segment'})
RETURN n, coalesce(c.rev, 0) AS rev, coalesce(c.epoch, '') AS epoch

// name: revised_segment
MATCH (n:Segment)
WHERE n.emb_rev > $since
  AND n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_segment
UNWIND $ids AS node_id
MATCH (n:Segment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_segment
UNWIND $ids AS node_id
MATCH (n:Segment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// name: vids_metasegment
MATCH (n:MetaSegment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: vid_pairs_metasegment
MATCH (n:MetaSegment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN toJSON(collect([n.vid, n.id])) AS pairs

// name: count_metasegment
MATCH (n:MetaSegment)
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
WITH count(n) AS n
OPTIONAL MATCH (c:VectorClock {label: 'MetaSegment'})
RETURN n, coalesce(c.rev, 0) AS rev, coalesce(c.epoch, '') AS epoch

// name: revised_metasegment
MATCH (n:MetaSegment)
WHERE n.emb_rev > $since
  AND n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_metasegment
UNWIND $ids AS node_id
MATCH (n:MetaSegment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_json_metasegment
UNWIND $ids AS node_id
MATCH (n:MetaSegment {id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// Lazy embeddings of summaries (graphmem/series/textsearch.py): segments and meta-segments of
// every series whose summary has no embedding yet, or changed since it was embedded. A
// meta-segment's time is its start, as a segment's is (see cypher/segments.cypher).
// name: unembedded_segments
MATCH (g:Segment)
WHERE g.embedding IS NULL OR g.embedded_summary <> g.summary
RETURN g.id AS id, g.summary AS summary, g.start AS start, g.vid AS vid

// name: unembedded_metasegments
MATCH (m:MetaSegment)
WHERE m.embedding IS NULL OR m.embedded_summary <> m.summary
RETURN m.id AS id, m.summary AS summary, m.start AS start, m.vid AS vid

// name: set_metasegment_embeddings
MERGE (c:VectorClock {label: 'MetaSegment'})
ON CREATE SET c.epoch = $epoch
SET c.rev = coalesce(c.rev, 0) + 1
WITH c
UNWIND $rows AS r
MATCH (m:MetaSegment {id: r.id})
SET m.vid = r.vid, m.ts = r.ts, m.embedding = r.embedding, m.embedded_summary = r.summary,
    m.emb_rev = c.rev
