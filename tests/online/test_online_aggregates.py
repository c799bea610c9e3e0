"""analyze_units / analyze_stats: a table of units and per-variant sums give the
event-log analysis' numbers (to 1e-9), CUPED included; their input errors."""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

import numpy as np
import pytest

from ranklens.errors import InputError
from ranklens.online import analyze, analyze_stats, analyze_units, stats_columns

pytest.importorskip("statsmodels")

LOG_METRICS = [
    "conversion=proportion(purchase)",
    "revenue=mean(purchase)",
    "ctr=ratio(count(click), count(impression))",
]
UNIT_METRICS = [
    "conversion=proportion(converted)",
    "revenue=mean(revenue)",
    "ctr=ratio(clicks, impressions)",
]
COVARIATES = {"conversion": "pre_conversion", "revenue": "pre_revenue", "ctr": "pre_ctr"}


def simulate(seed: int, n: int = 400, k: int = 3) -> dict[str, Any]:
    """Event logs of an experiment (every event after its unit's one exposure), the
    same experiment as one row per unit (computed here, independently), and a
    covariate per metric and unit."""
    rng = np.random.default_rng(seed)
    variants = ["control", "b", "c"][:k]
    unit = np.array([f"u{i}" for i in range(n)])
    variant = np.array(variants)[rng.integers(0, k, n)]
    imps = rng.poisson(4, n)
    clicks = rng.binomial(imps, 0.2)
    buys = rng.poisson(0.3, n)
    price = [rng.gamma(2.0, 10.0, b) for b in buys]
    ev_unit = np.concatenate(
        [np.repeat(unit, imps), np.repeat(unit, clicks), np.repeat(unit, buys)]
    )
    ev_type = (
        ["impression"] * int(imps.sum())
        + ["click"] * int(clicks.sum())
        + ["purchase"] * int(buys.sum())
    )
    ev_value = np.concatenate([np.ones(imps.sum() + clicks.sum()), *price])
    exposures = {"unit": unit.tolist(), "variant": variant.tolist(), "time": [0.0] * n}
    events = {
        "unit": ev_unit.tolist(),
        "time": [1.0] * len(ev_type),
        "event": ev_type,
        "value": ev_value.tolist(),
    }
    revenue = np.array([p.sum() for p in price])
    cov = {
        name: rng.normal(size=n) + 0.5 * base
        for name, base in (
            ("pre_conversion", buys > 0),
            ("pre_revenue", revenue),
            ("pre_ctr", clicks),
        )
    }
    units = {
        "unit": unit.tolist(),
        "variant": variant.tolist(),
        "converted": (buys > 0).astype(float).tolist(),
        "revenue": revenue.tolist(),
        "clicks": clicks.astype(float).tolist(),
        "impressions": imps.astype(float).tolist(),
        **{c: v.tolist() for c, v in cov.items()},
    }
    covariates = {"unit": unit.tolist(), **{m: cov[c].tolist() for m, c in COVARIATES.items()}}
    return {
        "exposures": exposures,
        "events": events,
        "units": units,
        "covariates": covariates,
        "variants": variants,
    }


def sums_table(units: dict[str, Any], columns: list[str]) -> dict[str, list[float]]:
    """GROUP BY variant: count, and every sum column stats_columns names."""
    variant = np.array(units["variant"])
    out: dict[str, Any] = {"variant": sorted(set(units["variant"]))}
    out["count"] = [int((variant == v).sum()) for v in out["variant"]]
    for col in columns:
        base = col.removesuffix("_sum")
        if base.endswith("_sum_sq") or col.endswith("_sum_sq"):
            name = col.removesuffix("_sum_sq")
            vals = np.array(units[name]) ** 2
        elif base in units:
            vals = np.array(units[base])
        else:  # a cross sum a_b_sum: find the split into two columns
            a, b = next((a, b) for a in units for b in units if f"{a}_{b}" == base)
            vals = np.array(units[a]) * np.array(units[b])
        out[col] = [float(vals[variant == v].sum()) for v in out["variant"]]
    return out


