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
        from scipy import special  # type: ignore[import-untyped, unused-ignore]

    # The functions behind scipy.stats' ``t.isf`` and ``nct.sf``, called directly: the
    # same numbers without importing scipy.stats (half a second of a ``compare``).
    # ``nct.sf(c, df, nc)`` is ``nctdtr(df, -nc, -c)`` (``-T`` is noncentral t at
    # ``-nc``); where Boost's series gives NaN, far in the tail, scipy.stats answers.
    def sf(c: float, nc: float) -> float:
        value = float(special.nctdtr(df, -nc, -c))
        if value != value:
            from scipy import stats  # type: ignore[import-untyped, unused-ignore]

            return float(stats.nct.sf(c, df, nc))
        return min(1.0, max(0.0, value))

    with warnings.catch_warnings():
        # Boost's series for the noncentral t may report slow convergence in the far tail,
        # where the tail is 0 or 1 to double precision anyway
        warnings.simplefilter("ignore", RuntimeWarning)
        if alternative == "larger":
            return sf(-float(special.stdtrit(df, alpha)), nc)
        c = -float(special.stdtrit(df, alpha / 2))
        return float(min(1.0, sf(c, nc) + sf(c, -nc)))
