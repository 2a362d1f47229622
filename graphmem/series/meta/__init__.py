"""Meta-segments: groups of segments (by period, range, filter or members), built by tools,
cached, refreshed; the tools an LLM calls, segment queries and text search.

The model (graphmem/series/meta/model.py) is re-exported here: `meta.get_meta(...)`.
"""

from graphmem.series.meta.model import (
    KINDS,
    PAGE,
    Members,
    MetaSegment,
    count_metas,
    currency,
    get_members,
    get_meta,
    get_metas,
    is_current,
    list_metas,
    meta_id,
    save_metas,
    tool_calls_of,
)

__all__ = [
    "KINDS",
    "Members",
    "MetaSegment",
    "PAGE",
    "count_metas",
    "currency",
    "get_members",
    "get_meta",
    "get_metas",
    "is_current",
    "list_metas",
    "meta_id",
    "save_metas",
    "tool_calls_of",
]