def assert_same(got: Any, want: Any) -> None:
    assert got.variants == want.variants and got.control == want.control
    for g, w in zip(got.groups, want.groups, strict=True):
        assert (g.metric, g.variant, g.n) == (w.metric, w.variant, w.n)
        for f in ("estimate", "std_error"):
            assert math.isclose(getattr(g, f), getattr(w, f), rel_tol=1e-9, abs_tol=1e-12), f
    for g, w in zip(got.comparisons, want.comparisons, strict=True):
        for f in dataclasses.fields(w):
            a, b = getattr(g, f.name), getattr(w, f.name)
            if isinstance(b, float):
                assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (g.metric, f.name, a, b)
            else:
                assert a == b, (f.name, a, b)
    assert got.srm.p_value == pytest.approx(want.srm.p_value, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cuped", [False, True])
def test_units_and_sums_give_the_log_analysis(seed: int, cuped: bool) -> None:
    sim = simulate(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = analyze(
            sim["exposures"],
            sim["events"],
            LOG_METRICS,
            control="control",
            covariates=sim["covariates"] if cuped else None,
        )
        cov = COVARIATES if cuped else None
        by_unit = analyze_units(sim["units"], UNIT_METRICS, control="control", covariates=cov)
        sums = sums_table(sim["units"], stats_columns(UNIT_METRICS, cov))
        by_sums = analyze_stats(sums, UNIT_METRICS, control="control", covariates=cov)
    if cuped:
        assert all(c.cuped_theta is not None for c in want.comparisons)
    assert_same(by_unit, want)
    assert_same(by_sums, want)


def test_sums_from_pandas_and_a_plan() -> None:
    pd = pytest.importorskip("pandas")
    sim = simulate(5, k=2)
    cols = stats_columns(UNIT_METRICS)
    frame = pd.DataFrame(sums_table(sim["units"], cols))
    plan = {"control": 1, "b": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = analyze(sim["exposures"], sim["events"], LOG_METRICS, plan=plan)
        got = analyze_stats(frame, UNIT_METRICS, plan=plan)
    assert_same(got, want)


def test_stats_columns_name_every_sum() -> None:
    assert stats_columns("conversion=proportion(converted)") == ["converted_sum"]
    assert stats_columns("ctr=ratio(clicks, views)", {"ctr": "pre"}) == [
        "clicks_sum",
        "clicks_sum_sq",
        "views_sum",
        "views_sum_sq",
        "pre_sum",
        "pre_sum_sq",
        "clicks_views_sum",
        "clicks_pre_sum",
        "views_pre_sum",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda u: u.update(variant=["control"] * len(u["unit"])), "at least two variants"),
        (lambda u: u.update(unit=["same"] * len(u["unit"])), "row 1 repeats unit 'same'"),
        (
            lambda u: u["converted"].__setitem__(3, 2.0),
            "row 3 is 2; metric 'conversion' is a proportion",
        ),
        (lambda u: u["revenue"].__setitem__(4, float("nan")), "row 4 is NaN"),
        (lambda u: u["variant"].__setitem__(2, None), "row 2 has a missing (null) id"),
        (lambda u: u.pop("clicks"), "'clicks'"),
        (lambda u: u["variant"].__setitem__(2, " "), "units column 'variant': row 2 is blank"),
        (lambda u: u["unit"].__setitem__(5, ""), "units column 'unit': row 5 is blank"),
    ],
)
def test_unit_table_errors(change: Any, message: str) -> None:
    units = simulate(0, n=20)["units"]
    change(units)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        analyze_units(units, UNIT_METRICS, control="control")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.pop("revenue_sum_sq"), r"no column\(s\) \['revenue_sum_sq'\]"),
        (lambda s: s["converted_sum"].__setitem__(0, 1e9), "successes out of"),
        (lambda s: s["revenue_sum_sq"].__setitem__(0, 0.0), "the sum of squares is smaller"),
        (lambda s: s["count"].__setitem__(0, 2.5), "a count is a whole number"),
        (lambda s: s["variant"].__setitem__(0, "control"), "several rows"),
        (lambda s: s["variant"].__setitem__(1, ""), "stats column 'variant': row 1 is blank"),
        (lambda s: [v.clear() for v in s.values()], "stats: the table has no rows"),
    ],
)
def test_sums_table_errors(change: Any, message: str) -> None:
    sim = simulate(0, n=50, k=2)
    sums = sums_table(sim["units"], stats_columns(UNIT_METRICS))
    change(sums)
    with pytest.raises(InputError, match=message):
        analyze_stats(sums, UNIT_METRICS, control="control")


def test_a_metric_that_counts_events_is_refused_on_units() -> None:
    units = simulate(0, n=20)["units"]
    with pytest.raises(InputError, match="counts events"):
        analyze_units(units, ["ctr=ratio(count(clicks), impressions)"], control="control")


def test_option_errors_name_the_function_called() -> None:
    units = simulate(0, n=20)["units"]
    with pytest.raises(InputError, match=r"^analyze_units: alpha must be"):
        analyze_units(units, UNIT_METRICS, control="control", alpha=2)
    with pytest.raises(
        InputError,
        match=r"^analyze_units: control='x' does not occur in the "
        r"units",
    ):
        analyze_units(units, UNIT_METRICS, control="x")
    sums = sums_table(units, stats_columns(UNIT_METRICS))
    with pytest.raises(InputError, match=r"^analyze_stats: correction='x' is not known"):
        analyze_stats(sums, UNIT_METRICS, control="control", correction="x")
    with pytest.raises(InputError, match=r"^stats_columns: metrics must be a non-empty list"):
        stats_columns([])
