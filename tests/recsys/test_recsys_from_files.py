"""Recommender evaluation through the one entry point (evaluate_interactions with
ranking and beyond-accuracy metrics, tables or files), segments from the training
log, and the splitters writing split files.

Hand-computed values for the new paths; the "same numbers" property: the entry
point gives exactly the numbers of the metric functions it unifies, on random
cases; implicit interactions equal explicit ones of grade 1; a file equals the
frame it holds.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import ranklens
from ranklens.io import read_frame, write_frame
from ranklens.recsys import (
    SPLITTERS,
    average_recommendation_popularity,
    catalog_coverage,
    evaluate_by_segment,
    evaluate_interactions,
    evaluate_segments,
    gini_index,
    intra_list_diversity,
    long_tail_share,
    novelty,
    personalisation,
    serendipity,
    shannon_entropy,
    split_to_files,
    unexpectedness,
)
from ranklens.recsys.splitters import SHARED_PARAMS

# --------------------------------------------------------------------- a hand-computed case

# u1 ranks a, b, c; u2 ranks b, d; u3 ranks a (by a rank column, no score column)
RECS = {
    "user_id": ["u1", "u1", "u1", "u2", "u2", "u3"],
    "item_id": ["a", "b", "c", "b", "d", "a"],
    "rank": [1, 2, 3, 1, 2, 1],
}
# implicit feedback: no grade column, every row relevant
HELD = {"user_id": ["u1", "u2", "u2", "u3"], "item_id": ["c", "b", "d", "x"]}
# 7 training users; users per item (= interactions per item): a 4, b 2, c 2, d 1;
# profiles: u1 {a}, u2 {c}, u3 {b}
TRAIN = {
    "user_id": ["t1", "t1", "t2", "t3", "t3", "t4", "u1", "u2", "u3"],
    "item_id": ["a", "b", "a", "a", "c", "d", "a", "c", "b"],
}
CATS = {"item_id": ["a", "b", "c", "d"], "category": ["x", "x", "y", "y"]}
ALL = [
    "p@2",
    "mrr",
    "novelty@2",
    "arp@2",
    "aplt@2",
    "catalog_coverage@2",
    "entropy@2",
    "gini@2",
    "ild@2",
    "personalisation@2",
    "unexpectedness@2",
    "serendipity(threshold=0.5)@2",
]


def _log2(x: float) -> float:
    return math.log2(x)


def test_every_metric_by_hand_from_one_call() -> None:
    ev = evaluate_interactions(RECS, HELD, ALL, train=TRAIN, categories=CATS)
    s = ev.summary()
    # p@2: u1 [a, b] misses c; u2 [b, d] both relevant; u3 [a] misses x
    assert s["p@2"] == pytest.approx(1 / 3)
    assert s["mrr"] == pytest.approx((1 / 3 + 1 + 0) / 3)
    nov = {
        "u1": (-_log2(4 / 7) - _log2(2 / 7)) / 2,
        "u2": (-_log2(2 / 7) - _log2(1 / 7)) / 2,
        "u3": -_log2(4 / 7),
    }
    assert ev.result.per_query("novelty@2") == pytest.approx(nov)
    assert s["arp@2"] == pytest.approx((3 + 1.5 + 4) / 3)
    # the head is ceil(0.2 * 4) = 1 item: a
    assert ev.result.per_query("aplt@2") == pytest.approx({"u1": 0.5, "u2": 1.0, "u3": 0.0})
    # the catalog is the training log's items a, b, c, d; top-2 slots a 2, b 2, d 1
    assert s["catalog_coverage@2"] == pytest.approx(3 / 4)
    assert s["entropy@2"] == pytest.approx(-(2 * 0.4 * _log2(0.4) + 0.2 * _log2(0.2)))
    assert s["gini@2"] == pytest.approx((-1 * 0.2 + 1 * 0.4 + 3 * 0.4) / 3)
    ild = ev.result.per_query("ild@2")
    assert ild["u1"] == 0.0 and ild["u2"] == 1.0 and math.isnan(ild["u3"])
    assert s["ild@2"] == pytest.approx(0.5)
    c12, c13 = 0.5, 1 / math.sqrt(2)  # cosines of the 0/1 list vectors; u2, u3 share nothing
    pers = {"u1": 1 - (c12 + c13) / 2, "u2": 1 - c12 / 2, "u3": 1 - c13 / 2}
    assert ev.result.per_query("personalisation@2") == pytest.approx(pers)
    # profiles u1 {a: x}, u2 {c: y}, u3 {b: x}: only u2's b is off-profile
    assert ev.result.per_query("unexpectedness@2") == pytest.approx(
        {"u1": 0.0, "u2": 0.5, "u3": 0.0}
    )
    # serendipitous: relevant and off-profile: u2's b only
    assert ev.result.per_query("serendipity(threshold=0.5)@2") == pytest.approx(
        {"u1": 0.0, "u2": 0.5, "u3": 0.0}
    )
    # one Result over the users, the metrics of all lists together apart
    assert ev.result.query_ids == ("u1", "u2", "u3")
    assert set(ev.totals) == {"catalog_coverage@2", "entropy@2", "gini@2"}
    assert list(s) == [m for m in ALL if m not in ev.totals] + list(ev.totals)
    assert ev.report["users_with_one_item"] == 1
    assert any("'rank' column is read as ranks" in n for n in ev.notes)
    assert any("catalog is the items of the training log" in n for n in ev.notes)


def test_every_metric_is_over_the_same_users() -> None:
    # u4 is recommended to but has no held-out interaction; u5 has one but no list
    recs = {
        "user_id": [*RECS["user_id"], "u4"],
        "item_id": [*RECS["item_id"], "d"],
        "rank": [*RECS["rank"], 1],
    }
    held = {"user_id": [*HELD["user_id"], "u5"], "item_id": [*HELD["item_id"], "a"]}
    metrics = ["p@2", "arp@2", "coverage@2"]
    skip = evaluate_interactions(recs, held, metrics, train=TRAIN)
    # u4 is not judged, so not evaluated: its list is left out of arp and coverage too
    assert skip.result.query_ids == ("u1", "u2", "u3", "u5")
    arp = skip.result.per_query("arp@2")
    assert arp["u1"] == 3.0 and math.isnan(arp["u5"])  # no list: undefined
    assert skip.summary()["arp@2"] == pytest.approx((3 + 1.5 + 4) / 3)
    assert skip.summary()["coverage@2"] == pytest.approx(3 / 4)  # a, b, d of a-d
    zero = evaluate_interactions(recs, held, metrics, train=TRAIN, unjudged="zero")
    assert zero.result.query_ids == ("u1", "u2", "u3", "u4", "u5")
    assert zero.result.per_query("arp@2")["u4"] == 1.0  # d: 1 training interaction
    assert zero.result.per_query("p@2")["u4"] == 0.0
    assert zero.summary()["arp@2"] == pytest.approx((3 + 1.5 + 4 + 1) / 4)
    direct = average_recommendation_popularity(
        ranklens.Run(recs["user_id"], recs["item_id"], [-r for r in recs["rank"]]),
        TRAIN["item_id"],
        k=2,
    )
    assert zero.summary()["arp@2"] == direct


def test_k_applies_to_metrics_without_a_cutoff() -> None:
    ev = evaluate_interactions(RECS, HELD, ["p", "arp", "mrr@1"], train=TRAIN, k=2)
    assert ev.result.metrics == ("p@2", "mrr@1", "arp@2")
    assert ev.summary()["arp@2"] == pytest.approx((3 + 1.5 + 4) / 3)


def test_list_metrics_without_held_out_interactions() -> None:
    ev = evaluate_interactions(RECS, None, ["arp@2", "coverage"], train=TRAIN)
    assert ev.result.query_ids == ("u1", "u2", "u3")
    assert ev.summary() == pytest.approx({"arp@2": (3 + 1.5 + 4) / 3, "coverage": 1.0})
    with pytest.raises(ranklens.InputError, match="interactions="):
        evaluate_interactions(RECS, None, ["p@2"])


@pytest.mark.parametrize(
    "metric,keyword",
    [
        ("novelty", "train="),
        ("arp@5", "train="),
        ("coverage", "catalog="),
        ("ild", "item_features="),
        ("unexpectedness", "train="),
        ("serendipity(threshold=0.5)", "interactions="),
    ],
)
def test_a_missing_input_is_named_before_any_data_is_read(metric: str, keyword: str) -> None:
    # the recommendations do not exist: the missing input is reported first
    held = None if keyword == "interactions=" else HELD
    with pytest.raises(ranklens.InputError, match=keyword) as info:
        evaluate_interactions("/nonexistent/recs.csv", held, [metric])
    assert metric.split("@")[0].split("(")[0] in str(info.value)


def test_other_families_are_refused_naming_the_family() -> None:
    with pytest.raises(ranklens.MetricNameError, match="classification"):
        evaluate_interactions(RECS, HELD, ["accuracy"])


def test_a_score_column_wins_over_a_rank_column_and_rank_can_be_named() -> None:
    recs = {**RECS, "score": [0.1, 0.2, 0.3, 0.1, 0.2, 1.0]}  # reverses u1's and u2's order
    by_score = evaluate_interactions(recs, HELD, ["mrr"])
    assert by_score.notes == ()
    # u1: c first now -> 1; u2: d first -> 1; u3: 0
    assert by_score.summary()["mrr"] == pytest.approx(2 / 3)
    by_rank = evaluate_interactions(recs, HELD, ["mrr"], rank="rank")
    assert by_rank.summary()["mrr"] == pytest.approx((1 / 3 + 1 + 0) / 3)


# --------------------------------------------------------------------- files


@pytest.mark.parametrize("suffix", ["csv", "tsv", "parquet", "jsonl"])
def test_files_give_the_numbers_of_the_frames(tmp_path: Path, suffix: str) -> None:
    recs = {**RECS, "user_id": ["007", "007", "007", "7", "7", "u3"]}
    held = {**HELD, "user_id": ["007", "7", "7", "u3"]}
    train = {**TRAIN, "user_id": ["t1", "t1", "t2", "t3", "t3", "t4", "007", "7", "u3"]}
    paths = {}
    for name, table in (("recs", recs), ("held", held), ("train", train), ("cats", CATS)):
        paths[name] = tmp_path / f"{name}.{suffix}"
        write_frame(pa.table(table), paths[name])
    kw = {"categories": CATS}
    from_frames = evaluate_interactions(recs, held, ALL, train=train, **kw)
    from_files = evaluate_interactions(
        paths["recs"], paths["held"], ALL, train=paths["train"], categories=paths["cats"]
    )
    assert from_files.result.query_ids == ("007", "7", "u3")  # ids stay text
    assert from_files.summary() == pytest.approx(from_frames.summary(), nan_ok=True)
    for m in from_frames.result.metrics:
        np.testing.assert_array_equal(from_files.result.values[m], from_frames.result.values[m])


def test_trec_files_keep_their_grades(tmp_path: Path) -> None:
    qrels = ranklens.Qrels.from_dict({"u1": {"a": 0, "b": 2}, "u2": {"b": 1}})
    run = ranklens.Run.from_dict({"u1": {"a": 2.0, "b": 1.0}, "u2": {"b": 1.0}})
    ranklens.io.write_trec_qrels(qrels, tmp_path / "held.qrels")
    ranklens.io.write_trec_run(run, tmp_path / "recs.run")
    ev = evaluate_interactions(tmp_path / "recs.run", tmp_path / "held.qrels", ["p@1", "mrr"])
    # u1: a (grade 0, not relevant) first, b second; u2: b first
    assert ev.result.per_query("mrr") == {"u1": 0.5, "u2": 1.0}
    assert ev.summary() == ranklens.evaluate(qrels, run, ["p@1", "mrr"]).summary()


# --------------------------------------------------------------------- the same numbers


def _random_case(seed: int) -> dict[str, Any]:
    """Recommendations (distinct scores) of every user, held-out interactions of every
    user, a training log with every item and a profile for every user."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(3, 9)), int(rng.integers(4, 12))
    users = [f"u{i}" for i in range(n_users)]
    items = [f"i{j:02d}" for j in range(n_items)]
    rows = []
    for u in users:
        length = int(rng.integers(1, n_items + 1))
        for it in rng.choice(items, size=length, replace=False):
            rows.append((u, str(it)))
    scores = rng.permutation(len(rows)).astype(float)
    recs = {
        "user_id": [u for u, _ in rows],
        "item_id": [i for _, i in rows],
        "score": scores,
    }
    held_rows = [(u, str(rng.choice(items))) for u in users for _ in range(rng.integers(1, 4))]
    held_rows = list(dict.fromkeys(held_rows))  # one row per pair
    held = {"user_id": [u for u, _ in held_rows], "item_id": [i for _, i in held_rows]}
    train_users = [*users, *[f"t{t}" for t in range(4)]]
    tr = [(str(rng.choice(train_users)), i) for i in items]  # every item seen
    tr += [(u, str(rng.choice(items))) for u in users]  # every user has a profile
    tr += [(str(rng.choice(train_users)), str(rng.choice(items))) for _ in range(10)]
    train = {"user_id": [u for u, _ in tr], "item_id": [i for _, i in tr]}
    cats = {i: "xyz"[int(rng.integers(0, 3))] for i in items}
    feats = {i: rng.normal(size=3) + 0.1 for i in items}
    return {"recs": recs, "held": held, "train": train, "cats": cats, "feats": feats}


