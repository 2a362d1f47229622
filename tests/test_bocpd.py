"""OnlineBOCPD: exactness against a plain BOCPD, batch/state invariance, warm-up and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from graphmem.errors import InvalidInput
from graphmem.series.detect.bocpd import (
    GRID_FLOOR,
    NormalGammaPrior,
    OnlineBOCPD,
    coarse_step,
    grid_step,
    log_scale_from_warmup,
    prior_from_warmup,
    sawtooth,
    season_from_warmup,
)


def exact_bocpd(
    xs: np.ndarray, prior: NormalGammaPrior, hazard_lambda: float, track_level: bool = False
) -> list[np.ndarray]:
    """Plain full-posterior BOCPD: after point t, P(r_t = r | x_0..x_t) for r = 0..t.

    r_t counts the points of the current segment before x_t; r_t = 0 means x_t opens one.
    With track_level, the model OnlineBOCPD uses by default: a run that opens at x_{t+1} has
    its prior mean at the level after x_t, the posterior mean of the most probable run
    (ties: the shortest); everything else is the plain model.
    """
    h = 1.0 / hazard_lambda
    level = prior.mu0
    mu = np.array([prior.mu0])
    kappa = np.array([prior.kappa0])
    alpha = np.array([prior.alpha0])
    beta = np.array([prior.beta0])
    log_post = None
    out = []
    for x in xs:
        # Index j of these arrays: statistics of a run with j points before x (j = 0: prior).
        scale = np.sqrt(beta * (kappa + 1) / (alpha * kappa))
        log_pred = stats.t.logpdf(x, df=2 * alpha, loc=mu, scale=scale)
        if log_post is None:
            joint = log_pred[:1]
        else:
            grow = np.log1p(-h) + log_post + log_pred[1:]
            fresh = np.log(h) + np.logaddexp.reduce(log_post) + log_pred[0]
            joint = np.concatenate([[fresh], grow])
        log_post = joint - np.logaddexp.reduce(joint)
        out.append(np.exp(log_post))
        new_mu = (kappa * mu + x) / (kappa + 1)
        new_beta = beta + kappa * (x - mu) ** 2 / (2 * (kappa + 1))
        if track_level:
            level = new_mu[int(np.argmax(log_post))]  # entry j: the run with r_t = j
        mu = np.concatenate([[level], new_mu])
        beta = np.concatenate([[prior.beta0], new_beta])
        kappa = np.concatenate([[prior.kappa0], kappa + 1])
        alpha = np.concatenate([[prior.alpha0], alpha + 0.5])
    return out


def steps(seed: int = 0) -> np.ndarray:
    """Mean and variance shifts, 300 points."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(0, 1, 90), rng.normal(4, 1, 110), rng.normal(3, 3, 100)])


@pytest.mark.parametrize(
    "prior",
    [NormalGammaPrior(0.0, 0.1, 1.0, 1.0), NormalGammaPrior(1.0, 0.01, 0.1, 0.05)],
)
def test_matches_exact_bocpd_while_nothing_is_pruned(prior):
    xs = steps()
    ref = exact_bocpd(xs, prior, 100.0)
    det = OnlineBOCPD(
        100.0,
        prior=prior,
        prune_threshold=0.0,
        max_run_lengths=400,
        track_level=False,
        outlier_prob=0.0,
    )
    for t, x in enumerate(xs):
        out = det.update(x)
        rl, prob = det.run_length_posterior()
        assert np.array_equal(rl, np.arange(t + 1))
        np.testing.assert_allclose(prob, ref[t], rtol=0, atol=1e-6)
        assert out.start == t
        assert out.map_run_length[0] == int(np.argmax(ref[t]))
        assert out.cp_prob[0] == pytest.approx(ref[t][:5].sum(), abs=1e-6)


