"""Content fingerprints: SHA-256 digests of a (query, doc, value) table and of JSON
documents, the same on every machine.

A table's digest is taken over one of two forms:

``canonical``
    the rows sorted by query id, then doc id (byte order of the text): the order
    of the rows in a file, and whether ids arrived as text, integers or
    categoricals, do not change it.  It needs the table's pair index (the
    (query, doc) sort every evaluation makes anyway), so it costs one gather of
    the rows and one pass of SHA-256 over them.
``input``
    the rows in the order given.  Used for a run evaluated with ``ties='input'``,
    where the order of tied rows decides the ranking: two files with the same
    rows in another order may then give other numbers, so they must not share a
    fingerprint.

Ids are hashed as their UTF-8 text with each id's length (no separator can be
forged), values as little-endian float64 (``-0.0`` as ``0.0``).

>>> import pyarrow as pa, numpy as np
>>> q = pa.array(["q1", "q1", "q2"]); d = pa.array(["a", "b", "a"])
>>> v = np.array([1.0, 0.0, 2.0])
>>> json_digest({"b": 1, "a": [1, 2]}) == json_digest({"a": [1, 2], "b": 1})
True
>>> input_digest(q, d, v) == input_digest(q.take([2, 0, 1]), d.take([2, 0, 1]), v[[2, 0, 1]])
False
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy
from ranklens._shared.columns import sorted_id_codes, text_rank
from ranklens._shared.sorting import PairIndex

__all__ = [
    "FORMS",
    "canonical_digest",
    "combine",
    "ids_digest",
    "input_digest",
    "json_digest",
    "keyed_digest",
    "pairs_digest",
]

#: The forms a table's digest is taken over (module docs).
FORMS = ("canonical", "input")
_HEADER = b"ranklens-table-v1\0"


def _update_strings(h: Any, arr: pa.Array) -> None:
    """Each string's byte length (int64) and then all the bytes."""
    arr = arr.cast(pa.large_string()) if arr.type != pa.large_string() else arr
    if arr.offset:  # a slice: copy it so that its offsets start at its first value
        arr = pa.concat_arrays([arr])
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64, count=len(arr) + 1)
    h.update(np.diff(offsets).astype("<i8").tobytes())
    if buffers[2] is not None and len(arr):
        h.update(memoryview(buffers[2])[offsets[0] : offsets[-1]])


def _update_values(h: Any, values: np.ndarray) -> None:
    h.update((np.asarray(values, dtype=np.float64) + 0.0).astype("<f8").tobytes())


def _digest(form: str, n: int) -> Any:
    h = hashlib.sha256(_HEADER)
    h.update(f"{form}\0{n}\0".encode())
    return h


def input_digest(query: pa.Array, doc: pa.Array, values: np.ndarray) -> str:
    """SHA-256 (hex) of the rows in the order given (ids as text arrays)."""
    h = _digest("input", len(values))
    _update_strings(h, query)
    _update_strings(h, doc)
    _update_values(h, values)
    return h.hexdigest()


def canonical_digest(doc: pa.Array, values: np.ndarray, pairs: PairIndex) -> str:
    """SHA-256 (hex) of the rows sorted by (query id, doc id), from the table's pair
    index: the distinct query ids in byte order with their row counts, then the doc
    ids and values in that order."""
    n = len(values)
    qcode = pairs.query_code
    n_q = len(pairs.query_dict)
    counts = np.bincount(qcode, minlength=n_q).astype(np.int64)
    start_code = np.zeros(n_q, dtype=np.int64)
    np.cumsum(counts[:-1], out=start_code[1:])
    by_text = np.argsort(text_rank(pairs.query_dict), kind="stable")  # codes in text order
    start_text = np.zeros(n_q, dtype=np.int64)
    start_text[by_text[1:]] = np.cumsum(counts[by_text])[:-1]
    pos = pairs.doc_rank.astype(np.int64) + (start_text - start_code)[qcode]
    perm = np.empty(n, dtype=np.int64)
    perm[pos] = np.arange(n, dtype=np.int64)
    h = _digest("canonical", n)
    _update_strings(h, pairs.query_dict.take(from_numpy(by_text)))
    h.update(counts[by_text].astype("<i8").tobytes())
    _update_strings(h, doc.take(from_numpy(perm)))
    _update_values(h, values[perm])
    return h.hexdigest()


def ids_digest(ids: Any, what: str) -> str:
    """SHA-256 (hex) of a set of ids (a catalog): the distinct ids, as text, in byte
    order; their order and repeats do not change it.

    >>> ids_digest(["b", "a", "a"], "catalog") == ids_digest(["a", "b"], "catalog")
    True
    """
    distinct, _ = sorted_id_codes(ids, what)
    h = _digest("ids", len(distinct))
    _update_strings(h, distinct)
    return h.hexdigest()


def pairs_digest(first: Any, second: Any, what: str) -> str:
    """SHA-256 (hex) of rows of two id columns as a multiset (a training log of (user,
    item) rows): each distinct pair, in byte order, with how many rows it has; the
    order of the rows does not change it, their repeats do.

    >>> a = pairs_digest(["u1", "u2", "u1"], ["i1", "i1", "i1"], "train")
    >>> a == pairs_digest(["u1", "u1", "u2"], ["i1", "i1", "i1"], "train")
    True
    >>> a == pairs_digest(["u1", "u2"], ["i1", "i1"], "train")
    False
    """
    a, a_codes = sorted_id_codes(first, f"{what} first column")
    b, b_codes = sorted_id_codes(second, f"{what} second column")
    pairs, counts = np.unique(
        a_codes.astype(np.int64) * max(len(b), 1) + b_codes, return_counts=True
    )
    h = _digest("pairs", len(a_codes))
    h.update(f"{len(a)}\0{len(b)}\0".encode())
    _update_strings(h, a)
    _update_strings(h, b)
    h.update(pairs.astype("<i8").tobytes())
    h.update(counts.astype("<i8").tobytes())
    return h.hexdigest()


def keyed_digest(ids: Any, values: Any, what: str) -> str:
    """SHA-256 (hex) of rows keyed by id (item features, item categories): the rows
    sorted by id (as text, in byte order), their values a numeric matrix (one row per
    id, as float64) or a column of text; the order of the rows does not change it.

    >>> keyed_digest(["b", "a"], ["x", "y"], "categories") == keyed_digest(
    ...     ["a", "b"], ["y", "x"], "categories")
    True
    >>> m = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> keyed_digest(["a", "b"], m, "features") == keyed_digest(["b", "a"], m, "features")
    False
    """
    distinct, codes = sorted_id_codes(ids, f"{what} ids")
    order = np.argsort(codes, kind="stable")
    h = _digest("keyed", len(codes))
    _update_strings(h, distinct)
    h.update(codes[order].astype("<i8").tobytes())
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiub":
        matrix = values.reshape(len(codes), -1)
        h.update(f"matrix\0{matrix.shape[1]}\0".encode())
        _update_values(h, matrix[order].ravel())
    else:
        h.update(b"text\0")
        _update_strings(h, pa.array([str(v) for v in values], pa.string()).take(from_numpy(order)))
    return h.hexdigest()


def json_digest(doc: Any) -> str:
    """SHA-256 (hex) of a JSON document written canonically (keys sorted, no spaces)."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def combine(digests: list[str], what: str) -> str:
    """One digest of several (the batches of one evaluation), whatever their order."""
    h = hashlib.sha256(f"ranklens-{what}-batches-v1\0".encode())
    for d in sorted(digests):
        h.update(bytes.fromhex(d))
    return h.hexdigest()
