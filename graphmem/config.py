"""Settings from the environment or arguments, read only when asked for."""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.limits import ENV as LIMIT_VARS
from graphmem.limits import Limits

FSYNC_POLICIES = ("always", "everysec", "no")
VECTOR_INDEXES = ("auto", "flat", "hnsw", "ivf")
EMBED_BACKENDS = ("auto", "onnx", "torch")  # auto: onnx where the model exports, else torch
EMBED_PRECISIONS = ("fp32", "int8")  # int8: the ONNX export quantised (docs/embeddings.md)
WARMUP_MODES = ("startup", "background", "off")  # when `serve` opens the model and indexes
TIME_UNITS = {
    "seconds": 1,
    "minutes": 60,
    "hours": 3600,
    "days": 86400,
    "weeks": 604800,
    "months": 2592000,
}  # a month: 30 days


def default_workers() -> int:
    """Operations the API runs at once per kind (queries, mutations): 4 per core, at least 8.

    Most of an operation's time is spent waiting (store, LLM); what is left is bounded by the
    cores, so more threads than this only queue.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(8, 4 * cores)


@dataclass(frozen=True)
class Settings:
    """Everything graphmem can be configured with; see the README's configuration table."""

    home: Path = field(default_factory=lambda: Path(".graphmem"))
    store_url: str = ""
    space: str = "default"  # what the CLI and Memory use when not told (docs/spaces.md)
    appendfsync: str = "always"
    store_load_timeout: float = 600.0  # seconds to wait for the embedded server to load
    neo4j_user: str | None = None
    neo4j_password: str | None = None
    neo4j_database: str | None = None
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_strong_model: str | None = None
    llm_timeout: float = 60.0
    embed_model: str | None = None
    embed_backend: str = "auto"
    embed_precision: str | None = None  # None: int8 unless the backend is torch
    model_cache: Path | None = None  # ONNX exports; None: ~/.cache/graphmem/models
    vector_index: str = "auto"  # above vector_flat_max items: auto (= ivf), ivf or hnsw; flat
    vector_flat_max: int = 20_000  # indexes up to this size are exact (flat)
    vector_refresh_ms: int = 500  # how often searches check the graph for other writers
    # the recall probability (graphmem/timeline/formula.py; defaults from bench_timeline.py)
    time_unit: str = "months"  # unit of t
    recall_threshold: float = 0.7  # p at which a memory counts as recalled
    relevance_floor: float = 0.4  # cosine at and below which a memory's relevance r is 0
    relevance_full: float = 0.8  # cosine from which r is 1
    workers: int = field(default_factory=default_workers)  # API operations at once, per kind
    max_open_spaces: int = 32  # spaces whose indexes and memories stay open (docs/spaces.md)
    # the HTTP service (api/security.py, api/credentials.py; docs/deploying.md)
    host: str = "127.0.0.1"  # what `graphmem serve` binds: decides the defaults below
    serve_workers: int = 1  # server processes of `graphmem serve` (docs/deploying.md)
    api_token: str | None = field(default=None, repr=False)  # read-write
    read_token: str | None = field(default=None, repr=False)  # read-only
    tokens_file: Path | None = None
    cors_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()  # empty: the bound host and the loopback names
    graphiql: bool | None = None  # None: on when bound to a loopback host
    introspection: bool | None = None  # None: as graphiql
    warmup: str = "startup"  # see WARMUP_MODES and docs/observability.md
    limits: Limits = field(default_factory=Limits)  # GRAPHMEM_MAX_*, GRAPHMEM_*_TIMEOUT

    def __post_init__(self) -> None:
        from graphmem.spaces import checked_space

        checked_space(self.space, "GRAPHMEM_SPACE")
        if self.appendfsync not in FSYNC_POLICIES:
            raise InvalidInput(
                "GRAPHMEM_APPENDFSYNC", f"must be one of {', '.join(FSYNC_POLICIES)}"
            )
        if not self.store_load_timeout > 0:
            raise InvalidInput(
                "GRAPHMEM_STORE_LOAD_TIMEOUT", "must be a positive number of seconds"
            )
        if self.llm_timeout <= 0:
            raise InvalidInput("GRAPHMEM_LLM_TIMEOUT", "must be a positive number of seconds")
        if self.vector_index not in VECTOR_INDEXES:
            raise InvalidInput(
                "GRAPHMEM_VECTOR_INDEX", f"must be one of {', '.join(VECTOR_INDEXES)}"
            )
        if self.embed_backend not in EMBED_BACKENDS:
            raise InvalidInput(
                "GRAPHMEM_EMBED_BACKEND", f"must be one of {', '.join(EMBED_BACKENDS)}"
            )
        if self.embed_precision is not None and self.embed_precision not in EMBED_PRECISIONS:
            raise InvalidInput(
                "GRAPHMEM_EMBED_PRECISION", f"must be one of {', '.join(EMBED_PRECISIONS)}"
            )
        if self.embed_precision == "int8" and self.embed_backend == "torch":
            raise InvalidInput("GRAPHMEM_EMBED_PRECISION", "int8 needs the onnx backend, not torch")
        _check_int("GRAPHMEM_VECTOR_FLAT_MAX", self.vector_flat_max, 1)
        _check_int("GRAPHMEM_VECTOR_REFRESH_MS", self.vector_refresh_ms, 0)
        _check_int("GRAPHMEM_WORKERS", self.workers, 1)
        _check_int("GRAPHMEM_SERVE_WORKERS", self.serve_workers, 1)
        _check_int("GRAPHMEM_MAX_OPEN_SPACES", self.max_open_spaces, 1)
        if self.time_unit not in TIME_UNITS:
            raise InvalidInput("GRAPHMEM_TIME_UNIT", f"must be one of {', '.join(TIME_UNITS)}")
        if self.warmup not in WARMUP_MODES:
            raise InvalidInput("GRAPHMEM_WARMUP", f"must be one of {', '.join(WARMUP_MODES)}")
        threshold = self.recall_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise InvalidInput("GRAPHMEM_RECALL_THRESHOLD", "must be a number in (0, 1]")
        if not 0 < threshold <= 1:
            raise InvalidInput("GRAPHMEM_RECALL_THRESHOLD", "must be a number in (0, 1]")
        names = ("GRAPHMEM_RELEVANCE_FLOOR", "GRAPHMEM_RELEVANCE_FULL")
        checked_relevance_scale(self.relevance_floor, self.relevance_full, names)

    @property
    def precision(self) -> str:
        """The embedding precision in use: GRAPHMEM_EMBED_PRECISION, by default int8 (the
        quantised ONNX model) unless the backend is torch."""
        if self.embed_precision is not None:
            return self.embed_precision
        return "fp32" if self.embed_backend == "torch" else "int8"

    @property
    def resolved_store_url(self) -> str:
        """The store URL, defaulting to the embedded FalkorDB in the data dir."""
        return self.store_url or f"falkordb+embedded://{self.home.resolve()}"

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with the given fields replaced (None values are ignored)."""
        given: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **given)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from environment variables (GRAPHMEM_*, NEO4J_*, OPENAI_*)."""
        env = os.environ if env is None else env
        timeout_s = _number(env, "GRAPHMEM_LLM_TIMEOUT", "60", float)
        return cls(
            home=Path(env.get("GRAPHMEM_HOME") or ".graphmem"),
            store_url=env.get("GRAPHMEM_STORE", ""),
            space=env.get("GRAPHMEM_SPACE") or "default",
            appendfsync=env.get("GRAPHMEM_APPENDFSYNC", "always"),
            store_load_timeout=_number(env, "GRAPHMEM_STORE_LOAD_TIMEOUT", "600", float),
            neo4j_user=env.get("NEO4J_USER"),
            neo4j_password=env.get("NEO4J_PASSWORD"),
            neo4j_database=env.get("NEO4J_DATABASE"),
            llm_base_url=env.get("OPENAI_BASE_URL"),
            llm_api_key=env.get("OPENAI_API_KEY"),
            llm_model=env.get("GRAPHMEM_LLM_MODEL", "gpt-4o-mini"),
            llm_strong_model=env.get("GRAPHMEM_LLM_STRONG_MODEL"),
            llm_timeout=timeout_s,
            embed_model=env.get("GRAPHMEM_EMBED_MODEL"),
            embed_backend=env.get("GRAPHMEM_EMBED_BACKEND", "auto").strip().lower(),
            embed_precision=env.get("GRAPHMEM_EMBED_PRECISION", "").strip().lower() or None,
            model_cache=Path(cache) if (cache := env.get("GRAPHMEM_MODEL_CACHE")) else None,
            vector_index=env.get("GRAPHMEM_VECTOR_INDEX", "auto").strip().lower(),
            vector_flat_max=_number(env, "GRAPHMEM_VECTOR_FLAT_MAX", "20000", int),
            vector_refresh_ms=_number(env, "GRAPHMEM_VECTOR_REFRESH_MS", "500", int),
            time_unit=_time_unit(env.get("GRAPHMEM_TIME_UNIT", "months")),
            recall_threshold=_number(env, "GRAPHMEM_RECALL_THRESHOLD", "0.7", float),
            relevance_floor=_number(env, "GRAPHMEM_RELEVANCE_FLOOR", "0.4", float),
            relevance_full=_number(env, "GRAPHMEM_RELEVANCE_FULL", "0.8", float),
            workers=_number(env, "GRAPHMEM_WORKERS", str(default_workers()), int),
            max_open_spaces=_number(env, "GRAPHMEM_MAX_OPEN_SPACES", "32", int),
            host=env.get("GRAPHMEM_HOST") or "127.0.0.1",
            serve_workers=_number(env, "GRAPHMEM_SERVE_WORKERS", "1", int),
            api_token=env.get("GRAPHMEM_API_TOKEN") or None,
            read_token=env.get("GRAPHMEM_READ_TOKEN") or None,
            tokens_file=Path(env["GRAPHMEM_TOKENS_FILE"])
            if env.get("GRAPHMEM_TOKENS_FILE")
            else None,
            cors_origins=_words(env.get("GRAPHMEM_CORS_ORIGINS", "")),
            allowed_hosts=_words(env.get("GRAPHMEM_ALLOWED_HOSTS", "")),
            graphiql=_flag(env, "GRAPHMEM_GRAPHIQL"),
            introspection=_flag(env, "GRAPHMEM_INTROSPECTION"),
            warmup=env.get("GRAPHMEM_WARMUP", "startup").strip().lower(),
            limits=_limits(env),
        )


