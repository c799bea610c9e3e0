"""Contract of every public statistical function of ranklens.comparison and ranklens.online.

In the spirit of scikit-learn's ``sklearn/metrics/tests/test_common.py``: one
registry (:data:`SPECS`) describes every public test, interval, correction,
effect size and power / sample-size function, and generic tests check each of
them against the same rules:

(a) **NaN never gives a confident number.**  A NaN in a *value* argument
    (per-query scores, estimates, variances, per-unit values) makes the
    affected outputs NaN (or raises our error); a NaN in a *count* or a
    *parameter* (units, successes, alpha, power, n_resamples, seed, ...)
    raises our error naming the argument.  The one documented exception is
    :func:`ranklens.online.msprt`, where a look with a NaN is a look without
    data: it is skipped, which is checked to give exactly the result without
    that look (never a smaller p-value).
(b) **Impossible inputs raise our error** (a :class:`RanklensError` that is also
    a ``ValueError``, with a message naming the argument), never a raw
    numpy / scipy / statsmodels exception or warning (warnings are errors in
    this test suite) and never a number.
(c) **Valid inputs give valid outputs**: p-values in [0, 1], ``lo <= hi``, the
    point estimate inside intervals that are centred on it, sizes that reach
    the requested power.
(d) **Agreement with scipy / statsmodels** on random valid inputs, to 1e-9
    where the reference computes the same number, within Monte Carlo error
    for resampling.

A public function added to one of :data:`MODULES` without an entry in
:data:`SPECS` or :data:`NOT_IN_SPECS` fails :func:`test_every_public_function_is_listed`.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

scipy_stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")
smprop = pytest.importorskip("statsmodels.stats.proportion")
smpower = pytest.importorskip("statsmodels.stats.power")
smws = pytest.importorskip("statsmodels.stats.weightstats")

import ranklens  # noqa: E402
from ranklens._shared import corrections  # noqa: E402
from ranklens.comparison import compare  # noqa: E402
from ranklens.comparison import stats as cst  # noqa: E402
from ranklens.errors import InputError, RanklensError, RanklensWarning  # noqa: E402

compare_pkg = importlib.import_module("ranklens.comparison")
online_pkg = importlib.import_module("ranklens.online")
opw = importlib.import_module("ranklens.online.power_analysis")
cpw = importlib.import_module("ranklens.comparison.power")
oseq = importlib.import_module("ranklens.online.sequential")
ost = importlib.import_module("ranklens.online.stats")

MODULES = (
    "ranklens.comparison.stats",
    "ranklens.comparison.systems",
    "ranklens.comparison.power",
    "ranklens.online.stats",
    "ranklens.online.power_analysis",
    "ranklens.online.sequential",
    "ranklens.online.metrics",
    "ranklens.online.analysis",
    "ranklens.online.aggregates",
)
# modules of the packages' public functions that compute no statistics, or whose
# estimators have a reference suite of their own (off-policy evaluation: equal to Open
# Bandit Pipeline and a coverage simulation, tests/online/test_ope*.py)
OTHER_MODULES = ("ranklens.online.assignment", "ranklens.online._hashing", "ranklens.online.ope")

SEEDS = hst.integers(0, 2**32 - 1)
FAST = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
FEW = settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
REL = 1e-9


# ======================================================================================
# the registry
# ======================================================================================
@dataclass(frozen=True)
class Spec:
    """How to call one function and what it promises.

    ``valid(rng)`` gives keyword arguments of a valid call.  ``values`` are the
    arguments where a NaN must give NaN outputs: ``nan_out(result, pos)`` picks
    the outputs that a NaN at index ``pos`` of such an argument must make NaN.
    ``strict`` are the arguments where a NaN must raise our error naming the
    argument.  ``impossible`` holds (overrides of a valid call, regex of the
    message) that must raise our error.  ``check(result, kwargs)`` asserts (c).
    """

    fn: Callable[..., Any]
    valid: Callable[[np.random.Generator], dict[str, Any]]
    values: tuple[str, ...] = ()
    nan_out: Callable[[Any, Any], list[Any]] | None = None
    strict: tuple[str, ...] = ()
    impossible: tuple[tuple[dict[str, Any], str], ...] = ()
    check: Callable[[Any, dict[str, Any]], None] | None = None


def _pick(arr: Any, pos: Any) -> list[Any]:
    """The element of ``arr`` at ``pos`` (every element when ``pos`` is ``()``, i.e. the
    NaN was in a scalar that broadcasts to all of them)."""
    a = np.asarray(arr, dtype=np.float64)
    if pos == () or a.ndim == 0:
        return list(a.ravel())
    return [a[pos]]


def _fields(*names: str) -> Callable[[Any, Any], list[Any]]:
    def pick(res: Any, pos: Any) -> list[Any]:
        out: list[Any] = []
        for n in names:
            out += _pick(getattr(res, n), pos[:1] if pos else pos)
        return out

    return pick


def _prob(p: Any) -> None:
    arr = np.asarray(p, dtype=np.float64)
    assert np.all((arr >= 0) & (arr <= 1)), arr


def _inside(lo: Any, mid: Any, hi: Any) -> None:
    lo, mid, hi = (np.asarray(x, dtype=np.float64) for x in (lo, mid, hi))
    tol = 1e-12 * (1 + np.abs(mid))
    assert np.all(lo <= mid + tol) and np.all(mid <= hi + tol), (lo, mid, hi)


# ---------------------------------------------------------------- ranklens.comparison.stats
def _paired_1d(rng: np.random.Generator) -> dict[str, Any]:
    n = int(rng.integers(5, 40))
    a = rng.uniform(0, 1, n)
    return {"a": a, "b": a + rng.normal(0.05, 0.2, n)}


def _paired_2d(rng: np.random.Generator) -> dict[str, Any]:
    n = int(rng.integers(5, 40))
    a = rng.uniform(0, 1, (n, 3))
    return {"a": a, "b": a + rng.normal(0.05, 0.2, (n, 3))}


def _diffs(rng: np.random.Generator) -> dict[str, Any]:
    n = int(rng.integers(3, 30))
    return {
        "d": rng.normal(0.05, 0.2, (n, 3)),
        "n_resamples": 199,
        "seed": int(rng.integers(0, 2**31)),
    }


def _column(res: Any, pos: Any) -> list[Any]:
    return [np.atleast_1d(res)[pos[1]]]


def _check_resampling_p(res: Any, kw: dict[str, Any]) -> None:
    _prob(res)
    assert np.all(np.asarray(res) >= 1 / (kw["n_resamples"] + 1))


def _check_mean_ci(res: Any, kw: dict[str, Any]) -> None:
    lo, hi = res
    assert np.all(lo <= hi)
    if kw["method"] == "t":
        _inside(lo, np.asarray(kw["x"]).mean(axis=0), hi)


def _check_correct(res: Any, kw: dict[str, Any]) -> None:
    _prob(res)
    assert np.all(res >= np.asarray(kw["pvalues"]) - 1e-15)


def _check_cohens_d(res: Any, kw: dict[str, Any]) -> None:
    d = np.asarray(kw["b"]) - np.asarray(kw["a"])
    assert np.all(np.sign(res) == np.sign(d.mean(axis=0)))


_EMPTY_PAIR = ({"a": [], "b": []}, r"no queries")
_SHORT_B = ({"b": [0.1, 0.2]}, r"a and b must hold the same queries")
_SCALAR_B = ({"b": [0.5]}, r"a and b must hold the same queries")
_TEXT_B = ({"a": ["x", "y"], "b": ["1", "z"]}, r"must be numbers")

COMPARE_SPECS: dict[str, Spec] = {
    "ranklens.comparison.stats.paired_ttest": Spec(
        cst.paired_ttest,
        _paired_1d,
        values=("a", "b"),
        nan_out=lambda r, p: [r],
        impossible=(
            _EMPTY_PAIR,
            _SHORT_B,
            _SCALAR_B,
            _TEXT_B,
            ({"a": np.zeros((4, 2)), "b": np.ones((4, 2))}, r"must be 1-d"),
        ),
        check=lambda r, kw: _prob(r),
    ),
    "ranklens.comparison.stats.wilcoxon_test": Spec(
        cst.wilcoxon_test,
        _paired_1d,
        values=("a", "b"),
        nan_out=lambda r, p: [r],
        impossible=(
            _EMPTY_PAIR,
            _SHORT_B,
            _SCALAR_B,
            ({"a": np.zeros((4, 2)), "b": np.ones((4, 2))}, r"must be 1-d"),
        ),
        check=lambda r, kw: _prob(r),
    ),
    "ranklens.comparison.stats.randomization_test": Spec(
        cst.randomization_test,
        _diffs,
        values=("d",),
        nan_out=_column,
        strict=("n_resamples", "seed"),
        impossible=(
            ({"d": []}, r"d holds no queries"),
            ({"d": np.zeros((2, 2, 2))}, r"d must be a 1-d"),
            ({"n_resamples": 0}, r"'n_resamples'"),
            ({"n_resamples": 2.5}, r"'n_resamples'"),
            ({"seed": -1}, r"'seed'"),
            ({"seed": "x"}, r"'seed'"),
        ),
        check=_check_resampling_p,
    ),
    "ranklens.comparison.stats.bootstrap_test": Spec(
        cst.bootstrap_test,
        _diffs,
        values=("d",),
        nan_out=_column,
        strict=("n_resamples", "seed"),
        impossible=(
            ({"d": []}, r"d holds no queries"),
            ({"d": np.zeros((2, 2, 2))}, r"d must be a 1-d"),
            ({"n_resamples": -3}, r"'n_resamples'"),
            ({"seed": 1.5}, r"'seed'"),
        ),
        check=_check_resampling_p,
    ),
    "ranklens.comparison.stats.paired_pvalues": Spec(
        cst.paired_pvalues,
        lambda rng: {
            **_paired_2d(rng),
            "n_resamples": 99,
            "seed": 1,
            "test": cst.TESTS[int(rng.integers(len(cst.TESTS)))],
        },
        values=("a", "b"),
        nan_out=_column,
        strict=("n_resamples", "seed"),
        impossible=(
            ({"a": np.zeros((3, 3)), "b": np.zeros((3, 2))}, r"a and b"),
            ({"a": np.zeros((0, 3)), "b": np.zeros((0, 3))}, r"no queries"),
            ({"test": "z"}, r"'test'"),
        ),
        check=lambda r, kw: _prob(r),
    ),
    "ranklens.comparison.stats.mean_ci": Spec(
        cst.mean_ci,
        lambda rng: {
            "x": rng.normal(0.3, 0.2, (int(rng.integers(3, 30)), 3)),
            "method": cst.CI_METHODS[int(rng.integers(3))],
            "level": 0.9,
            "n_resamples": 199,
            "seed": int(rng.integers(0, 2**31)),
        },
        values=("x",),
        strict=("level", "n_resamples", "seed"),
        nan_out=lambda r, pos: [r[0][pos[1]], r[1][pos[1]]],
        impossible=(
            ({"x": []}, r"x holds no queries"),
            ({"x": np.zeros((2, 2, 2))}, r"x must be a 1-d"),
            ({"level": 1.0}, r"'level'"),
            ({"level": 0}, r"'level'"),
            ({"method": "normal"}, r"'ci'"),
            ({"method": "bca", "boot": np.zeros((5, 7))}, r"boot must"),
        ),
        check=_check_mean_ci,
    ),
    "ranklens.comparison.stats.bootstrap_means": Spec(
        cst.bootstrap_means,
        lambda rng: {
            "x": rng.normal(0.3, 0.2, (int(rng.integers(2, 30)), 3)),
            "n_resamples": 49,
            "rng": int(rng.integers(0, 2**31)),
        },
        values=("x",),
        strict=("n_resamples", "rng"),
        nan_out=lambda r, pos: list(r[:, pos[1]]),
        impossible=(
            ({"x": np.zeros((0, 2))}, r"x holds no queries"),
            ({"n_resamples": 0}, r"'n_resamples'"),
            ({"rng": "x"}, r"'rng'"),
        ),
        check=lambda r, kw: _inside(np.min(kw["x"], axis=0), r, np.max(kw["x"], axis=0)),
    ),
    "ranklens.comparison.stats.cohens_d_paired": Spec(
        cst.cohens_d_paired,
        _paired_2d,
        values=("a", "b"),
        nan_out=lambda r, pos: [r[pos[1]]],
        impossible=(_EMPTY_PAIR, ({"b": np.zeros((3, 3))}, r"a and b")),
        check=_check_cohens_d,
    ),
    "ranklens.comparison.stats.correct": Spec(
        cst.correct,
        lambda rng: {
            "pvalues": rng.uniform(0, 0.3, int(rng.integers(1, 12))),
            "method": cst.CORRECTIONS[int(rng.integers(len(cst.CORRECTIONS)))],
            "alpha": 0.05,
        },
        values=("pvalues",),
        nan_out=lambda r, pos: [r[pos[0]]],
        strict=("alpha",),
        impossible=(
            ({"pvalues": []}, r"pvalues is empty"),
            ({"pvalues": [0.2, 1.5]}, r"pvalues\[1\] is 1.5"),
            ({"pvalues": [-0.01]}, r"pvalues\[0\]"),
            ({"pvalues": [0.1, np.inf]}, r"pvalues\[1\]"),
            ({"alpha": 2.0}, r"'alpha'"),
            ({"method": "tukey"}, r"'correction'"),
        ),
        check=_check_correct,
    ),
}


# ---------------------------------------------------------------- ranklens.online.stats
def _normal_kw(rng: np.random.Generator) -> dict[str, Any]:
    return {
        "estimate": rng.normal(1.0, 0.3, 3),
        "variance": rng.uniform(0.001, 0.05, 3),
        "control_estimate": rng.normal(1.0, 0.3, 3),
        "control_variance": rng.uniform(0.001, 0.05, 3),
        "alpha": 0.1,
    }


def _props_kw(rng: np.random.Generator) -> dict[str, Any]:
    n = rng.integers(20, 5000, 3)
    nc = rng.integers(20, 5000, 3)
    return {
        "successes": rng.binomial(n, rng.uniform(0.02, 0.98, 3)),
        "n": n,
        "control_successes": rng.binomial(nc, rng.uniform(0.02, 0.98, 3)),
        "control_n": nc,
        "alpha": 0.05,
    }


def _welch_kw(rng: np.random.Generator) -> dict[str, Any]:
    return {
        "mean": rng.normal(5, 1, 3),
        "var": rng.uniform(0.5, 4, 3),
        "n": rng.integers(2, 500, 3),
        "control_mean": rng.normal(5, 1, 3),
        "control_var": rng.uniform(0.5, 4, 3),
        "control_n": rng.integers(2, 500, 3),
        "alpha": 0.05,
    }


def _check_comparison(res: Any, kw: dict[str, Any]) -> None:
    _prob(res.p_value)
    _inside(res.ci_lower, res.diff, res.ci_upper)
    _inside(res.rel_ci_lower, res.rel_diff, res.rel_ci_upper)
    assert np.all(res.std_error >= 0)


def _check_welch(res: Any, kw: dict[str, Any]) -> None:
    _check_comparison(res, kw)
    nt, nc = np.asarray(kw["n"]), np.asarray(kw["control_n"])
    # Welch-Satterthwaite degrees of freedom lie between min(n) - 1 and n_t + n_c - 2
    assert np.all(res.df >= np.minimum(nt, nc) - 1 - 1e-9)
    assert np.all(res.df <= nt + nc - 2 + 1e-9)


def _ratio_kw(rng: np.random.Generator) -> dict[str, Any]:
    units = int(rng.integers(2, 60))
    imps = 1 + rng.poisson(5, (3, units))
    return {"numerator": rng.binomial(imps, 0.1).astype(float), "denominator": imps.astype(float)}


def _srm_kw(rng: np.random.Generator) -> dict[str, Any]:
    k = int(rng.integers(2, 5))
    names = [f"v{i}" for i in range(k)]
    return {
        "observed": {v: int(rng.integers(0, 5000)) + 1 for v in names},
        "expected_share": {v: float(rng.uniform(0.1, 1)) for v in names},
        "threshold": 0.001,
    }


def _check_srm(res: Any, kw: dict[str, Any]) -> None:
    _prob(res.p_value)
    assert res.statistic >= 0
    assert res.mismatch == (res.p_value < kw["threshold"])
    assert sum(res.expected_share.values()) == pytest.approx(1.0)


ONLINE_STATS_SPECS: dict[str, Spec] = {
    "ranklens.online.stats.normal_comparison": Spec(
        ost.normal_comparison,
        _normal_kw,
        values=("estimate", "variance", "control_estimate", "control_variance"),
        nan_out=_fields(
            "statistic", "p_value", "ci_lower", "ci_upper", "rel_ci_lower", "rel_ci_upper"
        ),
        strict=("alpha",),
        impossible=(
            ({"variance": -0.01}, r"variance must be >= 0"),
            ({"control_variance": [0.1, -1, 0.1]}, r"control_variance must be >= 0"),
            ({"alpha": 0}, r"alpha"),
            ({"alpha": 1.0}, r"alpha"),
            ({"estimate": [1.0, 2.0]}, r"broadcast"),
            ({"estimate": "x"}, r"estimate must be numbers"),
        ),
        check=_check_comparison,
    ),
    "ranklens.online.stats.two_proportion_ztest": Spec(
        ost.two_proportion_ztest,
        _props_kw,
        strict=("successes", "n", "control_successes", "control_n", "alpha"),
        impossible=(
            (
                {"successes": 60, "n": 50, "control_successes": 10, "control_n": 100},
                r"successes=60 exceeds n=50",
            ),
            (
                {"control_successes": [10, 200, 10], "control_n": [100, 100, 100]},
                r"control_successes=200 exceeds control_n=100 at index 1",
            ),
            ({"successes": -1}, r"successes must be a count"),
            ({"successes": 2.5}, r"successes must be a count"),
            ({"n": [100, 0, 100], "successes": 0}, r"n is 0 at index 1"),
            ({"control_n": 0, "control_successes": 0}, r"control_n is 0"),
            ({"n": np.inf}, r"n must be a count"),
            ({"alpha": -0.1}, r"alpha"),
            ({"n": [10, 20]}, r"broadcast"),
        ),
        check=_check_comparison,
    ),
    "ranklens.online.stats.welch_ttest": Spec(
        ost.welch_ttest,
        _welch_kw,
        values=("mean", "var", "control_mean", "control_var"),
        nan_out=_fields(
            "statistic", "p_value", "ci_lower", "ci_upper", "rel_ci_lower", "rel_ci_upper"
        ),
        strict=("n", "control_n", "alpha"),
        impossible=(
            ({"var": -1.0}, r"var must be >= 0"),
            ({"control_var": -1e-9}, r"control_var must be >= 0"),
            ({"n": 0}, r"n is 0"),
            ({"control_n": 10.5}, r"control_n must be a count"),
            ({"n": -4}, r"n must be a count"),
            ({"alpha": 1.5}, r"alpha"),
            ({"mean": [1.0, 2.0]}, r"broadcast"),
        ),
        check=_check_welch,
    ),
    "ranklens.online.stats.relative_difference": Spec(
        ost.relative_difference,
        lambda rng: {**{k: v for k, v in _normal_kw(rng).items() if k != "alpha"}, "crit": 1.96},
        values=("estimate", "variance", "control_estimate", "control_variance", "crit"),
        nan_out=lambda r, pos: _pick(r[1], pos) + _pick(r[2], pos),
        impossible=(
            ({"variance": -1.0}, r"variance must be >= 0"),
            ({"crit": -1.0}, r"crit must be >= 0"),
            ({"estimate": [1.0, 2.0]}, r"broadcast"),
        ),
        check=lambda r, kw: _inside(r[1], r[0], r[2]),
    ),
    "ranklens.online.stats.delta_method_ratio": Spec(
        ost.delta_method_ratio,
        _ratio_kw,
        values=("numerator", "denominator"),
        nan_out=lambda r, pos: [r[0][pos[0]], r[1][pos[0]]],
        impossible=(
            ({"numerator": np.zeros((3, 0)), "denominator": np.zeros((3, 0))}, r"no units"),
            ({"numerator": np.ones((3, 4)), "denominator": np.ones((3, 5))}, r"broadcast"),
            ({"axis": 2}, r"axis=2"),
            ({"numerator": 1.0, "denominator": 2.0}, r"axis"),
        ),
        check=lambda r, kw: (
            np.testing.assert_array_less(-1e-15, r[1][np.isfinite(r[1])]),
            _inside(0, r[0], 1),
        ),
    ),
    "ranklens.online.stats.cuped_theta": Spec(
        ost.cuped_theta,
        lambda rng: {"y": rng.normal(0, 1, int(rng.integers(2, 50))), "x": None},
        values=("y", "x"),
        nan_out=lambda r, pos: [r],
        impossible=(
            ({"y": [], "x": []}, r"no units"),
            ({"y": [1.0, 2.0], "x": [1.0]}, r"y and x must be 1-d"),
            ({"y": np.ones((2, 2)), "x": np.ones((2, 2))}, r"y and x must be 1-d"),
        ),
        check=lambda r, kw: math.isfinite(r),
    ),
    "ranklens.online.stats.sample_ratio_mismatch": Spec(
        ost.sample_ratio_mismatch,
        _srm_kw,
        strict=("observed", "expected_share", "threshold"),
        impossible=(
            ({"observed": {"v0": -5, "v1": 10}}, r"observed\['v0'\] is -5"),
            ({"observed": {"v0": 5.5, "v1": 10}}, r"observed\['v0'\]"),
            ({"observed": {"v0": 5, "v1": 10, "zz": 3}}, r"observed has variant\(s\) \['zz'\]"),
            (
                {"observed": {"v0": 5, "v1": 5}, "expected_share": {"v0": 0, "v1": 1}},
                r"expected_share\['v0'\] is 0",
            ),
            (
                {"observed": {"v0": 5}, "expected_share": {"v0": 1.0}},
                r"expected_share must plan at least two",
            ),
            ({"threshold": 0.0}, r"threshold"),
            ({"threshold": 1}, r"threshold"),
            ({"observed": [1, 2]}, r"observed and expected_share must be mappings"),
        ),
        check=_check_srm,
    ),
    "ranklens.online.stats.sign_test": Spec(
        ost.sign_test,
        lambda rng: {
            "wins": rng.integers(0, 30, size=5),
            "losses": rng.integers(0, 30, size=5),
        },
        strict=("wins", "losses"),
        impossible=(
            ({"wins": [-1, 2]}, r"wins"),
            ({"losses": [1.5, 2]}, r"losses"),
        ),
        check=lambda r, kw: bool(np.all((r >= 0) & (r <= 1) | np.isnan(r))),
    ),
}


def _cuped_valid(rng: np.random.Generator) -> dict[str, Any]:
    n = int(rng.integers(2, 50))
    x = rng.normal(0, 1, n)
    return {"y": 0.7 * x + rng.normal(0, 1, n), "x": x}


ONLINE_STATS_SPECS["ranklens.online.stats.cuped_theta"] = dataclasses.replace(
    ONLINE_STATS_SPECS["ranklens.online.stats.cuped_theta"], valid=_cuped_valid
)


# ---------------------------------------------------------------- ranklens.online.power
def _power_common(rng: np.random.Generator) -> dict[str, Any]:
    kind = ("proportion", "mean", "ratio")[int(rng.integers(3))]
    kw: dict[str, Any] = {
        "kind": kind,
        "alpha": float(rng.choice([0.01, 0.05, 0.1])),
        "ratio": float(rng.choice([0.5, 1.0, 2.0])),
    }
    if kind == "proportion":
        kw["baseline"] = float(rng.uniform(0.05, 0.6))
    else:
        kw["baseline"] = float(rng.uniform(1, 10))
        kw["std"] = float(rng.uniform(0.5, 5))
    return kw


def _sample_size_kw(rng: np.random.Generator) -> dict[str, Any]:
    kw = _power_common(rng)
    kw["effect"] = float(rng.uniform(0.02, 0.2)) * (
        kw["baseline"] if kw["kind"] == "proportion" else kw.get("std", 1)
    )
    kw["power"] = float(rng.choice([0.7, 0.8, 0.9]))
    return kw


def _mde_kw(rng: np.random.Generator) -> dict[str, Any]:
    kw = _power_common(rng)
    kw["n_control"] = int(rng.integers(2000, 50_000))
    kw["power"] = float(rng.choice([0.7, 0.8, 0.9]))
    return kw


def _power_kw(rng: np.random.Generator) -> dict[str, Any]:
    kw = _power_common(rng)
    kw["effect"] = float(rng.uniform(0.01, 0.1)) * (
        kw["baseline"] if kw["kind"] == "proportion" else kw.get("std", 1)
    )
    kw["n_control"] = int(rng.integers(10, 20_000))
    return kw


def _check_sample_size(res: Any, kw: dict[str, Any]) -> None:
    assert res.n_control >= 1 and res.n_treatment >= 1
    assert res.total == res.n_control + res.n_treatment
    args = {k: v for k, v in kw.items() if k != "power"}
    # the sizes reach the requested power (treatment rounded up, so a little more)
    got = opw.power(**{**args, "n_control": max(res.n_control, 2)})
    assert got >= kw["power"] - 1e-9
    if res.n_control > 2:  # and are the smallest that do
        assert opw.power(**{**args, "n_control": res.n_control - 1}) < kw["power"] + 1e-9


def _check_mde(res: Any, kw: dict[str, Any]) -> None:
    assert res.absolute > 0 and res.effect_size > 0
    args = {k: v for k, v in kw.items() if k != "power"}
    assert opw.power(**args, effect=res.absolute) == pytest.approx(kw["power"], abs=1e-9)


_MEAN = {"kind": "mean", "baseline": 1.0, "std": 1.0}
POWER_SPECS: dict[str, Spec] = {
    "ranklens.online.power_analysis.sample_size": Spec(
        opw.sample_size,
        _sample_size_kw,
        strict=("baseline", "effect", "std", "alpha", "power", "ratio"),
        impossible=(
            ({"alpha": 0.0}, r"alpha"),
            ({"alpha": 1.0}, r"alpha"),
            ({"power": 0.0}, r"power"),
            ({"power": 1.0}, r"power"),
            ({"ratio": 0.0}, r"ratio"),
            ({"comparisons": 0}, r"comparisons"),
            ({"comparisons": 1.5}, r"comparisons"),
            ({"effect": 0.0}, r"effect"),
            ({**_MEAN, "std": -1.0}, r"std"),
            ({**_MEAN, "std": 0.0}, r"std"),
            ({"kind": "proportion", "baseline": 1.5, "std": None}, r"baseline"),
            ({"kind": "proportion", "baseline": 0.0, "std": None}, r"baseline"),
            (
                {"kind": "proportion", "baseline": 0.9, "effect": 0.2, "std": None},
                r"not a proportion",
            ),
            ({**_MEAN, "baseline": 0.0, "relative": True}, r"relative=True"),
            ({"kind": "median"}, r"kind"),
        ),
        check=_check_sample_size,
    ),
    "ranklens.online.power_analysis.minimum_detectable_effect": Spec(
        opw.minimum_detectable_effect,
        _mde_kw,
        strict=("baseline", "n_control", "std", "alpha", "power", "ratio"),
        impossible=(
            ({"n_control": 1}, r"n_control"),
            ({"n_control": 100.5}, r"n_control"),
            ({"n_control": -10}, r"n_control"),
            ({"alpha": 1.0}, r"alpha"),
            ({"power": 1.5}, r"power"),
            (
                {"kind": "proportion", "baseline": 0.9, "n_control": 5, "std": None},
                r"increase n_control",
            ),
        ),
        check=_check_mde,
    ),
    "ranklens.online.power_analysis.power": Spec(
        opw.power,
        _power_kw,
        strict=("baseline", "effect", "n_control", "std", "alpha", "ratio"),
        impossible=(
            ({"n_control": 0.5}, r"n_control"),
            ({"n_control": 99.9}, r"n_control"),
            ({"alpha": 1.0}, r"alpha"),
            ({"ratio": -1.0}, r"ratio"),
        ),
        check=lambda r, kw: (_prob(r), _inside(kw["alpha"] / 2, r, 1)),
    ),
    "ranklens.online.power_analysis.ratio_unit_std": Spec(
        opw.ratio_unit_std,
        lambda rng: {k: v[0] for k, v in _ratio_kw(rng).items()},
        strict=("numerator", "denominator"),
        impossible=(
            ({"numerator": [1.0, 2.0], "denominator": [1.0]}, r"equally long"),
            ({"numerator": [1.0], "denominator": [1.0]}, r"at least two units"),
            ({"numerator": [1.0, 2.0], "denominator": [0.0, 0.0]}, r"sums to zero"),
        ),
        check=lambda r, kw: _inside(0, r, math.inf),
    ),
}


# ---------------------------------------------------------------- ranklens.online.sequential
def _msprt_kw(rng: np.random.Generator) -> dict[str, Any]:
    looks = int(rng.integers(1, 12))
    v = np.sort(rng.uniform(0.001, 0.2, (2, looks)), axis=1)[:, ::-1].copy()
    return {
        "diff": rng.normal(0.05, 0.1, (2, looks)),
        "variance": v,
        "tau": float(rng.uniform(0.05, 0.5)),
        "alpha": 0.05,
        "null": 0.0,
    }


def _check_msprt(res: Any, kw: dict[str, Any]) -> None:
    _prob(res.p_value)
    assert np.all(np.diff(res.p_value, axis=-1) <= 0)
    assert np.all(res.ci_lower <= res.ci_upper)
    assert np.all(np.diff(res.ci_lower, axis=-1) >= 0)
    assert np.all(np.diff(res.ci_upper, axis=-1) <= 0)
    assert np.array_equal(res.rejected, res.p_value <= kw["alpha"])


SEQUENTIAL_SPECS: dict[str, Spec] = {
    "ranklens.online.sequential.mixture_tau": Spec(
        oseq.mixture_tau,
        lambda rng: {"variance": rng.uniform(1e-4, 1.0, 3), "alpha": 0.05},
        strict=("variance", "alpha"),
        impossible=(
            ({"variance": -1.0}, r"variance must be positive"),
            ({"variance": [0.1, 0.0]}, r"variance must be positive"),
            ({"alpha": 0.0}, r"alpha"),
        ),
        check=lambda r, kw: np.testing.assert_array_less(0, r),
    ),
    # diff/variance: a NaN look is a skipped look, see test_msprt_nan_look_is_a_skipped_look
    "ranklens.online.sequential.msprt": Spec(
        oseq.msprt,
        _msprt_kw,
        strict=("tau", "null", "alpha"),
        impossible=(
            ({"diff": np.zeros((2, 0)), "variance": np.zeros((2, 0))}, r"no looks"),
            (
                {"variance": [[0.1, -0.1], [0.1, 0.1]], "diff": np.zeros((2, 2))},
                r"variance must be >= 0",
            ),
            ({"diff": [0.1, 0.2], "variance": [0.1]}, r"same shape"),
            ({"diff": 0.1, "variance": 0.1}, r"same shape"),
            ({"tau": 0.0}, r"tau must be positive"),
            ({"tau": [0.1, 0.2, 0.3]}, r"tau of shape \(3,\)"),
            ({"null": math.inf}, r"null must be a finite number"),
            ({"alpha": 1.0}, r"alpha"),
        ),
        check=_check_msprt,
    ),
}


# ------------------------------------------------------------ ranklens.comparison.power
def _pilot_kw(rng: np.random.Generator) -> dict[str, Any]:
    n = int(rng.integers(5, 60))
    return {
        "differences": rng.normal(rng.uniform(-0.05, 0.05), rng.uniform(0.05, 0.3), n),
        "alpha": float(rng.choice([0.01, 0.05])),
        "power": float(rng.choice([0.7, 0.8, 0.9])),
    }


def _check_tss(res: Any, kw: dict[str, Any]) -> None:
    sd = float(np.std(kw["differences"], ddof=1))
    es = kw["delta"] / sd
    assert isinstance(res, int) and res >= 2
    assert cpw.paired_power(es, res, alpha=kw["alpha"]) >= kw["power"] - 1e-12
    if res > 2:
        assert cpw.paired_power(es, res - 1, alpha=kw["alpha"]) < kw["power"]


def _check_mdd(res: Any, kw: dict[str, Any]) -> None:
    d = kw["differences"]
    es = res / float(np.std(d, ddof=1))
    assert cpw.paired_power(es, d.size, alpha=kw["alpha"]) == pytest.approx(kw["power"], abs=1e-9)


def _check_power_check(res: Any, kw: dict[str, Any]) -> None:
    _prob(res.power_at_observed)
    assert res.n == len(kw["differences"]) and res.minimum_detectable > 0
    assert res.underpowered == (abs(res.observed) < res.minimum_detectable)


PILOT_SPECS: dict[str, Spec] = {
    "ranklens.comparison.power.paired_power": Spec(
        cpw.paired_power,
        lambda rng: {
            "effect_size": float(rng.uniform(-1, 1)),
            "n": int(rng.integers(2, 200)),
            "alpha": 0.05,
        },
        strict=("effect_size", "n", "alpha"),
        impossible=(({"n": 1}, r"\bn\b"), ({"alpha": 1.0}, r"alpha"), ({"n": 2.5}, r"\bn\b")),
        check=lambda r, kw: (_prob(r), _inside(kw["alpha"] / 2, r, 1)),
    ),
    "ranklens.comparison.power.topic_set_size": Spec(
        cpw.topic_set_size,
        lambda rng: {**_pilot_kw(rng), "delta": float(rng.uniform(0.02, 0.2))},
        strict=("differences", "delta", "alpha", "power"),
        impossible=(
            ({"delta": 0.0}, r"delta"),
            ({"power": 0.01}, r"power"),
            ({"differences": [0.1]}, r"differences"),
            ({"differences": [0.1, 0.1]}, r"all equal"),
        ),
        check=_check_tss,
    ),
    "ranklens.comparison.power.minimum_detectable_difference": Spec(
        cpw.minimum_detectable_difference,
        _pilot_kw,
        strict=("differences", "alpha", "power"),
        impossible=(({"n": 1}, r"\bn\b"), ({"alpha": 0.0}, r"alpha"), ({"power": 1.0}, r"power")),
        check=_check_mdd,
    ),
    "ranklens.comparison.power.power_check": Spec(
        cpw.power_check,
        _pilot_kw,
        strict=("differences", "alpha", "power"),
        impossible=(({"differences": [1.0]}, r"differences"), ({"power": 1.2}, r"power")),
        check=_check_power_check,
    ),
}

SPECS: dict[str, Spec] = {
    **COMPARE_SPECS,
    **ONLINE_STATS_SPECS,
    **POWER_SPECS,
    **SEQUENTIAL_SPECS,
    **PILOT_SPECS,
}
# NaN rule other than "NaN out": msprt skips a look whose difference or variance is NaN
NAN_SKIPS_LOOK = {"ranklens.online.sequential.msprt": ("diff", "variance")}

# public functions of MODULES that are not in SPECS, and where their contract is tested
NOT_IN_SPECS: dict[str, str] = {
    "ranklens.comparison.power.comparison_power": "power_check of a Comparison's pairs: "
    "test_compare_power_note (tests/cli/test_compare_cli.py)",
    "ranklens.comparison.systems.compare": "end to end: test_compare_drops_undefined_queries_"
    "for_every_system, test_compare_impossible_inputs",
    "ranklens.comparison.systems.named_systems": "input naming, no statistics: "
    "test_named_systems (test_compare.py)",
    "ranklens.comparison.systems.evaluated_systems": "compare's input step, no statistics: "
    "through compare and html_report",
    "ranklens.comparison.stats.resolve_rng": "parameter validator: test_parameter_validators",
    "ranklens.comparison.stats.check_alpha": "parameter validator: test_parameter_validators",
    "ranklens.comparison.stats.check_resamples": "parameter validator: test_parameter_validators",
    "ranklens.comparison.stats.check_correction": "parameter validator: test_parameter_validators",
    "ranklens.online.analysis.analyze": "end to end: test_analyze_contract",
    "ranklens.online.aggregates.analyze_units": "equal to analyze on the same units, and "
    "input errors: tests/online/"
    "test_online_aggregates.py",
    "ranklens.online.aggregates.analyze_stats": "equal to analyze from the sums, and input "
    "errors: tests/online/"
    "test_online_aggregates.py",
    "ranklens.online.aggregates.stats_columns": "column names, no statistics "
    "(tests/online/test_online_aggregates.py)",
    "ranklens.online.metrics.parse_metric": "metric strings, no statistics "
    "(tests/test_online_analysis.py)",
}


# ======================================================================================
# completeness
# ======================================================================================
def _public_functions(module: str) -> set[str]:
    mod = importlib.import_module(module)
    return {
        f"{module}.{name}"
        for name, obj in vars(mod).items()
        if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module
    }


def test_every_public_function_is_listed() -> None:
    found = set().union(*(_public_functions(m) for m in MODULES))
    listed = set(SPECS) | set(NOT_IN_SPECS)
    assert found - listed == set(), (
        "public functions without a contract entry: add them to "
        "SPECS (or NOT_IN_SPECS with the test that covers them)"
    )
    assert listed - found == set(), "entries for functions that no longer exist"


@pytest.mark.parametrize("package", [compare_pkg, online_pkg])
def test_package_exports_come_from_listed_modules(package: Any) -> None:
    """A statistic exported from a new module must add that module to MODULES."""
    for name in package.__all__:
        obj = getattr(package, name)
        if inspect.isfunction(obj):
            assert obj.__module__ in MODULES + OTHER_MODULES, (name, obj.__module__)


def test_every_spec_states_its_nan_rule() -> None:
    for name, spec in SPECS.items():
        params = inspect.signature(spec.fn).parameters
        kw = spec.valid(np.random.default_rng(0))
        numeric = {k for k, v in kw.items() if not isinstance(v, str) and v is not None}
        covered = set(spec.values) | set(spec.strict) | set(NAN_SKIPS_LOOK.get(name, ()))
        assert numeric - covered == set(), (name, numeric - covered)
        assert covered <= set(params), (name, covered - set(params))
        assert bool(spec.values) == (spec.nan_out is not None), name


# ======================================================================================
# (a) NaN
# ======================================================================================
def _with_nan(value: Any, rng: np.random.Generator) -> tuple[Any, Any]:
    """``value`` with one element set to NaN, and where (index, key or ``()``)."""
    if isinstance(value, dict):
        key = list(value)[int(rng.integers(len(value)))]
        return {**value, key: float("nan")}, key
    arr = np.array(value, dtype=np.float64)
    if arr.ndim == 0:
        return float("nan"), ()
    pos = tuple(int(rng.integers(s)) for s in arr.shape)
    arr[pos] = np.nan
    return arr, pos


def _cases(kind: str) -> list[tuple[str, str]]:
    return [(name, arg) for name, spec in SPECS.items() for arg in getattr(spec, kind)]


@pytest.mark.parametrize(("name", "arg"), _cases("values"))
@FEW
@given(seed=SEEDS)
def test_nan_in_a_value_gives_nan(name: str, arg: str, seed: int) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(seed)
    kw = spec.valid(rng)
    kw[arg], pos = _with_nan(kw[arg], rng)
    try:
        res = spec.fn(**kw)
    except RanklensError:
        return
    assert spec.nan_out is not None
    out = np.asarray(spec.nan_out(res, pos), dtype=np.float64)
    assert out.size and np.all(np.isnan(out)), (name, arg, pos, out)


@pytest.mark.parametrize(("name", "arg"), _cases("strict"))
@FEW
@given(seed=SEEDS)
def test_nan_in_a_count_or_parameter_raises(name: str, arg: str, seed: int) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(seed)
    kw = spec.valid(rng)
    kw[arg], _ = _with_nan(1.0 if kw.get(arg) is None else kw[arg], rng)
    with pytest.raises(RanklensError, match=rf"(?<![A-Za-z_]){re.escape(arg)}(?![A-Za-z_])"):
        spec.fn(**kw)


@pytest.mark.parametrize("fn", [cst.randomization_test, cst.bootstrap_test])
@FAST
@given(seed=SEEDS, bad=hst.sampled_from([np.nan, np.inf, -np.inf]))
def test_resampling_nan_column_leaves_the_other_columns_alone(
    fn: Callable[..., Any], seed: int, bad: float
) -> None:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.05, 0.2, (int(rng.integers(2, 30)), 3))
    clean = fn(d, 199, seed=7)
    d[int(rng.integers(d.shape[0])), 1] = bad
    got = fn(d, 199, seed=7)
    assert math.isnan(got[1])
    assert got[0] == clean[0] and got[2] == clean[2]
    assert math.isnan(fn(d[:, 1], 199, seed=7))


@FAST
@given(seed=SEEDS)
def test_correct_leaves_nan_out_of_the_family(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.3, int(rng.integers(1, 10)))
    gaps = np.insert(p, rng.integers(0, p.size + 1, 2), np.nan)
    for method in cst.CORRECTIONS:
        got = cst.correct(gaps, method)
        assert np.array_equal(np.isnan(got), np.isnan(gaps))
        np.testing.assert_array_equal(got[~np.isnan(gaps)], cst.correct(p, method))
    assert np.isnan(cst.correct([np.nan, np.nan])).all()


@FAST
@given(seed=SEEDS)
def test_msprt_nan_look_is_a_skipped_look(seed: int) -> None:
    rng = np.random.default_rng(seed)
    kw = _msprt_kw(rng)
    looks = kw["diff"].shape[1]
    k = int(rng.integers(looks))
    for arg in ("diff", "variance"):
        nan = {**kw, arg: kw[arg].copy()}
        nan[arg][:, k] = np.nan
        got = oseq.msprt(**nan)
        keep = np.arange(looks) != k
        if keep.any():
            ref = oseq.msprt(
                **{**kw, "diff": kw["diff"][:, keep], "variance": kw["variance"][:, keep]}
            )
            np.testing.assert_array_equal(got.p_value[:, keep], ref.p_value)
            np.testing.assert_array_equal(got.ci_lower[:, keep], ref.ci_lower)
            np.testing.assert_array_equal(got.ci_upper[:, keep], ref.ci_upper)
        before = got.p_value[:, k - 1] if k else np.ones(2)
        np.testing.assert_array_equal(got.p_value[:, k], before)  # no evidence from it
        assert (got.log_lr[:, k] == 0).all()
    every = oseq.msprt(np.full((2, looks), np.nan), np.full((2, looks), np.nan), tau=0.1)
    assert (every.p_value == 1).all() and not every.rejected.any()
    assert np.isinf(every.ci_lower).all() and np.isinf(every.ci_upper).all()


# ======================================================================================
# (b) impossible inputs
# ======================================================================================
def _impossible_cases() -> list[Any]:
    return [
        pytest.param(name, i, id=f"{name.rsplit('.', 1)[1]}-{i}")
        for name, spec in SPECS.items()
        for i in range(len(spec.impossible))
    ]


@pytest.mark.parametrize(("name", "i"), _impossible_cases())
def test_impossible_inputs_raise_our_error(name: str, i: int) -> None:
    spec = SPECS[name]
    override, match = spec.impossible[i]
    kw = {**spec.valid(np.random.default_rng(0)), **override}
    with pytest.raises(RanklensError, match=match) as info:
        spec.fn(**kw)
    assert isinstance(info.value, ValueError)


def test_every_function_has_impossible_inputs() -> None:
    for name, spec in SPECS.items():
        assert spec.impossible, name


def test_data_errors_are_input_errors() -> None:
    """Impossible data (not parameters) raise InputError itself, as the project promises."""
    with pytest.raises(InputError, match="successes=60 exceeds n=50"):
        online_pkg.two_proportion_ztest(60, 50, 10, 100)
    with pytest.raises(InputError, match="a and b"):
        cst.paired_ttest([1.0, 2.0], [1.0])
    with pytest.raises(InputError, match="no queries"):
        cst.randomization_test([], 10)
    with pytest.raises(InputError, match="pvalues"):
        cst.correct([2.0])


def test_parameter_validators() -> None:
    for bad in (math.nan, 0.0, 1.0, -0.5, 2, True, "0.05", None):
        with pytest.raises(RanklensError, match="'alpha'"):
            cst.check_alpha(bad)  # type: ignore[arg-type]
    assert cst.check_alpha(np.float32(0.25)) == 0.25
    for bad in (0, -1, 2.5, math.nan, True, "10"):
        with pytest.raises(RanklensError, match="'n_resamples'"):
            cst.check_resamples(bad)  # type: ignore[arg-type]
    for bad in (-1, 1.5, math.nan, "x", True):
        with pytest.raises(RanklensError, match="'seed'"):
            cst.resolve_rng(bad)  # type: ignore[arg-type]
    for bad in ("tukey", "BH", None, ("holm",), 1):
        with pytest.raises(RanklensError, match="'correction'"):
            cst.check_correction(bad)  # type: ignore[arg-type]
    assert [cst.check_correction(c) for c in cst.CORRECTIONS] == list(cst.CORRECTIONS)
    g = np.random.default_rng(0)
    assert cst.resolve_rng(g) is g


# ======================================================================================
# (c) valid inputs give valid outputs
# ======================================================================================
@pytest.mark.parametrize("name", [n for n, s in SPECS.items() if s.check is not None])
@FAST
@given(seed=SEEDS)
def test_valid_inputs_give_valid_outputs(name: str, seed: int) -> None:
    spec = SPECS[name]
    kw = spec.valid(np.random.default_rng(seed))
    assert spec.check is not None
    spec.check(spec.fn(**kw), kw)


@pytest.mark.parametrize(
    "name",
    [
        "ranklens.online.stats.normal_comparison",
        "ranklens.online.stats.two_proportion_ztest",
        "ranklens.online.stats.welch_ttest",
        "ranklens.online.stats.relative_difference",
        "ranklens.online.sequential.mixture_tau",
    ],
)
def test_vectorised_functions_accept_empty_arrays(name: str) -> None:
    """Element-wise functions map an empty array to an empty result (no number made)."""
    spec = SPECS[name]
    kw = {
        k: (np.zeros(0) if not isinstance(v, (str, float)) or k == "crit" else v)
        for k, v in spec.valid(np.random.default_rng(0)).items()
    }
    res = spec.fn(**kw)
    arrays = (
        [getattr(res, f.name) for f in dataclasses.fields(res)]
        if dataclasses.is_dataclass(res)
        else list(res)
        if isinstance(res, tuple)
        else [res]
    )
    assert all(np.asarray(a).size == 0 for a in arrays)


# ======================================================================================
# (d) agreement with scipy / statsmodels
# ======================================================================================
def _close(got: Any, want: Any) -> None:
    np.testing.assert_allclose(
        np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=REL, atol=1e-300
    )


@FAST
@given(seed=SEEDS)
def test_paired_tests_and_t_interval_match_scipy(seed: int) -> None:
    kw = _paired_1d(np.random.default_rng(seed))
    a, b = kw["a"], kw["b"]
    _close(cst.paired_ttest(a, b), scipy_stats.ttest_rel(b, a).pvalue)
    _close(cst.wilcoxon_test(a, b), scipy_stats.wilcoxon(b - a, zero_method="wilcox").pvalue)
    ci = scipy_stats.ttest_1samp(b - a, 0).confidence_interval(0.9)
    _close(cst.mean_ci(b - a, "t", 0.9), (ci.low, ci.high))
    d = b - a
    _close(cst.cohens_d_paired(a, b), d.mean() / d.std(ddof=1))
    both = np.column_stack([a, b])
    _close(
        cst.paired_pvalues(both, both[:, ::-1], "t"),
        scipy_stats.ttest_rel(both[:, ::-1], both).pvalue,
    )


@FAST
@given(seed=SEEDS)
def test_corrections_match_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, int(rng.integers(1, 30))) ** 3
    for ours, theirs in corrections.STATSMODELS.items():
        _close(cst.correct(p, ours), multitest.multipletests(p, method=theirs)[1])
    np.testing.assert_array_equal(cst.correct(p, "none"), p)


@FEW
@given(seed=SEEDS)
def test_randomization_test_matches_the_exact_permutation_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.1, 0.3, int(rng.integers(4, 11)))
    signs = ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1) * 2.0 - 1.0
    exact = float(np.mean(np.abs(signs @ d) >= abs(d.sum()) * (1 - 1e-9)))
    R = 4000
    got = cst.randomization_test(d, R, seed=seed)
    assert abs(got - exact) <= 4.5 * math.sqrt(exact * (1 - exact) / R) + 2 / R


@FEW
@given(seed=SEEDS)
def test_bootstrap_test_matches_a_direct_resampling(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.03, 0.2, int(rng.integers(5, 40)))
    B = 4000
    idx = np.random.default_rng(seed + 1).integers(0, d.size, (B, d.size))
    shifted = d - d.mean()
    direct = (1 + np.sum(np.abs(shifted[idx].mean(axis=1)) >= abs(d.mean()) * (1 - 1e-9))) / (B + 1)
    got = cst.bootstrap_test(d, B, seed=seed)
    p = (got + direct) / 2
    assert abs(got - direct) <= 4.5 * math.sqrt(2 * p * (1 - p) / B) + 2 / B


@pytest.mark.parametrize("method", ["percentile", "bca"])
@settings(max_examples=4, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_bootstrap_intervals_match_scipy(method: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.exponential(1.0, int(rng.integers(20, 60)))
    lo, hi = cst.mean_ci(x, method, 0.9, n_resamples=20_000, seed=seed)
    ref = scipy_stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=20_000,
        method=method,
        confidence_level=0.9,
        rng=np.random.default_rng(seed + 1),
    )
    # Monte Carlo: each bound's resampling SD is about 0.02 standard errors at 20,000
    # resamples, so two independent estimates differ by more than 0.15 SE < 1 in 10^5 times
    se = x.std(ddof=1) / math.sqrt(x.size)
    assert lo == pytest.approx(ref.confidence_interval.low, abs=0.15 * se)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=0.15 * se)


@FAST
@given(seed=SEEDS)
def test_two_proportion_ztest_matches_statsmodels(seed: int) -> None:
    kw = _props_kw(np.random.default_rng(seed))
    res = ost.two_proportion_ztest(**kw)
    for i in range(3):
        x = np.array([kw["successes"][i], kw["control_successes"][i]])
        n = np.array([kw["n"][i], kw["control_n"][i]])
        z, p = smprop.proportions_ztest(x, n)
        _close(res.statistic[i], z)
        _close(res.p_value[i], p)
        lo, hi = smprop.confint_proportions_2indep(
            x[0], n[0], x[1], n[1], method="wald", compare="diff", alpha=kw["alpha"]
        )
        _close((res.ci_lower[i], res.ci_upper[i]), (lo, hi))


@FAST
@given(seed=SEEDS)
def test_welch_and_z_tests_match_scipy_and_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.lognormal(1.0, 0.8, int(rng.integers(3, 300)))
    b = rng.lognormal(1.1, 0.6, int(rng.integers(3, 300)))
    res = ost.welch_ttest(
        a.mean(), a.var(ddof=1), a.size, b.mean(), b.var(ddof=1), b.size, alpha=0.1
    )
    ref = scipy_stats.ttest_ind(a, b, equal_var=False)
    _close((res.statistic, res.p_value, res.df), (ref.statistic, ref.pvalue, ref.df))
    ci = ref.confidence_interval(0.9)
    _close((res.ci_lower, res.ci_upper), (ci.low, ci.high))
    cm = smws.CompareMeans(smws.DescrStatsW(a), smws.DescrStatsW(b))
    z = ost.normal_comparison(
        a.mean(), a.var(ddof=1) / a.size, b.mean(), b.var(ddof=1) / b.size, alpha=0.1
    )
    _close((z.statistic, z.p_value), cm.ztest_ind(usevar="unequal"))
    _close((z.ci_lower, z.ci_upper), cm.zconfint_diff(alpha=0.1, usevar="unequal"))


@FAST
@given(seed=SEEDS)
def test_relative_difference_and_delta_method_formulas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    kw = _normal_kw(rng)
    rel, lo, hi = ost.relative_difference(
        kw["estimate"], kw["variance"], kw["control_estimate"], kw["control_variance"], 1.5
    )
    mt, vt, mc, vc = kw["estimate"], kw["variance"], kw["control_estimate"], kw["control_variance"]
    se = np.sqrt(vt / mc**2 + mt**2 * vc / mc**4)
    _close(rel, mt / mc - 1)
    _close(hi - lo, 3.0 * se)
    rk = _ratio_kw(rng)
    x, y = rk["numerator"][0], rk["denominator"][0]
    r, v = ost.delta_method_ratio(x, y)
    cov = np.cov(x, y, ddof=1)
    mx, my = x.mean(), y.mean()
    want = (cov[0, 0] / my**2 - 2 * mx * cov[0, 1] / my**3 + mx**2 * cov[1, 1] / my**4) / x.size
    _close(r, x.sum() / y.sum())
    np.testing.assert_allclose(v, want, rtol=1e-7, atol=1e-15)  # cancellation in the moments
    _close(opw.ratio_unit_std(x, y) ** 2 / x.size, v)
    ck = _cuped_valid(rng)
    _close(
        ost.cuped_theta(ck["y"], ck["x"]),
        np.cov(ck["y"], ck["x"], ddof=1)[0, 1] / np.var(ck["x"], ddof=1),
    )


@FAST
@given(seed=SEEDS)
def test_sample_ratio_mismatch_matches_scipy(seed: int) -> None:
    kw = _srm_kw(np.random.default_rng(seed))
    res = ost.sample_ratio_mismatch(**kw)
    obs = np.array(list(kw["observed"].values()), dtype=float)
    share = np.array(list(kw["expected_share"].values()))
    ref = scipy_stats.chisquare(obs, share / share.sum() * obs.sum())
    _close((res.statistic, res.p_value), (ref.statistic, ref.pvalue))


def _sm_solver(kind: str) -> Any:
    return smpower.TTestIndPower() if kind == "mean" else smpower.NormalIndPower()


def _sm_effect(kw: dict[str, Any], effect: float) -> float:
    if kw["kind"] == "proportion":
        return float(smprop.proportion_effectsize(kw["baseline"] + effect, kw["baseline"]))
    return effect / kw["std"]


@FAST
@given(seed=SEEDS)
def test_power_and_sample_size_match_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    kw = _sample_size_kw(rng)
    res = opw.sample_size(**kw)
    es = _sm_effect(kw, kw["effect"])
    _close(res.effect_size, es)
    n = _sm_solver(kw["kind"]).solve_power(
        effect_size=abs(es), alpha=kw["alpha"], power=kw["power"], ratio=kw["ratio"]
    )
    assert res.n_control == math.ceil(n - 1e-9)
    pk = _power_kw(rng)
    es = _sm_effect(pk, pk["effect"])
    want = _sm_solver(pk["kind"]).power(
        effect_size=abs(es), nobs1=pk["n_control"], alpha=pk["alpha"], ratio=pk["ratio"]
    )
    if pk["kind"] == "mean" and math.isnan(want):
        # statsmodels' noncentral t gives NaN at large n and large noncentrality (e.g.
        # n = 15,728 per arm, d = 0.078); there the t test's power is the normal one's
        # to well under 1e-6
        normal = smpower.NormalIndPower().power(
            effect_size=abs(es), nobs1=pk["n_control"], alpha=pk["alpha"], ratio=pk["ratio"]
        )
        assert opw.power(**pk) == pytest.approx(normal, abs=1e-6)
    else:
        _close(opw.power(**pk), want)
    mk = _mde_kw(rng)
    mde = opw.minimum_detectable_effect(**mk)
    # statsmodels' solve_power stops ~1e-4 short in power; its power function is exact
    solver = _sm_solver(mk["kind"])
    es = solver.solve_power(
        effect_size=None,
        nobs1=mk["n_control"],
        alpha=mk["alpha"],
        power=mk["power"],
        ratio=mk["ratio"],
    )
    assert mde.effect_size == pytest.approx(es, rel=1e-3)
    _close(
        solver.power(
            effect_size=mde.effect_size, nobs1=mk["n_control"], alpha=mk["alpha"], ratio=mk["ratio"]
        ),
        mk["power"],
    )
    _close(_sm_effect(mk, mde.absolute), mde.effect_size)


@FAST
@given(seed=SEEDS)
def test_msprt_and_mixture_tau_match_their_formulas(seed: int) -> None:
    from scipy.optimize import brentq

    rng = np.random.default_rng(seed)
    alpha = float(rng.uniform(0.001, 0.3))
    V = float(rng.uniform(1e-4, 1.0))
    tau = float(oseq.mixture_tau(V, alpha=alpha))
    c = 2 * math.log(1 / alpha)
    r = brentq(lambda r: r - math.log1p(r) - c, 1e-9, 1e6, xtol=1e-14, rtol=1e-15)
    _close(tau**2 / V, r)
    kw = _msprt_kw(rng)
    res = oseq.msprt(**kw)
    d, v, t2 = kw["diff"], kw["variance"], kw["tau"] ** 2
    lam = np.sqrt(v / (v + t2)) * np.exp(t2 * d**2 / (2 * v * (v + t2)))
    _close(res.p_value, np.minimum.accumulate(np.minimum(1, 1 / lam), axis=1))
    half = np.sqrt(v * (v + t2) / t2 * (2 * math.log(1 / 0.05) + np.log1p(t2 / v)))
    _close(res.ci_lower, np.maximum.accumulate(d - half, axis=1))
    _close(res.ci_upper, np.minimum.accumulate(d + half, axis=1))


# ======================================================================================
# end to end: compare() and analyze()
# ======================================================================================
def _results(values: dict[str, np.ndarray]) -> dict[str, Any]:
    """Results with the given per-query p@1 values, ``values[j]`` for the j-th query id in
    sorted order (the order compare() tests them in)."""
    n = len(next(iter(values.values())))
    qrels = ranklens.Qrels.from_dict({f"q{i:03d}": {"d1": 1} for i in range(n)})
    run = ranklens.Run.from_dict({f"q{i:03d}": {"d1": 1.0} for i in range(n)})
    base = ranklens.evaluate(qrels, run, ["p@1"])
    where = [sorted(base.query_ids).index(q) for q in base.query_ids]
    return {
        name: dataclasses.replace(base, values={"p@1": np.asarray(v, float)[where]}, run_name=name)
        for name, v in values.items()
    }


@pytest.mark.parametrize("test", list(cst.TESTS))
@settings(max_examples=5, deadline=None, derandomize=True)
@given(seed=SEEDS)
def test_compare_drops_undefined_queries_for_every_system(test: str, seed: int) -> None:
    """A metric undefined (NaN) on a query in one system: the query is left out for every
    system, counted in n_queries and in a warning; the p-value is the one of the rest."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 30))
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.1, 0.2, n), 0, 1)
    k = int(rng.integers(n))
    b_nan = b.copy()
    b_nan[k] = np.nan
    res = _results({"a": a, "b": b_nan})
    with pytest.warns(RanklensWarning, match=r"1 where p@1 is undefined \(NaN\)"):
        cmp = compare(None, res, ["p@1"], baseline="a", test=test, n_resamples=199, seed=3)
    keep = np.arange(n) != k
    pair = cmp.pair("b", "a", "p@1")
    assert cmp.n_queries["p@1"] == pair.n_queries == n - 1
    want = cst.paired_pvalues(a[keep], b[keep], test, 199, np.random.default_rng(3))[0]
    assert pair.p_value == want
    assert pair.mean_diff == pytest.approx((b - a)[keep].mean())
    assert math.isfinite(pair.p_value) and 0 < pair.p_value <= 1


