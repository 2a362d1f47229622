"""Request ids: one per HTTP request, on every log line written while it is served."""

from __future__ import annotations

import copy
import logging
import re
import uuid
from contextvars import ContextVar
from typing import Any

HEADER = "X-Request-Id"
# what a caller's id may look like: no spaces or control characters, so that it cannot forge
# a log line, and short
_SANE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+=-]{0,127}")
NO_REQUEST = "-"  # the request_id of log records made outside a request

REQUEST_ID: ContextVar[str | None] = ContextVar("graphmem_request_id", default=None)


def request_id_for(incoming: str | None) -> str:
    """The caller's X-Request-Id when it is sane, else a new one."""
    if incoming is not None and _SANE.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    """The id of the request being served here, if any."""
    return REQUEST_ID.get()


def install_log_records() -> None:
    """Give every log record a `request_id` attribute (NO_REQUEST outside requests).

    A record factory rather than a handler filter: it reaches every handler, whoever added it
    and whenever (pytest's caplog, uvicorn's, an embedding app's), from any thread the request's
    context was copied to. Installed once per process.
    """
    previous = logging.getLogRecordFactory()
    if getattr(previous, "adds_request_id", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.request_id = REQUEST_ID.get() or NO_REQUEST
        return record

    factory.adds_request_id = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)


def log_config(root_level: int) -> dict[str, Any]:
    """uvicorn's logging configuration with the request id on every line, graphmem's too."""
    from uvicorn.config import LOGGING_CONFIG

    install_log_records()  # the formats below need the attribute on every record
    config = copy.deepcopy(LOGGING_CONFIG)
    formatters = config["formatters"]
    formatters["default"]["fmt"] = "%(levelprefix)s [%(request_id)s] %(message)s"
    formatters["access"]["fmt"] = (
        '%(levelprefix)s [%(request_id)s] %(client_addr)s - "%(request_line)s" %(status_code)s'
    )
    formatters["graphmem"] = {"format": "%(levelname)s [%(request_id)s] %(name)s: %(message)s"}
    config["handlers"]["graphmem"] = {
        "class": "logging.StreamHandler",
        "formatter": "graphmem",
        "stream": "ext://sys.stderr",
    }
    config["root"] = {"handlers": ["graphmem"], "level": logging.getLevelName(root_level)}
    return config