def _assert_same(a: dict[str, float], b: dict[str, float], what: str) -> None:
    assert a.keys() == b.keys(), what
    np.testing.assert_array_equal(np.array(list(a.values())), np.array(list(b.values())), what)


@pytest.mark.parametrize("seed", range(6))
def test_the_entry_point_gives_the_numbers_of_the_functions(seed: int) -> None:
    c = _random_case(seed)
    ranking = ["ndcg@3", "p@2", "map", "recall@5"]
    beyond = [
        "novelty@3",
        "arp@3",
        "long_tail_share(head_share=0.3)@3",
        "catalog_coverage@3",
        "entropy@3",
        "gini@3",
        "ild@3",
        "personalisation@3",
        "unexpectedness(profile_distance=min)@3",
        "serendipity(threshold=0.4)@3",
    ]
    ev = evaluate_interactions(
        c["recs"], c["held"], ranking + beyond, train=c["train"], item_features=c["feats"]
    )
    # the ranking part: exactly the ranking-only evaluation
    alone = evaluate_interactions(c["recs"], c["held"], ranking)
    for m in ranking:
        _assert_same(ev.result.per_query(m), alone.result.per_query(m), m)
    # the beyond-accuracy part: exactly each function, on the same lists
    run = ranklens.Run(c["recs"]["user_id"], c["recs"]["item_id"], c["recs"]["score"])
    tu, ti = c["train"]["user_id"], c["train"]["item_id"]
    qrels = ranklens.Qrels(
        c["held"]["user_id"], c["held"]["item_id"], [1.0] * len(c["held"]["user_id"])
    )
    feats = c["feats"]
    none: dict[str, Any] = {"k": 3, "reduction": "none"}
    direct = {
        "novelty@3": novelty(run, tu, ti, **none),
        "arp@3": average_recommendation_popularity(run, ti, **none),
        "long_tail_share(head_share=0.3)@3": long_tail_share(run, ti, head_share=0.3, **none),
        "ild@3": intra_list_diversity(run, features=feats, **none),
        "personalisation@3": personalisation(run, **none),
        "unexpectedness(profile_distance=min)@3": unexpectedness(
            run, (tu, ti), features=feats, profile_distance="min", **none
        ),
        "serendipity(threshold=0.4)@3": serendipity(
            run, qrels, profiles=(tu, ti), features=feats, threshold=0.4, **none
        ),
    }
    for m, values in direct.items():
        _assert_same(ev.result.per_query(m), values.per_user(), m)
        assert ev.summary()[m] == values.mean
    catalog = sorted(set(ti))
    assert ev.totals["catalog_coverage@3"] == catalog_coverage(run, catalog, k=3)
    assert ev.totals["entropy@3"] == shannon_entropy(run, catalog, k=3)
    assert ev.totals["gini@3"] == gini_index(run, catalog, k=3)


