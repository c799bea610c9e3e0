"""Pooling: which documents of several runs to judge.

Every run is ordered as the engine orders a ranking
(:func:`ranklens.ranking.engine.order_rankings`: score descending, equal scores by
document id descending in byte order, as trec_eval); ``ties="trectools"`` orders equal
scores by document id *ascending*, as trectools' ``TrecRun`` sorts a run (``score``
descending, ``docid`` ascending).  Rank ``r`` is the 1-based position in that order.

Strategies (trectools' ``TrecPoolMaker.make_pool`` names in brackets):

* ``depth`` (``topX``): the union of every run's top ``depth`` documents per query.
  A document's priority is its best rank over the runs.
* ``rrf`` (``rrf``): every retrieved document scores ``sum_runs 1 / (rrf_k + r)``
  (Cormack et al. 2009, reciprocal rank fusion); the ``depth`` documents of highest
  score form the query's pool.
* ``rbp`` (``rbp``): every retrieved document scores ``(1 - p) p^(r - 1)`` in each run
  (Moffat & Zobel 2008, rank-biased precision weights), summed (``rbp_merge="sum"``)
  or maximised (``"max"``) over the runs; the ``depth`` documents of highest score.

Within a query the pool is ordered by priority (best rank ascending then the number of
runs retrieving the document within the depth descending, for ``depth``; score
descending for ``rrf``/``rbp``), equal priorities by the tie rule's document order
(``trec``: id descending; ``trectools``: id ascending, as trectools' stable pandas sort
of a ``groupby`` leaves them).  ``budget_per_query`` keeps each query's first documents
in that order; ``budget`` (in all) deals the documents out round-robin, each query's
first, then each query's second, ... (queries in id order) until the budget is spent.

Differences from trectools, named: trectools weighs ``rrf``/``rbp`` by the rank
*column* of the run file; ranklens by the position in the run's order (the same
numbers when the file's ranks are 1, 2, ... in that order, as trec_eval writes them).
trectools' ``rrf``/``rbp`` pools key queries by ``int(query)``; ranklens keeps ids as
text.  Weights are summed in the order of the runs, as trectools (pandas) sums them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy
from ranklens._shared.columns import sorted_id_codes
from ranklens._shared.sorting import uniform_blocks
from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.ranking.data import Run

__all__ = ["STRATEGIES", "TIES", "Pool", "pool"]

STRATEGIES = ("depth", "rrf", "rbp")
TIES = ("trec", "trectools")


@dataclass(frozen=True, eq=False)
class Pool:
    """The documents to judge: one row per (query, document), grouped by query (in id
    byte order) and ordered within a query by priority (``rank`` 1, 2, ...).

    ``priority``: the best rank over the runs (``depth``) or the fused score
    (``rrf``/``rbp``); ``contributed[i, j]``: whether run ``j`` retrieved row ``i``'s
    document (within the depth, for ``depth``; at any rank for ``rrf``/``rbp``).
    ``ap_prior``: the document's AP-prior weight (Aslam, Pavlu & Yilmaz 2006), the mean
    over the runs of ``(1 + H(Z) - H(r - 1)) / (2 Z)`` for a run that ranks it at ``r`` of
    ``Z`` documents (``H`` the harmonic numbers; 0 for a run that does not retrieve it):
    the sampling weight of statAP (:func:`ranklens.judging.sample_pool`).
    ``best_rank``: the document's best rank over the runs (at any depth; the depth-``k``
    pool is the documents with ``best_rank <= k``).
    ``query_ids`` lists every query a run names, those with an empty pool too.
    """

    query: pa.Array
    doc: pa.Array
    rank: np.ndarray
    priority: np.ndarray
    contributed: np.ndarray
    run_names: tuple[str, ...]
    query_ids: tuple[str, ...]
    strategy: str
    depth: int
    ap_prior: np.ndarray
    best_rank: np.ndarray

    def __len__(self) -> int:
        return len(self.rank)

    def sizes(self) -> dict[str, int]:
        """Pool size per query (every query of :attr:`query_ids`, 0 for none)."""
        counts = dict.fromkeys(self.query_ids, 0)
        q, n = np.unique(np.asarray(self.query.to_pylist(), dtype=object), return_counts=True)
        counts.update({str(a): int(b) for a, b in zip(q, n, strict=True)})
        return counts

    def to_dict(self) -> dict[str, set[str]]:
        """``{query: {doc, ...}}`` (trectools' ``TrecPool.pool`` layout, ids as text)."""
        out: dict[str, set[str]] = {q: set() for q in self.query_ids}
        for q, d in zip(self.query.to_pylist(), self.doc.to_pylist(), strict=True):
            out[q].add(d)
        return out

    def to_arrow(self) -> pa.Table:
        """Columns ``query``, ``doc``, ``rank``, ``priority``, ``n_runs`` and ``runs``
        (the contributing runs' names joined by ``;``)."""
        names = np.asarray(self.run_names, dtype=object)
        runs = [";".join(names[row]) for row in self.contributed]
        return pa.table(
            {
                "query": self.query,
                "doc": self.doc,
                "rank": from_numpy(self.rank),
                "priority": from_numpy(self.priority),
                "n_runs": from_numpy(self.contributed.sum(axis=1).astype(np.int64)),
                "runs": pa.array(runs, type=pa.large_string()),
            }
        )


def _named(runs: Sequence[Run] | Mapping[str, Run]) -> tuple[list[Run], tuple[str, ...]]:
    if isinstance(runs, Mapping):
        items = [(str(k), v) for k, v in runs.items()]
    else:
        items = [
            (r.name if isinstance(r, Run) and r.name else f"run{i + 1}", r)
            for i, r in enumerate(runs)
        ]
    if not items:
        raise InputError("pool: no runs given; pass at least one Run (runs=[run, ...]).")
    for i, (name, r) in enumerate(items):
        if not isinstance(r, Run):
            raise InputError(
                f"pool: run {i + 1} ({name!r}) is a {type(r).__name__}, not a ranklens.Run; "
                "build it with Run.from_dict, Run.from_frame or ranklens.io.read_run."
            )
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        names = [f"{n}#{i + 1}" for i, n in enumerate(names)]
    return [r for _, r in items], tuple(names)


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"pool: {name}={value!r}; it must be an integer >= {minimum}.")
    return int(value)


