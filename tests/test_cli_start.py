"""The `graphmem` command in fresh processes: the model only where needed, nothing but results.

Times are measured by bench/bench_cli.py, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from graphmem.store import Store

# what loading the embedding model imports, on either backend
MODEL_MODULES = (
    "onnxruntime",
    "torch",
    "sentence_transformers",
    "transformers",
    "tokenizers",
    "graphmem.embed.onnxrun",
    "graphmem.embed.torchrun",
)
# runs commands in one process, then says which of MODEL_MODULES it imported
PROBE = f"""
import json, sys
from graphmem.cli import main
codes = [main(json.loads(argv)) for argv in sys.argv[1:]]
loaded = [m for m in {MODEL_MODULES!r} if m in sys.modules]
print(json.dumps({{"codes": codes, "loaded": loaded}}))
"""
# the one line a first use prints while it exports the model to ONNX (docs/embeddings.md)
EXPORT_NOTICE = "graphmem: exporting the embedding model"


def environment(store_url: str, home: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "GRAPHMEM_STORE": store_url, "GRAPHMEM_HOME": str(home), **extra}
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        env.pop(name, None)
    return env


def graphmem(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "graphmem.cli", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def assert_no_progress_output(stderr: str) -> None:
    """Nothing on stderr but, on a machine's first use, the export notice."""
    lines = [line for line in stderr.splitlines() if not line.startswith(EXPORT_NOTICE)]
    assert lines == [], stderr
    assert "\r" not in stderr and "Loading weights" not in stderr


def test_commands_without_the_model_never_load_it(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    csv = tmp_path / "sales.csv"
    csv.write_text("timestamp,value\n" + "".join(f"2024-01-{d:02},{d % 7}\n" for d in range(1, 29)))
    commands = [
        ["ingest-series", str(csv), "--series", "sales"],
        ["series", "list"],
        ["segments", "sales"],
        ["cypher", "MATCH (s:Series) RETURN s.name AS name"],
        ["cypher", "MATCH (g:Segment) RETURN g", "--format", "json"],
        ["meta", "period", "sales", "--start", "2024-01-01", "--end", "2024-01-28", "--freq=week"],
        ["meta", "filter", "sales", "--where", "duration>1"],
        ["meta", "list", "sales", "--format", "csv"],
        ["plot", "sales", "-o", str(tmp_path / "sales.png")],
        ["plot-timeline", "-o", str(tmp_path / "timeline.png")],
        ["series", "delete", "sales"],
    ]
    run = subprocess.run(
        [sys.executable, "-c", PROBE, *(json.dumps(c) for c in commands)],
        env=environment(store_url, tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.splitlines()[-1])
    assert report == {"codes": [0] * len(commands), "loaded": []}
    assert "28 points stored" in run.stdout and "deleted series sales" in run.stdout
    assert run.stderr == ""  # ingest-series draws its progress bar on a terminal only


def add_event(env: dict[str, str]) -> None:
    """`graphmem add-event` prints the event's line and nothing else."""
    added = graphmem(["add-event", "Met Anna at the harbour.", "--date", "2024-05-01"], env)
    assert added.returncode == 0, added.stderr
    [line] = added.stdout.splitlines()
    assert line.startswith("ev_") and line.endswith("2024-05-01  Met Anna at the harbour.")
    assert_no_progress_output(added.stderr)


def test_model_commands_print_only_their_results(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    env = environment(store_url, tmp_path)
    add_event(env)
    recalled = graphmem(["recall", "harbour", "--now", "2024-06-01"], env)
    assert recalled.returncode == 0, recalled.stderr
    header, rule, row = recalled.stdout.splitlines()
    assert header.split()[:2] == ["p", "recalled"] and set(rule) <= {"-", " "}
    assert "t (months)" in header  # the default unit, named
    assert row.endswith("Met Anna at the harbour.")
    assert_no_progress_output(recalled.stderr)
    # a year on, nothing reaches the threshold: --reinforce says it reinforced nothing
    later = graphmem(["recall", "harbour", "--now", "2025-06-01", "--reinforce"], env)
    assert later.returncode == 0, later.stderr
    assert "note: nothing reinforced: no memory reached the recall threshold" in later.stderr


def test_the_torch_backend_prints_no_loading_bar(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    add_event(environment(store_url, tmp_path, GRAPHMEM_EMBED_BACKEND="torch"))
