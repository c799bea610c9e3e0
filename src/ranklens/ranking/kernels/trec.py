"""Measures that trec_eval 10 defines and few other tools do.

Each reproduces trec_eval's definition exactly (``-m all_trec``); the
docstrings give the formulas.  Notation as in :mod:`ranklens.ranking.kernels.binary`:
``R`` relevant judgments, ``n`` documents retrieved, ``RR`` relevant
retrieved, ``rel@k`` relevant documents in the top k.  "Unjudged" means not
in the qrels or judged with a negative grade (trec_eval's pooled-but-unjudged;
``negative_grades='nonrelevant'``, ranx's reading, judges the latter non-relevant).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.metrics.catalogue import GM_FLOOR
from ranklens.ranking._sums import col, cutoff_array, seg_cumsum
from ranklens.ranking.kernels._segments import safe_div, undefined_value
from ranklens.ranking.kernels.binary import _thr, average_precision, bpref
from ranklens.ranking.kernels.graded import _discount, gains, ideal_gains, run_gains

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared


def num_q(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Number of queries evaluated: 1 per query, ``num_q = sum_q 1`` (trec_eval
    ``num_q``, ``m_num_q.c``).  The queries are those the evaluation scores: by
    default the queries of both the run and the qrels; ``missing='zero'`` adds
    those of the qrels that the run lacks (trec_eval ``-c``).  A query with an
    empty ranking counts as any other when ``empty_rankings`` keeps it.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1}, "c": {"f": 1}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 1.0}, "b": {"x": 1.0}})
    >>> ranklens.evaluate(q, r, "num_q")["num_q"]  # a and b
    2.0
    >>> ranklens.evaluate(q, r, "num_q", missing="zero")["num_q"]  # and c, absent from the run
    3.0
    """
    return np.ones(prep.n_queries)


def relative_precision(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Relative precision: ``relative_P@k = rel@k / min(k, R)``, the precision at k
    relative to the best a ranking can reach there (trec_eval ``relative_P``,
    ``m_rel_P.c``); without k, ``RR / min(n, R)`` (``set_relative_P``,
    ``m_set_rel_P.c``).  0 when the denominator is 0 (R = 0, or an empty ranking
    without k).  Unjudged documents are non-relevant.  Ties: ordering policies.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, ["relative_p@2", "relative_p@10", "relative_p"]).summary()
    {'relative_p@2': 0.5, 'relative_p@10': 0.75, 'relative_p': 0.75}

    (R = 4: 1 of min(2, 4); 3 of min(10, 4); 3 of min(5, 4).)
    """
    thr = _thr(prep, params)
    hits = prep.sum_k(prep.is_rel(thr).astype(np.float64), k)
    nrel = col(prep.num_rel(thr).astype(np.float64), k)
    cap = prep.lengths.astype(np.float64) if k is None else cutoff_array(k)
    return safe_div(hits, np.minimum(cap, nrel))


def set_map(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Set MAP (trec_eval ``set_map``, ``m_set_map.c``): ``set_map = RR^2 / (n R)``,
    the set precision ``RR / n`` times the set recall ``RR / R``; 0 when n or R is 0
    (an empty ranking, no relevant judgment).  The order of the ranking does not
    matter; unjudged documents are non-relevant.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, "set_map")["set_map"]  # 3^2 / (5 * 4)
    0.45
    """
    thr = _thr(prep, params)
    rr = prep.seg_sum(prep.is_rel(thr).astype(np.float64))
    return safe_div(rr * rr, prep.lengths * prep.num_rel(thr).astype(np.float64))


