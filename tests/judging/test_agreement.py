"""Agreement between label sources: hand-computed cases, edge cases, and reference equality
with scikit-learn, statsmodels and ``krippendorff`` on random labels."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from ranklens import Qrels
from ranklens.errors import InputError
from ranklens.judging.agreement import (
    agreement,
    cohen_kappa,
    cohen_kappa_ci,
    fleiss_kappa,
    krippendorff_alpha,
)

SEEDS = range(12)


# --------------------------------------------------------------------------- hand-computed


def test_cohen_by_hand() -> None:
    # table [[2, 0], [1, 1]] of 4: po = 3/4, pe = 3/4*1/2 + 1/4*1/2 = 1/2 -> 0.5
    assert cohen_kappa([0, 0, 1, 1], [0, 0, 0, 1]) == pytest.approx(0.5)
    # quadratic, 3 categories: d = [[0, .25, 1], [.25, 0, .25], [1, .25, 0]]
    # a = [0, 1, 2], b = [1, 1, 2]: observed 0.25/3; r = c' : r = (1,1,1)/3, c = (0,2,1)/3
    # expected = sum d r c = (0*.. ) = (1/9) * (0.25*2 + 1*1 + 0 + 0.25*1 + 1*0 + 0.25*2 + 0)
    exp = (0.25 * 2 + 1 + 0.25 * 1 + 0.25 * 2) / 9
    assert cohen_kappa([0, 1, 2], [1, 1, 2], weights="quadratic") == pytest.approx(
        1 - (0.25 / 3) / exp
    )


def test_edge_cases() -> None:
    assert math.isnan(cohen_kappa([2, 2, 2], [2, 2, 2]))  # expected agreement 1: 0/0
    assert cohen_kappa([0, 1], [1, 0]) == pytest.approx(-1.0)  # perfect disagreement
    assert cohen_kappa([0, 1, 2], [0, 1, 2], weights="linear") == 1.0
    assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]]))
    assert krippendorff_alpha([[1, np.nan, 2], [1, 3, 2]]) == 1.0  # unit 2 not pairable
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))
    with pytest.raises(InputError, match="krippendorff_alpha"):
        cohen_kappa([0, np.nan], [0, 1])
    with pytest.raises(InputError, match="same items"):
        cohen_kappa([0, 1], [0])
    with pytest.raises(InputError, match="'weights'"):
        cohen_kappa([0, 1], [0, 1], weights="cubic")
    with pytest.raises(InputError, match="same number"):
        fleiss_kappa([[2, 0], [1, 2]])
    with pytest.raises(InputError, match="not in labels"):
        cohen_kappa([0, 1], [0, 2], labels=[0, 1])


# --------------------------------------------------------------------------- references


def _sk_kappa(a: object, b: object, **kw: object) -> float:
    """scikit-learn's kappa, its warning for an undefined value silenced (we check the NaN)."""
    import sklearn.metrics as skm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(skm.cohen_kappa_score(a, b, **kw))


