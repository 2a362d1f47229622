// Statements tests/test_meta.py uses to put nodes into the form older versions wrote.

// name: to_legacy_sums
// A node's statistics as raw power sums (before the centred statistics).
MATCH (n {id: $id})
SET n.sum_x = $sx, n.sum_x2 = $sxx, n.sum_t = $st, n.sum_t2 = $stt, n.sum_tx = $stx
REMOVE n.mean_x, n.m2_x, n.mean_t, n.m2_t, n.c_tx
RETURN n.id AS id

// name: legacy_keys
MATCH (n {id: $id}) RETURN n.sum_x AS sx, n.m2_x AS m2x
