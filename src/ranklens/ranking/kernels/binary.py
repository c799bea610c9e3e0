"""Binary-relevance ranking metrics.

A document is relevant when it is judged with relevance >= the threshold
(``rel=`` parameter, else the conventions' ``rel_threshold``, default 1);
unjudged documents are non-relevant.  ``R`` is the number of relevant
judgments of the query (retrieved or not), ``b_i`` the relevance of the
document at rank ``i`` (1-based) and ``k`` the cutoff (the whole ranking
when absent).  Every kernel returns one float per query.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.ranking._sums import col, cutoff_array, is_vector, value_shape
from ranklens.ranking.kernels._segments import (
    binary_values,
    first_relevant_prob,
    retrieved_for_trec,
    safe_div,
    undefined_value,
    within,
)

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared


def _thr(prep: Prepared, params: dict[str, Any]) -> float:
    t = params.get("rel")
    return float(prep.conventions.rel_threshold if t is None else t)


def _hits(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """(Expected) number of relevant documents in the top k (k: None, an integer or a
    vector of cutoffs)."""
    if params["ties"] != "expected":
        return prep.relevant(_thr(prep, params)).count_in(prep.n_queries, k)
    b = binary_values(prep, _thr(prep, params), params["ties"])
    return prep.sum_k(b, k)


def num_retrieved(prep: Prepared, k: Any) -> np.ndarray:
    n = prep.lengths.astype(np.float64)
    return n if k is None else np.minimum(col(n, k), cutoff_array(k))


def precision(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Precision at k: ``P@k = (sum_{i<=k} b_i) / k``.

    The denominator is ``k`` even when fewer than k documents are retrieved
    (trec_eval ``P_k``, ``m_P.c``).  Without a cutoff, precision over the whole
    ranking: ``num_rel_ret / num_ret`` (trec_eval ``set_P``, ``m_set_P.c``; 0 for an
    empty ranking).  Unjudged documents are non-relevant.  Ties: any ordering
    policy, and ``expected`` (linear in ``b``).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, ["p@4", "p", "p@10"]).summary()  # 3/4, 3/5, 3/10
    {'p@4': 0.75, 'p': 0.6, 'p@10': 0.3}
    """
    hits = _hits(prep, k, params)
    if k is None:
        return safe_div(hits, prep.lengths)
    return hits / cutoff_array(k)


