"""Beyond-accuracy metrics and cold/warm/hot segments of ranklens.recsys:
hand-computed values, brute-force references on random lists, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens as rl
import ranklens.recsys as rs
from ranklens.errors import InputError

RECS = rl.Run.from_dict({
    "u1": {"a": 3, "b": 2, "c": 1},
    "u2": {"a": 3, "d": 2, "e": 1},
    "u3": {"b": 1},
})
CATALOG = ["a", "b", "c", "d", "e", "f", "g", "h"]


def random_recs(seed: int, n_users: int, n_items: int, k: int) -> rl.Run:
    rng = np.random.default_rng(seed)
    data = {}
    for u in range(n_users):
        m = int(rng.integers(1, k + 1))
        items = rng.choice(n_items, size=min(m, n_items), replace=False)
        data[f"u{u}"] = {f"i{i}": float(rng.random()) for i in items}
    return rl.Run.from_dict(data)


def lists_of(run: rl.Run, k: int | None = None) -> dict[str, list[str]]:
    out = {}
    for u, docs in run.to_dict().items():
        ranked = sorted(docs, key=lambda d: (-docs[d], tuple(-ord(c) for c in d)))
        out[u] = ranked[:k] if k else ranked
    return out


# -- coverage ------------------------------------------------------------------------

def test_coverage_entropy_gini_by_hand():
    assert rs.catalog_coverage(RECS, CATALOG) == 5 / 8
    assert rs.catalog_coverage(RECS, CATALOG, k=1) == 2 / 8       # a, b
    # slots: a 2, b 2, c 1, d 1, e 1 of 7
    p = np.array([2, 2, 1, 1, 1]) / 7
    assert math.isclose(rs.shannon_entropy(RECS, CATALOG), float(-(p * np.log2(p)).sum()))
    assert math.isclose(rs.shannon_entropy(RECS, CATALOG, normalise=True),
                        float(-(p * np.log2(p)).sum()) / 3)
    shares = np.sort(np.r_[p, 0, 0, 0])
    g = sum((2 * j - 8 - 1) * shares[j - 1] for j in range(1, 9)) / 7
    assert math.isclose(rs.gini_index(RECS, CATALOG), g)
    even = rl.Run.from_dict({"u1": {"a": 1}, "u2": {"b": 1}})
    assert rs.gini_index(even, ["a", "b"]) == 0.0


def test_unknown_item_in_catalog():
    with pytest.raises(InputError) as e:
        rs.catalog_coverage(RECS, ["a", "b"])
    assert str(e.value) == (
        "catalog_coverage: 3 recommended item(s) are not in the catalog, e.g. ['c', 'd', 'e']; "
        "add them to the catalog or remove them from the recommendations.")


# -- popularity ----------------------------------------------------------------------

TRAIN_USERS = ["x", "x", "y", "y", "z", "z", "z", "w"]
TRAIN_ITEMS = ["a", "b", "a", "c", "a", "d", "d", "e"]


def test_novelty_by_hand():
    # 4 users; a seen by 3, b 1, c 1, d 1 (twice by z), e 1
    info = {"a": -math.log2(3 / 4), **{i: 2.0 for i in "bcde"}}
    want = np.mean([np.mean([info[i] for i in lst]) for lst in lists_of(RECS).values()])
    assert math.isclose(rs.novelty(RECS, TRAIN_USERS, TRAIN_ITEMS), want)
    with pytest.raises(InputError) as e:
        rs.novelty(RECS, ["x"], ["a"])
    assert str(e.value).startswith(
        "novelty: 4 recommended item(s) have no training interaction, e.g. ['b', 'c', 'd'], "
        "so their self-information is infinite;")
    with pytest.raises(InputError, match="must be equally long"):
        rs.novelty(RECS, ["x"], ["a", "b"])


def test_arp_and_long_tail_by_hand():
    phi = {"a": 3, "b": 1, "c": 1, "d": 2, "e": 1}
    want = np.mean([np.mean([phi[i] for i in lst]) for lst in lists_of(RECS).values()])
    assert math.isclose(rs.average_recommendation_popularity(RECS, TRAIN_ITEMS), want)
    # 5 items in training, head_share 0.2 -> head = {a}; long-tail share per user
    assert math.isclose(rs.long_tail_share(RECS, TRAIN_ITEMS), np.mean([2 / 3, 2 / 3, 1.0]))
    # head_share 0.4 -> head = {a, d}
    assert math.isclose(rs.long_tail_share(RECS, TRAIN_ITEMS, head_share=0.4),
                        np.mean([2 / 3, 1 / 3, 1.0]))
    with pytest.raises(InputError, match="'head_share' parameter must be a float"):
        rs.long_tail_share(RECS, TRAIN_ITEMS, head_share=1)


# -- diversity -----------------------------------------------------------------------

def test_ild_categories_and_features_by_hand():
    cats = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"}
    # u1: a,b,c -> pairs (ab 0, ac 1, bc 1) = 2/3; u2: a,d,e -> 2/3; u3 has one item: skipped
    assert math.isclose(rs.intra_list_diversity(RECS, categories=cats), 2 / 3)
    feats = {"a": [1, 0], "b": [0, 1], "c": [1, 1], "d": [2, 0], "e": [-1, 0]}
    d = 1 - 1 / math.sqrt(2)
    u1 = (1 + d + d) / 3
    u2 = (0 + 2 + 2) / 3
    assert math.isclose(rs.intra_list_diversity(RECS, features=feats), (u1 + u2) / 2)
    ids = list(feats)
    mat = np.array(list(feats.values()))
    assert math.isclose(rs.intra_list_diversity(RECS, features=(ids, mat)), (u1 + u2) / 2)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_ild_matches_pairwise(seed):
    run = random_recs(seed, 6, 10, 5)
    rng = np.random.default_rng(seed)
    vec = {f"i{i}": rng.normal(size=3) for i in range(10)}
    lists = [lst for lst in lists_of(run, 4).values() if len(lst) > 1]
    if not lists:
        return
    cos = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))  # noqa: E731
    want = np.mean([np.mean([1 - cos(vec[x], vec[y]) for x, y in itertools.permutations(lst, 2)])
                    for lst in lists])
    assert math.isclose(rs.intra_list_diversity(run, features=vec, k=4), want, abs_tol=1e-12)


def test_ild_unknown_items_and_zero_vectors():
    with pytest.raises(InputError) as e:
        rs.intra_list_diversity(RECS, features={"a": [1.0], "b": [2.0]})
    assert str(e.value) == (
        "intra_list_diversity: 3 recommended item(s) have no features, e.g. ['c', 'd', 'e']; "
        "add them to features or remove them from the recommendations.")
    feats = {i: [1.0, 0.0] for i in "abcde"} | {"c": [0.0, 0.0]}
    with pytest.raises(InputError, match=r"item\(s\) \['c'\] have an all-zero feature vector"):
        rs.intra_list_diversity(RECS, features=feats)
    with pytest.raises(InputError, match="give exactly one of features and categories"):
        rs.intra_list_diversity(RECS)


# -- serendipity / personalisation -------------------------------------------------------

def test_serendipity_by_hand():
    qrels = rl.Qrels.from_dict({"u1": {"a": 1, "c": 1}, "u2": {"d": 2, "e": 0}})
    popular = rl.Run.from_dict({u: {"a": 1.0, "b": 0.5} for u in ("u1", "u2", "u3")})
    # u1: c (a is expected) -> 1/3 ; u2: d -> 1/3 ; u3: none -> 0
    assert math.isclose(rs.serendipity(RECS, qrels, popular), (1 / 3 + 1 / 3 + 0) / 3)
    assert math.isclose(rs.serendipity(RECS, qrels, popular, rel_threshold=2), (1 / 3) / 3)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 8))
def test_personalisation_matches_pairs(seed, n_users):
    run = random_recs(seed, n_users, 8, 4)
    lists = [set(v) for v in lists_of(run).values()]
    sims = [len(a & b) / math.sqrt(len(a) * len(b)) for a, b in itertools.permutations(lists, 2)]
    assert math.isclose(rs.personalisation(run), 1 - float(np.mean(sims)), abs_tol=1e-12)


def test_personalisation_by_hand_and_bad_input():
    same = rl.Run.from_dict({"u1": {"a": 1, "b": 0}, "u2": {"a": 1, "b": 0}})
    assert math.isclose(rs.personalisation(same), 0.0, abs_tol=1e-12)
    with pytest.raises(InputError, match="needs recommendations for at least 2 users, got 1"):
        rs.personalisation(rl.Run.from_dict({"u1": {"a": 1}}))
    with pytest.raises(InputError) as e:
        rs.personalisation({"u1": {"a": 1}})
    assert str(e.value).startswith("personalisation: recs must be a ranklens.Run")
    with pytest.raises(InputError, match=r"the 'k' parameter must be an int in the range"):
        rs.personalisation(RECS, k=0)


def test_cutoff_uses_trec_tie_order():
    run = rl.Run.from_dict({"u1": {"a": 1, "b": 1}, "u2": {"c": 1}})
    # ties: item id descending -> b first
    assert rs.catalog_coverage(run, ["a", "b", "c"], k=1) == 2 / 3
    assert rs.average_recommendation_popularity(run, ["b", "b", "c"], k=1) == 1.5


# -- segments ------------------------------------------------------------------------

def test_label_segments():
    labels = rs.label_segments(TRAIN_USERS, ["x", "z", "w", "new"], hot_threshold=2)
    assert labels == {"new": "cold", "w": "warm", "x": "warm", "z": "hot"}
    assert rs.label_segments(TRAIN_USERS) == {u: "warm" for u in "wxyz"}
    q = rs.label_segments(TRAIN_USERS, hot_quantile=0.5)
    assert q == {"w": "warm", "x": "warm", "y": "warm", "z": "hot"}
    with pytest.raises(InputError, match="give hot_threshold or hot_quantile, not both"):
        rs.label_segments(TRAIN_USERS, hot_threshold=1, hot_quantile=0.5)
    with pytest.raises(InputError, match="'hot_threshold' parameter must be an int"):
        rs.label_segments(TRAIN_USERS, hot_threshold=0)


def test_evaluate_by_user_segment():
    qrels = rl.Qrels.from_dict({"u1": {"a": 1}, "u2": {"x": 1}, "u3": {"b": 1},
                                "u4": {"a": 1}})
    segs = {"u1": "warm", "u2": "cold", "u3": "hot"}
    t = rs.evaluate_by_segment(qrels, RECS, ["p@1", "recip_rank"], segs)
    # u4 has no recommendations: skipped under the default missing='skip'
    assert t.segments == ("all", "cold", "warm", "hot")
    assert t.counts == {"all": 3, "cold": 1, "warm": 1, "hot": 1}
    assert t.values["p@1"]["warm"] == 1.0 and t.values["p@1"]["cold"] == 0.0
    assert t.values["recip_rank"]["hot"] == 1.0
    t = rs.evaluate_by_segment(qrels, RECS, ["p@1"], {"u1": "warm"}, missing="zero")
    assert t.counts == {"all": 4, "warm": 1, "unlabelled": 3}
    assert t.values["p@1"]["unlabelled"] == 1 / 3
    frame = t.to_frame()
    assert list(frame.columns) == ["n_queries", "p@1"]
    assert frame.loc["all", "n_queries"] == t.counts["all"]


def test_evaluate_by_item_segment():
    qrels = rl.Qrels.from_dict({"u1": {"a": 1, "c": 1}, "u2": {"e": 1, "z": 1}})
    items = {"a": "warm", "c": "cold", "e": "cold", "z": "cold"}
    t = rs.evaluate_by_segment(qrels, RECS.take_queries(["u1", "u2"]), ["recall@3"], items,
                               by="item")
    # warm: only u1 has a warm judged item (a): found -> 1
    assert t.values["recall@3"]["warm"] == 1.0
    assert t.counts["warm"] == 1
    # cold: u1 {c} found -> 1 ; u2 {e, z}: e found -> 0.5
    assert t.values["recall@3"]["cold"] == 0.75
    with pytest.raises(InputError, match="by must be 'user' or 'item', got 'day'"):
        rs.evaluate_by_segment(qrels, RECS, ["p@1"], items, by="day")
