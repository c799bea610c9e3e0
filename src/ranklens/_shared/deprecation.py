"""Old spellings kept for one release: they still work, and say what to write instead.

>>> import warnings
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     renamed_keyword("accuracy", "per_sample", True, "reduction", "mean",
...                     convert=lambda old: "none" if old else "mean")
'none'
>>> print(seen[0].message)
accuracy: per_sample=True is deprecated and goes in the next release; pass reduction='none'
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     renamed_choice("ap", "unjudged", "exclude", {"exclude": "skip"})
'skip'
>>> print(seen[0].message)
ap: unjudged='exclude' is deprecated and goes in the next release; pass unjudged='skip'
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ranklens.errors import RanklensDeprecationWarning, user_stacklevel

T = TypeVar("T")


def _warn(where: str, old: str, new: str) -> None:
    warnings.warn(
        f"{where}: {old} is deprecated and goes in the next release; pass {new}",
        RanklensDeprecationWarning,
        stacklevel=user_stacklevel(),
    )


def renamed_keyword(
    where: str,
    old: str,
    old_value: Any,
    new: str,
    new_value: T,
    convert: Callable[[Any], T] | None = None,
) -> T:
    """The value of keyword ``new``, taking the deprecated ``old`` (``None`` = not given).

    ``convert`` maps an old value to the new keyword's value (identity by
    default).  The old keyword wins when given, as it did before the rename.
    """
    if old_value is None:
        return new_value
    value = convert(old_value) if convert is not None else old_value
    _warn(where, f"{old}={old_value!r}", f"{new}={value!r}")
    return value


def renamed_choice(where: str, param: str, value: T, aliases: Mapping[Any, T]) -> T:
    """``value``, or the current spelling of a deprecated choice of ``param``."""
    if isinstance(value, str) and value in aliases:
        new = aliases[value]
        _warn(where, f"{param}={value!r}", f"{param}={new!r}")
        return new
    return value
