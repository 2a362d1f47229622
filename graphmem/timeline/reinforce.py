"""Reinforcement: record that memories were recalled at a time, once per (memory, time).

Works on every label that carries recall statistics (Event, Proposition, Segment, MetaSegment),
by id. All ids are checked first (unknown ids → NotFound, a `now` before a memory's own time →
InvalidInput); then one statement updates them all, so a call lands whole or not at all.

Once per (id, now): a memory whose last recall is at or after `now` is left unchanged. Re-sending
the same call is therefore a no-op, and a late, out-of-order report cannot rewrite the history
that later recalls already built on. The update itself runs inside the statement, from the
stored values, after locking each node, so concurrent calls cannot lose a recall nor count one
twice; each reports `changed` only for what it recorded itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.errors import InvalidInput, NotFound
from graphmem.store.base import Store
from graphmem.timeline.formula import TimelineConfig
from graphmem.timeline.memory import TimelineMemory, checked_ids, checked_now, per_label
from graphmem.timeutil import iso

_SHOWN = 10  # ids named in an error message


@dataclass(frozen=True)
class RecallStats:
    """A memory's recall statistics."""

    label: str
    id: str
    ts: int  # the memory's own time: decay starts here until the first recall
    recall_count: int
    g: float
    last_recalled_at: int | None
    changed: bool = False  # this call recorded a recall


def recall_stats(ctx: TimelineMemory, ids: Sequence[str]) -> list[RecallStats]:
    """The statistics of these memories, in the order asked; unknown ids → NotFound."""
    wanted = checked_ids(ids)
    found = _locate(ctx.store, wanted)
    return [found[i] for i in wanted]


def reinforce(ctx: TimelineMemory, ids: Sequence[str], now: Any) -> list[RecallStats]:
    """Record one recall at `now` of each memory; returns their statistics afterwards."""
    return reinforce_in(ctx.store, ids, now, ctx.config)


def reinforce_in(
    store: Store,
    ids: Sequence[str],
    now: Any,
    config: TimelineConfig | None = None,
    skip_future: bool = False,
) -> list[RecallStats]:
    """reinforce() for callers that hold only a store (the series tools, on every read).

    `skip_future`: memories dated after `now` (a series reaching into the future) are left
    unchanged instead of refusing the call: they cannot have been recalled before their time.
    """
    config = config or TimelineConfig()
    wanted = checked_ids(ids)
    now_ts = checked_now(now)
    if not wanted:
        return []
    before = _locate(store, wanted)
    early = [s for s in before.values() if now_ts < s.ts]
    if early and not skip_future:
        named = ", ".join(f"{s.id} ({iso(s.ts)})" for s in early[:_SHOWN])
        raise InvalidInput("now", f"{iso(now_ts)} is before the time of memories {named}")
    due: dict[str, list[str]] = {}
    for s in before.values():
        if s.ts <= now_ts and (s.last_recalled_at is None or s.last_recalled_at < now_ts):
            due.setdefault(s.label, []).append(s.id)
    if not due:
        return [before[i] for i in wanted]
    [row] = store.write(
        "timeline.reinforce",
        now=now_ts,
        unit=float(config.time_unit_seconds),
        **per_label(due),
    )
    changed = set(row["changed"])  # by this call: a concurrent one may have got there first
    after = _locate(store, wanted, missing_ok=True)
    out = []
    for i in wanted:
        s = after.get(i, before[i])
        out.append(
            RecallStats(s.label, s.id, s.ts, s.recall_count, s.g, s.last_recalled_at, i in changed)
        )
    return out


def _locate(store: Store, ids: list[str], missing_ok: bool = False) -> dict[str, RecallStats]:
    found: dict[str, RecallStats] = {}
    for row in store.read("timeline.locate", ids=ids):
        if row["ts"] is None:
            continue  # no time of its own: not a timeline memory
        last = row["last_recalled_at"]
        found[row["id"]] = RecallStats(
            row["label"],
            row["id"],
            int(row["ts"]),
            int(row["recall_count"]),
            float(row["g"]),
            None if last is None else int(last),
        )
    missing = [i for i in ids if i not in found]
    if missing and not missing_ok:
        more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
        raise NotFound(f"no timeline memory with id {', '.join(missing[:_SHOWN])}{more}")
    return found
