r"""Does the ordering of systems survive a change of judgments?

Given each system's metric value under judgments A (e.g. human) and under B
(e.g. an LLM judge), how similar are the two orderings, and which pairwise
decisions ("system i beats system j") flip?  This is the question TREC
organisers ask of LLM judgments (Voorhees 2000, "Variations in relevance
judgments and the measurement of retrieval effectiveness").

Kendall's tau is tau-b (ties in either ordering handled as scipy's
``kendalltau``).  tau_AP (Yilmaz, Aslam and Robertson 2008, "A new rank
correlation coefficient for information retrieval") weights swaps near the top
more: with the systems ordered by B (best first), ``C(i)`` the number of systems
above position ``i`` in B that are also above it in A::

    tau_AP(A -> B) = 2 / (S - 1) * sum_{i=2..S} C(i) / (i - 1) - 1

It is not symmetric; ``symmetric=True`` gives the mean of both directions.
Ties within an ordering are broken by the order of the systems as given (the
first given ranks higher), a convention stated here because tau_AP has no tie
rule of its own.

A pair of systems *flips* when A and B order it strictly and in opposite
directions; a pair tied under exactly one set of judgments is counted apart
(``ties``).  With per-query values under A, ``significant_only`` keeps the pairs
whose paired test under A is significant at ``alpha``
(:func:`ranklens.comparison.stats.paired_pvalues`): "how many significant
conclusions does the cheap judge reverse".

>>> st = ordering_stability({"s1": 0.3, "s2": 0.2, "s3": 0.1}, {"s1": 0.2, "s2": 0.3, "s3": 0.1})
>>> round(st.kendall_tau, 4), st.flips
(0.3333, [('s1', 's2')])
>>> round(st.tau_ap, 4)  # B = s2, s1, s3: C(2) = 0, C(3) = 2 -> (0 / 1 + 2 / 2) - 1
0.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.validate import floats
from ranklens.errors import InputError

__all__ = ["OrderingStability", "ordering_stability", "tau_ap"]


def _order(values: np.ndarray) -> np.ndarray:
    """Positions (0 = best) of each system: value descending, ties by given order."""
    idx = np.lexsort((np.arange(len(values)), -values))
    pos = np.empty(len(values), dtype=np.int64)
    pos[idx] = np.arange(len(values))
    return pos


def _tau_ap(a: np.ndarray, b: np.ndarray) -> float:
    """tau_AP of ordering ``b`` against reference ``a`` (values, higher is better)."""
    s = len(a)
    if s < 2:
        return float("nan")
    pa, pb = _order(a), _order(b)
    above_b = pb[None, :] < pb[:, None]  # [i, j]: j above i in B
    above_a = pa[None, :] < pa[:, None]
    c = (above_b & above_a).sum(axis=1)
    keep = pb > 0
    return float(2.0 / (s - 1) * (c[keep] / pb[keep]).sum() - 1.0)


def tau_ap(reference: Any, other: Any, *, symmetric: bool = False) -> float:
    """tau_AP of the ordering by ``other`` against the ordering by ``reference``
    (two arrays of system scores, higher is better; module docs).

    Yilmaz, E., Aslam, J. A. and Robertson, S. (2008) "A new rank correlation
    coefficient for information retrieval", SIGIR.

    >>> tau_ap([3, 2, 1], [3, 2, 1]), tau_ap([3, 2, 1], [1, 2, 3])
    (1.0, -1.0)
    >>> round(tau_ap([4, 3, 2, 1], [3, 4, 2, 1]), 4)  # C = 0, 2, 3 -> 2/3 (0 + 1 + 1) - 1
    0.3333
    >>> round(tau_ap([4, 3, 2, 1], [4, 3, 1, 2]), 4)  # C = 1, 2, 2 -> 2/3 (1 + 1 + 2/3) - 1
    0.7778
    """
    a = _scores(reference, "reference", "tau_ap")
    b = _scores(other, "other", "tau_ap")
    if len(a) != len(b):
        raise InputError(
            f"tau_ap: reference has {len(a)} systems and other {len(b)}; score the same systems."
        )
    if symmetric:
        return (_tau_ap(a, b) + _tau_ap(b, a)) / 2.0
    return _tau_ap(a, b)


def _scores(x: Any, name: str, where: str) -> np.ndarray:
    a = floats(x, name, where, " (one score per system)")
    if a.ndim != 1 or not np.isfinite(a).all():
        raise InputError(f"{where}: {name} must be a 1-d array of finite system scores.")
    return a


@dataclass(frozen=True)
class OrderingStability:
    """How the ordering of systems changes from judgments A to judgments B.

    ``kendall_tau`` (tau-b) and its p-value, ``tau_ap`` (B against A) and
    ``tau_ap_symmetric``; ``pairs`` the pairs compared (all, or those significant
    under A), ``flips`` the pairs ordered oppositely (better system under A first),
    ``ties`` the pairs tied under exactly one of A and B.
    """

    systems: tuple[str, ...]
    values_a: np.ndarray
    values_b: np.ndarray
    kendall_tau: float
    kendall_p: float
    tau_ap: float
    tau_ap_symmetric: float
    pairs: int
    flips: list[tuple[str, str]]
    ties: list[tuple[str, str]]

    @property
    def flip_rate(self) -> float:
        """Flips per pair compared (NaN without pairs)."""
        return len(self.flips) / self.pairs if self.pairs else float("nan")

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON-ready)."""
        return {
            "systems": list(self.systems),
            "kendall_tau": self.kendall_tau,
            "kendall_p": self.kendall_p,
            "tau_ap": self.tau_ap,
            "tau_ap_symmetric": self.tau_ap_symmetric,
            "pairs": self.pairs,
            "flips": [list(p) for p in self.flips],
            "flip_rate": self.flip_rate,
            "ties": [list(p) for p in self.ties],
        }


