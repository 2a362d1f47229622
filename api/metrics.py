"""/metrics: the app's Prometheus metrics, one registry per app (docs/observability.md).

With `graphmem serve --workers N` every worker counts into files of prometheus_client's
multiprocess mode, and /metrics, whichever worker answers, sums them over the workers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from api.state import AppState
from graphmem import metrics as lib

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"  # set: the workers' metrics meet there
MAX_OPERATIONS = 100  # distinct operation labels; later new ones are counted as "other"
OTHER = "other"
SPACE_SERIES = 100  # spaces with index sizes of their own; the rest are summed under OTHER_SPACES
OTHER_SPACES = "*other*"  # no space can have this name (graphmem.spaces.SPACE_PATTERN)
# from a quick health query to a long ingestion or LLM call
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
INGESTED = {
    lib.POINTS: ("graphmem_points_ingested", "Series points stored"),
    lib.PROPOSITIONS: ("graphmem_propositions_ingested", "Propositions stored"),
    lib.DOCUMENTS: ("graphmem_documents_ingested", "Documents stored with all their propositions"),
    lib.EVENTS: ("graphmem_events_ingested", "Timeline events stored"),
}


@dataclass(frozen=True)
class Operation:
    """One GraphQL operation a request ran: its label, type and outcome ("ok" or a code)."""

    name: str
    type: str
    outcome: str


class OperationLabels:
    """Caps the operation label's values: clients choose operation names, Prometheus pays."""

    def __init__(self, limit: int = MAX_OPERATIONS) -> None:
        self.limit = limit
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, name: str) -> str:
        with self._lock:
            if name in self._seen:
                return name
            if len(self._seen) >= self.limit:
                return OTHER
            self._seen.add(name)
            return name


class VectorIndexSizes(Collector):
    """graphmem_vector_index_items by space and label, read at scrape time from the opened
    indexes without waiting for one being rebuilt."""

    def __init__(self, state: AppState) -> None:
        self.state = state

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "graphmem_vector_index_items",
            "Items in each opened vector index",
            labels=["space", "label"],
        )
        services = self.state.opened_services()
        opened = services.opened_spaces() if services is not None else {}
        default = services.space if services is not None else None
        shown = 0
        other: dict[str, int] = {}
        for space, parts in sorted(opened.items()):
            sizes = parts.vectors.sizes() if parts.vectors is not None else {}
            if space != default and not any(sizes.values()):
                continue  # a space only named by a client (or emptied) adds no series
            shown += 1
            for label, size in sorted(sizes.items()):
                if shown > SPACE_SERIES:  # bounded, whatever clients name
                    other[label] = other.get(label, 0) + size
                else:
                    family.add_metric([space, label], size)
        for label, size in sorted(other.items()):
            family.add_metric([OTHER_SPACES, label], size)
        yield family


class OpenSpaces(Collector):
    """graphmem_open_spaces and graphmem_spaces_closed_total, read at scrape time: how many
    spaces are open in this process (at most GRAPHMEM_MAX_OPEN_SPACES but for those in use),
    and how many times one was closed to keep to it (docs/spaces.md)."""

    def __init__(self, state: AppState) -> None:
        self.state = state

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        services = self.state.opened_services()
        opened = services.open_spaces() if services is not None else 0
        closed = services.closed_spaces() if services is not None else 0
        yield GaugeMetricFamily(
            "graphmem_open_spaces", "Spaces whose indexes and memories are open", value=opened
        )
        yield CounterMetricFamily(
            "graphmem_spaces_closed",
            "Times the least recently used idle space was closed to keep GRAPHMEM_MAX_OPEN_SPACES",
            value=closed,
        )


class Metrics:
    """Every metric of one app, in a registry of its own (tests run several apps at once)."""

    def __init__(self, state: AppState) -> None:
        self.registry = registry = CollectorRegistry()
        self.operation_label = OperationLabels()
        self.requests = Counter(
            "graphmem_graphql_requests",
            "GraphQL operations by operation, type and outcome",
            ["operation", "type", "outcome"],
            registry=registry,
        )
        self.latency = Histogram(
            "graphmem_graphql_request_duration_seconds",
            "Time from a GraphQL request's arrival to its response, by operation",
            ["operation", "type"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.http = Counter(
            "graphmem_http_requests",
            "HTTP requests by route and status",
            ["route", "status"],
            registry=registry,
        )
        self.ingested = {
            event: Counter(name, text, registry=registry)
            for event, (name, text) in INGESTED.items()
        }
        self.store_errors = Counter(
            "graphmem_store_errors",
            "Store statements and opens that failed, by error code",
            ["code"],
            registry=registry,
        )
        self.warmup = Gauge(
            "graphmem_warmup_seconds",
            "How long the last warm-up took",
            registry=registry,
            multiprocess_mode="max",  # of the workers': the slowest
        )
        self.scraped = self._scraped(registry, os.environ.get(MULTIPROC_DIR))
        # read at scrape time in the process that answers (with workers: the same sizes in
        # each, once it caught up with the graph)
        self.scraped.register(VectorIndexSizes(state))
        self.scraped.register(OpenSpaces(state))

    @staticmethod
    def _scraped(registry: CollectorRegistry, shared: str | None) -> CollectorRegistry:
        """What /metrics shows: `registry` with this process's CPU and memory; with workers
        (`shared`, their metrics directory), the sums over the workers' files instead."""
        if not shared:
            ProcessCollector(registry=registry)
            PlatformCollector(registry=registry)
            return registry
        scraped = CollectorRegistry()
        MultiProcessCollector(scraped, path=shared)
        return scraped

    def sink(self, name: str, amount: int, labels: dict[str, str]) -> None:
        """Where the library's counts go (graphmem.metrics.reporting_to)."""
        if name == lib.STORE_ERRORS:
            self.store_errors.labels(labels.get("code", "unknown")).inc(amount)
        elif name in self.ingested:
            self.ingested[name].inc(amount)

    def observe(self, route: str, status: int, operations: list[Operation], seconds: float) -> None:
        """Count one finished HTTP request and the GraphQL operations it ran."""
        self.http.labels(route, str(status)).inc()
        for op in operations:
            name = self.operation_label(op.name)
            self.requests.labels(name, op.type, op.outcome).inc()
            self.latency.labels(name, op.type).observe(seconds)

    async def endpoint(self, request: Request) -> Response:
        """GET /metrics in the Prometheus text format."""
        return Response(generate_latest(self.scraped), media_type=CONTENT_TYPE_LATEST)
