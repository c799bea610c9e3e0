"""Reference tests: ranklens (profile ``ranx``) against ranx.

Random qrels and runs with graded relevance, ties, unjudged documents,
queries missing from the run (ranx scores them 0 with
``make_comparable=True``) and queries without relevant judgments.  Every
per-query value must agree to 1e-9.

ranx sorts each ranking with numba's ``argsort``: for up to 15 documents
that is an insertion sort, so tied documents keep their input order (the
``ranx`` profile's ``ties='input'``); for longer rankings it is an unstable
quicksort whose order of tied documents follows no rule.  The tied cases
therefore use rankings of at most 15 documents; longer rankings use distinct
scores.  ranx's ``bpref`` is left out: it returns NaN without judged
non-relevant documents and zeroes later queries after a query without
relevant ones (see the notes).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ranklens
from tests.helpers import graded_case

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.reference

MEASURES = {
    "hits@5": "hits@5",
    "hit_rate@3": "hit_rate@3",
    "precision@5": "p@5",
    "recall@10": "r@10",
    "f1@5": "f1@5",
    "r-precision": "rprec",
    "mrr": "mrr",
    "mrr@3": "rr@3",
    "map": "map",
    "map@5": "map@5",
    "ndcg": "ndcg",
    "ndcg@10": "ndcg@10",
    "ndcg_burges@10": "ndcg(gain=exp2)@10",
    "dcg@5": "dcg@5",
    "dcg_burges@5": "dcg(gain=exp2)@5",
}


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "distinct"])
@pytest.mark.parametrize("seed", range(15))
def test_agrees_with_ranx(seed: int, ties: bool) -> None:
    qrels_d, run_d = graded_case(1000 + seed, longest=15 if ties else 40, ties=ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(
            ranx.Qrels(qrels_d),
            ranx.Run(run_d),
            list(MEASURES),
            return_mean=False,
            make_comparable=True,
        )
    qrels = ranklens.Qrels.from_dict(qrels_d)
    run = ranklens.Run.from_dict(run_d)
    res = ranklens.evaluate(qrels, run, list(MEASURES.values()), profile="ranx")
    # ranx orders queries as its Qrels does
    order = list(ranx.Qrels(qrels_d).keys())
    assert sorted(order) == sorted(res.query_ids)
    for measure, name in MEASURES.items():
        got = res.per_query(name)
        want = dict(zip(order, np.asarray(expected[measure]).tolist(), strict=True))
        for q in order:
            assert got[q] == pytest.approx(want[q], abs=1e-9, rel=1e-9), (seed, measure, q)
