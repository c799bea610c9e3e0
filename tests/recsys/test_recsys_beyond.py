"""Beyond-accuracy metrics and cold/warm/hot segments of ranklens.recsys:
hand-computed values, brute-force references on random lists, bad input."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens as rl
import ranklens.recsys as rs
from ranklens.errors import InputError

RECS = rl.Run.from_dict(
    {
        "u1": {"a": 3, "b": 2, "c": 1},
        "u2": {"a": 3, "d": 2, "e": 1},
        "u3": {"b": 1},
    }
)
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
    assert rs.catalog_coverage(RECS, CATALOG, k=1) == 2 / 8  # a, b
    # slots: a 2, b 2, c 1, d 1, e 1 of 7
    p = np.array([2, 2, 1, 1, 1]) / 7
    assert math.isclose(rs.shannon_entropy(RECS, CATALOG), float(-(p * np.log2(p)).sum()))
    assert math.isclose(
        rs.shannon_entropy(RECS, CATALOG, normalise=True), float(-(p * np.log2(p)).sum()) / 3
    )
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
        "add them to the catalog or remove them from the recommendations."
    )


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
        "so their self-information is infinite;"
    )
    with pytest.raises(InputError, match="must be equally long"):
        rs.novelty(RECS, ["x"], ["a", "b"])


def test_arp_and_long_tail_by_hand():
    phi = {"a": 3, "b": 1, "c": 1, "d": 2, "e": 1}
    want = np.mean([np.mean([phi[i] for i in lst]) for lst in lists_of(RECS).values()])
    assert math.isclose(rs.average_recommendation_popularity(RECS, TRAIN_ITEMS), want)
    # 5 items in training, head_share 0.2 -> head = {a}; long-tail share per user
    assert math.isclose(rs.long_tail_share(RECS, TRAIN_ITEMS), np.mean([2 / 3, 2 / 3, 1.0]))
    # head_share 0.4 -> head = {a, d}
    assert math.isclose(
        rs.long_tail_share(RECS, TRAIN_ITEMS, head_share=0.4), np.mean([2 / 3, 1 / 3, 1.0])
    )
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
    want = np.mean(
        [
            np.mean([1 - cos(vec[x], vec[y]) for x, y in itertools.permutations(lst, 2)])
            for lst in lists
        ]
    )
    assert math.isclose(rs.intra_list_diversity(run, features=vec, k=4), want, abs_tol=1e-12)


def test_ild_unknown_items_and_zero_vectors():
    with pytest.raises(InputError) as e:
        rs.intra_list_diversity(RECS, features={"a": [1.0], "b": [2.0]})
    assert str(e.value) == (
        "intra_list_diversity: 3 recommended item(s) have no features, e.g. ['c', 'd', 'e']; "
        "add them to features or remove them from the recommendations."
    )
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
    qrels = rl.Qrels.from_dict({"u1": {"a": 1}, "u2": {"x": 1}, "u3": {"b": 1}, "u4": {"a": 1}})
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
    t = rs.evaluate_by_segment(
        qrels, RECS.take_queries(["u1", "u2"]), ["recall@3"], items, by="item"
    )
    # warm: only u1 has a warm judged item (a): found -> 1
    assert t.values["recall@3"]["warm"] == 1.0
    assert t.counts["warm"] == 1
    # cold: u1 {c} found -> 1 ; u2 {e, z}: e found -> 0.5
    assert t.values["recall@3"]["cold"] == 0.75
    with pytest.raises(InputError, match="by must be 'user' or 'item', got 'day'"):
        rs.evaluate_by_segment(qrels, RECS, ["p@1"], items, by="day")


# -- per-user values -----------------------------------------------------------------------


def _same(got: dict, want: dict) -> bool:
    """Equal keys, values equal to 1e-12 or both NaN."""
    return got.keys() == want.keys() and all(
        (math.isnan(got[u]) and math.isnan(want[u]))
        or math.isclose(got[u], want[u], rel_tol=1e-12, abs_tol=1e-12)
        for u in got
    )


def test_per_user_values_by_hand():
    info = {"a": -math.log2(3 / 4), **{i: 2.0 for i in "bcde"}}
    v = rs.novelty(RECS, TRAIN_USERS, TRAIN_ITEMS, reduction="none")
    assert isinstance(v, rs.UserValues)
    assert v.metric == "novelty" and v.user_ids == ("u1", "u2", "u3") and len(v) == 3
    assert _same(
        v.per_user(),
        {u: float(np.mean([info[i] for i in lst])) for u, lst in lists_of(RECS).items()},
    )
    assert v.mean == rs.novelty(RECS, TRAIN_USERS, TRAIN_ITEMS)
    phi = {"a": 3, "b": 1, "c": 1, "d": 2, "e": 1}
    v = rs.average_recommendation_popularity(RECS, TRAIN_ITEMS, k=2, reduction="none")
    assert v.per_user() == {"u1": 2.0, "u2": 2.5, "u3": 1.0}
    assert v.mean == rs.average_recommendation_popularity(RECS, TRAIN_ITEMS, k=2)
    assert v.mean == np.mean([np.mean([phi[i] for i in lst]) for lst in lists_of(RECS, 2).values()])
    v = rs.long_tail_share(RECS, TRAIN_ITEMS, head_share=0.4, reduction="none")
    assert _same(v.per_user(), {"u1": 2 / 3, "u2": 1 / 3, "u3": 1.0})
    assert v.mean == rs.long_tail_share(RECS, TRAIN_ITEMS, head_share=0.4)
    # the values are read-only, the frame has one row per user
    with pytest.raises(ValueError, match="read-only"):
        v.values[0] = 0.0
    frame = v.to_frame()
    assert list(frame.columns) == ["long_tail_share"] and frame.index.name == "user"
    assert frame.loc["u2", "long_tail_share"] == v.per_user()["u2"]
    assert repr(v) == "<UserValues long_tail_share: mean=0.6667 over 3 of 3 users>"


def test_reduction_none_and_the_deprecated_per_user_spelling():
    """reduction="none" gives the per-user values; per_user=True (False) still gives them
    (the mean) for one release, warning with the spelling to use."""
    cats = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"}
    calls = {
        "novelty": lambda **kw: rs.novelty(RECS, TRAIN_USERS, TRAIN_ITEMS, **kw),
        "average_recommendation_popularity": lambda **kw: rs.average_recommendation_popularity(
            RECS, TRAIN_ITEMS, **kw
        ),
        "long_tail_share": lambda **kw: rs.long_tail_share(RECS, TRAIN_ITEMS, **kw),
        "intra_list_diversity": lambda **kw: rs.intra_list_diversity(RECS, categories=cats, **kw),
        "personalisation": lambda **kw: rs.personalisation(RECS, **kw),
        "unexpectedness": lambda **kw: rs.unexpectedness(
            RECS, (["u1", "u2", "u3"], ["a", "d", "b"]), categories=cats, **kw
        ),
        "serendipity": lambda **kw: rs.serendipity(
            RECS, rl.Qrels.from_dict({"u1": {"a": 1}}), rl.Run.from_dict({"u1": {"b": 1}}), **kw
        ),
    }
    for name, call in calls.items():
        mean = call()
        assert call(reduction="mean") == mean
        values = call(reduction="none")
        assert isinstance(values, rs.UserValues) and values.metric == name
        assert values.mean == mean
        with pytest.warns(
            rl.RanklensDeprecationWarning,
            match=rf"^{name}: per_user=True is deprecated and goes in the next "
            r"release; pass reduction='none'$",
        ):
            old = call(per_user=True)
        assert isinstance(old, rs.UserValues) and _same(old.per_user(), values.per_user())
        with pytest.warns(rl.RanklensDeprecationWarning, match="pass reduction='mean'"):
            assert call(per_user=False) == mean
        with pytest.raises(
            InputError,
            match=rf"^{name}: reduction must be one of 'mean', "
            r"'none', got 'sum'\.$",
        ):
            call(reduction="sum")
    with pytest.raises(InputError, match="per_user must be True or False, got 'yes'"):
        rs.novelty(RECS, TRAIN_USERS, TRAIN_ITEMS, per_user="yes")


def test_ild_per_user_skips_one_item_lists():
    cats = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "y"}
    v = rs.intra_list_diversity(RECS, categories=cats, reduction="none")
    assert v.per_user()["u1"] == pytest.approx(2 / 3) and math.isnan(v.per_user()["u3"])
    assert v.report == {"users_with_one_item": 1}
    assert v.mean == rs.intra_list_diversity(RECS, categories=cats)
    assert repr(v).endswith("over 2 of 3 users>")


def test_personalisation_per_user_by_hand():
    # u1 {a,b,c}, u2 {a,d,e}, u3 {b}: cos(u1,u2) = 1/3, cos(u1,u3) = 1/sqrt 3, cos(u2,u3) = 0
    v = rs.personalisation(RECS, reduction="none")
    r3 = 1 / math.sqrt(3)
    assert _same(
        v.per_user(), {"u1": 1 - (1 / 3 + r3) / 2, "u2": 1 - (1 / 3) / 2, "u3": 1 - r3 / 2}
    )
    assert v.mean == rs.personalisation(RECS)
    assert math.isclose(v.mean, 1 - (2 / 3 + 2 * r3) / 6)


def test_serendipity_baseline_per_user():
    qrels = rl.Qrels.from_dict({"u1": {"a": 1, "c": 1}, "u2": {"d": 2, "e": 0}})
    popular = rl.Run.from_dict({u: {"a": 1.0, "b": 0.5} for u in ("u1", "u2", "u3")})
    v = rs.serendipity(RECS, qrels, popular, reduction="none")
    assert _same(v.per_user(), {"u1": 1 / 3, "u2": 1 / 3, "u3": 0.0})
    assert v.report == {"users_without_judgments": 1}
    assert v.mean == rs.serendipity(RECS, qrels, popular)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 8))
def test_personalisation_and_ild_per_user_match_loops(seed, n_users):
    run = random_recs(seed, n_users, 8, 4)
    lists = {u: set(v) for u, v in lists_of(run).items()}
    want = {
        u: 1
        - float(
            np.mean([len(a & b) / math.sqrt(len(a) * len(b)) for v, b in lists.items() if v != u])
        )
        for u, a in lists.items()
    }
    got = rs.personalisation(run, reduction="none")
    assert _same(got.per_user(), want)
    assert got.mean == rs.personalisation(run)
    rng = np.random.default_rng(seed)
    vec = {f"i{i}": rng.normal(size=3) for i in range(8)}
    cos = lambda a, b: float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))  # noqa: E731
    want = {
        u: float(np.mean([1 - cos(vec[x], vec[y]) for x, y in itertools.permutations(lst, 2)]))
        if len(lst) > 1
        else math.nan
        for u, lst in lists_of(run).items()
    }
    if all(math.isnan(w) for w in want.values()):
        return
    got = rs.intra_list_diversity(run, features=vec, reduction="none")
    assert _same(got.per_user(), want)
    assert got.mean == rs.intra_list_diversity(run, features=vec)


# -- unexpectedness and serendipity against user profiles ----------------------------------

# u1 knows a, f, b (a twice: counts once); u2 knows g, h; u3 has no profile;
# zz is not recommended to, so its unknown item q is never looked at
PROFILES = (["u1", "u1", "u1", "u1", "u2", "u2", "zz"], ["a", "f", "b", "a", "g", "h", "q"])
CATS = {"a": "x", "b": "x", "c": "y", "d": "y", "e": "z", "f": "y", "g": "y", "h": "z"}


def test_unexpectedness_categories_by_hand():
    # mean: u1 a 1/3, b 1/3, c 2/3 ; u2 a 1, d 1/2, e 1/2
    # min:  u1 a 0, b 0, c 0       ; u2 a 1, d 0, e 0
    with pytest.warns(
        rl.errors.RanklensWarning,
        match=r"unexpectedness: 1 of 3 recommended user\(s\) have no training "
        r"profile, e\.g\. \['u3'\]",
    ):
        v = rs.unexpectedness(RECS, PROFILES, categories=CATS, reduction="none")
    assert _same(v.per_user(), {"u1": 4 / 9, "u2": 2 / 3, "u3": math.nan})
    assert v.report == {"users_without_profile": 1}
    assert math.isclose(v.mean, 5 / 9)
    some = RECS.take_queries(["u1", "u2"])
    assert rs.unexpectedness(some, PROFILES, categories=CATS) == v.mean
    v = rs.unexpectedness(some, PROFILES, categories=CATS, profile_distance="min", reduction="none")
    assert _same(v.per_user(), {"u1": 0.0, "u2": 1 / 3})
    # top-1: u1 a, u2 a
    assert math.isclose(rs.unexpectedness(some, PROFILES, categories=CATS, k=1), (1 / 3 + 1) / 2)


def test_unexpectedness_features_by_hand():
    feats = {"a": [1, 0], "b": [0, 1], "c": [1, 1], "d": [2, 0], "e": [-1, 0]}
    some = RECS.take_queries(["u1", "u2"])
    profiles = (["u1", "u2", "u2"], ["b", "a", "b"])
    # u1 knows b: a 1, b 0, c 1 - 1/sqrt 2 (mean = min with one profile item)
    u1 = (1 + 0 + 1 - 1 / math.sqrt(2)) / 3
    # u2 knows a, b: a (0 + 1)/2, d (0 + 1)/2, e (2 + 1)/2 ; min: 0, 0, 1
    v = rs.unexpectedness(some, profiles, features=feats, reduction="none")
    assert _same(v.per_user(), {"u1": u1, "u2": 5 / 6})
    v = rs.unexpectedness(some, profiles, features=feats, profile_distance="min", reduction="none")
    assert _same(v.per_user(), {"u1": u1, "u2": 1 / 3})
    ids, mat = list(feats), np.array(list(feats.values()), dtype=float)
    assert math.isclose(rs.unexpectedness(some, profiles, features=(ids, mat)), (u1 + 5 / 6) / 2)


def test_serendipity_profiles_by_hand():
    qrels = rl.Qrels.from_dict({"u1": {"a": 1, "c": 1}, "u2": {"a": 1, "d": 1}})
    kw = dict(profiles=PROFILES, categories=CATS)
    with pytest.warns(rl.errors.RanklensWarning, match="serendipity: 1 of 3"):
        # mean unexp > 0.4: u1 c -> 1/3 ; u2 a, d -> 2/3 ; u3 no profile
        v = rs.serendipity(RECS, qrels, threshold=0.4, reduction="none", **kw)
    assert _same(v.per_user(), {"u1": 1 / 3, "u2": 2 / 3, "u3": math.nan})
    assert v.report == {"users_without_judgments": 1, "users_without_profile": 1}
    assert math.isclose(v.mean, 1 / 2)
    some = RECS.take_queries(["u1", "u2"])
    # strictly above: d has unexp 1/2 exactly, so threshold 0.5 drops it
    assert math.isclose(rs.serendipity(some, qrels, threshold=0.5, **kw), (1 / 3 + 1 / 3) / 2)
    # min distance: only u2's a is unexpected
    assert math.isclose(
        rs.serendipity(some, qrels, threshold=0.5, profile_distance="min", **kw), (0 + 1 / 3) / 2
    )
    assert math.isclose(rs.serendipity(some, qrels, threshold=0.5, rel_threshold=2, **kw), 0.0)


def _brute_unexp(lists, profile, dist, how):
    out = {}
    for u, lst in lists.items():
        if not profile.get(u):
            out[u] = [math.nan] * len(lst)
            continue
        agg = np.mean if how == "mean" else np.min
        out[u] = [float(agg([dist(i, j) for j in sorted(profile[u])])) for i in lst]
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10**6),
    st.sampled_from(["mean", "min"]),
    st.booleans(),
    st.sampled_from([1, 5, 1 << 22]),
)
def test_unexpectedness_and_serendipity_match_loops(seed, how, use_categories, block):
    from unittest import mock

    from ranklens.recsys.beyond import _items

    rng = np.random.default_rng(seed)
    run = random_recs(seed, 7, 12, 6)
    n = int(rng.integers(1, 40))
    train_users = ["u0"] + [f"u{rng.integers(0, 9)}" for _ in range(n)]  # u7, u8: not recs
    train_items = [f"i{rng.integers(0, 12)}" for _ in range(n + 1)]
    profile: dict[str, set[str]] = {}
    for u, i in zip(train_users, train_items, strict=True):
        profile.setdefault(u, set()).add(i)
    if use_categories:
        cat = {f"i{i}": int(rng.integers(0, 3)) for i in range(12)}
        kw = {"categories": cat}
        dist = lambda i, j: float(cat[i] != cat[j])  # noqa: E731
    else:
        vec = {f"i{i}": rng.normal(size=3) for i in range(12)}
        kw = {"features": vec}
        dist = lambda i, j: (  # noqa: E731
            1 - float(vec[i] @ vec[j] / np.linalg.norm(vec[i]) / np.linalg.norm(vec[j]))
        )
    lists = lists_of(run, 4)
    unexp = _brute_unexp(lists, profile, dist, how)
    judged = {
        u: {f"i{i}": int(rng.integers(0, 3)) for i in range(12) if rng.random() < 0.5}
        for u in list(lists)[:5]
    }
    qrels = rl.Qrels.from_dict({u: d for u, d in judged.items() if d})
    threshold = float(rng.uniform(0.05, 1.2))
    want_unexp = {u: float(np.mean(v)) for u, v in unexp.items()}
    want_ser = {
        u: (
            math.nan
            if math.isnan(unexp[u][0])
            else sum(
                judged.get(u, {}).get(i, 0) >= 1 and x > threshold
                for i, x in zip(lst, unexp[u], strict=True)
            )
            / len(lst)
        )
        for u, lst in lists.items()
    }
    with mock.patch.object(_items, "BLOCK_VALUES", block), warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.errors.RanklensWarning)
        got = rs.unexpectedness(
            run, (train_users, train_items), profile_distance=how, k=4, reduction="none", **kw
        )
        ser = rs.serendipity(
            run,
            qrels,
            profiles=(train_users, train_items),
            threshold=threshold,
            profile_distance=how,
            k=4,
            reduction="none",
            **kw,
        )
        assert got.mean == rs.unexpectedness(
            run, (train_users, train_items), k=4, profile_distance=how, **kw
        )
    assert _same(got.per_user(), want_unexp)
    assert _same(ser.per_user(), want_ser)
    assert got.report["users_without_profile"] == sum(not profile.get(u) for u in lists)


def test_profile_bad_input():
    feats = {i: [1.0, float(n)] for n, i in enumerate("abcdefgh")}
    qrels = rl.Qrels.from_dict({"u1": {"a": 1}})
    with pytest.raises(InputError) as e:
        rs.unexpectedness(RECS, PROFILES, features={"a": [1.0], "b": [2.0]})
    assert str(e.value) == (
        "unexpectedness: 3 recommended item(s) have no features, e.g. ['c', 'd', 'e']; "
        "add them to features or remove them from the recommendations."
    )
    with pytest.raises(InputError) as e:
        rs.unexpectedness(RECS, PROFILES, features={i: feats[i] for i in "abcde"})
    assert str(e.value) == (
        "unexpectedness: 3 item(s) in the training profiles of recommended users have no "
        "features, e.g. ['f', 'g', 'h']; add them to features or drop those interactions from "
        "profiles."
    )
    with pytest.raises(InputError, match=r"item\(s\) \['g'\] have an all-zero feature vector"):
        rs.unexpectedness(RECS, PROFILES, features=feats | {"g": [0.0, 0.0]})
    with pytest.raises(InputError, match=r"feature vector\(s\) of 1 item\(s\) contain NaN"):
        rs.unexpectedness(RECS, PROFILES, features=feats | {"g": [math.nan, 0.0]})
    with pytest.raises(InputError) as e:
        rs.unexpectedness(RECS, PROFILES, categories=CATS, no_profile="error")
    assert str(e.value).startswith(
        "unexpectedness: 1 recommended user(s) have no training profile, e.g. ['u3'], so their "
        "unexpectedness is undefined;"
    )
    with pytest.raises(
        InputError,
        match=r"none of the 3 recommended user\(s\) has a training "
        "profile",
    ):
        rs.unexpectedness(RECS, (["x"], ["a"]), categories=CATS)
    with pytest.raises(InputError, match=r"profiles must be a tuple \(train_users, train_items\)"):
        rs.unexpectedness(RECS, {"u1": ["a"]}, categories=CATS)
    with pytest.raises(InputError, match=r"must be equally long .* got 2 and 1"):
        rs.unexpectedness(RECS, (["u1", "u2"], ["a"]), categories=CATS)
    with pytest.raises(InputError, match=r"the training interactions \(profiles\) are empty"):
        rs.unexpectedness(RECS, ([], []), categories=CATS)
    with pytest.raises(InputError, match="profile_distance must be 'mean' or 'min', got 'max'"):
        rs.unexpectedness(RECS, PROFILES, categories=CATS, profile_distance="max")
    with pytest.raises(InputError, match="no_profile must be 'skip' or 'error', got 'zero'"):
        rs.unexpectedness(RECS, PROFILES, categories=CATS, no_profile="zero")
    with pytest.raises(InputError, match="give exactly one of features and categories"):
        rs.unexpectedness(RECS, PROFILES)
    with pytest.raises(InputError, match=r"give exactly one of baseline .* and profiles"):
        rs.serendipity(RECS, qrels)
    with pytest.raises(InputError, match=r"give exactly one of baseline .* and profiles"):
        rs.serendipity(RECS, qrels, RECS, profiles=PROFILES, categories=CATS, threshold=0.5)
    with pytest.raises(InputError, match=r"categories, threshold only apply with profiles"):
        rs.serendipity(RECS, qrels, RECS, categories=CATS, threshold=0.5)
    with pytest.raises(InputError, match=r"with profiles=\.\.\. give threshold="):
        rs.serendipity(RECS, qrels, profiles=PROFILES, categories=CATS)
    with pytest.raises(InputError, match="'threshold' parameter must be a finite number"):
        rs.serendipity(RECS, qrels, profiles=PROFILES, categories=CATS, threshold=math.nan)


# -- encoded ids, row order, large inputs ----------------------------------------------------


def _synthetic(seed: int, n_users: int, n_items: int, max_len: int):
    """Integer ids, tied scores (one decimal), lists of 1..max_len items, a training log
    that covers every item, features and categories for every item."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, max_len + 1, n_users)
    users = np.repeat(np.arange(n_users) * 7 + 3, lengths)  # not 0..n-1
    items = np.concatenate([rng.choice(n_items, size=m, replace=False) for m in lengths])
    scores = np.round(rng.random(users.size), 1)
    train_users = np.concatenate(
        [rng.integers(0, n_users, 5 * n_items) * 7 + 3, rng.integers(0, n_users, n_items) * 7 + 3]
    )
    train_items = np.concatenate([rng.integers(0, n_items, 5 * n_items), np.arange(n_items)])
    feats = (np.arange(n_items), rng.normal(size=(n_items, 3)))
    cats = {i: int(rng.integers(0, 4)) for i in range(n_items)}
    return users, items, scores, train_users, train_items, feats, cats