@pytest.mark.parametrize("seed", [1, 4])
def test_constant_mean_model_with_level_tracking_matches_its_exact_reference(seed):
    # Hazard 250, prior scaled from a 32-point warm-up, level tracking, no slope and no
    # outliers, pruning off; the reference is the same model computed plainly.
    xs = steps(seed)
    det = OnlineBOCPD(
        prune_threshold=0.0, max_run_lengths=400, warmup=32, trend=False, outlier_prob=0.0
    )
    assert det.track_level and det.hazard_lambda == 250.0
    prior = prior_from_warmup(xs[:32], trend=False)
    ref = exact_bocpd(xs, prior, 250.0, track_level=True)
    plain = exact_bocpd(xs, prior, 250.0)
    for t, x in enumerate(xs):
        out = det.update(x)
        if t < det.warmup - 1:
            assert len(out) == 0
            continue
        rl, prob = det.run_length_posterior()
        assert np.array_equal(rl, np.arange(t + 1))
        np.testing.assert_allclose(prob, ref[t], rtol=0, atol=1e-6)
        assert out.map_run_length[-1] == int(np.argmax(ref[t]))
        assert out.cp_prob[-1] == pytest.approx(ref[t][:5].sum(), abs=1e-6)
    # level tracking is a different model: the plain one's posterior is visibly different
    assert max(np.abs(r - p).max() for r, p in zip(ref, plain, strict=True)) > 5e-3


def reference_default_model(
    xs: np.ndarray, prior: NormalGammaPrior, hazard_lambda: float, eps: float, k: float
):
    """The default model written plainly over every hypothesis: per run a Kalman filter over
    (level, slope) in units of the noise variance (inverse-gamma posterior); a run opens
    sloped (share slope_prob of the hazard) or flat (slope held at 0); a point whose outlier
    component (the predictive widened k times, weight eps) explains it better leaves the run's
    statistics alone, and fresh runs start where the best run goes next; a sloped run's slope
    wanders by slope_noise; an updated run's noise variance estimate (b / a) stays at or
    above var_floor.
    Returns, after every point, P(r_t = r | x_0..x_t) for r = 0..t and the run length of the
    most probable hypothesis."""
    h, q, p = 1.0 / hazard_lambda, prior.level_noise, prior.slope_prob
    m = np.zeros((0, 2))
    cov = np.zeros((0, 2, 2))
    a, b, age = np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64)
    log_post = np.zeros(0)
    level, slope = prior.mu0, prior.slope0
    posts, maps = [], []
    for x in xs:
        # every run predicted one step; the two fresh runs are their priors
        pm = np.stack([m[:, 0] + m[:, 1], m[:, 1]], 1)
        f = np.array([[1.0, 1.0], [0.0, 1.0]])
        pc = f @ cov @ f.T + np.diag([q, 0.0])
        pc[:, 1, 1] += np.where(cov[:, 1, 1] > 0, prior.slope_noise, 0.0)  # flat runs: none
        pm = np.concatenate([[[level, slope], [level, 0.0]], pm])
        fresh_cov = [np.diag([1 / prior.kappa0, v]) for v in (prior.slope_var, 0.0)]
        pc = np.concatenate([np.stack(fresh_cov), pc])
        pa = np.concatenate([[prior.alpha0] * 2, a])
        pb = np.concatenate([[prior.beta0] * 2, b])
        s = pc[:, 0, 0] + 1.0
        scale = np.sqrt(pb / pa * s)
        lin = stats.t.logpdf(x, df=2 * pa, loc=pm[:, 0], scale=scale)
        lout = stats.t.logpdf(x, df=2 * pa, loc=pm[:, 0], scale=scale * k)
        outlier = np.log(eps) + lout > np.log1p(-eps) + lin
        outlier[:2] = False
        lpred = np.logaddexp(np.log1p(-eps) + lin, np.log(eps) + lout)
        lpred[:2] = lin[:2]
        total = np.logaddexp.reduce(log_post) if len(log_post) else 0.0
        fresh = np.log(h) + total + np.log([p, 1.0 - p])
        joint = np.concatenate([fresh, np.log1p(-h) + log_post]) + lpred
        log_post = joint - np.logaddexp.reduce(joint)
        age = np.concatenate([[0, 0], age + 1])
        posts.append(np.bincount(age, weights=np.exp(log_post)))
        best = len(log_post) - 1 - int(np.argmax(log_post[::-1]))  # ties: the last, as the kernel
        maps.append(int(age[best]))
        gain = pc[:, :, 0] / s[:, None]
        e = x - pm[:, 0]
        keep = ~outlier
        m = np.where(keep[:, None], pm + gain * e[:, None], pm)
        cov = np.where(keep[:, None, None], pc - gain[:, :, None] * pc[:, 0][:, None, :], pc)
        a = pa + 0.5 * keep
        b = np.where(keep, np.maximum(pb + 0.5 * e * e / s, a * prior.var_floor), pb)
        level, slope = m[best, 0] + m[best, 1], m[best, 1]
    return posts, maps


