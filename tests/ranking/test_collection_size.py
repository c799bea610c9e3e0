"""The collection_size convention (trec_eval -N): utility's fourth term counts the
non-relevant documents not retrieved, N + RR - n - R."""

from __future__ import annotations

import pytest

import ranklens
from ranklens.errors import ConventionError
from ranklens.io import read_trec_qrels, read_trec_run
from tests.helpers import CONFORMANCE, NEEDS_CONFORMANCE

QRELS = ranklens.Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 1}, "q2": {"d9": 2}})
RUN = ranklens.Run.from_dict({"q1": {"d1": 3.0, "d2": 2.0, "d5": 1.0}, "q2": {"d8": 1.0}})


@pytest.mark.parametrize("size", [0, 10, 1000])
def test_utility_counts_the_non_relevant_documents_not_retrieved(size: int) -> None:
    # q1: n = 3 retrieved, RR = 1 relevant retrieved, R = 3 relevant;
    # q2: n = 1, RR = 0, R = 1
    res = ranklens.evaluate(QRELS, RUN, ["utility(a=2,b=-1,c=-0.5,d=0.25)"], collection_size=size)
    q1 = 2 * 1 - 1 * 2 - 0.5 * 2 + 0.25 * (size + 1 - 3 - 3)
    q2 = 0 - 1 * 1 - 0.5 * 1 + 0.25 * (size + 0 - 1 - 1)
    assert res.per_query("utility(a=2,b=-1,c=-0.5,d=0.25)") == {"q1": q1, "q2": q2}
    assert res.conventions.collection_size == size


def test_only_utility_reads_it() -> None:
    names = ["map", "ndcg@10", "P.5", "set_F", "utility"]  # utility's default d is 0
    base = ranklens.evaluate(QRELS, RUN, names).summary()
    assert ranklens.evaluate(QRELS, RUN, names, collection_size=10**6).summary() == base


@pytest.mark.parametrize("bad", [-1, 1.5, True, "10"])
def test_collection_size_must_be_a_whole_number(bad: object) -> None:
    with pytest.raises(ConventionError, match="collection_size must be a whole number"):
        ranklens.evaluate(QRELS, RUN, ["utility"], collection_size=bad)  # type: ignore[arg-type]


@NEEDS_CONFORMANCE
@pytest.mark.parametrize(
    ("options", "want"),
    [
        # trec_eval 10 (built from usnistgov/trec_eval), e.g.
        # trec_eval -N 5000 -M 50 -m utility.1,-1,0.5,0.25 -q qrels.test results.test
        (
            dict(collection_size=0, depth=50),
            {"301": 77.0, "302": 16.25, "303": -51.25, "all": 14.0},
        ),
        (
            dict(collection_size=5000, depth=50),
            {"301": 1327.0, "302": 1266.25, "303": 1198.75, "all": 1264.0},
        ),
        (dict(collection_size=0, missing="zero", judged_only=True), {"all": -184.3333}),
        (dict(collection_size=5000, missing="zero", judged_only=True), {"all": 1065.6667}),
    ],
)
def test_utility_with_collection_size_is_trec_eval(
    options: dict[str, object], want: dict[str, float]
) -> None:
    qrels = read_trec_qrels(CONFORMANCE / "qrels.test")
    run = read_trec_run(CONFORMANCE / "results.test")
    res = ranklens.evaluate(qrels, run, ["utility.1,-1,0.5,0.25"], **options)  # type: ignore[arg-type]
    got = {**res.per_query("utility.1,-1,0.5,0.25"), "all": res.summary()["utility.1,-1,0.5,0.25"]}
    for q, v in want.items():
        assert round(got[q], 4) == v
