"""Columns out of pandas / polars / pyarrow frames as NumPy arrays (internal).

Nothing here imports pandas or polars: the frame's own methods are used.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from ranklens.errors import InputError

__all__ = ["column", "encode", "format_time", "frame_columns", "n_rows", "take_rows", "timestamps", "to_duration", "to_time"]


def frame_columns(frame: Any, what: str) -> list[str]:
    """The column names of a pandas, polars or pyarrow table."""
    mod = type(frame).__module__.split(".")[0]
    if mod == "pandas" and hasattr(frame, "columns"):
        return [str(c) for c in frame.columns]
    if mod == "polars" and type(frame).__name__ == "DataFrame":
        return list(frame.columns)
    if mod == "pyarrow" and type(frame).__name__ == "Table":
        return list(frame.column_names)
    raise InputError(
        f"{what}: X must be a pandas, polars or pyarrow table of interactions, got "
        f"{type(frame).__name__}."
    )


def n_rows(frame: Any, what: str) -> int:
    frame_columns(frame, what)
    return int(frame.shape[0]) if hasattr(frame, "shape") else int(frame.num_rows)


def column(frame: Any, name: str, what: str, role: str) -> np.ndarray:
    """Column ``name`` of ``frame`` as a NumPy array (object dtype for strings)."""
    cols = frame_columns(frame, what)
    if name not in cols:
        raise InputError(
            f"{what}: no column named {name!r} for the {role}; the table has columns {cols}. "
            f"Pass {role}_col=<column name>."
        )
    mod = type(frame).__module__.split(".")[0]
    if mod == "pandas":
        s = frame[name]
        dtype = s.dtype
        if getattr(dtype, "tz", None) is not None:  # tz-aware: compare instants in UTC
            s = s.dt.tz_convert("UTC").dt.tz_localize(None)
        return np.asarray(s.to_numpy())
    if mod == "polars":
        s = frame.get_column(name)
        if s.dtype.__class__.__name__ == "Datetime" and getattr(s.dtype, "time_zone", None):
            s = s.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
        return np.asarray(s.to_numpy())
    col = frame.column(name)
    try:
        return np.asarray(col.to_numpy())
    except Exception:  # pragma: no cover - exotic arrow types
        return np.asarray(col.to_pylist(), dtype=object)


def encode(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(uniques, codes)``: integer codes of the values (sorted unique order)."""
    if values.dtype == object:
        try:
            uniq, codes = np.unique(values.astype(str), return_inverse=True)
        except TypeError:  # pragma: no cover
            uniq, codes = np.unique(values.astype(str), return_inverse=True)
        return uniq, codes.astype(np.int64).ravel()
    uniq, codes = np.unique(values, return_inverse=True)
    return uniq, codes.astype(np.int64).ravel()


def timestamps(values: np.ndarray, name: str, what: str) -> tuple[np.ndarray, bool]:
    """Return ``(t, is_datetime)``: timestamps as int64 nanoseconds (datetimes) or as
    float64 (numbers, e.g. Unix seconds).  Anything else raises :class:`InputError`."""
    dt = values.dtype
    if np.issubdtype(dt, np.datetime64):
        t = values.astype("datetime64[ns]")
        bad = np.isnat(t)
        if bad.any():
            raise InputError(
                f"{what}: the time column {name!r} has {int(bad.sum())} missing timestamp(s) "
                f"(NaT), first at row {int(np.flatnonzero(bad)[0])}; drop or fill them first."
            )
        return t.view(np.int64).copy(), True
    if dt != np.bool_ and (np.issubdtype(dt, np.integer) or np.issubdtype(dt, np.floating)):
        t = values.astype(np.float64)
        bad = ~np.isfinite(t)
        if bad.any():
            raise InputError(
                f"{what}: the time column {name!r} has {int(bad.sum())} missing or infinite "
                f"value(s), first at row {int(np.flatnonzero(bad)[0])}; drop or fill them first."
            )
        return t, False
    example = repr(values[0]) if len(values) else "no rows"
    raise InputError(
        f"{what}: the time column {name!r} must hold timestamps (datetime64) or numbers "
        f"(e.g. Unix seconds), got dtype {dt} (first value {example}); convert it, e.g. "
        "with pandas.to_datetime or polars' str.to_datetime."
    )


def to_time(value: Any, is_datetime: bool, what: str, param: str) -> float | int:
    """A user-given instant (date string, datetime, number) on the time column's scale."""
    if is_datetime:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise InputError(
                f"{what}: {param}={value!r} is a number but the time column holds datetimes; "
                "pass a date such as '2024-01-31' or a datetime."
            )
        try:
            v = np.datetime64(value, "ns")
        except (TypeError, ValueError) as exc:
            raise InputError(
                f"{what}: {param}={value!r} is not a date or datetime; pass e.g. '2024-01-31'."
            ) from exc
        if np.isnat(v):
            raise InputError(f"{what}: {param} must not be NaT.")
        return int(v.astype(np.int64))
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(
            f"{what}: {param}={value!r} must be a number because the time column holds "
            "numbers, not datetimes."
        )
    return float(value)


def to_duration(value: Any, is_datetime: bool, what: str, param: str) -> float | int:
    """A user-given duration ('7D', '12h', timedelta, number) on the time column's scale."""
    if value is None:
        return 0 if is_datetime else 0.0
    if is_datetime:
        ns_per = {"W": 604_800 * 10**9, "D": 86_400 * 10**9, "H": 3_600 * 10**9,
                  "h": 3_600 * 10**9, "min": 60 * 10**9, "T": 60 * 10**9, "m": 60 * 10**9,
                  "S": 10**9, "s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
        d: Any = value
        if isinstance(value, str):
            num = value.strip().rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            unit = value.strip()[len(num):]
            if unit not in ns_per or not (num == "" or num.isdigit()):
                raise InputError(
                    f"{what}: {param}={value!r} is not a duration; use e.g. '7D', '12h', "
                    "'30min', '1W' or a datetime.timedelta."
                )
            d = np.timedelta64(int(num or 1) * ns_per[unit], "ns")
        elif isinstance(value, (_dt.timedelta, np.timedelta64)):
            d = np.timedelta64(value, "ns") if isinstance(value, _dt.timedelta) else value
        else:
            raise InputError(
                f"{what}: {param}={value!r} is not a duration; use e.g. '7D' or a "
                "datetime.timedelta."
            )
        ns = int(d.astype("timedelta64[ns]").astype(np.int64))
        if ns < 0:
            raise InputError(f"{what}: {param} must be a non-negative duration, got {value!r}.")
        return ns
    else:
        if isinstance(value, bool) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise InputError(
                f"{what}: {param}={value!r} must be a number because the time column holds "
                "numbers, not datetimes."
            )
        out = float(value)
    if not np.isfinite(out) or out < 0:
        raise InputError(f"{what}: {param} must be a non-negative duration, got {value!r}.")
    return out


def take_rows(frame: Any, idx: np.ndarray) -> Any:
    """The rows ``idx`` of a pandas, polars or pyarrow table (a new table)."""
    mod = type(frame).__module__.split(".")[0]
    if mod == "pandas":
        return frame.iloc[idx]
    if mod == "polars":
        return frame[idx]
    return frame.take(idx)


def format_time(value: float | int, is_datetime: bool) -> str:
    """An instant on the time column's scale, as text for messages."""
    if is_datetime:
        return str(np.datetime64(int(value), "ns"))
    return repr(float(value)) if not float(value).is_integer() else str(int(value))
