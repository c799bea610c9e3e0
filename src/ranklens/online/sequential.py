"""Sequential monitoring that stays valid however often you look: the normal-mixture mSPRT.

Teams look at experiment dashboards every day and stop when something looks
significant.  Re-running a fixed-horizon test at every look inflates the
false-positive rate (to about 20% at alpha = 5% with ten looks).  The mixture
sequential probability ratio test (mSPRT) of Johari et al. gives
*always-valid* p-values and confidence sequences: the chance that the p-value
*ever* drops below ``alpha`` under the null, at any data-dependent stopping
time, is at most ``alpha``.

Formulas.  At look ``k`` let ``d_k`` be the estimated difference (treatment
minus control) and ``V_k`` its variance (``s_t**2/n_t + s_c**2/n_c``, or the
delta-method variance for ratio metrics).  With a normal mixing distribution
``N(theta_0, tau**2)`` over the true difference, the mixture likelihood ratio
against ``H0: difference = theta_0`` is (Johari et al. 2022, eq. for the
two-sample normal case, written with ``V_k = 2 sigma**2 / n``)::

    Lambda_k = sqrt(V_k / (V_k + tau**2)) * exp(tau**2 (d_k - theta_0)**2 / (2 V_k (V_k + tau**2)))

The always-valid p-value is ``p_k = min(1, min_{j <= k} 1 / Lambda_j)`` and
``H0`` is rejected the first time ``Lambda_k >= 1 / alpha``.  Inverting the
test over ``theta_0`` gives the confidence sequence::

    CS_k = intersection_{j <= k} [d_j ± sqrt(V_j (V_j + tau**2) / tau**2
                                          * (2 log(1/alpha) + log(1 + tau**2 / V_j)))]

which covers the true difference at every look simultaneously with
probability at least ``1 - alpha`` (Howard et al. 2021 call this the
two-sided normal-mixture boundary).

Assumptions: independent units; the difference estimate is approximately a
Gaussian process in the information ``1/V_k`` (true for sums of i.i.d. unit
contributions by the central limit theorem, for a fixed allocation ratio);
variances are estimated and plugged in, which is accurate once each group has
a few hundred units.  ``tau`` is the prior scale of plausible effects in
metric units; the width of the sequence at a planned final variance ``V`` is
smallest for ``tau**2 = r V`` with ``r - log(1 + r) = 2 log(1/alpha)``
(:func:`mixture_tau`).

References
----------
- R. Johari, P. Koomen, L. Pekelis, D. Walsh, "Always Valid Inference:
  Continuous Monitoring of A/B Tests", Operations Research 70(3), 2022
  (arXiv:1512.04922).
- H. Robbins, "Statistical methods related to the law of the iterated
  logarithm", Annals of Mathematical Statistics 41(5), 1970.
- S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon, "Time-uniform,
  nonparametric, nonasymptotic confidence sequences", Annals of Statistics
  49(2), 2021.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.deps import needs
from ranklens._shared.validate import check_alpha, check_number, floats
from ranklens.errors import InputError

__all__ = ["SequentialTest", "mixture_tau", "msprt"]


@dataclass(frozen=True, eq=False)
class SequentialTest:
    """Result of :func:`msprt`; arrays shaped like the inputs (looks on the last axis).

    ``p_value`` is the always-valid p-value after each look (non-increasing),
    ``ci_lower``/``ci_upper`` the running confidence sequence (nested),
    ``rejected`` whether ``H0`` has been rejected by that look and
    ``first_rejection`` the index of the first rejecting look (-1 if none),
    with the looks axis removed.
    """

    log_lr: np.ndarray
    p_value: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    rejected: np.ndarray
    first_rejection: np.ndarray
    tau: np.ndarray
    alpha: float


def mixture_tau(variance: Any, *, alpha: float = 0.05) -> np.ndarray:
    """Mixing scale ``tau`` that makes the confidence sequence narrowest at ``variance``.

    The squared half-width divided by ``V`` is ``(1 + 1/r) (2 log(1/alpha) +
    log(1 + r))`` with ``r = tau**2 / V``; setting its derivative to zero
    gives ``r - log(1 + r) = 2 log(1/alpha)``, solved with the lower branch
    of the Lambert W function: ``1 + r = -W_{-1}(-exp(-(2 log(1/alpha) + 1)))``.
    Pass the variance of the difference expected at the planned end of the
    experiment (e.g. ``2 sigma**2 / n`` for ``n`` units per group).
    """
    with needs("stats", "ranklens.online.sequential.mixture_tau"):
        from scipy.special import lambertw  # type: ignore[import-untyped, unused-ignore]

    alpha = check_alpha(alpha, where="mixture_tau")
    v = floats(variance, "variance", "mixture_tau")
    bad = ~(np.isfinite(v) & (v > 0))
    if bad.any():
        first = v if v.ndim == 0 else v[tuple(np.argwhere(bad)[0])]
        raise InputError(
            f"mixture_tau: the variance must be positive and finite, got "
            f"{float(first)!r}; pass the variance of the difference expected at "
            "the last look, e.g. 2 * sigma**2 / n."
        )
    c = 2 * math.log(1 / alpha) + 1
    r = float(-lambertw(-math.exp(-c), k=-1).real) - 1.0
    return np.sqrt(r * v)


def msprt(
    diff: Any,
    variance: Any,
    *,
    tau: Any,
    alpha: float = 0.05,
    null: float = 0.0,
) -> SequentialTest:
    """Normal-mixture sequential test over a series of looks (see the module docs).

    Parameters
    ----------
    diff, variance
        Estimated difference and its variance at each look, the looks on the
        last axis (any leading axes, e.g. metrics or simulated experiments,
        are kept).  A look whose difference or variance is NaN or infinite,
        or whose variance is 0, has no data (yet): it is skipped, i.e. it
        neither rejects nor narrows the sequence, and the p-value and
        sequence carry over from the previous look (1 and (-inf, inf) before
        any data).  This is the NaN rule of an always-valid test: the
        running p-value stays valid at every look, so a look without data
        changes nothing -- it never yields a smaller p-value than the looks
        with data alone.  A negative variance or no looks at all raise
        :class:`~ranklens.errors.InputError`.
    tau
        Mixing scale (standard deviation of the normal prior over effects), in
        metric units; broadcast against the leading axes.  See
        :func:`mixture_tau`.
    alpha
        Error rate; the test rejects when ``Lambda >= 1 / alpha``.
    null
        Difference under the null hypothesis (a finite number).

    >>> res = msprt([0.0, 0.5, 0.9], [1.0, 0.1, 0.01], tau=0.3)
    >>> bool(res.rejected[-1]), float(res.p_value[0])
    (True, 1.0)
    """
    alpha = check_alpha(alpha, where="msprt")
    d = floats(diff, "diff", "msprt")
    v = floats(variance, "variance", "msprt")
    if d.shape != v.shape or d.ndim == 0:
        raise InputError(
            f"msprt: diff and variance must be arrays of the same shape with the looks on the "
            f"last axis, got shapes {d.shape} and {v.shape}."
        )
    if d.shape[-1] == 0:
        raise InputError(
            "msprt: diff and variance hold no looks (the last axis has length 0); "
            "pass the estimate and its variance at one look or more."
        )
    if (v < 0).any():
        raise InputError(
            f"msprt: variance must be >= 0 (the variance of the difference at each "
            f"look), got {float(v[v < 0][0])!r}; NaN marks a look without data."
        )
    null = check_number("null", null, where="msprt", hint="pass the difference under H0, usually 0")
    t = floats(tau, "tau", "msprt")
    if np.any(~(t > 0)) or not np.all(np.isfinite(t)):
        raise InputError(
            f"msprt: tau must be positive and finite, got {tau!r}; see mixture_tau(variance)."
        )
    try:
        t2 = np.broadcast_to(t[..., None] if t.ndim else t, d.shape) ** 2
    except ValueError:
        raise InputError(
            f"msprt: tau of shape {t.shape} does not match the leading axes "
            f"{d.shape[:-1]} of diff; pass one tau, or one per row."
        ) from None
    ok = np.isfinite(d) & np.isfinite(v) & (v > 0)
    vs = np.where(ok, v, 1.0)
    ds = np.where(ok, d - float(null), 0.0)
    log_lr = 0.5 * np.log(vs / (vs + t2)) + t2 * ds**2 / (2 * vs * (vs + t2))
    log_lr = np.where(ok, log_lr, 0.0)
    best = np.maximum.accumulate(np.maximum(log_lr, 0.0), axis=-1)
    p = np.exp(-best)
    half = np.sqrt(vs * (vs + t2) / t2 * (2 * math.log(1 / alpha) + np.log1p(t2 / vs)))
    lo = np.where(ok, d - half, -np.inf)
    hi = np.where(ok, d + half, np.inf)
    lo = np.maximum.accumulate(lo, axis=-1)
    hi = np.minimum.accumulate(hi, axis=-1)
    rejected = p <= alpha
    any_rej = rejected.any(axis=-1)
    first = np.where(any_rej, np.argmax(rejected, axis=-1), -1)
    return SequentialTest(
        log_lr=log_lr,
        p_value=p,
        ci_lower=lo,
        ci_upper=hi,
        rejected=rejected,
        first_rejection=first,
        tau=t,
        alpha=alpha,
    )
