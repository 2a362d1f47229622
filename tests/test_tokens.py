"""The deterministic token estimate and the tool rendering used by the agent-token benchmark."""

from __future__ import annotations

import json

from bench.tool_render import render_tools
from graphmem.series.meta.tools import tool_schemas
from graphmem.tokens import estimate_tokens


def test_words_number_groups_and_line_breaks_count() -> None:
    assert estimate_tokens("sales grew") == 2
    assert estimate_tokens("2010-01-01,123.45\n") == 11  # 201 0 - 01 - 01 , 123 . 45 \n
    assert estimate_tokens("a\n\n\nb") == 3, "a run of line breaks is one token"


def test_quotes_merge_with_adjacent_json_punctuation() -> None:
    assert estimate_tokens('{"type": "string"}') == 6  # {" type ": " string "}
    assert estimate_tokens('["a","b"]') == 6  # [" a ", " b "]
    assert estimate_tokens("") == 0


def test_identifiers_and_symbol_pairs_count_as_tokenizers_split_them() -> None:
    assert estimate_tokens("meta_segment_id") == 3  # meta _segment _id
    assert estimate_tokens("// a => b") == 4  # // a => b


def test_tools_render_as_typed_signatures_with_their_descriptions() -> None:
    schemas = [
        {
            "type": "function",
            "function": {
                "name": "list_all",
                "description": "Everything.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
        {
            "type": "function",
            "function": {
                "name": "build",
                "description": "Build one.",
                "parameters": {
                    "type": "object",
                    "required": ["series"],
                    "properties": {
                        "series": {"type": "string"},
                        "freq": {
                            "type": "string",
                            "enum": ["year", "month"],
                            "description": "period",
                        },
                        "ids": {"type": "array", "items": {"type": "string"}},
                        "k": {"type": "integer", "minimum": 1},
                        "full": {"type": "boolean"},
                    },
                },
            },
        },
    ]
    assert render_tools(schemas).splitlines() == [
        "namespace functions {",
        "",
        "// Everything.",
        "type list_all = () => any;",
        "",
        "// Build one.",
        "type build = (_: {",
        "series: string,",
        "// period",
        'freq?: "year" | "month",',
        "ids?: string[],",
        "k?: number,",
        "full?: boolean,",
        "}) => any;",
        "",
        "} // namespace functions",
    ]


def test_rendered_tool_schemas_cost_far_fewer_tokens_than_their_json() -> None:
    rendered = estimate_tokens(render_tools(tool_schemas()))
    assert rendered < 0.6 * estimate_tokens(json.dumps(tool_schemas()))
