"""ranklens.fusion on tiny hand-computed cases: every method, every normalisation,
the conventions (ties, missing, depth), training and the errors.

The two runs of most tests (no normalisation)::

    a: d1 3, d2 2, d3 1        b: d2 9, d4 8

so d2 is in both runs, d1 and d3 only in a, d4 only in b; C = 4 candidates.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ranklens import InputError, Qrels, Run
from ranklens.fusion import METHODS, NORMS, fuse, optimize_fusion, train_fusion
from ranklens.fusion.spec import MIN_LOG_ODDS

A = Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
B = Run.from_dict({"q": {"d2": 9.0, "d4": 8.0}})
MO = MIN_LOG_ODDS

EXPECTED = {  # (method, params) -> {doc: fused score}, by hand
    ("sum", None): {"d1": 3, "d2": 11, "d3": 1, "d4": 8},
    ("mnz", None): {"d1": 3, "d2": 22, "d3": 1, "d4": 8},
    ("anz", None): {"d1": 3, "d2": 5.5, "d3": 1, "d4": 8},
    ("max", None): {"d1": 3, "d2": 9, "d3": 1, "d4": 8},
    ("min", None): {"d1": 3, "d2": 2, "d3": 1, "d4": 8},
    ("med", None): {"d1": 3, "d2": 5.5, "d3": 1, "d4": 8},
    ("gmnz", (("gamma", 0.5),)): {"d1": 3, "d2": 11 * math.sqrt(2), "d3": 1, "d4": 8},
    ("rrf", None): {"d1": 1 / 61, "d2": 1 / 62 + 1 / 61, "d3": 1 / 63, "d4": 1 / 62},
    ("rrf", (("k", 0),)): {"d1": 1, "d2": 1.5, "d3": 1 / 3, "d4": 0.5},
    ("isr", None): {"d1": 1, "d2": 2.5, "d3": 1 / 9, "d4": 0.25},
    ("log_isr", None): {"d1": 0, "d2": 1.25 * math.log(2), "d3": 0, "d4": 0},
    ("logn_isr", None): {
        "d1": math.log(1.01),
        "d2": 1.25 * math.log(2.01),
        "d3": math.log(1.01) / 9,
        "d4": math.log(1.01) / 4,
    },
    # C = 4: a gives 4, 3, 2 and 1 = (4 - 3 + 1) / 2 to d4; b gives 4, 3 and 1.5 to d1, d3
    ("bordafuse", None): {"d1": 5.5, "d2": 7, "d3": 3.5, "d4": 4},
    ("w_bordafuse", (("weights", (1, 2)),)): {"d1": 7, "d2": 11, "d3": 5, "d4": 7},
    ("wsum", (("weights", (1, 2)),)): {"d1": 3, "d2": 20, "d3": 1, "d4": 16},
    ("wmnz", (("weights", (1, 2)),)): {"d1": 3, "d2": 33, "d3": 1, "d4": 16},
    ("mixed", (("weights", (1, 2)),)): {"d1": 3, "d2": 20 * math.sqrt(2), "d3": 1, "d4": 16},
    ("rbc", (("phi", 0.5),)): {"d1": 0.5, "d2": 0.75, "d3": 0.125, "d4": 0.25},
    ("bayesfuse", (("log_odds", ((0.1, 0.2, 0.3), (0.4, 0.5))),)): {
        "d1": 0.1 + MO,
        "d2": 0.6,
        "d3": 0.3 + MO,
        "d4": 0.5 + MO,
    },
    ("posfuse", (("probs", ((0.5, 0.25, 0.1), (1.0, 0.5))),)): {
        "d1": 0.5,
        "d2": 1.25,
        "d3": 0.1,
        "d4": 0.5,
    },
    # S = 2: a (3 documents) has segments of 2, b (2 documents) of 1
    ("probfuse", (("probs", ((0.6, 0.2), (0.8, 0.4))),)): {
        "d1": 0.6,
        "d2": 1.4,
        "d3": 0.1,
        "d4": 0.2,
    },
    # every position is in the first segment (0-4): probs[0] * (score + 1)
    ("segfuse", (("probs", ((0.5, 0.1), (0.25, 0.1))),)): {
        "d1": 2.0,
        "d2": 4.0,
        "d3": 1.0,
        "d4": 2.25,
    },
    # w = 1: a's windows are positions 0-1, 0-2, 1-2; b's 0-1, 0-1
    ("slidefuse", (("probs", ((0.3, 0.6, 0.9), (0.2, 0.4))), ("w", 1))): {
        "d1": 0.45,
        "d2": 0.9,
        "d3": 0.75,
        "d4": 0.3,
    },
    ("mapfuse", (("map_scores", (0.5, 0.25)),)): {
        "d1": 0.5,
        "d2": 0.5,
        "d3": 0.5 / 3,
        "d4": 0.125,
    },
}


def _plain(params: object) -> dict[str, object] | None:
    if params is None:
        return None
    return {
        k: (np.array(v, dtype=object).tolist() if isinstance(v, tuple) else v) for k, v in params
    }  # type: ignore[attr-defined]


@pytest.mark.parametrize(("method", "params"), list(EXPECTED), ids=lambda x: str(x)[:40])
def test_each_method_by_hand(method: str, params: object) -> None:
    got = fuse([A, B], method, norm=None, params=_plain(params)).to_dict()["q"]
    want = EXPECTED[(method, params)]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_every_declared_method_is_checked_by_hand() -> None:
    assert {m for m, _ in EXPECTED} == set(METHODS)


def test_output_is_ranked_with_ties_in_first_appearance_order() -> None:
    fused = fuse([A, B], "isr", norm=None)  # d1 1, d2 2.5, d3 1/9, d4 0.25
    assert list(fused.to_dict()["q"]) == ["d2", "d1", "d4", "d3"]
    tied = fuse([A, B], "sum", norm="rank")  # a: 1, 2/3, 1/3; b: 1, 1/2
    # d2 = 2/3 + 1 ; d1 = 1 ; d4 = 1/2 ; d3 = 1/3
    assert tied.to_dict()["q"] == pytest.approx({"d2": 5 / 3, "d1": 1, "d4": 0.5, "d3": 1 / 3})
    even = fuse([A, B], "sum", norm="min-max")  # a: 1, .5, 0 ; b: 1, 0
    # d1 and d2 tie at 1.5? no: d2 = .5 + 1 = 1.5, d1 = 1 -> d2, d1; d3 and d4 tie at 0
    assert list(even.to_dict()["q"]) == ["d2", "d1", "d3", "d4"]  # d3 appears first (run a)
    trec = fuse([A, B], "sum", norm="min-max", ties="trec")
    assert list(trec.to_dict()["q"]) == ["d2", "d1", "d4", "d3"]  # higher doc id first


def test_ties_in_an_input_ranking() -> None:
    a = Run.from_dict({"q": {"x": 1.0, "y": 1.0, "z": 0.0}})
    b = Run.from_dict({"q": {}})
    # input order: x at 0, y at 1; trec order (doc id descending): y at 0, x at 1
    assert fuse([a, b], "rrf", None, {"k": 0}).to_dict()["q"] == {"x": 1, "y": 0.5, "z": 1 / 3}
    got = fuse([a, b], "rrf", None, {"k": 0}, ties="trec").to_dict()["q"]
    assert got == {"y": 1, "x": 0.5, "z": 1 / 3}


NORMALISED_A = {  # run a (3, 2, 1) normalised, b empty for the query
    "min-max": [1, 0.5, 0],
    "min-max-inverted": [0, 0.5, 1],
    "max": [1, 2 / 3, 1 / 3],
    "sum": [2 / 3, 1 / 3, 0],  # (s - 1) / (6 - 3 * 1)
    "zmuv": [1 / math.sqrt(2 / 3), 0, -1 / math.sqrt(2 / 3)],
    "rank": [1, 2 / 3, 1 / 3],
    # C = 3: a's 1 - p / 3, plus the empty run's 0.5 - (0 - 1) / 6 for every candidate
    "borda": [1 + 2 / 3, 2 / 3 + 2 / 3, 1 / 3 + 2 / 3],
    "none": [3, 2, 1],
}


@pytest.mark.parametrize("norm", NORMS)
def test_each_normalisation_by_hand(norm: str) -> None:
    empty = Run.from_dict({"q": {}})
    got = fuse([A, empty], "sum", norm=norm).to_dict()["q"]
    assert [got[d] for d in ("d1", "d2", "d3")] == pytest.approx(NORMALISED_A[norm], abs=1e-12)


def test_borda_normalisation_adds_the_missing_candidates() -> None:
    # C = 4: a -> d1 1, d2 .75, d3 .5, d4 .5 - 2/8 = .25; b -> d2 1, d4 .75, d1 d3 .5 - 1/8
    got = fuse([A, B], "mnz", norm="borda").to_dict()["q"]
    want = {"d1": 2 * 1.375, "d2": 2 * 1.75, "d3": 2 * 0.875, "d4": 2 * 1.0}
    assert got == pytest.approx(want)


def test_min_max_inverted_reorders_the_ranking() -> None:
    # a inverted: d3 1, d2 .5, d1 0 -> rrf(k=0) positions d3 0, d2 1, d1 2
    got = fuse([A, B], "rrf", norm="min-max-inverted", params={"k": 0}).to_dict()["q"]
    # b inverted: d4 1 (position 0), d2 0 (position 1)
    assert got == pytest.approx({"d3": 1, "d2": 1, "d1": 1 / 3, "d4": 1})


def test_constant_scores_normalise_to_zero() -> None:
    a = Run.from_dict({"q": {"x": 2.0, "y": 2.0}})
    got = fuse([a, Run.from_dict({"q": {}})], "sum", norm="zmuv").to_dict()["q"]
    assert got == {"x": 0.0, "y": 0.0}
    got = fuse([a, Run.from_dict({"q": {}})], "sum", norm="min-max").to_dict()["q"]
    assert got == {"x": 0.0, "y": 0.0}


def test_missing_zero_for_min_max_med() -> None:
    neg = Run.from_dict({"q": {"d1": -1.0, "d2": -3.0}})
    other = Run.from_dict({"q": {"d2": -2.0}})
    ignore = fuse([neg, other], "max", norm=None).to_dict()["q"]
    assert ignore == {"d1": -1.0, "d2": -2.0}
    zero = fuse([neg, other], "max", norm=None, missing="zero").to_dict()["q"]
    assert zero == {"d1": 0.0, "d2": -2.0}
    assert fuse([A, B], "min", norm=None, missing="zero").to_dict()["q"] == {
        "d2": 2.0,
        "d1": 0.0,
        "d3": 0.0,
        "d4": 0.0,
    }
    # d1: median of (3, 0) = 1.5
    med = fuse([A, B], "med", norm=None, missing="zero").to_dict()["q"]
    assert med == {"d2": 5.5, "d4": 4.0, "d1": 1.5, "d3": 0.5}


def test_queries_missing_from_runs_and_empty_rankings() -> None:
    a = Run.from_dict({"q1": {"x": 1.0}, "q2": {}, "q3": {"y": 1.0}})
    b = Run.from_dict({"q1": {"x": 2.0, "z": 1.0}, "q4": {}})
    fused = fuse([a, b], "rrf", None, {"k": 0})
    assert fused.to_dict() == {"q1": {"x": 2.0, "z": 0.5}, "q3": {"y": 1.0}, "q2": {}, "q4": {}}
    assert fused.empty_queries == ("q2", "q4")
    assert fused.name == "rrf"


def test_depth_keeps_the_best_of_each_query() -> None:
    fused = fuse([A, B], "sum", norm=None, depth=2)
    assert fused.to_dict() == {"q": {"d2": 11.0, "d4": 8.0}}


def test_ranx_spellings() -> None:
    assert fuse([A, B], "comb_sum", None).to_dict() == fuse([A, B], "sum", None).to_dict()
    assert fuse([A, B], "sum", "min_max").to_dict() == fuse([A, B], "sum", "min-max").to_dict()
    assert fuse([A, B], "sum", "z-score").to_dict() == fuse([A, B], "sum", "zmuv").to_dict()


# ------------------------------------------------------------------------- training

QRELS = Qrels.from_dict({"q1": {"a": 1, "c": 2}, "q2": {"c": 1, "d": 0}, "q3": {"e": -1}})
R1 = Run.from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"d": 2.0, "c": 1.0}})
R2 = Run.from_dict({"q1": {"b": 2.0}, "q2": {"c": 2.0}, "q3": {"e": 1.0}})
# hit lists (relevant: grade >= 1):  R1: q1 1 0 1 | q2 0 1 | q3 (none)
#                                    R2: q1 0     | q2 1   | q3 0


def test_posfuse_training_by_hand() -> None:
    probs = train_fusion(QRELS, [R1, R2], "posfuse")["probs"]
    # R1: position 0: (1 + 0) / 2 queries reaching it; 1: (0 + 1) / 2; 2: 1 / 1
    assert [p.tolist() for p in probs] == [[0.5, 0.5, 1.0], [1 / 3]]


def test_probfuse_training_by_hand() -> None:
    probs = train_fusion(QRELS, [R1, R2], "probfuse", params={"n_segments": 2})["probs"]
    # R1 q1 (3 docs, segments of 2): [1, 0] -> .5, [1] -> 1; q2 (2 docs, of 1): 0, 1
    # sums over 3 training queries: (.5 + 0) / 3, (1 + 1) / 3
    # R2: q1 [0], q2 [1], q3 [0] (one document: one segment of 1) -> 1/3, 0
    assert np.concatenate(probs).tolist() == pytest.approx([0.5 / 3, 2 / 3, 1 / 3, 0.0])


def test_segfuse_training_by_hand() -> None:
    probs = train_fusion(QRELS, [R1, R2], "segfuse")["probs"]
    # first segment (positions 0-4, size 5): R1 hits 2 + 1, R2 1; / 5 / 3 queries
    assert probs[0][0] == pytest.approx(3 / 15)
    assert probs[1][0] == pytest.approx(1 / 15)
    assert probs[0][1:].tolist() == [0.0] * 9


def test_bayesfuse_training_by_hand() -> None:
    odds = train_fusion(QRELS, [R1, R2], "bayesfuse")["log_odds"]
    p1, p2 = 3 / 5 / 3, 1 / 5 / 3  # precision of positions 0-4, mean over 3 queries
    assert odds[0][:5] == pytest.approx([math.log(p1 / (1 - p1))] * 5)
    assert odds[1][0] == pytest.approx(math.log(p2 / (1 - p2)))
    assert odds[0][5] == pytest.approx(math.log(0.001 / 0.999))  # no hit: P = 0.001
    assert len(odds[0]) == 1000


def test_mapfuse_training_by_hand() -> None:
    maps = train_fusion(QRELS, [R1, R2], "mapfuse")["map_scores"]
    # R1: q1 (1 + 2/3) / 2, q2 1/2 / 1, q3 0 (no relevant); R2: q2 1 -> mean over 3
    assert maps.tolist() == pytest.approx([((1 + 2 / 3) / 2 + 0.5) / 3, 1 / 3])


def test_fuse_trains_from_qrels() -> None:
    trained = train_fusion(QRELS, [R1, R2], "posfuse")
    direct = fuse([R1, R2], "posfuse", params=trained)
    assert fuse([R1, R2], "posfuse", qrels=QRELS).to_dict() == direct.to_dict()


# ---------------------------------------------------------------------- optimisation


def test_optimize_weights_by_hand() -> None:
    qrels = Qrels.from_dict({"q": {"d4": 1}})
    found = optimize_fusion(qrels, [A, B], "wsum", "mrr", norm=None, step=0.5)
    # weights (0, 1): d2 9 > d4 8 -> mrr 1/2; (.5, .5): d2 5.5 > d4 4 > d1 1.5 -> 1/2;
    # (1, 0): d1 3, d2 2, d3 1, d4 0 -> 1/4.  The last of the equal best is kept (ranx)
    assert [s for _, s in found.trials] == pytest.approx([0.5, 0.5, 0.25])
    assert found.best_params == {"weights": [0.5, 0.5]}
    assert found.best_score == 0.5
    assert found.run.to_dict() == fuse([A, B], "wsum", None, found.best_params).to_dict()


def test_optimize_keeps_the_last_of_equal_scores() -> None:
    qrels = Qrels.from_dict({"q": {"d2": 1}})
    found = optimize_fusion(qrels, [A, B], "rrf", "mrr", norm=None)
    assert [s for _, s in found.trials] == [1.0] * 10
    assert found.best_params == {"k": 100}  # ranx keeps the last best


def test_random_search_is_seeded_and_a_subset() -> None:
    qrels = Qrels.from_dict({"q": {"d4": 1}})
    one = optimize_fusion(qrels, [A, B], "rbc", "mrr", None, search="random", n_trials=7, seed=3)
    two = optimize_fusion(qrels, [A, B], "rbc", "mrr", None, search="random", n_trials=7, seed=3)
    assert one.trials == two.trials
    assert len(one.trials) == 7
    grid = [round(0.01 * i, 2) for i in range(1, 101)]
    tried = [s["phi"] for s, _ in one.trials]
    assert tried == sorted(tried) and set(tried) <= set(grid)


def test_optimize_probfuse_retrains_each_trial() -> None:
    found = optimize_fusion(QRELS, [R1, R2], "probfuse", "map", space={"n_segments": [1, 2]})
    assert [s["n_segments"] for s, _ in found.trials] == [1, 2]
    assert len(found.best_params["probs"]) == 2


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: fuse([A], "sum"), "two or more runs"),
        (lambda: fuse(A, "sum"), "list of ranklens.Run"),
        (lambda: fuse([A, {"q": {}}], "sum"), "runs[1] is a dict"),
        (lambda: fuse([A, B], "nope"), "method='nope' is not a fusion method"),
        (lambda: fuse([A, B], "sum", norm="l2"), "norm must be one of"),
        (lambda: fuse([A, B], "wsum"), "needs params={'weights'"),
        (lambda: fuse([A, B], "wsum", params={"weights": [1]}), "1 weight(s) for 2 runs"),
        (lambda: fuse([A, B], "rrf", params={"kk": 1}), "takes k; params names kk"),
        (lambda: fuse([A, B], "posfuse"), "pass qrels="),
        (lambda: fuse([A, B], "sum", ties="random"), "ties must be one of"),
        (lambda: fuse([A, B], "logn_isr", params={"sigma": 2}), "sigma'] must be in [0, 1]"),
        (lambda: fuse([A, B], "sum", depth=0), "depth must be a whole number"),
        (lambda: train_fusion(QRELS, [R1, R2], "sum"), "learns nothing"),
        (lambda: train_fusion(QRELS, [R1, R2], "probfuse"), "needs params={'n_segments'"),
        (
            lambda: optimize_fusion(QRELS, [R1, R2], "rbc", search="random"),
            "needs n_trials=N",
        ),
        (
            lambda: optimize_fusion(QRELS, [R1, R2], "rrf", space={"w": [1]}),
            "space names w",
        ),
    ],
)
def test_errors_say_what_and_how(call: object, fragment: str) -> None:
    with pytest.raises(InputError) as exc:
        call()  # type: ignore[operator]
    assert fragment in str(exc.value)


@pytest.mark.parametrize("seed", range(5))
def test_trec_ties_against_a_plain_python_rrf(seed: int) -> None:
    """``ties="trec"`` (not ranx's): each ranking by score descending, then doc id
    descending; RRF computed here query by query in plain Python."""
    from tests.fusion.cases import fusion_case

    _, runs_d = fusion_case(seed, ties=True)
    want: dict[str, dict[str, float]] = {}
    for run in runs_d:
        for q, docs in run.items():
            ranked = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
            for p, d in enumerate(ranked):
                want.setdefault(q, {})[d] = want.get(q, {}).get(d, 0.0) + 1 / (60 + p + 1)
    runs = [Run.from_dict(r) for r in runs_d]
    got = {q: d for q, d in fuse(runs, "rrf", ties="trec").to_dict().items() if d}
    assert got.keys() == {q for q, d in want.items() if d}
    for q in got:
        assert got[q] == pytest.approx(want[q], rel=1e-12)
        # the fused ranking: score descending, then doc id descending
        order = sorted(got[q], key=lambda d: (got[q][d], d), reverse=True)
        assert list(got[q]) == order
