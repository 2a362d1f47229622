"""The `graphmem` command."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem import kinds
from graphmem.config import WARMUP_MODES, Settings
from graphmem.errors import GraphmemError, InvalidInput, NotFound, ReadOnlyViolation
from graphmem.tables import FORMATS, formatted, render, with_times

if TYPE_CHECKING:  # the store and what it pulls in load only for the commands that use them
    from graphmem.series.detect.segments import Segment
    from graphmem.series.meta import MetaSegment
    from graphmem.series.meta.tools import ToolEnv
    from graphmem.services import Services
    from graphmem.store import Store
    from graphmem.vectors.reembed import Reembedded

Handler = Callable[[argparse.Namespace, Settings], int]
SPACE_HELP = "the space to read and write (default: $GRAPHMEM_SPACE, else default)"
# cypher reads the whole store: the space is only what $space stands for in the query
CYPHER_SPACE_HELP = (
    "the value of $space in the query; the query itself reads every space, so scope it "
    "with {space: $space} (default: $GRAPHMEM_SPACE, else default)"
)
Limit = int | Callable[[], int] | None

SESSION = "cli"  # the session of the ToolCall nodes that record meta-segments built here
STD_NOTE = "std: the population standard deviation (divided by n, not n - 1)"


def limit(module: str, name: str) -> Callable[[], int]:
    """A library's limit, imported only when its flag is given (keeps `graphmem --help` quick)."""
    return lambda: getattr(importlib.import_module(module), name)


def int_arg(low: int = 1, high: Limit = None) -> Callable[[str], int]:
    """An argparse type: an integer from `low` to `high`.

    argparse names the flag in the error and exits with status 2 before any command runs, so
    a bad number never leaves half a job done (say, a series created but nothing stored).
    """

    def parse(text: str) -> int:
        most = high() if callable(high) else high
        span = f">= {low:,}" if most is None else f"from {low:,} to {most:,}"
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer {span}, not {text!r}") from None
        if value < low or (most is not None and value > most):
            raise argparse.ArgumentTypeError(f"must be an integer {span}, not {value}")
        return value

    return parse


def threshold_arg(text: str) -> float:
    """An argparse type: a recall threshold in (0, 1]."""
    from graphmem.timeline.formula import checked_threshold

    try:
        return checked_threshold(float(text))
    except (ValueError, InvalidInput):
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], not {text!r}") from None


def day_arg(text: str) -> str:
    """An argparse type: a 'YYYY-MM-DD' date, so a bad one is named by its flag (status 2)."""
    from graphmem.props.model import checked_date

    try:
        return checked_date(text, "date")[0]
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(e.problem) from None


def column_arg(text: str) -> str | int:
    """An argparse type: a CSV column by header name, or by 0-based index when all digits."""
    return int(text) if text.isdigit() else text


def delimiter_arg(text: str) -> str:
    """An argparse type: one character; `tab` or a typed `\\t` mean a tab."""
    return "\t" if text in ("tab", "\\t") else text


def _print_rows(
    args: argparse.Namespace, rows: list[dict[str, Any]], note: str = "", vertical: bool = False
) -> None:
    """Rows as --format asks; `note` follows a table only (JSON and CSV stay data).

    `vertical`: a table of one line per field (for one wide row); JSON and CSV are unchanged.
    """
    if not args.raw_times:
        rows = [with_times(row) for row in rows]
    if vertical and args.format == "table":
        rows = [{"field": key, "value": value} for row in rows for key, value in row.items()]
    out = formatted(rows, args.format, args.width, times=False)
    print(out, end="" if args.format == "csv" else "\n")
    if note and args.format == "table" and rows:
        print(f"\n{note}")


def _space(args: argparse.Namespace, settings: Settings) -> str:
    """The space of the command: --space, else $GRAPHMEM_SPACE, else `default`."""
    from graphmem.spaces import checked_space

    return checked_space(args.space, "--space") if args.space else settings.space


@contextlib.contextmanager
def _open(args: argparse.Namespace, settings: Settings) -> Iterator[Store]:
    """The store seen from the command's space; closed at the end."""
    from graphmem.store import open_store

    space = _space(args, settings)
    with open_store(args.store, settings) as store:
        yield store.in_space(space)


# The web app and the MCP server live in the `api` package, above the library: the CLI starts
# them by module name, so nothing in `graphmem` imports `api`.
SERVER_MODULE = "api.serve"


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the GraphQL API with uvicorn; refuse to expose it without a token."""
    settings = settings.with_overrides(
        store_url=args.store or None, host=args.host, warmup=args.warmup, serve_workers=args.workers
    )
    server = importlib.import_module(SERVER_MODULE)
    return server.serve_http(settings, settings.host, args.port, insecure=args.insecure)


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """Serve MCP over stdin/stdout for one client (docs/mcp.md); stdout is the protocol's."""
    settings = settings.with_overrides(store_url=args.store or None)
    server = importlib.import_module(SERVER_MODULE)
    return server.serve_mcp_stdio(settings, args.read_only, _space(args, settings))


