"""Durations, one grammar for every family (recsys windows and gaps, online
pre-exposure windows and looks).

On a timestamp column a duration is

* text: an optional number (integer or decimal; 1 when left out) and a unit,
  with or without a space between: ``'7D'``, ``'7d'``, ``'7 days'``,
  ``'2 weeks'``, ``'1.5h'``, ``'90min'``, ``'30s'``.  Units, in any case:
  ``w``/``week(s)``; ``d``/``day(s)``; ``h``/``hr(s)``/``hour(s)``;
  ``m``/``min(s)``/``minute(s)`` and pandas' ``T``; ``s``/``sec(s)``/
  ``second(s)``; ``ms``/``millisecond(s)``; ``us``/``microsecond(s)``;
  ``ns``/``nanosecond(s)``.  ``'M'`` alone is refused (pandas reads it as
  a month, which has no fixed length);
* a ``datetime.timedelta``, ``numpy.timedelta64`` or ``pandas.Timedelta``.

On a numeric time column it is a number in the column's unit.

>>> day = TimeKind("timestamp")
>>> [as_duration(text, day, "window") // 3_600_000_000_000
...  for text in ("7D", "7d", "7 days", "1 week", "2 weeks", "1h", "D")]
[168, 168, 168, 168, 336, 1, 24]
>>> as_duration("90min", day, "window") == as_duration("1.5h", day, "window") == 5_400 * 10**9
True
>>> import datetime, numpy as np, pandas as pd
>>> {as_duration(d, day, "window") for d in (datetime.timedelta(hours=1),
...  np.timedelta64(60, "m"), pd.Timedelta("1h"), pd.Timedelta(minutes=60))} == {3_600 * 10**9}
True
>>> as_duration(2.5, TimeKind("number"), "window")
2.5
>>> as_duration("7 parsecs", day, "test_size", "TimeRangeCV")
Traceback (most recent call last):
...
ranklens.errors.InputError: TimeRangeCV: test_size: cannot read '7 parsecs' as a duration;
use e.g. '7D', '7 days', '2 weeks', '12h', '90min', '30s' or a datetime.timedelta.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import numpy as np

from ranklens._shared.frames import TimeKind
from ranklens.errors import InputError

__all__ = ["EXAMPLES", "as_duration", "parse_duration"]

EXAMPLES = "'7D', '7 days', '2 weeks', '12h', '90min', '30s' or a datetime.timedelta"

_SECOND = 10**9
_UNITS: dict[str, int] = {}
for _names, _ns in (
    (("w", "week", "weeks"), 604_800 * _SECOND),
    (("d", "day", "days"), 86_400 * _SECOND),
    (("h", "hr", "hrs", "hour", "hours"), 3_600 * _SECOND),
    (("m", "t", "min", "mins", "minute", "minutes"), 60 * _SECOND),
    (("s", "sec", "secs", "second", "seconds"), _SECOND),
    (("ms", "millisecond", "milliseconds"), 10**6),
    (("us", "microsecond", "microseconds"), 10**3),
    (("ns", "nanosecond", "nanoseconds"), 1),
):
    _UNITS.update(dict.fromkeys(_names, _ns))

_GRAMMAR = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)?\s*([A-Za-z]+)\s*")


def parse_duration(text: str) -> int:
    """Duration text (see the module documentation) as nanoseconds; ``ValueError``
    when it is not one.

    >>> parse_duration("2 weeks") == 14 * 86_400 * 10**9
    True
    >>> parse_duration("1M")
    Traceback (most recent call last):
    ...
    ValueError: '1M' is not a duration
    """
    match = _GRAMMAR.fullmatch(text)
    unit = match.group(2) if match else ""
    if match is None or unit in ("M", "MS") or unit.lower() not in _UNITS:
        raise ValueError(f"{text!r} is not a duration")
    number = Decimal(match.group(1) or 1)
    return int((number * _UNITS[unit.lower()]).to_integral_value())


def _nanoseconds(value: Any) -> int | None:
    """A duration value as nanoseconds; None when it is not a duration."""
    if isinstance(value, str):
        try:
            return parse_duration(value)
        except ValueError:
            return None
    if hasattr(value, "to_timedelta64"):  # pandas.Timedelta (keeps its nanoseconds)
        value = value.to_timedelta64()
    if isinstance(value, np.timedelta64):
        if np.isnat(value) or np.datetime_data(value.dtype)[0] == "generic":
            return None
        return int(value.astype("timedelta64[ns]").astype(np.int64))
    if isinstance(value, dt.timedelta):
        return ((value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds) * 1000
    return None


def as_duration(
    value: Any, kind: TimeKind, param: str, where: str | None = None, *, zero_ok: bool = False
) -> float | int:
    """The duration ``value`` of parameter ``param`` on a time column's scale: int
    nanoseconds for timestamps, float for numbers.  It must be positive, or
    non-negative with ``zero_ok`` (then ``None`` means 0).  Errors name ``where``
    (the function or class) and ``param``, and show accepted spellings."""
    p = f"{where}: " if where else ""
    if value is None:
        if zero_ok:
            return 0 if kind.is_timestamp else 0.0
        raise InputError(f"{p}{param} is required: give a duration such as {EXAMPLES}.")
    out: float | int
    if kind.is_timestamp:
        ns = _nanoseconds(value)
        if ns is None:
            raise InputError(
                f"{p}{param}: cannot read {value!r} as a duration; use e.g. {EXAMPLES}."
            )
        out = ns
    else:
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise InputError(
                f"{p}{param}={value!r} must be a number (in the time column's "
                "unit) because the time column holds numbers, not datetimes."
            )
        out = float(value)
        if not np.isfinite(out):
            raise InputError(f"{p}{param} must be a finite number, got {value!r}.")
    if out < 0 or (out == 0 and not zero_ok):
        sign = "non-negative" if zero_ok else "positive"
        raise InputError(f"{p}{param} must be a {sign} duration, got {value!r}.")
    return out
