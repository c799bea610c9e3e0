"""The rankers' top lists of every query as dense arrays, the layout every
interleaving method works on.

``codes[q, r, p]`` is the document (an int64 code into ``docs``) at rank ``p + 1`` of
ranker ``r`` for query ``q`` (``-1`` past the end of the list); ``local[q, r, p]`` the
same document's id within its query (``0 .. m * L - 1``, equal documents equal ids,
``m * L`` for the padding), so "is this document in the list already" is one lookup in
a per-query table of ``m * L + 1`` flags.  Rankings are ordered by
:func:`ranklens.ranking.engine.order_rankings` (score descending, equal scores by the
tie policy, as every metric orders them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.columns import text_rank
from ranklens._shared.sorting import uniform_blocks
from ranklens.errors import InputError

__all__ = ["Rankings", "dense_rankings", "ranker_names"]


@dataclass(frozen=True, eq=False)
class Rankings:
    queries: pa.Array  # (Q,) large_string, in byte order of the ids
    docs: pa.Array  # distinct document ids (large_string)
    codes: np.ndarray  # (Q, m, L) int64, -1 padding
    local: np.ndarray  # (Q, m, L) int64, m * L padding
    lengths: np.ndarray  # (Q, m) int64

    @property
    def width(self) -> int:
        """``m * L``: the per-query id of the padding."""
        return int(self.codes.shape[1] * self.codes.shape[2])


def ranker_names(runs: Any, where: str, *, low: int, high: int | None) -> list[tuple[str, Any]]:
    """``runs`` (a mapping name -> Run, or a list of Runs named by ``Run.name``, else
    ``A``, ``B``, ...) as (name, Run) pairs, ``low`` to ``high`` of them."""
    from ranklens.ranking.data import Run

    if isinstance(runs, Mapping):
        items = [(str(k), v) for k, v in runs.items()]
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        items = [
            (getattr(r, "name", None) or (letters[i] if i < 26 else f"R{i + 1}"), r)
            for i, r in enumerate(runs)
        ]
    else:
        raise InputError(
            f"{where}: runs must be a list of ranklens.Run or a mapping {{name: Run}}, "
            f"got {type(runs).__name__}."
        )
    for name, r in items:
        if not isinstance(r, Run):
            raise InputError(
                f"{where}: ranker {name!r} is a {type(r).__name__}; pass a ranklens.Run "
                "(e.g. ranklens.read_run(path) or Run.from_dict({query: {doc: score}}))."
            )
    want = f"{low}" if high == low else f"at least {low}" if high is None else f"{low} to {high}"
    if len(items) < low or (high is not None and len(items) > high):
        raise InputError(f"{where}: takes {want} rankers, got {len(items)}.")
    names = [n for n, _ in items]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InputError(
            f"{where}: two rankers are named {repeated[0]!r}; pass runs as a mapping "
            "{name: Run} with distinct names."
        )
    return items


def dense_rankings(runs: list[Any], depth: int | None, ties: str) -> Rankings:
    """The top-``depth`` list (all of it with ``depth=None``) of every ranker for every
    query that any ranker names (its empty rankings included)."""
    from ranklens.ranking.engine import order_rankings

    tables = [r.to_arrow() for r in runs]
    qcols = [t.column("query").combine_chunks().cast(pa.large_string()) for t in tables]
    dcols = [t.column("doc").combine_chunks().cast(pa.large_string()) for t in tables]
    empty = sorted({q for r in runs for q in r.empty_queries})
    all_q = pa.concat_arrays([*qcols, pa.array(empty, type=pa.large_string())])
    qenc = pc.dictionary_encode(all_q)
    qrank = text_rank(qenc.dictionary).astype(np.int64)
    n_q = len(qenc.dictionary)
    order = np.empty(n_q, dtype=np.int64)
    order[qrank] = np.arange(n_q)
    queries = qenc.dictionary.take(from_numpy(order)).cast(pa.large_string())
    qcode_all = qrank[to_numpy(qenc.indices).astype(np.int64)]
    denc = pc.dictionary_encode(pa.concat_arrays(dcols))
    dcode_all = to_numpy(denc.indices).astype(np.int64)
    m = len(runs)
    per_run: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    start = 0
    longest = 0
    for t, run in zip(tables, runs, strict=True):
        n = t.num_rows
        qc = qcode_all[start : start + n]
        dc = dcode_all[start : start + n]
        start += n
        rows = (
            order_rankings(
                qc,
                n_q,
                np.asarray(run.scores),
                ties,
                doc_ids=dcols[len(per_run)],
                depth=depth,
                blocks=uniform_blocks(qc),  # lists of one length: each sorted on its own
            )
            if n
            else np.zeros(0, dtype=np.int64)
        )
        counts = np.bincount(qc[rows], minlength=n_q)
        longest = max(longest, int(counts.max()) if n else 0)
        per_run.append((qc[rows], dc[rows], counts))
    width = max(longest, 1)
    codes = np.full((n_q, m, width), -1, dtype=np.int64)
    lengths = np.zeros((n_q, m), dtype=np.int64)
    for r, (qc, dc, counts) in enumerate(per_run):
        starts = np.zeros(n_q, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        pos = np.arange(len(qc), dtype=np.int64) - starts[qc]
        codes[qc, r, pos] = dc
        lengths[:, r] = counts
    return Rankings(queries, denc.dictionary, codes, local_ids(codes), lengths)


def local_ids(codes: np.ndarray) -> np.ndarray:
    """Per query, one id per distinct document of its lists: the position of the
    document's first copy in the query's sorted codes; padding ``m * L``."""
    n_q = codes.shape[0]
    w = int(codes.shape[1] * codes.shape[2])
    flat = codes.reshape(n_q, w)
    order = np.argsort(flat, axis=1, kind="stable")
    srt = np.take_along_axis(flat, order, axis=1)
    head = np.ones(srt.shape, dtype=bool)
    head[:, 1:] = srt[:, 1:] != srt[:, :-1]
    first = np.where(head, np.arange(w, dtype=np.int64)[None, :], 0)
    np.maximum.accumulate(first, axis=1, out=first)
    local = np.empty_like(first)
    np.put_along_axis(local, order, first, axis=1)
    local[flat < 0] = w
    return local.reshape(codes.shape)
