"""Meta-segments: calendar periods, filters, members; cache, exact statistics, extension."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphmem.cypher import load_dir
from graphmem.errors import InvalidInput, NotFound
from graphmem.series.catalog import create_series
from graphmem.series.detect.batch import quantize
from graphmem.series.detect.ingest import append
from graphmem.series.meta import get_members, get_meta, list_metas
from graphmem.series.meta.build import (
    SegmentFilter,
    build_by_filter,
    build_by_range,
    build_from_members,
)
from graphmem.timeutil import parse_timestamp

T = lambda s: float(parse_timestamp(s))  # noqa: E731
Q = load_dir(Path(__file__).parent / "cypher")


def numpy_stats(data, a: float, b: float) -> dict:
    mask = (data.ts >= a) & (data.ts < b)
    ts, xs = data.ts[mask], quantize(data.xs[mask])
    slope = np.polyfit((ts - ts[0]) / 86400, xs, 1)[0]
    return {
        "n": len(xs),
        "mean": xs.mean(),
        "std": xs.std(),
        "min": xs.min(),
        "max": xs.max(),
        "slope": slope,
    }


def test_yearly_statistics_equal_numpy_over_raw_points(sales_store) -> None:
    store, series, data = sales_store
    years = build_by_range(store, series.id, T("2010-01-01"), T("2020-12-31"), "year")
    assert [m.label for m in years] == [str(y) for y in range(2010, 2021)]
    for m in years:
        want, f = numpy_stats(data, m.start, m.end), m.features
        assert f.n == want["n"]
        assert f.mean == pytest.approx(want["mean"], rel=1e-12)
        assert f.std == pytest.approx(want["std"], rel=1e-9)
        assert (f.min, f.max) == (want["min"], want["max"])
        assert f.slope_per_day == pytest.approx(want["slope"], rel=1e-8)


def test_a_segment_crossing_a_boundary_belongs_to_both_periods(sales_store) -> None:
    store, series, _ = sales_store
    years = build_by_range(store, series.id, T("2010-01-01"), T("2020-12-31"), "year")
    members = [{g.id for g in get_members(store, m.id).segments} for m in years]
    shared = [a & b for a, b in zip(members, members[1:], strict=False)]
    assert any(shared), "segments spanning New Year sit in both years"
    for m, ids in zip(years, members, strict=True):
        assert m.member_count == len(ids)


def test_cache_hit_returns_the_same_nodes_without_duplicates(sales_store) -> None:
    store, series, _ = sales_store
    first = build_by_range(store, series.id, T("2012-01-01"), T("2013-12-31"), "month")
    again = build_by_range(store, series.id, T("2012-01-01"), T("2013-12-31"), "month")
    assert [m.id for m in first] == [m.id for m in again] and len(first) == 24
    assert [m.built_at for m in first] == [m.built_at for m in again]
    overlapping = build_by_range(store, series.id, T("2013-06-01"), T("2014-02-01"), "month")
    assert {m.id for m in overlapping} & {m.id for m in first}, "same period, same node"
    assert len(list_metas(store, series.id)) == 24 + 8 - 7 + 1


def test_range_without_frequency_is_one_meta_segment(sales_store) -> None:
    store, series, data = sales_store
    [m] = build_by_range(store, series.id, T("2016-03-15"), T("2016-09-30"))
    want = numpy_stats(data, T("2016-03-15"), T("2016-09-30") + 1)
    assert m.features.n == want["n"] and m.features.mean == pytest.approx(want["mean"])


def test_recursion_months_to_quarter_to_year(sales_store) -> None:
    store, series, data = sales_store
    months = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "month")
    quarters = [
        build_from_members(store, [m.id for m in months[q * 3 : q * 3 + 3]], f"2015-Q{q + 1}")
        for q in range(4)
    ]
    year = build_from_members(store, [q.id for q in quarters], "2015")
    [direct] = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "year")
    assert year.features.n == direct.features.n == 365
    assert year.features.mean == pytest.approx(direct.features.mean, rel=1e-12)
    assert year.features.std == pytest.approx(direct.features.std, rel=1e-9)
    assert year.features.slope_per_day == pytest.approx(direct.features.slope_per_day, rel=1e-8)
    assert [m.id for m in get_members(store, year.id).metas] == [q.id for q in quarters]
    assert get_members(store, quarters[0].id).metas[0].id == months[0].id


def test_overlapping_members_are_refused(sales_store) -> None:
    store, series, _ = sales_store
    [year] = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "year")
    [month] = build_by_range(store, series.id, T("2015-03-01"), T("2015-03-31"), "month")
    with pytest.raises(InvalidInput, match="overlap in time"):
        build_from_members(store, [year.id, month.id])
    with pytest.raises(NotFound):
        build_from_members(store, [year.id, "nope"])
    with pytest.raises(InvalidInput, match="members"):
        build_from_members(store, [])


def test_extension_after_appending_points(store) -> None:
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=2)
    series = create_series(store, "growing")
    cut = int(np.searchsorted(data.ts, T("2015-07-01")))
    append(store, series.id, data.ts[:cut], data.xs[:cut])
    [before] = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "year")
    assert before.features.n == cut - int(np.searchsorted(data.ts, T("2015-01-01")))
    append(store, series.id, data.ts[cut:], data.xs[cut:])
    [after] = build_by_range(store, series.id, T("2015-01-01"), T("2015-12-31"), "year")
    assert after.id == before.id and after.built_n_points == len(data.ts)
    want = numpy_stats(data, after.start, after.end)
    assert after.features.n == want["n"] == 365
    assert after.features.mean == pytest.approx(want["mean"], rel=1e-12)
    assert after.features.max == want["max"]
    assert len(list_metas(store, series.id)) == 1


def test_filter_groups_matching_segments(sales_store) -> None:
    store, series, _ = sales_store
    m = build_by_filter(store, series.id, SegmentFilter(mean_min=200.0))
    members = get_members(store, m.id).segments
    assert members and all(g.features.mean >= 200 for g in members)
    assert m.features.n == sum(g.n for g in members)
    again = build_by_filter(store, series.id, SegmentFilter(mean_min=200.0))
    assert again.id == m.id
    with pytest.raises(NotFound, match="no segment"):
        build_by_filter(store, series.id, SegmentFilter(mean_min=1e9))
    with pytest.raises(InvalidInput, match="mean_max"):
        SegmentFilter(mean_min=5, mean_max=1)


def test_range_outside_the_data_is_a_clear_error(sales_store) -> None:
    store, series, _ = sales_store
    with pytest.raises(InvalidInput, match="holds no points; the series covers 2010-01-01"):
        build_by_range(store, series.id, T("2030-01-01"), T("2031-01-01"), "year")
    with pytest.raises(InvalidInput, match="freq"):
        build_by_range(store, series.id, T("2010-01-01"), T("2011-01-01"), "decade")
    with pytest.raises(NotFound):
        get_meta(store, "meta_nope")


def test_2016_slowdown_visible_in_yearly_features(sales_store) -> None:
    store, series, _ = sales_store
    years = {m.label: m for m in build_by_range(store, series.id, 0, T("2021-01-01"), "year")}
    slopes = {label: m.features.slope_per_day for label, m in years.items()}
    assert min(slopes, key=slopes.get) == "2016"
    growth = {label: m.pct_change_prev for label, m in years.items() if m.pct_change_prev}
    assert growth["2016"] < np.median(list(growth.values())) * 0.75


def test_february_boost_visible_in_monthly_features(sales_store) -> None:
    store, series, _ = sales_store
    months = {m.label: m for m in build_by_range(store, series.id, 0, T("2021-01-01"), "month")}
    for year in range(2010, 2021):
        feb, mar = months[f"{year}-02"], months[f"{year}-03"]
        assert feb.pct_change_prev is not None and feb.pct_change_prev > 15
        assert mar.pct_change_prev < -10
        assert feb.features.mean > max(months[f"{year}-01"].features.mean, mar.features.mean)


def test_meta_segment_by_text_over_summaries(sales_store, short_tmp) -> None:
    import json

    from graphmem.config import Settings
    from graphmem.series.detect.segments import list_segments
    from graphmem.series.meta.build import build_by_text
    from graphmem.series.meta.tools import run_tool
    from graphmem.services import open_tools

    store, series, data = sales_store
    env = open_tools(Settings(home=short_tmp / "text-search"), store)
    try:
        segs = list_segments(store, series.id, limit=1000)
        target = next(g for g in segs if g.start_iso.startswith("2014-02-01"))
        query = target.summary  # its own summary: similarity 1, whatever the model
        meta = build_by_text(store, series.id, query, env.search(), k=3)
        members = get_members(store, meta.id).segments
        assert len(members) == 3 and target.id in {g.id for g in members}
        assert meta.features.n == sum(g.n for g in members)
        assert env.search().ensure_embedded(series.id) == 0, "embedded once"
        result = run_tool(
            env, "create_meta_segment_by_filter", {"series": series.id, "text": query, "k": 2}
        )
        assert result.ok and json.loads(result.content)["members"] == 2
        found = json.loads(
            run_tool(
                env, "search_segments", {"series": series.id, "text": query, "limit": 1}
            ).content
        )
        assert found["rows"][0][0] == target.id and found["more"]
        # new points change the open segment's summary: it is embedded again
        append(store, series.id, [data.ts[-1] + 86400.0], [300.0])
        assert env.search().ensure_embedded(series.id) >= 1
    finally:
        env.close()


def test_statistics_stay_exact_beyond_one_page_of_segments(sales_store, monkeypatch) -> None:
    """Segments are read page by page: a page of 10 still gives every point."""
    from graphmem.series import meta
    from graphmem.series.meta import query as segquery

    store, series, data = sales_store
    monkeypatch.setattr(segquery, "PAGE", 10)
    monkeypatch.setattr(meta, "PAGE", 10)
    [whole] = build_by_range(store, series.id, T("2010-01-01"), T("2020-12-31"))
    want = numpy_stats(data, T("2010-01-01"), T("2021-01-01"))
    assert whole.features.n == want["n"] == 4018
    assert whole.features.mean == pytest.approx(want["mean"], rel=1e-12)
    assert whole.features.std == pytest.approx(want["std"], rel=1e-9)
    assert (
        whole.member_count > 10 and len(get_members(store, whole.id).segments) == whole.member_count
    )
    for m in build_by_range(store, series.id, T("2010-01-01"), T("2020-12-31"), "year"):
        assert m.features.n == numpy_stats(data, m.start, m.end)["n"]
    everything = build_by_filter(store, series.id, SegmentFilter())
    assert everything.features.n == 4018 and everything.member_count == whole.member_count
    rising = build_by_filter(store, series.id, SegmentFilter(slope_min=0.0))
    members = get_members(store, rising.id).segments
    assert len(members) > 10 and all(g.features.slope_per_day >= 0 for g in members)


def _spy(monkeypatch, store):
    """Record the store's statements (name, params) and the archive's time-range reads."""
    from graphmem.series.meta import build as metabuild

    calls: dict[str, list] = {"read": [], "write": [], "ranges": []}
    for kind in ("read", "write"):
        real = getattr(store, kind)

        def spy(name, /, _real=real, _kind=kind, **params):
            calls[_kind].append((name, params))
            return _real(name, **params)

        monkeypatch.setattr(store, kind, spy)
    real_ranges = metabuild.read_time_ranges

    def ranges(store_, series_id, wanted):
        calls["ranges"].extend(wanted)
        return real_ranges(store_, series_id, wanted)

    monkeypatch.setattr(metabuild, "read_time_ranges", ranges)
    return calls


def test_extension_reads_only_new_points_and_rewrites_only_open_periods(store, monkeypatch) -> None:
    from graphmem.series.detect.segments import list_segments
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=3)
    series = create_series(store, "growing-months")
    cut = int(np.searchsorted(data.ts, T("2015-07-10")))
    append(store, series.id, data.ts[:cut], data.xs[:cut])
    old_end = data.ts[cut - 1]
    open_start = next(g.start for g in list_segments(store, series.id, limit=1000) if g.open)
    span = (T("2014-01-01"), T("2015-12-31"))
    before = {m.id: m for m in build_by_range(store, series.id, *span, "month")}
    append(store, series.id, data.ts[cut:], data.xs[cut:])
    calls = _spy(monkeypatch, store)
    after = build_by_range(store, series.id, *span, "month")
    assert calls["ranges"] and all(a > old_end for a, _ in calls["ranges"]), "only new points"
    [upsert] = [p for name, p in calls["write"] if name == "meta.upsert"]
    written = {row["id"] for row in upsert["metas"]}
    new_months = {m.id for m in after} - set(before)
    stale = {m.id for m in before.values() if m.end > open_start}
    assert written == new_months | stale, "closed periods before the open segment stay as built"
    assert len(written) < len(after) and len(new_months) == 5
    for m in after:
        want = numpy_stats(data, m.start, m.end)
        assert m.features.n == want["n"]
        assert m.features.mean == pytest.approx(want["mean"], rel=1e-12)
        assert m.member_count == len(get_members(store, m.id).segments)
        assert m.features.slope_per_day == pytest.approx(want["slope"], rel=1e-8)


def test_a_cache_hit_reads_only_ids_and_writes_nothing(sales_store, monkeypatch) -> None:
    from graphmem.series.meta.build import build_range

    store, series, _ = sales_store
    first = build_by_range(store, series.id, 0, T("2021-01-01"), "week")
    calls = _spy(monkeypatch, store)
    ids, loaded = build_range(store, series.id, 0, T("2021-01-01"), "week", load=3)
    assert ids == [m.id for m in first] and [m.id for m in loaded] == ids[:3]
    assert calls["write"] == [] and calls["ranges"] == []
    full_reads = [p["ids"] for name, p in calls["read"] if name == "meta.get_many"]
    assert full_reads == [ids[:3]], "full nodes only for the rows asked for"
    assert [name for name, _ in calls["read"]].count("meta.currency") == 1


def test_text_and_conditions_combine(sales_store, short_tmp) -> None:
    """Text ranks only the segments that meet the conditions, and fills the page."""
    import json

    from graphmem.config import Settings
    from graphmem.series.meta.build import build_by_text
    from graphmem.series.meta.query import filtered_all
    from graphmem.series.meta.tools import run_tool
    from graphmem.services import open_tools

    store, series, _ = sales_store
    env = open_tools(Settings(home=short_tmp / "text-and-filter"), store)
    try:
        rising = SegmentFilter(slope_min=0.02)
        meeting = {g.id for g in filtered_all(store, series.id, rising)}
        assert len(meeting) > 4
        meta = build_by_text(store, series.id, "a sharp drop", env.search(), k=4, filt=rising)
        members = get_members(store, meta.id).segments
        assert len(members) == 4 and {g.id for g in members} <= meeting
        args = {"series": series.id, "text": "a sharp drop", "where": "slope>0.02", "limit": 4}
        page = json.loads(run_tool(env, "search_segments", args).content)
        assert [r[0] for r in page["rows"]] and len(page["rows"]) == 4
        assert {r[0] for r in page["rows"]} <= meeting and page["shown"] == f"1-4 of {len(meeting)}"
        scores = [r[-1] for r in page["rows"]]
        assert scores == sorted(scores, reverse=True)
        rest = json.loads(run_tool(env, "search_segments", {**args, "offset": 4}).content)
        assert not {r[0] for r in rest["rows"]} & {r[0] for r in page["rows"]}
        built = json.loads(
            run_tool(
                env,
                "create_meta_segment_by_filter",
                {**{k: v for k, v in args.items() if k != "limit"}, "k": 3},
                session="tf",
            ).content
        )
        assert built["members"] == 3
        [call] = store.read("toolcalls.by_session", session="tf")
        assert len(set(call["targets"]) & meeting) == 3, "members linked as READ"
    finally:
        env.close()


def _second_series(store, name: str, seed: int):
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=seed)
    series = create_series(store, name, data.unit)
    append(store, series.id, data.ts, data.xs * 0.5 + 40)
    return series


def test_text_search_sees_other_writers_and_scores_only_the_series(
    sales_store, short_tmp, monkeypatch
) -> None:
    """Segments embedded by another process are found; only the series' vectors are scored."""
    from graphmem.config import Settings
    from graphmem.series.detect.segments import list_segments
    from graphmem.series.meta.query import ranked_by_text
    from graphmem.services import open_tools
    from graphmem.vectors import VectorIndex

    store, series, _ = sales_store
    other = _second_series(store, "other sales", seed=4)
    settings = Settings(home=short_tmp / "text-two-writers", vector_refresh_ms=0)
    first, second = open_tools(settings, store), open_tools(settings, store)
    try:
        assert ranked_by_text(first.search(), series.id, "a sharp drop")  # index opened here
        target = list_segments(store, other.id, limit=1000)[3]
        assert ranked_by_text(second.search(), other.id, "a sharp drop")  # the other embeds
        scored: list[list] = []
        real = VectorIndex.search_many

        def spy(self, *args, **kwargs):
            hits = real(self, *args, **kwargs)
            scored.extend(hits)
            return hits

        monkeypatch.setattr(VectorIndex, "search_many", spy)
        ranked = ranked_by_text(first.search(), other.id, target.summary)
        n_other = len(list_segments(store, other.id, limit=1000))
        assert ranked and ranked[0][0] == target.id and ranked[0][1] == pytest.approx(1.0, abs=1e-4)
        assert len(ranked) == n_other
        [hits] = scored
        assert len(hits) == n_other, "only the series' segments are scored"
        assert all(h.node_id.startswith(f"{other.id}:seg:") for h in hits)
    finally:
        first.close()
        second.close()