def recall(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Recall at k: ``R@k = (sum_{i<=k} b_i) / R``; 0 when ``R = 0``.

    ``R`` counts every relevant judgment of the query, retrieved or not; unjudged
    documents are non-relevant.  Without a cutoff, recall of the whole ranking
    (trec_eval ``recall_k`` and ``set_recall``, ``m_recall.c`` / ``m_set_recall.c``).
    Ties: ordering policies and ``expected``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, ["r@2", "r@3", "r"]).summary()  # R = 4: 1/4, 2/4, 3/4
    {'r@2': 0.25, 'r@3': 0.5, 'r': 0.75}
    """
    return safe_div(_hits(prep, k, params), col(prep.num_rel(_thr(prep, params)), k))


def f_measure(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """F-beta at k: ``(1 + beta^2) P R / (beta^2 P + R)`` with ``P = P@k`` and
    ``R = R@k`` (``beta=1``: F1 = 2 TP / (k + R)); 0 when P + R = 0.

    Without a cutoff, over the whole ranking with ``P = num_rel_ret/num_ret``
    (trec_eval ``set_F``, ``m_set_F.c``; van Rijsbergen's F, 1979).  In counts,
    ``F = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP)``.  Ties: ordering
    policies and ``expected`` (for ``k`` set, F is linear in TP).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["f1@4", "f1", "f1(beta=2)"])
    >>> {m: round(v, 4) for m, v in res.summary().items()}  # 6/(4+4), 6/(5+4), 15/(15+4+2)
    {'f1@4': 0.75, 'f1': 0.6667, 'f1(beta=2)': 0.7143}
    """
    beta2 = float(params["beta"]) ** 2
    hits = _hits(prep, k, params)
    denom_p = prep.lengths.astype(np.float64) if k is None else cutoff_array(k)
    p = safe_div(hits, denom_p)
    r = safe_div(hits, col(prep.num_rel(_thr(prep, params)), k))
    return safe_div((1 + beta2) * p * r, beta2 * p + r)


def average_precision(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Average precision at k.

    ``AP@k = (1/N) * sum_{i<=k} b_i * P@i`` where the normaliser ``N`` is
    ``norm=r``: ``R`` (trec_eval ``map``/``map_cut``, ranx ``map``);
    ``norm=min_r_k``: ``min(R, k)`` (ml_metrics ``apk``);
    ``norm=retrieved``: the number of relevant documents in the top k
    (scikit-learn's ``average_precision_score`` over the ranked documents);
    ``norm=k``: k (RecTools ``MAP(divide_by_k=True)``; needs a cutoff).
    0 when ``N = 0``.  MAP is the mean of AP over queries.  ``map@k`` is ``ap@k``.

    Ties: ordering policies; ``expected`` (exact expectation over tied orders:
    a position at offset t of a tie group of size g holding r relevant, with
    c relevant before the group, contributes
    ``(c r/g + r/g + t r (r-1)/(g (g-1))) / i``); ``grouped`` (a tie group is
    retrieved at once and every relevant document in it gets the precision at
    the group's end; scikit-learn's threshold view).  ``norm=retrieved`` with a
    cutoff is not defined under ``expected`` (the normaliser is random too).
    Unjudged documents are non-relevant.  Buckley & Voorhees, "Retrieval System
    Evaluation" (2005); trec_eval ``m_map.c`` and ``m_map_cut.c``.

    Relevant at ranks 1, 3 and 4 of R = 4: ``1 + 2/3 + 3/4 = 29/12``, over R, over
    the 3 retrieved, and at k = 2 over R and over ``min(R, 2)``:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["ap", "ap(norm=retrieved)", "ap@2", "ap(norm=min_r_k)@2"])
    >>> {m: round(v, 4) for m, v in res.summary().items()}
    {'ap': 0.6042, 'ap(norm=retrieved)': 0.8056, 'ap@2': 0.25, 'ap(norm=min_r_k)@2': 0.5}

    The relevant a tied with b: at rank 1 or 2 with even odds (``expected``:
    ``(1 + 1/2) / 2``), or precision at the group's end (``grouped``: 1/2):

    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0, "b": 1.0}})
    >>> ranklens.evaluate(q, r, ["ap(ties=expected)", "ap(ties=grouped)"]).summary()
    {'ap(ties=expected)': 0.75, 'ap(ties=grouped)': 0.5}
    """
    thr = _thr(prep, params)
    ties = params["ties"]
    norm = params["norm"]
    b = prep.is_rel(thr)
    rank = prep.pos.astype(np.float64) + 1.0
    if ties == "expected":
        gs = prep.group_start
        g = prep.group_size.astype(np.float64)
        cum = prep.cum_rel(thr)
        c = (cum[gs] - b[gs]).astype(np.float64)
        eb = binary_values(prep, thr, "expected")
        r = eb * g
        t = (np.arange(len(b)) - gs).astype(np.float64)
        pair = np.where(g > 1, r * (r - 1) / np.maximum(g * (g - 1), 1.0), 0.0)
        term = (c * eb + eb + t * pair) / rank
        rel_in_k = eb
    elif ties == "grouped":
        if is_vector(k):  # the groups cut by k differ per cutoff
            return np.column_stack([average_precision(prep, int(c), params) for c in k])
        cum = prep.cum_rel(thr)
        end = prep.group_start + prep.group_size - 1
        if k is not None:
            # a group cut by k ends at rank k
            end = np.minimum(end, prep.offsets[:-1][prep.seg] + k - 1)
        term = np.where(b, cum[end] / (prep.pos[end] + 1.0), 0.0)
        rel_in_k = b.astype(np.float64)
    else:
        # only relevant positions contribute: the j-th relevant at rank r adds j / r
        sp = prep.relevant(thr)
        total = sp.sum_in(prep.n_queries, sp.ordinal / (sp.pos + 1.0), k)
        den = _ap_norm(prep, k, norm, thr, lambda: sp.count_in(prep.n_queries, k))
        return safe_div(total, den)
    total = prep.sum_k(term, k)
    den = _ap_norm(prep, k, norm, thr, lambda: prep.sum_k(rel_in_k, k))
    return safe_div(total, den)


