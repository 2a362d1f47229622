"""API tokens: from GRAPHMEM_API_TOKEN, GRAPHMEM_READ_TOKEN and GRAPHMEM_TOKENS_FILE.

Tokens are kept only as SHA-256 digests and compared with hmac.compare_digest against every
known one, so neither the time a check takes nor an error message or log line reveals a token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.errors import InvalidInput
from graphmem.spaces import checked_space

READ, WRITE = "read", "write"
MIN_TOKEN = 16  # characters: a token anyone could guess protects nothing
_TOKEN = re.compile(r"[\x21-\x7e]+")  # visible ASCII: what fits in a header unquoted
_SHA256 = re.compile(r"[0-9a-f]{64}")
_KEYS = {"name", "token", "sha256", "access", "spaces"}
FILE = "GRAPHMEM_TOKENS_FILE"
GENERATE = "python -c 'import secrets; print(secrets.token_urlsafe(32))'"


@dataclass(frozen=True)
class Grant:
    """What a token allows."""

    access: str  # READ or WRITE
    name: str  # names the token in messages and logs, never the token itself
    spaces: tuple[str, ...] | None = None  # the spaces it is bound to; None: every space

    @property
    def can_write(self) -> bool:
        return self.access == WRITE

    def allows(self, space: str) -> bool:
        """Whether the token may be used on `space` at all (read or write, as `access` says)."""
        return self.spaces is None or space in self.spaces


OPEN = Grant(WRITE, "anyone")  # no token configured: every caller may do everything


@dataclass(frozen=True)
class Source:
    """A token as read: its digest and grant, and where it was set (for messages)."""

    digest: bytes
    grant: Grant
    field: str  # the variable that set it
    where: str


@dataclass(frozen=True)
class Tokens:
    """The known tokens, as (SHA-256 digest, grant) pairs; none means no token is needed."""

    entries: tuple[tuple[bytes, Grant], ...] = ()

    @property
    def required(self) -> bool:
        return bool(self.entries)

    def grant_for(self, token: str | None) -> Grant | None:
        """The grant of a presented token; OPEN when none is configured, None when unknown."""
        if not self.entries:
            return OPEN
        if token is None:
            return None
        digest = hashlib.sha256(token.encode()).digest()
        found = None
        for known, grant in self.entries:  # every one compared: the time says nothing
            if hmac.compare_digest(digest, known) and found is None:
                found = grant
        return found

    def summary(self) -> str:
        """'2 tokens (1 read-write, 1 read-only)', for the start-up message."""
        if not self.entries:
            return "no token: every caller may read and write"
        writers = sum(grant.can_write for _, grant in self.entries)
        n = len(self.entries)
        return f"{n} token{'s' * (n != 1)} ({writers} read-write, {n - writers} read-only)"

    @classmethod
    def from_settings(cls, settings: Settings) -> Tokens:
        """The tokens of the environment and the tokens file; InvalidInput on any bad one."""
        found: list[Source] = []
        for variable, value, access in (
            ("GRAPHMEM_API_TOKEN", settings.api_token, WRITE),
            ("GRAPHMEM_READ_TOKEN", settings.read_token, READ),
        ):
            if value is not None:
                try:
                    digest = _digest(value)
                except ValueError as error:
                    raise InvalidInput(variable, str(error)) from None
                found.append(Source(digest, Grant(access, variable), variable, variable))
        if settings.tokens_file is not None:
            found.extend(read_tokens_file(settings.tokens_file))
        _check_unique(found)
        return cls(tuple((source.digest, source.grant) for source in found))


def read_tokens_file(path: Path) -> list[Source]:
    """The tokens of a tokens file (docs/spaces.md), refused if others can read it: TOML
    [[tokens]] tables, or (a .json file) the same as JSON {"tokens": [...]}."""
    json_file = path.suffix.lower() == ".json"
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o007:
            raise InvalidInput(
                FILE, f"{path} can be read by every user (mode {mode:04o}): chmod 600 it"
            )
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if json_file else tomllib.loads(text)
    except OSError as error:
        raise InvalidInput(FILE, f"cannot read {path}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        kind = "JSON" if json_file else "TOML"
        raise InvalidInput(FILE, f"{path} is not valid {kind}: {error}") from None
    entries = data.get("tokens", []) if isinstance(data, dict) else None
    if not isinstance(data, dict) or set(data) - {"tokens"} or not isinstance(entries, list):
        raise InvalidInput(FILE, f"{path}: expected only a list of tokens under 'tokens'")
    if not entries:  # an empty file must not leave the API open to anyone
        raise InvalidInput(FILE, f"{path} holds no [[tokens]]")
    found = []
    for i, entry in enumerate(entries):
        try:
            digest, grant = _entry(entry)
        except ValueError as error:
            name = entry.get("name") if isinstance(entry, dict) else None
            label = f" ({name})" if isinstance(name, str) else ""
            raise InvalidInput(FILE, f"{path} tokens[{i}]{label}: {error}") from None
        found.append(Source(digest, grant, FILE, f"{path} tokens[{i}] ({grant.name})"))
    return found


def _entry(entry: Any) -> tuple[bytes, Grant]:
    """One [[tokens]] table: name, token or sha256, access, and spaces (a list, or "*")."""
    if not isinstance(entry, dict):
        raise ValueError("must be a table")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise ValueError(f"unknown keys {unknown}; allowed: {sorted(_KEYS)}")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("needs a name (shown in messages instead of the token)")
    access = entry.get("access")
    if access not in (READ, WRITE):
        raise ValueError(f"access must be {READ!r} or {WRITE!r}")
    spaces = _spaces(entry.get("spaces", "*"))
    if ("token" in entry) == ("sha256" in entry):
        raise ValueError("needs exactly one of token and sha256")
    digest = _digest(entry["token"]) if "token" in entry else _stored_digest(entry["sha256"])
    return digest, Grant(access, name.strip(), spaces)


def _spaces(value: object) -> tuple[str, ...] | None:
    """A token's spaces: "*" (or left out) for every space, else a non-empty list of names."""
    if value == "*":
        return None
    if not isinstance(value, list) or not value:
        raise ValueError('spaces must be "*" (every space) or a non-empty list of space names')
    try:
        return tuple(dict.fromkeys(checked_space(name, "spaces") for name in value))
    except InvalidInput as error:
        raise ValueError(str(error)) from None


def _digest(token: object) -> bytes:
    """The SHA-256 digest of a token, checked first; the messages never quote it."""
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise ValueError("a token is visible ASCII characters without spaces")
    if len(token) < MIN_TOKEN:
        raise ValueError(f"a token needs at least {MIN_TOKEN} characters; make one with {GENERATE}")
    return hashlib.sha256(token.encode()).digest()


def _stored_digest(text: object) -> bytes:
    if not isinstance(text, str) or not _SHA256.fullmatch(text.lower()):
        raise ValueError("sha256 must be 64 hex digits (sha256sum of the token)")
    return bytes.fromhex(text)


def _check_unique(found: list[Source]) -> None:
    """One token, one grant: a token given twice would make its access depend on the order."""
    seen: dict[bytes, str] = {}
    for source in found:
        if source.digest in seen:
            where = f"{source.where} repeats the token of {seen[source.digest]}"
            raise InvalidInput(source.field, where)
        seen[source.digest] = source.where
