"""Meta-segment benchmark: build times (cache miss / hit), get_meta_features, agent tokens."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, temp_store, timed  # noqa: E402
from tool_render import render_tools  # noqa: E402

from graphmem.agent import SYSTEM, describe_series  # noqa: E402
from graphmem.series.catalog import create_series  # noqa: E402
from graphmem.series.detect.ingest import append, ingest_all  # noqa: E402
from graphmem.series.detect.synthetic import piecewise_gaussian, sales_series  # noqa: E402
from graphmem.series.meta import get_meta  # noqa: E402
from graphmem.series.meta.build import build_by_range, build_range  # noqa: E402
from graphmem.series.meta.compact import ROW_CAP  # noqa: E402
from graphmem.series.meta.tools import run_tool, tool_schemas  # noqa: E402
from graphmem.store import Store  # noqa: E402
from graphmem.tokens import estimate_tokens  # noqa: E402

FREQS = ("year", "month", "week")
FRAMING = 4  # tokens an OpenAI-style chat adds around each message (role, separators)
QUESTION = "How did the yearly trend change?"


def builds(store: Store, series_id: str, repeat: int) -> None:
    for freq in FREQS:
        misses, count = [], 0
        for _ in range(repeat):
            store.write("meta.clear", series_id=series_id)
            t = time.perf_counter()
            count = len(build_by_range(store, series_id, 0, 4e9, freq))
            misses.append(time.perf_counter() - t)
        hits = timed(lambda f=freq: build_range(store, series_id, 0, 4e9, f, ROW_CAP), repeat)
        full = timed(lambda f=freq: build_by_range(store, series_id, 0, 4e9, f), repeat)
        print(
            f"  build all {count:>5} {freq:<5} meta-segments: miss {percentiles_ms(misses)} | "
            f"hit, as the tool ({ROW_CAP} rows loaded) {percentiles_ms(hits)} | "
            f"hit, every node loaded {percentiles_ms(full)}"
        )


def extension(store: Store, series_id: str, ts: np.ndarray, xs: np.ndarray, repeat: int) -> None:
    """Cost of bringing cached weekly meta-segments up to date after appending one point."""
    samples = []
    for k in range(repeat):
        build_by_range(store, series_id, 0, 4e9, "week")
        step = float(np.median(np.diff(ts)))
        append(store, series_id, [ts[-1] + step * (k + 1)], [float(xs[-1])])
        t = time.perf_counter()
        build_range(store, series_id, 0, 4e9, "week", ROW_CAP)
        samples.append(time.perf_counter() - t)
    print(f"  weekly meta-segments after appending one point: {percentiles_ms(samples)}")


def features(store: Store, series_id: str, repeat: int) -> None:
    ids = [m.id for m in build_by_range(store, series_id, 0, 4e9, "month")]
    it = iter(np.resize(ids, repeat))
    direct = timed(lambda: get_meta(store, str(next(it))), repeat)
    it = iter(np.resize(ids, repeat))
    tool = timed(
        lambda: run_tool(store, "get_meta_features", {"meta_segment_id": str(next(it))}), repeat
    )
    print(
        f"  get_meta_features: read {percentiles_ms(direct)} | as a tool call, with its "
        f"ToolCall node written {percentiles_ms(tool)}"
    )


def _trace(store: Store, name: str) -> tuple[list[dict], list[str]]:
    """The paper's yearly-trend trace as the agent's messages; (messages, part of each)."""
    system = SYSTEM.format(series=describe_series(store, name))
    messages = [{"role": "system", "content": system}, {"role": "user", "content": QUESTION}]
    parts = ["system prompt", "question"]

    def call(tool: str, args: dict, part: str) -> dict:
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [{"function": {"name": tool, "arguments": json.dumps(args)}}],
            }
        )
        content = run_tool(store, tool, args).content
        messages.append({"role": "tool", "content": content})
        parts.extend([part, part])
        return json.loads(content)

    bounds = call("time_bounds", {"series": name}, "time_bounds")
    yearly = {"series": name, "start": bounds["start"], "end": bounds["end"], "freq": "year"}
    table = call("create_meta_segment_by_datetime_range", yearly, "yearly build")
    cols = table["cols"].split(",")
    rows = [dict(zip(cols, row, strict=True)) for row in table["rows"]]
    for row in [r for r in rows if r["label"] in ("2015", "2016", "2017")] or rows[-3:]:
        call("get_meta_features", {"meta_segment_id": row["id"]}, "get_meta_features x3")
    return messages, parts


def _message_tokens(message: dict, count: Callable[[str], int]) -> int:
    """The text a message carries (content, tool names and arguments) plus its framing."""
    text = [message.get("content") or ""]
    for c in message.get("tool_calls", []):
        text += [c["function"]["name"], c["function"]["arguments"]]
    return FRAMING + sum(count(t) for t in text)


def _real_counter() -> tuple[str, Callable[[str], int]] | None:
    """A real GPT-4o tokenizer (o200k_base) when the optional `bpe-openai` package is there."""
    try:
        import bpe_openai
    except ImportError:
        return None
    encoding = bpe_openai.get_encoding("o200k_base")

    def count(text: str) -> int:
        # the encoder refuses very long inputs; a CSV tokenizes line by line anyway (a
        # token never spans a line break there), so count it in pieces of whole lines
        lines = text.splitlines(keepends=True)
        pieces = ("".join(lines[i : i + 10_000]) for i in range(0, len(lines), 10_000))
        return sum(len(encoding.encode(piece)) for piece in pieces)

    return "o200k_base", count


def tokens(store: Store, name: str, ts: np.ndarray, xs: np.ndarray) -> None:
    """Tokens of the paper's yearly-trend trace against the raw series as CSV."""
    messages, parts = _trace(store, name)
    csv = "timestamp,value\n" + "".join(
        f"{np.datetime64(int(t), 's').astype('datetime64[D]')},{x:.2f}\n"
        for t, x in zip(ts, xs, strict=True)
    )
    _count(messages, parts, csv, "estimate_tokens", estimate_tokens)
    real = _real_counter()
    if real is None:
        print("    (pip install bpe-openai to also count with a real tokenizer)")
    else:
        _count(messages, parts, csv, *real)


