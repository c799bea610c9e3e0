"""The scale on which a metric's systems are compared: its own aggregate.

``ranklens.evaluate`` summarises each metric with the aggregate the catalogue declares
(:meth:`ranklens.metrics.Metric.aggregation`): a mean, a sum (``num_q``, ``num_rel``,
``num_ret``, ...), a geometric mean (``gm_map``, ``gm_bpref``: trec_eval's, each value
floored at 1e-5 before its logarithm is taken) or the exponential of a mean of values that
are logarithms already (``gm_map(values=log)``).  A comparison of systems reports that
same number for each system (:func:`ranklens.ranking.evaluation.aggregate`, the code
``evaluate`` runs) and tests and bounds the paired per-query values on that scale:

``mean``
    the per-query values; the contrast is the difference of the means.
``sum``
    the per-query values; the contrast is the difference of the sums, which is ``n``
    times the mean per-query difference, and every interval is ``n`` times the interval
    of the mean.  A paired test's statistic and p-value do not change when every value
    is multiplied by the same ``n``, so the tests read the per-query values as they are.
``geometric`` (``gmean`` and ``expmean``)
    the per-query logarithms (:func:`ranklens.ranking.evaluation.summands`: for
    ``gmean`` ``log(max(v, 1e-5))``, trec_eval's convention; for ``expmean`` the values,
    which are logarithms); a geometric mean is ``exp`` of their mean, so the contrast is
    the *ratio* of the geometric means, ``exp`` of the mean log difference, and its
    interval ``exp`` of the interval of that mean.  A ratio of 1 is no change.

Every aggregate of the catalogue is one of these: the per-query values of each of them
pair up query by query, so none is refused.

>>> import numpy as np
>>> s = scale_of("sum")
>>> s.kind, s.contrast, float(s.from_mean(0.25, 4))
('sum', 'difference', 1.0)
>>> g = scale_of("gmean")
>>> g.contrast, round(g.value(np.array([0.25, 1.0])), 6), float(g.from_mean(0.0, 2))
('ratio', 0.5, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.errors import InputError
from ranklens.ranking.evaluation import aggregate, summands

__all__ = ["Scale", "scale_of"]

_KINDS = {"mean": "mean", "sum": "sum", "gmean": "geometric", "expmean": "geometric"}


@dataclass(frozen=True)
class Scale:
    """How one metric's per-query values are summarised, compared and bounded.

    ``how`` is the aggregate (``mean``, ``sum``, ``gmean`` or ``expmean``, maybe with
    ``+nan``: see :func:`ranklens.ranking.evaluation.aggregate`); ``kind`` is ``mean``,
    ``sum`` or ``geometric``; ``contrast`` is ``difference`` or ``ratio``.
    """

    how: str

    @property
    def kind(self) -> str:
        return _KINDS[self.how.removesuffix("+nan")]

    @property
    def contrast(self) -> str:
        """``ratio`` for a geometric mean (system over other), else ``difference``."""
        return "ratio" if self.kind == "geometric" else "difference"

    def value(self, values: np.ndarray) -> float:
        """The summary ``evaluate`` reports of these per-query values."""
        return aggregate(np.asarray(values, dtype=np.float64), self.how)

    def per_query(self, values: np.ndarray) -> np.ndarray:
        """The per-query terms the tests and intervals read (see the module's text)."""
        return summands(np.asarray(values, dtype=np.float64), self.how)

    def from_mean(self, m: Any, n: int) -> np.ndarray:
        """Means of :meth:`per_query` terms over ``n`` queries (points or an interval's
        ends) on the metric's own scale: as they are, ``n`` times them, or their
        ``exp``."""
        m = np.asarray(m, dtype=np.float64)
        if self.kind == "sum":
            return n * m
        if self.kind == "geometric":
            return np.exp(m)
        return m

    def as_difference(self, d: Any, n: int, other: float) -> np.ndarray:
        """Means ``d`` of per-query differences of :meth:`per_query` terms over ``n``
        queries (points or an interval's ends) as differences of the values in the
        metric's units: ``d``, ``n * d``, or for a geometric mean
        ``other * (exp(d) - 1)``, the ratio's change in units of ``other`` (the other
        system's value, taken as given)."""
        if self.kind == "geometric":
            return other * np.expm1(np.asarray(d, dtype=np.float64))
        return self.from_mean(d, n)

    def margin(self, m: float, n: int, other: float, sign: float = 1.0) -> float:
        """A margin ``m`` on the values' difference (``sign * (value - other) + m > 0``)
        as the margin ``M`` of the per-query terms' mean difference ``d`` (``sign * d + M
        > 0``, the same condition): ``m``, ``m / n``, or for a geometric mean
        ``-sign * log(1 - sign * m / other)`` (``other`` taken as given; ``inf`` where
        the margin reaches below 0, so that any value passes)."""
        if self.kind == "sum":
            return m / n
        if self.kind == "geometric":
            inner = 1.0 - sign * m / other if other != 0 else float("nan")
            if inner <= 0:
                return float("inf")
            return float(-sign * np.log(inner))
        return m

    def contrast_of(self, value: float, other: float) -> float:
        """``value - other``, or for a ratio ``value / other`` (NaN when ``other`` is 0)."""
        if self.contrast == "ratio":
            return value / other if other != 0 else float("nan")
        return value - other

    def relative(self, value: float, other: float) -> float:
        """The contrast relative to ``other``: the difference over ``other``, or the ratio
        minus 1 (both: the fractional change; NaN when ``other`` is 0)."""
        if other == 0:
            return float("nan")
        return (value - other) / other


def scale_of(how: str) -> Scale:
    """The :class:`Scale` of an aggregate name (what ``Result.aggregation`` returns)."""
    if how.removesuffix("+nan") not in _KINDS:
        raise InputError(
            f"unknown aggregate {how!r}; the catalogue's are {sorted(_KINDS)} (each maybe "
            "with '+nan')."
        )
    return Scale(how)
