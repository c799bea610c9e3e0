"""trec_eval 10's own regression suite, reproduced value by value: an extra check.

Reads ``../shared/conformance/trec_eval`` (never copied into the project) where it
lies beside the repository, and skips saying so where it does not; the evidence
that a plain clone checks is ``tests/conformance`` (marked ``conformance``).  For
every ``out.*`` file named below, every per-query and aggregate value of every
measure ranklens implements must agree within 5e-5 (trec_eval prints four
decimals); the string measures (``runid``, ``relstring``) are not ranklens metrics.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ranklens
from ranklens.io import read_trec_qrels, read_trec_run
from tests.conformance.trec_output import STRING_MEASURES, parse_command, read_values
from tests.helpers import CONFORMANCE, NEEDS_CONFORMANCE

CASES = {
    "out.test": "trec_eval qrels.test results.test",
    "out.test.a": "trec_eval -m all_trec qrels.test results.test",
    "out.test.aq": "trec_eval -m all_trec -q qrels.test results.test",
    "out.test.aqc": "trec_eval -m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "trec_eval -m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "trec_eval -m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "trec_eval -q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"
    ),
    "out.comment.test": "trec_eval qrels.comment.test results.comment.test",
    "out.302.iprec.v10": "trec_eval -q -m iprec_at_recall -m 11pt_avg qrels-302.test "
    "results-302.test",
    "out.test[with-comments]": "trec_eval qrels.test.with-comments results.test",
}


@pytest.mark.parametrize("case", sorted(CASES))
@NEEDS_CONFORMANCE
def test_trec_eval_output_reproduced(case: str) -> None:
    cmd = parse_command(CASES[case])
    opts = cmd.conventions
    expected = read_values((CONFORMANCE / case.split("[")[0]).read_text())
    qrels = read_trec_qrels(CONFORMANCE / cmd.qrels)
    run = read_trec_run(CONFORMANCE / cmd.run)
    metrics = sorted(expected)
    with warnings.catch_warnings():
        # results.comment.test has topics without judgments: trec_eval ignores them too
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        res = ranklens.evaluate(qrels, run, metrics, profile="trec_eval", **opts)  # type: ignore[arg-type]
    summary = res.summary()
    checked = 0
    for measure, values in expected.items():
        per_query = res.per_query(measure)
        for query, value in values.items():
            got = summary[measure] if query == "all" else per_query[query]
            assert got == pytest.approx(value, abs=5e-5), (case, measure, query)
            checked += 1
        # every query trec_eval printed, and no other
        printed = {q for q in values if q != "all"}
        if printed:
            assert printed == set(per_query), (case, measure)
    assert checked >= len(metrics)


@NEEDS_CONFORMANCE
def test_run_tag_is_the_last_lines_tag() -> None:
    run = read_trec_run(CONFORMANCE / "results.test")
    assert run.name == "STANDARD"


@NEEDS_CONFORMANCE
def test_conformance_covers_every_all_trec_measure() -> None:
    """Everything `-m all_trec` prints, bar the string measures, is implemented."""
    names = {line.split()[0] for line in (CONFORMANCE / "out.test.a").read_text().splitlines()}
    unknown = []
    for name in sorted(names - set(STRING_MEASURES)):
        try:
            ranklens.get_metric(name)
        except ranklens.MetricNameError:
            unknown.append(name)
    assert unknown == []


@NEEDS_CONFORMANCE
def test_iprec_rounding_conventions_differ_on_302() -> None:
    qrels = read_trec_qrels(CONFORMANCE / "qrels-302.test")
    run = read_trec_run(CONFORMANCE / "results-302.test")
    new = ranklens.evaluate(qrels, run, ["iprec_at_recall_0.60"]).summary()
    old = ranklens.evaluate(qrels, run, ["iprec_at_recall_0.60"], iprec_rounding="legacy").summary()
    assert new["iprec_at_recall_0.60"] == pytest.approx(0.1528, abs=5e-5)
    assert old["iprec_at_recall_0.60"] == pytest.approx(0.1420, abs=5e-5)
    assert not np.isclose(new["iprec_at_recall_0.60"], old["iprec_at_recall_0.60"])


def test_means_add_the_queries_one_after_another_as_trec_eval() -> None:
    """Eight per-query values whose exact mean, 3.15 / 8 = 0.39375, lies halfway between
    two printed decimals: trec_eval adds them one after another and prints 0.3937
    (tests/conformance case ids.aq, Rprec_mult_2.00); numpy's pairwise sum lands one
    ulp above 0.39375 and would print 0.3938."""
    from ranklens.ranking.evaluation import aggregate

    values = np.array([0.5, 0.25, 5 / 12, 5 / 12, 5 / 12, 0.25, 0.5, 0.4])
    assert float(values.sum()) / 8 != 0.39375  # the pairwise sum
    assert aggregate(values, "mean") == 0.39375
    assert f"{aggregate(values, 'mean'):.4f}" == "0.3937"
