"""Loads the named Cypher statements in cypher/*.cypher: the only source of query text.

A file holds statements introduced by a `// name: <name>` line; the statement's full
name is `<file stem>.<name>`. Malformed files and duplicate names fail when the files
load. A name is looked up when it is used (most code passes names to Store.read/write,
a few modules resolve theirs at import), so an unknown name raises only then:
tests/test_cypher_loader.py checks that every name written in graphmem/ and api/ resolves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from graphmem.errors import CypherLoadError

_HEADER = re.compile(r"^//\s*name:\s*(?P<name>\S+)\s*$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")


@dataclass(frozen=True)
class Statement:
    """One named Cypher statement."""

    name: str
    text: str
    source: str


def default_dir() -> Path:
    """cypher/ beside the package in a checkout, or the copy packed into the wheel."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "cypher", here / "_cypher"):
        if candidate.is_dir():
            return candidate
    raise CypherLoadError(f"no cypher/ directory found near {here}")


def load_dir(directory: Path) -> dict[str, Statement]:
    """Parse every *.cypher file in `directory`; raise on duplicates or malformed files."""
    statements: dict[str, Statement] = {}
    files = sorted(directory.glob("*.cypher"))
    if not files:
        raise CypherLoadError(f"{directory} holds no .cypher files")
    for path in files:
        for stmt in _parse_file(path):
            if stmt.name in statements:
                raise CypherLoadError(
                    f"duplicate statement name {stmt.name!r} in {stmt.source} "
                    f"(first defined in {statements[stmt.name].source})"
                )
            statements[stmt.name] = stmt
    return statements


def _parse_file(path: Path) -> list[Statement]:
    out: list[Statement] = []
    name: str | None = None
    start = 0
    body: list[str] = []

    def finish() -> None:
        if name is None:
            return
        text = "\n".join(ln for ln in body if not ln.lstrip().startswith("//")).strip()
        text = text.removesuffix(";").strip()
        if not text:
            raise CypherLoadError(f"{path.name}:{start}: statement {name!r} is empty")
        out.append(Statement(f"{path.stem}.{name}", text, f"{path.name}:{start}"))

    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _HEADER.match(line.strip())
        if match:
            finish()
            name, start, body = match["name"], lineno, []
            if not _NAME.match(f"{path.stem}.{name}"):
                raise CypherLoadError(f"{path.name}:{lineno}: bad statement name {name!r}")
        elif name is None:
            if line.strip() and not line.strip().startswith("//"):
                raise CypherLoadError(
                    f"{path.name}:{lineno}: text before the first '// name:' header"
                )
        else:
            body.append(line)
    finish()
    return out


@cache
def _registry() -> dict[str, Statement]:
    return load_dir(default_dir())


def statement(name: str) -> Statement:
    """The statement called `name` (e.g. 'series.create'); unknown names raise."""
    registry = _registry()
    try:
        return registry[name]
    except KeyError:
        prefix = name.split(".", 1)[0] + "."
        near = sorted(n for n in registry if n.startswith(prefix))
        hint = f"; statements in that file: {', '.join(near)}" if near else ""
        raise CypherLoadError(f"unknown Cypher statement {name!r}{hint}") from None


def all_statements() -> dict[str, Statement]:
    """Every loaded statement by name."""
    return dict(_registry())
