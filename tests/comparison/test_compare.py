"""ranklens.comparison: tests and intervals against scipy/statsmodels and slow references."""

from __future__ import annotations

import math
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

scipy_stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")

import ranklens  # noqa: E402
import ranklens.comparison  # noqa: E402
from ranklens._shared import corrections  # noqa: E402
from ranklens.comparison import Comparison, compare  # noqa: E402
from ranklens.comparison import stats as st  # noqa: E402
from ranklens.errors import InputError, MetricParameterError, RanklensWarning  # noqa: E402


def _pair(n: int, seed: int, shift: float = 0.02) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(shift, 0.15, n), 0, 1)
    return a, b


# ------------------------------------------------------------------ scipy agreement


@pytest.mark.parametrize("seed", range(5))
def test_ttest_and_wilcoxon_agree_with_scipy(seed: int) -> None:
    a, b = _pair(60, seed)
    assert st.paired_ttest(a, b) == pytest.approx(scipy_stats.ttest_rel(b, a).pvalue, rel=1e-12)
    assert st.wilcoxon_test(a, b) == pytest.approx(scipy_stats.wilcoxon(b - a).pvalue, rel=1e-12)
    got = st.paired_pvalues(a, b, "t")
    assert got[0] == pytest.approx(scipy_stats.ttest_rel(b, a).pvalue, rel=1e-12)


def test_degenerate_tests() -> None:
    x = np.array([0.1, 0.5, 0.3])
    assert st.paired_ttest(x, x) == 1.0
    assert st.wilcoxon_test(x, x) == 1.0
    assert st.randomization_test(np.zeros(5), 100, seed=0) == 1.0


@pytest.mark.parametrize("seed", range(4))
def test_t_interval_agrees_with_scipy(seed: int) -> None:
    a, b = _pair(40, seed)
    lo, hi = st.mean_ci(b - a, "t", 0.9)
    ref = scipy_stats.ttest_1samp(b - a, 0).confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((ref.low, ref.high), rel=1e-10)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_intervals_agree_with_scipy(method: str) -> None:
    rng = np.random.default_rng(7)
    x = rng.exponential(1.0, 80)  # skewed, so BCa and percentile differ
    lo, hi = st.mean_ci(x, method, 0.95, n_resamples=40_000, seed=1)
    ref = scipy_stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=40_000,
        method=method,
        confidence_level=0.95,
        rng=np.random.default_rng(2),
    )
    se = x.std(ddof=1) / math.sqrt(x.size)
    # Monte-Carlo error of a bootstrap quantile is a small fraction of the standard error
    assert lo == pytest.approx(ref.confidence_interval.low, abs=0.05 * se)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=0.05 * se)


def test_bca_differs_from_percentile_on_skewed_data() -> None:
    x = np.random.default_rng(3).exponential(1.0, 30)
    p = st.mean_ci(x, "percentile", seed=0, n_resamples=5000)
    b = st.mean_ci(x, "bca", seed=0, n_resamples=5000)
    assert p != b and b[1] > p[1]


@pytest.mark.parametrize("method", ["holm", "bonferroni", "bh"])
def test_corrections_agree_with_statsmodels(method: str) -> None:
    p = np.random.default_rng(0).uniform(0, 0.2, 25)
    ref = multitest.multipletests(p, alpha=0.05, method={"bh": "fdr_bh"}.get(method, method))[1]
    np.testing.assert_allclose(st.correct(p, method), ref, rtol=0, atol=0)
    np.testing.assert_array_equal(st.correct(p, "none"), p)
    with_nan = np.append(p, np.nan)
    out = st.correct(with_nan, method)
    assert np.isnan(out[-1]) and np.allclose(out[:-1], ref)


