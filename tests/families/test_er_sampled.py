"""Entity-resolution estimates from a sample of labelled clusters
(``entity_resolution.sampled_estimates``): hand-computed values, er-evaluation's
estimators on random cases and every weighting, and interval coverage by simulation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from ranklens import entity_resolution as er


def test_hand_computed_uniform() -> None:
    # records 0..5; predicted {0,1,2} {3,4} {5}; sampled clusters c1 = {0,1}, c2 = {2,3}
    pred = [0, 0, 0, 1, 1, 2]
    est = er.sampled_estimates(pred, [0, 1, 2, 3], ["c1", "c1", "c2", "c2"])
    # c1: n = {pred0: 2}: TP 1, FP 2 * (3 - 2) = 2 -> A = 1 + 1 = 2; C(2,2) = 1
    # c2: n = {pred0: 1, pred1: 1}: TP 0, FP 1*2 + 1*1 = 3 -> A = 1.5; C(2,2) = 1
    # precision: B = (1, 0), A = (2, 1.5): R = 0.5 / 1.75; adj = 1 + mean(A (B/0.5 - A/1.75))
    # / (1 * 1.75)
    b, a = np.array([1.0, 0.0]), np.array([2.0, 1.5])
    r = b.mean() / a.mean()
    adj = 1 + np.mean(a * (b / b.mean() - a / a.mean())) / a.mean()
    assert est["pairwise_precision"]["estimate"] == pytest.approx(adj * r)
    op = np.sum((a / a.mean()) ** 2 + (b / b.mean()) ** 2 - 2 * a * b / (a.mean() * b.mean())) / 2
    assert est["pairwise_precision"]["std_error"] == pytest.approx(r * math.sqrt(op))
    # B-cubed recall: c1 (4)/4 = 1, c2 (1 + 1)/4 = 1/2; denominators 1: mean 0.75 exactly
    assert est["bcubed_recall"]["estimate"] == pytest.approx(0.75)
    # B-cubed precision: c1 (4/3)/2 = 2/3, c2 (1/3 + 1/2)/2 = 5/12 -> 0.5416...
    assert est["bcubed_precision"]["estimate"] == pytest.approx((2 / 3 + 5 / 12) / 2)
    # pairwise recall: B = (1, 0), A = (1, 1): 0.5 (adj = 1 + mean(A (2B - 1)) = 1)
    assert est["pairwise_recall"]["estimate"] == pytest.approx(0.5)


def test_whole_population_sample_equals_metrics() -> None:
    rng = np.random.default_rng(0)
    t = rng.integers(0, 30, 300)
    p = np.where(rng.random(300) < 0.7, t, rng.integers(0, 30, 300))
    est = er.sampled_estimates(p, np.arange(300), t)
    # every cluster sampled: sum B / sum A, up to the bias adjustment's O(1/n) term
    assert est["pairwise_precision"]["estimate"] == pytest.approx(
        er.pairwise(t, p)["precision"], abs=0.02
    )
    b3 = er.bcubed(t, p, weighting="true_entity")
    assert est["bcubed_recall"]["estimate"] == pytest.approx(b3["recall"])
    assert est["bcubed_precision"]["estimate"] == pytest.approx(b3["precision"])


def test_errors() -> None:
    with pytest.raises(rl.InputError, match=r"record indices 0\.\.2"):
        er.sampled_estimates([0, 1, 1], [0, 3], ["a", "a"])
    with pytest.raises(rl.InputError, match="record 1 more than once"):
        er.sampled_estimates([0, 1, 1], [1, 1], ["a", "a"])
    with pytest.raises(rl.InputError, match="equally long"):
        er.sampled_estimates([0, 1, 1], [0, 1], ["a"])
    with pytest.raises(rl.InputError, match="no weight for sampled entity 'b'"):
        er.sampled_estimates([0, 1, 1], [0, 1], ["a", "b"], weights={"a": 1.0})
    with pytest.raises(rl.InputError, match="> 0"):
        er.sampled_estimates([0, 1, 1], [0, 1], ["a", "b"], weights={"a": 1.0, "b": 0})
    with pytest.raises(rl.InputError, match="weights"):
        er.sampled_estimates([0, 1, 1], [0, 1], ["a", "b"], weights="equal")


def _case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    t = rng.integers(0, max(2, n // int(rng.integers(2, 6))), n)
    p = np.where(rng.random(n) < rng.uniform(0.3, 0.95), t, rng.integers(0, n, n))
    clusters = np.unique(t)
    chosen = rng.choice(clusters, size=max(1, len(clusters) // 3), replace=False)
    recs = np.flatnonzero(np.isin(t, chosen))
    return p, t, recs, chosen


@pytest.mark.reference
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore:The .* keyword")  # er-evaluation on pandas 3
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighting", ["uniform", "cluster_size", "mapping"])
def test_reference_er_evaluation(seed: int, weighting: str) -> None:
    pd = pytest.importorskip("pandas")
    ee = pytest.importorskip("er_evaluation.estimators")
    p, t, recs, chosen = _case(seed)
    labels = np.array([f"c{x}" for x in t[recs]])
    weights: Any = weighting
    peer_w: Any = weighting
    if weighting == "mapping":
        rng = np.random.default_rng(seed + 100)
        weights = {
            f"c{c}": float(w) for c, w in zip(chosen, rng.uniform(0.5, 3, len(chosen)), strict=True)
        }
        peer_w = pd.Series(weights)
    ours = er.sampled_estimates(p, recs, labels, weights=weights)
    prediction = pd.Series(p, index=np.arange(len(p)))
    sample = pd.Series(labels, index=recs)
    peer = {
        "pairwise_precision": ee.pairwise_precision_estimator,
        "pairwise_recall": ee.pairwise_recall_estimator,
        "bcubed_precision": ee.b_cubed_precision_estimator,
        "bcubed_recall": ee.b_cubed_recall_estimator,
    }
    for name, fn in peer.items():
        est, sd = fn(prediction, sample, peer_w)
        assert ours[name]["estimate"] == pytest.approx(est, rel=1e-9, abs=1e-12), name
        if np.isnan(sd):
            assert np.isnan(ours[name]["std_error"]), name
        else:
            assert ours[name]["std_error"] == pytest.approx(sd, rel=1e-7, abs=1e-12), name


def test_interval_coverage_simulation() -> None:
    # a population of 3,000 true clusters; 400 sampled uniformly without replacement, 300
    # times: the 95% intervals (estimate +- 1.96 se) cover the population value about 95%
    rng = np.random.default_rng(2026)
    n_clusters = 3000
    sizes = rng.integers(1, 7, n_clusters)
    t = np.repeat(np.arange(n_clusters), sizes)
    n = len(t)
    p = t.copy()
    split = rng.random(n) < 0.15  # some records split off into their own entity
    p[split] = n_clusters + np.arange(int(split.sum()))
    merge = rng.random(n) < 0.1  # others merged into a random entity
    p[merge] = rng.integers(0, n_clusters, int(merge.sum()))
    truth = {
        "pairwise_precision": er.pairwise(t, p)["precision"],
        "pairwise_recall": er.pairwise(t, p)["recall"],
        "bcubed_precision": er.bcubed(t, p, weighting="true_entity")["precision"],
        "bcubed_recall": er.bcubed(t, p, weighting="true_entity")["recall"],
    }
    starts = np.concatenate([[0], np.cumsum(sizes)])
    hits = dict.fromkeys(truth, 0)
    reps = 300
    for _ in range(reps):
        chosen = np.sort(rng.choice(n_clusters, 400, replace=False))
        recs = np.concatenate([np.arange(starts[c], starts[c + 1]) for c in chosen])
        est = er.sampled_estimates(p, recs, t[recs])
        for k, v in truth.items():
            e, se = est[k]["estimate"], est[k]["std_error"]
            hits[k] += abs(e - v) <= 1.96 * se
    for k, h in hits.items():
        # 95% nominal; binomial sd over 300 reps is 1.3 points (with-replacement
        # variance: slightly conservative for a 13% sample)
        assert 0.91 <= h / reps <= 0.995, (k, h / reps)
