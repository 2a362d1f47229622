"""The store contract, run on every engine available (embedded always, Neo4j with NEO4J_URI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphmem.cypher import load_dir
from graphmem.errors import AlreadyExists, InvalidInput, ReadOnlyViolation, StoreError
from graphmem.store import Store

Q = load_dir(Path(__file__).parent / "cypher")


def count(store: Store) -> int:
    return store.read(Q["contract.count"])[0]["n"]


def test_crud_through_named_statements(any_store: Store) -> None:
    created = any_store.write(Q["contract.create"], id="a", text="hello", n=1, xs=[1.5, 2.5])
    assert created == [{"n": {"id": "a", "text": "hello", "n": 1, "xs": [1.5, 2.5]}}]
    row = any_store.read(Q["contract.get"], id="a")[0]
    assert row["n"] == row["props"] == {"id": "a", "text": "hello", "n": 1, "xs": [1.5, 2.5]}
    assert row["xs"] == [1.5, 2.5]
    updated = any_store.write(Q["contract.update"], id="a", changes={"n": 2, "extra": True})
    assert updated[0]["n"]["n"] == 2 and updated[0]["n"]["extra"] is True
    assert any_store.write(Q["contract.delete"], id="a") == [{"deleted": 1}]
    assert any_store.read(Q["contract.get"], id="a") == []


def test_numpy_values_become_plain(any_store: Store) -> None:
    xs = np.array([0.1, 1e300, -3.25])
    any_store.write(Q["contract.create"], id="np", text="x", n=np.int64(7), xs=xs)
    row = any_store.read(Q["contract.get"], id="np")[0]
    assert row["props"]["n"] == 7 and row["xs"] == xs.tolist()


def test_nan_parameter_is_refused_and_nothing_stored(any_store: Store) -> None:
    with pytest.raises(InvalidInput, match=r"xs\[1\]"):
        any_store.write(Q["contract.create"], id="bad", text="x", n=1, xs=[1.0, float("nan")])
    assert count(any_store) == 0


def test_ten_thousand_row_unwind_lands_whole(any_store: Store) -> None:
    rows = [{"id": f"i{i}", "n": i} for i in range(10_000)]
    # MERGE on an id with a unique index (graphmem's schema indexes Chunk.id)
    assert any_store.write_batch(Q["contract.merge_many"], rows) == [{"written": 10_000}]
    assert any_store.read(Q["contract.count_merged"])[0]["n"] == 10_000
    # re-sending the same batch changes nothing
    any_store.write_batch(Q["contract.merge_many"], rows)
    assert any_store.read(Q["contract.count_merged"])[0]["n"] == 10_000


def test_statement_failing_midway_leaves_nothing(any_store: Store) -> None:
    rows = [{"id": f"i{i}", "d": 0 if i == 500 else 1} for i in range(1000)]
    with pytest.raises(StoreError):
        any_store.write_batch(Q["contract.fail_midway"], rows)
    assert count(any_store) == 0


@pytest.mark.parametrize(
    "text",
    [
        'it\'s "quoted" and \\backslashed\\',
        "unicode: Zürich — 東京 — 🚀",
        "MATCH (n) DETACH DELETE n // ') RETURN 1 ; CREATE (x)",
        "line one\nline two\ttabbed\r\n",
        "`backticks` and $dollar {braces}",
        "",
    ],
)
def test_strings_stored_verbatim(any_store: Store, text: str) -> None:
    any_store.write(Q["contract.create"], id="s", text=text, n=0, xs=[])
    assert any_store.read(Q["contract.get"], id="s")[0]["props"]["text"] == text
    assert count(any_store) == 1


def test_read_path_refuses_writes(any_store: Store) -> None:
    with pytest.raises(ReadOnlyViolation):
        any_store.read(Q["contract.create"], id="w", text="x", n=1, xs=[])
    with pytest.raises(ReadOnlyViolation):
        any_store.inspect("CREATE (n:Item {id: 'w'})")
    assert count(any_store) == 0


def test_schema_application_twice_is_harmless(any_store: Store) -> None:
    any_store.write(Q["contract.create_series_like"], id="s1", name="one")
    any_store.apply_schema()
    any_store.apply_schema()
    assert any_store.read("series.get", id="s1")[0]["s"]["name"] == "one"


def test_duplicate_id_is_rejected_clearly(any_store: Store) -> None:
    any_store.write(Q["contract.create_series_like"], id="dup", name="first")
    with pytest.raises(AlreadyExists, match="same id already exists"):
        any_store.write(Q["contract.create_series_like"], id="dup", name="second")
    assert any_store.read("series.get", id="dup")[0]["s"]["name"] == "first"


def test_health_reports_engine_and_version(any_store: Store) -> None:
    health = any_store.health()
    assert health.reachable and health.engine == any_store.engine and health.version