# p = (0.01, 0.04, 0.03, 0.2), n = 4; sorted 0.01, 0.03, 0.04, 0.2 (positions 0, 2, 1, 3)
HAND_P = [0.01, 0.04, 0.03, 0.2]
HAND = {
    # p * n
    "bonferroni": [0.04, 0.16, 0.12, 0.8],
    # p * (n - i) over the sorted p: .04, .09, .08, .2, then running max: .04, .09, .09, .2
    "holm": [0.04, 0.09, 0.09, 0.2],
    # (n - i) p over the sorted p: .04, .09, .08, .2; running min from the largest down:
    # .04, .08, .08, .2
    "simes-hochberg": [0.04, 0.08, 0.08, 0.2],
    # p n / rank: .04, .06, .0533.., .2, running min from the top: .04, .0533.., .0533.., .2
    "bh": [0.04, 0.16 / 3, 0.16 / 3, 0.2],
    # bh times the harmonic number 1 + 1/2 + 1/3 + 1/4 = 25/12
    "by": [0.04 * 25 / 12, 0.16 / 3 * 25 / 12, 0.16 / 3 * 25 / 12, 0.2 * 25 / 12],
    # 1 - (1 - p)^n
    "sidak": [1 - 0.99**4, 1 - 0.96**4, 1 - 0.97**4, 1 - 0.8**4],
    # 1 - (1 - p)^(n - i) over the sorted p: .0394, .0873, .0784, .2; running max
    "holm-sidak": [1 - 0.99**4, 1 - 0.97**3, 1 - 0.97**3, 0.2],
    # closed Simes tests: the largest Simes p-value min_j |I| p_(j) / j over the sets I
    # holding the hypothesis; 0.04's is {0.04, 0.2}: min(2 * 0.04, 0.2) = 0.08
    "hommel": [0.04, 0.08, 0.06, 0.2],
    # alpha 0.05: the first stage (BH at 0.05) rejects 0.01 only (0.03 > 0.025), so the
    # BH values are scaled by (n - 1) / n = 3/4
    "tsbh": [0.03, 0.04, 0.04, 0.15],
    # BKY: first stage at 0.05 / 1.05 rejects 0.01 (0.01 <= 0.0119), not 0.03; scaled by
    # 3/4 * 1.05
    "tsbky": [0.0315, 0.042, 0.042, 0.1575],
}


@pytest.mark.parametrize("method", sorted(HAND))
def test_corrections_by_hand(method: str) -> None:
    np.testing.assert_allclose(st.correct(HAND_P, method), HAND[method], rtol=1e-12, atol=0)
    with_nan = [np.nan, *HAND_P]
    out = st.correct(with_nan, method)
    assert np.isnan(out[0])
    np.testing.assert_allclose(out[1:], HAND[method], rtol=1e-12, atol=0)


def test_corrections_are_statsmodels_bit_for_bit() -> None:
    """Ties, p-values of 0 and 1, families of one to 40 tests, several alphas (the
    two-stage methods depend on alpha): the same bits as multipletests."""
    rng = np.random.default_rng(7)
    for case in range(120):
        n = int(rng.integers(1, 41))
        p = rng.uniform(0, 1, n) ** 3
        if case % 3 == 0:
            p = np.round(p, 2)  # ties
        if case % 5 == 0:
            p[rng.integers(0, n)] = 0.0
        if case % 7 == 0:
            p[rng.integers(0, n)] = 1.0
        alpha = float(rng.choice([0.01, 0.05, 0.1, 0.3]))
        for ours, theirs in corrections.STATSMODELS.items():
            with np.errstate(divide="ignore", invalid="ignore"):
                want = multitest.multipletests(p, alpha=alpha, method=theirs)[1]
            np.testing.assert_array_equal(st.correct(p, ours, alpha), want, err_msg=ours)


