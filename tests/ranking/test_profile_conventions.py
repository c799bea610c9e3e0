"""The conventions that tell the peers apart (issue 22): empty rankings, negative grades
in judged-ness, per-query logarithms of the geometric-mean metrics, and the range of
ranx's raw-gain RBP.  Expected values are worked out by hand in the comments."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import ranklens as rl

LOG_FLOOR = math.log(1e-5)  # -11.5129...

# the issue's pytrec_eval case: 'b' is in the run with no document
QRELS_B = {"a": {"d": 1}, "b": {"e": 1, "f": 0}}
RUN_B = {"a": {"d": 1.0}, "b": {}}
# the issue's ranx case: '007' and 'zz_neg' have a negative grade
QRELS_NEG = {"1": {"WSJ82": 2, "007": -1, "zz_rel": 2, "zz_non": 0, "zz_neg": -1}}
RUN_NEG = {"1": {"WSJ82": 0.0, "007": 0.5, "WSJ845": 1.0}}


def _evaluate(qrels: dict, run: dict, metrics: list[str], **kw: object) -> rl.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        return rl.evaluate(rl.Qrels.from_dict(qrels), rl.Run.from_dict(run), metrics, **kw)


# --------------------------------------------------------------------- empty rankings


def test_run_keeps_its_empty_rankings() -> None:
    run = rl.Run.from_dict(RUN_B)
    assert run.empty_queries == ("b",)
    assert run.query_ids == ["a", "b"] and run.num_queries == 2 and len(run) == 1
    assert run.to_dict() == RUN_B  # round trip
    assert rl.Run.from_dict(run.to_dict()) == run
    without = rl.Run.from_dict({"a": {"d": 1.0}})
    assert run != without and run.fingerprint() != without.fingerprint()
    same = rl.Run.from_arrays(["a"], ["d"], [1.0], empty_queries=["b", "a"])
    assert same == run and same.empty_queries == ("b",)  # 'a' has a ranking
    assert same.fingerprint() == run.fingerprint()
    assert run.take_queries(["b"]).to_dict() == {"b": {}}
    assert run.take_queries(["a"]).empty_queries == ()
    only = rl.Run.from_dict({"b": {}, 7: {}})
    assert len(only) == 0 and only.query_ids == ["7", "b"]
    with pytest.raises(rl.InputError, match="query ids must be strings"):
        rl.Run.from_dict({("x",): {}})


def test_empty_ranking_is_missing_by_default_and_evaluated_by_pytrec_eval() -> None:
    metrics = ["map", "num_ret", "P_5", "recip_rank", "ndcg", "bpref", "num_rel"]
    trec = _evaluate(QRELS_B, RUN_B, metrics)
    assert trec.query_ids == ("a",)  # trec_eval skips the query: map 1.0
    assert trec["map"] == 1.0
    py = _evaluate(QRELS_B, RUN_B, metrics, profile="pytrec_eval")
    assert py.query_ids == ("a", "b")
    # b retrieved nothing: every score 0, num_rel still 1 (e)
    assert py.per_query_all() == {
        "map": {"a": 1.0, "b": 0.0},
        "num_ret": {"a": 1.0, "b": 0.0},
        "P_5": {"a": 0.2, "b": 0.0},
        "recip_rank": {"a": 1.0, "b": 0.0},
        "ndcg": {"a": 1.0, "b": 0.0},
        "bpref": {"a": 1.0, "b": 0.0},
        "num_rel": {"a": 1.0, "b": 1.0},
    }
    assert py["map"] == 0.5
    assert py.report["run_queries_empty"] == 1
    # the convention on its own, and missing='zero' reaches the same numbers
    assert _evaluate(QRELS_B, RUN_B, ["map"], empty_rankings="evaluate")["map"] == 0.5
    assert _evaluate(QRELS_B, RUN_B, ["map"], missing="zero")["map"] == 0.5


def test_run_of_empty_rankings_only() -> None:
    with pytest.raises(rl.InputError, match="run is empty"):
        _evaluate(QRELS_B, {"b": {}}, ["map"])
    res = _evaluate(QRELS_B, {"b": {}, "zz": {}}, ["map", "num_ret"], profile="pytrec_eval")
    assert res.per_query_all() == {"map": {"b": 0.0}, "num_ret": {"b": 0.0}}
    assert res.report["run_queries_without_judgments"] == 1  # zz
    zero = _evaluate(
        QRELS_B, {"b": {}, "zz": {}}, ["map"], empty_rankings="evaluate", unjudged="zero"
    )
    assert zero.per_query("map") == {"b": 0.0, "zz": 0.0}


def test_unknown_convention_values_are_refused() -> None:
    with pytest.raises(rl.ConventionError, match=r"empty_rankings='drop'.*'missing', 'evaluate'"):
        rl.Conventions(empty_rankings="drop")
    with pytest.raises(rl.ConventionError, match=r"negative_grades='x'.*'unjudged'"):
        rl.Conventions(negative_grades="x")


# --------------------------------------------------------------------- gm_* per query


def test_gm_metrics_report_logarithms_under_pytrec_eval() -> None:
    res = _evaluate(QRELS_B, RUN_B, ["gm_map", "gm_bpref"], profile="pytrec_eval")
    assert res.per_query("gm_map") == {"a": 0.0, "b": pytest.approx(LOG_FLOOR)}
    assert res.per_query("gm_bpref") == {"a": 0.0, "b": pytest.approx(LOG_FLOOR)}
    # exp(mean(0, log 1e-5)) = sqrt(1e-5)
    assert res["gm_map"] == pytest.approx(math.sqrt(1e-5))
    assert res.aggregation("gm_map") == "expmean"
    # trec_eval prints the values; the aggregate is the same geometric mean
    q = {"a": {"d": 1}, "b": {"e": 1}}
    r = {"a": {"d": 1.0}, "b": {"x": 1.0, "y": 0.9, "z": 0.8, "e": 0.5}}  # AP(b) = 1/4
    value = _evaluate(q, r, ["gm_map"])
    log = _evaluate(q, r, ["gm_map"], profile="pytrec_eval")
    assert value.per_query("gm_map") == {"a": 1.0, "b": 0.25}
    assert log.per_query("gm_map") == {"a": 0.0, "b": pytest.approx(math.log(0.25))}
    assert value["gm_map"] == pytest.approx(0.5) and log["gm_map"] == pytest.approx(0.5)
    # an explicit parameter wins over the profile
    explicit = _evaluate(q, r, ["gm_map(values=value)"], profile="pytrec_eval")
    assert explicit.per_query("gm_map(values=value)")["b"] == 0.25


def test_gm_log_scores_unjudged_queries_at_the_floor() -> None:
    # unjudged='zero': the run query 'zz' scores 0, whose logarithm is floored
    res = _evaluate(
        QRELS_B,
        {"a": {"d": 1.0}, "zz": {"d": 1.0}},
        ["gm_map"],
        profile="pytrec_eval",
        unjudged="zero",
    )
    assert res.per_query("gm_map") == {"a": 0.0, "zz": pytest.approx(LOG_FLOOR)}


# --------------------------------------------------------------------- negative grades


def test_negative_grade_is_judged_nonrelevant_under_ranx() -> None:
    # R = 2 (WSJ82, zz_rel). Ranking: WSJ845 (unjudged), 007 (-1), WSJ82 (2).
    # trec_eval: 007 is pooled but unjudged, N = 1 (zz_non): WSJ82 has no judged
    # non-relevant above it: (1 + 0) / 2 = 0.5.
    # ranx: 007 is judged non-relevant, N = 3 (007, zz_non, zz_neg), min(R, N) = 2:
    # WSJ82 has 1 above: (1 - 1/2) / 2 = 0.25.
    assert _evaluate(QRELS_NEG, RUN_NEG, ["bpref"])["bpref"] == 0.5
    assert _evaluate(QRELS_NEG, RUN_NEG, ["bpref"], profile="ranx")["bpref"] == 0.25
    assert _evaluate(QRELS_NEG, RUN_NEG, ["bpref"], negative_grades="nonrelevant")["bpref"] == 0.25


def test_negative_grade_judgedness_reaches_every_metric_that_reads_it() -> None:
    metrics = ["unj", "num_nonrel_judged_ret", "infAP", "rbp_resid(p=0.5)"]
    trec = _evaluate(QRELS_NEG, RUN_NEG, metrics)
    judged = _evaluate(QRELS_NEG, RUN_NEG, metrics, negative_grades="nonrelevant")
    # unjudged: WSJ845 and 007 (trec_eval) / WSJ845 only
    assert trec["unj"] == pytest.approx(2 / 3) and judged["unj"] == pytest.approx(1 / 3)
    assert trec["num_nonrel_judged_ret"] == 0 and judged["num_nonrel_judged_ret"] == 1
    # rbp_resid, p = 0.5, n = 3: p^3 + (1 - p) * (sum of p^(k-1) over unjudged ranks)
    assert trec["rbp_resid(p=0.5)"] == pytest.approx(0.125 + 0.5 * (1 + 0.5))
    assert judged["rbp_resid(p=0.5)"] == pytest.approx(0.125 + 0.5 * 1)
    # infAP: WSJ82 at j = 2 with rel = 1; trec_eval: nr = 0, u = 1:
    # 1/3 + (2/3) (1/2) (eps / (2 eps)) = 1/3 + 1/6 = 1/2; over R = 2: 1/4.
    # judged: nr = 1, u = 0: 1/3 + (2/3)(1/2)(eps / (1 + 2 eps)) ~ 1/3; over R: ~1/6
    assert trec["infAP"] == pytest.approx(0.25)
    assert judged["infAP"] == pytest.approx(1 / 6, abs=1e-4)
    # judged_only keeps 007 when it is judged
    kept = _evaluate(
        QRELS_NEG, RUN_NEG, ["num_ret"], negative_grades="nonrelevant", judged_only=True
    )
    assert kept["num_ret"] == 2
    assert _evaluate(QRELS_NEG, RUN_NEG, ["num_ret"], judged_only=True)["num_ret"] == 1


# --------------------------------------------------------------------- raw-gain RBP


def test_ranx_rbp_lies_in_the_range_of_the_grades() -> None:
    qrels = {"q": {"a": 3, "b": 1}}
    run = {"q": {"a": 1.0, "b": 0.5}}
    res = _evaluate(qrels, run, ["rbp(p=0.5)@1", "rbp(p=0.5)"], profile="ranx")
    assert res["rbp(p=0.5)@1"] == 1.5  # (1 - 0.5) * 3
    assert res["rbp(p=0.5)"] == 1.75  # 0.5 * (3 + 0.5 * 1)
    defn = rl.REGISTRY["rbp"]
    params = rl.get_metric("rbp(p=0.5)@1").resolve(rl.PROFILES["ranx"])
    assert defn.value_range(params, (0.0, 3.0)) == (0.0, 3.0)
    assert defn.value_range(params) is None  # without the judgments, no bound
    assert defn.value_range(rl.get_metric("rbp").resolve(rl.PROFILES["trec_eval"])) == (0, 1)
    trec = _evaluate(qrels, run, ["rbp(p=0.5)@1"])
    assert trec["rbp(p=0.5)@1"] == 0.5  # gains rescaled: 3 -> 1


def test_profiles_set_the_conventions() -> None:
    py, ranx, trec = rl.PROFILES["pytrec_eval"], rl.PROFILES["ranx"], rl.PROFILES["trec_eval"]
    assert (trec.empty_rankings, trec.negative_grades) == ("missing", "unjudged")
    assert py.empty_rankings == "evaluate" and py.negative_grades == "unjudged"
    assert ranx.negative_grades == "nonrelevant" and ranx.empty_rankings == "missing"
    assert py.metric_defaults["gm_map"] == {"values": "log"}
    assert np.isclose(
        rl.get_metric("gm_map").definition.value_range({"values": "log"})[0], LOG_FLOOR
    )


def test_files_keep_empty_rankings_only_in_json(tmp_path: Path) -> None:
    from ranklens.io.tables import read_run, write_run

    run = rl.Run.from_dict(RUN_B)
    write_run(run, tmp_path / "run.json")
    assert read_run(tmp_path / "run.json") == run  # {'b': {}} read back
    for name in ("run.trec", "run.parquet"):
        with pytest.warns(rl.RanklensWarning, match=r"1 queries without any document \('b'\)"):
            write_run(run, tmp_path / name)
        assert read_run(tmp_path / name).to_dict() == {"a": {"d": 1.0}}


# ------------------------------------------------------------- undefined (0/0) values

# 'b' has 2 relevant judgments and (pytrec_eval) an empty ranking
QRELS_U = {"a": {"d": 1, "n": 0}, "b": {"e": 1, "f": 1, "g": 0}}
RUN_U = {"a": {"d": 1.0, "n": 0.5}, "b": {}}
LEVELS = ["iprec@0", "iprec@0.1", "iprec@0.2", "iprec@0.3", "iprec@1"]


def test_iprec_of_an_empty_ranking_is_zero_by_zero() -> None:
    """Nothing retrieved: trec_eval's precision num_rel_ret / num_ret is 0/0 at the levels
    needing no relevant document.  R = 2: lround(x R) = 0 for x = 0, 0.1 (0.2), 0.2
    (0.4); 1 at 0.3 (0.6), 2 at 1.  pytrec_eval's floor(x R + 0.9): 0 only at x = 0."""
    res = _evaluate(QRELS_U, RUN_U, [*LEVELS, "11pt_avg"], empty_rankings="evaluate")
    b = [res.per_query(m)["b"] for m in LEVELS]
    assert [math.isnan(v) for v in b] == [True, True, True, False, False]
    assert b[3:] == [0.0, 0.0]
    assert math.isnan(res.per_query("11pt_avg")["b"])
    assert res.per_query("11pt_avg")["a"] == 1.0  # d first: precision 1 at every level
    # a NaN makes the mean NaN (trec_eval's, pytrec_eval's and numpy's mean)
    assert math.isnan(res["iprec@0"]) and res["iprec@0.3"] == 0.5
    assert res.aggregation("iprec@0") == "mean+nan"
    py = _evaluate(QRELS_U, RUN_U, LEVELS, profile="pytrec_eval")
    assert [math.isnan(py.per_query(m)["b"]) for m in LEVELS] == [True, False, False, False, False]
    zero = _evaluate(QRELS_U, RUN_U, [*LEVELS, "11pt_avg"], profile="pytrec_eval", undefined="zero")
    assert [zero.per_query(m)["b"] for m in [*LEVELS, "11pt_avg"]] == [0.0] * 6
    assert zero["iprec@0"] == 0.5 and zero.aggregation("iprec@0") == "mean"


