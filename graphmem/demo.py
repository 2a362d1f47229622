"""`graphmem demo`: shows, on real data, what is built so far."""

from __future__ import annotations

import json
from statistics import median
from typing import Any, TextIO

from graphmem.config import Settings
from graphmem.errors import LLMError
from graphmem.llm import LLM, llm_or_none
from graphmem.series.catalog import SeriesInfo, ensure_series
from graphmem.series.detect.ingest import ingest_all
from graphmem.series.detect.segments import list_segments, time_bounds
from graphmem.series.detect.synthetic import sales_series
from graphmem.series.meta.tools import run_tool
from graphmem.services import Services
from graphmem.store import Store
from graphmem.tables import render


def load_sales(store: Store) -> SeriesInfo:
    """The synthetic sales series: ingested on first run, completed if a run was interrupted."""
    data = sales_series(seed=0)
    series = ensure_series(store, data.name, data.unit, data.description)
    bounds = time_bounds(store, series.id)
    # Batches land whole, so whatever is stored is a prefix of the series: append the rest.
    done = bounds.n_points + bounds.n_skipped
    if done < len(data.ts):
        ingest_all(store, series.id, data.ts[done:], data.xs[done:], batch_size=1000)
    return series


def run_demo(services: Services, out: TextIO) -> None:
    """Series memory on synthetic sales, propositions on a fictional corpus, timeline recall."""
    store, settings = services.store, services.settings
    series = load_sales(store)
    bounds = time_bounds(store, series.id)
    print(
        f"Series {series.name!r} ({series.unit}): {bounds.n_points} daily points "
        f"{(bounds.start_iso or '')[:10]} to {(bounds.end_iso or '')[:10]}, "
        "cut online by BOCPD into "
        f"{bounds.n_segments} segments:\n",
        file=out,
    )
    rows = [
        {
            "#": s.idx,
            "start": s.start_iso[:10],
            "end": s.end_iso[:10],
            "n": s.n,
            "summary": s.summary + (" (open)" if s.open else ""),
        }
        for s in list_segments(store, series.id, limit=10_000)
    ]
    print(render(rows, max_cell=200), file=out)
    yearly_trend(store, settings, series, out, services)
    propositions_demo(services, out)
    timeline_demo(services, out)
    print(
        "\nNext: `graphmem plot synthetic-sales -o sales.png`, `graphmem serve` for GraphQL, "
        '`graphmem cypher "MATCH (g:Segment) RETURN g.summary LIMIT 5"`.',
        file=out,
    )


YEARLY_QUESTION = (
    "How did yearly sales develop from the first to the last year, and was any year unusual?"
)


def yearly_trend(
    store: Store,
    settings: Settings,
    series: SeriesInfo,
    out: TextIO,
    services: Services | None = None,
) -> list[dict[str, Any]]:
    """The source paper's yearly-trend analysis: time_bounds -> yearly meta-segments -> features.

    With an LLM configured the agent runs it and its trace and answer are printed; without
    one, or when the LLM fails, the same tool calls run directly. Either way the per-year
    table follows (rows returned) and every call is stored as a ToolCall. The agent's tools
    are `services`' (with segment text search); without them, every tool but text search.
    """
    llm = llm_or_none(settings)
    if llm is not None and _agent_answers(store, llm, series, out, services):
        print("\nPer-year features of the yearly meta-segments:\n", file=out)
        rows = _yearly_rows(store, series, None)
    else:
        if llm is None:
            print(
                "\nYearly trend (no LLM configured: the agent's tool calls, run directly):",
                file=out,
            )
        rows = _yearly_rows(store, series, out)
    print(render(rows), file=out)
    weakest = min(rows, key=lambda r: r["slope/day"])
    growth = [r["mean vs prev %"] for r in rows if r["mean vs prev %"] is not None]
    dips = [
        f"{r['year']} (+{r['mean vs prev %']} %)"
        for r in rows
        if r["mean vs prev %"] is not None and r["mean vs prev %"] < 0.75 * median(growth)
    ]
    print(
        f"\nWeakest trend within a year: {weakest['year']} (slope {weakest['slope/day']} "
        f"{series.unit or ''}/day). Year-over-year growth dips in {', '.join(dips)} against "
        f"a median of +{median(growth):.3g} %.",
        file=out,
    )
    return rows