@pytest.mark.parametrize("seed", [2, 6])
def test_default_model_matches_its_exact_reference(seed):
    # A trend, a step, a spike and a change of noise; defaults but pruning off.
    rng = np.random.default_rng(seed)
    xs = np.concatenate([0.05 * np.arange(120), 9 + rng.normal(0, 2, 100)]) + rng.normal(0, 1, 220)
    xs[150] += 30.0
    det = OnlineBOCPD(prune_threshold=0.0, max_run_lengths=800)
    out = det.update_batch(xs[: det.warmup])
    ref, ref_maps = reference_default_model(
        xs, det.prior, 250.0, det.outlier_prob, det.outlier_scale
    )
    assert det.prior.slope_var > 0 and 0 < det.prior.slope_prob < 1 and det.outlier_prob > 0
    maps = list(out.map_run_length)
    for t in range(det.warmup, len(xs)):
        maps.append(det.update(float(xs[t])).map_run_length[0])
        rl, prob = det.run_length_posterior()
        assert np.array_equal(rl, np.arange(t + 1))
        np.testing.assert_allclose(prob, ref[t], rtol=0, atol=1e-6)
    assert maps == ref_maps


def test_grid_floor_matches_its_exact_reference():
    # A price on a grid of 0.05 (long flat runs, moves of a tick or two, a 12-tick step): the
    # warm-up's grid gives the runs a noise floor, and the kernel still matches the reference.
    rng = np.random.default_rng(3)
    ticks = np.cumsum(np.where(rng.random(200) < 0.1, rng.choice([-1, 1], 200), 0))
    xs = 0.05 * (400 + np.clip(ticks, -2, 2) + np.where(np.arange(200) >= 120, 12, 0))
    det = OnlineBOCPD(prune_threshold=0.0, max_run_lengths=500)
    det.update_batch(xs[: det.warmup])
    step = 0.05 if det._log_floor is None else 0.05 / np.median(xs[:64])  # on the log scale
    assert det.prior.var_floor == pytest.approx(GRID_FLOOR * step**2)
    ref, _ = reference_default_model(xs, det.prior, 250.0, det.outlier_prob, det.outlier_scale)
    for t in range(det.warmup, len(xs)):
        det.update(float(xs[t]))
        np.testing.assert_allclose(det.run_length_posterior()[1], ref[t], rtol=0, atol=1e-6)


def test_grid_step_is_the_gap_of_values_on_a_grid_only():
    rng = np.random.default_rng(0)
    assert grid_step(100 + 0.25 * rng.integers(0, 8, 64)) == 0.25
    # 0/1 flags and small counts: one step is the signal, not its rounding
    assert grid_step(rng.integers(0, 2, 64).astype(float)) == 0.0
    assert grid_step(rng.standard_normal(64)) == 0.0  # all distinct: no grid
    assert grid_step(np.full(64, 3.0)) == 0.0  # one value: no gap to read


def test_pruning_keeps_the_set_bounded_and_the_mass_normalised():
    xs = np.random.default_rng(1).normal(size=5000)
    det = OnlineBOCPD(max_run_lengths=50, prune_threshold=0.0, protect_recent=0)
    det.update_batch(xs)
    rl, prob = det.run_length_posterior()
    # 50 hypotheses kept: a run length counts twice while both its flat and sloped ones are
    assert len(det.state()["hypotheses"]["age"]) == 50
    assert 25 <= len(rl) <= 50
    assert prob.sum() == pytest.approx(1.0, abs=1e-9)
    assert len(np.unique(rl)) == len(rl)