def test_judged_only_empties_a_ranking_and_missing_queries_keep_a_stand_in() -> None:
    """-J throws out b's unjudged document: 0/0.  A query absent from the run scored by
    missing='zero' (trec_eval -c) is ranked as one unjudged document: precision 0/1 = 0,
    unless judged_only throws that document out too (trec_eval -c -J: -nan)."""
    run = {"a": {"d": 1.0, "n": 0.5}, "b": {"x": 1.0}}
    j = _evaluate(QRELS_U, run, ["iprec@0", "iprec@0.3"], judged_only=True)
    assert math.isnan(j.per_query("iprec@0")["b"]) and j.per_query("iprec@0.3")["b"] == 0.0
    absent = {"a": {"d": 1.0, "n": 0.5}}
    c = _evaluate(QRELS_U, absent, ["iprec@0", "num_ret"], missing="zero")
    assert c.per_query("iprec@0") == {"a": 1.0, "b": 0.0} and c.per_query("num_ret")["b"] == 0
    cj = _evaluate(QRELS_U, absent, ["iprec@0"], missing="zero", judged_only=True)
    assert math.isnan(cj.per_query("iprec@0")["b"]) and math.isnan(cj["iprec@0"])


def test_no_relevant_nan_queries_stay_out_of_the_mean() -> None:
    """no_relevant='nan' marks the queries without relevant judgments NaN and leaves them
    out of every mean, the 0/0 metrics' too."""
    qrels = {"a": {"d": 1}, "z": {"y": 0}}
    run = {"a": {"d": 1.0}, "z": {"y": 1.0}}
    res = _evaluate(qrels, run, ["iprec@0"], no_relevant="nan")
    assert math.isnan(res.per_query("iprec@0")["z"]) and res["iprec@0"] == 1.0
    assert res.aggregation("iprec@0") == "mean"


