// Propositions memory: documents, propositions and the relation edges between propositions.
// (:Document)-[:STATES]->(:Proposition)-[:UPDATES|CONTRADICTS|SUPPORTS]->(:Proposition)
// (the relation types are graphmem/kinds.py RELATIONS: <RELATION_TYPES> and `each relation`)
// Relation edges always point from the newer proposition to the older one and carry a
// deterministic `id` (graphmem/props/model.py relation_id), one edge per ordered pair.

// name: existing
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
RETURN p.id AS id

// name: get
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
RETURN p.id AS id, p.text AS text, p.date AS date, p.ts AS ts, p.source AS source,
       p.about AS about

// The same with what rankers and inspection need too.
// name: fetch
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
RETURN p.id AS id, p.text AS text, p.date AS date, p.ts AS ts, p.source AS source,
       p.about AS about, p.vid AS vid, p.recall_count AS recall_count, p.g AS g,
       p.last_recalled_at AS last_recalled_at, p.created_at AS created_at

// A document and the propositions it states (by date, then id); no row if it is not stored
// completely (`complete` is set by the write that lands its last batch; a Document written
// by an older version with its first batch has none, so its ingestion is redone, idempotently).
// name: document
MATCH (d:Document {space: $space, id: $id}) WHERE d.complete = true
OPTIONAL MATCH (d)-[:STATES]->(p:Proposition)
WITH d, p ORDER BY p.ts, p.id
RETURN d.id AS id, collect(p.id) AS props

// Those of $ids stored completely (see `document`): a bulk import skips them.
// name: complete_documents
UNWIND $ids AS did
MATCH (d:Document {space: $space, id: did})
WHERE d.complete = true
RETURN d.id AS id

// Stored documents with the source and date of one of $docs ({id, source, date}) but other
// text (another id), with their text: earlier versions of a page or a message sent again
// with edits, if their wording is mostly the same (graphmem/props/bulk.py).
// name: other_versions
UNWIND $docs AS doc
MATCH (d:Document {space: $space, source: doc.source})
WHERE d.date = doc.date AND d.id <> doc.id AND d.complete = true
RETURN doc.id AS id, d.id AS earlier, d.text AS text

// The newest stored date after $ts (an index range scan on Proposition.ts: empty, and fast,
// when propositions arrive in date order); null when none is newer.
// name: newest_after
MATCH (p:Proposition {space: $space})
WHERE p.ts > $ts
RETURN max(p.ts) AS ts

