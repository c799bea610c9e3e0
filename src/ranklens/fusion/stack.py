"""Several runs stacked as one long table, ranked once, and the fused run built back.

:func:`stack_runs` codes the query and doc ids of every run (and of the qrels a
trained method learns from) into one code space, orders each (run, query) ranking
in the one place rankings are ordered (:func:`ranklens.ranking.engine.order_rankings`)
and keeps, for every row, its run, query, doc, score, 0-based position and the length
of its ranking.  The normalisations (:mod:`ranklens.fusion.norms`) and the fusion
methods (:mod:`ranklens.fusion.methods`) are segmented reductions over this table;
no Python loop visits a query.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy
from ranklens._shared.columns import id_codes, text_order
from ranklens.errors import InputError
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import order_rankings

__all__ = ["TIES", "Stack", "fused_run", "segment_starts", "stack_runs"]

#: How the documents of one input ranking that tie on score are ranked (their
#: position matters to every rank-based method): ``input``, the order of the rows
#: (what ranx does for rankings of up to 15 documents: its sort is stable there);
#: ``trec``, document id descending (trec_eval's rule).
TIES = ("input", "trec")


def _as_large(arr: pa.Array) -> pa.Array:
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr if pa.types.is_large_string(arr.type) else arr.cast(pa.large_string())


@dataclass(frozen=True, eq=False)
class Stack:
    """Every row of every run, sorted by (run, query code, position).

    Query codes follow the byte order of the query ids (``query_ids[code]``), doc
    codes index ``doc_ids``.  ``lengths[r, q]`` is the length of run ``r``'s ranking
    of query ``q`` (0: the run has none)."""

    query_ids: pa.Array
    doc_ids: pa.Array
    n_runs: int
    run: np.ndarray  # int64 run index of every row
    qcode: np.ndarray  # int64 query code
    dcode: np.ndarray  # int64 doc code
    score: np.ndarray  # float64 (normalised once a normalisation is applied)
    pos: np.ndarray  # int64 0-based position in its ranking
    lengths: np.ndarray  # (n_runs, n_queries) int64
    #: doc codes of the qrels' relevant judgments, as keys qcode * n_docs + dcode
    #: (sorted), when the stack was built with qrels
    relevant: np.ndarray | None = None
    #: the query codes of the qrels (the training queries), when built with qrels
    qrels_queries: np.ndarray | None = None

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def n_docs(self) -> int:
        return len(self.doc_ids)

    @property
    def seg(self) -> np.ndarray:
        """Each row's (run, query) segment code ``run * n_queries + qcode``."""
        return self.run * self.n_queries + self.qcode

    @property
    def length(self) -> np.ndarray:
        """The length of each row's ranking."""
        return self.lengths.reshape(-1)[self.seg]

    def key(self) -> np.ndarray:
        """Each row's (query, doc) pair as one int64 key."""
        return self.qcode * max(self.n_docs, 1) + self.dcode

    def with_rows(self, **cols: Any) -> Stack:
        return dataclasses.replace(self, **cols)


def segment_starts(lengths: np.ndarray) -> np.ndarray:
    """The first row of every segment of a table sorted by segment (``lengths`` per
    segment, in order)."""
    starts = np.zeros(lengths.size, dtype=np.int64)
    np.cumsum(lengths.reshape(-1)[:-1], out=starts[1:])
    return starts


def _check_runs(runs: Sequence[Any], where: str) -> list[Run]:
    if isinstance(runs, Run) or not isinstance(runs, Sequence):
        raise InputError(
            f"{where}: runs must be a list of ranklens.Run (two or more), got "
            f"{type(runs).__name__}."
        )
    bad = next((i for i, r in enumerate(runs) if not isinstance(r, Run)), None)
    if bad is not None:
        raise InputError(
            f"{where}: runs[{bad}] is a {type(runs[bad]).__name__}, not a ranklens.Run; "
            "build it with ranklens.Run.from_dict / from_frame or ranklens.io.read_run."
        )
    if len(runs) < 2:
        raise InputError(
            f"{where}: fusion needs two or more runs, got {len(runs)}; pass "
            "runs=[run_a, run_b, ...]."
        )
    return list(runs)


