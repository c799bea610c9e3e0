"""Power and sample size: statsmodels reference values, closed forms, and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.errors import InputError
from ranklens.online import (
    delta_method_ratio,
    minimum_detectable_effect,
    power,
    ratio_unit_std,
    sample_size,
    two_proportion_ztest,
)

stats = pytest.importorskip("scipy.stats")
smpower = pytest.importorskip("statsmodels.stats.power")
smprop = pytest.importorskip("statsmodels.stats.proportion")


def test_proportion_sample_size_matches_statsmodels() -> None:
    res = sample_size("proportion", baseline=0.1, effect=0.1, relative=True, alpha=0.05, power=0.8)
    h = smprop.proportion_effectsize(0.11, 0.10)
    n = smpower.NormalIndPower().solve_power(effect_size=h, alpha=0.05, power=0.8, ratio=1.0)
    assert res.n_control == math.ceil(n)
    assert res.n_treatment == math.ceil(n)
    assert res.total == 2 * math.ceil(n)
    # the textbook unpooled normal approximation gives nearly the same answer
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    closed = z**2 * (0.1 * 0.9 + 0.11 * 0.89) / 0.01**2
    assert res.n_control == pytest.approx(closed, rel=0.02)


def test_mean_sample_size_matches_statsmodels_and_the_normal_formula() -> None:
    res = sample_size("mean", baseline=20.0, effect=0.5, std=8.0, alpha=0.01, power=0.9, ratio=2.0)
    n = smpower.TTestIndPower().solve_power(effect_size=0.5 / 8.0, alpha=0.01, power=0.9, ratio=2.0)
    assert res.n_control == math.ceil(n)
    assert res.n_treatment == math.ceil(2 * n)
    z = stats.norm.ppf(0.995) + stats.norm.ppf(0.9)
    assert res.n_control == pytest.approx(z**2 * (1 + 1 / 2) * 64 / 0.25, rel=0.01)


def test_ratio_sample_size_uses_the_linearised_std() -> None:
    rng = np.random.default_rng(4)
    imps = 1 + rng.poisson(9, 5000)
    clicks = rng.binomial(imps, rng.beta(1, 9, 5000))
    sd = ratio_unit_std(clicks, imps)
    _, var = delta_method_ratio(clicks, imps)
    assert sd**2 / 5000 == pytest.approx(float(var), rel=1e-10)
    res = sample_size("ratio", baseline=0.1, effect=0.05, relative=True, std=sd)
    n = smpower.NormalIndPower().solve_power(effect_size=0.005 / sd, alpha=0.05, power=0.8)
    assert res.n_control == math.ceil(n)


def test_simulated_power_at_the_computed_size() -> None:
    res = sample_size("proportion", baseline=0.05, effect=0.01, power=0.8)
    rng = np.random.default_rng(11)
    sims = 4000
    xc = rng.binomial(res.n_control, 0.05, sims)
    xt = rng.binomial(res.n_treatment, 0.06, sims)
    hit = np.mean(two_proportion_ztest(xt, res.n_treatment, xc, res.n_control).p_value < 0.05)
    assert abs(hit - 0.8) < 3.5 * math.sqrt(0.8 * 0.2 / sims), hit


def test_mde_and_power_invert_sample_size() -> None:
    mde = minimum_detectable_effect("proportion", baseline=0.2, n_control=8000, power=0.85)
    back = sample_size("proportion", baseline=0.2, effect=mde.absolute, power=0.85)
    assert abs(back.n_control - 8000) <= 1
    assert mde.relative == pytest.approx(mde.absolute / 0.2)
    m2 = minimum_detectable_effect("mean", baseline=3.0, std=2.0, n_control=2500)
    assert power(
        "mean", baseline=3.0, std=2.0, effect=m2.absolute, n_control=2500
    ) == pytest.approx(0.8, abs=1e-6)
    n = sample_size("mean", baseline=3.0, std=2.0, effect=0.1).n_control
    assert power("mean", baseline=3.0, std=2.0, effect=0.1, n_control=n) >= 0.8
    assert power("mean", baseline=3.0, std=2.0, effect=0.1, n_control=n - 2) < 0.8


def test_options_move_sample_size_the_right_way() -> None:
    base = sample_size("proportion", baseline=0.1, effect=0.01).n_control
    assert sample_size("proportion", baseline=0.1, effect=0.01, comparisons=3).n_control > base
    assert (
        sample_size("proportion", baseline=0.1, effect=0.01, alternative="larger").n_control < base
    )
    assert sample_size("proportion", baseline=0.1, effect=-0.01).n_control > 0
    bonf = sample_size("proportion", baseline=0.1, effect=0.01, alpha=0.05 / 3).n_control
    assert sample_size("proportion", baseline=0.1, effect=0.01, comparisons=3).n_control == bonf


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: sample_size("proportion", baseline=1.2, effect=0.1), "baseline"),
        (lambda: sample_size("proportion", baseline=0.95, effect=0.1), "not a proportion"),
        (lambda: sample_size("mean", baseline=1.0, effect=0.1), "std"),
        (lambda: sample_size("proportion", baseline=0.1, effect=0.01, std=0.3), "std is implied"),
        (lambda: sample_size("mean", baseline=1.0, effect=0.0, std=1.0), "must not be zero"),
        (lambda: sample_size("median", baseline=1.0, effect=0.1), "kind"),  # type: ignore[arg-type]
        (lambda: sample_size("mean", baseline=1.0, effect=0.1, std=1.0, power=1.0), "power"),
        (
            lambda: sample_size("mean", baseline=1.0, effect=0.1, std=1.0, comparisons=0),
            "comparisons",
        ),
        (
            lambda: sample_size("mean", baseline=1.0, effect=-0.1, std=1.0, alternative="larger"),
            "positive effect",
        ),
        (
            lambda: minimum_detectable_effect("mean", baseline=1.0, std=1.0, n_control=0),
            "n_control",
        ),
        (lambda: ratio_unit_std([1, 2], [0, 0]), "sums to zero"),
        (
            lambda: minimum_detectable_effect("mean", baseline=1.0, std=1.0, n_control=100.5),
            "n_control must be a whole number",
        ),
        (
            lambda: power("mean", baseline=1.0, std=1.0, effect=0.1, n_control=10, ratio=0.1),
            "treatment units",
        ),
        (
            lambda: sample_size("mean", baseline=1.0, effect=0.1, std=1.0, power=0.01),
            "not above the test's alpha",
        ),
        (
            lambda: minimum_detectable_effect("proportion", baseline=0.9, n_control=5),
            "increase n_control",
        ),
        (
            lambda: sample_size("mean", baseline=0.0, effect=0.1, std=1.0, relative=True),
            "relative=True with baseline=0",
        ),
    ],
)
def test_bad_input(call: object, match: str) -> None:
    with pytest.raises(InputError, match=match):
        call()  # type: ignore[operator]


def test_t_power_is_finite_where_statsmodels_gives_nan() -> None:
    """statsmodels' TTestIndPower.power adds scipy's nct.cdf of the lower tail, which is NaN
    far in the tail; the power here stays a number and the MDE hits the power exactly."""
    kw = dict(baseline=8.6, std=2.238, n_control=40641, ratio=0.5, alpha=0.01)
    es = 0.0587
    with np.errstate(all="ignore"):
        ref = smpower.TTestIndPower().power(effect_size=es, nobs1=40641, alpha=0.01, ratio=0.5)
    assert math.isnan(ref)
    got = power("mean", effect=es * 2.238, **kw)  # type: ignore[arg-type]
    assert got == pytest.approx(
        stats.norm.sf(stats.norm.isf(0.005) - es * math.sqrt(40641 * 20320.5 / 60961.5)), abs=1e-6
    )
    mde = minimum_detectable_effect("mean", power=0.8, **kw)  # type: ignore[arg-type]
    assert power("mean", effect=mde.absolute, **kw) == pytest.approx(0.8, abs=1e-12)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: sample_size("median", baseline=1.0, effect=0.1),  # type: ignore[arg-type]
            "kind must be one of 'proportion', 'mean', 'ratio', got 'median'.",
        ),
        (
            lambda: power("mean", baseline=1.0, std=1.0, effect=0.1, n_control=10, comparisons=0),
            "comparisons must be a positive integer, got 0.",
        ),
        (
            lambda: sample_size("mean", baseline=1.0, std=1.0, effect=0.1, ratio=-1.0),
            "ratio (n_treatment / n_control) must be a finite number > 0, got -1.0.",
        ),
        (
            lambda: sample_size("mean", baseline=1.0, std=1.0, effect=0.1, alternative="smaller"),  # type: ignore[arg-type]
            "alternative must be one of 'two-sided', 'larger', got 'smaller'.",
        ),
        (
            lambda: minimum_detectable_effect(
                "mean", baseline=1.0, std=1.0, n_control=10, alpha=0.0
            ),
            "alpha must be a number in (0, 1), got 0.0; e.g. alpha=0.05.",
        ),
        (
            lambda: power("mean", baseline=float("nan"), std=1.0, effect=0.1, n_control=10),
            "baseline (control mean) must be a finite number, got nan.",
        ),
    ],
)
def test_parameter_messages(call: object, message: str) -> None:
    with pytest.raises(InputError) as info:
        call()  # type: ignore[operator]
    assert str(info.value) == message