def test_a_recreated_series_is_searched_by_its_new_summaries(store, short_tmp) -> None:
    """Same name → same segment ids and vids: the old vectors must not survive re-embedding."""
    from graphmem.config import Settings
    from graphmem.series.catalog import delete_series
    from graphmem.series.detect.segments import list_segments
    from graphmem.series.meta.query import ranked_by_text
    from graphmem.services import open_tools

    env = open_tools(Settings(home=short_tmp / "text-recreated", vector_refresh_ms=0), store)
    try:
        old = _second_series(store, "reborn", seed=1)
        assert ranked_by_text(env.search(), old.id, "a sharp drop")
        old_summaries = {g.id: g.summary for g in list_segments(store, old.id, limit=1000)}
        delete_series(store, old.id)
        new = create_series(store, "reborn")
        ts = T("2012-06-01") + 3600.0 * np.arange(3000)
        append(store, new.id, ts, 5 + np.where(np.arange(3000) < 1500, 0.0, 7.0))
        assert new.id == old.id
        segs = list_segments(store, new.id, limit=1000)
        target = segs[0]
        assert target.id in old_summaries and target.summary != old_summaries[target.id]
        ranked = dict(ranked_by_text(env.search(), new.id, target.summary))
        assert set(ranked) == {g.id for g in segs}
        assert ranked[target.id] == pytest.approx(1.0, abs=1e-4), "its own summary, not the old"
    finally:
        env.close()


