"""Intent-aware and novelty/diversity metrics: alpha-nDCG, ERR-IA, NRBP, MAP-IA,
P-IA and subtopic recall, as ndeval (the TREC Web track tool) computes them.

The judgments are per (query, intent, doc) (:class:`~ranklens.DiversityQrels`; a
plain :class:`~ranklens.Qrels` is one intent per query).  A document is relevant to
intent ``j`` when its grade for ``j`` reaches the relevance threshold (``rel``, the
conventions' ``rel_threshold`` by default; ndeval: 1, grades above 1 count 1,
binary); a negative grade is never relevant.  The query's *intents* are those with
at least one relevant document (ndeval's "actual subtopics"; intents judged with
nothing relevant are left out), ``M`` of them, with weights ``w_j`` (uniform: 1
each, or the qrels' intent weights) summing to ``W`` (``M`` when uniform).

Novelty: the document at rank ``i`` (1-based) has gain
``s_i = sum_j w_j J_ij (1 - alpha)^{c_ij}`` where ``J_ij`` is 1 if it is relevant
to ``j`` and ``c_ij`` counts the documents above it relevant to ``j`` (Clarke et
al., SIGIR 2008).  ``alpha`` (0.5 by default) is the redundancy penalty.

The *ideal* ranking is ndeval's greedy approximation (the exact one is NP-hard):
rank by rank, the judged document of highest gain given those placed above it,
ties to the greatest doc id (byte order).  ``alpha-nDCG``, ``nERR-IA`` and ``nNRBP``
divide by the ideal ranking's value; ``alpha-DCG``, ``ERR-IA`` and ``NRBP`` by the
"ideal ideal" of ndeval, a ranking whose every document is relevant to every
intent (rank ``i`` gains ``W (1 - alpha)^{i-1}``), so they lie in [0, 1] and do not
depend on the other judged documents.

ndeval's conventions, reproduced: a query with no relevant judgment scores 0 on
every metric but ``nNRBP``, which is 0/0 (NaN, ndeval prints ``nan``; the
``undefined`` convention); a run query without judgments is skipped and a judged
query absent from the run is left out (``missing='skip'``; ndeval ``-c`` is
``missing='zero'``); ``-M depth`` is the ``depth`` convention; ``-traditional``
(score descending, then doc id descending) is ``ties='trec'``, and ndeval's default
order (the run's rank column) is that of a run whose scores are ``-rank``
(:meth:`Run.from_frame` ``rank=``).  ndeval prints a row of zeros for a run query
without judgments and leaves it out of its mean; here it is left out (or scored 0
and counted, ``unjudged='zero'``).  One difference:
ndeval leaves its ``ERR-IA@1`` and ``alpha-DCG@1`` un-normalised (its loop
normalising them starts at rank 2), here every cutoff is normalised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens.ranking.kernels._segments import undefined_value

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared

__all__ = [
    "alpha_dcg",
    "alpha_ndcg",
    "err_ia",
    "map_ia",
    "ndcg_ia",
    "nerr_ia",
    "nnrbp",
    "nrbp",
    "p_ia",
    "subtopic_recall",
]


# ----------------------------------------------------------------------------- the join


@dataclass(frozen=True, eq=False)
class _Judged:
    """A prepared ranking's intent judgments.

    ``pos``/``seg``/``rank``/``slot``: the relevant (ranked document, intent) pairs,
    sorted by document then intent (flat position, query index, 0-based rank, dense
    intent index); ``slot_seg``, ``slot_w``, ``slot_nrel``: each intent's query,
    weight and number of relevant documents (in the qrels); ``total_w``: per query,
    the summed weight ``W`` of its intents with a relevant document; ``docs``: the
    ideal ranking's candidates (see :func:`_ideal`)."""

    pos: np.ndarray
    seg: np.ndarray
    rank: np.ndarray
    slot: np.ndarray
    slot_seg: np.ndarray
    slot_w: np.ndarray
    slot_nrel: np.ndarray
    total_w: np.ndarray
    cand_seg: np.ndarray  # relevant (doc, intent) pairs of the qrels: query of the doc
    cand_doc: np.ndarray  # the doc (a dense index, docs of a query adjacent)
    cand_rank: np.ndarray  # the doc's rank among its query's doc ids (byte order)
    cand_slot: np.ndarray


def _threshold(prep: Prepared, params: dict[str, Any]) -> float:
    t = params.get("rel")
    return float(prep.conventions.rel_threshold if t is None else t)


def _judged(prep: Prepared, params: dict[str, Any]) -> _Judged:
    """The intent judgments of ``prep`` at the metric's threshold and weights (kept)."""
    thr = _threshold(prep, params)
    weights = params.get("weights", "qrels")
    key = ("intents", thr, weights)
    if key not in prep._memo:
        prep._memo[key] = (
            _single_intent(prep, thr)
            if prep.intents is None or prep.qrels_row is None
            else _from_intents(prep, thr, weights)
        )
    out: _Judged = prep._memo[key]
    return out


