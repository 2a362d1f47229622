"""Validate tool arguments against the small JSON-schema subset our tools use."""

from __future__ import annotations

import json
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.strings import storable

_TYPES = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """Tool-call arguments as a dict; malformed JSON is an InvalidInput in plain words."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise InvalidInput("arguments", f"are not valid JSON ({error.msg})") from None
    if not isinstance(value, dict):
        raise InvalidInput("arguments", "must be a JSON object")
    return value


def _check(name: str, value: Any, schema: dict[str, Any]) -> None:
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind]) and not (
            kind in ("number", "integer") and isinstance(value, bool)
        )
        if not ok:
            article = "an" if kind[0] in "aeiou" else "a"
            raise InvalidInput(name, f"must be {article} {kind}, got {json.dumps(value)[:60]}")
    if "enum" in schema and value not in schema["enum"]:
        raise InvalidInput(name, f"must be one of {', '.join(map(str, schema['enum']))}")
    if "minimum" in schema and value < schema["minimum"]:
        raise InvalidInput(name, f"must be at least {schema['minimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        raise InvalidInput(name, f"must be at most {schema['maximum']}")
    if kind == "string" and not storable(value, name).strip():
        raise InvalidInput(name, "must not be empty")
    if kind == "array":
        if "minItems" in schema and len(value) < schema["minItems"]:
            raise InvalidInput(name, f"needs at least {schema['minItems']} item(s)")
        for i, item in enumerate(value):
            _check(f"{name}[{i}]", item, schema.get("items", {}))


def validate(args: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Check required and known arguments and their types; returns args with defaults."""
    props: dict[str, Any] = schema.get("properties", {})
    unknown = sorted(set(args) - set(props))
    if unknown:
        known = ", ".join(props) or "none"
        raise InvalidInput(unknown[0], f"is not an argument of this tool (arguments: {known})")
    for name in schema.get("required", []):
        if args.get(name) is None:
            raise InvalidInput(name, "is required")
    out = {}
    for name, spec in props.items():
        value = args.get(name, spec.get("default"))
        if value is not None:
            _check(name, value, spec)
        out[name] = value
    return out
