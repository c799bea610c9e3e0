"""Preference measures of trec_eval 10 (``-R prefs`` / ``-R qrels_prefs``, ``prefs_*``).

Everything is counted over all queries at once, following ``form_prefs_counts.c``:

1. Each judged document of a query gets a *docid rank*: the judged documents the run
   retrieved come first, in run order (score descending, ties by docno ascending --
   note: the opposite tie order of trec_eval's ranked measures), then the judged
   documents it did not retrieve, by docno.  ``NJR`` is the number retrieved.
2. A judgment group (jg) with one sub-group is a list of equivalence classes (ECs,
   one per ``rel_level``, highest first): each judgment line of a higher EC is
   preferred to each line of a lower EC.  A jg with several sub-groups is a
   preference matrix: within a sub-group higher levels are preferred, and the
   transitive closure over the sub-groups is added (this part is computed per such
   jg, a boolean matrix closure; they are rare).
3. A preference ``A > B`` with docid ranks ``a``, ``b`` is *retrieved* when both are
   below ``NJR`` (fulfilled when ``a < b``), *implied* when exactly one is
   (fulfilled when it is ``A``), and *not occurring* when neither is (never
   fulfilled).

The measures (trec_eval's definitions, ``m_prefs_*.c``)::

    prefs_num_prefs_poss     all preferences
    prefs_num_prefs_ful      fulfilled, retrieved or implied
    prefs_num_prefs_ful_ret  fulfilled, both retrieved
    prefs_simp[_ret|_imp]    fulfilled / possible (all | both retrieved | not "neither")
    prefs_pair[_ret|_imp]    mean over document pairs of the share of its preferences
                             (over all jgs) that the run fulfils
    prefs_avgjg[_ret|_imp]   mean over jgs of each jg's fulfilled / possible
    prefs_avgjg_Rnonrel[_ret]  prefs_avgjg with the number of non-relevant documents
                             of each jg set to its number of relevant ones (R)

A value trec_eval leaves unset (no preference at all) is 0.  The counts
(``prefs_num_*``) are summed over queries in the summary line, the others averaged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ranklens.errors import InputError

__all__ = ["PREFS_COUNT_MEASURES", "PREFS_MEASURES", "prefs_values"]

#: trec_eval's ``prefs_*`` measures, in trec_eval's measure-table order
PREFS_MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: the measures that are counts (printed as integers, summed in the summary)
PREFS_COUNT_MEASURES = frozenset(PREFS_MEASURES[:3])


def _codes(*arrays: np.ndarray) -> list[np.ndarray]:
    """Integer codes of string arrays in one shared ``strcmp`` order."""
    allv = np.concatenate(arrays) if arrays else np.array([], dtype=str)
    _, inv = np.unique(allv, return_inverse=True)
    out, start = [], 0
    for a in arrays:
        out.append(inv[start : start + a.shape[0]].astype(np.int64))
        start += a.shape[0]
    return out


def _segment_pos(keys: np.ndarray) -> np.ndarray:
    """Position of each element within its run of equal (sorted) keys."""
    n = keys.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    new[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(new)
    seg = np.cumsum(new) - 1
    return np.arange(n, dtype=np.int64) - starts[seg]


def _count(idx: np.ndarray, n: int, mask: np.ndarray | None = None) -> np.ndarray:
    if mask is not None:
        idx = idx[mask]
    return np.bincount(idx, minlength=n).astype(np.int64)


@dataclass
class _Jgs:
    query: np.ndarray  # query index of each jg
    ful_ret: np.ndarray
    poss_ret: np.ndarray
    ful_imp: np.ndarray
    poss_imp: np.ndarray
    notoccur: np.ndarray
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel: np.ndarray
    num_nonrel_ret: np.ndarray
    rc_ful: np.ndarray  # recalculated counts for prefs_avgjg_Rnonrel (R < N)
    rc_poss: np.ndarray
    rc_ful_ret: np.ndarray
    rc_poss_ret: np.ndarray


def _pair_blocks(group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (a, b) of row indices within the same group (sorted rows)."""
    n = group.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    new[1:] = group[1:] != group[:-1]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    seg = np.cumsum(new) - 1
    size_of = sizes[seg]
    a = np.repeat(np.arange(n, dtype=np.int64), size_of)
    block_start = np.repeat(np.cumsum(size_of) - size_of, size_of)
    b = starts[seg][a] + (np.arange(a.shape[0], dtype=np.int64) - block_start)
    return a, b


