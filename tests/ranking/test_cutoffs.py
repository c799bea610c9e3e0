"""Metrics at every cutoff and precision-recall curves.

``evaluate_cutoffs`` must equal ``evaluate`` with ``metric@k`` for every k
(on the trec_eval suite's graded qrels, with ties), and the PR curve must
match hand-computed values and trec_eval's iprec_at_recall.
"""

from __future__ import annotations

import numpy as np
import pytest

import ranklens

ORDERED = [
    "p",
    "r",
    "f1",
    "ap",
    "ap(norm=min_r_k)",
    "ndcg",
    "ndcg(gain=exp2)",
    "ndcg(ideal=full)",
    "ndcg(ideal=retrieved)",
    "dcg",
    "success",
    "rr",
    "arhr",
    "p(rel=2)",
]
EXPECTED = ["p", "r", "f1", "ndcg", "dcg", "arhr"]


@pytest.mark.parametrize(
    ("ties", "names"),
    [
        ("trec", ORDERED),
        ("input", ORDERED),
        ("optimistic", ["p", "ap", "ndcg", "rr"]),
        ("expected", EXPECTED),
    ],
)
def test_every_cutoff_equals_evaluate_at_that_cutoff(
    ties: str, names: list[str], trec_case: tuple[ranklens.Qrels, ranklens.Run]
) -> None:
    qrels, run = trec_case
    curves = ranklens.evaluate_cutoffs(qrels, run, names, max_k=40, ties=ties)
    assert curves.ks.tolist() == list(range(1, 41))
    for name in names:
        base = ranklens.get_metric(name)
        for k in (1, 2, 5, 10, 23, 40):
            metric = ranklens.Metric(base.name, k, base.params)
            res = ranklens.evaluate(qrels, run, [metric], ties=ties)
            np.testing.assert_allclose(
                curves.values[name][:, k - 1],
                res.values[str(metric)],
                rtol=0,
                atol=1e-12,
                err_msg=f"{name}@{k} {ties}",
            )
            assert curves.curve(name)[k - 1] == pytest.approx(res.summary()[str(metric)])


def test_cutoff_summary_and_frame() -> None:
    qrels = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 1}})
    run = ranklens.Run.from_dict({"q": {"a": 0.9, "x": 0.8, "b": 0.7}})
    curves = ranklens.evaluate_cutoffs(qrels, run, ["p", "r"], max_k=3)
    assert curves.summary() == {
        "p": {1: 1.0, 2: 0.5, 3: pytest.approx(2 / 3)},
        "r": {1: 0.5, 2: 0.5, 3: 1.0},
    }
    frame = curves.to_frame()
    assert list(frame.columns) == ["metric", "k", "mean"]
    assert len(frame) == 6


def test_cutoff_rejects_k_and_unknown_families(
    trec_case: tuple[ranklens.Qrels, ranklens.Run],
) -> None:
    qrels, run = trec_case
    with pytest.raises(ranklens.MetricParameterError, match="without '@k'"):
        ranklens.evaluate_cutoffs(qrels, run, ["ndcg@10"])
    with pytest.raises(ranklens.UnsupportedError, match="takes no integer cutoff"):
        ranklens.evaluate_cutoffs(qrels, run, ["rprec"])
    with pytest.raises(ranklens.MetricParameterError, match="max_k"):
        ranklens.evaluate_cutoffs(qrels, run, ["p"], max_k=0)
    with pytest.raises(ranklens.UnsupportedError, match="tie policy 'expected'"):
        ranklens.evaluate_cutoffs(qrels, run, ["bpref"], ties="expected")
    with pytest.raises(ranklens.UnsupportedError, match="ties=expected"):
        ranklens.evaluate_cutoffs(qrels, run, ["ap(norm=retrieved)"], ties="expected")


def test_precision_recall_curve_by_hand() -> None:
    qrels = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 1, "c": 0}})
    run = ranklens.Run.from_dict({"q": {"a": 0.9, "x": 0.8, "b": 0.7, "c": 0.6}})
    pr = ranklens.precision_recall_curve(qrels, run, levels=[0.0, 0.5, 1.0])
    assert pr.rank.tolist() == [1, 2, 3, 4]
    np.testing.assert_allclose(pr.precision, [1.0, 0.5, 2 / 3, 0.5])
    np.testing.assert_allclose(pr.recall, [0.5, 0.5, 1.0, 1.0])
    # interpolated precision: max precision at recall >= level
    np.testing.assert_allclose(pr.interpolated[0], [1.0, 1.0, 2 / 3])
    frame = pr.to_frame()
    assert frame["query"].tolist() == ["q"] * 4


def test_precision_recall_curve_matches_iprec_at_recall(
    trec_case: tuple[ranklens.Qrels, ranklens.Run],
) -> None:
    qrels, run = trec_case
    pr = ranklens.precision_recall_curve(qrels, run)
    names = [f"iprec_at_recall.{x / 10:.2f}" for x in range(11)]
    res = ranklens.evaluate(qrels, run, names)
    np.testing.assert_allclose(pr.mean_interpolated, [res.summary()[n] for n in names], atol=1e-12)