def _ap_norm(prep: Prepared, k: Any, norm: str, thr: float, retrieved: Any) -> np.ndarray:
    """AP's normaliser: R, min(R, k), k or the relevant retrieved (``retrieved()``)."""
    if norm == "r":
        return col(prep.num_rel(thr).astype(np.float64), k)
    if norm == "min_r_k":
        den = prep.num_rel(thr).astype(np.float64)
        return den if k is None else np.minimum(col(den, k), cutoff_array(k))
    if norm == "k":  # the catalogue's rule: norm=k comes with a cutoff
        return np.broadcast_to(cutoff_array(k), value_shape(prep.n_queries, k))
    return retrieved()


def reciprocal_rank(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Reciprocal rank of the first relevant document within the top k:
    ``RR@k = 1 / min{i <= k : b_i = 1}``, 0 if there is none (an empty ranking,
    nothing relevant retrieved, or R = 0).  MRR is its mean (Voorhees, TREC-8
    question answering, 1999).  trec_eval ``recip_rank`` (``m_recip_rank.c``).
    Unjudged documents are non-relevant.

    Ties: ordering policies and ``expected`` (the probability that each
    position of the first tie group holding a relevant document is the first
    relevant one is hypergeometric).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 0.9, "e": 0.8, "c": 0.7}})
    >>> res = ranklens.evaluate(q, r, ["rr", "rr@2"])  # c at rank 3; none in the top 2
    >>> round(res["rr"], 4), res["rr@2"]
    (0.3333, 0.0)
    """
    if params["ties"] != "expected":
        rank = _first_relevant_rank(prep, _thr(prep, params), k)
        return safe_div(np.ones(rank.shape), rank)
    p = first_relevant_prob(prep, _thr(prep, params), params["ties"])
    return prep.sum_k(p / (prep.pos + 1.0), k)


def _first_relevant_rank(prep: Prepared, thr: float, k: Any) -> np.ndarray:
    """1-based rank of each query's first relevant document (0 if none within k;
    queries x cutoffs for a vector k)."""
    sp = prep.relevant(thr)
    has = sp.first[1:] > sp.first[:-1]
    rank = np.zeros(prep.n_queries)
    rank[has] = sp.pos[sp.first[:-1][has]] + 1.0
    if k is None:
        return rank
    rank = col(rank, k)
    return np.where(rank > cutoff_array(k), 0.0, rank)


def success(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Success / hit rate at k: ``S@k = 1`` if ``sum_{i<=k} b_i > 0``, else 0
    (trec_eval ``success``, ``m_success.c``; ranx ``hit_rate``).  0 for an empty
    ranking and for a query without relevant judgments; unjudged documents are
    non-relevant.  Ties: ordering policies and ``expected`` (the probability of a
    hit).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2}})
    >>> r = ranklens.Run.from_dict({"q": {"b": 0.9, "e": 0.8, "c": 0.7}})
    >>> ranklens.evaluate(q, r, ["success@2", "success@3"]).summary()  # c at rank 3
    {'success@2': 0.0, 'success@3': 1.0}
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.5, "b": 0.5}})  # a tie: a first 1 time in 2
    >>> ranklens.evaluate(q, r, "success(ties=expected)@1")["success(ties=expected)@1"]
    0.5
    """
    if params["ties"] != "expected":
        return (_first_relevant_rank(prep, _thr(prep, params), k) > 0).astype(np.float64)
    p = first_relevant_prob(prep, _thr(prep, params), params["ties"])
    return prep.sum_k(p, k)


