"""Regression metrics: MAE, MSE, RMSE and R^2.

scikit-learn computes the numbers (imported inside the functions); this module
validates the input once, raises :class:`ranklens.errors.InputError` naming
the argument (never scikit-learn's own exceptions) and makes the conventions
explicit:

* ``y_true``/``y_pred`` are 1-d, or 2-d ``(n_samples, n_outputs)``; a 1-d
  array and an ``(n, 1)`` column are the same single output (as in
  scikit-learn).  For 2-d input ``multioutput="uniform_average"`` (default)
  averages the per-output scores, ``"raw_values"`` returns one per output, an
  array of ``n_outputs`` non-negative weights takes their weighted mean, and
  (R^2 only) ``"variance_weighted"`` weighs each output by the variance of
  its ``y_true``.
* ``sample_weight``: non-negative, not all zero.
* ``reduction="none"`` (MAE, MSE; default ``"mean"``) returns the per-sample
  absolute / squared errors instead of their mean (for 2-d input combined
  over outputs as ``multioutput`` says: mean, weighted mean, or
  ``(n, n_outputs)`` for ``"raw_values"``); ``per_sample=True`` is its
  deprecated spelling.
* Values of magnitude beyond 2^400 (or below 2^-400) are divided by a power
  of two first (exact), so squares neither overflow nor underflow: R^2, MAE
  and RMSE stay finite and right; an MSE that float64 cannot hold is inf,
  with a :class:`~ranklens.errors.RanklensWarning`.
* R^2 = 1 - SS_res / SS_tot.  With a constant ``y_true`` (SS_tot = 0) it is
  1.0 for a perfect prediction and 0.0 otherwise (scikit-learn's
  ``force_finite`` convention).  It is undefined for a single sample
  (InputError; scikit-learn returns NaN with a warning).

>>> mae([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), mse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
(0.5, 0.375)
>>> y, yhat = [3, -0.5, 2, 7], [2.5, 0.0, 2, 8]
>>> round(rmse(y, yhat), 6), round(r2(y, yhat), 6)
(0.612372, 0.948608)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ranklens._shared.deprecation import renamed_keyword
from ranklens._shared.deps import needs
from ranklens._shared.scikit import call, reemit
from ranklens._shared.validate import as_array, check_choice, check_weights, same_length
from ranklens.errors import InputError, RanklensWarning, user_stacklevel
from ranklens.metrics.catalogue import MULTIOUTPUT

__all__ = ["mae", "mse", "r2", "rmse"]


def _check_multioutput(
    multioutput: Any, n_outputs: int, choices: tuple[str, ...] = MULTIOUTPUT
) -> str | np.ndarray:
    if isinstance(multioutput, str):
        check_choice("multioutput", multioutput, choices)
        return multioutput
    try:
        mo = np.asarray(multioutput, dtype=np.float64)
    except (TypeError, ValueError):
        mo = np.empty(0)
    if n_outputs == 1 and mo.ndim == 1 and len(mo) == 1:
        raise InputError(
            "multioutput weights combine several outputs; y_true has one, so "
            "pass multioutput='uniform_average' (scikit-learn refuses them too)."
        )
    if (
        mo.ndim != 1
        or len(mo) != n_outputs
        or not np.isfinite(mo).all()
        or (mo < 0).any()
        or not mo.sum() > 0
    ):
        raise InputError(
            f"multioutput must be one of {', '.join(map(repr, choices))} or {n_outputs} "
            f"non-negative weights (one per output, not all 0), got {multioutput!r}."
        )
    return mo


def _prepare(
    y_true: Any,
    y_pred: Any,
    sample_weight: Any,
    multioutput: Any,
    choices: tuple[str, ...] = MULTIOUTPUT,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, str | np.ndarray]:
    t = as_array("y_true", y_true, ndim=(1, 2), numeric=True).astype(np.float64)
    p = as_array("y_pred", y_pred, ndim=(1, 2), numeric=True).astype(np.float64)
    same_length(y_true=t, y_pred=p)
    if t.ndim != p.ndim:  # 1-d against an (n, 1) column: one output, as scikit-learn
        t, p = t.reshape(len(t), -1), p.reshape(len(p), -1)
    if t.shape != p.shape:
        raise InputError(
            f"y_true has shape {t.shape} but y_pred has shape {p.shape}; they must have the "
            "same number of outputs."
        )
    mo = _check_multioutput(multioutput, 1 if t.ndim == 1 else t.shape[1], choices)
    return t, p, check_weights(sample_weight, len(t)), mo


def _per_sample(err: np.ndarray, mo: str | np.ndarray) -> np.ndarray:
    if err.ndim == 1 or (isinstance(mo, str) and mo == "raw_values"):
        return err
    if isinstance(mo, np.ndarray):
        return np.average(err, axis=1, weights=mo)
    return err.mean(axis=1)


def _result(value: Any) -> Any:
    arr = np.asarray(value)
    return float(arr) if arr.ndim == 0 else arr


def _scale(t: np.ndarray, p: np.ndarray) -> float:
    """A power of two to divide ``t`` and ``p`` by so that neither squares nor
    differences overflow or underflow (1.0 in the usual range).  Dividing by a
    power of two is exact, so the metrics of the scaled values, scaled back,
    are those of the values."""
    top = float(max(np.abs(t).max(), np.abs(p).max()))
    if top == 0 or 2.0**-400 <= top <= 2.0**400:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(top)[1])))


def _call(
    what: str,
    fn: Any,
    t: np.ndarray,
    p: np.ndarray,
    w: np.ndarray | None,
    mo: str | np.ndarray,
    power: int = 1,
) -> Any:
    """scikit-learn's ``fn`` of ``t`` and ``p``, a quantity of their unit to the
    ``power`` (0 for the unitless R^2); values beyond float64's range are scaled
    first, so only a result that float64 cannot hold overflows (to inf, with a
    RanklensWarning)."""
    s = _scale(t, p)
    res, caught = call(what, fn, t / s, p / s, sample_weight=w, multioutput=mo)
    reemit(caught)
    out = np.asarray(res, dtype=np.float64)
    with np.errstate(over="ignore"):
        for _ in range(power):
            out = out * s
    if np.isinf(out).any():
        warnings.warn(
            f"{what} overflows float64 (the values are of the order of "
            f"{s:.3g}); it is reported as inf.",
            RanklensWarning,
            stacklevel=user_stacklevel(),
        )
    return _result(out)


def _errors(
    what: str,
    fn: Any,
    y_true: Any,
    y_pred: Any,
    sample_weight: Any,
    multioutput: Any,
    reduction: str,
    per_sample: bool | None,
    power: int,
) -> Any:
    """MAE (``power=1``) or MSE (2): the mean of |y - yhat| ** power by scikit-learn's
    ``fn``, or each sample's (``reduction="none"``)."""
    reduction = renamed_keyword(
        what,
        "per_sample",
        per_sample,
        "reduction",
        reduction,
        convert=lambda v: "none" if v else "mean",
    )
    check_choice("reduction", reduction, ("mean", "none"))
    t, p, w, mo = _prepare(y_true, y_pred, sample_weight, multioutput)
    if reduction == "mean":
        return _call(what, fn, t, p, w, mo, power=power)
    s = _scale(t, p)
    err = np.abs(t / s - p / s) ** power
    with np.errstate(over="ignore"):
        for _ in range(power):  # scaled back one factor at a time: s ** 2 may overflow
            err = err * s
    return _per_sample(err, mo)


