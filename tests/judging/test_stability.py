"""Ordering of systems under two sets of judgments: Kendall's tau against scipy, tau_AP
against a direct transcription of Yilmaz et al. (2008), flips against pair enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ranklens.errors import InputError
from ranklens.judging.stability import ordering_stability, tau_ap


def _tau_ap_paper(truth: list[float], est: list[float]) -> float:
    """tau_AP by the paper's definition, one system at a time (a different route)."""
    n = len(truth)
    order_est = sorted(range(n), key=lambda s: (-est[s], s))
    rank_truth = {s: r for r, s in enumerate(sorted(range(n), key=lambda s: (-truth[s], s)))}
    total = 0.0
    for i in range(1, n):
        item = order_est[i]
        c = sum(rank_truth[other] < rank_truth[item] for other in order_est[:i])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


@pytest.mark.parametrize("seed", range(20))
def test_against_definitions(seed: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(seed)
    s = int(rng.integers(2, 15))
    a = np.round(rng.random(s), 1)  # rounding makes ties
    b = np.round(a + rng.normal(0, 0.15, s), 1)
    names = [f"sys{i}" for i in range(s)]
    st = ordering_stability(dict(zip(names, a, strict=True)), dict(zip(names, b, strict=True)))
    ref = stats.kendalltau(a, b)
    assert st.kendall_tau == pytest.approx(ref.statistic, nan_ok=True)
    assert st.tau_ap == pytest.approx(_tau_ap_paper(list(a), list(b)))
    assert st.tau_ap_symmetric == pytest.approx(
        (_tau_ap_paper(list(a), list(b)) + _tau_ap_paper(list(b), list(a))) / 2
    )
    assert tau_ap(a, b, symmetric=True) == pytest.approx(st.tau_ap_symmetric)
    flips, ties = set(), set()
    for i, j in itertools.combinations(range(s), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        pair = (names[i], names[j]) if a[i] >= a[j] else (names[j], names[i])
        if da * db < 0:
            flips.add(pair)
        elif (da == 0) != (db == 0):
            ties.add(pair)
    assert set(st.flips) == flips and set(st.ties) == ties
    assert st.pairs == s * (s - 1) // 2


def test_significant_only() -> None:
    rng = np.random.default_rng(5)
    q = 60
    # s0 clearly best, s1 and s2 indistinguishable under A
    x = np.column_stack(
        [0.8 + rng.normal(0, 0.05, q), 0.4 + rng.normal(0, 0.05, q), 0.4 + rng.normal(0, 0.05, q)]
    )
    a = dict(zip(["s0", "s1", "s2"], x.mean(axis=0), strict=True))
    hi, lo = ("s1", "s2") if a["s1"] > a["s2"] else ("s2", "s1")
    b = {"s0": 0.8, hi: 0.3, lo: 0.5}  # B flips only the insignificant pair
    every = ordering_stability(a, b)
    assert every.flips == [(hi, lo)]
    sig = ordering_stability(a, b, per_query_a=x, significant_only=True)
    assert sig.pairs == 2 and sig.flips == []


def test_errors() -> None:
    with pytest.raises(InputError, match="only in a"):
        ordering_stability({"x": 1.0, "y": 2.0}, {"x": 1.0, "z": 2.0})
    with pytest.raises(InputError, match="per_query_a"):
        ordering_stability({"x": 1.0, "y": 2.0}, {"x": 1.0, "y": 2.0}, significant_only=True)
    with pytest.raises(InputError, match="same systems"):
        tau_ap([1, 2], [1, 2, 3])
