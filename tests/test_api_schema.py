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


def test_an_error_names_the_field_in_the_requests_camel_case() -> None:
    from api.errors import error_extensions
    from graphmem.errors import InvalidInput

    names = [
        ("as_of", "asOf"),
        ("spec.member_ids[2]", "spec.memberIds[2]"),
        ("rankBy", "rankBy"),
        ("points[3].value", "points[3].value"),
    ]
    for library, request in names:
        error = graphql.GraphQLError("bad", original_error=InvalidInput(library, "is bad"))
        assert error_extensions(error) == {"code": "BAD_INPUT", "field": request}


def test_a_written_value_that_does_not_fit_its_type_names_its_argument() -> None:
    cases = [
        ('{ subgraph(question: "q", asOf: "yesterday") { question } }', "asOf"),
        ('{ metaSegments(seriesId: "s", frequency: FORTNIGHT) { total } }', "frequency"),
        ('{ metaSegments(seriesId: "s", kind: "RANGE") { total } }', "kind"),
        ("mutation { buildMetaSegments(spec: {kind: CLUSTER}) { id } }", "spec.kind"),
        (
            'mutation { addPropositions(propositions: [{text: "a", date: "2020-01-01"}, '
            '{text: "b", date: "2020-02-30"}]) { added } }',
            "propositions[1].date",
        ),
        ('{ segments(seriesId: "s", start: "soon") { total } }', "start"),
    ]
    for query, field in cases:
        [error] = schema.execute_sync(query).errors
        assert error.extensions == {"code": "BAD_INPUT", "field": field}, query
