"""Clustering metrics: seed 004 definitions by hand, sklearn / brute-force
references, large-n pair counting, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import ranklens.clustering as cl
from ranklens.errors import InputError, RanklensWarning
from ranklens.metrics.registry import REGISTRY

sk = pytest.importorskip("sklearn.metrics")


def brute_pairs(t: np.ndarray, p: np.ndarray) -> dict[str, int]:
    out = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for i, j in itertools.combinations(range(len(t)), 2):
        st, sp = t[i] == t[j], p[i] == p[j]
        out["tp" if st and sp else "fp" if sp else "fn" if st else "tn"] += 1
    return out


def test_hand_computed_seed004() -> None:
    t = ["x", "x", "x", "y", "y", "y"]
    p = [0, 0, 1, 1, 2, 2]
    assert cl.pair_confusion(t, p) == {"tp": 2, "fp": 1, "fn": 4, "tn": 8}
    assert cl.rand_index(t, p) == pytest.approx(10 / 15)
    assert cl.jaccard(t, p) == pytest.approx(2 / 7)
    assert cl.pair_precision(t, p) == pytest.approx(2 / 3)
    assert cl.pair_recall(t, p) == pytest.approx(2 / 6)
    assert cl.pair_f1(t, p) == pytest.approx(4 / 9)
    assert cl.purity(t, p) == pytest.approx(5 / 6)
    # purity is 1 for all-singleton clusters (seed 004's caveat)
    assert cl.purity(t, range(6)) == 1.0
    assert cl.pair_precision(t, range(6)) == 0.0
    assert cl.pair_precision(t, range(6), zero_division=1.0) == 1.0


def test_dunn_classic_and_centroid_hand() -> None:
    X = [[0, 0], [0, 1], [4, 0], [4, 2]]
    assert cl.dunn_index(X, [0, 0, 1, 1]) == 2.0
    assert cl.dunn_index(X, [0, 0, 1, 1], variant="centroid") == pytest.approx(math.sqrt(16.25))


@pytest.mark.reference
@pytest.mark.parametrize("seed", range(6))
def test_reference_random(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 60
    t = rng.integers(0, 4, n)
    p = rng.integers(0, 5, n)
    pc = cl.pair_confusion(t, p)
    assert pc == brute_pairs(t, p)
    skm = sk.cluster.pair_confusion_matrix(t, p) // 2
    assert pc == {"tp": skm[1, 1], "fp": skm[0, 1], "fn": skm[1, 0], "tn": skm[0, 0]}
    assert cl.rand_index(t, p) == pytest.approx((pc["tp"] + pc["tn"]) / (n * (n - 1) / 2))
    assert cl.adjusted_rand_index(t, p) == pytest.approx(sk.adjusted_rand_score(t, p))
    assert cl.nmi(t, p) == pytest.approx(sk.normalized_mutual_info_score(t, p))
    assert cl.v_measure(t, p) == pytest.approx(sk.v_measure_score(t, p))
    assert cl.fowlkes_mallows(t, p) == pytest.approx(
        math.sqrt(cl.pair_precision(t, p) * cl.pair_recall(t, p))
    )
    cm = sk.cluster.contingency_matrix(t, p)
    assert cl.purity(t, p) == pytest.approx(cm.max(axis=0).sum() / n)


@pytest.mark.reference
@pytest.mark.parametrize("seed", range(4))
def test_dunn_reference_bruteforce(seed: int) -> None:
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(90, 3))
    lab = rng.integers(0, 4, 90)
    d = cdist(X, X)
    same = lab[:, None] == lab[None, :]
    expected = d[~same].min() / d[same].max()
    assert cl.dunn_index(X, lab) == pytest.approx(expected, rel=1e-12)
    assert cl.dunn_index(X, lab, chunk_size=7) == pytest.approx(expected, rel=1e-12)
    assert cl.dunn_index(X, lab, metric="cityblock") == pytest.approx(
        cdist(X, X, "cityblock")[~same].min() / cdist(X, X, "cityblock")[same].max()
    )
    # centroid variant, written independently
    cents = {c: X[lab == c].mean(axis=0) for c in np.unique(lab)}
    inter = min(np.linalg.norm(cents[a] - cents[b]) for a, b in itertools.combinations(cents, 2))
    intra = max(np.linalg.norm(X[lab == c] - cents[c], axis=1).max() for c in cents)
    assert cl.dunn_index(X, lab, variant="centroid") == pytest.approx(inter / intra)


@pytest.mark.reference
def test_internal_sklearn() -> None:
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(5, 1, (50, 2))])
    lab = np.repeat([0, 1], 50)
    assert cl.silhouette(X, lab) == pytest.approx(sk.silhouette_score(X, lab))
    assert cl.silhouette(X, lab, reduction="none") == pytest.approx(sk.silhouette_samples(X, lab))
    assert cl.davies_bouldin(X, lab) == pytest.approx(sk.davies_bouldin_score(X, lab))
    assert cl.calinski_harabasz(X, lab) == pytest.approx(sk.calinski_harabasz_score(X, lab))
    s1 = cl.silhouette(X, lab, sample_size=40, random_state=3)
    assert s1 == cl.silhouette(X, lab, sample_size=40, random_state=3)
    assert abs(s1 - cl.silhouette(X, lab)) < 0.1


def test_pair_counting_scales() -> None:
    rng = np.random.default_rng(1)
    n = 1_000_000
    t = rng.integers(0, 200_000, n)
    p = np.where(rng.random(n) < 0.9, t, rng.integers(0, 200_000, n))
    pc = cl.pair_confusion(t, p)
    assert sum(pc.values()) == n * (n - 1) // 2
    assert 0.5 < cl.pair_precision(t, p) <= 1.0


def test_bad_input() -> None:
    with pytest.raises(InputError, match="labels_true has 3, labels_pred has 2"):
        cl.purity([0, 1, 1], [0, 1])
    with pytest.raises(InputError, match="labels_pred contains NaN"):
        cl.adjusted_rand_index([0, 1], [0.0, float("nan")])
    with pytest.raises(InputError, match="X has 3, labels has 2"):
        cl.silhouette([[0.0], [1.0], [2.0]], [0, 1])
    with pytest.raises(InputError, match="X contains NaN"):
        cl.dunn_index([[0.0], [float("nan")]], [0, 1])
    with pytest.raises(InputError, match="between 2 and n_samples - 1"):
        cl.silhouette([[0.0], [1.0], [2.0]], [0, 0, 0])
    with pytest.raises(InputError, match="at least 2 clusters"):
        cl.dunn_index([[0.0], [1.0]], [0, 0])
    with pytest.raises(InputError, match="variant must be one of"):
        cl.dunn_index([[0.0], [1.0]], [0, 1], variant="max")
    with pytest.raises(InputError, match="sample_size must be an integer"):
        cl.silhouette([[0.0], [1.0], [2.0]], [0, 1, 1], sample_size=1)
    with pytest.raises(InputError, match="X must be a 2-d array"):
        cl.davies_bouldin([0.0, 1.0, 2.0], [0, 1, 1])


def test_internal_indices_take_a_label_column() -> None:
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 2))
    lab = np.arange(12) % 3
    col = lab[:, None]
    assert cl.silhouette(X, col) == cl.silhouette(X, lab)
    assert cl.davies_bouldin(X, col) == cl.davies_bouldin(X, lab)
    assert cl.calinski_harabasz(X, col) == cl.calinski_harabasz(X, lab)
    assert cl.dunn_index(X, col) == cl.dunn_index(X, lab)
    # external scores want 1-d labels, as scikit-learn's
    with pytest.raises(InputError, match="labels_true must be a 1-d array"):
        cl.adjusted_rand_index(col, lab)


def test_dunn_degenerate_clusters() -> None:
    # single-point clusters apart from each other: zero size, positive separation
    assert cl.dunn_index([[0.0], [1.0], [3.0]], [0, 1, 2]) == float("inf")
    assert cl.dunn_index([[0.0], [1.0], [3.0]], [0, 1, 2], variant="centroid") == float("inf")
    with pytest.raises(InputError, match="0/0"):
        cl.dunn_index(np.zeros((4, 2)), [0, 0, 1, 1])
    with pytest.raises(InputError, match="0/0"):
        cl.dunn_index(np.zeros((4, 2)), [0, 0, 1, 1], variant="centroid")
    with pytest.raises(InputError, match="metric='nope'"):
        cl.dunn_index([[0.0], [1.0]], [0, 1], metric="nope")
    with pytest.raises(InputError, match="p must be a number >= 1"):
        cl.dunn_index([[0.0], [1.0]], [0, 1], variant="centroid", p=0.5)
    # p = inf is the Chebyshev norm
    assert cl.dunn_index(
        [[0, 0], [0, 1], [4, 0], [4, 2]], [0, 0, 1, 1], variant="centroid", p=float("inf")
    ) == pytest.approx(4 / 1)


def test_parameters_and_labels_are_checked_here() -> None:
    with pytest.raises(InputError, match="beta must be a finite number >= 0"):
        cl.v_measure([0, 1], [0, 1], beta=-1)
    with pytest.raises(InputError, match=r"silhouette: .*metric"):
        cl.silhouette([[0.0], [1.0], [2.0]], [0, 1, 1], metric="nope")
    with pytest.raises(InputError, match=r"zero_division .* must be a number"):
        cl.pair_precision([0, 1], [0, 1], zero_division="warn")
    with pytest.raises(InputError, match="mixes string and numeric"):
        cl.purity(np.array([0, "a"], dtype=object), [0, 1])
    with pytest.raises(InputError, match="random_state must be"):
        cl.silhouette(
            [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1], sample_size=3, random_state="seed"
        )
    # fractional labels look like scores: scikit-learn warns, so do we
    with pytest.warns(RanklensWarning, match=r"labels_pred holds numbers with a fractional"):
        assert cl.rand_index([0, 0, 1], [0.5, 0.5, 1.5]) == 1.0


def test_silhouette_sample_of_a_precomputed_matrix() -> None:
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    lab = np.arange(30) % 3
    D = cdist(X, X)
    # the sample takes rows and columns of the distance matrix: same points, same value
    assert cl.silhouette(
        D, lab, metric="precomputed", sample_size=12, random_state=4
    ) == pytest.approx(cl.silhouette(X, lab, sample_size=12, random_state=4))
    gen = np.random.default_rng(9)
    assert -1 <= cl.silhouette(X, lab, sample_size=12, random_state=gen) <= 1


def test_registered() -> None:
    for name in (
        "silhouette",
        "davies_bouldin",
        "calinski_harabasz",
        "dunn",
        "rand_index",
        "ari",
        "nmi",
        "v_measure",
        "fowlkes_mallows",
        "purity",
        "pair_jaccard",
        "pair_precision",
        "pair_recall",
        "pair_f1",
    ):
        assert REGISTRY[name].domain == "clustering"


# ------------------------------------------------------------------ found by the contract
# (tests/test_contract_families.py)


@pytest.mark.parametrize("fn", [cl.pair_precision, cl.pair_recall, cl.pair_f1, cl.jaccard])
def test_zero_division_lies_in_the_ratio_range(fn: object) -> None:
    # the value of 0/0 was any number (5.0, -2.0, inf): a ratio outside [0, 1]
    singletons = [0, 1, 2, 3]
    for bad in (5.0, -2.0, math.inf, "warn", None):
        with pytest.raises(InputError, match=r"zero_division .* in \[0, 1\]"):
            fn(singletons, singletons, zero_division=bad)  # type: ignore[operator]
    assert fn(singletons, singletons, zero_division=0.25) == 0.25  # type: ignore[operator]
    assert math.isnan(fn(singletons, singletons, zero_division="nan"))  # type: ignore[operator]


def test_nmi_stays_in_unit_interval() -> None:
    # scikit-learn's NMI with average_method="min" gives 1.0000000000000002 here
    t, p = np.arange(6) % 3, np.arange(6)
    assert sk.normalized_mutual_info_score(t, p, average_method="min") > 1.0
    assert cl.nmi(t, p, average_method="min") == 1.0
    for method in ("arithmetic", "geometric", "min", "max"):
        assert 0.0 <= cl.nmi(np.arange(18) % 2, np.arange(18), average_method=method) <= 1.0
    assert 0.0 <= cl.v_measure(t, p) <= 1.0
    assert 0.0 <= cl.fowlkes_mallows(t, p) <= 1.0


def test_silhouette_sample_size_needs_three_points() -> None:
    # two sampled points never form 2..n-1 clusters: sample_size=2 always failed, with
    # scikit-learn's message about labels
    X = [[0.0], [1.0], [5.0], [6.0]]
    with pytest.raises(InputError, match="sample_size must be an integer >= 3"):
        cl.silhouette(X, [0, 0, 1, 1], sample_size=2, random_state=0)
    assert -1 <= cl.silhouette(X, [0, 0, 1, 1], sample_size=3, random_state=0) <= 1
