"""One dialect seam: no module outside graphmem/store/ names an engine or branches on one."""

from __future__ import annotations

import ast
from pathlib import Path

import api
import graphmem
from graphmem.store.dialect import DIALECTS

ROOT = Path(graphmem.__file__).resolve().parent
STORE = ROOT / "store"
ENGINE_NAMES = {name.lower() for name in DIALECTS}
DRIVERS = {"falkordb", "neo4j", "redis"}  # only graphmem/store/ may import them
STORE_API = {"base", "sent"}  # graphmem.store's engine-neutral modules, importable anywhere


def modules() -> list[Path]:
    """Every module of graphmem and api outside graphmem/store/."""
    found = [
        path
        for package in (graphmem, api)
        for path in Path(package.__path__[0]).rglob("*.py")
        if STORE not in path.parents
    ]
    assert len(found) > 60, "the scan sees the modules"
    return sorted(found)


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of a module, its classes and functions (prose, allowed)."""
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, nodes) and node.body and isinstance(node.body[0], ast.Expr)
    }


def engine_references(source: str) -> list[str]:
    """What in `source` names an engine: an engine name as a string, a branch on `.engine`,
    the dialect table read directly, or an import of a driver or of an engine module."""
    tree = ast.parse(source)
    prose = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            if node.value.lower() in ENGINE_NAMES:
                found.append(f"{line}: the engine name {node.value!r}")
        elif isinstance(node, ast.Compare) and any(
            isinstance(part, ast.Attribute) and part.attr == "engine"
            for part in (node.left, *node.comparators)
        ):
            found.append(f"{line}: a branch on .engine")
        elif isinstance(node, ast.Attribute) and node.attr == "dialect":
            found.append(f"{line}: reads .dialect")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found += [f"{line}: imports {name}" for name in imported(node) if engine_module(name)]
    return found


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """Modules an import statement may import (`from a import b`: a, and a.b)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    module = node.module or ""
    return [module] + [f"{module}.{alias.name}" for alias in node.names]


def engine_module(name: str) -> bool:
    parts = name.split(".")
    if parts[0] in DRIVERS:
        return True
    if parts[:2] != ["graphmem", "store"] or len(parts) < 3:
        return False  # `from graphmem.store import open_store`: the store's own front door
    return (STORE / f"{parts[2]}.py").exists() and parts[2] not in STORE_API


def test_no_module_outside_the_store_names_an_engine() -> None:
    offences = {
        str(path.relative_to(ROOT.parent)): refs
        for path in modules()
        if (refs := engine_references(path.read_text(encoding="utf-8")))
    }
    assert offences == {}


def test_the_scan_catches_engine_branches() -> None:
    code = '''
"""A docstring may say falkordb."""
import neo4j
from graphmem.store.falkordb_engine import literal
from graphmem.store.base import Store
from graphmem.store import open_store, dialect

def f(store):
    """Or neo4j."""
    if store.engine != "falkordb":  # the branches issue 14 removed
        return "neo4j"
    return store.dialect.json_lists
'''
    found = [ref.split(": ", 1)[1] for ref in engine_references(code)]
    assert sorted(found) == sorted(
        [
            "imports neo4j",
            "imports graphmem.store.falkordb_engine",
            "imports graphmem.store.falkordb_engine.literal",
            "imports graphmem.store.dialect",
            "a branch on .engine",
            "the engine name 'falkordb'",
            "the engine name 'neo4j'",
            "reads .dialect",
        ]
    )