def cmd_cypher(args: argparse.Namespace, settings: Settings) -> int:
    """Run a read-only Cypher query and print the rows (table, JSON or CSV)."""
    with _open(args, settings) as store:
        try:
            rows = store.inspect(args.query)
        except ReadOnlyViolation:
            print(
                "refused: `graphmem cypher` is read-only inspection; this query writes. "
                "Change data through the API or the Python library.",
                file=sys.stderr,
            )
            return 2
        _print_rows(args, rows)
    return 0


def cmd_ingest_series(args: argparse.Namespace, settings: Settings) -> int:
    """Load a CSV's time and value columns into a series in atomic batches; a bar on a tty."""
    from tqdm import tqdm

    from graphmem.series.catalog import ensure_series
    from graphmem.series.detect.batch import validate_batch
    from graphmem.series.detect.csvload import load_csv
    from graphmem.series.detect.ingest import close_series, ingest_all, new_part
    from graphmem.series.detect.segments import time_bounds

    data = load_csv(args.file, args.time_col, args.value_col, args.delimiter)
    if len(data.ts) == 0:
        print(f"error: {args.file} holds no points", file=sys.stderr)
        return 1
    points = validate_batch(data.ts, data.xs, most=None)  # all of it, before the series exists
    if points.missing.all():
        print(f"error: {args.file} holds no values (all {len(points.ts)} missing)", file=sys.stderr)
        return 1
    with _open(args, settings) as store:
        series = ensure_series(store, args.series, args.unit, args.description)
        _note_kept(series.name, "unit", series.unit, args.unit)
        _note_kept(series.name, "description", series.description, args.description)
        points, known = new_part(store, series.id, points)  # a grown file: its new rows
        # disable=None: no bar unless stderr is a terminal (none in a pipe or a log)
        with tqdm(
            total=len(points.ts), unit="pt", desc=f"ingest {series.name}", disable=None
        ) as bar:
            results = ingest_all(store, series.id, points, None, args.batch_size, bar.update)
        closed = None if args.no_close else close_series(store, series.id)
        bounds = time_bounds(store, series.id)
    accepted = sum(r.accepted for r in results)
    skipped = sum(r.skipped for r in results)
    print(
        f"{series.name}: {_count(accepted, 'point')} stored, "
        f"{_count(skipped, 'missing value')} skipped"
        + (f", {_count(known, 'row')} already stored" if known else "")
        + f"; {_count(bounds.n_segments, 'segment')}, {bounds.start_iso} to {bounds.end_iso}"
        + ("; open (--no-close)" if closed is None else "; closed")
    )
    return 0


def _note_kept(name: str, field: str, stored: str | None, given: str | None) -> None:
    """Say so when a flag that applies to a new series differs from the existing one's."""
    if given is not None and (given.strip() or None) != stored:
        kept = f"keeps its {field} {stored!r}" if stored else f"keeps no {field}"
        print(
            f"note: series {name} {kept} (--{field} applies when a series is created)",
            file=sys.stderr,
        )


def _count(n: int, noun: str) -> str:
    """'1 point', '2 points'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def cmd_segments(args: argparse.Namespace, settings: Settings) -> int:
    """Print the segments of a series."""
    from graphmem.series.detect.segments import list_segments

    with _open(args, settings) as store:
        segs = list_segments(store, args.series, limit=args.limit)
    rows = [
        {
            "#": s.idx,
            "start": s.start_iso[:10],
            "end": s.end_iso[:10],
            "n": s.n,
            "open": "open" if s.open else "",
            "summary": s.summary,
        }
        for s in segs
    ]
    print(render(rows, max_cell=200))
    return 0


def cmd_plot(args: argparse.Namespace, settings: Settings) -> int:
    """Plot a series with its segments to a PNG, all of it or from --start to --end."""
    from graphmem.plot import plot_series
    from graphmem.series.meta.query import time_arg

    start, end = time_arg(args.start, "--start"), time_arg(args.end, "--end")
    with _open(args, settings) as store:
        n = plot_series(store, args.series, args.output, start, end)
    print(f"wrote {args.output} ({n} segments)")
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer a question about a series with the LLM agent; prints the trace as it goes."""
    from graphmem.agent import ask, format_step
    from graphmem.llm import LLM

    llm = LLM(settings)  # says plainly when no LLM is configured
    with _tool_env(args, settings) as env:
        answer = ask(
            env.store,
            llm,
            args.question,
            args.series,
            args.max_steps,
            on_step=lambda step, n: print(format_step(step, n)),
            env=env,
        )
    print(f"\n{answer.answer}")
    if answer.evidence:
        print(f"\nevidence ({answer.session}): {', '.join(answer.evidence)}")
    return 0 if answer.complete else 3


@contextlib.contextmanager
def _tool_env(args: argparse.Namespace, settings: Settings) -> Iterator[ToolEnv]:
    """The series tools on the store; the embedding model loads only if text search is used."""
    from graphmem.services import open_tools

    with _open(args, settings) as store:
        env = open_tools(settings, store)
        try:
            yield env
        finally:
            env.close()


