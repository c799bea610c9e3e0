"""Evaluating recommendations against held-out interactions (hand-computed)."""

from __future__ import annotations

import pytest

import ranklens
from ranklens.recsys import evaluate_interactions

pd = pytest.importorskip("pandas")


def _data() -> tuple[object, object]:
    recs = pd.DataFrame(
        {
            "user_id": ["u1", "u1", "u1", "u2", "u2", "u4"],
            "item_id": ["a", "b", "c", "a", "d", "a"],
            "score": [0.9, 0.8, 0.7, 0.5, 0.6, 1.0],
        }
    )
    held = pd.DataFrame(
        {
            "user_id": ["u1", "u1", "u1", "u2", "u3"],
            "item_id": ["b", "b", "z", "a", "a"],
        }
    )
    return recs, held


def test_users_without_recommendations_count_as_zero() -> None:
    recs, held = _data()
    ev = evaluate_interactions(recs, held, ["p@2", "r@3", "mrr"])
    # u1: ranking a, b, c; relevant b (grade 2) and z -> P@2 = 1/2, R@3 = 1/2, RR = 1/2
    # u2: ranking d, a; relevant a -> P@2 = 1/2, R@3 = 1, RR = 1/2
    # u3: no recommendations -> 0; u4: no interactions -> excluded and reported
    assert ev.result.per_query("p@2") == {"u1": 0.5, "u2": 0.5, "u3": 0.0}
    assert ev.summary()["r@3"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)
    assert ev.summary()["mrr"] == pytest.approx((0.5 + 0.5) / 3)
    assert ev.report == {
        "users_evaluated": 3,
        "users_without_recommendations": 1,
        "users_without_interactions": 1,
        "repeated_interactions_merged": 1,
        "duplicate_recommendations_dropped": 0,
    }


def test_skip_users_without_recommendations_and_repeat_grades() -> None:
    recs, held = _data()
    ev = evaluate_interactions(recs, held, ["p@2"], missing="skip")
    assert ev.result.query_ids == ("u1", "u2")
    summed = evaluate_interactions(recs, held, ["dcg@2"], repeats="sum")
    binary = evaluate_interactions(recs, held, ["dcg@2"], repeats="binary")
    # u1: b at rank 2 has grade 2 when summed, 1 when binary
    assert summed.result.per_query("dcg@2")["u1"] == pytest.approx(2 / 1.5849625007211563)
    assert binary.result.per_query("dcg@2")["u1"] == pytest.approx(1 / 1.5849625007211563)


def test_ranks_and_duplicate_recommendations() -> None:
    recs = pd.DataFrame(
        {"user_id": ["u1", "u1", "u1"], "item_id": ["a", "b", "a"], "rank": [2, 1, 3]}
    )
    held = pd.DataFrame({"user_id": ["u1"], "item_id": ["a"]})
    with pytest.raises(ranklens.DuplicateError, match="duplicates='max'"):
        evaluate_interactions(recs, held, ["mrr"], rank="rank")
    ev = evaluate_interactions(recs, held, ["mrr"], rank="rank", duplicates="first")
    assert ev.summary()["mrr"] == 0.5  # a's best position is rank 2
    assert ev.report["duplicate_recommendations_dropped"] == 1
    with pytest.raises(ranklens.InputError, match="ranks start at 1"):
        evaluate_interactions(
            recs.assign(rank=[0, 1, 2]), held, ["mrr"], rank="rank", duplicates="first"
        )


def test_bad_arguments() -> None:
    recs, held = _data()
    with pytest.raises(ranklens.InputError, match="repeats="):
        evaluate_interactions(recs, held, ["p@1"], repeats="mean")
    with pytest.raises(ranklens.InputError, match="no column named 'stars'"):
        evaluate_interactions(recs, held, ["p@1"], weight="stars")


def test_unjudged_users_score_zero_when_asked() -> None:
    recs, held = _data()
    ev = evaluate_interactions(recs, held, ["p@2", "mrr", "num_ret"], unjudged="zero")
    # u4 (recommendations, no interactions) is listed with 0 for every metric, counts too
    assert ev.result.query_ids == ("u1", "u2", "u3", "u4")
    assert ev.result.per_query("p@2") == {"u1": 0.5, "u2": 0.5, "u3": 0.0, "u4": 0.0}
    assert ev.result.per_query("num_ret")["u4"] == 0.0
    assert ev.summary()["mrr"] == pytest.approx((0.5 + 0.5) / 4)
    assert ev.report["users_evaluated"] == 4
    assert ev.report["users_without_interactions"] == 1
    assert ev.result.report["run_queries_scored_zero_without_judgments"] == 1
    assert ev.result.report["queries_evaluated"] == 4
    assert not ev.result.values["p@2"].flags.writeable
    assert list(ev.result.to_frame().index) == ["u1", "u2", "u3", "u4"]
    # the default leaves u4 out, as before
    default = evaluate_interactions(recs, held, ["p@2"])
    assert default.result.query_ids == ("u1", "u2", "u3")
    assert default.report["users_without_interactions"] == 1


def test_unjudged_users_keep_the_sorted_id_order() -> None:
    # integer ids are read as text: "10" < "2" < "30" < "4"
    recs = pd.DataFrame(
        {
            "user_id": [30, 30, 2, 10, 4],
            "item_id": [1, 2, 1, 3, 1],
            "score": [1.0, 0.5, 1.0, 1.0, 1.0],
        }
    )
    held = pd.DataFrame({"user_id": [2, 4], "item_id": [1, 2]})
    ev = evaluate_interactions(recs, held, ["p@1", "r@2"], unjudged="zero")
    assert ev.result.query_ids == ("10", "2", "30", "4")
    assert ev.result.per_query("p@1") == {"10": 0.0, "2": 1.0, "30": 0.0, "4": 0.0}
    assert ev.summary()["p@1"] == 0.25
    # with missing="skip" too, and with no user lacking interactions nothing changes
    skip = evaluate_interactions(recs, held, ["p@1"], unjudged="zero", missing="skip")
    assert skip.result.query_ids == ("10", "2", "30", "4")
    judged = recs[recs["user_id"].isin([2, 4])]
    same = evaluate_interactions(judged, held, ["p@1"], unjudged="zero")
    plain = evaluate_interactions(judged, held, ["p@1"])
    assert same.result.per_query_all() == plain.result.per_query_all()


def test_unjudged_users_policy_is_checked() -> None:
    recs, held = _data()
    with pytest.raises(
        ranklens.InputError, match=r"unjudged='drop' is not known; use 'skip' or 'zero'"
    ):
        evaluate_interactions(recs, held, ["p@1"], unjudged="drop")
    with pytest.raises(ranklens.InputError, match="unjudged=None"):
        evaluate_interactions(recs, held, ["p@1"], unjudged=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"unjudged_users": "zero"}, "zero"),
        ({"unjudged_users": "exclude"}, "skip"),
        ({"unjudged": "exclude"}, "skip"),
    ],
)
def test_unjudged_old_spellings_still_work_and_warn(old: dict[str, str], new: str) -> None:
    recs, held = _data()
    want = evaluate_interactions(recs, held, ["p@1", "num_ret"], unjudged=new)
    with pytest.warns(ranklens.RanklensDeprecationWarning, match=f"pass unjudged='{new}'"):
        got = evaluate_interactions(recs, held, ["p@1", "num_ret"], **old)
    assert got.result.per_query("num_ret") == want.result.per_query("num_ret")
