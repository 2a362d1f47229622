"""GraphQL object types derived from the library's dataclasses: resolvers return the library's
objects as they are, and the schema lists their fields (less those hidden) with descriptions."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Collection, Mapping
from typing import Any

import strawberry
from strawberry.types.field import StrawberryField


@dataclasses.dataclass(frozen=True)
class Derived:
    """What a derived type mirrors: its library dataclass and the fields left out of GraphQL."""

    library: type
    hidden: frozenset[str]


DERIVED: dict[str, Derived] = {}  # GraphQL type name → what it mirrors (tests read it)


def derived(
    library: type,
    description: str,
    fields: Mapping[str, str | StrawberryField],
    *,
    name: str | None = None,
    types: Mapping[str, object] | None = None,
    hidden: Collection[str] = (),
) -> type:
    """A strawberry type named `name` (default: the library's) over `library`'s fields.

    `fields` gives each GraphQL field, in schema order, its description, or a `strawberry.field`
    for one renamed (`name=`) or computed from the object (`resolver=` taking `root`). A field
    is typed as the library annotates it (tuples as lists) unless `types` says otherwise: ids
    as `strawberry.ID`, 'YYYY-MM-DD' text as `dt.date` and epoch seconds as `dt.datetime` (the
    Date and DateTime scalars write those), a name as its enum. Every library field is either
    in `fields` or in `hidden`, so one added to the library must be described or hidden.
    """
    own = {f.name for f in dataclasses.fields(library)}
    types = types or {}
    _check_covered(library, own, fields, types, hidden)
    hints = typing.get_type_hints(library)
    annotations: dict[str, object] = {}
    namespace: dict[str, Any] = {"__module__": library.__module__}
    for field_name, spec in fields.items():
        if isinstance(spec, str):
            spec = strawberry.field(description=spec)
        if spec.base_resolver is not None:  # annotated here to keep the fields' order
            annotations[field_name] = spec.base_resolver.type_annotation
        else:
            annotations[field_name] = types.get(field_name) or _graphql(hints[field_name])
        namespace[field_name] = spec
    namespace["__annotations__"] = annotations
    gql_name = name or library.__name__
    made = strawberry.type(type(gql_name, (), namespace), name=gql_name, description=description)
    DERIVED[gql_name] = Derived(library, frozenset(hidden))
    return made


def _check_covered(
    library: type,
    own: set[str],
    fields: Mapping[str, object],
    types: Mapping[str, object],
    hidden: Collection[str],
) -> None:
    """TypeError naming a library field neither shown nor hidden, or a misplaced name."""
    for field_name in sorted(own):
        if field_name not in fields and field_name not in hidden:
            raise TypeError(
                f"{library.__name__}.{field_name}: describe it for GraphQL or list it as hidden"
            )
    for field_name in types:
        if field_name not in own or field_name not in fields:
            raise TypeError(f"{library.__name__}.{field_name}: typed, but not a field shown")
    for field_name in hidden:
        if field_name not in own or field_name in fields:
            raise TypeError(f"{library.__name__}.{field_name}: hidden, but not a hidden field")


def _graphql(annotation: Any) -> Any:
    """A library annotation as strawberry reads it: tuple[X, ...] as list[X]."""
    if typing.get_origin(annotation) is tuple:
        return list[typing.get_args(annotation)[0]]  # type: ignore[misc]
    return annotation