def _stats_row(x: Segment | MetaSegment) -> dict[str, Any]:
    """What a segment and a meta-segment share; start and end: times of its first and last point."""
    from graphmem.series.meta import MetaSegment

    kind, label = (x.kind, x.label) if isinstance(x, MetaSegment) else ("segment", None)
    f = x.features
    return {
        "id": x.id,
        "kind": kind,
        "label": label,
        "start": x.stats.t_first,
        "end": x.stats.t_last,
        "n": f.n,
        "mean": f.mean,
        "std": f.std,
        "min": f.min,
        "max": f.max,
        "slope_per_day": f.slope_per_day,
    }


def _meta_row(m: MetaSegment, full: bool = False) -> dict[str, Any]:
    """A meta-segment's row; `full` adds the change, the fit, the coverage and the summary."""
    more = {"freq": m.freq, "members": m.member_count, "pct_change_prev": m.pct_change_prev}
    row = _stats_row(m) | more
    if full:
        f = m.features
        row |= {
            "prev_label": m.prev_label,
            "change_prev": m.change_prev,
            "first": f.first,
            "last": f.last,
            "change": f.change,
            "pct_change": f.pct_change,
            "r2": f.r2,
            "coverage": m.coverage,
            "built_at": m.built_at,
            "spec": m.spec,
            "summary": m.summary(None),
        }
    return row


def _build_metas(
    args: argparse.Namespace, settings: Settings, tool: str, arguments: dict[str, Any]
) -> int:
    """Run a build tool (recorded as a ToolCall of session `cli`); print what it built."""
    from graphmem.series.meta.tools import built_metas

    with _tool_env(args, settings) as env:
        metas = built_metas(env, tool, arguments, SESSION)
    _print_rows(args, [_meta_row(m) for m in metas], STD_NOTE)
    return 0


def cmd_meta_period(args: argparse.Namespace, settings: Settings) -> int:
    """Meta-segments over --start..--end: one per calendar --freq period, or one in all."""
    arguments = {"series": args.series, "start": args.start, "end": args.end, "freq": args.freq}
    return _build_metas(args, settings, "create_meta_segment_by_datetime_range", arguments)


def cmd_meta_filter(args: argparse.Namespace, settings: Settings) -> int:
    """One meta-segment of the segments meeting --where (with --text: the -k closest to it)."""
    arguments = {
        "series": args.series,
        "where": args.where,
        "start": args.start,
        "end": args.end,
        "text": args.text,
        "k": args.k,
    }
    return _build_metas(args, settings, "create_meta_segment_by_filter", arguments)


def cmd_meta_group(args: argparse.Namespace, settings: Settings) -> int:
    """One meta-segment of given segments and meta-segments."""
    arguments = {"member_ids": args.ids, "label": args.label}
    return _build_metas(args, settings, "create_meta_segment_from_members", arguments)


def cmd_meta_list(args: argparse.Namespace, settings: Settings) -> int:
    """The meta-segments built for a series, in time order, as stored."""
    from graphmem.series.meta import list_metas

    with _open(args, settings) as store:
        found = list_metas(store, args.series, args.limit, args.offset)
    _print_rows(args, [_meta_row(m) for m in found], STD_NOTE)
    return 0


def cmd_meta_show(args: argparse.Namespace, settings: Settings) -> int:
    """A meta-segment in full (first brought up to date), or with --members what it groups."""
    from graphmem.series.meta import get_members, get_meta
    from graphmem.series.meta.fresh import fresh

    with _tool_env(args, settings) as env:
        found = fresh(env.store, get_meta(env.store, args.id), env.search)
        if args.members:
            members = get_members(env.store, found.id).in_time_order()
    if args.members:
        _print_rows(args, [_stats_row(x) for x in members], STD_NOTE)
    else:
        _print_rows(args, [_meta_row(found, full=True)], STD_NOTE, vertical=True)
    return 0


@contextlib.contextmanager
def _services(args: argparse.Namespace, settings: Settings) -> Iterator[Services]:
    """The services of the command's space; the store and every index closed at the end."""
    from graphmem.services import Services

    space = _space(args, settings)
    with Services.open(settings, args.store) as owner, owner.using(space) as services:
        yield services


def cmd_add_event(args: argparse.Namespace, settings: Settings) -> int:
    """Store an episodic memory."""
    from graphmem.timeline import add_event

    with _services(args, settings) as services:
        event = add_event(services.timeline(), args.text, args.date, args.source)
    print(f"{event.id}  {event.date}  {event.text}")
    return 0