def rprec_mult(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Precision at a multiple x of R (written ``rprec_mult@0.2``; trec_eval
    ``Rprec_mult_0.20``): ``P@c`` with ``c = floor(x R + 0.9)`` (trec_eval keeps
    its old rounding here; ``m_Rprec_mult.c``); 0 when c = 0.  The denominator is c
    even past the end of the ranking.  ``rprec_mult@1`` is R-precision.  Unjudged
    documents are non-relevant.  Ties: ordering policies.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ms = ["rprec_mult@0.5", "rprec_mult@1", "rprec_mult@2"]
    >>> ranklens.evaluate(q, r, ms).summary()  # R = 4: P@2 = 1/2, P@4 = 3/4, P@8 = 3/8
    {'rprec_mult@0.5': 0.5, 'rprec_mult@1': 0.75, 'rprec_mult@2': 0.375}
    """
    thr = _thr(prep, params)
    c = np.floor(float(k) * prep.num_rel(thr) + 0.9)
    hits = prep.seg_sum(prep.is_rel(thr).astype(np.float64), prep.pos < c[prep.seg])
    return safe_div(hits, c)


def utility(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Linear utility (trec_eval ``utility``):
    ``a RR + b (n - RR) + c (R - RR) + d (N + RR - n - R)`` with ``N`` the
    ``collection_size`` convention (trec_eval ``-N``; default 0, as trec_eval)
    and defaults ``a, b, c, d = 1, -1, 0, 0``.  Unjudged retrieved documents count as
    non-relevant retrieved.  A query absent from the run (``missing='zero'``) scores 0,
    as with trec_eval ``-c``; a ranking with nothing retrieved (an empty ranking under
    ``empty_rankings='evaluate'``, as pytrec_eval, or every document thrown out by
    ``judged_only``) takes the formula with ``n = RR = 0``: ``c R - d (R - N)``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 1.0}, "b": {}})
    >>> res = ranklens.evaluate(q, r, "utility(c=-1)", missing="zero")
    >>> res.per_query("utility(c=-1)")  # b is missing: 0
    {'a': 1.0, 'b': 0.0}
    >>> res = ranklens.evaluate(q, r, "utility(c=-1)", empty_rankings="evaluate")
    >>> res.per_query("utility(c=-1)")  # b retrieved nothing: -1 * 2
    {'a': 1.0, 'b': -2.0}
    """
    thr = _thr(prep, params)
    n = prep.lengths.astype(np.float64)
    rr = prep.seg_sum(prep.is_rel(thr).astype(np.float64))
    r = prep.num_rel(thr).astype(np.float64)
    a, b, c, d = (float(params[x]) for x in "abcd")
    size = float(prep.conventions.collection_size)
    val = a * rr + b * (n - rr) + c * (r - rr) + d * (size + rr - n - r)
    return np.where(n > 0 if prep.in_run is None else prep.in_run, val, 0.0)


def infap(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam 2006, as trec_eval ``infAP``).

    Walking the ranking (0-based index j counts every document), for each
    relevant document with ``rel`` relevant documents up to and including it,
    ``nr`` judged non-relevant and ``u`` negatively-graded ("pooled but
    unjudged"; judged non-relevant under ``negative_grades='nonrelevant'``)
    documents above it, add 1 if j = 0, else
    ``1/(j+1) + (j/(j+1)) ((rel-1+nr+u)/j) ((rel-1+eps)/(rel-1+nr+2 eps))``
    with ``eps = 1e-5``.  Documents not in the qrels only take up ranks.
    infAP = sum / R (0 when R = 0, or for an empty ranking).  Equals AP (up to eps)
    when no retrieved document is graded negative.  trec_eval ``m_infap.c``.
    Ties: ordering policies.

    The negatively graded u ("pooled but unjudged") above c: infAP infers that c
    is as good as at rank 2 (AP counts u non-relevant: ``(1 + 2/3) / 2``):

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "u": -1, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "u": 0.8, "c": 0.7}})
    >>> res = ranklens.evaluate(q, r, ["infap", "ap"])
    >>> round(res["infap"], 4), round(res["ap"], 4)
    (1.0, 0.8333)
    """
    thr = _thr(prep, params)
    b = prep.is_rel(thr)
    nonrel = prep.judged & ~b
    # in the qrels with a negative grade, unless negative_grades='nonrelevant' judges it
    pooled_unjudged = (prep.rel < 0) & ~prep.judged
    rel = prep.cum_rel(thr).astype(np.float64)
    nr = (prep.seg_cumsum_int(nonrel.astype(np.int64)) - nonrel).astype(np.float64)
    u = (prep.seg_cumsum_int(pooled_unjudged.astype(np.int64)) - pooled_unjudged).astype(np.float64)
    j = prep.pos.astype(np.float64)
    eps = 1e-5
    jj = np.maximum(j, 1.0)
    term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel - 1 + nr + u) / jj) * (
        (rel - 1 + eps) / (rel - 1 + nr + 2 * eps)
    )
    term = np.where(j == 0, 1.0, term)
    return safe_div(prep.seg_sum(np.where(b, term, 0.0)), prep.num_rel(thr))


def bin_g(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Binary G (trec_eval ``binG``, ``m_binG.c``), G with binary gains:
    ``binG = (1/R) sum_{relevant at rank k} 1 / log2(2 + k - m_k)`` with ``m_k``
    the relevant documents in the top k, so a relevant document costs only the
    non-relevant ones above it.  0 when nothing relevant is retrieved (or R = 0);
    unjudged documents are non-relevant.  Ties: ordering policies.

    Relevant at ranks 1, 3, 4 of R = 4: ``(1/log2(2) + 1/log2(3) + 1/log2(3)) / 4``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> round(ranklens.evaluate(q, r, "bing")["bing"], 4)
    0.5655
    """
    thr = _thr(prep, params)
    b = prep.is_rel(thr)
    m = prep.cum_rel(thr)
    term = np.where(b, 1.0 / np.log2(2.0 + (prep.pos + 1) - m), 0.0)
    return safe_div(prep.seg_sum(term), prep.num_rel(thr))