def test_compare_imports_no_statsmodels_and_no_scipy_stats() -> None:
    """The default compare (randomization test, t interval, Holm) needs scipy.special for
    the t quantile only: scipy.stats and statsmodels take seconds to import."""
    code = (
        "import sys, ranklens; "
        "q = ranklens.Qrels.from_dict({f'q{i}': {'d1': 1} for i in range(4)}); "
        "a = ranklens.Run.from_dict({f'q{i}': {'d1': 1.0, 'd2': 2.0} for i in range(4)}); "
        "b = ranklens.Run.from_dict({f'q{i}': {'d1': 2.0 - i % 2, 'd2': 1.0} for i in range(4)}); "
        "ranklens.compare(q, {'a': a, 'b': b}, ['p@1', 'map'], seed=0); "
        "print(sorted(m for m in ('scipy.stats', 'statsmodels', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_cohens_d_paired() -> None:
    a, b = _pair(50, 1)
    d = b - a
    assert st.cohens_d_paired(a, b) == pytest.approx(d.mean() / d.std(ddof=1))


# ------------------------------------------------------------------ resampling tests


def _slow_randomization(d: np.ndarray, R: int, rng: np.random.Generator) -> float:
    obs = abs(d.mean())
    count = 0
    for _ in range(R):
        signs = rng.choice([-1.0, 1.0], size=d.size)
        if abs((signs * d).mean()) >= obs - 1e-12:
            count += 1
    return (count + 1) / (R + 1)


def _slow_bootstrap(d: np.ndarray, B: int, rng: np.random.Generator) -> float:
    obs = abs(d.mean())
    shifted = d - d.mean()
    count = 0
    for _ in range(B):
        sample = shifted[rng.integers(0, d.size, d.size)]
        if abs(sample.mean()) >= obs - 1e-12:
            count += 1
    return (count + 1) / (B + 1)


def _exact_randomization(d: np.ndarray) -> float:
    """All 2^n sign vectors (small n): the exact permutation p-value."""
    n = d.size
    signs = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0
    stats_ = np.abs(signs @ d)
    return float(np.mean(stats_ >= abs(d.sum()) - 1e-12))


@pytest.mark.parametrize("seed", range(3))
def test_randomization_matches_slow_and_exact(seed: int) -> None:
    a, b = _pair(14, seed, shift=0.05)
    d = b - a
    R = 4000
    fast = st.randomization_test(d, R, seed=seed)
    slow = _slow_randomization(d, R, np.random.default_rng(seed + 100))
    exact = _exact_randomization(d)
    se = math.sqrt(exact * (1 - exact) / R) + 1 / R
    assert abs(fast - exact) < 4 * se
    assert abs(slow - exact) < 4 * se
    assert abs(fast - slow) < 4 * math.sqrt(2) * se


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_matches_slow(seed: int) -> None:
    a, b = _pair(40, seed, shift=0.03)
    d = b - a
    B = 4000
    fast = st.bootstrap_test(d, B, seed=seed)
    slow = _slow_bootstrap(d, B, np.random.default_rng(seed + 100))
    p = (fast + slow) / 2
    se = math.sqrt(2 * p * (1 - p) / B) + 1 / B
    assert abs(fast - slow) < 4 * se


def test_resampling_is_reproducible_and_columnwise_consistent() -> None:
    rng = np.random.default_rng(0)
    d = rng.normal(0.01, 0.1, (500, 3))
    for fn in (st.randomization_test, st.bootstrap_test):
        p1 = fn(d, 1000, seed=42)
        p2 = fn(d, 1000, seed=42)
        np.testing.assert_array_equal(p1, p2)
        p3 = fn(d, 1000, seed=np.random.default_rng(42))
        np.testing.assert_array_equal(p1, p3)
        # one column alone sees the same random stream
        assert fn(d[:, 1], 1000, seed=42) == p1[1]
        assert not np.array_equal(p1, fn(d, 1000, seed=43))


def test_same_pvalue_at_any_thread_count() -> None:
    code = (
        "import numpy as np; from ranklens.comparison import stats as st;"
        "d = np.random.default_rng(5).normal(0.004, 0.1, (3000, 4));"
        "print(repr(st.randomization_test(d, 2000, seed=9).tolist()),"
        " repr(st.bootstrap_test(d, 2000, seed=9).tolist()))"
    )
    outs = set()
    for threads in ("1", "2"):
        env = {
            "OMP_NUM_THREADS": threads,
            "OPENBLAS_NUM_THREADS": threads,
            "MKL_NUM_THREADS": threads,
            "PATH": "/usr/bin:/bin",
        }
        res = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.add(res.stdout)
    assert len(outs) == 1


def test_bad_parameters() -> None:
    with pytest.raises(MetricParameterError, match="n_resamples"):
        st.randomization_test([0.1, 0.2], 0)
    with pytest.raises(MetricParameterError, match="seed"):
        st.randomization_test([0.1, 0.2], 10, seed="x")  # type: ignore[arg-type]
    with pytest.raises(MetricParameterError, match="'ci'"):
        st.mean_ci([0.1, 0.2], "normal")
    with pytest.raises(MetricParameterError, match="'correction'"):
        st.correct([0.1], "tukey")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: st.correct([0.1], "tukey"),
            "the 'correction' parameter must be one of 'holm', 'bonferroni', 'bh', 'sidak', "
            "'holm-sidak', 'simes-hochberg', 'hommel', 'by', 'tsbh', 'tsbky', 'none', got 'tukey'.",
        ),
        (
            lambda: st.mean_ci([0.1, 0.2], "normal"),
            "the 'ci' parameter must be one of 't', 'percentile', 'bca', got 'normal'.",
        ),
        (
            lambda: st.correct([0.1], alpha=1.5),
            "the 'alpha' parameter must be a number in (0, 1), got 1.5; e.g. 0.05.",
        ),
        (
            lambda: st.mean_ci([0.1, 0.2], level=95),
            "the 'level' parameter must be a number in (0, 1), got 95; e.g. 0.95.",
        ),
        (
            lambda: st.randomization_test([0.1, 0.2], 0),
            "the 'n_resamples' parameter must be a positive integer, got 0; e.g. 10000.",
        ),
    ],
)
def test_parameter_messages(call: Any, message: str) -> None:
    with pytest.raises(MetricParameterError) as info:
        call()
    assert str(info.value) == message


