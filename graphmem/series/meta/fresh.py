"""Bringing a stored meta-segment up to date before it is read: its spec run again."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import fields

from graphmem.errors import GraphmemError
from graphmem.series.meta import MetaSegment, get_metas
from graphmem.series.meta import build as metabuild
from graphmem.series.meta.query import SegmentFilter
from graphmem.series.meta.textsearch import SegmentSearch
from graphmem.store import Store

log = logging.getLogger(__name__)

_FILTER_FIELDS = {f.name for f in fields(SegmentFilter)}


def fresh(
    store: Store, meta: MetaSegment, search: Callable[[], SegmentSearch] | None = None
) -> MetaSegment:
    """`meta` as its spec builds it now (extended with points that arrived since), or as is.

    A grouping (filter, text, members) that can no longer be built as specified, say its
    members have grown into each other, is returned as stored; so is a text grouping
    without `search` (called only when a rebuild needs it: it may load the model).
    """
    rows = store.read("series.n_points", id=meta.series_id)
    if not rows or meta.current(rows[0]["n_points"]):
        return meta
    spec, sid = meta.spec, meta.series_id
    if meta.is_period:  # the one period holding its start
        end = math.nextafter(meta.end, -math.inf)
        _, built = metabuild.build_range(store, sid, spec["start"], end, spec["freq"])
        return next((m for m in built if m.id == meta.id), meta)
    if meta.kind == "range":  # one range, whole
        return metabuild.build_range(store, sid, spec["start"], spec["end"])[1][0]
    try:
        return _regroup(store, meta, search)
    except GraphmemError as error:
        # nothing meets its conditions any more, members grown into each other, no model
        # to rank by text: what was grouped still stands, and is what the reader gets
        log.warning("meta-segment %s kept as built: regrouping it failed: %s", meta.id, error)
        return meta


def _regroup(
    store: Store, meta: MetaSegment, search: Callable[[], SegmentSearch] | None
) -> MetaSegment:
    spec, sid = meta.spec, meta.series_id
    filt = SegmentFilter(**{k: v for k, v in spec.items() if k in _FILTER_FIELDS})
    if meta.kind == "filter":
        return metabuild.build_by_filter(store, sid, filt)
    if meta.kind == "text":
        if search is None:
            return meta
        return metabuild.build_by_text(
            store, sid, spec["text"], search(), spec["k"], spec.get("min_score"), filt
        )
    for member in get_metas(store, list(spec["members"])).values():
        fresh(store, member, search)  # members first: their statistics feed this one
    return metabuild.build_from_members(store, list(spec["members"]), meta.label)
