"""The GraphQL schema documents itself: a description on every type, field, argument and value."""

from __future__ import annotations

import graphql

from api.schema import schema

SCHEMA = graphql.build_schema(schema.as_str())
BUILT_IN = {"String", "Int", "Float", "Boolean", "ID"}


def undescribed(s: graphql.GraphQLSchema) -> list[str]:
    """Every type, field, argument, input field and enum value of `s` without a description."""
    missing = []
    for name, t in s.type_map.items():
        if name.startswith("__") or name in BUILT_IN:
            continue
        if not t.description:
            missing.append(name)
        if isinstance(t, graphql.GraphQLEnumType):
            missing += [f"{name}.{v}" for v, value in t.values.items() if not value.description]
        for field_name, field in (getattr(t, "fields", None) or {}).items():
            if not field.description:
                missing.append(f"{name}.{field_name}")
            for arg_name, arg in (getattr(field, "args", None) or {}).items():
                if not arg.description:
                    missing.append(f"{name}.{field_name}({arg_name})")
    return missing


def test_every_type_field_argument_and_value_has_a_description() -> None:
    missing = undescribed(SCHEMA)
    assert not missing, f"{len(missing)} without a description:\n" + "\n".join(missing)


def test_the_check_sees_what_lacks_one() -> None:
    bare = graphql.build_schema('"q" type Query { "f" f(a: Int): E } "e" enum E { X "y" Y }')
    assert sorted(undescribed(bare)) == ["E.X", "Query.f(a)"]


def test_ends_are_inclusive_for_segments_and_meta_segments() -> None:
    for type_name in ("Segment", "MetaSegment", "TimeBounds"):
        fields = SCHEMA.type_map[type_name].fields  # type: ignore[union-attr]
        assert "inclusive" in fields["end"].description, type_name
        assert "inclusive" in fields["start"].description, type_name