def test_labels_name_time_bounds_as_dates(sales_store, short_tmp) -> None:
    """The LLM reads labels: 'start=2012-01-01', never epoch seconds like 'start=1.326e+09'."""
    from graphmem.config import Settings
    from graphmem.series.meta.build import build_by_text
    from graphmem.services import open_tools

    store, series, _ = sales_store
    filt = SegmentFilter(slope_min=0.02, start=T("2012-01-01"), end=T("2013-06-30"))
    by_filter = build_by_filter(store, series.id, filt)
    assert by_filter.label == "segments where end=2013-06-30, slope_min=0.02, start=2012-01-01"
    env = open_tools(Settings(home=short_tmp / "text-labels"), store)
    try:
        by_text = build_by_text(store, series.id, "a sharp drop", env.search(), k=2, filt=filt)
    finally:
        env.close()
    assert by_text.label == (
        "segments like 'a sharp drop', end=2013-06-30, slope_min=0.02, start=2012-01-01"
    )


def test_coverage_is_whole_for_full_periods_and_a_share_for_partial_ones(store) -> None:
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=1)
    series = create_series(store, "covered")
    cut = int(np.searchsorted(data.ts, T("2015-07-01")))  # 2015 holds Jan..Jun: 181 days
    append(store, series.id, data.ts[:cut], data.xs[:cut])
    years = build_by_range(store, series.id, T("2014-01-01"), T("2015-12-31"), "year")
    assert [m.label for m in years] == ["2014", "2015"]
    assert years[0].coverage == 1.0
    assert years[1].coverage == pytest.approx(181 / 365, rel=1e-9)