def _metric_values(run, train_users, train_items, catalog, feats, cats, qrels, base, k):
    """Every metric on ``run``: floats, and (user ids, values) for per-user metrics."""
    profiles = (train_users, train_items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.errors.RanklensWarning)
        out = {
            "coverage": rs.catalog_coverage(run, catalog, k=k),
            "entropy": rs.shannon_entropy(run, catalog, k=k),
            "gini": rs.gini_index(run, catalog, k=k),
            "novelty": rs.novelty(run, train_users, train_items, k=k, reduction="none"),
            "arp": rs.average_recommendation_popularity(run, train_items, k=k, reduction="none"),
            "aplt": rs.long_tail_share(run, train_items, k=k, reduction="none"),
            "personalisation": rs.personalisation(run, k=k, reduction="none"),
            "ild_features": rs.intra_list_diversity(run, features=feats, k=k, reduction="none"),
            "ild_categories": rs.intra_list_diversity(run, categories=cats, k=k, reduction="none"),
            "unexp_mean": rs.unexpectedness(run, profiles, features=feats, k=k, reduction="none"),
            "unexp_min": rs.unexpectedness(
                run, profiles, features=feats, k=k, profile_distance="min", reduction="none"
            ),
            "unexp_categories": rs.unexpectedness(
                run, profiles, categories=cats, k=k, reduction="none"
            ),
            "serendipity_baseline": rs.serendipity(run, qrels, base, k=k, reduction="none"),
            "serendipity_profiles": rs.serendipity(
                run, qrels, profiles=profiles, features=feats, threshold=0.6, k=k, reduction="none"
            ),
        }
    return {
        name: (
            (v.user_ids, v.values.tolist(), dict(v.report)) if isinstance(v, rs.UserValues) else v
        )
        for name, v in out.items()
    }


