"""ranklens.spark.evaluate_interactions and the beyond-accuracy metrics on Spark equal
their local counterparts (ranklens.recsys) on random recommendation lists."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from ranklens import recsys
from tests.helpers import user_lists_case

pd = pytest.importorskip("pandas")
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")

METRICS = ["ndcg@5", "map@10", "P@3", "recall@10", "recip_rank", "hit_rate@5", "num_ret"]


def _tables(seeds: range, scores: Any = None) -> tuple[Any, Any]:
    """Several random cases as one pair of pandas tables (users renamed per case)."""
    recs, held = [], []
    for seed in seeds:
        r, h = user_lists_case(seed, scores)
        recs += [(f"s{seed}{u}", i, v) for u, i, v in r]
        held += [(f"s{seed}{u}", i) for u, i in h]
    rng = np.random.default_rng(len(held))
    frame = pd.DataFrame(held, columns=["user_id", "item_id"])
    # repeated interactions (merged by repeats=) and weights
    frame = pd.concat([frame, frame.iloc[::5]], ignore_index=True)
    frame["weight"] = rng.integers(1, 4, size=len(frame)).astype(float)
    return pd.DataFrame(recs, columns=["user_id", "item_id", "value"]), frame


def _spark(spark: Any, frame: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return spark.createDataFrame(frame)


CASES = [
    dict(rank="value", score=None),
    dict(score="value", weight="weight", repeats="max", unjudged="zero", profile="spark"),
    dict(score="value", weight="weight", repeats="sum", missing="skip", profile="replay"),
    dict(score="value", repeats="binary", profile="rectools", ties="input"),
    dict(rank="value", score=None, duplicates="first", unjudged="zero"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: ",".join(map(str, c.values())))
def test_evaluate_interactions_equals_local(spark: Any, case: dict[str, Any]) -> None:
    import ranklens.spark as rs

    tied = None if case.get("rank") else (lambda rng, n: rng.integers(0, 3, size=n))
    recs, held = _tables(range(4), tied)
    if case.get("duplicates") == "first":  # a repeated recommendation, kept at its best
        recs = pd.concat(
            [recs, recs.iloc[:3].assign(value=recs["value"].iloc[:3] + 5)], ignore_index=True
        )
    want = recsys.evaluate_interactions(recs, held, METRICS, **case)
    got = rs.evaluate_interactions(
        _spark(spark, recs), _spark(spark, held), METRICS, partitions=4, **case
    )
    assert got.report == want.report
    local = got.to_local()
    assert local.report == want.report
    assert local.result.query_ids == want.result.query_ids
    assert dict(local.result.report) == dict(want.result.report)
    for m in METRICS:
        np.testing.assert_allclose(
            local.result.values[m], want.result.values[m], rtol=0, atol=1e-12, err_msg=m
        )
        assert got.summary()[m] == pytest.approx(want.summary()[m], rel=1e-12, abs=1e-12)
    assert got.result.to_frame().columns == ["user_id", *METRICS]
    got.result.unpersist()


def test_evaluate_interactions_errors(spark: Any) -> None:
    import ranklens.spark as rs

    recs, held = _tables(range(1))
    srecs, sheld = _spark(spark, recs), _spark(spark, held)
    with pytest.raises(rl.DuplicateError):
        rs.evaluate_interactions(
            _spark(spark, pd.concat([recs, recs.iloc[:1]])),
            sheld,
            ["map"],
            rank="value",
            score=None,
        )
    with pytest.raises(rl.InputError, match="ranks start at 1"):
        rs.evaluate_interactions(
            _spark(spark, recs.assign(value=0)), sheld, ["map"], rank="value", score=None
        )
    with pytest.raises(rl.InputError, match="repeats="):
        rs.evaluate_interactions(srecs, sheld, ["map"], repeats="mean")
    with pytest.raises(rl.InputError, match="score= or rank="):
        rs.evaluate_interactions(srecs, sheld, ["map"], score=None)
    with pytest.raises(rl.InputError, match=r"no column 'w' \(the weight= column\)"):
        rs.evaluate_interactions(srecs, sheld, ["map"], score="value", weight="w")


# ------------------------------------------------------------------- beyond accuracy


@pytest.fixture(scope="module")
def lists(spark: Any) -> tuple[Any, Any, Any, Any, Any]:
    """Tied scores (so the tie rule matters), a training log holding every recommended
    item, the lists as a Run and as a Spark DataFrame."""
    recs, held = _tables(range(3), lambda rng, n: rng.integers(0, 3, size=n))
    train = pd.concat(
        [held[["user_id", "item_id"]], recs[["user_id", "item_id"]]], ignore_index=True
    )
    run = rl.Run.from_frame(recs, query="user_id", doc="item_id", score="value")
    return recs, train, run, _spark(spark, recs), _spark(spark, train)


@pytest.mark.parametrize(("k", "ties"), [(None, "trec"), (3, "input")])
def test_beyond_accuracy_equals_local(lists: Any, k: int | None, ties: str) -> None:
    import ranklens.spark as rs

    _recs, train, run, srecs, strain = lists
    kw: dict[str, Any] = {"k": k, "ties": ties}
    spark_kw = {**kw, "score": "value", "partitions": 3}
    catalog = [f"i{i}" for i in range(60)]
    for name in ("catalog_coverage", "shannon_entropy", "gini_index"):
        want = getattr(recsys, name)(run, catalog, **kw)
        assert getattr(rs, name)(srecs, catalog, **spark_kw) == pytest.approx(
            want, rel=1e-12, abs=1e-12
        ), name
    users, items = train["user_id"], train["item_id"]
    local = {
        "novelty": lambda **o: recsys.novelty(run, users, items, **o),
        "average_recommendation_popularity": lambda **o: recsys.average_recommendation_popularity(
            run, items, **o
        ),
        "long_tail_share": lambda **o: recsys.long_tail_share(run, items, **o),
        "personalisation": lambda **o: recsys.personalisation(run, **o),
    }
    for name, fn in local.items():
        spark_fn = getattr(rs, name)
        args = (srecs,) if name == "personalisation" else (srecs, strain)
        assert spark_fn(*args, **spark_kw) == pytest.approx(fn(**kw), rel=1e-12, abs=1e-12)
        want = fn(reduction="none", **kw)
        table = spark_fn(*args, reduction="none", **spark_kw).toArrow().sort_by("user")
        assert tuple(table["user"].to_pylist()) == want.user_ids, name
        np.testing.assert_allclose(
            table[name].to_numpy(), want.values, rtol=0, atol=1e-12, err_msg=name
        )


def test_beyond_accuracy_catalog_frame_and_errors(spark: Any, lists: Any) -> None:
    import ranklens.spark as rs

    _recs, _train, run, srecs, strain = lists
    catalog = [f"i{i}" for i in range(60)]
    frame = _spark(spark, pd.DataFrame({"item_id": catalog}))
    assert rs.catalog_coverage(srecs, frame, score="value") == recsys.catalog_coverage(run, catalog)
    with pytest.raises(rl.InputError, match="not in the catalog"):
        rs.catalog_coverage(srecs, catalog[:5], score="value")
    with pytest.raises(rl.InputError, match="have no training interaction"):
        rs.novelty(srecs, strain.limit(3), score="value")
    with pytest.raises(rl.InputError, match="training interactions are empty"):
        rs.long_tail_share(srecs, strain.limit(0), score="value")
    with pytest.raises(rl.UnsupportedError):
        rs.novelty(srecs, strain, score="value", ties="optimistic")
    with pytest.raises(rl.InputError, match="at least 2 users"):
        rs.personalisation(srecs.limit(1), score="value")
    with pytest.raises(rl.InputError, match="'k' parameter"):
        rs.personalisation(srecs, score="value", k=0)
