"""Order agreement between predicted scores and graded relevance.

These compare the run's scores with the relevance grades of the same
documents, per query: FCP, Kendall's tau-b and Spearman's rho.  By default
only retrieved documents that are in the qrels take part (``unjudged=skip``);
``unjudged=zero`` adds the retrieved unjudged documents with grade 0.

Pairs are counted without enumerating them: with ``L`` distinct grades the
cost is O(n L) for n documents (O(n) per grade level, all queries at once),
not the O(n^2) pair loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared


class _Items:
    """The documents taking part, grouped by query and sorted by score descending."""

    def __init__(self, prep: Prepared, unjudged: str) -> None:
        in_qrels = prep.judged | (prep.rel < 0)
        mask = in_qrels if unjudged == "skip" else np.ones(len(prep.rel), dtype=bool)
        self.nq = prep.n_queries
        self.seg = prep.seg[mask]
        self.score = prep.score[mask]
        self.grade = prep.rel[mask]
        n = len(self.seg)
        self.n = np.bincount(self.seg, minlength=self.nq).astype(np.float64)
        offs = np.concatenate(([0], np.cumsum(self.n.astype(np.int64))))
        self.offsets = offs
        new = np.ones(n, dtype=bool)
        if n:
            new[1:] = (self.score[1:] != self.score[:-1]) | (self.seg[1:] != self.seg[:-1])
        starts = np.flatnonzero(new)
        self.gstart = starts[np.cumsum(new) - 1] if n else np.zeros(0, dtype=np.int64)
        self.gsize = np.diff(np.append(starts, n))
        self.gstarts = starts
        # grade levels as dense codes
        self.levels, self.code = np.unique(self.grade, return_inverse=True)

    def pair_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per query: concordant, discordant, tied-in-score-only, tied-in-grade pairs."""
        nq, seg, code = self.nq, self.seg, self.code
        n_items = len(seg)
        above_hi = np.zeros(n_items)
        above_lo = np.zeros(n_items)
        tied_both = np.zeros(nq)
        tied_grade = np.zeros(nq)
        base_idx = self.offsets[:-1][seg] if n_items else np.zeros(0, dtype=np.int64)
        for level in range(len(self.levels)):
            is_l = (code == level).astype(np.int64)
            c = np.cumsum(is_l)
            before_seg = np.concatenate(([0], c))[base_idx]
            # documents of this grade strictly above each document's tie group
            before = (c[self.gstart] - is_l[self.gstart]) - before_seg
            above_hi += np.where(level > code, before, 0)
            above_lo += np.where(level < code, before, 0)
            per_group = np.add.reduceat(is_l, self.gstarts) if n_items else is_l
            tied_both += (
                np.bincount(
                    seg[self.gstarts], weights=per_group * (per_group - 1) / 2, minlength=nq
                )
                if n_items
                else 0.0
            )
            per_q = np.bincount(seg, weights=is_l, minlength=nq)
            tied_grade += per_q * (per_q - 1) / 2
        # a higher-scored document with a higher grade makes a concordant pair,
        # one with a lower grade a discordant pair
        conc = np.bincount(seg, weights=above_hi, minlength=nq)
        disc = np.bincount(seg, weights=above_lo, minlength=nq)
        gs = self.gsize.astype(np.float64)
        tied_score = (
            np.bincount(seg[self.gstarts], weights=gs * (gs - 1) / 2, minlength=nq)
            if n_items
            else np.zeros(nq)
        )
        return conc, disc, tied_score - tied_both, tied_grade

    def average_ranks(self, values: np.ndarray, sorted_desc: bool) -> np.ndarray:
        """Average (tie-aware) rank of each item within its query, 1-based."""
        n = len(values)
        order = np.arange(n) if sorted_desc else np.lexsort((-values, self.seg))
        v = values[order]
        s = self.seg[order]
        new = np.ones(n, dtype=bool)
        if n:
            new[1:] = (v[1:] != v[:-1]) | (s[1:] != s[:-1])
        starts = np.flatnonzero(new)
        sizes = np.diff(np.append(starts, n))
        pos = np.arange(n) - self.offsets[:-1][s]
        first = pos[starts]
        avg = first + (sizes - 1) / 2.0 + 1.0
        ranks = np.empty(n)
        ranks[order] = np.repeat(avg, sizes)
        return ranks