def _identical(a: dict, b: dict) -> None:
    """Equal up to the last bit or two: sums may run over the items in another order
    when the item codes differ (integer ids are coded in text order)."""
    assert a.keys() == b.keys()
    for name in a:
        if isinstance(a[name], tuple):
            assert a[name][0] == b[name][0] and a[name][2] == b[name][2], name
            np.testing.assert_allclose(
                a[name][1], b[name][1], rtol=1e-14, atol=0, err_msg=name
            )  # NaN == NaN
        else:
            assert a[name] == pytest.approx(b[name], rel=1e-14, abs=0), name


def _inputs(seed: int, n_users: int, n_items: int, max_len: int):
    users, items, scores, tu, ti, feats, cats = _synthetic(seed, n_users, n_items, max_len)
    rng = np.random.default_rng(seed + 1)
    judged = rng.random(users.size) < 0.3
    qrels = rl.Qrels.from_arrays(
        users[judged], items[judged], rng.integers(0, 3, int(judged.sum())).astype(float)
    )
    base_users = np.repeat(np.unique(users), 5)
    base = rl.Run.from_arrays(
        base_users,
        np.tile(np.arange(5), base_users.size // 5),
        np.tile(-np.arange(5.0), base_users.size // 5),
    )
    return users, items, scores, tu, ti, np.arange(n_items), feats, cats, qrels, base


@pytest.mark.parametrize("k", [None, 2, 4])
def test_integer_string_and_shuffled_ids_give_identical_values(k):
    from unittest import mock

    import ranklens._shared.parallel as parallel

    users, items, scores, tu, ti, catalog, feats, cats, qrels, base = _inputs(3, 60, 40, 9)
    as_text = lambda a: [str(x) for x in a]  # noqa: E731
    ints = _metric_values(
        rl.Run.from_arrays(users, items, scores), tu, ti, catalog, feats, cats, qrels, base, k
    )
    texts = _metric_values(
        rl.Run.from_arrays(as_text(users), as_text(items), scores),
        as_text(tu),
        as_text(ti),
        as_text(catalog),
        (as_text(feats[0]), feats[1]),
        {str(i): c for i, c in cats.items()},
        rl.Qrels.from_dict(
            {u: {d: r for d, r in docs.items()} for u, docs in qrels.to_dict().items()}
        ),
        rl.Run.from_dict(base.to_dict()),
        k,
    )
    _identical(ints, texts)
    perm = np.random.default_rng(0).permutation(users.size)
    shuffled = rl.Run.from_arrays(users[perm], items[perm], scores[perm])
    _identical(ints, _metric_values(shuffled, tu, ti, catalog, feats, cats, qrels, base, k))
    # the sort cut into one piece per core
    with (
        mock.patch.object(parallel, "LARGE_ROWS", 1),
        mock.patch.dict("os.environ", {"RANKLENS_THREADS": "2"}),
    ):
        _identical(ints, _metric_values(shuffled, tu, ti, catalog, feats, cats, qrels, base, k))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 10**6),
    st.sampled_from([None, 1, 2, 5]),
    st.sampled_from(["shuffled", "ranked", "ranked, users reversed", "ties ascending"]),
    st.booleans(),
)
def test_top_k_lists_match_sorting(seed, k, order, integer_ids):
    from ranklens.recsys.beyond._lists import user_lists

    rng = np.random.default_rng(seed)
    # ties: scores on a coarse grid
    rows = [(u, d, round(s * 3) / 3) for u, d, s in random_recs(seed, 8, 12, 7)]
    if integer_ids:
        rows = [(int(u[1:]) * 11, int(d[1:]) * 13, s) for u, d, s in rows]
    if order == "shuffled":
        rows = [rows[i] for i in rng.permutation(len(rows))]
    else:
        # grouped by user, in ranking order (the checked fast path) or with ties in the
        # wrong order (which must be sorted)
        rows.sort(key=lambda r: str(r[1]), reverse=order != "ties ascending")
        rows.sort(key=lambda r: -r[2])
        rows.sort(key=lambda r: str(r[0]), reverse=order == "ranked, users reversed")
    users, items, scores = (list(c) for c in zip(*rows, strict=True))
    run = rl.Run.from_arrays(users, items, scores)
    lists = user_lists(run, k, "test")
    got = {
        u: lists.items.take(lists.item[a:b]).to_pylist()
        for u, a, b in zip(
            lists.users.to_pylist(), lists.offsets[:-1], lists.offsets[1:], strict=True
        )
    }
    # trec_eval's order: score descending, ties by item id descending (as text)
    want = {}
    for u, docs in run.to_dict().items():
        ranked = sorted(sorted(docs, reverse=True), key=lambda d: -docs[d])
        want[u] = ranked[:k] if k else ranked
    assert list(got) == sorted(want)
    assert got == want