def arhr(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Average reciprocal hit rank at k: ``ARHR@k = sum_{i<=k} b_i / i`` per query
    (Karypis, "Evaluation of item-based top-N recommendation algorithms", CIKM
    2001; Deshpande & Karypis, ACM TOIS 22(1), 2004: the sum of the reciprocal ranks
    of all hits; its mean over queries is ARHR).  Not normalised: it can exceed 1.  0 for an empty
    ranking; unjudged documents are non-relevant.  Ties: ordering policies and
    ``expected``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["arhr", "arhr@3"])  # 1 + 1/3 + 1/4; 1 + 1/3
    >>> round(res["arhr"], 4), round(res["arhr@3"], 4)
    (1.5833, 1.3333)
    """
    if params["ties"] != "expected":
        sp = prep.relevant(_thr(prep, params))
        return sp.sum_in(prep.n_queries, 1.0 / (sp.pos + 1.0), k)
    b = binary_values(prep, _thr(prep, params), params["ties"])
    return prep.sum_k(b / (prep.pos + 1.0), k)


def average_recall(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Average recall at k (MAR@k is its mean over queries).

    ``mode=relevant`` (the definition in the "Evaluation Frameworks" notes on
    recommender metrics): ``AR@k = (sum_{i<=k} b_i * R@i) / n_k`` with ``n_k``
    the number of relevant documents in the top k (0 if none): recall
    averaged over the ranks that hold a hit.
    ``mode=all``: ``AR@k = (1/k) sum_{i=1..k} R@i``, recall averaged over every
    rank 1..k (ranks beyond the end of the ranking keep the final recall; without
    a cutoff, over the n retrieved ranks).  ``R@i`` is 0 when R = 0, so is AR;
    an empty ranking gives 0.  Unjudged documents are non-relevant.
    Ties: ordering policies.  Source: the "Evaluation Frameworks" notes on
    recommender metrics ("Average Recall@k ... MAR@k"); no paper fixes one
    definition, hence both modes.

    Hits at ranks 1, 3 and 4 of R = 4: ``(1/4 + 2/4 + 3/4) / 3``; over ranks 1..4,
    ``(1/4 + 1/4 + 2/4 + 3/4) / 4``; over 1..6, ranks 5 and 6 keep 3/4:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> res = ranklens.evaluate(q, r, ["mar@4", "mar(mode=all)@4", "mar(mode=all)@6"])
    >>> {m: round(v, 4) for m, v in res.summary().items()}
    {'mar@4': 0.5, 'mar(mode=all)@4': 0.4375, 'mar(mode=all)@6': 0.5417}
    """
    thr = _thr(prep, params)
    b = prep.is_rel(thr)
    nrel = prep.num_rel(thr).astype(np.float64)
    cum = prep.cum_rel(thr).astype(np.float64)
    rec = safe_div(cum, nrel[prep.seg])
    if params["mode"] == "relevant":
        num = prep.sum_k(np.where(b, rec, 0.0), k)
        return safe_div(num, prep.sum_k(b.astype(np.float64), k))
    if k is None:
        return safe_div(prep.seg_sum(rec), prep.lengths)
    total = prep.sum_k(rec, k)
    # ranks past the end of a short ranking keep its final recall
    final = safe_div(prep.seg_sum(b.astype(np.float64)), nrel)
    kf = cutoff_array(k)
    short = np.maximum(kf - col(prep.lengths, k), 0)
    return (total + short * col(final, k)) / kf


