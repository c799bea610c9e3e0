"""Two-sample tests: reference values from statsmodels/scipy, and simulations of
coverage and false-positive rates (vectorised, fixed seeds, tolerances from
binomial standard errors)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens.online import (
    delta_method_ratio,
    normal_comparison,
    relative_difference,
    sample_ratio_mismatch,
    two_proportion_ztest,
    welch_ttest,
)

stats = pytest.importorskip("scipy.stats")
smprop = pytest.importorskip("statsmodels.stats.proportion")
smws = pytest.importorskip("statsmodels.stats.weightstats")

ALPHA = 0.05


def binomial_band(rate: float, sims: int, k: float = 3.5) -> float:
    """Half-width of a k-standard-error band for a simulated rate."""
    return k * math.sqrt(rate * (1 - rate) / sims)


# ---------------------------------------------------------------------------------------
# reference values
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("xt", "nt", "xc", "nc"),
    [
        (45, 1000, 30, 900),
        (5, 40, 12, 44),
        (500, 10_000, 480, 10_000),
        (1, 3000, 9, 2900),
    ],
)
def test_two_proportion_ztest_matches_statsmodels(xt: int, nt: int, xc: int, nc: int) -> None:
    res = two_proportion_ztest(xt, nt, xc, nc, alpha=0.1)
    z, p = smprop.proportions_ztest(np.array([xt, xc]), np.array([nt, nc]))
    assert float(res.statistic) == pytest.approx(z, rel=1e-10)
    assert float(res.p_value) == pytest.approx(p, rel=1e-10)
    lo, hi = smprop.confint_proportions_2indep(
        xt, nt, xc, nc, method="wald", compare="diff", alpha=0.1
    )
    assert float(res.ci_lower) == pytest.approx(lo, rel=1e-10)
    assert float(res.ci_upper) == pytest.approx(hi, rel=1e-10)
    pt, pc = xt / nt, xc / nc
    assert float(res.diff) == pytest.approx(pt - pc)
    se = math.sqrt(pt * (1 - pt) / nt + pc * (1 - pc) / nc)
    assert float(res.std_error) == pytest.approx(se)


def test_two_proportion_ztest_is_vectorised_and_handles_degenerate_groups() -> None:
    xt = np.array([45, 0, 50])
    nt = np.array([1000, 100, 50])
    xc = np.array([30, 0, 50])
    nc = np.array([900, 100, 50])
    res = two_proportion_ztest(xt, nt, xc, nc)
    z0, _ = smprop.proportions_ztest(np.array([45, 30]), np.array([1000, 900]))
    assert float(res.statistic[0]) == pytest.approx(z0)
    assert math.isnan(res.p_value[1])  # nobody converted anywhere
    assert math.isnan(res.ci_lower[1])  # and the Wald interval has no width
    assert math.isnan(res.p_value[2])  # everybody converted
    assert math.isnan(res.rel_diff[1])  # control rate 0


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((60, 50, 10, 100), "successes=60 exceeds n=50"),
        ((10, 100, 101, 100), "control_successes=101 exceeds control_n=100"),
        ((-1, 50, 10, 100), "successes must be a count"),
        ((1.5, 50, 10, 100), "successes must be a count"),
        ((10, 50.5, 10, 100), "n must be a count"),
        ((10, 50, np.nan, 100), "control_successes must be a count"),
        (([45, 10], [1000, 0], [30, 10], [900, 100]), r"n is 0 at index 1"),
        (([1, 2, 3], [10, 10], 1, 10), "broadcast"),
    ],
)
def test_two_proportion_ztest_rejects_impossible_counts(args: tuple, match: str) -> None:
    from ranklens.errors import InputError

    with pytest.raises(InputError, match=match):
        two_proportion_ztest(*args)


def test_welch_matches_scipy_and_statsmodels() -> None:
    rng = np.random.default_rng(7)
    a = rng.lognormal(1.0, 1.0, 137)
    b = rng.lognormal(1.2, 0.6, 211)
    res = welch_ttest(a.mean(), a.var(ddof=1), a.size, b.mean(), b.var(ddof=1), b.size, alpha=0.05)
    ref = stats.ttest_ind(a, b, equal_var=False)
    assert float(res.statistic) == pytest.approx(ref.statistic, rel=1e-10)
    assert float(res.p_value) == pytest.approx(ref.pvalue, rel=1e-10)
    assert float(res.df) == pytest.approx(ref.df, rel=1e-10)
    ci = ref.confidence_interval(0.95)
    assert float(res.ci_lower) == pytest.approx(ci.low, rel=1e-10)
    assert float(res.ci_upper) == pytest.approx(ci.high, rel=1e-10)
    cm = smws.CompareMeans(smws.DescrStatsW(a), smws.DescrStatsW(b))
    lo, hi = cm.tconfint_diff(alpha=0.05, usevar="unequal")
    assert float(res.ci_lower) == pytest.approx(lo, rel=1e-10)
    assert float(res.ci_upper) == pytest.approx(hi, rel=1e-10)


def test_welch_degenerate_groups() -> None:
    res = welch_ttest(
        [1.0, 1.0, 2.0], [0.0, 0.0, 1.0], [5, 1, 10], [1.0, 1.0, 2.0], [0.0, 1.0, 1.0], [5, 10, 10]
    )
    assert math.isnan(res.p_value[0])  # no variation at all
    assert math.isnan(res.p_value[1])  # a group of one
    assert np.isfinite(res.p_value[2])


def test_normal_comparison_formula() -> None:
    res = normal_comparison(1.3, 0.04, 1.0, 0.05, alpha=0.1)
    se = math.sqrt(0.09)
    assert float(res.statistic) == pytest.approx(0.3 / se)
    assert float(res.p_value) == pytest.approx(2 * stats.norm.sf(0.3 / se))
    assert float(res.ci_upper) == pytest.approx(0.3 + stats.norm.ppf(0.95) * se)


def test_delta_method_ratio_matches_the_moment_formula() -> None:
    rng = np.random.default_rng(1)
    imps = rng.poisson(8, size=500) + 1
    clicks = rng.binomial(imps, rng.beta(1, 9, size=500))
    r, v = delta_method_ratio(clicks, imps)
    mx, my = clicks.mean(), imps.mean()
    cov = np.cov(clicks, imps, ddof=1)
    want = (cov[0, 0] / my**2 - 2 * mx * cov[0, 1] / my**3 + mx**2 * cov[1, 1] / my**4) / 500
    assert float(r) == pytest.approx(clicks.sum() / imps.sum())
    assert float(v) == pytest.approx(want, rel=1e-10)
    r0, v0 = delta_method_ratio(np.zeros(5), np.zeros(5))
    assert math.isnan(r0) and math.isnan(v0)


def test_relative_difference_formula() -> None:
    rel, lo, hi = relative_difference(1.1, 0.01, 1.0, 0.02, 1.96)
    se = math.sqrt(0.01 / 1.0 + 1.1**2 * 0.02 / 1.0)
    assert float(rel) == pytest.approx(0.1)
    assert float(hi - lo) == pytest.approx(2 * 1.96 * se)


def test_srm_matches_scipy_chisquare() -> None:
    res = sample_ratio_mismatch({"c": 5100, "t": 4900}, {"c": 0.5, "t": 0.5})
    ref = stats.chisquare([5100, 4900], [5000, 5000])
    assert res.statistic == pytest.approx(ref.statistic)
    assert res.p_value == pytest.approx(ref.pvalue)
    assert not res.mismatch
    bad = sample_ratio_mismatch({"c": 5300, "t": 4700, "x": 0}, {"c": 1, "t": 1, "x": 1})
    assert bad.mismatch
    assert "x: 0 (0.00% observed vs 33.33% planned)" in bad.describe()


# ---------------------------------------------------------------------------------------
# simulations
# ---------------------------------------------------------------------------------------
def clustered_ctr(
    rng: np.random.Generator, sims: int, users: int, ctr: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    """Impressions and clicks per user; users differ strongly in CTR and in
    activity, so impressions of one user are correlated."""
    imps = 1 + rng.negative_binomial(2, 2 / 12, size=(sims, users))  # mean 11
    a = 0.5
    p = rng.beta(a, a * (1 - ctr) / ctr, size=(sims, users))  # mean ctr
    clicks = rng.binomial(imps, p)
    return clicks.astype(float), imps.astype(float)


def test_delta_method_covers_true_ctr_naive_interval_does_not() -> None:
    rng = np.random.default_rng(20240501)
    sims, users, true = 2000, 800, 0.1
    clicks, imps = clustered_ctr(rng, sims, users, true)
    r, v = delta_method_ratio(clicks, imps, axis=-1)
    z = stats.norm.ppf(0.975)
    delta_cover = np.mean(np.abs(r - true) <= z * np.sqrt(v))
    naive_se = np.sqrt(r * (1 - r) / imps.sum(axis=1))
    naive_cover = np.mean(np.abs(r - true) <= z * naive_se)
    assert abs(delta_cover - 0.95) < binomial_band(0.95, sims), delta_cover
    assert naive_cover < 0.85, naive_cover


def test_aa_false_positive_rates_stay_at_alpha() -> None:
    sims = 4000
    band = binomial_band(ALPHA, sims)
    # conversion: two-proportion z-test
    rng = np.random.default_rng(101)
    n = 3000
    xt, xc = rng.binomial(n, 0.04, size=sims), rng.binomial(n, 0.04, size=sims)
    fpr = np.mean(two_proportion_ztest(xt, n, xc, n).p_value < ALPHA)
    assert abs(fpr - ALPHA) < band, ("z-test", fpr)
    # revenue per user (zero-inflated, skewed, unequal groups): Welch
    rng = np.random.default_rng(102)
    nt, nc = 400, 800
    yt = rng.lognormal(0, 0.8, (sims, nt)) * (rng.random((sims, nt)) < 0.3)
    yc = rng.lognormal(0, 0.8, (sims, nc)) * (rng.random((sims, nc)) < 0.3)
    res = welch_ttest(yt.mean(1), yt.var(1, ddof=1), nt, yc.mean(1), yc.var(1, ddof=1), nc)
    fpr = np.mean(res.p_value < ALPHA)
    assert abs(fpr - ALPHA) < band, ("Welch", fpr)
    # CTR per randomised user: delta method; the naive per-impression test is not valid
    rng = np.random.default_rng(103)
    ct, it = clustered_ctr(rng, sims, 500)
    cc, ic = clustered_ctr(rng, sims, 500)
    rt, vt = delta_method_ratio(ct, it)
    rc, vc = delta_method_ratio(cc, ic)
    fpr = np.mean(normal_comparison(rt, vt, rc, vc).p_value < ALPHA)
    assert abs(fpr - ALPHA) < band, ("delta", fpr)
    naive = two_proportion_ztest(ct.sum(1), it.sum(1), cc.sum(1), ic.sum(1)).p_value
    assert np.mean(naive < ALPHA) > 0.15


def test_intervals_cover_a_true_effect() -> None:
    rng = np.random.default_rng(5)
    sims, n = 4000, 500
    yt = rng.exponential(10.5, (sims, n))
    yc = rng.exponential(10.0, (sims, n))
    res = welch_ttest(yt.mean(1), yt.var(1, ddof=1), n, yc.mean(1), yc.var(1, ddof=1), n)
    band = binomial_band(0.95, sims)
    cover_abs = np.mean((res.ci_lower <= 0.5) & (res.ci_upper >= 0.5))
    cover_rel = np.mean((res.rel_ci_lower <= 0.05) & (res.rel_ci_upper >= 0.05))
    assert abs(cover_abs - 0.95) < band, cover_abs
    assert abs(cover_rel - 0.95) < band, cover_rel


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: welch_ttest(1.0, 1.0, 10, 1.0, 1.0, 10, alpha=1.5),
            "welch_ttest: alpha must be a number in (0, 1), got 1.5; e.g. alpha=0.05.",
        ),
        (
            lambda: two_proportion_ztest(5, 10, 6, 10, alpha=True),
            "two_proportion_ztest: alpha must be a number in (0, 1), got True; e.g. alpha=0.05.",
        ),
        (
            lambda: sample_ratio_mismatch({"a": 5, "b": 6}, {"a": 1, "b": 1}, threshold=0),
            "sample_ratio_mismatch: threshold must be a number in (0, 1), got 0; "
            "e.g. threshold=0.001.",
        ),
        (
            lambda: normal_comparison("x", 1.0, 1.0, 1.0),
            "normal_comparison: estimate must be numbers; cannot read it as floats (could not "
            "convert string to float: 'x').",
        ),
    ],
)
def test_parameter_messages(call: object, message: str) -> None:
    from ranklens.errors import InputError

    with pytest.raises(InputError) as info:
        call()  # type: ignore[operator]
    assert str(info.value) == message


def test_metric_definition_messages() -> None:
    from ranklens.errors import MetricNameError
    from ranklens.online import EventAggregate, OnlineMetric

    with pytest.raises(MetricNameError) as info:
        EventAggregate("click", "max")  # type: ignore[arg-type]
    assert str(info.value) == (
        "EventAggregate: agg must be one of 'sum', 'count', 'any', got 'max'."
    )
    with pytest.raises(MetricNameError) as info:
        OnlineMetric("m", "median", EventAggregate("click"))  # type: ignore[arg-type]
    assert str(info.value) == (
        "OnlineMetric 'm': kind must be one of 'proportion', 'mean', 'ratio', got 'median'."
    )