def _agent_answers(
    store: Store, llm: LLM, series: SeriesInfo, out: TextIO, services: Services | None
) -> bool:
    """Let the agent answer, printing its trace; False (and why) when the LLM fails."""
    from graphmem.agent import ask, format_step

    print(f"\nAsking the agent: {YEARLY_QUESTION}", file=out)
    try:
        answer = ask(
            store,
            llm,
            YEARLY_QUESTION,
            series.id,
            on_step=lambda step, n: print(format_step(step, n), file=out),
            env=services.tools() if services is not None else None,
        )
    except LLMError as error:
        print(f"\nThe LLM failed ({error}); the agent's tool calls, run directly:", file=out)
        return False
    print(f"\nAnswer: {answer.answer}", file=out)
    return True


def _yearly_rows(store: Store, series: SeriesInfo, steps: TextIO | None) -> list[dict[str, Any]]:
    """The paper's tool calls, run directly; each step printed to `steps` when given."""

    def step(text: str) -> None:
        if steps is not None:
            print(text, file=steps)

    bounds = json.loads(run_tool(store, "time_bounds", {"series": series.id}, "demo").content)
    step(f"[Step 1/3] tool: time_bounds -> {bounds['start']} to {bounds['end']}")
    args = {"series": series.id, "start": bounds["start"], "end": bounds["end"], "freq": "year"}
    years = json.loads(
        run_tool(store, "create_meta_segment_by_datetime_range", args, "demo").content
    )
    ids = [dict(zip(years["cols"].split(","), row, strict=True))["id"] for row in years["rows"]]
    step(f"[Step 2/3] tool: create_meta_segment_by_datetime_range -> {len(ids)} years")
    rows = []
    for meta_id in ids:
        f = json.loads(
            run_tool(store, "get_meta_features", {"meta_segment_id": meta_id}, "demo").content
        )
        rows.append(
            {
                "year": f["label"],
                "n": f["n"],
                "mean": f["mean"],
                "slope/day": f["slope"],
                "mean vs prev %": f.get("pct_prev"),
                "segments": f["members"],
            }
        )
    step(f"[Step 3/3] tool: get_meta_features x{len(rows)}\n")
    return rows


def propositions_demo(services: Services, out: TextIO) -> None:
    """Ingest the built-in fictional corpus and print the subgraph for a dated question."""
    from graphmem.props import add_document, render, subgraph
    from graphmem.props.demo_corpus import AS_OF, DOCUMENTS, QUESTION

    memory = services.props()
    how = "LLM extraction" if memory.llm is not None else "sentence splitting (no LLM configured)"
    for doc in DOCUMENTS:
        add_document(memory, doc["text"], doc["date"], doc["source"])
    print(
        f"\nPropositions: {len(DOCUMENTS)} dated documents about a fictional town, by {how}.",
        file=out,
    )
    print(f"Question: {QUESTION}  (as of {AS_OF})\n", file=out)
    print(render(subgraph(memory, QUESTION, AS_OF, k=8), max_tokens=800), file=out)


def timeline_demo(services: Services, out: TextIO) -> None:
    """The source paper's Halloween memories: a repeatedly recalled one ranks first.

    At the paper's time scale: t in days and r the plain cosine (the defaults, months and a
    rescaled cosine, suit memories kept for months: docs/timeline.md).
    """
    from dataclasses import replace

    from graphmem.timeline import TimelineMemory, add_event, recall, reinforce
    from graphmem.timeline.demo_corpus import HALLOWEEN, NOW, PAPER, QUESTION, WARD_RECALLS

    shared = services.timeline()
    memory = TimelineMemory(
        shared.store, shared.embedder, shared.vectors, replace(shared.config, **PAPER)
    )
    events = {key: add_event(memory, text, date) for key, (text, date) in HALLOWEEN.items()}
    for day in WARD_RECALLS:  # once per (memory, day): a second run changes nothing
        reinforce(memory, [events["ward"].id], day)
    mine = {e.id for e in events.values()}
    found = [m for m in recall(memory, QUESTION, NOW, k=10, labels=("Event",)) if m.id in mine]
    print(
        f"\nTimeline memory: {len(HALLOWEEN)} memories; the ward notice was recalled on "
        f"{len(WARD_RECALLS)} days since {HALLOWEEN['ward'][1]}.",
        file=out,
    )
    print(f"Recall {QUESTION!r} at {NOW}, ranked by recall probability p:\n", file=out)
    rows = [
        {
            "date": m.date,
            "relevance r": f"{m.r:.3f}",
            "days t": f"{m.t:g}",
            "recalls n": m.n,
            "p": f"{m.p:.3f}",
            "memory": m.text,
        }
        for m in found
    ]
    print(render(rows, max_cell=110), file=out)
