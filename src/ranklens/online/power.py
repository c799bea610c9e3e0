"""Power, sample size and minimum detectable effect for A/B tests.

Three questions, one model per metric kind (solved with statsmodels' power
classes, imported on first use):

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

References: J. Cohen, "Statistical Power Analysis for the Behavioral
Sciences", 2nd ed., 1988, ch. 2 and 6; Kohavi, Tang & Xu, "Trustworthy Online
Controlled Experiments", 2020, ch. 17; Deng, Knoblich & Lu, KDD 2018.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

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


def _num(value: Any, name: str, *, low: float, high: float = math.inf,
         low_open: bool = True, high_open: bool = True) -> float:
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    v = float(value) if ok else math.nan
    good = ok and math.isfinite(v) and (v > low if low_open else v >= low) and \
        (v < high if high_open else v <= high)
    if not good:
        lo_b = "(" if low_open else "["
        hi_b = ")" if high_open else "]"
        raise InputError(f"{name} must be a number in {lo_b}{low:g}, {high:g}{hi_b}, got "
                         f"{value!r}.")
    return v


def _units(value: Any, name: str) -> int:
    """A number of units: a whole number >= 2 (a t-test needs two units per group)."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))
    if not ok or not math.isfinite(float(value)) or float(value) != math.floor(float(value)) \
            or float(value) < 2:
        raise InputError(f"{name} must be a whole number of units >= 2 (per group), got "
                         f"{value!r}.")
    return int(value)


def _common(kind: Any, alpha: Any, ratio: Any, comparisons: Any,
            alternative: Any) -> tuple[MetricKind, float, float, str]:
    if kind not in ("proportion", "mean", "ratio"):
        raise InputError(f"kind must be 'proportion', 'mean' or 'ratio', got {kind!r}.")
    a = _num(alpha, "alpha", low=0, high=1)
    r = _num(ratio, "ratio (n_treatment / n_control)", low=0)
    if isinstance(comparisons, bool) or not isinstance(comparisons, (int, np.integer)) or \
            comparisons < 1:
        raise InputError(f"comparisons must be an integer >= 1, got {comparisons!r}.")
    if alternative not in ("two-sided", "larger"):
        raise InputError(f"alternative must be 'two-sided' or 'larger', got {alternative!r}.")
    return kind, a / int(comparisons), r, alternative


def _baseline_std(kind: str, baseline: Any, std: Any) -> tuple[float, float]:
    if kind == "proportion":
        b = _num(baseline, "baseline (control conversion rate)", low=0, high=1)
        if std is not None:
            raise InputError("std is implied by the baseline for proportion metrics; leave it "
                             "out.")
        return b, math.sqrt(b * (1 - b))
    b = _num(baseline, "baseline (control mean)", low=-math.inf)
    if std is None:
        raise InputError(
            f"std (the per-unit standard deviation) is required for {kind} metrics; estimate "
            "it from a previous period"
            + (" with ratio_unit_std(numerator, denominator)." if kind == "ratio" else ".")
        )
    return b, _num(std, "std", low=0)


def _effect_to_abs(kind: str, baseline: float, sigma: float, es: float) -> float:
    if kind == "proportion":
        angle = math.asin(math.sqrt(baseline)) + es / 2
        if angle > math.pi / 2:  # beyond p_t = 1: no proportion is that far away
            return math.nan
        return math.sin(angle) ** 2 - baseline
    return es * sigma


