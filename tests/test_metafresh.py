"""Reading a meta-segment after points arrived gives its statistics over all of them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_meta import T, numpy_stats

from graphmem.series.catalog import create_series
from graphmem.series.detect.ingest import append
from graphmem.series.detect.synthetic import sales_series
from graphmem.series.meta import get_meta, list_metas
from graphmem.series.meta.build import (
    SegmentFilter,
    build_by_filter,
    build_by_range,
    build_from_members,
)
from graphmem.series.meta.tools import run_tool


@pytest.fixture
def half(store):
    """The sales series (seed 2) holding its points up to 2015-05-15; the rest to append."""
    data = sales_series(seed=2)
    series = create_series(store, "growing", "units")
    cut = int(np.searchsorted(data.ts, T("2015-05-15")))
    append(store, series.id, data.ts[:cut], data.xs[:cut])

    def rest() -> None:
        append(store, series.id, data.ts[cut:], data.xs[cut:])

    return store, series, data, rest


def features(store, meta_id: str) -> dict:
    result = run_tool(store, "get_meta_features", {"meta_segment_id": meta_id, "full": True})
    assert result.ok, result.content
    return json.loads(result.content)


def test_a_period_read_after_an_append_covers_the_new_points(half) -> None:
    store, series, data, rest = half
    [year] = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "year")
    assert year.features.n < 365
    rest()
    read = features(store, year.id)
    want = numpy_stats(data, year.start, year.end)
    assert read["n"] == want["n"] == 365
    assert read["mean"] == pytest.approx(want["mean"], rel=1e-3)
    stored = get_meta(store, year.id)
    assert stored.features.mean == pytest.approx(want["mean"], rel=1e-12)
    assert stored.built_n_points == len(data.ts)
    assert len(list_metas(store, series.id)) == 1, "extended in place, not duplicated"


def test_a_final_period_is_not_rebuilt(half, monkeypatch) -> None:
    store, series, _, rest = half
    [y2012] = build_by_range(store, series.id, T("2012-01-01"), T("2012-12-31"), "year")
    stored = get_meta(store, y2012.id)
    rest()
    writes = []
    original = store.write
    monkeypatch.setattr(
        store, "write", lambda name, **p: writes.append(name) or original(name, **p)
    )
    assert features(store, y2012.id)["n"] == 366
    assert "meta.upsert" not in writes and get_meta(store, y2012.id) == stored


def test_a_filter_read_after_an_append_gains_segments_that_now_meet_it(half) -> None:
    store, series, data, rest = half
    built = build_by_filter(store, series.id, SegmentFilter(mean_min=150.0))
    rest()
    read = features(store, built.id)
    regrouped = build_by_filter(store, series.id, SegmentFilter(mean_min=150.0))
    assert read["n"] == regrouped.features.n > built.features.n
    assert read["members"] == regrouped.member_count > built.member_count


def test_a_grouping_of_stale_months_is_regrouped_from_fresh_ones(half) -> None:
    store, series, data, rest = half
    months = build_by_range(store, series.id, T("2015-04-01"), T("2015-05-31"), "month")
    both = build_from_members(store, [m.id for m in months], "Apr-May 2015")
    rest()
    read = features(store, both.id)
    want = numpy_stats(data, T("2015-04-01"), T("2015-06-01"))
    assert read["n"] == want["n"] == 61
    assert read["label"] == "Apr-May 2015"
    assert get_meta(store, months[1].id).features.n == 31, "its members were extended first"


def test_graphql_reads_a_meta_segment_brought_up_to_date(gql, half) -> None:
    store, series, _, rest = half
    [year] = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "year")
    rest()
    found = gql("query($id: ID!) { metaSegment(id: $id) { features { pointCount } } }", id=year.id)
    assert found["data"]["metaSegment"]["features"]["pointCount"] == 365


def test_a_grouping_whose_members_grew_into_each_other_is_read_as_built(half) -> None:
    """A filter grouping gains later segments and now overlaps its fellow member: the
    grouping of both cannot be rebuilt, so it is read as it was built, not as an error."""
    from graphmem.series.detect.segments import list_segments

    store, series, _, rest = half
    segments = list_segments(store, series.id, limit=1000)
    later = segments[10]
    # below the slope of every closed segment from `later` on: the members all come before it
    slope_max = min(s.features.slope_per_day for s in segments[10:-1]) - 1e-9
    grouped = build_by_filter(store, series.id, SegmentFilter(slope_max=slope_max))
    assert grouped.stats.t_last < later.start, "the filter's members end before `later`"
    both = build_from_members(store, [grouped.id, later.id], "filter + later")
    rest()
    read = features(store, both.id)
    assert read["n"] == both.features.n and read["label"] == "filter + later"


def test_graphql_opens_no_text_search_for_a_current_meta_segment(gql, half, monkeypatch) -> None:
    from graphmem.services import Services

    store, series, _, _ = half
    [year] = build_by_range(store, series.id, T("2014-01-01"), T("2014-12-31"), "year")

    def no_search(self):
        raise AssertionError("the tools (and the embedding model) were opened")

    monkeypatch.setattr(Services, "tools", no_search)
    found = gql("query($id: ID!) { metaSegment(id: $id) { features { pointCount } } }", id=year.id)
    assert found["data"]["metaSegment"]["features"]["pointCount"] == 365
