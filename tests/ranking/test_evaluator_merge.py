"""Evaluator.merge: the same metrics in another order or spelling merge; a difference
is named (which metrics, which conventions with both values)."""

from __future__ import annotations

import warnings

import pytest

import ranklens
from ranklens.errors import ProvenanceError

QRELS = {
    "q1": ranklens.Qrels.from_dict({"q1": {"a": 1, "b": 0}}),
    "q2": ranklens.Qrels.from_dict({"q2": {"c": 1, "d": 1}}),
}
RUNS = {
    "q1": ranklens.Run.from_dict({"q1": {"b": 2.0, "a": 1.0}}),
    "q2": ranklens.Run.from_dict({"q2": {"c": 2.0, "x": 1.5, "d": 1.0}}),
}


def test_same_metrics_in_another_order_and_spelling_merge() -> None:
    a = ranklens.Evaluator(["p@1", "recip_rank"])
    b = ranklens.Evaluator(["mrr", "P.1"])  # the same two metrics, trec_eval's names
    a.update(QRELS["q1"], RUNS["q1"])
    b.update(QRELS["q2"], RUNS["q2"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        res = a.merge(b).compute()
    assert res.metrics == ("p@1", "recip_rank")
    # q1: a at rank 2 -> p@1 = 0, rr = 1/2; q2: c at rank 1 -> p@1 = 1, rr = 1
    assert res.per_query("p@1") == {"q1": 0.0, "q2": 1.0}
    assert res.per_query("recip_rank") == {"q1": 0.5, "q2": 1.0}


def test_a_difference_is_named() -> None:
    a = ranklens.Evaluator(["p@1", "map"])
    with pytest.raises(ProvenanceError) as info:
        a.merge(ranklens.Evaluator(["map", "ndcg@3"]))
    assert "p@1 only in this one" in str(info.value)
    assert "ndcg@3 only in the other" in str(info.value)
    with pytest.raises(ProvenanceError) as info:
        a.merge(ranklens.Evaluator(["map", "p@1"], ties="input"))
    message = str(info.value)
    assert "differ in their conventions" in message
    assert "ties='trec' here, 'input' there" in message
    assert "metric_defaults" not in message  # only what differs


def test_metrics_with_a_gain_mapping_merge() -> None:
    metric = "ndcg(gain={1:3})@2"  # its parameters hold a dict: not hashable
    a, b = ranklens.Evaluator([metric, "p@1"]), ranklens.Evaluator(["p@1", metric])
    a.update(QRELS["q1"], RUNS["q1"])
    b.update(QRELS["q2"], RUNS["q2"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        res = a.merge(b).compute()
    assert res.per_query("p@1") == {"q1": 0.0, "q2": 1.0}