def _single_intent(prep: Prepared, thr: float) -> _Judged:
    """A plain Qrels: one intent per query, the query's grades."""
    nq = prep.n_queries
    sp = prep.relevant(thr)
    ok = prep.ideal_rel >= thr
    if prep.conventions.negative_grades == "nonrelevant":
        ok &= prep.ideal_rel >= 0
    cand = np.flatnonzero(ok)
    nrel = np.bincount(prep.ideal_seg[cand], minlength=nq).astype(np.int64)
    slot_seg = np.arange(nq, dtype=np.int64)
    return _Judged(
        pos=sp.idx,
        seg=sp.seg,
        rank=sp.pos,
        slot=sp.seg,
        slot_seg=slot_seg,
        slot_w=np.ones(nq),
        slot_nrel=nrel,
        total_w=(nrel > 0).astype(np.float64),
        cand_seg=prep.ideal_seg[cand],
        cand_doc=cand,
        cand_rank=prep.ideal_pos[cand],
        cand_slot=prep.ideal_seg[cand],
    )


def _relevant(grade: np.ndarray, thr: float) -> np.ndarray:
    return (grade >= thr) & (grade >= 0)


def _from_intents(prep: Prepared, thr: float, weights: str) -> _Judged:
    """A DiversityQrels: its intent rows joined to the ranked documents through the
    engine's ``qrels_row``."""
    table = prep.intents
    row = prep.qrels_row
    assert table is not None and row is not None
    nq = prep.n_queries
    # each intent slot's query among the evaluated ones (-1: not evaluated)
    ids = prep.query_ids
    if not pa.types.is_large_string(ids.type):
        ids = ids.cast(pa.large_string())
    slot_seg_all = to_numpy(pc.index_in(table.slot_query, value_set=ids), fill=-1).astype(np.int64)
    use = slot_seg_all >= 0
    dense = np.cumsum(use) - 1  # slot -> dense index among the evaluated queries' slots
    slot_seg = slot_seg_all[use]
    given = table.slot_weight
    slot_w = np.ones(len(slot_seg)) if weights == "uniform" or given is None else given[use]
    # the qrels' relevant intent rows (every judged document of the evaluated queries)
    rel_rows = _relevant(table.grade, thr)
    rel_rows &= use[table.slot]
    n_rows = len(table.offsets) - 1
    row_of = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(table.offsets))
    cand = np.flatnonzero(rel_rows)  # sorted by (query, doc, intent): the table's order
    cand_slot = dense[table.slot[cand]]
    slot_nrel = np.bincount(cand_slot, minlength=len(slot_seg)).astype(np.int64)
    actual = slot_nrel > 0
    total_w = np.bincount(slot_seg[actual], weights=slot_w[actual], minlength=nq)
    # the ranked documents' relevant intents
    at = np.flatnonzero(row >= 0)
    r = row[at]
    lo, hi = table.offsets[r], table.offsets[r + 1]
    count = hi - lo
    pair_pos = np.repeat(at, count)
    pair_row = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
    keep = _relevant(table.grade[pair_row], thr)
    pair_pos, pair_row = pair_pos[keep], pair_row[keep]
    seg = prep.seg[pair_pos]
    return _Judged(
        pos=pair_pos,
        seg=seg,
        rank=prep.pos[pair_pos],
        slot=dense[table.slot[pair_row]],
        slot_seg=slot_seg,
        slot_w=slot_w,
        slot_nrel=slot_nrel,
        total_w=total_w,
        cand_seg=slot_seg[cand_slot],
        cand_doc=row_of[cand],
        cand_rank=table.doc_rank[row_of[cand]],
        cand_slot=cand_slot,
    )


def _decay(base: float, n: int) -> np.ndarray:
    """``1, base, base^2, ...`` (``n`` terms) by repeated multiplication, as ndeval
    updates its gains (a power function can differ in the last bit)."""
    out = np.empty(max(n, 1), dtype=np.float64)
    out[0] = 1.0
    if n > 1:
        out[1:] = base
        np.cumprod(out, out=out)
    return out[: max(n, 0)] if n > 0 else out[:0]


def _rank_gains(prep: Prepared, params: dict[str, Any], depth: int | None) -> tuple[Any, ...]:
    """The novelty gain ``s_i`` of every ranked document within ``depth`` (None: all),
    as (query, 0-based rank, gain) of the documents with a relevant intent, in rank
    order (computed once for every rank, kept per alpha, threshold and weights)."""
    key = ("rank_gains", _threshold(prep, params), params.get("weights"), float(params["alpha"]))
    if key not in prep._memo:
        prep._memo[key] = _by_rank(*_all_rank_gains(prep, params))
    return _top(prep._memo[key], depth)