def _pair(rng: np.random.Generator, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    a = rng.integers(-1, k - 1, n)  # negative grades included
    b = np.where(rng.random(n) < 0.6, a, rng.integers(-1, k - 1, n))
    return a, b


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_matches_sklearn_and_statsmodels(seed: int, weights: str | None) -> None:
    skm = pytest.importorskip("sklearn.metrics")
    ir = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(seed)
    a, b = _pair(rng, int(rng.integers(2, 60)), int(rng.integers(2, 6)))
    labels = np.unique(np.concatenate([a, b]))
    ref = _sk_kappa(a, b, weights=weights, labels=labels)
    got = cohen_kappa(a, b, weights=weights)
    assert got == pytest.approx(ref, abs=1e-12, nan_ok=True)
    table = skm.confusion_matrix(a, b, labels=labels)
    if weights is None:
        res = ir.cohens_kappa(table)
    else:
        res = ir.cohens_kappa(table, weights=np.arange(len(labels)), wt=weights)
    k, lo, hi = cohen_kappa_ci(a, b, weights=weights, level=0.95)
    assert k == pytest.approx(res.kappa, abs=1e-12, nan_ok=True)
    if np.isfinite(res.std_kappa):
        assert lo == pytest.approx(res.kappa_low, abs=1e-9)
        assert hi == pytest.approx(res.kappa_upp, abs=1e-9)


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
def test_fleiss_matches_statsmodels(seed: int) -> None:
    ir = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(seed)
    items, raters, k = int(rng.integers(1, 40)), int(rng.integers(2, 6)), int(rng.integers(2, 5))
    truth = rng.integers(0, k, items)
    data = np.where(
        rng.random((items, raters)) < 0.5, truth[:, None], rng.integers(0, k, (items, raters))
    )
    table, _ = ir.aggregate_raters(data, n_cat=k)
    ref = ir.fleiss_kappa(table, method="fleiss")
    assert fleiss_kappa(table) == pytest.approx(ref, abs=1e-12, nan_ok=True)


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_matches_krippendorff(seed: int, level: str) -> None:
    kd = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    raters, units, k = int(rng.integers(2, 5)), int(rng.integers(2, 50)), int(rng.integers(2, 6))
    truth = rng.integers(0, k, units).astype(float)
    data = np.where(rng.random((raters, units)) < 0.5, truth, rng.integers(0, k, (raters, units)))
    data = data.astype(float)
    if level == "ratio":
        data += 1.0  # ratio distances need positive values
    data[rng.random(data.shape) < 0.2] = np.nan  # missing values
    data[:, 0] = [data[0, 0] if np.isfinite(data[0, 0]) else 1.0] * raters  # >= 1 pairable unit
    if len(np.unique(data[np.isfinite(data)])) < 2:
        data[0, 1] = data[1, 1] = 2.0
    ref = kd.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level) == pytest.approx(ref, abs=1e-10)


# --------------------------------------------------------------------------- Qrels


def _qrels(rng: np.random.Generator, n_queries: int) -> tuple[Qrels, Qrels, list[tuple]]:
    rows = []
    for q in range(n_queries):
        for d in range(int(rng.integers(1, 12))):
            g = int(rng.integers(-1, 3))
            h = g if rng.random() < 0.6 else int(rng.integers(-1, 3))
            side = rng.random() if rows else 0.5  # the first pair in both sources
            rows.append((f"q{q}", f"d{d}", g if side > 0.1 else None, h if side < 0.9 else None))
    a = [(q, d, g) for q, d, g, _ in rows if g is not None]
    b = [(q, d, h) for q, d, _, h in rows if h is not None]
    qa = Qrels.from_arrays(*zip(*a, strict=True))
    qb = Qrels.from_arrays(*zip(*b, strict=True))
    return qa, qb, rows


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_qrels_agreement_per_query_matches_sklearn(seed: int, weights: str | None) -> None:
    pytest.importorskip("sklearn.metrics")
    kd = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    qa, qb, rows = _qrels(rng, int(rng.integers(1, 8)))
    res = agreement(qa, qb, weights=weights, n_resamples=200, seed=1)
    both = [(q, g, h) for q, _, g, h in rows if g is not None and h is not None]
    cats = np.unique(
        [g for _, g, _ in both]
        + [h for *_, h in both]
        + [r[2] for r in rows if r[2] is not None]
        + [r[3] for r in rows if r[3] is not None]
    )
    assert res.compared == len(both)
    assert res.only == {
        "source1": sum(r[3] is None for r in rows),
        "source2": sum(r[2] is None for r in rows),
    }
    assert len(res.missing()) == sum(r[2] is None or r[3] is None for r in rows)
    if both:
        ref = _sk_kappa(
            [g for _, g, _ in both], [h for *_, h in both], weights=weights, labels=cats
        )
        assert res.kappa == pytest.approx(ref, abs=1e-12, nan_ok=True)
    for i, q in enumerate(res.queries):
        mine = [(g, h) for qq, g, h in both if qq == q]
        if not mine:
            assert math.isnan(res.per_query_kappa[i])
            continue
        ref = _sk_kappa(*zip(*mine, strict=True), weights=weights, labels=cats)
        assert res.per_query_kappa[i] == pytest.approx(ref, abs=1e-12, nan_ok=True)
        data = np.array(
            [
                [np.nan if r[2] is None else r[2] for r in rows if r[0] == q],
                [np.nan if r[3] is None else r[3] for r in rows if r[0] == q],
            ],
            dtype=float,
        )
        pairable = np.isfinite(data).all(axis=0)
        if len(np.unique(data[:, pairable])) >= 2:
            ref_a = kd.alpha(reliability_data=data, level_of_measurement="nominal")
            assert res.per_query_alpha[i] == pytest.approx(ref_a, abs=1e-10)
    lo, hi = res.kappa_boot_ci
    assert (math.isnan(lo) and math.isnan(hi)) or lo <= hi