def test_one_correction_list_with_the_statsmodels_spellings_deprecated() -> None:
    from ranklens.online import CORRECTIONS as ONLINE

    assert st.CORRECTIONS == ONLINE == corrections.CORRECTIONS
    assert set(st.CORRECTION_NAMES) == set(st.CORRECTIONS)
    assert set(corrections.STATSMODELS) == set(st.CORRECTIONS) - {"none"}
    p = np.array([0.01, 0.04, 0.03, 0.2, np.nan])
    for old, new in corrections.DEPRECATED.items():
        assert new in st.CORRECTIONS and old not in st.CORRECTIONS
        with pytest.warns(
            ranklens.RanklensDeprecationWarning,
            match=rf"^correct: correction='{old}' is deprecated .*; pass "
            rf"correction='{new}'$",
        ):
            got = st.correct(p, old)
        np.testing.assert_array_equal(got, st.correct(p, new))
    ref = multitest.multipletests(p[:4], method="fdr_by")[1]
    np.testing.assert_allclose(st.correct(p, "by")[:4], ref, rtol=0, atol=0)


# ------------------------------------------------------------------ compare()


def _tables(
    n_queries: int = 40, n_docs: int = 8, seed: int = 0
) -> tuple[ranklens.Qrels, dict[str, ranklens.Run]]:
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(n_docs)} for i in range(n_queries)
    }
    runs = {}
    for name, noise in (("bm25", 2.0), ("dense", 1.0), ("oracle", 0.5)):
        runs[name] = ranklens.Run.from_dict(
            {
                q: {d: float(r + rng.normal(0, noise)) for d, r in docs.items()}
                for q, docs in qrels.items()
            },
            name=name,
        )
    return ranklens.Qrels.from_dict(qrels), runs


