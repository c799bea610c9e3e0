"""Offline power: how many queries a paired comparison needs, and what it can detect.

From the per-query differences of a pilot (system B minus system A on the same
queries), with the paired t-test's power (one-sample t on the differences, ``n - 1``
degrees of freedom, noncentrality ``d sqrt(n)`` for the standardised difference
``d = delta / sigma_d``; statsmodels' ``TTestPower``):

- :func:`topic_set_size`: the number of queries needed to detect a true mean difference
  ``delta`` with the given power (Sakai 2016, "Topic set size design", Information
  Retrieval Journal 19(3): the smallest ``n`` whose power reaches the target, ``sigma_d``
  estimated by the pilot's standard deviation of the differences);
- :func:`minimum_detectable_difference`: the smallest true mean difference detectable
  with ``n`` queries (by default the pilot's own) at the given power;
- :func:`paired_power`: the power itself;
- :func:`power_check`: all three for one comparison, and whether it is underpowered
  (the observed mean difference is below the minimum detectable one) -- what
  ``ranklens compare --power`` says.

``alpha`` is the two-sided level (``alternative='larger'``: one-sided).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.deps import needs
from ranklens._shared.tpower import t_power
from ranklens._shared.validate import check_alpha, check_choice, check_number
from ranklens.errors import InputError

__all__ = [
    "PowerCheck",
    "comparison_power",
    "minimum_detectable_difference",
    "paired_power",
    "power_check",
    "topic_set_size",
]

_ALTERNATIVES = ("two-sided", "larger")


def _check(alpha: Any, power: Any, alternative: Any) -> tuple[float, float]:
    a = check_alpha(alpha)
    check_choice("alternative", alternative, _ALTERNATIVES)
    pw = check_number("power", power, low=0, high=1, hint="e.g. power=0.8")
    if pw <= a:
        raise InputError(
            f"power={pw:g} is not above alpha={a:g}: a test detects even no difference that "
            "often. Ask for a power above alpha, e.g. power=0.8."
        )
    return a, pw


def _queries(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise InputError(f"n must be a whole number of queries >= 2, got {n!r}.")
    return int(n)


def _std(differences: Any, std: Any) -> tuple[np.ndarray | None, float]:
    """The pilot's differences (None without them) and the standard deviation of a
    per-query difference: ``std`` if given, else the pilot's (ddof=1)."""
    if differences is None:
        if std is None:
            raise InputError("give the pilot's per-query differences, or std=, the sd of one.")
        return None, check_number("std", std, low=0)
    d = np.asarray(differences, dtype=np.float64).ravel()
    if d.size < 2 or not np.all(np.isfinite(d)):
        raise InputError(
            "differences must hold at least two finite per-query differences (system B "
            f"minus system A), got {d.size} values"
            + ("" if np.all(np.isfinite(d)) else " with NaN or infinity")
            + "."
        )
    if std is not None:
        return d, check_number("std", std, low=0)
    s = float(np.std(d, ddof=1))
    if s == 0 or float(np.ptp(d)) == 0:
        raise InputError(
            "the pilot's differences are all equal (sd 0): no power question to ask; pass "
            "std= to plan with an assumed sd."
        )
    return d, s


def paired_power(
    effect_size: float, n: int, *, alpha: float = 0.05, alternative: str = "two-sided"
) -> float:
    """Power of the paired t-test on ``n`` queries at standardised difference
    ``effect_size`` (``delta / sigma_d``): ``P(|T| > t_{1-alpha/2, n-1})`` for ``T``
    noncentral t with ``n - 1`` degrees of freedom and noncentrality ``d sqrt(n)``
    (statsmodels ``TTestPower().power``; Cohen 1988, ch. 2).

    >>> round(paired_power(1.0, 8), 4)
    0.6808
    """
    a = check_alpha(alpha)
    check_choice("alternative", alternative, _ALTERNATIVES)
    n = _queries(n)
    es = check_number("effect_size", effect_size, low=-math.inf)
    return t_power(es * math.sqrt(n), n - 1, a, alternative)


def topic_set_size(
    differences: Any = None,
    *,
    delta: float,
    std: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
) -> int:
    """The number of queries a paired t-test needs to detect a true mean difference
    ``delta`` with probability ``power`` (topic set size design, Sakai 2016): the
    smallest ``n >= 2`` with ``paired_power(delta / sigma_d, n) >= power``, ``sigma_d``
    the pilot's sd of the per-query ``differences`` (or ``std``).  Sakai's starting
    point ``n0 = ((z_{1-alpha/2} + z_{power}) / d)^2 + z_{1-alpha/2}^2 / 2`` is refined
    on the exact power; statsmodels' ``TTestPower().solve_power`` gives the same ``n``
    before rounding up.

    >>> topic_set_size(std=0.2, delta=0.1)  # d = 0.5: statsmodels' 33.37 rounded up
    34
    """
    a, pw = _check(alpha, power, alternative)
    _, sd = _std(differences, std)
    dl = check_number("delta", delta, low=0, hint="the true mean difference to detect")
    d = dl / sd
    with needs("stats", "ranklens.comparison.power"):
        from scipy.special import ndtri  # type: ignore[import-untyped, unused-ignore]

    za = float(ndtri(1 - (a / 2 if alternative == "two-sided" else a)))
    n0 = ((za + float(ndtri(pw))) / d) ** 2 + za * za / 2
    n = max(2, math.ceil(n0))
    # power grows with n: step down while n - 1 still reaches it, up while n does not
    while n > 2 and t_power(d * math.sqrt(n - 1), n - 2, a, alternative) >= pw:
        n -= 1
    while t_power(d * math.sqrt(n), n - 1, a, alternative) < pw:
        n += 1
    return n


