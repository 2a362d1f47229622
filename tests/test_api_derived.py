"""GraphQL types derived from library dataclasses show every field the library adds."""

from __future__ import annotations

import dataclasses

import pytest

from api.derive import DERIVED, derived
from api.schema import schema

# the types that only mirror a library dataclass (docs/architecture.md says which stay by hand)
MIRRORS = {
    "AppendResult",
    "AskResult",
    "AskStep",
    "CloseResult",
    "DeletedDocument",
    "Event",
    "IngestDocumentsResult",
    "IngestResult",
    "Proposition",
    "RecallStats",
    "Recalled",
    "Relation",
    "Series",
    "TimeBounds",
    "TimelineItem",
}


def test_the_mirrors_are_derived() -> None:
    assert set(DERIVED) == MIRRORS


@pytest.mark.parametrize("name", sorted(MIRRORS))
def test_a_derived_type_shows_each_library_field_not_hidden(name: str) -> None:
    mirror = DERIVED[name]
    definition = schema.get_type_by_name(name)
    shown = {f.python_name for f in definition.fields}  # type: ignore[union-attr]
    library = {f.name for f in dataclasses.fields(mirror.library)}
    assert library - mirror.hidden <= shown, name
    assert not mirror.hidden & shown, name


@dataclasses.dataclass(frozen=True)
class _Grown:
    id: str
    text: str
    added_later: int = 0


def test_a_library_field_neither_described_nor_hidden_is_refused() -> None:
    with pytest.raises(
        TypeError, match=r"_Grown\.added_later: describe it .* or list it as hidden"
    ):
        derived(_Grown, "grown", {"id": "Its id", "text": "Its text"})
    assert "_Grown" not in DERIVED


def test_only_a_library_field_not_shown_can_be_hidden() -> None:
    shown_and_hidden = {"id": "Its id", "text": "Its text", "added_later": "Added"}
    for fields, hidden in [
        (shown_and_hidden, ("id",)),
        ({"id": "Its id", "added_later": "Added"}, ("text", "nope")),
    ]:
        with pytest.raises(TypeError, match="hidden, but not a hidden field"):
            derived(_Grown, "grown", fields, hidden=hidden)
