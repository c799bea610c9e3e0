"""The prepared, sorted, joined columnar form every ranking metric reads.

:func:`prepare` maps ids to integer codes once, joins the run to the qrels
(hashes of the (query, doc) pairs sorted once and searched, matches confirmed on
the ids), sorts each query's documents once by score (the tie policy orders only
the rows that tie) and lays the result out CSR-style: ``offsets`` into flat
arrays in rank order.  Per-query judgment statistics come from the qrels.
Metric kernels are segmented reductions over these arrays; they never loop
over queries in Python.

The unit of work is a set of whole queries, so a partition of queries can be
prepared and evaluated on its own and the per-query results concatenated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.columns import id_codes, text_order
from ranklens._shared.hashing import WORD, pair_hashes, text_hashes
from ranklens._shared.parallel import (
    ahead,
    map_pieces,
    parts_for,
    run_pieces,
)
from ranklens._shared.sorting import (
    HashedPairs,
    PairIndex,
    known_pairs,
    sorted_with_rows,
    uniform_blocks,
)
from ranklens.errors import InputError
from ranklens.metrics.catalogue import ORDERED
from ranklens.ranking._sums import sum_at
from ranklens.ranking.conventions import Conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.intents import DiversityQrels, IntentTable

__all__ = [
    "ORDERING_TIES",
    "Prepared",
    "check_not_empty",
    "missing_queries_error",
    "no_relevant_error",
    "order_rankings",
    "prepare",
]


# a join's relevance, in-qrels flag and (when asked) qrels row of each run row
_Joined = tuple[np.ndarray, np.ndarray, np.ndarray | None]


def _np(arr: Any) -> np.ndarray:
    return to_numpy(arr)


def _table(cols: dict[str, Any]) -> pa.Table:
    """A table of sort keys; NumPy columns are wrapped without copying."""
    return pa.table({k: from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in cols.items()})


@dataclass(frozen=True, eq=False)
class _DocKeys:
    """The qrels' (query, doc) pairs as sorted integer keys, for hash-and-search joins."""

    doc_ids: pa.Array  # distinct judged doc ids (any order)
    keys: np.ndarray  # sorted int64 key qcode * ndocs + dcode
    key_rel: np.ndarray  # relevance aligned with keys
    key_row: np.ndarray  # the qrels row of each key


@dataclass(frozen=True, eq=False)
class _JudgmentIndex:
    """Qrels reorganised for joining: sorted query ids and per-query judgments."""

    query_ids: pa.Array  # distinct qrels query ids, sorted
    row_qcode: np.ndarray  # query code of every qrels row (rows in input order)
    qcode: np.ndarray  # per qrels row: query code, rows sorted by (qcode, -rel)
    rel_sorted: np.ndarray  # relevance, sorted by query then descending
    offsets: np.ndarray  # CSR offsets of rel_sorted per query code
    doc: pa.Array  # the qrels' doc column and values (for the joins)
    values: np.ndarray
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def doc_hashes(self) -> tuple[np.ndarray, np.ndarray]:
        """The hash and length of every row's doc id (:func:`text_hashes`), computed on
        first use: runs with text doc ids join this way (:func:`_hash_join`)."""
        if "hashes" not in self._memo:
            self._memo["hashes"] = text_hashes(self.doc)
        return self._memo["hashes"]

    @property
    def doc_keys(self) -> _DocKeys:
        """Built on first use: only runs with dictionary-encoded doc ids join this way."""
        if "keys" not in self._memo:
            ud, dcode = id_codes(self.doc)
            keys = self.row_qcode * max(len(ud), 1) + dcode.astype(np.int64)
            sorted_keys, order = sorted_with_rows(keys)
            self._memo["keys"] = _DocKeys(ud, sorted_keys, self.values[order], order)
        return self._memo["keys"]


def _sorted_codes(pairs: Any) -> tuple[pa.Array, np.ndarray]:
    """Distinct query ids sorted (byte order) and each row's index into them."""
    qdict = pairs.query_dict
    order = text_order(qdict)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return qdict.take(from_numpy(order)), rank[pairs.query_code]


def index_ahead(qrels: Qrels, doc_keys: bool = False) -> None:
    """Start building a large qrels' judgment index on a background thread, so that it
    is ready (or nearly) when the first evaluation needs it.  The file readers call
    this once a large qrels is read (the run is read meanwhile); nothing is started
    for a small qrels, on one core, or twice.  ``doc_keys``: the keys a run with coded
    doc ids (integers, categoricals) is joined with, else the hashes a run with text
    doc ids is joined with."""
    if (
        parts_for(len(qrels)) < 2
        or qrels.cached("index") is not None
        or qrels.cached("index_future") is not None
    ):
        return

    def build() -> _JudgmentIndex:
        idx = _build_judgment_index(qrels)
        if doc_keys:
            idx.doc_keys  # noqa: B018  (built and kept on first read)
        else:
            idx.doc_hashes  # noqa: B018
        return idx

    qrels.keep("index_future", ahead().submit(build))


def _judgment_index(qrels: Qrels) -> _JudgmentIndex:
    idx: _JudgmentIndex | None = qrels.cached("index")
    if idx is None:
        pending = qrels.take("index_future")
        idx = pending.result() if pending is not None else _build_judgment_index(qrels)
        qrels.keep("index", idx)
    return idx


def _ideal_order(qcode: np.ndarray, n_codes: int, rel: np.ndarray) -> np.ndarray:
    """Rows by query, relevance descending (the ideal rankings), a stable order.  Integer
    grades in a small range (the usual case) take one sort of packed values, others one
    Arrow sort."""
    if len(rel):
        lo, hi = float(rel.min()), float(rel.max())
        if hi - lo < 1 << 16 and bool(np.all(rel == np.floor(rel))):
            width = int(hi - lo) + 1
            return sorted_with_rows(qcode.astype(np.int64) * width + (hi - rel).astype(np.int64))[1]
    return _np(
        pc.sort_indices(
            _table({"q": qcode, "r": rel}), sort_keys=[("q", "ascending"), ("r", "descending")]
        )
    )


