"""Power, sample size and minimum detectable effect for A/B tests.

Three questions, one model per metric kind (the power functions of
statsmodels' ``NormalIndPower`` and ``TTestIndPower``, solved for the sample
size or effect size with Brent's method to machine precision; scipy and
statsmodels are imported on first use):

- :func:`sample_size`: units needed to detect a given effect;
- :func:`minimum_detectable_effect`: the smallest effect detectable with
  given traffic;
- :func:`power`: the chance of detecting a given effect with given traffic.

Effect sizes:

``proportion``
    Cohen's ``h = 2 asin(sqrt(p_t)) - 2 asin(sqrt(p_c))`` (the arcsine
    transformation stabilises the binomial variance) with the normal power
    function (``statsmodels.stats.power.NormalIndPower``, effect size from
    ``proportion_effectsize``)::

        n_c = (z_{1-alpha/2} + z_{power})**2 (1 + 1/ratio) / h**2

``mean``
    Cohen's ``d = delta / sigma`` for a per-unit standard deviation ``sigma``,
    with the two-sample t power function (``TTestIndPower``); for large ``n``
    ``n_c ≈ (z_{1-alpha/2} + z_{power})**2 (1 + 1/ratio) sigma**2 / delta**2``.

``ratio``
    ``d = delta / sigma_lin`` where ``sigma_lin`` is the standard deviation of
    the linearised per-unit values ``(X_i - R Y_i) / mean(Y)`` (see
    :func:`ratio_unit_std`; ``sigma_lin**2 / n`` is the delta-method variance
    of the ratio), with the normal power function.

``ratio`` is ``n_treatment / n_control`` (1 for an even split).  With ``k``
comparisons, ``comparisons=k`` applies the Bonferroni level ``alpha / k``.
The one-sided ``alternative="larger"`` tests for an increase.

Every argument is checked: ``alpha`` and ``power`` in (0, 1), ``ratio`` and
``std`` positive, ``n_control`` a whole number >= 2, a proportion baseline in
(0, 1), all finite (NaN raises); anything else raises
:class:`~ranklens.errors.InputError` naming the argument.

References: J. Cohen, "Statistical Power Analysis for the Behavioral
Sciences", 2nd ed., 1988, ch. 2 and 6; Kohavi, Tang & Xu, "Trustworthy Online
Controlled Experiments", 2020, ch. 17; Deng, Knoblich & Lu, KDD 2018.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, get_args

import numpy as np

from ranklens._shared.deps import needs
from ranklens._shared.tpower import t_power
from ranklens._shared.validate import (
    check_alpha,
    check_choice,
    check_int,
    check_number,
    floats,
    is_number,
    py_value,
)
from ranklens.errors import InputError
from ranklens.online.metrics import MetricKind

__all__ = [
    "MDEResult",
    "SampleSizeResult",
    "minimum_detectable_effect",
    "power",
    "ratio_unit_std",
    "sample_size",
]

Alternative = Literal["two-sided", "larger"]


@dataclass(frozen=True)
class SampleSizeResult:
    """Units needed per group (rounded up) and in total."""

    n_control: int
    n_treatment: int
    total: int
    effect_size: float
    alpha: float
    power: float


@dataclass(frozen=True)
class MDEResult:
    """Minimum detectable effect: absolute (metric units) and relative to the baseline."""

    absolute: float
    relative: float
    effect_size: float
    n_control: int
    n_treatment: int
    alpha: float
    power: float


def _units(value: Any, name: str) -> int:
    """A number of units: a whole number >= 2 (a t-test needs two units per group)."""
    if (
        not is_number(value)
        or not math.isfinite(float(value))
        or float(value) != math.floor(float(value))
        or float(value) < 2
    ):
        raise InputError(f"{name} must be a whole number of units >= 2 (per group), got {value!r}.")
    return int(value)


def _power_above_alpha(pw: float, a: float) -> None:
    if pw <= a:
        raise InputError(
            f"power={pw:g} is not above the test's alpha={a:g} (after the "
            "Bonferroni split over comparisons): a test detects even no effect "
            "that often. Ask for a power above alpha, e.g. power=0.8."
        )


def _treatment_units(n: int, r: float) -> None:
    if n * r < 2:
        raise InputError(
            f"ratio * n_control = {n * r:g} treatment units; each group needs at "
            "least two units. Increase n_control or ratio."
        )


class _Design(NamedTuple):
    """The checked parameters of a power question (``alpha`` after the Bonferroni split;
    ``power`` and ``n`` when the question has them)."""

    kind: MetricKind
    alpha: float
    ratio: float
    alternative: str
    baseline: float
    sigma: float
    power: float
    n: int


def _design(
    kind: Any,
    baseline: Any,
    std: Any,
    alpha: Any,
    ratio: Any,
    comparisons: Any,
    alternative: Any,
    *,
    power: Any = None,
    n_control: Any = None,
) -> _Design:
    """Check the parameters the three questions share."""
    check_choice("kind", kind, get_args(MetricKind))
    a = check_alpha(alpha)
    r = check_number("ratio (n_treatment / n_control)", ratio, low=0)
    a /= check_int("comparisons", comparisons)
    check_choice("alternative", alternative, get_args(Alternative))
    pw = math.nan
    if power is not None:
        pw = check_number("power", power, low=0, high=1)
        _power_above_alpha(pw, a)
    b, sigma = _baseline_std(kind, baseline, std)
    n = 0
    if n_control is not None:
        n = _units(n_control, "n_control")
        _treatment_units(n, r)
    return _Design(kind, a, r, alternative, b, sigma, pw, n)


def _baseline_std(kind: str, baseline: Any, std: Any) -> tuple[float, float]:
    if kind == "proportion":
        b = check_number("baseline (control conversion rate)", baseline, low=0, high=1)
        if std is not None:
            raise InputError("std is implied by the baseline for proportion metrics; leave it out.")
        return b, math.sqrt(b * (1 - b))
    b = check_number("baseline (control mean)", baseline, low=-math.inf)
    if std is None:
        raise InputError(
            f"std (the per-unit standard deviation) is required for {kind} metrics; estimate "
            "it from a previous period"
            + (" with ratio_unit_std(numerator, denominator)." if kind == "ratio" else ".")
        )
    return b, check_number("std", std, low=0)


def _effect_to_abs(kind: str, baseline: float, sigma: float, es: float) -> float:
    if kind == "proportion":
        angle = math.asin(math.sqrt(baseline)) + es / 2
        if angle > math.pi / 2:  # beyond p_t = 1: no proportion is that far away
            return math.nan
        return math.sin(angle) ** 2 - baseline
    return es * sigma


def _abs_to_effect(kind: str, baseline: float, sigma: float, delta: float) -> float:
    if kind == "proportion":
        with needs("stats", "ranklens.online power analysis"):
            from statsmodels.stats.proportion import proportion_effectsize  # type: ignore[import-untyped, unused-ignore]

        target = baseline + delta
        if not 0 < target < 1:
            raise InputError(
                f"baseline + effect = {target:g} is not a proportion in (0, 1); check the "
                "effect (and relative=)."
            )
        return float(proportion_effectsize(target, baseline))
    return delta / sigma


def _solver(kind: str) -> Any:
    with needs("stats", "ranklens.online power analysis"):
        from statsmodels.stats.power import NormalIndPower  # type: ignore[import-untyped, unused-ignore]

    return NormalIndPower()


def _power_at(
    kind: str, es: float, n1: float, alpha: float, ratio: float, alternative: str
) -> float:
    """Power of the test at effect size ``es`` with ``n1`` control and ``ratio * n1``
    treatment units: statsmodels' ``TTestIndPower().power`` for means (two-sample t,
    noncentral t with ``n1 + n2 - 2`` degrees of freedom and noncentrality
    ``es * sqrt(n1 n2 / (n1 + n2))``), ``NormalIndPower().power`` otherwise.

    The t power is computed here with the same formula, but the lower tail of the
    two-sided test as the upper tail of ``-T`` (``nct.sf(c, df, -nc)``): scipy's
    ``nct.cdf`` far in the tail is NaN, which made statsmodels return NaN powers for
    valid inputs (e.g. ``es = 0.06`` with 40,000 and 20,000 units;
    :func:`ranklens._shared.tpower.t_power`)."""
    if kind != "mean":
        return float(
            _solver(kind).power(
                effect_size=es, nobs1=n1, alpha=alpha, ratio=ratio, alternative=alternative
            )
        )
    n2 = n1 * ratio
    return t_power(es * math.sqrt(n1 * n2 / (n1 + n2)), n1 + n2 - 2, alpha, alternative)


def _increasing_root(f: Any, x0: float, low: float) -> float:
    """The root of an increasing function ``f`` on ``(low, inf)``, bracketed from ``x0``
    (Brent's method to machine precision); ``low`` when ``f(low) >= 0``."""
    with needs("stats", "ranklens.online power analysis"):
        from scipy.optimize import brentq  # type: ignore[import-untyped, unused-ignore]

    lo, hi = max(x0 / 2, low), max(x0 * 2, low * 2)
    for _ in range(200):
        if f(hi) > 0:
            break
        lo, hi = hi, hi * 2
    for _ in range(200):
        if lo <= low or f(lo) < 0:
            break
        hi, lo = lo, max(lo / 2, low)
    if f(lo) >= 0:
        return lo
    return float(brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500))