def test_segment_sums_add_in_row_order():
    from ranklens.recsys.beyond import _items, diversity

    rng = np.random.default_rng(1)
    for dim in (1, 3):
        lengths = np.r_[rng.integers(1, 12, 50), 200, 1, 9, 9, 300]
        offsets = np.r_[0, np.cumsum(lengths)]
        unit = rng.normal(size=(30, dim))
        row = rng.integers(0, 30, int(offsets[-1]))
        want = np.zeros((lengths.size, dim))
        np.add.at(want, np.repeat(np.arange(lengths.size), lengths), unit[row])
        for block in (1 << 22, 7):
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(_items, "BLOCK_VALUES", block)
                got = diversity._segment_sums(unit, row, offsets)
            np.testing.assert_array_equal(got, want)


def test_large_unordered_run_matches_a_plain_sort():
    """400,000 rows (both cores sort them) with tied scores, in random row order."""
    users, items, scores, tu, ti, catalog, feats, cats, qrels, base = _inputs(5, 20_000, 3_000, 40)
    perm = np.random.default_rng(2).permutation(users.size)
    run = rl.Run.from_arrays(users[perm], items[perm], scores[perm])
    assert len(run) > 200_000
    k = 10
    # reference top-k: a plain lexsort on (user, -score, -item id rank as text)
    ut, ucode = np.unique(users.astype(str), return_inverse=True)
    it, icode = np.unique(items.astype(str), return_inverse=True)
    order = np.lexsort((-icode, -scores, ucode))
    pos = np.arange(order.size) - np.r_[0, np.cumsum(np.bincount(ucode))][ucode[order]]
    top = order[pos < k]
    counts = np.bincount(icode[top], minlength=it.size)
    cat_ids = np.unique(catalog.astype(str))
    assert rs.catalog_coverage(run, catalog, k=k) == (counts > 0).sum() / cat_ids.size
    _, tu_code = np.unique(tu, return_inverse=True)
    t_items, ti_code = np.unique(ti.astype(str), return_inverse=True)
    seen = np.unique(ti_code.astype(np.int64) * (tu_code.max() + 1) + tu_code)
    p = np.bincount(seen // (tu_code.max() + 1), minlength=t_items.size) / (tu_code.max() + 1)
    info = -np.log2(p[np.searchsorted(t_items, it[icode[top]])])
    per_user = np.bincount(ucode[top], weights=info) / np.bincount(ucode[top])
    v = rs.novelty(run, tu, ti, k=k, reduction="none")
    assert v.user_ids == tuple(ut.tolist())
    np.testing.assert_array_equal(v.values, per_user)
    # means add the values one after another (as trec_eval), not pairwise as numpy
    assert v.mean == pytest.approx(float(per_user.mean()), rel=1e-13)
    grouped = rl.Run.from_arrays(users, items, scores)
    _identical(
        _metric_values(run, tu, ti, catalog, feats, cats, qrels, base, k),
        _metric_values(grouped, tu, ti, catalog, feats, cats, qrels, base, k),
    )


def test_id_inputs_of_every_kind():
    pd = pytest.importorskip("pandas")
    want = rs.catalog_coverage(RECS, CATALOG)
    for catalog in (
        set(CATALOG),
        tuple(CATALOG),
        np.array(CATALOG),
        pd.Index(CATALOG),
        pd.Series(CATALOG),
        pd.Series(CATALOG, dtype="category"),
        {c: 1 for c in CATALOG}.keys(),
    ):
        assert rs.catalog_coverage(RECS, catalog) == want
    # pandas categoricals with unused categories, and a partition of a run
    frame = pd.DataFrame(
        {"u": ["u1", "u1", "u2", "u3"], "i": ["a", "b", "a", "c"], "s": [2.0, 1.0, 1.0, 1.0]}
    )
    frame["i"] = frame["i"].astype(pd.CategoricalDtype(["z", "c", "b", "a", "y"]))
    frame["u"] = frame["u"].astype("category")
    cat_run = rl.Run.from_frame(frame, query="u", doc="i", score="s")
    str_run = rl.Run.from_frame(
        frame.astype(str).assign(s=frame["s"]), query="u", doc="i", score="s"
    )
    for run in (cat_run, cat_run.take_queries(["u1", "u3"])):
        v = rs.novelty(run, TRAIN_USERS, TRAIN_ITEMS, reduction="none")
        same = str_run.take_queries(list(v.user_ids))
        assert (
            v.per_user() == rs.novelty(same, TRAIN_USERS, TRAIN_ITEMS, reduction="none").per_user()
        )
        assert rs.catalog_coverage(run, ["a", "b", "c", "q"]) == rs.catalog_coverage(
            same, ["a", "b", "c", "q"]
        )
    # mapping keys that mix integers and strings are compared as text
    mixed = rl.Run.from_dict({"u1": {"1": 2, "b": 1}})
    assert rs.intra_list_diversity(mixed, categories={1: "x", "b": "x"}) == 0.0


def test_errors_name_integer_ids_as_text():
    run = rl.Run.from_arrays([1, 1, 2, 2], [7, 10, 9, 7], [2.0, 1.0, 2.0, 1.0])
    with pytest.raises(InputError) as e:
        rs.catalog_coverage(run, [1, 2, 3])
    assert str(e.value).startswith(
        "catalog_coverage: 3 recommended item(s) are not in the catalog, e.g. ['10', '7', '9'];"
    )
    with pytest.raises(InputError, match=r"e\.g\. \['10', '9'\], so their self-information"):
        rs.novelty(run, [5, 5], [7, 7])
    with pytest.raises(
        InputError,
        match=r"catalog_coverage catalog: ids must be strings or "
        "integers",
    ):
        rs.catalog_coverage(run, [1.5, 2.5])
    feats = {7: [1.0, 0.0], 9: [0.0, 0.0], 10: [1.0, 1.0]}
    with pytest.raises(InputError, match=r"item\(s\) \['9'\] have an all-zero feature vector"):
        rs.intra_list_diversity(run, features=feats)
    v = rs.novelty(run, [5, 6, 5, 6], [7, 7, 10, 9], reduction="none")  # p(7) = 1
    assert v.user_ids == ("1", "2") and v.per_user() == {"1": 0.5, "2": 0.5}


@pytest.mark.parametrize("ties", ["trec", "input"])
@pytest.mark.parametrize("k", [None, 1, 3])
def test_lists_are_the_rankings_evaluate_uses(ties, k):
    """The top-k lists come from the ranking engine of ranklens.ranking.evaluation: the same order
    under each tie policy (checked through a qrels that grades every item by its id)."""
    from ranklens.ranking.engine import prepare
    from ranklens.recsys.beyond._lists import user_lists

    rng = np.random.default_rng(11)
    rows = [
        (f"u{u}", f"i{i}", float(rng.integers(0, 3)))
        for u in range(6)
        for i in rng.choice(20, size=int(rng.integers(1, 9)), replace=False)
    ]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    run = rl.Run.from_arrays(*(list(c) for c in zip(*rows, strict=True)))
    lists = user_lists(run, k, "test", ties)
    qrels = rl.Qrels.from_arrays(
        [r[0] for r in rows], [r[1] for r in rows], [float(r[1][1:]) + 1 for r in rows]
    )
    prep = prepare(qrels, run, rl.Conventions(ties=ties))
    assert prep.query_ids.to_pylist() == lists.users.to_pylist()
    for q in range(prep.n_queries):
        a, b = prep.offsets[q], prep.offsets[q + 1]
        ranked = [f"i{int(g) - 1}" for g in prep.rel[a:b]][:k]
        got = lists.items.take(lists.item[lists.offsets[q] : lists.offsets[q + 1]]).to_pylist()
        assert got == ranked


def test_ties_and_profile_choose_the_order_of_tied_items():
    # u1's items all tie: trec takes them by id descending, input in row order
    run = rl.Run.from_arrays(["u1"] * 3 + ["u2"], ["a", "c", "b", "a"], [1.0, 1.0, 1.0, 1.0])
    pop = {"a": 3, "b": 2, "c": 1}
    train_items = [i for i, n in pop.items() for _ in range(n)]
    arp = {
        t: rs.average_recommendation_popularity(
            run, train_items, k=1, ties=t, reduction="none"
        ).per_user()
        for t in ("trec", "input")
    }
    assert arp == {"trec": {"u1": 1.0, "u2": 3.0}, "input": {"u1": 3.0, "u2": 3.0}}
    for profile, want in (
        ("ranx", "input"),
        ("spark", "input"),
        ("trec_eval", "trec"),
        ("rectools", "trec"),
    ):
        got = rs.average_recommendation_popularity(
            run, train_items, k=1, profile=profile, reduction="none"
        ).per_user()
        assert got == arp[want], profile
    assert rs.catalog_coverage(run, ["a", "b", "c"], k=1, ties="input") == 1 / 3
    assert rs.catalog_coverage(run, ["a", "b", "c"], k=1) == 2 / 3
    # an explicit ties= wins over the profile's
    assert rs.catalog_coverage(run, ["a", "b", "c"], k=1, profile="ranx", ties="trec") == 2 / 3


def test_ties_without_an_order_are_refused():
    run = rl.Run.from_dict({"u1": {"a": 1.0, "b": 1.0}})
    for kw in ({"ties": "expected"}, {"ties": "optimistic"}, {"profile": "sklearn"}):
        with pytest.raises(rl.UnsupportedError, match=r"ties='trec'.*ties='input'"):
            rs.personalisation(run, **kw)
    with pytest.raises(InputError, match=r"ties must be one of 'trec', 'input'"):
        rs.novelty(run, ["x"], ["a"], ties="bogus")
    with pytest.raises(rl.ConventionError, match="unknown profile"):
        rs.catalog_coverage(run, ["a", "b"], profile="nope")


def test_polars_categorical_ids():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"u": ["u1", "u1", "u2"], "i": ["b", "a", "a"], "s": [1.0, 1.0, 2.0]})
    cat = frame.with_columns(pl.col("u").cast(pl.Categorical), pl.col("i").cast(pl.Categorical))
    run = rl.Run.from_frame(cat, query="u", doc="i", score="s")
    plain = rl.Run.from_frame(frame, query="u", doc="i", score="s")
    for k in (None, 1):
        assert (
            rs.average_recommendation_popularity(
                run, ["a", "a", "b"], k=k, reduction="none"
            ).per_user()
            == rs.average_recommendation_popularity(
                plain, ["a", "a", "b"], k=k, reduction="none"
            ).per_user()
        )
    # top-1: u1 b (tie with a: id descending), u2 a
    assert rs.catalog_coverage(run, pl.Series(["a", "b", "c"]), k=1) == 2 / 3


