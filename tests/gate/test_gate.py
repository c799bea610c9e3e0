"""``ranklens.gate``: every rule kind against hand-computed numbers, non-inferiority
against scipy's one-sided paired t-test, the provenance refusals and their
overrides, and the formats of a verdict."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

from scipy import stats
from statsmodels.stats.multitest import multipletests

import ranklens
from ranklens.errors import InputError, MetricNameError, MetricParameterError, ProvenanceError
from ranklens.gates import Rule, RuleSet, Verdict, gate
from ranklens.history import Store

QRELS = ranklens.Qrels.from_dict({f"q{i}": {"a": 1, "b": 0, "c": 2} for i in range(6)})


def run_of(order: dict[str, list[str]], name: str) -> ranklens.Run:
    """A run ranking the listed docs of each query in that order."""
    return ranklens.Run.from_dict(
        {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in order.items()},
        name=name,
    )


# the baseline ranks c, a, b everywhere (perfect); the candidate does so on 4 of 6 queries
BASE = run_of({f"q{i}": ["c", "a", "b"] for i in range(6)}, "base")
CAND = run_of({f"q{i}": (["c", "a", "b"] if i < 4 else ["b", "a", "c"]) for i in range(6)}, "cand")


def values(run: ranklens.Run, metric: str) -> np.ndarray:
    return np.asarray(ranklens.evaluate(QRELS, run, [metric]).values[metric])


def test_min_rule_floor() -> None:
    v = gate(QRELS, CAND, rules=[Rule("min", "p@1", 0.6), Rule("min", "mrr", 0.9)])
    p1 = 4 / 6
    mrr = (4 * 1 + 2 * 1 / 2) / 6  # b, a, c: the first relevant (a) at rank 2
    assert [o.passed for o in v.outcomes] == [True, False]
    assert v.outcomes[0].candidate == pytest.approx(p1)
    assert v.outcomes[1].candidate == pytest.approx(mrr)
    assert "below the floor 0.9000" in v.outcomes[1].reason
    assert not v.passed and v.exit_code == 1 and v.baseline is None


def test_max_drop_absolute_and_relative() -> None:
    c, b = values(CAND, "ndcg@3"), values(BASE, "ndcg@3")
    drop = b.mean() - c.mean()
    rules = [
        Rule.parse("max_drop", f"ndcg@3={drop + 1e-6}"),
        Rule.parse("max_drop", f"ndcg@3={drop - 1e-6}"),
        Rule.parse("max_drop", f"ndcg@3={100 * drop / b.mean() + 1e-4}%"),
        Rule.parse("max_drop", f"ndcg@3={100 * drop / b.mean() - 1e-4}%"),
    ]
    v = gate(QRELS, CAND, BASE, rules)
    assert [o.passed for o in v.outcomes] == [True, False, True, False]
    o = v.outcomes[1]
    assert o.difference == pytest.approx(-drop)
    assert o.baseline == pytest.approx(b.mean()) and o.candidate == pytest.approx(c.mean())
    assert o.relative_difference == pytest.approx(-drop / b.mean())
    lo, hi = stats.t.interval(0.95, len(c) - 1, loc=(c - b).mean(), scale=stats.sem(c - b))
    assert (o.ci_low, o.ci_high) == pytest.approx((lo, hi))
    assert "more than the" in o.reason and "CI of the difference" in o.reason
    assert v.outcomes[2].rule.relative and "% of the baseline" in v.outcomes[2].reason


def test_an_improvement_is_no_drop() -> None:
    v = gate(QRELS, BASE, CAND, {"max_drop": {"ndcg@3": 0}})
    assert v.passed and "did not drop" in v.outcomes[0].reason


@pytest.mark.parametrize("margin", [0.05, 0.3])
def test_non_inferiority_matches_scipy_one_sided_t_test(margin: float) -> None:
    rng = np.random.default_rng(3)
    docs = [f"d{j}" for j in range(8)]
    qrels = ranklens.Qrels.from_dict(
        {f"q{i}": {d: int(rng.integers(0, 3)) for d in docs} for i in range(40)}
    )
    a, b = ({f"q{i}": {d: float(rng.random()) for d in docs} for i in range(40)} for _ in range(2))
    base, cand = ranklens.Run.from_dict(a, name="a"), ranklens.Run.from_dict(b, name="b")
    v = gate(
        qrels,
        cand,
        base,
        {"non_inferiority": {"ndcg@5": margin, "map": margin}},
        correction="holm",
        alpha=0.05,
    )
    raw = []
    for o, metric in zip(v.outcomes, ["ndcg@5", "map"], strict=True):
        c = np.asarray(ranklens.evaluate(qrels, cand, [metric]).values[metric])
        bb = np.asarray(ranklens.evaluate(qrels, base, [metric]).values[metric])
        # H0: mean(c - b) <= -margin; H1: mean(c - b) > -margin
        expected = stats.ttest_rel(c + margin, bb, alternative="greater").pvalue
        assert o.p_value == pytest.approx(expected, rel=1e-10)
        raw.append(expected)
    adjusted = multipletests(raw, method="holm")[1]
    assert [o.p_adjusted for o in v.outcomes] == pytest.approx(list(adjusted), rel=1e-10)
    assert [o.passed for o in v.outcomes] == [bool(p <= 0.05) for p in adjusted]
    if margin == 0.3:
        assert v.passed  # random runs are within 0.3 of each other
    else:
        assert not v.passed and "not shown" in v.failures[0].reason


def test_non_inferiority_of_a_lower_is_better_metric() -> None:
    c = values(CAND, "num_nonrel_judged_ret@1")
    b = values(BASE, "num_nonrel_judged_ret@1")
    v = gate(
        QRELS, CAND, BASE, {"non_inferiority": {"num_nonrel_judged_ret@1": 0.5}}, correction="none"
    )
    # lower is better: x = -(c - b) + margin must be shown positive; the metric is a sum
    # (evaluate reports the sum over queries), so the margin 0.5 is on the sum: the
    # difference of the sums, n * mean(c - b), must stay below 0.5, i.e. a per-query
    # margin of 0.5 / n
    expected = stats.ttest_rel(b + 0.5 / len(c), c, alternative="greater").pvalue
    assert v.outcomes[0].p_value == pytest.approx(expected)


def test_identical_runs_are_non_inferior() -> None:
    v = gate(QRELS, BASE, BASE, {"non_inferiority": {"ndcg@3": 0.01}, "max_drop": {"map": 0}})
    assert v.passed and v.outcomes[0].p_value == 0.0
    assert "same run content" in " ".join(v.notes)


def test_queries_missing_from_one_run_are_left_out() -> None:
    short = run_of({f"q{i}": ["c", "a", "b"] for i in range(3)}, "short")
    v = gate(QRELS, short, BASE, {"max_drop": {"ndcg@3": 0.0}})
    assert v.outcomes[0].n_queries == 3
    assert any("3 queries without a value in both" in n for n in v.notes)


def test_provenance_refuses_other_qrels_unless_allowed() -> None:
    other = ranklens.Qrels.from_dict({f"q{i}": {"a": 2, "b": 0, "c": 1} for i in range(6)})
    base = ranklens.evaluate(other, BASE, ["ndcg@3"])
    with pytest.raises(ProvenanceError, match=r"different qrels.*allow_different_qrels=True"):
        gate(QRELS, CAND, base, {"max_drop": {"ndcg@3": 1}})
    v = gate(QRELS, CAND, base, {"max_drop": {"ndcg@3": 1}}, allow_different_qrels=True)
    assert v.passed and any("despite different qrels" in n for n in v.notes)


def test_provenance_refuses_other_conventions_unless_allowed() -> None:
    base = ranklens.evaluate(QRELS, BASE, ["ndcg@3"], ties="input")
    with pytest.raises(ProvenanceError, match=r"ties: 'trec' vs 'input'"):
        gate(QRELS, CAND, base, {"max_drop": {"ndcg@3": 1}})
    v = gate(QRELS, CAND, base, {"max_drop": {"ndcg@3": 1}}, allow_different_conventions=True)
    assert any("despite different conventions" in n for n in v.notes)
    # a profile that sets the defaults is the same conventions
    same = ranklens.evaluate(QRELS, BASE, ["ndcg@3"], profile="trec_eval")
    assert gate(QRELS, CAND, same, {"max_drop": {"ndcg@3": 1}}).passed


def test_conventions_that_evaluate_nothing_are_refused() -> None:
    """Conventions are for runs evaluated by the gate: with results only, they would do
    nothing; the gate refuses them unless the results were evaluated under them."""
    rules = {"max_drop": {"ndcg@3": 1}}
    cand = ranklens.evaluate(QRELS, CAND, ["ndcg@3"])
    base = ranklens.evaluate(QRELS, BASE, ["ndcg@3"])
    with pytest.raises(
        InputError,
        match=r"conventions were given, but no run is evaluated "
        r"here and the candidate \(cand\).*ties differ",
    ):
        gate(None, cand, base, rules, ties="input")
    assert gate(None, cand, base, rules, ties="trec").passed  # what they were evaluated with
    with pytest.raises(ranklens.ConventionError, match=r"tie \(did you mean 'ties'\?\)"):
        gate(None, cand, base, rules, tie="input")  # a misspelt one is refused at once
    # a run evaluated here takes them; the provenance check then compares the two systems
    assert gate(QRELS, CAND, BASE, rules, ties="input").passed
    with pytest.raises(ProvenanceError, match=r"ties: 'input' vs 'trec'"):
        gate(QRELS, CAND, base, rules, ties="input")


def test_a_result_of_batches_gates_against_one_evaluation() -> None:
    """An Evaluator's result carries a digest of its batches' fingerprints, which does
    not compare with one table's: the gate cannot tell the qrels apart, so it says so in
    a note instead of refusing them as different (they are the same here)."""
    ev = ranklens.Evaluator(["ndcg@3"])
    for part in (["q0", "q1", "q2"], ["q3", "q4", "q5"]):
        ev.update(QRELS.take_queries(part), CAND.take_queries(part))
    batched = ev.compute()
    base = ranklens.evaluate(QRELS, BASE, ["ndcg@3"])
    assert batched.provenance.qrels != base.provenance.qrels
    assert batched.provenance.same_qrels(base.provenance) is None
    v = gate(None, batched, base, {"max_drop": {"ndcg@3": 1}})
    assert v.passed and any("could not be told" in n for n in v.notes)
    # one table each: a difference is a difference
    other = ranklens.evaluate(
        QRELS.take_queries(["q0", "q1"]), BASE.take_queries(["q0", "q1"]), ["ndcg@3"]
    )
    assert base.provenance.same_qrels(other.provenance) is False


def test_baseline_from_a_store(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with Store(path) as store:
        rid = store.record(ranklens.evaluate(QRELS, BASE, ["P.1", "map"]))
        record = store.get(rid)
    rules = {"max_drop": {"p@1": 0.5, "map": 0.5}}  # p@1 is stored as trec_eval's P.1
    direct = gate(QRELS, CAND, BASE, rules)
    for baseline in (record, f"{path}#{rid}", record.result()):
        v = gate(QRELS, CAND, baseline, rules)
        assert [o.difference for o in v.outcomes] == pytest.approx(
            [o.difference for o in direct.outcomes]
        )
    with pytest.raises(MetricNameError, match="has no values for 'mrr'"):
        gate(QRELS, CAND, record, {"max_drop": {"mrr": 0.1}})


def test_bad_calls() -> None:
    with pytest.raises(InputError, match="no rule given"):
        gate(QRELS, CAND, BASE, [])
    with pytest.raises(InputError, match="compare with a baseline"):
        gate(QRELS, CAND, None, {"max_drop": {"map": 0.1}})
    with pytest.raises(MetricParameterError, match="no better direction"):
        gate(QRELS, CAND, BASE, {"max_drop": {"num_ret": 1}})
    with pytest.raises(MetricNameError):
        Rule("min", "nosuchmetric@3", 0.1)
    with pytest.raises(MetricParameterError, match="write METRIC=VALUE"):
        Rule.parse("min", "ndcg@10")
    with pytest.raises(MetricParameterError, match="only max_drop takes a relative"):
        Rule.parse("non_inferiority", "ndcg@10=1%")
    with pytest.raises(MetricParameterError, match="0 or more"):
        Rule.parse("max_drop", "ndcg@10=-0.1")
    with pytest.raises(InputError, match=r"not a ranklens\.gates\.Rule"):
        gate(QRELS, CAND, BASE, ["max_drop ndcg@10=0.1"])
    with pytest.raises(InputError, match="candidate must be"):
        gate(QRELS, {"q1": {}}, BASE, {"min": {"map": 0}})


def _verdict() -> Verdict:
    return gate(
        QRELS,
        CAND,
        BASE,
        RuleSet(
            (
                Rule("min", "p@1", 0.5),
                Rule.parse("max_drop", "ndcg@3=1%"),
                Rule("non_inferiority", "ndcg@3", 0.01),
            )
        ),
    )


def test_junit_parses_back() -> None:
    v = _verdict()
    root = ET.fromstring(v.render("junit"))
    suite = root.find("testsuite")
    assert suite is not None and suite.get("tests") == "3" and suite.get("failures") == "2"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [str(o.rule) for o in v.outcomes]
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 2
    assert failed[0].find("failure").get("message") == v.outcomes[1].reason  # type: ignore[union-attr]


def test_json_and_markdown_and_text() -> None:
    v = _verdict()
    doc = json.loads(v.render("json"))
    assert doc["passed"] is False and len(doc["rules"]) == 3
    assert doc["rules"][2]["p_value"] == pytest.approx(v.outcomes[2].p_value)
    assert doc["provenance"]["candidate"]["qrels"] == QRELS.fingerprint()
    md = v.render("markdown")
    assert "| rule | candidate |" in md and "**FAIL**" in md and "max_drop ndcg@3 &lt;= 1%" in md
    text = v.render("text", color=False)
    assert text.startswith("ranklens gate: FAILED") and "FAIL max_drop ndcg@3 <= 1%" in text


def test_ids_and_names_are_escaped_in_junit_and_markdown() -> None:
    odd = ranklens.Run.from_dict(
        {f"q{i}": {"c": 3.0, "a": 2.0, "b": 1.0} for i in range(6)}, name="<b>x</b>\x1b[31m"
    )
    v = gate(QRELS, odd, BASE, {"max_drop": {"ndcg@3": 0.0}})
    root = ET.fromstring(v.render("junit"))  # control characters would not parse
    names = [p.get("value") for p in root.iter("property") if p.get("name") == "candidate"]
    assert names == ["<b>x</b>\\x1b[31m"]
    assert "<b>" not in v.render("markdown")