def _z(q: float) -> float:
    with needs("stats", "ranklens.online power analysis"):
        from scipy.special import ndtri  # type: ignore[import-untyped, unused-ignore]

    return float(ndtri(q))


def sample_size(
    kind: MetricKind,
    *,
    baseline: float,
    effect: float,
    relative: bool = False,
    std: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    ratio: float = 1.0,
    comparisons: int = 1,
    alternative: Alternative = "two-sided",
) -> SampleSizeResult:
    """Units per group needed to detect ``effect`` with the given power.

    Parameters
    ----------
    kind
        ``"proportion"``, ``"mean"`` or ``"ratio"`` (see the module docs).
    baseline
        Control value: conversion rate, mean or ratio.
    effect
        Effect to detect, in metric units, or relative to ``baseline`` when
        ``relative=True`` (0.02 means +2%).
    std
        Per-unit standard deviation (``mean``), or of the linearised values
        (``ratio``); not used for proportions.

    >>> res = sample_size("proportion", baseline=0.10, effect=0.01)
    >>> 14000 < res.n_control < 15000
    True
    """
    kind, a, r, alt, b, sigma, pw, _ = _design(
        kind, baseline, std, alpha, ratio, comparisons, alternative, power=power
    )
    eff = check_number("effect", effect, low=-math.inf)
    delta = eff * b if relative else eff
    if delta == 0:
        raise InputError(
            "effect must not be zero"
            + (
                " (relative=True with baseline=0 makes every effect zero; give an absolute effect)."
                if relative and eff != 0
                else "; give the smallest effect worth detecting."
            )
        )
    es = _abs_to_effect(kind, b, sigma, delta)
    if alt == "larger" and es < 0:
        raise InputError("alternative='larger' needs a positive effect.")
    # the normal-approximation size, then the exact root of power(n) = power
    side = a / 2 if alt == "two-sided" else a
    n0 = max((_z(1 - side) + _z(pw)) ** 2 * (1 + 1 / r) / es**2, 1e-6)
    low = 2.0 / (1 + r) + 1e-9 if kind == "mean" else 1e-9  # t needs df > 0
    n1 = _increasing_root(lambda n: _power_at(kind, abs(es), n, a, r, alt) - pw, n0, low)
    if not math.isfinite(n1) or n1 <= 0:
        raise InputError(
            f"sample_size: no sample size found for effect={effect!r} (effect size "
            f"{es:.3g}) at alpha={a:g}, power={pw:g}; the effect is too small "
            "to solve for. Give a larger effect."
        )
    nc = math.ceil(n1 - 1e-9)
    nt = math.ceil(n1 * r - 1e-9)
    return SampleSizeResult(
        n_control=nc, n_treatment=nt, total=nc + nt, effect_size=es, alpha=a, power=pw
    )


