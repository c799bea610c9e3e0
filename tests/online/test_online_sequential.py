"""The normal-mixture mSPRT: formulas, and A/A simulations with daily peeking."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.errors import InputError
from ranklens.online import mixture_tau, msprt, two_proportion_ztest, welch_ttest

pytest.importorskip("scipy")

ALPHA = 0.05


def binomial_band(rate: float, sims: int, k: float = 3.5) -> float:
    return k * math.sqrt(rate * (1 - rate) / sims)


def test_likelihood_ratio_and_sequence_by_hand() -> None:
    d = np.array([0.2, -0.1, 0.4])
    v = np.array([0.5, 0.1, 0.02])
    tau = 0.3
    res = msprt(d, v, tau=tau, alpha=0.1)
    lam = np.sqrt(v / (v + tau**2)) * np.exp(tau**2 * d**2 / (2 * v * (v + tau**2)))
    assert np.allclose(np.exp(res.log_lr), lam)
    assert np.allclose(res.p_value, np.minimum.accumulate(np.minimum(1, 1 / lam)))
    half = np.sqrt(v * (v + tau**2) / tau**2 * (2 * math.log(10) + np.log(1 + tau**2 / v)))
    assert np.allclose(res.ci_lower, np.maximum.accumulate(d - half))
    assert np.allclose(res.ci_upper, np.minimum.accumulate(d + half))
    # the sequence excludes exactly the nulls the test rejects
    for k in range(3):
        for theta in np.linspace(-2, 2, 81):
            rej = msprt(d[: k + 1], v[: k + 1], tau=tau, alpha=0.1, null=theta).rejected[-1]
            inside = res.ci_lower[k] < theta < res.ci_upper[k]
            if abs(theta - res.ci_lower[k]) > 1e-9 and abs(theta - res.ci_upper[k]) > 1e-9:
                assert rej != inside


def test_looks_without_data_are_skipped() -> None:
    res = msprt([np.nan, 0.5, 0.0], [np.nan, 0.01, 0.0], tau=0.2)
    assert res.p_value[0] == 1.0 and res.ci_lower[0] == -np.inf
    assert res.p_value[2] == res.p_value[1]
    assert res.ci_upper[2] == res.ci_upper[1]


def test_leading_axes_and_first_rejection() -> None:
    d = np.array([[0.0, 0.0, 0.0], [0.1, 0.5, 0.9]])
    v = np.array([[1.0, 0.5, 0.1], [1.0, 0.1, 0.01]])
    res = msprt(d, v, tau=np.array([0.3, 0.3]))
    assert res.first_rejection.tolist() == [-1, 2]
    assert not res.rejected[0].any()


def test_mixture_tau_minimises_the_width() -> None:
    V, alpha = 0.004, 0.05
    tau = float(mixture_tau(V, alpha=alpha))
    r = tau**2 / V
    assert r - math.log1p(r) == pytest.approx(2 * math.log(1 / alpha))
    grid = np.linspace(0.2, 5, 200) * tau

    def width(t: np.ndarray) -> np.ndarray:
        return np.sqrt(V * (V + t**2) / t**2 * (2 * math.log(1 / alpha) + np.log1p(t**2 / V)))

    assert width(np.array([tau]))[0] <= width(grid).min() + 1e-12


def test_bad_input() -> None:
    with pytest.raises(InputError, match="same shape"):
        msprt([0.1, 0.2], [0.1], tau=1.0)
    with pytest.raises(InputError, match="tau must be positive"):
        msprt([0.1], [0.1], tau=0.0)
    with pytest.raises(InputError, match="alpha"):
        msprt([0.1], [0.1], tau=1.0, alpha=1.5)
    with pytest.raises(InputError, match="variance must be positive"):
        mixture_tau(0.0)
    with pytest.raises(InputError) as info:
        msprt([0.1], [0.1], tau=1.0, alpha=1.5)
    assert str(info.value) == "msprt: alpha must be a number in (0, 1), got 1.5; e.g. alpha=0.05."
    with pytest.raises(InputError) as info:
        msprt([0.1], [0.1], tau=1.0, null=math.inf)
    assert str(info.value) == (
        "msprt: null must be a finite number, got inf; pass the difference under H0, usually 0."
    )
    with pytest.raises(InputError) as info:
        mixture_tau(["x"])
    assert str(info.value) == (
        "mixture_tau: variance must be numbers; cannot read it as "
        "floats (could not convert string to float: 'x')."
    )


def _daily_conversions(
    rng: np.random.Generator, sims: int, days: int, per_day: int, p_t: float, p_c: float
) -> tuple[np.ndarray, ...]:
    xt = np.cumsum(rng.binomial(per_day, p_t, (sims, days)), axis=1).astype(float)
    xc = np.cumsum(rng.binomial(per_day, p_c, (sims, days)), axis=1).astype(float)
    n = per_day * np.arange(1, days + 1, dtype=float)
    return xt, xc, np.broadcast_to(n, xt.shape)


def _sequential_from_counts(
    xt: np.ndarray, xc: np.ndarray, n: np.ndarray, tau: np.ndarray | float
) -> np.ndarray:
    pt, pc = xt / n, xc / n
    var = pt * (1 - pt) / (n - 1) + pc * (1 - pc) / (n - 1)
    return msprt(pt - pc, var, tau=tau, alpha=ALPHA).rejected[:, -1]


def test_aa_daily_peeking_sequential_stays_at_alpha_naive_does_not() -> None:
    rng = np.random.default_rng(314)
    sims, days, per_day = 3000, 14, 300
    xt, xc, n = _daily_conversions(rng, sims, days, per_day, 0.1, 0.1)
    # tau tuned to the planned final variance, as analyze() does by default
    tau = mixture_tau(2 * 0.1 * 0.9 / (days * per_day))
    ever_seq = _sequential_from_counts(xt, xc, n, tau)
    naive = two_proportion_ztest(xt, n, xc, n).p_value < ALPHA
    ever_naive = naive.any(axis=1)
    band = binomial_band(ALPHA, sims)
    assert ever_seq.mean() <= ALPHA + band, ever_seq.mean()
    assert naive[:, -1].mean() == pytest.approx(ALPHA, abs=band)  # one look is fine
    assert ever_naive.mean() > ALPHA + 6 * math.sqrt(ALPHA * (1 - ALPHA) / sims)


def test_aa_daily_peeking_on_a_skewed_mean_metric() -> None:
    rng = np.random.default_rng(2718)
    sims, days, per_day = 2000, 10, 150
    yt = rng.lognormal(0, 1, (sims, days, per_day)) * (rng.random((sims, days, per_day)) < 0.4)
    yc = rng.lognormal(0, 1, (sims, days, per_day)) * (rng.random((sims, days, per_day)) < 0.4)
    n = per_day * np.arange(1, days + 1, dtype=float)

    def cum(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s1 = np.cumsum(y.sum(axis=2), axis=1)
        s2 = np.cumsum((y**2).sum(axis=2), axis=1)
        mean = s1 / n
        return mean, (s2 - n * mean**2) / (n - 1)

    mt, vt = cum(yt)
    mc, vc = cum(yc)
    var = vt / n + vc / n
    tau = mixture_tau(var[:, -1])
    rejected = msprt(mt - mc, var, tau=tau, alpha=ALPHA).rejected[:, -1]
    assert rejected.mean() <= ALPHA + binomial_band(ALPHA, sims), rejected.mean()
    naive = welch_ttest(mt, vt, n, mc, vc, n).p_value < ALPHA
    assert naive.any(axis=1).mean() > rejected.mean() + 0.05


def test_confidence_sequence_covers_a_true_effect_at_every_look() -> None:
    rng = np.random.default_rng(1618)
    sims, days, per_day = 3000, 14, 300
    xt, xc, n = _daily_conversions(rng, sims, days, per_day, 0.13, 0.1)
    pt, pc = xt / n, xc / n
    var = pt * (1 - pt) / (n - 1) + pc * (1 - pc) / (n - 1)
    res = msprt(pt - pc, var, tau=mixture_tau(2 * 0.1 * 0.9 / (days * per_day)), alpha=ALPHA)
    missed = ((res.ci_lower > 0.03) | (res.ci_upper < 0.03)).any(axis=1)
    assert missed.mean() <= ALPHA + binomial_band(ALPHA, sims)
    # and with a 3-point lift on 4200 users per arm it usually stops early
    assert res.rejected[:, -1].mean() > 0.8
    first = res.first_rejection[res.first_rejection >= 0]
    assert np.median(first) < days - 1