def minimum_detectable_difference(
    differences: Any = None,
    *,
    n: int | None = None,
    std: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    alternative: str = "two-sided",
) -> float:
    """The smallest true mean difference that a paired t-test on ``n`` queries detects
    with probability ``power``: ``sigma_d * d*`` where ``paired_power(d*, n) = power``
    (statsmodels ``TTestPower().solve_power(nobs=n)``), ``sigma_d`` the sd of the
    pilot's ``differences`` (or ``std``), ``n`` by default the pilot's number of queries.

    >>> round(minimum_detectable_difference(std=1.0, n=20), 4)  # statsmodels: 0.6604
    0.6604
    """
    a, pw = _check(alpha, power, alternative)
    d, sd = _std(differences, std)
    if n is None:
        if d is None:
            raise InputError("give n (the number of queries) with std=.")
        n = int(d.size)
    n = _queries(n)

    def gap(es: float) -> float:
        return t_power(es * math.sqrt(n), n - 1, a, alternative) - pw

    # the power rises with the effect size: bisection to Brent's tolerance (1e-14 plus 4
    # ulps), without importing scipy.optimize (a quarter of a second of a ``compare``)
    lo, hi = 0.0, 1.0
    while gap(hi) < 0:
        lo, hi = hi, hi * 2
    while hi - lo > 1e-14 + 4 * np.finfo(float).eps * hi:
        mid = 0.5 * (lo + hi)
        if gap(mid) < 0:
            lo = mid
        else:
            hi = mid
    es = 0.5 * (lo + hi)
    return es * sd


@dataclass(frozen=True)
class PowerCheck:
    """What a paired comparison of ``n`` queries can detect (:func:`power_check`)."""

    n: int
    observed: float  # the mean per-query difference
    std: float  # sd of the per-query differences
    minimum_detectable: float  # at the given power, with these n queries
    power: float  # the target power
    power_at_observed: float  # the power to detect a true difference the size observed
    queries_needed: int | None  # to detect the observed difference (None if it is 0)
    alpha: float

    @property
    def underpowered(self) -> bool:
        """The observed difference is smaller than the minimum detectable one."""
        return abs(self.observed) < self.minimum_detectable

    def note(self) -> str:
        """One line: ``n=8 queries detect a difference of 0.12 with 80% power; observed
        0.03: underpowered (about 120 queries needed)``."""
        head = (
            f"n={self.n} queries detect a difference of {self.minimum_detectable:.4g} with "
            f"{self.power:.0%} power; observed {self.observed:.4g}"
        )
        if not self.underpowered:
            return head + ": adequately powered"
        need = "" if self.queries_needed is None else f" (about {self.queries_needed} needed)"
        return head + ": underpowered" + need


def power_check(
    differences: Any, *, alpha: float = 0.05, power: float = 0.8, alternative: str = "two-sided"
) -> PowerCheck:
    """The power questions for one paired comparison: the minimum detectable difference
    with its queries, the power at the observed difference, and the queries that the
    observed difference would need (:func:`topic_set_size`).

    >>> c = power_check([0.1, -0.05, 0.2, 0.0, 0.05, -0.1, 0.15, 0.05])  # mean 0.05, sd 0.1
    >>> c.underpowered, c.queries_needed  # d = 0.5: statsmodels' 33.37 rounded up
    (True, 34)
    """
    a, pw = _check(alpha, power, alternative)
    d, sd = _std(differences, None)
    assert d is not None  # differences were given
    n = int(d.size)
    obs = float(d.mean())
    mdd = minimum_detectable_difference(d, alpha=a, power=pw, alternative=alternative)
    es = abs(obs) / sd
    needed = (
        topic_set_size(d, delta=abs(obs), alpha=a, power=pw, alternative=alternative)
        if obs != 0
        else None
    )
    return PowerCheck(
        n=n,
        observed=obs,
        std=sd,
        minimum_detectable=mdd,
        power=pw,
        power_at_observed=t_power(es * math.sqrt(n), n - 1, a, alternative),
        queries_needed=needed,
        alpha=a,
    )


def comparison_power(cmp: Any, *, power: float = 0.8) -> dict[tuple[str, str, str], PowerCheck]:
    """:func:`power_check` of every paired test of a :class:`~ranklens.Comparison`,
    ``{(system, other, metric): PowerCheck}``, on the queries the test used (those every
    system has, with a defined value) at the comparison's ``alpha``, two-sided.  A pair
    whose differences are all equal (sd 0) or that has fewer than two queries is left
    out (no power question to ask)."""
    from ranklens.comparison.systems import _matrix

    out: dict[tuple[str, str, str], PowerCheck] = {}
    col = {s: i for i, s in enumerate(cmp.systems)}
    for metric in cmp.metrics:
        x, _ = _matrix({s: cmp.results[s] for s in cmp.systems}, metric)
        for pair in (p for p in cmp.pairs if p.metric == metric):
            d = x[:, col[pair.system]] - x[:, col[pair.other]]
            if d.size < 2 or float(np.ptp(d)) == 0:
                continue
            out[(pair.system, pair.other, metric)] = power_check(d, alpha=cmp.alpha, power=power)
    return out
