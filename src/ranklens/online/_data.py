"""Reading exposure and event tables (pandas, polars, pyarrow) into arrays.

Ids become Arrow strings (``as_id_column``), values float64, times int64
nanoseconds since the epoch (timestamps, dates, ISO-8601 strings) or float64
(plain numbers, e.g. seconds or days since the experiment started).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.columns import as_float_column, as_id_column, columns_from_frame
from ranklens.errors import InputError

__all__ = [
    "Events",
    "Exposures",
    "TimeKind",
    "as_duration",
    "as_ids",
    "read_events",
    "read_exposures",
]


@dataclass(frozen=True)
class TimeKind:
    """What a time column holds: ``"timestamp"`` (with its time zone, or None
    for naive) or ``"number"``."""

    kind: str
    tz: str | None = None

    def describe(self) -> str:
        if self.kind == "number":
            return "numbers"
        return f"timestamps ({'time zone ' + self.tz if self.tz else 'no time zone'})"

    def format(self, value: float | int) -> str | float:
        """A time value for reports: ISO-8601 text for timestamps."""
        if self.kind == "number":
            return float(value)
        text = str(np.datetime64(int(value), "ns"))
        return text + ("Z" if self.tz else "")


@dataclass(frozen=True, eq=False)
class Exposures:
    unit: pa.Array
    variant: pa.Array
    time: np.ndarray
    time_kind: TimeKind


@dataclass(frozen=True, eq=False)
class Events:
    unit: pa.Array
    time: np.ndarray
    event: pa.Array
    value: np.ndarray
    time_kind: TimeKind
    has_value: bool


def _arrow(values: Any, what: str) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.Array):
        return values
    mod = type(values).__module__.split(".")[0]
    try:
        if mod == "polars":
            return _arrow(values.to_arrow(), what)
        if mod == "pandas":
            return pa.Array.from_pandas(values)
        if isinstance(values, np.ndarray):
            if values.ndim != 1:
                raise InputError(f"{what}: expected a one-dimensional column, got shape "
                                 f"{values.shape}.")
            return pa.array(values)
        if isinstance(values, Sequence) and not isinstance(values, (str, bytes)):
            return pa.array(list(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(f"{what}: cannot read the column ({exc}).") from exc
    raise InputError(f"{what}: expected a column (list, numpy array, Series or Arrow array), "
                     f"got {type(values).__name__}.")


def as_time_column(values: Any, what: str) -> tuple[np.ndarray, TimeKind]:
    """Times as int64 ns since the epoch (timestamps) or float64 (numbers)."""
    arr = _arrow(values, what)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if arr.null_count:
        first = int(np.flatnonzero(np.asarray(
            pc.is_null(arr).to_numpy(zero_copy_only=False)))[0])
        raise InputError(f"{what}: row {first} has a missing (null) time; {arr.null_count} "
                         "row(s) in all. Drop or fill them first.")
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        parsed = None
        for target in (pa.timestamp("ns"), pa.timestamp("ns", tz="UTC")):
            try:
                parsed = arr.cast(target)
                break
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
        if parsed is None:
            raise InputError(
                f"{what}: cannot read the times as ISO-8601 timestamps (e.g. "
                f"{arr[0].as_py()!r}); use timestamps like '2024-05-01T12:00:00' or numbers."
            )
        arr, t = parsed, parsed.type
    if pa.types.is_date(t):
        arr = arr.cast(pa.timestamp("ns"))
        t = arr.type
    if pa.types.is_timestamp(t):
        try:
            ns = arr.cast(pa.timestamp("ns", tz=t.tz))
        except pa.ArrowInvalid as exc:
            raise InputError(f"{what}: timestamps out of the representable range ({exc}).") \
                from exc
        out = np.asarray(ns.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
        return out, TimeKind("timestamp", t.tz)
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        num = np.array(arr.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(num))
        if bad.size:
            raise InputError(f"{what}: row {int(bad[0])} has a NaN or infinite time; "
                             f"{bad.size} row(s) in all.")
        return num, TimeKind("number")
    raise InputError(f"{what}: times must be timestamps, dates, ISO-8601 strings or numbers, "
                     f"got type {t}.")


def check_same_time_kind(a: TimeKind, b: TimeKind, what_a: str, what_b: str) -> None:
    if a.kind != b.kind or (a.tz is None) != (b.tz is None):
        raise InputError(
            f"the {what_a} times are {a.describe()} but the {what_b} times are {b.describe()}; "
            "convert both to the same kind (e.g. UTC timestamps) so they can be compared."
        )


def as_duration(value: Any, kind: TimeKind, name: str) -> float | int:
    """A duration in the units of a time column (ns for timestamps)."""
    if value is None:
        raise InputError(f"{name} is required.")
    if kind.kind == "timestamp":
        if isinstance(value, dt.timedelta):
            ns = (value.days * 86_400 + value.seconds) * 1_000_000_000 + value.microseconds * 1000
        elif isinstance(value, np.timedelta64):
            ns = int(value.astype("timedelta64[ns]").astype(np.int64))
        elif isinstance(value, str):
            try:
                ns = int(np.timedelta64(_parse_duration(value), "ns").astype(np.int64))
            except ValueError as exc:
                raise InputError(f"{name}: cannot read {value!r} as a duration; use e.g. '1d', "
                                 "'12h' or '30min'.") from exc
        else:
            raise InputError(f"{name}: the times are timestamps, so give a duration "
                             f"(datetime.timedelta or a string such as '1d'), got {value!r}.")
        if ns <= 0:
            raise InputError(f"{name} must be positive, got {value!r}.")
        return ns
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not np.isfinite(float(value)) or float(value) <= 0:
        raise InputError(f"{name}: the times are numbers, so give a positive number in the "
                         f"same unit, got {value!r}.")
    return float(value)


_UNITS = {"d": 86_400, "day": 86_400, "days": 86_400, "h": 3600, "hour": 3600, "hours": 3600,
          "min": 60, "m": 60, "minutes": 60, "s": 1, "sec": 1, "seconds": 1,
          "w": 604_800, "week": 604_800, "weeks": 604_800}


def _parse_duration(text: str) -> int:
    """``"1d"``, ``"12h"``, ``"30min"``, ``"2 weeks"`` -> nanoseconds."""
    s = text.strip().lower()
    i = 0
    while i < len(s) and (s[i].isdigit() or s[i] == "."):
        i += 1
    num, unit = s[:i], s[i:].strip()
    if not num or unit not in _UNITS:
        raise ValueError(text)
    return round(float(num) * _UNITS[unit] * 1_000_000_000)


def as_ids(values: Any, what: str) -> pa.Array:
    """``as_id_column`` as one contiguous large-string array (pandas' Arrow-backed
    strings arrive chunked)."""
    arr: Any = as_id_column(values, what)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr.cast(pa.large_string())


def materialise(frame: Any) -> Any:
    """Collect a polars LazyFrame; other tables pass through."""
    if type(frame).__name__ == "LazyFrame" and type(frame).__module__.startswith("polars"):
        return frame.collect()
    return frame


def read_exposures(frame: Any, *, unit: str, variant: str, time: str) -> Exposures:
    frame = materialise(frame)
    cols = columns_from_frame(frame, {"unit": unit, "variant": variant, "time": time},
                              "exposures")
    u = as_ids(cols["unit"], f"exposures column {unit!r}")
    v = as_ids(cols["variant"], f"exposures column {variant!r}")
    t, kind = as_time_column(cols["time"], f"exposures column {time!r}")
    if len(u) == 0:
        raise InputError("exposures: the table has no rows; there is nothing to analyse.")
    return Exposures(u, v, t, kind)


def read_events(frame: Any, *, unit: str, time: str, event: str,
                value: str | None) -> Events:
    frame = materialise(frame)
    names = {"unit": unit, "time": time, "event": event}
    available = column_names(frame)
    use_value = value if value is not None else ("value" if "value" in available else None)
    if use_value is not None:
        names["value"] = use_value
    cols = columns_from_frame(frame, names, "events")
    u = as_ids(cols["unit"], f"events column {unit!r}")
    t, kind = as_time_column(cols["time"], f"events column {time!r}")
    e = as_ids(cols["event"], f"events column {event!r}")
    if use_value is not None:
        vals = as_float_column(cols["value"], f"events column {use_value!r}")
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            raise InputError(
                f"events column {use_value!r}: row {int(bad[0])} is NaN or infinite "
                f"({bad.size} row(s) in all); every value must be a finite number."
            )
    else:
        vals = np.ones(len(u), dtype=np.float64)
    return Events(u, t, e, vals, kind,
                  use_value is not None)


def column_names(frame: Any) -> list[str]:
    frame = materialise(frame)
    if isinstance(frame, pa.Table):
        return list(frame.column_names)
    if isinstance(frame, dict):
        return [str(c) for c in frame]
    cols = getattr(frame, "columns", None)
    return [str(c) for c in cols] if cols is not None else []
