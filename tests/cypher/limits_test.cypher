// Statements tests/test_deadline.py runs to see the operation time limit stop the store.

// Slow enough to run past a short deadline, with little memory: each of $n MERGEs scans the
// (up to 2000) SlowNodes made so far, which have no index.
// name: slow_write
UNWIND range(1, $n) AS i MERGE (s:SlowNode {i: i % 2000}) RETURN count(s) AS n

// name: count_slow
MATCH (n:SlowNode) RETURN count(n) AS n

// $n squared rows, counted.
// name: slow_read
UNWIND range(1, $n) AS i UNWIND range(1, $n) AS j RETURN count(*) AS n
