"""Vectorised two-sample tests for A/B experiments.

Every function takes per-group summary statistics as numpy arrays (or
scalars) that broadcast together, so one call compares many metrics,
variants or simulated experiments at once, and returns a :class:`Comparison`
of arrays.  Distributions and library tests come from scipy and
statsmodels, imported when a function is first called.

Missing, undefined and impossible values (one rule for every function here):

- **NaN in, NaN out** for values: a NaN (or infinite) estimate, mean,
  variance or per-unit value makes the affected comparison's statistic,
  p-value and interval NaN -- never a finite number that could look
  significant; other elements of a vectorised call are unaffected.
- **Undefined comparisons give NaN**: no variation in either group, a
  Welch group of a single unit, a ratio whose denominator is zero.
- **Impossible inputs raise** :class:`~ranklens.errors.InputError` naming the
  argument: counts (successes, units) that are negative, not whole numbers,
  NaN or infinite; more successes than units; a proportion of zero units (an
  empty group: leave it out, as :func:`~ranklens.online.analyze` does);
  negative variances; ``alpha`` outside (0, 1); arrays that do not broadcast
  together; a sample of no units.

References
----------
- A. Deng, U. Knoblich, J. Lu, "Applying the Delta Method in Metric
  Analytics: A Practical Guide with Novel Ideas", KDD 2018.
- A. Deng, Y. Xu, R. Kohavi, T. Walker, "Improving the Sensitivity of Online
  Controlled Experiments by Utilizing Pre-Experiment Data" (CUPED), WSDM 2013.
- R. Kohavi, D. Tang, Y. Xu, "Trustworthy Online Controlled Experiments",
  Cambridge University Press 2020, chapters 17-21.
- B. L. Welch, "The generalization of 'Student's' problem when several
  different population variances are involved", Biometrika 34 (1947).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.deps import needs
from ranklens._shared.validate import check_alpha, floats, py_value
from ranklens.errors import InputError

__all__ = [
    "Comparison",
    "SRMResult",
    "cuped_theta",
    "delta_method_ratio",
    "normal_comparison",
    "relative_difference",
    "sample_ratio_mismatch",
    "sign_test",
    "two_proportion_ztest",
    "welch_ttest",
]


@dataclass(frozen=True, eq=False)
class Comparison:
    """Treatment versus control; every field is an array of the broadcast shape.

    ``diff = estimate - control_estimate`` with its standard error and
    ``1 - alpha`` confidence interval; ``rel_diff = estimate /
    control_estimate - 1`` with a delta-method interval (see
    :func:`relative_difference`); ``statistic`` and two-sided ``p_value`` of
    the test of no difference; ``df`` its degrees of freedom (``inf`` for
    z-tests).
    """

    estimate: np.ndarray
    control_estimate: np.ndarray
    diff: np.ndarray
    std_error: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    rel_diff: np.ndarray
    rel_ci_lower: np.ndarray
    rel_ci_upper: np.ndarray
    statistic: np.ndarray
    p_value: np.ndarray
    df: np.ndarray


def _at(arr: np.ndarray, bad: np.ndarray) -> tuple[str, float]:
    """Where the first bad element is (text for messages) and its value."""
    if arr.ndim == 0:
        return "", float(arr)
    i = tuple(int(k) for k in np.argwhere(bad)[0])
    return f" at index {i[0] if len(i) == 1 else i}", float(arr[i])


def _nonnegative(arr: np.ndarray, name: str, where: str) -> np.ndarray:
    """Variances: NaN passes (NaN out), negative values raise."""
    bad = arr < 0
    if bad.any():
        at, v = _at(arr, bad)
        raise InputError(
            f"{where}: {name} must be >= 0 (a variance); got {v!r}{at}. Pass "
            "squared standard errors or sample variances, not differences."
        )
    return arr


def _counts(x: Any, name: str, where: str, *, trials: bool = False) -> np.ndarray:
    """Counts: whole numbers >= 0 (>= 1 for ``trials``); NaN, inf and fractions raise."""
    arr = floats(x, name, where)
    bad = ~(np.isfinite(arr) & (arr >= 0) & (arr == np.floor(arr)))
    if bad.any():
        at, v = _at(arr, bad)
        raise InputError(
            f"{where}: {name} must be a count (a whole number >= 0); got {v!r}"
            f"{at}. Pass the number of units, e.g. {name}=1000."
        )
    if trials and (arr == 0).any():
        at, _ = _at(arr, arr == 0)
        raise InputError(
            f"{where}: {name} is 0{at}: a group with no units has no proportion "
            "or mean to compare; leave empty groups out of the comparison."
        )
    return arr


def _broadcast(where: str, **arrays: np.ndarray) -> list[np.ndarray]:
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise InputError(
            f"{where}: the arguments must broadcast to one shape (one element per "
            f"comparison); got shapes {shapes}."
        ) from None


def relative_difference(
    estimate: Any,
    variance: Any,
    control_estimate: Any,
    control_variance: Any,
    crit: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Relative difference ``r = m_t / m_c - 1`` and its interval ``r ± crit * se``.

    First-order delta method for the ratio of two independent estimators
    (Deng, Knoblich & Lu 2018, section 3; Kohavi et al. 2020, ch. 18)::

        Var(m_t / m_c) ≈ Var(m_t) / m_c**2 + m_t**2 * Var(m_c) / m_c**4

    ``variance`` and ``control_variance`` are the variances of the
    *estimators* (squared standard errors) and ``crit >= 0`` the critical
    value (e.g. ``z_{1-alpha/2}``).  NaN where ``m_c == 0`` or an input is
    NaN; a negative variance or ``crit`` raises
    :class:`~ranklens.errors.InputError`.
    """
    w = "relative_difference"
    mt, vt = floats(estimate, "estimate", w), floats(variance, "variance", w)
    mc, vc = (
        floats(control_estimate, "control_estimate", w),
        floats(control_variance, "control_variance", w),
    )
    c = floats(crit, "crit", w)
    _nonnegative(vt, "variance", w)
    _nonnegative(vc, "control_variance", w)
    if (c < 0).any():
        at, v = _at(c, c < 0)
        raise InputError(f"{w}: crit must be >= 0 (a critical value such as 1.96); got {v!r}{at}.")
    mt, vt, mc, vc, c = _broadcast(
        w, estimate=mt, variance=vt, control_estimate=mc, control_variance=vc, crit=c
    )
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ok = (mc != 0) & np.isfinite(mt) & np.isfinite(mc) & np.isfinite(vt) & np.isfinite(vc)
        safe = np.where(ok, mc, 1.0)
        rel = np.where(ok, mt / safe - 1.0, np.nan)
        se = np.where(ok, np.sqrt(vt / safe**2 + mt**2 * vc / safe**4), np.nan)
        half = c * se
        return rel, rel - half, rel + half


