"""The dialect table: the exact DDL and statements each engine receives, the schema in place,
and both branches of the JSON-list fast path (Store.read_lists) on the embedded store."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from graphmem import embcodec
from graphmem.cypher import load_dir
from graphmem.series.catalog import create_series
from graphmem.series.detect.archive import read_time_range
from graphmem.series.detect.ingest import append
from graphmem.series.detect.synthetic import sales_series
from graphmem.store import Store
from graphmem.store.base import json_columns
from graphmem.store.schema import EDGE_INDEXES, INDEXES, UNIQUE
from graphmem.store.sent import sent_statements
from graphmem.vectors import VectorStore, vector_id

Q = load_dir(Path(__file__).parent / "cypher")
NEO4J = sent_statements("neo4j")
FALKORDB = sent_statements("falkordb")


UPKEEP = ("schema.migrate_space[", "schema.delete_space[", "schema.neo4j_drop_unique[")


def ddl(sent: dict[str, str]) -> dict[str, str]:
    """The schema's DDL (not the statements upgrading a store or deleting a space)."""
    return {n: text for n, text in sent.items() if "[" in n and not n.startswith(UPKEEP)}


def test_golden_neo4j_ddl() -> None:
    got = ddl(NEO4J)
    assert len(got) == len(INDEXES) + len(EDGE_INDEXES) + len(UNIQUE)
    assert got["schema.neo4j_index[Chunk.series_id]"] == (
        "CREATE INDEX Chunk_series_id_index IF NOT EXISTS FOR (n:Chunk) ON (n.series_id)"
    )
    assert got["schema.neo4j_edge_index[UPDATES.id]"] == (
        "CREATE INDEX UPDATES_id_index IF NOT EXISTS FOR ()-[r:UPDATES]-() ON (r.id)"
    )
    assert got["schema.neo4j_unique[VectorClock.space_label]"] == (
        "CREATE CONSTRAINT VectorClock_space_label_unique IF NOT EXISTS "
        "FOR (n:VectorClock) REQUIRE (n.space, n.label) IS UNIQUE"
    )
    assert NEO4J["schema.neo4j_drop_unique[Series.name]"] == (
        "DROP CONSTRAINT Series_name_unique IF EXISTS"
    ), "the constraint of a store written before spaces, dropped when it is upgraded"
    assert NEO4J["schema.neo4j_list_indexes"].startswith("SHOW INDEXES YIELD")
    assert NEO4J["schema.neo4j_list_constraints"].startswith("SHOW CONSTRAINTS YIELD")


def test_golden_falkordb_ddl() -> None:
    got = ddl(FALKORDB)
    # unique constraints are a GRAPH.CONSTRAINT command there, on an index of their own
    backing = {(label, p) for label, props in UNIQUE for p in props}
    assert len(got) == len(set(INDEXES) | backing) + len(EDGE_INDEXES)
    assert got["schema.falkordb_index[ToolCall.session]"] == (
        "CREATE INDEX FOR (n:ToolCall) ON (n.session)"
    )
    assert got["schema.falkordb_index[Series.name]"] == "CREATE INDEX FOR (n:Series) ON (n.name)"
    assert got["schema.falkordb_edge_index[SUPPORTS.id]"] == (
        "CREATE INDEX FOR ()-[r:SUPPORTS]-() ON (r.id)"
    )


def test_each_engine_receives_only_its_own_statements() -> None:
    assert not any("toJSON" in text for text in NEO4J.values()), "Neo4j has no toJSON()"
    assert not any(name.endswith("_json") or "falkordb" in name for name in NEO4J)
    assert not any("neo4j" in name for name in FALKORDB)
    assert {"vectors.vids_event_json", "chunks.by_time_range_json"} <= FALKORDB.keys()
    assert NEO4J["vectors.vids_event"] == FALKORDB["vectors.vids_event"], "shared text"
    shared = {name for name in NEO4J if not name.startswith("schema.")}
    assert shared <= FALKORDB.keys()
    assert {n for n in FALKORDB.keys() - shared if not n.startswith("schema.")} == {
        n for n in FALKORDB if n.endswith("_json")
    }, "FalkorDB receives the JSON-list twins besides"
    left = {n: m for n, t in {**NEO4J, **FALKORDB}.items() if (m := re.search(r"<\w+>", t))}
    assert left == {}, "every placeholder filled"