def _by_rank(seg: np.ndarray, rank: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, ...]:
    """(query, rank, value) entries ordered by rank (a stable sort: each query's entries
    stay in rank order), so that the entries above a cutoff are a prefix."""
    small = rank.astype(np.int16) if int(rank.max(initial=0)) < 2**15 else rank
    order = np.argsort(small, kind="stable")
    return seg[order], rank[order], value[order]


def _top(entries: tuple[np.ndarray, ...], depth: int | None) -> tuple[np.ndarray, ...]:
    """The entries (ordered by rank) above the 0-based rank ``depth`` (None: all)."""
    if depth is None:
        return entries
    seg, rank, value = entries
    n = int(np.searchsorted(rank, depth))
    return seg[:n], rank[:n], value[:n]


def _all_rank_gains(prep: Prepared, params: dict[str, Any]) -> tuple[np.ndarray, ...]:
    j = _judged(prep, params)
    alpha = float(params["alpha"])
    pos, slot = j.pos, j.slot
    # c_ij: the earlier relevant documents of the same intent (pairs by intent, rank)
    by_slot = np.argsort(slot * (len(prep.rel) + 1) + pos)  # distinct keys
    s_sorted = slot[by_slot]
    first = np.ones(len(s_sorted), dtype=bool)
    first[1:] = s_sorted[1:] != s_sorted[:-1]
    start = np.flatnonzero(first)
    seen = np.arange(len(s_sorted)) - np.repeat(start, np.diff(np.append(start, len(s_sorted))))
    c = np.empty(len(pos), dtype=np.int64)
    c[by_slot] = seen
    decay = _decay(1.0 - alpha, int(c.max(initial=0)) + 1)
    g = j.slot_w[slot] * decay[c]
    # one gain per document: its intents' gains added one after another in intent
    # order (bincount adds in input order), as ndeval adds them
    new = np.ones(len(pos), dtype=bool)
    new[1:] = pos[1:] != pos[:-1]
    upos = pos[new]
    s = np.bincount(np.cumsum(new) - 1, weights=g, minlength=len(upos))
    return prep.seg[upos], prep.pos[upos], s


def _discount(rank: np.ndarray) -> np.ndarray:
    """ndeval's rank discount ``log(2) / log(rank + 2)`` (0-based rank)."""
    return np.log(2.0) / np.log(rank + 2.0)


# ------------------------------------------------------------------------- the ideal


def _ideal(prep: Prepared, params: dict[str, Any], depth: int | None) -> tuple[Any, ...]:
    """The greedy ideal ranking's gains: (query, 0-based rank, gain) of its first
    ``depth`` documents (None: every document with a gain), ranks ascending within each
    query.  The whole ideal ranking is searched once per alpha, threshold and weights
    (the cutoffs and NRBP read it; its tail costs little, the queries' rankings
    running out one after another)."""
    j = _judged(prep, params)
    alpha = float(params["alpha"])
    key = ("ideal_ia", _threshold(prep, params), params.get("weights"), alpha)
    if key not in prep._memo:
        prep._memo[key] = _by_rank(*_greedy(j, 1.0 - alpha, None))
    return _top(prep._memo[key], depth)


def _greedy(j: _Judged, keep: float, depth: int | None) -> tuple[np.ndarray, ...]:
    """ndeval's greedy ideal ranking for every query at once.

    Queries whose relevant documents each have one relevant intent need no search:
    the greedy takes the largest remaining gain ``w_j keep^c`` each time, so its gains
    are those values in descending order.  The others take one step per rank, all
    queries at once: each candidate document's gain given those placed, the highest
    per query (ties to the greatest doc id), the placed document's intents decayed."""
    doc_key = j.cand_doc
    # candidate docs (unique per query): pairs sorted by (query, doc, intent) already
    new = np.ones(len(doc_key), dtype=bool)
    new[1:] = (doc_key[1:] != doc_key[:-1]) | (j.cand_seg[1:] != j.cand_seg[:-1])
    doc_id = np.cumsum(new) - 1
    n_docs = int(doc_id[-1]) + 1 if len(doc_id) else 0
    intents_per_doc = np.bincount(doc_id, minlength=n_docs)
    doc_seg = j.cand_seg[new]
    nq = len(j.total_w)
    multi_q = np.zeros(nq, dtype=bool)
    multi_q[doc_seg[intents_per_doc > 1]] = True
    segs: list[np.ndarray] = []
    ranks: list[np.ndarray] = []
    gains: list[np.ndarray] = []
    max_n = int(j.slot_nrel.max(initial=0))
    decay = _decay(keep, max_n + 1)
    # single-intent queries: every intent's gains w keep^0 .. w keep^(n-1), sorted
    single_slot = ~multi_q[j.slot_seg]
    if single_slot.any():
        sl = np.flatnonzero(single_slot & (j.slot_nrel > 0))
        n = j.slot_nrel[sl]
        s_of = np.repeat(sl, n)
        c = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        g = j.slot_w[s_of] * decay[c]
        q = j.slot_seg[s_of]
        order = np.lexsort((-g, q))
        q, g = q[order], g[order]
        r = np.arange(len(q)) - np.searchsorted(q, q, side="left")
        if depth is not None:
            m = r < depth
            q, g, r = q[m], g[m], r[m]
        segs.append(q)
        ranks.append(r)
        gains.append(g)
    if multi_q.any():
        pm = multi_q[j.cand_seg]
        q, rr, g = _greedy_search(
            doc_id[pm],
            j.cand_rank[pm],
            j.cand_slot[pm],
            j.cand_seg[pm],
            j.slot_w,
            j.slot_seg,
            keep,
            depth,
        )
        segs.append(q)
        ranks.append(rr)
        gains.append(g)
    if not segs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(segs), np.concatenate(ranks), np.concatenate(gains)