def _build_judgment_index(qrels: Qrels) -> _JudgmentIndex:
    uq, qcode = _sorted_codes(qrels._pairs)
    rel = qrels._values
    iorder = _ideal_order(qcode, len(uq), rel)
    counts = np.bincount(qcode, minlength=len(uq))
    offsets = np.zeros(len(uq) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return _JudgmentIndex(
        query_ids=uq,
        row_qcode=qcode,
        qcode=qcode[iorder],
        rel_sorted=rel[iorder],
        offsets=offsets,
        doc=qrels._d,
        values=rel,
    )


@dataclass(frozen=True, eq=False)
class Prepared:
    """A run joined to its qrels, sorted, in CSR layout.

    ``offsets[i]:offsets[i+1]`` is query ``query_ids[i]``'s ranked list; at
    each rank: ``rel`` (relevance grade; 0 for documents not in the qrels),
    ``judged`` (in the qrels with a grade >= 0; trec_eval counts negative
    grades as "pooled but unjudged") and ``score``.  ``ideal_offsets``/``ideal_rel`` hold every
    judged relevance of each query sorted descending (for ideal DCG and the like).
    """

    query_ids: pa.Array
    offsets: np.ndarray
    rel: np.ndarray
    judged: np.ndarray
    score: np.ndarray
    ideal_offsets: np.ndarray
    ideal_rel: np.ndarray
    conventions: Conventions
    report: dict[str, int] = field(default_factory=dict)
    unjudged_ids: pa.Array | None = None  # run queries without any judgment
    # per query: the run ranks it (or names it, empty_rankings='evaluate'); False for a
    # query absent from the run that missing='zero' scores (None: not known)
    in_run: np.ndarray | None = None
    # the qrels row of each ranked document (-1: not in the qrels), kept when the qrels
    # are a DiversityQrels: the intent-aware metrics join their intent rows through it
    qrels_row: np.ndarray | None = None
    intents: IntentTable | None = None
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    # --- shape helpers ------------------------------------------------------------------
    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def seg(self) -> np.ndarray:
        """Query index of every ranked position."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.lengths)

    @cached_property
    def pos(self) -> np.ndarray:
        """0-based rank of every position within its query."""
        return np.arange(len(self.rel), dtype=np.int64) - np.repeat(self.offsets[:-1], self.lengths)

    @cached_property
    def ideal_seg(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.ideal_offsets))

    @cached_property
    def ideal_pos(self) -> np.ndarray:
        return (
            np.arange(len(self.ideal_rel), dtype=np.int64) - self.ideal_offsets[:-1][self.ideal_seg]
        )

    @cached_property
    def group_start(self) -> np.ndarray:
        """Flat index of the first position of each position's tie group."""
        n = len(self.score)
        new = np.ones(n, dtype=bool)
        if n:
            new[1:] = (self.score[1:] != self.score[:-1]) | (self.seg[1:] != self.seg[:-1])
        starts = np.flatnonzero(new)
        return starts[np.cumsum(new) - 1]

    @cached_property
    def group_size(self) -> np.ndarray:
        """Size of each position's tie group."""
        gs = self.group_start
        n = len(gs)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        new = np.ones(n, dtype=bool)
        new[1:] = gs[1:] != gs[:-1]
        starts = np.flatnonzero(new)
        sizes = np.diff(np.append(starts, n))
        return np.repeat(sizes, sizes)

    def seg_sum(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Per-query sum of ``values`` (optionally only where ``mask``)."""
        if mask is not None:
            return np.bincount(self.seg[mask], weights=values[mask], minlength=self.n_queries)
        return np.bincount(self.seg, weights=values, minlength=self.n_queries)

    def sum_k(self, values: np.ndarray, k: Any) -> np.ndarray:
        """Per-query sum of ``values`` within the top ``k`` (None: all; an integer; or
        a sorted vector of cutoffs, giving queries x cutoffs)."""
        return sum_at(self.seg, self.pos, values, self.n_queries, k)

    def seg_count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.seg[mask], minlength=self.n_queries).astype(np.int64)

    def seg_cumsum_int(self, values: np.ndarray) -> np.ndarray:
        """Inclusive per-query cumulative sum of an integer array (exact)."""
        c = np.cumsum(values, dtype=np.int64)
        base = np.concatenate(([0], c))[self.offsets[:-1]]
        c -= np.repeat(base, self.lengths)
        return c

    def cum_rel(self, threshold: float) -> np.ndarray:
        """Number of relevant documents at or above each rank (per query)."""
        key = ("cum_rel", threshold)
        if key not in self._memo:
            self._memo[key] = self.seg_cumsum_int(self.is_rel(threshold))
        return self._memo[key]

    # --- judgment statistics ------------------------------------------------------------
    def num_rel(self, threshold: float) -> np.ndarray:
        """Number of judged documents with relevance >= threshold, per query."""
        key = ("num_rel", threshold)
        if key not in self._memo:
            self._memo[key] = np.bincount(
                self.ideal_seg[self.ideal_rel >= threshold], minlength=self.n_queries
            ).astype(np.int64)
        return self._memo[key]

    def num_nonrel(self, threshold: float) -> np.ndarray:
        """Number of judged non-relevant documents (0 <= grade < threshold; any grade
        below the threshold under ``negative_grades='nonrelevant'``) per query."""
        key = ("num_nonrel", threshold)
        if key not in self._memo:
            m = self.ideal_rel < threshold
            if self.conventions.negative_grades == "unjudged":
                m &= self.ideal_rel >= 0
            self._memo[key] = np.bincount(self.ideal_seg[m], minlength=self.n_queries).astype(
                np.int64
            )
        return self._memo[key]

    def is_rel(self, threshold: float) -> np.ndarray:
        """Binary relevance (judged and relevance >= threshold) at every position."""
        key = ("is_rel", threshold)
        if key not in self._memo:
            self._memo[key] = self.judged & (self.rel >= threshold)
        return self._memo[key]

    def sparse(self, mask: np.ndarray) -> Sparse:
        """The positions where ``mask`` holds, with their query and rank."""
        idx = np.flatnonzero(mask)
        seg = np.searchsorted(self.offsets, idx, side="right") - 1
        pos = idx - self.offsets[seg]
        first = np.searchsorted(seg, np.arange(self.n_queries + 1))
        return Sparse(idx, seg, pos, first)

    def relevant(self, threshold: float) -> Sparse:
        """Positions of the relevant documents (sorted by query, then rank)."""
        key = ("relevant", threshold)
        if key not in self._memo:
            self._memo[key] = self.sparse(self.is_rel(threshold))
        return self._memo[key]

    def positive(self) -> Sparse:
        """Positions of documents with a positive grade (the only ones with a gain)."""
        if "positive" not in self._memo:
            self._memo["positive"] = self.sparse(self.judged & (self.rel > 0))
        return self._memo["positive"]


@dataclass(frozen=True, eq=False)
class Sparse:
    """A subset of ranked positions: flat index, query, 0-based rank, and the
    CSR offsets ``first`` of each query's entries (entries are in rank order)."""

    idx: np.ndarray
    seg: np.ndarray
    pos: np.ndarray
    first: np.ndarray

    def count_in(self, n_queries: int, k: Any = None) -> np.ndarray:
        """Entries per query (within the top k; k as in :meth:`Prepared.sum_k`)."""
        if k is None or np.ndim(k) == 0:
            seg = self.seg if k is None else self.seg[self.pos < k]
            return np.bincount(seg, minlength=n_queries).astype(np.float64)
        return sum_at(self.seg, self.pos, np.ones(len(self.seg)), n_queries, k)

    def sum_in(self, n_queries: int, values: np.ndarray, k: Any = None) -> np.ndarray:
        """Per-query sum of ``values`` (aligned with the entries), within the top k."""
        return sum_at(self.seg, self.pos, values, n_queries, k)

    @property
    def ordinal(self) -> np.ndarray:
        """1-based index of each entry among its query's entries."""
        return np.arange(1, len(self.idx) + 1) - self.first[:-1][self.seg]


def _lookup_rel(
    idx: _JudgmentIndex, qcode: np.ndarray, dcode: np.ndarray, with_rows: bool = False
) -> _Joined:
    """Relevance of each (query code, doc code) row and whether it is in the qrels:
    a binary search of the judged rows' keys; large inputs in two halves on both
    cores.  ``with_rows``: also the qrels row of each (-1: not in the qrels)."""
    n = len(dcode)
    rel = np.zeros(n, dtype=np.float64)
    found = np.zeros(n, dtype=bool)
    qrow = np.full(n, -1, dtype=np.int64) if with_rows else None
    dk = idx.doc_keys
    ndocs = max(len(dk.doc_ids), 1)

    def part(a: int, b: int) -> None:
        cand = np.flatnonzero(dcode[a:b] >= 0)  # documents judged for some query
        cand += a
        key = qcode[cand].astype(np.int64) * ndocs + dcode[cand]
        hit = np.minimum(np.searchsorted(dk.keys, key), len(dk.keys) - 1)
        ok = dk.keys[hit] == key
        rel[cand[ok]] = dk.key_rel[hit[ok]]
        found[cand[ok]] = True
        if qrow is not None:
            qrow[cand[ok]] = dk.key_row[hit[ok]]

    run_pieces(n, part)
    return rel, found, qrow


def _query_pieces(q: np.ndarray, n_codes: int) -> list[np.ndarray] | None:
    """The rows of a large input cut into one set of whole queries per core, in query
    code order (None when small, or when there is one query or one core)."""
    parts = min(parts_for(len(q)), n_codes)
    if parts < 2:
        return None
    cum = np.cumsum(np.bincount(q, minlength=n_codes))
    bounds = np.unique(
        [int(np.searchsorted(cum, len(q) * j // parts)) + 1 for j in range(1, parts)]
    )  # codes below bounds[i] go before
    piece = np.searchsorted(bounds, q, side="right")
    rows = [np.flatnonzero(piece == i) for i in range(len(bounds) + 1)]
    rows = [r for r in rows if r.size]
    return rows if len(rows) > 1 else None


def _ordered_groups(
    cols: dict[str, Any],
    keys: list[tuple[str, str]],
    depth: int | None = None,
    blocks: int | None = None,
) -> np.ndarray | None:
    """The order of :func:`_split_sort` without sorting when the rows already come grouped
    by query and ranked within each query (rank-ordered run files, recommender output):
    then only the queries are put in code order.  ``None`` when they do not.  A tie key
    given as a function (see :func:`order_rankings`) is computed only if two rows of a
    query have equal earlier keys.  ``depth``: only the first rows of each query;
    ``blocks``: the width of the rows' query blocks, when known (see
    :func:`order_rankings`)."""
    q = cols["q"]
    n = len(q)
    if n < 2:
        return np.arange(n)
    strict = _strict_blocks(cols, keys, blocks)
    if strict is not None:  # lists of one length, strictly ranked: whole blocks move
        heads, width = strict
        keep = width if depth is None else min(width, depth)
        if keep == width and bool(np.all(heads[1:] > heads[:-1])):
            return np.arange(n)
        by_code = _code_order(heads) * width
        return (by_code[:, None] + np.arange(keep)).reshape(-1)
    same = q[:0] == q[:0]
    for stop in (4096, n) if n > 4096 else (n,):  # a cheap look at the head first
        same = q[1:stop] == q[: stop - 1]  # rows of another query are not compared
        if not _ranked_within(cols, keys, same):
            return None
    starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
    heads = q[starts]
    if np.bincount(heads).max() > 1:
        return None  # a query's rows are not contiguous
    if depth is None and bool(np.all(heads[1:] > heads[:-1])):
        return np.arange(n)  # the queries come in code order already
    by_code = np.argsort(heads, kind="stable")
    lengths = np.diff(np.r_[starts, n])[by_code]
    if depth is not None:
        lengths = np.minimum(lengths, depth)
    first = np.repeat(starts[by_code], lengths)
    within = np.arange(len(first)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return first + within


def _code_order(heads: np.ndarray) -> np.ndarray:
    """Indices that sort the distinct codes ``heads``: an inverse permutation when they
    are ``0..len-1`` (every query present), else an argsort."""
    if len(heads) and int(heads.max()) == len(heads) - 1 and int(heads.min()) == 0:
        order = np.empty(len(heads), dtype=np.int64)
        order[heads] = np.arange(len(heads), dtype=np.int64)
        return order
    return np.argsort(heads, kind="stable")


def _strict_blocks(
    cols: dict[str, Any], keys: list[tuple[str, str]], blocks: int | None = None
) -> tuple[np.ndarray, int] | None:
    """``(query code of each block, block width)`` when the rows come in blocks of one
    width, one query per block and each query in one block, ranked strictly by the first
    key within each block (no equal scores, so no tie rule is needed); else None.
    ``blocks``: that width, when the caller knows the rows come so."""
    q = cols["q"]
    width = uniform_blocks(q) if blocks is None else blocks
    if width is None or width < 2:
        return None
    heads = q[::width]
    name, direction = keys[1]
    key = _key_column(cols, name).reshape(-1, width)
    ranked = (key[:, 1:] < key[:, :-1]) if direction == "descending" else (key[:, 1:] > key[:, :-1])
    return (heads, width) if bool(ranked.all()) else None


def _ranked_within(cols: dict[str, Any], keys: list[tuple[str, str]], same: np.ndarray) -> bool:
    """Whether each of the first ``len(same) + 1`` rows ranks no lower than the next
    wherever ``same`` says the two belong to one query.  Strictly ranked rows (no equal
    scores, the usual case) are told by the first key alone; the tie keys are read only
    for rows it leaves undecided."""
    stop = len(same) + 1
    name, direction = keys[1]
    first = _key_column(cols, name)
    a, b = first[: stop - 1], first[1:stop]
    not_above = (a <= b) if direction == "descending" else (a >= b)
    not_above &= same
    if not not_above.any():
        return True
    ok = np.ones(stop - 1, dtype=bool)  # row i ranks no lower than row i + 1
    undecided = same.copy()
    for name, direction in keys[1:]:
        if not undecided.any():
            break
        col = _key_column(cols, name)
        a, b = col[: stop - 1], col[1:stop]
        ok &= ~(undecided & (a < b if direction == "descending" else a > b))
        undecided &= a == b
    return bool(ok.all())


def _key_column(cols: dict[str, Any], name: str) -> np.ndarray:
    """The sort key ``name`` of ``cols``, computed (and kept) if given as a function."""
    col = cols[name]
    if callable(col):
        col = cols[name] = col()
    return np.asarray(col)


def _split_sort(
    cols: dict[str, np.ndarray], keys: list[tuple[str, str]], n_codes: int, checked: bool = False
) -> np.ndarray:
    """``sort_indices`` over columns whose first key is a query code in
    ``[0, n_codes)``: large inputs are cut into two sets of whole queries (by code) and
    sorted on both cores; the results concatenate because every code of the first set
    is below every code of the second."""
    ready = None if checked else _ordered_groups(cols, keys)
    if ready is not None:
        return ready
    rows = _query_pieces(cols["q"], n_codes)
    if rows is None:
        return _np(pc.sort_indices(_table(cols), sort_keys=keys))

    def sort_part(a: int, b: int) -> np.ndarray:
        sel = rows[a]
        local = _np(pc.sort_indices(_table({k: v[sel] for k, v in cols.items()}), sort_keys=keys))
        return sel[local]

    return np.concatenate(map_pieces([(i, i + 1) for i in range(len(rows))], sort_part))


def _hash_join(qrels: Qrels, run: Run, idx: _JudgmentIndex, with_rows: bool = False) -> _Joined:
    """Join a run with text doc ids to the qrels: per run row, its relevance and whether
    it is judged (``with_rows``: and its qrels row, -1 if none).  Every (query, doc)
    pair is hashed and the run's hashes sorted once (:class:`HashedPairs`), and the
    qrels' pairs
    of the run's queries looked up among them; every match of hashes is confirmed on the
    ids, so a collision changes nothing.  No string is sorted: the doc ids are read to
    hash them and to compare the matched pairs.

    A run whose pairs are not checked yet (a large run, see :meth:`Run.validate`) is
    checked from the same keys (:meth:`HashedPairs.repeats`) and keeps its pair index;
    a repeated pair raises the :class:`DuplicateError` of :meth:`Run.validate` (which
    names a reader's lines)."""
    pairs: PairIndex | None = run.cached("pairs")
    rq_dict, rq_code = (
        (pairs.query_dict, pairs.query_code)
        if pairs is not None
        else id_codes(run._q, compact=True)  # encoded by as_id_column
    )
    n = len(run)
    hashed = HashedPairs(rq_code, run._d)
    keys, bits, doc_hash, doc_length = hashed.keys, hashed.bits, hashed.doc_hash, hashed.doc_length
    if pairs is None:
        if hashed.repeats(rq_code, run._d):
            run.validate()  # raises, naming the pairs as a check on construction does
        run.keep("pairs", known_pairs(rq_dict, rq_code, run._d))
    # the qrels rows of the run's queries, with their queries in the run's codes
    to_run = to_numpy(pc.index_in(idx.query_ids, value_set=rq_dict), fill=-1).astype(np.int64)
    qr_code = to_run[idx.row_qcode]
    judged = np.flatnonzero(qr_code >= 0)
    qdoc_hash, qdoc_length = idx.doc_hashes
    qkeys = pair_hashes(qr_code[judged], qdoc_hash[judged])
    qkeys >>= bits
    qkeys, by_key = sorted_with_rows(qkeys.view(np.int64))  # sorted: a search in cache
    qkeys = qkeys.view(np.uint64)
    judged = judged[by_key]
    lo = np.searchsorted(keys, qkeys, side="left")
    if n and not bool((keys[1:] == keys[:-1]).any()):  # every hash once (as a rule)
        count = (keys[np.minimum(lo, n - 1)] == qkeys).astype(np.int64)
    else:
        count = np.searchsorted(keys, qkeys, side="right") - lo
    # every (qrels row, run row) with equal hashes (one run row at most, unless hashes
    # collide), confirmed on the query codes and the doc ids: ids of one length up to
    # WORD bytes by their hashes, longer ones as text
    qrow = np.repeat(judged, count)
    at = np.repeat(lo - (np.cumsum(count) - count), count) + np.arange(len(qrow))
    rrow = hashed.rows(at)
    same = rq_code[rrow] == qr_code[qrow]
    same &= doc_hash[rrow] == qdoc_hash[qrow]
    length = doc_length[rrow]
    same &= length == qdoc_length[qrow]
    text = np.flatnonzero(same & (length > WORD))
    if text.size:
        rdoc = run._d.take(from_numpy(rrow[text]))
        qdoc = qrels._doc.take(from_numpy(qrow[text]))
        if qdoc.type != rdoc.type:
            qdoc = qdoc.cast(rdoc.type)
        same[text] = to_numpy(pc.equal(rdoc, qdoc))
    rel = np.zeros(n, dtype=np.float64)
    found = np.zeros(n, dtype=bool)
    rel[rrow[same]] = qrels._values[qrow[same]]
    found[rrow[same]] = True
    rows_of: np.ndarray | None = None
    if with_rows:
        rows_of = np.full(n, -1, dtype=np.int64)
        rows_of[rrow[same]] = qrow[same]
    return rel, found, rows_of


ORDERING_TIES = ORDERED  # the tie policies that order a ranking (the catalogue's set)


def order_rankings(
    qcode: np.ndarray,
    n_codes: int,
    score: np.ndarray,
    ties: str,
    *,
    doc_ids: pa.Array | None = None,
    doc_rank: np.ndarray | Callable[[], np.ndarray] | None = None,
    rows: np.ndarray | None = None,
    rel: np.ndarray | None = None,
    depth: int | None = None,
    blocks: int | None = None,
) -> np.ndarray:
    """The one place rankings are ordered: the row order that groups rows by query
    code (ascending, codes in ``[0, n_codes)``) and ranks each query's rows by score
    descending, equal scores under the tie policy ``ties``:

    ``trec``: document id descending in byte order, as trec_eval; ``doc_asc``: document
    id ascending in byte order (ir_measures' Python providers); ``input``: the order
    of the rows (``rows``: each row's position in the input, default ``0..n-1``);
    ``optimistic`` / ``pessimistic``: most / least relevant first (``rel``), then
    document id descending.

    The document ids are ``doc_ids`` (text or dictionary-encoded; row ``i``'s is
    ``doc_ids[rows[i]]``, or ``doc_ids[i]`` without ``rows``) or, instead, ``doc_rank``:
    each row's rank in the id order among its query's documents (or a function that
    computes it).  Either is read only for rows that tie on score.

    ``depth``: only the first ``depth`` rows of each query (a top-``k`` list).
    ``blocks``: ``L`` when the caller knows that the rows come in blocks of ``L``, one
    query per block and each query in one block
    (:attr:`~ranklens._shared.sorting.PairIndex.blocks`).

    The rows are sorted by (query, score descending) in input order
    (:func:`_score_order`: rows that already come grouped and ranked are only checked,
    large inputs are sorted on both cores) and then only the rows that tie on score are
    ordered by the tie rule (:func:`_break_ties`).  :func:`prepare` and the
    beyond-accuracy metrics (:mod:`ranklens.recsys.beyond`) order their rankings here."""
    if ties not in ORDERING_TIES:
        raise AssertionError(ties)  # callers map expected/grouped to trec
    in_order = ties == "input" and (rows is None or bool(np.all(rows[1:] > rows[:-1])))
    order = _score_order(qcode, n_codes, score, blocks, stable=in_order)
    if not in_order:
        order = _break_ties(order, qcode, score, _tie_keys(ties, doc_ids, doc_rank, rows, rel))
    return order if depth is None else _top_rows(order, qcode, n_codes, depth)


def _score_order(
    qcode: np.ndarray, n_codes: int, score: np.ndarray, blocks: int | None, stable: bool
) -> np.ndarray:
    """Rows by (query code, score descending): no sort when they come so
    (:func:`_ordered_groups`), else a sort of each block's scores when the rows come in
    blocks of one width (``blocks``, :func:`_block_order`), else one sort of packed keys
    (:func:`_packed_order`), else Arrow's sort.  Equal scores keep the input order when
    ``stable`` (else any order: the tie rule orders them afterwards)."""
    cols: dict[str, Any] = {"q": qcode, "s": score}
    keys = [("q", "ascending"), ("s", "descending")]
    order = _ordered_groups(cols, keys, None, blocks)
    if order is None and blocks is not None and blocks > 1:
        order = _block_order(np.asarray(qcode), np.asarray(score), blocks, stable)
    if order is None and len(qcode) > 1:
        order = _packed_order(np.asarray(qcode), n_codes, np.asarray(score))
    if order is None:
        order = _split_sort(cols, keys, n_codes, checked=True)
    return order


def _block_order(qcode: np.ndarray, score: np.ndarray, width: int, stable: bool) -> np.ndarray:
    """Rows by (query code, score descending) when they come in blocks of ``width`` rows,
    one query per block and each query in one block: each block's scores are sorted on
    their own (short sorts, in cache) and the blocks put in code order."""
    by_score = np.argsort(
        np.negative(score).reshape(-1, width), axis=1, kind="stable" if stable else None
    )
    by_code = _code_order(qcode[::width])
    by_score = by_score[by_code]
    by_score += (by_code * width)[:, None]
    return by_score.reshape(-1)


TieKeys = Callable[[np.ndarray], list[tuple[Any, str]]]


def _tie_keys(
    ties: str,
    doc_ids: pa.Array | None,
    doc_rank: np.ndarray | Callable[[], np.ndarray] | None,
    rows: np.ndarray | None,
    rel: np.ndarray | None,
) -> TieKeys:
    """The function giving the tie rule's sort keys (column, direction) of some rows."""

    def doc(which: np.ndarray) -> Any:
        if doc_ids is not None:
            ids = doc_ids.take(from_numpy(which if rows is None else rows[which]))
            return ids.dictionary_decode() if pa.types.is_dictionary(ids.type) else ids
        if doc_rank is None:
            raise AssertionError("the tie rule needs doc_ids or doc_rank")
        return np.asarray(doc_rank() if callable(doc_rank) else doc_rank)[which]

    def keys(which: np.ndarray) -> list[tuple[Any, str]]:
        if ties == "input":
            return [(which if rows is None else rows[which], "ascending")]
        if ties == "doc_asc":
            return [(doc(which), "ascending")]
        by_doc = (doc(which), "descending")
        if ties == "trec":
            return [by_doc]
        if rel is None:
            raise AssertionError("the tie rule needs rel")
        return [(rel[which], "descending" if ties == "optimistic" else "ascending"), by_doc]

    return keys


def _break_ties(
    order: np.ndarray, qcode: np.ndarray, score: np.ndarray, keys: TieKeys
) -> np.ndarray:
    """``order`` (rows by query and score descending) with the rows of every tie group
    (one query, one score: neighbours in ``order``) sorted by ``keys`` of those rows.
    Only the tied rows are read and sorted (a few per cent of a typical run), in one
    Arrow sort by (tie group, keys)."""
    n = len(order)
    if n < 2:
        return order
    s = score[order]
    tie = s[1:] == s[:-1]  # position i + 1 ties position i
    del s
    q = qcode[order]
    tie &= q[1:] == q[:-1]
    del q
    if not tie.any():
        return order
    tied = np.flatnonzero(np.r_[False, tie] | np.r_[tie, False])
    starts = np.ones(len(tied), dtype=bool)  # a group starts where it does not tie the last
    starts[1:] = ~tie[tied[1:] - 1]
    members = order[tied]
    cols: dict[str, Any] = {"g": np.cumsum(starts)}
    sort_keys = [("g", "ascending")]
    for i, (key, direction) in enumerate(keys(members)):
        cols[f"k{i}"] = key
        sort_keys.append((f"k{i}", direction))
    by_rule = _np(pc.sort_indices(_table(cols), sort_keys=sort_keys))
    order = order.copy()
    order[tied] = members[by_rule]
    return order


def _top_rows(order: np.ndarray, qcode: np.ndarray, n_codes: int, depth: int) -> np.ndarray:
    """The first ``depth`` rows of each query of ``order`` (rows grouped by query code)."""
    counts = np.bincount(qcode, minlength=n_codes)
    if int(counts.max(initial=0)) <= depth:
        return order
    starts = np.zeros(n_codes, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    pos = np.arange(len(order), dtype=np.int64) - np.repeat(starts, counts)
    return order[pos < depth]


def _bits(x: int) -> int:
    return max(int(x).bit_length(), 1)


def _packed_order(qcode: np.ndarray, n_codes: int, score: np.ndarray) -> np.ndarray | None:
    """Rows by (query code, score descending, row), with the keys and the row number
    packed into one uint64 per row and sorted as plain values (NumPy sorts values several
    times faster than Arrow's multi-key sort or a lexsort); the score enters as its dense
    rank.  None when the keys need more than 64 bits.  Large inputs are cut into two
    sets of whole queries, sorted on both cores."""
    n = qcode.size
    # the keys of a typical input with distinct scores: give up before any work when they
    # cannot fit
    if _bits(max(n_codes - 1, 0)) + 2 * _bits(max(n - 1, 0)) > 64:
        return None
    rows = _query_pieces(qcode, n_codes)
    if rows is not None:

        def part(a: int, b: int) -> np.ndarray | None:
            sel = rows[a]
            order = _packed_block(qcode[sel], score[sel])
            return None if order is None else sel[order]

        orders = map_pieces([(i, i + 1) for i in range(len(rows))], part)
        return None if any(o is None for o in orders) else np.concatenate(orders)
    return _packed_block(qcode, score)


def _packed_block(qcode: np.ndarray, score: np.ndarray) -> np.ndarray | None:
    n = qcode.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    bq, bi = _bits(int(qcode.max())), _bits(n - 1)
    by_score = np.argsort(score)
    ordered = score[by_score]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    dense = np.cumsum(new)  # 1 .. n_scores, ascending
    n_scores = int(dense[-1])
    bs = _bits(n_scores - 1)
    if bq + bs + bi > 64:
        return None
    desc = np.empty(n, dtype=np.int64)
    desc[by_score] = n_scores - dense  # 0 = the highest score
    del by_score, dense, new
    u64 = np.uint64
    key = qcode.astype(u64) << u64(bs + bi)
    key |= desc.astype(u64) << u64(bi)
    del desc
    key |= np.arange(n, dtype=u64)
    key.sort()
    return (key & u64((1 << bi) - 1)).astype(np.int64)


def _score_column(run: Run, conv: Conventions) -> np.ndarray:
    if conv.score_precision == "float32":
        return run._values.astype(np.float32).astype(np.float64)
    return run._values


def prepare(
    qrels: Qrels, run: Run, conventions: Conventions, *, batch: bool = False, top: int | None = None
) -> Prepared:
    """Join ``run`` to ``qrels`` and sort every query's ranking once.

    ``batch``: the tables are a batch of a larger evaluation (:class:`ranklens.Evaluator`),
    where either may be empty (a batch of run queries without judgments, or of judged
    queries absent from the run); else both must have rows.

    The steps: map the run's queries onto the judged ones (:func:`_judged_run_rows`),
    order every ranking and look up its judgments (:func:`_order_and_judge`), cut at
    ``depth`` and drop unjudged documents if asked (:func:`_apply_depth`,
    :func:`_judged_only`), choose the queries evaluated (:func:`_select_queries`) and
    keep only those (:func:`_restrict`).  ``report`` counts what every rule touched.
    A Spark task's part of an evaluation is such a batch: its inputs as a whole are
    checked with :func:`check_not_empty`.

    ``top``: the metrics read only the first ``top`` documents of each ranking
    (:func:`ranklens.ranking.evaluation.top_depth`), so only those are ordered and
    judged; the values are those of the whole rankings.
    """
    empty = run.empty_queries if conventions.empty_rankings == "evaluate" else ()
    if not batch:
        check_not_empty(len(qrels), len(run) + len(empty))
    idx = _judgment_index(qrels)
    report: dict[str, int] = {}
    rows = _judged_run_rows(qrels, run, idx, conventions, report)
    ranked = _order_and_judge(
        rows, idx, conventions.ties, top, run._pairs.blocks, conventions.negative_grades
    )
    if conventions.depth is not None:
        ranked = _apply_depth(ranked, conventions.depth, report)
    present = ranked.counts > 0
    if empty:
        present = _with_empty_rankings(present, empty, idx, rows, report)
    if conventions.judged_only:
        ranked = _judged_only(ranked, report)
    selected = _select_queries(present, idx, conventions, report)
    out = _restrict(ranked, selected, idx, conventions, report, rows.unjudged_ids, present)
    if isinstance(qrels, DiversityQrels):
        out = replace(out, intents=qrels.intents)
    return out


def check_not_empty(qrels_rows: int, run_rows: int) -> None:
    """Raise :class:`InputError` if the qrels or the run of an evaluation has no row."""
    if qrels_rows == 0:
        raise InputError("The qrels are empty: there is nothing to evaluate against.")
    if run_rows == 0:
        raise InputError(
            "The run is empty: it has no (query, doc, score) rows. Check that the run was "
            "read from the right file or frame."
        )


@dataclass
class _RunRows:
    """The run's rows of judged queries, before ordering: query codes into the qrels'
    queries, scores, the run's doc ids (of all its rows: read through ``rows``), which
    run rows they are (None: all) and, for text doc ids, their grades and judged flags
    (:func:`_hash_join`; coded doc ids are looked up after the ordering)."""

    qcode: np.ndarray
    score: np.ndarray
    doc: pa.Array
    rows: np.ndarray | None
    joined: _Joined | None
    unjudged_ids: pa.Array
    with_rows: bool = False  # the qrels row of every ranked document is wanted


def _judged_run_rows(
    qrels: Qrels, run: Run, idx: _JudgmentIndex, conventions: Conventions, report: dict[str, int]
) -> _RunRows:
    """Map the run's distinct query ids onto the qrels' and drop the rows of queries
    without judgments.  A run with text doc ids is joined to the qrels here (and checked
    for repeated pairs if it was not yet, :func:`_hash_join`)."""
    joined: _Joined | None = None
    with_rows = isinstance(qrels, DiversityQrels)
    if not pa.types.is_dictionary(run._d.type):
        joined = _hash_join(qrels, run, idx, with_rows)
    pairs = run._pairs
    nq_all = len(idx.query_ids)
    qmap_arr = pc.index_in(pairs.query_dict, value_set=idx.query_ids)
    qmap: np.ndarray = to_numpy(qmap_arr, fill=-1).astype(np.int32 if nq_all < 2**31 else np.int64)
    n_unjudged = int((qmap < 0).sum())
    report["run_queries_without_judgments"] = n_unjudged
    out = _RunRows(
        qcode=qmap[pairs.query_code],
        score=_score_column(run, conventions),
        doc=run._d,
        rows=None,
        joined=joined,
        with_rows=with_rows,
        unjudged_ids=(
            pairs.query_dict.filter(from_numpy(qmap < 0)) if n_unjudged else pairs.query_dict[:0]
        ),
    )
    if n_unjudged:
        rows = np.flatnonzero(out.qcode >= 0)
        out.rows = rows
        out.qcode, out.score = out.qcode[rows], out.score[rows]
        if joined is not None:
            out.joined = (
                joined[0][rows],
                joined[1][rows],
                None if joined[2] is None else joined[2][rows],
            )
    report["run_rows_without_judged_query"] = int(len(run) - len(out.qcode))
    return out


def _with_empty_rankings(
    present: np.ndarray,
    empty: tuple[str, ...],
    idx: _JudgmentIndex,
    rows: _RunRows,
    report: dict[str, int],
) -> np.ndarray:
    """``empty_rankings='evaluate'``: the run's empty rankings (queries it names with no
    document) count as present in the run, with nothing retrieved; those without
    judgments join the run queries without judgments (``rows.unjudged_ids``)."""
    ids = pa.array(empty, type=pa.large_string())
    judged = to_numpy(pc.is_in(ids, value_set=idx.query_ids.cast(pa.large_string())))
    at = to_numpy(pc.index_in(ids.filter(from_numpy(judged)), value_set=idx.query_ids), fill=-1)
    present = present.copy()
    present[at] = True
    report["run_queries_empty"] = len(empty)
    if not judged.all():
        unjudged = ids.filter(from_numpy(~judged))
        rows.unjudged_ids = pa.concat_arrays([rows.unjudged_ids.cast(pa.large_string()), unjudged])
        report["run_queries_without_judgments"] += len(unjudged)
    return present


@dataclass
class _Ranked:
    """Every judged query's ranking in order: scores, grades, judged flags, row counts."""

    score: np.ndarray
    rel: np.ndarray
    judged: np.ndarray
    counts: np.ndarray
    qrow: np.ndarray | None = None  # the qrels row of each document (DiversityQrels)

    def kept(self, mask: np.ndarray, counts: np.ndarray) -> _Ranked:
        """The rows where ``mask`` holds, with the new per-query ``counts``."""
        qrow = None if self.qrow is None else self.qrow[mask]
        return _Ranked(self.score[mask], self.rel[mask], self.judged[mask], counts, qrow)


def _order_and_judge(
    rows: _RunRows,
    idx: _JudgmentIndex,
    ties: str,
    top: int | None = None,
    blocks: int | None = None,
    negative_grades: str = "unjudged",
) -> _Ranked:
    """One sort by query, score descending and the tie rule, and the judgments of the
    retrieved documents: from the hash join (text doc ids), else one hash lookup of the
    distinct doc ids and one binary search.  ``top``: only the first rows of each
    ranking are kept (and, with dictionary-encoded doc ids, looked up); ``blocks``: the
    run's block width (:attr:`PairIndex.blocks`); ``negative_grades``: the convention
    of that name (whether a negative grade is judged)."""
    nq_all = len(idx.query_ids)
    d_run = rows.doc
    joined = rows.joined

    def coded_lookup(which: np.ndarray | None) -> np.ndarray:
        """The judged doc codes of the rows ``which`` (positions among ``rows``, None:
        all) of a run with dictionary-encoded doc ids: the distinct ids are looked up."""
        codes = to_numpy(pc.index_in(d_run.dictionary, value_set=idx.doc_keys.doc_ids), fill=-1)
        run_rows = (
            rows.rows if which is None else (which if rows.rows is None else rows.rows[which])
        )
        indices = to_numpy(d_run.indices)
        return codes[indices if run_rows is None else indices[run_rows]]

    if ties in ("optimistic", "pessimistic") and joined is None:
        joined = _lookup_rel(idx, rows.qcode, coded_lookup(None), rows.with_rows)
    order = order_rankings(
        rows.qcode,
        nq_all,
        rows.score,
        ties,
        doc_ids=d_run,
        rows=rows.rows,
        rel=None if joined is None else joined[0],
        depth=top,
        blocks=blocks,
    )
    # rows are now grouped by query code: the codes follow from the counts
    if blocks is not None and len(rows.qcode):  # one row per block is enough
        counts = np.bincount(rows.qcode[::blocks], minlength=nq_all) * blocks
    else:
        counts = np.bincount(rows.qcode, minlength=nq_all)
    if top is not None:
        counts = np.minimum(counts, top)
    qrow: np.ndarray | None = None
    if joined is not None:
        rel, in_qrels = joined[0][order], joined[1][order]
        qrow = None if joined[2] is None else joined[2][order]
    else:  # coded doc ids: the kept rows' codes follow the order
        rel, in_qrels, qrow = _lookup_rel(
            idx,
            np.repeat(np.arange(nq_all, dtype=np.int64), counts),
            coded_lookup(order),
            rows.with_rows,
        )
    # a negative grade is a judgment of non-relevance that trec_eval treats as
    # "pooled but unjudged" wherever judged-ness matters (bpref, infAP, unj); ranx as
    # judged non-relevant (negative_grades='nonrelevant')
    judged = in_qrels if negative_grades == "nonrelevant" else in_qrels & (rel >= 0)
    return _Ranked(score=rows.score[order], rel=rel, judged=judged, counts=counts, qrow=qrow)


def _apply_depth(r: _Ranked, depth: int, report: dict[str, int]) -> _Ranked:
    """Keep the first ``depth`` documents of every ranking (trec_eval ``-M``)."""
    offs = np.zeros(len(r.counts) + 1, dtype=np.int64)
    np.cumsum(r.counts, out=offs[1:])
    pos = np.arange(len(r.score)) - np.repeat(offs[:-1], r.counts)
    keep = pos < depth
    report["rows_beyond_depth"] = int(len(keep) - keep.sum())
    if keep.all():
        return r
    return r.kept(keep, np.minimum(r.counts, depth))


def _judged_only(r: _Ranked, report: dict[str, int]) -> _Ranked:
    """trec_eval ``-J``: the unjudged documents (not in the qrels, or graded below 0) of
    the kept top are thrown out and the others move up; a query keeps its place (an
    empty ranking) even when none of its documents is judged."""
    report["rows_unjudged_dropped"] = int(len(r.judged) - r.judged.sum())
    if r.judged.all():
        return r
    nq = len(r.counts)
    counts = np.bincount(np.repeat(np.arange(nq), r.counts)[r.judged], minlength=nq)
    return r.kept(r.judged, counts)


def _some_ids(ids: list[Any], total: int | None = None) -> str:
    """The first five ids, quoted, and how many more (of ``total``, default all)."""
    n = len(ids) if total is None else total
    more = f" and {n - 5} more" if n > 5 else ""
    return ", ".join(map(repr, ids[:5])) + more


def missing_queries_error(first: list[Any], total: int) -> InputError:
    """The error of ``missing='error'``: ``total`` qrels queries are not in the run, the
    first of them (in id order) ``first``."""
    return InputError(
        f"{total} queries in the qrels are not in the run: {_some_ids(first, total)}. "
        "Pass missing='zero' to score them 0 or missing='skip' to leave them out."
    )


def no_relevant_error(ids: list[Any], rel_threshold: float) -> InputError:
    """The error of ``no_relevant='error'``: ``ids`` (sorted) have no relevant judgment."""
    return InputError(
        f"{len(ids)} queries have no relevant judgment (relevance >= {rel_threshold}): "
        f"{_some_ids(ids)}. Pass no_relevant='zero', 'skip' or 'nan' to evaluate anyway."
    )


def _select_queries(
    present: np.ndarray, idx: _JudgmentIndex, conventions: Conventions, report: dict[str, int]
) -> np.ndarray:
    """Which judged queries are evaluated, by the ``missing`` and ``no_relevant`` rules
    (their ``error`` settings raise here, naming the queries)."""
    nq_all = len(idx.query_ids)
    n_missing = int(nq_all - present.sum())
    report["qrels_queries_missing_from_run"] = n_missing
    selected = np.ones(nq_all, dtype=bool)
    if n_missing:
        if conventions.missing == "error":
            missing_ids = idx.query_ids.filter(from_numpy(~present)).to_pylist()
            raise missing_queries_error(missing_ids[:5], n_missing)
        if conventions.missing == "skip":
            selected &= present
    report["run_queries_matched"] = int(present.sum())
    nrel_all = np.bincount(idx.qcode[idx.rel_sorted >= conventions.rel_threshold], minlength=nq_all)
    no_rel = selected & (nrel_all == 0)
    report["queries_without_relevant"] = int(no_rel.sum())
    if no_rel.any():
        if conventions.no_relevant == "error":
            raise no_relevant_error(
                idx.query_ids.filter(from_numpy(no_rel)).to_pylist(), conventions.rel_threshold
            )
        if conventions.no_relevant == "skip":
            selected &= ~no_rel
    return selected


def _restrict(
    r: _Ranked,
    selected: np.ndarray,
    idx: _JudgmentIndex,
    conventions: Conventions,
    report: dict[str, int],
    unjudged_ids: pa.Array,
    present: np.ndarray,
) -> Prepared:
    """The :class:`Prepared` table of the selected queries (renumbered densely);
    ``present``: which of all judged queries the run ranks or names."""
    counts = r.counts
    score, rel, judged, qrow = r.score, r.rel, r.judged, r.qrow
    icounts = np.diff(idx.offsets)
    ideal_rel = idx.rel_sorted
    query_ids = idx.query_ids
    if not selected.all():
        keep_rows = np.repeat(selected, counts)
        score, rel, judged = score[keep_rows], rel[keep_rows], judged[keep_rows]
        qrow = None if qrow is None else qrow[keep_rows]
        ideal_rel = ideal_rel[selected[idx.qcode]]
        icounts = icounts[selected]
        query_ids = query_ids.filter(from_numpy(selected))
        counts = counts[selected]
    n_sel = int(selected.sum())
    offsets = np.zeros(n_sel + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    ideal_offsets = np.zeros(n_sel + 1, dtype=np.int64)
    np.cumsum(icounts, out=ideal_offsets[1:])
    report["queries_evaluated"] = n_sel
    return Prepared(
        query_ids=query_ids,
        offsets=offsets,
        rel=rel,
        judged=judged,
        score=score,
        ideal_offsets=ideal_offsets,
        ideal_rel=ideal_rel,
        conventions=conventions,
        report=report,
        unjudged_ids=unjudged_ids,
        in_run=present if selected.all() else present[selected],
        qrels_row=qrow,
    )