def test_lists_kept_on_the_run_give_each_cutoff_and_tie_rule_its_own_lists():
    """A run's top-k lists are ordered once per (k, tie rule) and reused: a second metric,
    another k or another tie rule on the same run gives what a fresh run gives."""
    rng = np.random.default_rng(3)
    users = np.repeat([f"u{i}" for i in range(30)], 8)
    items = np.concatenate([rng.choice(12, 8, replace=False) for _ in range(30)]).astype(str)
    scores = rng.integers(0, 3, users.size).astype(float)  # many ties
    train_u, train_i = np.repeat([f"t{i}" for i in range(40)], 6), rng.integers(0, 12, 240)

    def fresh() -> rl.Run:
        return rl.Run.from_arrays(users, items, scores)

    shared = fresh()
    for k, ties in [(3, "trec"), (5, "trec"), (3, "input"), (None, "trec"), (3, "trec")]:
        want_cov = rs.catalog_coverage(fresh(), np.arange(12).astype(str), k=k, ties=ties)
        want_nov = rs.novelty(fresh(), train_u, train_i.astype(str), k=k, ties=ties)
        assert rs.catalog_coverage(shared, np.arange(12).astype(str), k=k, ties=ties) == want_cov
        assert rs.novelty(shared, train_u, train_i.astype(str), k=k, ties=ties) == want_nov