def normal_comparison(
    estimate: Any,
    variance: Any,
    control_estimate: Any,
    control_variance: Any,
    *,
    alpha: float = 0.05,
) -> Comparison:
    """z-test for the difference of two independent, asymptotically normal estimators.

    ``variance`` and ``control_variance`` are the variances of the estimators
    (for a mean over ``n`` units, ``s**2 / n``).  With ``se = sqrt(v_t + v_c)``::

        z = (m_t - m_c) / se,   p = 2 * (1 - Phi(|z|)),
        CI = (m_t - m_c) ± z_{1 - alpha/2} * se

    Used for ratio metrics (delta-method variances, :func:`delta_method_ratio`)
    and CUPED-adjusted means.  Assumes the central limit theorem applies to
    each estimator (many independent units per group).  NaN where an input
    is NaN or both variances are 0; negative variances raise
    :class:`~ranklens.errors.InputError`.
    """
    with needs("stats", "ranklens.online.stats.normal_comparison"):
        from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    w = "normal_comparison"
    alpha = check_alpha(alpha, where=w)
    mt, vt = floats(estimate, "estimate", w), floats(variance, "variance", w)
    mc, vc = (
        floats(control_estimate, "control_estimate", w),
        floats(control_variance, "control_variance", w),
    )
    _nonnegative(vt, "variance", w)
    _nonnegative(vc, "control_variance", w)
    mt, vt, mc, vc = _broadcast(
        w, estimate=mt, variance=vt, control_estimate=mc, control_variance=vc
    )
    finite = np.isfinite(mt) & np.isfinite(mc) & np.isfinite(vt) & np.isfinite(vc)
    diff = np.where(finite, mt - mc, np.nan)
    se = np.where(finite, np.sqrt(vt + vc), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, diff / np.where(se > 0, se, 1.0), np.nan)
    p = 2 * stats.norm.sf(np.abs(z))
    crit = stats.norm.ppf(1 - alpha / 2)
    rel, rlo, rhi = relative_difference(mt, vt, mc, vc, crit)
    return Comparison(
        estimate=mt,
        control_estimate=mc,
        diff=diff,
        std_error=se,
        ci_lower=diff - crit * se,
        ci_upper=diff + crit * se,
        rel_diff=rel,
        rel_ci_lower=rlo,
        rel_ci_upper=rhi,
        statistic=z,
        p_value=np.asarray(p, dtype=np.float64),
        df=np.full(diff.shape, np.inf),
    )


