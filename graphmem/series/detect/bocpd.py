"""Online Bayesian changepoint detection (Adams & MacKay 2007), Gaussian with unknown mean/variance.

Run length convention: after point x_t, r_t is the number of points of the current segment that
came before x_t, so the segment holding x_t started at index t - r_t (r_t = 0: x_t starts one).
Hypotheses are kept in fixed-capacity arrays and pruned, so time and memory per point are bounded.
By default a fresh run's prior mean follows the current level (OnlineBOCPD, "Level tracking").
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from graphmem.errors import InvalidInput
from graphmem.series.detect.gaps import GAP_Z, fill_gaps, repeats, repeats_are_gaps

# Rows of the hypothesis matrix: stored state first, per-step scratch after.
(_LP, _L, _SL, _P00, _P01, _P11, _A, _B, _D, _AGE) = range(10)
(_V, _ERR, _S, _Q00, _Q01, _Q11, _QL, _OUT) = range(10, 18)
_NROWS = 18
_N_STORED = 10  # rows that make up the state; the rest is scratch
_STATE_ROWS = {
    "log_prob": _LP,
    "level": _L,
    "slope": _SL,
    "p00": _P00,
    "p01": _P01,
    "p11": _P11,
    "alpha": _A,
    "beta": _B,
    "d": _D,
    "age": _AGE,
}
# Slots of the parameter row, the workspace's last row (one array keeps the call overhead low):
# prior, cached logs, running normaliser, level and slope, then hypothesis count, points
# processed, capacity, cp window, protected age, the track_level flag (integers stored exactly),
# the grid floor, whether a repeat of the last value that is not a repeat is a gap, and the
# most probable run's prediction of the next point (level, variance); GAP_Z squared.
# _LOGHS / _LOGHF: log hazard of a fresh sloped / flat run (_NEG_BIG: no such run).
(_MU0, _KAPPA0, _ALPHA0, _BETA0, _D0, _PS, _QN, _LOGHS, _LOG1MH, _LOGTHR, _LOGNORM) = range(11)
(_LEVEL, _SLOPE, _LOGEPS, _LOG1MEPS, _LOGK2, _LOGLIVE, _LOGHF, _QS) = range(11, 19)
_K, _T, _CAP, _WIN, _PROT, _ADAPT, _VFLOOR, _CARRY, _PLEV, _PVAR, _GAPZ2 = range(19, 30)
_NPAR = 30
_PAR = _NROWS

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
MAX_ABS_VALUE = 1e100  # squares of larger values, summed over long runs, could overflow
_PRIOR_MAX = 0.99 * MAX_ABS_VALUE  # a prior level or slope is kept below the values' limit
# Sentinels of the integer-key reductions: below every float's key; above every key of a value <= 0.
_KEY_LOW = -9218868437227405313  # the key of -inf
_KEY_HIGH = 2**62
_NEG_BIG = -1.0e300  # stands in for log(0) because the kernel is compiled without inf support
_TINY = float(np.finfo(np.float64).tiny)  # the smallest normal float: its log is finite
# No NaN or inf ever reaches the kernel; these flags let LLVM vectorise its sums.
_FLAGS = {"nsz", "arcp", "contract", "reassoc", "nnan", "ninf"}


@intrinsic
def _f2i(typingctx, x):  # noqa: ARG001
    """Reinterpret float64 bits as int64 (vectorisable, unlike a libm call)."""
    if x != types.float64:
        return None

    def codegen(context, builder, sig, args):  # noqa: ARG001
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _i2f(typingctx, x):  # noqa: ARG001
    """Reinterpret int64 bits as float64."""
    if x != types.int64:
        return None

    def codegen(context, builder, sig, args):  # noqa: ARG001
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


_LN2_HI = 6.93147180369123816490e-01  # fdlibm split of ln 2: n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10


@njit(cache=True, inline="always", fastmath={"nsz", "contract"})
def _fexp(x: float) -> float:
    """exp(x) for x <= 0 to ~1e-14 relative, branch-free so the loops around it vectorise."""
    x = max(x, -745.0)
    nf = math.floor(x * 1.4426950408889634 + 0.5)
    r = (x - nf * _LN2_HI) - nf * _LN2_LO
    p = 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    scale = _i2f((np.int64(nf) + 1023) << 52)
    # Below -708 the scale would be subnormal; such masses are negligible against the maximum (1).
    return p * scale if x > -708.0 else 0.0


@njit(cache=True, inline="always", fastmath={"nsz", "contract"})
def _flog(x: float) -> float:
    """log(x) for positive normal x (fdlibm's e_log reduction and polynomial), branch-free."""
    bits = _f2i(x)
    e = (bits >> 52) - 1023
    m = _i2f((bits & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000)
    big = m > 1.4142135623730951
    m = m * 0.5 if big else m
    e = e + 1 if big else e
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    r = 1.479819860511658591e-01
    r = r * z + 1.531383769920937332e-01
    r = r * z + 1.818357216161805012e-01
    r = r * z + 2.222219843214978396e-01
    r = r * z + 2.857142874366239149e-01
    r = r * z + 3.999999999940941908e-01
    r = r * z + 6.666666666666735130e-01
    r = r * z
    hfsq = 0.5 * f * f
    ef = float(e)
    return ef * _LN2_HI - ((hfsq - (s * (hfsq + r) + ef * _LN2_LO)) - f)


def _d0(alpha0: float) -> float:
    """lgamma(alpha0 + 1/2) - lgamma(alpha0), the start of the recurrence the kernel carries."""
    return math.lgamma(alpha0 + 0.5) - math.lgamma(alpha0)


@njit(cache=True, inline="always")
def _key(x: float) -> int:
    """Order-preserving int64 image of a float: LLVM vectorises integer max/min, not float ones."""
    b = _f2i(x)
    return b ^ ((b >> 63) & 0x7FFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def _unkey(k: int) -> float:
    """Inverse of _key."""
    return _i2f(k ^ ((k >> 63) & 0x7FFFFFFFFFFFFFFF))


@njit(cache=True, fastmath=_FLAGS, error_model="numpy")
def _kernel(xs, rep, hyp, out_cp, out_map, out_old):  # pragma: no cover - compiled
    """Run the truncated BOCPD recursion over xs, updating the workspace hyp in place.

    Each hypothesis is a run with a Kalman filter over (level, slope) whose covariance P is in
    units of the unknown noise variance, which has an inverse-gamma posterior (alpha, beta), so
    the predictive is a Student-t: with S = P00 + 1 after the prediction step and e the error,
    log p(x) = d - log(2 pi)/2 + alpha log(beta S) - (alpha + 1/2) log(beta S + e^2/2), where
    d = lgamma(alpha + 1/2) - lgamma(alpha). A point that the run's outlier component explains
    better than its own predictive leaves the run's statistics as they were. A point with
    rep[j] set (an exact repeat of the value before) is a gap when the value it repeats was
    within GAP_Z predictive stds of the most probable run's prediction: no reading, every run
    only moves on, its likelihood 1, and no fresh run opens there.
    """
    par = hyp[_PAR]
    level = par[_LEVEL]
    slope = par[_SLOPE]
    adapt = par[_ADAPT] != 0.0
    kappa0 = par[_KAPPA0]
    alpha0 = par[_ALPHA0]
    beta0 = par[_BETA0]
    d0 = par[_D0]
    ps = par[_PS]
    qn = par[_QN]
    qs = par[_QS]
    log1mh = par[_LOG1MH]
    logthr = par[_LOGTHR]
    logeps = par[_LOGEPS]
    log1meps = par[_LOG1MEPS]
    logk2 = par[_LOGK2]
    loghs = par[_LOGHS]
    loghf = par[_LOGHF]
    robust = logeps > _NEG_BIG
    k2 = _fexp(logk2) if robust else 1.0
    loglive = par[_LOGLIVE]
    cap = np.int64(par[_CAP])
    win = par[_WIN]
    prot = par[_PROT]
    k = np.int64(par[_K])
    lognorm = par[_LOGNORM]
    vfloor = par[_VFLOOR]
    carry = par[_CARRY] != 0.0
    plev = par[_PLEV]
    pvar = par[_PVAR]
    gapz2 = par[_GAPZ2]
    gaps = gapz2 > 0.0
    lp, ll, sl, p00, p01, p11 = hyp[_LP], hyp[_L], hyp[_SL], hyp[_P00], hyp[_P01], hyp[_P11]
    aa, bb, dd, age = hyp[_A], hyp[_B], hyp[_D], hyp[_AGE]
    v, err, ss, q00, q01, q11, ql, outl = (
        hyp[_V],
        hyp[_ERR],
        hyp[_S],
        hyp[_Q00],
        hyp[_Q01],
        hyp[_Q11],
        hyp[_QL],
        hyp[_OUT],
    )
    pk0 = 1.0 / kappa0
    for j in range(xs.shape[0]):
        x = xs[j]
        miss = rep[j] and carry
        if gaps and not rep[j]:  # a repeat of x_t is a gap if the best run could have read x_t
            e = x - plev
            carry = e * e <= gapz2 * pvar
        # Pass 1: predict every run one step, its joint log mass, and the best one.
        shift = lognorm + log1mh
        mkey = np.int64(_KEY_LOW)
        for i in range(k):
            a00 = p00[i] + 2.0 * p01[i] + p11[i] + qn
            a01 = p01[i] + p11[i]
            li = ll[i] + sl[i]
            s = a00 + 1.0
            e = x - li
            bs = bb[i] * s
            lbsn = _flog(bs + 0.5 * e * e)
            lin = dd[i] - _HALF_LOG_2PI + aa[i] * _flog(bs) - (aa[i] + 0.5) * lbsn
            o = 0.0
            if robust:
                # The outlier component: the same predictive, its scale widened k times.
                lout = lin + aa[i] * logk2 - (aa[i] + 0.5) * (_flog(bs * k2 + 0.5 * e * e) - lbsn)
                inl = log1meps + lin
                oul = logeps + lout
                o = 1.0 if oul > inl else 0.0
                hi = max(inl, oul)
                lin = hi + _flog(1.0 + _fexp(-abs(inl - oul)))
            vi = lp[i] + shift + lin
            v[i] = vi
            err[i] = e
            ss[i] = s
            q00[i] = a00
            q01[i] = a01
            q11[i] = p11[i] + (qs if p11[i] > 0.0 else 0.0)  # a flat run's slope stays 0
            ql[i] = li
            outl[i] = o
            ki = _key(vi)
            mkey = ki if ki > mkey else mkey
        if miss:  # no reading: no evidence for or against a run, which only moves on
            mkey = np.int64(_KEY_LOW)
            for i in range(k):
                vi = lp[i] + shift
                v[i] = vi
                outl[i] = 1.0
                ki = _key(vi)
                mkey = ki if ki > mkey else mkey
        # The fresh runs (x_t opens a segment) enter at slot k: one with a slope, one flat (its
        # slope held at 0), each with its share of the hazard; both predict x_t alike. None opens
        # at a gap: a change while readings are missing opens at the first reading after it.
        s = pk0 + 1.0
        e = x - level
        bs = beta0 * s
        lin = d0 - _HALF_LOG_2PI + alpha0 * _flog(bs) - (alpha0 + 0.5) * _flog(bs + 0.5 * e * e)
        for flat in (False, True):
            logw = loghf if flat else loghs
            if logw <= _NEG_BIG or miss:
                continue
            vi = logw + lin
            v[k] = vi
            err[k] = e
            ss[k] = s
            q00[k] = pk0
            q01[k] = 0.0
            q11[k] = 0.0 if flat else ps
            ql[k] = level
            outl[k] = 0.0
            sl[k] = 0.0 if flat else slope
            aa[k] = alpha0
            bb[k] = beta0
            dd[k] = d0
            age[k] = 0.0
            ki = _key(vi)
            mkey = ki if ki > mkey else mkey
            k += 1
        m = _unkey(mkey)
        # Pass 2: normalise against the best, update the filters, sum the masses.
        s_all = 0.0
        s_drop = 0.0
        s_recent = 0.0
        n_drop = 0
        map_i = np.int64(-1)
        old = 0.0
        min_key = _key(0.0)
        for i in range(k):
            ni = age[i]
            li = v[i] - m
            ei = _fexp(li)
            keep = (li >= logthr) | (ni < prot)
            s_all += ei
            s_drop += 0.0 if keep else ei
            n_drop += 0 if keep else 1
            s_recent += ei if ((ni < win) & keep) else 0.0
            cand = i if li == 0.0 else np.int64(-1)
            map_i = cand if cand > map_i else map_i
            old = ni if (li >= loglive) & (ni > old) else old
            ki = _key(li) if keep else np.int64(_KEY_HIGH)
            min_key = ki if ki < min_key else min_key
            lp[i] = li
            age[i] = ni + 1.0
            a00 = q00[i]
            a01 = q01[i]
            if outl[i] != 0.0:  # an outlier: the filter only moves on (prediction, no update)
                ll[i] = ql[i]
                p00[i] = a00
                p01[i] = a01
                p11[i] = q11[i]
                continue
            s = ss[i]
            e = err[i]
            g0 = a00 / s
            g1 = a01 / s
            ll[i] = ql[i] + g0 * e
            sl[i] = sl[i] + g1 * e
            p00[i] = a00 - g0 * a00
            p01[i] = a01 - g0 * a01
            p11[i] = q11[i] - g1 * a01
            # d(alpha + 1/2) = log(alpha) - d(alpha), as lgamma(a + 1) = log a + lgamma(a).
            dd[i] = _flog(aa[i]) - dd[i]
            aa[i] = aa[i] + 0.5
            # On a grid a run of equal values says only that the noise is below a step or so:
            # its variance estimate (beta / alpha) does not fall below the grid's floor.
            b = bb[i] + 0.5 * e * e / s
            bf = aa[i] * vfloor
            bb[i] = b if b > bf else bf
        lp_min = _unkey(min_key)
        map_n = np.int64(age[map_i]) - 1
        if gaps:  # the best run's prediction of the next point
            plev = ll[map_i] + sl[map_i]
            pvar = (p00[map_i] + 2.0 * p01[map_i] + p11[map_i] + qn + 1.0) * bb[map_i] / aa[map_i]
        if adapt:
            # Centre the next fresh run's prior on where the current run goes next.
            level = ll[map_i] + sl[map_i]
            slope = sl[map_i]
        # Prune: drop everything below the relative threshold, then the least probable while full.
        if n_drop > 0:
            i = k - 1
            while i >= 0:
                if lp[i] < logthr and age[i] > prot:
                    k -= 1
                    _move(hyp, k, i)
                i -= 1
        while k > cap:
            i = 0
            while lp[i] != lp_min:
                i += 1
            e = _fexp(lp_min)
            s_drop += e
            if age[i] <= win:
                s_recent -= e
            k -= 1
            _move(hyp, k, i)
            lp_min = _least(lp, k)
        s_kept = s_all - s_drop
        lognorm = -_flog(s_kept)
        out_cp[j] = min(max(s_recent / s_kept, 0.0), 1.0)
        out_map[j] = map_n
        out_old[j] = np.int64(old) - 1
    par[_K] = k
    par[_T] += xs.shape[0]
    par[_CARRY] = 1.0 if carry else 0.0
    par[_PLEV] = plev
    par[_PVAR] = pvar
    par[_LOGNORM] = lognorm
    par[_LEVEL] = level
    par[_SLOPE] = slope


@njit(cache=True, inline="always")
def _least(lp, k):
    """The smallest of lp[:k]."""
    low = np.int64(_KEY_HIGH)
    for i in range(k):
        ki = _key(lp[i])
        low = ki if ki < low else low
    return _unkey(low)


@njit(cache=True, inline="always")
def _move(hyp, src, dst):
    """Copy hypothesis src over dst (order does not matter, so removal is O(1))."""
    for row in range(_N_STORED):
        hyp[row, dst] = hyp[row, src]


# Ranges the kernel's arithmetic is exact over (its fast log needs normal, non-overflowing inputs).
_PRIOR_RANGES = {
    "kappa0": (1e-8, 1e8),
    "alpha0": (1e-8, 1e8),
    "beta0": (1e-200, 1e200),
    "slope_var": (0.0, 1e8),
    "level_noise": (0.0, 1e8),
    "slope_prob": (0.0, 1.0),
    "slope_noise": (0.0, 1e8),
    "var_floor": (0.0, 1e200),
}
_PRIOR_FIELDS = (
    "mu0",
    "kappa0",
    "alpha0",
    "beta0",
    "slope_var",
    "level_noise",
    "slope_prob",
    "slope_noise",
    "slope0",
    "var_floor",
)


@dataclass(frozen=True)
class NormalGammaPrior:
    """Normal-Gamma prior of a segment: level mu0 (kappa0 pseudo-points), noise precision
    Gamma(alpha0, beta0); slope_var > 0 gives a segment, with probability slope_prob, a slope
    (prior variance in noise variances per step squared; otherwise it is flat), level_noise
    q > 0 lets its level wander (a random walk with step variance q noise variances) and
    slope_noise a sloped segment's slope likewise; mu0 and slope0 are the level and slope the
    first segment starts from; var_floor is the least noise variance a run may settle on (a
    series on a grid). slope_var = level_noise = var_floor = 0: the plain constant-mean model."""

    mu0: float
    kappa0: float
    alpha0: float
    beta0: float
    slope_var: float = 0.0
    level_noise: float = 0.0
    slope_prob: float = 1.0
    slope_noise: float = 0.0
    slope0: float = 0.0
    var_floor: float = 0.0

    def __post_init__(self) -> None:
        for name in _PRIOR_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise InvalidInput(f"prior.{name}", f"must be a number, got {value!r}")
        for name in ("mu0", "slope0"):
            if not abs(getattr(self, name)) < MAX_ABS_VALUE:
                value = getattr(self, name)
                raise InvalidInput(f"prior.{name}", f"must be finite and below 1e100, got {value}")
        for name, (lo, hi) in _PRIOR_RANGES.items():
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise InvalidInput(f"prior.{name}", f"must be in [{lo:g}, {hi:g}], got {value}")


# Shape of the data-scaled prior. The noise variance is centred on the warm-up's robust estimate
# with the weight of about two points (alpha0 = 1): a new segment's noise may differ widely, but
# a few tight points are not taken for a segment of their own; the level is nearly free
# (kappa0 = 0.01: a prior std of 10 noise stds around where the series goes next).
DEFAULT_KAPPA0 = 0.01
DEFAULT_ALPHA0 = 1.0
DEFAULT_VAR_SCALE = 1.0  # prior guess of the noise variance, relative to the warm-up estimate
DEFAULT_SLOPE_VAR = 1.0  # a segment's slope: prior std of one noise std per step
# A new segment is as likely flat as sloped: a flat one pays no price for a slope it does not
# need, so a small step between flat stretches is not read as one long gentle slope.
DEFAULT_SLOPE_PROB = 0.5
# Level noise from the warm-up: the spread of 8-step differences against 1-step ones (robust
# MADs) is 1 for independent noise and grows for a wandering level; estimated only from
# enough points and beyond a clear margin, as a level shift in the warm-up inflates it too.
_Q_LAG = 8
_Q_MIN_POINTS = 48
_Q_MIN_RATIO = 2.5
MAX_LEVEL_NOISE = 10.0
# Slope noise from the warm-up's curvature: the median k-step second difference, when clearly
# nonzero, is k^2 times the slope's change per step; the slope's random walk gets that change
# squared times _W_HORIZON, so that over so many steps it covers the drift curvature gives it.
_W_LAG = 8
_W_MIN_POINTS = 16
_W_Z = 3.0
_W_HORIZON = 10.0
MAX_SLOPE_NOISE = 1e4
# A stream closed before its warm-up filled is seen whole, bends and all, and the median
# curvature misses a bend that changes sign (an S-curve): there a sloped segment's slope may
# always wander this much (noise variances per step), so a smooth curve is not cut into
# straight pieces while a step still needs a boundary.
SHORT_SLOPE_NOISE = 0.02
# ... but only when it has a slope: its median step this many standard errors from zero. Steps
# between flat stretches (a median step near 0) are not a bend to follow (round 9, chosen on
# the tuned split: 0.5 cuts fewer short steps, 1.5 cuts Gompertz curves).
SHORT_SLOPE_Z = 1.0
# A season (a fixed profile over a period of 4-24 points, four cycles seen) is taken by a
# clear margin of log-likelihood (after BIC's price for its parameters).
_S_MIN_PERIOD = 4
_S_MAX_PERIOD = 24
_S_MIN_CYCLES = 4
SEASON_MARGIN = 5.0
# A season read better as ratios to the level than as a fixed profile, by this much
# log-likelihood, is in proportion to the level.
RATIO_MARGIN = 2.0
# A season whose size differs more than this between the warm-up's halves is a swing dying away
# or growing, not a fixed profile (round 8, chosen on the tuned split).
STEADY_SWING = 2.0
# A sawtooth (stock drawn down and refilled, a counter that wraps) is not a season: its teeth
# vary in length, so a fixed profile drifts out of phase (round 10). Read in its steps: a drift
# this many standard errors from zero, and at least this many resets against it beyond this
# many of the steps' spreads.
SAW_DRIFT_Z = 3.0
SAW_MIN_RESETS = 3
SAW_RESET_Z = 5.0
SAW_MIN_SPREAD = 0.05  # the steps' spread is taken as at least this share of the median step
# The log scale is taken only from enough points and by a clear margin of log-likelihood
# (strong evidence: a likelihood ratio above e^5).
_LOG_MIN_POINTS = 8
_LOG_MARGIN = 5.0


# A series on a grid (prices in ticks, rounded readings): when at most this share of the
# warm-up's values are distinct, its step is the smallest gap between them, and a run's noise
# variance is not taken below GRID_FLOOR steps squared (a flat run is not a variance collapse).
# Only a fine grid, its level at least GRID_MIN_LEVEL steps from zero: 0/1 flags and small
# counts sit on a grid too, but there one step is the signal, not its rounding.
GRID_MAX_DISTINCT = 0.5
GRID_FLOOR = 4.0
GRID_MIN_LEVEL = 10.0


def _grid_values(values: np.ndarray) -> np.ndarray | None:
    """The distinct values, when they are few (GRID_MAX_DISTINCT) but two at least, else None.
    A constant warm-up shows no grid: what follows may be on any scale."""
    x = np.unique(values)
    return x if 2 <= x.shape[0] <= GRID_MAX_DISTINCT * len(values) else None


def grid_step(values: np.ndarray) -> float:
    """The grid the values sit on (the smallest gap between distinct values) when few of them
    are distinct and their level is many steps from zero, else 0."""
    values = np.asarray(values, dtype=np.float64)
    x = _grid_values(values)
    if x is None:
        return 0.0
    step = float(np.min(np.diff(x)))
    return step if float(np.median(np.abs(values))) >= GRID_MIN_LEVEL * step else 0.0


def coarse_step(values: np.ndarray) -> float:
    """The step of a coarse grid the values sit on: 1 for integers (counts, flags), else the
    smallest gap between them; 0 if none (zeros, then readings of 0.05, are no grid)."""
    x = _grid_values(np.asarray(values, dtype=np.float64))
    if x is None:
        return 0.0
    return 1.0 if np.all(x == np.round(x)) else float(np.min(np.diff(x)))


def noise_floor(values: np.ndarray, log_scale: bool, coarse: bool = True) -> float:
    """The least noise variance a run of a series on a grid may settle on: GRID_FLOOR steps
    squared on a fine grid, with `coarse` a coarse grid's rounding noise (a twelfth of its step
    squared: a count's single 1 among zeros is then an outlier, not a change); relative to the
    level on the log scale."""
    fine = grid_step(values)
    step = fine or (coarse_step(values) if coarse else 0.0)
    if log_scale:
        step /= float(np.median(np.abs(values)))
    # capped as the prior's noise is (sigma <= 1e90): values near 1e100 on a coarse grid
    return min((GRID_FLOOR if fine else 1.0 / 12.0) * step * step, 1e180)


def _mad(values: np.ndarray) -> float:
    return 1.4826 * float(np.median(np.abs(values - np.median(values))))


def level_noise_from_warmup(values: np.ndarray) -> float:
    """The level's random-walk step variance, in noise variances, that the points suggest."""
    x = np.asarray(values, dtype=np.float64)
    if x.shape[0] < _Q_MIN_POINTS:
        return 0.0
    m1, mk = _mad(np.diff(x)), _mad(x[_Q_LAG:] - x[:-_Q_LAG])
    if not m1 > 0:
        return 0.0
    # Local level model: var of k-step differences = (k q + 2) sigma^2, of 1-step ones (q + 2).
    r2 = (mk / m1) ** 2
    if r2 <= _Q_MIN_RATIO:
        return 0.0
    if r2 >= _Q_LAG:
        return MAX_LEVEL_NOISE
    return min(MAX_LEVEL_NOISE, 2.0 * (r2 - 1.0) / (_Q_LAG - r2))


def slope_noise_from_warmup(values: np.ndarray, sigma: float) -> float:
    """The slope's random-walk step variance, in noise variances, that the warm-up's curvature
    suggests (0 when it shows none)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[0]
    k = min(_W_LAG, n // 6)
    if n < _W_MIN_POINTS or not sigma > 0:
        return 0.0
    d2 = x[2 * k :] - 2.0 * x[k:-k] + x[: -2 * k]
    med = float(np.median(d2))
    se = 1.2533 * _mad(d2) / math.sqrt(d2.shape[0])  # the median's standard error
    if not abs(med) > _W_Z * se:
        return 0.0
    return min(MAX_SLOPE_NOISE, _W_HORIZON * (med / (k * k) / sigma) ** 2)


def _drifts(d: np.ndarray, spread: float, z: float) -> bool:
    """Whether the median of the steps d is z standard errors from zero (their spread given)."""
    return abs(float(np.median(d))) > z * 1.2533 * spread / math.sqrt(d.shape[0])


def clear_slope(values: np.ndarray) -> bool:
    """Whether the median step of the values is SHORT_SLOPE_Z standard errors from zero."""
    d = np.diff(np.asarray(values, dtype=np.float64))
    return d.shape[0] >= 2 and _drifts(d, _mad(d), SHORT_SLOPE_Z)


def log_scale_from_warmup(values: np.ndarray) -> bool:
    """Whether a positive warm-up is better read on the log scale (noise and growth in proportion
    to the level): Box-Cox's profile likelihood, lambda = 0 against lambda = 1, with the noise
    of each from second differences (which a local trend does not touch)."""
    x = np.asarray(values, dtype=np.float64)
    if x.shape[0] < _LOG_MIN_POINTS or not (x > 0).all():
        return False
    y = np.log(x)
    ms_lin, ms_log = (float(np.mean(np.diff(v, 2) ** 2)) for v in (x, y))
    if not (ms_lin > 0 and ms_log > 0):
        return False
    # log-likelihood gain of lambda = 0 (its Jacobian, -sum log x, included)
    gain = 0.5 * x.shape[0] * (math.log(ms_lin) - math.log(ms_log)) - float(y.sum())
    return gain > _LOG_MARGIN


def _moving_average(x: np.ndarray, p: int) -> tuple[np.ndarray, int]:
    """Centred moving average over one period (2 x p for an even p), which a season of period p
    does not touch, with the index of the point its first value is centred on."""
    w = np.ones(p + 1 - p % 2)
    if p % 2 == 0:
        w[0] = w[-1] = 0.5
    return np.convolve(x, w / p, mode="valid"), (w.shape[0] - 1) // 2


def _season_gain(x: np.ndarray, p: int, ratio: bool = False) -> tuple[float, np.ndarray]:
    """Log-likelihood gain, less BIC's price for p - 1 more parameters, of a fixed seasonal
    profile of period p (the per-phase medians of what a moving average leaves) over none; with
    ratio, of a profile of ratios to the moving average (a season in proportion to the level)."""
    ma, off = _moving_average(x, p)
    base = x[off : off + ma.shape[0]]
    phase = (np.arange(base.shape[0]) + off) % p
    r = base / ma - 1.0 if ratio else base - ma
    profile = np.array([np.median(r[phase == j]) for j in range(p)])
    profile -= profile.mean()
    fit = ma * (1.0 + profile[phase]) if ratio else ma + profile[phase]
    rss0, rss1 = float(np.sum((base - ma) ** 2)), float(np.sum((base - fit) ** 2))
    if not (rss0 > 0 and rss1 > 0):
        return 0.0, profile
    m = base.shape[0]
    return 0.5 * m * math.log(rss0 / rss1) - 0.5 * (p - 1) * math.log(m), profile


def season_from_warmup(values: np.ndarray, ratio: bool = False) -> np.ndarray | None:
    """The seasonal profile (one value per phase t mod p, mean 0) the points show, or None: the
    period of 4..24 points (at least four cycles seen) whose profile gains most, if by a clear
    margin. With ratio, a profile of ratios to the level (positive points only)."""
    return _best_season(np.asarray(values, dtype=np.float64), ratio)[0]


def _best_season(x: np.ndarray, ratio: bool) -> tuple[np.ndarray | None, float]:
    """season_from_warmup's profile and its gain over none (_season_gain); (None, -inf) when
    no period gains by SEASON_MARGIN."""
    if ratio and not (x > 0).all():
        return None, -np.inf
    best, best_gain = None, SEASON_MARGIN
    for p in range(_S_MIN_PERIOD, min(_S_MAX_PERIOD, x.shape[0] // _S_MIN_CYCLES) + 1):
        gain, profile = _season_gain(x, p, ratio)
        if gain > best_gain:
            best, best_gain = profile, gain
    return best, (best_gain if best is not None else -np.inf)


def _proportional(values: np.ndarray) -> bool:
    """Whether the points' season is better read as ratios to the level than as a fixed
    profile, by RATIO_MARGIN."""
    x = np.asarray(values, dtype=np.float64)
    return _best_season(x, True)[1] > _best_season(x, False)[1] + RATIO_MARGIN


def sawtooth(values: np.ndarray) -> bool:
    """Whether the points are a sawtooth in their steps: a clear drift (the median step
    SAW_DRIFT_Z standard errors from zero) and at least SAW_MIN_RESETS resets, steps against
    the drift beyond SAW_RESET_Z of the steps' spread (MAD), and no such step with the drift."""
    d = np.diff(np.asarray(values, dtype=np.float64))
    if d.shape[0] < 2:
        return False
    centre = float(np.median(d))
    # Equal steps have no spread: a zigzag's would be 0 and its every fall a "reset".
    spread = max(_mad(d), SAW_MIN_SPREAD * abs(centre))
    if not _drifts(d, spread, SAW_DRIFT_Z):
        return False
    far = np.abs(d - centre) > SAW_RESET_Z * spread
    against = far & (d * centre < 0)
    resets = int(against.sum())
    # a tooth is several steps long: resets at most every third step (a zigzag resets at every
    # other one)
    return SAW_MIN_RESETS <= resets <= d.shape[0] / 3 and not (far & ~against).any()


def _steady(x: np.ndarray, profile: np.ndarray) -> bool:
    """Whether the season keeps its size over the points: what a moving average leaves,
    projected on the profile, is within STEADY_SWING times as large in either half as in the
    other (a swing dying away or growing is not a fixed season)."""
    p = profile.shape[0]
    ma, off = _moving_average(x, p)
    r = x[off : off + ma.shape[0]] - ma
    s = profile[(np.arange(r.shape[0]) + off) % p]
    h = r.shape[0] // 2
    first, last = (float(r[a] @ s[a]) / float(s[a] @ s[a]) for a in (slice(h), slice(h, None)))
    return min(first, last) > 0 and max(first, last) <= STEADY_SWING * min(first, last)


def prior_from_warmup(
    values: np.ndarray, trend: bool = True, var_floor: float = 0.0
) -> NormalGammaPrior:
    """Scale a Normal-Gamma prior to the data: robust level and slope (the median step; none
    without trend), robust noise from first differences (at least var_floor), and the level and
    slope noise the points suggest."""
    x = np.asarray(values, dtype=np.float64)
    slope0 = float(np.median(np.diff(x))) if trend and x.shape[0] > 1 else 0.0
    mu0 = float(np.median(x - slope0 * np.arange(x.shape[0])))  # the level at the first point
    # Values near the limit (1e100) alternating with 0 can put the line's level past it.
    slope0, mu0 = (min(max(v, -_PRIOR_MAX), _PRIOR_MAX) for v in (slope0, mu0))
    q = level_noise_from_warmup(x) if trend else 0.0
    # MAD of first differences ignores level shifts and trends in the warm-up; it measures
    # (2 + q) noise variances.
    sigma = _mad(np.diff(x)) / math.sqrt(2.0 + q) if x.shape[0] > 1 else 0.0
    if not sigma > 0:
        sigma = float(np.std(x))
    if not sigma > 0:
        sigma = 1e-6 * max(abs(mu0), 1.0)  # constant warm-up: any later movement is a change
    sigma = max(sigma, math.sqrt(var_floor))
    sigma = min(max(sigma, 1e-90), 1e90)  # keep beta0 inside the prior's supported range
    return NormalGammaPrior(
        mu0=mu0,
        kappa0=DEFAULT_KAPPA0,
        alpha0=DEFAULT_ALPHA0,
        beta0=DEFAULT_ALPHA0 * DEFAULT_VAR_SCALE * sigma * sigma,
        slope_var=DEFAULT_SLOPE_VAR if trend else 0.0,
        level_noise=q,
        slope_prob=DEFAULT_SLOPE_PROB,
        slope_noise=slope_noise_from_warmup(x, sigma) if trend else 0.0,
        slope0=slope0,
        var_floor=var_floor,
    )


# Pruning defaults: F1 on the tuned split of bench/bench_cp_quality.py and speed (bench/); each
# step adds two young hypotheses (flat and sloped), so 10 protected steps keep 20 of them.
DEFAULT_PRUNE_THRESHOLD = 1e-3
DEFAULT_MAX_RUN_LENGTHS = 300
DEFAULT_PROTECT_RECENT = 10
# Outliers: each point is, with this probability, drawn from the run's predictive widened
# this many times; such a point costs a run little and leaves its statistics untouched, so a
# single spike is neither a segment nor two changepoints.
DEFAULT_OUTLIER_PROB = 0.02
DEFAULT_OUTLIER_SCALE = 10.0
# A run counts as still alive while its posterior is at least this share of the best run's.
LIVE_THRESHOLD = 1e-2


@dataclass(slots=True)
class BOCPDOutput:
    """Per-point results for points start, start+1, ... (warm-up points arrive when flushed).

    cp_prob[i] = P(r_t < cp_window | x_0..x_t): the posterior probability that the segment
    holding point t started within its last cp_window points (run lengths that young are never
    pruned while cp_window <= protect_recent). map_run_length[i] is the most probable r_t, so
    the most probable start of the current segment is t - map_run_length[i].
    oldest_run_length[i] is the longest r_t whose posterior is at least LIVE_THRESHOLD times
    the most probable one's: no segment start before t - oldest_run_length[i] is still likely.
    """

    start: int
    cp_prob: np.ndarray
    map_run_length: np.ndarray
    oldest_run_length: np.ndarray

    def __len__(self) -> int:
        return int(self.cp_prob.shape[0])


def _as_series(xs: Any) -> np.ndarray:
    try:
        arr = np.asarray(xs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInput("xs", f"must be an array of numbers ({exc})") from None
    if arr.ndim != 1:
        raise InvalidInput("xs", f"must be one-dimensional, got {arr.ndim} dimensions")
    if arr.size and not (np.abs(arr) < MAX_ABS_VALUE).all():
        bad = int(np.flatnonzero(~(np.abs(arr) < MAX_ABS_VALUE))[0])
        raise InvalidInput("xs", f"value at position {bad} is not a finite number below 1e100")
    # One compiled kernel for every call: a read-only array would get a specialisation of its own.
    return arr.copy() if not (arr.flags.c_contiguous and arr.flags.writeable) else arr


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise InvalidInput(name, f"must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInput(name, f"must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidInput(name, f"must be finite, got {value!r}")
    return float(value)


def _check_prob(name: str, value: Any, top: float = 1.0) -> float:
    value = _check_real(name, value)
    if not 0 <= value < top:
        raise InvalidInput(name, f"must be in [0, {top:g}), got {value}")
    return value


class OnlineBOCPD:
    """Streaming BOCPD with constant hazard, Normal-Gamma prior and a bounded run-length set.

    Without an explicit prior the first `warmup` points are buffered to scale one to the data
    (prior_from_warmup); their results are returned by the call that completes the warm-up (or
    by flush(), which ends the warm-up early for a short stream), so over all calls exactly one
    result per pushed point comes back. Pruning after each point drops hypotheses whose
    posterior is below prune_threshold times the most probable one (except those younger than
    protect_recent points, which may still be gathering evidence), then the least probable
    while more than max_run_lengths remain (a hypothesis is a run length, flat or sloped).

    The segment model, beyond Adams & MacKay's constant-mean Gaussian: with trend (default) a
    segment is flat or, as likely, has a slope (slope_prob); when the warm-up shows a wandering
    level (a random walk) its level wanders (level_noise), when it shows curvature its slope
    does (slope_noise); each run is a Kalman filter whose covariance is in units of the noise
    variance, which keeps its conjugate inverse-gamma posterior. Points may be outliers
    (outlier_prob, outlier_scale: see DEFAULT_OUTLIER_PROB). A positive series whose warm-up
    looks multiplicative is read on the log scale (log_scale, log_scale_from_warmup). A series
    on a grid has a noise floor (noise_floor; a coarse grid's only with coarse_floor), a
    sawtooth warm-up takes no season (sawtooth_check), and where the warm-up shows exact repeats
    rare by chance an exact repeat may be a gap, no reading (repeat_gaps,
    graphmem.series.detect.gaps); all three are on unless a state stored before them is loaded.
    With a prior of
    slope_var = level_noise = 0, outlier_prob = 0 and track_level=False this is exactly plain
    BOCPD (tests/test_bocpd.py checks it against a plain reference, and the default model
    against an exact, unpruned reference of its own).

    Level tracking (track_level, on by default): a run that opens at x_{t+1} takes as its prior
    level (and slope) where the most probable run after x_t goes next, instead of the fixed mu0:
    once a series has drifted far from its first points, a fresh run centred on the old mu0
    would be penalised for the whole drift, so later changes would be missed.
    """

    def __init__(
        self,
        hazard_lambda: float = 250.0,
        *,
        prior: NormalGammaPrior | None = None,
        warmup: int = 64,
        prune_threshold: float = DEFAULT_PRUNE_THRESHOLD,
        max_run_lengths: int = DEFAULT_MAX_RUN_LENGTHS,
        protect_recent: int = DEFAULT_PROTECT_RECENT,
        cp_window: int = 5,
        track_level: bool = True,
        trend: bool = True,
        outlier_prob: float = DEFAULT_OUTLIER_PROB,
        outlier_scale: float = DEFAULT_OUTLIER_SCALE,
        log_scale: bool = True,
        season: bool = False,
        coarse_floor: bool = True,
        sawtooth_check: bool = True,
        repeat_gaps: bool = True,
    ) -> None:
        self.hazard_lambda = _check_real("hazard_lambda", hazard_lambda)
        if self.hazard_lambda <= 1:
            raise InvalidInput("hazard_lambda", f"must be > 1, got {hazard_lambda}")
        self.prune_threshold = _check_prob("prune_threshold", prune_threshold)
        self.max_run_lengths = _check_int("max_run_lengths", max_run_lengths, 1)
        self.warmup = _check_int("warmup", warmup, 2)
        self.protect_recent = _check_int("protect_recent", protect_recent, 0)
        self.cp_window = _check_int("cp_window", cp_window, 1)
        flags = (
            ("track_level", track_level),
            ("trend", trend),
            ("log_scale", log_scale),
            ("season", season),
            ("coarse_floor", coarse_floor),
            ("sawtooth_check", sawtooth_check),
            ("repeat_gaps", repeat_gaps),
        )
        for name, flag in flags:
            if not isinstance(flag, bool):
                raise InvalidInput(name, f"must be a bool, got {flag!r}")
        self.track_level = track_level
        self.trend = trend
        self.log_scale = log_scale
        self.season = season
        # round 10's warm-up rules (a coarse grid's rounding floor, no season for a sawtooth);
        # a state stored before them has them off, so its series goes on as it was
        self.coarse_floor = coarse_floor
        self.sawtooth_check = sawtooth_check
        # round 11: an exact repeat is a gap where the warm-up shows repeats rare (off in a
        # state stored before; graphmem.series.detect.gaps)
        self.repeat_gaps = repeat_gaps
        self._gaps = False  # decided at the warm-up's end
        self._prev = math.nan  # with gaps, the last value processed (raw): the next may repeat it
        self._log_floor: float | None = None  # on the log scale: log(max(x, floor)) is fed
        self._season: np.ndarray | None = None  # a seasonal profile, removed before the kernel
        self.outlier_prob = _check_prob("outlier_prob", outlier_prob, 0.5)
        self.outlier_scale = _check_real("outlier_scale", outlier_scale)
        if not 1 <= self.outlier_scale <= 1e6:
            raise InvalidInput("outlier_scale", f"must be in [1, 1e6], got {outlier_scale}")
        if prior is not None and not isinstance(prior, NormalGammaPrior):
            raise InvalidInput("prior", "must be a NormalGammaPrior or None")
        self._explicit_prior = prior is not None
        self._prior: NormalGammaPrior | None = None
        self._buffer: list[float] = []
        self._n_pushed = 0
        cap = self.max_run_lengths
        # Workspace: one column per hypothesis slot (capacity cap + 2 fresh runs), parameters in
        # the last row.
        self._hyp = np.zeros((_NROWS + 1, max(cap + 2, _NPAR)), dtype=np.float64)
        self._par = self._hyp[_PAR]
        self._par[[_CAP, _WIN, _PROT, _ADAPT]] = [
            cap,
            self.cp_window,
            self.protect_recent,
            track_level,
        ]
        self._t = 0  # points processed, mirrored here to spare the single-point path a read
        self._one = np.zeros(1, dtype=np.float64)
        self._rep1 = np.zeros(1, dtype=np.bool_)
        self._no_rep = np.zeros(1024, dtype=np.bool_)
        if prior is not None:
            self._set_prior(prior)

    def _set_prior(self, prior: NormalGammaPrior) -> None:
        self._prior = prior
        h = 1.0 / self.hazard_lambda
        par = self._par
        par[_MU0] = prior.mu0
        par[_LEVEL] = prior.mu0
        par[_SLOPE] = prior.slope0
        par[_KAPPA0] = prior.kappa0
        par[_ALPHA0] = prior.alpha0
        par[_BETA0] = prior.beta0
        par[_D0] = _d0(prior.alpha0)
        par[_PS] = prior.slope_var
        par[_QN] = prior.level_noise
        par[_QS] = prior.slope_noise
        par[_VFLOOR] = prior.var_floor
        # A fresh segment has a slope with probability slope_prob, else it is flat.
        p = prior.slope_prob if prior.slope_var > 0 else 0.0
        par[_LOGHS] = math.log(h * p) if p > 0 else _NEG_BIG
        par[_LOGHF] = math.log(h * (1.0 - p)) if p < 1 else _NEG_BIG
        par[_LOG1MH] = math.log1p(-h)
        par[_LOGTHR] = math.log(self.prune_threshold) if self.prune_threshold > 0 else _NEG_BIG
        eps = self.outlier_prob
        par[_LOGEPS] = math.log(eps) if eps > 0 else _NEG_BIG
        par[_LOG1MEPS] = math.log1p(-eps)
        par[_LOGK2] = 2.0 * math.log(self.outlier_scale)
        par[_LOGLIVE] = math.log(LIVE_THRESHOLD)

    @property
    def prior(self) -> NormalGammaPrior | None:
        """The prior in use, or None while the warm-up buffer is still filling."""
        return self._prior

    @property
    def n_seen(self) -> int:
        """Points pushed so far, including any still in the warm-up buffer."""
        return self._n_pushed

    @property
    def n_processed(self) -> int:
        """Points whose results have been returned."""
        return self._t

    def _run(self, *parts: np.ndarray) -> BOCPDOutput:
        start = self._t
        n = sum(p.shape[0] for p in parts)
        cp = np.empty(n, dtype=np.float64)
        rl = np.empty(n, dtype=np.int64)
        old = np.empty(n, dtype=np.int64)
        pos = 0
        for part in parts:
            m = part.shape[0]
            if m:
                # Consecutive calls continue exactly where the last stopped, so parts need no copy.
                end = pos + m
                xs = self.scaled(part, start + pos)
                _kernel(xs, self._repeats(part), self._hyp, cp[pos:end], rl[pos:end], old[pos:end])
                pos = end
        self._t += n
        return BOCPDOutput(start, cp, rl, old)

    def _set_gaps(self, gaps: bool) -> None:
        self._gaps = gaps
        self._par[_GAPZ2] = GAP_Z * GAP_Z if gaps else 0.0  # 0: the kernel tells no gaps

    def _repeats(self, xs: np.ndarray) -> np.ndarray:
        """Which of xs (raw, the points after the last processed) repeat the value before, in
        a series whose repeats may be gaps (none otherwise; the kernel tells which are)."""
        n = xs.shape[0]
        if self._gaps:
            x = float(xs[-1])
            if n == 1:  # a stream pushed point by point, without new arrays
                rep = self._rep1
                rep[0] = x == self._prev
            else:
                rep = repeats(xs, self._prev)
            self._prev = x
            return rep
        if n <= self._no_rep.shape[0]:
            return self._no_rep[:n]  # only read by the kernel: one buffer serves small calls
        return np.zeros(n, dtype=np.bool_)

    def _end_warmup(self, rest: np.ndarray) -> BOCPDOutput:
        raw = np.array(self._buffer, dtype=np.float64)
        self._buffer = []
        self._set_gaps(self.repeat_gaps and self.trend and repeats_are_gaps(raw))
        # The warm-up as read: its repeats on the line between the values around them, where
        # they may be gaps (its grid from the values that are not repeats).
        head = fill_gaps(raw) if self._gaps else raw
        if self.log_scale and self.trend and log_scale_from_warmup(head):
            # A later value at or below 0 is read as a fall to a thousandth of the lowest seen.
            self._log_floor = max(float(head.min()) * 1e-3, _TINY)
        if self.season and self.trend:
            read = self.scaled(head, 0)
            self._season = season_from_warmup(read)
            if self._season is not None and self._log_floor is None and _proportional(head):
                # A season in proportion to a level that moves (sales, passengers) read as a
                # fixed profile goes stale as the level grows: none is removed.
                self._season = None
            if self._season is not None and not _steady(read, self._season):
                self._season = None
            if self._season is not None and self.sawtooth_check and sawtooth(read):
                self._season = None
        log = self._log_floor is not None
        kept = raw[~repeats(raw)] if self._gaps else raw
        floor = noise_floor(kept, log, self.coarse_floor) if self.trend else 0.0
        read = self.scaled(head, 0)
        prior = prior_from_warmup(read, self.trend, floor)
        short = len(raw) < self.warmup  # a short stream, closed
        if short and prior.slope_var > 0 and clear_slope(read):
            bend = max(prior.slope_noise, SHORT_SLOPE_NOISE)
            prior = dataclasses.replace(prior, slope_noise=bend)
        self._set_prior(prior)
        return self._run(raw, rest)

    def scaled(self, xs: np.ndarray, start: int) -> np.ndarray:
        """Points start, start + 1, ... as the kernel reads them: on the log scale if so, less
        the season if there is one."""
        floor = self._log_floor
        ys = xs if floor is None else np.log(np.maximum(xs, floor))
        season = self._season
        if season is None:
            return ys
        if xs.shape[0] == 1:  # a stream pushed point by point, without index arrays
            return ys - season[start % season.shape[0]]
        return ys - season[(np.arange(xs.shape[0]) + start) % season.shape[0]]

    def update_batch(self, xs: np.ndarray) -> BOCPDOutput:
        """Feed finite values; returns results for every point processed by this call."""
        arr = _as_series(xs)
        self._n_pushed += arr.shape[0]
        if self._prior is None:
            need = self.warmup - len(self._buffer)
            self._buffer.extend(arr[:need].tolist())
            if len(self._buffer) < self.warmup:
                return self._run(arr[:0])
            # The prior comes from the first `warmup` points whatever the batching.
            return self._end_warmup(arr[need:])
        return self._run(arr)

    def flush(self) -> BOCPDOutput:
        """End a warm-up still filling: the prior comes from the points buffered so far (at
        least 2; fewer stay buffered), whose results this returns. Otherwise returns nothing."""
        if self._prior is not None or len(self._buffer) < 2:
            return self._run(np.empty(0))
        return self._end_warmup(np.empty(0))

    def update(self, x: float) -> BOCPDOutput:
        """Feed one value; same kernel and results as update_batch, with less overhead."""
        # Plain floats (np.float64 included) take the fast path; anything else is checked as xs.
        if self._prior is None or not isinstance(x, float):
            return self.update_batch(np.array([x], dtype=np.float64))
        if not -MAX_ABS_VALUE < x < MAX_ABS_VALUE:
            raise InvalidInput("x", f"{x} is not a finite number below 1e100")
        self._n_pushed += 1
        rep = self._rep1
        if self._gaps:
            rep[0] = x == self._prev
            self._prev = x
        one = self._one
        one[0] = x if self._log_floor is None else math.log(max(x, self._log_floor))
        if self._season is not None:
            one[0] -= self._season[self._t % self._season.shape[0]]
        cp = np.empty(1)
        rl = np.empty(1, dtype=np.int64)
        old = np.empty(1, dtype=np.int64)
        _kernel(one, rep, self._hyp, cp, rl, old)
        self._t += 1
        return BOCPDOutput(self._t - 1, cp, rl, old)

    def run_length_posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Current run lengths r_t (ascending) with their posterior, normalised over those kept
        (a run's flat and sloped hypotheses summed)."""
        k = int(self._par[_K])
        rl = self._hyp[_AGE, :k].astype(np.int64) - 1
        prob = np.exp(self._hyp[_LP, :k] + self._par[_LOGNORM])
        lengths, at = np.unique(rl, return_inverse=True)
        return lengths, np.bincount(at, weights=prob, minlength=lengths.shape[0])

    def _config(self) -> dict[str, Any]:
        return {
            "hazard_lambda": self.hazard_lambda,
            "warmup": self.warmup,
            "prune_threshold": self.prune_threshold,
            "max_run_lengths": self.max_run_lengths,
            "protect_recent": self.protect_recent,
            "cp_window": self.cp_window,
            "track_level": self.track_level,
            "trend": self.trend,
            "outlier_prob": self.outlier_prob,
            "outlier_scale": self.outlier_scale,
            "log_scale": self.log_scale,
            "season": self.season,
            "coarse_floor": self.coarse_floor,
            "sawtooth_check": self.sawtooth_check,
            "repeat_gaps": self.repeat_gaps,
        }

    def state(self) -> dict[str, Any]:
        """Everything needed to resume exactly, as JSON-ready plain values."""
        k = int(self._par[_K])
        prior = self._prior
        return {
            "version": 2,
            "config": self._config(),
            "prior": None if prior is None else [getattr(prior, f) for f in _PRIOR_FIELDS],
            "explicit_prior": self._explicit_prior,
            "buffer": list(self._buffer),
            "n_pushed": self._n_pushed,
            "n_processed": self._t,
            "lognorm": float(self._par[_LOGNORM]),
            "level": float(self._par[_LEVEL]),
            "slope": float(self._par[_SLOPE]),
            "log_floor": self._log_floor,
            "season": None if self._season is None else self._season.tolist(),
            "gaps": self._gaps,
            "prev": None if math.isnan(self._prev) else self._prev,
            "carry": [float(self._par[i]) for i in (_CARRY, _PLEV, _PVAR)],
            "hypotheses": {
                name: (
                    self._hyp[row, :k].astype(np.int64) if row == _AGE else self._hyp[row, :k]
                ).tolist()
                for name, row in _STATE_ROWS.items()
            },
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> OnlineBOCPD:
        """Rebuild a detector from state(); it continues bit-identically."""
        try:
            if state.get("version") == 1:
                state = _upgrade_state(state)
            if state.get("version") != 2:
                raise InvalidInput("state.version", f"unsupported {state.get('version')!r}")
            raw_prior = state["prior"]
            prior = None if raw_prior is None else NormalGammaPrior(*map(float, raw_prior))
            explicit = bool(state["explicit_prior"])
            config = {**_BEFORE_THE_RULES, **state["config"]}
            det = cls(prior=prior if explicit else None, **config)
            if prior is not None and not explicit:
                det._set_prior(prior)
            det._buffer = [float(v) for v in state["buffer"]]
            det._n_pushed = int(state["n_pushed"])
            cols = {name: state["hypotheses"][name] for name in _STATE_ROWS}
            k = len(cols["age"])
            if any(len(c) != k for c in cols.values()) or k > det.max_run_lengths:
                raise InvalidInput("state.hypotheses", "arrays are inconsistent")
            for name, row in _STATE_ROWS.items():
                det._hyp[row, :k] = np.asarray(cols[name], dtype=np.float64)
            det._par[_K] = k
            det._t = int(state["n_processed"])
            det._par[_T] = det._t
            det._par[_LOGNORM] = float(state["lognorm"])
            det._par[_LEVEL] = float(state["level"])
            det._par[_SLOPE] = float(state["slope"])
            floor = state.get("log_floor")
            det._log_floor = None if floor is None else float(floor)
            season = state.get("season")
            det._season = None if season is None else np.asarray(season, dtype=np.float64)
            det._set_gaps(bool(state.get("gaps", False)))  # stored since round 11
            prev = state.get("prev")
            det._prev = math.nan if prev is None else float(prev)
            det._par[[_CARRY, _PLEV, _PVAR]] = state.get("carry", [0.0, 0.0, 0.0])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput("state", f"malformed detector state ({exc})") from exc
        return det


# warm-up rules a state stored before them lacks: off, as they were (rounds 10 and 11)
_BEFORE_THE_RULES = {"coarse_floor": False, "sawtooth_check": False, "repeat_gaps": False}


def _upgrade_state(state: dict[str, Any]) -> dict[str, Any]:
    """A version-1 state (constant-mean model, stored by earlier releases) as version 2: the
    same model (no slope, no level noise, no outliers), so such a series goes on as it was."""
    config = dict(state["config"], trend=False, outlier_prob=0.0, outlier_scale=10.0)
    config["log_scale"] = False
    config["season"] = False
    hyp = state["hypotheses"]
    kappa0 = float(state["prior"][1]) if state["prior"] else 1.0
    alpha0 = float(state["prior"][2]) if state["prior"] else 1.0
    n = [float(v) for v in hyp["n"]]
    return {
        **state,
        "version": 2,
        "config": config,
        "prior": None if state["prior"] is None else [*state["prior"], 0.0, 0.0],
        "slope": 0.0,
        "hypotheses": {
            "log_prob": hyp["log_prob"],
            "level": hyp["mu"],
            "slope": [0.0] * len(n),
            "p00": [1.0 / (kappa0 + v) for v in n],
            "p01": [0.0] * len(n),
            "p11": [0.0] * len(n),
            "alpha": [alpha0 + 0.5 * v for v in n],
            "beta": hyp["beta"],
            "d": [math.lgamma(alpha0 + 0.5 * v + 0.5) - math.lgamma(alpha0 + 0.5 * v) for v in n],
            "age": [int(v) for v in n],
        },
    }
