"""compare, the gate and the HTML report give each metric the aggregate evaluate gives it.

A sum (``num_q``, ``num_rel``, ...) is compared as a sum, a geometric mean (``gm_map``,
``gm_bpref``) as a geometric mean: tested on the per-query logarithms and contrasted as
a ratio.  Every aggregate of the catalogue other than the mean is covered, through the
Python API and the command line; three comparisons are computed by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

import ranklens
from ranklens.cli import main
from ranklens.comparison.scales import scale_of
from ranklens.errors import InputError
from ranklens.io import read_qrels, read_run
from ranklens.metrics.catalogue import RANKING
from tests.helpers import system_files

T_975_DF2 = 4.302652729749464  # Student's t, 97.5% quantile, 2 degrees of freedom


def _not_means() -> list[str]:
    """Every ranking metric string whose aggregate is not the mean: each definition with
    another ``aggregate``, and each parameter value that switches it (``aggregate_when``)."""
    out = []
    for d in RANKING:
        if d.aggregate != "mean":
            out.append(d.name)
        out += [f"{d.name}({p}={v})" for (p, v), how in d.aggregate_when if how != "mean"]
    return out


NOT_MEANS = _not_means()


def test_the_catalogue_has_sums_and_geometric_means() -> None:
    """The parametrisation below is generated, so check it found each kind."""
    kinds = {scale_of(ranklens.evaluate(_QRELS, _A, [m]).aggregation(m)).kind for m in NOT_MEANS}
    assert kinds == {"sum", "geometric"}
    assert {"num_q", "num_rel", "num_ret", "gm_map", "gm_bpref", "gm_map(values=log)"} <= set(
        NOT_MEANS
    )


# ------------------------------------------------------------------ hand-computed case

# q1 judges d1, d2 relevant, q2 d2, q3 d1.  a ranks d2 > d1 everywhere, b ranks d1 first
# (and d3, unjudged, second in q1).  AP: a (1, 1, 1/2), b (1/2, 1/2, 1).
_QRELS = ranklens.Qrels.from_dict({"q1": {"d1": 1, "d2": 1}, "q2": {"d2": 1}, "q3": {"d1": 1}})
_A = ranklens.Run.from_dict(
    {q: {"d2": 2.0, "d1": 1.0} for q in ("q1", "q2", "q3")},
    name="a",
)
_B = ranklens.Run.from_dict(
    {"q1": {"d1": 2.0, "d3": 1.0}, "q2": {"d1": 2.0, "d2": 1.0}, "q3": {"d1": 2.0, "d2": 1.0}},
    name="b",
)


def _hand() -> ranklens.Comparison:
    return ranklens.compare(
        _QRELS,
        {"a": _A, "b": _B},
        ["num_q", "num_rel", "num_rel_ret", "gm_map", "map"],
        baseline="a",
        test="t",
        correction="none",
    )


def test_num_q_and_num_rel_are_sums() -> None:
    cmp = _hand()
    assert cmp.mean("a", "num_q") == cmp.mean("b", "num_q") == 3.0  # not 1.0, the mean
    assert (cmp.ci_low[0, 0], cmp.ci_high[0, 0]) == (3.0, 3.0)  # every query counts 1
    assert cmp.mean("a", "num_rel") == cmp.mean("b", "num_rel") == 4.0  # 2 + 1 + 1
    p = cmp.pair("b", "a", "num_q")
    assert (p.mean_diff, p.wins, p.ties, p.losses, p.contrast) == (0.0, 0, 3, 0, "difference")
    assert cmp.pair("b", "a", "num_rel").mean_diff == 0.0
    assert cmp.aggregates["num_q"] == cmp.aggregates["num_rel"] == "sum"


def test_a_sum_difference_is_n_times_the_mean_difference() -> None:
    """num_rel_ret: a (2, 1, 1) = 4, b (1, 1, 1) = 3; per-query differences (-1, 0, 0),
    mean -1/3, standard error 1/3; the sum's difference -1 = 3 x -1/3 and its interval 3
    times the mean's; the t-test's t = -1 whatever the scale (p = 2 x sf(1) at 2 df =
    1 - 1/sqrt(3))."""
    cmp = _hand()
    assert (cmp.mean("a", "num_rel_ret"), cmp.mean("b", "num_rel_ret")) == (4.0, 3.0)
    p = cmp.pair("b", "a", "num_rel_ret")
    assert p.mean_diff == -1.0 and p.relative == pytest.approx(-0.25)
    assert (p.diff_ci_low, p.diff_ci_high) == pytest.approx((-1 - T_975_DF2, -1 + T_975_DF2))
    assert p.p_value == pytest.approx(1 - 1 / math.sqrt(3))
    assert (p.wins, p.ties, p.losses) == (0, 2, 1)
    # the reverse pair flips the difference and its interval
    r = cmp.pair("a", "b", "num_rel_ret")
    assert (r.mean_diff, r.diff_ci_low) == (1.0, pytest.approx(1 - T_975_DF2))


def test_gm_map_is_a_geometric_mean_compared_as_a_ratio() -> None:
    """gm_map: a (1 * 1 * 1/2)^(1/3) = 2^(-1/3), b (1/2 * 1/2 * 1)^(1/3) = 2^(-2/3); the
    ratio b / a = 2^(-1/3).  Log differences ln2 x (-1, -1, 1): mean -ln2/3, standard
    error 2 ln2 / 3, t = -1/2, p = 2 x sf(1/2) at 2 df = 2 x (1/2 - 1/6) = 2/3; the
    interval of the ratio is exp(mean +- t975 x se)."""
    cmp = _hand()
    ln2 = math.log(2)
    assert cmp.mean("a", "gm_map") == pytest.approx(2 ** (-1 / 3), rel=1e-15)
    assert cmp.mean("b", "gm_map") == pytest.approx(2 ** (-2 / 3), rel=1e-15)
    # the arithmetic mean of b's APs is 2/3; the geometric mean is not it
    assert cmp.mean("b", "map") == pytest.approx(2 / 3)
    p = cmp.pair("b", "a", "gm_map")
    assert p.contrast == "ratio" and p.mean_diff == pytest.approx(2 ** (-1 / 3))
    assert p.relative == pytest.approx(2 ** (-1 / 3) - 1)
    se = 2 * ln2 / 3
    assert (p.diff_ci_low, p.diff_ci_high) == pytest.approx(
        (math.exp(-ln2 / 3 - T_975_DF2 * se), math.exp(-ln2 / 3 + T_975_DF2 * se))
    )
    assert p.p_value == pytest.approx(2 / 3)
    assert (p.wins, p.ties, p.losses) == (1, 0, 2)
    assert p.shift == pytest.approx(-ln2 / 3)
    r = cmp.pair("a", "b", "gm_map")
    assert r.mean_diff == pytest.approx(2 ** (1 / 3))
    assert r.diff_ci_high == pytest.approx(1 / p.diff_ci_low)
    # a's geometric mean's interval: logs (0, 0, -ln2), mean -ln2/3, se ln2/3
    assert (cmp.ci_low[0, 3], cmp.ci_high[0, 3]) == pytest.approx(
        (math.exp(-ln2 / 3 - T_975_DF2 * ln2 / 3), math.exp(-ln2 / 3 + T_975_DF2 * ln2 / 3))
    )


def test_a_geometric_mean_floors_zero_at_trec_evals_epsilon() -> None:
    """A query with AP 0 counts as 1e-5 (log -11.51...) in the geometric mean and in the
    test, as trec_eval's gm_map: a's APs (1, 1, 1/2), c's (0, 1, 1/2)."""
    c = ranklens.Run.from_dict(
        {"q1": {"d9": 1.0}, "q2": {"d2": 2.0, "d1": 1.0}, "q3": {"d2": 2.0, "d1": 1.0}}
    )
    cmp = ranklens.compare(_QRELS, {"a": _A, "c": c}, ["gm_map"], baseline="a", test="t")
    gm_c = (1e-5 * 1 * 0.5) ** (1 / 3)
    assert cmp.mean("c", "gm_map") == pytest.approx(gm_c, rel=1e-12)
    assert cmp.pair("c", "a", "gm_map").mean_diff == pytest.approx((1e-5) ** (1 / 3), rel=1e-12)


