"""Entity resolution metrics: hand-computed, brute-force and er-evaluation /
recordlinkage references, a million records, bad input."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

import ranklens.entity_resolution as er
from ranklens.errors import InputError, RanklensWarning
from ranklens.metrics.registry import REGISTRY

TRUE = [0, 0, 0, 1, 1]
PRED = [0, 0, 1, 1, 1]


def test_hand_computed() -> None:
    # true {0,1,2},{3,4}; predicted {0,1},{2,3,4}
    pw = er.pairwise(TRUE, PRED)
    assert (pw["tp"], pw["fp"], pw["fn"]) == (2, 2, 2)
    assert pw["precision"] == pw["recall"] == pw["f1"] == 0.5
    b3 = er.bcubed(TRUE, PRED)
    assert b3["precision"] == pytest.approx((1 + 1 + 1 / 3 + 2 / 3 + 2 / 3) / 5)
    assert b3["recall"] == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1 + 1) / 5)
    prec, rec = er.bcubed_per_record(TRUE, PRED)
    assert prec.tolist() == pytest.approx([1, 1, 1 / 3, 2 / 3, 2 / 3])
    assert rec.tolist() == pytest.approx([2 / 3, 2 / 3, 1 / 3, 1, 1])
    assert er.cluster_level(TRUE, PRED)["precision"] == 0.0
    cl = er.cluster_level([0, 0, 1, 2], [5, 5, 6, 6])
    assert (cl["precision"], cl["recall"]) == (0.5, pytest.approx(1 / 3))
    # perfect resolution
    perfect = er.bcubed(TRUE, ["a", "a", "a", "b", "b"])
    assert perfect == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_pairs_input_and_closure() -> None:
    true_pairs = [[0, 1], [1, 2], [0, 2], [3, 4]]
    pred_pairs = [[1, 0], [0, 1], [3, 2], [4, 3]]  # order and duplicates ignored
    r = er.pairwise_from_pairs(true_pairs, pred_pairs)
    assert (r["tp"], r["fp"], r["fn"]) == (2, 1, 2)
    ids = er.clusters_from_pairs([[0, 1], [2, 3], [3, 4]], 6)
    assert er.pairwise(TRUE, ids[:5])["tp"] == 2
    assert len(set(ids.tolist())) == 3  # {0,1}, {2,3,4}, {5}
    assert er.pairwise([0, 0, 1, 1, 1, 2], ids)["precision"] == 1.0


def test_blocking_pairs_and_blocks_agree() -> None:
    rng = np.random.default_rng(0)
    n = 200
    true = rng.integers(0, 50, n)
    blocks = np.where(rng.random(n) < 0.8, true % 7, rng.integers(0, 7, n))
    cand = np.array(
        [(i, j) for i, j in itertools.combinations(range(n), 2) if blocks[i] == blocks[j]]
    )
    a = er.blocking(true, blocks=blocks)
    b = er.blocking(true, candidate_pairs=cand)
    assert a == b
    n_true = sum(1 for i, j in itertools.combinations(range(n), 2) if true[i] == true[j])
    hit = sum(1 for i, j in cand if true[i] == true[j])
    assert a["pairs_completeness"] == pytest.approx(hit / n_true)
    assert a["pairs_quality"] == pytest.approx(hit / len(cand))
    assert a["reduction_ratio"] == pytest.approx(1 - len(cand) / (n * (n - 1) / 2))
    linked = er.blocking(true, candidate_pairs=cand, total_pairs=100 * 100)
    assert linked["reduction_ratio"] == pytest.approx(1 - len(cand) / 10_000)


@pytest.mark.reference
@pytest.mark.filterwarnings("ignore:The .* keyword")  # er-evaluation on pandas 3
@pytest.mark.parametrize("seed", range(4))
def test_reference_bruteforce_and_er_evaluation(seed: int) -> None:
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    n = 150
    t = rng.integers(0, 40, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, 40, n))
    # brute force over records
    prec = np.mean([np.sum((p == p[r]) & (t == t[r])) / np.sum(p == p[r]) for r in range(n)])
    assert er.bcubed(t, p)["precision"] == pytest.approx(prec)
    ee = pytest.importorskip("er_evaluation")
    P, R = pd.Series(p), pd.Series(t)
    b3 = er.bcubed(t, p, weighting="true_entity")
    assert b3["precision"] == pytest.approx(ee.b_cubed_precision(P, R))
    assert b3["recall"] == pytest.approx(ee.b_cubed_recall(P, R))
    pw = er.pairwise(t, p)
    assert pw["precision"] == pytest.approx(ee.pairwise_precision(P, R))
    assert pw["recall"] == pytest.approx(ee.pairwise_recall(P, R))
    cl = er.cluster_level(t, p)
    assert cl["precision"] == pytest.approx(ee.cluster_precision(P, R))
    assert cl["recall"] == pytest.approx(ee.cluster_recall(P, R))


@pytest.mark.reference
def test_reference_recordlinkage_blocking() -> None:
    pd = pytest.importorskip("pandas")
    rl = pytest.importorskip("recordlinkage")
    rng = np.random.default_rng(3)
    n = 120
    true = rng.integers(0, 30, n)
    cand = np.array(
        [
            (i, j)
            for i, j in itertools.combinations(range(n), 2)
            if rng.random() < 0.1 or (true[i] == true[j] and rng.random() < 0.7)
        ]
    )
    matches = np.array(
        [(i, j) for i, j in itertools.combinations(range(n), 2) if true[i] == true[j]]
    )
    links_pred = pd.MultiIndex.from_arrays([cand[:, 0], cand[:, 1]])
    links_true = pd.MultiIndex.from_arrays([matches[:, 0], matches[:, 1]])
    r = er.blocking(true, candidate_pairs=cand)
    frame = pd.DataFrame(index=range(n))
    assert r["reduction_ratio"] == pytest.approx(rl.reduction_ratio(links_pred, frame))
    assert r["pairs_completeness"] == pytest.approx(rl.recall(links_true, links_pred))
    assert r["pairs_quality"] == pytest.approx(rl.precision(links_true, links_pred))


def test_million_records_fast() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    true = rng.integers(0, 300_000, n)
    pred = np.where(rng.random(n) < 0.95, true, rng.integers(0, 300_000, n))
    start = time.perf_counter()
    pw = er.pairwise(true, pred)
    b3 = er.bcubed(true, pred)
    cl = er.cluster_level(true, pred)
    bl = er.blocking(true, blocks=true % 1000)
    assert time.perf_counter() - start < 10
    assert 0.8 < pw["precision"] <= 1 and 0.8 < b3["f1"] <= 1 and 0 < cl["recall"] < 1
    assert bl["pairs_completeness"] == 1.0


def test_bad_input() -> None:
    with pytest.raises(InputError, match="true_entities has 3, pred_entities has 2"):
        er.bcubed([0, 0, 1], [0, 1])
    with pytest.raises(InputError, match="pred_entities contains NaN"):
        er.pairwise([0, 1], [0.0, float("nan")])
    with pytest.raises(InputError, match="pairs a record with itself"):
        er.pairwise_from_pairs([[0, 1]], [[2, 2]])
    with pytest.raises(InputError, match=r"must be an \(m, 2\) array"):
        er.pairwise_from_pairs([[0, 1, 2]], [[0, 1]])
    with pytest.raises(InputError, match="outside"):
        er.blocking([0, 0, 1], candidate_pairs=[[0, 5]])
    with pytest.raises(InputError, match="exactly one of"):
        er.blocking([0, 0, 1])
    with pytest.raises(InputError, match="total_pairs must be"):
        er.blocking([0, 0, 1], blocks=[0, 0, 0], total_pairs=1)
    with pytest.raises(InputError, match="weighting must be one of"):
        er.bcubed([0], [0], weighting="cluster")
    with pytest.raises(InputError, match="n_records must be a positive integer"):
        er.clusters_from_pairs([[0, 1]], 0)


def test_no_predicted_pair_is_zero_division() -> None:
    # every predicted entity a singleton: no predicted pair, precision is 0/0
    pw = er.pairwise([0, 0, 1, 1], [0, 1, 2, 3])
    assert (pw["tp"], pw["fp"], pw["fn"]) == (0, 0, 2)
    assert pw["precision"] == 0.0 and pw["recall"] == 0.0 and pw["f1"] == 0.0
    pw1 = er.pairwise([0, 0, 1, 1], [0, 1, 2, 3], zero_division=1.0)
    assert (pw1["precision"], pw1["recall"], pw1["f1"]) == (1.0, 0.0, 0.0)
    # no predicted and no true pair: all three are 0/0
    assert er.pairwise([0, 1, 2], [0, 1, 2], zero_division=1.0)["f1"] == 1.0
    assert np.isnan(er.pairwise([0, 1, 2], [0, 1, 2], zero_division=float("nan"))["f1"])
    # precision = recall = 0 from real counts: F1 is 0 whatever zero_division says
    pw2 = er.pairwise([0, 0, 1, 1], [0, 1, 0, 1], zero_division=1.0)
    assert (pw2["precision"], pw2["recall"], pw2["f1"]) == (0.0, 0.0, 0.0)
    cl = er.cluster_level([0, 0, 1, 1], [0, 1, 0, 1], zero_division=1.0)
    assert (cl["precision"], cl["recall"], cl["f1"]) == (0.0, 0.0, 0.0)


def test_empty_pair_sets() -> None:
    r = er.pairwise_from_pairs([[0, 1], [2, 3]], [])
    assert r == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 2}
    r = er.pairwise_from_pairs([[0, 1]], np.zeros((0, 2), dtype=int), zero_division=1.0)
    assert (r["precision"], r["recall"], r["f1"]) == (1.0, 0.0, 0.0)
    r = er.pairwise_from_pairs([], [[0, 1]])
    assert (r["precision"], r["recall"], r["fp"]) == (0.0, 0.0, 1)
    assert er.pairwise_from_pairs([], [], zero_division=1.0)["f1"] == 1.0
    assert er.clusters_from_pairs([], 3).tolist() == [0, 1, 2]


def test_blocking_without_candidates_or_matches() -> None:
    for kwargs in (
        {"candidate_pairs": []},
        {"candidate_pairs": np.zeros((0, 2), int)},
        {"blocks": [0, 1, 2]},
    ):
        r = er.blocking([0, 0, 1], **kwargs)
        assert r == {
            "reduction_ratio": 1.0,
            "pairs_completeness": 0.0,
            "pairs_quality": 0.0,
            "n_candidates": 0,
            "n_true_matches": 1,
            "n_true_candidates": 0,
        }
        assert er.blocking([0, 0, 1], zero_division=1.0, **kwargs)["pairs_quality"] == 1.0
    # no true match: pairs completeness is 0/0
    r = er.blocking([0, 1, 2], blocks=[0, 0, 1], zero_division=1.0)
    assert (r["pairs_completeness"], r["pairs_quality"]) == (1.0, 0.0)
    with pytest.raises(InputError, match="single record: there is no pair"):
        er.blocking([0], blocks=[0])
    assert er.blocking([0], candidate_pairs=[], total_pairs=5)["reduction_ratio"] == 1.0


def test_zero_division_must_be_a_number() -> None:
    with pytest.raises(InputError, match=r"zero_division .* must be a number"):
        er.pairwise([0, 1], [0, 1], zero_division="warn")
    with pytest.raises(InputError, match="zero_division"):
        er.bcubed([0, 1], [0, 1], zero_division=None)
    with pytest.raises(InputError, match="zero_division"):
        er.blocking([0, 0], blocks=[0, 0], zero_division="0")


def test_entity_id_checks() -> None:
    with pytest.raises(InputError, match=r"true_entities must be a 1-d array"):
        er.pairwise(np.array([[0], [0], [1]]), [0, 0, 1])
    with pytest.raises(InputError, match="mixes string and numeric"):
        er.bcubed(np.array([0, "a"], dtype=object), [0, 1])
    with pytest.warns(RanklensWarning, match="fractional part"):
        er.pairwise([0.5, 0.5, 1.5], [0, 0, 1])


@pytest.mark.reference
@pytest.mark.filterwarnings("ignore:The .* keyword")  # er-evaluation on pandas 3
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize(
    ("true", "pred"),
    [
        ([0, 0, 1, 1], [0, 1, 2, 3]),  # no predicted pair
        ([0, 1, 2, 3], [0, 0, 1, 1]),  # no true pair
        ([0, 1, 2, 3], [0, 1, 2, 3]),  # neither
        ([0], [0]),  # a single record
        ([0, 0, 1, 1], [0, 1, 0, 1]),  # nothing right
        ([0, 0, 0, 1, 1], [0, 0, 1, 1, 1]),
    ],
)
def test_edge_cases_match_er_evaluation(true: list[int], pred: list[int]) -> None:
    # er-evaluation sets 0/0 pairwise precision / recall to 1.0: zero_division=1.0
    pd = pytest.importorskip("pandas")
    ee = pytest.importorskip("er_evaluation")
    P, R = pd.Series(pred), pd.Series(true)
    pw = er.pairwise(true, pred, zero_division=1.0)
    assert pw["precision"] == pytest.approx(ee.pairwise_precision(P, R))
    assert pw["recall"] == pytest.approx(ee.pairwise_recall(P, R))
    assert pw["f1"] == pytest.approx(ee.pairwise_f(P, R))
    cl = er.cluster_level(true, pred, zero_division=1.0)
    assert cl["precision"] == pytest.approx(ee.cluster_precision(P, R))
    assert cl["recall"] == pytest.approx(ee.cluster_recall(P, R))
    assert cl["f1"] == pytest.approx(ee.cluster_f(P, R))
    b3 = er.bcubed(true, pred, weighting="true_entity")
    assert b3["precision"] == pytest.approx(ee.b_cubed_precision(P, R))
    assert b3["recall"] == pytest.approx(ee.b_cubed_recall(P, R))


def test_registered() -> None:
    for name in (
        "bcubed_f1",
        "cluster_precision",
        "reduction_ratio",
        "pairs_completeness",
        "pairs_quality",
    ):
        assert REGISTRY[name].domain == "entity_resolution"


# ------------------------------------------------------------------ found by the contract
# (tests/test_contract_families.py)


def test_zero_division_lies_in_the_ratio_range() -> None:
    # the value of 0/0 was any number (3.0, inf): pairs quality of 3.0, precision of -2.0
    no_pair = [0, 1, 2, 3]
    for bad in (3.0, -2.0, math.inf):
        with pytest.raises(InputError, match=r"zero_division .* in \[0, 1\]"):
            er.pairwise(no_pair, no_pair, zero_division=bad)
        with pytest.raises(InputError, match="zero_division"):
            er.blocking(no_pair, blocks=no_pair, zero_division=bad)
        with pytest.raises(InputError, match="zero_division"):
            er.bcubed(no_pair, no_pair, zero_division=bad)
        with pytest.raises(InputError, match="zero_division"):
            er.cluster_level(no_pair, no_pair, zero_division=bad)
    assert er.blocking(no_pair, blocks=no_pair, zero_division=1.0)["pairs_quality"] == 1.0
    assert math.isnan(er.pairwise(no_pair, no_pair, zero_division="nan")["precision"])
