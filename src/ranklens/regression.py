"""Regression metrics: MAE, MSE, RMSE and R^2.

scikit-learn computes the numbers (imported inside the functions); this module
validates the input once and makes the conventions explicit:

* ``y_true``/``y_pred`` are 1-d, or 2-d ``(n_samples, n_outputs)``; for 2-d
  input ``multioutput="uniform_average"`` (default) averages the per-output
  scores, ``"raw_values"`` returns one per output.
* ``per_sample=True`` (MAE, MSE) returns the per-sample absolute / squared
  errors instead of their mean (averaged over outputs for 2-d input).
* R^2 = 1 - SS_res / SS_tot.  With a constant ``y_true`` (SS_tot = 0) it is
  1.0 for a perfect prediction and 0.0 otherwise (scikit-learn's
  ``force_finite`` convention).

>>> mae([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), mse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
(0.5, 0.375)
>>> round(rmse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6), round(r2([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)
(0.612372, 0.948608)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.classification import _as_array, _check_choice, _check_weights, _same_length
from ranklens.errors import InputError

__all__ = ["mae", "mse", "r2", "rmse"]

MULTIOUTPUT = ("uniform_average", "raw_values")


def _prepare(y_true: Any, y_pred: Any, sample_weight: Any, multioutput: str
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    t = _as_array("y_true", y_true, ndim=(1, 2), numeric=True).astype(np.float64)
    p = _as_array("y_pred", y_pred, ndim=(1, 2), numeric=True).astype(np.float64)
    _same_length(y_true=t, y_pred=p)
    if t.shape != p.shape:
        raise InputError(
            f"y_true has shape {t.shape} but y_pred has shape {p.shape}; they must match."
        )
    _check_choice("multioutput", multioutput, MULTIOUTPUT)
    return t, p, _check_weights(sample_weight, len(t))


def _result(value: Any) -> Any:
    arr = np.asarray(value)
    return float(arr) if arr.ndim == 0 else arr


def mae(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: str = "uniform_average", per_sample: bool = False) -> Any:
    """Mean absolute error ``(1/n) sum |y_i - yhat_i|`` (weighted mean with weights)."""
    from sklearn.metrics import mean_absolute_error

    t, p, w = _prepare(y_true, y_pred, sample_weight, multioutput)
    if per_sample:
        err = np.abs(t - p)
        return err if err.ndim == 1 else err.mean(axis=1)
    return _result(mean_absolute_error(t, p, sample_weight=w, multioutput=multioutput))


def mse(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
        multioutput: str = "uniform_average", per_sample: bool = False) -> Any:
    """Mean squared error ``(1/n) sum (y_i - yhat_i)^2``."""
    from sklearn.metrics import mean_squared_error

    t, p, w = _prepare(y_true, y_pred, sample_weight, multioutput)
    if per_sample:
        err = (t - p) ** 2
        return err if err.ndim == 1 else err.mean(axis=1)
    return _result(mean_squared_error(t, p, sample_weight=w, multioutput=multioutput))


def rmse(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
         multioutput: str = "uniform_average") -> Any:
    """Root mean squared error ``sqrt(MSE)``; for 2-d input the root is taken
    per output, then averaged (scikit-learn's ``root_mean_squared_error``)."""
    from sklearn.metrics import root_mean_squared_error

    t, p, w = _prepare(y_true, y_pred, sample_weight, multioutput)
    return _result(root_mean_squared_error(t, p, sample_weight=w, multioutput=multioutput))


def r2(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
       multioutput: str = "uniform_average") -> Any:
    """Coefficient of determination ``1 - SS_res / SS_tot`` (can be negative).
    Needs at least two samples."""
    from sklearn.metrics import r2_score

    t, p, w = _prepare(y_true, y_pred, sample_weight, multioutput)
    if len(t) < 2:
        raise InputError("r2 needs at least two samples; it is undefined for one.")
    return _result(r2_score(t, p, sample_weight=w, multioutput=multioutput))