def test_agreement_three_sources_is_fleiss() -> None:
    a = Qrels.from_dict({"q1": {"x": 1, "y": 0, "z": 1}, "q2": {"x": 0}})
    b = Qrels.from_dict({"q1": {"x": 1, "y": 0, "z": 0}, "q2": {"x": 0}})
    c = Qrels.from_dict({"q1": {"x": 1, "y": 1, "z": 1}})
    res = agreement(a, b, c, names=["a", "b", "c"], n_resamples=50)
    # items judged by all: (q1,x) (q1,y) (q1,z) -> counts [[0,3],[2,1],[1,2]]
    assert res.compared == 3
    assert res.kappa == pytest.approx(fleiss_kappa([[0, 3], [2, 1], [1, 2]]))
    assert res.confusion is None
    assert res.missing() == [("q2", "x", ("c",))]


def test_agreement_errors() -> None:
    a = Qrels.from_dict({"q1": {"x": 1}})
    with pytest.raises(InputError, match="two or more"):
        agreement(a)
    with pytest.raises(InputError, match="not a Qrels"):
        agreement(a, {"q1": {"x": 1}})
    with pytest.raises(InputError, match="distinct names"):
        agreement(a, a, names=["h", "h"])


def test_bootstrap_is_seeded() -> None:
    rng = np.random.default_rng(3)
    qa, qb, _ = _qrels(rng, 6)
    one = agreement(qa, qb, n_resamples=300, seed=7)
    two = agreement(qa, qb, n_resamples=300, seed=7)
    assert one.kappa_boot_ci == two.kappa_boot_ci and one.alpha_ci == two.alpha_ci


@pytest.mark.reference
@pytest.mark.parametrize("seed", SEEDS)
def test_three_sources_per_query_fleiss_matches_statsmodels(seed: int) -> None:
    ir = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(seed)
    n_q, n_d, m = int(rng.integers(1, 6)), int(rng.integers(2, 10)), 3
    grades = rng.integers(-1, 3, (n_q, n_d, m))
    grades[..., 1:] = np.where(
        rng.random((n_q, n_d, m - 1)) < 0.6, grades[..., :1], grades[..., 1:]
    )
    sources = [
        Qrels.from_arrays(
            [f"q{q}" for q in range(n_q) for _ in range(n_d)],
            [f"d{d}" for _ in range(n_q) for d in range(n_d)],
            grades[:, :, s].ravel(),
        )
        for s in range(m)
    ]
    res = agreement(*sources, n_resamples=100)
    cats = np.unique(grades)
    for i, q in enumerate(res.queries):
        table, _ = ir.aggregate_raters(np.searchsorted(cats, grades[int(q[1:])]), n_cat=len(cats))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = ir.fleiss_kappa(table, method="fleiss")
        assert res.per_query_kappa[i] == pytest.approx(ref, abs=1e-12, nan_ok=True)
    table, _ = ir.aggregate_raters(np.searchsorted(cats, grades.reshape(-1, m)), n_cat=len(cats))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ir.fleiss_kappa(table, method="fleiss")
    assert res.kappa == pytest.approx(ref, abs=1e-12, nan_ok=True)