def test_a_segment_re_embedded_by_another_process_is_searched_by_its_new_summary(
    store, short_tmp
) -> None:
    """The open segment keeps its id and vid as it grows: its new vector must reach the
    indexes other processes hold, in memory and on disk."""
    from graphmem.config import Settings
    from graphmem.series.detect.segments import list_segments
    from graphmem.series.meta.query import ranked_by_text
    from graphmem.series.meta.tools import ToolEnv
    from graphmem.services import open_tools

    settings = Settings(home=short_tmp / "text-reembedded", vector_refresh_ms=0)
    series, append_days = sales_series_for(store, "growing open")

    def grow_and_reembed_elsewhere(env: ToolEnv) -> str:
        """A few more days, re-embedded by `env`; the open segment's (unchanged) id."""
        before = list_segments(store, series.id, limit=1000)[-1]
        append_days(5)
        assert ranked_by_text(env.search(), series.id, "sales rose")
        now = list_segments(store, series.id, limit=1000)[-1]
        assert now.id == before.id and now.summary != before.summary, "grown in place"
        return now.summary

    def top(env: ToolEnv, text: str) -> tuple[str, float]:
        return ranked_by_text(env.search(), series.id, text)[0]

    first, second = open_tools(settings, store), open_tools(settings, store)
    try:
        assert ranked_by_text(first.search(), series.id, "sales rose")  # first embeds all
        open_id = list_segments(store, series.id, limit=1000)[-1].id
        summary = grow_and_reembed_elsewhere(second)
        found, score = top(first, summary)  # first's index held the open segment's old vector
        assert found == open_id and score == pytest.approx(1.0, abs=1e-4)
        first.close()  # saved with the clock revision it holds
        summary = grow_and_reembed_elsewhere(second)
        third = open_tools(settings, store)  # loads that saved index: older than the graph
        try:
            found, score = top(third, summary)
            assert found == open_id and score == pytest.approx(1.0, abs=1e-4)
            assert third.search().vectors.report("Segment").loaded
        finally:
            third.close()
    finally:
        first.close()
        second.close()


