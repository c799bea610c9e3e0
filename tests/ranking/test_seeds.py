"""The worked ranking examples of the seed documents (../shared/seeds), reproduced
through the public API.

Each test names its seed and example.  Where a seed slipped (an arithmetic
error, a truncated value, a sum written as a mean, an ascending sort) the
test checks the correct value and says what the slip was; the seed's printed
numbers are checked as well where they are right up to their rounding.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import ranklens as rl


def ev(qrels, run, metrics, **kw):
    return rl.evaluate(rl.Qrels.from_dict(qrels), rl.Run.from_dict(run), metrics, **kw)


def one(qrels, run, metric, **kw):
    """The value of ``metric`` for the only query ``q``."""
    return ev({"q": qrels}, {"q": run}, [metric], **kw).per_query(metric)["q"]


def D(i: int) -> float:
    """The DCG discount 1 / log2(i + 1) at 1-based rank i."""
    return 1.0 / math.log2(i + 1)


def ranked(labels, prefix="d"):
    """qrels and run for a list already in rank order: doc i gets score n - i."""
    n = len(labels)
    qrels = {f"{prefix}{i}": g for i, g in enumerate(labels)}
    run = {f"{prefix}{i}": float(n - i) for i in range(n)}
    return qrels, run


# =========================================================================================
# seed 002: the eight-document example (IDs 0..7)
# =========================================================================================

# ID -> label, and the predicted scores of the sorted table
S002_LABELS = {"0": 1, "1": 0, "2": 1, "3": 0, "4": 0, "5": 1, "6": 1, "7": 0}
S002_SCORES = {
    "6": 0.9,
    "3": 0.85,
    "5": 0.71,
    "0": 0.63,
    "4": 0.47,
    "2": 0.36,
    "1": 0.24,
    "7": 0.16,
}
# relevance in rank order: 1 0 1 1 0 1 0 0 (4 relevant)
S002_HITS = [1, 0, 1, 1, 0, 1, 0, 0]


def s002(metrics, **kw):
    return ev({"q": S002_LABELS}, {"q": S002_SCORES}, metrics, **kw)


# precision@k table; the seed prints 2/3 as 0.66 and 4/6 as 0.66 (truncated, not rounded)
S002_P_TABLE = [1, 0.5, 0.66, 0.75, 0.60, 0.66, 0.57, 0.50]


@pytest.mark.parametrize("k", range(1, 9))
def test_seed002_precision_at_k_table(k):
    got = s002([f"p@{k}"]).per_query(f"p@{k}")["q"]
    assert got == pytest.approx(sum(S002_HITS[:k]) / k)
    assert got == pytest.approx(S002_P_TABLE[k - 1], abs=0.01)


def test_seed002_precision_at_4_is_three_quarters():
    assert s002(["p@4"]).summary()["p@4"] == 0.75


# recall@k table (the seed's column is headed "precision @k" by a copy slip; it is recall)
S002_R_TABLE = [0.25, 0.25, 0.5, 0.75, 0.75, 1, 1, 1]


@pytest.mark.parametrize("k", range(1, 9))
def test_seed002_recall_at_k_table(k):
    got = s002([f"r@{k}"]).per_query(f"r@{k}")["q"]
    assert got == pytest.approx(S002_R_TABLE[k - 1])
    assert got == pytest.approx(sum(S002_HITS[:k]) / 4)


def test_seed002_f1_at_4():
    # 2 * 0.75 * 0.75 / (0.75 + 0.75) = 0.75
    assert s002(["f1@4"]).summary()["f1@4"] == pytest.approx(0.75)


def test_seed002_average_precision():
    # Slip in the seed: the running sum after rank 3 is 1 + 2/3 = 1.667, not 1.8; it then
    # carries on to 2.55 and 3.22 and prints AP = 3.22/4 = 0.8.  The exact value is
    # (1 + 2/3 + 3/4 + 4/6) / 4 = 37/48 = 0.7708.
    exact = float((1 + Fraction(2, 3) + Fraction(3, 4) + Fraction(4, 6)) / 4)
    assert exact == pytest.approx(37 / 48)
    res = s002(["ap", "map", "ap(norm=retrieved)", "AP"])
    for m in ("ap", "map", "ap(norm=retrieved)", "AP"):
        assert res.summary()[m] == pytest.approx(exact), m
    # the seed divides by CorrectPredictions (relevant retrieved); here that is R = 4 too
    assert res.summary()["ap"] != pytest.approx(0.8, abs=0.01)


# DCG@k with gain 2^rel - 1, as printed: 1, 1, 1.5, 1.93, 1.93, 2.29, 2.29, 2.29
S002_DCG_TABLE = [1, 1, 1.5, 1.93, 1.93, 2.29, 2.29, 2.29]


@pytest.mark.parametrize("k", range(1, 9))
def test_seed002_dcg_exp2_table(k):
    exact = sum(D(i) for i in range(1, k + 1) if S002_HITS[i - 1])
    got = s002([f"dcg(gain=exp2)@{k}", f"dcg@{k}"]).per_query(f"dcg(gain=exp2)@{k}")["q"]
    assert got == pytest.approx(exact)
    assert got == pytest.approx(S002_DCG_TABLE[k - 1], abs=0.005)
    # with binary relevance 2^rel - 1 = rel, so the linear gain gives the same DCG
    assert s002([f"dcg@{k}"]).per_query(f"dcg@{k}")["q"] == pytest.approx(exact)


# NDCG@k table: IDCG 1, 1.63, 2.13, 2.56, 2.56, ...; NDCG 1, 0.61, 0.7, 0.75, 0.75, 0.89...
S002_IDCG_TABLE = [1, 1.63, 2.13, 2.56, 2.56, 2.56, 2.56, 2.56]
S002_NDCG_TABLE = [1, 0.61, 0.7, 0.75, 0.75, 0.89, 0.89, 0.89]


@pytest.mark.parametrize("k", range(1, 9))
def test_seed002_ndcg_table(k):
    # The seed's IDCG@k is the DCG of the best order of the (here: all) retrieved documents
    # cut at k.  Every judged document is retrieved, so ranklens' ideal=cut (every
    # judgment, ideal list cut at k; the default) and ideal=retrieved (the retrieved
    # documents, cut at k) both reproduce it; ideal=full (ideal list not cut) does not.
    idcg = sum(D(i) for i in range(1, min(k, 4) + 1))
    assert idcg == pytest.approx(S002_IDCG_TABLE[k - 1], abs=0.005)
    dcg = sum(D(i) for i in range(1, k + 1) if S002_HITS[i - 1])
    names = [
        f"ndcg(gain=exp2)@{k}",
        f"ndcg(gain=exp2,ideal=retrieved)@{k}",
        f"ndcg(gain=exp2,ideal=full)@{k}",
        f"ndcg@{k}",
    ]
    res = s002(names).summary()
    for m in names[:2] + names[3:]:
        assert res[m] == pytest.approx(dcg / idcg), m
        assert res[m] == pytest.approx(S002_NDCG_TABLE[k - 1], abs=0.01), m
    full = sum(D(i) for i in range(1, 5))
    assert res[names[2]] == pytest.approx(dcg / full)
    if k < 4:
        assert res[names[2]] != pytest.approx(S002_NDCG_TABLE[k - 1], abs=0.01)


def test_seed002_map_search_phone_and_watch():
    # phone: T T F F T F F (3 relevant); watch: F T T F F T T (4 relevant)
    phone_q, phone_r = ranked([1, 1, 0, 0, 1, 0, 0], "p")
    watch_q, watch_r = ranked([0, 1, 1, 0, 0, 1, 1], "w")
    res = ev(
        {"phone": phone_q, "watch": watch_q}, {"phone": phone_r, "watch": watch_r}, ["ap", "map"]
    )
    ap1 = Fraction(1 + 1 + Fraction(3, 5)) / 3
    # the seed writes AP(2)'s rank-6 term as 3/6*0 although rank 6 is relevant; its value
    # 47/84 does include 3/6
    ap2 = (Fraction(1, 2) + Fraction(2, 3) + Fraction(3, 6) + Fraction(4, 7)) / 4
    assert ap1 == Fraction(13, 15)
    assert ap2 == Fraction(47, 84)
    assert res.per_query("ap") == pytest.approx({"phone": 13 / 15, "watch": 47 / 84})
    # Slip in the seed: MAP(Q) = (AP(1) + AP(2)) / 2 is printed as 599/420, which is the
    # sum AP(1) + AP(2); the mean is 599/840.
    assert ap1 + ap2 == Fraction(599, 420)
    assert res.summary()["map"] == pytest.approx(599 / 840)
    assert res.summary()["map"] != pytest.approx(599 / 420)


# =========================================================================================
# seed 003: recommender examples
# =========================================================================================

S003_TRUE = [1, 0, 0, 1, 0, 0]
S003_PRED = [0, 0, 1, 1, 0, 0]


def s003_precision(metric, **kw):
    qrels = {f"i{j}": y for j, y in enumerate(S003_TRUE)}
    run = {f"i{j}": float(s) for j, s in enumerate(S003_PRED)}
    return one(qrels, run, metric, **kw)


def test_seed003_precision_at_k_example():
    # precission_at_k(y_true, y_pred, k=6) = 0.3333: 2 relevant among all 6
    assert s003_precision("p@6") == pytest.approx(1 / 3)
    # Slip in the seed: its code sorts with np.argsort(y_pred) ascending (lowest score
    # first).  At k=6 every item is counted so it does not show, but for k < 6 the ranking
    # must be by descending score: the top 2 are i2 and i3 (score 1), one relevant.
    assert s003_precision("p@2") == pytest.approx(1 / 2)
    # i2 (not relevant) and i3 (relevant) tie at score 1, so P@1 depends on the tie rule
    assert s003_precision("p@1") == 1.0  # trec: doc id descending, i3 first
    assert s003_precision("p@1", ties="optimistic") == 1.0
    assert s003_precision("p@1", ties="pessimistic") == 0.0
    assert s003_precision("p@1", ties="expected") == pytest.approx(0.5)


def test_seed003_mrr_three_users():
    qrels = {
        "1": {"batman": 1, "harry potter": 0, "ozark": 0},
        "2": {"ozark": 0, "thor": 0, "something": 1},
        "3": {"something": 0, "harry potter": 0, "batman": 0},  # no interaction
    }
    run = {
        "1": {"batman": 3.0, "harry potter": 2.0, "ozark": 1.0},
        "2": {"ozark": 3.0, "thor": 2.0, "something": 1.0},
        "3": {"something": 3.0, "harry potter": 2.0, "batman": 1.0},
    }
    res = ev(qrels, run, ["mrr", "rr"])
    assert res.per_query("rr") == pytest.approx({"1": 1.0, "2": 1 / 3, "3": 0.0})
    # (1/1 + 1/3 + 0) / 3 = 0.444; user 3 counts as 0 (no_relevant='zero', the default)
    assert res.summary()["mrr"] == pytest.approx(4 / 9)
    assert res.summary()["mrr"] == pytest.approx(0.44, abs=0.005)
    # leaving the user without interactions out would give (1 + 1/3) / 2 instead
    skip = ev(qrels, run, ["mrr"], no_relevant="skip")
    assert skip.summary()["mrr"] == pytest.approx(2 / 3)


def test_seed003_ap_at_6_and_map_at_3():
    # ozark, batman, harry, thor, something, something2 with interactions 1 0 0 1 0 0
    qrels, run = ranked([1, 0, 0, 1, 0, 0])
    # AP@6 = (1/2) (1/1 * 1 + 2/4 * 1) = 0.75 (r_user = 2)
    assert one(qrels, run, "ap@6") == pytest.approx(0.75)
    assert one(qrels, run, "map@6") == pytest.approx(0.75)
    # "Now, what is MAP@3?": with the seed's 1/r_user normaliser only rank 1 is a hit in
    # the top 3: (1/1) / 2 = 0.5 (one user, so MAP@3 = AP@3)
    assert one(qrels, run, "ap@3") == pytest.approx(0.5)
    # min(R, k) = 2 gives the same here; dividing by the hits in the top 3 gives 1
    assert one(qrels, run, "ap(norm=min_r_k)@3") == pytest.approx(0.5)
    assert one(qrels, run, "ap(norm=retrieved)@3") == pytest.approx(1.0)


S003_REL = [3, 2, 3, 0, 1, 2]


def test_seed003_ndcg_at_6_exp2():
    qrels, run = ranked(S003_REL, "m")
    # DCG@6 = 7 + 1.893 + 3.5 + 0 + 0.387 + 1.069 = 13.849
    dcg = sum((2**r - 1) * D(i) for i, r in enumerate(S003_REL, start=1))
    assert dcg == pytest.approx(13.849, abs=0.001)
    assert one(qrels, run, "dcg(gain=exp2)@6") == pytest.approx(dcg)
    # IDCG@6 from the retrieved list sorted: 3, 3, 2, 2, 1, 0 -> 14.595
    idcg = sum((2**r - 1) * D(i) for i, r in enumerate([3, 3, 2, 2, 1, 0], start=1))
    assert idcg == pytest.approx(14.595, abs=0.001)
    # the seed's printed result of its code: 0.9488107485678985 (the text rounds to 0.95)
    for m in ("ndcg(gain=exp2)@6", "ndcg(gain=exp2,ideal=retrieved)@6", "ndcg(gain=exp2)"):
        assert one(qrels, run, m) == pytest.approx(0.9488107485678985, abs=1e-12), m
    # Slips in the seed's text: the IDCG formula is written with rel_i instead of
    # 2^rel_i - 1 (the numbers use 2^rel_i - 1), and the code comment says the gain was
    # 2^(rel_i - 1) (it is 2^rel_i - 1).  The 'const' gain of its code is the linear gain:
    linear = sum(r * D(i) for i, r in enumerate(S003_REL, start=1)) / sum(
        r * D(i) for i, r in enumerate([3, 3, 2, 2, 1, 0], start=1)
    )
    assert one(qrels, run, "ndcg@6") == pytest.approx(linear)


def test_seed003_ndcg_at_3_homework():
    qrels, run = ranked(S003_REL, "m")
    # "get NDCG@3": DCG@3 = 7 + 3/log2(3) + 7/2; ideal (3, 3, 2) -> 7 + 7/log2(3) + 3/2
    want = (7 + 3 * D(2) + 7 * D(3)) / (7 + 7 * D(2) + 3 * D(3))
    assert one(qrels, run, "ndcg(gain=exp2)@3") == pytest.approx(want)


def test_seed003_cumulative_gain():
    qrels, run = ranked(S003_REL, "m")
    # CG@k is the sum of the grades in the top k and ignores their order
    assert one(qrels, run, "cg@6") == 11
    assert one(qrels, run, "cg@3") == 8
    # Slip in the seed: "with a binary relevance label [CG] is exactly equal to
    # Precision"; it equals k * P@k (the number of hits), not P@k.
    bq, br = ranked([1, 0, 1, 1, 0])
    res = ev({"q": bq}, {"q": br}, ["cg@4", "p@4"]).summary()
    assert res["cg@4"] == 3
    assert res["cg@4"] == 4 * res["p@4"]
    assert res["cg@4"] != res["p@4"]


# =========================================================================================
# seed 000: evaluation frameworks
# =========================================================================================


def test_seed000_ndcg_example():
    # relevance in rank order 0, 5, 1, 4, 2 with gain = relevance (linear)
    qrels, run = ranked([0, 5, 1, 4, 2], "img")
    dcg = 5 / math.log2(3) + 1 / math.log2(4) + 4 / math.log2(5) + 2 / math.log2(6)
    assert dcg == pytest.approx(6.151, abs=0.0005)
    idcg = 5 / math.log2(2) + 4 / math.log2(3) + 2 / math.log2(4) + 1 / math.log2(5)
    assert idcg == pytest.approx(8.9543, abs=0.0001)
    assert one(qrels, run, "dcg@5") == pytest.approx(dcg)
    assert one(qrels, run, "dcg") == pytest.approx(dcg)
    # the seed rounds both to 6.1 / 8.9 and prints 0.68; the exact ratio is 0.687
    assert one(qrels, run, "ndcg@5") == pytest.approx(dcg / idcg)
    assert one(qrels, run, "ndcg@5") == pytest.approx(0.687, abs=0.0005)
    assert one(qrels, run, "ndcg") == pytest.approx(dcg / idcg)
    assert one(qrels, run, "ndcg_cut.5") == pytest.approx(dcg / idcg)


def test_seed000_ap_at_k_min_m_k_normaliser():
    # AP@k = 1/min(m, k) * sum_{i<=k} P(i) rel(i); m = 3 relevant: ranking 1, 1, 0, 1
    qrels, run = ranked([1, 1, 0, 1])
    # k = 2: both hits at precision 1, divided by min(3, 2) = 2
    assert one(qrels, run, "ap(norm=min_r_k)@2") == pytest.approx(1.0)
    assert one(qrels, run, "ap@2") == pytest.approx(2 / 3)  # trec_eval: divided by m
    # k = 4 >= m: min(m, k) = m, the two normalisers agree
    want = (1 + 1 + 3 / 4) / 3
    assert one(qrels, run, "ap(norm=min_r_k)@4") == pytest.approx(want)
    assert one(qrels, run, "ap@4") == pytest.approx(want)
    # a relevant document that is never retrieved still counts in m
    qrels["unseen"] = 1
    assert one(qrels, run, "ap(norm=min_r_k)@4") == pytest.approx((1 + 1 + 3 / 4) / 4)
    assert one(qrels, run, "ap(norm=min_r_k)@2") == pytest.approx(1.0)
    # Note: the seed's first formula, (P@1 + ... + P@k) / (TP + FN), sums the precision
    # at every rank, relevant or not; its per-query formula (used here) keeps rel(i).


def test_seed000_set_precision_recall_f1():
    # Precision = TP/(TP+FP), Recall = TP/(TP+FN), F1 = 2TP/(2TP+FP+FN):
    # 5 recommended, 3 of them relevant (TP=3, FP=2), 1 relevant item missed (FN=1)
    qrels = {"a": 1, "b": 1, "c": 1, "d": 0, "e": 0, "missed": 1}
    run = {"a": 5.0, "d": 4.0, "b": 3.0, "e": 2.0, "c": 1.0}
    res = ev({"q": qrels}, {"q": run}, ["p", "r", "f1", "set_P", "set_recall", "set_F"])
    s = res.summary()
    assert s["p"] == s["set_P"] == pytest.approx(3 / 5)
    assert s["r"] == s["set_recall"] == pytest.approx(3 / 4)
    assert s["f1"] == s["set_F"] == pytest.approx(2 * 3 / (2 * 3 + 2 + 1))


def test_seed000_mrr_and_arhr_definitions():
    # MRR: mean over the lists of 1/rank of the first relevant item.
    # ARHR: per user, the sum of 1/rank over every clicked item in the top k; then the
    # mean over users.  user1 clicks ranks 1 and 3, user2 rank 2, user3 nothing.
    u1q, u1r = ranked([1, 0, 1, 0], "a")
    u2q, u2r = ranked([0, 1, 0, 0], "b")
    u3q, u3r = ranked([0, 0, 0, 0], "c")
    res = ev(
        {"u1": u1q, "u2": u2q, "u3": u3q},
        {"u1": u1r, "u2": u2r, "u3": u3r},
        ["mrr", "arhr@4", "arhr@2"],
    )
    assert res.per_query("arhr@4") == pytest.approx({"u1": 1 + 1 / 3, "u2": 1 / 2, "u3": 0})
    assert res.summary()["arhr@4"] == pytest.approx((1 + 1 / 3 + 1 / 2 + 0) / 3)
    assert res.summary()["arhr@2"] == pytest.approx((1 + 1 / 2) / 3)
    assert res.summary()["mrr"] == pytest.approx((1 + 1 / 2 + 0) / 3)
    # with a single hit per user ARHR equals MRR ("often used interchangeably")
    single = ev({"u2": u2q}, {"u2": u2r}, ["mrr", "arhr"]).summary()
    assert single["mrr"] == single["arhr"]


def test_seed000_mean_average_recall():
    # Average Recall@k averaged over the ranks that hold a hit (ranklens mode=relevant):
    # ranking 1, 0, 1, 0 with m = 3 relevant: recall 1/3 at rank 1 and 2/3 at rank 3
    qrels, run = ranked([1, 0, 1, 0])
    qrels["missed"] = 1
    assert one(qrels, run, "mar@4") == pytest.approx((1 / 3 + 2 / 3) / 2)
    # recall averaged over every rank 1..k
    assert one(qrels, run, "mar(mode=all)@4") == pytest.approx((1 / 3 + 1 / 3 + 2 / 3 + 2 / 3) / 4)


def test_seed000_fcp_definition_example():
    # FCP = NCP / (NCP + NDP) over pairs the user has a preference on.  A user rated
    # A=5, B=3, C=3, D=1; the system scores A 0.2, B 0.9, C 0.5, D 0.1.
    qrels = {"A": 5, "B": 3, "C": 3, "D": 1}
    run = {"A": 0.2, "B": 0.9, "C": 0.5, "D": 0.1}
    # preference pairs: A>B (scores 0.2 < 0.9: discordant), A>C (discordant),
    # A>D (concordant), B>D (concordant), C>D (concordant); B=C is no preference
    assert one(qrels, run, "fcp") == pytest.approx(3 / 5)
    # a perfect order is 1, the reverse order 0
    assert one(qrels, {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}, "fcp") == 1.0
    assert one(qrels, {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}, "fcp") == 0.0


# =========================================================================================
# seed 001: average precision lecture notes
# =========================================================================================


def test_seed001_average_precision_example():
    scores = [0.8, 0.6, 0.3, 0.2, 0.9, 0.75, 0.81, 0.92]
    truth = [1, 0, 0, 1, 0, 0, 1, 1]
    qrels = {f"x{i}": t for i, t in enumerate(truth)}
    run = {f"x{i}": s for i, s in enumerate(scores)}
    # sorted: 0.92(1) 0.9(0) 0.81(1) 0.8(1) 0.75 0.6 0.3 (0) 0.2(1)
    want = (1 + 2 / 3 + 3 / 4 + 4 / 8) / 4
    assert one(qrels, run, "ap") == pytest.approx(want)
    assert one(qrels, run, "ap") == pytest.approx(0.729, abs=0.0005)


# the seed's calls of sklearn's average_precision_score on an already sorted list with the
# printed results (most truncated to two decimals, e.g. 0.9068 printed as 0.90)
S001_SKLEARN = [
    ([1, 0, 0, 0, 0, 0, 0, 0, 0], 1),
    ([1, 1, 1, 1, 0, 0, 0, 0, 0], 1),
    ([1, 0, 0, 0, 0, 0, 0, 0, 1], 0.611),
    ([0, 1, 0, 0, 0, 0, 0, 0, 0], 1 / 2),
    ([0, 1, 0, 1, 0, 0, 0, 0, 0], 1 / 2),
    ([0, 1, 0, 1, 0, 1, 0, 1, 0], 1 / 2),
    ([0, 0, 1, 0, 0, 0, 0, 0, 0], 1 / 3),
    ([0, 0, 1, 0, 0, 1, 0, 0, 0], 1 / 3),
    ([0, 0, 1, 0, 0, 1, 0, 0, 1], 1 / 3),
    ([0, 0, 0, 1, 0, 0, 0, 1, 0], 1 / 4),
    ([0, 0, 0, 0, 0, 0, 0, 0, 1], 0.11),
    ([0, 0, 0, 0, 0, 0, 0, 1, 1], 0.173),
    ([1, 0, 0, 0, 0, 0, 0, 1, 1], 0.527),
    ([1, 1, 0, 0, 0, 1, 0, 1, 1], 0.71),
    ([1, 1, 0, 0, 0, 0, 1, 1, 1], 0.696),
    ([1, 1, 1, 1, 1, 1, 1, 1, 0], 1.00),
    ([1, 1, 1, 1, 1, 1, 1, 0, 1], 0.98),
    ([1, 1, 1, 1, 1, 1, 0, 1, 1], 0.97),
    ([1, 1, 1, 1, 1, 0, 1, 1, 1], 0.95),
    ([1, 1, 1, 1, 0, 1, 1, 1, 1], 0.93),
    ([1, 1, 1, 0, 1, 1, 1, 1, 1], 0.90),
    ([1, 1, 0, 1, 1, 1, 1, 1, 1], 0.87),
    ([1, 0, 1, 1, 1, 1, 1, 1, 1], 0.83),
    ([0, 1, 1, 1, 1, 1, 1, 1, 1], 0.77),
]


@pytest.mark.parametrize(("truth", "printed"), S001_SKLEARN)
def test_seed001_sorted_list_average_precision(truth, printed):
    qrels, run = ranked(truth)
    hits = 0
    total = Fraction(0)
    for i, t in enumerate(truth, start=1):
        if t:
            hits += 1
            total += Fraction(hits, i)
    exact = float(total / sum(truth))
    for m in ("ap", "ap(ties=grouped,norm=retrieved)"):
        assert one(qrels, run, m) == pytest.approx(exact), m
    # the printed values are truncated (0.9068 -> 0.90, 0.8755 -> 0.87), so within 0.01
    assert exact == pytest.approx(printed, abs=0.01)
    assert exact >= printed - 1e-12


def test_seed001_ties_change_ap():
    # "What if we have 2 equal scores: one with gt = 1 and one with gt = 0":
    # sorting gives [1 0] -> precision 1/1 or [0 1] -> precision 1/2
    qrels = {"pos": 1, "neg": 0}
    run = {"pos": 0.5, "neg": 0.5}
    assert one(qrels, run, "ap", ties="optimistic") == 1.0
    assert one(qrels, run, "ap", ties="pessimistic") == 0.5
    assert one(qrels, run, "ap", ties="expected") == pytest.approx(0.75)
    # scikit-learn takes the tied pair as one threshold: precision 1/2 at recall 1
    assert one(qrels, run, "ap", ties="grouped") == 0.5


def test_seed001_trailing_non_relevant_items_do_not_matter():
    # [1, 1, 1, 0, 0, 0, 0] for a sorted list has AP = 1
    qrels, run = ranked([1, 1, 1, 0, 0, 0, 0])
    assert one(qrels, run, "ap") == 1.0


# =========================================================================================
# seed 004: Kendall's tau and Spearman's rho
# =========================================================================================


def test_seed004_kendall_tau_and_spearman_rho_without_ties():
    # tau = (n_c - n_d) / C(n, 2) and rho = 1 - 6 sum d^2 / (n (n^2 - 1)) when there are
    # no ties.  Grades 4 3 2 1 0 (true ranks 1..5); predicted ranks 2 1 3 5 4.
    qrels = {"a": 4, "b": 3, "c": 2, "d": 1, "e": 0}
    run = {"a": 4.0, "b": 5.0, "c": 3.0, "d": 1.0, "e": 2.0}
    # discordant pairs: (a, b) and (d, e); 8 of the 10 pairs concordant
    assert one(qrels, run, "kendall_tau") == pytest.approx((8 - 2) / 10)
    d2 = (1 - 2) ** 2 + (2 - 1) ** 2 + 0 + (4 - 5) ** 2 + (5 - 4) ** 2
    assert one(qrels, run, "spearman_rho") == pytest.approx(1 - 6 * d2 / (5 * (25 - 1)))
