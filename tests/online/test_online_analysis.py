"""analyze(): exposures + events -> results, checked against an independent
pandas/statsmodels/scipy computation; data problems; CUPED; sequential."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from ranklens.errors import (
    InputError,
    MetricNameError,
    RanklensDeprecationWarning,
    RanklensWarning,
)
from ranklens.online import Experiment, OnlineMetric, analyze, mixture_tau, msprt

pd = pytest.importorskip("pandas")
stats = pytest.importorskip("scipy.stats")
smprop = pytest.importorskip("statsmodels.stats.proportion")
smtest = pytest.importorskip("statsmodels.stats.multitest")

DAY = 86_400.0
METRICS = [
    "conversion=proportion(purchase)",
    "revenue=mean(purchase)",
    "ctr=ratio(count(click), count(impression))",
]


def make_logs(
    seed: int = 0,
    n: int = 3000,
    variants: tuple[str, ...] = ("control", "treatment"),
    lift: float = 0.0,
    numeric_time: bool = False,
) -> tuple[Any, Any]:
    """Exposure and event logs of a simulated experiment.

    Units have 1-3 exposure rows; impressions, clicks and purchases after the
    first exposure, plus some events *before* it (which must not count)."""
    rng = np.random.default_rng(seed)
    units = np.array([f"u{i:05d}" for i in range(n)])
    var_idx = rng.integers(0, len(variants), n)
    variant = np.array(variants)[var_idx]
    t0 = rng.uniform(0, 7 * DAY, n)
    reps = rng.integers(1, 4, n)
    ex_unit = np.repeat(units, reps)
    ex_var = np.repeat(variant, reps)
    ex_time = np.repeat(t0, reps) + rng.uniform(0, DAY, reps.sum()) * (
        np.arange(reps.sum()) != np.repeat(np.cumsum(reps) - reps, reps)
    )
    treat = var_idx > 0
    activity = rng.gamma(2.0, 1.0, n)  # shared by pre and post periods
    imps = rng.poisson(3 * activity)
    ctr = rng.beta(1, 9, n) * np.where(treat, 1 + lift, 1.0)
    clicks = rng.binomial(imps, np.minimum(ctr, 1))
    buys = rng.poisson(0.05 * activity * np.where(treat, 1 + lift, 1.0))
    pre_buys = rng.poisson(0.05 * activity)
    pre_imps = rng.poisson(3 * activity)
    pre_clicks = rng.binomial(pre_imps, np.minimum(ctr / np.where(treat, 1 + lift, 1.0), 1))
    rows_u, rows_t, rows_e, rows_v = [], [], [], []

    def add(counts: np.ndarray, name: str, before: bool, values: np.ndarray | None) -> None:
        u = np.repeat(np.arange(n), counts)
        offset = rng.uniform(0, 3 * DAY, u.size)
        rows_u.append(units[u])
        rows_t.append(t0[u] - offset - 1 if before else t0[u] + offset)
        rows_e.append(np.full(u.size, name))
        rows_v.append(values if values is not None else np.ones(u.size))

    add(imps, "impression", False, None)
    add(clicks, "click", False, None)
    add(buys, "purchase", False, np.round(rng.lognormal(3, 1, buys.sum()), 2))
    add(pre_buys, "purchase", True, np.round(rng.lognormal(3, 1, pre_buys.sum()), 2))
    add(pre_imps, "impression", True, None)
    add(pre_clicks, "click", True, None)
    exposures = pd.DataFrame({"unit": ex_unit, "variant": ex_var, "time": ex_time})
    events = pd.DataFrame(
        {
            "unit": np.concatenate(rows_u),
            "time": np.concatenate(rows_t),
            "event": np.concatenate(rows_e),
            "value": np.concatenate(rows_v),
        }
    )
    if not numeric_time:
        base = pd.Timestamp("2024-03-01", tz="UTC")
        exposures["time"] = base + pd.to_timedelta(exposures["time"], unit="s")
        events["time"] = base + pd.to_timedelta(events["time"], unit="s")
    return exposures, events


def per_unit(exposures: Any, events: Any) -> Any:
    """Independent computation of every unit's metric inputs with pandas."""
    first = (
        exposures.sort_values("time")
        .groupby("unit")
        .agg(variant=("variant", "first"), t0=("time", "first"))
    )
    ev = events.merge(first, left_on="unit", right_index=True, how="inner")
    ev = ev[ev["time"] >= ev["t0"]]
    out = first.copy()
    for name in ("purchase", "click", "impression"):
        sel = ev[ev["event"] == name]
        out[f"{name}_n"] = sel.groupby("unit").size().reindex(out.index, fill_value=0)
        out[f"{name}_sum"] = sel.groupby("unit")["value"].sum().reindex(out.index, fill_value=0.0)
    return out


