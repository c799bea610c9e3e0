"""Measures that ir_measures computes with its own Python providers.

``Judged@k`` (ir_measures' ``judged`` provider, from OpenNIR) and ``Compat``
(Clarke, Vtyurina & Smucker, "Assessing top-k preferences", ACM TOIS 39(3),
2021; ir_measures' ``compat`` provider).  Both providers rank a query's documents
by score descending and equal scores by document id ascending: the tie policy
``doc_asc``, which the ``ir_measures`` profile sets for these metrics.  Notation as
in :mod:`ranklens.ranking.kernels.binary`: ``n`` documents retrieved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.ranking._sums import cutoff_array, is_vector
from ranklens.ranking.kernels._segments import group_mean, safe_div

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared


def _in_qrels(prep: Prepared) -> np.ndarray:
    """Positions whose document the qrels grade, whatever the grade (a negative grade
    is a judgment too)."""
    return prep.judged | (prep.rel < 0)


def judged(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Judgment rate at k (ir_measures ``Judged@k``):
    ``Judged@k = (# documents in the qrels among the top min(k, n)) / min(k, n)``,
    the fraction of the top k that has a judgment; without k, of the whole ranking.
    Every grade is a judgment, a negative one too (ir_measures; trec_eval's ``unj``
    takes a negative grade as unjudged and divides by k, so ``1 - unj@k`` differs
    when ``n < k``).  An empty ranking scores 0 (ir_measures divides 0 by 0 there).
    Ties: ordering policies and ``expected`` (each position counts its tie group's
    mean); ir_measures orders equal scores by document id ascending
    (``ties='doc_asc'``, the ``ir_measures`` profile's default for it).
    Source: ir_measures' ``judged`` provider (MacAvaney et al., ECIR 2022).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": -1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "x": 0.8, "c": 0.7}})
    >>> ranklens.evaluate(q, r, ["judged@2", "judged@10", "judged"]).summary()
    {'judged@2': 0.5, 'judged@10': 0.6666666666666666, 'judged': 0.6666666666666666}

    (a and c are judged: 1 of the top 2; 2 of min(10, 3) = 3; 2 of 3.)
    """
    judged_at = _in_qrels(prep).astype(np.float64)
    if params.get("ties") == "expected":
        judged_at = group_mean(prep, judged_at)
    cnt = prep.sum_k(judged_at, k)
    n = prep.lengths.astype(np.float64)
    if k is None:
        return safe_div(cnt, n)
    kk = cutoff_array(k)
    den = np.minimum(n[:, None], kk[None, :]) if is_vector(k) else np.minimum(n, kk)
    return safe_div(cnt, den)


def _rbo_tables(depth: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """``H[j] = sum_{i=1..j} p^(i-1) / i`` and ``C[m] = sum_{j=0..m-1} H[j]`` for
    ``j, m`` in ``0..depth``."""
    i = np.arange(1, depth + 1, dtype=np.float64)
    with np.errstate(under="ignore"):
        w = np.power(p, i - 1.0)
    h = np.concatenate(([0.0], np.cumsum(w / i)))
    c = np.concatenate(([0.0], np.cumsum(h[:-1])))
    return h, c


def compat(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Compatibility (Clarke, Vtyurina & Smucker, ACM TOIS 2021; ir_measures
    ``Compat(p, normalize)``): the rank-biased overlap (Webber et al. 2010) of the
    ranking ``R`` with the ideal ranking ``I`` of the query's relevant documents
    (grade > 0), by grade descending and, among equal grades, retrieved documents
    in ranking order before the others::

        RBO(R, I) = sum_{i=1..D} p^(i-1) |R_i & I_i| / i  /  sum_{i=1..D} p^(i-1)

    over the depth ``D = max(n, |I|)`` (``R_i``, ``I_i``: the first i documents).
    With ``normalize=true`` (the default) the value is divided by ``RBO(I, I)``, the
    best a ranking can reach (when it is > 0).  ``p`` (default 0.95) is the
    persistence.  A query without relevant document, or with an empty ranking,
    scores 0.  Computed in closed form: a document at rank ``r`` in ``R`` and
    ``s`` in ``I`` is in every overlap from depth ``t = max(r, s)`` on.

    Conventions of ir_measures reproduced: ranking ties by document id ascending
    (``ties='doc_asc'``, the ``ir_measures`` profile's default for it).  Caveat:
    ir_measures orders the ideal's equal grades by run score with 0.0 for
    documents not retrieved, then by the order of the qrels; with positive scores
    and qrels listed by document id that is the rule above.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 0.9, "a": 0.8, "x": 0.7}})
    >>> res = ranklens.evaluate(q, r, ["compat(p=0.5)", "compat(p=0.5,normalize=false)"])
    >>> [round(v, 6) for v in res.summary().values()]
    [0.4, 0.380952]

    (Depth 3, weights 1, 0.5, 0.25: overlaps 0, 2, 2 at depths 1..3 give
    ``RBO = (0 + 0.5 * 2/2 + 0.25 * 2/3) / 1.75``; the ideal (a, b) with itself
    ``(1 + 0.5 * 2/2 + 0.25 * 2/3) / 1.75``; their ratio is 0.4.)
    """
    p = float(params["p"])
    nq = prep.n_queries
    n = prep.lengths
    ideal = prep.ideal_rel
    m = np.bincount(prep.ideal_seg[ideal > 0], minlength=nq)
    depth = np.maximum(n, m)
    h, c = _rbo_tables(int(depth.max(initial=0)), p)
    # the relevant retrieved documents: rank in R and rank in I
    hit = np.flatnonzero(prep.judged & (prep.rel > 0))
    seg = prep.seg[hit]
    grade = prep.rel[hit]
    levels = np.unique(np.concatenate((ideal, grade)))
    width = len(levels) + 1
    # keys ordering (query, grade descending); the ideal list is sorted so already
    ikey = prep.ideal_seg * width + (len(levels) - np.searchsorted(levels, ideal))
    hkey = seg * width + (len(levels) - np.searchsorted(levels, grade))
    higher = np.searchsorted(ikey, hkey, side="left") - prep.ideal_offsets[:-1][seg]
    # among retrieved documents of one grade, ranking order (hits come in that order)
    by_key = np.argsort(hkey, kind="stable")
    sk = hkey[by_key]
    first = np.flatnonzero(np.r_[True, sk[1:] != sk[:-1]]) if len(sk) else sk
    run_len = np.diff(np.append(first, len(sk)))
    within = np.empty(len(sk), dtype=np.int64)
    within[by_key] = np.arange(len(sk)) - np.repeat(first, run_len)
    s_rank = higher + within + 1
    t = np.maximum(prep.pos[hit] + 1, s_rank)
    d_hit = depth[seg]
    score = np.bincount(seg, weights=h[d_hit] - h[t - 1], minlength=nq)
    if params["normalize"] == "true":
        best = m * h[depth] - c[m]
        score = np.where(best > 0, safe_div(score, best), score)
    else:
        i = np.arange(1, len(h), dtype=np.float64)
        with np.errstate(under="ignore"):
            wsum = np.concatenate(([0.0], np.cumsum(np.power(p, i - 1.0))))
        score = safe_div(score, wsum[depth])
    return score
