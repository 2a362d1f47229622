// DDL templates: <label> (a node label or a relationship type) and <prop> (one property),
// <props> (n.a, n.b) or <names> (a_b) are filled from graphmem/store/schema.py (never user input). The dialect table in graphmem/store/dialect.py
// says which engine uses which. Each engine's list_* statements answer the same columns:
// indexes (entity 'NODE' or 'RELATIONSHIP', label, properties) of single properties, and unique
// constraints (label, properties, status) of nodes.

// Composite: ids and names are unique per space, (space, id).
// name: neo4j_unique
CREATE CONSTRAINT <label>_<names>_unique IF NOT EXISTS FOR (n:<label>) REQUIRE (<props>) IS UNIQUE

// The single-property constraints of stores written before spaces.
// name: neo4j_drop_unique
DROP CONSTRAINT <label>_<names>_unique IF EXISTS

// Nodes written before spaces belong to the space $space (`default`); run per label, $batch
// nodes at a time, when an open finds the constraints of that time (graphmem/store/base.py).
// name: migrate_space
MATCH (n:<label>) WHERE n.space IS NULL
WITH n LIMIT $batch
SET n.space = $space
RETURN count(n) AS n

// name: neo4j_index
CREATE INDEX <label>_<prop>_index IF NOT EXISTS FOR (n:<label>) ON (n.<prop>)

// name: neo4j_edge_index
CREATE INDEX <label>_<prop>_index IF NOT EXISTS FOR ()-[r:<label>]-() ON (r.<prop>)

// Range indexes only: a text or point index does not serve graphmem's equality and range lookups.
// name: neo4j_list_indexes
SHOW INDEXES YIELD entityType, labelsOrTypes, properties, type
WHERE type = 'RANGE' AND size(labelsOrTypes) = 1 AND size(properties) = 1
RETURN entityType AS entity, labelsOrTypes[0] AS label, properties

// Neo4j 5 named the type UNIQUENESS, later versions NODE_PROPERTY_UNIQUENESS. It builds a
// constraint before CREATE CONSTRAINT returns: a listed one is in force.
// name: neo4j_list_constraints
SHOW CONSTRAINTS YIELD entityType, labelsOrTypes, properties, type
WHERE entityType = 'NODE' AND type CONTAINS 'UNIQUENESS'
RETURN labelsOrTypes[0] AS label, properties, 'OPERATIONAL' AS status

// name: falkordb_index
CREATE INDEX FOR (n:<label>) ON (n.<prop>)

// name: falkordb_edge_index
CREATE INDEX FOR ()-[r:<label>]-() ON (r.<prop>)

// name: falkordb_list_indexes
CALL db.indexes() YIELD label, properties, entitytype
RETURN entitytype AS entity, label, properties

// FalkorDB builds a unique constraint in the background: status PENDING, then OPERATIONAL (or
// FAILED when stored values are not unique).
// name: falkordb_list_constraints
CALL db.constraints() YIELD type, label, properties, status
WITH type, label, properties, status WHERE type = 'UNIQUE'
RETURN label, properties, status

// Deleting a space (graphmem/spaces.py): its nodes of one label with their edges, at most $batch
// at a time so no transaction grows with the space; repeated until none is left.
// name: delete_space
MATCH (n:<label> {space: $space})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS n
