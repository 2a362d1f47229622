// DDL templates: <label> and <prop> are filled from graphmem/store/schema.py (never user input).
// The dialect table in graphmem/store/dialect.py says which engine uses which.

// name: neo4j_unique
CREATE CONSTRAINT <label>_<prop>_unique IF NOT EXISTS FOR (n:<label>) REQUIRE n.<prop> IS UNIQUE

// name: neo4j_index
CREATE INDEX <label>_<prop>_index IF NOT EXISTS FOR (n:<label>) ON (n.<prop>)

// name: falkordb_index
CREATE INDEX FOR (n:<label>) ON (n.<prop>)

// name: falkordb_list_indexes
CALL db.indexes() YIELD label, properties RETURN label, properties

// name: falkordb_list_constraints
CALL db.constraints() YIELD type, label, properties, status RETURN type, label, properties, status