def r_precision(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """R-precision: precision at rank R, ``Rprec = (sum_{i<=R} b_i) / R``; 0 when
    R = 0.  The denominator is R even when fewer than R documents are retrieved;
    unjudged documents are non-relevant.  trec_eval ``Rprec`` (``m_Rprec.c``;
    Buckley & Voorhees 2005).  Ties: ordering policies and ``expected``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> ranklens.evaluate(q, r, "rprec")["rprec"]  # R = 4: a, c, d in the top 4
    0.75
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})  # R = 1, a tied with b
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0, "b": 1.0}})
    >>> ranklens.evaluate(q, r, "rprec(ties=expected)")["rprec(ties=expected)"]
    0.5
    """
    thr = _thr(prep, params)
    nrel = prep.num_rel(thr)
    if params["ties"] != "expected":
        sp = prep.relevant(thr)
        return safe_div(
            np.bincount(sp.seg[sp.pos < nrel[sp.seg]], minlength=prep.n_queries).astype(np.float64),
            nrel,
        )
    b = binary_values(prep, thr, params["ties"])
    return safe_div(prep.seg_sum(b, prep.pos < nrel[prep.seg]), nrel)


def bpref(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """bpref (Buckley & Voorhees 2004, as trec_eval 10 computes it).

    ``bpref = (1/R) * sum_{relevant retrieved d} (1 - min(n_d, R) / min(R, N))``
    where ``n_d`` is the number of judged non-relevant documents (grade 0 <= g
    < threshold) ranked above ``d`` and ``N`` the number of such judgments of
    the query; when ``n_d = 0`` (or ``min(R, N) = 0``) a relevant document
    contributes 1.  Unjudged documents are skipped.  A negative grade is skipped
    too under ``negative_grades='unjudged'`` (trec_eval's pooled but unjudged, the
    default), and is a judged non-relevant document (counted in ``n_d`` and ``N``)
    under ``negative_grades='nonrelevant'`` (ranx's ``bpref``, the ``ranx``
    profile).  0 when R = 0.  Ties: ordering policies.

    A query without judged non-relevant documents (``N = 0``, so ``min(R, N) = 0``):
    trec_eval special-cases ``n_d = 0`` and counts each relevant document retrieved 1
    (``no_nonrel=one``, the default); ranx divides anyway, ``1 - 0/0``
    (``no_nonrel=undefined``, the ``ranx`` profile), and the query's bpref is then the
    ``undefined`` convention's value: NaN (ranx; its mean is NaN too) or 0.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 2, "n": -1, "r": 2, "z": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"n": 0.5, "a": 0.2}})
    >>> ranklens.evaluate(q, r, "bpref")["bpref"]  # n is skipped: a counts 1, r 0
    0.5
    >>> ranklens.evaluate(q, r, "bpref", negative_grades="nonrelevant")["bpref"]
    0.25
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "r": 1}})  # N = 0
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.5, "x": 0.2}})
    >>> [ranklens.evaluate(q, r, m)[m] for m in ("bpref", "bpref(no_nonrel=undefined)")]
    [0.5, nan]
    """
    thr = _thr(prep, params)
    b = prep.is_rel(thr)
    nonrel = prep.judged & ~b
    m = within(prep, k)
    if m is not None:
        b = b & m
        nonrel = nonrel & m
    above = prep.seg_cumsum_int(nonrel.astype(np.int64)) - nonrel
    nrel = prep.num_rel(thr).astype(np.float64)
    n_nonrel = prep.num_nonrel(thr).astype(np.float64)
    denom = np.minimum(nrel, n_nonrel)[prep.seg]
    contrib = np.where(
        denom > 0, 1.0 - np.minimum(above, nrel[prep.seg]) / np.where(denom > 0, denom, 1.0), 1.0
    )
    value = safe_div(prep.seg_sum(np.where(b, contrib, 0.0)), nrel)
    if params.get("no_nonrel", "one") == "undefined":  # ranx: 1 - 0/0
        zero_by_zero = prep.seg_count(b & (denom == 0)) > 0
        value = np.where(zero_by_zero, undefined_value(prep), value)
    return value


def _rank_for_recall(prep: Prepared, level: float, nrel: np.ndarray) -> np.ndarray:
    if prep.conventions.iprec_rounding == "lround":
        # C lround: halves away from zero (the values are non-negative)
        return np.floor(level * nrel + 0.5)
    return np.floor(level * nrel + 0.9)


def interpolated_precision(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Interpolated precision at recall level ``k`` (written ``iprec@0.3``).

    ``iprec(x) = max { P@i : i such that the top i hold at least n(x) relevant
    documents }`` where ``n(x)`` is the number of relevant documents needed for
    recall x: ``lround(x * R)`` (trec_eval 10) or ``floor(x * R + 0.9)``
    (trec_eval 9 / pytrec_eval, convention ``iprec_rounding='legacy'``); the
    max over an empty set is 0, and for ``n(x) = 0`` it is the maximum
    precision at any rank (1 at x = 0 if the first document is relevant).
    trec_eval ``iprec_at_recall``.  Ties: ordering policies.

    On a ranking with nothing retrieved (``n = 0``: an empty ranking, or one that
    ``judged_only`` empties) the levels with ``n(x) = 0`` take trec_eval's precision
    ``RR / n = 0 / 0``: NaN under ``undefined='nan'`` (trec_eval 10, pytrec_eval), 0
    under ``undefined='zero'``; the other levels are 0.  A query absent from the run
    that ``missing='zero'`` scores has trec_eval ``-c``'s stand-in ranking of one
    unjudged document (value 0), unless ``judged_only`` throws it out.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1, "f": 1, "g": 1}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 1.0}, "b": {"x": 1.0}})
    >>> res = ranklens.evaluate(q, r, ["iprec@0.1", "iprec@0.2"], judged_only=True)
    >>> res.per_query("iprec@0.1"), res.per_query("iprec@0.2")  # lround(0.3), lround(0.6)
    ({'a': 1.0, 'b': nan}, {'a': 1.0, 'b': 0.0})
    >>> res["iprec@0.1"], res["iprec@0.2"]  # a NaN makes the mean NaN, as trec_eval's
    (nan, 0.5)
    >>> ranklens.evaluate(q, r, "iprec@0.1", judged_only=True, undefined="zero")["iprec@0.1"]
    0.5
    """
    return _iprec_levels(prep, [float(k)], params)[0]


def _iprec_levels(prep: Prepared, levels: list[float], params: dict[str, Any]) -> list[np.ndarray]:
    thr = _thr(prep, params)
    cum = prep.cum_rel(thr)
    prec = cum / (prep.pos + 1.0)
    nrel = prep.num_rel(thr).astype(np.float64)
    # iprec for "at least n relevant" = max precision over ranks with cum >= n; since
    # cum is non-decreasing, that is the max of prec from the first such rank to the end
    # of the query: one np.maximum.reduceat over [first, end) ranges (exact, whatever
    # the number of queries)
    ext = np.append(prec, 0.0)  # a ranking ending at the last row is a valid range end
    starts = np.empty(2 * prep.n_queries, dtype=np.int64)
    starts[1::2] = prep.offsets[1:]
    out = []
    for level in levels:
        need = _rank_for_recall(prep, level, nrel)
        # cum is non-decreasing within a query: the first rank with cum >= need
        # comes right after the ranks with cum < need
        short = prep.seg_count(cum < need[prep.seg])
        starts[0::2] = prep.offsets[:-1] + short
        best = np.maximum.reduceat(ext, starts)[0::2] if prep.n_queries else np.zeros(0)
        out.append(np.where((short < prep.lengths) & (nrel > 0), best, 0.0))
    if prep.conventions.undefined == "zero" or prep.n_queries == 0:
        return out
    # nothing retrieved: the precision RR / n at the levels needing no relevant
    # document is 0 / 0 (trec_eval: num_rel_ret / num_ret)
    empty = retrieved_for_trec(prep) == 0
    if not empty.any():
        return out
    return [
        np.where(empty & (_rank_for_recall(prep, level, nrel) <= 0), np.nan, v)
        for level, v in zip(levels, out, strict=True)
    ]


def eleven_point(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """11-point interpolated average precision:
    ``11pt_avg = (1/11) sum_{x in 0.0, 0.1, ..., 1.0} iprec(x)`` (``levels=`` gives
    other points, trec_eval ``11pt_avg..25,.5,.75``; ``m_11pt_avg.c``; Salton &
    McGill 1983).  Same rounding convention as ``iprec`` (``iprec_rounding``), and
    NaN when one of the levels is (an empty ranking under ``undefined='nan'``, as
    trec_eval's sum of them).  Ties: ordering policies.

    Precision by rank 1, 1/2, 2/3, 3/4, 3/5 with R = 4: levels 0-0.3 need at most
    one relevant document (1), 0.4-0.8 two or three (3/4), 0.9 and 1 four (0):
    ``(4 + 5 * 3/4) / 11``; trec_eval 9's rounding needs four from 0.8 on:

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 2, "d": 1, "f": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5}})
    >>> round(ranklens.evaluate(q, r, "11pt_avg")["11pt_avg"], 4)
    0.7045
    >>> round(ranklens.evaluate(q, r, "11pt_avg", iprec_rounding="legacy")["11pt_avg"], 4)
    0.6136
    """
    levels = list(params["levels"]) if params["levels"] else [i / 10 for i in range(11)]
    vals = _iprec_levels(prep, levels, params)
    # summed level by level, as trec_eval does: np.mean over a stacked array sums in
    # another order when there is one query (pairwise), which would make a query's
    # value depend on the other queries of its batch
    total = np.zeros(prep.n_queries)
    for v in vals:
        total += v
    return total / len(levels)


def num_ret(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Number of retrieved documents within the cutoff: ``num_ret@k = min(n, k)``
    for a ranking of n documents (n without k), judged or not; the summary is the
    sum over queries (trec_eval ``num_ret``, ``m_num_ret.c``).  An empty ranking
    counts 0.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1, "f": 0}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 0.9, "x": 0.8, "y": 0.7}, "b": {"f": 0.9, "e": 0.8}})
    >>> res = ranklens.evaluate(q, r, ["num_ret", "num_ret@2"])
    >>> res.per_query("num_ret"), res.summary()  # 3 + 2; min(3, 2) + min(2, 2)
    ({'a': 3.0, 'b': 2.0}, {'num_ret': 5.0, 'num_ret@2': 4.0})
    """
    return num_retrieved(prep, k)


