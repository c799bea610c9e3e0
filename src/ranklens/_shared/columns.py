"""Turning user columns (lists, numpy, pandas, polars, pyarrow) into the
canonical columnar form: ids as Arrow string arrays, values as float64.

Validation happens here, once, at the edge; nothing downstream re-checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens.errors import InputError

__all__ = [
    "NUMBER_TEXT",
    "as_float_column",
    "as_id_column",
    "decimal_text_order",
    "exact_floats",
    "id_codes",
    "sorted_id_codes",
    "text_rank",
    "to_arrow",
]


def to_arrow(values: Any, what: str, nan_is_null: bool = True) -> pa.Array:
    """One column (list, NumPy array, pandas or polars Series, Arrow array) as one
    Arrow array, without copying where the column already is Arrow.  With
    ``nan_is_null`` a pandas or list NaN is a missing value (null)."""
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.Array):
        return values
    mod = type(values).__module__.split(".")[0]
    if mod == "polars":
        return to_arrow(values.to_arrow(), what)
    if mod == "pandas":
        try:
            # numpy-backed numbers keep NaN as NaN; nullable (extension) dtypes keep <NA>
            # as a missing value
            if isinstance(values.dtype, np.dtype) and values.dtype.kind == "c":
                return to_arrow(values.to_numpy(), what)
            if (
                not nan_is_null
                and isinstance(values.dtype, np.dtype)
                and values.dtype.kind in "iufb"
            ):
                return pa.array(values.to_numpy())
            out = pa.Array.from_pandas(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise _mixed_types(values, what) or InputError(
                f"{what}: cannot read the column ({exc})."
            ) from None
        # pandas 3 string columns can be several Arrow chunks (e.g. after a concat)
        return to_arrow(out, what) if isinstance(out, pa.ChunkedArray) else out
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise InputError(f"{what}: expected a one-dimensional array, got shape {values.shape}.")
        if values.dtype.kind == "O":
            try:
                return pa.array(values, from_pandas=True)
            except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
                raise _mixed_types(values, what) or InputError(
                    f"{what}: the values are of mixed or unsupported types ({exc})."
                ) from None
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
            raise _mixed_types(values, what) or InputError(
                f"{what}: the values are of mixed or unsupported types ({exc})."
            ) from None
    raise InputError(
        f"{what}: expected a list, numpy array, pandas/polars Series or pyarrow Array, "
        f"got {type(values).__name__}."
    )


_KINDS = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "text"))


def _kind(value: Any) -> str:
    value = value.item() if isinstance(value, np.generic) else value
    for kind, name in _KINDS:
        if isinstance(value, kind):
            return name
    return f"a {type(value).__name__}"


def _mixed_types(values: Any, what: str) -> InputError | None:
    """The error of a column whose values mix types (text and integers): the first row
    of each type, and how to make it one type; None when it does not mix types.  Only
    on the error path (a pass over the values in Python)."""
    is_pandas = type(values).__module__.split(".")[0] == "pandas"
    items = values.tolist() if isinstance(values, np.ndarray) else values
    firsts: dict[str, int] = {}
    for i, v in enumerate(items.to_numpy() if is_pandas else items):
        if v is None or (isinstance(v, float) and v != v):
            continue  # missing: not a type of its own
        firsts.setdefault(_kind(v), i)
        if len(firsts) > 3:
            break
    if len(firsts) < 2:
        return None

    def row(i: int) -> str:
        label = values.index[i] if is_pandas else i
        label = label.item() if isinstance(label, np.generic) else label
        value = items.iloc[i] if is_pandas else items[i]
        value = value.item() if isinstance(value, np.generic) else value
        return f"row {label!r} is {_kind(value)} ({value!r})"

    name = getattr(values, "name", None) if is_pandas else None
    fix = f"df[{name!r}].astype(str)" if name is not None else "[str(v) for v in values]"
    shown = "; ".join(row(i) for i in sorted(firsts.values()))
    return InputError(
        f"{what}: the column mixes types ({shown}); make it one type, e.g. text ids with {fix}."
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
    ids as text, every one of which some row uses (``id_codes(..., compact=True)``).
    Hashing integers is cheap and only the distinct values are turned into text, so
    everything downstream works on integer codes.  A large text column whose ids
    repeat a lot (items of recommendation lists: a sample of its rows holds few
    distinct ids) is dictionary-encoded too: hashing few distinct strings is cheaper
    than the string sorts a plain column needs later.
    """
    arr = to_arrow(values, what)
    t = arr.type
    if pa.types.is_dictionary(t):
        if (
            encode
            and _is_text(t.value_type)
            and arr.dictionary.null_count == 0
            and pc.count_distinct(arr.dictionary).as_py() == len(arr.dictionary)
        ):
            if arr.null_count:
                raise InputError(
                    f"{what}: row {_first_null(arr.indices)} has a missing (null) id; "
                    f"{arr.null_count} row(s) in all. Drop or fill them before evaluating."
                )
            values, codes = id_codes(arr)  # unused categories dropped: every entry is used
            if len(values) == len(arr.dictionary):
                return arr
            return pa.DictionaryArray.from_arrays(from_numpy(codes), values, safe=False)
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        pass
    elif pa.types.is_string_view(t):
        arr = arr.cast(pa.large_string())
    elif pa.types.is_integer(t):
        if encode and arr.null_count == 0:
            # distinct ids in the byte order of their text, so that sorting them (tie
            # rules, sorted query ids) is a pass over sorted data
            codes, values = _by_runs(arr, _integer_id_codes)
            return pa.DictionaryArray.from_arrays(  # codes made here: no bounds check
                from_numpy(codes), from_numpy(values).cast(pa.string()), safe=False
            )
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
    if encode and _repeats_often(arr):
        codes, dictionary = _by_runs(arr, _hashed_text_codes)
        return pa.DictionaryArray.from_arrays(from_numpy(codes), dictionary, safe=False)
    return arr


