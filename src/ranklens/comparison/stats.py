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
    :math:`a = \sum_i (\bar x_{(.)} - \bar x_{(i)})^3 / (6 S^{3/2})` with
    :math:`S = \sum_i (\bar x_{(.)} - \bar x_{(i)})^2`,
    the interval is the bootstrap quantiles at
    :math:`\Phi(z_0 + (z_0 + z_q) / (1 - a (z_0 + z_q)))`, ``q`` in
    :math:`\{\alpha/2, 1-\alpha/2\}`.

Missing, undefined and impossible values (one rule for every function here):

- **NaN in, NaN out.**  A column (one test) whose per-query values contain a
  NaN or an infinity has no defined mean, so its p-value, interval bounds,
  bootstrap means and effect size are NaN -- never a finite number that
  could look significant.  Nothing is dropped silently here: a metric that is
  undefined for some queries (e.g. FCP or Kendall's tau on a query with one
  judged document) must be handled by the caller, for both systems at once.
  :func:`ranklens.compare` does that explicitly: it drops the queries
  where any system's value is NaN, records how many queries remain in
  ``Comparison.n_queries`` and warns with a :class:`~ranklens.RanklensWarning`.
  Other columns of a 2-d input are unaffected (the resampling tests draw the
  same random numbers whatever the values).
- **Too little data gives NaN.**  A t-test or t interval of fewer than two
  queries, or of differences that are all equal but not zero, is NaN.