def minimum_detectable_effect(
    kind: MetricKind,
    *,
    baseline: float,
    n_control: int,
    std: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    ratio: float = 1.0,
    comparisons: int = 1,
    alternative: Alternative = "two-sided",
) -> MDEResult:
    """Smallest increase detectable with ``n_control`` units in control
    (``ratio * n_control`` in treatment) at the given power.

    ``n_control`` is a whole number >= 2.  For proportions, when even a
    treatment rate of 1 would not be detected, :class:`~ranklens.errors.InputError`
    says to increase ``n_control``.

    >>> mde = minimum_detectable_effect("mean", baseline=10.0, std=5.0, n_control=10_000)
    >>> round(mde.absolute, 3)
    0.198
    """
    kind, a, r, alt, b, sigma, pw, n = _design(
        kind,
        baseline,
        std,
        alpha,
        ratio,
        comparisons,
        alternative,
        power=power,
        n_control=n_control,
    )
    side = a / 2 if alt == "two-sided" else a
    es0 = (_z(1 - side) + _z(pw)) * math.sqrt(1 / n + 1 / (n * r))
    es = _increasing_root(lambda e: _power_at(kind, e, n, a, r, alt) - pw, es0, 1e-300)
    if not math.isfinite(es):
        raise InputError(
            f"minimum_detectable_effect: no effect size found for n_control={n} "
            f"at alpha={a:g}, power={pw:g}; increase n_control."
        )
    absolute = _effect_to_abs(kind, b, sigma, es)
    if not math.isfinite(absolute):
        raise InputError(
            f"minimum_detectable_effect: with n_control={n} even raising the baseline "
            f"{b:g} to 1 is not detected with power {pw:g} (effect size {es:.3g} needed); "
            "increase n_control."
        )
    rel = absolute / b if b != 0 else math.nan
    return MDEResult(
        absolute=absolute,
        relative=rel,
        effect_size=es,
        n_control=n,
        n_treatment=math.ceil(n * r - 1e-9),
        alpha=a,
        power=pw,
    )


