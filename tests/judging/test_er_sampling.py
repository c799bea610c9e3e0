"""Entity-resolution sampling: pairs (uniform, by score strata) and clusters (size
weighted or uniform), hand-computed inclusion probabilities, properties and draw
frequencies."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens import InputError
from ranklens.judging import sample_clusters, sample_pairs

PAIRS = np.array([[i, i + 1] for i in range(0, 20, 2)])  # 10 pairs


def test_uniform_pairs() -> None:
    s = sample_pairs(PAIRS, 4, seed=1)
    assert len(s) == 4 and s.inclusion.tolist() == [0.4] * 4
    assert {tuple(p) for p in s.pairs} <= {tuple(p) for p in PAIRS}
    again = sample_pairs(PAIRS, 4, seed=1)
    assert np.array_equal(again.pairs, s.pairs)
    assert len(sample_pairs(PAIRS, 50)) == 10  # at most every pair, inclusion 1
    assert sample_pairs(PAIRS, 50).inclusion.tolist() == [1.0] * 10


def test_score_strata_by_hand() -> None:
    # 7 low (< 0.5) and 3 high pairs; 5 asked: 3 high would be 2.5 each -> high gets 2
    # (remainder to the lowest stratum: 3 low, 2 high): inclusion 3/7 and 2/3
    scores = [0.1, 0.2, 0.3, 0.4, 0.45, 0.05, 0.15, 0.9, 0.8, 0.7]
    s = sample_pairs(PAIRS, 5, design="score", scores=scores, edges=[0.5], seed=2)
    got = sorted(zip(s.stratum.tolist(), s.inclusion.tolist(), strict=True))
    assert got == [(0, 3 / 7)] * 3 + [(1, 2 / 3)] * 2
    # a stratum never gets more than it holds: 9 asked, high holds 3 -> 6 low, 3 high
    s = sample_pairs(PAIRS, 9, design="score", scores=scores, edges=[0.5])
    assert sorted(s.inclusion.tolist()) == [6 / 7] * 6 + [1.0] * 3
    # default edges: deciles of the scores, ten strata of one pair
    s = sample_pairs(PAIRS, 10, design="score", scores=scores)
    assert len(set(s.stratum.tolist())) == 10


def test_inclusion_sums_to_the_sample_size() -> None:
    rng = np.random.default_rng(0)
    pairs = rng.integers(0, 1000, size=(500, 2))
    scores = rng.random(500) ** 3
    for size in (0, 1, 10, 37, 499, 500):
        s = sample_pairs(pairs, size, design="score", scores=scores, seed=size)
        assert len(s) == size
        # each stratum that is sampled (all ten from 10 on; one of 50 pairs for size 1)
        # is stood for in full: the weights add up to the pairs of those strata
        assert s.weight.sum() == pytest.approx({0: 0, 1: 50}.get(size, 500))


def test_clusters_by_hand() -> None:
    labels = [5, 5, 7, 7, 7, 9, 9, 1]  # sizes: 5: 2, 7: 3, 9: 2, 1: 1 (no pair)
    s = sample_clusters(labels, 2, weighted=False, seed=0)
    assert s.inclusion.tolist() == [2 / 3] * len(s)
    chosen = set(s.stratum.tolist())
    assert len(chosen) == 2 and 1 not in chosen
    everything = sample_clusters(labels, 10)
    assert sorted(map(tuple, everything.pairs.tolist())) == [
        (0, 1), (2, 3), (2, 4), (3, 4), (5, 6)
    ]  # fmt: skip
    assert everything.inclusion.tolist() == [1.0] * 5


def test_size_weighted_cluster_frequencies() -> None:
    labels = np.repeat(np.arange(6), [2, 3, 4, 5, 8, 2])
    draws, hits = 2000, np.zeros(6)
    for seed in range(draws):
        s = sample_clusters(labels, 2, seed=seed)
        hits[np.unique(s.stratum)] += 1
    # pi = min(1, c * size) summing to 2: 8 * 2 / 24 = 0.67, ..., sizes / 12
    pi = np.array([2, 3, 4, 5, 8, 2]) / 12
    se = np.sqrt(pi * (1 - pi) / draws)
    assert np.all(np.abs(hits / draws - pi) <= 5 * se)
    s = sample_clusters(labels, 2, seed=0)
    assert np.allclose(s.inclusion, pi[s.stratum])


def test_errors_name_the_keyword() -> None:
    with pytest.raises(InputError, match="scores="):
        sample_pairs(PAIRS, 2, design="score")
    with pytest.raises(InputError, match="10 finite numbers"):
        sample_pairs(PAIRS, 2, design="score", scores=[1.0])
    with pytest.raises(InputError, match=r"\(m, 2\) array"):
        sample_pairs([1, 2, 3], 2)
    with pytest.raises(InputError, match="size="):
        sample_pairs(PAIRS, -1)
    with pytest.raises(InputError, match="design"):
        sample_pairs(PAIRS, 2, design="bucket")
