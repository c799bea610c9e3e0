"""Hand-computed values of every metric family in ``ranklens.REGISTRY``.

The main fixture has three queries:

``q1``  judgments a=2, b=0, c=1, d=0, f=1 (R=3 at threshold 1, two judged
        non-relevant); ranking a, x (unjudged), b, c, d -> binary 1,0,0,1,0,
        grades 2,0,0,1,0; f is relevant and never retrieved.
``q2``  judgments g=1, h=0 (R=1); ranking h, g -> binary 0,1.
``q3``  judgments m=0, n=0 (no relevant document); ranking m.

Every expected value below is worked out by hand from the metric's
definition (the formula in the kernel's docstring); comments show the sums.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

import ranklens as rl
from ranklens.metrics.catalogue import CATALOGUE


def ev(qrels, run, metrics, **kw):
    return rl.evaluate(rl.Qrels.from_dict(qrels), rl.Run.from_dict(run), metrics, **kw)


def pq(qrels, run, metric, **kw):
    return ev(qrels, run, [metric], **kw).per_query(metric)


def D(i: int) -> float:
    """The DCG discount at 1-based rank i."""
    return 1.0 / math.log2(i + 1)


QRELS = {
    "q1": {"a": 2, "b": 0, "c": 1, "d": 0, "f": 1},
    "q2": {"g": 1, "h": 0},
    "q3": {"m": 0, "n": 0},
}
RUN = {
    "q1": {"a": 0.9, "x": 0.8, "b": 0.7, "c": 0.6, "d": 0.5},
    "q2": {"h": 0.9, "g": 0.8},
    "q3": {"m": 1.0},
}

IDCG_Q1 = 2 + D(2) + D(3)  # ideal grades 2, 1, 1
DCG_Q1 = 2 + D(4)  # grade 2 at rank 1, grade 1 at rank 4
EPS = 1e-5  # infAP's epsilon

# metric -> (q1, q2, q3)
EXPECTED: dict[str, tuple[float, float, float]] = {
    # --- precision / recall / F ------------------------------------------------------
    "p@2": (1 / 2, 1 / 2, 0),
    "p@5": (2 / 5, 1 / 5, 0),
    "p@10": (2 / 10, 1 / 10, 0),  # denominator is k past the end of the ranking
    "p": (2 / 5, 1 / 2, 0),  # set precision: num_rel_ret / num_ret
    "P.5": (2 / 5, 1 / 5, 0),
    "r@2": (1 / 3, 1, 0),
    "r": (2 / 3, 1, 0),
    "f1@2": (2 / (2 + 3), 2 / (2 + 1), 0),  # 2 TP / (k + R)
    "f1": (2 * 2 / (5 + 3), 2 * 1 / (2 + 1), 0),  # 2 RR / (n + R)
    # F-beta, beta=2: 5 P R / (4 P + R); q1 P=1/2 R=1/3, q2 P=1/2 R=1
    "f1(beta=2)@2": (5 * (1 / 6) / (2 + 1 / 3), 5 * (1 / 2) / (2 + 1), 0),
    # --- average precision ------------------------------------------------------------
    "ap": ((1 + 2 / 4) / 3, (1 / 2) / 1, 0),
    "map": ((1 + 2 / 4) / 3, (1 / 2) / 1, 0),
    "ap@2": (1 / 3, 1 / 2, 0),
    "ap@4": ((1 + 2 / 4) / 3, 1 / 2, 0),
    "ap(norm=min_r_k)@2": (1 / 2, 1 / 2, 0),  # divided by min(R, 2)
    "ap(norm=min_r_k)": ((1 + 2 / 4) / 3, 1 / 2, 0),  # no k: divided by R
    "ap(norm=retrieved)": ((1 + 2 / 4) / 2, 1 / 2, 0),  # divided by relevant retrieved
    "ap(norm=retrieved)@2": (1 / 1, 1 / 2, 0),
    "map_cut.2": (1 / 3, 1 / 2, 0),
    # --- reciprocal rank, success, ARHR -----------------------------------------------
    "rr": (1, 1 / 2, 0),
    "mrr": (1, 1 / 2, 0),
    "rr@1": (1, 0, 0),
    "success@1": (1, 0, 0),
    "success@2": (1, 1, 0),
    "hit_rate@1": (1, 0, 0),
    "arhr": (1 + 1 / 4, 1 / 2, 0),
    "arhr@3": (1, 1 / 2, 0),
    # --- average recall ----------------------------------------------------------------
    # mode=relevant: recall averaged over the hit ranks; q1 hits at 1 and 4
    "mar": ((1 / 3 + 2 / 3) / 2, 1, 0),
    "mar@3": (1 / 3, 1, 0),
    # mode=all: recall averaged over ranks 1..k, ranks past the end keep the final recall
    "mar(mode=all)@3": (1 / 3, (0 + 1 + 1) / 3, 0),
    "mar(mode=all)@6": ((3 * (1 / 3) + 3 * (2 / 3)) / 6, 5 / 6, 0),
    "mar(mode=all)": ((3 * (1 / 3) + 2 * (2 / 3)) / 5, 1 / 2, 0),
    # --- R-precision, bpref ------------------------------------------------------------
    "rprec": (1 / 3, 0, 0),
    "r-precision": (1 / 3, 0, 0),
    # q1: R=3, N=2; a has no judged non-relevant above -> 1; c has b above -> 1 - 1/min(3,2)
    # q2: g has h above, R=N=1 -> 1 - 1/1 = 0
    "bpref": ((1 + (1 - 1 / 2)) / 3, 0, 0),
    # --- interpolated precision ----------------------------------------------------------
    # iprec(x) = max precision over ranks holding >= lround(x R) relevant documents
    "iprec@0": (1, 1 / 2, 0),
    "iprec@0.45": (1, 1 / 2, 0),  # q1: lround(1.35) = 1; q2: lround(0.45) = 0
    "iprec@0.5": (1 / 2, 1 / 2, 0),  # q1: lround(1.5) = 2 -> max(P@4, P@5)
    "iprec@1": (0, 1 / 2, 0),  # q1: needs 3 relevant, only 2 retrieved
    # q1 levels 0..1: n(x) = 0,0,1,1,1,2,2,2,2,3,3 -> 1 x5, 0.5 x4, 0 x2
    "11pt_avg": ((5 * 1 + 4 * 0.5) / 11, 1 / 2, 0),
    "11pt_avg..25,.5,.75": ((1 + 0.5 + 0.5) / 3, 1 / 2, 0),
    "11pt_avg(levels=0.5)": (1 / 2, 1 / 2, 0),
    # --- counts --------------------------------------------------------------------------
    "num_ret": (5, 2, 1),
    "num_ret@2": (2, 2, 1),
    "num_rel": (3, 1, 0),
    "num_rel_ret": (2, 1, 0),
    "num_rel_ret@3": (1, 1, 0),
    "num_nonrel_judged_ret": (2, 1, 1),
    "hits@2": (1, 1, 0),  # ranx hits: relevant documents in the top k (averaged)
    "hits": (2, 1, 0),
    "num_q": (1, 1, 1),
    # --- DCG family --------------------------------------------------------------------
    "dcg@5": (DCG_Q1, D(2), 0),
    "dcg": (DCG_Q1, D(2), 0),
    "dcg@1": (2, 0, 0),
    "dcg(gain=exp2)@5": (3 + D(4), D(2), 0),
    "ndcg@5": (DCG_Q1 / IDCG_Q1, D(2), 0),
    "ndcg": (DCG_Q1 / IDCG_Q1, D(2), 0),
    "ndcg_cut.5": (DCG_Q1 / IDCG_Q1, D(2), 0),
    "ndcg@2": (2 / (2 + D(2)), D(2), 0),  # ideal cut at 2
    "ndcg(ideal=full)@2": (2 / IDCG_Q1, D(2), 0),  # ideal not cut
    "ndcg(ideal=retrieved)@5": (DCG_Q1 / (2 + D(2)), D(2), 0),  # f is not retrieved
    "ndcg(ideal=retrieved)@2": (2 / (2 + D(2)), D(2), 0),
    "ndcg(gain=exp2)@5": ((3 + D(4)) / (3 + D(2) + D(3)), D(2), 0),
    "ndcg(gain={1:3,2:9})@5": ((9 + 3 * D(4)) / (9 + 3 * D(2) + 3 * D(3)), D(2), 0),
    # a mapping that inverts the grade order: the ideal list sorts the gains
    "ndcg(gain={2:1,1:5})@5": ((1 + 5 * D(4)) / (5 + 5 * D(2) + 1 * D(3)), D(2), 0),
    "cg@5": (3, 1, 0),
    "cg@1": (2, 0, 0),
    "cg(gain=exp2)@5": (4, 1, 0),
    # --- ERR: stop probability (2^g - 1) / 2^max_rel; max_rel = 4 by default (0-4 scale)
    # q1: R = 3/16, 0, 0, 1/16, 0 -> 3/16 + (1/4) (1/16) (1 - 3/16); q2: R = 0, 1/16
    "err": (3 / 16 + (1 / 4) * (1 / 16) * (13 / 16), (1 / 2) * (1 / 16), 0),
    "err@1": (3 / 16, 0, 0),
    # max_rel = 2: q1 R = 3/4, 0, 0, 1/4, 0 -> 3/4 + (1/4) (1/4) (1 - 3/4); q2 (1/2)(1/4)
    "err(max_rel=2)": (3 / 4 + 1 / 64, 1 / 8, 0),
    "err(max_rel=2)@1": (3 / 4, 0, 0),
    "err(max_rel=3)": (3 / 8 + (1 / 4) * (1 / 8) * (5 / 8), (1 / 2) * (1 / 8), 0),
    # --- trec_eval's own measures -------------------------------------------------------
    "relative_p@2": (1 / min(2, 3), 1 / min(2, 1), 0),
    "relative_p": (2 / min(5, 3), 1 / min(2, 1), 0),
    "set_map": (2 * 2 / (5 * 3), 1 / (2 * 1), 0),  # RR^2 / (n R)
    "rprec_mult@2": (2 / 6, 1 / 2, 0),  # c = floor(2 R + 0.9): 6, 2, 0
    "rprec_mult@0.5": (1 / 2, 0, 0),  # c = floor(R/2 + 0.9): 2, 1, 0
    # a RR + b (n - RR) + c (R - RR) + d (RR - n - R), defaults 1, -1, 0, 0
    "utility": (2 - 3, 1 - 1, 0 - 1),
    "utility(a=2)": (4 - 3, 2 - 1, 0 - 1),
    "utility(a=1,b=-1,c=-2,d=0.5)": (
        2 - 3 - 2 * 1 + 0.5 * (2 - 5 - 3),
        1 - 1 - 0 + 0.5 * (1 - 2 - 1),
        0 - 1 - 0 + 0.5 * (0 - 1 - 0),
    ),
    # infAP: q1 c at j=3: 1/4 + (3/4) ((1+1+0)/3) ((1+eps)/(2+2eps)) = 1/2
    # q2 g at j=1: 1/2 + (1/2) (1/1) (eps / (1 + 2 eps))
    "infap": ((1 + 0.5) / 3, 0.5 + 0.5 * EPS / (1 + 2 * EPS), 0),
    # binG: relevant at rank k with m relevant in the top k adds 1/log2(2 + k - m)
    "bing": ((1 + 1 / math.log2(2 + 4 - 2)) / 3, 1 / math.log2(2 + 2 - 1), 0),
    # G: q1 C_k = 2,3,4,5,6; S_k = 2,2,2,3,3 -> 2/log2(2) + 1/log2(2+5-3), over 4
    "g": ((2 / 1 + 1 / math.log2(4)) / 4, 1 / math.log2(3), 0),
    # ndcg_rel: q1 a -> DCG@1/IDCG@1 = 1; c -> DCG@4/IDCG@3; f unretrieved -> DCG@5/IDCG@3
    "ndcg_rel": ((1 + 2 * DCG_Q1 / IDCG_Q1) / 3, D(2), 0),
    # Rndcg: q1 ideal 2,1,1 -> boundaries b=1 and b=3; num_ret 5 > 3+1 adds DCG@5/IDCG@3
    "rndcg": ((2 / 2 + 2 / IDCG_Q1 + DCG_Q1 / IDCG_Q1) / 3, 0, 0),
    # RBP: q1 grades 0..2 leave [0, 1] -> rescaled to g/2: 1, 0, 0, 0.5, 0
    "rbp": (0.1 * (1 + 0.5 * 0.9**3), 0.1 * 0.9, 0),
    "rbp(p=0.5)": (0.5 * (1 + 0.5 * 0.5**3), 0.5 * 0.5, 0),
    "rbp@3": (0.1 * 1, 0.1 * 0.9, 0),
    # q1: x unjudged at rank 2 -> p^5 + (1-p) p; q2, q3 have nothing unjudged
    "rbp_resid": (0.9**5 + 0.1 * 0.9, 0, 0),
    "unj@2": (1 / 2, 0, 0),
    "unj": (1 / 5, 0, 0),
    "unj@10": (1 / 10, 0, 0),
}


@pytest.fixture(scope="module")
def main_result():
    return ev(QRELS, RUN, list(EXPECTED))


@pytest.mark.parametrize("metric", list(EXPECTED))
def test_hand_computed_per_query(main_result, metric):
    got = main_result.per_query(metric)
    want = dict(zip(("q1", "q2", "q3"), EXPECTED[metric], strict=True))
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


# families whose hand-computed values live in dedicated tests below
TESTED_ELSEWHERE = {"fcp", "kendall_tau", "spearman_rho", "gm_map", "gm_bpref"}
# the intent-aware metrics: tests/ranking/test_diversity.py
TESTED_ELSEWHERE |= {
    "alpha_ndcg",
    "alpha_dcg",
    "err_ia",
    "nerr_ia",
    "nrbp",
    "nnrbp",
    "map_ia",
    "p_ia",
    "strec",
    "ndcg_ia",
}
# by hand in tests/ranking/test_ir_measures_names.py
TESTED_ELSEWHERE |= {"judged", "compat"}
# the C/W/L measures: against cwl_eval's committed outputs (tests/ranking/test_reference_cwl.py)
# and their hand-worked doctests
TESTED_ELSEWHERE |= {d.name for d in CATALOGUE if d.name.startswith("cwl_")}


def test_every_registry_family_has_hand_computed_values():
    covered = {rl.get_metric(m).name for m in EXPECTED} | TESTED_ELSEWHERE
    ranking = {n for n, d in rl.REGISTRY.items() if d.domain == "ranking"}
    assert ranking <= covered, sorted(ranking - covered)


def test_aggregates_mean_sum_and_geometric_mean():
    res = ev(
        QRELS,
        RUN,
        [
            "p@5",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "num_q",
            "gm_map",
            "gm_bpref",
            "utility",
            "hits",
        ],
    )
    s = res.summary()
    assert s["hits"] == pytest.approx(3 / 3)  # averaged, unlike num_rel_ret
    assert s["p@5"] == pytest.approx((2 / 5 + 1 / 5 + 0) / 3)
    assert s["num_ret"] == 8  # summed over queries
    assert s["num_rel"] == 4
    assert s["num_rel_ret"] == 3
    assert s["num_q"] == 3
    assert s["utility"] == pytest.approx(-2 / 3)
    # geometric mean with trec_eval's floor 1e-5: AP = 0.5, 0.5, 0; bpref = 0.5, 0, 0
    assert s["gm_map"] == pytest.approx(math.exp((2 * math.log(0.5) + math.log(1e-5)) / 3))
    assert s["gm_bpref"] == pytest.approx(math.exp((math.log(0.5) + 2 * math.log(1e-5)) / 3))
    assert res.per_query("gm_map") == pytest.approx({"q1": 0.5, "q2": 0.5, "q3": 0.0})


def test_iprec_rounding_conventions():
    # q1: R=3, level 0.45: lround(1.35) = 1 -> 1.0; legacy floor(1.35 + 0.9) = 2 -> 0.5
    new = pq(QRELS, RUN, "iprec@0.45")
    old = pq(QRELS, RUN, "iprec@0.45", iprec_rounding="legacy")
    assert new["q1"] == 1.0
    assert old["q1"] == 0.5
    # q2: R=1: lround(0.45) = 0 (max precision anywhere), legacy floor(1.35) = 1: both 0.5
    assert new["q2"] == old["q2"] == 0.5


def test_iprec_at_recall_trec_name_matches_grammar():
    res = ev(QRELS, RUN, ["iprec_at_recall.0.50", "iprec@0.5"])
    assert res.per_query("iprec_at_recall.0.50") == res.per_query("iprec@0.5")


def test_infap_with_pooled_but_unjudged_document():
    # a negative grade is "pooled but unjudged" (u); ranking R, U(-1), N, R with R=2
    qrels = {"q": {"r1": 1, "u": -1, "n": 0, "r2": 1}}
    run = {"q": {"r1": 4.0, "u": 3.0, "n": 2.0, "r2": 1.0}}
    # r2 at j=3: rel=2, nr=1, u=1: 1/4 + (3/4) ((1+1+1)/3) ((1+eps)/(1+1+2 eps))
    term = 1 / 4 + (3 / 4) * (3 / 3) * ((1 + EPS) / (2 + 2 * EPS))
    assert pq(qrels, run, "infap")["q"] == pytest.approx((1 + term) / 2, rel=1e-12)
    # plain AP: (1 + 2/4) / 2
    assert pq(qrels, run, "ap")["q"] == pytest.approx(0.75)


def test_bpref_skips_unjudged_and_negative_grades():
    # ranking: U(not judged), -1 grade, N, R; R=1, N=1
    qrels = {"q": {"neg": -1, "n": 0, "r": 1}}
    run = {"q": {"u": 4.0, "neg": 3.0, "n": 2.0, "r": 1.0}}
    # one judged non-relevant above r: 1 - min(1, 1) / min(1, 1) = 0
    assert pq(qrels, run, "bpref")["q"] == 0.0
    run2 = {"q": {"u": 4.0, "neg": 3.0, "r": 2.0, "n": 1.0}}
    assert pq(qrels, run2, "bpref")["q"] == 1.0


def test_negative_grades_are_non_relevant_with_zero_gain():
    qrels = {"q": {"spam": -2, "good": 1}}
    run = {"q": {"spam": 2.0, "good": 1.0}}
    res = ev(qrels, run, ["p@1", "dcg@2", "ndcg@2", "num_rel", "num_nonrel_judged_ret", "unj"])
    assert res.per_query("p@1")["q"] == 0
    assert res.per_query("dcg@2")["q"] == pytest.approx(D(2))
    assert res.per_query("ndcg@2")["q"] == pytest.approx(D(2))
    assert res.per_query("num_rel")["q"] == 1
    # trec_eval counts a negative grade as pooled but unjudged
    assert res.per_query("num_nonrel_judged_ret")["q"] == 0
    assert res.per_query("unj")["q"] == 0.5


def test_g_measure_with_gain_mapping():
    # ranking grades 2, 1; mapping 2 -> 4: gains 4, 1; ideal 4, 1
    qrels = {"q": {"a": 2, "b": 1}}
    run = {"q": {"b": 2.0, "a": 1.0}}  # worst order: gains 1, 4
    # C_1 = 4, S_1 = 1 -> 1/log2(2 + 3); C_2 = 5, S_2 = 5 -> 4/log2(2)
    want = (1 / math.log2(5) + 4 / 1) / 5
    assert pq(qrels, run, "g(gain={2:4})")["q"] == pytest.approx(want)
    # the trec_eval spelling G.2=4
    assert pq(qrels, run, "G.2=4")["q"] == pytest.approx(want)


# ---------------------------------------------------------------------------------------
# ERR against a direct implementation of Chapelle et al.'s formula
# ---------------------------------------------------------------------------------------


def err_direct(grades: list[float], max_rel: float, k: int | None = None) -> float:
    total, stay = 0.0, 1.0
    for i, g in enumerate(grades[:k] if k else grades, start=1):
        r = (2 ** min(max(g, 0), max_rel) - 1) / 2**max_rel
        total += stay * r / i
        stay *= 1 - r
    return total


def test_err_matches_direct_formula_on_random_rankings():
    rng = random.Random(7)
    qrels, run, ranked = {}, {}, {}
    for qi in range(8):
        n = rng.randint(1, 9)
        grades = [rng.choice([-1, 0, 0, 1, 2, 3, 4]) for _ in range(n)]
        q = f"q{qi}"
        qrels[q] = {f"d{i}": g for i, g in enumerate(grades)}
        run[q] = {f"d{i}": float(n - i) for i in range(n)}  # ranked d0, d1, ...
        ranked[q] = grades
    res = ev(qrels, run, ["err", "err@3", "err(max_rel=6)@5"])
    for q, grades in ranked.items():
        # the default scale is 0..4 whatever grades the query has
        assert res.per_query("err")[q] == pytest.approx(err_direct(grades, 4), abs=1e-12)
        assert res.per_query("err@3")[q] == pytest.approx(err_direct(grades, 4, 3), abs=1e-12)
        assert res.per_query("err(max_rel=6)@5")[q] == pytest.approx(
            err_direct(grades, 6, 5), abs=1e-12
        )


def test_err_per_query_value_does_not_depend_on_other_queries():
    # the stopping probabilities use the fixed scale max_rel, not the grades of the
    # other queries evaluated together
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 3}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0}}
    both = pq(qrels, run, "err")
    alone = pq({"q1": qrels["q1"]}, {"q1": run["q1"]}, "err")
    assert both["q1"] == alone["q1"] == pytest.approx(1 / 16)
    assert both["q2"] == pytest.approx(7 / 16)


def test_err_grade_above_the_scale_is_an_error():
    with pytest.raises(
        rl.MetricParameterError,
        match=r"grade \(2\) exceeds max_rel=1.*"
        r"err\(max_rel=2\)",
    ):
        ev(QRELS, RUN, ["err(max_rel=1)"])
    with pytest.raises(rl.MetricParameterError, match=r"exceeds max_rel=4"):
        ev({"q": {"a": 5}}, {"q": {"a": 1.0}}, ["err@3"])


# ---------------------------------------------------------------------------------------
# Order agreement: FCP, Kendall's tau-b, Spearman's rho
# ---------------------------------------------------------------------------------------


def test_fcp_hand_computed():
    # q1 judged retrieved: a(2, .9) b(0, .7) c(1, .6) d(0, .5):
    # pairs of different grades: ab, ac, ad concordant; cb discordant; cd concordant
    res = ev(QRELS, RUN, ["fcp", "fcp(unjudged=zero)"])
    fcp = res.per_query("fcp")
    assert fcp["q1"] == pytest.approx(4 / 5)
    assert fcp["q2"] == 0.0  # h(0) above g(1)
    assert math.isnan(fcp["q3"])  # a single document: no pair
    assert res.summary()["fcp"] == pytest.approx((4 / 5 + 0) / 2)  # NaN left out
    # with the unjudged x as grade 0 (score .8): a-x concordant, x-c discordant
    assert res.per_query("fcp(unjudged=zero)")["q1"] == pytest.approx(5 / 7)


def test_fcp_score_ties():
    # grades a=2, b=1, c=0; scores a=b=1.0 (tie), c=0.5
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    # pairs: ab tied in score, ac concordant, bc concordant
    assert pq(qrels, run, "fcp")["q"] == pytest.approx(2 / 3)  # tie is discordant
    assert pq(qrels, run, "fcp(score_ties=ignore)")["q"] == pytest.approx(1.0)
    assert pq(qrels, run, "fcp(score_ties=half)")["q"] == pytest.approx(2.5 / 3)


ORDER_QRELS = {
    "q1": {"a": 3, "b": 1, "c": 2, "d": 0, "e": 1, "f": -1},
    "q2": {"a": 1, "b": 2, "c": 3, "d": 4},
    "q3": {"a": 2, "b": 2, "c": 0, "d": 1, "e": 0},
}
ORDER_RUN = {
    "q1": {"a": 0.5, "b": 0.9, "c": 0.5, "d": 0.1, "e": 0.3, "f": 0.2, "u": 0.7},
    "q2": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0, "u": 9.0},
    "q3": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 2.0, "e": 0.0, "u": 1.0, "v": -1.0},
}


@pytest.mark.parametrize("unjudged", ["skip", "zero"])
def test_kendall_and_spearman_match_scipy(unjudged):
    stats = pytest.importorskip("scipy.stats")
    res = ev(
        ORDER_QRELS,
        ORDER_RUN,
        [f"kendall_tau(unjudged={unjudged})", f"spearman_rho(unjudged={unjudged})"],
    )
    for q, run in ORDER_RUN.items():
        docs = [d for d in run if unjudged == "zero" or d in ORDER_QRELS[q]]
        scores = [run[d] for d in docs]
        grades = [ORDER_QRELS[q].get(d, 0) for d in docs]
        tau = stats.kendalltau(scores, grades).statistic
        rho = stats.spearmanr(scores, grades).statistic
        assert res.per_query(f"kendall_tau(unjudged={unjudged})")[q] == pytest.approx(
            tau, abs=1e-12
        ), q
        assert res.per_query(f"spearman_rho(unjudged={unjudged})")[q] == pytest.approx(
            rho, abs=1e-12
        ), q


def test_kendall_and_spearman_nan_when_one_side_is_constant():
    qrels = {"q1": {"a": 1, "b": 1, "c": 1}, "q2": {"a": 0, "b": 1}}
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 1.0, "b": 1.0}}
    res = ev(qrels, run, ["kendall_tau", "spearman_rho"])
    for m in ("kendall_tau", "spearman_rho"):
        assert all(math.isnan(v) for v in res.per_query(m).values()), m
        assert math.isnan(res.summary()[m])


def test_kendall_tau_perfect_and_reversed():
    qrels = {"q": {"a": 3, "b": 2, "c": 1, "d": 0}}
    up = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    down = {"q": {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0}}
    assert pq(qrels, up, "kendall_tau")["q"] == pytest.approx(1.0)
    assert pq(qrels, down, "kendall_tau")["q"] == pytest.approx(-1.0)
    assert pq(qrels, up, "spearman_rho")["q"] == pytest.approx(1.0)
    assert pq(qrels, down, "spearman_rho")["q"] == pytest.approx(-1.0)


# ---------------------------------------------------------------------------------------
# Tie policies
# ---------------------------------------------------------------------------------------

# four tied documents; rows in the order a, b, c, d; a and c relevant
TIE_QRELS = {"t": {"a": 1, "b": 0, "c": 1, "d": 0}}
TIE_RUN = {"t": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.5}}


@pytest.mark.parametrize(
    ("ties", "p1", "rr", "ap"),
    [
        ("trec", 0, 1 / 2, (1 / 2 + 2 / 4) / 2),  # doc id descending: d c b a -> 0 1 0 1
        ("input", 1, 1, (1 + 2 / 3) / 2),  # row order: a b c d -> 1 0 1 0
        ("optimistic", 1, 1, 1),  # relevant first: c a d b -> 1 1 0 0
        ("pessimistic", 0, 1 / 3, (1 / 3 + 2 / 4) / 2),  # d b c a -> 0 0 1 1
        # expected: P(first relevant at 1, 2, 3) = 1/2, 1/3, 1/6;
        # AP terms (r/g + t r(r-1)/(g(g-1))) / i for i = 1..4 with r=2, g=4
        (
            "expected",
            1 / 2,
            1 / 2 + (1 / 3) / 2 + (1 / 6) / 3,
            (1 / 2 + (1 / 2 + 1 / 6) / 2 + (1 / 2 + 2 / 6) / 3 + (1 / 2 + 3 / 6) / 4) / 2,
        ),
    ],
)
def test_tie_policies_hand_computed(ties, p1, rr, ap):
    res = ev(TIE_QRELS, TIE_RUN, ["p@1", "rr", "ap"], ties=ties)
    assert res.per_query("p@1")["t"] == pytest.approx(p1)
    assert res.per_query("rr")["t"] == pytest.approx(rr)
    assert res.per_query("ap")["t"] == pytest.approx(ap)


def test_tie_policy_as_metric_parameter_overrides_convention():
    res = ev(
        TIE_QRELS,
        TIE_RUN,
        ["p@1", "p(ties=optimistic)@1", "p(ties=pessimistic)@1"],
        ties="expected",
    )
    assert res.per_query("p@1")["t"] == pytest.approx(0.5)
    assert res.per_query("p(ties=optimistic)@1")["t"] == 1.0
    assert res.per_query("p(ties=pessimistic)@1")["t"] == 0.0


def test_trec_ties_use_byte_order_of_ids_descending():
    # 'a' (97) > 'B' (66) and '9' > '10' in byte order
    qrels = {"q1": {"a": 1, "B": 0}, "q2": {"10": 1, "9": 0}, "q3": {"é": 1, "z": 0}}
    run = {"q1": {"B": 1.0, "a": 1.0}, "q2": {"10": 1.0, "9": 1.0}, "q3": {"z": 1.0, "é": 1.0}}
    got = pq(qrels, run, "p@1")
    assert got == {"q1": 1.0, "q2": 0.0, "q3": 1.0}  # 'é' (UTF-8 0xC3..) sorts after 'z'


def test_optimistic_and_pessimistic_use_grades():
    qrels = {"q": {"a": 2, "b": 1, "c": 0}}
    run = {"q": {"c": 1.0, "b": 1.0, "a": 1.0}}
    # optimistic: a(2), b(1), c(0); pessimistic: c, b, a
    assert pq(qrels, run, "dcg@3", ties="optimistic")["q"] == pytest.approx(2 + D(2))
    assert pq(qrels, run, "dcg@3", ties="pessimistic")["q"] == pytest.approx(D(2) + 2 * D(3))
    assert pq(qrels, run, "ndcg@3", ties="optimistic")["q"] == pytest.approx(1.0)


def test_ties_only_reorder_equal_scores():
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 2.0}}
    for ties in ("trec", "input", "optimistic", "pessimistic", "expected"):
        assert pq(qrels, run, "p@1", ties=ties)["q"] == 1.0, ties


# --- expected ties against brute force ---------------------------------------------------

BRUTE_METRICS = [
    "p@1",
    "p@2",
    "p@3",
    "p",
    "r@2",
    "r",
    "f1@2",
    "ndcg@2",
    "ndcg@4",
    "ndcg(gain=exp2)@3",
    "ndcg(ideal=retrieved)@2",
    "ndcg(ideal=full)@2",
    "dcg@2",
    "dcg@3",
    "cg@2",
    "ap",
    "ap@2",
    "ap@3",
    "ap(norm=min_r_k)@2",
    "ap(norm=retrieved)",
    "rr",
    "rr@2",
    "success@1",
    "success@2",
    "arhr@2",
    "arhr",
    "rprec",
]


def orderings(scores: dict[str, float]):
    """Every order of the documents consistent with descending scores."""
    groups: dict[float, list[str]] = {}
    for d, s in scores.items():
        groups.setdefault(s, []).append(d)
    blocks = [list(itertools.permutations(groups[s])) for s in sorted(groups, reverse=True)]
    for combo in itertools.product(*blocks):
        yield [d for block in combo for d in block]


def brute_force_expected(qrels: dict[str, float], scores: dict[str, float], metrics):
    """Average of each metric over every tie order, with ties='input' on permuted runs.

    All orders are evaluated in one call: one query per order.
    """
    big_qrels, big_run = {}, {}
    for i, order in enumerate(orderings(scores)):
        q = f"o{i:05d}"
        big_qrels[q] = dict(qrels)
        big_run[q] = {d: scores[d] for d in order}  # dict order = row order
    res = ev(big_qrels, big_run, metrics, ties="input")
    return {m: float(np.mean(list(res.per_query(m).values()))) for m in metrics}


TIE_CASES = [
    # (qrels, scores)
    ({"a": 1, "b": 0, "c": 2, "d": 1, "e": 0}, {"a": 0.9, "b": 0.5, "c": 0.5, "d": 0.5, "e": 0.1}),
    (TIE_QRELS["t"], TIE_RUN["t"]),
    ({"a": 1, "b": 0, "c": 1, "z": 1}, {"a": 1.0, "b": 1.0, "c": 0.0, "u": 1.0}),
    ({"a": 0, "b": 0, "c": 3, "d": -1}, {"a": 2.0, "b": 1.0, "c": 1.0, "d": 1.0, "u": 0.0}),
    ({"a": 2, "b": 1}, {"a": 1.0, "b": 1.0, "u": 1.0, "v": 0.5, "w": 0.5}),
]


def _random_tie_cases(n: int, seed: int):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        k = rng.randint(2, 6)
        docs = [f"d{i}" for i in range(k)]
        qrels = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in docs if rng.random() < 0.85}
        qrels["missing"] = 1  # a relevant document that is never retrieved
        scores = {d: float(rng.choice([1, 2, 3])) for d in docs}
        if (
            math.prod(
                math.factorial(c) for c in np.unique(list(scores.values()), return_counts=True)[1]
            )
            <= 120
        ):
            out.append((qrels, scores))
    return out


@pytest.mark.parametrize(("qrels", "scores"), TIE_CASES + _random_tie_cases(25, seed=11))
def test_expected_ties_equal_brute_force_average(qrels, scores):
    brute = brute_force_expected(qrels, scores, BRUTE_METRICS)
    res = ev({"q": qrels}, {"q": scores}, BRUTE_METRICS, ties="expected")
    for m in BRUTE_METRICS:
        assert res.per_query(m)["q"] == pytest.approx(brute[m], abs=1e-12), m


def test_expected_ties_ap_norm_retrieved_at_k_is_rejected():
    # The normaliser of ap(norm=retrieved)@k (relevant documents in the top k) is random
    # when a tie group straddles rank k, so E[AP] is not E[sum] / E[normaliser]: one
    # relevant among three tied documents at k=1 has expectation 1/3 (brute force), the
    # ratio of expectations would say 1.  ranklens refuses the combination.
    qrels = {"a": 1, "b": 0, "c": 0}
    scores = {"a": 1.0, "b": 1.0, "c": 1.0}
    assert brute_force_expected(qrels, scores, ["ap(norm=retrieved)@1"])[
        "ap(norm=retrieved)@1"
    ] == pytest.approx(1 / 3)
    with pytest.raises(rl.UnsupportedError, match=r"norm=retrieved.*ties=expected"):
        ev({"q": qrels}, {"q": scores}, ["ap(norm=retrieved)@1"], ties="expected")
    # without a cutoff the normaliser is fixed and the expectation is exact
    assert brute_force_expected(qrels, scores, ["ap(norm=retrieved)"])[
        "ap(norm=retrieved)"
    ] == pytest.approx(pq({"q": qrels}, {"q": scores}, "ap(norm=retrieved)", ties="expected")["q"])


def test_expected_ties_rejected_where_undefined():
    for metric in (
        "err@5",
        "bpref",
        "mar@3",
        "iprec@0.5",
        "fcp",
        "kendall_tau",
        "rbp",
        "infap",
        "11pt_avg",
        "ap(norm=retrieved)@3",
    ):
        with pytest.raises(rl.UnsupportedError, match="expected"):
            ev(QRELS, RUN, [metric], ties="expected")


# --- grouped ties (scikit-learn's threshold view of AP) --------------------------------------

GROUPED_QRELS = {
    "q1": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 2},
    "q2": {"a": 0, "b": 1, "c": 0, "d": 1},
    "q3": {"a": 1, "b": 0, "z": 1},
}
GROUPED_RUN = {
    "q1": {"a": 0.8, "b": 0.8, "c": 0.5, "d": 0.5, "e": 0.5, "u": 0.9},
    "q2": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.0},
    "q3": {"a": 0.3, "b": 0.7, "u": 0.7, "v": 0.1},
}


def test_grouped_ap_matches_sklearn_average_precision_score():
    skm = pytest.importorskip("sklearn.metrics")
    res = ev(
        GROUPED_QRELS, GROUPED_RUN, ["ap(ties=grouped,norm=retrieved)", "ap"], profile="sklearn"
    )
    for q, run in GROUPED_RUN.items():
        docs = list(run)
        y = [1 if GROUPED_QRELS[q].get(d, 0) >= 1 else 0 for d in docs]
        want = skm.average_precision_score(y, [run[d] for d in docs])
        assert res.per_query("ap(ties=grouped,norm=retrieved)")[q] == pytest.approx(want), q
        # the sklearn profile makes plain "ap" the same thing
        assert res.per_query("ap")[q] == pytest.approx(want), q


def test_grouped_ap_hand_computed():
    # q2: group {a, b, c} holds 1 relevant; at its end precision is 1/3; then d at rank 4
    # with 2/4 -> (1/3 + 2/4) / 2
    got = pq(GROUPED_QRELS, GROUPED_RUN, "ap(ties=grouped)")
    assert got["q2"] == pytest.approx((1 / 3 + 2 / 4) / 2)
    # with a cutoff inside the group: the group ends at rank k=2 -> (1/2) / 2
    assert pq(GROUPED_QRELS, GROUPED_RUN, "ap(ties=grouped)@2")["q2"] == pytest.approx(1 / 4)


def test_sklearn_profile_plain_ndcg_and_map_follow_the_profile():
    # plain names the grammar knows ("ndcg", "map") keep the grammar's meaning, so the
    # profile's defaults apply to them (they are not trec_eval names with pinned params)
    skm = pytest.importorskip("sklearn.metrics")
    res = ev(GROUPED_QRELS, GROUPED_RUN, ["ndcg", "map", "ap"], profile="sklearn")
    assert res.per_query("map") == res.per_query("ap")
    for q, run in GROUPED_RUN.items():
        docs = list(run)
        y = np.array([[max(GROUPED_QRELS[q].get(d, 0), 0) for d in docs]])
        s = np.array([[run[d] for d in docs]])
        assert res.per_query("ndcg")[q] == pytest.approx(skm.ndcg_score(y, s)), q


def test_sklearn_profile_ndcg_matches_sklearn_ndcg_score():
    skm = pytest.importorskip("sklearn.metrics")
    res = ev(GROUPED_QRELS, GROUPED_RUN, ["ndcg@3", "dcg@3"], profile="sklearn")
    for q, run in GROUPED_RUN.items():
        docs = list(run)
        y = np.array([[max(GROUPED_QRELS[q].get(d, 0), 0) for d in docs]])
        s = np.array([[run[d] for d in docs]])
        assert res.per_query("ndcg@3")[q] == pytest.approx(skm.ndcg_score(y, s, k=3)), q
        assert res.per_query("dcg@3")[q] == pytest.approx(skm.dcg_score(y, s, k=3)), q


# ---------------------------------------------------------------------------------------
# Conventions
# ---------------------------------------------------------------------------------------

CONV_QRELS = {
    "q1": {"a": 2, "b": 0, "c": 1},
    "q2": {"d": 1},  # not in the run
    "q3": {"e": 0},  # no relevant judgment
}
CONV_RUN = {"q1": {"a": 1.0, "b": 0.5, "c": 0.2}, "q3": {"e": 1.0}}


def test_missing_skip_is_the_default():
    res = ev(CONV_QRELS, CONV_RUN, ["p@1", "ap"])
    assert res.per_query("p@1") == {"q1": 1.0, "q3": 0.0}
    assert res.summary()["p@1"] == pytest.approx(0.5)
    assert res.report["qrels_queries_missing_from_run"] == 1


def test_missing_zero_scores_absent_queries_zero():
    res = ev(CONV_QRELS, CONV_RUN, ["p@1", "ap", "ndcg@3", "num_ret", "err"], missing="zero")
    assert res.per_query("p@1") == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert res.per_query("ap")["q2"] == 0.0
    assert res.per_query("ndcg@3")["q2"] == 0.0
    assert res.per_query("num_ret")["q2"] == 0.0
    assert res.summary()["p@1"] == pytest.approx(1 / 3)


def test_missing_error_names_the_queries():
    with pytest.raises(rl.InputError, match=r"'q2'.*missing='zero'"):
        ev(CONV_QRELS, CONV_RUN, ["p@1"], missing="error")


def test_no_relevant_policies():
    zero = ev(CONV_QRELS, CONV_RUN, ["p@1", "ndcg@2"], no_relevant="zero")
    assert zero.per_query("p@1") == {"q1": 1.0, "q3": 0.0}
    skip = ev(CONV_QRELS, CONV_RUN, ["p@1", "ndcg@2"], no_relevant="skip")
    assert skip.per_query("p@1") == {"q1": 1.0}
    assert skip.summary()["p@1"] == 1.0
    nan = ev(CONV_QRELS, CONV_RUN, ["p@1", "ndcg@2"], no_relevant="nan")
    assert nan.per_query("p@1")["q1"] == 1.0
    assert math.isnan(nan.per_query("p@1")["q3"])
    assert math.isnan(nan.per_query("ndcg@2")["q3"])
    assert nan.summary()["p@1"] == 1.0  # NaN left out of the mean
    with pytest.raises(rl.InputError, match=r"'q3'.*no_relevant="):
        ev(CONV_QRELS, CONV_RUN, ["p@1"], no_relevant="error")


def test_rel_threshold_and_rel_parameter():
    # at threshold 2 only a is relevant in q1; q3 stays without relevant documents
    res = ev(CONV_QRELS, CONV_RUN, ["p@3", "r@3", "ap", "p(rel=2)@3", "ndcg@3"], rel_threshold=2)
    assert res.per_query("p@3")["q1"] == pytest.approx(1 / 3)
    assert res.per_query("r@3")["q1"] == 1.0
    assert res.per_query("ap")["q1"] == 1.0
    # graded metrics use the grade itself, not the threshold
    assert res.per_query("ndcg@3")["q1"] == pytest.approx((2 + D(3)) / (2 + D(2)))
    default = ev(CONV_QRELS, CONV_RUN, ["p@3", "p(rel=2)@3"])
    assert default.per_query("p@3")["q1"] == pytest.approx(2 / 3)
    assert default.per_query("p(rel=2)@3")["q1"] == pytest.approx(1 / 3)


def test_depth_keeps_the_first_documents():
    res = ev(CONV_QRELS, CONV_RUN, ["p@3", "num_ret", "r"], depth=2)
    assert res.per_query("p@3")["q1"] == pytest.approx(1 / 3)  # c (rank 3) cut away
    assert res.per_query("num_ret")["q1"] == 2
    assert res.per_query("r")["q1"] == pytest.approx(1 / 2)
    assert res.report["rows_beyond_depth"] == 1
    assert res.conventions.depth == 2


def test_score_precision_float32_turns_near_ties_into_ties():
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}  # distinct in float64, equal in float32
    assert pq(qrels, run, "p@1")["q"] == 1.0
    # a tie: trec order puts 'b' (higher id) first
    assert pq(qrels, run, "p@1", score_precision="float32")["q"] == 0.0
    assert pq(qrels, run, "p@1", profile="pytrec_eval")["q"] == 0.0
    assert pq(qrels, run, "p@1", score_precision="float32", ties="expected")["q"] == 0.5


def test_ranx_profile_scores_missing_queries_zero():
    res = ev(CONV_QRELS, CONV_RUN, ["p@1"], profile="ranx")
    assert res.per_query("p@1") == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert res.conventions.profile == "ranx"
    assert res.conventions.missing == "zero"


def test_keyword_overrides_profile():
    res = ev(CONV_QRELS, CONV_RUN, ["p@1"], profile="ranx", missing="skip")
    assert res.per_query("p@1") == {"q1": 1.0, "q3": 0.0}
    assert res.conventions.missing == "skip"
    assert res.conventions.profile == "ranx"


def test_conventions_object():
    conv = rl.Conventions(ties="optimistic", missing="zero")
    res = ev(TIE_QRELS, TIE_RUN, ["p@2"], conventions=conv)
    assert res.per_query("p@2")["t"] == 1.0
    assert res.conventions == conv


def test_trec_name_pins_its_parameters_against_profiles():
    # under the sklearn profile plain ndcg uses the retrieved documents' ideal,
    # trec_eval's ndcg_cut keeps the full judgments' ideal (f is relevant, not retrieved)
    res = ev(QRELS, RUN, ["ndcg@5", "ndcg_cut.5"], profile="sklearn", ties="trec")
    assert res.per_query("ndcg@5")["q1"] == pytest.approx(DCG_Q1 / (2 + D(2)))
    assert res.per_query("ndcg_cut.5")["q1"] == pytest.approx(DCG_Q1 / IDCG_Q1)


# ---------------------------------------------------------------------------------------
# The result object
# ---------------------------------------------------------------------------------------


def test_summary_keys_keep_the_users_spelling():
    names = ["P.5", "NDCG@2", "map", "ndcg_cut.2", "Recip_Rank", "p@5"]
    res = ev(QRELS, RUN, names)
    assert list(res.summary()) == names
    assert res.metrics == tuple(names)
    assert res.summary()["P.5"] == res.summary()["p@5"]
    # lookup by an equivalent spelling
    assert res["P_5"] == res["p@5"] == pytest.approx((2 / 5 + 1 / 5) / 3)
    assert res.per_query("recip_rank") == res.per_query("Recip_Rank")
    with pytest.raises(rl.MetricNameError, match="was not evaluated"):
        res["r@5"]


def test_metric_objects_are_accepted():
    m = rl.get_metric("ndcg(gain=exp2)@5")
    res = rl.evaluate(rl.Qrels.from_dict(QRELS), rl.Run.from_dict(RUN), m)
    assert list(res.summary()) == ["ndcg(gain=exp2)@5"]
    assert res.per_query(str(m))["q1"] == pytest.approx((3 + D(4)) / (3 + D(2) + D(3)))


def test_single_metric_string():
    res = rl.evaluate(rl.Qrels.from_dict(QRELS), rl.Run.from_dict(RUN), "p@2")
    assert res.summary() == {"p@2": pytest.approx(1 / 3)}


def test_per_query_is_a_mapping_in_sorted_id_order():
    qrels = {"q10": {"a": 1}, "q2": {"a": 1}, "q1": {"a": 0}}
    run = {"q2": {"a": 1.0}, "q10": {"b": 1.0}, "q1": {"a": 1.0}}
    res = ev(qrels, run, ["p@1", "r@1"])
    assert list(res.per_query("p@1")) == ["q1", "q10", "q2"]
    assert res.query_ids == ("q1", "q10", "q2")
    assert res.per_query("p@1") == {"q1": 0.0, "q10": 0.0, "q2": 1.0}
    assert res.per_query_all() == {"p@1": res.per_query("p@1"), "r@1": res.per_query("r@1")}


def test_values_are_read_only():
    res = ev(QRELS, RUN, ["p@2"])
    with pytest.raises(ValueError, match="read-only"):
        res.values["p@2"][0] = 5.0


def test_to_frame():
    pytest.importorskip("pandas")
    res = ev(QRELS, RUN, ["p@2", "NDCG@5"])
    df = res.to_frame()
    assert list(df.columns) == ["p@2", "NDCG@5"]
    assert list(df.index) == ["q1", "q2", "q3"]
    assert df.index.name == "query"
    assert df.loc["q1", "p@2"] == 0.5
    assert df.loc["q1", "NDCG@5"] == pytest.approx(DCG_Q1 / IDCG_Q1)
    table = res.to_arrow()
    assert table.column_names == ["query", "p@2", "NDCG@5"]


def test_result_records_conventions():
    res = ev(QRELS, RUN, ["p@2"], profile="pytrec_eval", ties="input")
    c = res.conventions
    assert (c.profile, c.ties, c.score_precision, c.iprec_rounding) == (
        "pytrec_eval",
        "input",
        "float32",
        "legacy",
    )
    default = ev(QRELS, RUN, ["p@2"]).conventions
    assert default == rl.Conventions()
    assert (
        default.ties,
        default.missing,
        default.no_relevant,
        default.rel_threshold,
        default.depth,
    ) == ("trec", "skip", "zero", 1, None)
    assert rl.PROFILES["sklearn"].metric_defaults["ndcg"] == {"ideal": "retrieved"}


def test_report_counts():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"d": 0}, "q4": {"e": 1}}
    run = {
        "q1": {"a": 3.0, "b": 2.0, "z": 1.0},
        "q3": {"d": 1.0},
        "q4": {"e": 1.0},
        "extra": {"a": 1.0, "b": 2.0},  # no judgments
    }
    with pytest.warns(rl.RanklensWarning, match=r"1 run queries have no judgments.*2 rows"):
        res = ev(qrels, run, ["p@1"], depth=2)
    assert res.report == {
        "run_queries_without_judgments": 1,
        "run_rows_without_judged_query": 2,
        "rows_beyond_depth": 1,  # z in q1
        "qrels_queries_missing_from_run": 1,  # q2
        "run_queries_matched": 3,  # q1, q3, q4
        "queries_without_relevant": 1,  # q3
        "queries_evaluated": 3,
    }
    with pytest.warns(rl.RanklensWarning):
        skip = ev(qrels, run, ["p@1"], no_relevant="skip", missing="zero")
    assert skip.report["queries_evaluated"] == 3  # q1, q2, q4
    assert skip.query_ids == ("q1", "q2", "q4")
    assert skip.report["queries_without_relevant"] == 1


def test_run_name_is_kept():
    res = rl.evaluate(rl.Qrels.from_dict(QRELS), rl.Run.from_dict(RUN, name="bm25"), ["p@1"])
    assert res.run_name == "bm25"
    assert repr(res) == f"<Result 3 queries: p@1={(1 + 0 + 0) / 3:.4f}>"


def test_rectools_normalisers_by_hand() -> None:
    # one relevant document at rank 2 of 3, two relevant judgments in all
    qrels = rl.Qrels.from_dict({"q": {"b": 1, "z": 1}})
    run = rl.Run.from_dict({"q": {"a": 0.9, "b": 0.8, "c": 0.7}})
    res = rl.evaluate(qrels, run, ["ndcg(ideal=k)@3", "ap(norm=k)@3", "ndcg@3"])
    idcg_k = 1 + 1 / math.log2(3) + 1 / math.log2(4)  # three positions of gain 1
    assert res.summary()["ndcg(ideal=k)@3"] == pytest.approx((1 / math.log2(3)) / idcg_k)
    assert res.summary()["ap(norm=k)@3"] == pytest.approx((1 / 2) / 3)
    assert res.summary()["ndcg@3"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    prof = rl.evaluate(qrels, run, ["ndcg@3"], profile="rectools").summary()["ndcg@3"]
    assert prof == pytest.approx((1 / math.log2(3)) / idcg_k)
    with pytest.raises(rl.MetricParameterError, match="needs a cutoff"):
        rl.evaluate(qrels, run, ["ndcg(ideal=k)"])
    with pytest.raises(rl.MetricParameterError, match="needs a cutoff"):
        rl.evaluate(qrels, run, ["ap(norm=k)"])


def test_unjudged_queries_skipped_or_scored_zero() -> None:
    qrels = rl.Qrels.from_dict({"q1": {"a": 1}, "q3": {"c": 1}})
    run = rl.Run.from_dict({"q1": {"a": 1.0}, "q2": {"b": 1.0}, "q0": {"x": 2.0}})
    with pytest.warns(rl.RanklensWarning, match=r"2 run queries have no judgments"):
        skipped = rl.evaluate(qrels, run, ["map", "num_ret"])
    assert skipped.query_ids == ("q1",)
    zero = rl.evaluate(qrels, run, ["map", "num_ret"], unjudged="zero", missing="zero")
    assert zero.query_ids == ("q0", "q1", "q2", "q3")
    assert zero.per_query("map") == {"q0": 0.0, "q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert zero.per_query("num_ret") == {"q0": 0.0, "q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert zero.report["run_queries_scored_zero_without_judgments"] == 2
    assert zero.report["queries_evaluated"] == 4
    assert zero.conventions.unjudged == "zero"
    with pytest.raises(rl.ConventionError, match="unjudged='nan' is not a known convention"):
        rl.evaluate(qrels, run, ["map"], unjudged="nan")


def test_rank_correlation_unjudged_old_spelling_warns() -> None:
    """``unjudged=exclude`` is the deprecated spelling of ``skip`` (one name per policy,
    as the ``unjudged`` convention spells it)."""
    q = rl.Qrels.from_dict({"q": {"a": 2, "b": 1, "c": 0}})
    r = rl.Run.from_dict({"q": {"a": 1.0, "b": 3.0, "x": 2.0}})
    want = rl.evaluate(q, r, ["kendall_tau(unjudged=skip)"]).summary()
    with pytest.warns(rl.RanklensDeprecationWarning, match="pass unjudged='skip'"):
        got = rl.evaluate(q, r, ["kendall_tau(unjudged=exclude)"]).summary()
    assert list(got.values()) == list(want.values()) == [-1.0]
