"""Per-kind statements from one template: expanded by the loader from graphmem/kinds.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem import cypher
from graphmem.errors import CypherLoadError
from graphmem.kinds import KINDS, MemoryKind

STATEMENTS = cypher.all_statements()


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "t.cypher").write_text(text)
    return tmp_path


def test_every_kind_gets_its_vector_statements() -> None:
    for kind in KINDS:
        names = {f"vectors.{s}_{kind.key}" for s in ("vids", "fetch", "count", "revised")}
        names |= {f"vectors.{s}_{kind.key}_json" for s in ("vids", "fetch")}
        names |= {f"reembed.{s}_{kind.key}" for s in ("pending", "texts", "write")}
        if kind.reembedded:
            names |= {f"vectors.{s}_{kind.key}" for s in ("unembedded", "set_embeddings")}
        else:
            names |= {f"vectors.{s}_{kind.key}" for s in ("clock", "delete")}
        assert names <= STATEMENTS.keys(), kind.label
    assert "vectors.set_embeddings_event" not in STATEMENTS, "events embed no summary"


def test_golden_per_kind_statements() -> None:
    assert STATEMENTS["vectors.count_event"].text == (
        "MATCH (n:Event {space: $space}) RETURN count(n) AS n"
    )
    assert STATEMENTS["vectors.total_event"].text == "MATCH (n:Event) RETURN count(n) AS n"
    assert STATEMENTS["vectors.clock_event"].text == (
        "MATCH (c:VectorClock {space: $space, label: 'Event'})\n"
        "RETURN c.rev AS rev, c.epoch AS epoch, coalesce(c.seq, 0) AS seq"
    )
    assert STATEMENTS["vectors.count_metasegment"].text == (
        "MATCH (n:MetaSegment {space: $space})\n"
        "WHERE n.embedding IS NOT NULL AND n.vid IS NOT NULL AND n.ts IS NOT NULL\n"
        "WITH count(n) AS n\n"
        "OPTIONAL MATCH (c:VectorClock {space: $space, label: 'MetaSegment'})\n"
        "RETURN n, coalesce(c.rev, 0) AS rev, coalesce(c.epoch, '') AS epoch"
    )
    assert STATEMENTS["vectors.unembedded_segment"].text == (
        "MATCH (m:Segment {space: $space})\n"
        "WHERE m.embedding IS NULL OR m.embedded_summary <> m.summary\n"
        "RETURN m.id AS id, m.summary AS summary, m.start AS start, m.vid AS vid"
    )


def test_golden_union_over_kinds() -> None:
    branch = (
        "UNWIND ${key} AS nid\n"
        "MATCH (n:{label} {{space: $space, id: nid}})\n"
        "RETURN n.id AS id, coalesce(n.text, n.summary, '') AS text, n.date AS date, "
        "n.source AS source"
    )
    branches = [branch.format(key=k.key, label=k.label) for k in KINDS if k.recall]
    assert STATEMENTS["timeline.details"].text == "\nUNION ALL\n".join(branches)
    assert STATEMENTS["timeline.reinforce"].text.endswith(
        "RETURN\nproposition_changed + event_changed + segment_changed + metasegment_changed"
        "\nAS changed"
    )


def test_relation_types_expand_too() -> None:
    text = STATEMENTS["props.relations_by_id"].text
    assert [line for line in text.splitlines() if line.startswith("MATCH")] == [
        "MATCH (a)-[r:UPDATES]->(b)",
        "MATCH (a)-[r:CONTRADICTS]->(b)",
        "MATCH (a)-[r:SUPPORTS]->(b)",
    ]
    assert "[r:UPDATES|CONTRADICTS|SUPPORTS]" in STATEMENTS["props.relations"].text


def test_a_new_kind_is_one_registry_line(monkeypatch: pytest.MonkeyPatch) -> None:
    note = MemoryKind("Note", "note", time="at")
    monkeypatch.setitem(cypher._FAMILIES, "kind", ("<kind>", (*KINDS, note)))
    loaded = cypher.load_dir(cypher.default_dir())
    assert {"vectors.vids_note", "vectors.fetch_note", "vectors.count_note"} <= loaded.keys()
    assert "vectors.set_embeddings_note" not in loaded  # not `reembedded`
    assert "n.text = r.text" in loaded["reembed.write_note"].text  # `embedded` defaults to text
    assert loaded["timeline.details"].text.count("UNION ALL") == len(KINDS)
    assert "MATCH (n:Note {space: $space})\nWHERE $note AND n.at >= $start" in (
        loaded["timeline.in_range"].text
    )
    assert "note_changed" in loaded["timeline.reinforce"].text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("// name: x_<kind> with colour\nMATCH (n:<Kind>) RETURN n", "unknown kind trait 'colour'"),
        ("// name: x_<kind> with vectors and not vectors\nRETURN 1", "selects no kind"),
        ("// name: x with vectors\nRETURN 1", "'with' needs a <kind>"),
        ("// name: x\nMATCH (n:<Kind>) RETURN n", "<Kind> in t.x is outside an expansion"),
        ("// name: x\n// each kind\nRETURN 1\n", "without '// end each'"),
        ("// name: x\nRETURN 1\n// end each\n", "'// end each' without '// each'"),
        ("// name: x\n// each kind\n// each kind\n// end each\n", "do not nest"),
        ("// name: x\n// each colour\nRETURN 1\n// end each\n", "known are kind, relation"),
        ("// name: x_<kind>_<rel>\nRETURN 1", "more than one registry"),
    ],
)
def test_template_mistakes_fail_at_load(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(CypherLoadError, match=problem):
        cypher.load_dir(write(tmp_path, text))


def test_each_block_repeats_and_joins(tmp_path: Path) -> None:
    text = (
        "// name: x\nRETURN\n// each kind with reembedded, joined by +\nsize($<kind>)\n"
        "// end each\nAS n\n// name: y_<rel>\nMATCH ()-[r:<REL>]->() RETURN '<rel>' AS k"
    )
    loaded = cypher.load_dir(write(tmp_path, text))
    assert loaded["t.x"].text == "RETURN\nsize($segment) + size($metasegment)\nAS n"
    assert (
        loaded["t.y_contradicts"].text == "MATCH ()-[r:CONTRADICTS]->() RETURN 'contradicts' AS k"
    )