def pool(
    runs: Sequence[Run] | Mapping[str, Run],
    depth: int = 10,
    *,
    strategy: str = "depth",
    ties: str = "trec",
    rrf_k: float = 60.0,
    rbp_p: float = 0.8,
    rbp_merge: str = "sum",
    budget_per_query: int | None = None,
    budget: int | None = None,
) -> Pool:
    """The pool of several runs (see the module's text for the strategies and orders).

    ``runs``: a list of :class:`~ranklens.Run` (named by their ``name``, else
    ``run1``, ``run2``, ...) or a ``{name: Run}`` mapping.  ``depth``: documents per
    run per query (``depth``) or per query in all (``rrf``/``rbp``: trectools' ``topX``).

    >>> from ranklens import Run
    >>> a = Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, name="a")
    >>> b = Run.from_dict({"q": {"d3": 3.0, "d4": 2.0, "d1": 1.0}}, name="b")
    >>> p = pool([a, b], depth=2)  # best ranks 1, 1, 2, 2: equal ones by id descending
    >>> p.doc.to_pylist(), p.priority.tolist(), p.to_arrow()["runs"].to_pylist()
    (['d3', 'd1', 'd4', 'd2'], [1.0, 1.0, 2.0, 2.0], ['b', 'a', 'b', 'a'])

    With RRF (``rrf_k=60``) d1 and d3 tie at 1/61 + 1/63; d1 > d3 by id ascending
    under ``ties="trectools"``, d3 first under trec_eval's id-descending rule:

    >>> pool([a, b], depth=2, strategy="rrf").doc.to_pylist()
    ['d3', 'd1']
    >>> pool([a, b], depth=2, strategy="rrf", ties="trectools").doc.to_pylist()
    ['d1', 'd3']
    """
    check_choice("strategy", strategy, STRATEGIES, where="pool")
    check_choice("ties", ties, TIES, where="pool")
    check_choice("rbp_merge", rbp_merge, ("sum", "max"), where="pool")
    depth = _check_int(depth, "depth", 1)
    if budget_per_query is not None:
        budget_per_query = _check_int(budget_per_query, "budget_per_query", 0)
    if budget is not None:
        budget = _check_int(budget, "budget", 0)
    if strategy == "rrf" and not (np.isfinite(rrf_k) and rrf_k >= 0):
        raise InputError(f"pool: rrf_k={rrf_k!r}; it must be a finite number >= 0.")
    if strategy == "rbp" and not (0.0 < rbp_p < 1.0):
        raise InputError(f"pool: rbp_p={rbp_p!r}; it must lie strictly between 0 and 1.")
    run_list, names = _named(runs)
    tables = [r.to_arrow() for r in run_list]
    lengths = np.array([t.num_rows for t in tables], dtype=np.int64)
    run_of = np.repeat(np.arange(len(tables), dtype=np.int64), lengths)
    q_all = pa.concat_arrays([t.column("query").combine_chunks() for t in tables])
    d_all = pa.concat_arrays([t.column("doc").combine_chunks() for t in tables])
    score = np.concatenate([t.column("score").to_numpy() for t in tables])
    named = sorted({q for r in run_list for q in r.query_ids})
    qids, qcode = sorted_id_codes(q_all, "pool: query ids")
    dids, dcode = sorted_id_codes(d_all, "pool: doc ids")
    nq, nd, nr = len(qids), len(dids), len(tables)
    rows = _ranked(run_of * max(nq, 1) + qcode, nr * max(nq, 1), score, dcode, nd, ties)
    seg = (run_of * max(nq, 1) + qcode)[rows]
    starts = np.zeros(nr * max(nq, 1) + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg, minlength=nr * max(nq, 1)), out=starts[1:])
    rank = np.arange(len(rows), dtype=np.int64) - starts[seg] + 1
    r_run, r_q, r_d = run_of[rows], qcode[rows], dcode[rows]
    del rows
    w = max(nd, 1)
    # every (query, doc) pair once, in (query, doc) order; ``inv``: each row's pair
    keys, inv = np.unique(r_q * w + r_d, return_inverse=True)
    n_pairs = len(keys)
    best = np.full(n_pairs, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(best, inv, rank)
    prior = _ap_prior(inv, n_pairs, rank, starts, seg, nr)
    contributed = np.zeros((n_pairs, nr), dtype=bool)
    if strategy == "depth":
        within = rank <= depth
        contributed[inv[within], r_run[within]] = True
        fused = -best.astype(np.float64)  # higher is better: the best rank wins
    else:
        contributed[inv, r_run] = True
        if strategy == "rrf":
            value = 1.0 / (float(rrf_k) + rank)
        else:
            value = (1.0 - rbp_p) * np.power(float(rbp_p), (rank - 1).astype(np.float64))
        if strategy == "rbp" and rbp_merge == "max":
            fused = np.zeros(n_pairs)
            np.maximum.at(fused, inv, value)
        else:  # summed in the order of the runs, as trectools (pandas) sums them
            fused = np.bincount(inv, weights=value, minlength=n_pairs).astype(np.float64)
    p_q, p_d = keys // w, keys % w
    n_runs = contributed.sum(axis=1)
    if strategy == "depth":
        order = _depth_order(p_q, best, n_runs, p_d, nd, nr, depth, ties)
        priority = best.astype(np.float64)
    else:
        order = _weight_order(p_q, fused, ties)
        priority = fused
    p_q, p_d, priority, contributed = p_q[order], p_d[order], priority[order], contributed[order]
    prior, best = prior[order], best[order]
    qstart = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(p_q, minlength=nq), out=qstart[1:])
    pos = np.arange(len(p_q), dtype=np.int64) - qstart[p_q]
    keep = best <= depth if strategy == "depth" else pos < depth
    if budget_per_query is not None:
        keep &= pos < budget_per_query
    if budget is not None:
        idx = np.flatnonzero(keep)
        dealt = idx[np.lexsort((p_q[idx], pos[idx]))][:budget]
        keep = np.zeros(len(p_q), dtype=bool)
        keep[dealt] = True
    return Pool(
        query=qids.take(from_numpy(p_q[keep])),
        doc=dids.take(from_numpy(p_d[keep])),
        rank=pos[keep] + 1,
        priority=priority[keep].astype(np.float64),
        contributed=contributed[keep],
        run_names=names,
        query_ids=tuple(named),
        strategy=strategy,
        depth=depth,
        ap_prior=prior[keep],
        best_rank=best[keep],
    )