def mae(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    reduction: str = "mean",
    per_sample: bool | None = None,
) -> Any:
    """Mean absolute error ``MAE = (1/n) sum_i |y_i - yhat_i|`` (with weights the
    weighted mean ``sum_i w_i |y_i - yhat_i| / sum_i w_i``); scikit-learn's
    ``mean_absolute_error``.  ``reduction="none"``: each sample's
    ``|y_i - yhat_i|``.  For 2-d input ``multioutput`` combines the outputs (see the
    module notes).  Never 0/0: ``y_true`` holds at least one sample.

    >>> mae([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])  # (0.5 + 0.5 + 0 + 1) / 4
    0.5
    >>> mae([3, -0.5, 2, 7], [2.5, 0.0, 2, 8], sample_weight=[0, 0, 1, 1])  # (0 + 1) / 2
    0.5
    >>> mae([[1, 2], [3, 4]], [[1, 4], [3, 4]], multioutput="raw_values").tolist()
    [0.0, 1.0]
    """
    with needs("ml", "ranklens.regression.mae"):
        from sklearn.metrics import mean_absolute_error

    return _errors(
        "mae",
        mean_absolute_error,
        y_true,
        y_pred,
        sample_weight,
        multioutput,
        reduction,
        per_sample,
        power=1,
    )