def cmd_recall(args: argparse.Namespace, settings: Settings) -> int:
    """Memories ranked by recall probability at --now."""
    from graphmem.timeline import recall

    labels = tuple(args.labels.split(","))
    with _services(args, settings) as services:
        found = recall(
            services.timeline(),
            args.query,
            args.now,
            args.k,
            args.threshold,
            labels,
            reinforce=args.reinforce,
        )
    rows = [
        {
            "p": f"{m.p:.3g}",
            "recalled": "yes" if m.recalled else "",
            "r": round(m.r, 3),
            f"t ({settings.time_unit})": round(m.t, 1),
            "n": m.n,
            "date": m.date,
            "label": m.label,
            "text": m.text,
        }
        for m in found
    ]
    print(render(rows, max_cell=100))
    if args.reinforce and found and not any(m.recalled for m in found):
        best = max(m.p for m in found)
        print(
            f"note: nothing reinforced: no memory reached the recall threshold (best p {best:.3g})",
            file=sys.stderr,
        )
    return 0


def cmd_plot_timeline(args: argparse.Namespace, settings: Settings) -> int:
    """Memories on a time axis shaded by importance, to a PNG."""
    from graphmem.timeline import plot_timeline

    with _services(args, settings) as services:
        n = plot_timeline(services.timeline(), args.output, args.start, args.end, args.now)
    print(f"wrote {args.output} ({n} memories)")
    return 0


