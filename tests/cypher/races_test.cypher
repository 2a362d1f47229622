// Statements tests/test_lock_then_read.py uses to set up races.

// name: create_relation
MATCH (a:Proposition {space: $space, id: $src})
MATCH (b:Proposition {space: $space, id: $dst})
CREATE (a)-[:UPDATES {id: $id, confidence: 0.5, model: 'offline', refined: false,
                      created_at: 1}]->(b)

// name: clock
MATCH (c:VectorClock {space: $space, label: $label}) RETURN c.rev AS rev

// name: emb_revs
MATCH (g:Segment) RETURN g.id AS id, g.emb_rev AS rev ORDER BY id