def sales_series_for(store, name: str):
    """A series holding 2010-2012 of the sales data, and a function appending n more days."""
    from graphmem.series.detect.synthetic import sales_series

    data = sales_series(seed=3)
    series = create_series(store, name, data.unit)
    upto = [int(np.searchsorted(data.ts, T("2012-12-01")))]
    append(store, series.id, data.ts[: upto[0]], data.xs[: upto[0]])

    def append_days(n: int) -> None:
        a, upto[0] = upto[0], upto[0] + n
        append(store, series.id, data.ts[a : upto[0]], data.xs[a : upto[0]])

    return series, append_days


def test_statistics_stored_as_raw_sums_are_read_then_replaced(store) -> None:
    """Nodes written by versions that stored raw power sums keep working and are upgraded."""
    from graphmem.series.detect.segments import get_segment, list_segments
    from graphmem.series.detect.stats import SuffStats

    def make_legacy(node_id: str, s: SuffStats) -> None:
        sx, st = s.mx * s.n, s.mt * s.n
        sums = {
            "sx": sx,
            "sxx": s.m2x + sx * sx / s.n,
            "st": st,
            "stt": s.m2t + st * st / s.n,
            "stx": s.ctx + st * sx / s.n,
        }
        store.write(Q["meta_test.to_legacy_sums"], id=node_id, **sums)

    series, append_days = sales_series_for(store, "legacy")
    [year] = build_by_range(store, series.id, T("2012-01-01"), T("2012-12-31"), "year")
    open_segment = list_segments(store, series.id, limit=1000)[-1]
    make_legacy(year.id, year.stats)
    make_legacy(open_segment.id, open_segment.stats)
    read = get_meta(store, year.id)
    assert read.features.mean == pytest.approx(year.features.mean, rel=1e-12)
    assert read.features.std == pytest.approx(year.features.std, rel=1e-9)
    assert get_segment(store, open_segment.id).features.n == open_segment.n
    append_days(40)  # the open segment grows, 2012 is extended: both are rewritten
    build_by_range(store, series.id, T("2012-01-01"), T("2012-12-31"), "year")
    for node_id in (year.id, open_segment.id):
        [row] = store.read(Q["meta_test.legacy_keys"], id=node_id)
        assert row["sx"] is None and row["m2x"] is not None