@pytest.mark.parametrize("seed", range(4))
def test_implicit_interactions_equal_explicit_grade_one(seed: int) -> None:
    c = _random_case(seed)
    metrics = ["ndcg@3", "p@2", "map", "serendipity(threshold=0.5)@3", "novelty"]
    implicit = evaluate_interactions(
        c["recs"], c["held"], metrics, train=c["train"], categories=c["cats"]
    )
    graded = {**c["held"], "grade": [1] * len(c["held"]["user_id"])}
    explicit = evaluate_interactions(
        c["recs"], graded, metrics, weight="grade", train=c["train"], categories=c["cats"]
    )
    for m in implicit.result.metrics:
        _assert_same(implicit.result.per_query(m), explicit.result.per_query(m), m)


@pytest.mark.parametrize("seed", range(4))
def test_a_rank_column_equals_the_scores_it_orders(seed: int) -> None:
    c = _random_case(seed)
    recs = c["recs"]
    order = np.lexsort((-np.asarray(recs["score"]), np.asarray(recs["user_id"])))
    rank = np.zeros(len(order), dtype=np.int64)
    users = np.asarray(recs["user_id"])[order]
    starts = np.r_[0, np.flatnonzero(users[1:] != users[:-1]) + 1]
    pos = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rank[order] = pos + 1
    ranked = {"user_id": recs["user_id"], "item_id": recs["item_id"], "rank": rank}
    metrics = ["ndcg@3", "mrr", "ild@2", "novelty@2"]
    kw = {"train": c["train"], "categories": c["cats"]}
    a = evaluate_interactions(recs, c["held"], metrics, **kw)
    b = evaluate_interactions(ranked, c["held"], metrics, **kw)
    for m in a.result.metrics:
        _assert_same(a.result.per_query(m), b.result.per_query(m), m)


