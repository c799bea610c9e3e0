"""Reference tests: the intent-aware metrics against pyndeval (ndeval inside).

Fresh random diversity qrels and runs on every parameter pyndeval takes (alpha,
beta, the relevance level) and every measure at every cutoff it allows (1 to 20):
graded and negative grades, one to six intents, documents judged for several
intents, unjudged documents, tied scores, queries only in the qrels and only in the
run.  pyndeval breaks tied scores by doc id ascending, ranklens' ``trec`` ties by
doc id descending: pyndeval is given the rows ranked by ranklens' rule (scores
``-rank``).  Every per-query value agrees to 1e-9 (ndeval leaves ERR-IA@1 and
alpha-DCG@1 un-normalised: there ranklens times the number of intents does).  The
committed outputs of tests/conformance/diversity/pyndeval.json are checked against
pyndeval as it answers now.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ranklens
from tests.conformance.make_diversity_outputs import files, trec_order
from tests.conformance.test_diversity import DIV, metric_name

pyndeval = pytest.importorskip("pyndeval", reason="pyndeval (a test extra) is not installed")

pytestmark = pytest.mark.reference

CUTOFFS = tuple(range(1, 21))
CUT = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")
MEASURES = [f"{m}@{k}" for m in CUT for k in CUTOFFS] + ["NRBP", "nNRBP", "MAP-IA"]


def _case(seed: int) -> tuple[list[tuple[str, str, str, int]], list[tuple[str, str, float]]]:
    rng = np.random.default_rng(1000 + seed)
    qrels: list[tuple[str, str, str, int]] = []
    run: list[tuple[str, str, float]] = []
    for q in range(15):
        qid = f"{q:03d}" if q % 3 else str(q)
        docs = [f"doc{i}" for i in range(int(rng.integers(1, 45)))]
        if q != 14:  # only in the run
            for it in range(int(rng.integers(1, 7))):
                share = rng.uniform(0.1, 1.0)
                for d in docs:
                    if rng.random() < share:
                        grade = int(rng.choice([-2, -1, 0, 0, 1, 1, 1, 2, 3, 4]))
                        qrels.append((qid, f"t{it}", d, grade))
        if q == 13:
            continue  # only in the qrels
        pool = docs + [f"new{i}" for i in range(int(rng.integers(0, 6)))]
        ranked = list(rng.permutation(pool))[: int(rng.integers(1, len(pool) + 1))]
        scores = np.round(rng.normal(size=len(ranked)), int(rng.integers(0, 3)))
        run += [(qid, str(d), float(s)) for d, s in zip(ranked, scores, strict=True)]
    return qrels, run


@pytest.mark.parametrize(
    ("seed", "alpha", "beta", "level"),
    [
        (0, 0.5, 0.5, 1),
        (1, 0.25, 0.9, 1),
        (2, 0.75, 0.1, 2),
        (3, 0.5, 0.5, 3),
        (4, 1.0, 1.0, 1),
        (5, 0.0, 0.5, 1),
        (6, 0.1, 0.0, 2),
        (7, 0.0, 1.0, 1),  # every NRBP 0: nNRBP 0/0
    ],
)
def test_every_measure_against_pyndeval(seed: int, alpha: float, beta: float, level: int) -> None:
    qrels, run = _case(seed)
    ranked: list[tuple[str, str, float]] = []
    rank: dict[str, int] = {}
    for q, d, _ in trec_order([list(r) for r in run]):
        rank[q] = rank.get(q, 0) + 1
        ranked.append((q, d, -float(rank[q])))
    theirs = pyndeval.RelevanceEvaluator(
        qrels, MEASURES, relevance_level=level, alpha=alpha, beta=beta
    ).evaluate(ranked)
    names = {m: metric_name(m, alpha, beta) for m in MEASURES}
    Q = ranklens.DiversityQrels.from_arrays(*map(list, zip(*qrels, strict=True)))
    R = ranklens.Run.from_arrays(*map(list, zip(*run, strict=True)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        ours = ranklens.evaluate(Q, R, list(names.values()), rel_threshold=level)
    assert set(ours.query_ids) == set(theirs)
    intents: dict[str, set[str]] = {}
    for q, i, _, g in qrels:
        if g >= level:
            intents.setdefault(q, set()).add(i)
    compared = 0
    for m, name in names.items():
        mine = ours.per_query(name)
        for q, values in theirs.items():
            want, got = values[m], mine[q]
            if m in ("ERR-IA@1", "alpha-DCG@1"):
                got *= len(intents.get(q, ())) or 1
            if math.isnan(want):
                assert math.isnan(got), (seed, q, m, got)
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (seed, q, m)
            compared += 1
    assert compared == len(MEASURES) * len(theirs)


def test_committed_outputs_are_what_pyndeval_says_now() -> None:
    assert files(None)["pyndeval.json"] == (DIV / "pyndeval.json").read_bytes()
