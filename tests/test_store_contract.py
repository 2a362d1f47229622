"""The store contract, run on every engine available (embedded always, Neo4j with NEO4J_URI)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphmem.config import Settings
from graphmem.cypher import load_dir
from graphmem.errors import (
    AlreadyExists,
    InvalidInput,
    ReadOnlyViolation,
    StoreError,
    StoreUnavailable,
)
from graphmem.store import Store, engine_of, open_store, redact

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


# U+0001 is refused (FalkorDB's index separator, see test_unstorable_values_are_refused)
ALL_CONTROL = "".join(chr(c) for c in range(2, 32)) + "\x7f" + "".join(map(chr, range(128, 160)))


@pytest.mark.parametrize(
    "text",
    [
        'it\'s "quoted" and \\backslashed\\',
        "unicode: Zürich — 東京 — 🚀 👩‍👩‍👧 𝔘 \U0010fffd",
        "MATCH (n) DETACH DELETE n // ') RETURN 1 ; CREATE (x)",
        "line one\nline two\ttabbed\r\n",
        "`backticks` and $dollar {braces}",
        "",
        ALL_CONTROL,
        "escape-looking text: \\u0001 \\x41 \\n \\t \\\\ \\\" \\' \\/ \\q",
        "\\",
        '"',
        '\\"',
        "trailing backslash \\",
        '" } MATCH (z) DETACH DELETE z //',
        "\u2028\u2029\ufeff\u200b\x85\xa0",
    ],
)
def test_strings_stored_verbatim(any_store: Store, text: str) -> None:
    any_store.write(Q["contract.create"], id="s", text=text, n=0, xs=[text, text[::-1]])
    row = any_store.read(Q["contract.get"], id="s")[0]
    assert row["props"]["text"] == text and row["xs"] == [text, text[::-1]]
    assert count(any_store) == 1


def test_every_single_character_round_trips(any_store: Store) -> None:
    # every control character and the ASCII range one by one, and astral-plane samples,
    # each as a value and as a map key
    chars = [chr(c) for c in range(2, 128)] + ["é", "東", "🚀", "\U0001f9ea", "\U000e0001"]
    rows = [{"id": f"c{i}", "n": i} for i in range(len(chars))]
    any_store.write(Q["contract.create"], id="chars", text="".join(chars), n=0, xs=chars)
    keyed = {ch: i for i, ch in enumerate(chars) if ch != "`"}
    got = any_store.read(Q["contract.echo"], value=keyed, rows=rows)[0]
    assert got["value"] == keyed and got["rows"] == rows
    stored = any_store.read(Q["contract.get"], id="chars")[0]
    assert stored["props"]["text"] == "".join(chars) and stored["xs"] == chars


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("a\x00b", "NUL"),
        ("lone \ud800 surrogate", "lone surrogate"),
        (2**63, "64-bit integer range"),
        (-(2**63) - 1, "64-bit integer range"),
        (b"bytes", "bytes cannot be stored"),
        (bytearray(b"x"), "bytes cannot be stored"),
        ({"k": "\x00"}, "NUL"),
        ("a\x01b", r"U\+0001"),
        ("\x01", r"U\+0001"),
        ({"k\x01": 1}, r"U\+0001"),
        (1.7976931348623157e308, "too large to store"),
        (-1.7976931348623157e308, "too large to store"),
    ],
)
def test_unstorable_values_are_refused(any_store: Store, value: object, problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem) as caught:
        any_store.write(Q["contract.create"], id="bad", text="x", n=1, xs=[1.0, value])
    assert caught.value.field.startswith("xs[1]")
    assert count(any_store) == 0


def test_int64_bounds_round_trip(any_store: Store) -> None:
    for n in (2**63 - 1, -(2**63)):
        assert any_store.read(Q["contract.echo"], value=n, rows=[])[0]["value"] == n


def test_largest_storable_float_round_trips(any_store: Store) -> None:
    for x in (1.79769313486231e308, -1.79769313486231e308, 5e-324, -0.0):
        assert any_store.read(Q["contract.echo"], value=x, rows=[])[0]["value"] == x


def test_deep_nesting_is_refused_not_a_recursion_error(any_store: Store) -> None:
    deep: object = 1
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(InvalidInput, match="nested more than 32 levels"):
        any_store.read(Q["contract.echo"], value=deep, rows=[])


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "must not be empty"),
        (" padded", "start or end with whitespace"),
        ("padded\t", "start or end with whitespace"),
        ("\n", "start or end with whitespace"),
        ("x" * 4097, "longer than 4096 bytes"),
        ("é" * 2049, "longer than 4096 bytes"),
    ],
)
def test_writes_refuse_values_that_cannot_be_index_entries(
    any_store: Store, name: str, problem: str
) -> None:
    # FalkorDB trims and truncates index entries: its unique check would crash on these
    with pytest.raises(InvalidInput, match=problem) as caught:
        any_store.write(Q["contract.create_series_like"], id="s", name=name)
    assert caught.value.field == "name"
    assert any_store.read("series.get", id="s") == []
    assert any_store.read("series.get_by_name", name=name) == [], "reads may look them up"


def test_other_strings_are_not_held_to_index_entry_rules(any_store: Store) -> None:
    text, label = "x" * 5000 + " ", " " + "y" * 5000  # a meta-segment's label is free text
    any_store.write(Q["contract.create"], id="long", text=text, n=0, xs=["", " "])
    row = any_store.write(Q["contract.update"], id="long", changes={"label": label})[0]["n"]
    assert row["text"] == text and row["label"] == label and row["xs"] == ["", " "]


def test_index_entries_at_the_limits_are_stored(any_store: Store) -> None:
    for i, name in enumerate(("x" * 4096, "é" * 2048, "a b", "mid\tdle", "ü")):
        any_store.write(Q["contract.create_series_like"], id=f"s{i}", name=name)
        assert any_store.read("series.get_by_name", name=name)[0]["s"]["id"] == f"s{i}"


def test_map_keys_cannot_inject_cypher(any_store: Store) -> None:
    any_store.write(Q["contract.create"], id="keep", text="x", n=1, xs=[])
    attack = "x`:1} MATCH (z) DETACH DELETE z //"
    with pytest.raises(InvalidInput, match="backtick") as caught:
        any_store.write(Q["contract.update"], id="keep", changes={attack: 1})
    assert attack in caught.value.field
    with pytest.raises(InvalidInput, match="backtick"):
        any_store.read(Q["contract.echo"], value=[{"ok": {attack: 1}}], rows=[])
    assert count(any_store) == 1, "nothing was deleted"
    odd = {"a b": 1, "$x": 2, "ü": 3, "": 4, "\\": 5, '"': 6, "'": 7, "}": 8, "\n": 9}
    assert any_store.read(Q["contract.echo"], value=odd, rows=[])[0]["value"] == odd


def test_parameter_names_must_be_identifiers(any_store: Store) -> None:
    with pytest.raises(InvalidInput, match="not a valid parameter name") as caught:
        any_store.read(Q["contract.count"], **{"x=1 MATCH (z) DETACH DELETE z //": 1})
    assert caught.value.field.startswith("x=1")


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


@pytest.mark.parametrize(
    ("url", "error", "message"),
    [
        ("falkordb://127.0.0.1:1", StoreUnavailable, "FalkorDB at 127.0.0.1:1 is not reachable"),
        ("bolt://127.0.0.1:1", StoreUnavailable, "Neo4j is not reachable"),
        ("neo4j://127.0.0.1:1?connect_timeout=2", StoreUnavailable, "Neo4j is not reachable"),
        ("bolt://", InvalidInput, "bolt:// needs a host"),
        ("neo4j+s://user:pw@/db", InvalidInput, "needs a host"),
        ("falkordb+embedded://relative/dir", InvalidInput, "has a host part"),
        ("falkordb://localhost:port", InvalidInput, "is malformed"),
        ("bolt://localhost:7687?timeout=1", InvalidInput, "unknown option 'timeout'"),
        ("bolt://localhost:7687?connect_timeout=0", InvalidInput, "not a positive number"),
        ("mysql://u:secret@localhost/db", InvalidInput, "unsupported scheme"),
    ],
)
def test_bad_store_urls_are_clear_errors(url: str, error: type, message: str) -> None:
    with pytest.raises(error, match=message) as caught:
        open_store(url, Settings())
    assert "secret" not in str(caught.value)


def test_redact_hides_passwords_only() -> None:
    assert redact("bolt://neo4j:s3cr%40t@db:7687/x") == "bolt://neo4j:***@db:7687/x"
    assert redact("falkordb://:pw@h:6379") == "falkordb://:***@h:6379"
    assert redact("bolt://user@h") == "bolt://user@h"
    assert redact("falkordb+embedded:///srv/gm") == "falkordb+embedded:///srv/gm"


def test_engine_names() -> None:
    assert engine_of("falkordb+embedded:///x") == engine_of("falkordb://h") == "falkordb"
    assert {engine_of(f"{s}://h") for s in ("bolt", "neo4j", "neo4j+s", "bolt+s")} == {"neo4j"}
