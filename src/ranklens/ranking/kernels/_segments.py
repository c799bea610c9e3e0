"""Segmented building blocks shared by the ranking kernels.

All functions work on the flat, rank-ordered arrays of a
:class:`~ranklens.ranking.engine.Prepared` and never loop over queries in Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.errors import UnsupportedError
from ranklens.ranking._sums import seg_cumsum

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared


def within(prep: Prepared, k: int | None) -> np.ndarray | None:
    """Mask of positions at rank <= k (None when every position counts)."""
    if k is None:
        return None
    return prep.pos < k


def group_mean(prep: Prepared, x: np.ndarray) -> np.ndarray:
    """Replace every value by the mean over its tie group (expected value of
    a position's value under a uniformly random order of tied documents)."""
    gs = prep.group_start
    if len(gs) == 0:
        return x.astype(np.float64)
    starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
    sums = np.add.reduceat(x.astype(np.float64), starts)
    sizes = np.diff(np.append(starts, len(x)))
    return np.repeat(sums / sizes, sizes)


def binary_values(prep: Prepared, threshold: float, ties: str) -> np.ndarray:
    """Per-position binary relevance, or its expectation under ``expected`` ties."""
    b = prep.is_rel(threshold)
    if ties == "expected":
        return group_mean(prep, b)
    return b.astype(np.float64)


def first_relevant_prob(prep: Prepared, threshold: float, ties: str) -> np.ndarray:
    """Probability that each position holds the first relevant document.

    Without ``expected`` ties this is 1 at the first relevant position of a
    query and 0 elsewhere.  With ``expected`` ties, inside the first tie group
    that contains a relevant document (size g, r relevant, offset t within
    the group) it is C(g-1-t, r-1) / C(g, r).
    """
    b = prep.is_rel(threshold)
    cum = prep.cum_rel(threshold)
    if ties != "expected":
        return (b & (cum == 1)).astype(np.float64)
    gs = prep.group_start
    g = prep.group_size.astype(np.float64)
    # relevant documents before the group and inside the group
    before = cum[gs] - b[gs]
    starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]]) if len(gs) else gs
    r_group = (
        np.repeat(np.add.reduceat(b.astype(np.int64), starts), np.diff(np.append(starts, len(b))))
        if len(b)
        else b.astype(np.int64)
    )
    t = (np.arange(len(b)) - gs).astype(np.float64)
    r = r_group.astype(np.float64)
    active = (before == 0) & (r_group > 0) & (t <= g - r)
    # log C(g-1-t, r-1) - log C(g, r) via a ratio product:
    # p_t = r/g * prod_{u<t} (g-r-u)/(g-1-u)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(
            active,
            np.log(np.maximum(g - r - t, 1e-300)) - np.log(np.maximum(g - 1 - t, 1e-300)),
            0.0,
        )
    # exclusive cumulative sum of `step` within each tie group (groups are short)
    excl = seg_cumsum(step, gs) - step
    logp = np.log(np.where(active, r / np.maximum(g, 1), 1.0)) + excl
    return np.where(active, np.exp(logp), 0.0)


def require_ties(metric: str, ties: str, allowed: tuple[str, ...]) -> None:
    """Raise :class:`UnsupportedError` unless ``ties`` is one of ``allowed``."""
    if ties not in allowed:
        raise UnsupportedError(
            f"the tie policy {ties!r} is not defined for {metric}; it supports "
            f"{', '.join(map(repr, allowed))}."
        )


def safe_div(num: np.ndarray, den: Any) -> np.ndarray:
    """``num / den`` where ``den > 0``, else 0 (broadcasting)."""
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    return out


def undefined_value(prep: Prepared) -> float:
    """The value of a metric whose formula divides zero by zero on a query: NaN or 0, by
    the ``undefined`` convention (:class:`~ranklens.Conventions`)."""
    return float("nan") if prep.conventions.undefined == "nan" else 0.0


def retrieved_for_trec(prep: Prepared) -> np.ndarray:
    """The number of documents retrieved per query as trec_eval counts it for a 0/0:
    a query absent from the run that ``missing='zero'`` scores is ranked, as by
    trec_eval ``-c``, as one unjudged document (trec_eval's stand-in ranking), unless
    ``judged_only`` threw that document out (``-J``)."""
    n = prep.lengths
    if prep.in_run is None or prep.conventions.judged_only:
        return n
    return np.where(prep.in_run, n, np.maximum(n, 1))
