"""Sorting rows by integer codes and ids: the radix sorts of codes, the (query, doc)
order of a table and its repeated pairs.

Everything here works on ids already coded by :mod:`ranklens._shared.columns`
(``id_codes``): sorts are of integer codes where they can be, and of Arrow
string arrays only where the byte order of the text is needed.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.columns import id_codes, text_rank
from ranklens._shared.hashing import pair_hashes, text_hashes
from ranklens._shared.parallel import map_large, map_pieces, parts_for, pieces, split_points

__all__ = [
    "HashedPairs",
    "PairIndex",
    "contiguous_groups",
    "group_order",
    "in_code_order",
    "known_pairs",
    "lex_order",
    "pair_index",
    "sorted_with_rows",
    "uniform_blocks",
]


class PairIndex:
    """Row structure of a (query, doc, value) table, computed once.

    ``query_dict`` holds the distinct query ids and ``query_code`` each row's
    index into it; ``doc_rank`` is each row's position when rows are sorted by
    (query code, doc id ascending in byte order), so within a query it orders
    documents by id.  ``dup_rows`` are the rows repeating an earlier (query,
    doc) pair in that order.

    ``doc_rank`` may be given as a function that computes it: a table whose pairs were
    checked without sorting (:func:`pair_index`) sorts only if a tie rule, a
    fingerprint or a subset needs the document order.
    """

    __slots__ = ("_blocks", "_doc_rank", "dup_rows", "query_code", "query_dict")

    def __init__(
        self,
        query_dict: pa.Array,
        query_code: np.ndarray,
        doc_rank: np.ndarray | Callable[[], np.ndarray],
        dup_rows: np.ndarray,
        blocks: int | Callable[[], int | None] | None = None,
    ) -> None:
        self.query_dict = query_dict
        self.query_code = query_code
        self._doc_rank = doc_rank
        self.dup_rows = dup_rows
        self._blocks: int | Callable[[], int | None] | None = (
            blocks if blocks is not None else (lambda: uniform_blocks(query_code))
        )

    @property
    def blocks(self) -> int | None:
        """The rows' block width when they come in blocks of one length, one query per
        block (see :func:`uniform_blocks`), else None; computed once."""
        if callable(self._blocks):
            self._blocks = self._blocks()
        return self._blocks

    @property
    def doc_rank(self) -> np.ndarray:
        rank = self._doc_rank
        if callable(rank):
            rank = self._doc_rank = rank()
        return rank

    @property
    def doc_rank_known(self) -> bool:
        """Whether :attr:`doc_rank` is computed already (reading it may sort)."""
        return not callable(self._doc_rank)


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


def _sorted_block(
    qcode: np.ndarray, doc: pa.Array, small: np.dtype[Any]
) -> tuple[np.ndarray, np.ndarray]:
    """Sort one block of rows (whole queries) by (query code, doc) and flag each sorted
    row that repeats its predecessor's pair; the doc ids are compared a slice at a time
    (a sorted copy of a large doc column would be the peak of its memory)."""
    n = len(qcode)
    order = to_numpy(
        pc.sort_indices(
            pa.table({"q": from_numpy(qcode), "d": doc}),
            sort_keys=[("q", "ascending"), ("d", "ascending")],
        )
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
                block = doc.take(from_numpy(order[start : stop + 1]))
                same[start:stop] = to_numpy(pc.equal(block[1:], block[:-1]))
            same &= same_q
    return order, same


def pair_index(query: pa.Array, doc: pa.Array, compact: bool = False) -> PairIndex:
    """Code the queries and sort rows by (query, doc id in byte order).

    Dictionary-encoded doc ids (integer ids, categoricals) are checked for repeated
    pairs without sorting every row by text: one sort of the integer codes (per query
    when every query has the same number of rows, as top-``n`` recommendation lists
    do), and the rows' order by doc id is computed only when something reads
    ``doc_rank``.  Plain string ids are checked by hashing the pairs
    (:class:`HashedPairs`: a sort of integers, ids compared only where hashes are
    equal); only repeated pairs are then sorted by text.  Arrow's (query code, doc)
    sort of plain string ids is fast only when
    the rows are grouped by query, so ungrouped rows are grouped first (a radix sort of
    the codes); large inputs are then cut at a query boundary and the two halves
    sorted on both cores.  ``compact``: the query column is encoded by
    :func:`~ranklens._shared.columns.as_id_column` (no unused dictionary entry)."""
    query_dict, qcode = id_codes(query, compact)
    n = len(query)
    n_q = len(query_dict)
    small = np.dtype(np.int32 if n < 2**31 - 1 else np.int64)
    if pa.types.is_dictionary(doc.type):
        width = uniform_blocks(qcode)
        if _distinct_pairs(qcode, n_q, to_numpy(doc.indices), len(doc.dictionary), width):
            return known_pairs(query_dict, qcode, doc, lambda: width)
        order, same = _dict_pair_order(qcode, doc, n_q, small)
    else:
        hashed = HashedPairs(qcode, doc)
        if not hashed.repeats(qcode, doc):
            return known_pairs(query_dict, qcode, doc)
        order, same = _string_pair_order(qcode, doc, n_q, small)
    rank = in_code_order(order, qcode, n_q)
    dups = np.sort(order[1:][same]).astype(np.int64) if same.any() else np.zeros(0, np.int64)
    return PairIndex(query_dict, qcode, rank, dups)


class HashedPairs:
    """The (query code, doc id) pairs of a table as hashes (:func:`pair_hashes` of the
    doc ids' :func:`text_hashes`), sorted: ``keys`` holds the hashes' high bits in
    ascending order and ``row(i)`` is the row of ``keys[i]``; ``doc_hash`` and
    ``doc_length`` are the doc ids' hashes and lengths by row.  Joins search these keys
    and :meth:`repeats` finds repeated pairs from them, reading ids only where two
    hashes are equal."""

    __slots__ = ("_packed", "bits", "doc_hash", "doc_length", "keys")

    def __init__(self, qcode: np.ndarray, doc: pa.Array) -> None:
        n = len(qcode)
        self.bits = np.uint64(max(int(n - 1).bit_length(), 1))
        self.doc_hash, self.doc_length = text_hashes(doc)
        packed = pair_hashes(qcode, self.doc_hash)
        packed >>= self.bits
        packed <<= self.bits
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()  # the row numbers in the low bits: values sort faster than an argsort
        self._packed = packed
        self.keys = packed >> self.bits

    def rows(self, at: np.ndarray) -> np.ndarray:
        """The rows of ``keys[at]``."""
        return (self._packed[at] & ((np.uint64(1) << self.bits) - np.uint64(1))).astype(np.int64)

    def repeats(self, qcode: np.ndarray, doc: pa.Array) -> bool:
        """Whether some (query code, doc) pair of the rows repeats: only the rows whose
        hash equals another row's are compared, as ids."""
        same = np.flatnonzero(self.keys[1:] == self.keys[:-1])
        if not same.size:
            return False
        rows = np.unique(self.rows(np.concatenate([same, same + 1])))
        taken = from_numpy(rows)
        sub_q = qcode[rows]
        small = np.dtype(np.int32 if len(rows) < 2**31 - 1 else np.int64)
        return bool(
            _string_pair_order(sub_q, doc.take(taken), int(sub_q.max()) + 1, small)[1].any()
        )


def known_pairs(
    query_dict: pa.Array,
    qcode: np.ndarray,
    doc: pa.Array,
    blocks: int | Callable[[], int | None] | None = None,
) -> PairIndex:
    """The pair index of rows known to repeat no (query, doc) pair (``query_dict`` and
    ``qcode`` as :func:`~ranklens._shared.columns.id_codes` gives them): the rows' order
    by doc id is computed only when something reads ``doc_rank``."""
    n_q = len(query_dict)
    small = np.dtype(np.int32 if len(qcode) < 2**31 - 1 else np.int64)

    def lazy_rank() -> np.ndarray:
        by_doc = _dict_pair_order if pa.types.is_dictionary(doc.type) else _string_pair_order
        return in_code_order(by_doc(qcode, doc, n_q, small)[0], qcode, n_q)

    return PairIndex(query_dict, qcode, lazy_rank, np.zeros(0, np.int64), blocks)


def uniform_blocks(codes: np.ndarray) -> int | None:
    """``L`` when the rows come in blocks of ``L`` rows, one code per block and each code
    in one block (top-``n`` lists grouped by user), else None.  The one test of that
    layout: the pair index, the ranking engine and the beyond-accuracy lists read it."""
    n = len(codes)
    if n == 0:
        return None
    head = codes[: 1 << 16]  # the first block's end, found in the head as a rule
    change = np.flatnonzero(head != head[0])
    if not change.size and len(head) < n:
        change = np.flatnonzero(codes != codes[0])
    width = int(change[0]) if change.size else n
    if n % width or (width == 1 and int(np.bincount(head).max()) > 1):
        return None  # (one row per code: a code repeated in the head already fails)
    heads = codes
    if width > 1:
        blocks = codes.reshape(-1, width)
        if not bool((blocks[:, 1:] == blocks[:, :1]).all()):
            return None
        heads = blocks[:, 0]
    return width if int(np.bincount(heads).max()) <= 1 else None


def _distinct_pairs(
    qcode: np.ndarray, n_q: int, dcode: np.ndarray, n_docs: int, width: int | None
) -> bool:
    """Whether no (query code, doc code) pair repeats: the doc codes sorted within each
    query's block when the blocks are uniform (``width``, a sort of short rows), else one
    sort of the combined keys (values, not an argsort)."""
    n = len(qcode)
    if n < 2:
        return True
    if width is not None:
        if width == 1:
            return True
        blocks = dcode.reshape(-1, width)

        def repeats(a: int, b: int) -> bool:
            rows = np.sort(blocks[a:b], axis=1)
            return bool((rows[:, 1:] == rows[:, :-1]).any())

        return not any(map_large(repeats, pieces(len(blocks), parts_for(n)), n))
    groups = contiguous_groups(qcode, n_q)
    key = (qcode if groups is None else groups).astype(np.int64)
    key *= max(n_docs, 1)
    key += dcode
    key.sort()
    return not bool((key[1:] == key[:-1]).any())


def sorted_with_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Non-negative int64 ``keys`` sorted and the rows they came from, a stable order:
    the row number packed into the low bits and the values sorted (NumPy sorts values
    several times faster than it argsorts, and a stable argsort is slower still); an
    argsort when the keys leave no room for the row number."""
    n = len(keys)
    bits = max(int(n - 1).bit_length(), 1)
    if n and int(keys.min()) >= 0 and int(keys.max()) < 1 << (62 - bits):
        packed = keys << bits
        packed |= np.arange(n, dtype=np.int64)
        packed.sort()
        return packed >> bits, packed & ((1 << bits) - 1)
    order = np.argsort(keys, kind="stable")
    return keys[order], order


def _dict_pair_order(
    qcode: np.ndarray, doc: pa.Array, n_q: int, small: np.dtype[Any]
) -> tuple[np.ndarray, np.ndarray]:
    """Rows in (query code, doc id text) order for dictionary-encoded doc ids, and per
    sorted row whether it repeats the previous row's pair."""
    n_docs = max(len(doc.dictionary), 1)
    drank = text_rank(doc.dictionary)[to_numpy(doc.indices)]
    groups = contiguous_groups(qcode, n_q)
    if groups is not None:  # rows grouped by query: one sort of packed values
        sk, order = sorted_with_rows(groups.astype(np.int64) * n_docs + drank)
        return order.astype(small), sk[1:] == sk[:-1]
    # two radix sorts (doc, then query) beat a comparison sort of random keys
    key = qcode.astype(np.int64) * n_docs + drank
    order = lex_order(qcode, n_q, drank, n_docs).astype(small)
    sk = key[order]
    return order, sk[1:] == sk[:-1]


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


def _string_pair_order(
    qcode: np.ndarray, doc: pa.Array, n_codes: int, small: np.dtype[Any]
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
        same[a : max(b - 1, a)] = s
    del blocks
    if perm is not None:
        order = perm[order]
    return order, same