def test_every_json_twin_names_the_columns_it_encodes() -> None:
    twins = [name.removesuffix("_json") for name in FALKORDB if name.endswith("_json")]
    assert len(twins) == 12  # 3 chunk reads, embeddings, vids and fetch per kind with vectors
    columns = {base: json_columns(base) for base in twins}
    assert columns["chunks.by_time_ranges"] == ("ts", "xs")
    assert columns["vectors.vids_segment"] == ("pairs",)
    assert all(columns.values()), "read_lists decodes something in each"
    for base in twins:
        aliases = re.findall(r"\bAS (\w+)", FALKORDB[base].split("RETURN")[-1])
        assert set(columns[base]) <= set(aliases), base


def test_schema_is_in_place_and_not_sent_again(store: Store) -> None:
    have = store._existing_schema()
    assert {("edge_index", rel, ("id",)) for rel, _ in EDGE_INDEXES} <= have
    assert {("index", "ToolCall", ("session",)), ("unique", "Series", ("space", "id"))} <= have
    assert ("unique", "Series", ("id",)) not in have, "ids are unique per space only"
    assert store.apply_schema() == 0


@pytest.fixture(params=["json lists", "plain lists"])
def lists_store(store: Store, request: pytest.FixtureRequest, monkeypatch) -> Store:
    """The store under test with each value of the dialect's json_lists flag it supports."""
    json_lists = request.param == "json lists"
    if json_lists and not store.dialect.json_lists:
        pytest.skip("this engine has no toJSON(): lists travel as lists only")
    flags = dataclasses.replace(store.dialect, json_lists=json_lists)
    monkeypatch.setattr(type(store), "dialect", property(lambda self: flags))
    return store


def test_points_read_back_exactly_either_way(lists_store: Store) -> None:
    data = sales_series(seed=0)
    series = create_series(lists_store, "sales")
    append(lists_store, series.id, data.ts[:3000], data.xs[:3000])
    points = read_time_range(lists_store, series.id, data.ts[1000], data.ts[2500])
    assert np.array_equal(points.ts, data.ts[1000:2501])
    # stored with 15 significant digits, what FalkorDB returns (graphmem/series/detect/batch.py)
    np.testing.assert_allclose(points.xs, data.xs[1000:2501], rtol=1e-14)


def test_vector_index_rebuilds_from_the_graph_either_way(lists_store: Store, tmp_path) -> None:
    vecs = np.eye(4, dtype=np.float32)
    rows = [
        {"id": f"p{i}", "vid": vector_id(f"p{i}"), "ts": 1_700_000_000 + i, "embedding": e}
        for i, e in enumerate(embcodec.encode(vecs))
    ]
    rows[3]["embedding"] = vecs[3].tolist()  # as nodes written before embeddings were text
    lists_store.write_batch(Q["vectors_test.create_propositions"], rows)
    vectors = VectorStore(lists_store, tmp_path, "test-embedder", 4)
    vectors.index("Proposition")
    assert vectors.report("Proposition").added == 4
    hits = vectors.search("Proposition", vecs[3], k=1)
    assert [hit.vid for hit in hits] == [vector_id("p3")]
    emb = lists_store.read_lists("props.embeddings", ids=["p0", "p3"])
    assert {r["id"]: embcodec.decode(r["embedding"]).tolist() for r in emb} == {
        "p0": vecs[0].tolist(),
        "p3": vecs[3].tolist(),
    }