- **Impossible inputs raise** :class:`~ranklens.errors.InputError`: no queries
  at all, ``a`` and ``b`` of different shapes, arrays of more than two
  dimensions, non-numeric values, p-values outside [0, 1].  Bad parameters
  (``alpha`` or ``level`` outside (0, 1), ``n_resamples < 1``, an unknown
  ``method``/``test``, a bad ``seed``) raise
  :class:`~ranklens.errors.MetricParameterError`.  Both are
  :class:`~ranklens.errors.RanklensError` and :class:`ValueError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ranklens._shared import validate
from ranklens._shared.corrections import CORRECTIONS, NAMES, adjust, canonical
from ranklens._shared.deps import needs
from ranklens._shared.progress import report as report_progress
from ranklens.errors import InputError, MetricParameterError

__all__ = [
    "CI_METHODS",
    "CORRECTIONS",
    "CORRECTION_NAMES",
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
#: the alternatives of :func:`paired_ttest`
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
CI_METHODS: tuple[str, ...] = ("t", "percentile", "bca")
#: display names of the corrections (:data:`CORRECTIONS`, one list for compare and online)
CORRECTION_NAMES = NAMES
# rows of random numbers drawn per chunk: fixed, so results never depend on memory or threads
CHUNK = 256
_RTOL = 1e-9


def resolve_rng(seed: int | np.random.Generator | None, name: str = "seed") -> np.random.Generator:
    """A Generator from a seed, an existing Generator (used as is) or ``None`` (fresh entropy);
    anything else raises :class:`MetricParameterError` naming the ``name`` parameter."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (
        isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0
    ):
        return np.random.default_rng(seed)
    raise MetricParameterError(
        f"the {name!r} parameter must be a non-negative int, a numpy.random.Generator or None, "
        f"got {seed!r} of type {type(seed).__name__}."
    )


def _check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    return validate.check_choice(
        f"the {name!r} parameter", value, choices, error=MetricParameterError
    )


def check_alpha(alpha: float, name: str = "alpha") -> float:
    """``alpha`` as a float in the open interval (0, 1), else :class:`MetricParameterError`."""
    return validate.check_alpha(
        alpha,
        name=f"the {name!r} parameter",
        example="0.95" if name.endswith("level") else "0.05",
        error=MetricParameterError,
    )


def check_resamples(n: int) -> int:
    """``n`` as a positive int, else :class:`MetricParameterError`."""
    return validate.check_int(
        "the 'n_resamples' parameter", n, hint="e.g. 10000", error=MetricParameterError
    )


def check_correction(method: str, where: str = "correct") -> str:
    """``method`` in its one spelling (:data:`CORRECTIONS`; a deprecated spelling such as
    ``fdr_bh`` warns and becomes ``bh``), else :class:`MetricParameterError`."""
    return _check_choice("correction", canonical(where, method), CORRECTIONS)


def _array(x: Any, name: str, where: str) -> np.ndarray:
    return validate.floats(x, name, where, " (per-query values)")


def _as_2d(d: Any, name: str = "x", where: str = "ranklens.compare") -> tuple[np.ndarray, bool]:
    """(queries, columns) float array and whether the input was 1-d; no queries is an error."""
    arr = _array(d, name, where)
    if arr.ndim == 1:
        arr, one = arr[:, None], True
    elif arr.ndim == 2:
        one = False
    else:
        raise InputError(
            f"{where}: {name} must be a 1-d (queries,) or 2-d (queries, tests) "
            f"array of per-query values, got {arr.ndim}-d of shape {arr.shape}."
        )
    if arr.shape[0] == 0:
        raise InputError(
            f"{where}: {name} holds no queries; pass the per-query values of at least one query."
        )
    return arr, one


def _paired(a: Any, b: Any, where: str, *, one_d: bool = False) -> tuple[np.ndarray, bool]:
    """``b - a`` as (queries, columns), checking that both have the same shape."""
    aa, bb = _array(a, "a", where), _array(b, "b", where)
    if aa.shape != bb.shape:
        raise InputError(
            f"{where}: a and b must hold the same queries in the same order; got "
            f"shapes {aa.shape} (a) and {bb.shape} (b)."
        )
    if one_d and aa.ndim != 1:
        raise InputError(
            f"{where}: a and b must be 1-d arrays of per-query values (one test), "
            f"got shape {aa.shape}; use paired_pvalues for several columns."
        )
    return _as_2d(bb - aa, "b - a", where)


def _finite_columns(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The columns without NaN/inf, and a copy of ``arr`` with the others zeroed (so that
    they can be computed along without warnings and then set to NaN)."""
    good = np.isfinite(arr).all(axis=0)
    if good.all():
        return good, arr
    return good, np.where(good, arr, 0.0)


def _out(p: np.ndarray, one: bool) -> Any:
    return float(p[0]) if one else p


# --------------------------------------------------------------------------- tests


def _differences(a: Any, b: Any, where: str) -> tuple[np.ndarray, float | None]:
    """``b - a`` of one test, and its p-value where no test is needed: NaN when a
    difference is NaN or infinite, 1.0 when every difference is zero."""
    arr, _ = _paired(a, b, where, one_d=True)
    d = arr[:, 0]
    if not np.all(np.isfinite(d)):
        return d, float("nan")
    if not np.any(d != 0):
        return d, 1.0
    return d, None


def paired_ttest(a: Any, b: Any, alternative: str = "two-sided") -> float:
    """Paired t-test p-value of ``b - a``: :math:`t = \\bar d / (s_d / \\sqrt n)`,
    :math:`p = 2\\,P(T_{n-1} \\ge |t|)` (the same number as :func:`scipy.stats.ttest_rel`).

    ``alternative`` is ``two-sided`` (default), ``greater`` (H1: mean of ``b - a``
    above 0, :math:`p = P(T_{n-1} \\ge t)`) or ``less``; a one-sided test against a
    margin ``delta`` is the test of ``b + delta`` against ``a`` (non-inferiority:
    :func:`ranklens.gate`).  ``a`` and ``b`` are 1-d arrays of per-query values of
    the same queries.  1.0 when every difference is zero; NaN when a value is NaN
    or infinite, when the differences are all equal but not zero (no variance), or
    when there is only one query.  Empty or differently shaped inputs raise
    :class:`~ranklens.errors.InputError`.
    """
    _check_choice("alternative", alternative, ALTERNATIVES)
    with needs("stats", "ranklens.comparison.stats.paired_ttest"):
        from scipy import stats

    d, fixed = _differences(a, b, "paired_ttest")
    if fixed is not None:
        return fixed
    if d.size < 2:
        return float("nan")
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        return float("nan")
    t = float(d.mean()) / (sd / np.sqrt(d.size))
    if alternative == "greater":
        return float(stats.t.sf(t, d.size - 1))
    if alternative == "less":
        return float(stats.t.cdf(t, d.size - 1))
    return float(2.0 * stats.t.sf(abs(t), d.size - 1))


def wilcoxon_test(a: Any, b: Any) -> float:
    """Two-sided Wilcoxon signed-rank p-value of ``b - a`` (:func:`scipy.stats.wilcoxon`,
    ``zero_method="wilcox"``).

    ``a`` and ``b`` are 1-d arrays of per-query values of the same queries.
    1.0 when every difference is zero; NaN when a value is NaN or infinite.
    Empty or differently shaped inputs raise :class:`~ranklens.errors.InputError`.
    """
    with needs("stats", "ranklens.comparison.stats.wilcoxon_test"):
        from scipy import stats

    d, fixed = _differences(a, b, "wilcoxon_test")
    if fixed is not None:
        return fixed
    return float(stats.wilcoxon(d, zero_method="wilcox").pvalue)


def _resampling(
    x: Any,
    name: str,
    where: str,
    n_resamples: int,
    seed: int | np.random.Generator | None,
    seed_name: str = "seed",
) -> tuple[np.ndarray, np.ndarray, bool, int, np.random.Generator]:
    """The checked input of a resampling function: the (queries, columns) values with
    the non-finite columns zeroed, which columns are finite, whether the input was 1-d,
    the number of resamples and the random generator."""
    arr, one = _as_2d(x, name, where)
    R = check_resamples(n_resamples)
    rng = resolve_rng(seed, seed_name)
    good, arr = _finite_columns(arr)
    return arr, good, one, R, rng


def _chunks(total: int) -> Iterator[tuple[int, int]]:
    """(start, size) of the chunks of :data:`CHUNK` resamples that make ``total``
    (each reported as progress of the task ``resampling``)."""
    for start in range(0, total, CHUNK):
        report_progress("resampling", start, total)
        yield start, min(CHUNK, total - start)
    report_progress("resampling", total, total)


def _threshold(obs: np.ndarray) -> np.ndarray:
    return obs - _RTOL * np.maximum(obs, 1e-300)


def randomization_test(
    d: Any, n_resamples: int = 10_000, seed: int | np.random.Generator | None = None
) -> Any:
    """Fisher randomisation (sign-flip) test of mean(d) = 0, two-sided.

    ``d`` is (queries,) or (queries, tests); returns a float or an array of
    p-values (one per column; every column sees the same sign vectors).
    Vectorised: each chunk of :data:`CHUNK` sign vectors is one random bit
    matrix and one matrix product, so 10,000 permutations of 10,000 queries
    cost a few hundred megaflops.  Formula and citation in the module docs.
    A column with a NaN or infinite difference gets a NaN p-value (the
    others are unaffected); no queries raises :class:`~ranklens.errors.InputError`.

    All four differences positive: the exact p-value is 2 / 2**4 = 0.125
    (only the all-positive and all-negative sign vectors are as extreme):

    >>> round(randomization_test([0.1, 0.2, 0.3, 0.4], 1000, seed=0), 3)
    0.141
    """
    arr, good, one, R, rng = _resampling(d, "d", "randomization_test", n_resamples, seed)
    n, m = arr.shape
    obs = np.abs(arr.sum(axis=0))
    thr = _threshold(obs)
    total = arr.sum(axis=0)
    count = np.zeros(m, dtype=np.int64)
    nbytes = (n + 7) // 8
    for _, c in _chunks(R):
        raw = rng.integers(0, 256, size=(c, nbytes), dtype=np.uint8)
        bits = np.unpackbits(raw, axis=1, count=n)
        # sum_i s_i d_i with s = 2 b - 1  ==  2 (b @ d) - sum(d)
        stat = np.abs(2.0 * (bits.astype(np.float64) @ arr) - total)
        count += (stat >= thr).sum(axis=0)
    return _out(np.where(good, (count + 1) / (R + 1), np.nan), one)


def _resample_counts(rng: np.random.Generator, c: int, n: int) -> np.ndarray:
    """(c, n) matrix: how often each of n items is drawn in each of c resamples."""
    idx = rng.integers(0, n, size=(c, n))
    idx += (np.arange(c) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=c * n).reshape(c, n).astype(np.float64)


def bootstrap_means(x: Any, n_resamples: int, rng: int | np.random.Generator | None) -> np.ndarray:
    """(B, columns) bootstrap means of the columns of ``x`` (rows resampled jointly).

    A column with a NaN or infinite value has NaN bootstrap means; no rows
    raises :class:`~ranklens.errors.InputError`.
    """
    arr, good, _, B, gen = _resampling(x, "x", "bootstrap_means", n_resamples, rng, "rng")
    n, m = arr.shape
    out = np.empty((B, m))
    for done, c in _chunks(B):
        out[done : done + c] = _resample_counts(gen, c, n) @ arr / n
    out[:, ~good] = np.nan
    return out


def bootstrap_test(
    d: Any, n_resamples: int = 10_000, seed: int | np.random.Generator | None = None
) -> Any:
    """Paired bootstrap test of mean(d) = 0, two-sided (shift method; module docs).

    ``d`` is (queries,) or (queries, tests); every column is resampled with the
    same query indices.  A column with a NaN or infinite difference gets a NaN
    p-value (the others are unaffected); no queries raises
    :class:`~ranklens.errors.InputError`.
    """
    arr, good, one, B, rng = _resampling(d, "d", "bootstrap_test", n_resamples, seed)
    n, m = arr.shape
    mean = arr.mean(axis=0)
    shifted = arr - mean
    thr = _threshold(np.abs(mean))
    count = np.zeros(m, dtype=np.int64)
    for _, c in _chunks(B):
        stat = np.abs(_resample_counts(rng, c, n) @ shifted / n)
        count += (stat >= thr).sum(axis=0)
    return _out(np.where(good, (count + 1) / (B + 1), np.nan), one)


def paired_pvalues(
    a: Any,
    b: Any,
    test: str,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """p-values of ``b[:, j]`` vs ``a[:, j]`` for every column ``j`` with one test.

    ``a`` and ``b`` are (queries,) or (queries, tests) of the same shape;
    NaN for a column with a NaN or infinite value (module docs).
    """
    _check_choice("test", test, TESTS)
    R = check_resamples(n_resamples)  # checked for every test, used by the resampling ones
    rng = resolve_rng(seed)
    d, _ = _paired(a, b, "paired_pvalues")
    if test == "randomization":
        return np.atleast_1d(randomization_test(d, R, rng))
    if test == "bootstrap":
        return np.atleast_1d(bootstrap_test(d, R, rng))
    fn = paired_ttest if test == "t" else wilcoxon_test
    zero = np.zeros(d.shape[0])
    return np.array([fn(zero, d[:, j]) for j in range(d.shape[1])])


# --------------------------------------------------------------------------- CIs and effects


def mean_ci(
    x: Any,
    method: str = "t",
    level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = None,
    boot: np.ndarray | None = None,
) -> tuple[Any, Any]:
    """Confidence interval ``(low, high)`` for the mean of each column of ``x``.

    ``method`` is ``t``, ``percentile`` or ``bca`` (formulas in the module
    docs); ``x`` is (queries,) or (queries, columns); for a paired difference
    pass ``b - a``.  ``boot`` may hold precomputed bootstrap means
    (:func:`bootstrap_means`, shape (resamples, columns)) so several
    intervals share one resampling.  Both bounds are NaN for a column with a
    NaN or infinite value and for fewer than two queries; no queries raises
    :class:`~ranklens.errors.InputError`.  The t interval is centred on the
    mean; the bootstrap intervals are quantiles of the bootstrap means
    (``low <= high``, but not always around the sample mean).

    >>> low, high = mean_ci([1.0, 2.0, 3.0, 4.0], "t")
    >>> round(low, 4), round(high, 4)
    (0.4457, 4.5543)
    """
    _check_choice("ci", method, CI_METHODS)
    check_alpha(level, "level")
    R = check_resamples(n_resamples)  # checked for every method, used by the bootstrap ones
    rng = resolve_rng(seed)
    arr, one = _as_2d(x, "x", "mean_ci")
    good, arr = _finite_columns(arr)
    n, m = arr.shape
    if boot is not None:
        boot = _array(boot, "boot", "mean_ci")
        if boot.ndim != 2 or boot.shape[1] != m or boot.shape[0] < 1:
            raise InputError(
                f"mean_ci: boot must hold bootstrap means of shape (resamples, "
                f"{m}) as made by bootstrap_means(x, ...), got {boot.shape}."
            )
    nan = np.full(m, np.nan)
    if n < 2:
        return _out(nan, one), _out(nan.copy(), one)
    mean = arr.mean(axis=0)
    alpha = 1.0 - level
    with needs("stats", "ranklens.comparison.stats.mean_ci"):
        from scipy import special, stats

    if method == "t":
        se = arr.std(axis=0, ddof=1) / np.sqrt(n)
        h = stats.t.ppf(1 - alpha / 2, n - 1) * se
        return (
            _out(np.where(good, mean - h, np.nan), one),
            _out(np.where(good, mean + h, np.nan), one),
        )
    if boot is None:
        boot = bootstrap_means(arr, R, rng)
    qs = np.array([alpha / 2, 1 - alpha / 2])
    good = good & np.isfinite(boot).all(axis=0)
    boot = np.where(good, boot, 0.0)
    if method == "percentile":
        lo, hi = np.quantile(boot, qs, axis=0)
        return (_out(np.where(good, lo, np.nan), one), _out(np.where(good, hi, np.nan), one))
    # BCa: bias from the share of bootstrap means below the estimate (ties count half)
    share = ((boot < mean).sum(axis=0) + (boot <= mean).sum(axis=0)) / (2.0 * boot.shape[0])
    z0 = special.ndtri(share)
    jack = (arr.sum(axis=0) - arr) / (n - 1)  # leave-one-out means, analytic for the mean
    dev = jack.mean(axis=0) - jack
    num = (dev**3).sum(axis=0)
    den = 6.0 * (dev**2).sum(axis=0) ** 1.5
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
        zq = special.ndtri(qs)[:, None]
        adj = special.ndtr(z0 + (z0 + zq) / (1 - acc * (z0 + zq)))
    lo = np.full(m, np.nan)
    hi = np.full(m, np.nan)
    for j in range(m):
        if not good[j]:
            continue
        if not np.all(np.isfinite(adj[:, j])):  # degenerate (constant data)
            lo[j] = hi[j] = mean[j]
            continue
        lo[j], hi[j] = np.quantile(boot[:, j], adj[:, j])
    return _out(lo, one), _out(hi, one)


def cohens_d_paired(a: Any, b: Any) -> Any:
    """Cohen's d for paired data (:math:`d_z = \\bar d / s_d`, ``s_d`` with ``n - 1``).

    ``a`` and ``b`` are (queries,) or (queries, tests) of the same shape.
    NaN when the differences have no variance, when there is one query, or
    for a column with a NaN or infinite value.  Cohen (1988), *Statistical
    Power Analysis for the Behavioral Sciences*; Lakens (2013) for the
    paired variant.
    """
    d, one = _paired(a, b, "cohens_d_paired")
    good, d = _finite_columns(d)
    if d.shape[0] < 2:
        return _out(np.full(d.shape[1], np.nan), one)
    sd = d.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(good & (sd > 0), d.mean(axis=0) / np.where(sd > 0, sd, 1.0), np.nan)
    return _out(out, one)


def correct(pvalues: Any, method: str = "holm", alpha: float = 0.05) -> np.ndarray:
    """Adjusted p-values for a family of tests (:func:`statsmodels.stats.multitest.multipletests`).

    ``method`` is one of :data:`CORRECTIONS`: ``holm`` (Holm 1979),
    ``bonferroni``, ``bh`` (Benjamini & Hochberg 1995, false discovery rate),
    ``none`` and the others of :mod:`ranklens._shared.corrections` (the same
    list as :func:`ranklens.online.analyze`); statsmodels' spellings such as
    ``fdr_bh`` still work for one release and warn
    :class:`~ranklens.RanklensDeprecationWarning`.  NaN p-values (tests that could not be
    computed, which cannot reject) are left out of the family and stay NaN,
    as R's ``p.adjust`` does.  An empty family or a p-value outside [0, 1]
    raises :class:`~ranklens.errors.InputError`.
    """
    method = check_correction(method)
    alpha = check_alpha(alpha)
    p = _array(pvalues, "pvalues", "correct").ravel()
    if p.size == 0:
        raise InputError("correct: pvalues is empty; pass the p-values of at least one test.")
    ok = ~np.isnan(p)
    bad = np.flatnonzero(ok & ~((p >= 0) & (p <= 1)))
    if bad.size:
        raise InputError(
            f"correct: pvalues must be probabilities in [0, 1] (or NaN for a test "
            f"not made); pvalues[{int(bad[0])}] is {float(p[bad[0]])!r}."
        )
    return adjust(p, method, alpha, "stats", "ranklens.comparison.stats.correct")
