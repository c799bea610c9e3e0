"""Diversity judgments: :class:`DiversityQrels`, relevance per (query, intent, doc).

The TREC Web track's diversity qrels (``query intent doc rel``, the ``subtopic``
column of ndeval) judge each document against each intent (subtopic) of a query.
A :class:`DiversityQrels` is a :class:`~ranklens.Qrels` whose rows are the
*collapsed view*, one row per (query, doc) with the **highest grade over the
query's intents** (``collapse='max'``): a document relevant to any intent is
relevant to the query, as ndeval's own (non intent-aware) MAP counts it.  Every
plain ranking metric reads that view, so ``ndcg@10`` on a diversity qrels is the
nDCG of the collapsed judgments.  The intent-aware metrics
(:mod:`ranklens.ranking.kernels.diversity`) read the intent rows kept beside it,
joined to each ranking by the engine (:attr:`Prepared.qrels_row`).

Intent weights (``P(intent | query)`` of Agrawal et al. 2009) are uniform unless
given: a mapping ``{query: {intent: weight}}`` or a table of (query, intent,
weight) rows.  A plain :class:`~ranklens.Qrels` given to an intent-aware metric is
one intent per query (its grades are that intent's grades).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.columns import as_float_column, as_id_column, text_order
from ranklens._shared.frames import columns_from_frame
from ranklens.errors import DuplicateError, InputError
from ranklens.ranking.data import Qrels

__all__ = ["DiversityQrels", "IntentTable"]


@dataclass(frozen=True, eq=False)
class IntentTable:
    """The intent judgments of a :class:`DiversityQrels`, aligned with its rows.

    Row ``r`` of the collapsed qrels has the intent judgments
    ``offsets[r]:offsets[r + 1]``: ``slot`` (an index into the (query, intent) pairs
    ``slot_query``/``slot_intent``, sorted by query then intent id) and ``grade``.
    ``slot_weight``: each pair's weight (None: uniform).  ``doc_rank``: each row's
    rank among its query's documents in byte order of the doc ids (ndeval breaks ties
    of its greedy ideal ranking by the greatest doc id)."""

    offsets: np.ndarray
    slot: np.ndarray
    grade: np.ndarray
    slot_query: pa.Array
    slot_intent: pa.Array
    slot_weight: np.ndarray | None
    row_query: np.ndarray  # per collapsed row: its slot query index (into slot_query ids)
    doc_rank: np.ndarray

    @property
    def n_slots(self) -> int:
        return len(self.slot_intent)


def _text(arr: pa.Array) -> pa.Array:
    """An id column as plain large strings (dictionary-encoded ids decoded)."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return arr.cast(pa.large_string())


def _changes(*cols: np.ndarray) -> np.ndarray:
    """Where a row of (sorted) codes differs from the previous one (True at 0)."""
    n = len(cols[0])
    new = np.ones(n, dtype=bool)
    if n:
        new[1:] = False
        for c in cols:
            new[1:] |= c[1:] != c[:-1]
    return new


