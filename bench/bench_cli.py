"""CLI start-to-done times: each `graphmem` command in a fresh process, on a throwaway data dir.

For every command: wall time from spawning `python -m graphmem.cli ...` (what the `graphmem`
script runs) to its exit, median and min over --repeat runs; whether it imported the embedding
model's runtime (onnxruntime or torch: read from `-X importtime`, which costs ~5 % more time
in those runs only); and the lines it wrote to stderr (0 but for an ingest command's own
progress bar: a stray bar or log line shows here). Commands that embed run on the default
backend (ONNX) and again with GRAPHMEM_EMBED_BACKEND=torch; --export adds a first run with an
empty model cache, which exports the model to ONNX once (docs/embeddings.md).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphmem.props.demo_corpus import AS_OF, DOCUMENTS, QUESTION
from graphmem.series.detect.synthetic import sales_series
from graphmem.timeutil import iso_date

MODEL_RUNTIMES = ("onnxruntime", "torch")
RUNS = itertools.count()  # numbers every run of the bench
Args = Callable[[int], list[str]]  # run number -> command line


@dataclass(frozen=True)
class Row:
    label: str
    times: list[float]
    model: str  # the runtimes the command imported, "-" for none
    stderr_lines: int


def run(args: list[str], env: dict[str, str], probe: bool = False) -> tuple[float, str, str]:
    """(seconds, stdout, stderr) of one `graphmem` command; fails loudly if it fails."""
    flags = ["-X", "importtime"] if probe else []
    command = [sys.executable, *flags, "-m", "graphmem.cli", *args]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"`graphmem {' '.join(args)}` failed:\n{done.stderr}")
    return seconds, done.stdout, done.stderr


def measure(label: str, make_args: Args, env: dict[str, str], repeat: int) -> Row:
    """`repeat` timed runs, one run probed for imports, one for its stderr.

    Every run gets a new number (make_args(n)): a command that stores something stores
    something new each time, so it embeds each time.
    """
    times = [run(make_args(next(RUNS)), env)[0] for _ in range(repeat)]
    _, _, probed = run(make_args(next(RUNS)), env, probe=True)
    imports = [line for line in probed.splitlines() if line.startswith("import time:")]
    names = {line.rsplit("|", 1)[-1].strip() for line in imports}
    model = ",".join(m for m in MODEL_RUNTIMES if m in names) or "-"
    _, _, stderr = run(make_args(next(RUNS)), env)
    return Row(label, times, model, len(stderr.splitlines()))


def sales_csv(tmp: Path) -> Path:
    """The synthetic daily sales series (4,018 points) as a CSV."""
    data = sales_series(seed=0)
    csv = tmp / "sales.csv"
    lines = [f"{iso_date(t)},{x:.3f}" for t, x in zip(data.ts, data.xs, strict=True)]
    csv.write_text("timestamp,value\n" + "\n".join(lines) + "\n")
    return csv


def docs_file(tmp: Path, n: int) -> Path:
    """The demo documents as JSON lines, each with one sentence new in run `n`."""
    path = tmp / f"docs-{n}.jsonl"
    edition = [{**d, "text": f"{d['text']} Reported in edition {n}."} for d in DOCUMENTS]
    path.write_text("".join(json.dumps(d) + "\n" for d in edition))
    return path


def commands(tmp: Path) -> list[tuple[str, Args, bool]]:
    """(label, run n's arguments, whether it embeds) in the order they run."""
    csv = sales_csv(tmp)
    return [
        ("--help", lambda n: ["--help"], False),
        ("series list", lambda n: ["series", "list"], False),
        # the first run stores 4,018 points; later runs find every batch already ingested
        (
            "ingest-series (4,018 pts)",
            lambda n: ["ingest-series", str(csv), "--series", "sales"],
            False,
        ),
        ("segments", lambda n: ["segments", "sales"], False),
        ("cypher", lambda n: ["cypher", "MATCH (n) RETURN count(n) AS n"], False),
        (
            "cypher --format json (segment nodes)",
            lambda n: ["cypher", "MATCH (g:Segment) RETURN g", "--format", "json"],
            False,
        ),
        # the first run builds 11 yearly meta-segments; later runs read them from the cache
        (
            "meta period (11 years)",
            lambda n: [
                "meta",
                "period",
                "sales",
                "--start",
                "2010-01-01",
                "--end",
                "2020-12-31",
                "--freq",
                "year",
            ],
            False,
        ),
        ("meta list --format csv", lambda n: ["meta", "list", "sales", "--format", "csv"], False),
        ("plot", lambda n: ["plot", "sales", "-o", str(tmp / "sales.png")], False),
        (
            "add-event",
            lambda n: [
                "add-event",
                f"Walked to the harbour, trip {n}.",
                "--date",
                f"2024-05-{1 + n % 28:02}",
            ],
            True,
        ),
        ("recall", lambda n: ["recall", "harbour walk", "--now", "2024-06-30"], True),
        ("ingest-docs (7 docs)", lambda n: ["ingest-docs", str(docs_file(tmp, n))], True),
        ("query", lambda n: ["query", QUESTION, "--as-of", AS_OF], True),
        ("plot-timeline", lambda n: ["plot-timeline", "-o", str(tmp / "timeline.png")], False),
    ]


def report(rows: list[Row]) -> None:
    print(f"{'command':<38} {'runs':>4} {'median s':>9} {'min s':>7}  {'model':<17} stderr")
    for r in rows:
        print(
            f"{r.label:<38} {len(r.times):>4} {statistics.median(r.times):>9.2f} "
            f"{min(r.times):>7.2f}  {r.model:<17} {r.stderr_lines}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command")
    parser.add_argument("--export", action="store_true", help="also time a first ONNX export")
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="LABEL",
        help="time only the commands whose label starts with one of these "
        "(the others still run once, unmeasured, as set-up)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gmcli-") as name:
        tmp = Path(name)
        env = {**os.environ, "GRAPHMEM_HOME": str(tmp / "home")}
        for var in ("GRAPHMEM_STORE", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
            env.pop(var, None)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        print(
            f"python start alone: {time.perf_counter() - start:.2f} s; load "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
        )
        rows = []
        for label, make_args, embeds in commands(tmp):
            if args.only and not label.startswith(tuple(args.only)):
                if not embeds:
                    run(make_args(next(RUNS)), env)  # what later commands read: the series
                continue
            rows.append(measure(label, make_args, env, args.repeat))
            if embeds:
                torch_env = {**env, "GRAPHMEM_EMBED_BACKEND": "torch"}
                rows.append(measure(f"{label} [torch]", make_args, torch_env, args.repeat))
        if args.export:
            fresh = {**env, "GRAPHMEM_MODEL_CACHE": str(tmp / "empty-cache")}
            seconds, _, stderr = run(["add-event", "First use.", "--date", "2024-07-01"], fresh)
            rows.append(
                Row(
                    "add-event, first ONNX export",
                    [seconds],
                    "onnxruntime,torch",
                    len(stderr.splitlines()),
                )
            )
        report(rows)


if __name__ == "__main__":
    main()
