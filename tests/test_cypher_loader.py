"""The Cypher loader: malformed files fail at load time; every name the code uses resolves."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import api
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


def test_every_module_imports() -> None:
    # a few modules resolve statement names built at import (f-strings over labels): this
    # checks those; the names written out in calls are checked by the test below
    for package in (graphmem, api):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(info.name)


STORE_CALLS = {"read", "write", "write_batch", "statement"}
NAME_LIKE = re.compile(r"[a-z][a-z0-9_]*\.[a-z0-9_]+")  # not "text\n" given to file.write()


def statement_names_in_code() -> dict[str, list[str]]:
    """Every statement-like string literal in graphmem/ and api/, with where it is written.

    Taken: the first argument of store.read/write/write_batch and statement(), and any
    string of the form `<cypher file stem>.<name>` (dialect tables, dicts of names).
    """
    stems = {name.split(".", 1)[0] for name in cypher.all_statements()}
    found: dict[str, list[str]] = {}
    for package in (graphmem, api):
        for path in sorted(Path(package.__path__[0]).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for text, line in _scan(tree, stems):
                found.setdefault(text, []).append(f"{path.name}:{line}")
    return found


def _scan(tree: ast.AST, stems: set[str]) -> set[tuple[str, int]]:
    # pieces of f-strings are not names; those modules resolve theirs at import (test above)
    pieces = {id(c) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for c in n.values}
    nodes = (n for n in ast.walk(tree) if id(n) not in pieces)
    return {(text, node.lineno) for node in nodes for text in _candidates(node, stems)}


def _candidates(node: ast.AST, stems: set[str]) -> list[str]:
    if isinstance(node, ast.Call) and node.args:
        func, first = node.func, node.args[0]
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in STORE_CALLS and isinstance(first, ast.Constant) and isinstance(first.value, str):
            return [first.value] if NAME_LIKE.fullmatch(first.value) else []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        stem, dot, rest = node.value.partition(".")
        if dot and stem in stems and re.fullmatch(r"[a-z0-9_]+", rest):
            return [node.value]
    return []


def test_every_statement_name_written_in_the_code_resolves() -> None:
    found = statement_names_in_code()
    assert len(found) > 40, "the scan finds the statement names the code uses"
    known = cypher.all_statements()
    unknown = {name: where for name, where in found.items() if name not in known}
    assert unknown == {}


def test_the_scan_catches_misspelt_names() -> None:
    code = 'store.read("seris.get", id=1)\nx = {"a": "series.craete"}\nstatement("schema.nope")'
    code += '\nout.write("done.\\n")'
    stems = {"series", "schema"}
    found = sorted(text for text, _ in _scan(ast.parse(code + '\nf"series.{x}"'), stems))
    assert found == ["schema.nope", "series.craete", "seris.get"]


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