def test_compare_against_baseline() -> None:
    qrels, runs = _tables()
    cmp = compare(
        qrels, runs, ["ndcg@5", "map"], baseline="bm25", test="t", correction="holm", seed=0
    )
    assert isinstance(cmp, Comparison)
    assert cmp.systems == ("bm25", "dense", "oracle") and cmp.test == "t"
    assert len(cmp.pairs) == 4
    res = {n: ranklens.evaluate(qrels, r, ["ndcg@5", "map"]) for n, r in runs.items()}
    for s in runs:
        assert cmp.mean(s, "map") == pytest.approx(res[s]["map"])
    p = cmp.pair("oracle", "bm25", "ndcg@5")
    a, b = res["bm25"].values["ndcg@5"], res["oracle"].values["ndcg@5"]
    assert p.p_value == pytest.approx(scipy_stats.ttest_rel(b, a).pvalue)
    raw = [q.p_value for q in cmp.pairs]
    np.testing.assert_allclose(
        [q.p_adjusted for q in cmp.pairs], multitest.multipletests(raw, method="holm")[1]
    )
    assert p.mean_diff == pytest.approx(b.mean() - a.mean())
    assert p.relative == pytest.approx((b.mean() - a.mean()) / a.mean())
    assert p.wins + p.ties + p.losses == 40
    assert p.wins == int((b - a > 1e-12).sum())
    assert p.significant and cmp.better_than("oracle", "ndcg@5") == ["bm25"]
    assert cmp.pair("bm25", "oracle", "ndcg@5").mean_diff == pytest.approx(-p.mean_diff)
    lo, hi = scipy_stats.ttest_1samp(b, 0).confidence_interval(0.95)
    assert (cmp.ci_low[2, 0], cmp.ci_high[2, 0]) == pytest.approx((lo, hi))
    # a module-level call works too
    again = ranklens.compare(
        qrels,
        runs,
        ["ndcg@5", "map"],
        baseline="bm25",
        test="t",  # type: ignore[operator]
        seed=0,
    )
    np.testing.assert_array_equal(again.means, cmp.means)


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "wilcoxon"])
def test_compare_pairwise_is_reproducible(test: str) -> None:
    qrels, runs = _tables(seed=1)
    kw = dict(test=test, correction="bh", seed=3, n_resamples=500, ci="bca")
    c1 = compare(qrels, runs, ["ndcg@5"], **kw)  # type: ignore[arg-type]
    c2 = compare(qrels, runs, ["ndcg@5"], **kw)  # type: ignore[arg-type]
    assert len(c1.pairs) == 3 and c1.baseline is None
    assert [p.p_value for p in c1.pairs] == [p.p_value for p in c2.pairs]
    np.testing.assert_array_equal(c1.ci_low, c2.ci_low)
    assert "Benjamini-Hochberg" in c1.description


def test_compare_accepts_results_and_lists() -> None:
    qrels, runs = _tables(seed=2)
    res = [ranklens.evaluate(qrels, r, ["p@3", "mrr"]) for r in runs.values()]
    cmp = compare(None, res, baseline="bm25", test="t")
    assert cmp.metrics == ("p@3", "mrr") and cmp.systems == ("bm25", "dense", "oracle")
    dup = compare(None, [res[0], res[0]], test="t")
    assert dup.systems == ("bm25", "bm25-2")


def test_named_systems() -> None:
    """compare's names, also used by the HTML report: keys, run names, run1.., repeats."""
    from ranklens.comparison.systems import named_systems

    qrels, runs = _tables(seed=2)
    bm25 = runs["bm25"]
    res = ranklens.evaluate(qrels, bm25, ["p@3"])
    anonymous = ranklens.Run.from_dict({"q0": {"d0": 1.0}})
    assert named_systems({"x": bm25}) == [("x", bm25)]
    assert [n for n, _ in named_systems([bm25, res, anonymous, bm25])] == [
        "bm25",
        "bm25-2",
        "run3",
        "bm25-3",
    ]
    assert named_systems([]) == []
    with pytest.raises(InputError, match="system 'a' is a dict"):
        named_systems({"a": {}})
    with pytest.raises(InputError, match="runs must be a mapping"):
        named_systems("bm25")  # type: ignore[arg-type]


def test_compare_warns_on_missing_queries() -> None:
    qrels, runs = _tables(seed=3)
    part = ranklens.Run.from_dict({"q0": {"d0": 1.0}, "q1": {"d1": 1.0}, "q2": {"d2": 1.0}})
    with pytest.warns(RanklensWarning, match="missing"):
        cmp = compare(qrels, {"a": runs["bm25"], "b": part}, ["p@1"], test="t")
    assert cmp.n_queries["p@1"] == 3
    cmp0 = compare(qrels, {"a": runs["bm25"], "b": part}, ["p@1"], test="t", missing="zero")
    assert cmp0.n_queries["p@1"] == 40


def test_compare_input_errors() -> None:
    qrels, runs = _tables(seed=4)
    with pytest.raises(InputError, match="baseline"):
        compare(qrels, runs, ["p@1"], baseline="nope")
    with pytest.raises(InputError, match="at least two"):
        compare(qrels, {"a": runs["bm25"]}, ["p@1"])
    with pytest.raises(MetricParameterError, match="'test'"):
        compare(qrels, runs, ["p@1"], test="z")
    with pytest.raises(MetricParameterError, match="'alpha'"):
        compare(qrels, runs, ["p@1"], alpha=1.5)
    with pytest.raises(InputError, match="qrels"):
        compare(None, runs, ["p@1"])


