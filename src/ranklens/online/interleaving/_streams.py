"""Seeded random numbers per impression, independent of the order of the queries.

Impression ``j`` (0-based) of query ``q`` under ``seed`` and a purpose ``salt``
(``"interleave"``, ``"clicks"``) has the stream key::

    key(q, j) = fmix64(H(salt:seed, q) + (j + 1) * 0x9E3779B97F4A7C15)

where ``H`` is :func:`ranklens.online.hash_units` (FNV-1a 64 + ``fmix64`` of
``"{salt}:{seed}:" + q`` in UTF-8) and ``fmix64`` MurmurHash3's 64-bit finaliser.  Its
``t``-th uniform (``t = 0, 1, ...``) is the top 53 bits of
``fmix64(key + (t + 1) * 0xD1B54A32D192ED03)`` divided by ``2**53``: a counter-based
generator (as SplitMix64), so every number is a pure function of (salt, seed, query
id, impression, t).  The same seed gives the same lists and clicks whatever the order
or the number of the other queries, on every machine.

>>> import pyarrow as pa
>>> keys = stream_keys(pa.array(["q1", "q2"]), 1, seed=7, salt="interleave")
>>> u = uniforms(keys, 3)
>>> u.shape, bool(((u >= 0) & (u < 1)).all())
((2, 3), True)
>>> bool((uniforms(stream_keys(pa.array(["q2"]), 1, seed=7, salt="interleave"), 3) == u[1]).all())
True
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ranklens._shared.hashing import _mix
from ranklens.online._hashing import hash_units

__all__ = ["stream_keys", "uniforms"]

_IMPRESSION_STEP = np.uint64(0x9E3779B97F4A7C15)
_DRAW_STEP = np.uint64(0xD1B54A32D192ED03)
_TOP53 = np.uint64(11)


def stream_keys(queries: pa.Array, impressions: int, *, seed: int, salt: str) -> np.ndarray:
    """The stream key of each (query, impression), query-major: row ``i * impressions
    + j`` is impression ``j`` of ``queries[i]`` (uint64)."""
    h = hash_units(queries, f"{salt}:{seed}") if len(queries) else np.zeros(0, np.uint64)
    steps = (np.arange(1, impressions + 1, dtype=np.uint64) * _IMPRESSION_STEP)[None, :]
    with np.errstate(over="ignore"):
        keys = (h[:, None] + steps).reshape(-1)
    return _mix(keys)


def uniforms(keys: np.ndarray, count: int, start: int = 0) -> np.ndarray:
    """Uniforms ``t = start .. start + count - 1`` of each stream: (len(keys), count)
    floats in [0, 1)."""
    t = np.arange(start + 1, start + count + 1, dtype=np.uint64) * _DRAW_STEP
    with np.errstate(over="ignore"):
        x = keys[:, None] + t[None, :]
    x = _mix(x)
    x >>= _TOP53
    return x.astype(np.float64) * (1.0 / 2**53)
