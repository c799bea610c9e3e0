"""Simulated users on interleaved lists (seeded, vectorised; a few seconds in all):
the ranker better by nDCG wins under every click model and method, identical rankers
are rejected at most at the rate alpha, and random clicks favour nobody (the fidelity
checks of Hofmann et al. 2011 and Radlinski & Craswell 2013)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from ranklens import Qrels, Run, evaluate
from ranklens.online.interleaving import analyze, credit, interleave, multileave, simulate_clicks

pytest.importorskip("scipy")

METHODS = ("team_draft", "balanced", "probabilistic", "optimized")
#: optimized interleaving solves one linear program per overlap pattern of the two
#: top-k lists (every query here has its own): k = 5 keeps that to 32 lists each
K = {"optimized": 5}


def collection(n_q: int, n_docs: int, noise: tuple[float, ...], seed: int):
    """Graded qrels (0..2, a third of the documents unjudged, some -1) and one run per
    noise level: score = grade + noise * normal."""
    rng = np.random.default_rng(seed)
    grades = rng.choice([-1, 0, 0, 0, 1, 1, 2], size=(n_q, n_docs))
    judged = rng.random((n_q, n_docs)) < 0.67
    qrels = Qrels.from_dict(
        {
            f"q{i}": {f"d{j}": int(grades[i, j]) for j in range(n_docs) if judged[i, j]}
            for i in range(n_q)
        }
    )
    runs = []
    for s in noise:
        score = np.maximum(grades, 0) + s * rng.normal(size=grades.shape)
        runs.append(
            Run.from_dict(
                {f"q{i}": {f"d{j}": float(score[i, j]) for j in range(n_docs)} for i in range(n_q)}
            )
        )
    return qrels, runs


QRELS, (GOOD, BAD) = collection(300, 12, (0.3, 3.0), seed=1)


def test_the_better_ranker_is_better_by_ndcg() -> None:
    good = evaluate(QRELS, GOOD, ["ndcg_cut_10"])["ndcg_cut_10"]
    bad = evaluate(QRELS, BAD, ["ndcg_cut_10"])["ndcg_cut_10"]
    assert good > bad + 0.1


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("model", "kind"),
    [
        ("perfect", "cascade"),
        ("navigational", "cascade"),
        ("informational", "cascade"),
        ("informational", "position"),
    ],
)
def test_the_better_ranker_wins(method: str, model: str, kind: str) -> None:
    il = interleave({"good": GOOD, "bad": BAD}, method, k=K.get(method, 10), seed=3)
    clicks = simulate_clicks(il, QRELS, model, kind=kind, seed=4)
    res = analyze(credit(il, clicks), by="query")
    p = res.pairs[0]
    assert p.delta > 0 and p.ci_low > 0 and p.winner == "good", p


def test_multileaving_orders_three_rankers() -> None:
    qrels, runs = collection(300, 12, (0.2, 1.0, 4.0), seed=2)
    named = dict(zip(("best", "mid", "worst"), runs, strict=True))
    for method in ("team_draft", "probabilistic"):
        il = multileave(named, method, k=10, seed=5)
        res = analyze(credit(il, simulate_clicks(il, qrels, "navigational", seed=6)))
        mat = res.matrix()
        assert mat[0, 1] > 0 and mat[0, 2] > 0 and mat[1, 2] > 0, mat
        best_worst = next(p for p in res.pairs if (p.a, p.b) == ("best", "worst"))
        assert best_worst.winner == "best", best_worst


def _experiment(outcomes, rows):
    return dataclasses.replace(
        outcomes,
        query=outcomes.query.take(rows),
        impression=outcomes.impression[rows],
        clicks=outcomes.clicks[rows],
        credit=outcomes.credit[rows],
        outcome=outcomes.outcome[rows],
    )


@pytest.mark.parametrize("method", ["team_draft", "probabilistic"])
def test_identical_rankers_type_one_error(method: str) -> None:
    """200 experiments of 150 queries each, both rankers the same run: the share of
    significant results stays within alpha plus a binomial band (the sign test is
    conservative, so it may be below alpha)."""
    n_exp, per = 200, 150
    qrels, (run,) = collection(per, 10, (1.0,), seed=7)
    il = interleave({"A": run, "B": run}, method, k=10, seed=8, impressions=n_exp)
    out = credit(il, simulate_clicks(il, qrels, "informational", seed=9))
    # impression e of every query is experiment e
    rejected = 0
    for e in range(n_exp):
        rows = np.flatnonzero(out.impression == e)
        rejected += analyze(_experiment(out, rows), by="query").pairs[0].significant
    rate = rejected / n_exp
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_exp), rate


@pytest.mark.parametrize("method", ["team_draft", "probabilistic", "optimized"])
def test_random_clicks_favour_nobody(method: str) -> None:
    """A user who clicks at random (each position with probability 1/2, never stopping)
    gives no preference between two different rankers: the mean outcome is zero
    within 4 standard errors (Radlinski & Craswell 2013's fidelity requirement)."""
    k = K.get(method, 10)
    il = interleave({"good": GOOD, "bad": BAD}, method, k=k, seed=10, impressions=20)
    out = credit(il, simulate_clicks(il, QRELS, "random", seed=11))
    o = out.outcome[out.clicks > 0, 0]
    assert abs(o.mean()) < 4 * o.std(ddof=1) / math.sqrt(len(o)), o.mean()


def test_random_clicks_bias_balanced_interleaving() -> None:
    """Balanced interleaving fails that check on Radlinski & Craswell's example (A = (a,
    b, c), B = (b, c, a), one random click): B wins 2/3 of the decided impressions."""
    a = Run.from_dict({f"q{i}": {"a": 3, "b": 2, "c": 1} for i in range(3000)}, name="A")
    b = Run.from_dict({f"q{i}": {"b": 3, "c": 2, "a": 1} for i in range(3000)}, name="B")
    il = interleave([a, b], "balanced", k=3, seed=0)
    rng = np.random.default_rng(0)
    clicks = np.zeros(len(il.team), dtype=bool)
    clicks[np.arange(3000) * 3 + rng.integers(0, 3, size=3000)] = True
    o = credit(il, clicks).outcome[:, 0]
    assert abs((o < 0).mean() - 2 / 3) < 4 * math.sqrt(2 / 9 / 3000)