// One statement per ingestion batch, so a batch lands whole or not at all: documents,
// propositions, STATES edges and relation edges. MERGE on ids makes a re-sent batch a no-op.
// Embeddings are stored as text (graphmem/embcodec.py: base64 of float32), which neither the
// client nor the database has to take apart number by number.
// What the statement itself created is returned (`created`: proposition ids, `relations`: edge
// count): a read before the write cannot know it, since another writer may store the same
// propositions in between. ON CREATE marks a new node or edge with `_new`, removed in the same
// statement, so no other transaction ever sees it; on Neo4j a concurrent MERGE of the same node
// waits on the unique constraint (of a relation edge: on the lock of its end nodes), then
// matches instead of creating. One subquery per relation type (graphmem/kinds.py): MERGE takes no type parameter.
// A relation edge is written only with a proposition this statement created: one that another
// writer stored first was related by that writer, whose classifier may have judged otherwise.
// (The edge subqueries import `created`, safe on FalkorDB since there is exactly one outer row.)
// name: write_batch
CALL {
  UNWIND $docs AS doc
  MERGE (d:Document {space: $space, id: doc.id})
  ON CREATE SET d.date = doc.date, d.ts = doc.ts, d.source = doc.source, d.text = doc.text,
                d.created_at = $now
  SET d.complete = true
}
CALL {
  UNWIND $props AS row
  MERGE (p:Proposition {space: $space, id: row.id})
  ON CREATE SET p.text = row.text, p.date = row.date, p.ts = row.ts, p.source = row.source,
                p.about = row.about, p.vid = row.vid,
                p.embedding = row.embedding,
                p.recall_count = 0, p.g = 1.0, p.created_at = $now, p._new = true
  WITH p, p._new = true AS fresh
  REMOVE p._new
  RETURN collect(CASE WHEN fresh THEN p.id END) AS created
}
// The Proposition vector clock's `seq` moves and stamps the propositions created (see
// cypher/vectors.cypher added_*); its lock is taken first and held to the commit, so writers'
// seqs become visible in order.
CALL {
  WITH created
  MERGE (c:VectorClock {space: $space, label: 'Proposition'})
  ON CREATE SET c.epoch = $epoch
  SET c._lock = true
  REMOVE c._lock
  SET c.seq = coalesce(c.seq, 0) + 1
  WITH c, created
  UNWIND created AS pid
  MATCH (p:Proposition {space: $space, id: pid})
  SET p.seq = c.seq
  RETURN count(p) AS stamped
}
CALL {
  UNWIND $states AS st
  MATCH (d:Document {space: $space, id: st.doc})
  MATCH (p:Proposition {space: $space, id: st.prop})
  MERGE (d)-[:STATES]->(p)
}
// each relation
CALL {
  WITH created
  UNWIND [rel IN $rels WHERE rel.kind = '<rel>' AND (rel.src IN created OR rel.dst IN created)]
         AS rel
  MATCH (a:Proposition {space: $space, id: rel.src})
  MATCH (b:Proposition {space: $space, id: rel.dst})
  MERGE (a)-[e:<REL> {id: rel.id}]->(b)
  ON CREATE SET e.confidence = rel.confidence, e.model = rel.model, e.refined = false,
                e.created_at = $now, e._new = true
  WITH e, e._new = true AS fresh
  REMOVE e._new
  RETURN count(CASE WHEN fresh THEN 1 END) AS <rel>
}
// end each
// An edit (graphmem/props/edit.py) replaces a proposition: each {old, new} of $retire (empty
// when ingesting) hands the old one's documents (STATES edges) to the new one and, if this
// statement created it, its recall statistics; then the old one goes with its relation edges
// and the Proposition vector clock moves, so every process's index drops it (as
// cypher/vectors.cypher delete_*). The old one is locked first: a concurrent edit or deletion
// of it waits, then finds it gone.
CALL {
  WITH created
  UNWIND $retire AS r
  MATCH (old:Proposition {space: $space, id: r.old})
  SET old._lock = true
  REMOVE old._lock
  WITH old, r, created
  MATCH (new:Proposition {space: $space, id: r.new})
  FOREACH (_ IN CASE WHEN r.new IN created THEN [1] ELSE [] END |
    SET new.recall_count = old.recall_count, new.g = old.g,
        new.last_recalled_at = old.last_recalled_at)
  MERGE (c:VectorClock {space: $space, label: 'Proposition'})
  ON CREATE SET c.epoch = r.epoch
  SET c._lock = true
  REMOVE c._lock
  SET c.rev = coalesce(c.rev, 0) + 1
  WITH old, new
  OPTIONAL MATCH (d:Document)-[:STATES]->(old)
  WITH old, new, collect(d) AS docs
  FOREACH (d IN docs | MERGE (d)-[:STATES]->(new))
  DETACH DELETE old
  RETURN count(*) AS retired
}
RETURN created,
// each relation, joined by +
<rel>
// end each
AS relations, retired

// A proposition's text or source changed without changing its identity (case, spacing or a
// final full stop: the same id, graphmem/props/model.py), so its embedding and edges stand.
// name: set_wording
MATCH (p:Proposition {space: $space, id: $id})
SET p.text = $text, p.source = $source
RETURN p.id AS id

// The documents stating a proposition.
// name: stated_by
MATCH (d:Document)-[:STATES]->(p:Proposition {space: $space, id: $id})
RETURN d.id AS id ORDER BY id

// A document with the propositions no other document states (with their relation edges), in
// one statement that also moves the Proposition vector clock (as cypher/vectors.cypher
// delete_*). The document and each proposition it states are locked before the other
// documents' STATES edges are read: on Neo4j, which runs writes in parallel, two deletions of
// the two documents stating a proposition would otherwise each see the other and both keep it.
// Returns the deleted propositions; no row when the document is not stored.
// name: delete_document
MATCH (d:Document {space: $space, id: $id})
SET d._lock = true
REMOVE d._lock
WITH d
OPTIONAL MATCH (d)-[:STATES]->(p:Proposition)
FOREACH (x IN CASE WHEN p IS NULL THEN [] ELSE [p] END | SET x._lock = true REMOVE x._lock)
WITH d, p
WITH d, collect(CASE WHEN size([(o:Document)-[:STATES]->(p) WHERE o.id <> $id | o.id]) = 0
                     THEN p END) AS lone