def power(
    kind: MetricKind,
    *,
    baseline: float,
    effect: float,
    n_control: int,
    relative: bool = False,
    std: float | None = None,
    alpha: float = 0.05,
    ratio: float = 1.0,
    comparisons: int = 1,
    alternative: Alternative = "two-sided",
) -> float:
    """Probability of a significant result for a true ``effect`` with the given traffic.

    ``n_control`` units in control and ``ratio * n_control`` in treatment
    (``n_control`` a whole number >= 2); an ``effect`` of 0 gives ``alpha``
    (two-sided) -- the chance of a false positive.
    """
    kind, a, r, alt, b, sigma, _, n = _design(
        kind, baseline, std, alpha, ratio, comparisons, alternative, n_control=n_control
    )
    eff = check_number("effect", effect, low=-math.inf)
    delta = eff * b if relative else eff
    es = _abs_to_effect(kind, b, sigma, delta)
    return _power_at(kind, es if alt == "larger" else abs(es), n, a, r, alt)


def ratio_unit_std(numerator: Any, denominator: Any) -> float:
    """Standard deviation of the linearised per-unit values of a ratio metric.

    ``sigma_lin = sd((X_i - R Y_i) / mean(Y))`` with ``R = sum X / sum Y``;
    ``sigma_lin**2 / n`` is the delta-method variance of ``R`` over ``n``
    units (Deng, Knoblich & Lu 2018).  Feed it to :func:`sample_size` as
    ``std`` for ``kind="ratio"``.
    """
    x = floats(numerator, "numerator", "ratio_unit_std")
    y = floats(denominator, "denominator", "ratio_unit_std")
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise InputError(
            f"ratio_unit_std: numerator and denominator must be equally long 1-d "
            f"arrays of at least two units; got shapes {x.shape} and {y.shape}."
        )
    for name, arr in (("numerator", x), ("denominator", y)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise InputError(
                f"ratio_unit_std: {name}[{int(bad[0])}] is {py_value(arr[bad[0]])!r}; the "
                "per-unit values must be finite numbers (drop units without "
                "data)."
            )
    my = float(y.mean())
    if my == 0:
        raise InputError("ratio_unit_std: the denominator sums to zero.")
    r = float(x.sum() / y.sum())
    return float(np.std((x - r * y) / my, ddof=1))
