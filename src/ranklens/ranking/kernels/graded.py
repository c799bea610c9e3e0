"""Graded-relevance ranking metrics: CG, DCG, nDCG and ERR.

``rel_i`` is the relevance grade of the document at rank ``i`` (1-based).
The gain of a judged document is chosen by the ``gain`` parameter:

* ``linear`` (default; trec_eval ``ndcg``, ranx ``ndcg``): ``g = rel``;
* ``exp2`` (Burges et al. 2005, ranx ``ndcg_burges``):
  ``g = 2^rel - 1``;
* ``binary``: ``g = 1`` when ``rel`` reaches the relevance threshold
  (conventions' ``rel_threshold``), else 0 (RecTools, RePlay, Spark's
  binary form);
* a mapping ``{grade: gain}`` (trec_eval ``ndcg.1=3,2=9``): listed grades get
  the given gain, which may be 0 or negative, and the others keep their grade
  as gain; grade 0 can be given a gain.

As in trec_eval, a retrieved document that is not in the qrels, and one
judged with a negative grade (judged non-relevant, e.g. spam), has gain 0
whatever the mapping.  The ideal list holds the query's positive gains in
descending order (trec_eval stops its ideal list at the first gain <= 0), so
with negative gains nDCG lies in (-inf, 1].  The discount at rank ``i`` is
``1 / log2(i + 1)``.

The ideal list is sorted exactly.  trec_eval sorts its gain levels with a
comparator that truncates gain differences to an integer, so mapped gains
less than 1 apart (``ndcg.1=3,2=2.2,3=2.9``) can stay out of order in its
ideal list and its nDCG, Rndcg, ndcg_rel and G then differ from these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.errors import MetricParameterError
from ranklens.ranking._sums import col, is_vector, sum_at, value_shape
from ranklens.ranking.kernels._segments import group_mean, safe_div

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared


def gains(
    rel: np.ndarray, gain: Any, judged: np.ndarray | None = None, threshold: float = 1.0
) -> np.ndarray:
    """Gain of each grade under the ``gain`` parameter.

    Negative grades give 0; where ``judged`` is given, documents not judged give
    0 too (the mapping never applies to them); ``binary`` gives 1 from
    ``threshold`` up."""
    pos = np.maximum(rel, 0.0)
    if gain == "linear":
        out = pos
    elif gain == "exp2":
        out = np.exp2(pos) - 1.0
    elif gain == "binary":
        out = (rel >= threshold).astype(np.float64)
    else:
        out = pos.copy()
        for grade, value in gain.items():
            out[rel == grade] = value
    if judged is not None and (gain not in ("linear", "exp2") or not judged.all()):
        out = np.where(judged, out, 0.0)
    return out


def run_gains(prep: Prepared, gain: Any) -> np.ndarray:
    """The gain of the document at every ranked position (0 if unjudged)."""
    return gains(prep.rel, gain, prep.judged, prep.conventions.rel_threshold)


def ideal_gains(prep: Prepared, gain: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each query's ideal list: its positive gains in descending order, as
    (gains, query index, 0-based ideal rank)."""
    rel = prep.ideal_rel
    g = gains(rel, gain, rel >= 0, prep.conventions.rel_threshold)
    if not isinstance(gain, dict):
        # monotone in the grade: the judgments are sorted already and the positive
        # gains come first in each query
        keep = g > 0
        return g[keep], prep.ideal_seg[keep], prep.ideal_pos[keep]
    keep = g > 0
    g, seg = g[keep], prep.ideal_seg[keep]
    order = np.lexsort((-g, seg))
    g, seg = g[order], seg[order]
    counts = np.bincount(seg, minlength=prep.n_queries)
    offs = np.concatenate(([0], np.cumsum(counts)))
    return g, seg, np.arange(len(g)) - offs[:-1][seg]


def _discount(prep: Prepared) -> np.ndarray:
    key = "discount"
    if key not in prep._memo:
        prep._memo[key] = 1.0 / np.log2(prep.pos + 2.0)
    return prep._memo[key]


def _run_gains(prep: Prepared, params: dict[str, Any]) -> np.ndarray:
    g = run_gains(prep, params["gain"])
    if params["ties"] == "expected":
        g = group_mean(prep, g)
    return g


def _sparse_gain(prep: Prepared, gain: Any) -> bool:
    """Whether only documents with a positive grade can have a gain."""
    if isinstance(gain, dict):
        return gain.get(0.0, 0.0) == 0.0
    return gain != "binary" or prep.conventions.rel_threshold > 0


def dcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Discounted cumulative gain at k: ``DCG@k = sum_{i<=k} g(rel_i) / log2(i+1)``.

    Ties: ordering policies and ``expected`` (each tied position gets the mean
    gain of its tie group: McSherry & Najork 2008, scikit-learn ``dcg_score``).
    Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 3, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 2.0, "a": 1.0}})
    >>> round(ranklens.evaluate(q, r, "dcg@2")["dcg@2"], 4)  # 1/log2(2) + 3/log2(3)
    2.8928
    """
    gain = params["gain"]
    if params["ties"] != "expected" and _sparse_gain(prep, gain):
        sp = prep.positive()
        g = gains(prep.rel[sp.idx], gain, None, prep.conventions.rel_threshold)
        return sp.sum_in(prep.n_queries, g / np.log2(sp.pos + 2.0), k)
    g = _run_gains(prep, params)
    return prep.sum_k(g * _discount(prep), k)


def _ideal_dcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    ideal = params["ideal"]
    gain = params["gain"]
    if ideal == "k":
        # k positions of gain 1, whatever the query's judgments (RecTools' default);
        # the catalogue's rule makes the gains binary and gives a cutoff
        kk = np.atleast_1d(k)
        per_k = np.cumsum(1.0 / np.log2(np.arange(int(kk.max())) + 2.0))[kk - 1]
        return np.broadcast_to(per_k if is_vector(k) else per_k[0], value_shape(prep.n_queries, k))
    if ideal == "retrieved":
        # the retrieved documents' positive gains, best first
        g = np.maximum(run_gains(prep, gain), 0.0)
        order = np.lexsort((-g, prep.seg))
        return prep.sum_k(g[order] * _discount(prep), k)
    g, seg, pos = ideal_gains(prep, gain)
    contrib = g / np.log2(pos + 2.0)
    if ideal == "cut" and k is not None:
        return sum_at(seg, pos, contrib, prep.n_queries, k)
    total = np.bincount(seg, weights=contrib, minlength=prep.n_queries)
    return col(total, k)


def ndcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Normalised DCG at k: ``nDCG@k = DCG@k / IDCG``; 0 when IDCG = 0.

    The ideal DCG sorts the query's positive gains in descending order and is
    taken from ``ideal=cut`` (default; trec_eval ``ndcg_cut``, ranx): every
    judgment of the query, ideal list cut at k;
    ``ideal=full``: every judgment, ideal list not cut (``DCG@k / IDCG``);
    ``ideal=retrieved`` (scikit-learn ``ndcg_score``): only the
    retrieved documents' grades, cut at k;
    ``ideal=k`` (RecTools ``NDCG``): k positions of gain 1, as if every one
    of the top k could be relevant (needs a cutoff; gains are binary).
    Without k this is trec_eval ``ndcg`` (with ``gain=linear``).
    Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.

    Ties: ordering policies and ``expected`` (scikit-learn's default).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 3, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 2.0, "a": 1.0}})
    >>> round(ranklens.evaluate(q, r, "ndcg@2")["ndcg@2"], 4)  # 2.8928 / (3 + 1/log2(3))
    0.7967
    """
    return safe_div(dcg(prep, k, params), _ideal_dcg(prep, k, params))


def cg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Cumulative gain at k: ``CG@k = sum_{i<=k} g(rel_i)`` (order inside the
    top k does not matter; the whole ranking without k).  Gains as for
    :func:`dcg` (unjudged and negatively graded documents gain 0); an empty
    ranking gives 0.  Not normalised.  Ties: ordering policies and ``expected``.
    Järvelin & Kekäläinen, ACM TOIS 20(4), 2002.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 3, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 2.0, "x": 1.5, "a": 1.0}})
    >>> ranklens.evaluate(q, r, ["cg@1", "cg@3", "cg(gain=exp2)@3"]).summary()  # 1; 1 + 3; 1 + 7
    {'cg@1': 1.0, 'cg@3': 4.0, 'cg(gain=exp2)@3': 8.0}
    """
    return prep.sum_k(_run_gains(prep, params), k)


def err(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Expected reciprocal rank at k (Chapelle et al., CIKM 2009).

    ``ERR@k = sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j)`` with the stopping
    probability ``R = (2^rel - 1) / 2^max_rel`` (grades <= 0 give 0).
    ``max_rel`` is the top of the grading scale, 4 by default (the 0-4 scale
    of gdeval, the TREC Web track's reference ERR); a judged grade above it is
    an error, so set ``err(max_rel=...)`` for other scales.  A fixed scale
    keeps a query's ERR independent of the other queries evaluated with it.
    Unjudged documents stop no one (``R = 0``); an empty ranking gives 0.
    Ties: ordering policies.

    On a 0-2 scale: b (grade 1) stops 1/4 of users, a (grade 2) 3/4 of the rest,
    ``1/4 + (1/2)(3/4)(3/4)``; on the default 0-4 scale ``1/16 + (1/2)(15/16)(3/16)``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 2.0, "a": 1.0}})
    >>> ranklens.evaluate(q, r, ["err(max_rel=2)@1", "err(max_rel=2)", "err"]).summary()
    {'err(max_rel=2)@1': 0.25, 'err(max_rel=2)': 0.53125, 'err': 0.150390625}
    """
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
    depth = longest if k is None or is_vector(k) else min(int(k), longest)
    if depth == 0:
        return np.zeros(value_shape(prep.n_queries, k))
    # exact per-query products on a dense (queries x depth) matrix, summed left to
    # right (a query's value comes from its own row alone, whatever the other queries
    # evaluated with it: a batch of them gives the bits of one evaluation), a slice of
    # queries at a time to bound the matrix
    m = prep.pos < depth
    seg, pos, stop = prep.seg[m], prep.pos[m], r[m]
    out = np.zeros(value_shape(prep.n_queries, k))
    step = max(1, _DENSE_CELLS // depth)
    bounds = np.searchsorted(seg, np.arange(0, prep.n_queries + step, step))
    for i, first in enumerate(range(0, prep.n_queries, step)):
        n = min(step, prep.n_queries - first)
        rows = slice(bounds[i], bounds[i + 1])
        mat = np.zeros((n, depth))
        mat[seg[rows] - first, pos[rows]] = stop[rows]
        stay = np.cumprod(1.0 - mat, axis=1)
        stay = np.hstack([np.ones((n, 1)), stay[:, :-1]])
        sums = np.cumsum(mat * stay / np.arange(1, depth + 1), axis=1)
        out[first : first + n] = sums[:, np.minimum(k, depth) - 1] if is_vector(k) else sums[:, -1]
    return out


_DENSE_CELLS = 1 << 22
"""The most cells of ERR's dense (queries x depth) matrix at a time."""