MERGE (c:VectorClock {space: $space, label: 'Proposition'})
ON CREATE SET c.epoch = $epoch
SET c._lock = true
REMOVE c._lock
SET c.rev = coalesce(c.rev, 0) + 1
WITH d, lone, [p IN lone | {id: p.id, vid: p.vid}] AS gone
FOREACH (p IN lone | DETACH DELETE p)
DETACH DELETE d
RETURN gone

// Each proposition of $ids with its incoming relations whose source is dated <= $as_of: every
// one from a source in $members, and at most $cap of each type from others, ranked: `rank` 0
// for UPDATES / CONTRADICTS from a source not itself contradicted by a proposition dated <=
// $as_of (src_refuted), 1 for those from a contradicted source, 2 for SUPPORTS; then the
// newest. So a proposition's status as of the date is exact (any edge of a type that counts
// for sure, rank 0, comes first of its type; contradicted sources are followed by
// graphmem/props/status.py) and a proposition that hundreds of statements relate to costs no
// more than any other. `standing`: for each type, how many of its edges are of rank 0, read
// or not (a status lists those read and counts the others).
// SUPPORTS edges from outside $members only count when $supporters (anchors, whose supporters
// may become neighbours). `outgoing`: the edges from each proposition to those in $targets
// (neighbours into anchors, which the anchors' read, whose $members are the anchors, may cap);
// few, since a proposition is related to at most the candidates it was judged against.
// name: with_incoming
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
OPTIONAL MATCH (n:Proposition)-[r:<RELATION_TYPES>]->(p)
WHERE n.ts <= $as_of AND ($supporters OR type(r) <> 'SUPPORTS' OR n.id IN $members)
WITH p, n, r,
     CASE WHEN r IS NULL THEN 3
          WHEN type(r) = 'SUPPORTS' THEN 2
          WHEN size([(x:Proposition)-[:CONTRADICTS]->(n) WHERE x.ts <= $as_of | 1]) > 0 THEN 1
          ELSE 0 END AS rank
ORDER BY p.id, rank, n.ts DESC, n.id
WITH p, type(r) AS kind,
     collect(CASE WHEN r IS NOT NULL AND n.id IN $members THEN [r, n, rank] END) AS mine,
     collect(CASE WHEN r IS NOT NULL AND NOT n.id IN $members THEN [r, n, rank] END)[..$cap]
       AS top,
     count(CASE WHEN rank = 0 THEN 1 END) AS rank0
WITH p, collect(mine + top) AS tops,
     collect(CASE WHEN rank0 > 0 THEN {type: kind, n: rank0} END) AS standing
WITH p, reduce(acc = [], part IN tops | acc + part) AS top, standing
RETURN p.id AS id, p.text AS text, p.date AS date, p.ts AS ts, p.source AS source,
       p.about AS about,
       [t IN top | {id: t[0].id, src: t[1].id, src_ts: t[1].ts, type: type(t[0]),
                    confidence: t[0].confidence, model: t[0].model, refined: t[0].refined,
                    created_at: t[0].created_at, rank: t[2], src_refuted: t[2] = 1}] AS incoming,
       standing,
       [(p)-[o:<RELATION_TYPES>]->(a:Proposition) WHERE a.id IN $targets |
        {id: o.id, dst: a.id, type: type(o), confidence: o.confidence, model: o.model,
         refined: o.refined, created_at: o.created_at}] AS outgoing

// The embeddings of a few propositions. embeddings_json is FalkorDB's variant: one JSON
// string per row parses much faster in its Python client than a list of floats (nodes
// written before embeddings were stored as text hold lists).
// name: embeddings
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
RETURN p.id AS id, p.embedding AS embedding

// name: embeddings_json
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
RETURN p.id AS id, toJSON(p.embedding) AS embedding

// Relation edges by id: one branch per relation type, so each is a seek in that type's index
// on id (graphmem/store/schema.py; no engine uses an index for a pattern of several types).
// name: relations_by_id
// each relation, joined by UNION ALL
MATCH (a)-[r:<REL>]->(b)
WHERE r.id IN $ids AND a.space = $space
RETURN r.id AS id, a.id AS src, b.id AS dst, type(r) AS type, r.confidence AS confidence,
       r.model AS model, r.refined AS refined, r.created_at AS created_at
// end each

// Every relation edge, a page at a time (inspection, export).
// name: relations
MATCH (a:Proposition {space: $space})-[r:<RELATION_TYPES>]->(b:Proposition)
RETURN r.id AS id, a.id AS src, b.id AS dst, type(r) AS type, r.confidence AS confidence,
       r.model AS model, r.refined AS refined, r.created_at AS created_at