def test_ranx_bpref_is_zero_by_zero_without_judged_nonrelevant() -> None:
    """R = 2 (a, r), N = 0, a retrieved: trec_eval special-cases n_d = 0 and counts a 1,
    bpref = 1/2; ranx computes 1 - min(0, 2) / min(2, 0) = 1 - 0/0: NaN."""
    qrels = {"q": {"a": 1, "r": 1}, "p": {"a": 1, "z": 0}}
    run = {"q": {"a": 0.5, "x": 0.2}, "p": {"z": 0.9, "a": 0.5}}
    trec = _evaluate(qrels, run, ["bpref"])
    assert trec.per_query("bpref") == {"p": 0.0, "q": 0.5}  # p: 1 - 1/1
    ranx = _evaluate(qrels, run, ["bpref"], profile="ranx")
    assert math.isnan(ranx.per_query("bpref")["q"]) and ranx.per_query("bpref")["p"] == 0.0
    assert math.isnan(ranx["bpref"])  # ranx's np.mean
    zero = _evaluate(qrels, run, ["bpref"], profile="ranx", undefined="zero")
    assert zero.per_query("bpref") == {"p": 0.0, "q": 0.0}
    # nothing relevant retrieved: no 0/0 (the sum over no document is 0)
    none = _evaluate({"q": {"a": 1}}, {"q": {"x": 1.0}}, ["bpref(no_nonrel=undefined)"])
    assert none.per_query("bpref(no_nonrel=undefined)") == {"q": 0.0}


