"""Score normalisations applied to each input ranking before fusion (ranx's set).

Each is a segmented reduction over a :class:`~ranklens.fusion.stack.Stack`: one
value per (run, query) ranking (its minimum, maximum, sum, mean, standard
deviation, length), spread back over its rows.  ``s`` is a document's score in one
ranking of ``n`` documents, ``p`` its 0-based position, ``C`` the number of distinct
documents any run returns for the query; a denominator is never smaller than
``1e-9`` (ranx's guard: a ranking whose scores are all equal normalises to 0).

- ``min-max``: ``(s - min) / (max - min)``;
- ``min-max-inverted``: ``(max - s) / (max - min)`` (for distances; the ranking
  is re-ordered by the new score, equal ones in their previous order);
- ``max``: ``s / max``;
- ``sum``: ``(s - min) / (sum - n * min)``;
- ``zmuv``: ``(s - mean) / std`` (population standard deviation);
- ``rank``: ``1 - p / n``;
- ``borda``: ``1 - p / C`` for the documents of the ranking, and every other
  candidate of the query is added to it with ``0.5 - (n - 1) / (2 C)`` (so every
  run then holds every candidate); the added documents rank after the run's own, in
  the order they first appear in the runs (ranx leaves their order to a Python set);
- ``none``: the scores as given.
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens.fusion.stack import Stack, segment_starts
from ranklens.ranking.engine import order_rankings

__all__ = ["NORMS", "candidates", "normalise"]

#: The normalisations, by name (ranx's names; ``zmuv`` is also spelt ``z-score``).
NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", "none")
ALIASES = {"min_max": "min-max", "min_max_inverted": "min-max-inverted", "z-score": "zmuv"}

_EPS = 1e-9


def _per_segment(stack: Stack) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (run, query) segments that have rows: their starts, lengths, and each row's
    index among them."""
    lengths = stack.lengths.reshape(-1)
    starts = segment_starts(lengths)
    filled = lengths > 0
    seg_of_row = np.repeat(np.arange(int(filled.sum()), dtype=np.int64), lengths[filled])
    return starts[filled], lengths[filled], seg_of_row


def _reduce(ufunc: np.ufunc, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return np.zeros(0)
    out: np.ndarray = ufunc.reduceat(values, starts)
    return out


def candidates(stack: Stack) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (query, doc) candidates of the stack in order of first appearance
    (run order, then rank order: ranx's insertion order): their keys, the row where
    each first appears, and each row's candidate index.  One hash pass (Arrow's
    dictionary encoding of the int64 keys), no sort."""
    key = stack.key()
    if key.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    enc = pc.dictionary_encode(from_numpy(key))
    inv = to_numpy(enc.indices).astype(np.int64)
    keys = to_numpy(enc.dictionary).astype(np.int64)
    seen = np.maximum.accumulate(inv)
    new = np.empty(inv.size, dtype=bool)
    new[0] = True
    np.greater(inv[1:], seen[:-1], out=new[1:])
    return keys, np.flatnonzero(new), inv


def normalise(stack: Stack, norm: str) -> Stack:
    """``stack`` with its scores normalised by ``norm`` (one of :data:`NORMS`)."""
    s = stack.score
    if norm == "none" or s.size == 0:
        return stack
    if norm == "borda":
        return _borda(stack)
    starts, lengths, row_seg = _per_segment(stack)
    if norm == "rank":
        return stack.with_rows(score=1.0 - stack.pos / stack.length)
    lo = _reduce(np.minimum, s, starts)[row_seg]
    if norm == "max":
        hi = _reduce(np.maximum, s, starts)[row_seg]
        return stack.with_rows(score=s / np.maximum(hi, _EPS))
    if norm in ("min-max", "min-max-inverted"):
        hi = _reduce(np.maximum, s, starts)[row_seg]
        den = np.maximum(hi - lo, _EPS)
        if norm == "min-max":
            return stack.with_rows(score=(s - lo) / den)
        return _reranked(stack, (hi - s) / den)
    total = _reduce(np.add, s, starts)
    if norm == "sum":
        den = np.maximum(total[row_seg] - lo * stack.length, _EPS)
        return stack.with_rows(score=(s - lo) / den)
    if norm == "zmuv":
        mean = (total / lengths)[row_seg]
        dev = s - mean
        std = np.sqrt(_reduce(np.add, dev * dev, starts) / lengths)[row_seg]
        return stack.with_rows(score=dev / np.maximum(std, _EPS))
    raise AssertionError(norm)


def _reranked(stack: Stack, score: np.ndarray) -> Stack:
    """The stack with new scores, each ranking re-ordered by them (equal scores keep
    their order)."""
    nq = stack.n_queries
    order = order_rankings(stack.seg, stack.n_runs * nq, score, "input")
    lengths = stack.lengths
    pos = np.arange(score.size, dtype=np.int64) - np.repeat(
        segment_starts(lengths), lengths.ravel()
    )
    return stack.with_rows(
        run=stack.run[order],
        qcode=stack.qcode[order],
        dcode=stack.dcode[order],
        score=score[order],
        pos=pos,
    )


def _borda(stack: Stack) -> Stack:
    """Borda normalisation: every run gets every candidate of the query (see the
    module's notes), then each ranking is ordered by the new scores."""
    keys, first, inv = candidates(stack)
    nd = max(stack.n_docs, 1)
    cand_q = keys // nd
    n_cand = np.bincount(cand_q, minlength=stack.n_queries)  # C per query
    r, nc = stack.n_runs, keys.size
    present = np.zeros((r, nc), dtype=bool)
    present[stack.run, inv] = True
    present_score = 1.0 - stack.pos / n_cand[stack.qcode]
    miss_r, miss_c = np.nonzero(~present)
    miss_q = cand_q[miss_c]
    n_run = stack.lengths[miss_r, miss_q]
    miss_score = 0.5 - (n_run - 1) / (2.0 * n_cand[miss_q])
    # tie order: the run's own documents by position, then the added ones in order of
    # first appearance (rows after every existing row)
    tie = np.concatenate([np.arange(stack.score.size), stack.score.size + first[miss_c]])
    run = np.concatenate([stack.run, miss_r])
    qcode = np.concatenate([stack.qcode, miss_q])
    dcode = np.concatenate([stack.dcode, keys[miss_c] % nd])
    score = np.concatenate([present_score, miss_score])
    seg = run * stack.n_queries + qcode
    order = order_rankings(seg, r * stack.n_queries, score, "input", rows=tie)
    lengths = np.repeat(n_cand[None, :], r, axis=0) * (n_cand > 0)
    pos = np.arange(score.size, dtype=np.int64) - np.repeat(
        segment_starts(lengths), lengths.ravel()
    )
    return stack.with_rows(
        run=run[order],
        qcode=qcode[order],
        dcode=dcode[order],
        score=score[order],
        pos=pos,
        lengths=lengths,
    )