def cmd_ingest_docs(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest documents from JSON lines ({text, date, source?}) in bulk; a progress bar on a tty.

    Documents already stored are skipped, so running it again after an interruption resumes.
    """
    from tqdm import tqdm

    from graphmem.props.jsonl import read_documents

    docs = read_documents(args.file)  # every line checked before anything is stored
    with (
        _services(args, settings) as services,
        tqdm(total=len(docs), unit="doc", disable=None) as bar,
    ):

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "documents":
                bar.update(done - bar.n)
            else:
                bar.set_postfix(propositions=done, refresh=False)

        report = services.props().ingest_documents(docs, progress=progress, replace=args.replace)
    skipped = f"; {report.skipped} documents were stored already" if report.skipped else ""
    print(
        f"{len(docs)} documents: {report.added} propositions added, {report.existing} already "
        f"stored, {report.relations} relation edges{skipped}"
    )
    _print_versions(report.earlier_versions, report.replaced, args.replace)
    return 0


def _print_versions(earlier: Sequence[str], replaced: int, replace: bool) -> None:
    """Say what became of stored documents that look like earlier versions of new ones."""
    if replace:
        if earlier:
            print(f"{replaced} earlier versions (same source and date, other text) were deleted")
    elif earlier:
        shown = ", ".join(earlier[:5]) + (
            f" and {len(earlier) - 5} more" if len(earlier) > 5 else ""
        )
        print(
            f"note: {len(earlier)} stored documents have the source and date of one in the file "
            f"and mostly its words, so both versions are current: {shown}; --replace deletes them "
            "(or `graphmem document delete ID`)",
            file=sys.stderr,
        )


def cmd_document_delete(args: argparse.Namespace, settings: Settings) -> int:
    """Delete a document with the propositions no other document states."""
    with _services(args, settings) as services:
        deleted = services.props().delete_document(args.id)
    count = len(deleted.proposition_ids)
    print(
        f"deleted document {deleted.id} and {count} proposition{'s' * (count != 1)} "
        "no other document states"
    )
    return 0


def _changed(
    args: argparse.Namespace, settings: Settings, change: Callable[[Services], Any], verb: str = ""
) -> int:
    """Run one change to a proposition or event; print it as `[verb ]id  date  text`."""
    with _services(args, settings) as services:
        item = change(services)
    print(f"{verb + ' ' if verb else ''}{item.id}  {item.date}  {item.text}")
    return 0


def cmd_proposition_delete(args: argparse.Namespace, settings: Settings) -> int:
    """Delete a proposition with its relation edges."""
    return _changed(args, settings, lambda s: s.props().delete_proposition(args.id), "deleted")


def cmd_proposition_update(args: argparse.Namespace, settings: Settings) -> int:
    """Correct a proposition's text, date or source."""
    return _changed(
        args,
        settings,
        lambda s: s.props().update_proposition(args.id, args.text, args.date, args.source),
    )


def cmd_event_delete(args: argparse.Namespace, settings: Settings) -> int:
    """Delete an episodic memory."""
    return _changed(args, settings, lambda s: s.timeline().delete_event(args.id), "deleted")


def cmd_query(args: argparse.Namespace, settings: Settings) -> int:
    """Print the rendered subgraph answering a question as of a date."""
    from graphmem.props import render, subgraph
    from graphmem.props.retrieve import anchor_ranker

    with _services(args, settings) as services:
        memory = services.props()
        ranker = anchor_ranker(memory, args.rank_by, args.now, args.as_of, ("--rank-by", "--now"))
        graph = subgraph(
            memory, args.question, args.as_of, args.k, not args.no_expand, ranker=ranker
        )
    text = render(graph, args.max_tokens)
    if not graph.nodes:  # a blank line would read as a failure
        when = f" dated on or before {args.as_of}" if args.as_of else ""
        print(f"note: no proposition{when} is stored in this space", file=sys.stderr)
    elif text:
        print(text)
    else:  # an empty page would read as "nothing known"
        print(
            f"note: no proposition fits in --max-tokens {args.max_tokens}; "
            f"{len(graph.nodes)} found (raise --max-tokens)",
            file=sys.stderr,
        )
    return 0


def cmd_series_list(args: argparse.Namespace, settings: Settings) -> int:
    """Print the stored series."""
    from graphmem.series.catalog import list_series

    with _open(args, settings) as store:
        found = list_series(store, limit=10_000)
    rows = [
        {"id": s.id, "name": s.name, "unit": s.unit or "", "description": s.description or ""}
        for s in found
    ]
    print(render(rows, max_cell=80) if rows else "no series stored")
    return 0


def cmd_series_delete(args: argparse.Namespace, settings: Settings) -> int:
    """Delete a series with everything hanging off it."""
    from graphmem.series.catalog import delete_series

    with _open(args, settings) as store:
        info = delete_series(store, args.series, data_dir=settings.home)
    print(f"deleted series {info.name} ({info.id}) with its chunks, segments and meta-segments")
    return 0


def cmd_space_list(args: argparse.Namespace, settings: Settings) -> int:
    """Print the spaces holding memories."""

    with _open(args, settings) as store:
        found = store.spaces()
    print("\n".join(found) if found else "no space holds memories")
    return 0


def cmd_space_delete(args: argparse.Namespace, settings: Settings) -> int:
    """Delete a space with every memory in it and its index files (asks for --yes)."""
    from graphmem.spaces import checked_space

    name = checked_space(args.name, "name")
    if not args.yes:
        print(
            f"refused: deleting the space {name!r} removes every memory in it; "
            "pass --yes to go ahead",
            file=sys.stderr,
        )
        return 2
    with _services(args, settings) as services:
        nodes = services.delete_space(name)
    print(f"deleted space {name} ({nodes} nodes)")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    """Run the demo on the embedded store."""
    from graphmem.demo import run_demo

    with _services(args, settings) as services:
        run_demo(services, out=sys.stdout)
    if not (settings.store_url or args.store):
        print(
            f"The data is in {settings.home.resolve()}: later commands read it when run from "
            "this folder, or from anywhere with GRAPHMEM_HOME set to it."
        )
    return 0


def cmd_embed_export(args: argparse.Namespace, settings: Settings) -> int:
    """Export the embedding model to ONNX and verify it, once; later runs find it in the cache."""
    from graphmem.embed import DEFAULT_MODEL
    from graphmem.embed.export import default_cache_root, export_folder, open_export

    name = args.model or settings.embed_model or DEFAULT_MODEL
    root = settings.model_cache or default_cache_root()
    precision = settings.precision
    existed = not args.rebuild and export_folder(name, root, precision).is_dir()
    model = open_export(name, root, rebuild=args.rebuild, precision=precision)
    model.close()
    verified = f"lowest cosine {model.manifest.min_cosine:.7f} to sentence-transformers"
    state = "already exported" if existed else "exported"
    label = name if precision == "fp32" else f"{name} ({precision})"
    print(f"{label}: {state}, {model.directory} ({verified}, dim {model.dim})")
    return 0


def cmd_reembed(args: argparse.Namespace, settings: Settings) -> int:
    """Re-embed stored vectors with the configured embedder, then rebuild the vector indexes.

    Resumable: run it again after an interruption. Exit status 1 if a node's text changed
    while it was re-embedded (run it again).
    """
    from graphmem.services import Services

    if args.all_spaces and args.space:
        raise InvalidInput("--all-spaces", "give --space or --all-spaces, not both")
    finished = True
    with Services.open(settings, args.store) as owner:
        spaces = owner.store.spaces() if args.all_spaces else [_space(args, settings)]
        if not spaces:
            print("no space holds memories")
        for space in spaces:
            with owner.using(space) as services, _bars(space) as progress:
                reports = services.reembed(args.label, args.batch, args.force, progress)
            for report in reports:
                print(_reembedded_line(report))
                finished = finished and report.done
    return 0 if finished else 1


@contextlib.contextmanager
def _bars(space: str) -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback drawing one bar per label on stderr (when it is a terminal)."""
    from tqdm import tqdm

    bars: dict[str, Any] = {}

    def progress(label: str, done: int, total: int) -> None:
        bar = bars.get(label)
        if bar is None:
            bar = bars[label] = tqdm(desc=f"{space} {label}", unit="node", disable=None)
        bar.total = total
        bar.update(done - bar.n)

    try:
        yield progress
    finally:
        for bar in bars.values():
            bar.close()


def _reembedded_line(report: Reembedded) -> str:
    """One line of `graphmem reembed`'s output: what happened to one label of a space."""
    where = f"{report.space} {report.label}"
    if report.up_to_date:
        return f"{where}: up to date ({report.model!r}); --force re-embeds it anyway"
    line = f"{where}: {report.reembedded} vectors re-embedded with {report.model!r}"
    if report.previous not in (None, report.model):
        line += f" (they were {report.previous!r}'s)"
    line += f"; index rebuilt, {report.indexed} items"
    if not report.done:
        line += f"; {report.changed} nodes changed meanwhile: run it again"
    return line


def _commands(sub: Any, noun: str, help_text: str) -> Any:
    """The subcommands of `graphmem <noun>`."""
    group = sub.add_parser(noun, help=help_text)
    return group.add_subparsers(dest=f"{noun}_command", required=True)


def _delete(commands: Any, what: str, prefix: str, handler: Handler) -> None:
    """`graphmem <noun> delete ID`."""
    parser = commands.add_parser("delete", help=f"delete {what}")
    parser.add_argument("id", help=f"the id ({prefix}...)")
    parser.set_defaults(handler=handler)


def _output_options(parser: argparse.ArgumentParser) -> None:
    """--format, --width and --raw-times, for the commands that print rows."""
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default), json (one array of row objects) or csv",
    )
    parser.add_argument(
        "--width", type=int_arg(1), help="cut table cells to this many characters (default: never)"
    )
    parser.add_argument(
        "--raw-times",
        action="store_true",
        help="keep epoch seconds as numbers (default: ISO 8601 UTC text)",
    )