_SAMPLE = 1 << 16  # rows sampled to tell how often a large text column repeats its ids


def _repeats_often(arr: pa.Array) -> bool:
    """Whether a large text column holds few distinct ids for its size: a quarter or
    more of the rows of a random sample repeat an id of the sample (some 100,000
    distinct ids or fewer, a hash table that stays in cache; then hashing the column
    beats sorting it).  The sample is drawn at random (with a fixed seed): evenly spaced
    rows can meet the arithmetic of generated ids and see repeats that are not there."""
    from ranklens._shared.parallel import LARGE_ROWS

    n = len(arr)
    if n < max(LARGE_ROWS, 4 * _SAMPLE):
        return False
    rows = np.random.default_rng(0).integers(0, n, _SAMPLE)
    distinct = pc.count_distinct(arr.take(from_numpy(rows))).as_py()
    return bool(4 * distinct < 3 * _SAMPLE)


def column_length(values: Any) -> int:
    """The number of entries of a column, 0 when it has no length (refused later)."""
    try:
        return len(values)
    except TypeError:
        return 0


def _hashed_id_codes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Integer ids as (int32 code per row, distinct ids in decimal-text order): one
    hash pass (:func:`pyarrow.compute.dictionary_encode`)."""
    enc = pc.dictionary_encode(arr)
    values = to_numpy(enc.dictionary.cast(pa.int64()))
    order = decimal_text_order(values)
    remap = np.empty(len(order), dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    return remap[to_numpy(enc.indices)], values[order]


_DENSE_SPAN = 1 << 27  # a code table of at most 512 MiB (int32)


def _dense_id_codes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray] | None:
    """What :func:`_hashed_id_codes` gives, for ids in a range little wider than their
    number (user and item ids numbered from a database, say): a presence table and a code
    table over the range instead of a hash, 2-3x faster; None for other ids."""
    if not len(arr) or arr.type == pa.uint64():
        return None
    x = to_numpy(arr)
    bounds = pc.min_max(arr)  # one pass (NumPy's min and max are two)
    lo, hi = int(bounds["min"].as_py()), int(bounds["max"].as_py())
    span = hi - lo + 1
    if span > min(4 * len(x) + (1 << 16), _DENSE_SPAN):
        return None
    offset = (x - lo) if lo else x  # within [0, span): no overflow, span is small
    present = np.zeros(span, dtype=bool)
    present[offset] = True
    values = np.flatnonzero(present).astype(np.int64) + lo
    values = values[decimal_text_order(values)]
    table = np.empty(span, dtype=np.int32)
    table[values - lo] = np.arange(len(values), dtype=np.int32)
    return table[offset], values


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


def id_codes(arr: pa.Array, compact: bool = False) -> tuple[pa.Array, np.ndarray]:
    """Distinct ids (text, in first-use order for plain strings) and each row's index
    into them: the dictionary's own codes for an encoded column (unused entries
    dropped; ``compact``: the caller knows there are none, as in what
    :func:`as_id_column` encodes), else one hash pass."""
    if pa.types.is_dictionary(arr.type):
        codes = to_numpy(arr.indices).astype(np.int32, copy=False)
        values = arr.dictionary
        if compact:
            return values, codes
        used = np.zeros(len(values), dtype=bool)
        used[codes] = True
        if not used.all():
            remap = (np.cumsum(used) - 1).astype(np.int32)
            codes = remap[codes]
            values = values.filter(from_numpy(used))
        return values, codes
    codes, values = _by_runs(arr, _hashed_text_codes)
    return values, codes


def _hashed_text_codes(arr: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Plain string ids as (int32 code per row, distinct ids in first-use order)."""
    enc = pc.dictionary_encode(arr)
    return to_numpy(enc.indices), enc.dictionary


