"""Online Bayesian changepoint detection (Adams & MacKay 2007), Gaussian with unknown mean/variance.

Run length convention: after point x_t, r_t is the number of points of the current segment that
came before x_t, so the segment holding x_t started at index t - r_t (r_t = 0: x_t starts one).
Hypotheses are kept in fixed-capacity arrays and pruned, so time and memory per point are bounded.
By default a fresh run's prior mean follows the current level (OnlineBOCPD, "Level tracking").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from graphmem.errors import InvalidInput

# Rows of the hypothesis matrix: stored state first, per-step scratch after.
_LP, _MU, _BETA, _Q, _N, _D, _W, _V, _BN, _LBN = range(10)
_NROWS = 10
_N_STORED = 7  # rows that make up the state; the rest is scratch
_STATE_ROWS = {"log_prob": _LP, "mu": _MU, "beta": _BETA, "q": _Q, "n": _N, "d": _D, "w": _W}
# Slots of the parameter row, the workspace's last row (one array keeps the call overhead low):
# prior, cached logs, running normaliser and level, then hypothesis count, points processed,
# capacity, cp window, protected age and the track_level flag (integers stored exactly).
(_MU0, _KAPPA0, _ALPHA0, _BETA0, _Q0, _D0, _LOGH, _LOG1MH, _LOGTHR, _LOGNORM, _LEVEL) = range(11)
_K, _T, _CAP, _WIN, _PROT, _ADAPT = range(11, 17)
_NPAR = 17
_PAR = _NROWS

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
MAX_ABS_VALUE = 1e100  # squares of larger values, summed over long runs, could overflow
# Sentinels of the integer-key reductions: below every float's key; above every key of a value <= 0.
_KEY_LOW = -9218868437227405313  # the key of -inf
_KEY_HIGH = 2**62
_NEG_BIG = -1.0e300  # stands in for log(0) because the kernel is compiled without inf support
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


def _d0(alpha0: float, kappa0: float) -> float:
    """D(0), the start of the D(n) recurrence that the kernel carries per hypothesis."""
    g = math.lgamma(alpha0 + 0.5) - math.lgamma(alpha0)
    return g + 0.5 * math.log(kappa0 / (kappa0 + 1.0))


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
def _kernel(xs, hyp, out_cp, out_map):  # pragma: no cover - compiled
    """Run the truncated BOCPD recursion over xs, updating the workspace hyp in place.

    Per hypothesis: n points seen, posterior mean mu and rate beta (kappa = kappa0 + n and
    alpha = alpha0 + n/2 follow from n), w = 1/(kappa + 1), d = D(n) and q, the part of the
    log predictive that does not depend on the next point: q = D(n) - log(2 pi)/2 + alpha log beta,
    so log p(x) = q - (alpha + 1/2) log(beta'), beta' being beta updated with x.
    """
    par = hyp[_PAR]
    mu0 = par[_LEVEL]
    adapt = par[_ADAPT] != 0.0
    kappa0 = par[_KAPPA0]
    alpha0 = par[_ALPHA0]
    beta0 = par[_BETA0]
    q0 = par[_Q0]
    d0 = par[_D0]
    logh = par[_LOGH]
    log1mh = par[_LOG1MH]
    logthr = par[_LOGTHR]
    cap = np.int64(par[_CAP])
    win = par[_WIN]
    prot = par[_PROT]
    k = np.int64(par[_K])
    lognorm = par[_LOGNORM]
    lp = hyp[_LP]
    mu = hyp[_MU]
    beta = hyp[_BETA]
    q = hyp[_Q]
    nn = hyp[_N]
    dd = hyp[_D]
    w = hyp[_W]
    v = hyp[_V]
    bn = hyp[_BN]
    lbn = hyp[_LBN]
    w0 = 1.0 / (kappa0 + 1.0)
    for j in range(xs.shape[0]):
        x = xs[j]
        # Pass 1: joint log mass of every grown hypothesis, and the best one.
        shift = lognorm + log1mh
        mkey = np.int64(_KEY_LOW)
        for i in range(k):
            r = x - mu[i]
            bi = beta[i] + 0.5 * (kappa0 + nn[i]) * w[i] * r * r
            lbi = _flog(bi)
            vi = lp[i] + shift + q[i] - (alpha0 + 0.5 * nn[i] + 0.5) * lbi
            v[i] = vi
            bn[i] = bi
            lbn[i] = lbi
            ki = _key(vi)
            mkey = ki if ki > mkey else mkey
        # The fresh run (x_t opens a segment) enters at slot k with the prior predictive.
        r = x - mu0
        bi = beta0 + 0.5 * kappa0 * w0 * r * r
        lbi = _flog(bi)
        vi = logh + q0 - (alpha0 + 0.5) * lbi
        v[k] = vi
        bn[k] = bi
        lbn[k] = lbi
        nn[k] = 0.0
        mu[k] = mu0
        dd[k] = d0
        w[k] = w0
        ki = _key(vi)
        mkey = ki if ki > mkey else mkey
        m = _unkey(mkey)
        k += 1
        # Pass 2: normalise against the best, grow the sufficient statistics, sum the masses.
        # Integer keys and selects keep every reduction in a form LLVM can vectorise.
        s_all = 0.0
        s_drop = 0.0
        s_recent = 0.0
        n_drop = 0
        map_i = np.int64(-1)
        min_key = _key(0.0)
        for i in range(k):
            ni = nn[i]
            li = v[i] - m
            e = _fexp(li)
            keep = (li >= logthr) | (ni < prot)
            s_all += e
            s_drop += 0.0 if keep else e
            n_drop += 0 if keep else 1
            s_recent += e if ((ni < win) & keep) else 0.0
            cand = i if li == 0.0 else np.int64(-1)
            map_i = cand if cand > map_i else map_i
            ki = _key(li) if keep else np.int64(_KEY_HIGH)
            min_key = ki if ki < min_key else min_key
            kap = kappa0 + ni
            a = alpha0 + 0.5 * ni
            w2 = 1.0 / (kap + 2.0)
            # D(n+1) = -D(n) + log(a^2 kappa / (kappa + 2)) / 2, as lgamma(a+1) = log a + lgamma(a).
            di = 0.5 * _flog(a * a * kap * w2) - dd[i]
            lp[i] = li
            mu[i] = mu[i] + (x - mu[i]) * w[i]
            beta[i] = bn[i]
            nn[i] = ni + 1.0
            w[i] = w2
            dd[i] = di
            q[i] = di - _HALF_LOG_2PI + (a + 0.5) * lbn[i]
        lp_min = _unkey(min_key)
        map_n = np.int64(nn[map_i]) - 1
        if adapt:
            # Centre the next fresh run's prior on the current level, so drift does not penalise it.
            mu0 = mu[map_i]
        # Prune: drop everything below the relative threshold, then the least probable if full.
        if n_drop > 0:
            i = k - 1
            while i >= 0:
                if lp[i] < logthr and nn[i] > prot:
                    k -= 1
                    _move(hyp, k, i)
                i -= 1
        if k > cap:
            i = 0
            while lp[i] != lp_min:
                i += 1
            e = _fexp(lp_min)
            s_drop += e
            if nn[i] <= win:
                s_recent -= e
            k -= 1
            _move(hyp, k, i)
        s_kept = s_all - s_drop
        lognorm = -_flog(s_kept)
        out_cp[j] = min(max(s_recent / s_kept, 0.0), 1.0)
        out_map[j] = map_n
    par[_K] = k
    par[_T] += xs.shape[0]
    par[_LOGNORM] = lognorm
    par[_LEVEL] = mu0


@njit(cache=True, inline="always")
def _move(hyp, src, dst):
    """Copy hypothesis src over dst (order does not matter, so removal is O(1))."""
    for row in range(_N_STORED):
        hyp[row, dst] = hyp[row, src]


# Ranges the kernel's arithmetic is exact over (its fast log needs normal, non-overflowing inputs).
_PRIOR_RANGES = {"kappa0": (1e-8, 1e8), "alpha0": (1e-8, 1e8), "beta0": (1e-200, 1e200)}
_PRIOR_FIELDS = ("mu0", "kappa0", "alpha0", "beta0")


@dataclass(frozen=True)
class NormalGammaPrior:
    """Normal-Gamma prior on a segment's mean and precision."""

    mu0: float
    kappa0: float
    alpha0: float
    beta0: float

    def __post_init__(self) -> None:
        for name in _PRIOR_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise InvalidInput(f"prior.{name}", f"must be a number, got {value!r}")
        if not abs(self.mu0) < MAX_ABS_VALUE:
            raise InvalidInput("prior.mu0", f"must be finite and below 1e100, got {self.mu0}")
        for name, (lo, hi) in _PRIOR_RANGES.items():
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise InvalidInput(f"prior.{name}", f"must be in [{lo:g}, {hi:g}], got {value}")


# Shape of the data-scaled prior. A weak prior (few pseudo-points, broad precision) keeps a fresh
# segment plausible even when its level or noise drifts far from the warm-up's (chosen by F1).
DEFAULT_KAPPA0 = 0.01
DEFAULT_ALPHA0 = 0.1
DEFAULT_VAR_SCALE = 0.1  # prior guess of the noise variance, relative to the warm-up estimate


def prior_from_warmup(values: np.ndarray) -> NormalGammaPrior:
    """Scale a Normal-Gamma prior to the data: median level, robust noise from first differences."""
    x = np.asarray(values, dtype=np.float64)
    mu0 = float(np.median(x))
    dx = np.diff(x)
    # MAD of first differences ignores level shifts in the warm-up; /sqrt(2) undoes differencing.
    sigma = 1.4826 * float(np.median(np.abs(dx - np.median(dx)))) / math.sqrt(2.0)
    if not sigma > 0:
        sigma = float(np.std(x))
    if not sigma > 0:
        sigma = 1e-6 * max(abs(mu0), 1.0)  # constant warm-up: any later movement is a change
    sigma = min(max(sigma, 1e-90), 1e90)  # keep beta0 inside the prior's supported range
    return NormalGammaPrior(
        mu0=mu0,
        kappa0=DEFAULT_KAPPA0,
        alpha0=DEFAULT_ALPHA0,
        beta0=DEFAULT_ALPHA0 * DEFAULT_VAR_SCALE * sigma * sigma,
    )


# Pruning defaults: chosen for F1 on synthetic and TCPD series at >= 1e6 points/s (bench/).
DEFAULT_PRUNE_THRESHOLD = 1e-3
DEFAULT_MAX_RUN_LENGTHS = 300
DEFAULT_PROTECT_RECENT = 20


@dataclass(slots=True)
class BOCPDOutput:
    """Per-point results for points start, start+1, ... (warm-up points arrive when flushed).

    cp_prob[i] = P(r_t < cp_window | x_0..x_t): the posterior probability that the segment
    holding point t started within its last cp_window points (run lengths that young are never
    pruned while cp_window <= protect_recent). map_run_length[i] is the most probable r_t, so
    the most probable start of the current segment is t - map_run_length[i].
    """

    start: int
    cp_prob: np.ndarray
    map_run_length: np.ndarray

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


class OnlineBOCPD:
    """Streaming BOCPD with constant hazard, Normal-Gamma prior and a bounded run-length set.

    Without an explicit prior the first `warmup` points are buffered to scale one to the data
    (prior_from_warmup); their results are returned by the call that completes the warm-up, so
    over all calls exactly one result per pushed point comes back once warm-up is over.
    Pruning after each point drops run lengths whose posterior is below prune_threshold times
    the most probable one (except those younger than protect_recent points, which may still be
    gathering evidence), then the least probable while more than max_run_lengths remain.

    Level tracking (track_level, on by default) changes one thing in the Adams & MacKay model:
    a run that opens at x_{t+1} takes as its prior mean the posterior mean of the most probable
    run after x_t (the current level) instead of the fixed mu0. The prior is scaled from the
    first points only; once the level has drifted far from them (a trend, a long stream), a
    fresh run centred on the old mu0 is penalised for the whole drift, so later changes are
    missed. Centred on the current level, a fresh run is judged by the jump alone. With it,
    bench/bench_cp_quality.py's 10^6-point drifting stream scores F1 0.985 instead of 0.706;
    synthetic and TCPD scores are unchanged or better. It is therefore not the plain model:
    posteriors differ from plain BOCPD by up to ~0.2. tests/test_bocpd.py checks the default
    against an exact, unpruned reference of this model, and track_level=False against plain
    exact BOCPD (both to 1e-6 while nothing is pruned).
    """

    def __init__(
        self,
        hazard_lambda: float = 250.0,
        *,
        prior: NormalGammaPrior | None = None,
        warmup: int = 32,
        prune_threshold: float = DEFAULT_PRUNE_THRESHOLD,
        max_run_lengths: int = DEFAULT_MAX_RUN_LENGTHS,
        protect_recent: int = DEFAULT_PROTECT_RECENT,
        cp_window: int = 5,
        track_level: bool = True,
    ) -> None:
        self.hazard_lambda = _check_real("hazard_lambda", hazard_lambda)
        if self.hazard_lambda <= 1:
            raise InvalidInput("hazard_lambda", f"must be > 1, got {hazard_lambda}")
        self.prune_threshold = _check_real("prune_threshold", prune_threshold)
        if not 0 <= self.prune_threshold < 1:
            raise InvalidInput("prune_threshold", f"must be in [0, 1), got {prune_threshold}")
        self.max_run_lengths = _check_int("max_run_lengths", max_run_lengths, 1)
        self.warmup = _check_int("warmup", warmup, 2)
        self.protect_recent = _check_int("protect_recent", protect_recent, 0)
        self.cp_window = _check_int("cp_window", cp_window, 1)
        if not isinstance(track_level, bool):
            raise InvalidInput("track_level", f"must be a bool, got {track_level!r}")
        self.track_level = track_level
        if prior is not None and not isinstance(prior, NormalGammaPrior):
            raise InvalidInput("prior", "must be a NormalGammaPrior or None")
        self._explicit_prior = prior is not None
        self._prior: NormalGammaPrior | None = None
        self._buffer: list[float] = []
        self._n_pushed = 0
        cap = self.max_run_lengths
        # Workspace: one column per hypothesis slot (capacity cap + 1), parameters in the last row.
        self._hyp = np.zeros((_NROWS + 1, max(cap + 1, _NPAR)), dtype=np.float64)
        self._par = self._hyp[_PAR]
        self._par[[_CAP, _WIN, _PROT, _ADAPT]] = [
            cap,
            self.cp_window,
            self.protect_recent,
            track_level,
        ]
        self._t = 0  # points processed, mirrored here to spare the single-point path a read
        self._one = np.zeros(1, dtype=np.float64)
        if prior is not None:
            self._set_prior(prior)

    def _set_prior(self, prior: NormalGammaPrior) -> None:
        self._prior = prior
        h = 1.0 / self.hazard_lambda
        par = self._par
        par[_MU0] = prior.mu0
        par[_LEVEL] = prior.mu0
        par[_KAPPA0] = prior.kappa0
        par[_ALPHA0] = prior.alpha0
        par[_BETA0] = prior.beta0
        d0 = _d0(prior.alpha0, prior.kappa0)
        par[_D0] = d0
        par[_Q0] = d0 - _HALF_LOG_2PI + prior.alpha0 * math.log(prior.beta0)
        par[_LOGH] = math.log(h)
        par[_LOG1MH] = math.log1p(-h)
        par[_LOGTHR] = math.log(self.prune_threshold) if self.prune_threshold > 0 else _NEG_BIG

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
        pos = 0
        for part in parts:
            m = part.shape[0]
            if m:
                # Consecutive calls continue exactly where the last stopped, so parts need no copy.
                _kernel(part, self._hyp, cp[pos : pos + m], rl[pos : pos + m])
                pos += m
        self._t += n
        return BOCPDOutput(start, cp, rl)

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
            head = np.array(self._buffer, dtype=np.float64)
            self._buffer = []
            self._set_prior(prior_from_warmup(head))
            return self._run(head, arr[need:])
        return self._run(arr)

    def update(self, x: float) -> BOCPDOutput:
        """Feed one value; same kernel and results as update_batch, with less overhead."""
        # Plain floats (np.float64 included) take the fast path; anything else is checked as xs.
        if self._prior is None or not isinstance(x, float):
            return self.update_batch(np.array([x], dtype=np.float64))
        if not -MAX_ABS_VALUE < x < MAX_ABS_VALUE:
            raise InvalidInput("x", f"{x} is not a finite number below 1e100")
        self._n_pushed += 1
        one = self._one
        one[0] = x
        cp = np.empty(1)
        rl = np.empty(1, dtype=np.int64)
        _kernel(one, self._hyp, cp, rl)
        self._t += 1
        return BOCPDOutput(self._t - 1, cp, rl)

    def run_length_posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Current run lengths r_t (ascending) with their posterior, normalised over those kept."""
        k = int(self._par[_K])
        rl = self._hyp[_N, :k].astype(np.int64) - 1
        lp = self._hyp[_LP, :k] + self._par[_LOGNORM]
        order = np.argsort(rl, kind="stable")
        return rl[order], np.exp(lp[order])

    def state(self) -> dict[str, Any]:
        """Everything needed to resume exactly, as JSON-ready plain values."""
        k = int(self._par[_K])
        prior = self._prior
        return {
            "version": 1,
            "config": {
                "hazard_lambda": self.hazard_lambda,
                "warmup": self.warmup,
                "prune_threshold": self.prune_threshold,
                "max_run_lengths": self.max_run_lengths,
                "protect_recent": self.protect_recent,
                "cp_window": self.cp_window,
                "track_level": self.track_level,
            },
            "prior": None if prior is None else [getattr(prior, f) for f in _PRIOR_FIELDS],
            "explicit_prior": self._explicit_prior,
            "buffer": list(self._buffer),
            "n_pushed": self._n_pushed,
            "n_processed": self._t,
            "lognorm": float(self._par[_LOGNORM]),
            "level": float(self._par[_LEVEL]),
            "hypotheses": {
                name: (
                    self._hyp[row, :k].astype(np.int64) if row == _N else self._hyp[row, :k]
                ).tolist()
                for name, row in _STATE_ROWS.items()
            },
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> OnlineBOCPD:
        """Rebuild a detector from state(); it continues bit-identically."""
        try:
            if state.get("version") != 1:
                raise InvalidInput("state.version", f"unsupported {state.get('version')!r}")
            raw_prior = state["prior"]
            prior = None if raw_prior is None else NormalGammaPrior(*map(float, raw_prior))
            explicit = bool(state["explicit_prior"])
            det = cls(prior=prior if explicit else None, **state["config"])
            if prior is not None and not explicit:
                det._set_prior(prior)
            det._buffer = [float(v) for v in state["buffer"]]
            det._n_pushed = int(state["n_pushed"])
            cols = {name: state["hypotheses"][name] for name in _STATE_ROWS}
            k = len(cols["n"])
            if any(len(c) != k for c in cols.values()) or k > det.max_run_lengths:
                raise InvalidInput("state.hypotheses", "arrays are inconsistent")
            for name, row in _STATE_ROWS.items():
                det._hyp[row, :k] = np.asarray(cols[name], dtype=np.float64)
            det._par[_K] = k
            det._t = int(state["n_processed"])
            det._par[_T] = det._t
            det._par[_LOGNORM] = float(state["lognorm"])
            det._par[_LEVEL] = float(state["level"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInput("state", f"malformed detector state ({exc})") from exc
        return det