def test_the_table_labels_sums_and_ratios() -> None:
    cmp = _hand()
    text = cmp.render("table", color=False)
    header = text.splitlines()[0]
    assert "gm_map ratio" in header and "num_rel_ret diff" in header
    assert "Sums over the queries: num_q, num_rel, num_rel_ret" in text
    assert "Geometric means: gm_map" in text and "ratio: the geometric mean over" in text
    rows = {(r["system"], r["metric"]): r for r in cmp.to_records()}
    assert rows[("b", "num_q")]["aggregate"] == "sum" and rows[("b", "num_q")]["mean"] == 3.0
    assert rows[("b", "gm_map")]["contrast"] == "ratio"
    assert rows[("b", "map")]["aggregate"] == "mean"
    doc = json.loads(cmp.render("json"))
    assert {t["metric"]: t["contrast"] for t in doc["tests"]}["gm_map"] == "ratio"


def test_better_than_reads_a_ratio_by_its_side_of_one() -> None:
    """b's gm_map is far above a's on 30 queries: b is better, whatever the ratio's size."""
    qrels = ranklens.Qrels.from_dict({f"q{i}": {"d1": 1} for i in range(30)})
    a = ranklens.Run.from_dict({f"q{i}": {"x": 3.0, "y": 2.0, "d1": 1.0} for i in range(30)})
    b = ranklens.Run.from_dict({f"q{i}": {"d1": 3.0, "x": 2.0} for i in range(30)})
    cmp = ranklens.compare(qrels, {"a": a, "b": b}, ["gm_map"], seed=0, n_resamples=200)
    p = cmp.pair("b", "a", "gm_map")
    assert p.mean_diff == pytest.approx(3.0)  # 1 / (1/3)
    assert cmp.better_than("b", "gm_map") == ["a"] and cmp.better_than("a", "gm_map") == []


