"""Checks of user input shared by every family: choices, numbers in a range, arrays.

Each check exists once, here; the families (classification, regression,
clustering, entity resolution, detection, comparison, online) call it with the
name of the argument and, where the message should say so, the function it was
passed to (``where``).  A failed check raises :class:`~ranklens.errors.InputError`
(or the ``error`` type a family uses for parameters, such as
:class:`~ranklens.errors.MetricParameterError`) with one sentence saying what
was expected and what was given.

>>> check_choice("average", "macro", ("macro", "micro"))
'macro'
>>> check_choice("average", "mean", ("macro", "micro"))
Traceback (most recent call last):
...
ranklens.errors.InputError: average must be one of 'macro', 'micro', got 'mean'.
>>> check_number("alpha", 0.05, low=0, high=1)
0.05
>>> check_alpha(1.5, where="welch_ttest")
Traceback (most recent call last):
...
ranklens.errors.InputError: welch_ttest: alpha must be a number in (0, 1), got 1.5; e.g. alpha=0.05.
>>> as_array("y_true", [[1, 2]])
Traceback (most recent call last):
...
ranklens.errors.InputError: y_true must be a 1-d array, got shape (1, 2).
>>> same_length(y_true=as_array("y_true", [1, 2]), y_pred=as_array("y_pred", [3]))
Traceback (most recent call last):
...
ranklens.errors.InputError: inconsistent numbers of samples: y_true has 2, y_pred has 1;
they must be equal.
>>> floats([1, "x"], "estimate", "normal_comparison")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ranklens.errors.InputError: normal_comparison: estimate must be numbers; cannot read it as
floats (...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from ranklens.errors import InputError

__all__ = [
    "as_array",
    "check_alpha",
    "check_choice",
    "check_int",
    "check_number",
    "check_weights",
    "check_zero_division",
    "floats",
    "is_number",
    "label_kinds",
    "py_value",
    "same_length",
]

T = TypeVar("T")


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


# --------------------------------------------------------------------------- choices


def check_choice(
    name: str,
    value: T,
    choices: Sequence[Any],
    *,
    where: str = "",
    error: type[Exception] = InputError,
) -> T:
    """``value`` when it is one of ``choices``, else ``error`` listing them.

    ``name`` is how the message names the argument (``"average"``, or ``"the
    'test' parameter"``); a list, tuple, set, dict or array is never a choice.

    >>> check_choice("the 'ci' parameter", "x", ("t", "bca"), where="mean_ci")
    Traceback (most recent call last):
    ...
    ranklens.errors.InputError: mean_ci: the 'ci' parameter must be one of 't', 'bca', got 'x'.
    """
    if isinstance(value, (list, tuple, dict, set, np.ndarray)) or value not in choices:
        raise error(
            f"{_prefix(where)}{name} must be one of {', '.join(map(repr, choices))}, got {value!r}."
        )
    return value


# --------------------------------------------------------------------------- numbers


def is_number(value: Any) -> bool:
    """A real number (Python or numpy), not a bool."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def _interval(low: float, high: float, low_open: bool, high_open: bool) -> str:
    if math.isinf(low) and math.isinf(high):
        return "a finite number"
    if math.isinf(high):
        return f"a finite number {'>' if low_open else '>='} {low:g}"
    if math.isinf(low):
        return f"a finite number {'<' if high_open else '<='} {high:g}"
    return f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"


def check_number(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = True,
    high_open: bool = True,
    where: str = "",
    hint: str = "",
    error: type[Exception] = InputError,
) -> float:
    """``value`` as a float when it is a finite number between ``low`` and ``high``
    (open bounds by default), else ``error``; ``hint`` ends the message.

    >>> check_number("max_fpr", 0, low=0, high=1, high_open=False)
    Traceback (most recent call last):
    ...
    ranklens.errors.InputError: max_fpr must be a number in (0, 1], got 0.
    >>> check_number("null", float("inf"), where="msprt", hint="the difference under H0")
    Traceback (most recent call last):
    ...
    ranklens.errors.InputError: msprt: null must be a finite number, got inf; the difference
    under H0.
    """
    v = float(value) if is_number(value) else math.nan
    good = (
        math.isfinite(v)
        and (v > low if low_open else v >= low)
        and (v < high if high_open else v <= high)
    )
    if not good:
        raise error(
            f"{_prefix(where)}{name} must be "
            f"{_interval(low, high, low_open, high_open)}, got {value!r}"
            f"{'; ' + hint if hint else ''}."
        )
    return v


def check_alpha(
    alpha: Any,
    *,
    name: str = "alpha",
    where: str = "",
    example: str = "",
    error: type[Exception] = InputError,
) -> float:
    """A significance level (or confidence level, or p-value threshold): a number in (0, 1)."""
    return check_number(
        name,
        alpha,
        low=0,
        high=1,
        where=where,
        error=error,
        hint=f"e.g. {example or name + '=0.05'}",
    )


def check_int(
    name: str,
    value: Any,
    *,
    low: int = 1,
    where: str = "",
    hint: str = "",
    error: type[Exception] = InputError,
) -> int:
    """``value`` as an int when it is an integer (not a bool) >= ``low``, else ``error``.

    >>> check_int("chunk_size", 0)
    Traceback (most recent call last):
    ...
    ranklens.errors.InputError: chunk_size must be a positive integer, got 0.
    """
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or value < low
    ):
        want = "a positive integer" if low == 1 else f"an integer >= {low}"
        raise error(
            f"{_prefix(where)}{name} must be {want}, got {value!r}{'; ' + hint if hint else ''}."
        )
    return int(value)