def _integer_id_codes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Integer ids as (int32 code per row, distinct ids in decimal-text order)."""
    return _dense_id_codes(arr) or _hashed_id_codes(arr)


_RUN_LENGTH = 4  # mean length of the runs of equal ids from which their heads are coded
_RUNS_LOOK = 4096  # rows looked at first, to give up early on columns without runs


def _by_runs(
    arr: pa.Array, code: Callable[[pa.Array], tuple[np.ndarray, Any]]
) -> tuple[np.ndarray, Any]:
    """``code(arr)`` (codes per row, distinct ids), computed from the first row of each
    run of equal ids when the rows come in runs (a run's rows grouped by query, a
    recommender's lists grouped by user): the heads are coded and their codes repeated
    over the runs, the same codes and distinct ids for a fraction of the work."""
    n = len(arr)
    if n < 2 * _RUNS_LOOK:
        return code(arr)
    text = not pa.types.is_integer(arr.type)
    x = None if text else to_numpy(arr)

    def changes(a: int, b: int) -> np.ndarray:  # where row i + 1 differs from row i
        if x is not None:
            return np.asarray(x[a + 1 : b] != x[a : b - 1])
        return to_numpy(pc.not_equal(arr.slice(a + 1, b - a - 1), arr.slice(a, b - a - 1)))

    if int(np.count_nonzero(changes(0, _RUNS_LOOK))) * _RUN_LENGTH > _RUNS_LOOK:
        return code(arr)
    starts = np.flatnonzero(changes(0, n))
    if (starts.size + 1) * _RUN_LENGTH > n:
        return code(arr)
    starts += 1
    starts = np.concatenate(([0], starts))
    head_codes, values = code(arr.take(from_numpy(starts)))
    lengths = np.diff(np.append(starts, n))
    return np.repeat(head_codes, lengths), values


def text_order(values: pa.Array) -> np.ndarray:
    """Indices (int64) that sort ``values`` (distinct strings) in byte order: one
    comparison of neighbours when they are sorted already (the distinct ids of integer
    id columns are, see :func:`as_id_column`), else a sort."""
    if len(values) < 2 or pc.all(pc.less(values[:-1], values[1:])).as_py():
        return np.arange(len(values), dtype=np.int64)
    return to_numpy(pc.array_sort_indices(values)).astype(np.int64)


def text_rank(values: pa.Array) -> np.ndarray:
    """Rank of each of ``values`` (distinct strings) in byte order."""
    order = text_order(values)
    rank = np.empty(len(values), dtype=np.int32)
    rank[order] = np.arange(len(values), dtype=np.int32)
    return rank


def sorted_id_codes(values: Any, what: str) -> tuple[pa.Array, np.ndarray]:
    """The distinct ids of a column (read as :func:`as_id_column` reads them) in the
    byte order of their text, and each row's index into them: the same codes whatever
    the column's encoding (plain, categorical, integers).

    >>> ids, codes = sorted_id_codes([10, 9, 10, 2], "users")
    >>> ids.to_pylist(), codes.tolist()
    (['10', '2', '9'], [0, 2, 0, 1])
    """
    ids, codes = id_codes(as_id_column(values, what, encode=True))
    rank = text_rank(ids)
    order = np.empty_like(rank)
    order[rank] = np.arange(len(rank), dtype=rank.dtype)
    return ids.take(from_numpy(order)), rank[codes].astype(np.int64)


#: The decimal text Arrow reads as a float64 (ASCII digits, optional sign, point,
#: exponent; inf and nan), matched case-insensitively.
NUMBER_TEXT = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$|^[+-]?(?:inf|infinity|nan)$"


def as_float_column(values: Any, what: str) -> np.ndarray:
    """Return ``values`` as a new float64 numpy array (never a view of the
    caller's data).  Non-numeric values and nulls are rejected."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iufb":
        if values.ndim != 1:
            raise InputError(f"{what}: expected a one-dimensional array, got shape {values.shape}.")
        return (
            exact_floats(values, lambda row: f"{what}: row {row}")
            if values.dtype.kind in "iu"
            else np.array(values, dtype=np.float64)
        )
    arr = to_arrow(values, what, nan_is_null=False)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_null(t) and len(arr) == 0:
        return np.zeros(0, dtype=np.float64)
    if not (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_decimal(t)
    ):
        example = ""
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            ok = pc.match_substring_regex(arr, NUMBER_TEXT, ignore_case=True)
            idx = np.flatnonzero(~to_numpy(ok, fill=True))  # the first that is no number
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
    if pa.types.is_integer(t):  # one pass, no Arrow cast and copy
        return exact_floats(to_numpy(arr), lambda row: f"{what}: row {row}")
    return np.array(to_numpy(arr.cast(pa.float64())), dtype=np.float64)


def scores_from_ranks(values: Any, what: str) -> np.ndarray:
    """1-based ranks (1 = best) as scores, ``-rank`` (a new float64 array); a rank below 1
    is an error naming the row."""
    arr = None if isinstance(values, np.ndarray) else to_arrow(values, what, nan_is_null=False)
    ints = (
        values
        if arr is None
        else (to_numpy(arr) if pa.types.is_integer(arr.type) and arr.null_count == 0 else None)
    )
    if ints is not None and ints.dtype.kind in "iu" and ints.ndim == 1 and ints.size:
        # integer ranks: bounds in one pass, then negated into floats in one more
        bounds = pc.min_max(from_numpy(ints))
        low, high = int(bounds["min"].as_py()), int(bounds["max"].as_py())
        if low >= 1 and high <= _EXACT:
            return np.negative(ints, dtype=np.float64)
    ranks = as_float_column(values if arr is None else arr, what)
    if ranks.size and float(ranks.min()) < 1:
        bad = int(np.flatnonzero(ranks < 1)[0])
        raise InputError(f"{what}: rank in row {bad} is {ranks[bad]:g}; ranks start at 1.")
    return np.negative(ranks, out=ranks)


_EXACT = 2**53  # integers beyond +-2**53 have no exact float64


def exact_floats(ints: np.ndarray, where: Callable[[int], str]) -> np.ndarray:
    """Integers as a new float64 array; an integer a float64 cannot hold exactly (beyond
    +-2**53) is an error naming ``where(row)``, not a silent change (rounding could tie
    two scores that differ)."""
    bounds = pc.min_max(from_numpy(ints)) if ints.dtype.itemsize == 8 and ints.size else None
    if bounds is not None and (
        int(bounds["max"].as_py()) > _EXACT or int(bounds["min"].as_py()) < -_EXACT
    ):
        big = (ints > _EXACT) if ints.dtype.kind == "u" else (ints > _EXACT) | (ints < -_EXACT)
        if big.any():
            row = int(np.flatnonzero(big)[0])
            raise InputError(
                f"{where(row)} is {int(ints[row])}, an integer beyond +-2**53 that a float64 "
                f"cannot hold exactly ({int(big.sum())} row(s) in all); scale the values or "
                "give them as floats."
            )
    return np.array(ints, dtype=np.float64)
