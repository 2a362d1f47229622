// Keyword-index upkeep (graphmem/vectors/keywords.py): the text of embedded nodes whose words
// never change (propositions, events: an edit that keeps a proposition's id changes only case,
// spacing or a final full stop, which give the same terms), for the BM25 index derived from the
// graph. A proposition's `about` (the headings it sits under, set when it is created) is
// searched with its text: Proposition.searched_text. A node counts as embedded as for the
// vector index (cypher/vectors.cypher: id, vid, ts and embedding), so both indexes hold the
// same nodes and share the freshness signature (vectors.count_<kind>, vectors.clock_<kind>)
// and the (vid, id) pairs (vectors.vids_<kind>).

// name: fetch_<kind> with vectors and not reembedded
UNWIND $ids AS node_id
MATCH (n:<Kind> {space: $space, id: node_id})
WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL
RETURN n.id AS id, n.vid AS vid, n.ts AS ts,
       coalesce(n.text, '') + coalesce(' ' + n.about, '') AS text