def num_rel(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Number of relevant judgments of the query (retrieved or not); summed.

    ``summary=trec`` (trec_eval 10; the default conventions' and the trec_eval
    profile's): under ``missing='zero'`` (trec_eval ``-c``) the summary counts every
    judgment with a grade > 0 whatever the relevance threshold, as trec_eval's
    ``te_calc_avg_num_rel`` does; the per-query values count at the threshold.
    ``summary=sum``: the sum of the per-query values.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1, "e": 2}, "b": {"f": 1}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 1.0}})
    >>> res = ranklens.evaluate(q, r, ["num_rel", "num_rel(summary=sum)"], missing="zero",
    ...                         rel_threshold=2)
    >>> res.per_query("num_rel"), res.summary()
    ({'a': 1.0, 'b': 0.0}, {'num_rel': 3.0, 'num_rel(summary=sum)': 1.0})
    """
    return prep.num_rel(_thr(prep, params)).astype(np.float64)


def num_rel_ret(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Relevant documents retrieved within the cutoff: ``sum_{i<=k} b_i``.

    Two metrics read it.  ``num_rel_ret`` (trec_eval ``num_rel_ret``,
    ``m_num_rel_ret.c``): the summary is the sum over queries.  ``hits`` (ranx's
    ``hits``): the same count per query, its summary the mean over queries.
    Unjudged documents are non-relevant; an empty ranking counts 0.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1, "f": 0}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 0.9, "x": 0.8, "y": 0.7}, "b": {"f": 0.9, "e": 0.8}})
    >>> res = ranklens.evaluate(q, r, ["num_rel_ret", "num_rel_ret@1", "hits", "hits@1"])
    >>> res.per_query("num_rel_ret@1"), res.summary()  # a: d at 1; b: e at 2
    ({'a': 1.0, 'b': 0.0}, {'num_rel_ret': 2.0, 'num_rel_ret@1': 1.0, 'hits': 1.0, 'hits@1': 0.5})
    """
    return prep.relevant(_thr(prep, params)).count_in(prep.n_queries, k)


def num_nonrel_judged_ret(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Judged non-relevant documents retrieved within the cutoff:
    ``sum_{i<=k} [judged_i and not b_i]`` (judged with a grade below the
    threshold; unjudged documents do not count, nor do negative grades unless
    ``negative_grades='nonrelevant'`` judges them); the summary is the sum over
    queries (trec_eval ``num_nonrel_judged_ret``, ``m_num_nonrel_judged_ret.c``).

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"e": 1, "f": 0}})
    >>> r = ranklens.Run.from_dict({"a": {"d": 0.9, "x": 0.8, "y": 0.7}, "b": {"f": 0.9, "e": 0.8}})
    >>> res = ranklens.evaluate(q, r, "num_nonrel_judged_ret")  # x, y unjudged; f judged 0
    >>> res.per_query("num_nonrel_judged_ret"), res["num_nonrel_judged_ret"]
    ({'a': 0.0, 'b': 1.0}, 1.0)
    """
    b = prep.judged & ~prep.is_rel(_thr(prep, params))
    return prep.sum_k(b.astype(np.float64), k)