# --------------------------------------------------------------------- segments


def test_segments_from_the_training_log_by_hand() -> None:
    # u1 and u2 have training rows (warm), u3 has one (hot with hot_threshold... no:
    # u1 1, u2 1, u3 1 -> all warm); add a user without training rows
    recs = {**RECS, "user_id": ["u1", "u1", "u1", "u2", "u2", "u9"]}
    held = {**HELD, "user_id": ["u1", "u2", "u2", "u9"], "item_id": ["c", "b", "d", "a"]}
    table = evaluate_segments(recs, held, ["p@2", "arp@2"], train=TRAIN)
    # p@2: u1 0, u2 1 (warm); u9 [a] relevant a: 1/2 (cold)
    assert table.values["p@2"] == pytest.approx({"all": 0.5, "cold": 0.5, "warm": 0.5})
    # arp@2: u1 3, u2 1.5 (warm); u9 4 (cold)
    assert table.values["arp@2"] == pytest.approx({"all": 8.5 / 3, "cold": 4.0, "warm": 2.25})
    assert table.counts == {"all": 3, "cold": 1, "warm": 2}
    hot = evaluate_segments(recs, held, ["p@2"], train=TRAIN, hot_threshold=1)
    assert hot.counts == {"all": 3, "cold": 1, "warm": 2}  # nobody has more than 1 row