ORDER BY r.id SKIP $offset LIMIT $limit

// Refinement: replace each edge by one of the re-judged kind (same id), or drop it (norel).
// The source proposition is locked (written) before its edge is read: engines that run writes
// in parallel (Neo4j) would otherwise let two refinements of one edge both delete it and both
// create a replacement.
// name: replace_relations
UNWIND $rows AS row
MATCH (a:Proposition {space: $space, id: row.src})
SET a._lock = true
REMOVE a._lock
WITH a, row
MATCH (a)-[r:<RELATION_TYPES>]->(b:Proposition {space: $space, id: row.dst})
WHERE r.id = row.id
WITH a, b, r, row, r.created_at AS created_at
DELETE r
WITH a, b, row, created_at
// each relation
FOREACH (_ IN CASE WHEN row.kind = '<rel>' THEN [1] ELSE [] END |
  CREATE (a)-[:<REL> {id: row.id, confidence: row.confidence, model: row.model,
                      refined: true, created_at: created_at, refined_at: $now}]->(b))
// end each
RETURN count(*) AS replaced

// name: counts
OPTIONAL MATCH (p:Proposition {space: $space})
WITH count(p) AS propositions
OPTIONAL MATCH (d:Document {space: $space})
WITH propositions, count(d) AS documents
OPTIONAL MATCH (:Document {space: $space})-[s:STATES]->(:Proposition)
WITH propositions, documents, count(s) AS states
OPTIONAL MATCH (:Proposition {space: $space})-[r:<RELATION_TYPES>]->(:Proposition)
RETURN propositions, documents, states, count(r) AS relations

// name: filtered
// Propositions for listing (GraphQL `propositions`): by source, date range and text.
MATCH (p:Proposition {space: $space})
WHERE ($source IS NULL OR p.source = $source)
  AND ($start IS NULL OR p.ts >= $start)
  AND ($end IS NULL OR p.ts <= $end)
  AND ($contains IS NULL OR toLower(p.text) CONTAINS toLower($contains))
RETURN p.id AS id, p.text AS text, p.date AS date, p.ts AS ts, p.source AS source,
       p.about AS about
ORDER BY p.ts, p.id
SKIP $offset LIMIT $limit

// name: filtered_count
MATCH (p:Proposition {space: $space})
WHERE ($source IS NULL OR p.source = $source)
  AND ($start IS NULL OR p.ts >= $start)
  AND ($end IS NULL OR p.ts <= $end)
  AND ($contains IS NULL OR toLower(p.text) CONTAINS toLower($contains))
RETURN count(p) AS n

// A proposition's relation edges (GraphQL `relations`): $direction incoming, outgoing or both;
// an edge counts as of $as_of when its source, the newer proposition, is dated by then.
// name: relations_of
MATCH (p:Proposition {space: $space, id: $id})-[r:<RELATION_TYPES>]-(:Proposition)
WITH DISTINCT r
WITH r, startNode(r) AS a, endNode(r) AS b
WHERE a.ts <= $as_of AND ($direction = 'both' OR (a.id = $id) = ($direction = 'outgoing'))
RETURN r.id AS id, a.id AS src, b.id AS dst, type(r) AS type, r.confidence AS confidence,
       r.model AS model, r.refined AS refined, r.created_at AS created_at
ORDER BY a.ts DESC, r.id SKIP $offset LIMIT $limit

// name: relations_of_count
MATCH (p:Proposition {space: $space, id: $id})-[r:<RELATION_TYPES>]-(:Proposition)
WITH DISTINCT r
WITH r, startNode(r) AS a
WHERE a.ts <= $as_of AND ($direction = 'both' OR (a.id = $id) = ($direction = 'outgoing'))
RETURN count(r) AS n

// Who contradicts each of $ids as of $as_of, and whether each of those is contradicted in
// turn: graphmem/props/status.py follows such chains to decide which edges count.
// name: contradictors
UNWIND $ids AS pid
MATCH (p:Proposition {space: $space, id: pid})
OPTIONAL MATCH (x:Proposition)-[:CONTRADICTS]->(p)
WHERE x.ts <= $as_of
WITH pid, x
RETURN pid AS id, collect(CASE WHEN x IS NULL THEN NULL ELSE {
         id: x.id,
         contradicted: size([(y:Proposition)-[:CONTRADICTS]->(x) WHERE y.ts <= $as_of | y.id]) > 0
       } END) AS by
