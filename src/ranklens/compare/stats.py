r"""Paired significance tests, confidence intervals, effect sizes and corrections.

Everything here works on *per-query* values: ``x`` (queries,) for one system
or ``d`` (queries, tests) for paired differences ``d[i, j] = b_j(q_i) - a_j(q_i)``
of several tests at once.  The resampling tests share one random stream: the
same sign / resample matrices are applied to every column, generated in
chunks of fixed size, in a fixed order, from one :class:`numpy.random.Generator`.
So the same seed gives the same p-values on every machine and at any thread
count (the comparison with the observed statistic uses a relative tolerance
of ``1e-9`` so that BLAS summation order cannot flip a tie).

Tests (all two-sided, H0: the two systems are exchangeable / have equal mean):

``t``
    paired Student t-test, :math:`t = \bar d / (s_d / \sqrt n)` with ``n - 1``
    degrees of freedom (:func:`scipy.stats.ttest_rel`).
``wilcoxon``
    Wilcoxon signed-rank test on the differences (:func:`scipy.stats.wilcoxon`,
    zero differences dropped, ``zero_method="wilcox"``; exact or normal
    approximation as scipy chooses).
``randomization``
    Fisher's randomisation (sign-flip permutation) test: under H0 each query's
    pair of values is exchangeable, so each difference's sign is flipped with
    probability 1/2.  With :math:`R` random sign vectors :math:`s^{(r)}`,

    .. math:: p = \frac{1 + \#\{r : |\tfrac1n \sum_i s^{(r)}_i d_i| \ge |\bar d|\}}{R + 1}

    (the ``+1`` counts the observed labelling, so ``p > 0`` and the test is
    exact at any :math:`R`; Phipson & Smyth 2010).  Recommended for IR by
    Smucker, Allan & Carterette (2007), "A comparison of statistical
    significance tests for information retrieval evaluation", CIKM.
``bootstrap``
    paired bootstrap test (Efron & Tibshirani 1993, *An Introduction to the
    Bootstrap*, ch. 16): the differences are shifted to mean zero,
    :math:`d^0_i = d_i - \bar d`, resampled with replacement :math:`B` times,
    and :math:`p = (1 + \#\{b : |\bar{d^{0*}_b}| \ge |\bar d|\}) / (B + 1)`.

Confidence intervals for a mean (of one system, or of paired differences):

``t``
    :math:`\bar x \pm t_{1-\alpha/2,\,n-1}\, s / \sqrt n`.
``percentile``
    the :math:`\alpha/2` and :math:`1-\alpha/2` quantiles of the bootstrap
    means (Efron & Tibshirani, ch. 13).
``bca``
    bias-corrected and accelerated bootstrap (Efron & Tibshirani, ch. 14;
    same definition as :func:`scipy.stats.bootstrap`): with
    :math:`z_0 = \Phi^{-1}(\text{share of bootstrap means below } \bar x)` and
    the jackknife acceleration
    :math:`a = \sum (\bar x_{(.)} - \bar x_{(i)})^3 / (6 [\sum (\bar x_{(.)} - \bar x_{(i)})^2]^{3/2})`,
    the interval is the bootstrap quantiles at
    :math:`\Phi(z_0 + (z_0 + z_q) / (1 - a (z_0 + z_q)))`, ``q`` in
    :math:`\{\alpha/2, 1-\alpha/2\}`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.errors import InputError, MetricParameterError

__all__ = [
    "CI_METHODS",
    "CORRECTIONS",
    "TESTS",
    "bootstrap_test",
    "cohens_d_paired",
    "correct",
    "mean_ci",
    "paired_pvalues",
    "paired_ttest",
    "randomization_test",
    "resolve_rng",
    "wilcoxon_test",
]

TESTS: tuple[str, ...] = ("t", "wilcoxon", "randomization", "bootstrap")
CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni", "bh", "none")
CI_METHODS: tuple[str, ...] = ("t", "percentile", "bca")
# statsmodels' method names
_SM_METHOD = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}
# rows of random numbers drawn per chunk: fixed, so results never depend on memory or threads
CHUNK = 256
_RTOL = 1e-9


def resolve_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A Generator from a seed, an existing Generator (used as is) or ``None`` (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise MetricParameterError(
        f"seed must be an int, a numpy.random.Generator or None, got {seed!r} of type "
        f"{type(seed).__name__}."
    )


def _check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise MetricParameterError(
            f"the {name!r} parameter must be one of {', '.join(map(repr, choices))}; "
            f"got {value!r}."
        )
    return value


def check_alpha(alpha: float, name: str = "alpha") -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise MetricParameterError(f"the {name!r} parameter must be in (0, 1); got {alpha!r}.")
    return float(alpha)


def check_resamples(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise MetricParameterError(
            f"the 'n_resamples' parameter must be a positive integer; got {n!r}."
        )
    return int(n)


def _as_2d(d: Any) -> tuple[np.ndarray, bool]:
    arr = np.asarray(d, dtype=np.float64)
    if arr.ndim == 1:
        return arr[:, None], True
    if arr.ndim != 2:
        raise InputError(f"expected a 1-d or 2-d array of per-query values, got {arr.ndim}-d.")
    return arr, False


def _out(p: np.ndarray, one: bool) -> Any:
    return float(p[0]) if one else p


# --------------------------------------------------------------------------- tests


def paired_ttest(a: Any, b: Any) -> float:
    """Two-sided paired t-test p-value of ``b - a``: :math:`t = \\bar d / (s_d / \\sqrt n)`,
    :math:`p = 2\\,P(T_{n-1} \\ge |t|)` (the same number as :func:`scipy.stats.ttest_rel`).

    1.0 when every difference is zero; NaN when the differences are all equal
    but not zero (no variance), or fewer than two.
    """
    from scipy import stats

    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if d.size and not np.any(d != 0):
        return 1.0
    if d.size < 2:
        return float("nan")
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        return float("nan")
    t = float(d.mean()) / (sd / np.sqrt(d.size))
    return float(2.0 * stats.t.sf(abs(t), d.size - 1))


def wilcoxon_test(a: Any, b: Any) -> float:
    """Two-sided Wilcoxon signed-rank p-value of ``b - a`` (:func:`scipy.stats.wilcoxon`);
    1.0 when every difference is zero."""
    from scipy import stats

    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    if not np.any(d != 0):
        return 1.0
    return float(stats.wilcoxon(d, zero_method="wilcox").pvalue)


def _threshold(obs: np.ndarray) -> np.ndarray:
    return obs - _RTOL * np.maximum(obs, 1e-300)


def randomization_test(d: Any, n_resamples: int = 10_000,
                       seed: int | np.random.Generator | None = None) -> Any:
    """Fisher randomisation (sign-flip) test of mean(d) = 0, two-sided.

    ``d`` is (queries,) or (queries, tests); returns a float or an array of
    p-values (one per column; every column sees the same sign vectors).
    Vectorised: each chunk of :data:`CHUNK` sign vectors is one random bit
    matrix and one matrix product, so 10,000 permutations of 10,000 queries
    cost a few hundred megaflops.  Formula and citation in the module docs.

    All four differences positive: the exact p-value is 2 / 2**4 = 0.125
    (only the all-positive and all-negative sign vectors are as extreme):

    >>> round(randomization_test([0.1, 0.2, 0.3, 0.4], 1000, seed=0), 3)
    0.141
    """
    arr, one = _as_2d(d)
    R = check_resamples(n_resamples)
    rng = resolve_rng(seed)
    n, m = arr.shape
    if n == 0:
        return _out(np.full(m, np.nan), one)
    obs = np.abs(arr.sum(axis=0))
    thr = _threshold(obs)
    total = arr.sum(axis=0)
    count = np.zeros(m, dtype=np.int64)
    nbytes = (n + 7) // 8
    done = 0
    while done < R:
        c = min(CHUNK, R - done)
        raw = rng.integers(0, 256, size=(c, nbytes), dtype=np.uint8)
        bits = np.unpackbits(raw, axis=1, count=n)
        # sum_i s_i d_i with s = 2 b - 1  ==  2 (b @ d) - sum(d)
        stat = np.abs(2.0 * (bits.astype(np.float64) @ arr) - total)
        count += (stat >= thr).sum(axis=0)
        done += c
    return _out((count + 1) / (R + 1), one)


def _resample_counts(rng: np.random.Generator, c: int, n: int) -> np.ndarray:
    """(c, n) matrix: how often each of n items is drawn in each of c resamples."""
    idx = rng.integers(0, n, size=(c, n))
    idx += (np.arange(c) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=c * n).reshape(c, n).astype(np.float64)


def bootstrap_means(x: Any, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(B, columns) bootstrap means of the columns of ``x`` (rows resampled jointly)."""
    arr, _ = _as_2d(x)
    n, m = arr.shape
    out = np.empty((n_resamples, m))
    done = 0
    while done < n_resamples:
        c = min(CHUNK, n_resamples - done)
        out[done:done + c] = _resample_counts(rng, c, n) @ arr / n
        done += c
    return out