def test_rndcg_without_positive_gain_is_zero_by_zero() -> None:
    """R = 1 at the threshold but gain 0 for grade 1: no ideal gain boundary to average
    (trec_eval: sum / num_changed_ideal_gain = 0/0); nothing relevant: 0."""
    qrels = {"q": {"a": 1, "b": 0}, "r": {"a": 0}}
    run = {"q": {"a": 1.0, "b": 0.5}, "r": {"a": 1.0}}
    res = _evaluate(qrels, run, ["rndcg(gain={1:0})", "rndcg"])
    assert math.isnan(res.per_query("rndcg(gain={1:0})")["q"])
    assert res.per_query("rndcg(gain={1:0})")["r"] == 0.0
    assert res.per_query("rndcg") == {"q": 1.0, "r": 0.0}
    zero = _evaluate(qrels, run, ["rndcg(gain={1:0})"], undefined="zero")
    assert zero.per_query("rndcg(gain={1:0})") == {"q": 0.0, "r": 0.0}


def test_undefined_is_a_checked_convention_every_trec_profile_keeps() -> None:
    assert rl.Conventions().undefined == "nan"
    for name in ("trec_eval", "pytrec_eval", "ranx"):
        assert rl.PROFILES[name].undefined == "nan"
    assert rl.PROFILES["ranx"].metric_defaults["bpref"] == {"no_nonrel": "undefined"}
    with pytest.raises(rl.ConventionError, match="undefined='none'"):
        rl.Conventions(undefined="none")


