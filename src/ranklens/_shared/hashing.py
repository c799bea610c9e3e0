"""64-bit hashes of text ids and of (code, id) pairs, computed in NumPy from Arrow's
buffers (a few passes over the bytes, no Python per row).

A hash only proposes: a join or a check for repeated pairs compares hashes first and
then the ids wherever two hashes are equal, so a collision never changes a result (it
costs one more comparison).  An id of at most 8 bytes is its own hash (its bytes as a
word, with its length mixed in): two such ids of one length are equal exactly when their
hashes are, so only longer ids are compared as text.  The hash of an id depends on its
bytes only (not on the other ids of its column, nor on the column's string type), so the
hashes of two tables can be compared.

>>> import pyarrow as pa
>>> ids = ["d1", "d10", "d1", "", "a much longer document id"]
>>> h, length = text_hashes(pa.array(ids))
>>> bool(h[0] == h[2]), bool(h[0] == h[1]), bool(h[3] == h[0]), h.dtype.name, length.tolist()
(True, False, False, 'uint64', [2, 3, 2, 0, 25])
>>> bool((h == text_hashes(pa.array(ids, type=pa.large_string()))[0]).all())
True
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import to_numpy

__all__ = ["WORD", "pair_hashes", "text_hashes"]

_C1 = np.uint64(0xFF51AFD7ED558CCD)
_C2 = np.uint64(0xC4CEB9FE1A85EC53)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S33 = np.uint64(33)
WORD = 8  # bytes of an id read at a time: an id this long or shorter is its own hash
# _MASKS[k] keeps the first k bytes of a little-endian word
_MASKS = np.array([(1 << 8 * k) - 1 for k in range(WORD + 1)], dtype=np.uint64)
# _LENGTHS[k]: length k mixed into the hash of an id of k bytes (WORD: of a longer one)
_LENGTHS = np.array([k * 0x9E3779B97F4A7C15 % 2**64 for k in range(WORD + 1)], dtype=np.uint64)


def _mix(x: np.ndarray) -> np.ndarray:
    """MurmurHash3's 64-bit finaliser, in place: a bijection of uint64 that spreads
    every input bit over the output."""
    shifted = np.empty_like(x)
    for factor in (_C1, _C2, None):
        np.right_shift(x, _S33, out=shifted)
        x ^= shifted
        if factor is not None:
            x *= factor
    return x


def _words(raw: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The 8 bytes of ``raw`` from each position ``at`` (ascending, as the offsets of an
    Arrow string array are) as little-endian uint64, zero bytes past its end: one
    gather through an unaligned view of the buffer."""
    n = len(raw)
    base = max(n - 8, 0)  # the last position with 8 bytes to read
    inside = int(np.searchsorted(at, base, side="right")) if n >= 8 else 0
    if inside:
        window = np.ndarray(shape=(n - 7,), dtype="<u8", buffer=raw, strides=(1,))
        out = window[at if inside == len(at) else at[:inside]]
        if inside < len(at):
            out = np.concatenate([out, np.empty(len(at) - inside, dtype=np.uint64)])
    else:
        out = np.empty(len(at), dtype=np.uint64)
    if inside < len(at):  # the last words, read from a zero-padded copy of the tail
        tail = np.zeros(24, dtype=np.uint8)
        tail[: n - base] = raw[base:]
        window = np.ndarray(shape=(17,), dtype="<u8", buffer=tail, strides=(1,))
        out[inside:] = window[np.minimum(at[inside:] - base, 16)]
    return out


def text_hashes(ids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A 64-bit hash (uint64) and the length in bytes (int64) of each id of an Arrow
    string, large string or dictionary-encoded string array without nulls: equal ids
    have equal hashes; ids of at most :data:`WORD` bytes and equal length are equal
    exactly when their hashes are.  The hashes of such ids are not mixed: take
    :func:`pair_hashes` of them before using some of their bits."""
    if pa.types.is_dictionary(ids.type):
        h, length = text_hashes(ids.dictionary)
        at = to_numpy(ids.indices)
        return h[at], length[at]
    if not (pa.types.is_large_string(ids.type) or pa.types.is_string(ids.type)):
        ids = ids.cast(pa.large_string())
    n = len(ids)
    width = np.dtype(np.int64 if pa.types.is_large_string(ids.type) else np.int32)
    offsets = np.frombuffer(
        ids.buffers()[1], dtype=width, count=n + 1, offset=ids.offset * width.itemsize
    ).astype(np.int64, copy=False)
    data = ids.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    start = offsets[:-1]
    length = np.diff(offsets)
    # the first word of every id (an empty id's is 0) and its length; then the further
    # words of the ids that have them: an id's hash depends on its own bytes only
    h = _words(raw, start)
    h &= np.take(_MASKS, length, mode="clip")
    h ^= np.take(_LENGTHS, length, mode="clip")
    longer = np.flatnonzero(length > WORD)
    skip = WORD
    while longer.size:
        left = length[longer] - skip
        word = _words(raw, start[longer] + skip)
        word &= np.take(_MASKS, left, mode="clip")
        part = _mix(h[longer])
        part ^= word
        h[longer] = part
        longer = longer[left > WORD]
        skip += WORD
    return h, length


def pair_hashes(codes: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each (integer code, id hash) pair, e.g. (query code,
    :func:`text_hashes` of the doc id), mixed so that every bit of it depends on every
    bit of the pair: equal pairs have equal hashes."""
    key = codes.astype(np.uint64)
    key *= _GOLDEN
    key += hashes
    return _mix(key)