def bootstrap_test(d: Any, n_resamples: int = 10_000,
                   seed: int | np.random.Generator | None = None) -> Any:
    """Paired bootstrap test of mean(d) = 0, two-sided (shift method; module docs).

    ``d`` is (queries,) or (queries, tests); every column is resampled with the
    same query indices.
    """
    arr, one = _as_2d(d)
    B = check_resamples(n_resamples)
    rng = resolve_rng(seed)
    n, m = arr.shape
    if n == 0:
        return _out(np.full(m, np.nan), one)
    mean = arr.mean(axis=0)
    shifted = arr - mean
    thr = _threshold(np.abs(mean))
    count = np.zeros(m, dtype=np.int64)
    done = 0
    while done < B:
        c = min(CHUNK, B - done)
        stat = np.abs(_resample_counts(rng, c, n) @ shifted / n)
        count += (stat >= thr).sum(axis=0)
        done += c
    return _out((count + 1) / (B + 1), one)


def paired_pvalues(a: np.ndarray, b: np.ndarray, test: str, n_resamples: int = 10_000,
                   seed: int | np.random.Generator | None = None) -> np.ndarray:
    """p-values of ``b[:, j]`` vs ``a[:, j]`` for every column ``j`` with one test."""
    _check_choice("test", test, TESTS)
    a2, _ = _as_2d(a)
    b2, _ = _as_2d(b)
    if test == "randomization":
        return np.atleast_1d(randomization_test(b2 - a2, n_resamples, seed))
    if test == "bootstrap":
        return np.atleast_1d(bootstrap_test(b2 - a2, n_resamples, seed))
    fn = paired_ttest if test == "t" else wilcoxon_test
    return np.array([fn(a2[:, j], b2[:, j]) for j in range(a2.shape[1])])


