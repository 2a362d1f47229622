"""Loads the named Cypher statements in cypher/*.cypher: the only source of query text.

A file holds statements introduced by a `// name: <name>` line; the statement's full
name is `<file stem>.<name>`. Malformed files and duplicate names fail when the files
load. A name is looked up when it is used (most code passes names to Store.read/write,
a few modules resolve theirs at import), so an unknown name raises only then:
tests/test_cypher_loader.py checks that every name written in graphmem/ and api/ resolves.

Per-kind statements are templates expanded here from the registry in graphmem/kinds.py:
- `// name: vids_<kind> with vectors` is one statement per memory kind with that trait
  (`with` takes traits joined by `and`, each maybe preceded by `not`; none: every kind);
- lines between `// each kind [with <traits>][, joined by <text>]` and `// end each` are
  repeated per kind inside one statement, joined by the text (e.g. UNION ALL), or by
  nothing; `// each relation ...` repeats over the relation types the same way.
Placeholders: <Kind> (label), <kind> (key), <time> (time property), <embedded> (the
property holding the text its embedding was made from) of a memory kind;
<REL> (type), <rel> (key) of a relation; <RELATION_TYPES> is every relation type joined
by | (for patterns such as [r:<RELATION_TYPES>]). A placeholder outside its expansion fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from graphmem.errors import CypherLoadError
from graphmem.kinds import KINDS, RELATIONS, TRAITS, MemoryKind, RelationKind

_HEADER = re.compile(r"^//\s*name:\s*(?P<name>\S+)(?:\s+with\s+(?P<traits>.+?))?\s*$")
_EACH = re.compile(
    r"^//\s*each\s+(?P<family>\w+)(?:\s+with\s+(?P<traits>[^,]+?))?"
    r"(?:,\s*joined by\s+(?P<joiner>.+?))?\s*$"
)
_END = re.compile(r"^//\s*end each\s*$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")
_PLACEHOLDER = re.compile(r"<(Kind|kind|time|embedded|REL|rel)>")

Item = MemoryKind | RelationKind


@dataclass(frozen=True)
class Statement:
    """One named Cypher statement (per-kind templates already expanded)."""

    name: str
    text: str
    source: str


@dataclass(frozen=True)
class _Raw:
    """A statement as written: its header and body lines, before expansion."""

    name: str
    traits: str | None
    body: list[str]
    where: str


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
        for stmt in (s for raw in _parse_file(path) for s in _expand(raw, path.stem)):
            if stmt.name in statements:
                raise CypherLoadError(
                    f"duplicate statement name {stmt.name!r} in {stmt.source} "
                    f"(first defined in {statements[stmt.name].source})"
                )
            statements[stmt.name] = stmt
    return statements


def _parse_file(path: Path) -> list[_Raw]:
    out: list[_Raw] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _HEADER.match(line.strip())
        if match:
            out.append(_Raw(match["name"], match["traits"], [], f"{path.name}:{lineno}"))
        elif out:
            out[-1].body.append(line)
        elif line.strip() and not line.strip().startswith("//"):
            raise CypherLoadError(f"{path.name}:{lineno}: text before the first '// name:' header")
    return out


def _expand(raw: _Raw, stem: str) -> Iterator[Statement]:
    """The statements `raw` stands for: itself, or one per selected kind."""
    family = _family_of_name(raw.name)
    if family is None:
        if raw.traits is not None:
            raise CypherLoadError(f"{raw.where}: 'with' needs a <kind> in the statement name")
        items: Iterable[Item | None] = [None]
    else:
        items = _select(family, raw.traits, raw.where)
    body = _blocks(raw.body, raw.where)
    for item in items:
        name = f"{stem}.{_fill(raw.name, item)}"
        if not _NAME.match(name):
            raise CypherLoadError(f"{raw.where}: bad statement name {raw.name!r}")
        text = _fill(body, item).strip().removesuffix(";").strip()
        if not text:
            raise CypherLoadError(f"{raw.where}: statement {raw.name!r} is empty")
        left = _PLACEHOLDER.search(text)
        if left:
            raise CypherLoadError(
                f"{raw.where}: {left[0]} in {name} is outside an expansion over its kinds"
            )
        yield Statement(name, text, raw.where)


def _blocks(lines: list[str], where: str) -> str:
    """The body with `// each` blocks repeated and comment lines dropped."""
    out: list[str] = []
    block: list[str] | None = None
    each: re.Match[str] | None = None
    for line in lines:
        text = line.strip()
        if (match := _EACH.match(text)) is not None:
            if block is not None:
                raise CypherLoadError(f"{where}: '// each' blocks do not nest")
            block, each = [], match
        elif _END.match(text):
            if block is None or each is None:
                raise CypherLoadError(f"{where}: '// end each' without '// each'")
            out.append(_repeat(_code("\n".join(block)), each, where))
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    if block is not None:
        raise CypherLoadError(f"{where}: '// each' block without '// end each'")
    return _code("\n".join(out))


def _repeat(block: str, each: re.Match[str], where: str) -> str:
    family = each["family"]
    if family not in _FAMILIES:
        raise CypherLoadError(f"{where}: '// each {family}': known are {', '.join(_FAMILIES)}")
    pieces = [_fill(block, item).strip() for item in _select(family, each["traits"], where)]
    if not each["joiner"]:
        return "\n".join(pieces)
    if all("\n" not in piece for piece in pieces):  # an expression: keep it on one line
        return f" {each['joiner']} ".join(pieces)
    return f"\n{each['joiner']}\n".join(pieces)


def _code(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//"))


def _family_of_name(name: str) -> str | None:
    found = {family for family, (token, _) in _FAMILIES.items() if token in name}
    if len(found) > 1:
        raise CypherLoadError(f"statement name {name!r} expands over more than one registry")
    return found.pop() if found else None


def _select(family: str, traits: str | None, where: str) -> list[Item]:
    """The registry items of `family` having every trait of `traits` ("a and not b")."""
    items: list[Item] = list(_FAMILIES[family][1])
    for term in (traits or "").split(" and ") if traits else []:
        negated, trait = term.startswith("not "), term.removeprefix("not ").strip()
        if family != "kind" or trait not in TRAITS:
            known = ", ".join(TRAITS) if family == "kind" else "none"
            raise CypherLoadError(f"{where}: unknown {family} trait {trait!r}; known: {known}")
        items = [i for i in items if bool(getattr(i, trait)) != negated]
    if not items:
        raise CypherLoadError(f"{where}: 'with {traits}' selects no {family}")
    return items


def _fill(text: str, item: Item | None) -> str:
    """Fill the placeholders of `item` (and the global ones) into `text`."""
    values = {"<RELATION_TYPES>": "|".join(r.type for r in RELATIONS)}
    if isinstance(item, MemoryKind):
        values |= {
            "<Kind>": item.label,
            "<kind>": item.key,
            "<time>": item.time,
            "<embedded>": item.embedded,
        }
    elif isinstance(item, RelationKind):
        values |= {"<REL>": item.type, "<rel>": item.key}
    for token, value in values.items():
        text = text.replace(token, value)
    return text


# family -> (the placeholder that marks a per-item statement name, the registry)
_FAMILIES: dict[str, tuple[str, tuple[Item, ...]]] = {
    "kind": ("<kind>", KINDS),
    "relation": ("<rel>", RELATIONS),
}


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