def _seg_cumsum_float(values: np.ndarray, seg: np.ndarray, n: int) -> np.ndarray:
    """Per-query cumulative sums of ``values`` (rows grouped by ``seg``)."""
    offs = np.concatenate(([0], np.cumsum(np.bincount(seg, minlength=n))))
    return seg_cumsum(values, offs[:-1][seg])


def _lookup(
    cum: np.ndarray, seg: np.ndarray, n_queries: int, query: np.ndarray, index: np.ndarray
) -> np.ndarray:
    """``cum`` (CSR by ``seg``) at 0-based ``index`` of each ``query``; 0 for index < 0."""
    counts = np.bincount(seg, minlength=n_queries)
    offs = np.concatenate(([0], np.cumsum(counts)))
    flat = offs[:-1][query] + np.maximum(index, 0)
    out = np.where(
        index >= 0, cum[np.minimum(flat, max(len(cum) - 1, 0))] if len(cum) else 0.0, 0.0
    )
    return out


def g_measure(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """G (trec_eval ``G``), the graded analogue of binG.

    With ``g_k`` the gain at rank k, ``S_k = sum_{i<=k} g_i`` and
    ``C_k = sum_{i<=k} max(I_i, 1)`` over the ideal gains ``I`` (``I_i = 0``
    past the last positive ideal gain): ``G = sum_{k: g_k != 0} g_k /
    log2(2 + C_k - S_k) / sum_i I_i``; 0 when the ideal sum is 0 (and for an empty
    ranking).  Gains as for trec_eval's ``ndcg`` (a ``gain`` mapping, unjudged
    documents 0).  trec_eval ``m_G.c`` (Buckley, 2008).  Ties: ordering policies.

    Gains 1, 0, 2, 1, 0 by rank against the ideal 2, 1, 1, 1: each gain meets
    ``C_k - S_k = 1``, so ``(1 + 2 + 1) / log2(3) / 5``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> round(ranklens.evaluate(q, r, "g")["g"], 4)
    0.5047
    """
    gain = params["gain"]
    g = run_gains(prep, gain)
    ig, iseg, _ipos = ideal_gains(prep, gain)
    s = _seg_cumsum_float(g, prep.seg, prep.n_queries)
    ic = _seg_cumsum_float(np.maximum(ig, 1.0), iseg, prep.n_queries)
    n_ideal = np.bincount(iseg, minlength=prep.n_queries)
    rank = prep.pos + 1
    upto = np.minimum(rank, n_ideal[prep.seg])
    c = _lookup(ic, iseg, prep.n_queries, prep.seg, upto - 1) + (rank - upto)
    term = np.where(g != 0, g / np.log2(2.0 + c - s), 0.0)
    total = np.bincount(iseg, weights=ig, minlength=prep.n_queries)
    return safe_div(prep.seg_sum(term), total)


def _dcg_curves(
    prep: Prepared, gain: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    g = run_gains(prep, gain)
    dcg_cum = _seg_cumsum_float(g * _discount(prep), prep.seg, prep.n_queries)
    ig, iseg, ipos = ideal_gains(prep, gain)
    idcg_cum = _seg_cumsum_float(ig / np.log2(ipos + 2.0), iseg, prep.n_queries)
    return g, dcg_cum, ig, iseg, idcg_cum


def ndcg_rel(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """trec_eval ``ndcg_rel``: nDCG averaged over the relevant documents.

    With ``n`` positive-gain judgments and ``n_r`` of them retrieved:
    ``S = sum_{retrieved k with gain > 0} DCG@k / IDCG@min(k, n) +
    (n - n_r) DCG@num_ret / IDCG@n``; value ``S / n`` (0 when S <= 0, so for an
    empty ranking or a query without positive gains).  Gains as for trec_eval's
    ``ndcg``; trec_eval ``m_ndcg_rel.c`` (nDCG of Järvelin & Kekäläinen 2002,
    averaged at the relevant documents).  Ties: ordering policies.

    Gains 1, 0, 2, 1, 0 by rank, ideal 2, 1, 1, 1 (f is not retrieved): nDCG at
    ranks 1, 3 and 4, and the final nDCG for f,
    ``(1/2 + 2/3.1309 + 2 * 2.4307/3.5616) / 4``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> round(ranklens.evaluate(q, r, "ndcg_rel")["ndcg_rel"], 4)
    0.6259
    """
    q = prep.n_queries
    g, dcg_cum, _ig, iseg, idcg_cum = _dcg_curves(prep, params["gain"])
    n = np.bincount(iseg, minlength=q)
    rank = prep.pos + 1
    idcg_at = _lookup(idcg_cum, iseg, q, prep.seg, np.minimum(rank, n[prep.seg]) - 1)
    part = np.where(g > 0, safe_div(dcg_cum, idcg_at), 0.0)
    s = prep.seg_sum(part)
    nr = prep.seg_count(g > 0)
    dcg_all = _lookup(dcg_cum, prep.seg, q, np.arange(q), prep.lengths - 1)
    idcg_all = _lookup(idcg_cum, iseg, q, np.arange(q), n - 1)
    s = s + (n - nr) * safe_div(dcg_all, idcg_all)
    return np.where(s > 0, safe_div(s, n), 0.0)


def rndcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """trec_eval ``Rndcg``: nDCG averaged over the ideal list's gain boundaries.

    At each ideal rank b where the ideal gain changes value (and at the last
    positive ideal gain, b = n): ``DCG@min(b, num_ret) / IDCG@b``; plus
    ``DCG@num_ret / IDCG@n`` when ``num_ret > n + 1`` (trec_eval's rule).
    The mean of these points; 0 when R = 0.  When no point exists (R > 0 at the
    relevance threshold but no positive gain, e.g. ``Rndcg.1=0``) trec_eval divides
    0 by 0: NaN under ``undefined='nan'`` (trec_eval), 0 under ``undefined='zero'``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0, "b": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["rndcg", "rndcg(gain={1:0})"])
    >>> res.per_query("rndcg"), res.per_query("rndcg(gain={1:0})")
    ({'q': 1.0}, {'q': nan})
    """
    q = prep.n_queries
    _g, dcg_cum, ig, iseg, idcg_cum = _dcg_curves(prep, params["gain"])
    n = np.bincount(iseg, minlength=q)
    offs = np.concatenate(([0], np.cumsum(n)))
    last = np.arange(len(ig)) == (offs[1:][iseg] - 1)
    nxt = np.append(ig[1:], 0.0)
    boundary = last | (ig != nxt)
    bq = iseg[boundary]
    b = (np.arange(len(ig)) - offs[:-1][iseg])[boundary] + 1
    dcg_b = _lookup(dcg_cum, prep.seg, q, bq, np.minimum(b, prep.lengths[bq]) - 1)
    pts = safe_div(dcg_b, idcg_cum[boundary])
    total = np.bincount(bq, weights=pts, minlength=q)
    count = np.bincount(bq, minlength=q).astype(np.float64)
    dcg_all = _lookup(dcg_cum, prep.seg, q, np.arange(q), prep.lengths - 1)
    idcg_all = _lookup(idcg_cum, iseg, q, np.arange(q), n - 1)
    extra = (prep.lengths > n + 1) & (idcg_all > 0)  # trec_eval: a point needs IDCG > 0
    total = total + np.where(extra, safe_div(dcg_all, idcg_all), 0.0)
    count = count + extra
    out = np.where(count > 0, safe_div(total, count), undefined_value(prep))
    return np.where(prep.num_rel(_thr(prep, params)) > 0, out, 0.0)


def _rbp_gains(prep: Prepared, gain: Any) -> np.ndarray:
    """Per-position RBP gains with trec_eval's per-query rescaling to [0, 1]."""
    q = prep.n_queries
    g = run_gains(prep, gain)
    judged_rel = np.where(prep.ideal_rel >= 0, prep.ideal_rel, -np.inf)
    top = np.full(q, -np.inf)
    np.maximum.at(top, prep.ideal_seg, judged_rel)
    top = np.where(np.isfinite(top), np.floor(top), -1.0)
    # the gain table of a query: levels 0..top (gain = level unless mapped) and mapped levels
    custom = gain if isinstance(gain, dict) else {}
    levels = np.arange(0, int(max(top.max(initial=-1.0), 0)) + 1, dtype=np.float64)
    table = np.where(levels[None, :] <= top[:, None], gains(levels, gain)[None, :], np.nan)
    lo = (
        np.nanmin(np.hstack([table, np.zeros((q, 1)) * np.nan]), axis=1, initial=np.inf)
        if table.size
        else np.full(q, np.inf)
    )
    hi = (
        np.nanmax(np.hstack([table, np.zeros((q, 1)) * np.nan]), axis=1, initial=-np.inf)
        if table.size
        else np.full(q, -np.inf)
    )
    if custom:
        cv = np.array(list(custom.values()), dtype=np.float64)
        lo = np.minimum(lo, cv.min())
        hi = np.maximum(hi, cv.max())
    rescale = (lo < 0) | (hi > 1)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo_p, span_p, res_p = lo[prep.seg], span[prep.seg], rescale[prep.seg]
    in_table = prep.judged
    scaled = np.where(res_p, (g - lo_p) / span_p, g)
    return np.where(in_table, scaled, 0.0)


def _powers(prep: Prepared, p: float) -> np.ndarray:
    return p ** prep.pos.astype(np.float64)


def rbp(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel 2008; trec_eval ``rbp``):
    ``(1 - p) sum_k gain_k p^(k-1)`` with persistence ``p`` (default 0.9).
    Gains are the grades (or a ``gain`` mapping); with ``scale=trec`` (the
    default), as trec_eval does, when a query's gain table (grades 0..max)
    leaves [0, 1] every gain is rescaled to ``(g - min) / (max - min)``;
    ``scale=none`` keeps the raw gains (ranx's ``rbp``, so graded RBP can
    exceed 1).  Unjudged documents gain 0.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "b": 0, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> res = ranklens.evaluate(q, r, ["rbp(p=0.8)", "rbp(p=0.8,scale=none)"])
    >>> [round(v, 3) for v in res.summary().values()]  # 0.2 (1 + 0.64 / 2); 0.2 (2 + 0.64)
    [0.264, 0.528]
    """
    p = float(params["p"])
    if params["scale"] == "none":
        gv = run_gains(prep, params["gain"])
    else:
        gv = _rbp_gains(prep, params["gain"])
    return (1.0 - p) * prep.sum_k(gv * _powers(prep, p), k)


def rbp_resid(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """RBP residual (trec_eval ``rbp_resid``, ``m_rbp_resid.c``; Moffat & Zobel
    2008): the RBP weight that unjudged documents and the unranked tail could add,
    ``resid = p^n + (1 - p) * sum over unjudged ranks k of p^(k-1)`` for a ranking
    of n documents, when some retrieved document is unjudged; 0 otherwise (as
    trec_eval, which then leaves the tail's ``p^n`` out too).  Persistence ``p``
    as for :func:`rbp`.

    e (rank 5 of 5) is unjudged: ``0.5^5 + 0.5 * 0.5^4``; the top 4 are judged:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, "rbp_resid(p=0.5)")["rbp_resid(p=0.5)"]
    0.0625
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}})
    >>> ranklens.evaluate(q, r, "rbp_resid(p=0.5)")["rbp_resid(p=0.5)"]
    0.0
    """
    p = float(params["p"])
    unj = ~prep.judged
    w = prep.seg_sum(_powers(prep, p) * (1.0 - p), unj)
    any_unj = prep.seg_count(unj) > 0
    return np.where(any_unj, p ** prep.lengths.astype(np.float64) + w, 0.0)


def unjudged(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Fraction of unjudged documents in the top k (trec_eval ``unj_k``,
    ``m_unjudged.c``): ``unj@k = (# unjudged in the top min(k, n)) / k``, the
    missing ranks past the end counting as judged; without k, over the whole
    ranking (divided by n; 0 for an empty ranking).  Unjudged: not in the qrels,
    or graded negative (unless ``negative_grades='nonrelevant'``).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, ["unj@4", "unj@10", "unj"]).summary()  # e: 0/4, 1/10, 1/5
    {'unj@4': 0.0, 'unj@10': 0.1, 'unj': 0.2}
    """
    cnt = prep.sum_k((~prep.judged).astype(np.float64), k)
    return cnt / cutoff_array(k) if k is not None else safe_div(cnt, prep.lengths)


