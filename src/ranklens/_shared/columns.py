"""Turning user columns (lists, numpy, pandas, polars, pyarrow) into the
canonical columnar form: ids as Arrow string arrays, values as float64.

Validation happens here, once, at the edge; nothing downstream re-checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.parallel import map_pieces, parts_for, split_points
from ranklens.errors import DuplicateError, InputError

__all__ = [
    "as_float_column",
    "as_id_column",
    "columns_from_frame",
    "duplicate_error",
    "format_pairs",
    "pair_index",
    "resolve_duplicates",
]

_MAX_LISTED = 5


def _to_arrow(values: Any, what: str, nan_is_null: bool = True) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.Array):
        return values
    mod = type(values).__module__.split(".")[0]
    if mod == "polars":
        return _to_arrow(values.to_arrow(), what)
    if mod == "pandas":
        try:
            # numpy-backed numbers keep NaN as NaN; nullable (extension) dtypes keep <NA>
            # as a missing value
            if isinstance(values.dtype, np.dtype) and values.dtype.kind == "c":
                return _to_arrow(values.to_numpy(), what)
            if not nan_is_null and isinstance(values.dtype, np.dtype) and \
                    values.dtype.kind in "iufb":
                return pa.array(values.to_numpy())
            out = pa.Array.from_pandas(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise InputError(f"{what}: cannot read the column ({exc}).") from exc
        # pandas 3 string columns can be several Arrow chunks (e.g. after a concat)
        return _to_arrow(out, what) if isinstance(out, pa.ChunkedArray) else out
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InputError(f"{what}: expected a one-dimensional array, got shape {values.shape}.")
        if values.dtype.kind == "O":
            try:
                return pa.array(values, from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise InputError(
                    f"{what}: the values are of mixed or unsupported types ({exc})."
                ) from exc
        if values.dtype.kind == "c":
            raise InputError(
                f"{what}: the values are complex numbers; pass real numbers (e.g. the real "
                "part, values.real, if that is what is meant)."
            )
        try:
            return from_numpy(values)
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputError(
                f"{what}: values of type {values.dtype} are not supported ({exc}); pass "
                "numbers or text ids."
            ) from exc
    if isinstance(values, Sequence) and not isinstance(values, (str, bytes)):
        try:
            return pa.array(list(values), from_pandas=nan_is_null)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputError(f"{what}: the values are of mixed or unsupported types ({exc}).") from exc
    raise InputError(
        f"{what}: expected a list, numpy array, pandas/polars Series or pyarrow Array, "
        f"got {type(values).__name__}."
    )


def _first_null(arr: pa.Array) -> int:
    mask = to_numpy(pc.is_null(arr))
    return int(np.flatnonzero(mask)[0])


def as_id_column(values: Any, what: str, *, encode: bool = False) -> pa.Array:
    """Return ``values`` as an Arrow string array, exactly preserving the text.

    Strings stay as they are ("007" stays "007"); integer ids become their
    decimal text.  Floating point, boolean or other types are rejected, since
    their text form is ambiguous (is 7.0 the id "7" or "7.0"?).

    With ``encode=True`` integer ids and dictionary-encoded ids (pandas or polars
    categoricals) come back dictionary-encoded instead: int32 codes into the distinct
    ids as text.  Hashing integers is cheap and only the distinct values are turned
    into text, so everything downstream works on integer codes.
    """
    arr = _to_arrow(values, what)
    t = arr.type
    if pa.types.is_dictionary(t):
        if encode and _is_text(t.value_type) and arr.dictionary.null_count == 0 and \
                pc.count_distinct(arr.dictionary).as_py() == len(arr.dictionary):
            if arr.null_count:
                raise InputError(
                    f"{what}: row {_first_null(arr.indices)} has a missing (null) id; "
                    f"{arr.null_count} row(s) in all. Drop or fill them before evaluating.")
            return arr
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        pass
    elif pa.types.is_string_view(t):
        arr = arr.cast(pa.large_string())
    elif pa.types.is_integer(t):
        if encode and arr.null_count == 0:
            enc = pc.dictionary_encode(arr)
            values = to_numpy(enc.dictionary.cast(pa.int64()))
            # distinct ids in the byte order of their text, so that sorting them (tie
            # rules, sorted query ids) is a pass over sorted data
            order = decimal_text_order(values)
            remap = np.empty(len(order), dtype=np.int32)
            remap[order] = np.arange(len(order), dtype=np.int32)
            codes = remap[to_numpy(enc.indices)]
            return pa.DictionaryArray.from_arrays(from_numpy(codes),
                                                  from_numpy(values[order]).cast(pa.string()))
        arr = arr.cast(pa.string())
    elif pa.types.is_null(t) and len(arr) == 0:
        arr = pa.array([], type=pa.string())
    elif pa.types.is_null(t):
        raise InputError(f"{what}: every id is missing (null); ids must be strings or integers.")
    else:
        raise InputError(
            f"{what}: ids must be strings or integers, got values of type {t}. "
            "Convert the column to strings first if that is what you mean."
        )
    if arr.null_count:
        raise InputError(
            f"{what}: row {_first_null(arr)} has a missing (null) id; "
            f"{arr.null_count} row(s) in all. Drop or fill them before evaluating."
        )
    return arr


def decimal_text_order(values: np.ndarray) -> np.ndarray:
    """Indices that sort int64 ``values`` as their decimal text sorts in byte order
    ("-1" < "-10" < "-2" < "0" < "1" < "10" < "9"), without making the text: by sign
    ("-" sorts before digits), then the digits left-aligned, then the digit count."""
    v = values.astype(np.int64)
    neg = v < 0
    mag = np.abs(v).astype(np.uint64)
    mag[v == np.iinfo(np.int64).min] = np.uint64(2**63)
    digits = np.searchsorted(_POWERS_OF_TEN[1:], mag, side="right") + 1
    aligned = mag * _POWERS_OF_TEN[19 - digits]  # at most 19 digits: fits in 64 bits
    if not neg.any():
        return np.lexsort((digits, aligned))
    return np.lexsort((digits, aligned, ~neg))


_POWERS_OF_TEN = np.array([10**k for k in range(20)], dtype=np.uint64)


def _is_text(t: pa.DataType) -> bool:
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t))


def id_codes(arr: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Distinct ids (text, in first-use order for plain strings) and each row's index
    into them: the dictionary's own codes for an encoded column (unused entries
    dropped), else one hash pass."""
    if pa.types.is_dictionary(arr.type):
        codes = to_numpy(arr.indices).astype(np.int32, copy=False)
        values = arr.dictionary
        used = np.zeros(len(values), dtype=bool)
        used[codes] = True
        if not used.all():
            remap = (np.cumsum(used) - 1).astype(np.int32)
            codes = remap[codes]
            values = values.filter(from_numpy(used))
        return values, codes
    enc = pc.dictionary_encode(arr)
    return enc.dictionary, to_numpy(enc.indices)


