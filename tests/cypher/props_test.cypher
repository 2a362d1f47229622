// Statements tests/test_props_ingest.py uses to reproduce graphs older versions left behind.

// A document ingested by a version that wrote the Document with its first batch and was
// interrupted: no `complete` marker, and one of its propositions missing.
// name: interrupted_legacy_document
MATCH (d:Document {space: $space, id: $id})-[:STATES]->(p:Proposition {space: $space, id: $missing})
REMOVE d.complete
DETACH DELETE p
