"""Reading rendered context back in tests: its blocks' fields and relation sentences."""

from __future__ import annotations

import re

_LABEL = re.compile(r"\[(P\d+)\] (\d{4}-\d{2}-\d{2})")
_SENTENCE = re.compile(
    r"This statement (updates|is updated by|contradicts|is contradicted by|supports|"
    r"is supported by) (.+?)( \(not counted: this statement is contradicted\))?\.(?: |$)"
)
VOID = " (itself contradicted: not counted)"


def blocks(text: str) -> dict[str, dict[str, str]]:
    """Each block of `render`'s text by its statement: label, Date, Source and Heading (when
    shown), Statement, Status and Relations (when it has any)."""
    out = {}
    for block in filter(None, text.strip().split("\n\n")):
        first, *lines = block.split("\n")
        found = _LABEL.fullmatch(first)
        assert found is not None, first
        fields = {"label": found.group(1), "Date": found.group(2)}
        for line in lines:
            name, colon, value = line.partition(": ")
            if colon and name in ("Source", "Heading", "Statement", "Status"):
                assert name not in fields, block
                fields[name] = value
            else:
                assert "Relations" not in fields and line.startswith("This statement "), block
                fields["Relations"] = line
        out[fields["Statement"]] = fields
    return out


def relations(line: str) -> set[tuple[str, str, str]]:
    """A block's relation sentences as (verb, P-label, note): note "void" for a source that is
    itself contradicted, "refuted" for an edge this refuted statement gives."""
    out = set()
    at = 0
    for found in _SENTENCE.finditer(line):
        assert found.start() == at, line  # nothing between the sentences
        at = found.end()
        verb, refs, refuted = found.groups()
        for ref in re.split(r", | and ", refs):
            void = ref.endswith(VOID)
            note = "void" if void else "refuted" if refuted else ""
            out.add((verb, ref.removesuffix(VOID) if void else ref, note))
    assert at == len(line), line
    return out
