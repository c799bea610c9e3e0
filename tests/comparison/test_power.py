"""Offline power (ranklens.comparison.power): statsmodels' TTestPower on a grid, a
simulation of paired t-tests at the planned size, and the argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import ranklens as rl
from ranklens.comparison import (
    minimum_detectable_difference,
    paired_power,
    power_check,
    topic_set_size,
)

pytest.importorskip("scipy")


@pytest.mark.reference
@pytest.mark.parametrize("alternative", ["two-sided", "larger"])
@pytest.mark.parametrize("seed", range(6))
def test_reference_statsmodels(seed: int, alternative: str) -> None:
    power_mod = pytest.importorskip("statsmodels.stats.power")
    tp = power_mod.TTestPower()
    rng = np.random.default_rng(seed)
    diffs = rng.normal(rng.uniform(-0.05, 0.05), rng.uniform(0.05, 0.3), int(rng.integers(5, 80)))
    sd = float(np.std(diffs, ddof=1))
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    power = float(rng.choice([0.5, 0.8, 0.9]))
    alt = "two-sided" if alternative == "two-sided" else "larger"
    for delta in (0.02, 0.05, 0.1):
        want = tp.solve_power(effect_size=delta / sd, alpha=alpha, power=power, alternative=alt)
        got = topic_set_size(diffs, delta=delta, alpha=alpha, power=power, alternative=alt)
        assert got == max(2, math.ceil(want - 1e-9)), (delta, want)
    n = int(diffs.size)
    es = tp.solve_power(nobs=n, alpha=alpha, power=power, alternative=alt)
    mdd = minimum_detectable_difference(diffs, alpha=alpha, power=power, alternative=alt)
    # statsmodels' root finder stops at about 1e-6 relative; ours solves to the float
    assert mdd == pytest.approx(es * sd, rel=1e-4)
    assert tp.power(effect_size=mdd / sd, nobs=n, alpha=alpha, alternative=alt) == (
        pytest.approx(power, abs=1e-9)
    )
    for d in (0.1, 0.4, 1.2):
        assert paired_power(d, n, alpha=alpha, alternative=alt) == pytest.approx(
            tp.power(effect_size=d, nobs=n, alpha=alpha, alternative=alt), rel=1e-9, abs=1e-12
        )


def test_simulated_power_at_planned_size() -> None:
    # plan for delta = 0.05 with sd 0.15 (d = 1/3) at 80% power; paired t-tests on
    # simulated queries of that size reject about 80% of the time
    scipy_stats = pytest.importorskip("scipy.stats")
    n = topic_set_size(std=0.15, delta=0.05)
    rng = np.random.default_rng(7)
    x = rng.normal(0.05, 0.15, (4000, n))
    p = scipy_stats.ttest_1samp(x, 0.0, axis=1).pvalue
    rate = float(np.mean(p < 0.05))
    assert 0.78 <= rate <= 0.83  # binomial sd 0.6 points; exact power 0.80..0.81
    # one query fewer does not reach 80%
    assert paired_power(1 / 3, n - 1) < 0.8 <= paired_power(1 / 3, n)


def test_hand_values() -> None:
    # large n: the normal approximation n = ((z_.975 + z_.8) / d)^2 = 7.849 / d^2, plus
    # Sakai's z_.975^2 / 2 = 1.92 correction: d = 0.1 -> 784.9 + 1.9 -> 787 queries
    n = topic_set_size(std=1.0, delta=0.1)
    assert n == 787
    # with n queries the minimum detectable difference is close to sd * 2.8016 / sqrt(n)
    assert minimum_detectable_difference(std=1.0, n=10_000) == pytest.approx(2.8016 / 100, rel=1e-3)


def test_power_check_note() -> None:
    c = power_check([0.1, -0.05, 0.2, 0.0, 0.05, -0.1, 0.15, 0.05])
    assert c.n == 8 and c.observed == pytest.approx(0.05) and c.std == pytest.approx(0.1)
    assert c.underpowered and c.queries_needed == 34
    assert c.note().startswith("n=8 queries detect a difference of ")
    assert "observed 0.05: underpowered (about 34 needed)" in c.note()
    strong = power_check([0.3, 0.25, 0.35, 0.3, 0.28, 0.32])
    assert not strong.underpowered and strong.note().endswith("adequately powered")
    assert strong.power_at_observed > 0.99


def test_errors() -> None:
    with pytest.raises(rl.InputError, match=r"power=0\.01 is not above alpha=0\.05"):
        topic_set_size(std=1.0, delta=0.1, power=0.01)
    with pytest.raises(rl.InputError, match="at least two finite"):
        topic_set_size([0.1], delta=0.1)
    with pytest.raises(rl.InputError, match="NaN"):
        topic_set_size([0.1, float("nan")], delta=0.1)
    with pytest.raises(rl.InputError, match="all equal"):
        minimum_detectable_difference([0.1, 0.1, 0.1])
    with pytest.raises(rl.InputError, match="delta"):
        topic_set_size(std=1.0, delta=0)
    with pytest.raises(rl.InputError, match="n must be a whole number"):
        minimum_detectable_difference(std=1.0, n=1)
    with pytest.raises(rl.InputError, match="alternative"):
        paired_power(0.5, 10, alternative="smaller")
    with pytest.raises(rl.InputError, match="std="):
        topic_set_size(delta=0.1)
