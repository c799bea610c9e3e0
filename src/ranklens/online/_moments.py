"""Per-variant sufficient statistics, and every estimate :func:`ranklens.online.analyze`
reports computed from them (the one implementation of the A/B statistics).

A metric's statistics per variant need only the number of units ``n``, the sum of
each per-unit variable and the sums of their products: the metric value ``y``
(for a ratio metric its numerator), a ratio's denominator ``d`` and the CUPED
covariate ``c``.  :class:`Moments` holds them in centred form (sums and centred
sums of products ``sum((a - mean_a) (b - mean_b))``), built either from per-unit
values (two passes: exact to rounding) or from the raw sums a warehouse query
produces (``COUNT(*)``, ``SUM(y)``, ``SUM(y*y)``, ``SUM(y*c)`` ...).  Event
logs, tables of units and tables of sums therefore give the same numbers.

With ``r = sum y / sum d`` and ``dbar = sum d / n`` per variant:

- mean and proportion: estimate ``mean y``, per-unit variance ``C_yy / (n - 1)``;
- ratio (delta method): estimate ``r``, per-unit variance of the linearisation
  ``(y - r d) / dbar``: ``(C_yy - 2 r C_yd + r^2 C_dd) / (dbar^2 (n - 1))``;
- CUPED: ``theta = C_vc / C_cc`` pooled over the variants (``v`` the value or
  the linearisation; its pooled centred sum includes the spread of the variant
  means), estimate ``v_bar - theta (c_bar_g - c_bar)`` and variance
  ``(C_vv - 2 theta C_vc + theta^2 C_cc) / (n - 1)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np

__all__ = ["Moments", "Stats", "metric_stats"]


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True, eq=False)
class Moments:
    """Per-group ``n``, sums and centred sums of products of the variables
    ``y`` (value or numerator), ``d`` (denominator) and ``c`` (covariate)."""

    n: np.ndarray  # float64, one per group
    sums: dict[str, np.ndarray]
    centred: dict[tuple[str, str], np.ndarray]

    @classmethod
    def from_values(
        cls, y: np.ndarray, d: np.ndarray | None, c: np.ndarray | None, group: np.ndarray, k: int
    ) -> Moments:
        """From per-unit values of ``y`` and, where given, ``d`` and ``c``; ``group`` is
        each unit's group (-1: not analysed)."""
        values = {a: v for a, v in (("y", y), ("d", d), ("c", c)) if v is not None}
        sel = group >= 0
        g = group[sel]
        n = np.bincount(g, minlength=k).astype(np.float64)
        sums = {a: np.bincount(g, weights=v[sel], minlength=k) for a, v in values.items()}
        with np.errstate(divide="ignore", invalid="ignore"):
            dev = {a: v[sel] - np.nan_to_num(sums[a] / n)[g] for a, v in values.items()}
        centred = {
            _key(a, b): np.bincount(g, weights=dev[a] * dev[b], minlength=k)
            for a, b in combinations_with_replacement(sorted(values), 2)
        }
        return cls(n, sums, centred)

    @classmethod
    def from_sums(
        cls,
        n: np.ndarray,
        sums: Mapping[str, np.ndarray],
        products: Mapping[tuple[str, str], np.ndarray],
    ) -> Moments:
        """From raw sums: ``products[(a, b)]`` is ``sum(a * b)`` per group."""
        n = np.asarray(n, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            centred = {
                _key(a, b): np.where(n > 0, p - sums[a] * sums[b] / n, 0.0)
                for (a, b), p in products.items()
            }
        return cls(n, dict(sums), centred)

    def mean(self, a: str) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.sums[a] / self.n  # NaN for an empty group

    def c(self, a: str, b: str) -> np.ndarray:
        """Centred sum of products of ``a`` and ``b`` per group."""
        return self.centred[_key(a, b)]

    def pooled_mean(self, a: str, groups: np.ndarray) -> float:
        """The mean of ``a`` over the units of the groups in the mask ``groups``."""
        total = float(self.n[groups].sum())
        return float(self.sums[a][groups].sum()) / total if total else 0.0

    def pooled(self, a: str, b: str, groups: np.ndarray) -> float:
        """Centred sum of products over the units of the groups in ``groups``."""
        ma, mb = self.pooled_mean(a, groups), self.pooled_mean(b, groups)
        between = self.n * (np.nan_to_num(self.mean(a)) - ma) * (np.nan_to_num(self.mean(b)) - mb)
        return float((self.c(a, b) + between)[groups].sum())


@dataclass(frozen=True, eq=False)
class Stats:
    """Per-group statistics of one metric (arrays of one value per group)."""

    n: np.ndarray
    estimate: np.ndarray
    est_var: np.ndarray  # variance of the estimator
    sample_var: np.ndarray  # per-unit (linearised) variance
    total: np.ndarray  # sum of the values (numerator): a proportion's successes
    theta: float | None = None
    reduction: float | None = None


def _theta(cov_vc: float, cov_cc: float, units: float) -> float:
    """The CUPED coefficient (0 without variation in the covariate or with one unit;
    NaN when a sum is not finite), as :func:`ranklens.online.cuped_theta`."""
    if not (np.isfinite(cov_vc) and np.isfinite(cov_cc)):
        return float("nan")
    if units < 2 or cov_cc <= 0:
        return 0.0
    return cov_vc / cov_cc


def metric_stats(kind: str, m: Moments, cuped: bool) -> Stats:
    """Estimates and variances per group of a ``kind`` metric (``proportion``,
    ``mean`` or ``ratio``) from its moments; ``cuped``: adjust by the covariate
    ``c`` (see the module documentation)."""
    n = m.n
    two = n >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "ratio":
            r = np.where(
                m.sums["d"] != 0, m.sums["y"] / np.where(m.sums["d"] != 0, m.sums["d"], 1.0), np.nan
            )
            r0 = np.nan_to_num(r)
            dbar = m.mean("d")
            vv = (m.c("y", "y") - 2 * r0 * m.c("y", "d") + r0 * r0 * m.c("d", "d")) / dbar**2
            sel = (n > 0) & np.isfinite(r)
            estimate = r
        else:
            vv = m.c("y", "y")
            sel = n > 0
            estimate = m.mean("y")
        var = np.where(two & np.isfinite(estimate), vv / (n - 1), np.nan)
        if not cuped or not sel.any():
            return Stats(n, estimate, var / n, var, m.sums["y"])
        if kind == "ratio":
            vc = np.where(sel, (m.c("y", "c") - r0 * m.c("d", "c")) / dbar, 0.0)
            cov_vc = float(vc[sel].sum())  # a linearisation has mean 0 in every group
        else:
            vc = m.c("y", "c")
            cov_vc = m.pooled("y", "c", sel)
        theta = _theta(cov_vc, m.pooled("c", "c", sel), float(n[sel].sum()))
        shift = theta * (m.mean("c") - m.pooled_mean("c", sel))
        adjusted = vv - 2 * theta * vc + theta * theta * m.c("c", "c")
        avar = np.where(two & sel, adjusted / (n - 1), np.nan)
        reduction = 1 - float(
            np.nansum(np.where(two & sel, adjusted, np.nan))
            / np.nansum(np.where(two & sel, vv, np.nan))
        )
        return Stats(n, estimate - shift, avar / n, avar, m.sums["y"], theta, reduction)