@pytest.mark.parametrize("by", ["user", "item"])
def test_segments_equal_evaluate_by_segment(by: str) -> None:
    from ranklens.recsys import label_segments
    from ranklens.recsys.interactions import interaction_tables

    c = _random_case(3)
    # users u0, u1 and items i00, i01 become cold
    keep = [
        u not in ("u0", "u1") and i not in ("i00", "i01")
        for u, i in zip(c["train"]["user_id"], c["train"]["item_id"], strict=True)
    ]
    train = {k: [v for v, ok in zip(col, keep, strict=True) if ok] for k, col in c["train"].items()}
    table = evaluate_segments(
        c["recs"], c["held"], ["ndcg@3", "p@2"], train=train, by=by, hot_quantile=0.5
    )
    qrels, run, _ = interaction_tables(
        c["recs"],
        c["held"],
        user="user_id",
        item="item_id",
        score="score",
        rank=None,
        weight=None,
        repeats="sum",
        duplicates="error",
    )
    ids = qrels.query_ids if by == "user" else c["held"]["item_id"]
    col = "user_id" if by == "user" else "item_id"
    labels = label_segments(train[col], ids, hot_quantile=0.5)
    assert "cold" in labels.values()
    want = evaluate_by_segment(qrels, run, ["ndcg@3", "p@2"], labels, by=by)
    assert table.segments == want.segments and table.counts == want.counts
    assert table.rows() == want.rows()


