"""Writes that guard on a value they then change lock the node first (Neo4j writes in parallel).

A static audit of every statement in cypher/, and races of two writers, each on a connection of
its own, held at a barrier so that both have read before either writes: on the embedded store
(FalkorDB serialises writes) and on Neo4j when NEO4J_URI is set (where only the lock helps).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from races import around

from graphmem import embcodec
from graphmem.cypher import all_statements, load_dir
from graphmem.store import Store
from graphmem.timeline.reinforce import reinforce_in

Q = load_dir(Path(__file__).parent / "cypher")
DAY = 86_400
T0 = 1_700_000_000

_KEYWORDS = (
    "ON CREATE SET|ON MATCH SET|SET|WITH|RETURN|MATCH|OPTIONAL|MERGE|CREATE|UNWIND|CALL"
    "|REMOVE|DELETE|DETACH|FOREACH|WHERE|ORDER|UNION"
)
# a SET clause runs to the next clause, or to the end of its subquery
_SET = re.compile(
    rf"\b(?:ON CREATE SET|ON MATCH SET|SET)\b(?P<items>.*?)(?=\b(?:{_KEYWORDS})\b|\n\s*\}}|$)", re.S
)
_TARGET = re.compile(r"\s*(?P<var>\w+)(?:\.(?P<prop>\w+)\s*=|\s*\+=)")
_READ = re.compile(r"(?<![\w$.])(?P<var>[a-z_]\w*)\.(?P<prop>\w+)\b")


def unlocked_guards(text: str) -> list[str]:
    """`var.prop` read (in a guard, or to compute a new value) before the statement SETs it,
    without the node having been locked (SET var._lock) before the read.

    Each subquery (`CALL { ... }`) is a scope of its own: a variable reused in the next one is
    another node.
    """
    # (scope, var, prop or *) -> end of its last assignment; positions of targets (not reads)
    assigned: dict[tuple[int, str, str], int] = {}
    targets: set[int] = set()
    for clause in _SET.finditer(text):
        start = clause.start("items")
        for item in _items(clause["items"]):
            target = _TARGET.match(text, start + item[0])
            if target:
                key = (_scope(text, target.start()), target["var"], target["prop"] or "*")
                assigned[key] = max(assigned.get(key, -1), start + item[1])
                targets.add(target.start("var"))
    found = []
    for read in _READ.finditer(text):
        var, prop, at = read["var"], read["prop"], read.start()
        if at in targets or prop == "_lock":
            continue
        scope = _scope(text, at)
        changed = max(assigned.get((scope, var, prop), -1), assigned.get((scope, var, "*"), -1))
        if at < changed and not _lock_before(text, var, at):
            found.append(f"{var}.{prop}")
    return sorted(set(found))


def _scope(text: str, at: int) -> int:
    """Where the subquery holding position `at` opens (0: the statement itself)."""
    opened = [m.end() for m in re.finditer(r"\bCALL\s*\{", text[:at])]
    closed = text[:at].count("}") - text[:at].count("{") + len(opened)
    # subqueries do not nest in graphmem's statements: the last one opened holds `at` unless
    # its brace was closed since (map literals open and close their own braces)
    return opened[-1] if opened and closed < len(opened) else 0


def _items(items: str) -> Iterator[tuple[int, int]]:
    """(start, end) of the comma-separated items of a SET clause, commas in brackets kept."""
    depth, start = 0, 0
    for i, ch in enumerate(items):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            yield start, i
            start = i + 1
    yield start, len(items)


def _lock_before(text: str, var: str, at: int) -> bool:
    lock = re.search(rf"\bSET\s+{var}\._lock\s*=\s*true\b", text)
    return lock is not None and lock.start() < at


# Guards whose writers all set the same constant: two of them passing at once change nothing
# the other would not (giving nodes written before spaces the space `default`).
SAME_VALUE = {"schema.migrate_space": ["n.space"]}


def test_every_write_that_guards_on_a_value_it_changes_locks_first() -> None:
    offenders = {
        name: found
        for name, stmt in all_statements().items()
        if (found := unlocked_guards(stmt.text))
    }
    assert offenders == SAME_VALUE


@pytest.mark.parametrize(
    "name", ["ingest.append", "timeline.reinforce", "vectors.set_embeddings_metasegment"]
)
def test_each_lock_in_cypher_is_needed(name: str) -> None:
    text = all_statements()[name].text
    unlocked = "\n".join(line for line in text.splitlines() if "_lock" not in line)
    assert unlocked != text and unlocked_guards(unlocked) != []


def test_the_audit_finds_unlocked_guards() -> None:
    guard = "MATCH (n:Event {id: $id}) WITH n WHERE coalesce(n.last, 0) < $now SET n.last = $now"
    assert unlocked_guards(guard) == ["n.last"]
    counter = "MERGE (c:VectorClock {label: 'x'}) SET c.rev = coalesce(c.rev, 0) + 1 RETURN c.rev"
    assert unlocked_guards(counter) == ["c.rev"]
    whole = "MATCH (s:Series {id: $id}) WHERE s.n = $n SET s += $changes"
    assert unlocked_guards(whole) == ["s.n"]
    locked = guard.replace("WITH n WHERE", "SET n._lock = true REMOVE n._lock WITH n WHERE")
    assert unlocked_guards(locked) == []
    after = "MATCH (n:Event {id: $id}) SET n.last = $now RETURN n.last AS last, $x.last AS y"
    assert unlocked_guards(after) == [], "reading what was just written is no guard"


def race(pair: tuple[Store, Store], statement: str, *calls: Callable[[Store], Any]) -> list[Any]:
    """Run calls[i] on pair[i] at once, each held before `statement` until both got there."""
    meet = threading.Barrier(2, timeout=30)
    for connection in pair:
        around(connection, "write", statement, before=meet.wait)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(call, conn) for call, conn in zip(calls, pair, strict=True)]
        return [future.result(timeout=60) for future in futures]


def propositions(store: Store, *ids: str) -> None:
    rows = [
        {
            "id": i,
            "text": i,
            "date": "2023-11-14",
            "ts": T0,
            "vid": n,
            "embedding": None,
            "created_at": T0,
        }
        for n, i in enumerate(ids)
    ]
    store.write_batch(Q["timeline_test.create_propositions"], rows)


def test_racing_reinforcements_record_one_recall(store: Store, writers) -> None:
    propositions(store, "p1", "p2")
    now = T0 + 3 * DAY
    both = [lambda s: reinforce_in(s, ["p1", "p2"], now)] * 2
    results = race(writers, "timeline.reinforce", *both)
    for i, node_id in enumerate(("p1", "p2")):
        assert [r[i].changed for r in results].count(True) == 1, f"{node_id}: one writer changed it"
    [stats] = reinforce_in(store, ["p1"], now)  # a third, late call changes nothing
    assert stats.recall_count == 1 and stats.last_recalled_at == now and not stats.changed


def test_racing_reembeddings_take_distinct_clock_revisions(store: Store, writers) -> None:
    for i in (1, 2):
        store.write(Q["timeline_test.create_segment"], id=f"g{i}", start=float(T0), summary="s")
    vec = embcodec.encode([[0.5, 0.5]])[0]

    def embed(node_id: str) -> Callable[[Store], Any]:
        row = {"id": node_id, "vid": 1, "ts": T0, "embedding": vec, "summary": "s"}
        return lambda s: s.write_batch("vectors.set_embeddings_segment", [row], epoch="e")

    race(writers, "vectors.set_embeddings_segment", embed("g1"), embed("g2"))
    assert store.read(Q["races_test.clock"], label="Segment") == [{"rev": 2}]
    revs = {row["id"]: row["rev"] for row in store.read(Q["races_test.emb_revs"])}
    assert sorted(revs.values()) == [1, 2], "each re-embedding has a revision of its own"


def test_racing_refinements_of_one_edge_leave_one_edge(store: Store, writers) -> None:
    propositions(store, "new", "old")
    store.write(Q["races_test.create_relation"], src="new", dst="old", id="r1")

    def refine(kind: str) -> Callable[[Store], Any]:
        row = {
            "id": "r1",
            "src": "new",
            "dst": "old",
            "kind": kind,
            "confidence": 0.9,
            "model": "judge",
        }
        return lambda s: s.write("props.replace_relations", rows=[row], now=T0)

    race(writers, "props.replace_relations", refine("contradicts"), refine("supports"))
    edges = store.read("props.relations_by_id", ids=["r1"])
    assert len(edges) == 1 and edges[0]["type"] in ("CONTRADICTS", "SUPPORTS")
    assert edges[0]["refined"] is True and edges[0]["created_at"] == 1
