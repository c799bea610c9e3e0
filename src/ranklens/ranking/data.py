"""The ranking data model: :class:`Qrels` (judgments) and :class:`Run`
(one system's scored documents).

Both are immutable columnar tables of ``(query, doc, value)`` rows: ids are
Arrow string arrays (text kept exactly: ``"007"`` is not ``"7"``), values a
float64 numpy array.  They are built from dicts, data frames or arrays, never
keep a reference to the caller's mutable data, and validate once on
construction (ids present, values numeric and finite, no duplicate pairs;
runs of 200,000 rows or more with mostly distinct text doc ids check for
duplicate pairs on first use instead, see :meth:`Run.validate`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import strings, to_numpy
from ranklens._shared.columns import (
    as_float_column,
    as_id_column,
    column_length,
    id_codes,
    scores_from_ranks,
)
from ranklens._shared.deps import needs
from ranklens._shared.duplicates import format_pairs, resolve_duplicates
from ranklens._shared.frames import columns_from_frame
from ranklens._shared.parallel import LARGE_ROWS, map_large
from ranklens._shared.sorting import PairIndex, pair_index
from ranklens.errors import DuplicateError, InputError

__all__ = ["Qrels", "Run"]

_T = TypeVar("_T", bound="_Table")


class _Table:
    """Shared machinery of :class:`Qrels` and :class:`Run`."""

    _value_name: ClassVar[str] = "value"
    _defer_pairs: ClassVar[bool] = False
    __slots__ = (
        "__weakref__",
        "_cache",
        "_d",
        "_empty",
        "_q",
        "_values",
        "dropped_duplicates",
        "name",
    )
    _empty: tuple[str, ...]  # queries named without rows (a run's empty rankings)

    def __init__(
        self,
        query: Any,
        doc: Any,
        values: Any,
        *,
        name: str | None = None,
        duplicates: str = "error",
        _own_values: bool = False,
    ) -> None:
        what = type(self).__name__

        def value_column() -> np.ndarray:
            if _own_values and callable(values):
                return np.asarray(values())  # the maker of a fresh float64 array
            if _own_values and isinstance(values, np.ndarray) and values.dtype == np.float64:
                return values  # a reader's fresh array: no copy (nobody else holds it)
            return as_float_column(values, f"{what} {self._value_name} column")

        def ids(column: Any, role: str) -> Callable[[], pa.Array]:
            return lambda: as_id_column(column, f"{what} {role} column", encode=True)

        # a large table's three columns are converted at the same time
        q, d, v = map_large(
            _call,
            [(ids(query, "query"),), (ids(doc, "doc"),), (value_column,)],
            column_length(query),
        )
        if not (len(q) == len(d) == len(v)):
            raise InputError(
                f"{what}: the query, doc and {self._value_name} columns have different "
                f"lengths ({len(q)}, {len(d)}, {len(v)}); they must be equal."
            )
        self._check_values(q, d, v)
        index: PairIndex | None = None
        dropped = 0
        if not (
            self._defer_pairs
            and duplicates == "error"
            and len(v) >= LARGE_ROWS
            and not pa.types.is_dictionary(d.type)
        ):
            q, d, v, dropped, index = resolve_duplicates(
                q, d, v, duplicates, what, self._value_name, compact=True
            )
        v.setflags(write=False)
        # ids as Arrow strings, or dictionary-encoded (integer ids, categoricals): the
        # engine works on the codes; ``_query``/``_doc`` give the text
        self._q: pa.Array = q
        self._d: pa.Array = d
        self._values: np.ndarray = v
        self.name = name
        self.dropped_duplicates = dropped
        self._cache: dict[Any, Any] = {} if index is None else {"pairs": index}

    @classmethod
    def _indexed(
        cls: type[_T],
        q: pa.Array,
        d: pa.Array,
        v: np.ndarray,
        index: PairIndex,
        name: str | None = None,
    ) -> _T:
        """A table from id columns (as :func:`as_id_column` returns them) whose pair index
        is already known (free of repeated pairs): no second sort."""
        new = object.__new__(cls)
        new._check_values(q, d, v)
        v = np.array(v, dtype=np.float64)
        v.setflags(write=False)
        new._q, new._d, new._values = q, d, v
        new.name = name
        new.dropped_duplicates = 0
        new._cache = {"pairs": index}
        return new

    # -- derived data (internal): computed once by the engine or a reader, kept here ---
    def cached(self, key: str) -> Any:
        """What was kept under ``key`` (None if nothing)."""
        return self._cache.get(key)

    def keep(self, key: str, value: Any) -> None:
        """Keep ``value`` (derived from this table's rows) under ``key``."""
        self._cache[key] = value

    def take(self, key: str) -> Any:
        """Remove and return what was kept under ``key`` (None if nothing)."""
        return self._cache.pop(key, None)

    def fingerprint(self, form: str = "canonical") -> str:
        """SHA-256 (hex) of the table's content, computed on first call and kept.

        ``form="canonical"`` (the default) hashes the rows sorted by (query id, doc
        id), so row order and id encoding do not change it; ``form="input"`` hashes
        the rows in their order (what a run evaluated with ``ties='input'`` depends
        on).  The table's name is not part of it.  See
        :mod:`ranklens._shared.fingerprints`.

        >>> import ranklens
        >>> a = ranklens.Run.from_dict({"q1": {"d1": 0.5, "d2": 0.1}})
        >>> b = ranklens.Run.from_dict({"q1": {"d2": 0.1, "d1": 0.5}})
        >>> a.fingerprint() == b.fingerprint(), a.fingerprint("input") == b.fingerprint("input")
        (True, False)
        """
        from ranklens._shared.fingerprints import FORMS, canonical_digest, input_digest
        from ranklens._shared.validate import check_choice

        check_choice("form", form, FORMS)
        key = ("fingerprint", form)
        if key not in self._cache:
            self._cache[key] = (
                canonical_digest(self._doc, self._values, self._pairs)
                if form == "canonical"
                else input_digest(self._query, self._doc, self._values)
            )
        digest = str(self._cache[key])
        if self._no_rows():  # the empty rankings are part of the content
            import hashlib

            named = "\x00".join(("empty", digest, *self._no_rows())).encode()
            digest = hashlib.sha256(named).hexdigest()
        return digest

    def _check_values(self, q: pa.Array, d: pa.Array, v: np.ndarray) -> None:
        with np.errstate(over="ignore", invalid="ignore"):
            total = v.sum()
        if np.isfinite(total):
            return  # no NaN or infinity (a sum of finite values that overflows looks below)
        bad = np.flatnonzero(~np.isfinite(v))
        if bad.size:
            raise InputError(
                f"{type(self).__name__}: {bad.size} {self._value_name}(s) are NaN or infinite, "
                f"at (query, doc) {format_pairs(q, d, bad)}. Every {self._value_name} must be "
                "a finite number."
            )

    # -- constructors -----------------------------------------------------------------
    @classmethod
    def from_dict(
        cls: type[_T],
        data: Mapping[Any, Mapping[Any, Any]],
        *,
        name: str | None = None,
    ) -> _T:
        """Build from ``{query: {doc: value}}`` (the pytrec_eval / ranx layout)."""
        if not isinstance(data, Mapping):
            raise InputError(
                f"{cls.__name__}.from_dict expects a mapping {{query: {{doc: value}}}}, "
                f"got {type(data).__name__}."
            )
        qs: list[Any] = []
        ds: list[Any] = []
        vs: list[Any] = []
        for q, docs in data.items():
            if not isinstance(docs, Mapping):
                raise InputError(
                    f"{cls.__name__}.from_dict: the value for query {q!r} must be a mapping "
                    f"{{doc: value}}, got {type(docs).__name__}."
                )
            qs.extend([q] * len(docs))
            ds.extend(docs.keys())
            vs.extend(docs.values())
        for col, label in ((qs, "query"), (ds, "doc")):
            bad = next(
                (x for x in col if not isinstance(x, (str, int)) or isinstance(x, bool)), None
            )
            if bad is not None:
                raise InputError(
                    f"{cls.__name__}.from_dict: {label} ids must be strings (or integers), got "
                    f"{bad!r} of type {type(bad).__name__}."
                )
        try:
            if any(isinstance(x, (str, bytes)) for x in vs):
                raise TypeError
            values = np.array(vs, dtype=np.float64)
        except (TypeError, ValueError):
            i = next(i for i, x in enumerate(vs) if not _is_number(x))
            raise InputError(
                f"{cls.__name__}.from_dict: the {cls._value_name} of (query {qs[i]!r}, doc "
                f"{ds[i]!r}) is {vs[i]!r}, which is not a number."
            ) from None
        qa = strings([str(x) for x in qs])
        da = strings([str(x) for x in ds])
        return cls(qa, da, values, name=name)

    # -- accessors -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._values)

    @property
    def query_ids(self) -> list[str]:
        """Distinct query ids, sorted (a run's include its :attr:`~Run.empty_queries`)."""
        return sorted(self._distinct_queries().to_pylist() + list(self._no_rows()))

    @property
    def num_queries(self) -> int:
        return len(self._distinct_queries()) + len(self._no_rows())

    def _no_rows(self) -> tuple[str, ...]:
        """The queries named without rows (a run's empty rankings)."""
        empty: tuple[str, ...] = getattr(self, "_empty", ())
        return empty

    def _distinct_queries(self) -> pa.Array:
        pairs = self._cache.get("pairs")
        return pairs.query_dict if pairs is not None else id_codes(self._q)[0]

    def to_arrow(self) -> pa.Table:
        """The rows as a pyarrow Table with columns query, doc and the value column."""
        return pa.table({"query": self._query, "doc": self._doc, self._value_name: self._values})

    def to_frame(self) -> Any:
        """The rows as a pandas DataFrame (requires pandas)."""
        with needs("pandas", "to_frame()"):
            return self.to_arrow().to_pandas()

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {doc: value}}``; values are floats."""
        out: dict[str, dict[str, float]] = {}
        if len(self) == 0:
            return {q: {} for q in self._no_rows()}
        for q, d, v in zip(
            self._query.to_pylist(), self._doc.to_pylist(), self._values.tolist(), strict=True
        ):
            out.setdefault(q, {})[d] = v
        for q in self._no_rows():
            out[q] = {}
        return out

    def __iter__(self) -> Iterator[tuple[str, str, float]]:
        return iter(
            zip(self._query.to_pylist(), self._doc.to_pylist(), self._values.tolist(), strict=True)
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Table)
        keys = [("query", "ascending"), ("doc", "ascending")]

        def canonical(t: _Table) -> pa.Table:
            # ids compare as text whatever the Arrow string type they arrived in
            return pa.table(
                {
                    "query": t._query.cast(pa.large_string()),
                    "doc": t._doc.cast(pa.large_string()),
                    "v": t._values,
                }
            ).sort_by(keys)

        return self._no_rows() == other._no_rows() and bool(
            canonical(self).equals(canonical(other))
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        nm = f" {self.name!r}" if self.name else ""
        return f"<{type(self).__name__}{nm}: {len(self)} rows, {self.num_queries} queries>"

    def take_queries(self: _T, queries: Any) -> _T:
        """A new table with only the rows of the given queries (a partition)."""
        keep = pc.is_in(self._query, value_set=as_id_column(queries, "queries"))
        new = object.__new__(type(self))
        new._q = self._q.filter(keep)
        new._d = self._d.filter(keep)
        vals = self._values[to_numpy(keep)]
        vals.setflags(write=False)
        new._values = vals
        new.name = self.name
        new.dropped_duplicates = 0
        new._cache = {"pairs": pair_index(new._q, new._d)}
        if self._no_rows():
            wanted = set(as_id_column(queries, "queries").cast(pa.large_string()).to_pylist())
            new._empty = tuple(q for q in self._no_rows() if q in wanted)
        return new

    @property
    def _pairs(self) -> PairIndex:
        if "pairs" not in self._cache:  # a large run's deferred (query, doc) check
            try:
                self._cache["pairs"] = resolve_duplicates(
                    self._q,
                    self._d,
                    self._values,
                    "error",
                    type(self).__name__,
                    self._value_name,
                    compact=True,
                )[4]
            except DuplicateError as exc:
                raise self._duplicates_found(exc) from None
        return self._cache["pairs"]

    def _duplicates_found(self, exc: DuplicateError) -> DuplicateError:
        """The error for repeated pairs found after construction, with what the table's
        maker can add (a file reader: the file and line numbers)."""
        describe = self._cache.get("describe_duplicates")
        return describe(exc) if describe is not None else exc

    def validate(self: _T) -> _T:
        """Check for repeated (query, doc) pairs now and return ``self``.

        Tables check this on construction, except runs of ``LARGE_ROWS`` (200,000)
        rows or more with text doc ids that are mostly distinct (text ids that repeat
        a lot are dictionary-encoded and checked at once, as integer ids are): they
        defer the check to their first use
        (:func:`ranklens.evaluate` merges it into the join with the qrels, saving a
        sort of every row), which then raises the same :class:`DuplicateError`.
        """
        self._pairs  # noqa: B018  (computing the pair index is the check)
        return self

    @property
    def _query(self) -> pa.Array:
        """The query ids as an Arrow string array."""
        return self._text("_q")

    @property
    def _doc(self) -> pa.Array:
        """The doc ids as an Arrow string array."""
        return self._text("_d")

    def _text(self, slot: str) -> pa.Array:
        arr = getattr(self, slot)
        if not pa.types.is_dictionary(arr.type):
            return arr
        key = ("text", slot)
        if key not in self._cache:
            self._cache[key] = arr.dictionary_decode()
        return self._cache[key]


def _call(work: Callable[[], Any]) -> Any:
    return work()


def _is_number(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return not isinstance(x, (str, bytes))


def _table_from_frame(
    cls: type[_T], frame: Any, query: str, doc: str, value: str, name: str | None, duplicates: str
) -> _T:
    """``cls`` (Qrels or Run) from the three named columns of a pandas, polars or pyarrow
    table; errors name ``<cls>.from_frame`` and the column."""
    role = cls._value_name
    cols = columns_from_frame(
        frame, {"query": query, "doc": doc, role: value}, f"{cls.__name__}.from_frame"
    )
    return cls(cols["query"], cols["doc"], cols[role], name=name, duplicates=duplicates)


class Qrels(_Table):
    """Relevance judgments: rows of ``(query, doc, relevance)``.

    Relevance is a number: an integer grade or a real-valued gain.  Grades
    below the relevance threshold (1 by default) are judged non-relevant;
    negative grades are judged non-relevant and contribute zero gain.

    Build with :meth:`from_dict`, :meth:`from_frame` or :meth:`from_arrays`.
    Duplicate (query, doc) pairs are an error unless ``duplicates`` is
    ``'max'``, ``'first'`` or ``'last'``.
    """

    _value_name = "relevance"
    __slots__ = ()

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        query: str = "query",
        doc: str = "doc",
        relevance: str = "relevance",
        name: str | None = None,
        duplicates: str = "error",
    ) -> Qrels:
        """Build from a pandas, polars or pyarrow table (columns named by the arguments)."""
        return _table_from_frame(cls, frame, query, doc, relevance, name, duplicates)

    @classmethod
    def from_arrays(
        cls,
        query: Any,
        doc: Any,
        relevance: Any,
        *,
        name: str | None = None,
        duplicates: str = "error",
    ) -> Qrels:
        """Build from three equally long arrays (numpy, lists, pyarrow, Series)."""
        return cls(query, doc, relevance, name=name, duplicates=duplicates)

    @property
    def relevance(self) -> np.ndarray:
        """Read-only float64 array of relevance values, row-aligned with the ids."""
        return self._values


class Run(_Table):
    """One system's output: rows of ``(query, doc, score)``; higher score ranks higher.

    Scores must be finite.  The order of rows does not matter under the default
    (``trec``) tie policy; under the ``input`` tie policy, rows that tie on score
    keep their order here.  ``name`` is the run tag shown in reports.

    Duplicate (query, doc) pairs are an error unless ``duplicates`` is ``'max'``,
    ``'first'`` or ``'last'``.  A run of 200,000 rows or more with mostly distinct
    text doc ids finds them on first use rather than on construction:
    :func:`ranklens.evaluate` detects them in the same sort that joins the run to the
    qrels (one sort of every row fewer); :meth:`validate` checks at once.
    """

    _value_name = "score"
    _defer_pairs = True
    __slots__ = ()

    @property
    def empty_queries(self) -> tuple[str, ...]:
        """The queries this run names without any document (sorted): ``{"q": {}}`` given
        to :meth:`from_dict`, or ``empty_queries`` given to :meth:`from_arrays`.

        They have no rows, so :meth:`to_arrow` and a TREC run file (one line per
        document) cannot hold them; :attr:`query_ids`, :meth:`to_dict`, equality and
        the fingerprint do.  An evaluation takes them as absent from the run, or as
        rankings with nothing retrieved, by the ``empty_rankings`` convention
        (:class:`~ranklens.Conventions`; pytrec_eval evaluates them).

        >>> run = Run.from_dict({"a": {"d1": 1.0}, "b": {}})
        >>> run.empty_queries, run.query_ids, run.to_dict()
        (('b',), ['a', 'b'], {'a': {'d1': 1.0}, 'b': {}})
        """
        return self._no_rows()

    def _keeping_empty(self, ids: Any) -> Run:
        """This run, also naming the queries ``ids`` that have no rows (those that have
        rows are rankings already)."""
        names = [str(q) for q in ids]
        if names:
            ranked = set(pc.unique(self._query).to_pylist()) if len(self) else set()
            self._empty = tuple(sorted(set(names) - ranked))
        return self

    @classmethod
    def from_dict(cls, data: Mapping[Any, Mapping[Any, Any]], *, name: str | None = None) -> Run:
        """Build from ``{query: {doc: score}}`` (the pytrec_eval / ranx layout); a query
        mapped to ``{}`` is kept as an empty ranking (:attr:`empty_queries`)."""
        run = super().from_dict(data, name=name)
        empty = [q for q, docs in data.items() if isinstance(docs, Mapping) and not docs]
        bad = next((q for q in empty if not isinstance(q, (str, int)) or isinstance(q, bool)), None)
        if bad is not None:
            raise InputError(
                f"Run.from_dict: query ids must be strings (or integers), got {bad!r} of "
                f"type {type(bad).__name__}."
            )
        return run._keeping_empty(empty)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        query: str = "query",
        doc: str = "doc",
        score: str = "score",
        name: str | None = None,
        duplicates: str = "error",
        rank: str | None = None,
    ) -> Run:
        """Build from a pandas, polars or pyarrow table (columns named by the arguments).

        ``rank``: the name of a column of 1-based ranks (1 = best) to use instead of
        scores, as recommenders write their top-``n`` lists; the scores are ``-rank``
        and ``score`` is not read.

        >>> import pandas as pd
        >>> recs = pd.DataFrame({"user": [1, 1, 2], "item": [7, 5, 7], "rank": [1, 2, 1]})
        >>> Run.from_frame(recs, query="user", doc="item", rank="rank").to_dict()
        {'1': {'7': -1.0, '5': -2.0}, '2': {'7': -1.0}}
        """
        if rank is None:
            return _table_from_frame(cls, frame, query, doc, score, name, duplicates)
        cols = columns_from_frame(
            frame, {"query": query, "doc": doc, "rank": rank}, "Run.from_frame"
        )
        what = f"Run.from_frame rank column {rank!r}"
        return cls(
            cols["query"],
            cols["doc"],
            lambda: scores_from_ranks(cols["rank"], what),
            name=name,
            duplicates=duplicates,
            _own_values=True,
        )

    @classmethod
    def from_arrays(
        cls,
        query: Any,
        doc: Any,
        score: Any,
        *,
        name: str | None = None,
        duplicates: str = "error",
        empty_queries: Any = None,
    ) -> Run:
        """Build from three equally long arrays (numpy, lists, pyarrow, Series).

        ``empty_queries``: ids of queries the run names without any document (empty
        rankings, see :attr:`empty_queries`); ids that have rows are rankings already.
        """
        run = cls(query, doc, score, name=name, duplicates=duplicates)
        if empty_queries is None:
            return run
        ids = as_id_column(empty_queries, "Run.from_arrays empty_queries")
        return run._keeping_empty(pc.cast(ids, pa.large_string()).to_pylist())

    @property
    def scores(self) -> np.ndarray:
        """Read-only float64 array of scores, row-aligned with the ids."""
        return self._values