# --------------------------------------------------------------------------- CIs and effects


def mean_ci(x: Any, method: str = "t", level: float = 0.95, n_resamples: int = 10_000,
            seed: int | np.random.Generator | None = None,
            boot: np.ndarray | None = None) -> tuple[Any, Any]:
    """Confidence interval ``(low, high)`` for the mean of each column of ``x``.

    ``method`` is ``t``, ``percentile`` or ``bca`` (formulas in the module
    docs); ``x`` is (queries,) or (queries, columns); for a paired difference
    pass ``b - a``.  ``boot`` may hold precomputed bootstrap means
    (:func:`bootstrap_means`) so several intervals share one resampling.

    >>> low, high = mean_ci([1.0, 2.0, 3.0, 4.0], "t")
    >>> round(low, 4), round(high, 4)
    (0.4457, 4.5543)
    """
    _check_choice("ci", method, CI_METHODS)
    check_alpha(level, "level")
    arr, one = _as_2d(x)
    n = arr.shape[0]
    mean = arr.mean(axis=0) if n else np.full(arr.shape[1], np.nan)
    alpha = 1.0 - level
    from scipy import special, stats

    if method == "t" or n < 2:
        if n < 2:
            nan = np.full(arr.shape[1], np.nan)
            return _out(nan, one), _out(nan, one)
        se = arr.std(axis=0, ddof=1) / np.sqrt(n)
        h = stats.t.ppf(1 - alpha / 2, n - 1) * se
        return _out(mean - h, one), _out(mean + h, one)
    if boot is None:
        boot = bootstrap_means(arr, check_resamples(n_resamples), resolve_rng(seed))
    qs = np.array([alpha / 2, 1 - alpha / 2])
    if method == "percentile":
        lo, hi = np.quantile(boot, qs, axis=0)
        return _out(lo, one), _out(hi, one)
    # BCa: bias from the share of bootstrap means below the estimate (ties count half)
    share = ((boot < mean).sum(axis=0) + (boot <= mean).sum(axis=0)) / (2.0 * boot.shape[0])
    z0 = special.ndtri(share)
    jack = (arr.sum(axis=0) - arr) / (n - 1)  # leave-one-out means, analytic for the mean
    dev = jack.mean(axis=0) - jack
    num = (dev ** 3).sum(axis=0)
    den = 6.0 * (dev ** 2).sum(axis=0) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        zq = special.ndtri(qs)[:, None]
        adj = special.ndtr(z0 + (z0 + zq) / (1 - acc * (z0 + zq)))
    lo = np.empty(arr.shape[1])
    hi = np.empty(arr.shape[1])
    for j in range(arr.shape[1]):
        if not np.all(np.isfinite(adj[:, j])):  # degenerate (constant data)
            lo[j] = hi[j] = mean[j]
            continue
        lo[j], hi[j] = np.quantile(boot[:, j], adj[:, j])
    return _out(lo, one), _out(hi, one)


def cohens_d_paired(a: Any, b: Any) -> Any:
    """Cohen's d for paired data (:math:`d_z = \\bar d / s_d`, ``s_d`` with ``n - 1``).

    NaN when the differences have no variance.  Cohen (1988), *Statistical Power
    Analysis for the Behavioral Sciences*; Lakens (2013) for the paired variant.
    """
    d, one = _as_2d(np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64))
    if d.shape[0] < 2:
        return _out(np.full(d.shape[1], np.nan), one)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(sd > 0, d.mean(axis=0) / np.where(sd > 0, sd, 1.0), np.nan)
    return _out(out, one)


def correct(pvalues: Any, method: str = "holm", alpha: float = 0.05) -> np.ndarray:
    """Adjusted p-values for a family of tests (:func:`statsmodels.stats.multitest.multipletests`).

    ``holm`` (Holm 1979), ``bonferroni``, ``bh`` (Benjamini & Hochberg 1995,
    false discovery rate) or ``none``.  NaN p-values are left out of the
    family and stay NaN.
    """
    _check_choice("correction", method, CORRECTIONS)
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    out = p.copy()
    ok = ~np.isnan(p)
    if method == "none" or not ok.any():
        return out
    from statsmodels.stats.multitest import multipletests

    out[ok] = multipletests(p[ok], alpha=alpha, method=_SM_METHOD[method])[1]
    return out