def test_systems_aggregated_differently_are_refused() -> None:
    """gm_map's values are logs under the pytrec_eval profile (values=log): a Result of
    each does not compare."""
    x = ranklens.evaluate(_QRELS, _A, ["gm_map"])
    y = ranklens.evaluate(_QRELS, _B, ["gm_map"], profile="pytrec_eval")  # values=log
    assert (x.aggregation("gm_map"), y.aggregation("gm_map")) == ("gmean", "expmean")
    with pytest.raises(InputError, match="aggregate differently"):
        ranklens.compare(None, {"x": x, "y": y})


def test_num_rel_summary_trec_reads_the_summary_values() -> None:
    """num_rel(summary=trec) under missing='zero' counts every relevant judgment of a
    query the run lacks (trec_eval -c): compare reports evaluate's 4, not 3."""
    part = ranklens.Run.from_dict({"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}, name="part")
    m = "num_rel(summary=trec)"
    res = ranklens.evaluate(_QRELS, part, [m], missing="zero")
    assert res[m] == 4.0
    cmp = ranklens.compare(_QRELS, {"a": _A, "part": part}, [m], missing="zero", test="t")
    assert cmp.mean("part", m) == 4.0 == cmp.mean("a", m)


# ------------------------------------------------------------------ the whole catalogue


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return system_files(tmp_path_factory.mktemp("agg"), noise={"bm25": 2.0, "dense": 0.3})


def _cli(*args: Any) -> Any:
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.mark.parametrize("metric", NOT_MEANS)
def test_compare_reports_what_evaluate_reports(metric: str, files: dict[str, Path]) -> None:
    """Python and the command line: each system's value in compare is evaluate's."""
    qrels = read_qrels(files["qrels"])
    runs = {n: read_run(files[n]) for n in ("bm25", "dense")}
    cmp = ranklens.compare(qrels, runs, [metric], test="t", baseline="bm25")
    for name, run in runs.items():
        assert cmp.mean(name, metric) == ranklens.evaluate(qrels, run, [metric])[metric]
    sc = scale_of(cmp.results["bm25"].aggregation(metric))
    p = cmp.pair("dense", "bm25", metric)
    assert p.mean_diff == pytest.approx(
        sc.contrast_of(cmp.mean("dense", metric), cmp.mean("bm25", metric))
    )
    assert p.diff_ci_low <= p.mean_diff <= p.diff_ci_high
    ev = _cli(
        "evaluate", files["qrels"], files["bm25"], files["dense"], "-m", metric, "--format", "json"
    )
    cm = _cli(
        "compare", files["qrels"], files["bm25"], files["dense"], "-m", metric, "--format", "json"
    )
    evaluated = {r["run"]: r["summary"][metric] for r in ev["runs"]}
    compared = {r["system"]: r["mean"] for r in cm["rows"]}
    assert compared == evaluated


@pytest.mark.parametrize("metric", NOT_MEANS)
def test_the_gate_reads_what_evaluate_reports(metric: str, files: dict[str, Path]) -> None:
    qrels = read_qrels(files["qrels"])
    runs = {n: read_run(files[n]) for n in ("bm25", "dense")}
    value = {n: ranklens.evaluate(qrels, r, [metric])[metric] for n, r in runs.items()}
    v = ranklens.gate(qrels, runs["dense"], None, {"min": {metric: value["dense"]}})
    assert v.passed and v.outcomes[0].candidate == value["dense"]
    if ranklens.get_metric(metric).definition.higher_is_better is None:
        return  # a count: no drop
    drop = ranklens.gate(qrels, runs["dense"], runs["bm25"], {"max_drop": {metric: 0.0}})
    o = drop.outcomes[0]
    assert (o.candidate, o.baseline) == (value["dense"], value["bm25"])
    assert o.difference == pytest.approx(value["dense"] - value["bm25"])
    assert o.ci_low <= o.difference <= o.ci_high


def test_gate_min_num_q_on_the_command_line(files: dict[str, Path]) -> None:
    """num_q is 30 (evaluate's sum), so --min num_q=30 passes and 31 fails."""
    ok = CliRunner().invoke(
        main, ["gate", str(files["qrels"]), str(files["dense"]), "--min", "num_q=30"]
    )
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(
        main, ["gate", str(files["qrels"]), str(files["dense"]), "--min", "num_q=31"]
    )
    assert bad.exit_code == 1 and "num_q = 30.0000 is below the floor 31" in bad.output


def test_gate_drop_of_a_sum_is_a_drop_of_the_sum() -> None:
    """num_rel_ret falls from 4 to 3 (see the hand case): a drop of 1 in evaluate's units;
    max_drop 1 passes, 0.5 fails, and the interval is 3 times the mean difference's."""
    ok = ranklens.gate(_QRELS, _B, _A, {"max_drop": {"num_rel_ret": 1}})
    assert ok.passed and ok.outcomes[0].difference == -1.0
    bad = ranklens.gate(_QRELS, _B, _A, {"max_drop": {"num_rel_ret": 0.5}})
    o = bad.outcomes[0]
    assert not bad.passed and "dropped by 1.0000 (4.0000 -> 3.0000)" in o.reason
    assert (o.ci_low, o.ci_high) == pytest.approx((-1 - T_975_DF2, -1 + T_975_DF2))


def test_gate_non_inferiority_of_a_geometric_mean_is_on_the_log_scale() -> None:
    """gm_map falls from 2^(-1/3) to 2^(-2/3) (the hand case).  Margin m: b - a + m > 0 is
    mean(log d) > log(1 - m / a); with log differences ln2 x (-1, -1, 1) the test's x is
    d - log(1 - m / a), tested one-sided."""
    from scipy import stats

    ga = 2 ** (-1 / 3)
    m = 0.3
    v = ranklens.gate(_QRELS, _B, _A, {"non_inferiority": {"gm_map": m}}, correction="none")
    d = math.log(2) * np.array([-1.0, -1.0, 1.0])
    x = d - math.log(1 - m / ga)
    expected = stats.ttest_1samp(x, 0.0, alternative="greater").pvalue
    o = v.outcomes[0]
    assert o.p_value == pytest.approx(expected)
    assert o.difference == pytest.approx(2 ** (-2 / 3) - ga)
    # the interval of the difference: a x (exp(mean d +- t975 x se) - 1)
    se = 2 * math.log(2) / 3
    assert (o.ci_low, o.ci_high) == pytest.approx(
        (
            ga * math.expm1(-math.log(2) / 3 - T_975_DF2 * se),
            ga * math.expm1(-math.log(2) / 3 + T_975_DF2 * se),
        )
    )
    # a margin as large as the baseline's value: any candidate is within it
    assert ranklens.gate(_QRELS, _B, _A, {"non_inferiority": {"gm_map": 0.8}}).passed


def test_html_report_shows_evaluates_values(tmp_path: Path) -> None:
    from ranklens.render.html import html_report

    page = html_report(_QRELS, {"a": _A, "b": _B}, ["num_q", "gm_map"], seed=0, n_resamples=100)
    assert "Sums over the queries: num_q" in page and "Geometric means: gm_map" in page
    assert "ratio 0.7937" in page  # 2^(-1/3)
    one = html_report(_QRELS, {"a": _A}, ["num_q", "gm_map"])
    assert "3.0000" in one and "[3.0000, 3.0000]" in one and "0.7937" in one