def _codes(arr: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Distinct ids (large strings) in byte order and each row's index into them: one
    hash pass (a dictionary-encoded column: its own codes) and a sort of the distinct
    ids."""
    enc = arr if pa.types.is_dictionary(arr.type) else pc.dictionary_encode(arr)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.combine_chunks()
    values = _text(enc.dictionary)
    order = text_order(values)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return values.take(from_numpy(order)), rank[to_numpy(enc.indices).astype(np.int64)]


def _sort_rows(
    qc: np.ndarray, dc: np.ndarray, ic: np.ndarray, nq: int, nd: int, ni: int
) -> np.ndarray:
    """The rows by (query, doc, intent) code: one sort of packed keys where they fit."""
    if max(nq, 1) * max(nd, 1) * max(ni, 1) < 2**62:
        return np.argsort((qc * max(nd, 1) + dc) * max(ni, 1) + ic)
    return np.lexsort((ic, dc, qc))


class DiversityQrels(Qrels):
    """Relevance judgments per intent: rows of ``(query, intent, doc, relevance)``.

    The table itself is the collapsed view (one row per (query, doc), the highest
    grade over the intents, see :mod:`ranklens.ranking.intents`); :attr:`intents`
    holds the intent rows.  A repeated (query, intent, doc) triple is an error.

    >>> qrels = DiversityQrels.from_dict({"q1": {"a": {"d1": 1, "d2": 0}, "b": {"d2": 2}}})
    >>> qrels.to_dict()
    {'q1': {'d1': 1.0, 'd2': 2.0}}
    >>> qrels.num_intents, qrels.intent_ids("q1")
    (2, ['a', 'b'])
    """

    __slots__ = ("_intents",)

    def __init__(
        self,
        query: Any,
        intent: Any,
        doc: Any,
        relevance: Any,
        *,
        weights: Any = None,
        name: str | None = None,
    ) -> None:
        what = type(self).__name__
        q = as_id_column(query, f"{what} query column")
        i = as_id_column(intent, f"{what} intent column")
        d = as_id_column(doc, f"{what} doc column")
        v = as_float_column(relevance, f"{what} relevance column")
        if not (len(q) == len(i) == len(d) == len(v)):
            raise InputError(
                f"{what}: the query, intent, doc and relevance columns have different "
                f"lengths ({len(q)}, {len(i)}, {len(d)}, {len(v)}); they must be equal."
            )
        bad = np.flatnonzero(~np.isfinite(v))
        if bad.size:
            r = int(bad[0])
            raise InputError(
                f"{what}: {bad.size} relevance value(s) are NaN or infinite, the first at "
                f"(query {q[r].as_py()!r}, intent {i[r].as_py()!r}, doc {d[r].as_py()!r}). "
                "Every relevance must be a finite number."
            )
        uq, qc = _codes(q)
        ud, dc = _codes(d)
        ui, ic = _codes(i)
        order = _sort_rows(qc, dc, ic, len(uq), len(ud), len(ui))  # query, doc, intent
        qs, ds, is_ = qc[order], dc[order], ic[order]
        dup = ~_changes(qs, ds, is_)
        if dup.any():
            r = int(order[np.flatnonzero(dup)[0]])
            raise DuplicateError(
                f"{what}: {int(dup.sum())} repeated (query, intent, doc) triple(s), the "
                f"first (query {q[r].as_py()!r}, intent {i[r].as_py()!r}, doc "
                f"{d[r].as_py()!r}). Each document is judged once per intent; remove the "
                "repeated rows."
            )
        new_pair = _changes(qs, ds)
        starts = np.flatnonzero(new_pair)
        grades = v[order]
        collapsed = np.maximum.reduceat(grades, starts) if len(starts) else np.zeros(0, np.float64)
        super().__init__(
            pa.DictionaryArray.from_arrays(from_numpy(qs[starts].astype(np.int32)), uq),
            ud.take(from_numpy(ds[starts])),
            np.ascontiguousarray(collapsed, dtype=np.float64),
            name=name,
        )
        # (query, intent) slots, sorted by query then intent id
        ni = max(len(ui), 1)
        slot_key = qs * ni + is_
        if len(uq) * ni <= 4 * len(slot_key) + 1024:  # a dense table of the pairs
            used = np.zeros(len(uq) * ni, dtype=bool)
            used[slot_key] = True
            slots = np.flatnonzero(used)
            dense = np.cumsum(used) - 1
            slot_of = dense[slot_key]
        else:
            slots, slot_of = np.unique(slot_key, return_inverse=True)
        slot_q = slots // ni
        slot_i = slots % ni
        # the rows come sorted by (query, doc): a query's rows are in doc id order
        row_q = qs[starts]
        first_row = np.searchsorted(row_q, row_q, side="left")
        doc_rank = np.arange(len(starts), dtype=np.int64) - first_row
        offsets = np.append(starts, len(order)).astype(np.int64)
        slot_query_ids = uq.take(from_numpy(slot_q))
        slot_intent_ids = ui.take(from_numpy(slot_i))
        self._intents = IntentTable(
            offsets=offsets,
            slot=slot_of.astype(np.int64),
            grade=np.ascontiguousarray(grades),
            slot_query=slot_query_ids,
            slot_intent=slot_intent_ids,
            slot_weight=_weights(weights, slot_query_ids, slot_intent_ids, what),
            row_query=row_q,
            doc_rank=doc_rank,
        )

    # -- constructors ----------------------------------------------------------------
    @classmethod
    def from_arrays(  # type: ignore[override]
        cls,
        query: Any,
        intent: Any,
        doc: Any,
        relevance: Any,
        *,
        weights: Any = None,
        name: str | None = None,
    ) -> DiversityQrels:
        """Build from four equally long arrays (numpy, lists, pyarrow, Series);
        ``weights``: intent weights (see :class:`DiversityQrels`), None for uniform."""
        return cls(query, intent, doc, relevance, weights=weights, name=name)

    @classmethod
    def from_frame(  # type: ignore[override]
        cls,
        frame: Any,
        *,
        query: str = "query",
        intent: str = "intent",
        doc: str = "doc",
        relevance: str = "relevance",
        weights: Any = None,
        name: str | None = None,
    ) -> DiversityQrels:
        """Build from a pandas, polars or pyarrow table (columns named by the arguments)."""
        cols = columns_from_frame(
            frame,
            {"query": query, "intent": intent, "doc": doc, "relevance": relevance},
            "DiversityQrels.from_frame",
        )
        return cls(
            cols["query"],
            cols["intent"],
            cols["doc"],
            cols["relevance"],
            weights=weights,
            name=name,
        )

    @classmethod
    def from_dict(
        cls,
        data: Mapping[Any, Mapping[Any, Mapping[Any, Any]]],
        *,
        weights: Any = None,
        name: str | None = None,
    ) -> DiversityQrels:
        """Build from ``{query: {intent: {doc: relevance}}}``."""
        if not isinstance(data, Mapping):
            raise InputError(
                "DiversityQrels.from_dict expects a mapping {query: {intent: {doc: "
                f"relevance}}}}, got {type(data).__name__}."
            )
        qs: list[str] = []
        is_: list[str] = []
        ds: list[str] = []
        vs: list[Any] = []
        for q, intents in data.items():
            if not isinstance(intents, Mapping):
                raise InputError(
                    f"DiversityQrels.from_dict: the value for query {q!r} must be a mapping "
                    f"{{intent: {{doc: relevance}}}}, got {type(intents).__name__}."
                )
            for i, docs in intents.items():
                if not isinstance(docs, Mapping):
                    raise InputError(
                        f"DiversityQrels.from_dict: the value for query {q!r}, intent {i!r} "
                        f"must be a mapping {{doc: relevance}}, got {type(docs).__name__}."
                    )
                for d, v in docs.items():
                    qs.append(str(q))
                    is_.append(str(i))
                    ds.append(str(d))
                    vs.append(v)
        try:
            values = np.array(vs, dtype=np.float64)
            if any(isinstance(x, (str, bytes)) for x in vs):
                raise TypeError
        except (TypeError, ValueError):
            at = next(n for n, x in enumerate(vs) if isinstance(x, (str, bytes)) or not _num(x))
            raise InputError(
                f"DiversityQrels.from_dict: the relevance of (query {qs[at]!r}, intent "
                f"{is_[at]!r}, doc {ds[at]!r}) is {vs[at]!r}, which is not a number."
            ) from None
        return cls(qs, is_, ds, values, weights=weights, name=name)

    # -- accessors -------------------------------------------------------------------
    @property
    def intents(self) -> IntentTable:
        """The intent judgments (see :class:`IntentTable`)."""
        return self._intents

    @property
    def num_intents(self) -> int:
        """The number of (query, intent) pairs judged."""
        return self._intents.n_slots

    def intent_ids(self, query: str) -> list[str]:
        """The intents judged for ``query``, sorted."""
        t = self._intents
        keep = pc.equal(t.slot_query, pa.scalar(str(query), pa.large_string()))
        return [str(x) for x in t.slot_intent.filter(keep).to_pylist()]

    def to_intent_arrow(self) -> pa.Table:
        """The intent rows as a pyarrow Table (query, intent, doc, relevance)."""
        t = self._intents
        row = np.repeat(np.arange(len(self), dtype=np.int64), np.diff(t.offsets))
        return pa.table(
            {
                "query": self._query.take(from_numpy(row)),
                "intent": t.slot_intent.take(from_numpy(t.slot)),
                "doc": self._doc.take(from_numpy(row)),
                "relevance": t.grade,
            }
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, DiversityQrels)
        keys = [(c, "ascending") for c in ("query", "intent", "doc")]
        a, b = self.to_intent_arrow().sort_by(keys), other.to_intent_arrow().sort_by(keys)
        wa, wb = self._intents.slot_weight, other._intents.slot_weight
        same_w = (wa is None and wb is None) or (
            wa is not None and wb is not None and np.array_equal(wa, wb)
        )
        return bool(a.equals(b)) and same_w

    __hash__ = None  # type: ignore[assignment]

    def take_queries(self, queries: Any) -> DiversityQrels:
        """A new table with only the intent rows of the given queries (a partition)."""
        t = self.to_intent_arrow()
        keep = pc.is_in(t["query"], value_set=_text(as_id_column(queries, "queries")))
        part = t.filter(keep)
        weights = None
        if self._intents.slot_weight is not None:
            weights = {
                "query": self._intents.slot_query,
                "intent": self._intents.slot_intent,
                "weight": self._intents.slot_weight,
            }
        return type(self)(
            part["query"],
            part["intent"],
            part["doc"],
            to_numpy(part["relevance"].combine_chunks()),
            weights=None if weights is None else pa.table(weights),
            name=self.name,
        )

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return (
            f"<DiversityQrels{nm}: {len(self)} (query, doc) rows, {self.num_intents} "
            f"intents, {self.num_queries} queries>"
        )


def _num(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def _weights(
    weights: Any, slot_query: pa.Array, slot_intent: pa.Array, what: str
) -> np.ndarray | None:
    """Each (query, intent) slot's weight from ``weights``: None (uniform), a mapping
    ``{query: {intent: weight}}`` or a table with columns query, intent, weight.
    Weights are finite and >= 0; every judged intent needs one (extra ones, of intents
    without judgments, are ignored)."""
    if weights is None:
        return None
    if isinstance(weights, Mapping):
        rows = [
            (str(q), str(i), w)
            for q, intents in weights.items()
            for i, w in (intents.items() if isinstance(intents, Mapping) else [(None, intents)])
        ]
        bad = next((r for r in rows if r[1] is None), None)
        if bad is not None:
            raise InputError(
                f"{what}: weights must map each query to {{intent: weight}}; query "
                f"{bad[0]!r} maps to {bad[2]!r}."
            )
        wq = pa.array([r[0] for r in rows], type=pa.large_string())
        wi = pa.array([r[1] for r in rows], type=pa.large_string())
        wv = as_float_column([r[2] for r in rows] if rows else [], f"{what} weights")
    else:
        cols = columns_from_frame(
            weights, {"query": "query", "intent": "intent", "weight": "weight"}, f"{what} weights"
        )
        wq = _text(as_id_column(cols["query"], f"{what} weights query column"))
        wi = _text(as_id_column(cols["intent"], f"{what} weights intent column"))
        wv = as_float_column(cols["weight"], f"{what} weights weight column")
    bad_at = np.flatnonzero(~np.isfinite(wv) | (wv < 0))
    if bad_at.size:
        r = int(bad_at[0])
        raise InputError(
            f"{what}: the weight of (query {wq[r].as_py()!r}, intent {wi[r].as_py()!r}) is "
            f"{wv[r]!r}; intent weights must be finite numbers >= 0."
        )
    key = pc.binary_join_element_wise(wq, wi, pa.scalar("\x00", pa.large_string()))
    if len(pc.unique(key)) != len(key):
        raise DuplicateError(f"{what}: an intent weight is given twice for one (query, intent).")
    want = pc.binary_join_element_wise(
        slot_query, slot_intent, pa.scalar("\x00", pa.large_string())
    )
    at = to_numpy(pc.index_in(want, value_set=key), fill=-1)
    missing = np.flatnonzero(at < 0)
    if missing.size:
        r = int(missing[0])
        raise InputError(
            f"{what}: {missing.size} judged (query, intent) pair(s) have no weight, the first "
            f"(query {slot_query[r].as_py()!r}, intent {slot_intent[r].as_py()!r}). Give a "
            "weight for every judged intent, or no weights (uniform)."
        )
    return np.ascontiguousarray(wv[at], dtype=np.float64)
