"""The tools as the text a GPT-style model reads, for the agent tokens of bench_meta.py."""

from __future__ import annotations

import json
from typing import Any


def render_tools(schemas: list[dict[str, Any]]) -> str:
    """Function tools as the text a GPT-style model receives, to count what it really reads.

    OpenAI's API does not put the JSON schemas into the prompt: it renders each function as
    a TypeScript-like type with its description as a comment (the format the OpenAI
    cookbook and openai-chat-tokens count against the API's reported usage); counting the
    JSON overstates that cost about twofold. Servers that render tools through a model's
    chat template may send the JSON itself.
    """
    lines = ["namespace functions {", ""]
    for schema in schemas:
        fn = schema["function"]
        if fn.get("description"):
            lines.append(f"// {fn['description']}")
        params = fn.get("parameters") or {}
        if params.get("properties"):
            lines.append(f"type {fn['name']} = (_: {{")
            lines.extend(_render_props(params))
            lines.append("}) => any;")
        else:
            lines.append(f"type {fn['name']} = () => any;")
        lines.append("")
    lines.append("} // namespace functions")
    return "\n".join(lines)


def _render_props(params: dict[str, Any]) -> list[str]:
    required = set(params.get("required", []))
    lines = []
    for name, prop in params["properties"].items():
        if prop.get("description"):
            lines.append(f"// {prop['description']}")
        lines.append(f"{name}{'' if name in required else '?'}: {_render_type(prop)},")
    return lines


def _render_type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " | ".join(json.dumps(v) for v in prop["enum"])
    kind = prop.get("type")
    if kind == "array":
        return _render_type(prop.get("items", {})) + "[]"
    return {"integer": "number", "string": "string", "number": "number", "boolean": "boolean"}.get(
        str(kind), "any"
    )