def two_proportion_ztest(
    successes: Any,
    n: Any,
    control_successes: Any,
    control_n: Any,
    *,
    alpha: float = 0.05,
) -> Comparison:
    """Two-proportion z-test (pooled variance) with a Wald interval for the difference.

    With ``p_t = x_t / n_t``, ``p_c = x_c / n_c`` and the pooled
    ``p = (x_t + x_c) / (n_t + n_c)``::

        z = (p_t - p_c) / sqrt(p (1 - p) (1/n_t + 1/n_c)),   p-value = 2 (1 - Phi(|z|))
        CI = (p_t - p_c) ± z_{1-alpha/2} sqrt(p_t (1 - p_t)/n_t + p_c (1 - p_c)/n_c)

    Assumes independent Bernoulli units and large counts (``n p`` and
    ``n (1-p)`` of at least about 5 per group).  The test is statsmodels'
    ``test_proportions_2indep(method="score", correction=False)``, which at a
    null difference of 0 is the pooled z-test (identical to
    ``proportions_ztest``); the interval is statsmodels'
    ``confint_proportions_2indep(method="wald")``.  Reference: J. L.
    Fleiss, B. Levin, M. C. Paik, "Statistical Methods for Rates and
    Proportions", 3rd ed., Wiley 2003, ch. 3.

    ``p_value`` and ``statistic`` are NaN when nobody (or everybody)
    converted in both groups; the interval is NaN when its standard error is
    0 (both groups all 0 or all 1).  Counts must be whole numbers with
    ``0 <= successes <= n`` and ``n >= 1``; anything else (NaN, a fraction,
    more successes than units, an empty group) raises
    :class:`~ranklens.errors.InputError` naming the argument.
    """
    with needs("stats", "ranklens.online.stats.two_proportion_ztest"):
        from scipy import stats  # type: ignore[import-untyped, unused-ignore]
        from statsmodels.stats.proportion import (  # type: ignore[import-untyped, unused-ignore]
            confint_proportions_2indep,
            test_proportions_2indep,
        )

    w = "two_proportion_ztest"
    alpha = check_alpha(alpha, where=w)
    xt, nt = _counts(successes, "successes", w), _counts(n, "n", w, trials=True)
    xc = _counts(control_successes, "control_successes", w)
    nc = _counts(control_n, "control_n", w, trials=True)
    xt, nt, xc, nc = _broadcast(w, successes=xt, n=nt, control_successes=xc, control_n=nc)
    for x_, n_, xn, nn in ((xt, nt, "successes", "n"), (xc, nc, "control_successes", "control_n")):
        if (x_ > n_).any():
            at, _ = _at(x_, x_ > n_)
            i = np.argwhere(x_ > n_)[0] if x_.ndim else ()
            raise InputError(
                f"{w}: {xn}={x_[tuple(i)]:g} exceeds {nn}={n_[tuple(i)]:g}{at}; {xn} counts "
                f"the units that converted among the {nn} units of the group, so "
                f"0 <= {xn} <= {nn}."
            )
    pt, pc = xt / nt, xc / nc
    pooled = (xt + xc) / (nt + nc)
    ok = (pooled > 0) & (pooled < 1)
    # statsmodels divides by zero on degenerate inputs: hand it harmless values there
    sx_t, sn_t = np.where(ok, xt, 1.0), np.where(ok, nt, 2.0)
    sx_c, sn_c = np.where(ok, xc, 1.0), np.where(ok, nc, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = test_proportions_2indep(
            sx_t,
            sn_t,
            sx_c,
            sn_c,
            method="score",
            compare="diff",
            correction=False,
            return_results=True,
        )
        lo, hi = confint_proportions_2indep(
            xt, nt, xc, nc, method="wald", compare="diff", alpha=alpha
        )
    z = np.where(ok, np.asarray(res.statistic, dtype=np.float64).reshape(xt.shape), np.nan)
    p = np.where(ok, np.asarray(res.pvalue, dtype=np.float64).reshape(xt.shape), np.nan)
    diff = pt - pc
    vt = pt * (1 - pt) / nt
    vc = pc * (1 - pc) / nc
    se = np.sqrt(vt + vc)
    lo = np.where(se > 0, np.asarray(lo, dtype=np.float64).reshape(xt.shape), np.nan)
    hi = np.where(se > 0, np.asarray(hi, dtype=np.float64).reshape(xt.shape), np.nan)
    crit = stats.norm.ppf(1 - alpha / 2)
    rel, rlo, rhi = relative_difference(pt, vt, pc, vc, crit)
    return Comparison(
        estimate=pt,
        control_estimate=pc,
        diff=diff,
        std_error=se,
        ci_lower=lo,
        ci_upper=hi,
        rel_diff=rel,
        rel_ci_lower=rlo,
        rel_ci_upper=rhi,
        statistic=z,
        p_value=p,
        df=np.full(diff.shape, np.inf),
    )


def welch_ttest(
    mean: Any,
    var: Any,
    n: Any,
    control_mean: Any,
    control_var: Any,
    control_n: Any,
    *,
    alpha: float = 0.05,
) -> Comparison:
    """Welch's unequal-variance t-test from group means, sample variances and sizes.

    ``var`` is the unbiased sample variance (``ddof=1``) of the per-unit
    values.  With ``a = s_t**2 / n_t`` and ``b = s_c**2 / n_c``::

        t = (m_t - m_c) / sqrt(a + b)
        df = (a + b)**2 / (a**2 / (n_t - 1) + b**2 / (n_c - 1))   (Welch-Satterthwaite)
        CI = (m_t - m_c) ± t_{1-alpha/2, df} sqrt(a + b)

    Assumes independent units; the group means are approximately normal
    (large samples make this hold for skewed metrics such as revenue).  The
    statistic and p-value are ``scipy.stats.ttest_ind_from_stats(...,
    equal_var=False)``.  NaN when a group has a single unit, when neither
    group varies, or when a mean or variance is NaN or infinite.  Sizes must
    be whole numbers >= 1 and variances >= 0, else
    :class:`~ranklens.errors.InputError`.  Reference: Welch (1947).
    """
    with needs("stats", "ranklens.online.stats.welch_ttest"):
        from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    w = "welch_ttest"
    alpha = check_alpha(alpha, where=w)
    mt, mc = floats(mean, "mean", w), floats(control_mean, "control_mean", w)
    vt = _nonnegative(floats(var, "var", w), "var", w)
    vc = _nonnegative(floats(control_var, "control_var", w), "control_var", w)
    nt, nc = _counts(n, "n", w, trials=True), _counts(control_n, "control_n", w, trials=True)
    mt, vt, nt, mc, vc, nc = _broadcast(
        w, mean=mt, var=vt, n=nt, control_mean=mc, control_var=vc, control_n=nc
    )
    finite = np.isfinite(mt) & np.isfinite(mc) & np.isfinite(vt) & np.isfinite(vc)
    ok = finite & (nt >= 2) & (nc >= 2) & ((vt > 0) | (vc > 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(ok, vt / nt, np.nan)
        b = np.where(ok, vc / nc, np.nan)
        df = np.where(
            ok,
            (a + b) ** 2 / (a**2 / np.where(ok, nt - 1, 1.0) + b**2 / np.where(ok, nc - 1, 1.0)),
            np.nan,
        )
    se = np.sqrt(a + b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.ttest_ind_from_stats(
            np.where(ok, mt, 0.0),
            np.sqrt(np.where(ok, vt, 1.0)),
            np.where(ok, nt, 2.0),
            np.where(ok, mc, 0.0),
            np.sqrt(np.where(ok, vc, 1.0)),
            np.where(ok, nc, 2.0),
            equal_var=False,
        )
    t = np.where(ok, np.asarray(res.statistic, dtype=np.float64), np.nan)
    p = np.where(ok, np.asarray(res.pvalue, dtype=np.float64), np.nan)
    crit = stats.t.ppf(1 - alpha / 2, np.where(ok, df, 1.0))
    crit = np.where(ok, crit, np.nan)
    with np.errstate(invalid="ignore"):
        diff = mt - mc
    rel, rlo, rhi = relative_difference(mt, a, mc, b, crit)
    return Comparison(
        estimate=mt,
        control_estimate=mc,
        diff=diff,
        std_error=se,
        ci_lower=diff - crit * se,
        ci_upper=diff + crit * se,
        rel_diff=np.where(ok, rel, np.nan),
        rel_ci_lower=rlo,
        rel_ci_upper=rhi,
        statistic=t,
        p_value=p,
        df=df,
    )


def delta_method_ratio(
    numerator: Any, denominator: Any, *, axis: int = -1
) -> tuple[np.ndarray, np.ndarray]:
    """Ratio of sums over units and the delta-method variance of that ratio.

    For units ``i = 1..n`` with numerator ``X_i`` (clicks) and denominator
    ``Y_i`` (impressions), ``R = sum X / sum Y = mean(X) / mean(Y)`` and::

        Var(R) ≈ (s_X**2 - 2 R s_XY + R**2 s_Y**2) / (n * mean(Y)**2)
               = s**2(X - R Y) / (n * mean(Y)**2)

    (sample moments with ``ddof=1``).  This treats the unit of randomisation
    (user) as the independent unit and so accounts for the correlation of
    impressions within a user, which the naive binomial interval
    ``sqrt(R (1 - R) / sum Y)`` ignores.  Assumes i.i.d. units and
    ``mean(Y) > 0``.  Reference: Deng, Knoblich & Lu (2018), section 2;
    Kohavi et al. (2020), ch. 18.

    Returns ``(R, Var(R))`` reduced along ``axis``; NaN where ``sum Y == 0``,
    where a value is NaN or infinite, or where there is a single unit.  No
    units at all, shapes that do not broadcast or a bad ``axis`` raise
    :class:`~ranklens.errors.InputError`.
    """
    w = "delta_method_ratio"
    xf, yf = floats(numerator, "numerator", w), floats(denominator, "denominator", w)
    x, y = _broadcast(w, numerator=xf, denominator=yf)
    if (
        isinstance(axis, bool)
        or not isinstance(axis, (int, np.integer))
        or not -x.ndim <= axis < max(x.ndim, 1)
        or x.ndim == 0
    ):
        raise InputError(
            f"{w}: axis={axis!r} is not an axis of the per-unit arrays of shape "
            f"{x.shape}; pass the axis that runs over units (default -1)."
        )
    n = x.shape[axis]
    if n == 0:
        raise InputError(
            f"{w}: numerator and denominator hold no units (axis {axis} has "
            "length 0); pass per-unit values of at least one unit."
        )
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        finite = np.isfinite(x).all(axis=axis) & np.isfinite(y).all(axis=axis)
        xs = np.where(np.isfinite(x) & np.isfinite(y), x, 0.0)
        ys = np.where(np.isfinite(x) & np.isfinite(y), y, 0.0)
        my = ys.mean(axis=axis)
        mx = xs.mean(axis=axis)
        ok = finite & (my != 0) & (n >= 2)
        r = np.where(ok, mx / np.where(my != 0, my, 1.0), np.nan)
        lin = xs - np.expand_dims(np.where(ok, r, 0.0), axis) * ys
        s2 = lin.var(axis=axis, ddof=1) if n >= 2 else np.full(np.shape(r), np.nan)
        var = np.where(ok, s2 / (n * np.where(ok, my, 1.0) ** 2), np.nan)
    return r, var


def cuped_theta(y: Any, x: Any) -> float:
    """CUPED coefficient ``theta = Cov(Y, X) / Var(X)`` over all units of all groups.

    ``Y`` is the in-experiment metric (or, for ratio metrics, its linearised
    per-unit value), ``X`` the pre-experiment covariate, 1-d arrays with one
    value per unit.  The adjusted per-unit value ``Y - theta (X - mean(X))``
    has the same expectation in every group (``X`` is unaffected by the
    treatment) and variance ``Var(Y) (1 - rho**2)``.  0 (no adjustment) when
    ``X`` does not vary or there is a single unit; NaN when a value is NaN or
    infinite; no units or arrays of different lengths raise
    :class:`~ranklens.errors.InputError`.  Reference: Deng, Xu, Kohavi &
    Walker (2013), section 3.
    """
    w = "cuped_theta"
    yy, xx = floats(y, "y", w), floats(x, "x", w)
    if yy.ndim != 1 or yy.shape != xx.shape:
        raise InputError(
            f"{w}: y and x must be 1-d arrays with one value per unit, of the same "
            f"length; got shapes {yy.shape} (y) and {xx.shape} (x)."
        )
    if yy.size == 0:
        raise InputError(f"{w}: y and x hold no units; pass the values of at least one unit.")
    if not (np.isfinite(yy).all() and np.isfinite(xx).all()):
        return float("nan")
    if yy.size < 2:
        return 0.0
    xc = xx - xx.mean()
    vx = float(np.dot(xc, xc))
    if vx <= 0:
        return 0.0
    return float(np.dot(yy - yy.mean(), xc) / vx)


@dataclass(frozen=True)
class SRMResult:
    """Sample-ratio-mismatch check: observed units per variant against the plan.

    ``mismatch`` is true when ``p_value < threshold``.
    """

    observed: dict[str, int]
    expected_share: dict[str, float]
    statistic: float
    p_value: float
    threshold: float
    mismatch: bool

    def describe(self) -> str:
        """One sentence for reports and warnings."""
        total = sum(self.observed.values())
        parts = ", ".join(
            f"{v}: {self.observed[v]} ({self.observed[v] / total:.2%} observed vs "
            f"{self.expected_share[v]:.2%} planned)"
            if total
            else f"{v}: 0"
            for v in self.observed
        )
        return (
            f"sample ratio mismatch: chi-square = {self.statistic:.2f}, p = {self.p_value:.2g} "
            f"< {self.threshold:g}; {parts}. The assignment or logging is likely broken and "
            "the results below are not trustworthy."
        )


def sample_ratio_mismatch(
    observed: dict[str, int], expected_share: dict[str, float], *, threshold: float = 0.001
) -> SRMResult:
    """Chi-square goodness-of-fit test of unit counts against planned shares.

    ``X2 = sum_v (O_v - E_v)**2 / E_v`` with ``E_v = N * share_v``, compared
    with a chi-square distribution with ``k - 1`` degrees of freedom
    (``scipy.stats.chisquare``).  The conventional threshold is
    ``p < 0.001``: SRM checks run on every experiment, so a strict threshold
    keeps false alarms rare while real mismatches (usually huge) still show.
    Reference: A. Fabijan et al., "Diagnosing Sample Ratio Mismatch in Online
    Controlled Experiments", KDD 2019; Kohavi et al. (2020), ch. 21.

    ``observed`` maps variants to unit counts (whole numbers >= 0; a variant
    of the plan missing from it counts 0), ``expected_share`` every variant
    of the plan (at least two) to a positive weight (normalised to shares).
    The statistic and p-value are NaN when no unit was observed (nothing to
    check yet; ``mismatch`` is then false).  A negative, fractional or NaN
    count, a non-positive or NaN weight, a variant observed but not planned
    or a ``threshold`` outside (0, 1) raise :class:`~ranklens.errors.InputError`.
    """
    with needs("stats", "ranklens.online.stats.sample_ratio_mismatch"):
        from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    w = "sample_ratio_mismatch"
    check_alpha(threshold, name="threshold", where=w, example="threshold=0.001")
    if not isinstance(observed, Mapping) or not isinstance(expected_share, Mapping):
        raise InputError(
            f"{w}: observed and expected_share must be mappings {{variant: "
            "count}} and {variant: share}."
        )
    names = list(expected_share)
    if len(names) < 2:
        raise InputError(f"{w}: expected_share must plan at least two variants, got {names}.")
    unknown = [v for v in observed if v not in expected_share]
    if unknown:
        raise InputError(
            f"{w}: observed has variant(s) {unknown} that are not in "
            f"expected_share {names}; add them to the plan or leave them out."
        )
    obs = floats([observed.get(v, 0) for v in names], "observed", w)
    bad = ~(np.isfinite(obs) & (obs >= 0) & (obs == np.floor(obs)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{w}: observed[{py_value(names[i])!r}] is {py_value(observed[names[i]])!r}; observed "
            "values must be unit counts (whole numbers >= 0)."
        )
    share = floats([expected_share[v] for v in names], "expected_share", w)
    bad = ~(np.isfinite(share) & (share > 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{w}: expected_share[{py_value(names[i])!r}] is "
            f"{py_value(expected_share[names[i]])!r}; "
            "planned shares must be positive numbers (weights, normalised to sum "
            "to 1)."
        )
    share = share / share.sum()
    total = obs.sum()
    if total <= 0:
        stat, p = float("nan"), float("nan")
    else:
        res = stats.chisquare(obs, share * total)
        stat, p = float(res.statistic), float(res.pvalue)
    return SRMResult(
        observed={v: int(o) for v, o in zip(names, obs, strict=True)},
        expected_share={v: float(s) for v, s in zip(names, share, strict=True)},
        statistic=stat,
        p_value=p,
        threshold=float(threshold),
        mismatch=bool(p < threshold) if np.isfinite(p) else False,
    )


def sign_test(wins: Any, losses: Any) -> np.ndarray:
    """Exact two-sided sign test (binomial test of ``wins`` against ``losses`` with
    success probability 1/2; ties are left out before calling it).

    With ``n = wins + losses`` and ``X ~ Binomial(n, 1/2)``::

        p = min(1, 2 * P(X <= min(wins, losses)))

    the two-sided p-value of :func:`scipy.stats.binomtest` (the distribution is
    symmetric, so doubling the smaller tail is exact).  Vectorised: ``wins`` and
    ``losses`` broadcast together.  NaN where ``n = 0`` (nothing to test); counts that
    are negative, fractional, NaN or infinite raise :class:`~ranklens.errors.InputError`.
    Used by interleaving analysis (Chapelle, Joachims, Radlinski & Yue 2012, "Large-scale
    validation and analysis of interleaved search evaluation", TOIS 30(1), section 5).

    >>> sign_test([9, 5], [1, 5]).round(4).tolist()
    [0.0215, 1.0]
    """
    with needs("stats", "ranklens.online.stats.sign_test"):
        from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    w = "sign_test"
    wi = _counts(wins, "wins", w)
    lo = _counts(losses, "losses", w)
    wi, lo = _broadcast(w, wins=wi, losses=lo)
    n = wi + lo
    with np.errstate(invalid="ignore"):
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wi, lo), n, 0.5))
    return np.asarray(np.where(n > 0, p, np.nan), dtype=np.float64)