def _greedy_search(
    doc: np.ndarray,
    doc_rank: np.ndarray,
    slot: np.ndarray,
    seg: np.ndarray,
    slot_w: np.ndarray,
    slot_seg: np.ndarray,
    keep: float,
    depth: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The greedy search over the relevant (doc, intent) pairs of some queries (sorted
    by query, doc, intent): one vectorised step per rank, all queries at once.

    The documents of a query relevant to the same intents always gain alike, so they
    form one candidate (a *class*) that the greedy takes from, greatest doc id first,
    until it is empty: the search reads classes, not documents (ndeval's ties to the
    greatest doc id are those of the classes' next documents)."""
    gain = slot_w.astype(np.float64).copy()  # each intent's current gain w keep^c
    # documents: their query, rank among the query's doc ids, intent set
    new = np.ones(len(doc), dtype=bool)
    new[1:] = doc[1:] != doc[:-1]
    first_pair = np.flatnonzero(new)
    dseg, drank = seg[first_pair], doc_rank[first_pair]
    local = slot - np.searchsorted(slot_seg, seg)  # intent index within its query
    wide = local >= 63  # more intents than a bit mask holds: no grouping there
    bits = np.left_shift(np.uint64(1), np.minimum(local, 62).astype(np.uint64))
    mask = np.bitwise_or.reduceat(bits, first_pair) if len(first_pair) else bits[:0]
    alone = np.zeros(len(first_pair), dtype=np.int64)
    if wide.any():
        wide_doc = np.zeros(len(first_pair), dtype=bool)
        wide_doc[np.searchsorted(first_pair, np.flatnonzero(wide), side="right") - 1] = True
        alone[wide_doc] = np.flatnonzero(wide_doc) + 1
    # classes: (query, intent set), members by rank descending: one sort of packed keys
    _, mcode = np.unique(mask, return_inverse=True)
    mcode = mcode.reshape(-1).astype(np.int64)
    if wide.any():  # each document of such a query is a class of its own
        mcode = np.where(alone > 0, int(mcode.max(initial=0)) + alone, mcode)
    n_codes = int(mcode.max(initial=0)) + 1
    top_rank = int(drank.max(initial=0)) + 1
    if (int(dseg.max(initial=0)) + 1) * n_codes * top_rank < 2**62:
        by_class = np.argsort((dseg * n_codes + mcode) * top_rank + (top_rank - 1 - drank))
    else:
        by_class = np.lexsort((-drank, mcode, dseg))
    cs, cm = dseg[by_class], mcode[by_class]
    head = np.ones(len(by_class), dtype=bool)
    head[1:] = (cs[1:] != cs[:-1]) | (cm[1:] != cm[:-1])
    cls_start = np.flatnonzero(head)
    cls_size = np.diff(np.append(cls_start, len(by_class)))
    member_rank = drank[by_class]
    cseg = cs[cls_start]
    taken = np.zeros(len(cls_start), dtype=np.int64)
    rep_rank = member_rank[cls_start]
    # each class's intents: those of its first document (pairs by class, then intent)
    rep_doc = by_class[cls_start]
    n_pairs = np.diff(np.append(first_pair, len(doc)))[rep_doc]
    pair_cls = np.repeat(np.arange(len(cls_start)), n_pairs)
    at = np.repeat(first_pair[rep_doc] - np.cumsum(n_pairs) + n_pairs, n_pairs)
    pslot = slot[at + np.arange(len(at))]
    out_q: list[np.ndarray] = []
    out_g: list[np.ndarray] = []
    out_r: list[np.ndarray] = []
    dead = np.zeros(len(cseg), dtype=bool)  # emptied, or of a query that is done
    n_dead = 0
    step = 0
    qstart = qid = pair_start = np.zeros(0, dtype=np.int64)
    fresh = True
    while len(cseg) and (depth is None or step < depth):
        n = len(cseg)
        if fresh:  # the query blocks and each class's pairs, after a compaction
            qnew = np.ones(n, dtype=bool)
            np.not_equal(cseg[1:], cseg[:-1], out=qnew[1:])
            qstart = np.flatnonzero(qnew)
            qid = np.cumsum(qnew) - 1
            pair_start = np.searchsorted(pair_cls, np.arange(n + 1))
            fresh = False
        # each class's gain: its intents' gains added one after another
        score = np.bincount(pair_cls, weights=gain[pslot], minlength=n)
        if n_dead:
            score[dead] = -1.0
        best = np.maximum.reduceat(score, qstart)
        cand = score == best[qid]
        top = np.maximum.reduceat(np.where(cand, rep_rank, -1), qstart)
        chosen = np.flatnonzero(cand & (rep_rank == top[qid]))
        live = best > 0  # a query whose best gain is 0 is done
        out_q.append(cseg[qstart][live])
        out_g.append(best[live])
        out_r.append(np.full(int(live.sum()), step, dtype=np.int64))
        step += 1
        if not live.any():
            break
        # the chosen classes (one per live query) give a document and decay its intents
        chosen = chosen[live[qid[chosen]]]
        lo, hi = pair_start[chosen], pair_start[chosen + 1]
        cnt = hi - lo
        gain[pslot[np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))]] *= keep
        taken[chosen] += 1
        more = chosen[taken[chosen] < cls_size[chosen]]
        rep_rank[more] = member_rank[cls_start[more] + taken[more]]
        empty = chosen[taken[chosen] >= cls_size[chosen]]
        dead[empty] = True
        if not live.all():
            dead |= ~live[qid]
        n_dead = int(dead.sum())
        if n_dead > n // 4:  # compact: leave out the dead classes and their pairs
            kept = ~dead
            stay = kept[pair_cls]
            pair_cls = (np.cumsum(kept) - 1)[pair_cls[stay]]
            pslot = pslot[stay]
            cseg, rep_rank = cseg[kept], rep_rank[kept]
            taken, cls_size, cls_start = taken[kept], cls_size[kept], cls_start[kept]
            dead = np.zeros(len(cseg), dtype=bool)
            n_dead = 0
            fresh = True
    if not out_q:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(out_q), np.concatenate(out_r), np.concatenate(out_g)


