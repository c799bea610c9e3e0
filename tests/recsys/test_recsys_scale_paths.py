"""The shortcuts large recommendation tables take give the numbers of the general paths.

Recommendation lists usually come grouped by user, ranked, all of one length, with
integer ids or text ids that repeat a lot.  ranklens recognises these layouts and takes
cheaper paths (ids coded from the runs of equal ids, text items dictionary-encoded,
lists moved as whole blocks, top-k rankings judged only k deep); each test here builds
such a table and checks the values (and errors) equal those of the general path, made
to run by switching the shortcut off or by giving the rows in another layout.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import ranklens as rl
import ranklens.recsys as rs
from ranklens._shared import columns
from ranklens.errors import DuplicateError

METRICS = ["p@10", "r@10", "map@10", "ndcg@10", "rr@5", "ndcg", "ap", "num_ret"]


def _lists(
    n_users: int, width: int, n_items: int, *, text: bool, seed: int = 0, ties: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Recommendations (grouped by user, rank 1..width), held-out interactions and a
    training log; users numbered so that their numeric and text orders differ."""
    rng = np.random.default_rng(seed)
    user = np.repeat(rng.permutation(n_users) * 3 + 7, width)
    item = np.concatenate([rng.choice(n_items, size=width, replace=False) for _ in range(n_users)])
    rank = np.tile(np.arange(1, width + 1), n_users)
    score = -(rank // 2 if ties else rank).astype(float)
    recs = pd.DataFrame({"user_id": user, "item_id": item, "rank": rank, "score": score})
    pick = rng.random(len(user)) < 0.2
    held = pd.DataFrame(
        {
            "user_id": np.r_[user[pick], rng.choice(user, 500)],
            "item_id": np.r_[item[pick], rng.integers(0, n_items, 500)],
        }
    ).drop_duplicates()
    train = pd.DataFrame(
        {
            "user_id": rng.integers(0, n_users, 3 * n_items),
            "item_id": np.r_[np.arange(n_items), rng.integers(0, n_items, 2 * n_items)],
        }
    )
    if text:
        for frame in (recs, held, train):
            frame["user_id"] = "u" + frame["user_id"].astype(str)
            frame["item_id"] = "i" + frame["item_id"].astype(str)
    return recs, held, train


def _beyond(run: rl.Run, train: pd.DataFrame) -> dict[str, Any]:
    catalog = np.unique(train["item_id"].to_numpy())
    nov = rs.novelty(run, train["user_id"], train["item_id"], k=10, reduction="none")
    return {
        "coverage": rs.catalog_coverage(run, catalog, k=10),
        "gini": rs.gini_index(run, catalog, k=10),
        "entropy": rs.shannon_entropy(run, catalog, k=5),
        "novelty": nov.values,
        "users": nov.user_ids,
        "arp": rs.average_recommendation_popularity(run, train["item_id"], k=10),
        "personalisation": rs.personalisation(run, k=10),
    }


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if key == "users":
            assert a[key] == b[key]
        else:
            np.testing.assert_allclose(a[key], b[key], rtol=1e-13, atol=1e-15, err_msg=key)


def _evaluate(recs: pd.DataFrame, held: pd.DataFrame, **kw: Any) -> rs.InteractionEvaluation:
    return rs.evaluate_interactions(recs, held, METRICS, rank="rank", repeats="binary", **kw)


@pytest.mark.parametrize("text", [False, True], ids=["int", "text"])
def test_run_length_coding_gives_the_codes_of_direct_coding(text: bool) -> None:
    rng = np.random.default_rng(3)
    for ids in (rng.integers(0, 5_000, 2_000), rng.integers(-(10**15), 10**15, 2_000)):
        values = np.repeat(ids, rng.integers(1, 12, ids.size))  # runs of equal ids
        arr = pa.array([f"q{v}" for v in values]) if text else pa.array(values)
        direct = columns._hashed_text_codes(arr) if text else columns._integer_id_codes(arr)
        runs = columns._by_runs(
            arr, columns._hashed_text_codes if text else columns._integer_id_codes
        )
        np.testing.assert_array_equal(runs[0], direct[0])
        assert runs[1].equals(direct[1]) if text else np.array_equal(runs[1], direct[1])


@pytest.mark.parametrize("ties", [False, True], ids=["ranked", "ties"])
def test_text_items_that_repeat_are_encoded_with_the_same_numbers(
    monkeypatch: pytest.MonkeyPatch, ties: bool
) -> None:
    recs, held, train = _lists(14_000, 20, 3_000, text=True, ties=ties)
    run = rl.Run.from_frame(recs, query="user_id", doc="item_id", score="score")
    assert pa.types.is_dictionary(run._d.type)  # the shortcut is taken
    got = _evaluate(recs, held)
    got_beyond = _beyond(run, train)
    with monkeypatch.context() as patch:
        patch.setattr(columns, "_repeats_often", lambda arr: False)
        plain = rl.Run.from_frame(recs, query="user_id", doc="item_id", score="score")
        assert not pa.types.is_dictionary(plain._d.type)
        want = _evaluate(recs, held)
        want_beyond = _beyond(plain, train)
    assert got.report == want.report
    assert got.result.query_ids == want.result.query_ids
    for m in METRICS:
        np.testing.assert_array_equal(got.result.values[m], want.result.values[m], err_msg=m)
    _same(got_beyond, want_beyond)


def test_repeated_pairs_are_found_on_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    recs, _, _ = _lists(14_000, 20, 3_000, text=True)
    recs.loc[len(recs) - 1, "item_id"] = recs.loc[len(recs) - 2, "item_id"]
    for encode in (True, False):
        with monkeypatch.context() as patch:
            if not encode:
                patch.setattr(columns, "_repeats_often", lambda arr: False)
            with pytest.raises(DuplicateError, match="occur more than once"):
                rl.Run.from_frame(recs, query="user_id", doc="item_id", score="score").validate()
    ints, _, _ = _lists(500, 8, 100, text=False)
    ints.loc[3, "item_id"] = ints.loc[4, "item_id"]  # inside one block of one length
    with pytest.raises(DuplicateError, match="occur more than once"):
        rl.Run.from_frame(ints, query="user_id", doc="item_id", rank="rank")


@pytest.mark.parametrize("text", [False, True], ids=["int", "text"])
@pytest.mark.parametrize("ties", [False, True], ids=["ranked", "ties"])
def test_lists_of_one_length_equal_the_same_rows_shuffled(text: bool, ties: bool) -> None:
    """Grouped, ranked lists of one length move as blocks (and are judged k deep);
    shuffled rows take the general sort.  Same numbers, per user."""
    recs, held, train = _lists(3_000, 12, 400, text=text, ties=ties, seed=5)
    shuffled = recs.sample(frac=1.0, random_state=1).reset_index(drop=True)
    runs = [
        rl.Run.from_frame(f, query="user_id", doc="item_id", score="score")
        for f in (recs, shuffled)
    ]
    assert runs[0]._pairs.blocks == 12 and runs[1]._pairs.blocks is None
    _same(_beyond(runs[0], train), _beyond(runs[1], train))
    a, b = _evaluate(recs, held), _evaluate(shuffled, held)
    assert a.result.query_ids == b.result.query_ids
    for m in METRICS:
        np.testing.assert_array_equal(a.result.values[m], b.result.values[m], err_msg=m)


def test_rank_column_gives_the_scores_minus_rank() -> None:
    recs, _, _ = _lists(50, 6, 40, text=False)
    by_rank = rl.Run.from_frame(recs, query="user_id", doc="item_id", rank="rank")
    by_score = rl.Run.from_frame(
        recs.assign(s=-recs["rank"]), query="user_id", doc="item_id", score="s"
    )
    assert by_rank == by_score
    with pytest.raises(rl.InputError, match=r"rank column 'rank': rank in row 2 is 0"):
        rl.Run.from_frame(
            recs.assign(rank=np.r_[1, 2, 0, np.arange(4, len(recs) + 1)]),
            query="user_id",
            doc="item_id",
            rank="rank",
        )
