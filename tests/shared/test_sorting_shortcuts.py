"""The shared sorting and threading helpers behind the fast paths: each shortcut
against the plain computation it replaces."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import ranklens as rl
from ranklens._shared.columns import text_order
from ranklens._shared.parallel import LARGE_ROWS, map_large, pool
from ranklens._shared.sorting import pair_index, sorted_with_rows, uniform_blocks


@pytest.mark.parametrize("high", [50, 2**40, 2**61], ids=["small", "wide", "no-room"])
def test_sorted_with_rows_is_a_stable_sort(high: int) -> None:
    rng = np.random.default_rng(0)
    keys = rng.integers(0, high, 5_000).astype(np.int64)  # many equal keys when small
    got_keys, got_rows = sorted_with_rows(keys)
    want = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(got_rows, want)
    np.testing.assert_array_equal(got_keys, keys[want])


def test_uniform_blocks() -> None:
    assert uniform_blocks(np.array([2, 2, 0, 0, 1, 1])) == 2
    assert uniform_blocks(np.array([0, 1, 2])) == 1
    assert uniform_blocks(np.array([0, 0, 1, 1, 0, 0])) is None  # query 0 split
    assert uniform_blocks(np.array([0, 0, 0, 1, 1])) is None  # lengths differ
    assert uniform_blocks(np.array([0, 1, 0, 1])) is None
    assert uniform_blocks(np.zeros(0, dtype=np.int32)) is None


def test_text_order_of_sorted_and_unsorted_ids() -> None:
    ids = pa.array(["a", "b", "c10", "c9"])
    np.testing.assert_array_equal(text_order(ids), [0, 1, 2, 3])
    shuffled = pa.array(["c9", "a", "c10", "b"])
    assert shuffled.take(pa.array(text_order(shuffled))).to_pylist() == ["a", "b", "c10", "c9"]


@pytest.mark.parametrize("layout", ["blocks", "grouped", "shuffled"])
def test_lazy_doc_order_equals_the_sorted_one(layout: str) -> None:
    """Coded doc ids: the pair index checks repeats without sorting by text and
    computes the order by doc id only when read; it is the order of a full sort."""
    rng = np.random.default_rng(1)
    width = 6 if layout == "blocks" else None
    sizes = np.full(40, 6) if width else rng.integers(1, 9, 40)
    query = np.repeat(np.arange(40), sizes)
    doc = np.concatenate([rng.choice(300, size=s, replace=False) for s in sizes])
    if layout == "shuffled":
        perm = rng.permutation(len(query))
        query, doc = query[perm], doc[perm]
    run = rl.Run.from_arrays(query, doc, rng.random(len(query)))
    pairs = run._pairs
    assert not pairs.doc_rank_known and pairs.blocks == width
    text = rl.Run.from_arrays(query.astype(str), doc.astype(str), run.scores)
    eager = pair_index(text._q, text._d)

    def within(rank: np.ndarray) -> np.ndarray:  # each row's rank among its query's docs
        first = np.full(40, len(rank))
        np.minimum.at(first, query, rank)
        return rank - first[query]

    np.testing.assert_array_equal(within(pairs.doc_rank), within(eager.doc_rank))
    assert run.fingerprint() == text.fingerprint()


def test_map_large_in_a_pool_task_runs_in_turn() -> None:
    """A pool task calling map_large must not wait on the pool (with every worker
    waiting, nothing would run): its calls run one after the other."""

    def inner() -> list[int]:
        return map_large(lambda x: x * 2, [(1,), (2,), (3,)], LARGE_ROWS * 4)

    jobs = [pool().submit(inner) for _ in range(4)]
    assert [job.result(timeout=30) for job in jobs] == [[2, 4, 6]] * 4
    assert map_large(lambda x: x + 1, [(1,), (2,)], LARGE_ROWS * 4) == [2, 3]
