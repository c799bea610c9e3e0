"""Unjudged bounds (ranklens.judged_bounds): the two fills, hand-computed values, and the
property that for the metrics declared true bounds (catalogue ``fill_bounds``) the value
under any completion of the judgments lies between the fills."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens as rl
from ranklens.metrics.catalogue import FILL_BOUNDED
from ranklens.ranking.bounds import fill_bounded, fill_unjudged

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_fills_hand_computed() -> None:
    # ranking a(2) x(?) b(0) y(?) c(?); qrels also judge d (1), not retrieved
    q = rl.Qrels.from_dict({"q1": {"a": 2, "b": 0, "d": 1}, "q2": {"e": 1}})
    r = rl.Run.from_dict(
        {
            "q1": {"a": 5.0, "x": 4.0, "b": 3.0, "y": 2.0, "c": 1.0},
            "q2": {"e": 2.0, "f": 1.0},
            "q3": {"g": 1.0},  # no judgments: not filled, stays out
        }
    )
    with pytest.warns(rl.RanklensWarning, match="1 run queries have no judgments"):
        b = rl.judged_bounds(q, r, ["p@2", "p@5", "success@1", "ap", "rbp(p=0.5)"], grade=1)
    assert b.unjudged == {"q1": 3, "q2": 1}
    assert b.any_unjudged
    s = b.summary()
    # P@2: q1 a rel, x ?: 1/2 | 2/2; q2 e rel, f ?: 1/2 | 2/2
    assert (s["p@2"]["value"], s["p@2"]["fill_0"], s["p@2"]["fill_g"]) == (0.5, 0.5, 1.0)
    # P@5: q1 1/5 | 4/5; q2 1/5 | 2/5 -> means 0.2 | 0.6
    assert s["p@5"]["fill_0"] == pytest.approx(0.2)
    assert s["p@5"]["fill_g"] == pytest.approx(0.6)
    assert s["success@1"]["fill_0"] == s["success@1"]["fill_g"] == 1.0
    # AP q1: judged R = 2 (a, d): 1/2; fill 1: R = 5, relevant at 1,2,4,5:
    # (1 + 1 + 3/4 + 4/5) / 5 = 0.71; q2: 1 | (1 + 1) / 2 = 1
    assert b.per_query("ap")["q1"] == pytest.approx((0.5, 0.5, 3.55 / 5))
    assert b.per_query("ap")["q2"] == pytest.approx((1.0, 1.0, 1.0))
    # RBP(p=0.5), scale=trec: q1 gains rescaled by max 2: a 1 -> 0.5 * 1 = 0.5;
    # fill 1: grades a 2, x 1, y 1, c 1 -> gains 1, 1/2, 1/2, 1/2:
    # 0.5 * (1 + 0.5 * 0.5 + 0.5 * 0.125 + 0.5 * 0.0625) = 0.671875
    assert b.per_query("rbp(p=0.5)")["q1"] == pytest.approx((0.5, 0.5, 0.671875))
    # residual q1: 0.5^5 + 0.5 * (0.5 + 0.125 + 0.0625) = 0.375
    assert b.residual["rbp(p=0.5)"].per_query("rbp_resid(p=0.5)")["q1"] == pytest.approx(0.375)
    assert b.bounded == {
        "p@2": True,
        "p@5": True,
        "success@1": True,
        "ap": False,
        "rbp(p=0.5)": True,
    }


def test_relevant_fill_can_lower_ap_and_ndcg() -> None:
    # a relevant at rank 1, x unjudged at rank 3 -> filled relevant, R grows from 1 to 2:
    # AP (1 + 2/3) / 2 = 5/6 < 1; nDCG (1 + 1/2) / (1 + 1/log2(3)) < 1
    q = rl.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    r = rl.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "x": 1.0}})
    b = rl.judged_bounds(q, r, ["ap", "ndcg"])
    assert b.fill_zero["ap"] == 1.0
    assert b.fill_grade["ap"] == pytest.approx(5 / 6)
    assert b.fill_grade["ndcg"] == pytest.approx(1.5 / (1 + 1 / np.log2(3)))
    assert b.fill_grade["ndcg"] < b.fill_zero["ndcg"] == 1.0
    assert not b.bounded["ap"] and not b.bounded["ndcg"]


def test_no_unjudged_fills_equal_value() -> None:
    q = rl.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    r = rl.Run.from_dict({"q": {"a": 1.0, "b": 2.0}})
    b = rl.judged_bounds(q, r, ["ndcg@2", "p@1"], grade=3)
    assert not b.any_unjudged
    for m in b.metrics:
        assert b.value[m] == b.fill_zero[m] == b.fill_grade[m]


def test_grade_checked() -> None:
    q = rl.Qrels.from_dict({"q": {"a": 1}})
    r = rl.Run.from_dict({"q": {"a": 1.0}})
    bad: Any
    for bad in (0, -1, float("nan"), True, "1"):
        with pytest.raises(rl.InputError, match="'grade' must be a finite number > 0"):
            rl.judged_bounds(q, r, "p@1", grade=bad)


def test_declarations() -> None:
    ranking = {n for n, d in rl.REGISTRY.items() if d.domain == "ranking"}
    assert ranking >= FILL_BOUNDED
    assert {n for n in ranking if rl.REGISTRY[n].fill_bounds} == FILL_BOUNDED
    assert not fill_bounded("ap") and not fill_bounded("ndcg@5") and not fill_bounded("r@5")
    assert fill_bounded("rbp(p=0.8)", 1) and not fill_bounded("rbp(p=0.8)", 2)
    assert fill_bounded("rbp(scale=none)", 3)


def test_fill_unjudged_adds_every_rank_and_keeps_caller_data() -> None:
    q = rl.Qrels.from_dict({"q": {"a": 2, "z": -1}})
    r = rl.Run.from_dict({"q": {f"d{i}": float(-i) for i in range(30)} | {"a": 9.0}})
    before = q.to_dict()
    filled, added = fill_unjudged(q, r, 2.5)
    assert q.to_dict() == before
    assert added.tolist() == [30]
    got = filled.to_dict()["q"]
    assert got["a"] == 2 and got["z"] == -1
    assert all(got[f"d{i}"] == 2.5 for i in range(30))


# the bounded metrics with parameter variants (graded: dcg/cg/rbp)
BOUNDED = [
    "p@1",
    "p@3",
    "p(rel=2)@3",
    "p",
    "success@2",
    "rr",
    "rr@3",
    "arhr@4",
    "hits@3",
    "num_rel_ret",
    "num_ret",
    "dcg@3",
    "dcg(gain=exp2)",
    "cg@4",
    "rbp(p=0.5)",
    "rbp(p=0.8,scale=none)",
]


@st.composite
def judged_and_completion(draw: st.DrawFn) -> tuple[rl.Qrels, rl.Run, int, list[int]]:
    n_q = draw(st.integers(1, 4))
    docs = [f"d{i}" for i in range(8)]
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for qi in range(n_q):
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True))
        qrels[f"q{qi}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        ret = draw(st.lists(st.sampled_from(docs), min_size=0, max_size=8, unique=True))
        if ret:
            run[f"q{qi}"] = {d: float(draw(st.integers(0, 3))) for d in ret}  # ties
    if not run:
        run["q0"] = {"d0": 1.0}
    grade = draw(st.integers(1, 3))
    n_unjudged = sum(
        1 for qq, ranking in run.items() for d in ranking if d not in qrels.get(qq, {})
    )
    completion = draw(st.lists(st.integers(0, grade), min_size=n_unjudged, max_size=n_unjudged))
    return rl.Qrels.from_dict(qrels), rl.Run.from_dict(run), grade, completion


@SETTINGS
@given(
    case=judged_and_completion(),
    ties=st.sampled_from(["trec", "expected", "optimistic", "pessimistic"]),
    missing=st.sampled_from(["skip", "zero"]),
)
def test_true_bounds_hold_for_any_completion(
    case: tuple[rl.Qrels, rl.Run, int, list[int]], ties: str, missing: str
) -> None:
    qrels, run, grade, completion = case
    zero, added = fill_unjudged(qrels, run, 0.0)
    # the completion: each unjudged retrieved document at a random grade in 0..grade
    rows = zero.to_dict()
    judged = qrels.to_dict()
    new = [(qq, d) for qq in sorted(rows) for d in sorted(rows[qq]) if d not in judged[qq]]
    assert len(new) == int(added.sum())
    for (qq, d), g in zip(new, completion, strict=False):
        rows[qq][d] = g
    full = rl.Qrels.from_dict(rows)
    metrics = [m for m in BOUNDED if ties in rl.get_metric(m).definition.ties]
    b = rl.judged_bounds(qrels, run, metrics, grade=grade, ties=ties, missing=missing)
    truth = rl.evaluate(full, run, metrics, ties=ties, missing=missing)
    for m in metrics:
        if not b.bounded[m]:
            assert m.startswith("rbp(p=0.5)") and grade > 1
            continue
        lo, hi, v = (np.asarray(x.values[m]) for x in (b.fill_zero, b.fill_grade, truth))
        assert b.fill_zero.query_ids == truth.query_ids == b.value.query_ids
        assert np.all(lo <= v + 1e-12), m
        assert np.all(v <= hi + 1e-12), m
        assert lo.mean() <= v.mean() + 1e-12 <= hi.mean() + 2e-12, m
        # judged as it is, an unjudged document counts as non-relevant: the lower fill
        np.testing.assert_allclose(np.asarray(b.value.values[m]), lo, rtol=0, atol=1e-12)
