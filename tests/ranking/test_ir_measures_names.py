"""ir_measures' spelling, the ``ir_measures`` profile, ``judged`` and ``compat``:
hand-computed values (independent of ir_measures, which the reference tests use)."""

from __future__ import annotations

import pytest

import ranklens
from ranklens.errors import MetricNameError, MetricParameterError
from ranklens.metrics.registry import get_metric


@pytest.mark.parametrize(
    ("irm", "ours"),
    [
        ("nDCG@10", "ndcg@10"),
        ("P(rel=2)@5", "p(rel=2)@5"),
        ("AP(rel=2)", "ap(rel=2)"),
        ("NumRet", "num_ret"),
        ("NumRet(rel=2)", "num_rel_ret(rel=2)"),
        ("NumRelRet", "num_rel_ret"),
        ("NumRel", "num_rel"),
        ("NumQ", "num_q"),
        ("SetP", "p"),
        ("SetP(relative=True)", "relative_p"),
        ("SetRelP", "relative_p"),
        ("SetR", "r"),
        ("SetF(beta=4.0)", "f1(beta=2.0)"),
        ("SetAP", "set_map"),
        ("nDCG(gains={0:0,1:1,2:3})@5", "ndcg(gain={0:0,1:1,2:3})@5"),
        ("nDCG(dcg='exp-log2')@5", "ndcg(gain=exp2)@5"),
        ("nDCG(judged_only=False)@5", "ndcg@5"),
        ("IPrec@0.1", "iprec@0.1"),
        ("Judged@10", "judged@10"),
        ("Compat(p=0.8,normalize=False)", "compat(normalize=false,p=0.8)"),
        ("infAP", "infap"),
        ("Bpref", "bpref"),
        ("RR", "rr"),
    ],
)
def test_ir_measures_names_translate(irm: str, ours: str) -> None:
    assert get_metric(irm) == get_metric(ours)


@pytest.mark.parametrize(
    ("name", "error", "says"),
    [
        ("P(judged_only=True)@5", MetricParameterError, "judged_only=True"),
        ("NERR8(max_rel=2)@5", MetricNameError, "NERR8 is not computed"),
        ("SDCG(max_rel=2)@5", MetricNameError, "SDCG is not computed"),
        ("SetP@5", MetricParameterError, "P@k"),
        ("nDCG(dcg='log10')", MetricParameterError, "'log2' or 'exp-log2'"),
        ("Compat(p=1.5)", MetricParameterError, "'p'"),
    ],
)
def test_ir_measures_names_refused_with_advice(name: str, error: type, says: str) -> None:
    with pytest.raises(error, match=None) as info:
        get_metric(name)
    assert says in str(info.value)


def test_judged_by_hand() -> None:
    """Negative grades are judgments; the divisor is min(k, n); doc_asc ties."""
    q = ranklens.Qrels.from_dict({"q": {"a": 1, "c": -1, "z": 0}, "e": {"a": 1}})
    # a, b tie: doc_asc ranks a (judged) first, trec ranks b first
    r = ranklens.Run.from_dict({"q": {"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.2}, "e": {}})
    res = ranklens.evaluate(q, r, ["Judged@1", "Judged@3", "Judged@10"], profile="ir_measures")
    assert res.per_query("Judged@1") == {"q": 1.0, "e": 0.0}  # empty ranking: 0
    assert res.per_query("Judged@3")["q"] == pytest.approx(2 / 3)  # a, c of a, b, c
    assert res.per_query("Judged@10")["q"] == pytest.approx(2 / 4)  # of min(10, 4)
    trec = ranklens.evaluate(q, r, ["judged@1"])  # trec ties: b first
    assert trec.per_query("judged@1")["q"] == 0.0
    # expected over the orders of a, b: half the time a is first
    assert ranklens.evaluate(q, r, ["judged(ties=expected)@1"]).summary() == {
        "judged(ties=expected)@1": 0.5
    }


def test_compat_by_hand() -> None:
    """Ideal (c:3, a:1, b:1 with a retrieved first), p = 0.5, depth max(n, 3) = 4."""
    q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 1, "c": 3, "x": 0, "y": -2}})
    r = ranklens.Run.from_dict({"q": {"x": 0.9, "a": 0.8, "c": 0.7, "z": 0.6}})
    w = [1.0, 0.5, 0.25, 0.125]
    # ranking x, a, c, z; ideal c, a, b: overlaps at depths 1..4: 0, 1, 2, 2
    rbo = (w[1] * 1 / 2 + w[2] * 2 / 3 + w[3] * 2 / 4) / sum(w)
    best = (w[0] * 1 + w[1] * 2 / 2 + w[2] * 3 / 3 + w[3] * 3 / 4) / sum(w)
    res = ranklens.evaluate(
        q, r, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"], profile="ir_measures"
    )
    assert res.summary()["Compat(p=0.5,normalize=False)"] == pytest.approx(rbo, rel=1e-12)
    assert res.summary()["Compat(p=0.5)"] == pytest.approx(rbo / best, rel=1e-12)


def test_compat_without_relevant_or_ranking_is_zero() -> None:
    q = ranklens.Qrels.from_dict({"q": {"a": 0}, "e": {"a": 2}})
    r = ranklens.Run.from_dict({"q": {"a": 1.0}, "e": {}})
    res = ranklens.evaluate(q, r, ["compat"], profile="ir_measures")
    assert res.per_query("compat") == {"q": 0.0, "e": 0.0}


def test_ir_measures_profile_fills_absent_queries_with_zero() -> None:
    q = ranklens.Qrels.from_dict({"q": {"a": 1}, "absent": {"a": 1}})
    r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    res = ranklens.evaluate(q, r, ["P@1", "Judged@1"], profile="ir_measures")
    assert res.summary() == {"P@1": 0.5, "Judged@1": 0.5}
