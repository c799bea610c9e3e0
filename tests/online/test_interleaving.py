"""Interleaving and multileaving: hand-worked examples of every method and credit
rule, invariants (hypothesis) and the inputs that are refused."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranklens import Qrels, Run
from ranklens.errors import InputError
from ranklens.online.interleaving import (
    ClickModel,
    Outcomes,
    analyze,
    credit,
    interleave,
    multileave,
    simulate_clicks,
)

pytest.importorskip("scipy")

A3 = Run.from_dict({"q": {"a": 3, "b": 2, "c": 1}}, name="A")
B3 = Run.from_dict({"q": {"b": 3, "c": 2, "a": 1}}, name="B")


def lists_over_seeds(runs, method, k, seeds=range(60), **kw):
    seen = {}
    for s in seeds:
        row = interleave(runs, method, k=k, seed=s, **kw).to_pylist()[0]
        seen[tuple(row["docs"])] = tuple(row["teams"])
    return seen


# ------------------------------------------------------------------ hand-worked lists
def test_team_draft_gives_exactly_the_four_drafts() -> None:
    """A = (a, b, c, d), B = (b, d, a, e), k = 4: each of two rounds a coin decides
    who picks first; the first round gives a, b (either order), the second c and d."""
    a = Run.from_dict({"q": {"a": 4, "b": 3, "c": 2, "d": 1}}, name="A")
    b = Run.from_dict({"q": {"b": 4, "d": 3, "a": 2, "e": 1}}, name="B")
    seen = lists_over_seeds([a, b], "team_draft", 4)
    assert seen == {
        ("a", "b", "c", "d"): ("A", "B", "A", "B"),
        ("a", "b", "d", "c"): ("A", "B", "B", "A"),
        ("b", "a", "c", "d"): ("B", "A", "A", "B"),
        ("b", "a", "d", "c"): ("B", "A", "B", "A"),
    }


def test_balanced_lists_and_pointer_teams() -> None:
    seen = lists_over_seeds([A3, B3], "balanced", 3)
    # A leads: a (A), then B's b, then A's b is a repeat, B's c; B leads: b, a, then c
    assert seen == {("a", "b", "c"): ("A", "B", "B"), ("b", "a", "c"): ("B", "A", "B")}


def test_optimized_distribution_is_the_unique_unbiased_one() -> None:
    """The allowed lists of A = (a, b, c), B = (b, c, a) are abc, bac, bca; with the
    linear rank difference their prefix credits are (2, 1, 0), (-1, 1, 0), (-1, -2, 0),
    so no bias at depths 1 and 2 forces p = (1/3, 1/3, 1/3)."""
    from ranklens.online.interleaving._optimized import solve

    lists, p, relaxed = solve([0, 1, 2], [1, 2, 0], 3, "linear")
    assert [docs for docs, _ in lists] == [(0, 1, 2), (1, 0, 2), (1, 2, 0)]
    np.testing.assert_allclose(p, [1 / 3, 1 / 3, 1 / 3], atol=1e-9)
    assert not relaxed
    il = interleave([A3, B3], "optimized", k=3, seed=0, impressions=3000)
    docs = np.array(il.doc.to_pylist()).reshape(-1, 3)
    share = np.mean([tuple(d) == ("a", "b", "c") for d in docs])
    assert abs(share - 1 / 3) < 4 * np.sqrt(2 / 9 / 3000)


def test_optimized_notes_queries_without_an_unbiased_distribution() -> None:
    a = Run.from_dict({"q": {"x": 1}}, name="A")
    b = Run.from_dict({"q": {}}, name="B")
    il = interleave([a, b], "optimized", k=3)
    assert il.to_pylist()[0]["docs"] == ["x"]
    assert len(il.notes) == 1 and "1 of 1 queries" in il.notes[0]


def test_probabilistic_keeps_each_rankers_probability() -> None:
    """tau = 1, A = (a, b), B = (b, a): P_A(a) = 1 / (1 + 1/2) = 2/3, P_B(a) = 1/3; the
    second position has one document left, probability 1 under both."""
    a = Run.from_dict({"q": {"a": 2, "b": 1}}, name="A")
    b = Run.from_dict({"q": {"b": 2, "a": 1}}, name="B")
    for s in range(20):
        il = interleave([a, b], "probabilistic", k=2, seed=s, tau=1.0)
        docs = il.to_pylist()[0]["docs"]
        first = [2 / 3, 1 / 3] if docs[0] == "a" else [1 / 3, 2 / 3]
        np.testing.assert_allclose(il.probability, [first, [1.0, 1.0]])


def test_multileave_team_draft_teams_of_equal_size() -> None:
    runs = {n: Run.from_dict({"q": {f"{n}{i}": 9 - i for i in range(4)}}) for n in "xyz"}
    for s in range(10):
        row = multileave(runs, k=9, seed=s).to_pylist()[0]
        assert sorted(row["teams"]) == ["x"] * 3 + ["y"] * 3 + ["z"] * 3
        for n in "xyz":  # each team's documents in its ranker's order
            mine = [d for d, t in zip(row["docs"], row["teams"], strict=True) if t == n]
            assert mine == [f"{n}{i}" for i in range(3)]


def test_two_ranker_multileave_is_interleave() -> None:
    for method in ("team_draft", "probabilistic"):
        one = interleave([A3, B3], method, k=3, seed=5, impressions=4)
        two = multileave([A3, B3], method, k=3, seed=5, impressions=4)
        assert one.to_pylist() == two.to_pylist()


def test_empty_and_missing_queries() -> None:
    a = Run.from_dict({"q1": {"x": 1}, "q2": {}}, name="A")
    b = Run.from_dict({"q3": {"y": 1}}, name="B")
    rows = interleave([a, b], k=5).to_pylist()
    assert [(r["query"], r["docs"], r["teams"]) for r in rows] == [
        ("q1", ["x"], ["A"]),
        ("q2", [], []),
        ("q3", ["y"], ["B"]),
    ]


# ------------------------------------------------------------------ credit, by hand
def test_team_draft_credit_counts_clicks_per_team() -> None:
    a = Run.from_dict({"q": {"a": 4, "b": 3, "c": 2, "d": 1}}, name="A")
    b = Run.from_dict({"q": {"b": 4, "d": 3, "a": 2, "e": 1}}, name="B")
    il = interleave([a, b], k=4, seed=0)
    teams = il.to_pylist()[0]["teams"]
    clicks = np.array([True, True, True, False])
    out = credit(il, clicks)
    want_a = sum(1 for t, c in zip(teams, clicks, strict=True) if c and t == "A")
    assert out.credit.tolist() == [[want_a, 3 - want_a]]
    assert out.outcome.tolist() == [[np.sign(2 * want_a - 3)]]


def test_balanced_credit_is_joachims_rule_and_biased_under_random_clicks() -> None:
    """Radlinski & Craswell's (2013) example of balanced interleaving's bias: A = (a, b,
    c), B = (b, c, a), one click uniformly at random.  List abc: a click on a gives k* =
    min(1, 3) = 1, A's top 1 = {a}: A wins; on b: k* = 1, B wins; on c: k* = min(3, 2) =
    2, B's top 2 = {b, c} holds c, A's = {a, b} does not: B wins.  List bac: b -> B, a
    -> A, c -> B.  So B wins 2/3 of the clicks although the user ignores rankings."""
    wins = []
    for s in range(2):
        il = interleave([A3, B3], "balanced", k=3, seed=s)
        docs = il.to_pylist()[0]["docs"]
        for i in range(3):
            clicks = np.zeros(3, dtype=bool)
            clicks[i] = True
            wins.append((tuple(docs), docs[i], float(credit(il, clicks).outcome[0, 0])))
    got = {(d, c): o for d, c, o in wins}
    assert got[(("a", "b", "c"), "a")] == 1 and got[(("a", "b", "c"), "b")] == -1
    assert got[(("a", "b", "c"), "c")] == -1 and got[(("b", "a", "c"), "c")] == -1
    assert sum(o for _, _, o in wins) < 0


def test_probabilistic_credit_is_marginalised() -> None:
    """List (a, b) with p(a) = (2/3, 1/3), p(b) = (1, 1): a click on a alone gives
    pi = (2/3, 1/3), outcome 2/3 - 1/3; clicks on both: D = X1 + X2 with X2 = +-1 at 1/2,
    P(D > 0) = 2/3 * 1/2, P(D < 0) = 1/3 * 1/2, outcome 1/6."""
    a = Run.from_dict({"q": {"a": 2, "b": 1}}, name="A")
    b = Run.from_dict({"q": {"b": 2, "a": 1}}, name="B")
    s = next(
        s
        for s in range(50)
        if interleave([a, b], "probabilistic", k=2, seed=s, tau=1.0).to_pylist()[0]["docs"]
        == ["a", "b"]
    )
    il = interleave([a, b], "probabilistic", k=2, seed=s, tau=1.0)
    one = credit(il, [True, False])
    np.testing.assert_allclose(one.credit, [[2 / 3, 1 / 3]])
    np.testing.assert_allclose(one.outcome, [[1 / 3]])
    both = credit(il, [True, True])
    np.testing.assert_allclose(both.credit, [[2 / 3 + 1 / 2, 1 / 3 + 1 / 2]])
    np.testing.assert_allclose(both.outcome, [[1 / 6]])


def test_optimized_credit_linear_and_inverse() -> None:
    il = interleave([A3, B3], "optimized", k=3, seed=0)
    docs = il.to_pylist()[0]["docs"]
    rank_a = {"a": 1, "b": 2, "c": 3}
    rank_b = {"b": 1, "c": 2, "a": 3}
    clicks = [True, False, True]
    clicked = [d for d, c in zip(docs, clicks, strict=True) if c]
    out = credit(il, clicks)
    want = [-sum(rank_a[d] for d in clicked), -sum(rank_b[d] for d in clicked)]
    np.testing.assert_allclose(out.credit, [want])
    il2 = interleave([A3, B3], "optimized", k=3, seed=0, credit_function="inverse")
    docs2 = il2.to_pylist()[0]["docs"]
    clicked2 = [d for d, c in zip(docs2, clicks, strict=True) if c]
    out2 = credit(il2, clicks)
    want2 = [sum(1 / rank_a[d] for d in clicked2), sum(1 / rank_b[d] for d in clicked2)]
    np.testing.assert_allclose(out2.credit, [want2])


def test_no_clicks_no_credit() -> None:
    for method in ("team_draft", "balanced", "probabilistic", "optimized"):
        il = interleave([A3, B3], method, k=3)
        out = credit(il, np.zeros(3, dtype=bool))
        assert out.clicks.tolist() == [0]
        assert out.outcome.tolist() == [[0.0]] and out.credit.tolist() == [[0.0, 0.0]]


# ------------------------------------------------------------------ analysis
def outcomes(values, queries=None, users=None, clicks=None, rankers=("A", "B")):
    import pyarrow as pa

    values = np.asarray(values, dtype=float).reshape(len(values), -1)
    n = len(values)
    m = len(rankers)
    pairs = tuple((a, b) for a in range(m) for b in range(a + 1, m))
    return Outcomes(
        "team_draft",
        tuple(rankers),
        pairs,
        pa.array(queries or [f"q{i}" for i in range(n)]),
        np.zeros(n, dtype=np.int64),
        np.ones(n, dtype=np.int64) if clicks is None else np.asarray(clicks),
        np.zeros((n, m)),
        values,
        None if users is None else pa.array(users),
    )


def test_analyze_counts_units_and_delta() -> None:
    # query q0 twice (+1, -1: mean 0, a tie), q1 win, q2 loss, q3 win; one unclicked row
    out = outcomes(
        [1, -1, 1, -1, 1, 1],
        queries=["q0", "q0", "q1", "q2", "q3", "q4"],
        clicks=[1, 1, 1, 1, 1, 0],
    )
    res = analyze(out, by="query")
    p = res.pairs[0]
    assert (p.units, p.wins, p.ties, p.losses) == (4, 2, 1, 1)
    assert p.delta == pytest.approx((2 + 0.5) / 4 - 0.5)
    assert res.impressions == 6 and res.clicked_impressions == 5
    # t interval of s - 0.5 = (0, 0.5, -0.5, 0.5) by hand: mean 0.125, sd 0.4787
    sd = np.std([0, 0.5, -0.5, 0.5], ddof=1)
    half = 3.182446305284263 * sd / 2
    assert (p.ci_low, p.ci_high) == pytest.approx((0.125 - half, 0.125 + half))
    assert p.p_value == pytest.approx(1.0)  # 2 wins vs 1 loss
    imp = analyze(out, by="impression").pairs[0]
    assert (imp.wins, imp.ties, imp.losses) == (3, 0, 2)


def test_analyze_by_user_and_multileave_correction() -> None:
    from ranklens._shared.corrections import adjust
    from ranklens.online.stats import sign_test

    rng = np.random.default_rng(0)
    vals = np.sign(rng.normal(0.3, 1, size=(60, 3)))
    out = outcomes(vals, users=[f"u{i % 20}" for i in range(60)], rankers=("x", "y", "z"))
    res = analyze(out, by="user", correction="bonferroni")
    assert res.pairs[0].units == 20
    raw = np.array([p.p_value for p in res.pairs])
    np.testing.assert_allclose([p.p_adjusted for p in res.pairs], np.minimum(raw * 3, 1))
    w = np.array([p.wins for p in res.pairs])
    lo = np.array([p.losses for p in res.pairs])
    np.testing.assert_allclose(raw, sign_test(w, lo))
    np.testing.assert_allclose(adjust(raw, "bonferroni", 0.05, "", ""), np.minimum(raw * 3, 1))
    mat = res.matrix()
    assert np.allclose(mat, -mat.T) and mat[0, 1] == res.pairs[0].delta
    with pytest.raises(InputError, match="by='user' needs"):
        analyze(outcomes([1, -1]), by="user")


def test_sign_test_matches_scipy_binomtest() -> None:
    from scipy.stats import binomtest

    from ranklens.online.stats import sign_test

    for w, lost in [(0, 1), (3, 9), (10, 10), (17, 4), (0, 30)]:
        assert sign_test(w, lost)[()] == pytest.approx(binomtest(w, w + lost).pvalue, rel=1e-12)
    assert np.isnan(sign_test(0, 0))
    with pytest.raises(InputError, match="wins must be a count"):
        sign_test(-1, 3)


# ------------------------------------------------------------------ clicks
def test_cascade_perfect_user_clicks_every_relevant_document() -> None:
    qrels = Qrels.from_dict({"q": {"a": 1, "c": 2, "b": 0, "z": -1}})
    il = interleave([A3, B3], k=3, seed=2)
    docs = il.to_pylist()[0]["docs"]
    got = simulate_clicks(il, qrels, "perfect").tolist()
    assert got == [d in ("a", "c") for d in docs]
    stops = ClickModel(click=(0.0, 1.0), stop=(0.0, 1.0))  # stops after the first click
    first = [d in ("a", "c") for d in docs].index(True)
    want = [i == first for i in range(3)]
    assert simulate_clicks(il, qrels, stops).tolist() == want


def test_position_model_examination() -> None:
    qrels = Qrels.from_dict({f"q{i}": {f"d{j}": 1 for j in range(3)} for i in range(4000)})
    run = Run.from_dict({f"q{i}": {f"d{j}": 3 - j for j in range(3)} for i in range(4000)})
    il = interleave({"A": run, "B": run}, k=3)
    c = simulate_clicks(il, qrels, ClickModel((0.0, 1.0), (0.0, 0.0)), kind="position", eta=1.0)
    rates = c.reshape(-1, 3).mean(axis=0)
    np.testing.assert_allclose(rates, [1, 1 / 2, 1 / 3], atol=4 * np.sqrt(0.25 / 4000))


# ------------------------------------------------------------------ refused inputs
def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InputError, match="method must be one of"):
        interleave([A3, B3], "zipper")
    with pytest.raises(InputError, match="method must be one of"):
        multileave([A3, B3], "balanced")
    with pytest.raises(InputError, match="takes 2 rankers, got 3"):
        interleave([A3, B3, A3])
    with pytest.raises(InputError, match="k must be a positive integer"):
        interleave([A3, B3], k=0)
    with pytest.raises(InputError, match="seed must be an integer"):
        interleave([A3, B3], seed=1.5)
    with pytest.raises(InputError, match="tau must be"):
        interleave([A3, B3], "probabilistic", tau=-1)
    with pytest.raises(InputError, match="depth is a parameter of method='probabilistic'"):
        interleave([A3, B3], depth=3)
    with pytest.raises(InputError, match="ranker 'B' is a dict"):
        interleave({"A": A3, "B": {}})
    with pytest.raises(InputError, match="two rankers are named 'A'"):
        interleave([A3, A3])
    il = interleave([A3, B3], k=3)
    with pytest.raises(InputError, match=r"one value per shown document \(3"):
        credit(il, [True])
    with pytest.raises(InputError, match=r"clicks\[1\] is 2"):
        credit(il, [0, 2, 1])
    with pytest.raises(InputError, match="ClickModel: click and stop"):
        ClickModel((0.1, 0.2), (0.1,))
    with pytest.raises(InputError, match="model must be one of"):
        simulate_clicks(il, Qrels.from_dict({"q": {"a": 1}}), "lazy")


# ------------------------------------------------------------------ properties
@st.composite
def run_pair(draw):
    n_q = draw(st.integers(1, 4))
    runs = []
    for _ in range(2):
        data = {}
        for q in range(n_q):
            if draw(st.booleans()) and draw(st.booleans()):
                continue  # a query this ranker does not rank
            docs = draw(st.lists(st.integers(0, 9), max_size=8, unique=True))
            data[f"q{q}"] = {f"d{d}": float(draw(st.integers(0, 3))) for d in docs}
        runs.append(data)
    return runs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run_pair(),
    st.integers(1, 6),
    st.integers(0, 2**31),
    st.sampled_from(["team_draft", "balanced", "probabilistic", "optimized"]),
)
def test_interleaved_lists_invariants(runs, k, seed, method) -> None:
    ra, rb = (Run.from_dict(r) if r else Run.from_dict({"q0": {}}) for r in runs)
    il = interleave({"A": ra, "B": rb}, method, k=k, seed=seed)
    da, db = ra.to_dict(), rb.to_dict()
    # the lists each method reads: top k (probabilistic: the whole ranking)
    for row in il.to_pylist():
        q = row["query"]

        def top(d, q=q):
            ranked = sorted(d.get(q, {}).items(), key=lambda kv: (-kv[1], [-ord(c) for c in kv[0]]))
            docs = [x for x, _ in ranked]
            return docs if method == "probabilistic" else docs[:k]

        union = set(top(da)) | set(top(db))
        assert set(row["docs"]) <= union
        assert len(row["docs"]) == len(set(row["docs"])) == min(k, len(union))
        if method == "team_draft" and len(top(da)) >= k and len(top(db)) >= k:
            n_a = row["teams"].count("A")
            assert abs(2 * n_a - len(row["teams"])) <= 1
    again = interleave({"A": ra, "B": rb}, method, k=k, seed=seed)
    assert again.to_pylist() == il.to_pylist()


@settings(max_examples=30, deadline=None)
@given(
    run_pair(),
    st.integers(1, 5),
    st.integers(0, 1000),
    st.sampled_from(["team_draft", "balanced", "probabilistic", "optimized"]),
)
def test_lists_do_not_depend_on_the_other_queries(runs, k, seed, method) -> None:
    ra, rb = (Run.from_dict(r) if r else Run.from_dict({"q0": {}}) for r in runs)
    full = {r["query"]: r for r in interleave([ra, rb], method, k=k, seed=seed).to_pylist()}
    for q in sorted(full):
        sub = [Run.from_dict({q: r.get(q, {})}, name=n) for r, n in zip(runs, "AB", strict=True)]
        alone = interleave(sub, method, k=k, seed=seed).to_pylist()
        assert alone == [full[q]]


def test_query_order_does_not_matter() -> None:
    rng = np.random.default_rng(3)
    data = [
        {f"q{i}": {f"d{j}": float(rng.integers(0, 4)) for j in range(6)} for i in range(30)}
        for _ in range(2)
    ]
    fwd = [Run.from_dict(d, name=n) for d, n in zip(data, "AB", strict=True)]
    rev = [
        Run.from_dict(dict(reversed(list(d.items()))), name=n)
        for d, n in zip(data, "AB", strict=True)
    ]
    for method in ("team_draft", "probabilistic"):
        assert (
            interleave(fwd, method, k=4, seed=9).to_pylist()
            == interleave(rev, method, k=4, seed=9).to_pylist()
        )
    assert interleave(fwd, k=4, seed=1).to_pylist() != interleave(fwd, k=4, seed=2).to_pylist()


def test_to_arrow_columns() -> None:
    il = interleave([A3, B3], "probabilistic", k=2, seed=0)
    t = il.to_arrow()
    assert t.column_names == [
        "query",
        "impression",
        "position",
        "doc",
        "team",
        "rank_A",
        "rank_B",
        "p_A",
        "p_B",
    ]
    assert t.column("position").to_pylist() == [1, 2]
    _ = dataclasses.replace(il)  # a frozen dataclass
