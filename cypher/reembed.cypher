// Re-embedding a space's stored vectors with the configured embedder (graphmem/vectors/
// reembed.py, `graphmem reembed`), and the record of which embedder made them: `model` on the
// (:VectorClock {space, label}) node of each embedded kind (cypher/vectors.cypher).
// A run names itself on the clock (`reembedding`: the embedder it re-embeds with,
// `reembed_run`: its id) and stamps every node it re-embeds with that id (`emb_run`): a run
// interrupted half way is resumed by the next, which re-embeds only the nodes without the
// stamp, then records the new embedder as `model` and clears the run.

// name: models
MATCH (c:VectorClock {space: $space})
RETURN c.label AS label, c.model AS model, c.reembedding AS reembedding

// Records the embedder of each {label, model} of $rows whose clock records none yet (a space
// opened for the first time, or written before the record was kept).
// name: adopt
UNWIND $rows AS r
MERGE (c:VectorClock {space: $space, label: r.label})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
WITH c, r
SET c.model = coalesce(c.model, r.model)

// A label holding no vectors is recorded as the configured embedder's.
// name: set_model
MATCH (c:VectorClock {space: $space, label: $label})
SET c.model = $model

// Starts a run on one label, or resumes the unfinished run of the same embedder under its own
// id (the clock is locked first: two runs starting at once take one id). Returns the run's id.
// name: start
MERGE (c:VectorClock {space: $space, label: $label})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
WITH c
SET c.reembed_run = CASE
      WHEN c.reembedding = $model AND c.reembed_run IS NOT NULL THEN c.reembed_run
      ELSE $run
    END,
    c.reembedding = $model
RETURN c.reembed_run AS run

// Nodes of a kind holding a vector the run has not made yet.
// name: pending_<kind> with vectors
MATCH (n:<Kind> {space: $space})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
  AND n.<embedded> IS NOT NULL AND coalesce(n.emb_run, '') <> $run
RETURN n.id AS id

// The text each node's vector was made from (a segment's summary as it was embedded).
// name: texts_<kind> with vectors
UNWIND $ids AS node_id
MATCH (n:<Kind> {space: $space, id: node_id})
WHERE n.embedding IS NOT NULL AND n.<embedded> IS NOT NULL
RETURN n.id AS id, n.<embedded> AS text

// One batch: each {id, text, embedding} of $rows, unless the node's text changed since it was
// read (a node losing its embedding meanwhile is not a case: embeddings are only replaced). Advances the kind's vector clock and stamps emb_rev, as set_embeddings_* does, so every
// process's index replaces these vectors at its next refresh (the clock is locked before its
// revision is read, see there). Returns how many nodes took their new vector.
// name: write_<kind> with vectors
MERGE (c:VectorClock {space: $space, label: '<Kind>'})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
WITH c
SET c.rev = coalesce(c.rev, 0) + 1
WITH c
UNWIND $rows AS r
MATCH (n:<Kind> {space: $space, id: r.id})
WHERE n.<embedded> = r.text
SET n.embedding = r.embedding, n.emb_rev = c.rev, n.emb_run = $run
RETURN count(n) AS n

// Ends a run on one label: its embedder now made every vector of the label.
// name: finish
MATCH (c:VectorClock {space: $space, label: $label})
WHERE c.reembed_run = $run
SET c.model = c.reembedding
REMOVE c.reembedding, c.reembed_run