def ordering_stability(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    per_query_a: Any = None,
    significant_only: bool = False,
    test: str = "t",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = 0,
) -> OrderingStability:
    """Compare the ordering of systems under judgments A and B (module docs).

    ``a`` and ``b`` map each system to its metric value (higher is better) under
    each set of judgments; they must name the same systems.  With
    ``significant_only``, ``per_query_a`` (queries x systems, columns in the order
    of ``a``) gives the per-query values under A and only the pairs whose paired
    ``test`` (``t``, ``wilcoxon``, ``randomization``, ``bootstrap``) has p < ``alpha``
    are compared.  Every pair is computed at once (no per-pair Python loop).
    """
    from ranklens.comparison.stats import check_alpha, paired_pvalues

    where = "ordering_stability"
    systems = list(a)
    if set(systems) != set(b):
        only_a = sorted(set(systems) - set(b))
        only_b = sorted(set(b) - set(systems))
        raise InputError(
            f"{where}: a and b must score the same systems; only in a: {only_a}, "
            f"only in b: {only_b}."
        )
    if len(systems) < 2:
        raise InputError(f"{where}: need two or more systems, got {len(systems)}.")
    va = _scores([a[s] for s in systems], "a", where)
    vb = _scores([b[s] for s in systems], "b", where)
    from ranklens._shared.deps import needs

    with needs("stats", "ranklens.judging.stability.ordering_stability"):
        from scipy import stats

    kt = stats.kendalltau(va, vb)
    i, j = np.triu_indices(len(systems), k=1)
    sa = np.sign(va[i] - va[j])
    sb = np.sign(vb[i] - vb[j])
    keep = np.ones(len(i), dtype=bool)
    if significant_only:
        check_alpha(alpha)
        if per_query_a is None:
            raise InputError(
                f"{where}: significant_only needs per_query_a (queries x systems values "
                "under A) to test each pair."
            )
        x = floats(per_query_a, "per_query_a", where)
        if x.ndim != 2 or x.shape[1] != len(systems):
            raise InputError(
                f"{where}: per_query_a must be (queries, {len(systems)} systems), got {x.shape}."
            )
        p = paired_pvalues(x[:, i], x[:, j], test, n_resamples, seed)
        keep = p < alpha
    flip = keep & (sa * sb < 0)
    tie = keep & ((sa == 0) != (sb == 0))

    def named(mask: np.ndarray) -> list[tuple[str, str]]:
        out = []
        for x_, y_ in zip(i[mask], j[mask], strict=True):
            first, second = (x_, y_) if va[x_] >= va[y_] else (y_, x_)
            out.append((systems[first], systems[second]))
        return out

    return OrderingStability(
        systems=tuple(systems),
        values_a=va,
        values_b=vb,
        kendall_tau=float(kt.statistic),
        kendall_p=float(kt.pvalue),
        tau_ap=_tau_ap(va, vb),
        tau_ap_symmetric=(_tau_ap(va, vb) + _tau_ap(vb, va)) / 2.0,
        pairs=int(keep.sum()),
        flips=named(flip),
        ties=named(tie),
    )