def test_trec_format_prints_zero_by_zero_as_trec_eval() -> None:
    """trec_eval prints 0/0 with "%6.4f": glibc's '  -nan'; the mean too.  A NaN that
    marks a query not evaluated (no_relevant='nan') is left out, as before."""
    from ranklens.render.report import render_trec

    metrics = ["iprec_at_recall_0.00", "iprec_at_recall_0.30"]
    res = _evaluate(QRELS_U, RUN_U, metrics, empty_rankings="evaluate")
    lines = render_trec(res, per_query=True).splitlines()
    assert "iprec_at_recall_0.00  \tb\t  -nan" in lines
    assert "iprec_at_recall_0.30  \tb\t0.0000" in lines
    assert "iprec_at_recall_0.00  \tall\t  -nan" in lines
    assert "iprec_at_recall_0.30  \tall\t0.5000" in lines
    skipped = _evaluate(
        {"a": {"d": 1}, "z": {"y": 0}},
        {"a": {"d": 1.0}, "z": {"y": 1.0}},
        ["P@1"],
        no_relevant="nan",
    )
    assert [ln.split("\t")[1] for ln in render_trec(skipped, per_query=True).splitlines()] == [
        "a",
        "all",
    ]


# ------------------------------------------------------ trec_eval -c summary num_rel


def test_summary_num_rel_under_missing_zero_counts_every_positive_grade() -> None:
    """a: grades 1, 2; b: grade 1, absent from the run.  At rel_threshold 2 the per-query
    num_rel are a 1, b 0; trec_eval -c's summary counts every grade > 0: 3."""
    qrels = {"a": {"d": 1, "e": 2}, "b": {"f": 1}}
    run = {"a": {"d": 1.0}}
    metrics = ["num_rel", "num_rel(summary=sum)"]
    c = _evaluate(qrels, run, metrics, missing="zero", rel_threshold=2)
    assert c.per_query("num_rel") == {"a": 1.0, "b": 0.0}
    assert c.summary() == {"num_rel": 3.0, "num_rel(summary=sum)": 1.0}
    skip = _evaluate(qrels, run, metrics, rel_threshold=2)  # no -c: the sum
    assert skip.summary() == {"num_rel": 1.0, "num_rel(summary=sum)": 1.0}
    # profiles of other tools set their own metric defaults: the sum
    spark = _evaluate(qrels, run, ["num_rel"], profile="spark", rel_threshold=2)
    assert spark["num_rel"] == 1.0
    # the Evaluator's batches give the same summary
    ev = rl.Evaluator(metrics, missing="zero", rel_threshold=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        ev.update(rl.Qrels.from_dict({"a": qrels["a"]}), rl.Run.from_dict(run))
        ev.update(rl.Qrels.from_dict({"b": qrels["b"]}), rl.Run.from_dict({}))
    assert ev.compute().summary() == c.summary()