def prefs_values(
    pref_query: np.ndarray,
    pref_jg: np.ndarray,
    pref_jsg: np.ndarray,
    pref_doc: np.ndarray,
    pref_rel: np.ndarray,
    run_query: np.ndarray,
    run_doc: np.ndarray,
    run_score: np.ndarray,
    *,
    empty_rankings: bool = False,
    depth: int | None = None,
) -> tuple[list[str], dict[str, np.ndarray]]:
    """Per-query values of every ``prefs_*`` measure, trec_eval 10's way.

    Returns the evaluated queries (those with both a run and judgments, in
    ``strcmp`` order) and, per measure of :data:`PREFS_MEASURES`, their values.
    ``empty_rankings=True`` (trec_eval ``-c``) also evaluates the judged queries the
    run lacks, as empty rankings; run queries without judgments are never evaluated.
    ``depth`` (trec_eval ``-M``) keeps each query's first ``depth`` documents only.

    >>> import numpy as np
    >>> s = lambda *x: np.array(x, dtype=str)
    >>> qs, v = prefs_values(s("q", "q", "q"), s("a", "a", "a"), s("0", "0", "0"),
    ...     s("d1", "d2", "d3"), np.array([2.0, 1.0, 0.0]),
    ...     s("q", "q"), s("d2", "d1"), np.array([2.0, 1.0]))
    >>> qs, int(v["prefs_num_prefs_poss"][0]), int(v["prefs_num_prefs_ful"][0])
    (['q'], 3, 2)
    >>> float(v["prefs_simp_ret"][0]), float(v["prefs_simp"][0])
    (0.0, 0.6666666666666666)
    """
    # --- queries evaluated: in both; codes shared by prefs and run ----------------
    qp, qr = _codes(pref_query, run_query)
    dp, dr = _codes(pref_doc, run_doc)
    qnames = np.unique(np.concatenate([pref_query, run_query])) if len(qp) + len(qr) else qp
    both = np.unique(qp) if empty_rankings else np.intersect1d(qp, qr)
    keep_p = np.isin(qp, both)
    keep_r = np.isin(qr, both)
    qp, dp = qp[keep_p], dp[keep_p]
    jg_s, jsg_s, rel = pref_jg[keep_p], pref_jsg[keep_p], pref_rel[keep_p].astype(np.float64)
    qr, dr, sr = qr[keep_r], dr[keep_r], run_score[keep_r].astype(np.float64)
    nq = both.shape[0]
    qidx_p = np.searchsorted(both, qp)
    qidx_r = np.searchsorted(both, qr)
    ndoc = int(max(dp.max(initial=-1), dr.max(initial=-1))) + 1

    # --- run order: score descending, docno ascending -----------------------------
    order = np.lexsort((dr, -sr, qidx_r))
    run_pos = np.empty(order.shape[0], dtype=np.int64)
    run_pos[order] = _segment_pos(qidx_r[order])
    if depth is not None:
        top = run_pos < depth
        qidx_r, dr, run_pos = qidx_r[top], dr[top], run_pos[top]
    run_key = qidx_r * ndoc + dr
    rk_order = np.argsort(run_key, kind="stable")
    run_key_sorted = run_key[rk_order]

    # --- docid ranks of the judged documents --------------------------------------
    pkey = qidx_p * ndoc + dp
    ukey, inv = np.unique(pkey, return_inverse=True)
    uq = ukey // ndoc
    loc = np.searchsorted(run_key_sorted, ukey)
    loc_c = np.minimum(loc, max(run_key_sorted.shape[0] - 1, 0))
    ret = (
        (loc < run_key_sorted.shape[0]) & (run_key_sorted[loc_c] == ukey)
        if run_key_sorted.shape[0]
        else np.zeros(ukey.shape[0], dtype=bool)
    )
    upos = np.where(ret, run_pos[rk_order[loc_c]] if ret.shape[0] else 0, 0)
    njr = _count(uq, nq, ret)
    dorder = np.lexsort((ukey % ndoc, upos, ~ret, uq))
    urank = np.empty(ukey.shape[0], dtype=np.int64)
    urank[dorder] = _segment_pos(uq[dorder])
    rank = urank[inv]

    # --- judgment groups, rows sorted (jg, jsg, rel_level desc, rank) -------------
    (jgc,) = _codes(jg_s)
    (jsgc,) = _codes(jsg_s)
    gkey = qidx_p * (int(jgc.max(initial=0)) + 1) + jgc
    ug, gid = np.unique(gkey, return_inverse=True)
    ng = ug.shape[0]
    gquery = np.zeros(ng, dtype=np.int64)
    gquery[gid] = qidx_p
    o = np.lexsort((rank, -rel, jsgc, gid))
    gid, jsgc, rel, rank = gid[o], jsgc[o], rel[o], rank[o]
    qrow = gquery[gid]
    nj = njr[qrow]
    row_ret = rank < nj
    sub_new = np.ones(gid.shape[0], dtype=bool)
    sub_new[1:] = (gid[1:] != gid[:-1]) | (jsgc[1:] != jsgc[:-1])
    nsub = _count(gid, ng, sub_new)
    is_pa = nsub > 1

    z = np.zeros(ng, dtype=np.int64)
    jgs = _Jgs(gquery, *(z.copy() for _ in range(13)))
    pair_g: list[np.ndarray] = []
    pair_r1: list[np.ndarray] = []
    pair_r2: list[np.ndarray] = []

    # --- EC judgment groups, vectorised over all of them --------------------------
    ec_rows = ~is_pa[gid]
    eg, erel, erank, eret = gid[ec_rows], rel[ec_rows], rank[ec_rows], row_ret[ec_rows]
    ejr = nj[ec_rows]
    lvl_new = np.ones(eg.shape[0], dtype=bool)
    lvl_new[1:] = (eg[1:] != eg[:-1]) | (erel[1:] != erel[:-1])
    ec_global = np.cumsum(lvl_new) - 1
    g_first_ec = np.zeros(ng, dtype=np.int64)
    if eg.shape[0]:
        g_first_ec[eg[::-1]] = ec_global[::-1]
    ec = ec_global - g_first_ec[eg]
    last_ec = np.zeros(ng, dtype=np.int64)
    np.maximum.at(last_ec, eg, ec)
    ec_pos = _segment_pos(ec_global)
    is_rel = erel > 0.0
    jgs.num_rel += _count(eg, ng, is_rel)
    jgs.num_rel_ret += _count(eg, ng, is_rel & eret)
    jgs.num_nonrel += _count(eg, ng, ~is_rel)
    jgs.num_nonrel_ret += _count(eg, ng, ~is_rel & eret)
    a, b = _pair_blocks(eg)
    pg = eg[a]
    r1, r2 = erank[a], erank[b]
    pref = ec[a] < ec[b]
    if np.any(pref & (r1 == r2)):
        raise InputError(
            "a document has two different rel_levels in one judgment sub-group; "
            "judge each document once per (query, jg, jsg)"
        )
    pair_g.append(pg[pref])
    pair_r1.append(r1[pref])
    pair_r2.append(r2[pref])
    # recalculation of prefs_avgjg_Rnonrel when N > R (m_prefs_avgjg_Rnonrel.c):
    # the preferences among all ECs but the last, plus every line against the
    # "first R lines of the last EC" -- which trec_eval reads from its pool of the
    # query's EC lines, so past a last EC shorter than R it reads on into the next
    # judgment group's lines (reproduced; past the query's last line it would read
    # stale memory, and there the pairs are left out)
    jr = ejr[a]
    sel_a = (ec[a] < ec[b]) & (ec[b] != last_ec[pg])
    ful = (r1 < r2) & (r1 < jr)
    jgs.rc_ful += _count(pg, ng, sel_a & ful)
    jgs.rc_poss += _count(pg, ng, sel_a)
    both_ret = eret[a] & eret[b]
    jgs.rc_ful_ret += _count(pg, ng, sel_a & both_ret & (r1 < r2))
    jgs.rc_poss_ret += _count(pg, ng, sel_a & both_ret)
    eq = gquery[eg]
    q_end = np.zeros(nq + 1, dtype=np.int64)
    np.maximum.at(q_end, eq, np.arange(1, eg.shape[0] + 1))
    last_start = np.zeros(ng, dtype=np.int64)
    is_last = ec == last_ec[eg]
    first_of_last = is_last & (ec_pos == 0)
    last_start[eg[first_of_last]] = np.flatnonzero(first_of_last)
    for retonly in (False, True):
        width = (jgs.num_rel_ret if retonly else jgs.num_rel)[eg]
        xa = np.repeat(np.arange(eg.shape[0], dtype=np.int64), width)
        t = np.arange(xa.shape[0], dtype=np.int64) - np.repeat(np.cumsum(width) - width, width)
        gx = eg[xa]
        y = last_start[gx] + t
        valid = y < q_end[eq[xa]]
        y = np.minimum(y, max(eg.shape[0] - 1, 0))
        rx, ry = erank[xa], erank[y]
        if retonly:
            # trec_eval stops at the first line of the slice not retrieved
            bad = valid & ~(ry < ejr[xa])
            blk = np.repeat(np.arange(width.shape[0]), width)
            first_bad = np.full(width.shape[0], np.iinfo(np.int64).max)
            np.minimum.at(first_bad, blk[bad], t[bad])
            valid &= (t < first_bad[blk]) & eret[xa]
            jgs.rc_ful_ret += _count(gx, ng, valid & (rx < ry))
            jgs.rc_poss_ret += _count(gx, ng, valid)
        else:
            jgs.rc_ful += _count(gx, ng, valid & (rx < ry) & (rx < ejr[xa]))
            jgs.rc_poss += _count(gx, ng, valid)

    # --- preference-array judgment groups: transitive closure per jg --------------
    for g in np.flatnonzero(is_pa):
        _pa_group(int(g), gid, jsgc, rel, rank, int(njr[gquery[g]]), jgs, pair_g, pair_r1, pair_r2)

    # --- count every preference -----------------------------------------------------
    pg = np.concatenate(pair_g)
    r1 = np.concatenate(pair_r1)
    r2 = np.concatenate(pair_r2)
    jr = njr[gquery[pg]]
    ret1, ret2 = r1 < jr, r2 < jr
    fulfilled = r1 < r2
    jgs.ful_ret += _count(pg, ng, ret1 & ret2 & fulfilled)
    jgs.poss_ret += _count(pg, ng, ret1 & ret2)
    jgs.ful_imp += _count(pg, ng, ret1 & ~ret2)
    jgs.poss_imp += _count(pg, ng, ret1 ^ ret2)
    jgs.notoccur += _count(pg, ng, ~ret1 & ~ret2)

    values = _measures(jgs, nq, pg, r1, r2, jr)
    return [str(q) for q in qnames[both]], values


