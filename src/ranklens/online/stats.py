"""Vectorised two-sample tests for A/B experiments.

Every function takes per-group summary statistics as numpy arrays (or
scalars) that broadcast together, so one call compares many metrics,
variants or simulated experiments at once, and returns a :class:`Comparison`
of arrays.  Impossible comparisons (an empty group, no variation at all)
give NaN rather than an error.  Distributions and library tests come from
scipy and statsmodels, imported when a function is first called.

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
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Comparison",
    "SRMResult",
    "cuped_theta",
    "delta_method_ratio",
    "normal_comparison",
    "relative_difference",
    "sample_ratio_mismatch",
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


def _f(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def _check_alpha(alpha: float) -> float:
    from ranklens.errors import InputError

    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InputError(f"alpha must be a number in (0, 1), got {alpha!r}.")
    return float(alpha)


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
    *estimators* (squared standard errors).  NaN where ``m_c == 0``.
    """
    mt, vt, mc, vc = _f(estimate), _f(variance), _f(control_estimate), _f(control_variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = mc != 0
        safe = np.where(ok, mc, 1.0)
        rel = np.where(ok, mt / safe - 1.0, np.nan)
        se = np.where(ok, np.sqrt(vt / safe**2 + mt**2 * vc / safe**4), np.nan)
    c = _f(crit)
    return rel, rel - c * se, rel + c * se


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
    each estimator (many independent units per group).
    """
    from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    alpha = _check_alpha(alpha)
    mt, vt, mc, vc = np.broadcast_arrays(_f(estimate), _f(variance), _f(control_estimate),
                                         _f(control_variance))
    diff = mt - mc
    se = np.sqrt(vt + vc)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, diff / np.where(se > 0, se, 1.0), np.nan)
    p = 2 * stats.norm.sf(np.abs(z))
    crit = stats.norm.ppf(1 - alpha / 2)
    rel, rlo, rhi = relative_difference(mt, vt, mc, vc, crit)
    return Comparison(
        estimate=mt, control_estimate=mc, diff=diff, std_error=se,
        ci_lower=diff - crit * se, ci_upper=diff + crit * se,
        rel_diff=rel, rel_ci_lower=rlo, rel_ci_upper=rhi,
        statistic=z, p_value=np.asarray(p, dtype=np.float64),
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
    ``confint_proportions_2indep(method="wald")``.  NaN when a group is empty
    or nobody (or everybody) converted in both groups.  Reference: J. L.
    Fleiss, B. Levin, M. C. Paik, "Statistical Methods for Rates and
    Proportions", 3rd ed., Wiley 2003, ch. 3.
    """
    from scipy import stats  # type: ignore[import-untyped, unused-ignore]
    from statsmodels.stats.proportion import (  # type: ignore[import-untyped, unused-ignore]
        confint_proportions_2indep,
        test_proportions_2indep,
    )

    alpha = _check_alpha(alpha)
    xt, nt, xc, nc = np.broadcast_arrays(_f(successes), _f(n), _f(control_successes),
                                         _f(control_n))
    ok_n = (nt > 0) & (nc > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pt = np.where(ok_n, xt / np.where(nt > 0, nt, 1.0), np.nan)
        pc = np.where(ok_n, xc / np.where(nc > 0, nc, 1.0), np.nan)
        pooled = (xt + xc) / np.where(ok_n, nt + nc, 1.0)
    ok = ok_n & (pooled > 0) & (pooled < 1)
    # statsmodels divides by zero on degenerate inputs: hand it harmless values there
    sx_t, sn_t = np.where(ok, xt, 1.0), np.where(ok, nt, 2.0)
    sx_c, sn_c = np.where(ok, xc, 1.0), np.where(ok, nc, 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = test_proportions_2indep(sx_t, sn_t, sx_c, sn_c, method="score", compare="diff",
                                      correction=False, return_results=True)
        lo, hi = confint_proportions_2indep(np.where(ok_n, xt, 1.0), np.where(ok_n, nt, 2.0),
                                            np.where(ok_n, xc, 1.0), np.where(ok_n, nc, 2.0),
                                            method="wald", compare="diff", alpha=alpha)
    z = np.where(ok, np.asarray(res.statistic, dtype=np.float64).reshape(xt.shape), np.nan)
    p = np.where(ok, np.asarray(res.pvalue, dtype=np.float64).reshape(xt.shape), np.nan)
    diff = pt - pc
    lo = np.where(ok_n, np.asarray(lo, dtype=np.float64).reshape(xt.shape), np.nan)
    hi = np.where(ok_n, np.asarray(hi, dtype=np.float64).reshape(xt.shape), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        vt = pt * (1 - pt) / np.where(nt > 0, nt, 1.0)
        vc = pc * (1 - pc) / np.where(nc > 0, nc, 1.0)
    crit = stats.norm.ppf(1 - alpha / 2)
    rel, rlo, rhi = relative_difference(pt, vt, pc, vc, crit)
    return Comparison(
        estimate=pt, control_estimate=pc, diff=diff, std_error=np.sqrt(vt + vc),
        ci_lower=lo, ci_upper=hi, rel_diff=rel, rel_ci_lower=rlo, rel_ci_upper=rhi,
        statistic=z, p_value=p, df=np.full(diff.shape, np.inf),
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
    equal_var=False)``.  NaN when a group has fewer than two units or neither
    group varies.  Reference: Welch (1947).
    """
    from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    alpha = _check_alpha(alpha)
    mt, vt, nt, mc, vc, nc = np.broadcast_arrays(_f(mean), _f(var), _f(n), _f(control_mean),
                                                 _f(control_var), _f(control_n))
    ok = (nt >= 2) & (nc >= 2) & ((vt > 0) | (vc > 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(ok, vt / np.where(nt > 0, nt, 1.0), np.nan)
        b = np.where(ok, vc / np.where(nc > 0, nc, 1.0), np.nan)
        df = np.where(ok, (a + b) ** 2 / (a**2 / np.where(ok, nt - 1, 1.0)
                                           + b**2 / np.where(ok, nc - 1, 1.0)), np.nan)
    se = np.sqrt(a + b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.ttest_ind_from_stats(
            np.where(ok, mt, 0.0), np.sqrt(np.where(ok, vt, 1.0)), np.where(ok, nt, 2.0),
            np.where(ok, mc, 0.0), np.sqrt(np.where(ok, vc, 1.0)), np.where(ok, nc, 2.0),
            equal_var=False,
        )
    t = np.where(ok, np.asarray(res.statistic, dtype=np.float64), np.nan)
    p = np.where(ok, np.asarray(res.pvalue, dtype=np.float64), np.nan)
    crit = stats.t.ppf(1 - alpha / 2, np.where(ok, df, 1.0))
    crit = np.where(ok, crit, np.nan)
    diff = np.where((nt >= 1) & (nc >= 1), mt - mc, np.nan)
    rel, rlo, rhi = relative_difference(mt, a, mc, b, crit)
    return Comparison(
        estimate=np.where(nt >= 1, mt, np.nan), control_estimate=np.where(nc >= 1, mc, np.nan),
        diff=diff, std_error=se, ci_lower=diff - crit * se, ci_upper=diff + crit * se,
        rel_diff=np.where(ok, rel, np.nan), rel_ci_lower=rlo, rel_ci_upper=rhi,
        statistic=t, p_value=p, df=df,
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

    Returns ``(R, Var(R))`` reduced along ``axis``; NaN where ``sum Y == 0``
    or there are fewer than two units.
    """
    x, y = np.broadcast_arrays(_f(numerator), _f(denominator))
    n = x.shape[axis]
    with np.errstate(divide="ignore", invalid="ignore"):
        my = y.mean(axis=axis)
        mx = x.mean(axis=axis)
        ok = (my != 0) & (n >= 2)
        r = np.where(ok, mx / np.where(my != 0, my, 1.0), np.nan)
        lin = x - np.expand_dims(np.where(ok, r, 0.0), axis) * y
        s2 = lin.var(axis=axis, ddof=1) if n >= 2 else np.full(np.shape(r), np.nan)
        var = np.where(ok, s2 / (n * np.where(ok, my, 1.0) ** 2), np.nan)
    return r, var


def cuped_theta(y: np.ndarray, x: np.ndarray) -> float:
    """CUPED coefficient ``theta = Cov(Y, X) / Var(X)`` over all units of all groups.

    ``Y`` is the in-experiment metric (or, for ratio metrics, its linearised
    per-unit value), ``X`` the pre-experiment covariate.  The adjusted
    per-unit value ``Y - theta (X - mean(X))`` has the same expectation in
    every group (``X`` is unaffected by the treatment) and variance
    ``Var(Y) (1 - rho**2)``.  0 when ``X`` does not vary.  Reference: Deng,
    Xu, Kohavi & Walker (2013), section 3.
    """
    if y.size < 2:
        return 0.0
    xc = x - x.mean()
    vx = float(np.dot(xc, xc))
    if vx <= 0:
        return 0.0
    return float(np.dot(y - y.mean(), xc) / vx)


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
            f"{self.expected_share[v]:.2%} planned)" if total else f"{v}: 0"
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
    """
    from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    names = list(expected_share)
    obs = np.array([observed.get(v, 0) for v in names], dtype=np.float64)
    share = np.array([expected_share[v] for v in names], dtype=np.float64)
    share = share / share.sum()
    total = obs.sum()
    if total <= 0 or len(names) < 2:
        stat, p = float("nan"), float("nan")
    else:
        res = stats.chisquare(obs, share * total)
        stat, p = float(res.statistic), float(res.pvalue)
    return SRMResult(
        observed={v: int(o) for v, o in zip(names, obs, strict=True)},
        expected_share={v: float(s) for v, s in zip(names, share, strict=True)},
        statistic=stat, p_value=p, threshold=threshold,
        mismatch=bool(p < threshold) if np.isfinite(p) else False,
    )
