"""Per-query sums at a cutoff ``k``: None (every position), one integer, or a sorted
vector of cutoffs (one pass computes a metric at all of them).

The engine's :class:`~ranklens.ranking.engine.Prepared` sums through
:func:`sum_at`; the kernels shape their per-query values with the rest.

>>> import numpy as np
>>> seg, pos = np.array([0, 0, 0, 1]), np.array([0, 1, 2, 0])
>>> sum_at(seg, pos, np.ones(4), 2, 2)
array([2., 1.])
>>> sum_at(seg, pos, np.ones(4), 2, np.array([1, 3]))
array([[1., 3.],
       [1., 1.]])
"""

from __future__ import annotations

from typing import Any

import numpy as np


def is_vector(k: Any) -> bool:
    """Whether ``k`` is a vector of cutoffs (kernels then return queries x cutoffs)."""
    return isinstance(k, np.ndarray) and k.ndim == 1


def col(x: np.ndarray, k: Any) -> np.ndarray:
    """A per-query array shaped to broadcast against per-cutoff values."""
    return x[:, None] if is_vector(k) else x


def value_shape(n_queries: int, k: Any) -> tuple[int, ...]:
    """The shape of a kernel's result: (queries,) or (queries, cutoffs)."""
    return (n_queries, len(k)) if is_vector(k) else (n_queries,)


def cutoff_array(k: Any) -> Any:
    """``k`` as a float (scalar) or a row of floats (vector), for arithmetic."""
    return k.astype(np.float64) if is_vector(k) else float(k)


def sum_at(seg: np.ndarray, pos: np.ndarray, values: np.ndarray, n: int, k: Any) -> np.ndarray:
    """Per-query sum of ``values`` at 0-based positions ``pos < k``.

    ``k`` None: every position; an integer: one cutoff (shape (n,)); a sorted
    vector of cutoffs: shape (n, len(k)), column j summing the positions below
    ``k[j]`` (each entry is added once, at the first cutoff that includes it,
    and the columns are cumulated).
    """
    if k is None:
        return np.bincount(seg, weights=values, minlength=n)
    if not is_vector(k):
        m = pos < k
        return np.bincount(seg[m], weights=values[m], minlength=n)
    width = len(k)
    first = np.searchsorted(k, pos, side="right")  # first cutoff that counts the entry
    m = first < width
    flat = seg[m] * width + first[m]
    out = np.bincount(flat, weights=values[m], minlength=n * width).reshape(n, width)
    return np.cumsum(out, axis=1)


_EXACT_DEPTH = 1 << 16  # segments up to this long are summed position by position


def seg_cumsum(values: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of float ``values`` within segments, where ``start[i]``
    is the first row of row ``i``'s segment (segments are contiguous).

    Every segment is summed from 0.0 in its own order, so a segment's sums are the bits
    a per-segment loop gives, whatever comes before it (a global cumsum minus the sum
    before the segment would carry the rounding of all earlier segments).  Rows are
    visited one position at a time across all segments: a loop over the longest
    segment's length, vectorised over segments.  Segments longer than 65,536 rows fall
    back to the global cumsum.

    >>> seg_cumsum(np.array([0.1, 0.2, 0.3, 1e16, 1.0]), np.array([0, 0, 0, 3, 3]))
    array([1.e-01, 3.e-01, 6.e-01, 1.e+16, 1.e+16])
    """
    n = len(values)
    out = np.array(values, dtype=np.float64)
    if n == 0:
        return out
    pos = np.arange(n, dtype=np.int64) - start
    longest = int(pos.max()) + 1
    if longest > _EXACT_DEPTH:
        c = np.cumsum(out)
        return c - np.concatenate(([0.0], c))[start]
    order = np.argsort(pos.astype(np.uint16), kind="stable")  # rows by position (radix)
    bounds = np.cumsum(np.bincount(pos, minlength=longest))
    for p in range(1, longest):
        rows = order[bounds[p - 1] : bounds[p]]
        out[rows] += out[rows - 1]
    return out