# ------------------------------------------------------------------------- the metrics


def _per_query(n: int, seg: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per-query sums, each query's values added in the given (rank) order."""
    return np.bincount(seg, weights=values, minlength=n)


def _ideal_ideal(total_w: np.ndarray, keep: float, k: int, how: str) -> np.ndarray:
    """The value at ``k`` of a ranking whose every document is relevant to every
    intent, rank ``i`` (0-based) gaining ``W keep^i`` (ndeval's collection-independent
    normaliser): ``how='dcg'`` discounted by ``log(2) / log(i + 2)``, ``'err'`` divided
    by ``i + 1``; computed as ndeval does, per distinct ``W``."""
    values, inverse = np.unique(total_w, return_inverse=True)
    gain = np.empty((len(values), k))
    gain[:, 0] = values
    gain[:, 1:] = keep
    np.cumprod(gain, axis=1, out=gain)  # W, W keep, (W keep) keep, ...
    per_rank = gain * _discount(np.arange(k)) if how == "dcg" else gain / np.arange(1.0, k + 1)
    out: np.ndarray = np.cumsum(per_rank, axis=1)[:, k - 1][inverse.reshape(-1)]
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, 0 where ``num`` is 0 (ndeval normalises only non-zero values)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(num != 0, num / np.where(den != 0, den, 1.0), 0.0)


def _cutoff(k: Any) -> int:
    return int(k)


def alpha_dcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """alpha-DCG@k, normalised by the ideal ideal ranking (ndeval's ``alpha-DCG@k``).

    ``alpha-DCG@k = sum_{i<=k} s_i / log2(i+1) / sum_{i<=k} W (1-alpha)^{i-1} / log2(i+1)``
    with ``s_i`` the novelty gain of rank ``i`` (see the module).  Clarke et al.,
    "Novelty and diversity in information retrieval evaluation", SIGIR 2008.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1, "b": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> # s = (1, 0.5 + 1); ideal ideal: 2, 2 * 0.5 discounted
    >>> v = ranklens.evaluate(qrels, run, "alpha_dcg@2")["alpha_dcg@2"]
    >>> bool(abs(v - (1 + 1.5 / np.log2(3)) / (2 + 1 / np.log2(3))) < 1e-12)
    True
    """
    kk = _cutoff(k)
    seg, rank, s = _rank_gains(prep, params, kk)
    num = _per_query(prep.n_queries, seg, s * _discount(rank))
    j = _judged(prep, params)
    den = _ideal_ideal(j.total_w, 1.0 - float(params["alpha"]), kk, "dcg")
    return _ratio(num, den)


def alpha_ndcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """alpha-nDCG@k: alpha-DCG@k over that of the greedy ideal ranking.

    ``alpha-nDCG@k = sum_{i<=k} s_i / log2(i+1) / sum_{i<=k} s*_i / log2(i+1)`` with
    ``s*`` the gains of ndeval's greedy ideal ranking (ties to the greatest doc id).
    Clarke et al., SIGIR 2008; ndeval (TREC Web track) ``alpha-nDCG@k``.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict(
    ...     {"q": {"1": {"a": 1, "b": 1}, "2": {"c": 1}}}
    ... )
    >>> run = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> # run gains 1, 0.5, 1; ideal (a or b, c, ...) gains 1, 1, 0.5
    >>> v = ranklens.evaluate(qrels, run, "alpha_ndcg@2")["alpha_ndcg@2"]
    >>> bool(abs(v - (1 + 0.5 / np.log2(3)) / (1 + 1 / np.log2(3))) < 1e-12)
    True
    """
    kk = _cutoff(k)
    seg, rank, s = _rank_gains(prep, params, kk)
    num = _per_query(prep.n_queries, seg, s * _discount(rank))
    iq, ir, ig = _ideal(prep, params, kk)
    den = _per_query(prep.n_queries, iq, ig * _discount(ir))
    return _ratio(num, den)


def err_ia(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """ERR-IA@k as ndeval computes it: ``sum_{i<=k} s_i / i`` over the ideal ideal
    ``sum_{i<=k} W (1-alpha)^{i-1} / i``.

    With ``alpha`` as the probability that a relevant document satisfies an intent
    this is intent-aware expected reciprocal rank (Chapelle et al., CIKM 2009) scaled
    into [0, 1]; ndeval's ``ERR-IA@k``.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> # (1/1 + 1/2) / (2/1 + 2 * 0.5 / 2)
    >>> ranklens.evaluate(qrels, run, "err_ia@2")["err_ia@2"]
    0.6
    """
    kk = _cutoff(k)
    seg, rank, s = _rank_gains(prep, params, kk)
    num = _per_query(prep.n_queries, seg, s / (rank + 1.0))
    j = _judged(prep, params)
    den = _ideal_ideal(j.total_w, 1.0 - float(params["alpha"]), kk, "err")
    return _ratio(num, den)


def nerr_ia(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """nERR-IA@k: ERR-IA@k over that of the greedy ideal ranking (ndeval ``nERR-IA@k``).

    ``nERR-IA@k = sum_{i<=k} s_i / i / sum_{i<=k} s*_i / i``.  Chapelle et al., CIKM
    2009; Clarke et al., ICTIR 2009.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"x": 2.0, "a": 1.0}})
    >>> # gains 0, 1; ideal 1, 1
    >>> ranklens.evaluate(qrels, run, "nerr_ia@2")["nerr_ia@2"]
    0.3333333333333333
    """
    kk = _cutoff(k)
    seg, rank, s = _rank_gains(prep, params, kk)
    num = _per_query(prep.n_queries, seg, s / (rank + 1.0))
    iq, ir, ig = _ideal(prep, params, kk)
    den = _per_query(prep.n_queries, iq, ig / (ir + 1.0))
    return _ratio(num, den)


def _nrbp_sum(prep: Prepared, params: dict[str, Any]) -> np.ndarray:
    seg, rank, s = _rank_gains(prep, params, None)
    beta = float(params["beta"])
    decay = _decay(beta, int(prep.lengths.max(initial=0)) + 1)
    return _per_query(prep.n_queries, seg, s * decay[rank])


def nrbp(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Novelty- and rank-biased precision (ndeval ``NRBP``), over the whole ranking.

    ``NRBP = (1 - (1-alpha) beta) / W * sum_i s_i beta^{i-1}``: rank-biased precision
    with patience ``beta`` of the novelty gains.  Clarke, Kolla & Vechtomova, "An
    effectiveness measure for ambiguous and underspecified queries", ICTIR 2009.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> # (1 - 0.25) / 2 * (1 + 0.5)
    >>> ranklens.evaluate(qrels, run, "nrbp")["nrbp"]
    0.5625
    """
    j = _judged(prep, params)
    alpha, beta = float(params["alpha"]), float(params["beta"])
    return _nrbp_sum(prep, params) * _ratio(
        np.full(prep.n_queries, 1.0 - (1.0 - alpha) * beta), j.total_w
    )


def nnrbp(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """NRBP over that of the greedy ideal ranking (ndeval ``nNRBP``).

    ``nNRBP = sum_i s_i beta^{i-1} / sum_i s*_i beta^{i-1}``; a ranking of a query
    without a relevant judgment divides 0 by 0, as does every ranking at ``alpha=0,
    beta=1`` (where every NRBP is 0): NaN, or 0 under ``undefined='zero'`` (ndeval
    prints ``nan``); a query absent from the run that ``missing='zero'`` scores is 0
    (ndeval ``-c``).  Clarke, Kolla & Vechtomova, ICTIR 2009.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"x": 2.0, "a": 1.0}})
    >>> # 0.5 / (1 + 0.5)
    >>> round(ranklens.evaluate(qrels, run, "nnrbp")["nnrbp"], 6)
    0.333333
    """
    j = _judged(prep, params)
    num = _nrbp_sum(prep, params)
    iq, ir, ig = _ideal(prep, params, None)
    beta = float(params["beta"])
    decay = _decay(beta, int(ir.max(initial=0)) + 1)
    den = _per_query(prep.n_queries, iq, ig * decay[ir])
    out = _ratio(num, den)
    # 0/0 on a ranking (ndeval computes nothing for a query absent from the run: 0)
    ranked = np.ones(prep.n_queries, dtype=bool) if prep.in_run is None else prep.in_run
    out[(j.total_w <= 0) & ranked] = undefined_value(prep)
    if 1.0 - (1.0 - float(params["alpha"])) * beta == 0.0:
        # alpha = 0 and beta = 1: NRBP's factor (1 - (1 - alpha) beta) is 0, so is
        # every NRBP, and ndeval's ratio of them is 0/0
        out[ranked] = undefined_value(prep)
    return out


def map_ia(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Intent-aware average precision (ndeval ``MAP-IA``; MAP-IA is its mean).

    ``AP-IA = sum_j w_j AP_j / W`` with ``AP_j`` the average precision of the ranking
    judged on intent ``j`` alone (its relevant documents ``R_j`` in the qrels).
    Agrawal, Gollapudi, Halverson & Ieong, "Diversifying search results", WSDM 2009.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"a": 2.0, "x": 1.5, "b": 1.0}})
    >>> # AP_1 = 1, AP_2 = 1/3
    >>> round(ranklens.evaluate(qrels, run, "map_ia")["map_ia"], 6)
    0.666667
    """
    j = _judged(prep, params)
    by_slot = np.lexsort((j.pos, j.slot))
    slot, rank = j.slot[by_slot], j.rank[by_slot]
    first = np.ones(len(slot), dtype=bool)
    first[1:] = slot[1:] != slot[:-1]
    start = np.flatnonzero(first)
    cnt = np.arange(len(slot)) - np.repeat(start, np.diff(np.append(start, len(slot)))) + 1
    total = np.bincount(slot, weights=cnt / (rank + 1.0), minlength=len(j.slot_seg))
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(j.slot_nrel > 0, total / np.maximum(j.slot_nrel, 1), 0.0)
    s = np.bincount(j.slot_seg, weights=j.slot_w * ap, minlength=prep.n_queries)
    return _ratio(s, j.total_w)


def p_ia(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Intent-aware precision at k (ndeval ``P-IA@k``).

    ``P-IA@k = sum_j w_j |relevant to j in the top k| / (k W)``.  Agrawal et al., WSDM
    2009.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 1, "b": 1}, "2": {"b": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> ranklens.evaluate(qrels, run, "p_ia@2")["p_ia@2"]  # (1 + 2) / (2 * 2)
    0.75
    """
    kk = _cutoff(k)
    j = _judged(prep, params)
    m = j.rank < kk
    hits = np.bincount(j.seg[m], weights=j.slot_w[j.slot[m]], minlength=prep.n_queries)
    return _ratio(hits, kk * j.total_w)


def subtopic_recall(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Subtopic (intent) recall at k (ndeval ``strec@k``): the share of the query's
    intents covered by a relevant document in the top k, each intent counting its
    weight.  Zhai, Cohen & Lafferty, "Beyond independent relevance", SIGIR 2003.

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict(
    ...     {"q": {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1, "d": 0}}}
    ... )
    >>> run = ranklens.Run.from_dict({"q": {"a": 3.0, "d": 2.0, "b": 1.0}})
    >>> ranklens.evaluate(qrels, run, "strec@3")["strec@3"]  # intents 1 and 2 of 3
    0.6666666666666666
    """
    kk = _cutoff(k)
    j = _judged(prep, params)
    m = j.rank < kk
    covered = np.zeros(len(j.slot_seg), dtype=bool)
    covered[j.slot[m]] = True
    s = np.bincount(j.slot_seg, weights=j.slot_w * covered, minlength=prep.n_queries)
    return _ratio(s, j.total_w)


def _graded(prep: Prepared, gain: Any, thr: float) -> tuple[np.ndarray, ...]:
    """Every intent's graded gains: (slot, query) of each intent, and the (slot, rank,
    gain) of the ranked documents and of the ideal lists (each intent's positive gains
    in descending order) with a positive gain.  A plain Qrels: one intent per query."""
    from ranklens.ranking.kernels.graded import gains

    table, row = prep.intents, prep.qrels_row
    if table is None or row is None:
        g = gains(prep.rel, gain, prep.judged, thr)
        run = np.flatnonzero(g > 0)
        ig = gains(prep.ideal_rel, gain, prep.ideal_rel >= 0, thr)
        ideal = np.flatnonzero(ig > 0)
        nq = prep.n_queries
        return (
            np.arange(nq),
            np.arange(nq),
            prep.seg[run],
            prep.pos[run],
            g[run],
            prep.ideal_seg[ideal],
            ig[ideal],
        )
    ids = prep.query_ids
    if not pa.types.is_large_string(ids.type):
        ids = ids.cast(pa.large_string())
    slot_seg_all = to_numpy(pc.index_in(table.slot_query, value_set=ids), fill=-1).astype(np.int64)
    use = slot_seg_all >= 0
    dense = np.cumsum(use) - 1
    at = np.flatnonzero(row >= 0)
    r = row[at]
    lo, count = table.offsets[r], table.offsets[r + 1] - table.offsets[r]
    pair_pos = np.repeat(at, count)
    pair_row = np.repeat(lo - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
    g = gains(table.grade[pair_row], gain, None, thr)
    keep = g > 0
    ig = gains(table.grade, gain, None, thr)
    ideal = np.flatnonzero((ig > 0) & use[table.slot])
    return (
        slot_seg_all[use],
        np.flatnonzero(use),
        dense[table.slot[pair_row[keep]]],
        prep.pos[pair_pos[keep]],
        g[keep],
        dense[table.slot[ideal]],
        ig[ideal],
    )


def ndcg_ia(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Intent-aware nDCG at k: ``nDCG-IA@k = sum_j w_j nDCG_j@k / W``.

    ``nDCG_j@k`` is the nDCG of the ranking judged on intent ``j`` alone, with the
    intent's grades as gains (``gain``: linear, exp2, binary or a mapping, as
    :func:`~ranklens.ranking.kernels.graded.ndcg`, ``binary`` from the threshold
    ``rel``; unjudged documents, negative grades and negative gains count 0) and its
    ideal list cut at k; the intents are those with a positive gain, weighted ``w_j``
    (uniform: 1), ``W`` their sum.  Agrawal, Gollapudi, Halverson & Ieong,
    "Diversifying search results", WSDM 2009.  (ndeval has no nDCG-IA: this one is
    checked by hand and against ``ndcg`` on one intent.)

    >>> import ranklens
    >>> qrels = ranklens.DiversityQrels.from_dict({"q": {"1": {"a": 2}, "2": {"b": 1, "c": 1}}})
    >>> run = ranklens.Run.from_dict({"q": {"b": 2.0, "a": 1.0}})
    >>> # intent 1: (2 / log2 3) / 2; intent 2: 1 / (1 + 1 / log2 3)
    >>> v = ranklens.evaluate(qrels, run, "ndcg_ia@2")["ndcg_ia@2"]
    >>> bool(abs(v - (1 / np.log2(3) + 1 / (1 + 1 / np.log2(3))) / 2) < 1e-12)
    True
    """
    kk = _cutoff(k)
    thr = _threshold(prep, params)
    key = ("graded_ia", repr(params["gain"]), thr)
    if key not in prep._memo:
        prep._memo[key] = _graded(prep, params["gain"], thr)
    slot_seg, slots, r_slot, r_rank, r_gain, i_slot, i_gain = prep._memo[key]
    n_slots = len(slot_seg)
    m = r_rank < kk
    dcg = np.bincount(r_slot[m], weights=r_gain[m] / np.log2(r_rank[m] + 2.0), minlength=n_slots)
    order = np.lexsort((-i_gain, i_slot))
    i_slot, i_gain = i_slot[order], i_gain[order]
    i_rank = np.arange(len(i_slot)) - np.searchsorted(i_slot, i_slot, side="left")
    m = i_rank < kk
    idcg = np.bincount(i_slot[m], weights=i_gain[m] / np.log2(i_rank[m] + 2.0), minlength=n_slots)
    actual = idcg > 0
    table = prep.intents
    if params.get("weights") == "uniform" or table is None or table.slot_weight is None:
        w = np.ones(n_slots)
    else:
        w = table.slot_weight[slots]
    with np.errstate(divide="ignore", invalid="ignore"):
        per_intent = np.where(actual, dcg / np.where(actual, idcg, 1.0), 0.0)
    num = np.bincount(slot_seg, weights=w * per_intent, minlength=prep.n_queries)
    total = np.bincount(slot_seg[actual], weights=w[actual], minlength=prep.n_queries)
    return _ratio(num, total)