def stack_runs(
    runs: Sequence[Run],
    *,
    ties: str = "input",
    qrels: Qrels | None = None,
    rel_threshold: float = 1.0,
    where: str = "fuse",
) -> Stack:
    """The runs as one :class:`Stack`: ids coded once, every ranking ordered once.

    A query that a run lacks (or names without documents) is an empty ranking of that
    run.  With ``qrels``, its ids share the code space and the judgments of grade
    ``rel_threshold`` or more are kept as the relevant pairs (what trained methods
    learn from)."""
    runs = _check_runs(runs, where)
    tables = [r.to_arrow() for r in runs]
    sizes = np.array([t.num_rows for t in tables], dtype=np.int64)
    q_parts = [_as_large(t.column("query").combine_chunks()) for t in tables]
    d_parts = [_as_large(t.column("doc").combine_chunks()) for t in tables]
    empty = [q for r in runs for q in r.empty_queries]
    if empty:
        q_parts.append(pa.array(empty, type=pa.large_string()))
    if qrels is not None:
        qt = qrels.to_arrow()
        q_parts.append(_as_large(qt.column("query").combine_chunks()))
        d_parts.append(_as_large(qt.column("doc").combine_chunks()))
    q_ids, q_first = id_codes(pa.concat_arrays(q_parts))
    by_text = text_order(q_ids)
    rank = np.empty(len(by_text), dtype=np.int64)
    rank[by_text] = np.arange(len(by_text), dtype=np.int64)
    qcode_all = rank[q_first]
    query_ids = q_ids.take(from_numpy(by_text))
    doc_ids, dcode_all = id_codes(pa.concat_arrays(d_parts))
    dcode_all = dcode_all.astype(np.int64)
    n_rows = int(sizes.sum())
    qcode = qcode_all[:n_rows]
    dcode = dcode_all[:n_rows]
    run = np.repeat(np.arange(len(runs), dtype=np.int64), sizes)
    score = np.concatenate([r.scores for r in runs]) if n_rows else np.zeros(0)
    nq = len(query_ids)
    seg = run * nq + qcode
    doc_text = pa.concat_arrays(d_parts[: len(runs)]) if ties == "trec" else None
    order = order_rankings(seg, len(runs) * nq, score, ties, doc_ids=doc_text)
    lengths = np.bincount(seg, minlength=len(runs) * nq).reshape(len(runs), nq)
    seg = seg[order]
    pos = np.arange(n_rows, dtype=np.int64) - np.repeat(segment_starts(lengths), lengths.ravel())
    relevant = qrels_queries = None
    if qrels is not None:
        qq = qcode_all[len(qcode_all) - len(qrels) :]
        qd = dcode_all[n_rows:]
        keep = qrels.relevance >= rel_threshold
        relevant = np.unique(qq[keep] * max(len(doc_ids), 1) + qd[keep])
        qrels_queries = np.unique(qq)
    del seg
    return Stack(
        query_ids=query_ids,
        doc_ids=doc_ids,
        n_runs=len(runs),
        run=run[order],
        qcode=qcode[order],
        dcode=dcode[order],
        score=score[order],
        pos=pos,
        lengths=lengths,
        relevant=relevant,
        qrels_queries=qrels_queries,
    )


def fused_run(
    stack: Stack,
    qcode: np.ndarray,
    dcode: np.ndarray,
    score: np.ndarray,
    first: np.ndarray,
    *,
    ties: str,
    name: str | None,
    depth: int | None = None,
) -> Run:
    """The fused :class:`~ranklens.Run`: one row per candidate (query, doc), rows in
    rank order (query ids in byte order, score descending, equal scores by ``ties``:
    ``input`` keeps ``first``, each candidate's first appearance in the stacked runs,
    ranx's order; ``trec`` puts the higher doc id first).  ``depth``: keep only the
    best ``depth`` of each query.  Queries of the inputs without any candidate are
    its :attr:`~ranklens.Run.empty_queries`."""
    nq = stack.n_queries
    doc_text = None
    if ties == "trec":
        doc_text = stack.doc_ids.take(from_numpy(dcode))
    rows = first if ties == "input" else None
    order = order_rankings(qcode, nq, score, ties, doc_ids=doc_text, rows=rows, depth=depth)
    q = qcode[order]
    query = pa.DictionaryArray.from_arrays(from_numpy(q.astype(np.int32)), stack.query_ids)
    doc = pa.DictionaryArray.from_arrays(from_numpy(dcode[order].astype(np.int32)), stack.doc_ids)
    seen = np.zeros(nq, dtype=bool)
    seen[q] = True
    missing = stack.query_ids.filter(from_numpy(~seen)).to_pylist()
    return Run.from_arrays(
        query, doc, score[order], name=name, empty_queries=missing if missing else None
    )
