"""Reading user tables, one adapter for every family.

A *table* is a pandas or polars DataFrame (a polars LazyFrame is collected), a
pyarrow Table, or a dict of columns.  This module lists a table's columns,
pulls columns out by name (a missing name is an error that names the column
and lists the columns present), counts and takes rows, and reads time columns:
timestamps (int64 nanoseconds since the epoch, with their time zone) or plain
numbers (float64, e.g. Unix seconds or days since the start).  Ids and numbers
are read by :mod:`ranklens._shared.columns`, durations by
:mod:`ranklens._shared.durations`.

Nothing here imports pandas or polars: the tables' own methods are used.

>>> import pyarrow as pa
>>> table = pa.table({"user": ["a", "b"], "t": ["2024-05-01", "2024-05-02T06:00"]})
>>> t, kind = as_time_column(columns_from_frame(table, {"time": "t"}, "log")["time"], "log t")
>>> kind.describe(), kind.text(t[1])
('timestamps (no time zone)', '2024-05-02T06:00:00.000000000')
>>> columns_from_frame(table, {"item": "item_id"}, "log")
Traceback (most recent call last):
...
ranklens.errors.InputError: log: no column named 'item_id' for the item; the table has
columns ['user', 't']. Pass item=<column name>.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens._shared.columns import to_arrow
from ranklens.errors import InputError

__all__ = [
    "TimeKind",
    "as_instant",
    "as_time_column",
    "check_same_time_kind",
    "column_names",
    "columns_from_frame",
    "is_table",
    "materialise",
    "n_rows",
    "pick_column",
    "take_rows",
]

_TABLES = "a pandas, polars or pyarrow table"


def _library(obj: Any) -> str:
    return type(obj).__module__.split(".")[0]


def materialise(frame: Any) -> Any:
    """Collect a polars LazyFrame; other tables pass through."""
    if type(frame).__name__ == "LazyFrame" and _library(frame) == "polars":
        return frame.collect()
    return frame


def is_table(obj: Any) -> bool:
    """Whether ``obj`` is a table this module reads (a LazyFrame counts)."""
    return isinstance(obj, (pa.Table, Mapping)) or (
        _library(obj) in ("pandas", "polars")
        and (type(obj).__name__ == "LazyFrame" or hasattr(obj, "columns"))
    )


def column_names(frame: Any, what: str) -> list[str]:
    """The column names of a table, as text."""
    frame = materialise(frame)
    if isinstance(frame, pa.Table):
        return list(frame.column_names)
    if is_table(frame):
        return (
            [str(c) for c in frame]
            if isinstance(frame, Mapping)
            else [str(c) for c in frame.columns]
        )
    raise InputError(f"{what}: expected {_TABLES}, got {type(frame).__name__}.")


def pick_column(
    available: list[str],
    given: str | None,
    role: str,
    what: str,
    *,
    candidates: tuple[str, ...] = (),
    noun: str = "table",
    option: str | None = None,
    placeholder: str = "column name",
) -> str:
    """The column that holds ``role``: ``given`` when it is among ``available``, else
    (``given`` None) the first of ``candidates`` present, compared case-insensitively.
    The error names the column (or role), lists the ``noun``'s columns and says which
    keyword (``option``, default the role) to pass."""
    advice = f"Pass {option or role}=<{placeholder}>."
    if given is not None:
        if given not in available:
            raise InputError(
                f"{what}: no column named {given!r} for the {role}; the {noun} has "
                f"columns {available}. {advice}"
            )
        if available.count(given) > 1:
            raise InputError(
                f"{what}: the {noun} has {available.count(given)} columns named {given!r} (for "
                f"the {role}); rename them so that each name is used once."
            )
        return given
    lower = {c.lower(): c for c in available}
    for name in candidates:
        if name in lower:
            return lower[name]
    raise InputError(
        f"{what}: cannot tell which column holds the {role}; the {noun} has "
        f"columns {available}. {advice}"
    )


def columns_from_frame(frame: Any, names: Mapping[str, str], what: str) -> dict[str, Any]:
    """The columns ``{role: column name}`` of a table, as ``{role: column}`` (the
    table's own column objects: Series, Arrow arrays, sequences)."""
    frame = materialise(frame)
    available = column_names(frame, what)
    get = (
        frame.column
        if isinstance(frame, pa.Table)
        else frame.get_column
        if _library(frame) == "polars"
        else frame.__getitem__
    )
    return {role: get(pick_column(available, col, role, what)) for role, col in names.items()}


def n_rows(frame: Any, what: str) -> int:
    """The number of rows of a table (the columns of a dict must agree)."""
    frame = materialise(frame)
    column_names(frame, what)
    if isinstance(frame, pa.Table):
        return int(frame.num_rows)
    if isinstance(frame, Mapping):
        lengths = {str(k): len(v) for k, v in frame.items()}
        if len(set(lengths.values())) > 1:
            raise InputError(
                f"{what}: the columns have different lengths {lengths}; every "
                "column needs one value per row."
            )
        return next(iter(lengths.values()), 0)
    return int(frame.shape[0])


def take_rows(frame: Any, rows: np.ndarray) -> Any:
    """The rows ``rows`` (positions) of a table, as a new table of the same kind."""
    frame = materialise(frame)
    if _library(frame) == "pandas":
        return frame.iloc[rows]
    if _library(frame) == "polars":
        return frame[rows]
    if isinstance(frame, Mapping):
        return {k: np.asarray(v)[rows] for k, v in frame.items()}
    return frame.take(rows)


# -- time columns -----------------------------------------------------------------------


@dataclass(frozen=True)
class TimeKind:
    """What a time column holds: ``"timestamp"`` (with its time zone, or None
    for naive) or ``"number"``."""

    kind: str
    tz: str | None = None

    @property
    def is_timestamp(self) -> bool:
        return self.kind == "timestamp"

    def describe(self) -> str:
        if self.kind == "number":
            return "numbers"
        return f"timestamps ({'time zone ' + self.tz if self.tz else 'no time zone'})"

    def format(self, value: float | int) -> str | float:
        """A time value for reports: ISO-8601 text for timestamps (``Z`` marks UTC
        when the column has a time zone), the number itself otherwise."""
        if self.kind == "number":
            return float(value)
        text = str(np.datetime64(int(value), "ns"))
        return text + ("Z" if self.tz else "")

    def text(self, value: float | int) -> str:
        """A time value as text for messages (``20``, ``2.5`` or ISO-8601)."""
        out = self.format(value)
        if isinstance(out, str):
            return out
        return str(int(out)) if out.is_integer() else repr(out)


_CONVERT = "convert them, e.g. with pandas.to_datetime or polars' str.to_datetime"
_ISO_TARGETS = (pa.timestamp("ns"), pa.timestamp("ns", tz="UTC"))


def _parse_iso(arr: pa.Array) -> pa.Array | None:
    """ISO-8601 text as timestamps (naive, or UTC when the text has offsets); None when
    some text is not a timestamp."""
    for target in _ISO_TARGETS:
        try:
            return arr.cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
    return None


def _first_unreadable(arr: pa.Array) -> int:
    """The row of the first text ``_parse_iso`` cannot read (a bisection of slices)."""
    lo, hi = 0, len(arr)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _parse_iso(arr.slice(lo, mid - lo)) is None:
            hi = mid
        else:
            lo = mid
    return lo


def as_time_column(values: Any, what: str) -> tuple[np.ndarray, TimeKind]:
    """Times as int64 nanoseconds since the epoch (timestamps of any resolution, dates,
    ISO-8601 text; a time zone is kept in the :class:`TimeKind` and the instants are
    UTC) or float64 (numbers).  ``what`` names the column in messages."""
    arr = to_arrow(values, what)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if arr.null_count:
        first = int(np.flatnonzero(to_numpy(pc.is_null(arr)))[0])
        raise InputError(
            f"{what}: {arr.null_count} missing time(s) (null or NaT), the first "
            f"at row {first}; drop or fill them first."
        )
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        parsed = _parse_iso(arr)
        if parsed is None:
            row = _first_unreadable(arr)
            raise InputError(
                f"{what}: cannot read row {row} ({arr[row].as_py()!r}) as a time; give "
                "timestamps (datetime64, dates or ISO-8601 text such as '2024-05-01T12:00:00') "
                f"or numbers (e.g. Unix seconds): {_CONVERT}."
            )
        arr, t = parsed, parsed.type
    if pa.types.is_date(t):
        arr = arr.cast(pa.timestamp("ns"))
        t = arr.type
    if pa.types.is_timestamp(t):
        try:
            ns = arr.cast(pa.timestamp("ns", tz=t.tz))
        except pa.ArrowInvalid as exc:
            raise InputError(f"{what}: timestamps out of the representable range ({exc}).") from exc
        return np.array(to_numpy(ns.cast(pa.int64())), dtype=np.int64), TimeKind("timestamp", t.tz)
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        num = np.array(to_numpy(arr.cast(pa.float64())), dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(num))
        if bad.size:
            raise InputError(
                f"{what}: {bad.size} NaN or infinite time(s), the first at row "
                f"{int(bad[0])}; drop or fill them first."
            )
        return num, TimeKind("number")
    raise InputError(
        f"{what}: times must be timestamps, dates, ISO-8601 text or numbers (e.g. "
        f"Unix seconds), got values of type {t}; {_CONVERT}."
    )


def check_same_time_kind(a: TimeKind, b: TimeKind, what_a: str, what_b: str) -> None:
    """Two time columns that are compared must hold the same kind of time."""
    if a.kind != b.kind or (a.tz is None) != (b.tz is None):
        raise InputError(
            f"the {what_a} times are {a.describe()} but the {what_b} times are {b.describe()}; "
            "convert both to the same kind (e.g. UTC timestamps) so they can be compared."
        )


def _prefix(where: str | None) -> str:
    return f"{where}: " if where else ""


def as_instant(value: Any, kind: TimeKind, param: str, where: str | None = None) -> float | int:
    """A user-given instant (a date or datetime, or a number for numeric times) on the
    time column's scale: nanoseconds since the epoch, or the number itself.  Text
    without a time zone is read as UTC on a column with one.

    >>> as_instant("2024-01-31", TimeKind("timestamp"), "test_start")
    1706659200000000000
    >>> as_instant(5, TimeKind("timestamp"), "test_start", "split")
    Traceback (most recent call last):
    ...
    ranklens.errors.InputError: split: test_start=5 is a number but the time column holds
    datetimes; pass a date such as '2024-01-31' or a datetime.
    """
    p = _prefix(where)
    is_number = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )
    if not kind.is_timestamp:
        if not is_number:
            raise InputError(
                f"{p}{param}={value!r} must be a number because the time column "
                "holds numbers, not datetimes."
            )
        return float(value)
    if is_number:
        raise InputError(
            f"{p}{param}={value!r} is a number but the time column holds "
            "datetimes; pass a date such as '2024-01-31' or a datetime."
        )
    try:
        instant = np.datetime64(value, "ns")
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{p}{param}={value!r} is not a date or datetime; pass e.g. '2024-01-31'."
        ) from exc
    if np.isnat(instant):
        raise InputError(f"{p}{param} must not be NaT.")
    return int(instant.astype(np.int64))
