"""Prediction-powered inference: equal to ``ppi_py`` on random cases (with and without
``lam``), hand-computed values, and seeded simulations of the intervals' coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.errors import InputError
from ranklens.judging.ppi import power_tuning, ppi_difference, ppi_mean

SEEDS = range(15)


def _data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n, big_n = int(rng.integers(2, 60)), int(rng.integers(1, 400))
    truth = rng.random(n + big_n)
    noise = rng.normal(0, rng.uniform(0.01, 0.5), n + big_n)
    bias = rng.uniform(-0.2, 0.2)
    cheap = truth + noise + bias
    if seed % 5 == 0:
        truth = (truth > 0.5).astype(float)  # binary metric with ties
    return truth[:n], cheap[:n], cheap[n:]


def test_by_hand() -> None:
    # y = [0, 1], yhat = [0, 1], unlabelled [0, 1]; lam = 1: estimate 0.5 + 0,
    # se^2 = var([0, 1]) / 2 + var([0, 0]) / 2 = 1/8
    res = ppi_mean([0.0, 1.0], [0.0, 1.0], [0.0, 1.0], lam=1.0, level=0.95)
    assert res.estimate == 0.5
    assert res.se == pytest.approx(math.sqrt(1 / 8))
    assert res.low == pytest.approx(0.5 - 1.959963984540054 * math.sqrt(1 / 8))
    # classical: mean 0.5, se^2 = 1/4 / 2 = 1/8 -> effective n = 2 * (1/8) / (1/8)
    assert res.classical == 0.5 and res.effective_n == pytest.approx(2.0)
    # lam_hat = cov(y, yhat) / ((1 + n/N) var(all yhat, ddof 1)) = 0.25 / (2 * 1/3)
    assert power_tuning([0.0, 1.0], [0.0, 1.0], [0.0, 1.0]) == pytest.approx(0.375)
    # lam = 0 is the human labels alone
    zero = ppi_mean([0.0, 1.0, 1.0], [5.0, 5.0, 1.0], [9.0], lam=0.0)
    assert zero.estimate == pytest.approx(2 / 3) and zero.se == pytest.approx(zero.classical_se)


def test_errors() -> None:
    with pytest.raises(InputError, match="lam"):
        ppi_mean([0.0, 1.0], [0.0, 1.0], [0.0], lam=1.5)
    with pytest.raises(InputError, match="same queries"):
        ppi_mean([0.0, 1.0], [0.0], [0.0])
    with pytest.raises(InputError, match="index 1"):
        ppi_mean([0.0, np.nan], [0.0, 1.0], [0.0])
    with pytest.raises(InputError, match="at least 2"):
        ppi_mean([0.0], [0.0], [0.0])
    with pytest.raises(InputError, match="y_b"):
        ppi_difference([0.0, 1.0], [0.0], [0.0, 1.0], [0.0, 1.0], [0.0], [0.0])


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_matches_ppi_py(seed: int, lam: float | None) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    y, yhat, yu = _data(seed)
    res = ppi_mean(y, yhat, yu, lam=lam, level=0.9)
    ref_est = ppi_py.ppi_mean_pointestimate(y, yhat, yu, lam=lam)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=0.1, lam=lam)
    assert res.estimate == pytest.approx(float(np.ravel(ref_est)[0]), abs=1e-12)
    # ppi_py's CI recentres with the tuned lam like ours
    assert res.low == pytest.approx(float(np.ravel(lo)[0]), abs=1e-10)
    assert res.high == pytest.approx(float(np.ravel(hi)[0]), abs=1e-10)
    if lam is None:
        grads = y - ppi_py.ppi_mean_pointestimate(y, yhat, yu, lam=1)
        ref_lam = ppi_py.ppi._calc_lam_glm(
            grads,
            yhat - ppi_py.ppi_mean_pointestimate(y, yhat, yu, lam=1),
            yu - ppi_py.ppi_mean_pointestimate(y, yhat, yu, lam=1),
            np.eye(1),
            clip=True,
        )
        assert res.lam == pytest.approx(float(ref_lam), abs=1e-12)
    # classical interval = lam 0
    c_lo, c_hi = ppi_py.ppi_mean_ci(y, yhat, yu, alpha=0.1, lam=0)
    assert res.classical_low == pytest.approx(float(np.ravel(c_lo)[0]), abs=1e-10)
    assert res.classical_high == pytest.approx(float(np.ravel(c_hi)[0]), abs=1e-10)


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
def test_difference_matches_ppi_py_on_differences(seed: int) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    ya, ha, ua = _data(seed)
    yb, hb, ub = _data(seed + 100)
    k = min(len(ya), len(yb))
    m = min(len(ua), len(ub))
    ya, ha, yb, hb, ua, ub = ya[:k], ha[:k], yb[:k], hb[:k], ua[:m], ub[:m]
    if k < 2:
        return
    res = ppi_difference(ya, yb, ha, hb, ua, ub, level=0.9)
    lo, hi = ppi_py.ppi_mean_ci(yb - ya, hb - ha, ub - ua, alpha=0.1)
    assert res.low == pytest.approx(float(np.ravel(lo)[0]), abs=1e-10)
    assert res.high == pytest.approx(float(np.ravel(hi)[0]), abs=1e-10)


@pytest.mark.parametrize("lam", [None, 1.0])
def test_coverage_near_nominal(lam: float | None) -> None:
    """Seeded simulation: 1000 data sets of n=200 labelled and N=2000 unlabelled queries
    from a known population (true mean 0.5) with a biased, noisy judge; the 90%
    interval should cover the truth about 90% of the time (binomial sd 0.95%)."""
    rng = np.random.default_rng(20240601)
    reps, n, big_n = 1000, 200, 2000
    truth = rng.beta(2, 2, (reps, n + big_n))  # mean 0.5
    cheap = 0.8 * truth + 0.2 + rng.normal(0, 0.1, truth.shape)  # biased judge
    covered = 0
    widths = []
    for r in range(reps):  # one interval per simulated data set (not a per-query loop)
        res = ppi_mean(truth[r, :n], cheap[r, :n], cheap[r, n:], lam=lam, level=0.9)
        covered += res.low <= 0.5 <= res.high
        widths.append((res.high - res.low, res.classical_high - res.classical_low))
    assert 0.875 <= covered / reps <= 0.925
    w = np.array(widths)
    # a good judge narrows the interval: more effective labels than human ones
    assert (w[:, 0] < w[:, 1]).mean() > 0.9
