"""Reading documents from a JSON-lines file; errors name the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.props.model import checked_date, checked_source, checked_text

KEYS = {"text", "date", "source"}


def read_documents(path: Path) -> list[dict[str, Any]]:
    """Every non-blank line as {text, date, source?}, all checked before any is used."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InvalidInput("file", f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput("file", f"{path} is not UTF-8 text") from None
    docs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidInput(where, f"is not valid JSON ({error.msg})") from None
        if not isinstance(doc, dict):
            raise InvalidInput(where, "must be a JSON object with text, date and source")
        unknown = sorted(set(doc) - KEYS)
        if unknown:
            raise InvalidInput(where, f"unknown keys {unknown}; expected text, date, source")
        checked_text(doc.get("text"), f"{where}: text")
        checked_date(doc.get("date"), f"{where}: date")
        checked_source(doc.get("source"), f"{where}: source")
        docs.append(doc)
    if not docs:
        raise InvalidInput("file", f"{path} holds no documents")
    return docs
