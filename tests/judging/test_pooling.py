"""Pooling and sampling: hand-computed examples, properties (hypothesis) and the
sampling design's inclusion probabilities checked by repeated draws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranklens import InputError, Run
from ranklens.judging import pool, sample_pool

A = Run.from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}, "q2": {"x": 1.0}}, name="A")
B = Run.from_dict({"q1": {"d": 9.0, "e": 8.0, "a": 1.0}, "q3": {}}, name="B")


def test_depth_pool_by_hand() -> None:
    # A's q1 order (trec ties: id descending): a 1, c 2, b 3, d 4; B's: d 1, e 2, a 3
    p = pool([A, B], depth=2)
    assert p.to_dict() == {"q1": {"a", "c", "d", "e"}, "q2": {"x"}, "q3": set()}
    assert p.query.to_pylist() == ["q1"] * 4 + ["q2"]
    assert p.doc.to_pylist() == ["d", "a", "e", "c", "x"]  # best ranks 1, 1, 2, 2, 1
    assert p.priority.tolist() == [1.0, 1.0, 2.0, 2.0, 1.0]
    assert p.rank.tolist() == [1, 2, 3, 4, 1]
    assert p.best_rank.tolist() == [1, 1, 2, 2, 1]
    assert p.to_arrow()["runs"].to_pylist() == ["B", "A", "B", "A", "A"]
    assert p.sizes() == {"q1": 4, "q2": 1, "q3": 0}
    # trectools' order: b before c on the tie at 2.0
    assert pool([A, B], depth=2, ties="trectools").to_dict()["q1"] == {"a", "b", "d", "e"}


def test_both_runs_count_at_equal_best_rank() -> None:
    a = Run.from_dict({"q": {"x": 2.0, "y": 1.0}})
    b = Run.from_dict({"q": {"z": 2.0, "y": 1.0}})
    c = Run.from_dict({"q": {"w": 2.0, "y": 1.0}})
    p = pool([a, b, c], depth=2)
    # y: best rank 2 (3 runs); x, z, w: best rank 1 (one run each), ids descending
    assert p.doc.to_pylist() == ["z", "x", "w", "y"]
    assert p.to_arrow()["n_runs"].to_pylist() == [1, 1, 1, 3]


def test_rrf_and_rbp_by_hand() -> None:
    # q1: a = 1/61 + 1/63, d = 1/64 + 1/61, e = 1/62, c = 1/62, b = 1/63
    p = pool([A, B], depth=3, strategy="rrf")
    q1 = [d for q, d in zip(p.query.to_pylist(), p.doc.to_pylist(), strict=True) if q == "q1"]
    assert q1 == ["a", "d", "e"]  # e and c tie at 1/62: id descending keeps e
    assert p.priority[0] == pytest.approx(1 / 61 + 1 / 63)
    # rbp p=0.5 sum: a = .5 + .125, d = .0625 + .5, c = e = .25, b = .125
    p = pool([A, B], depth=2, strategy="rbp", rbp_p=0.5)
    assert p.doc.to_pylist()[:2] == ["a", "d"]
    assert p.priority[:2].tolist() == [0.625, 0.5625]
    p = pool([A, B], depth=2, strategy="rbp", rbp_p=0.5, rbp_merge="max")
    assert p.doc.to_pylist()[:2] == ["d", "a"]  # both 0.5: id descending


def test_budgets() -> None:
    p = pool([A, B], depth=4, budget_per_query=2)
    assert p.sizes() == {"q1": 2, "q2": 1, "q3": 0}
    p = pool([A, B], depth=4, budget=3)  # dealt out: q1's 1st, q2's 1st, q1's 2nd
    assert list(zip(p.query.to_pylist(), p.doc.to_pylist(), strict=True)) == [
        ("q1", "d"),
        ("q1", "a"),
        ("q2", "x"),
    ]


def test_ap_prior_by_hand() -> None:
    # one run of Z = 3: (1 + H3 - H(r-1)) / 6 = 17/36, 11/36, 8/36
    run = Run.from_dict({"q": {"x": 3.0, "y": 2.0, "z": 1.0}})
    p = pool([run, Run.from_dict({"q": {"z": 1.0}})], depth=3)
    # the second run (Z = 1) gives z weight (1 + 1 - 0) / 2 = 1; averaged over 2 runs
    got = dict(zip(p.doc.to_pylist(), p.ap_prior.tolist(), strict=True))
    assert got == pytest.approx({"x": 17 / 72, "y": 11 / 72, "z": (8 / 36 + 1) / 2})


@pytest.mark.parametrize(
    ("kw", "word"),
    [
        ({"depth": 0}, "depth"),
        ({"strategy": "borda"}, "strategy"),
        ({"ties": "input"}, "ties"),
        ({"strategy": "rbp", "rbp_p": 1.0}, "rbp_p"),
        ({"budget": -1}, "budget"),
    ],
)
def test_bad_arguments_name_the_keyword(kw: dict[str, object], word: str) -> None:
    with pytest.raises(InputError, match=word):
        pool([A], **kw)  # type: ignore[arg-type]


def test_bad_runs() -> None:
    with pytest.raises(InputError, match="no runs"):
        pool([])
    with pytest.raises(InputError, match=r"not a ranklens\.Run"):
        pool([{"q": {"d": 1.0}}])  # type: ignore[list-item]


rankings = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3"]),
    st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]), st.integers(0, 3), max_size=8),
    max_size=3,
)


def _top(run: dict[str, dict[str, int]], q: str, k: int) -> set[str]:
    by_id = sorted(run.get(q, {}).items(), reverse=True)  # trec_eval: ids descending
    ranked = sorted(by_id, key=lambda kv: -kv[1])  # then score descending (stable)
    return {d for d, _ in ranked[:k]}


@settings(max_examples=60, deadline=None)
@given(st.lists(rankings, min_size=1, max_size=4), st.integers(1, 5))
def test_depth_pool_is_the_union_of_top_k(runs: list[dict[str, dict[str, int]]], k: int) -> None:
    p = pool(
        [
            Run.from_dict({q: {d: float(s) for d, s in r.items()} for q, r in x.items()})
            for x in runs
        ],
        depth=k,
    )
    got = p.to_dict()
    for q in {q for x in runs for q in x}:
        assert got[q] == set().union(*(_top(x, q, k) for x in runs))
    sizes = p.sizes()
    assert sum(sizes.values()) == len(p)
    assert all(s <= k * len(runs) for s in sizes.values())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(rankings, min_size=1, max_size=3),
    st.integers(1, 5),
    st.sampled_from(["rrf", "rbp"]),
    st.integers(1, 6),
    st.integers(0, 3),
    st.sampled_from(["uniform", "apprior"]),
    st.integers(0, 2**32),
)
def test_sample_inclusion_probabilities(
    runs: list[dict[str, dict[str, int]]],
    k: int,
    strategy: str,
    size: int,
    top: int,
    design: str,
    seed: int,
) -> None:
    built = [
        Run.from_dict({q: {d: float(s) for d, s in r.items()} for q, r in x.items()}) for x in runs
    ]
    p = pool(built, depth=k, strategy=strategy)
    assert all(s <= k for s in p.sizes().values())
    s = sample_pool(p, size, design=design, judged_depth=top, seed=seed)
    assert np.all((s.inclusion > 0) & (s.inclusion <= 1))
    assert np.all(s.inclusion[s.stratum == 0] == 1.0)
    assert np.all(s.selected[s.stratum == 0])
    q = np.asarray(p.query.to_pylist(), dtype=object)
    for name in set(q):
        rows = q == name
        lower = rows & (s.stratum == 1)
        n = min(size, int(lower.sum()))
        assert int(s.selected[lower].sum()) == n
        assert s.inclusion[lower].sum() == pytest.approx(n)
    again = sample_pool(p, size, design=design, judged_depth=top, seed=seed)
    assert np.array_equal(again.selected, s.selected)
    assert np.array_equal(again.inclusion, s.inclusion)


@pytest.mark.parametrize("design", ["uniform", "apprior"])
def test_draw_frequencies_match_inclusion_probabilities(design: str) -> None:
    rng = np.random.default_rng(7)
    runs = [
        Run.from_dict(
            {"q": {f"d{d}": float(rng.integers(0, 9)) for d in rng.choice(30, 15, replace=False)}}
        )
        for _ in range(3)
    ]
    p = pool(runs, depth=15)
    draws = 3000
    hits = np.zeros(len(p))
    for seed in range(draws):
        s = sample_pool(p, 4, design=design, judged_depth=2, seed=seed)
        hits += s.selected
    se = np.sqrt(s.inclusion * (1 - s.inclusion) / draws)
    assert np.all(np.abs(hits / draws - s.inclusion) <= 5 * se + 1e-12)
    if design == "apprior":  # not all equal: proportional to the prior
        assert np.ptp(s.inclusion[s.stratum == 1]) > 0.05


def test_rate_and_argument_errors() -> None:
    run = Run.from_dict({"q": {f"d{i}": float(i) for i in range(10)}})
    p = pool([run], depth=10)
    s = sample_pool(p, rate=0.25)  # round(2.5) half up: 3 of 10
    assert len(s) == 3 and s.inclusion.tolist() == [0.3] * 10
    with pytest.raises(InputError, match="exactly one of size"):
        sample_pool(p)
    with pytest.raises(InputError, match="rate"):
        sample_pool(p, rate=1.5)
    with pytest.raises(InputError, match="design"):
        sample_pool(p, 2, design="pps")
