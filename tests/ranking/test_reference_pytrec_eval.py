"""Reference tests: ranklens (profile ``pytrec_eval``) against pytrec_eval.

Random qrels and runs with graded and negative relevance, unjudged documents,
tied and nearly tied scores (pytrec_eval rounds scores to float32), queries
missing from the run, queries the run names with no document (pytrec_eval
evaluates them: ``empty_rankings='evaluate'``), run queries missing from the
qrels and queries with no relevant judgment.  Every per-query value must agree
to 1e-9, ``gm_map`` and ``gm_bpref`` (logarithms per query) included.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ranklens

pytrec_eval = pytest.importorskip("pytrec_eval")

pytestmark = pytest.mark.reference

# pytrec_eval measure -> ranklens name (trec_eval names are accepted verbatim, but
# some are checked through the ranklens grammar to test the translation too)
MEASURES = {
    "P_5": "p@5",
    "P_10": "precision@10",
    "recall_5": "r@5",
    "recall_100": "recall@100",
    "map": "map",
    "map_cut_10": "ap@10",
    "ndcg": "ndcg",
    "ndcg_cut_10": "ndcg@10",
    "ndcg_cut_3": "ndcg_cut.3",
    "recip_rank": "mrr",
    "Rprec": "rprec",
    "bpref": "bpref",
    "iprec_at_recall_0.00": "iprec@0",
    "iprec_at_recall_0.10": "iprec@0.1",
    "iprec_at_recall_0.50": "iprec_at_recall.0.50",
    "iprec_at_recall_1.00": "iprec@1",
    "11pt_avg": "11pt_avg",
    "success_1": "success@1",
    "success_5": "hit_rate@5",
    "set_P": "set_P",
    "set_recall": "set_recall",
    "set_F": "set_F",
    "set_map": "set_map",
    "set_relative_P": "set_relative_P",
    "relative_P_5": "relative_P.5",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "infAP": "infAP",
    "binG": "binG",
    "G": "G",
    "Rndcg": "Rndcg",
    "ndcg_rel": "ndcg_rel",
    "Rprec_mult_0.50": "Rprec_mult.0.5",
    "utility": "utility",
    "gm_map": "gm_map",
    "gm_bpref": "gm_bpref",
    "P_1": "P@1",
    "map_cut_5": "map_cut.5",
}


def _random_case(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    n_q = int(rng.integers(3, 12))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qi in range(n_q):
        q = f"q{qi}" if rng.random() < 0.8 else f"{qi:03d}"
        docs = [f"d{j}" for j in rng.permutation(40)[: int(rng.integers(1, 30))]]
        kind = rng.random()
        if kind < 0.85:
            pool = docs + [f"x{j}" for j in range(10)]
            judged = rng.choice(pool, size=int(rng.integers(1, min(15, len(pool)))), replace=False)
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if rng.random() < 0.15:
                grades = np.minimum(grades, 0)  # no relevant document
            if grades.max() < 0:
                # trec_eval 9 reads out of bounds on a query whose judgments are all
                # negative (pytrec_eval hangs or crashes with several measures)
                grades[0] = 0
            qrels[q] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
        if rng.random() < 0.9 or q not in qrels:
            scores = rng.integers(0, 8, size=len(docs)) / 8.0  # exact ties
            near = rng.random(len(docs)) < 0.2  # near-ties: equal in float32
            scores = np.where(near, scores + 1e-9, scores)
            run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
            if rng.random() < 0.1:
                run[q] = {}  # named with no document: an empty ranking
    if not qrels:
        qrels["q0"] = {"d0": 1}
    if not any(run.get(q) for q in qrels):
        first = next(iter(qrels))
        run[first] = {"d0": 0.5, "d1": 0.25}
    return qrels, run


@pytest.mark.parametrize("judged_only", [False, True], ids=["all", "J"])
@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_pytrec_eval(seed: int, judged_only: bool) -> None:
    """Random cases with empty rankings (and, with ``judged_docs_only_flag``, rankings
    that it empties)."""
    qrels_d, run_d = _random_case(seed)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels_d, set(MEASURES), judged_docs_only_flag=judged_only
    ).evaluate(run_d)
    qrels = ranklens.Qrels.from_dict(qrels_d)
    run = ranklens.Run.from_dict(run_d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        res = ranklens.evaluate(
            qrels,
            run,
            list(MEASURES.values()),
            profile="pytrec_eval",
            judged_only=judged_only,
        )
    assert set(res.query_ids) == set(expected)
    for measure, name in MEASURES.items():
        got = res.per_query(name)
        for q, values in expected.items():
            # pytrec_eval's NaN (interpolated precision of an empty ranking: 0/0) is
            # the profile's undefined='nan': NaN equals NaN only
            want = values[measure]
            assert got[q] == pytest.approx(want, abs=1e-9, rel=1e-9, nan_ok=True), (
                seed,
                measure,
                q,
            )


def test_float32_rounding_makes_near_ties_ties() -> None:
    qrels = ranklens.Qrels.from_dict({"q": {"a": 1}})
    run = ranklens.Run.from_dict({"q": {"a": 0.5, "b": 0.5 + 1e-9}})
    exact = ranklens.evaluate(qrels, run, ["rr"]).summary()["rr"]
    f32 = ranklens.evaluate(qrels, run, ["rr"], profile="pytrec_eval").summary()["rr"]
    ref = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"}).evaluate(
        {"q": {"a": 0.5, "b": 0.5 + 1e-9}}
    )["q"]["recip_rank"]
    assert exact == 0.5  # b scores higher in float64
    assert f32 == ref == 0.5  # tie; doc id descending puts b first
    run2 = ranklens.Run.from_dict({"q": {"z": 0.5, "a": 0.5 + 1e-9}})
    qrels2 = ranklens.Qrels.from_dict({"q": {"z": 1}})
    assert ranklens.evaluate(qrels2, run2, ["rr"]).summary()["rr"] == 0.5
    assert ranklens.evaluate(qrels2, run2, ["rr"], profile="pytrec_eval").summary()["rr"] == 1.0
