"""How fast the service refuses what is over its limits, over HTTP, with the default limits.

The requests of issue 13 that ran for minutes: 1,000 aliases of `subgraph(k: 200)` (283 s), a
1,000,001-point appendPoints (26-100 s, ~1 GB), a 10 MB text. Each is timed from sending to the
refusal arriving (median of a few), beside a trivial query and a 150,000-point append that the
limits admit. The million points are refused by their body size (Content-Length); run again
with GRAPHMEM_MAX_BODY_BYTES raised (--big-body) they reach the points limit instead, after
the JSON is parsed but before graphql-core coerces a single point.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from appserver import served  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.limits import MIB, Limits  # noqa: E402

BOMB = (
    "{"
    + " ".join(
        f'a{i}: subgraph(question: "what changed in week {i}?", k: 200) {{ nodes {{ id text }} }}'
        for i in range(1000)
    )
    + "}"
)
APPEND = (
    "mutation($s: ID!, $p: [PointInput!]!) { appendPoints(seriesId: $s, points: $p) { accepted } }"
)
DOCUMENT = 'mutation($t: String!) { ingestDocument(text: $t, date: "2024-01-01") { added } }'


def points(n: int) -> list[dict[str, object]]:
    return [{"timestamp": str(1_600_000_000 + 60 * i), "value": float(i % 97)} for i in range(n)]


def timed(send: Callable[[], httpx.Response], repeat: int) -> tuple[float, httpx.Response]:
    """Median seconds of `repeat` sends, and the last response."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = send()
        times.append(time.perf_counter() - start)
    return statistics.median(times), response


def outcome(response: httpx.Response) -> str:
    if response.status_code != 200:
        return f"HTTP {response.status_code} {response.json()['errors'][0]['extensions']['code']}"
    errors = response.json().get("errors") or []
    return ", ".join(sorted({e["extensions"]["code"] for e in errors})) or "served"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    big = "raise the body limit to 256 MiB: the points limit refuses instead"
    parser.add_argument("--big-body", action="store_true", help=big)
    args = parser.parse_args()
    limits = Limits(body_bytes=256 * MIB) if args.big_body else Limits()
    http = httpx.Client(timeout=600)
    with tempfile.TemporaryDirectory(prefix="gmb-") as tmp:
        settings = Settings(
            store_url=f"falkordb+embedded://{Path(tmp) / 'db'}", home=Path(tmp), limits=limits
        )
        with served(settings) as url:

            def post(query: str, **variables: object) -> httpx.Response:
                body = json.dumps({"query": query, "variables": variables})
                return http.post(
                    f"{url}/graphql", content=body, headers={"content-type": "application/json"}
                )

            sid = post('mutation { createSeries(name: "bench") { id } }').json()
            sid = sid["data"]["createSeries"]["id"]
            million = json.dumps({"query": APPEND, "variables": {"s": sid, "p": points(1_000_001)}})
            cases = [
                ("trivial query { series { total } }", lambda: post("{ series { total } }"), 5),
                (
                    f"alias bomb ({len(BOMB) / 1000:.0f} KB, 1,000 x subgraph(k: 200))",
                    lambda: post(BOMB),
                    5,
                ),
                (
                    f"1,000,001 points ({len(million) / 1e6:.0f} MB)",
                    lambda: http.post(
                        f"{url}/graphql",
                        content=million,
                        headers={"content-type": "application/json"},
                    ),
                    3,
                ),
                ("10 MB text (ingestDocument)", lambda: post(DOCUMENT, t="x" * 10_000_000), 3),
                (
                    "150,000 points (admitted, appended once)",
                    lambda: post(APPEND, s=sid, p=points(150_000)),
                    1,
                ),
            ]
            print(f"limits: {dataclasses.asdict(limits)}")
            for name, send, repeat in cases:
                seconds, response = timed(send, repeat)
                print(f"{name:55} {seconds * 1000:9.1f} ms  {outcome(response)}")


if __name__ == "__main__":
    main()
