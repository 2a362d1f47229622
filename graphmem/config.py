"""Settings from the environment or arguments, read only when asked for."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from graphmem.errors import InvalidInput

FSYNC_POLICIES = ("always", "everysec", "no")


@dataclass(frozen=True)
class Settings:
    """Everything graphmem can be configured with; see the README's configuration table."""

    home: Path = field(default_factory=lambda: Path(".graphmem"))
    store_url: str = ""
    appendfsync: str = "everysec"
    neo4j_user: str | None = None
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_strong_model: str | None = None
    llm_timeout: float = 60.0
    embed_model: str | None = None

    def __post_init__(self) -> None:
        if self.appendfsync not in FSYNC_POLICIES:
            raise InvalidInput(
                "GRAPHMEM_APPENDFSYNC", f"must be one of {', '.join(FSYNC_POLICIES)}"
            )
        if self.llm_timeout <= 0:
            raise InvalidInput("GRAPHMEM_LLM_TIMEOUT", "must be a positive number of seconds")

    @property
    def resolved_store_url(self) -> str:
        """The store URL, defaulting to the embedded FalkorDB in the data dir."""
        return self.store_url or f"falkordb+embedded://{self.home.resolve()}"

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with the given fields replaced (None values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from environment variables (GRAPHMEM_*, NEO4J_*, OPENAI_*)."""
        env = os.environ if env is None else env
        timeout = env.get("GRAPHMEM_LLM_TIMEOUT", "60")
        try:
            timeout_s = float(timeout)
        except ValueError:
            raise InvalidInput("GRAPHMEM_LLM_TIMEOUT", f"{timeout!r} is not a number") from None
        return cls(
            home=Path(env.get("GRAPHMEM_HOME") or ".graphmem"),
            store_url=env.get("GRAPHMEM_STORE", ""),
            appendfsync=env.get("GRAPHMEM_APPENDFSYNC", "everysec"),
            neo4j_user=env.get("NEO4J_USER"),
            neo4j_password=env.get("NEO4J_PASSWORD"),
            neo4j_database=env.get("NEO4J_DATABASE"),
            llm_base_url=env.get("OPENAI_BASE_URL"),
            llm_api_key=env.get("OPENAI_API_KEY"),
            llm_model=env.get("GRAPHMEM_LLM_MODEL", "gpt-4o-mini"),
            llm_strong_model=env.get("GRAPHMEM_LLM_STRONG_MODEL"),
            llm_timeout=timeout_s,
            embed_model=env.get("GRAPHMEM_EMBED_MODEL"),
        )
