// What tests/test_agent.py reads of the Ask nodes an answer leaves.

// name: ask
MATCH (a:Ask {space: $space, id: $id}) RETURN a

// name: count
MATCH (a:Ask) RETURN count(a) AS n
