"""The Cypher loader: every product statement loads; malformed files fail at load time."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import graphmem
from graphmem import cypher
from graphmem.errors import CypherLoadError


def write(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path


def test_product_statements_load_with_file_prefix() -> None:
    names = cypher.all_statements()
    assert "series.create" in names and "schema.neo4j_unique" in names
    assert all(stmt.text and not stmt.text.endswith(";") for stmt in names.values())


def test_every_module_imports_so_every_statement_name_resolves() -> None:
    # modules look their statements up at import, so importing all of them checks every name
    for info in pkgutil.walk_packages(graphmem.__path__, "graphmem."):
        importlib.import_module(info.name)


def test_duplicate_name_fails(tmp_path: Path) -> None:
    write(tmp_path, "a.cypher", "// name: x\nRETURN 1\n// name: x\nRETURN 2\n")
    with pytest.raises(CypherLoadError, match="duplicate statement name 'a.x'"):
        cypher.load_dir(tmp_path)


def test_unknown_name_fails_with_hint() -> None:
    with pytest.raises(
        CypherLoadError, match="unknown Cypher statement 'series.craete'.*series.create"
    ):
        cypher.statement("series.craete")


def test_text_before_first_header_fails(tmp_path: Path) -> None:
    write(tmp_path, "a.cypher", "// a comment is fine\nRETURN 1\n")
    with pytest.raises(CypherLoadError, match="a.cypher:2: text before the first"):
        cypher.load_dir(tmp_path)


def test_empty_statement_fails(tmp_path: Path) -> None:
    write(tmp_path, "a.cypher", "// name: x\n// only a comment\n// name: y\nRETURN 1\n")
    with pytest.raises(CypherLoadError, match="statement 'x' is empty"):
        cypher.load_dir(tmp_path)


def test_bad_name_fails(tmp_path: Path) -> None:
    write(tmp_path, "a.cypher", "// name: Bad-Name\nRETURN 1\n")
    with pytest.raises(CypherLoadError, match="bad statement name"):
        cypher.load_dir(tmp_path)


def test_empty_dir_fails(tmp_path: Path) -> None:
    with pytest.raises(CypherLoadError, match="no .cypher files"):
        cypher.load_dir(tmp_path)


def test_comments_and_semicolons_are_stripped(tmp_path: Path) -> None:
    write(
        tmp_path, "q.cypher", "// name: one\n// says hi\nRETURN 1 AS x;\n\n// name: two\nRETURN 2\n"
    )
    loaded = cypher.load_dir(tmp_path)
    assert loaded["q.one"].text == "RETURN 1 AS x"
    assert loaded["q.two"].text == "RETURN 2"
    assert loaded["q.one"].source == "q.cypher:1"