def _meta_commands(sub: Any) -> None:
    """`graphmem meta period|filter|group|list|show`."""
    commands = _commands(sub, "meta", "build, list and read meta-segments")
    period = commands.add_parser("period", help="meta-segments per calendar period, or a range")
    period.add_argument("series", help="series name or id")
    period.add_argument("--start", required=True, help="ISO date/datetime or epoch seconds")
    period.add_argument("--end", required=True, help="ISO date/datetime or epoch seconds")
    period.add_argument(
        "--freq",
        help="year, quarter, month, week or day (default: one meta-segment from --start to --end)",
    )
    period.set_defaults(handler=cmd_meta_period)
    filt = commands.add_parser("filter", help="one meta-segment of the segments meeting --where")
    filt.add_argument("series", help="series name or id")
    filt.add_argument(
        "--where",
        help="e.g. 'slope<-0.05 std>5': slope (per day), std, mean, "
        "duration (days) with < or >; min< and max>",
    )
    filt.add_argument("--start", help="segments ending after this")
    filt.add_argument("--end", help="segments starting before this")
    filt.add_argument("--text", help="the -k segments closest in meaning (loads the model)")
    filt.add_argument("-k", type=int_arg(1, 200), help="with --text (default 10)")
    filt.set_defaults(handler=cmd_meta_filter)
    group = commands.add_parser("group", help="one meta-segment of given members")
    group.add_argument("ids", nargs="+", help="segment and meta-segment ids of one series")
    group.add_argument("--label")
    group.set_defaults(handler=cmd_meta_group)
    listing = commands.add_parser("list", help="the meta-segments of a series")
    listing.add_argument("series", help="series name or id")
    listing.add_argument("--limit", type=int_arg(1, 10_000), default=1000)
    listing.add_argument("--offset", type=int_arg(0), default=0)
    listing.set_defaults(handler=cmd_meta_list)
    show = commands.add_parser("show", help="one meta-segment in full, or its members")
    show.add_argument("id", help="meta-segment id (meta_...)")
    show.add_argument("--members", action="store_true", help="list what it groups instead")
    show.set_defaults(handler=cmd_meta_show)
    for command in (period, filt, group, listing, show):
        _output_options(command)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphmem", description="Temporal graph memory for LLMs.")
    parser.add_argument(
        "--store", help="store URL (default: $GRAPHMEM_STORE or the embedded FalkorDB)"
    )
    parser.add_argument("--space", help=SPACE_HELP)
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve the GraphQL API (GraphiQL at /graphql)")
    serve.add_argument("--host", help="the address to bind ($GRAPHMEM_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=int_arg(1, 65535), default=8000)
    serve.add_argument("--store", dest="store", help="store URL", default=argparse.SUPPRESS)
    serve.add_argument(
        "--insecure",
        action="store_true",
        help="serve on a non-loopback --host without a token (anyone who can "
        "reach it can read and delete the graph)",
    )
    serve.add_argument(
        "--warmup", choices=WARMUP_MODES, help="when the model and indexes open ($GRAPHMEM_WARMUP)"
    )
    serve.add_argument(
        "--workers",
        type=int_arg(1, 1024),
        help="server processes, to use more than one core ($GRAPHMEM_SERVE_WORKERS, else 1)",
    )
    serve.set_defaults(handler=cmd_serve)

    mcp = sub.add_parser("mcp", help="serve MCP over stdio, for an agent that starts graphmem")
    mcp.add_argument("--store", dest="store", help="store URL", default=argparse.SUPPRESS)
    mcp.add_argument("--read-only", action="store_true", help="offer only the reading tools")
    mcp.set_defaults(handler=cmd_mcp)

    cypher = sub.add_parser("cypher", help="run a read-only Cypher query, print its rows")
    cypher.add_argument("query")
    _output_options(cypher)
    cypher.set_defaults(handler=cmd_cypher)

    ingest = sub.add_parser("ingest-series", help="load a CSV's time and value into a series")
    ingest.add_argument("file", type=Path, help="a CSV file whose first line is a header")
    ingest.add_argument(
        "--time-col",
        type=column_arg,
        default="timestamp",
        help="the time column: a header name or a 0-based index (default: timestamp)",
    )
    ingest.add_argument(
        "--value-col",
        type=column_arg,
        default="value",
        help="the value column: a header name or a 0-based index (default: value)",
    )
    ingest.add_argument(
        "--delimiter",
        type=delimiter_arg,
        help="one character, or tab (default: the one of tab, ; and , the header holds most often)",
    )
    ingest.add_argument("--series", required=True, help="series name (created if missing)")
    ingest.add_argument("--unit", help="unit, when the series is created")
    ingest.add_argument("--description", help="description, when the series is created")
    batch_size = int_arg(1, limit("graphmem.series.detect.batch", "MAX_BATCH"))
    ingest.add_argument("--batch-size", type=batch_size, default=10_000, help="points per write")
    ingest.add_argument(
        "--no-close",
        action="store_true",
        help="leave the stream open (more points will follow): the tail's "
        "boundaries are not confirmed yet",
    )
    ingest.set_defaults(handler=cmd_ingest_series)

    segs = sub.add_parser("segments", help="print the segments of a series")
    segs.add_argument("series", help="series name or id")
    segs.add_argument(
        "--limit",
        type=int_arg(1, limit("graphmem.series.detect.segments", "MAX_LIMIT")),
        default=1000,
    )
    segs.set_defaults(handler=cmd_segments)

    plot = sub.add_parser("plot", help="plot a series with its segments to a PNG")
    plot.add_argument("series", help="series name or id")
    plot.add_argument("-o", "--output", type=Path, required=True)
    plot.add_argument("--start", help="from this ISO date/datetime (default: the first point)")
    plot.add_argument("--end", help="to this ISO date/datetime (default: the last point)")
    plot.set_defaults(handler=cmd_plot)

    ask = sub.add_parser("ask", help="answer a question about a series with the LLM agent")
    ask.add_argument("question")
    ask.add_argument("--series", help="series name or id (default: all series)")
    ask.add_argument(
        "--max-steps", type=int_arg(1, limit("graphmem.agent", "MAX_STEPS")), default=10
    )
    ask.set_defaults(handler=cmd_ask)

    docs = sub.add_parser("ingest-docs", help="ingest documents from a JSON-lines file, in bulk")
    docs.add_argument("file", type=Path, help="one {text, date, source?} object per line")
    docs.add_argument(
        "--replace",
        action="store_true",
        help="delete a stored document with the source and date of one in the file but "
        "other text (an earlier version), after the file's are stored",
    )
    docs.set_defaults(handler=cmd_ingest_docs)

    document = _commands(sub, "document", "delete a document")
    _delete(
        document,
        "a document with the propositions no other document states",
        "doc_",
        cmd_document_delete,
    )
    prop_sub = _commands(sub, "proposition", "delete or correct a proposition")
    _delete(prop_sub, "a proposition with its relation edges", "prop_", cmd_proposition_delete)
    prop_up = prop_sub.add_parser(
        "update", help="correct a proposition (a new text or date: re-embedded, re-related)"
    )
    prop_up.add_argument("id", help="proposition id (prop_...)")
    prop_up.add_argument("--text")
    prop_up.add_argument("--date", type=day_arg, help="YYYY-MM-DD")
    prop_up.add_argument("--source")
    prop_up.set_defaults(handler=cmd_proposition_update)

    query = sub.add_parser("query", help="the rendered proposition subgraph for a question")
    query.add_argument("question")
    query.add_argument("--as-of", type=day_arg, help="YYYY-MM-DD: only what was known by then")
    query.add_argument(
        "-k",
        type=int_arg(1, limit("graphmem.props.retrieve", "MAX_K")),
        default=10,
        help="anchor propositions",
    )
    query.add_argument("--max-tokens", type=int_arg(1), help="budget for the rendered context")
    query.add_argument("--no-expand", action="store_true", help="anchors only, no neighbours")
    rank_help = "similarity (default) or recall: anchors by recall probability at --now"
    query.add_argument("--rank-by", default="similarity", help=rank_help)
    query.add_argument("--now", help="for --rank-by recall (default: --as-of, else now)")
    query.set_defaults(handler=cmd_query)

    event = sub.add_parser("add-event", help="store an episodic memory")
    event.add_argument("text")
    event.add_argument("--date", required=True, help="ISO date or datetime")
    event.add_argument("--source")
    event.set_defaults(handler=cmd_add_event)

    rec = sub.add_parser("recall", help="memories ranked by recall probability at --now")
    rec.add_argument("query")
    rec.add_argument("--now", required=True, help="ISO date or datetime")
    rec.add_argument("-k", type=int_arg(1, limit("graphmem.timeline.recall", "MAX_K")), default=10)
    rec.add_argument(
        "--threshold",
        type=threshold_arg,
        default=None,
        help="default: GRAPHMEM_RECALL_THRESHOLD (0.7)",
    )
    rec.add_argument("--labels", default="Event,Proposition", help="comma-separated labels")
    rec.add_argument("--reinforce", action="store_true", help="record the recalls (p >= threshold)")
    rec.set_defaults(handler=cmd_recall)

    _delete(
        _commands(sub, "event", "delete an episodic memory"),
        "an episodic memory",
        "ev_",
        cmd_event_delete,
    )

    tplot = sub.add_parser("plot-timeline", help="memories on a time axis shaded by importance")
    tplot.add_argument("-o", "--output", type=Path, required=True)
    tplot.add_argument("--start")
    tplot.add_argument("--end")
    tplot.add_argument("--now", help="importance as of this time (default: now)")
    tplot.set_defaults(handler=cmd_plot_timeline)

    series = sub.add_parser("series", help="list or delete series")
    series_sub = series.add_subparsers(dest="series_command", required=True)
    series_sub.add_parser("list", help="print the stored series").set_defaults(
        handler=cmd_series_list
    )
    series_del = series_sub.add_parser("delete", help="delete a series and everything under it")
    series_del.add_argument("series", help="series name or id")
    series_del.set_defaults(handler=cmd_series_delete)

    _meta_commands(sub)

    export = sub.add_parser("embed-export", help="export the embedding model to ONNX, verified")
    export.add_argument("--model", help="model name or path (default: $GRAPHMEM_EMBED_MODEL)")
    export.add_argument("--rebuild", action="store_true", help="export again even if cached")
    export.set_defaults(handler=cmd_embed_export)

    reembed = sub.add_parser(
        "reembed", help="re-embed stored vectors with the configured embedder (docs/embeddings.md)"
    )
    where = reembed.add_mutually_exclusive_group()
    where.add_argument("--space", default=argparse.SUPPRESS, help=SPACE_HELP)
    where.add_argument("--all-spaces", action="store_true", help="every space holding memories")
    reembed.add_argument(
        "--label",
        action="append",
        choices=kinds.labels("vectors"),
        help="only this label (repeatable; default: every embedded label)",
    )
    reembed.add_argument(
        "--batch",
        type=int_arg(1, limit("graphmem.vectors.reembed", "MAX_BATCH")),
        help="nodes per embedding call and write (default 256)",
    )
    reembed.add_argument(
        "--force", action="store_true", help="re-embed labels recorded as the embedder's already"
    )
    reembed.set_defaults(handler=cmd_reembed)

    spaces = _commands(sub, "space", "list or delete spaces (docs/spaces.md)")
    spaces.add_parser("list", help="print the spaces holding memories").set_defaults(
        handler=cmd_space_list
    )
    space_del = spaces.add_parser("delete", help="delete a space and every memory in it")
    space_del.add_argument("name", help="the space's name")
    space_del.add_argument("--yes", action="store_true", help="yes, delete it all")
    space_del.set_defaults(handler=cmd_space_delete)

    demo = sub.add_parser("demo", help="load the demo data and show what graphmem does")
    demo.set_defaults(handler=cmd_demo)
    _space_option(sub, skip=("serve", "embed-export", "reembed"))
    return parser


def _space_option(sub: Any, skip: tuple[str, ...] = ()) -> None:
    """--space on every (sub)command that touches memories, besides the global one."""
    for name, command in sub.choices.items():
        if name in skip:
            continue
        nested = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            _space_option(nested[0])
        else:
            helps = CYPHER_SPACE_HELP if name == "cypher" else SPACE_HELP
            command.add_argument("--space", default=argparse.SUPPRESS, help=helps)


def _no_data_dir(args: argparse.Namespace, settings: Settings) -> bool:
    """Whether a command that only reads or changes what is stored would start an embedded
    store in a data dir that does not exist (creating an empty one, wherever it was run)."""
    creates = args.handler in (
        cmd_demo,
        cmd_ingest_series,
        cmd_ingest_docs,
        cmd_add_event,
        cmd_serve,
        cmd_mcp,
        cmd_embed_export,
    )
    embedded = not (settings.store_url or getattr(args, "store", None))
    return embedded and not creates and not settings.home.exists()


def _where(args: argparse.Namespace, settings: Settings | None) -> str:
    """Which embedded data dir a command read (nothing for a configured store URL)."""
    if settings is None or settings.store_url or getattr(args, "store", None):
        return ""
    from graphmem.spaces import DEFAULT_SPACE

    space = _space(args, settings)
    where = f"the data dir {settings.home.resolve()}" + (
        f", space {space}" if space != DEFAULT_SPACE else ""
    )
    return f" (in {where}; GRAPHMEM_HOME names another)"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    settings = None
    try:
        settings = Settings.from_env()
        if _no_data_dir(args, settings):
            print(
                f"error: no data dir at {settings.home.resolve()}: nothing is stored there "
                "(GRAPHMEM_HOME names the data dir; `graphmem demo` or an ingest command "
                "creates one)",
                file=sys.stderr,
            )
            return 1
        return args.handler(args, settings)
    except NotFound as error:  # a series not found: often the wrong data dir, or space
        hint = _where(args, settings) if str(error).startswith("series:") else ""
        print(f"error: {error}{hint}", file=sys.stderr)
        return 1
    except GraphmemError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