def test_segments_refuse_what_they_cannot_split() -> None:
    with pytest.raises(ranklens.InputError, match="coverage"):
        evaluate_segments(RECS, HELD, ["coverage"], train=TRAIN)
    with pytest.raises(ranklens.InputError, match=r"by='item'.*pass interactions="):
        evaluate_segments(RECS, None, ["arp"], train=TRAIN, by="item")


# --------------------------------------------------------------------- split files


LOG = pa.table(
    {
        "user_id": ["007", "007", "007", "7", "7", "7", "a,b", "a,b", "x", "x"],
        "item_id": ["i1", "i2", "i3", "i1", "i4", "i2", "i3", "i1", "i2", "i4"],
        "timestamp": [1, 2, 3, 1, 5, 6, 2, 7, 8, 9],
        "rating": [1, 0, 1, 0, 1, 1, 0, 1, 0, 1],
    }
)

PARAMS: dict[str, dict[str, Any]] = {
    "random": {"test_size": 0.3, "n_splits": 2, "random_state": 1},
    "kfold": {"n_splits": 3},
    "stratified": {"n_splits": 2, "y": "rating"},
    "group-kfold": {"n_splits": 2},
    "leave-p-out": {"p": 1},
    "leave-last": {"n": 1},
    "leave-one-out": {},
    "user-ratio": {"test_size": 0.5},
    "time": {"test_start": 6},
    "time-cv": {"n_splits": 2, "test_size": 2},
    "two-stage": {"test_start": 8, "local_test_start": 3, "random_state": 0},
}


def test_every_splitter_is_declared_and_covered() -> None:
    assert set(SPLITTERS) == set(PARAMS)
    for d in SPLITTERS.values():
        for p in (*d.params, *SHARED_PARAMS):
            assert p.type in ("int", "float", "bool", "str", "column", "time", "duration")
            assert p.doc


@pytest.mark.parametrize("name", sorted(PARAMS))
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_split_files_round_trip_the_rows(tmp_path: Path, name: str, fmt: str) -> None:
    src = tmp_path / "log.csv"
    write_frame(LOG, src)
    out = split_to_files(src, name, tmp_path / "out", format=fmt, params=PARAMS[name])
    assert out.files and all(Path(f.path).exists() for f in out.files)
    back = {f.path: read_frame(f.path, text=("user_id", "item_id")) for f in out.files}
    for f in out.files:
        assert back[f.path].num_rows == f.rows
        assert back[f.path].column("user_id").type == pa.string()
        assert set(back[f.path].column_names) == set(LOG.column_names)
    # each fold's train and test rows are rows of the log, disjoint, and for splitters
    # that drop nothing, all of it
    key = list(zip(*(LOG.column(c).to_pylist() for c in LOG.column_names), strict=True))
    folds: dict[Any, dict[str, list[Any]]] = {}
    for f in out.files:
        t = back[f.path]
        rows = list(zip(*(t.column(c).to_pylist() for c in LOG.column_names), strict=True))
        assert set(rows) <= set(key), f.path
        folds.setdefault(f.fold, {})[f.role] = rows
    if name != "two-stage":
        for fold in folds.values():
            assert not set(fold["train"]) & set(fold["test"])
            if name not in ("time", "time-cv"):
                assert sorted(fold["train"] + fold["test"]) == sorted(key)


