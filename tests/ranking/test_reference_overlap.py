"""Run-to-run measures (``rbo``, ``run_jaccard``, ``run_kendall_tau``) against their
references: the ``rbo`` package's values committed in
``tests/conformance/peers/rbo.json`` (made in a side environment by
``tests/conformance/make_rbo_outputs.py``: the package pins numpy<2),
``scipy.stats.kendalltau`` (tau-b and tau-c) on random runs with tied scores, and
Python sets and brute-force sums of Webber et al.'s definitions for Jaccard and the RBO
bounds."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from tests.conformance import make_rbo_outputs as mk

PEER = Path(__file__).resolve().parents[1] / "conformance" / "peers" / "rbo.json"


def _run(lists: dict[str, list[str]]) -> rl.Run:
    """A run ranking each list in its order (distinct scores, best first)."""
    return rl.Run.from_dict(
        {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in lists.items()}
    )


def _pair_runs() -> tuple[dict[str, Any], rl.Run, rl.Run]:
    doc = json.loads(PEER.read_text())
    lists = doc["lists"]
    a = _run({q: v["a"] for q, v in lists.items()})
    b = _run({q: v["b"] for q, v in lists.items()})
    return doc, a, b


def test_rbo_agrees_with_committed_rbo_package_values() -> None:
    doc, a, b = _pair_runs()
    assert doc["version"] == "0.1.3"
    names = {}
    for p in mk.PS:
        names[f"rbo(p={p})"] = ("ext", str(p))
        for k in mk.KS:
            names[f"rbo(p={p},variant=trunc)@{k}"] = ("trunc", f"{p}@{k}")
            names[f"rbo(p={p})@{k}"] = ("ext_at", f"{p}@{k}")
    res = rl.compare_runs(a, b, list(names), queries="either")
    assert len(res.query_ids) == len(doc["lists"])
    compared = 0
    for name, (kind, key) in names.items():
        got = res.per_query(name)
        for q, lists in doc["lists"].items():
            la, lb = len(lists["a"]), len(lists["b"])
            if kind == "ext_at":
                k = int(key.split("@")[1])
                # eq. 30 at depth min(len, k): ranklens' ext of the cut lists when they
                # are equally long
                if min(la, k) != min(lb, k):
                    continue
            want = doc["values"][q][kind][key]
            assert got[q] == pytest.approx(want, rel=1e-12, abs=1e-12), (name, q)
            compared += 1
    assert compared > 700


@pytest.mark.reference
def test_committed_rbo_values_are_what_the_package_gives() -> None:
    pytest.importorskip(
        "rbo", reason="rbo pins numpy<2: it lives in a side environment (benchmarks/README.md)"
    )
    doc = json.loads(PEER.read_text())
    pairs = {q: (v["a"], v["b"]) for q, v in doc["lists"].items()}
    assert mk.values(pairs) == doc["values"]


# ------------------------------------------------------------- RBO bounds, brute force


def _brute(a: list[str], b: list[str], p: float, depth: int = 4000) -> dict[str, float]:
    """RBO_min and RBO_res at depth s = min(len) by summing Webber's series far out:
    past s, the minimum adds no overlap, the maximum all it can."""
    s = min(len(a), len(b))
    x = [len(set(a[:d]) & set(b[:d])) for d in range(1, s + 1)]
    xs = x[-1] if s else 0
    low = sum((1 - p) * p ** (d - 1) * x[d - 1] / d for d in range(1, s + 1))
    high = low
    for d in range(s + 1, depth):
        low += (1 - p) * p ** (d - 1) * xs / d
        high += (1 - p) * p ** (d - 1) * min(d, xs + 2 * (d - s)) / d
    return {"min": low, "res": high - low, "upper": high, "lower": low}


@pytest.mark.parametrize("p", [0.3, 0.7, 0.9])
def test_rbo_bounds_equal_the_summed_series(p: float) -> None:
    doc, a, b = _pair_runs()
    variants = ("min", "lower", "res", "upper")
    names = {f"rbo(p={p},variant={v})": v for v in variants}
    res = rl.compare_runs(a, b, list(names), queries="either")
    for q, lists in doc["lists"].items():
        want = _brute(lists["a"], lists["b"], p)
        for name, v in names.items():
            assert res.per_query(name)[q] == pytest.approx(want[v], abs=1e-9), (name, q)


def test_rbo_hand_computed() -> None:
    # a = x y z w, b = y x w: X = (0, 2, 2), s = 3, l = 4, p = 1/2
    a = rl.Run.from_dict({"q": {"x": 4, "y": 3, "z": 2, "w": 1}})
    b = rl.Run.from_dict({"q": {"y": 3, "x": 2, "w": 1}})
    res = rl.compare_runs(a, b, ["rbo(p=0.5)", "rbo(p=0.5,variant=trunc)"])
    # trunc: (1/2) (0 + 1/2 * 1 + 1/4 * 2/3) = 1/3
    assert res["rbo(p=0.5,variant=trunc)"] == pytest.approx(1 / 3)
    # ext (eq. 32): X_4 = 3; body = sum_{d<=4} X_d p^d / d = 0 + 2/4/2 + 2/8/3 + 3/16/4
    body = 0.25 + 1 / 12 + 3 / 64
    tail = 2 * (4 - 3) * 0.5**4 / (3 * 4)
    want = body + tail + ((3 - 2) / 4 + 2 / 3) * 0.5**4
    assert res["rbo(p=0.5)"] == pytest.approx(want)


def test_ties_follow_the_tie_policy() -> None:
    # x and y tie in a: trec order (doc id descending) ranks y first, input order x
    a = rl.Run.from_arrays(["q", "q"], ["x", "y"], [1.0, 1.0])
    b = rl.Run.from_dict({"q": {"x": 2.0, "y": 1.0}})
    m = "rbo(p=0.5,variant=trunc)@1"
    assert rl.compare_runs(a, b, [m], ties="input")[m] == pytest.approx(0.5)
    assert rl.compare_runs(a, b, [m], ties="trec")[m] == 0.0


def test_queries_of_one_run_only() -> None:
    a = rl.Run.from_dict({"q1": {"x": 1.0}, "q2": {"x": 1.0}})
    b = rl.Run.from_dict({"q1": {"x": 1.0}, "q3": {}})
    with pytest.warns(rl.RanklensWarning, match="2 queries ranked by one run only"):
        both = rl.compare_runs(a, b, ["rbo", "run_jaccard"])
    assert both.query_ids == ("q1",)
    either = rl.compare_runs(a, b, ["rbo", "run_jaccard"], queries="either")
    # q2: one empty list (nothing shared); q3: both empty (identical)
    assert either.per_query("rbo") == {"q1": 1.0, "q2": 0.0, "q3": 1.0}
    assert either["run_jaccard"] == pytest.approx(2 / 3)


def test_bad_arguments_name_the_keyword() -> None:
    a = rl.Run.from_dict({"q": {"x": 1.0}})
    with pytest.raises(rl.InputError, match="ties"):
        rl.compare_runs(a, a, ["rbo"], ties="expected")
    with pytest.raises(rl.InputError, match="queries"):
        rl.compare_runs(a, a, ["rbo"], queries="all")
    with pytest.raises(rl.InputError, match="run_b"):
        rl.compare_runs(a, {"q": {"x": 1.0}}, ["rbo"])
    with pytest.raises(rl.MetricNameError, match="not a run-to-run metric"):
        rl.compare_runs(a, a, ["ndcg@10"])
    with pytest.raises(rl.MetricParameterError, match="'p'"):
        rl.compare_runs(a, a, ["rbo(p=1)"])


# ------------------------------------------------------------- Jaccard and Kendall


def _random_runs(seed: int) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Two runs over shared and own documents with tied scores (one decimal), lists of
    0-25 documents, a query in one run only."""
    rng = np.random.default_rng(seed)
    ra: dict[str, dict[str, float]] = {}
    rb: dict[str, dict[str, float]] = {}
    for q in range(30):
        pool = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        for run in (ra, rb):
            docs = rng.choice(
                pool, size=int(rng.integers(0, min(25, len(pool)) + 1)), replace=False
            )
            run[f"q{q:02d}"] = {
                str(d): float(np.round(rng.normal(), 1 if q % 2 else 3)) for d in docs
            }
    rb["only_b"] = {"d1": 1.0}
    return ra, rb