def text_rank(values: pa.Array) -> np.ndarray:
    """Rank of each of ``values`` (distinct strings) in byte order."""
    order = to_numpy(pc.array_sort_indices(values))
    rank = np.empty(len(values), dtype=np.int32)
    rank[order] = np.arange(len(values), dtype=np.int32)
    return rank


def as_float_column(values: Any, what: str) -> np.ndarray:
    """Return ``values`` as a new float64 numpy array (never a view of the
    caller's data).  Non-numeric values and nulls are rejected."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufb":
        if values.ndim != 1:
            raise InputError(f"{what}: expected a one-dimensional array, got shape {values.shape}.")
        return np.array(values, dtype=np.float64)
    arr = _to_arrow(values, what, nan_is_null=False)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_null(t) and len(arr) == 0:
        return np.zeros(0, dtype=np.float64)
    if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
            or pa.types.is_decimal(t)):
        example = ""
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            bad = pc.utf8_is_numeric(arr)
            idx = np.flatnonzero(~to_numpy(bad, fill=False))
            if idx.size:
                example = f" (row {int(idx[0])}: {arr[int(idx[0])].as_py()!r})"
        raise InputError(
            f"{what}: values must be numeric, got type {t}{example}. "
            "Convert the column to numbers first."
        )
    if arr.null_count:
        raise InputError(
            f"{what}: row {_first_null(arr)} has a missing (null) value; "
            f"{arr.null_count} row(s) in all. Drop or fill them before evaluating."
        )
    out = np.array(to_numpy(arr.cast(pa.float64())), dtype=np.float64)
    return out


def columns_from_frame(frame: Any, names: dict[str, str], what: str) -> dict[str, pa.Array]:
    """Pull the named columns out of a pandas, polars or pyarrow table."""
    mod = type(frame).__module__.split(".")[0]
    if isinstance(frame, pa.Table):
        available = list(frame.column_names)
        get = frame.column
    elif mod == "polars":
        if type(frame).__name__ == "LazyFrame":
            frame = frame.collect()
        available = list(frame.columns)
        get = frame.get_column
    elif mod == "pandas":
        available = [str(c) for c in frame.columns]
        get = frame.__getitem__
    elif isinstance(frame, dict):
        available = [str(c) for c in frame]
        get = frame.__getitem__
    else:
        raise InputError(
            f"{what}: expected a pandas, polars or pyarrow table, got {type(frame).__name__}."
        )
    out: dict[str, Any] = {}
    for role, col in names.items():
        if col not in available:
            raise InputError(
                f"{what}: no column named {col!r} for the {role}; the table has columns "
                f"{available}. Pass {role}=<column name>."
            )
        if available.count(col) > 1:
            raise InputError(
                f"{what}: the table has {available.count(col)} columns named {col!r} (for the "
                f"{role}); rename them so that each name is used once."
            )
        out[role] = get(col)
    return out


def format_pairs(query: pa.Array, doc: pa.Array, rows: np.ndarray) -> str:
    shown = ", ".join(
        f"({query[int(i)].as_py()!r}, {doc[int(i)].as_py()!r})" for i in rows[:_MAX_LISTED]
    )
    more = f" and {rows.size - _MAX_LISTED} more" if rows.size > _MAX_LISTED else ""
    return shown + more


@dataclass(frozen=True, eq=False)
class PairIndex:
    """Row structure of a (query, doc, value) table, computed once.

    ``query_dict`` holds the distinct query ids and ``query_code`` each row's
    index into it; ``doc_rank`` is each row's position when rows are sorted by
    (query code, doc id ascending in byte order), so within a query it orders
    documents by id.  ``dup_rows`` are the rows repeating an earlier (query,
    doc) pair in that order.
    """

    query_dict: pa.Array
    query_code: np.ndarray
    doc_rank: np.ndarray
    dup_rows: np.ndarray


def group_order(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Stable argsort of integer codes in ``[0, n_codes)``: NumPy's radix sort on one or
    two 16-bit digits (three times faster than a comparison sort of int32 codes)."""
    if n_codes <= 1 << 16:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    if n_codes > 1 << 32:
        return np.argsort(codes, kind="stable")
    low = np.argsort((codes & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((codes[low] >> 16).astype(np.uint16), kind="stable")]


def contiguous_groups(codes: np.ndarray, n_codes: int) -> np.ndarray | None:
    """Each row's group number (0, 0, 1, 1, 1, 2, ...) when the rows of every code in
    ``[0, n_codes)`` (all used) are contiguous, whatever the codes' order; else None."""
    n = len(codes)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    bound = codes[1:] != codes[:-1]
    if int(np.count_nonzero(bound)) + 1 != n_codes:
        return None
    groups = np.zeros(n, dtype=np.int32)
    np.cumsum(bound, out=groups[1:])
    return groups


def lex_order(major: np.ndarray, n_major: int, minor: np.ndarray, n_minor: int) -> np.ndarray:
    """Stable argsort by (major, minor) of integer codes (in ``[0, n_major)``,
    ``[0, n_minor)``): radix sorts, least significant key first."""
    by_minor = group_order(minor, n_minor)
    return by_minor[group_order(major[by_minor], n_major)]


def _sorted_block(qcode: np.ndarray, doc: pa.Array, small: np.dtype[Any]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Sort one block of rows (whole queries) by (query code, doc) and flag each sorted
    row that repeats its predecessor's pair; the doc ids are compared a slice at a time
    (a sorted copy of a large doc column would be the peak of its memory)."""
    n = len(qcode)
    order = to_numpy(pc.sort_indices(pa.table({"q": from_numpy(qcode), "d": doc}),
                                     sort_keys=[("q", "ascending"), ("d", "ascending")])
                     ).astype(small)
    same = np.zeros(max(n - 1, 0), dtype=bool)
    if n > 1:
        sq = qcode[order]
        same_q = sq[1:] == sq[:-1]
        del sq
        if same_q.any():
            step = 1 << 20
            for start in range(0, n - 1, step):
                stop = min(start + step, n - 1)
                block = doc.take(from_numpy(order[start:stop + 1]))
                same[start:stop] = to_numpy(pc.equal(block[1:], block[:-1]))
            same &= same_q
    return order, same


def pair_index(query: pa.Array, doc: pa.Array) -> PairIndex:
    """Code the queries and sort rows by (query, doc id in byte order).

    Dictionary-encoded doc ids sort as integers (the rank of each distinct id's
    text).  Plain string ids: Arrow's (query code, doc) sort is fast only when the
    rows are grouped by query, so ungrouped rows are grouped first (a radix sort of
    the codes); large inputs are then cut at a query boundary and the two halves
    sorted on both cores."""
    query_dict, qcode = id_codes(query)
    n = len(query)
    small = np.dtype(np.int32 if n < 2**31 - 1 else np.int64)
    if pa.types.is_dictionary(doc.type):
        n_docs = max(len(doc.dictionary), 1)
        drank = text_rank(doc.dictionary)[to_numpy(doc.indices)]
        groups = contiguous_groups(qcode, len(query_dict))
        if groups is not None:  # rows grouped by query: a merge sort of ascending runs
            key = groups.astype(np.int64) * n_docs + drank
            order = np.argsort(key, kind="stable").astype(small)
        else:  # two radix sorts (doc, then query) beat a comparison sort of random keys
            key = qcode.astype(np.int64) * n_docs + drank
            order = lex_order(qcode, len(query_dict), drank, n_docs).astype(small)
        sk = key[order]
        same = sk[1:] == sk[:-1]
        del sk, key, drank
    else:
        order, same = _string_pair_order(qcode, doc, len(query_dict), small)
    rank = in_code_order(order, qcode, len(query_dict))
    dups = np.sort(order[1:][same]).astype(np.int64) if same.any() else np.zeros(0, np.int64)
    return PairIndex(query_dict, qcode, rank, dups)


def in_code_order(order: np.ndarray, qcode: np.ndarray, n_codes: int) -> np.ndarray:
    """Each row's position in (query code, doc) order, from ``order``: the rows sorted by
    doc within each query, with the queries' blocks in any order."""
    n = len(order)
    rank = np.empty(n, dtype=order.dtype)
    rank[order] = np.arange(n, dtype=order.dtype)
    if n == 0 or bool(np.all(qcode[1:] >= qcode[:-1])):
        return rank  # rows grouped in code order: so are the blocks
    blocks = qcode[order]
    heads = np.flatnonzero(np.r_[True, blocks[1:] != blocks[:-1]])
    start_now = np.zeros(n_codes, dtype=np.int64)
    start_now[blocks[heads]] = heads
    start_sorted = np.zeros(n_codes, dtype=np.int64)
    np.cumsum(np.bincount(qcode, minlength=n_codes)[:-1], out=start_sorted[1:])
    if not np.array_equal(start_now, start_sorted):
        rank += (start_sorted - start_now).astype(order.dtype)[qcode]
    return rank


def _string_pair_order(qcode: np.ndarray, doc: pa.Array, n_codes: int, small: np.dtype[Any]
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Rows in (query code, doc) order and, per sorted row, whether it repeats the
    previous row's pair."""
    n = len(qcode)
    # sort by group number when the rows come grouped by query (in any order), else group
    # them first
    perm: np.ndarray | None = None
    groups = contiguous_groups(qcode, n_codes)
    if groups is not None:
        qcode = groups
    else:
        perm = group_order(qcode, n_codes).astype(small)
        qcode = qcode[perm]
        doc = doc.take(from_numpy(perm))
    ranges = list(pairwise(split_points(qcode, parts_for(n))))
    blocks = map_pieces(ranges, lambda a, b: _sorted_block(qcode[a:b], doc.slice(a, b - a), small))
    order: np.ndarray = np.empty(n, dtype=small)
    same = np.zeros(max(n - 1, 0), dtype=bool)
    for (a, b), (o, s) in zip(ranges, blocks, strict=True):
        order[a:b] = o
        order[a:b] += a
        same[a:max(b - 1, a)] = s
    del blocks
    if perm is not None:
        order = perm[order]
    return order, same


def duplicate_error(query: pa.Array, doc: pa.Array, order: np.ndarray, repeat: np.ndarray,
                    what: str, value_name: str) -> DuplicateError:
    """The error for repeated (query, doc) pairs: ``order`` lists rows in (query, doc)
    order and ``repeat`` flags, in that order, the rows that repeat their predecessor's
    pair; one example row is named per repeated pair (its first repeat)."""
    first_repeat = repeat & ~np.r_[False, repeat[:-1]]
    examples = np.sort(order[first_repeat])
    return DuplicateError(
        f"{what}: {examples.size} (query, doc) pair(s) occur more than once "
        f"({int(repeat.sum())} extra row(s)), e.g. {format_pairs(query, doc, examples)}. "
        f"Remove them, or keep one {value_name} per pair: pass duplicates='max' (the "
        "highest), duplicates='first' or duplicates='last'."
    )


def resolve_duplicates(
    query: pa.Array,
    doc: pa.Array,
    values: np.ndarray,
    policy: str,
    what: str,
    value_name: str,
) -> tuple[pa.Array, pa.Array, np.ndarray, int, PairIndex]:
    """Apply the duplicate policy; return the columns, how many rows were dropped
    and the pair index of the rows kept."""
    if policy not in ("error", "max", "first", "last"):
        raise InputError(
            f"{what}: duplicates={policy!r} is not a known policy; use 'error', 'max', 'first' "
            "or 'last'."
        )
    index = pair_index(query, doc)
    dups = index.dup_rows
    if dups.size == 0:
        return query, doc, values, 0, index
    if policy == "error":
        order = np.argsort(index.doc_rank)
        is_dup = np.zeros(len(query), dtype=bool)
        is_dup[dups] = True
        raise duplicate_error(query, doc, order, is_dup[order], what, value_name)
    n = len(query)
    # rows of one (query, doc) pair are adjacent in doc_rank order; pick one per pair
    order = np.argsort(index.doc_rank)
    pair_start = np.ones(n, dtype=bool)
    dup_mask = np.zeros(n, dtype=bool)
    dup_mask[dups] = True
    pair_start[1:] = ~dup_mask[order[1:]]
    pair_id = np.cumsum(pair_start) - 1
    rows = order
    if policy == "max":
        pick = np.lexsort((rows, -values[rows], pair_id))
    elif policy == "first":
        pick = np.lexsort((rows, pair_id))
    else:
        pick = np.lexsort((-rows, pair_id))
    chosen = rows[pick]
    first_of_pair = np.ones(n, dtype=bool)
    first_of_pair[1:] = pair_id[pick][1:] != pair_id[pick][:-1]
    keep = np.sort(chosen[first_of_pair])
    idx = from_numpy(keep)
    q2, d2 = query.take(idx), doc.take(idx)
    return q2, d2, values[keep], int(n - keep.size), pair_index(q2, d2)