def _random_splits(n: int, rng: np.random.Generator) -> list[int]:
    cuts, pos = [], 0
    while pos < n:
        size = int(rng.choice([1, 1, 2, 5, 17, 31, 64, 200]))
        pos = min(n, pos + size)
        cuts.append(pos)
    return cuts


def growth(seed: int = 0, n: int = 300) -> np.ndarray:
    """Compound growth of 2 % a step with noise of 1 % of the level."""
    rng = np.random.default_rng(seed)
    return 50.0 * np.exp(0.02 * np.arange(n)) * (1.0 + 0.01 * rng.standard_normal(n))


def _steps_and_growth() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    steps = np.concatenate([rng.normal(0, 1, 400), rng.normal(3, 0.5, 300), rng.normal(-2, 2, 300)])
    crash = np.concatenate([growth(), [0.0, -3.0], growth(1, 100)])  # read on the log scale
    return [steps, crash]


@pytest.mark.parametrize("xs", _steps_and_growth())
def test_any_batch_split_with_state_round_trips_is_bit_identical(xs):
    one = OnlineBOCPD().update_batch(xs)
    assert one.start == 0 and len(one) == len(xs)
    for trial in range(3):
        det = OnlineBOCPD()
        cps, rls, start = [], [], 0
        prev = 0
        for cut in _random_splits(len(xs), np.random.default_rng(trial)):
            out = det.update_batch(xs[prev:cut])
            if len(out):
                assert out.start == start
                start += len(out)
            cps.append(out.cp_prob)
            rls.append(out.map_run_length)
            det = OnlineBOCPD.from_state(json.loads(json.dumps(det.state())))
            prev = cut
        assert np.array_equal(np.concatenate(cps), one.cp_prob)
        assert np.array_equal(np.concatenate(rls), one.map_run_length)


def test_single_point_updates_equal_batch_and_resume():
    xs = steps(3)
    batch = OnlineBOCPD().update_batch(xs)
    det = OnlineBOCPD()
    cps, rls = [], []
    for i, x in enumerate(xs):
        out = det.update(float(x))
        cps.append(out.cp_prob)
        rls.append(out.map_run_length)
        if i % 37 == 0:
            det = OnlineBOCPD.from_state(json.loads(json.dumps(det.state())))
    assert np.array_equal(np.concatenate(cps), batch.cp_prob)
    assert np.array_equal(np.concatenate(rls), batch.map_run_length)
    a, b = OnlineBOCPD(), det
    a.update_batch(xs)
    for pa, pb in zip(a.run_length_posterior(), b.run_length_posterior(), strict=True):
        assert np.array_equal(pa, pb)


def test_warmup_prior_comes_from_the_first_points_whatever_the_batching():
    xs = steps(5)
    det = OnlineBOCPD(warmup=32)
    for i in range(31):
        assert len(det.update(xs[i])) == 0
        assert det.prior is None
    flushed = det.update(xs[31])
    assert flushed.start == 0 and len(flushed) == 32
    other = OnlineBOCPD(warmup=32)
    assert len(other.update_batch(xs[:10])) == 0
    rest = other.update_batch(xs[10:100])
    assert rest.start == 0 and len(rest) == 100
    assert det.prior == other.prior
    assert det.n_seen == 32 and other.n_seen == other.n_processed == 100


def test_results_do_not_depend_on_units():
    rng = np.random.default_rng(11)
    xs = np.concatenate([rng.normal(0, 1, 200), rng.normal(2, 1, 200), rng.normal(2, 3, 200)])
    base = OnlineBOCPD().update_batch(xs).map_run_length
    scaled = OnlineBOCPD().update_batch(xs * 1e6 - 3e7).map_run_length
    assert np.array_equal(base, scaled)


