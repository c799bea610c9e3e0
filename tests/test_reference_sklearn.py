"""Reference tests: ranklens (profile ``sklearn``) against scikit-learn.

scikit-learn scores each query's scored documents: ``ndcg_score`` and
``dcg_score`` average the gains of tied documents (``ties='expected'``) and
build the ideal list from the scored documents (``ideal=retrieved``);
``average_precision_score`` treats a group of tied scores as one threshold
(``ap(ties=grouped, norm=retrieved)``).  Random queries with many ties and
graded relevance; every per-query value must agree to 1e-9.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ranklens

metrics = pytest.importorskip("sklearn.metrics")

pytestmark = pytest.mark.reference


def _case(seed: int) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(2000 + seed)
    queries, rels, scores = [], [], []
    for qi in range(int(rng.integers(2, 8))):
        n = int(rng.integers(2, 30))
        queries.append(f"q{qi}")
        rel = rng.choice([0, 0, 0, 1, 2, 3], size=n)
        if rng.random() < 0.1:
            rel[:] = 0
        rels.append(rel)
        scores.append(rng.integers(0, 5, size=n) / 2.0 + (rng.random() < 0.2) * rng.random(n))
    return queries, rels, scores


def _ranklens(queries: list[str], rels: list[np.ndarray], scores: list[np.ndarray]
              ) -> tuple[ranklens.Qrels, ranklens.Run]:
    qrels = ranklens.Qrels.from_dict(
        {q: {f"d{i}": int(r) for i, r in enumerate(rel)} for q, rel in zip(queries, rels,
                                                                               strict=True)})
    run = ranklens.Run.from_dict(
        {q: {f"d{i}": float(s) for i, s in enumerate(sc)} for q, sc in zip(queries, scores,
                                                                              strict=True)})
    return qrels, run


@pytest.mark.parametrize("seed", range(30))
def test_ndcg_dcg_and_ap_agree_with_sklearn(seed: int) -> None:
    queries, rels, scores = _case(seed)
    qrels, run = _ranklens(queries, rels, scores)
    names = ["ndcg", "ndcg@3", "ndcg@10", "dcg@5", "dcg", "ap"]
    res = ranklens.evaluate(qrels, run, names, profile="sklearn")
    for q, rel, sc in zip(queries, rels, scores, strict=True):
        yt, ys = rel[None, :].astype(float), sc[None, :]
        assert res.per_query("ndcg")[q] == pytest.approx(metrics.ndcg_score(yt, ys), abs=1e-9)
        for k in (3, 10):
            assert res.per_query(f"ndcg@{k}")[q] == pytest.approx(
                metrics.ndcg_score(yt, ys, k=k), abs=1e-9), (seed, q, k)
        assert res.per_query("dcg@5")[q] == pytest.approx(
            metrics.dcg_score(yt, ys, k=5), abs=1e-9)
        assert res.per_query("dcg")[q] == pytest.approx(metrics.dcg_score(yt, ys), abs=1e-9)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no positive sample: sklearn warns, returns 0
            ap = metrics.average_precision_score((rel >= 1).astype(int), sc)
        assert res.per_query("ap")[q] == pytest.approx(ap, abs=1e-9), (seed, q)


def test_sklearn_ties_are_averaged_not_broken() -> None:
    # two tied documents, one relevant: sklearn gives each position half the gain
    qrels = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    run = ranklens.Run.from_dict({"q": {"a": 0.5, "b": 0.5}})
    got = ranklens.evaluate(qrels, run, ["dcg"], profile="sklearn").summary()["dcg"]
    want = metrics.dcg_score(np.array([[1.0, 0.0]]), np.array([[0.5, 0.5]]))
    assert got == pytest.approx(want) == pytest.approx(0.5 * (1 + 1 / np.log2(3)))