def check_zero_division(zero_division: Any) -> float:
    """The value of a 0/0 ratio: a number in [0, 1] (a ratio's range) or NaN
    (also spelled ``"nan"``, as the metric grammar writes it).

    >>> check_zero_division("nan")
    nan
    """
    if isinstance(zero_division, str) and zero_division == "nan":
        return float("nan")
    if not is_number(zero_division) or not (
        0 <= zero_division <= 1 or zero_division != zero_division
    ):
        raise InputError(
            f"zero_division (the value of 0/0) must be a number in [0, 1] "
            f"such as 0.0 or 1.0, or nan, got {zero_division!r}."
        )
    return float(zero_division)


# --------------------------------------------------------------------------- arrays


def py_value(x: Any) -> Any:
    """A numpy scalar as the Python value (for messages)."""
    return x.item() if isinstance(x, np.generic) else x


def _has_nan(a: np.ndarray) -> bool:
    if a.dtype.kind in "fc":
        return bool(np.isnan(a).any())
    if a.dtype.kind == "O":
        return any(v is None or (isinstance(v, float) and v != v) for v in a.ravel())
    return False


def floats(x: Any, name: str, where: str, what: str = "") -> np.ndarray:
    """``x`` as a float64 array of any shape (NaN allowed: the statistics' NaN-in,
    NaN-out rule decides); ``what`` says what the numbers are, for the message."""
    try:
        return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{_prefix(where)}{name} must be numbers{what}; cannot read it as floats ({exc})."
        ) from None


def as_array(
    name: str, x: Any, *, ndim: tuple[int, ...] = (1,), numeric: bool = False
) -> np.ndarray:
    """``x`` as an array of one of the allowed dimensions, not empty, free of NaN
    (``numeric``: real numbers, finite)."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be array-like: {exc}") from None
    if a.ndim not in ndim:
        want = " or ".join(f"{d}-d" for d in ndim)
        raise InputError(f"{name} must be a {want} array, got shape {a.shape}.")
    if a.size == 0:
        raise InputError(f"{name} is empty; at least one sample is needed.")
    if numeric:
        if a.dtype.kind == "c":
            raise InputError(f"{name} holds complex numbers; pass real values.")
        if a.dtype.kind not in "biuf":
            try:
                a = a.astype(np.float64)
            except (TypeError, ValueError):
                raise InputError(f"{name} must be numeric, got values of type {a.dtype}.") from None
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            bad = int(np.flatnonzero(~np.isfinite(a.ravel()))[0])
            raise InputError(
                f"{name} contains NaN or infinite values (first at flat index {bad}); "
                "drop or impute them first."
            )
    elif _has_nan(a):
        raise InputError(f"{name} contains NaN or None; drop or impute those samples first.")
    return a


def same_length(**arrays: np.ndarray) -> int:
    """The common number of samples (first axis); error naming the arrays otherwise."""
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise InputError(f"inconsistent numbers of samples: {desc}; they must be equal.")
    return next(iter(lengths.values()))


def check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """``sample_weight`` of ``n`` samples: non-negative, not all zero (``None`` passes)."""
    if sample_weight is None:
        return None
    w = as_array("sample_weight", sample_weight, numeric=True).astype(np.float64)
    same_length(y_true=np.empty(n), sample_weight=w)
    if (w < 0).any():
        raise InputError("sample_weight must be non-negative.")
    if not (w > 0).any():
        raise InputError(
            "sample_weight is 0 for every sample; at least one sample needs a positive weight."
        )
    return w


def label_kinds(a: np.ndarray) -> set[str]:
    """{"str"} / {"num"} (both for a mix): the kinds of labels an array holds."""
    if a.dtype.kind in "US":
        return {"str"}
    if a.dtype.kind in "biuf":
        return {"num"}
    return {"str" if isinstance(v, (str, bytes)) else "num" for v in a.ravel().tolist()}