def test_a_multiplicative_series_is_read_on_the_log_scale():
    rng = np.random.default_rng(3)
    xs = growth()
    line = 100.0 + 0.5 * np.arange(300) + rng.standard_normal(300)
    assert log_scale_from_warmup(xs[:64]) and not log_scale_from_warmup(line[:64])
    assert not log_scale_from_warmup(np.append(xs[:63], 0.0)), "only positive series"
    det = OnlineBOCPD()
    det.update_batch(xs)
    assert det.state()["log_floor"] == pytest.approx(xs[:64].min() * 1e-3)
    plain = OnlineBOCPD(log_scale=False)
    plain.update_batch(xs)
    assert plain.state()["log_floor"] is None
    # a later value at or below 0 reads as a fall to the floor, not as an error
    out = det.update_batch(np.array([0.0, -5.0, 60.0]))
    assert np.isfinite(out.cp_prob).all() and len(out) == 3


def test_curvature_in_the_warmup_lets_the_slope_wander():
    rng = np.random.default_rng(5)
    t = np.arange(64)
    curved = 0.05 * t**2 + rng.standard_normal(64)
    straight = 2.0 * t + rng.standard_normal(64)
    assert prior_from_warmup(curved).slope_noise > 0
    assert prior_from_warmup(straight).slope_noise == 0
    assert prior_from_warmup(straight).slope0 == pytest.approx(2.0, abs=0.3)
    assert prior_from_warmup(curved, trend=False).slope_noise == 0


def test_constant_input_is_handled():
    out = OnlineBOCPD().update_batch(np.full(300, 5.0))
    assert np.isfinite(out.cp_prob).all()
    assert out.map_run_length[-1] == 299


@pytest.mark.parametrize(
    "bad",
    [np.array([1.0, np.nan]), np.array([np.inf]), np.array([-np.inf, 1.0]), np.array([1e200])],
)
def test_non_finite_values_are_rejected(bad):
    det = OnlineBOCPD(prior=NormalGammaPrior(0.0, 1.0, 1.0, 1.0))
    with pytest.raises(InvalidInput) as err:
        det.update_batch(bad)
    assert err.value.field == "xs"
    with pytest.raises(InvalidInput):
        det.update(float(bad[-1]) if not np.isfinite(bad[-1]) else float("nan"))
    assert det.n_seen == 0


@pytest.mark.parametrize("bad", [np.zeros((3, 2)), ["a", "b"], [[1.0], [2.0, 3.0]]])
def test_wrong_shapes_and_types_are_rejected(bad):
    with pytest.raises(InvalidInput) as err:
        OnlineBOCPD().update_batch(bad)
    assert err.value.field == "xs"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"hazard_lambda": 1.0}, "hazard_lambda"),
        ({"hazard_lambda": 0.5}, "hazard_lambda"),
        ({"hazard_lambda": float("nan")}, "hazard_lambda"),
        ({"prune_threshold": -1e-3}, "prune_threshold"),
        ({"prune_threshold": 1.0}, "prune_threshold"),
        ({"max_run_lengths": 0}, "max_run_lengths"),
        ({"max_run_lengths": 2.5}, "max_run_lengths"),
        ({"warmup": 1}, "warmup"),
        ({"protect_recent": -1}, "protect_recent"),
        ({"cp_window": 0}, "cp_window"),
        ({"track_level": 1}, "track_level"),
        ({"trend": "no"}, "trend"),
        ({"outlier_prob": 0.5}, "outlier_prob"),
        ({"outlier_scale": 0.5}, "outlier_scale"),
        ({"prior": (0.0, 1.0, 1.0, 1.0)}, "prior"),
    ],
)
def test_bad_config_is_rejected(kwargs, field):
    with pytest.raises(InvalidInput) as err:
        OnlineBOCPD(**kwargs)
    assert err.value.field == field


@pytest.mark.parametrize("field", ["kappa0", "alpha0", "beta0", "slope_var", "level_noise"])
def test_bad_prior_is_rejected(field):
    values = {"mu0": 0.0, "kappa0": 1.0, "alpha0": 1.0, "beta0": 1.0, field: -1.0}
    with pytest.raises(InvalidInput) as err:
        NormalGammaPrior(**values)
    assert err.value.field == f"prior.{field}"