def test_render_formats() -> None:
    import json

    qrels, runs = _tables(seed=5)
    cmp = compare(qrels, runs, ["ndcg@5", "map"], baseline="bm25", test="t")
    table = cmp.render("table", color=False)
    assert "(c) oracle" in table and "W/T/L" in table and "paired t-test" in table
    md = cmp.render("markdown")
    assert md.startswith("| system |") and "<sup>a</sup>" in md and "**" in md
    tex = cmp.render("latex")
    assert r"\toprule" in tex and r"\textbf{" in tex and "$^{a}$" in tex and "Holm" in tex
    doc = json.loads(cmp.render("json"))
    assert doc["test"] == "t" and doc["correction"] == "holm" and len(doc["tests"]) == 4
    csv_text = cmp.render("csv")
    assert csv_text.splitlines()[0].startswith("system,metric,n_queries,mean,ci_low")
    assert len(csv_text.splitlines()) == 1 + 3 * 2
    frame = cmp.to_frame()
    assert list(frame["system"]) == ["bm25", "bm25", "dense", "dense", "oracle", "oracle"]
    assert len(cmp.pairs_frame()) == 4
    assert "Comparison 3 systems" in repr(cmp)
    with pytest.raises(ValueError, match="format"):
        cmp.render("html")


def test_import_ranklens_stays_light() -> None:
    code = (
        "import sys, ranklens, ranklens.comparison, ranklens.render.plots, ranklens.cli;"
        "bad = [m for m in ('scipy', 'statsmodels', 'matplotlib') if m in sys.modules];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_better_follows_the_catalogue_direction() -> None:
    """Lower is better for num_nonrel_judged_ret; a count (num_ret) has no better side."""
    qrels = ranklens.Qrels.from_dict({f"q{i}": {"a": 1, "b": 0, "c": 0} for i in range(30)})
    a = ranklens.Run.from_dict({f"q{i}": {"a": 3, "b": 2, "c": 1} for i in range(30)})
    b = ranklens.Run.from_dict({f"q{i}": {"a": 3, "x": 2, "y": 1} for i in range(30)})
    cmp = ranklens.compare(qrels, {"A": a, "B": b}, ["num_nonrel_judged_ret", "num_ret"], seed=0)
    assert cmp.pair("B", "A", "num_nonrel_judged_ret").significant
    assert cmp.better_than("B", "num_nonrel_judged_ret") == ["A"]
    assert cmp.better_than("A", "num_nonrel_judged_ret") == []
    assert cmp.better_than("A", "num_ret") == cmp.better_than("B", "num_ret") == []


def test_compare_takes_every_correction_and_the_old_spellings() -> None:
    qrels, runs = _tables(20, 6, seed=4)
    kw: dict[str, Any] = dict(test="t", seed=0)
    sidak = compare(qrels, runs, ["ndcg@5"], correction="sidak", **kw)
    assert sidak.correction == "sidak" and "Sidak correction" in sidak.description
    with pytest.warns(
        ranklens.RanklensDeprecationWarning,
        match=r"^compare: correction='fdr_bh' is deprecated .*; pass "
        r"correction='bh'$",
    ):
        old = compare(qrels, runs, ["ndcg@5"], correction="fdr_bh", **kw)
    new = compare(qrels, runs, ["ndcg@5"], correction="bh", **kw)
    assert old.correction == "bh"
    assert [t.p_adjusted for t in old.pairs] == [t.p_adjusted for t in new.pairs]


def test_metrics_that_are_not_a_list_or_are_empty_are_one_error() -> None:
    """compare(metrics=5) ended in TypeError, metrics=[] in 'correct: pvalues is empty'."""
    import ranklens
    from ranklens.errors import InputError

    qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}})
    run = ranklens.Run.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d1": 2, "d2": 1}})
    with pytest.raises(InputError, match="metrics must be a metric string or a list"):
        ranklens.compare(qrels, {"a": run, "b": run}, 5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="metrics is empty"):
        ranklens.compare(qrels, {"a": run, "b": run}, [])