def test_leave_one_out_files_by_hand(tmp_path: Path) -> None:
    out = split_to_files(LOG, "leave-one-out", tmp_path, format="csv")
    assert [(f.role, f.fold, Path(f.path).name, f.rows) for f in out.files] == [
        ("train", None, "train.csv", 6),
        ("test", None, "test.csv", 4),
    ]
    test = read_frame(tmp_path / "test.csv", text=("user_id", "item_id"))
    # the last interaction of each user by time
    assert sorted(zip(test["user_id"].to_pylist(), test["item_id"].to_pylist(), strict=True)) == [
        ("007", "i3"),
        ("7", "i2"),
        ("a,b", "i1"),
        ("x", "i4"),
    ]


def test_folds_are_numbered_and_stages_named(tmp_path: Path) -> None:
    out = split_to_files(LOG, "kfold", tmp_path / "k", params={"n_splits": 2})
    assert [Path(f.path).name for f in out.files] == [
        "train-0.csv",
        "test-0.csv",
        "train-1.csv",
        "test-1.csv",
    ]
    assert [r.fold for r in out.reports] == [0, 1]
    two = split_to_files(LOG, "two-stage", tmp_path / "s", params=PARAMS["two-stage"])
    assert [f.role for f in two.files] == [
        "global_train",
        "global_test",
        "local_train",
        "local_test",
        "ranker_train",
        "ranker_test",
    ]
    # global test: t >= 8 -> 2 rows; local test: t >= 3 in global train -> 4 rows
    rows = {f.role: f.rows for f in two.files}
    assert rows["global_test"] == 2 and rows["local_test"] == 4
    assert rows["ranker_train"] + rows["ranker_test"] == 4


def test_split_refuses_overwrites_and_unknown_parameters(tmp_path: Path) -> None:
    split_to_files(LOG, "leave-one-out", tmp_path)
    with pytest.raises(ranklens.InputError, match="overwrite=True"):
        split_to_files(LOG, "leave-one-out", tmp_path)
    split_to_files(LOG, "leave-one-out", tmp_path, overwrite=True)
    with pytest.raises(ranklens.InputError, match="'n_split'"):
        split_to_files(LOG, "kfold", tmp_path / "x", params={"n_split": 2})
    with pytest.raises(ranklens.InputError, match="unknown splitter"):
        split_to_files(LOG, "holdout-ish", tmp_path / "x")


def test_split_params_convert_option_text() -> None:
    params = {p.name: p for p in SPLITTERS["time"].params}
    assert params["test_start"].convert("2024-01-05") == "2024-01-05"
    assert params["test_start"].convert("6") == 6
    assert params["gap"].convert("1D") == "1D"
    assert {p.name: p for p in SPLITTERS["kfold"].params}["shuffle"].convert("true") is True
    with pytest.raises(ranklens.InputError, match="--n-splits"):
        {p.name: p for p in SPLITTERS["kfold"].params}["n_splits"].convert("two")


def test_missing_inputs_name_the_command_line_options() -> None:
    from ranklens.recsys.inputs import missing_inputs, parse_metrics

    _, beyond = parse_metrics(["ndcg@10", "coverage", "ild", "novelty", "personalisation"], None)
    missing = missing_inputs(beyond, {"held_out": True, "categories": True})
    assert [(key, [i.option for i in group]) for key, group in missing] == [
        ("coverage", ["--catalog", "--train"]),
        ("novelty", ["--train"]),
    ]
