"""Imports point one way: a module imports only from its own layer or the layers below it.

docs/architecture.md draws the same picture. Every import counts, including the ones inside
functions (a lazy import is still a dependency) and the ones only for type checking.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# bottom to top; a unit is `graphmem.<module or subpackage>` or the `api` package
CORE = {"errors", "limits", "strings", "timeutil", "config", "kinds", "cypher", "metrics"}
CORE |= {"deadline", "jsonargs", "embcodec", "tables", "tokens", "files", "spaces"}
ASSEMBLED = {"agent", "plot", "services", "memory", "demo", "cli", "__init__"}
LAYERS: list[set[str]] = [
    CORE,  # settings, errors, values and their checks, statement files, private files
    {"store", "embed", "llm"},  # what graphmem talks to: the graph, the model, the LLM
    {"vectors"},  # indexes derived from the graph
    {"timeline"},  # recall statistics, used by the other memories
    {"series", "props"},  # the memories
    ASSEMBLED,  # built from the memories: services (the composition root), facade, CLI
    {"api"},  # the web app and MCP server
]
LAYER_OF = {unit: i for i, units in enumerate(LAYERS) for unit in units}


def unit_of(module: str) -> str | None:
    """The layer unit of a dotted module name; None outside graphmem and api."""
    parts = module.split(".")
    if parts[0] == "api":
        return "api"
    if parts[0] != "graphmem":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in a parsed file."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "graphmem":  # from graphmem import embcodec: a submodule
                found += [(node.lineno, _submodule(alias.name)) for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def _submodule(name: str) -> str:
    exists = (ROOT / "graphmem" / f"{name}.py").is_file() or (ROOT / "graphmem" / name).is_dir()
    return f"graphmem.{name}" if exists else "graphmem"


def sources() -> list[Path]:
    return sorted([*(ROOT / "graphmem").rglob("*.py"), *(ROOT / "api").rglob("*.py")])


def test_every_unit_has_a_layer() -> None:
    units = {unit_of(".".join(p.relative_to(ROOT).with_suffix("").parts)) for p in sources()}
    assert units - set(LAYER_OF) == set(), "add new modules to a layer in LAYERS"


def test_imports_point_down() -> None:
    upward = []
    for path in sources():
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mine = LAYER_OF[unit_of(name)]  # type: ignore[index]
        for line, module in imported(ast.parse(path.read_text(encoding="utf-8"))):
            target = unit_of(module)
            if target is not None and LAYER_OF[target] > mine:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert upward == []


def test_the_library_never_imports_the_api() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in (ROOT / "graphmem").rglob("*.py")
        for line, module in imported(ast.parse(path.read_text(encoding="utf-8")))
        if unit_of(module) == "api"
    ]
    assert found == []


def test_the_wheel_code_never_imports_bench() -> None:
    """bench/ (the quality worlds, the tool rendering) is not in the wheel (pyproject.toml ships
    graphmem/ and api/): an import of it would fail once installed."""
    bench = {path.stem for path in (ROOT / "bench").glob("*.py")} | {"bench"}
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sources()
        for line, module in imported(ast.parse(path.read_text(encoding="utf-8")))
        if module.split(".")[0] in bench
    ]
    assert found == []


def test_the_checker_sees_lazy_and_from_imports() -> None:
    tree = ast.parse("def f():\n    from graphmem import embcodec\n    import api.app\n")
    assert [m for _, m in imported(tree)] == ["graphmem.embcodec", "api.app"]


def test_resolvers_call_the_library_not_statements() -> None:
    """api/ runs no named statement itself: what it reads, a library function reads."""
    calls = (".read(", ".write(", ".write_batch(", ".read_lists(")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in (ROOT / "api").rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(f'{call}"' in line for call in calls)
    ]
    assert found == []


# Building the model or the vector indexes from settings: the composition root's job alone.
BUILDERS = {("Embedder", "from_settings"), ("VectorConfig", "from_settings")}
COMPOSITION_ROOT = ROOT / "graphmem" / "services.py"
OWN_TESTS = {ROOT / "tests" / "test_vectors.py"}  # the tests of VectorConfig.from_settings itself


def builder_calls(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, call) of every `Embedder.from_settings(...)` or `VectorConfig.from_settings(...)`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and (owner.id, node.func.attr) in BUILDERS:
                found.append((node.lineno, f"{owner.id}.{node.func.attr}"))
    return found


def test_only_the_composition_root_builds_the_model_and_indexes_from_settings() -> None:
    """graphmem/services.py alone turns settings into an embedder or vector indexes: the
    memories, the series tools, the CLI, the API, bench/ and the tests receive them or ask it."""
    everywhere = [
        path
        for folder in ("graphmem", "api", "bench", "tests", "tools")
        for path in (ROOT / folder).rglob("*.py")
        if path != COMPOSITION_ROOT and path not in OWN_TESTS
    ]
    found = [
        f"{path.relative_to(ROOT)}:{line} calls {call}"
        for path in everywhere
        for line, call in builder_calls(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
    root = builder_calls(ast.parse(COMPOSITION_ROOT.read_text(encoding="utf-8")))
    assert {call for _, call in root} == {"Embedder.from_settings", "VectorConfig.from_settings"}


def test_the_library_constructs_the_model_and_indexes_only_in_the_composition_root() -> None:
    """In graphmem/ and api/ no `Embedder(...)` or `VectorStore(...)` but in services.py (tests
    and benchmarks may build their own explicitly)."""
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} calls {node.func.id}"
        for path in sources()
        if path != COMPOSITION_ROOT
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"Embedder", "VectorStore"}
    ]
    assert found == []


def test_the_builder_check_sees_calls_not_mentions() -> None:
    tree = ast.parse(
        "x = Embedder.from_settings(s)\n# Embedder.from_settings(s)\ny = VectorConfig\n"
    )
    assert builder_calls(tree) == [(1, "Embedder.from_settings")]