def _number(env: Mapping[str, str], name: str, default: str, kind: type) -> Any:
    """An int or float variable; InvalidInput naming it when it is not one."""
    text = env.get(name, default).strip()
    try:
        return kind(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise InvalidInput(name, f"{text!r} is not {what}") from None


def _words(text: str) -> tuple[str, ...]:
    """A comma-separated list, blanks dropped."""
    return tuple(word.strip() for word in text.split(",") if word.strip())


def _flag(env: Mapping[str, str], name: str) -> bool | None:
    """An on/off variable; None when unset or empty (the default applies)."""
    text = env.get(name, "").strip().lower()
    if not text:
        return None
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise InvalidInput(name, f"{text!r} is not on or off (1/0, true/false, yes/no, on/off)")


def _limits(env: Mapping[str, str]) -> Limits:
    """The request and time limits from their variables (graphmem/limits.py names them)."""
    defaults = Limits()
    return Limits(
        **{
            name: _number(env, var, str(getattr(defaults, name)), type(getattr(defaults, name)))
            for name, var in LIMIT_VARS.items()
        }
    )


def _check_int(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInput(name, f"must be an integer >= {low}")


def _time_unit(text: str) -> str:
    """'day', 'Days', 'seconds' → the TIME_UNITS key; anything else is left for the check."""
    unit = text.strip().lower()
    return unit if unit in TIME_UNITS or f"{unit}s" not in TIME_UNITS else f"{unit}s"


def checked_relevance_scale(
    floor: object, full: object, fields: tuple[str, str] = ("relevance_floor", "relevance_full")
) -> None:
    """-1 <= floor < full <= 1 (cosine similarities); else InvalidInput naming the field."""
    for value, field_name in ((floor, fields[0]), (full, fields[1])):
        real = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not real or not -1 <= float(value) <= 1:  # type: ignore[arg-type]
            raise InvalidInput(field_name, "must be a number from -1 to 1 (a cosine similarity)")
    if not float(floor) < float(full):  # type: ignore[arg-type]
        raise InvalidInput(fields[1], f"must be greater than {fields[0]}")
