"""Graded-relevance ranking metrics: CG, DCG, nDCG and ERR.

``rel_i`` is the relevance grade of the document at rank ``i`` (1-based;
unjudged documents have grade 0).  The gain of a grade is chosen by the
``gain`` parameter:

* ``linear`` (default; trec_eval ``ndcg``, ranx ``ndcg``): ``g = rel``;
* ``exp2`` (Burges et al. 2005, seeds 002/003, ranx ``ndcg_burges``):
  ``g = 2^rel - 1``;
* a mapping ``{grade: gain}`` (trec_eval ``ndcg.1=3,2=9``): listed grades get
  the given gain, the others keep their grade as gain.

Grades below zero (judged non-relevant, e.g. spam) have gain 0.  The discount
at rank ``i`` is ``1 / log2(i + 1)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.errors import MetricParameterError
from ranklens.metrics._segments import dense_top, group_mean, require_ties, safe_div, within
from ranklens.metrics.registry import MetricDef, Param, register

if TYPE_CHECKING:
    from ranklens.engine import Prepared

EXPECTED = frozenset({"trec", "input", "optimistic", "pessimistic", "expected"})
ORDERED = ("input", "optimistic", "pessimistic", "trec")

_GAIN = Param("gain", "linear", "gain of a grade: linear (rel), exp2 (2^rel - 1) or a "
              "mapping {grade: gain}", kind="gainmap", choices=("linear", "exp2"))


def gains(rel: np.ndarray, gain: Any) -> np.ndarray:
    """Gain of each grade under the ``gain`` parameter (grades < 0 give 0)."""
    pos = np.maximum(rel, 0.0)
    if gain == "linear":
        return pos
    if gain == "exp2":
        return np.exp2(pos) - 1.0
    out = pos.copy()
    for grade, value in gain.items():
        out[rel == grade] = value
    return np.maximum(out, 0.0)


def _discount(prep: Prepared) -> np.ndarray:
    key = "discount"
    if key not in prep._memo:
        prep._memo[key] = 1.0 / np.log2(prep.pos + 2.0)
    return prep._memo[key]


def _run_gains(prep: Prepared, params: dict[str, Any]) -> np.ndarray:
    g = gains(prep.rel, params["gain"])
    if params["ties"] == "expected":
        g = group_mean(prep, g)
    return g


def dcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Discounted cumulative gain at k: ``DCG@k = sum_{i<=k} g(rel_i) / log2(i+1)``.

    Ties: ordering policies and ``expected`` (each tied position gets the mean
    gain of its tie group: McSherry & Najork 2008, scikit-learn ``dcg_score``).
    """
    gain = params["gain"]
    sparse_ok = not isinstance(gain, dict) or all(v <= 0 for g, v in gain.items() if g <= 0)
    if params["ties"] != "expected" and sparse_ok:
        # only documents with a positive grade have a gain
        sp = prep.positive()
        g = gains(prep.rel[sp.idx], params["gain"])
        return sp.sum_in(prep.n_queries, g / np.log2(sp.pos + 2.0), k)
    g = _run_gains(prep, params)
    return prep.seg_sum(g * _discount(prep), within(prep, k))


def _ideal_dcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    ideal = params["ideal"]
    gain = params["gain"]
    if ideal == "k":
        if k is None:
            raise MetricParameterError("ndcg(ideal=k) needs a cutoff, e.g. ndcg(ideal=k)@10.")
        # k positions of gain 1, whatever the query's judgments (RecTools' default)
        return np.full(prep.n_queries, float(np.sum(1.0 / np.log2(np.arange(k) + 2.0))))
    if ideal == "retrieved":
        g = gains(prep.rel, gain)
        order = np.lexsort((-g, prep.seg))
        g = g[order]
        m = within(prep, k)
        return prep.seg_sum(g * _discount(prep), m)
    g = gains(prep.ideal_rel, gain)
    seg = prep.ideal_seg
    if isinstance(gain, dict):
        order = np.lexsort((-g, seg))
        g = g[order]
    contrib = g / np.log2(prep.ideal_pos + 2.0)
    if ideal == "cut" and k is not None:
        keep = prep.ideal_pos < k
        seg, contrib = seg[keep], contrib[keep]
    return np.bincount(seg, weights=contrib, minlength=prep.n_queries)


def ndcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Normalised DCG at k: ``nDCG@k = DCG@k / IDCG``; 0 when IDCG = 0.

    The ideal DCG sorts the gains in descending order and is taken from
    ``ideal=cut`` (default; trec_eval ``ndcg_cut``, ranx): every judgment of
    the query, ideal list cut at k;
    ``ideal=full``: every judgment, ideal list not cut (``DCG@k / IDCG``);
    ``ideal=retrieved`` (scikit-learn ``ndcg_score``, seed 003): only the
    retrieved documents' grades, cut at k;
    ``ideal=k`` (RecTools ``NDCG``): k positions of gain 1, as if every one
    of the top k could be relevant (needs a cutoff).
    Without k this is trec_eval ``ndcg`` (with ``gain=linear``).

    Ties: ordering policies and ``expected`` (scikit-learn's default).
    """
    return safe_div(dcg(prep, k, params), _ideal_dcg(prep, k, params))


def cg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Cumulative gain at k: ``CG@k = sum_{i<=k} g(rel_i)`` (order inside the
    top k does not matter).  Ties: ordering policies and ``expected``."""
    return prep.seg_sum(_run_gains(prep, params), within(prep, k))


def err(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Expected reciprocal rank at k (Chapelle et al., CIKM 2009).

    ``ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j)`` with the stopping
    probability ``R = (2^rel - 1) / 2^max_rel`` (grades <= 0 give 0).
    ``max_rel`` is the top of the grading scale, 4 by default (the 0-4 scale
    of gdeval, the TREC Web track's reference ERR); a judged grade above it is
    an error, so set ``err(max_rel=...)`` for other scales.  A fixed scale
    keeps a query's ERR independent of the other queries evaluated with it.
    Ties: ordering policies.
    """
    require_ties("err", params["ties"], ORDERED)
    gmax = float(params["max_rel"])
    top = float(prep.ideal_rel.max()) if len(prep.ideal_rel) else 0.0
    if top > gmax:
        raise MetricParameterError(
            f"err: a judged grade ({top:g}) exceeds max_rel={gmax:g}, the top of the grading "
            f"scale; pass err(max_rel={top:g}) (or the true top of your scale)."
        )
    grade = np.maximum(prep.rel, 0.0)
    r = (np.exp2(grade) - 1.0) / np.exp2(gmax)
    longest = int(prep.lengths.max()) if prep.n_queries else 0
    depth = longest if k is None else min(int(k), longest)
    if depth == 0:
        return np.zeros(prep.n_queries)
    if prep.n_queries * depth <= 20_000_000:
        # exact per-query products on a dense (queries x depth) matrix
        mat = dense_top(prep, r, depth)
        stay = np.cumprod(1.0 - mat, axis=1)
        stay = np.hstack([np.ones((prep.n_queries, 1)), stay[:, :-1]])
        return (mat * stay / np.arange(1, depth + 1)).sum(axis=1)
    # long rankings: segmented log-space products
    stop_all = r >= 1.0
    zeros_before = prep.seg_cumsum_int(stop_all.astype(np.int64)) - stop_all
    logs = np.log1p(-np.where(stop_all, 0.0, r))
    c = np.cumsum(logs)
    base = np.concatenate(([0.0], c))[prep.offsets[:-1]]
    excl = c - logs - base[prep.seg]
    stay = np.where(zeros_before > 0, 0.0, np.exp(excl))
    return prep.seg_sum(r * stay / (prep.pos + 1.0), within(prep, k))


register(MetricDef("dcg", "discounted cumulative gain at k", dcg, params=(_GAIN,),
                   ties=EXPECTED, range=None))
register(MetricDef("ndcg", "normalised discounted cumulative gain at k", ndcg,
                   aliases=("ndcg_cut", "n_dcg"),
                   params=(_GAIN, Param("ideal", "cut", "ideal list: cut (all judgments, cut "
                                        "at k), full (not cut), retrieved (sklearn) or k "
                                        "(k relevant positions, RecTools)",
                                        choices=("cut", "full", "retrieved", "k"))),
                   ties=EXPECTED, trec_name="ndcg"))
register(MetricDef("cg", "cumulative gain at k", cg, params=(_GAIN,), ties=EXPECTED,
                   range=None))
register(MetricDef("err", "expected reciprocal rank at k", err,
                   params=(Param("max_rel", 4, "top grade of the grading scale",
                                 kind="number", minimum=0),)))
