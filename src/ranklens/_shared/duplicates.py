"""Repeated (query, doc) pairs: the error that names them, and the policies that keep
one row per pair (``duplicates='max' | 'first' | 'last'``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy
from ranklens._shared.sorting import PairIndex, pair_index
from ranklens.errors import DuplicateError, InputError

__all__ = ["DUPLICATE_POLICIES", "duplicate_error", "format_pairs", "resolve_duplicates"]

#: What to do with a (query, doc) pair given twice: refuse it, or keep the highest value,
#: the first or the last row (the ``duplicates=`` of every reader and table).
DUPLICATE_POLICIES: tuple[str, ...] = ("error", "max", "first", "last")

_MAX_LISTED = 5


def format_pairs(query: pa.Array, doc: pa.Array, rows: np.ndarray) -> str:
    shown = ", ".join(
        f"({query[int(i)].as_py()!r}, {doc[int(i)].as_py()!r})" for i in rows[:_MAX_LISTED]
    )
    more = f" and {rows.size - _MAX_LISTED} more" if rows.size > _MAX_LISTED else ""
    return shown + more


def duplicate_error(
    query: pa.Array,
    doc: pa.Array,
    order: np.ndarray,
    repeat: np.ndarray,
    what: str,
    value_name: str,
) -> DuplicateError:
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
    compact: bool = False,
) -> tuple[pa.Array, pa.Array, np.ndarray, int, PairIndex]:
    """Apply the duplicate policy; return the columns, how many rows were dropped
    and the pair index of the rows kept (``compact``: as for :func:`pair_index`)."""
    if policy not in DUPLICATE_POLICIES:
        raise InputError(
            f"{what}: duplicates={policy!r} is not a known policy; use "
            f"{', '.join(map(repr, DUPLICATE_POLICIES[:-1]))} or {DUPLICATE_POLICIES[-1]!r}."
        )
    index = pair_index(query, doc, compact)
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