def test_compare_impossible_inputs() -> None:
    res = _results({"a": np.full(4, np.nan), "b": np.ones(4)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        with pytest.raises(InputError, match="no query has a value in every system"):
            compare(None, res, ["p@1"], test="t")
    ok = _results({"a": np.zeros(4), "b": np.ones(4)})
    for kw, match in (
        ({"alpha": math.nan}, "'alpha'"),
        ({"ci_level": 1.0}, "'ci_level'"),
        ({"n_resamples": 0}, "'n_resamples'"),
        ({"seed": -2}, "'seed'"),
    ):
        with pytest.raises(RanklensError, match=match):
            compare(None, ok, ["p@1"], **kw)


def test_analyze_contract() -> None:
    pd = pytest.importorskip("pandas")
    units = [f"u{i}" for i in range(40)]
    exposures = pd.DataFrame(
        {"unit": units, "variant": ["control", "treatment"] * 20, "time": np.arange(40.0)}
    )
    events = pd.DataFrame(
        {
            "unit": units[:20],
            "time": np.arange(20.0) + 50,
            "event": ["buy"] * 20,
            "value": np.linspace(1, 2, 20),
        }
    )
    res = online_pkg.analyze(exposures, events, ["mean(buy)"], control="control")
    _prob(res.comparisons[0].p_value)
    bad = events.assign(value=np.where(np.arange(20) == 3, np.nan, events["value"]))
    with pytest.raises(InputError, match="NaN or infinite"):
        online_pkg.analyze(exposures, bad, ["mean(buy)"], control="control")
    for alpha in (math.nan, 0.0, 1.0):
        with pytest.raises(InputError, match="alpha"):
            online_pkg.analyze(exposures, events, ["mean(buy)"], control="control", alpha=alpha)