def _per_query_gm(values: np.ndarray, params: dict[str, Any]) -> np.ndarray:
    """A geometric-mean metric's per-query values: the values themselves
    (``values=value``) or ``log(max(v, 1e-5))`` (``values=log``)."""
    if params.get("values") == "log":
        return np.log(np.maximum(values, GM_FLOOR))
    return values


def gm_map(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Average precision aggregated by geometric mean (GMAP, Robertson 2006; trec_eval
    ``gm_map``): ``exp(mean(log(max(AP, 1e-5))))`` over the queries.

    Per query, ``values=value`` (the default; trec_eval's per-query lines) reports AP,
    ``values=log`` reports ``log(max(AP, 1e-5))`` in [log 1e-5, 0], as pytrec_eval
    does (the ``pytrec_eval`` profile); the aggregate is the same: the geometric mean
    of the floored values, or the exponential of the mean of the logarithms.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 1.0, "x": 0.5}, "b": {"x": 1.0, "e": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["gm_map", "gm_map(values=log)"])
    >>> res.per_query("gm_map")["b"], round(res.per_query("gm_map(values=log)")["b"], 4)
    (0.5, -0.6931)
    >>> round(res["gm_map"], 4), round(res["gm_map(values=log)"], 4)  # sqrt(1 * 0.5)
    (0.7071, 0.7071)
    """
    return _per_query_gm(average_precision(prep, k, params), params)


def gm_bpref(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """bpref aggregated by geometric mean (trec_eval ``gm_bpref``, ``m_gm_bpref.c``;
    bpref of Buckley & Voorhees 2004), floor 1e-5:
    ``gm_bpref = exp(mean(log(max(bpref, 1e-5))))``; per query the bpref
    (``values=value``) or ``log(max(bpref, 1e-5))`` (``values=log``, pytrec_eval), as
    for :func:`gm_map`.  bpref's conventions apply (unjudged documents skipped; 0
    when R = 0, which the floor turns into 1e-5).

    a: its relevant d above the non-relevant n (bpref 1); b: e below m (bpref 0,
    floored): ``sqrt(1 * 1e-5)``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1, "n": 0}, "b": {"e": 1, "m": 0}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 1.0, "n": 0.5}, "b": {"m": 1.0, "e": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["gm_bpref", "gm_bpref(values=log)"])
    >>> res.per_query("gm_bpref"), round(res.per_query("gm_bpref(values=log)")["b"], 4)
    ({'a': 1.0, 'b': 0.0}, -11.5129)
    >>> round(res["gm_bpref"], 6), round(res["gm_bpref(values=log)"], 6)
    (0.003162, 0.003162)
    """
    return _per_query_gm(bpref(prep, k, params), params)
