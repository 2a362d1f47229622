"""Series ingestion: atomic batches, idempotent re-sends, restart equivalence, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphmem.cypher import load_dir
from graphmem.errors import AlreadyExists, InvalidInput, NotFound
from graphmem.series.catalog import create_series, delete_series
from graphmem.series.detect import ingest
from graphmem.series.detect.archive import CHUNK_SIZE, range_stats, read_index_range
from graphmem.series.detect.batch import quantize
from graphmem.series.detect.segments import get_segment, list_segments, time_bounds
from graphmem.series.detect.stats import SuffStats, features
from graphmem.series.detect.synthetic import piecewise_gaussian, sales_series
from graphmem.store import Store

Q = load_dir(Path(__file__).parent / "cypher")
DAY = 86400


def snapshot(store: Store, series_id: str) -> dict:
    """Everything stored for a series, minus wall-clock fields."""
    row = store.read(Q["contract.series_graph"], series_id=series_id)[0]
    series = {k: v for k, v in row["series"].items() if k not in ("created_at", "created_at_iso")}
    return {"series": series, "segments": row["segments"], "chunks": row["chunks"]}


def strip_ids(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("id", "series_id")} for r in rows]


def segment_rows(store: Store, series_id: str) -> list[dict]:
    return store.read(Q["contract.series_graph"], series_id=series_id)[0]["segments"]


@pytest.fixture
def sales():
    return sales_series(seed=3)


def test_one_pass_segments_the_sales_series(store: Store, sales) -> None:
    series = create_series(store, "sales", unit="units")
    result = ingest.append(store, series.id, sales.ts, sales.xs)
    assert result.accepted == len(sales.ts) and result.skipped == 0 and not result.duplicate
    segs = list_segments(store, series.id, limit=1000)
    assert len(segs) >= 5
    assert [s.idx for s in segs] == list(range(len(segs)))
    assert all(not s.open for s in segs[:-1]) and segs[-1].open
    assert segs[0].start == sales.ts[0] and segs[-1].end == sales.ts[-1]
    assert sum(s.n for s in segs) == len(sales.ts)
    links = store.read(Q["contract.next_links"], series_id=series.id)
    assert [(r["a"], r["b"]) for r in links] == [(i, i + 1) for i in range(len(segs) - 1)]
    # most February boosts produce a boundary within a week of Feb 1 or Mar 1
    starts = np.array([s.start for s in segs[1:]])
    febs = [np.datetime64(f"{y}-02-01") for y in range(2010, 2021)]
    hits = sum(
        np.min(np.abs(starts - f.astype("datetime64[s]").astype(int))) <= 7 * DAY for f in febs
    )
    assert hits >= 8


def test_segment_statistics_equal_numpy_over_raw_points(store: Store, sales) -> None:
    series = create_series(store, "sales", unit="units")
    ingest.ingest_all(store, series.id, sales.ts, sales.xs, batch_size=700)
    for seg in list_segments(store, series.id, limit=1000):
        xs = sales.xs[seg.i0 : seg.i0 + seg.n]
        ts = sales.ts[seg.i0 : seg.i0 + seg.n]
        assert seg.start == ts[0] and seg.end == ts[-1]
        f = seg.features
        assert f.mean == pytest.approx(xs.mean(), rel=1e-9)
        assert f.std == pytest.approx(xs.std(), rel=1e-6, abs=1e-9)
        # values are stored with 15 significant digits
        want = (xs.min(), xs.max(), xs[0], xs[-1])
        assert (f.min, f.max, f.first, f.last) == pytest.approx(want, rel=1e-14)
        if len(xs) > 2:
            slope = np.polyfit((ts - ts[0]) / DAY, xs, 1)[0]
            assert f.slope_per_day == pytest.approx(slope, rel=1e-6, abs=1e-9)
        assert "units" in seg.summary and seg.summary[:10] == seg.start_iso[:10]


def test_batches_in_separate_processes_equal_one_pass(store: Store, store_url: str, sales) -> None:
    one = create_series(store, "one-pass")
    ingest.append(store, one.id, sales.ts, sales.xs)
    many = create_series(store, "ten-processes")
    for part in np.array_split(np.arange(len(sales.ts)), 10):
        code = (
            "import json, sys; from graphmem.store import open_store; "
            "from graphmem.series.detect.ingest import append; "
            f"s = open_store({store_url!r}); d = json.load(sys.stdin); "
            "append(s, d['series'], d['ts'], d['xs']); s.close()"
        )
        payload = json.dumps(
            {"series": many.id, "ts": sales.ts[part].tolist(), "xs": sales.xs[part].tolist()}
        )
        subprocess.run([sys.executable, "-c", code], input=payload, text=True, check=True)
    a, b = strip_ids(segment_rows(store, one.id)), strip_ids(segment_rows(store, many.id))
    assert len(a) > 1 and a[-1]["open"]
    assert a == b, "closed and open segments are identical, bit for bit"
    assert time_bounds(store, many.id).n_points == len(sales.ts)


def test_long_open_segment_is_bit_identical_however_batched(store: Store) -> None:
    # a step, then a long stationary stretch: the open segment spans several chunks
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.normal(0.0, 1.0, 300), rng.normal(6.0, 1.0, 4700)])
    ts = 1_600_000_000 + 900.0 * np.arange(len(xs))
    one = create_series(store, "one")
    ingest.append(store, one.id, ts, xs)
    want = strip_ids(segment_rows(store, one.id))
    assert want[-1]["open"] and want[-1]["n"] > 3 * CHUNK_SIZE
    for trial, sizes in enumerate([[1, 1023, 1, 1024, 2500, 451], [700] * 7 + [100], [4999, 1]]):
        other = create_series(store, f"split-{trial}")
        cuts = np.cumsum([0, *sizes])
        assert cuts[-1] == len(xs)
        for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
            ingest.append(store, other.id, ts[lo:hi], xs[lo:hi])
        assert strip_ids(segment_rows(store, other.id)) == want, sizes


def test_resending_a_batch_is_a_no_op(store: Store, sales) -> None:
    series = create_series(store, "sales")
    first = ingest.append(store, series.id, sales.ts[:500], sales.xs[:500])
    ingest.append(store, series.id, sales.ts[500:900], sales.xs[500:900])
    before = snapshot(store, series.id)
    again = ingest.append(store, series.id, sales.ts[:500], sales.xs[:500])
    assert again.duplicate and again.accepted == 0 and first.accepted == 500
    assert snapshot(store, series.id) == before


def test_batch_lands_whole_or_not_at_all(store: Store, sales, monkeypatch) -> None:
    series = create_series(store, "sales")
    ingest.append(store, series.id, sales.ts[:300], sales.xs[:300])
    before = snapshot(store, series.id)
    batch = ingest.validate_batch(sales.ts[300:2000], sales.xs[300:2000])
    # another writer lands the same batch between our check and our write: the statement's
    # last step (the Batch node) fails, and the chunks, segments and state written before it
    # in the same statement must all be rolled back
    store.write(Q["contract.plant_batch"], id=batch.digest(series.id), series_id="elsewhere")
    real_read = store.read
    monkeypatch.setattr(
        store, "read", lambda name, **p: [] if name == "ingest.batch_seen" else real_read(name, **p)
    )
    with pytest.raises(AlreadyExists):
        ingest.append(store, series.id, sales.ts[300:2000], sales.xs[300:2000])
    assert snapshot(store, series.id) == before


def test_missing_values_are_skipped_and_counted(store: Store) -> None:
    series = create_series(store, "gappy")
    ts = np.arange(100) * 3600.0 + 1_600_000_000
    xs = np.sin(np.arange(100) / 5.0)
    xs[[3, 50, 99]] = np.nan
    result = ingest.append(store, series.id, ts, xs)
    assert (result.accepted, result.skipped) == (97, 3)
    bounds = time_bounds(store, series.id)
    assert (bounds.n_points, bounds.n_skipped) == (97, 3)
    assert bounds.end == ts[98], "the last stored point, not the skipped one"
    with pytest.raises(InvalidInput, match=r"timestamps\[0\]"):
        ingest.append(store, series.id, [ts[99]], [1.0])  # the skipped time still counts
    mixed = ingest.append(store, series.id, [ts[-1] + 1, ts[-1] + 2], [None, 2.0])
    assert (mixed.accepted, mixed.skipped) == (1, 1)


BAD = [
    ([], [], r"^timestamps: the batch is empty"),
    ([1, 2, 3], [1.0, 2.0], r"^values: has 2 items but timestamps has 3"),
    ([1, 2, 3], [1.0, float("inf"), 2.0], r"^values\[1\]: inf is not finite"),
    ([1, 2, 3], [1.0, 2.0, -float("inf")], r"^values\[2\]"),
    ([1, 2, 3], [1.0, "abc", 2.0], r"^values\[1\]: 'abc' is not a number"),
    ([1, 2, 3], [1.0, 2.0, True], r"^values\[2\]"),
    ([1, 3, 2], [1.0, 2.0, 3.0], r"^timestamps\[2\]: .* is not after the previous"),
    ([1, 2, 2], [1.0, 2.0, 3.0], r"^timestamps\[2\]"),
    (["2020-01-01", "yesterday"], [1.0, 2.0], r"^timestamps\[1\]"),
    ([1, float("nan")], [1.0, 2.0], r"^timestamps\[1\]"),
    # too large for the detector: indexed in the batch as sent, NaNs (missing) included
    ([1, 2, 3, 4, 5, 6], [1.0, 2.0, None, 4.0, 5.0, 1e150], r"^values\[5\]: 1e\+150 is too large"),
    (
        np.arange(1.0, 7.0),
        np.array([1.0, 2.0, np.nan, 4.0, 5.0, -1e100]),
        r"^values\[5\]: -1e\+100 is too large",
    ),
    ([1, 2], [1.0, 10**400], r"^values\[1\]: is too large"),
    # increasing, but closer than the 15 significant digits kept
    (
        [1.7e9, 1.7e9 + 3e-6],
        [1.0, 2.0],
        r"^timestamps\[1\]: is only 3(\.1)?e-06 s after .*significant digits \(10 µs",
    ),
]


@pytest.mark.parametrize(("ts", "xs", "message"), BAD)
def test_bad_batches_are_rejected_and_store_nothing(store: Store, ts, xs, message) -> None:
    series = create_series(store, "strict")
    ingest.append(store, series.id, [0, 0.5], [1.0, 2.0])
    before = snapshot(store, series.id)
    with pytest.raises(InvalidInput, match=message):
        ingest.append(store, series.id, ts, xs)
    assert snapshot(store, series.id) == before


def test_batch_not_after_stored_points_is_rejected(store: Store) -> None:
    series = create_series(store, "ordered")
    xs = piecewise_gaussian(seed=2, n_segments=3).xs
    ts = 1_600_000_000 + 60.0 * np.arange(len(xs))
    ingest.append(store, series.id, ts, xs)
    before = snapshot(store, series.id)
    assert len(before["segments"]) > 1 and before["series"]["segmenter"]
    for first, note in [(ts[-2], ""), (ts[-1], "15 significant digits")]:
        with pytest.raises(
            InvalidInput, match=r"timestamps\[0\].*not after the last stored"
        ) as err:
            ingest.append(store, series.id, [first, ts[-1] + 60], [1.0, 2.0])
        assert note in str(err.value)
        assert snapshot(store, series.id) == before, "segments, chunks and state unchanged"


def test_empty_and_mismatched_batches_name_the_field(store: Store) -> None:
    series = create_series(store, "shapes")
    cases = [
        ([], [], "timestamps", "the batch is empty"),
        ([1, 2, 3], [1.0, 2.0], "values", "has 2 items but timestamps has 3"),
        ([1, 2], [1.0, 2.0, 3.0], "values", "has 3 items but timestamps has 2"),
        ("123", [1.0], "timestamps", "must be a list"),
    ]
    for ts, xs, field, problem in cases:
        with pytest.raises(InvalidInput) as err:
            ingest.append(store, series.id, ts, xs)
        assert (err.value.field, err.value.problem) == (field, problem)
    assert time_bounds(store, series.id).n_points == 0


def test_unknown_series_is_not_found(store: Store) -> None:
    with pytest.raises(NotFound):
        ingest.append(store, "nope", [1], [1.0])


def test_chunk_archive_gives_exact_range_statistics(store: Store) -> None:
    series = create_series(store, "archive")
    rng = np.random.default_rng(7)
    # values with at most 15 significant digits, as stored, read back bit-exact
    ts = quantize(np.cumsum(rng.uniform(1, 100, 5000)) + 1_500_000_000)
    xs = quantize(rng.normal(size=5000))
    ingest.ingest_all(store, series.id, ts, xs, batch_size=1500)
    assert np.array_equal(read_index_range(store, series.id, 0, 5000).xs, xs)
    assert np.array_equal(read_index_range(store, series.id, 1000, 2100).ts, ts[1000:2100])
    for lo, hi in [(0, 4999), (17, 1030), (1023, 1025), (2500, 2500)]:
        got = range_stats(store, series.id, ts[0], ts[lo], ts[hi])
        want = SuffStats.from_points(ts[lo : hi + 1], xs[lo : hi + 1], ts[0])
        assert got.n == want.n and features(got).mean == pytest.approx(features(want).mean)
        assert (got.xmin, got.xmax) == (want.xmin, want.xmax)
    chunks = store.read(Q["contract.series_graph"], series_id=series.id)[0]["chunks"]
    assert [c["n"] for c in chunks] == [CHUNK_SIZE] * 4 + [5000 - 4 * CHUNK_SIZE]


def test_open_segment_is_updated_then_closed(store: Store) -> None:
    series = create_series(store, "steps")
    signal = piecewise_gaussian(seed=1, n_segments=4)
    ts = np.arange(len(signal.xs)) * 60.0 + 1_700_000_000
    seen_open = set()
    for lo in range(0, len(ts), 97):
        result = ingest.append(store, series.id, ts[lo : lo + 97], signal.xs[lo : lo + 97])
        assert result.segments[-1].open
        seen_open.add(result.segments[-1].id)
    segs = list_segments(store, series.id, limit=100)
    assert len(segs) >= 3 and segs[-1].open
    assert {s.id for s in segs[:-1]} <= seen_open, "every closed segment was open before"
    assert get_segment(store, segs[0].id).n == segs[0].n


def test_delete_series_removes_points_and_segments(store: Store, sales) -> None:
    series = create_series(store, "doomed")
    ingest.append(store, series.id, sales.ts[:2000], sales.xs[:2000])
    delete_series(store, series.id)
    assert store.read(Q["engines.count_data"])[0]["n"] == 0


def test_interrupted_demo_load_is_completed(store: Store) -> None:
    from graphmem.demo import load_sales

    data = sales_series(seed=0)
    reference = create_series(store, "reference", unit=data.unit)
    ingest.append(store, reference.id, data.ts, data.xs)
    # a demo run stopped after its first two batches of 1,000 points
    series = create_series(store, data.name, unit=data.unit)
    ingest.ingest_all(store, series.id, data.ts[:2000], data.xs[:2000], batch_size=1000)
    assert load_sales(store).id == series.id
    assert time_bounds(store, series.id).n_points == len(data.ts)
    want = strip_ids(segment_rows(store, reference.id))
    assert strip_ids(segment_rows(store, series.id)) == want
    before = snapshot(store, series.id)
    load_sales(store)  # complete: nothing more to do
    assert snapshot(store, series.id) == before


def test_a_batch_is_identified_by_its_series_and_its_values(store: Store) -> None:
    ts = 1_700_000_000 + 3600.0 * np.arange(6)
    xs = np.array([1.0, 2.0, np.nan, 4.0, 5.0, 6.0])
    first = create_series(store, "first")
    assert not ingest.append(store, first.id, ts, xs).duplicate
    before = snapshot(store, first.id)
    corrections = {
        "another value": np.array([1.0, 2.0, np.nan, 4.5, 5.0, 6.0]),
        "a missing value given": np.array([1.0, 2.0, 0.0, 4.0, 5.0, 6.0]),  # NaN is not 0.0
        "a value now missing": np.array([1.0, np.nan, np.nan, 4.0, 5.0, 6.0]),
    }
    for what, corrected in corrections.items():
        # the same timestamps with other values: too late, never "already ingested"
        with pytest.raises(InvalidInput, match=r"timestamps\[0\].*not after the last stored"):
            ingest.append(store, first.id, ts, corrected)
        assert snapshot(store, first.id) == before, what
    # the very same points sent to another series are that series' first batch
    second = create_series(store, "second")
    result = ingest.append(store, second.id, ts, xs)
    assert not result.duplicate and (result.accepted, result.skipped) == (5, 1)
    assert time_bounds(store, second.id).n_points == 5
    assert ingest.append(store, second.id, ts, xs).duplicate


MALFORMED = [
    (np.arange(6.0).reshape(3, 2), np.arange(3.0), "timestamps", "not of shape (3, 2)"),
    (np.arange(3.0), np.arange(6.0).reshape(3, 2), "values", "not of shape (3, 2)"),
    ([[1, 2], [3, 4]], [1.0, 2.0], "timestamps", "not of shape (2, 2)"),
    ([1, 2], [[1.0, 2.0], [3.0, 4.0]], "values", "not of shape (2, 2)"),
    ([1, [2, 3]], [1.0, 2.0], "timestamps", "not a nested one"),
    ([1, 2], [1.0, [2.0, 3.0]], "values[1]", "is not a number"),
    (np.array(5.0), np.array(3.0), "timestamps", "not of shape ()"),
    (np.arange(3.0), np.array(3.0), "values", "not of shape ()"),
]


@pytest.mark.parametrize(("ts", "xs", "field", "problem"), MALFORMED)
def test_malformed_arrays_name_the_field_and_store_nothing(
    store: Store, ts, xs, field: str, problem: str
) -> None:
    series = create_series(store, "shapes")
    with pytest.raises(InvalidInput) as err:
        ingest.append(store, series.id, ts, xs)
    assert err.value.field == field and problem in err.value.problem
    with pytest.raises(InvalidInput) as err:
        ingest.ingest_all(store, series.id, ts, xs)
    assert err.value.field == field
    assert time_bounds(store, series.id).n_points == 0


@pytest.mark.parametrize("size", [0, -5, 2.5, True, "100", 1_000_001])
def test_ingest_all_refuses_a_bad_batch_size_before_storing(store: Store, size) -> None:
    series = create_series(store, "sized")
    ts = 1_700_000_000 + 60.0 * np.arange(10)
    with pytest.raises(InvalidInput) as err:
        ingest.ingest_all(store, series.id, ts, np.ones(10), batch_size=size)
    assert err.value.field == "batch_size"
    assert time_bounds(store, series.id).n_points == 0


def test_ingest_all_checks_every_point_before_the_first_batch(store: Store) -> None:
    series = create_series(store, "checked")
    ts = 1_700_000_000 + 60.0 * np.arange(100)
    xs = np.ones(100)
    xs[95] = np.inf
    with pytest.raises(InvalidInput) as err:
        ingest.ingest_all(store, series.id, ts, xs, batch_size=10)
    assert err.value.field == "values[95]", "indexed in the whole array"
    with pytest.raises(InvalidInput) as err:  # more values than timestamps: none dropped
        ingest.ingest_all(store, series.id, ts, np.ones(101), batch_size=10)
    assert err.value.field == "values"
    assert time_bounds(store, series.id).n_points == 0
    with pytest.raises(InvalidInput) as err:
        ingest.ingest_all(store, series.id, ts, np.ones(100), batch_size=10, progress=5)
    assert err.value.field == "progress"
    assert time_bounds(store, series.id).n_points == 0
    results = ingest.ingest_all(store, series.id, ts, np.ones(100), batch_size=30)
    assert [r.accepted for r in results] == [30, 30, 30, 10]


def test_ingest_all_takes_points_validated_once(store: Store, sales) -> None:
    arrays, checked = create_series(store, "as arrays"), create_series(store, "validated")
    ingest.ingest_all(store, arrays.id, sales.ts[:3000], sales.xs[:3000], batch_size=700)
    points = ingest.validate_batch(sales.ts[:3000], sales.xs[:3000], most=None)  # as the CLI does
    results = ingest.ingest_all(store, checked.id, points, batch_size=700)
    assert [r.accepted for r in results] == [700, 700, 700, 700, 200]

    def stored(series_id: str) -> list[tuple]:
        segs = list_segments(store, series_id, limit=1000)
        return [(s.start, s.end, s.n, s.features.mean, s.features.std) for s in segs]

    assert stored(checked.id) == stored(arrays.id) and len(stored(arrays.id)) > 1


def test_append_refuses_a_config_of_the_wrong_type(store: Store) -> None:
    series = create_series(store, "configured")
    with pytest.raises(InvalidInput) as err:
        ingest.append(store, series.id, [1, 2], [1.0, 2.0], config={"hazard_lambda": 50})
    assert err.value.field == "config"
    assert time_bounds(store, series.id).n_points == 0


def _step_near_the_end() -> tuple[np.ndarray, np.ndarray]:
    """400 points of noise around 50 with a 3-sigma step 15 points before the end: too little
    evidence to confirm it while more points may come."""
    rng = np.random.default_rng(8)
    xs = 50.0 + rng.standard_normal(400) + np.where(np.arange(400) >= 385, 3.0, 0.0)
    return 1_700_000_000 + 3600.0 * np.arange(400), xs


def test_close_confirms_the_tail_and_closes_every_segment(store: Store) -> None:
    series = create_series(store, "finite")
    ts, xs = _step_near_the_end()
    ingest.append(store, series.id, ts, xs)
    before = list_segments(store, series.id, limit=100)
    assert before[-1].open and ts[385] not in {s.start for s in before}, "not confirmed yet"
    closed = ingest.close_series(store, series.id)
    assert (closed.boundaries, closed.already_closed) == (1, False)
    segs = list_segments(store, series.id, limit=100)
    assert not any(s.open for s in segs)
    assert segs[-1].start == ts[385] and segs[-1].n == 15
    assert [s.idx for s in segs] == list(range(len(segs))) and sum(s.n for s in segs) == 400
    assert segs[-1].features.mean == pytest.approx(xs[385:].mean(), rel=1e-12)
    links = store.read(Q["contract.next_links"], series_id=series.id)
    assert [(r["a"], r["b"]) for r in links] == [(i, i + 1) for i in range(len(segs) - 1)]
    stored = snapshot(store, series.id)
    again = ingest.close_series(store, series.id)
    assert (again.boundaries, again.already_closed, again.segments) == (0, True, [])
    assert snapshot(store, series.id) == stored, "closing again changes nothing"


def test_points_after_a_close_reopen_the_last_segment(store: Store) -> None:
    series = create_series(store, "paused")
    ts, xs = _step_near_the_end()
    ingest.append(store, series.id, ts[:395], xs[:395])
    ingest.close_series(store, series.id)
    closed = list_segments(store, series.id, limit=100)
    result = ingest.append(store, series.id, ts[395:], xs[395:])
    assert result.segments[-1].open
    segs = list_segments(store, series.id, limit=100)
    assert [s.start for s in segs[:-1]] == [s.start for s in closed[:-1]], "boundaries stay"
    assert segs[-1].start == closed[-1].start == ts[385] and segs[-1].n == 15
    assert ingest.close_series(store, series.id).already_closed is False


def test_close_after_any_batching_equals_one_pass(store: Store) -> None:
    ts, xs = _step_near_the_end()
    one = create_series(store, "one")
    ingest.append(store, one.id, ts, xs)
    ingest.close_series(store, one.id)
    many = create_series(store, "many")
    for lo in range(0, 400, 37):
        ingest.append(store, many.id, ts[lo : lo + 37], xs[lo : lo + 37])
    ingest.close_series(store, many.id)
    assert strip_ids(segment_rows(store, many.id)) == strip_ids(segment_rows(store, one.id))


def test_close_of_an_empty_or_unknown_series(store: Store) -> None:
    empty = create_series(store, "empty")
    result = ingest.close_series(store, empty.id)
    assert (result.boundaries, result.segments) == (0, [])
    with pytest.raises(NotFound):
        ingest.close_series(store, "no-such-series")


def test_a_filter_grouping_is_rebuilt_over_the_segments_a_close_made(store: Store) -> None:
    from graphmem.series.meta.build import SegmentFilter, build_by_filter
    from graphmem.series.meta.tools import run_tool

    series = create_series(store, "regrouped")
    ts, xs = _step_near_the_end()
    ingest.append(store, series.id, ts, xs)
    low = build_by_filter(store, series.id, SegmentFilter(mean_max=51.0))
    assert low.features.n == 400, "the one open segment meets it"
    ingest.close_series(store, series.id)
    read = run_tool(store, "get_meta_features", {"meta_segment_id": low.id, "full": True})
    assert read.ok, read.content
    assert json.loads(read.content)["n"] == 385, "the tail split off by the close does not"