def _top(run: dict[str, float], k: int | None) -> dict[str, float]:
    """The top k under trec order (score descending, doc id descending)."""
    ranked = sorted(run.items(), key=lambda kv: (-kv[1], [-ord(c) for c in kv[0]]))
    return dict(ranked if k is None else ranked[:k])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [None, 1, 5])
def test_jaccard_equals_python_sets(seed: int, k: int | None) -> None:
    ra, rb = _random_runs(seed)
    name = "run_jaccard" + ("" if k is None else f"@{k}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        res = rl.compare_runs(rl.Run.from_dict(ra), rl.Run.from_dict(rb), [name])
    got = res.per_query(name)
    assert set(got) == set(ra)
    for q in ra:
        sa, sb = set(_top(ra[q], k)), set(_top(rb[q], k))
        want = len(sa & sb) / len(sa | sb) if sa | sb else 1.0
        assert got[q] == pytest.approx(want), q


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("variant", ["b", "c"])
@pytest.mark.parametrize("items", ["common", "union"])
@pytest.mark.parametrize("k", [None, 7])
def test_kendall_tau_equals_scipy(seed: int, variant: str, items: str, k: int | None) -> None:
    stats = pytest.importorskip("scipy.stats")
    ra, rb = _random_runs(seed)
    name = f"run_kendall_tau(items={items},variant={variant})" + ("" if k is None else f"@{k}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        res = rl.compare_runs(rl.Run.from_dict(ra), rl.Run.from_dict(rb), [name])
    got = res.per_query(name)
    defined = 0
    for q in ra:
        a, b = _top(ra[q], k), _top(rb[q], k)
        if items == "common":
            docs = sorted(set(a) & set(b))
            x, y = [a[d] for d in docs], [b[d] for d in docs]
        else:
            docs = sorted(set(a) | set(b))
            low_a = min(a.values(), default=1.0) - 1.0
            low_b = min(b.values(), default=1.0) - 1.0
            x, y = [a.get(d, low_a) for d in docs], [b.get(d, low_b) for d in docs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on constant input
            want = stats.kendalltau(x, y, variant=variant).statistic if len(x) else math.nan
        if math.isnan(want):
            assert math.isnan(got[q]), q
            continue
        assert got[q] == pytest.approx(want, rel=1e-12, abs=1e-12), q
        defined += 1
    assert defined >= 5
