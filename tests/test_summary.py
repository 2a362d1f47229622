"""One-line segment summaries and number formatting."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from graphmem.errors import InvalidInput
from graphmem.series.detect.stats import Features, SuffStats, features
from graphmem.series.detect.summary import fmt_num, summarize_segment

DAY = 86400
T_2016 = 1451606400  # 2016-01-01T00:00:00Z


def _features(xs: list[float] | np.ndarray, start: int = T_2016) -> Features:
    """Features of daily points starting at start."""
    xs = np.asarray(xs, dtype=float)
    ts = start + DAY * np.arange(xs.size)
    return features(SuffStats.from_points(ts, xs, start))


def _span(n: int) -> tuple[int, int]:
    """t_start, t_end of n daily points from 2016-01-01."""
    return T_2016, T_2016 + DAY * (n - 1)


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0.0, "0"),
        (-0.0, "0"),
        (151.24, "151.2"),
        (9.8, "9.8"),
        (100.0, "100"),
        (0.027, "0.027"),
        (0.0271234, "0.02712"),
        (-3.14159, "-3.142"),
        (12345.6, "12346"),
        (1234567.0, "1234567"),
        (9999.7, "10000"),
        (0.99996, "1"),
        (1.5e-5, "0.000015"),
        (2.5e-9, "2.5e-09"),
        (3e16, "3e+16"),
        (float("nan"), "nan"),
        (float("-inf"), "-inf"),
    ],
)
def test_fmt_num(x: float, text: str) -> None:
    assert fmt_num(x) == text


def test_fmt_num_significant_digits() -> None:
    assert fmt_num(6.51234, sig=3) == "6.51"
    assert fmt_num(np.float64(2.0)) == "2"
    with pytest.raises(InvalidInput, match="sig"):
        fmt_num(1.0, sig=0)
    with pytest.raises(InvalidInput, match="x"):
        fmt_num("1.5")  # type: ignore[arg-type]


def test_rising_segment_example_shape() -> None:
    xs = np.linspace(146.0, 155.8, 366)
    text = summarize_segment(_features(xs), "USD", *_span(366))
    assert text.startswith(
        "2016-01-01 to 2016-12-31 (366 days): mean 150.9 USD, trend rose 9.8 USD"
    )
    assert "(+6.712 %)" in text
    assert "slope +0.02685 USD/day" in text
    assert "no volatility" not in text
    assert "low volatility (std 2.837 USD)" in text
    assert text.endswith(".")
    assert "\n" not in text


def test_falling_segment() -> None:
    text = summarize_segment(_features([200.0, 180.0, 150.0]), "kg", *_span(3))
    assert "trend fell 50 kg (-24.79 %)" in text  # along the fitted trend, from its start level
    assert "slope -25 kg/day" in text
    assert "(3 days)" in text


def test_flat_segment() -> None:
    text = summarize_segment(_features([100.0, 101.0, 101.0, 100.0]), "USD", *_span(4))
    assert "trend flat" in text
    assert "rose" not in text and "fell" not in text


def test_constant_segment() -> None:
    text = summarize_segment(_features([5.0] * 10), "USD", *_span(10))
    assert "mean 5 USD, trend flat" in text
    assert "no volatility (std 0 USD)" in text


def test_volatility_words() -> None:
    rng = np.random.default_rng(0)
    low = summarize_segment(_features(100 + rng.normal(0, 1, 200)), None, *_span(200))
    moderate = summarize_segment(_features(100 + rng.normal(0, 10, 200)), None, *_span(200))
    high = summarize_segment(_features(100 + rng.normal(0, 40, 200)), None, *_span(200))
    assert "low volatility" in low
    assert "moderate volatility" in moderate
    assert "high volatility" in high


def test_volatility_near_zero_level_uses_the_change() -> None:
    calm = summarize_segment(_features(np.linspace(-10, 10, 100)), None, *_span(100))
    noisy = summarize_segment(_features([0.0, 5.0, -5.0, 0.5]), None, *_span(4))
    assert "low volatility" in calm
    assert "high volatility" in noisy


def test_without_unit() -> None:
    text = summarize_segment(_features([1.0, 2.0, 3.0]), None, *_span(3))
    assert text == (
        "2016-01-01 to 2016-01-03 (3 days): mean 2, trend rose 2 (+200 %), slope +1 per day, "
        "low volatility (std 0.8165)."
    )
    assert summarize_segment(_features([1.0, 2.0, 3.0]), "  ", *_span(3)) == text
    assert "None" not in text


def test_pct_change_none_is_omitted() -> None:
    text = summarize_segment(_features([0.0, 4.0]), "USD", *_span(2))
    assert "trend rose 4 USD," in text
    assert "%" not in text


def test_summary_change_is_the_trend_not_last_minus_first() -> None:
    # ends lower than it starts, yet the fitted line rises: the sentence reports the line
    xs = [100.0, 104.0, 108.0, 112.0, 116.0, 97.0]
    f = _features(xs)
    assert f.change == -3.0 and f.pct_change == -3.0
    trend = f.slope_per_day * f.duration_days
    assert trend > 0
    text = summarize_segment(f, "USD", *_span(len(xs)))
    assert f"trend rose {fmt_num(trend)} USD" in text
    assert "fell" not in text and "-3 USD" not in text


def test_single_point() -> None:
    text = summarize_segment(_features([42.0]), "USD", T_2016, T_2016)
    assert text == "2016-01-01 (1 day): single value 42 USD."


def test_negative_and_zero_values() -> None:
    text = summarize_segment(_features([-2.0, -1.0, 0.0]), "°C", *_span(3))
    assert "mean -1 °C" in text
    assert "trend rose 2 °C (+100 %)" in text


def test_deterministic() -> None:
    rng = np.random.default_rng(3)
    f = _features(50 + np.cumsum(rng.normal(0, 1, 500)))
    copy = dataclasses.replace(f)
    texts = {summarize_segment(x, "units sold", *_span(500)) for x in (f, copy, f)}
    assert len(texts) == 1


def test_rejects_bad_arguments() -> None:
    f = _features([1.0, 2.0])
    with pytest.raises(InvalidInput, match="t_end"):
        summarize_segment(f, None, T_2016 + DAY, T_2016)
    with pytest.raises(InvalidInput, match="t_start"):
        summarize_segment(f, None, float("nan"), T_2016)
    with pytest.raises(InvalidInput, match="features"):
        summarize_segment({"mean": 1.0}, None, T_2016, T_2016)  # type: ignore[arg-type]


def test_an_outlying_extreme_is_named_beside_the_volatility_it_lifts() -> None:
    rng = np.random.default_rng(0)
    calm = 25 + rng.normal(0, 1, 100)
    spiked = calm.copy()
    spiked[40] = 80.0  # one spike triples a calm segment's std
    text = summarize_segment(_features(spiked), "EUR", *_span(100))
    assert "high volatility (std 5.545 EUR); max 80 EUR is 57.3 stds above the others' mean." in (
        text
    )
    assert "stds" not in summarize_segment(_features(calm), "EUR", *_span(100))
    dips = summarize_segment(_features(np.r_[calm, -40.0]), None, *_span(101))
    assert "; min -40 is" in dips and "stds below the others' mean" in dips
    # measured against the others, a spike stands out in a short segment too
    short = calm[:20].copy()
    short[5] = 60.0
    assert "; max 60 EUR is" in summarize_segment(_features(short), "EUR", *_span(20))
    wide = 25 + rng.normal(0, 1, 100_000)  # a long normal segment's extremes are not named
    assert "stds" not in summarize_segment(_features(wide), None, *_span(100_000))
    flat = np.r_[[5.0] * 9, 6.0]  # the others all equal
    assert "; max 6 lies far outside the other points" in summarize_segment(
        _features(flat), None, *_span(10)
    )
    hairline = np.r_[np.full(999, 1e9), 1e9 + 1e-6]  # apart only beyond the digits shown
    assert "max" not in summarize_segment(_features(hairline), None, *_span(1000))
