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


def sum_at(seg: np.ndarray, pos: np.ndarray, values: np.ndarray, n: int, k: Any
           ) -> np.ndarray:
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