def test_malformed_state_is_rejected():
    state = OnlineBOCPD().state()
    del state["hypotheses"]
    with pytest.raises(InvalidInput) as err:
        OnlineBOCPD.from_state(state)
    assert err.value.field == "state"


def _monthly(n: int, seed: int, shift_at: int | None = None) -> np.ndarray:
    """A monthly series: a seasonal swing of 3 noise stds, a 4-std level shift at shift_at."""
    t = np.arange(n)
    xs = 20.0 + 3.0 * np.sin(2 * np.pi * t / 12) + np.random.default_rng(seed).standard_normal(n)
    return xs + (0.0 if shift_at is None else np.where(t >= shift_at, 4.0, 0.0))


def test_a_season_is_estimated_from_the_warmup_only_where_there_is_one():
    profile = season_from_warmup(_monthly(64, 0))
    assert profile is not None and profile.shape == (12,)
    assert abs(profile.mean()) < 1e-9 and profile.max() - profile.min() > 4.0
    rng = np.random.default_rng(1)
    for plain in (rng.standard_normal(64), np.cumsum(rng.standard_normal(64)), np.arange(64.0)):
        assert season_from_warmup(plain) is None
    assert season_from_warmup(_monthly(40, 0)) is None, "four cycles are needed"


def test_with_season_a_level_shift_under_a_season_is_found_and_resumes_exactly():
    xs = _monthly(240, 2, shift_at=150)
    det = OnlineBOCPD(season=True)
    whole = det.update_batch(xs)
    assert det.state()["season"] is not None
    assert np.argmax(whole.cp_prob[140:170]) + 140 in range(150, 156)
    first = OnlineBOCPD(season=True)
    a = first.update_batch(xs[:100])
    resumed = OnlineBOCPD.from_state(json.loads(json.dumps(first.state())))
    b = resumed.update_batch(xs[100:])
    c = [resumed.update(float(x)) for x in (21.0, 19.5)]
    assert np.allclose(np.concatenate([a.cp_prob, b.cp_prob]), whole.cp_prob, atol=1e-12)
    assert all(np.isfinite(o.cp_prob).all() for o in c)
    plain = OnlineBOCPD()
    plain.update_batch(xs)
    assert plain.state()["season"] is None, "off by default"


def test_a_state_stored_before_the_grid_floor_loads_with_none_and_resumes_exactly():
    xs = np.random.default_rng(5).normal(size=300) + np.r_[np.zeros(150), 4 * np.ones(150)]
    det = OnlineBOCPD()
    det.update_batch(xs[:100])
    state = json.loads(json.dumps(det.state()))
    assert state["prior"][-1] == 0.0  # no grid here: no floor
    old = dict(state, prior=state["prior"][:-1])  # round 8 stored nine prior fields
    now = OnlineBOCPD.from_state(state).update_batch(xs[100:])
    before = OnlineBOCPD.from_state(old).update_batch(xs[100:])
    assert np.array_equal(now.cp_prob, before.cp_prob)
    assert np.argmax(now.cp_prob[40:70]) + 140 in range(150, 156)


def test_a_sawtooth_is_told_from_a_zigzag_and_a_trend():
    rng = np.random.default_rng(3)
    saw = np.concatenate([100.0 - 9.0 * np.arange(10) + rng.standard_normal(10) for _ in range(7)])
    t = np.arange(64)
    zigzag = np.abs((t % 12) - 6) * 2.0 + 0.05 * rng.standard_normal(64)
    assert sawtooth(saw)
    assert not sawtooth(zigzag)  # a fall at every other step is no reset (round 10's review)
    assert not sawtooth(0.5 * t + rng.standard_normal(64))
    assert not sawtooth(np.zeros(64))


def test_a_coarse_grid_needs_two_values():
    assert coarse_step(np.array([0.0, 1.0, 0.0, 2.0] * 16)) == 1.0  # counts
    assert coarse_step(np.array([0.25, 0.5] * 32)) == 0.25
    assert coarse_step(np.zeros(64)) == 0.0  # a constant warm-up shows no grid
    assert coarse_step(np.arange(64.0)) == 0.0  # most values distinct: no grid