def mse(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Any = "uniform_average",
    reduction: str = "mean",
    per_sample: bool | None = None,
) -> Any:
    """Mean squared error ``MSE = (1/n) sum_i (y_i - yhat_i)^2`` (weighted mean with
    weights); scikit-learn's ``mean_squared_error``.  ``reduction="none"``: each
    sample's ``(y_i - yhat_i)^2``.  ``multioutput`` as for :func:`mae`; an MSE
    beyond float64's range is inf with a warning (module notes).

    >>> mse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])  # (0.25 + 0.25 + 0 + 1) / 4
    0.375
    >>> mse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8], reduction="none").tolist()
    [0.25, 0.25, 0.0, 1.0]
    """
    with needs("ml", "ranklens.regression.mse"):
        from sklearn.metrics import mean_squared_error

    return _errors(
        "mse",
        mean_squared_error,
        y_true,
        y_pred,
        sample_weight,
        multioutput,
        reduction,
        per_sample,
        power=2,
    )


def rmse(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """Root mean squared error ``RMSE = sqrt((1/n) sum_i (y_i - yhat_i)^2)``, in the
    unit of ``y`` (weighted mean inside the root with weights); for 2-d input the
    root is taken per output, then the outputs are combined as ``multioutput``
    says (scikit-learn's ``root_mean_squared_error``; not the root of the averaged
    MSE).

    >>> round(rmse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)  # sqrt(0.375)
    0.612372
    >>> rmse([[0, 0], [0, 0]], [[3, 1], [3, 1]])  # (sqrt(9) + sqrt(1)) / 2
    2.0
    """
    with needs("ml", "ranklens.regression.rmse"):
        from sklearn.metrics import root_mean_squared_error

    t, p, w, mo = _prepare(y_true, y_pred, sample_weight, multioutput)
    return _call("rmse", root_mean_squared_error, t, p, w, mo)


def r2(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, multioutput: Any = "uniform_average"
) -> Any:
    """Coefficient of determination ``R^2 = 1 - SS_res / SS_tot`` with
    ``SS_res = sum_i (y_i - yhat_i)^2`` and ``SS_tot = sum_i (y_i - mean(y))^2``
    (weighted sums with weights); scikit-learn's ``r2_score``.  It can be negative
    (worse than predicting the mean).  A constant ``y_true`` (``SS_tot = 0``) gives
    1.0 for a perfect prediction and 0.0 otherwise (scikit-learn's
    ``force_finite``).  Needs at least two samples.  ``multioutput`` also takes
    ``"variance_weighted"``.

    >>> round(r2([3, -0.5, 2, 7], [2.5, 0.0, 2, 8]), 6)  # 1 - 1.5 / 29.1875
    0.948608
    >>> r2([1, 1], [1, 1]), r2([1, 1], [1, 2])  # constant y_true
    (1.0, 0.0)
    >>> r2([1, 2, 3], [3, 2, 1])  # 1 - 8 / 2
    -3.0
    """
    with needs("ml", "ranklens.regression.r2"):
        from sklearn.metrics import r2_score

    t, p, w, mo = _prepare(
        y_true, y_pred, sample_weight, multioutput, (*MULTIOUTPUT, "variance_weighted")
    )
    if len(t) < 2:
        raise InputError("r2 needs at least two samples; it is undefined for one.")
    return _call("r2", r2_score, t, p, w, mo, power=0)