def _abs_to_effect(kind: str, baseline: float, sigma: float, delta: float) -> float:
    if kind == "proportion":
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
    from statsmodels.stats.power import NormalIndPower, TTestIndPower  # type: ignore[import-untyped, unused-ignore]

    return TTestIndPower() if kind == "mean" else NormalIndPower()


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
    kind, a, r, alt = _common(kind, alpha, ratio, comparisons, alternative)
    pw = _num(power, "power", low=0, high=1)
    b, sigma = _baseline_std(kind, baseline, std)
    eff = _num(effect, "effect", low=-math.inf)
    delta = eff * b if relative else eff
    if delta == 0:
        raise InputError("effect must not be zero" + (
            " (relative=True with baseline=0 makes every effect zero; give an absolute "
            "effect)." if relative and eff != 0 else "; give the smallest effect worth "
            "detecting."))
    es = _abs_to_effect(kind, b, sigma, delta)
    if alt == "larger" and es < 0:
        raise InputError("alternative='larger' needs a positive effect.")
    n1 = float(_solver(kind).solve_power(effect_size=abs(es), nobs1=None, alpha=a, power=pw,
                                         ratio=r, alternative=alt))
    if not math.isfinite(n1) or n1 <= 0:
        raise InputError(f"sample_size: no sample size found for effect={effect!r} (effect size "
                         f"{es:.3g}) at alpha={a:g}, power={pw:g}; the effect is too small "
                         "to solve for. Give a larger effect.")
    nc = math.ceil(n1 - 1e-9)
    nt = math.ceil(n1 * r - 1e-9)
    return SampleSizeResult(n_control=nc, n_treatment=nt, total=nc + nt,
                            effect_size=es, alpha=a, power=pw)


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
    kind, a, r, alt = _common(kind, alpha, ratio, comparisons, alternative)
    pw = _num(power, "power", low=0, high=1)
    b, sigma = _baseline_std(kind, baseline, std)
    n = _units(n_control, "n_control")
    es = float(_solver(kind).solve_power(effect_size=None, nobs1=n, alpha=a, power=pw, ratio=r,
                                         alternative=alt))
    if not math.isfinite(es):
        raise InputError(f"minimum_detectable_effect: no effect size found for n_control={n} "
                         f"at alpha={a:g}, power={pw:g}; increase n_control.")
    absolute = _effect_to_abs(kind, b, sigma, es)
    if not math.isfinite(absolute):
        raise InputError(
            f"minimum_detectable_effect: with n_control={n} even raising the baseline "
            f"{b:g} to 1 is not detected with power {pw:g} (effect size {es:.3g} needed); "
            "increase n_control.")
    rel = absolute / b if b != 0 else math.nan
    return MDEResult(absolute=absolute, relative=rel, effect_size=es, n_control=n,
                     n_treatment=math.ceil(n * r - 1e-9), alpha=a, power=pw)


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
    kind, a, r, alt = _common(kind, alpha, ratio, comparisons, alternative)
    b, sigma = _baseline_std(kind, baseline, std)
    eff = _num(effect, "effect", low=-math.inf)
    delta = eff * b if relative else eff
    n = _units(n_control, "n_control")
    es = _abs_to_effect(kind, b, sigma, delta)
    if alt == "larger":
        return float(_solver(kind).power(effect_size=es, nobs1=n, alpha=a, ratio=r,
                                         alternative=alt))
    return float(_solver(kind).power(effect_size=abs(es), nobs1=n, alpha=a, ratio=r,
                                     alternative=alt))


def ratio_unit_std(numerator: Any, denominator: Any) -> float:
    """Standard deviation of the linearised per-unit values of a ratio metric.

    ``sigma_lin = sd((X_i - R Y_i) / mean(Y))`` with ``R = sum X / sum Y``;
    ``sigma_lin**2 / n`` is the delta-method variance of ``R`` over ``n``
    units (Deng, Knoblich & Lu 2018).  Feed it to :func:`sample_size` as
    ``std`` for ``kind="ratio"``.
    """
    try:
        x = np.asarray(numerator, dtype=np.float64)
        y = np.asarray(denominator, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"ratio_unit_std: numerator and denominator must be numbers ({exc})."
                         ) from exc
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise InputError(f"ratio_unit_std: numerator and denominator must be equally long 1-d "
                         f"arrays of at least two units; got shapes {x.shape} and {y.shape}.")
    for name, arr in (("numerator", x), ("denominator", y)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise InputError(f"ratio_unit_std: {name}[{int(bad[0])}] is {arr[bad[0]]!r}; the "
                             "per-unit values must be finite numbers (drop units without "
                             "data).")
    my = float(y.mean())
    if my == 0:
        raise InputError("ratio_unit_std: the denominator sums to zero.")
    r = float(x.sum() / y.sum())
    return float(np.std((x - r * y) / my, ddof=1))
