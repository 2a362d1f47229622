// Vector-index upkeep: which nodes carry an embedding, and their embeddings. Each statement is
// written once and expanded per memory kind (graphmem/kinds.py: <Kind> is the label, <kind> its
// key). A node counts as embedded only when it has id, vid, ts and embedding; the rest are
// invisible to graphmem/vectors/.
// fetch_* looks nodes up by id (unique-indexed) rather than vid (not indexed), so a
// rebuild costs one index seek per node instead of a label scan.
// The *_json twins are the JSON-list fast path (Store.read_lists, engines whose dialect has
// json_lists): one JSON string parses about 7x faster in FalkorDB's Python client than a list
// of floats (0.4 vs 2.9 ms per 384-dim row, for nodes that hold a list, written before
// embeddings were stored as text, graphmem/embcodec.py), and every (vid, id) pair as one string
// takes about 70 ms at 10^5 nodes against 1.2-1.5 s as lists.
// count_* is the freshness signature graphmem/vectors/ compares before searches (another
// process may have written): every memory of a kind that is not re-embedded (propositions,
// events) is written with its embedding, so their label count (constant time in FalkorDB,
// ~0.25 ms) counts the embedded ones; re-embedded kinds (segments, meta-segments) are embedded
// lazily, so theirs counts embedded nodes (a scan, but those labels stay small: a segment
// stands for many points). A count alone misses a deletion followed by as many additions, and
// a re-embedding in place (same id, same vid, same count), so the signature adds the revision
// of a (:VectorClock {space: $space, label}) node, which every statement that deletes nodes of the kind
// (delete_*) or sets their embeddings increments (the latter also stamps the nodes it embeds:
// emb_rev), and the epoch the clock was created in (a random id: a wiped and refilled graph has
// a new one): revised_* finds what was re-embedded since a revision. The clock of kinds that
// are not re-embedded also counts creations (`seq`, see added_*), outside the signature.

// name: vids_<kind> with vectors
MATCH (n:<Kind> {space: $space})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN collect([n.vid, n.id]) AS pairs

// name: vids_<kind>_json with vectors
MATCH (n:<Kind> {space: $space})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN toJSON(collect([n.vid, n.id])) AS pairs

// FalkorDB counts a label in constant time only for this exact form (any other column makes
// it a scan: 65 ms at 2 * 10^5 nodes against 0.4 ms), so the clock of these kinds is read apart.
// name: count_<kind> with vectors and not reembedded
MATCH (n:<Kind> {space: $space}) RETURN count(n) AS n

// A space's count is not the bare label form: counting a large space takes an index scan (65 ms
// at 1.8 * 10^5 nodes). So graphmem/vectors/synced.py reads two store-wide marks first, the
// label count (constant time) and the sum of the kind's clock revisions over every space
// (deletions move it): while neither moved, no node of the kind was added or deleted in any
// space, and the space's count is still the one last read. They say nothing of any space's
// data, so they alone among the statements do not match on the space.
// name: total_<kind> with vectors and not reembedded
MATCH (n:<Kind>) RETURN count(n) AS n

// name: revs_<kind> with vectors and not reembedded
MATCH (c:VectorClock {label: '<Kind>'}) RETURN sum(c.rev) AS rev, count(c) AS clocks

// The clock also carries `seq`, moved by every statement that creates nodes of the kind, which
// stamps them with it (n.seq): added_* reads only what was created after a catch-up's `seq`.
// name: clock_<kind> with vectors and not reembedded
MATCH (c:VectorClock {space: $space, label: '<Kind>'})
RETURN c.rev AS rev, c.epoch AS epoch, coalesce(c.seq, 0) AS seq

// The nodes of a kind created since the clock's `seq` was $since: a range seek on the seq index
// (graphmem/store/schema.py), so a catch-up after another process's write reads what it wrote,
// not every (vid, id) pair of the label. Writers take the clock's lock before moving `seq` and
// hold it to their commit, so the seqs become visible in order: no node of a seq at most a
// `seq` read from the clock can still appear.
// name: added_<kind> with vectors and not reembedded
MATCH (n:<Kind>)
WHERE n.seq > $since AND n.space = $space
  AND n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.vid AS vid, n.id AS id

// name: count_<kind> with reembedded
MATCH (n:<Kind> {space: $space})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
WITH count(n) AS n
OPTIONAL MATCH (c:VectorClock {space: $space, label: '<Kind>'})
RETURN n, coalesce(c.rev, 0) AS rev, coalesce(c.epoch, '') AS epoch

// name: revised_<kind> with vectors
MATCH (n:<Kind> {space: $space})
WHERE n.emb_rev > $since
  AND n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid

// name: fetch_<kind> with vectors
UNWIND $ids AS node_id
MATCH (n:<Kind> {space: $space, id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, n.embedding AS embedding

// name: fetch_<kind>_json with vectors
UNWIND $ids AS node_id
MATCH (n:<Kind> {space: $space, id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts, toJSON(n.embedding) AS embedding

// Lazy embeddings of summaries (graphmem/vectors/summaries.py): memories of every series whose
// summary has no embedding yet, or changed since it was embedded. A (meta-)segment's time is
// its start (see cypher/segments.cypher).
// name: unembedded_<kind> with reembedded
MATCH (m:<Kind> {space: $space})
WHERE m.embedding IS NULL OR m.embedded_summary <> m.summary
RETURN m.id AS id, m.summary AS summary, m.<time> AS start, m.vid AS vid

// Bumps the kind's vector clock, so other processes' indexes see the re-embedding. The clock is
// locked (written) before its revision is read: engines that run writes in parallel (Neo4j)
// would otherwise let two writers read the same revision and stamp both re-embeddings with it.
// name: set_embeddings_<kind> with reembedded
MERGE (c:VectorClock {space: $space, label: '<Kind>'})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
WITH c
SET c.rev = coalesce(c.rev, 0) + 1
WITH c
UNWIND $rows AS r
MATCH (m:<Kind> {space: $space, id: r.id})
SET m.vid = r.vid, m.ts = r.ts, m.embedding = r.embedding, m.embedded_summary = r.summary,
    m.emb_rev = c.rev

// Deletes nodes of a kind that is not re-embedded (with their edges) and bumps the kind's vector
// clock in the same statement, so every process's index drops them at its next refresh, even
// if as many nodes were added meanwhile. The clock is locked before its revision is read (see
// set_embeddings_*). Returns what was deleted.
// name: delete_<kind> with vectors and not reembedded
MERGE (c:VectorClock {space: $space, label: '<Kind>'})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
SET c.rev = coalesce(c.rev, 0) + 1
WITH c
UNWIND $ids AS node_id
MATCH (n:<Kind> {space: $space, id: node_id})
WITH n, n.id AS id, n.vid AS vid, n.text AS text, n.date AS date, n.ts AS ts, n.source AS source,
     n.about AS about
DETACH DELETE n
RETURN id, vid, text, date, ts, source, about
