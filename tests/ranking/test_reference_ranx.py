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
scores.  Grades run from -1 to 3: ranx judges a negative grade non-relevant
(the profile's ``negative_grades='nonrelevant'``), which ``bpref`` reads.
ranx's ``bpref`` returns NaN (``1 - 0/0``) without judged non-relevant documents, as
the profile's ``bpref(no_nonrel=undefined)`` under ``undefined='nan'`` does, and
zeroes later queries after a query without relevant ones (its numba loop stops
there), so it is compared on cases where every query judges a relevant document
(and, in half the queries of one test, no non-relevant one); NaN equals NaN only,
and ranx's mean (numpy's) of a NaN is NaN, as the profile's; the relevance levels
(ranx's ``-l``) are ranklens' ``rel=`` parameter, and ``rbp.P`` is ``rbp(p=P)`` (raw
grades).  Some runs name a query with no document: ranx scores it 0, as the profile does (an empty
ranking is missing, and missing queries score 0).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ranklens
from tests.helpers import RANX_NAMES, graded_case

ranx = pytest.importorskip("ranx")

pytestmark = pytest.mark.reference

MEASURES = {
    **RANX_NAMES,
    "precision@5-l2": "p(rel=2)@5",
    "recall@10-l2": "r(rel=2)@10",
    "map-l2": "map(rel=2)",
    "mrr-l3": "mrr(rel=3)",
    "r-precision-l2": "rprec(rel=2)",
    "hits@5-l2": "hits(rel=2)@5",
    "f1@5-l2": "f1(rel=2)@5",
    "rbp.9": "rbp",
    "rbp.5": "rbp(p=0.5)",
}
# compared on cases where every query judges a relevant and a non-relevant document
BOTH = {"bpref": "bpref", "bpref-l2": "bpref(rel=2)"}


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "distinct"])
@pytest.mark.parametrize("seed", range(15))
def test_agrees_with_ranx(seed: int, ties: bool) -> None:
    qrels_d, run_d = graded_case(1000 + seed, longest=15 if ties else 40, ties=ties, negative=True)
    if seed % 3 == 0 and len(run_d) > 1:  # an empty ranking: ranx scores it 0, as missing
        run_d[sorted(run_d)[-1]] = {}
    _compare(qrels_d, run_d, MEASURES)


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "distinct"])
@pytest.mark.parametrize("seed", range(10))
def test_bpref_agrees_with_ranx(seed: int, ties: bool) -> None:
    qrels_d, run_d = graded_case(
        2000 + seed, longest=15 if ties else 40, ties=ties, negative=True, every_query_both=True
    )
    for judged in qrels_d.values():  # a relevant judgment at level 2 too (bpref-l2)
        top = max(judged, key=judged.__getitem__)
        judged[top] = max(judged[top], 2)
    _compare(qrels_d, run_d, BOTH)


@pytest.mark.parametrize("seed", range(10))
def test_bpref_without_judged_nonrelevant_is_nan_as_ranx(seed: int) -> None:
    """Every other query keeps only its relevant judgments (at level 1, or at level 2
    for bpref-l2 where those are the grades >= 2): ranx's bpref is 1 - 0/0 there when
    a relevant document is retrieved."""
    qrels_d, run_d = graded_case(
        3000 + seed, longest=15, ties=True, negative=True, every_query_both=True
    )
    for i, q in enumerate(sorted(qrels_d)):
        if i % 2 == 0:
            qrels_d[q] = {d: g for d, g in qrels_d[q].items() if g >= 1}
    _compare(qrels_d, run_d, {"bpref": "bpref"})


def test_bpref_without_judged_nonrelevant_cases_hold_nan() -> None:
    """The cases above do reach ranx's 0/0 (so that the NaN comparison can fail)."""
    total = 0
    for seed in range(10):
        qrels_d, run_d = graded_case(
            3000 + seed, longest=15, ties=True, negative=True, every_query_both=True
        )
        for i, q in enumerate(sorted(qrels_d)):
            if i % 2 == 0:
                qrels_d[q] = {d: g for d, g in qrels_d[q].items() if g >= 1}
        total += _compare(qrels_d, run_d, {"bpref": "bpref"})
    assert total > 0


def _compare(qrels_d: dict, run_d: dict, measures: dict[str, str]) -> int:
    """Compare every per-query value and mean; the number of NaN values ranx gave."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ranx.evaluate(
            ranx.Qrels(qrels_d),
            ranx.Run(run_d),
            list(measures),
            return_mean=False,
            make_comparable=True,
        )
    qrels = ranklens.Qrels.from_dict(qrels_d)
    run = ranklens.Run.from_dict(run_d)
    res = ranklens.evaluate(qrels, run, list(measures.values()), profile="ranx")
    # ranx orders queries as its Qrels does
    order = list(ranx.Qrels(qrels_d).keys())
    assert sorted(order) == sorted(res.query_ids)
    if not isinstance(expected, dict):  # ranx: one metric's array, a dict for several
        expected = {next(iter(measures)): expected}
    nan = 0
    for measure, name in measures.items():
        got = res.per_query(name)
        want = dict(zip(order, np.asarray(expected[measure]).tolist(), strict=True))
        for q in order:
            assert got[q] == pytest.approx(want[q], abs=1e-9, rel=1e-9, nan_ok=True), (measure, q)
        nan += sum(v != v for v in want.values())
        mean = float(np.mean(expected[measure]))
        assert res[name] == pytest.approx(mean, abs=1e-9, rel=1e-9, nan_ok=True), measure
    return nan