def fcp(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Fraction of concordant pairs (Koren & Sill 2011).

    Over the pairs of documents of a query with different grades:
    ``FCP = n_c / (n_c + n_d)`` where a pair is concordant when the higher-graded
    document has the higher score.  Pairs tied on score count as discordant
    (``score_ties=discordant``, as Koren & Sill and the Surprise library),
    are left out (``ignore``) or count half each way (``half``).  A query with
    no pair of different grades has no FCP (NaN, left out of the mean).  The
    mean over queries is the per-query average; Surprise instead pools the
    counts over users before dividing.  Pairs tied on grade are not counted.

    a (2) above b (1) and c (0): concordant; b and c tied on score:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.5, "c": 0.5}})
    >>> ms = ["fcp", "fcp(score_ties=ignore)", "fcp(score_ties=half)"]
    >>> {m: round(v, 4) for m, v in ranklens.evaluate(q, r, ms).summary().items()}
    {'fcp': 0.6667, 'fcp(score_ties=ignore)': 1.0, 'fcp(score_ties=half)': 0.8333}
    """
    it = _Items(prep, params["unjudged"])
    conc, disc, tied_s, _ = it.pair_counts()
    mode = params["score_ties"]
    if mode == "discordant":
        disc = disc + tied_s
    elif mode == "half":
        conc = conc + tied_s / 2
        disc = disc + tied_s / 2
    total = conc + disc
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, conc / np.where(total > 0, total, 1.0), np.nan)


def kendall_tau(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Kendall's tau-b between scores and grades per query:
    ``tau_b = (n_c - n_d) / sqrt((n_0 - n_s)(n_0 - n_g))`` with ``n_0 = n(n-1)/2``
    over the n documents taking part and ``n_s``/``n_g`` the pairs tied on
    score/grade; a pair tied on either side is neither concordant nor discordant
    (Kendall, "The treatment of ties in ranking problems", Biometrika 33, 1945;
    as ``scipy.stats.kendalltau``, variant b).  NaN when either side is constant
    (fewer than 2 distinct values, or fewer than 2 documents), left out of the
    mean.  ``unjudged`` says whether retrieved documents outside the qrels take
    part (with grade 0).

    Two concordant pairs, b and c tied on score: ``2 / sqrt((3 - 1)(3 - 0))``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.5, "c": 0.5}})
    >>> round(ranklens.evaluate(q, r, "kendall_tau")["kendall_tau"], 4)
    0.8165
    """
    it = _Items(prep, params["unjudged"])
    conc, disc, _tied_s_only, tied_g = it.pair_counts()
    n0 = it.n * (it.n - 1) / 2
    gs = it.gsize.astype(np.float64)
    tied_s = (
        np.bincount(it.seg[it.gstarts], weights=gs * (gs - 1) / 2, minlength=it.nq)
        if len(it.seg)
        else np.zeros(it.nq)
    )
    den = np.sqrt((n0 - tied_s) * (n0 - tied_g))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (conc - disc) / np.where(den > 0, den, 1.0), np.nan)


def spearman_rho(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Spearman's rho between scores and grades per query: the Pearson
    correlation of their average ranks,
    ``rho = sum (x_i - m)(y_i - m) / sqrt(sum (x_i - m)^2 sum (y_i - m)^2)`` with
    ``x_i``/``y_i`` the ranks of document i by score/grade, tied values sharing
    their mean rank, and ``m = (n + 1) / 2`` (Spearman, "The proof and measurement
    of association between two things", 1904; as ``scipy.stats.spearmanr``).  NaN
    when either side is constant (or fewer than 2 documents), left out of the
    mean.  ``unjudged`` as for :func:`kendall_tau`.

    Score ranks 1, 2.5, 2.5 against grade ranks 1, 2, 3: ``1.5 / sqrt(1.5 * 2)``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.5, "c": 0.5}})
    >>> round(ranklens.evaluate(q, r, "spearman_rho")["spearman_rho"], 4)
    0.866
    """
    it = _Items(prep, params["unjudged"])
    rs = it.average_ranks(it.score, sorted_desc=True)
    rg = it.average_ranks(it.grade, sorted_desc=False)
    mean = (it.n + 1) / 2.0
    m = mean[it.seg]
    x, y = rs - m, rg - m
    sxy = np.bincount(it.seg, weights=x * y, minlength=it.nq)
    sxx = np.bincount(it.seg, weights=x * x, minlength=it.nq)
    syy = np.bincount(it.seg, weights=y * y, minlength=it.nq)
    den = np.sqrt(sxx * syy)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, sxy / np.where(den > 0, den, 1.0), np.nan)
