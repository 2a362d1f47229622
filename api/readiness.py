"""Warm start and /readyz: open the store, model and indexes before traffic needs them."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import dataclass
from typing import Any

from prometheus_client import Gauge
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from api.state import AppState
from graphmem import metrics as lib
from graphmem.errors import GraphmemError
from graphmem.kinds import labels
from graphmem.services import Opened

log = logging.getLogger(__name__)
LABELS = labels("vectors")  # the kinds with a vector index


@dataclass
class WarmUpStatus:
    """How the warm-up went: off, pending, running, done or failed (with the error)."""

    state: str = "pending"
    error: str | None = None
    seconds: float | None = None


class WarmUp:
    """Opens the app's services at startup, per GRAPHMEM_WARMUP, and answers /readyz.

    startup: the lifespan waits for it, so uvicorn accepts connections once it is done.
    background: the app answers at once (/readyz 503 until done). off: opened on first use.
    A failed warm-up (the store down, say) never stops the app: it logs, /readyz says what is
    missing, and a /readyz that finds something missing starts another try.
    """

    def __init__(self, state: AppState, took: Gauge, sink: lib.Sink) -> None:
        self.state = state
        self.mode = state.settings.warmup
        self.status = WarmUpStatus("off" if self.mode == "off" else "pending")
        self._took = took
        self._sink = sink  # store errors while warming up are counted with the others
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self.mode == "startup":
            await self._run()
        elif self.mode == "background":
            self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Wait for a warm-up still running: it is a thread, which cannot be cancelled."""
        if self._task is not None:
            await self._task

    def retry(self) -> None:
        """Start another warm-up in the background unless one runs or warm-up is off."""
        if self.mode == "off" or (self._task is not None and not self._task.done()):
            return
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        self.status = WarmUpStatus("running")
        started = time.perf_counter()
        try:
            await run_in_threadpool(self._warm)
        except Exception as error:  # noqa: BLE001 - nothing may stop the app from starting
            self.status = WarmUpStatus("failed", f"{type(error).__name__}: {error}")
            bug = not isinstance(error, GraphmemError)  # a store that is down needs no traceback
            log.warning(
                "warm-up failed, serving anyway (/readyz says what is missing): %s",
                self.status.error,
                exc_info=bug,
            )
            return
        seconds = time.perf_counter() - started
        self.status = WarmUpStatus("done", seconds=round(seconds, 3))
        self._took.set(seconds)
        log.info("warm-up done in %.1f s: store, embedding model, vector indexes open", seconds)

    def _warm(self) -> None:
        with lib.reporting_to(self._sink):
            self.state.services().warm_up()

    def readiness(self) -> dict[str, Any]:
        """What is ready and what is missing; asks the store (blocking: not on the loop)."""
        status = self.status  # one reading: the warm-up may finish meanwhile
        services = self.state.opened_services()
        store: dict[str, Any] = {"open": services is not None}
        if services is None:
            store["opening"] = self.state.opening
        else:
            health = services.store.health()
            store.update(reachable=health.reachable, detail=health.detail)
        opened = services.opened() if services is not None else Opened(None, None)
        sizes = opened.vectors.sizes() if opened.vectors is not None else {}
        absent = [label for label in LABELS if label not in sizes]
        missing = [
            what
            for what, ok in (
                ("store", store.get("reachable", False)),
                ("embedding model", opened.embedder is not None and opened.embedder.loaded),
                ("vector indexes", not absent),
            )
            if not ok
        ]
        if status.state in ("pending", "running"):  # it opens more than the parts above
            missing.append("warm-up")
        return {
            "ready": not missing,
            "missing": missing,
            "store": store,
            "vector_indexes": {"open": sorted(sizes), "missing": absent},
            "warmup": {"mode": self.mode, **vars(status)},
            "pid": os.getpid(),  # with `serve --workers N`: the worker that answered
        }

    async def endpoint(self, request: Request) -> JSONResponse:
        """GET /readyz: 200 when the store, the model and every vector index are open, else 503."""
        report = await run_in_threadpool(self.readiness)
        if not report["ready"]:
            self.retry()
        return JSONResponse(report, status_code=200 if report["ready"] else 503)
