"""Calling scikit-learn: its exceptions become :class:`~ranklens.errors.InputError`,
its user-facing warnings :class:`~ranklens.errors.RanklensWarning`.

The families validate their input first, so a scikit-learn exception is rare;
when one happens it still reaches the caller as ranklens' own error, prefixed
with the function it came from.

>>> import warnings
>>> def fails(x):
...     raise ValueError("Input contains NaN.")
>>> call("mae", fails, [1.0])
Traceback (most recent call last):
...
ranklens.errors.InputError: mae: Input contains NaN.
>>> def warns(x):
...     warnings.warn("Precision is ill-defined. Use `zero_division` parameter to control "
...                   "this behavior.", UserWarning)
...     return x
>>> value, caught = call("precision", warns, 0.0)
>>> value, len(caught)
(0.0, 1)
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

from ranklens.errors import InputError, RanklensWarning, user_stacklevel

__all__ = ["call", "is_undefined", "reemit"]


def call(
    what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[Any, list[warnings.WarningMessage]]:
    """``fn(*args, **kwargs)`` (a scikit-learn function): its errors become InputError
    naming ``what``; its warnings are returned (see :func:`reemit`)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn(*args, **kwargs)
        except (ValueError, TypeError, NotImplementedError, IndexError) as exc:
            raise InputError(f"{what}: {exc}") from None
    return res, list(caught)


def is_undefined(w: warnings.WarningMessage) -> bool:
    """Whether a caught warning is scikit-learn's ``UndefinedMetricWarning``."""
    return w.category.__name__ == "UndefinedMetricWarning"


def reemit(caught: list[warnings.WarningMessage]) -> None:
    """Re-issue scikit-learn's warnings: user-facing ones as RanklensWarning, pointing
    at the caller's own line."""
    for w in caught:
        if issubclass(w.category, UserWarning):
            msg = re.sub(
                r"\s*Use `zero_division` parameter to control this behavior\.?", "", str(w.message)
            )
            if is_undefined(w):
                msg += (
                    " Pass zero_division=0.0, 1.0 or nan to choose the value (this also "
                    "silences the warning)."
                )
            warnings.warn(msg, RanklensWarning, stacklevel=user_stacklevel())
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
