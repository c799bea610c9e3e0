"""Regression metrics: hand-computed values, sklearn reference, bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ranklens.regression as reg
from ranklens.errors import InputError, RanklensWarning
from ranklens.metrics.registry import REGISTRY

sk = pytest.importorskip("sklearn.metrics")

T = [3.0, -0.5, 2.0, 7.0]
P = [2.5, 0.0, 2.0, 8.0]


def test_hand_computed() -> None:
    assert reg.mae(T, P) == 0.5
    assert reg.mse(T, P) == 0.375
    assert reg.rmse(T, P) == pytest.approx(math.sqrt(0.375))
    mean = sum(T) / 4
    ss_tot = sum((v - mean) ** 2 for v in T)
    assert reg.r2(T, P) == pytest.approx(1 - 1.5 / ss_tot)
    assert reg.mae(T, P, reduction="none").tolist() == [0.5, 0.5, 0.0, 1.0]
    assert reg.mse(T, P, reduction="none").tolist() == [0.25, 0.25, 0.0, 1.0]


def test_constant_truth_r2_convention() -> None:
    assert reg.r2([1.0, 1.0], [1.0, 1.0]) == 1.0
    assert reg.r2([1.0, 1.0], [1.0, 2.0]) == 0.0


def test_multioutput() -> None:
    t = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    p = np.array([[1.0, 3.0], [2.0, 4.0], [5.0, 5.0]])
    raw = reg.mae(t, p, multioutput="raw_values")
    assert raw.tolist() == pytest.approx([1 / 3, 1.0])
    assert reg.mae(t, p) == pytest.approx(2 / 3)
    assert reg.mse(t, p, reduction="none").tolist() == pytest.approx([0.5, 0.5, 2.0])


@pytest.mark.reference
@pytest.mark.parametrize("seed", range(5))
def test_reference_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = rng.normal(size=300)
    p = t + rng.normal(scale=0.5, size=300)
    w = rng.random(300)
    assert reg.mae(t, p) == pytest.approx(sk.mean_absolute_error(t, p), rel=1e-12)
    assert reg.mse(t, p, sample_weight=w) == pytest.approx(
        sk.mean_squared_error(t, p, sample_weight=w), rel=1e-12
    )
    assert reg.rmse(t, p) == pytest.approx(math.sqrt(sk.mean_squared_error(t, p)), rel=1e-12)
    assert reg.r2(t, p) == pytest.approx(sk.r2_score(t, p), rel=1e-12)
    assert reg.mae(t, p, reduction="none").mean() == pytest.approx(reg.mae(t, p))


def test_bad_input() -> None:
    with pytest.raises(InputError, match="y_true has 3, y_pred has 2"):
        reg.mae([1, 2, 3], [1, 2])
    with pytest.raises(InputError, match="y_pred contains NaN"):
        reg.mse([1, 2], [1, float("nan")])
    with pytest.raises(InputError, match="y_true must be numeric"):
        reg.rmse(["a", "b"], [1, 2])
    with pytest.raises(InputError, match="shape"):
        reg.mae([[1, 2]], [[1, 2, 3]])
    with pytest.raises(InputError, match="multioutput must be one of"):
        reg.mae([1], [1], multioutput="variance")
    with pytest.raises(InputError, match="at least two samples"):
        reg.r2([1.0], [1.0])
    with pytest.raises(InputError, match="sample_weight"):
        reg.mae([1, 2], [1, 2], sample_weight=[1])


def test_column_vectors_are_one_output() -> None:
    col_t, col_p = np.array(T)[:, None], np.array(P)[:, None]
    for fn in (reg.mae, reg.mse, reg.rmse, reg.r2):
        want = fn(T, P)
        assert fn(col_t, col_p) == pytest.approx(want)
        assert fn(col_t, P) == pytest.approx(want)
        assert fn(T, col_p) == pytest.approx(want)
        assert fn(col_t, P, multioutput="raw_values").tolist() == pytest.approx([want])
    assert reg.mae(col_t, P, reduction="none").tolist() == [0.5, 0.5, 0.0, 1.0]
    with pytest.raises(InputError, match="same number of outputs"):
        reg.mae(np.zeros((3, 2)), np.zeros(3))


def test_multioutput_weights_and_variance_weighted() -> None:
    t = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    p = np.array([[1.0, 3.0], [2.0, 4.0], [5.0, 5.0]])
    # per output MAE 1/3 and 1: weights 1 and 3
    assert reg.mae(t, p, multioutput=[1, 3]) == pytest.approx((1 / 3 + 3) / 4)
    assert reg.mae(t, p, multioutput=[1, 3], reduction="none").tolist() == pytest.approx(
        [3 / 4, 1 / 4, 6 / 4]
    )
    assert reg.mae(t, p, multioutput="raw_values", reduction="none").tolist() == [
        [0.0, 1.0],
        [1.0, 0.0],
        [0.0, 2.0],
    ]
    # R^2 per output: 1 - 1/8 and 1 - 5/(38/3); variance weights SS_tot 8 and 38/3
    r_a, r_b = 1 - 1 / 8, 1 - 5 / (38 / 3)
    assert reg.r2(t, p, multioutput="variance_weighted") == pytest.approx(
        (8 * r_a + 38 / 3 * r_b) / (8 + 38 / 3)
    )
    with pytest.raises(InputError, match="2 non-negative weights"):
        reg.mae(t, p, multioutput=[1, 2, 3])
    with pytest.raises(InputError, match="multioutput must be one of"):
        reg.mae(t, p, multioutput="variance_weighted")
    with pytest.raises(InputError, match="not all 0"):
        reg.mse(t, p, multioutput=[0, 0])
    with pytest.raises(InputError, match="y_true has one"):
        reg.mae(T, P, multioutput=[2.0])


def test_bad_values_are_input_errors() -> None:
    with pytest.raises(InputError, match="sample_weight is 0 for every sample"):
        reg.mae(T, P, sample_weight=[0, 0, 0, 0])
    with pytest.raises(InputError, match="complex"):
        reg.mae([1j, 2], [1, 2])
    with pytest.raises(InputError, match="NaN or infinite"):
        reg.r2([1.0, float("inf")], [1.0, 2.0])
    with pytest.raises(InputError, match="empty"):
        reg.rmse([], [])


def test_registered() -> None:
    for name in ("mae", "mse", "rmse", "r2"):
        assert REGISTRY[name].domain == "regression"


# ------------------------------------------------------------------ found by the contract
# (tests/test_contract_families.py)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_values_beyond_float_range_are_scaled_not_overflowed(scale: float) -> None:
    # R^2 of finite values used to be NaN (SS_res / SS_tot = inf / inf) with numpy's
    # overflow warnings, and 0.0 for tiny values (SS_tot underflowed to 0)
    rng = np.random.default_rng(0)
    t, p = rng.normal(size=20), rng.normal(size=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert reg.r2(t * scale, p * scale) == pytest.approx(reg.r2(t, p), rel=1e-12)
        assert reg.rmse(t * scale, p * scale) == pytest.approx(reg.rmse(t, p) * scale, rel=1e-12)
        assert reg.mae(t * scale, p * scale) == pytest.approx(reg.mae(t, p) * scale, rel=1e-12)
        raw = reg.r2(np.c_[t, p] * scale, np.c_[p, t] * scale, multioutput="raw_values")
        np.testing.assert_allclose(
            raw, reg.r2(np.c_[t, p], np.c_[p, t], multioutput="raw_values"), rtol=1e-12
        )
    if scale > 1:  # the mean squared error itself is beyond float64: inf, and we say so
        with pytest.warns(RanklensWarning, match="mse overflows float64"):
            assert reg.mse(t * scale, p * scale) == math.inf
    else:
        assert reg.mse(t * scale, p * scale) == 0.0  # below float64: 0
    # in float64's usual range nothing changes: scikit-learn's numbers, bit for bit
    assert reg.r2(t, p) == sk.r2_score(t, p)
    assert reg.mse(t * 1e100, p * 1e100) == sk.mean_squared_error(t * 1e100, p * 1e100)