def _ap_prior(
    inv: np.ndarray,
    n_pairs: int,
    rank: np.ndarray,
    starts: np.ndarray,
    seg: np.ndarray,
    n_runs: int,
) -> np.ndarray:
    """Each (query, doc) pair's AP-prior weight averaged over the runs (every ranked row:
    ``inv`` its pair, ``rank`` 1-based, ``seg`` its (run, query) segment)."""
    if len(inv) == 0:
        return np.zeros(n_pairs)
    length = np.diff(starts)[seg]  # Z: the length of the row's ranking
    harmonic = np.r_[0.0, np.cumsum(1.0 / np.arange(1, int(length.max()) + 1))]
    w = (1.0 + harmonic[length] - harmonic[rank - 1]) / (2.0 * length)
    return np.bincount(inv, weights=w, minlength=n_pairs) / n_runs


def _depth_order(
    q: np.ndarray,
    best: np.ndarray,
    n_runs: np.ndarray,
    d: np.ndarray,
    nd: int,
    nr: int,
    depth: int,
    ties: str,
) -> np.ndarray:
    """Pairs by query, best rank, runs descending, then doc by the tie rule (one sort of
    packed keys when they fit in 63 bits)."""
    doc = (nd - 1) - d if ties == "trec" else d
    b = np.minimum(best, depth + 1)  # beyond the depth: all alike (they are cut)
    span = (int(q.max(initial=0)) + 1) * (depth + 2) * (nr + 1) * max(nd, 1)
    if span < 2**62:
        packed = ((q * (depth + 2) + b) * (nr + 1) + (nr - n_runs)) * max(nd, 1) + doc
        return np.argsort(packed, kind="stable")
    return np.lexsort((doc, -n_runs, b, q))


def _weight_order(q: np.ndarray, fused: np.ndarray, ties: str) -> np.ndarray:
    """Pairs (in (query, doc) order) by query, weight descending, then doc by the tie
    rule: a stable sort keeps ascending docs (trectools); reversed first, descending."""
    if ties == "trectools":
        return np.lexsort((-fused, q))
    rev = np.arange(len(q) - 1, -1, -1)
    return rev[np.lexsort((-fused[rev], q[rev]))]


def _ranked(
    seg: np.ndarray, n_seg: int, score: np.ndarray, dcode: np.ndarray, nd: int, ties: str
) -> np.ndarray:
    """Rows grouped by (run, query) and ranked by the engine's one ordering."""
    from ranklens.ranking.engine import order_rankings

    if len(seg) == 0:
        return np.zeros(0, dtype=np.int64)
    # the tie rule puts the larger doc key first: byte order descending (trec), or its
    # reverse (trectools: ascending)
    doc_rank = dcode if ties == "trec" else (nd - 1) - dcode
    blocks = uniform_blocks(seg)  # top-n lists of one length: short sorts per block
    order = order_rankings(seg, n_seg, score, "trec", doc_rank=doc_rank, blocks=blocks)
    return np.asarray(order, np.int64)