def _pa_group(
    g: int,
    gid: np.ndarray,
    jsgc: np.ndarray,
    rel: np.ndarray,
    rank: np.ndarray,
    njr: int,
    jgs: _Jgs,
    pair_g: list[np.ndarray],
    pair_r1: list[np.ndarray],
    pair_r2: list[np.ndarray],
) -> None:
    rows = np.flatnonzero(gid == g)
    docs, local = np.unique(rank[rows], return_inverse=True)
    n = docs.shape[0]
    rel_of = np.full(n, -1.0)
    for k in range(rows.shape[0]):  # consistency check in trec_eval's (sorted) order
        r = rel[rows[k]]
        old = rel_of[local[k]]
        if (old > 0.0 and r == 0.0) or (old == 0.0 and r > 0.0):
            raise InputError(
                "a document has both a 0 and a non-0 rel_level in one judgment group; "
                "a judgment group must judge each document consistently"
            )
        rel_of[local[k]] = r
    sub, lr = jsgc[rows], rel[rows]
    same_sub = sub[:, None] == sub[None, :]
    m = np.zeros((n, n), dtype=bool)
    ii, jj = np.nonzero(same_sub & (lr[:, None] > lr[None, :]))
    m[local[ii], local[jj]] = True
    m |= np.eye(n, dtype=bool)
    while True:
        nxt = (m.astype(np.int64) @ m.astype(np.int64)) > 0
        if np.array_equal(nxt, m):
            break
        m = nxt
    np.fill_diagonal(m, False)
    if np.any(m & m.T):
        raise InputError(
            "the preferences of a judgment group contradict each other (A > B and B > A "
            "after adding transitive preferences); split them into different jgs"
        )
    i, j = np.nonzero(m)
    pair_g.append(np.full(i.shape[0], g, dtype=np.int64))
    pair_r1.append(docs[i])
    pair_r2.append(docs[j])
    dret = docs < njr
    num_rel = int(np.sum(rel_of > 0.0))
    jgs.num_rel[g] = num_rel
    jgs.num_rel_ret[g] = int(np.sum((rel_of > 0.0) & dret))
    jgs.num_nonrel[g] = int(np.sum(rel_of == 0.0))
    jgs.num_nonrel_ret[g] = int(np.sum((rel_of == 0.0) & dret))
    # recalculation for prefs_avgjg_Rnonrel: drop the nonrel docs after the R-th
    nonrel = rel_of == 0.0
    drop = nonrel & (np.cumsum(nonrel) > num_rel)  # docs are in docid-rank order
    keep = ~drop
    km = m & keep[:, None] & keep[None, :]
    i, j = np.nonzero(km)
    ful = (docs[i] < docs[j]) & (docs[i] < njr)
    jgs.rc_ful[g] = int(ful.sum())
    jgs.rc_poss[g] = int(i.shape[0])
    both = (docs[i] < njr) & (docs[j] < njr)
    jgs.rc_ful_ret[g] = int((both & (docs[i] < docs[j])).sum())
    jgs.rc_poss_ret[g] = int(both.sum())


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(num.shape[0], dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _measures(
    j: _Jgs, nq: int, pg: np.ndarray, r1: np.ndarray, r2: np.ndarray, jr: np.ndarray
) -> dict[str, np.ndarray]:
    q = j.query

    def per_query(x: np.ndarray) -> np.ndarray:
        return np.bincount(q, weights=x.astype(np.float64), minlength=nq)

    ful_all = j.ful_ret + j.ful_imp
    poss_all = j.poss_ret + j.poss_imp + j.notoccur
    poss_imp = j.poss_ret + j.poss_imp
    njg = np.bincount(q, minlength=nq).astype(np.float64)

    def avgjg(ful: np.ndarray, poss: np.ndarray) -> np.ndarray:
        s = per_query(_ratio(ful, poss))
        return np.where(s > 0.0, s / np.maximum(njg, 1.0), 0.0)

    def rnonrel(retonly: bool) -> np.ndarray:
        big_r = j.num_rel_ret if retonly else j.num_rel
        big_n = j.num_nonrel_ret if retonly else j.num_nonrel
        extra = big_r - big_n
        ful = (j.ful_ret if retonly else ful_all) + j.num_rel_ret * extra
        poss = (j.poss_ret if retonly else poss_all) + j.num_rel * extra
        rc_ful = j.rc_ful_ret if retonly else j.rc_ful
        rc_poss = j.rc_poss_ret if retonly else j.rc_poss
        f = np.where(extra >= 0, ful, rc_ful).astype(np.float64)
        p = np.where(extra >= 0, poss, rc_poss).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = per_query(f / p)  # 0/0 is NaN, and a NaN sum leaves 0 (as in C)
        return np.where(s > 0.0, s / np.maximum(njg, 1.0), 0.0)

    v: dict[str, np.ndarray] = {
        "prefs_num_prefs_poss": per_query(poss_all),
        "prefs_num_prefs_ful": per_query(ful_all),
        "prefs_num_prefs_ful_ret": per_query(j.ful_ret),
        "prefs_simp": _ratio(per_query(ful_all), per_query(poss_all)),
        "prefs_avgjg": avgjg(ful_all, poss_all),
        "prefs_avgjg_Rnonrel": rnonrel(False),
        "prefs_simp_ret": _ratio(per_query(j.ful_ret), per_query(j.poss_ret)),
        "prefs_avgjg_ret": avgjg(j.ful_ret, j.poss_ret),
        "prefs_avgjg_Rnonrel_ret": rnonrel(True),
        "prefs_simp_imp": _ratio(per_query(ful_all), per_query(poss_imp)),
        "prefs_avgjg_imp": avgjg(ful_all, poss_imp),
    }
    v.update(_pair_measures(q[pg], r1, r2, jr, nq))
    return {name: v[name] for name in PREFS_MEASURES}


def _pair_measures(
    pq: np.ndarray, r1: np.ndarray, r2: np.ndarray, jr: np.ndarray, nq: int
) -> dict[str, np.ndarray]:
    """prefs_pair*: per unordered document pair, the share of its preferences (over
    all jgs of the query) that prefer the document ranked first."""
    lo, hi = np.minimum(r1, r2), np.maximum(r1, r2)
    span = int(max(hi.max(initial=0), 0)) + 1
    key = (pq * span + lo) * span + hi
    uk, inv = np.unique(key, return_inverse=True)
    total = np.bincount(inv, minlength=uk.shape[0]).astype(np.float64)
    fwd = np.bincount(inv, weights=(r1 < r2).astype(np.float64), minlength=uk.shape[0])
    uq = uk // (span * span)
    u_hi = uk % span
    u_lo = (uk // span) % span
    ujr = np.zeros(uk.shape[0], dtype=np.int64)
    ujr[inv] = jr
    ret = u_hi < ujr
    imp = (u_lo < ujr) & ~ret
    share = _ratio(fwd, total)

    def mean(mask: np.ndarray, value_mask: np.ndarray) -> np.ndarray:
        s = np.bincount(uq, weights=np.where(value_mask, share, 0.0), minlength=nq)
        n = np.bincount(uq[mask], minlength=nq).astype(np.float64)
        return _ratio(s, n)

    everything = np.ones(uk.shape[0], dtype=bool)
    return {
        "prefs_pair": mean(everything, ret | imp),
        "prefs_pair_ret": mean(ret, ret),
        "prefs_pair_imp": mean(ret | imp, ret | imp),
    }
