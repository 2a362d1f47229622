// Statements tests/test_timeline.py uses to put other labels' memories into the graph.

// Propositions as graphmem/props stores them (created_at is the ingestion time there).
// name: create_propositions
UNWIND $rows AS row
CREATE (n:Proposition {space: $space, id: row.id, text: row.text, date: row.date, ts: row.ts, vid: row.vid,
                       embedding: row.embedding, recall_count: 0, g: 1.0,
                       created_at: row.created_at})
RETURN count(n) AS created

// A segment without recall statistics: they start at their defaults.
// name: create_segment
CREATE (n:Segment {space: $space, id: $id, start: $start, summary: $summary})
RETURN n.id AS id

// name: count_events
MATCH (n:Event) RETURN count(n) AS n

// name: event
MATCH (n:Event {space: $space, id: $id}) RETURN n {.*, embedding: null} AS n

// A meta-segment without recall statistics, likewise.
// name: create_metasegment
CREATE (n:MetaSegment {space: $space, id: $id, start: $start, summary: $summary})
RETURN n.id AS id