def _count(
    messages: list[dict], parts: list[str], csv: str, how: str, count: Callable[[str], int]
) -> None:
    # the tools the agent sends when asked about one series, as the model receives them
    sent = tool_schemas(exclude=("list_series",))
    schemas = count(render_tools(sent))
    as_json = count(json.dumps(sent))
    per = [_message_tokens(m, count) for m in messages]
    seen = schemas + sum(per)
    breakdown = {"tool schemas": schemas}
    for part, n in zip(parts, per, strict=True):
        breakdown[part] = breakdown.get(part, 0) + n
    # the agent sends the schemas and every message so far with each of its requests; the
    # requests are made after the question and after each tool result (the last one answers)
    asked = [i + 1 for i, m in enumerate(messages) if m["role"] in ("user", "tool")]
    cumulative = sum(schemas + sum(per[:i]) for i in asked)
    raw = count(csv)
    print(
        f"  [{how}] yearly-trend task (each message once, {FRAMING} tokens of framing each, tool "
        f"schemas once, rendered as the model receives them): the agent sees ~{seen:,} tokens "
        f"vs ~{raw:,} for the raw series as CSV: {100 * seen / raw:.2f} %; the task's own "
        f"messages (without the fixed tool schemas) {100 * (seen - schemas) / raw:.2f} % "
        f"(goal 2 %)"
    )
    print(
        f"    tool schemas: {schemas:,} tokens rendered, {as_json:,} as raw JSON (upper bound: "
        f"{100 * (seen - schemas + as_json) / raw:.2f} % with them)"
    )
    print("    " + "; ".join(f"{k} {v:,} ({100 * v / seen:.0f} %)" for k, v in breakdown.items()))
    print(
        f"    cumulative prompt tokens over the agent's {len(asked)} requests: ~{cumulative:,} "
        f"({100 * cumulative / raw:.1f} % of the CSV)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--big", type=int, default=1_000_000, help="large series points (0: none)")
    parser.add_argument("--tokens-only", action="store_true", help="the token figures only")
    args = parser.parse_args()
    with temp_store() as store:
        data = sales_series(seed=0)
        series = create_series(store, data.name, data.unit)
        ingest_all(store, series.id, data.ts, data.xs)
        print(f"11-year daily sales series ({len(data.ts)} points):")
        tokens(store, series.name, data.ts, data.xs)
        if args.tokens_only:
            return
        builds(store, series.id, args.repeat)
        features(store, series.id, args.repeat * 10)
        extension(store, series.id, data.ts, data.xs, args.repeat)
        if args.big <= 0:
            return

        parts, seed = [], 0
        while sum(map(len, parts)) < args.big:
            parts.append(piecewise_gaussian(seed=seed, n_segments=50, base_mean=100.0).xs)
            seed += 1
        xs = np.concatenate(parts)[: args.big]
        ts = 1_000_000_000 + 900.0 * np.arange(args.big)  # 15-minute spacing, ~28 years
        big = create_series(store, "big", unit="units")
        t = time.perf_counter()
        ingest_all(store, big.id, ts, xs)
        print(
            f"\n{args.big:,}-point series (15-minute spacing, ingested in "
            f"{time.perf_counter() - t:.0f} s):"
        )
        builds(store, big.id, max(3, args.repeat // 5))
        features(store, big.id, args.repeat * 10)
        tokens(store, big.name, ts, xs)


if __name__ == "__main__":
    main()
