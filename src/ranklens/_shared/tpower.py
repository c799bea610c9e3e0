"""The power of a t-test from its degrees of freedom and noncentrality: the one
definition that :mod:`ranklens.online.power_analysis` (two-sample t) and
:mod:`ranklens.comparison.power` (paired t, topic set size design) share."""

from __future__ import annotations

import warnings

from ranklens._shared.deps import needs

__all__ = ["t_power"]


def t_power(nc: float, df: float, alpha: float, alternative: str) -> float:
    """Power of a t-test with ``df`` degrees of freedom at noncentrality ``nc``:
    ``P(T > t_{1-alpha})`` (``alternative='larger'``) or
    ``P(|T| > t_{1-alpha/2})`` (two-sided), ``T`` noncentral t (statsmodels'
    ``TTestPower`` / ``TTestIndPower`` formula).  The lower tail of the two-sided test is
    the upper tail of ``-T`` (``nct.sf(c, df, -nc)``): scipy's ``nct.cdf`` far in the
    tail is NaN, which made statsmodels return NaN powers for valid inputs.

    >>> round(t_power(2.8284271247461903, 7, 0.05, "two-sided"), 4)  # d = 1, n = 8 paired
    0.6808
    """
    with needs("stats", "t-test power"):
        from scipy import stats  # type: ignore[import-untyped, unused-ignore]

    with warnings.catch_warnings():
        # Boost's series for the noncentral t may report slow convergence in the far tail,
        # where the tail is 0 or 1 to double precision anyway
        warnings.simplefilter("ignore", RuntimeWarning)
        if alternative == "larger":
            return float(stats.nct.sf(stats.t.isf(alpha, df), df, nc))
        c = stats.t.isf(alpha / 2, df)
        return float(min(1.0, stats.nct.sf(c, df, nc) + stats.nct.sf(c, df, -nc)))