def delta_ratio(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    c = np.cov(x, y, ddof=1)
    mx, my = x.mean(), y.mean()
    var = (c[0, 0] / my**2 - 2 * mx * c[0, 1] / my**3 + mx**2 * c[1, 1] / my**4) / x.size
    return float(x.sum() / y.sum()), float(var)


# ---------------------------------------------------------------------------------------
# results against an independent computation
# ---------------------------------------------------------------------------------------
def test_results_match_independent_computation() -> None:
    exposures, events = make_logs(1, lift=0.1)
    res = analyze(exposures, events, METRICS, plan=Experiment("e", ["control", "treatment"]))
    u = per_unit(exposures, events)
    c, t = u[u["variant"] == "control"], u[u["variant"] == "treatment"]

    conv = res.get("conversion", "treatment")
    xt, xc = int((t["purchase_n"] > 0).sum()), int((c["purchase_n"] > 0).sum())
    z, p = smprop.proportions_ztest(np.array([xt, xc]), np.array([len(t), len(c)]))
    lo, hi = smprop.confint_proportions_2indep(xt, len(t), xc, len(c), method="wald")
    assert (conv.n, conv.n_control) == (len(t), len(c))
    assert conv.estimate == pytest.approx(xt / len(t))
    assert conv.statistic == pytest.approx(z) and conv.p_value == pytest.approx(p)
    assert (conv.ci_lower, conv.ci_upper) == pytest.approx((lo, hi))
    assert conv.test == "two-proportion z-test"

    rev = res.get("revenue", "treatment")
    ref = stats.ttest_ind(t["purchase_sum"], c["purchase_sum"], equal_var=False)
    ci = ref.confidence_interval(0.95)
    assert rev.estimate == pytest.approx(t["purchase_sum"].mean())
    assert rev.p_value == pytest.approx(ref.pvalue)
    assert (rev.ci_lower, rev.ci_upper) == pytest.approx((ci.low, ci.high))

    ctr = res.get("ctr", "treatment")
    rt, vt = delta_ratio(t["click_n"].to_numpy(float), t["impression_n"].to_numpy(float))
    rc, vc = delta_ratio(c["click_n"].to_numpy(float), c["impression_n"].to_numpy(float))
    zr = (rt - rc) / math.sqrt(vt + vc)
    assert (ctr.estimate, ctr.control_estimate) == pytest.approx((rt, rc))
    assert ctr.statistic == pytest.approx(zr)
    assert ctr.p_value == pytest.approx(2 * stats.norm.sf(abs(zr)))
    rel_se = math.sqrt(vt / rc**2 + rt**2 * vc / rc**4)
    assert ctr.rel_diff == pytest.approx(rt / rc - 1)
    assert ctr.rel_ci_upper - ctr.rel_ci_lower == pytest.approx(2 * 1.959963984540054 * rel_se)

    adj = smtest.multipletests([conv.p_value, rev.p_value, ctr.p_value], method="holm")[1]
    assert [conv.p_adjusted, rev.p_adjusted, ctr.p_adjusted] == pytest.approx(list(adj))
    for cmp in (conv, rev, ctr):
        want = (
            "inconclusive" if cmp.p_adjusted >= 0.05 else "increase" if cmp.diff > 0 else "decrease"
        )
        assert cmp.verdict == want
    pre = events.merge(u[["t0"]], left_on="unit", right_index=True)
    assert res.report.pre_exposure_event_rows == int((pre["time"] < pre["t0"]).sum())
    assert res.report.unexposed_event_rows == 0
    assert not res.srm.mismatch


def test_pandas_polars_and_arrow_inputs_agree() -> None:
    pl = pytest.importorskip("polars")
    exposures, events = make_logs(2, n=800)
    want = analyze(exposures, events, METRICS).to_dict()["comparisons"]
    ex2 = exposures.rename(columns={"unit": "user_id", "variant": "arm", "time": "ts"})
    ev2 = events.rename(
        columns={"unit": "user_id", "time": "ts", "event": "type", "value": "amount"}
    )
    for ex, ev in (
        (pl.from_pandas(ex2), pl.from_pandas(ev2)),
        (pa.Table.from_pandas(ex2), pa.Table.from_pandas(ev2)),
        (pl.from_pandas(ex2).lazy(), pl.from_pandas(ev2).lazy()),
    ):
        got = analyze(
            ex, ev, METRICS, unit="user_id", variant="arm", time="ts", event="type", value="amount"
        )
        assert got.to_dict()["comparisons"] == want


def test_several_variants_and_corrections() -> None:
    exposures, events = make_logs(3, n=2400, variants=("control", "a", "b"), lift=0.05)
    metrics = ["conversion=proportion(purchase)", "ctr=ratio(count(click), count(impression))"]
    res = analyze(exposures, events, metrics, correction="holm")
    assert [(c.metric, c.variant) for c in res.comparisons] == [
        ("conversion", "a"),
        ("conversion", "b"),
        ("ctr", "a"),
        ("ctr", "b"),
    ]
    p = [c.p_value for c in res.comparisons]
    assert [c.p_adjusted for c in res.comparisons] == pytest.approx(
        list(smtest.multipletests(p, method="holm")[1])
    )
    for method, sm in (
        ("none", ""),
        ("bonferroni", "bonferroni"),
        ("bh", "fdr_bh"),
        ("by", "fdr_by"),
    ):
        r = analyze(exposures, events, metrics, correction=method)
        want = p if method == "none" else list(smtest.multipletests(p, method=sm)[1])
        assert [c.p_adjusted for c in r.comparisons] == pytest.approx(want)
    with pytest.warns(
        RanklensDeprecationWarning,
        match=r"^analyze: correction='fdr_bh' is "
        r"deprecated .*; pass correction='bh'$",
    ):
        old = analyze(exposures, events, metrics, correction="fdr_bh")
    assert old.correction == "bh" and [c.p_adjusted for c in old.comparisons] == pytest.approx(
        list(smtest.multipletests(p, method="fdr_bh")[1])
    )
    assert {g.variant for g in res.groups} == {"control", "a", "b"}


def test_metric_objects_and_json() -> None:
    exposures, events = make_logs(4, n=600)
    res = analyze(exposures, events, [OnlineMetric.mean("click", agg="count", name="clicks")])
    assert res.comparisons[0].metric == "clicks"
    data = json.loads(res.to_json())
    assert data["comparisons"][0]["metric"] == "clicks"
    assert data["srm"]["mismatch"] is False
    assert data["data"]["units_per_variant"] == res.report.units_per_variant
    assert len(res.to_frame()) == 1


# ---------------------------------------------------------------------------------------
# data problems
# ---------------------------------------------------------------------------------------
def test_sample_ratio_mismatch_warns_before_results() -> None:
    exposures, events = make_logs(5, n=4000)
    keep = ~((exposures["variant"] == "treatment") & (exposures["unit"].str[-1] < "2"))
    with pytest.warns(RanklensWarning, match="SAMPLE RATIO MISMATCH") as rec:
        res = analyze(exposures[keep], events, METRICS[:1], plan={"control": 1, "treatment": 1})
    assert res.srm.mismatch and res.srm.p_value < 1e-3
    assert str(rec[0].message).startswith("SAMPLE RATIO MISMATCH")
    counts = res.report.units_per_variant
    ref = stats.chisquare([counts["control"], counts["treatment"]])
    assert res.srm.p_value == pytest.approx(ref.pvalue)
    # unequal planned weights are respected
    res2 = analyze(
        exposures[keep],
        events,
        METRICS[:1],
        plan={"control": counts["control"], "treatment": counts["treatment"]},
    )
    assert not res2.srm.mismatch


def test_events_of_unexposed_units_are_reported_and_excluded() -> None:
    exposures, events = make_logs(6, n=500)
    ghosts = pd.DataFrame(
        {
            "unit": ["ghost1", "ghost2", "ghost1"],
            "time": events["time"].iloc[:3].to_numpy(),
            "event": ["purchase", "click", "impression"],
            "value": [100.0, 1.0, 1.0],
        }
    )
    clean = analyze(exposures, events, METRICS)
    dirty = analyze(exposures, pd.concat([events, ghosts]), METRICS)
    assert dirty.report.unexposed_event_rows == 3
    assert dirty.report.unexposed_units == 2
    assert set(dirty.report.unexposed_examples) == {"ghost1", "ghost2"}
    assert any("never exposed" in n for n in dirty.report.notes)
    assert dirty.to_dict()["comparisons"] == clean.to_dict()["comparisons"]


def test_units_exposed_to_two_variants_follow_the_policy() -> None:
    exposures, events = make_logs(7, n=500)
    first = exposures.sort_values("time").groupby("unit").first()
    leaker = first.index[0]
    other = "treatment" if first.loc[leaker, "variant"] == "control" else "control"
    leak = pd.DataFrame(
        {
            "unit": [leaker],
            "variant": [other],
            "time": [first.loc[leaker, "time"] + pd.Timedelta(hours=1)],
        }
    )
    dirty = pd.concat([exposures, leak])
    with pytest.warns(RanklensWarning, match="more than one variant"):
        excl = analyze(dirty, events, METRICS)
    without = analyze(exposures[exposures["unit"] != leaker], events, METRICS)
    assert excl.report.multiple_variant_units == 1
    assert excl.report.multiple_variant_examples == (leaker,)
    assert excl.to_dict()["comparisons"] == without.to_dict()["comparisons"]
    with pytest.warns(RanklensWarning, match="kept each one's first variant"):
        kept = analyze(dirty, events, METRICS, multiple_exposures="first")
    assert (
        kept.to_dict()["comparisons"]
        == analyze(exposures, events, METRICS).to_dict()["comparisons"]
    )
    with pytest.raises(InputError, match=f"e.g. '{leaker}'.*multiple_exposures='exclude'"):
        analyze(dirty, events, METRICS, multiple_exposures="error")


def test_variants_the_plan_does_not_know() -> None:
    exposures, events = make_logs(8, n=900, variants=("control", "treatment", "oops"))
    plan = {"control": 1, "treatment": 1}
    with pytest.raises(InputError, match=r"variant\(s\) \['oops'\] that the plan does not know"):
        analyze(exposures, events, METRICS, plan=plan)
    res = analyze(exposures, events, METRICS, plan=plan, unknown_variants="exclude")
    n_oops = int((exposures["variant"] == "oops").sum())
    assert res.report.unknown_variant_rows == n_oops
    assert res.report.unknown_variants == ("oops",)
    sub = exposures[exposures["variant"] != "oops"]
    assert (
        res.to_dict()["comparisons"]
        == analyze(sub, events, METRICS, plan=plan).to_dict()["comparisons"]
    )


def test_empty_groups_are_not_computed() -> None:
    exposures, events = make_logs(9, n=600)
    plan = Experiment("e", {"control": 1, "treatment": 1, "ghost_variant": 1})
    with pytest.warns(RanklensWarning) as rec:
        res = analyze(exposures, events, METRICS, plan=plan)
    msgs = [str(w.message) for w in rec]
    assert msgs[0].startswith("SAMPLE RATIO MISMATCH")
    assert any("['ghost_variant'] have no analysed units" in m for m in msgs)
    ghost = res.get("revenue", "ghost_variant")
    assert ghost.verdict == "not computed" and "no units in variant 'ghost_variant'" in ghost.note
    assert math.isnan(ghost.p_value) and math.isnan(ghost.p_adjusted)
    assert res.get("revenue", "treatment").verdict in ("inconclusive", "increase", "decrease")
    assert res.report.empty_variants == ("ghost_variant",)


def test_control_must_be_identifiable() -> None:
    exposures, events = make_logs(10, n=300, variants=("a", "b"))
    with pytest.raises(InputError, match="pass control=<variant>"):
        analyze(exposures, events, METRICS)
    res = analyze(exposures, events, METRICS, control="b")
    assert res.control == "b" and res.comparisons[0].variant == "a"
    with pytest.raises(InputError, match="control='c' does not occur"):
        analyze(exposures, events, METRICS, control="c")


@pytest.mark.parametrize(
    ("mutate", "kwargs", "exc", "match"),
    [
        (
            lambda ex, ev: (ex.drop(columns="variant"), ev),
            {},
            InputError,
            r"no column named 'variant'.*Pass variant=<column name>",
        ),
        (
            lambda ex, ev: (ex.assign(unit=[None, *list(ex["unit"].iloc[1:])]), ev),
            {},
            InputError,
            "missing",
        ),
        (
            lambda ex, ev: (ex, ev.assign(value=[np.nan, *list(ev["value"].iloc[1:])])),
            {},
            InputError,
            "NaN or infinite",
        ),
        (
            lambda ex, ev: (ex, ev.assign(time=np.arange(len(ev), dtype=float))),
            {},
            InputError,
            "convert both to the same kind",
        ),
        (lambda ex, ev: (ex.iloc[:0], ev), {}, InputError, "no rows"),
        (
            lambda ex, ev: (ex, ev),
            {"metrics": ["conversion=proportion(purchse)"]},
            InputError,
            "Did you mean 'purchase'",
        ),
        (
            lambda ex, ev: (ex, ev),
            {"metrics": ["x=mean(click)", "x=mean(purchase)"]},
            InputError,
            "used twice",
        ),
        (
            lambda ex, ev: (ex, ev),
            {"metrics": ["x=median(click)"]},
            MetricNameError,
            "unknown metric kind",
        ),
        (lambda ex, ev: (ex, ev), {"correction": "tukey"}, InputError, "correction='tukey'"),
        (lambda ex, ev: (ex, ev), {"multiple_exposures": "last"}, InputError, "not a policy"),
        (lambda ex, ev: (ex, ev), {"alpha": 0}, InputError, "alpha"),
        (lambda ex, ev: (ex, ev), {"plan": {"control": 1}}, InputError, "at least two variants"),
        (
            lambda ex, ev: (ex, ev),
            {"plan": {"control": 1, "treatment": 1}, "control": "zzz"},
            InputError,
            "not a variant of the plan",
        ),
        (
            lambda ex, ev: (ex, ev),
            {"tau": {"other": 1.0}, "sequential": True},
            InputError,
            "tau has no entry for metric",
        ),
        (
            lambda ex, ev: (ex, ev),
            {"look_every": "fortnightly", "sequential": True},
            InputError,
            "cannot read 'fortnightly' as a duration",
        ),
    ],
)
def test_bad_input(mutate: Any, kwargs: dict[str, Any], exc: type[Exception], match: str) -> None:
    exposures, events = make_logs(11, n=200)
    ex, ev = mutate(exposures, events)
    metrics = kwargs.pop("metrics", METRICS[:2])
    with pytest.raises(exc, match=match):
        analyze(ex, ev, metrics, **kwargs)


def test_numeric_times_need_look_every_for_sequential() -> None:
    exposures, events = make_logs(12, n=200, numeric_time=True)
    with pytest.raises(InputError, match="look_every"):
        analyze(exposures, events, METRICS[:1], sequential=True)


def test_iso_strings_and_naive_timestamps() -> None:
    exposures, events = make_logs(13, n=300)
    ex = exposures.assign(time=exposures["time"].dt.tz_localize(None))
    ev = events.assign(time=events["time"].dt.tz_localize(None))
    want = analyze(ex, ev, METRICS).to_dict()["comparisons"]
    ex_s = ex.assign(time=ex["time"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f"))
    ev_s = ev.assign(time=ev["time"].dt.strftime("%Y-%m-%dT%H:%M:%S.%f"))
    assert analyze(ex_s, ev_s, METRICS).to_dict()["comparisons"] == want
    with pytest.raises(InputError, match="time zone"):
        analyze(exposures, ev, METRICS)


# ---------------------------------------------------------------------------------------
# CUPED
# ---------------------------------------------------------------------------------------
def test_cuped_matches_its_definition_and_reduces_variance() -> None:
    exposures, events = make_logs(14, n=6000, lift=0.1)
    plain = analyze(exposures, events, METRICS[1:2])
    res = analyze(exposures, events, METRICS[1:2], cuped=True)
    u = per_unit(exposures, events)
    pre = events.merge(u[["t0"]], left_on="unit", right_index=True)
    pre = pre[(pre["time"] < pre["t0"]) & (pre["event"] == "purchase")]
    x = pre.groupby("unit")["value"].sum().reindex(u.index, fill_value=0.0).to_numpy()
    y = u["purchase_sum"].to_numpy()
    theta = np.cov(y, x, ddof=1)[0, 1] / np.var(x, ddof=1)
    adj = y - theta * (x - x.mean())
    t = (u["variant"] == "treatment").to_numpy()
    cmp = res.get("revenue", "treatment")
    assert cmp.cuped_theta == pytest.approx(theta)
    assert cmp.test == "CUPED Welch t-test"
    ref = stats.ttest_ind(adj[t], adj[~t], equal_var=False)
    assert cmp.estimate == pytest.approx(adj[t].mean())
    assert cmp.p_value == pytest.approx(ref.pvalue)
    base = plain.get("revenue", "treatment")
    assert cmp.ci_upper - cmp.ci_lower < base.ci_upper - base.ci_lower
    assert cmp.variance_reduction is not None and cmp.variance_reduction > 0
    # the same covariate given as a table gives the same answer
    table = pd.DataFrame({"unit": u.index, "revenue": x})
    via_table = analyze(exposures, events, METRICS[1:2], covariates=table)
    assert via_table.get("revenue", "treatment").p_value == pytest.approx(cmp.p_value)


def test_cuped_ratio_metric_uses_linearised_values() -> None:
    exposures, events = make_logs(15, n=4000)
    res = analyze(
        exposures,
        events,
        ["imp=ratio(click, impression)", "views=mean(count(impression))"],
        cuped=True,
    )
    ctr = res.get("imp", "treatment")
    assert ctr.test == "CUPED delta-method z-test"
    assert np.isfinite(ctr.p_value) and ctr.cuped_theta is not None and ctr.cuped_theta > 0
    assert ctr.variance_reduction is not None and ctr.variance_reduction > 0
    # independent computation (Deng et al. 2013 with the delta-method linearisation)
    u = per_unit(exposures, events)
    pre = events.merge(u[["t0"]], left_on="unit", right_index=True)
    pre = pre[pre["time"] < pre["t0"]]
    xp = pre[pre["event"] == "click"].groupby("unit").size().reindex(u.index, fill_value=0)
    yp = pre[pre["event"] == "impression"].groupby("unit").size().reindex(u.index, fill_value=0)
    cov = ((xp - xp.sum() / yp.sum() * yp) / yp.mean()).to_numpy(float)
    lin = np.zeros(len(u))
    t = (u["variant"] == "treatment").to_numpy()
    ratio = {}
    for is_t, g in ((True, t), (False, ~t)):
        x, y = u["click_n"].to_numpy(float)[g], u["impression_n"].to_numpy(float)[g]
        ratio[is_t] = x.sum() / y.sum()
        lin[g] = (x - x.sum() / y.sum() * y) / y.mean()
    theta = np.cov(lin, cov, ddof=1)[0, 1] / np.var(cov, ddof=1)
    adj = lin - theta * cov
    est_t = ratio[True] - theta * (cov[t].mean() - cov.mean())
    est_c = ratio[False] - theta * (cov[~t].mean() - cov.mean())
    var = adj[t].var(ddof=1) / t.sum() + adj[~t].var(ddof=1) / (~t).sum()
    assert ctr.cuped_theta == pytest.approx(theta)
    assert (ctr.estimate, ctr.control_estimate) == pytest.approx((est_t, est_c))
    assert ctr.statistic == pytest.approx((est_t - est_c) / math.sqrt(var))
    plain = analyze(exposures, events, ["imp=ratio(click, impression)"]).get("imp", "treatment")
    assert ctr.ci_upper - ctr.ci_lower < plain.ci_upper - plain.ci_lower
    # a covariate without variation changes nothing: plain test, with a note
    no_pre = analyze(exposures, events, ["conv=proportion(purchase)"], cuped=True, pre_window="1s")
    assert no_pre.get("conv", "treatment").test == "two-proportion z-test"
    assert any("does not vary" in n for n in no_pre.report.notes)
    views = res.get("views", "treatment")
    assert views.variance_reduction is not None and views.variance_reduction > 0.2


# ---------------------------------------------------------------------------------------
# sequential monitoring through analyze()
# ---------------------------------------------------------------------------------------
def test_sequential_trace_matches_an_independent_recomputation() -> None:
    exposures, events = make_logs(16, n=1500, lift=0.2, numeric_time=True)
    res = analyze(
        exposures, events, ["views=mean(count(impression))"], sequential=True, look_every=DAY
    )
    trace = res.sequential[0] if res.sequential else None
    assert trace is not None and trace.metric == "views"
    first = (
        exposures.sort_values("time")
        .groupby("unit")
        .agg(variant=("variant", "first"), t0=("time", "first"))
    )
    ev = events.merge(first, left_on="unit", right_index=True)
    ev = ev[(ev["event"] == "impression") & (ev["time"] >= ev["t0"])]
    start = first["t0"].min()
    diffs, varis = [], []
    for look in trace.looks:
        units = first[first["t0"] < look]
        counts = ev[ev["time"] < look].groupby("unit").size().reindex(units.index, fill_value=0)
        t = counts[units["variant"] == "treatment"]
        c = counts[units["variant"] == "control"]
        diffs.append(t.mean() - c.mean())
        varis.append(t.var(ddof=1) / len(t) + c.var(ddof=1) / len(c))
    assert trace.looks[0] == pytest.approx(start + DAY)
    assert list(trace.diff) == pytest.approx(diffs)
    assert list(trace.variance) == pytest.approx(varis)
    tau = float(mixture_tau(varis[-1]))
    ref = msprt(np.array(diffs), np.array(varis), tau=tau)
    assert trace.tau == pytest.approx(tau)
    assert list(trace.p_value) == pytest.approx(list(ref.p_value))
    cmp = res.get("views", "treatment")
    assert cmp.seq_p_value == pytest.approx(ref.p_value[-1])
    assert (cmp.cs_lower, cmp.cs_upper) == pytest.approx((ref.ci_lower[-1], ref.ci_upper[-1]))
    want = "inconclusive" if ref.p_value[-1] >= 0.05 else "increase"
    assert cmp.verdict == want


def test_sequential_with_timestamps_defaults_to_daily_looks() -> None:
    exposures, events = make_logs(17, n=800)
    res = analyze(
        exposures,
        events,
        METRICS,
        sequential=True,
        tau={"conversion": 0.01, "revenue": 1.0, "ctr": 0.01},
    )
    assert res.sequential is not None and len(res.sequential) == 3
    trace = res.sequential[0]
    assert 9 <= len(trace.looks) <= 11  # ~10 days of data
    assert str(trace.looks[0]).endswith("Z")
    assert all(b <= a for a, b in zip(trace.p_value, trace.p_value[1:], strict=False))
    assert trace.tau == 0.01
    data = json.loads(res.to_json())
    assert len(data["sequential"]) == 3


# ---------------------------------------------------------------------------------------
# packaging
# ---------------------------------------------------------------------------------------
def test_importing_online_does_not_import_scipy_or_statsmodels() -> None:
    code = (
        "import sys, ranklens, ranklens.online; "
        "bad = [m for m in ('scipy', 'statsmodels') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_no_warnings_on_clean_data() -> None:
    exposures, events = make_logs(18, n=500)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analyze(exposures, events, METRICS, cuped=True, sequential=True)
