"""Ids: Arrow hashing, integer codes.

Ids never become Python or NumPy strings on a hot path: every id column is turned into
(distinct ids as an Arrow string array, int32 code per entry), ids are matched between
tables by hashing the distinct ids (``pc.index_in``), and everything per row works on
the integer codes.  Only the few ids an error message names become Python strings.
"""

from __future__ import annotations

from collections.abc import KeysView, ValuesView
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens._shared.columns import as_id_column, id_codes, text_order
from ranklens._shared.parallel import map_large
from ranklens.errors import InputError

__all__ = ["distinct_ids", "distinct_keys", "examples", "index_in", "sorted_order", "training_log"]


def _id_array(values: Any, what: str) -> pa.Array:
    """An id column (list, numpy, pandas, polars, Arrow; strings or integers) as an Arrow
    string array or a dictionary array of int32 codes into the distinct ids as text."""
    if isinstance(values, (set, frozenset, KeysView, ValuesView)):
        values = list(values)
    try:
        return as_id_column(values, what, encode=True)
    except InputError:
        # Python strings and integers mixed in one list (e.g. the keys of a mapping):
        # compare them as text
        if isinstance(values, (list, tuple)) or (
            isinstance(values, np.ndarray) and values.dtype == object
        ):
            seq = list(values)
            if all(
                isinstance(x, (str, int, np.integer)) and not isinstance(x, (bool, np.bool_))
                for x in seq
            ):
                return as_id_column([str(x) for x in seq], what)
        raise


def distinct_ids(values: Any, what: str) -> tuple[pa.Array, np.ndarray]:
    """Distinct ids (text, any order) and each entry's int32 code into them."""
    arr = _id_array(values, what)
    if isinstance(arr, pa.ChunkedArray):  # very large text columns come back chunked
        arr = arr.combine_chunks()
    return id_codes(arr, compact=True)  # as_id_column encodes without unused entries


def index_in(values: pa.Array, value_set: pa.Array) -> np.ndarray:
    """Position of each of ``values`` in ``value_set`` (distinct ids), -1 where absent;
    a dictionary array is looked up through its distinct ids."""
    if pa.types.is_dictionary(values.type):
        return index_in(values.dictionary, value_set)[to_numpy(values.indices)]
    if len(values) == 0:
        return np.zeros(0, dtype=np.int32)
    if len(value_set) == 0:
        return np.full(len(values), -1, dtype=np.int32)
    if values.type != value_set.type:
        values, value_set = values.cast(pa.large_string()), value_set.cast(pa.large_string())
    return to_numpy(pc.index_in(values, value_set=value_set), fill=-1)


def examples(ids: pa.Array, n: int = 3) -> list[Any]:
    """The first ``n`` of ``ids`` (distinct) in sorted order, as Python strings."""
    first = pc.array_sort_indices(ids).slice(0, n)
    return list(ids.take(first).to_pylist())


def sorted_order(ids: pa.Array) -> np.ndarray:
    """Indices that sort ``ids`` (distinct strings) in byte order."""
    return text_order(ids)


def training_log(
    train_users: Any, train_items: Any, what: str, label: str
) -> tuple[pa.Array, np.ndarray, pa.Array, np.ndarray]:
    """The user and item columns of training interactions, checked, as (distinct users,
    user code per row, distinct items, item code per row)."""
    of = f" of {label}" if label else ""
    if len(train_users) != len(train_items):
        raise InputError(
            f"{what}: the train_users and train_items{of} must be equally long (one entry "
            f"per training interaction); got {len(train_users)} and {len(train_items)}."
        )
    if len(train_users) == 0:
        raise InputError(
            f"{what}: the training interactions{f' ({label})' if label else ''} are empty."
        )
    prefix = f"{what} {label} " if label else f"{what} "
    (users, ucode), (items, icode) = map_large(
        distinct_ids,
        [(train_users, f"{prefix}train_users"), (train_items, f"{prefix}train_items")],
        len(train_users),
    )
    return users, ucode, items, icode


def distinct_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of the integer ``keys``, sorted, and how often each occurs
    (sorting beats hashing for combined codes such as ``user * n_items + item``)."""
    keys = np.sort(keys)
    if keys.size == 0:
        return keys, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[starts], np.diff(np.r_[starts, keys.size])
