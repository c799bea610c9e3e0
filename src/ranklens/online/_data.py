"""Reading exposure and event tables (pandas, polars, pyarrow) into arrays.

Ids become Arrow strings (``as_id_column``), values float64, times int64
nanoseconds since the epoch (timestamps, dates, ISO-8601 strings) or float64
(plain numbers, e.g. seconds or days since the experiment started): the shared
table adapter, :mod:`ranklens._shared.frames`, reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.columns import as_float_column, as_id_column
from ranklens._shared.frames import (
    TimeKind,
    as_time_column,
    column_names,
    columns_from_frame,
    materialise,
)
from ranklens.errors import InputError

__all__ = [
    "Events",
    "Exposures",
    "as_ids",
    "read_events",
    "read_exposures",
]


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


def as_ids(values: Any, what: str) -> pa.Array:
    """``as_id_column`` as one contiguous large-string array."""
    return as_id_column(values, what).cast(pa.large_string())


def blank_rows(ids: pa.Array) -> np.ndarray:
    """The rows whose id is empty or only blanks."""
    import pyarrow.compute as pc

    return np.flatnonzero(
        np.asarray(
            pc.equal(pc.utf8_trim_whitespace(ids), "").to_numpy(zero_copy_only=False), dtype=bool
        )
    )


def _no_blank(ids: pa.Array, what: str) -> pa.Array:
    bad = blank_rows(ids)
    if bad.size:
        raise InputError(
            f"{what}: row {int(bad[0])} is blank ({bad.size} row(s) in all); "
            "every row needs an id: fill or drop those rows."
        )
    return ids


def _no_times(n: int) -> tuple[np.ndarray, TimeKind]:
    """Every row at time 0: a table without times (an assignment table)."""
    return np.zeros(n, dtype=np.float64), TimeKind("number")


def read_exposures(frame: Any, *, unit: str, variant: str, time: str | None) -> Exposures:
    """The exposures; with ``time=None`` every unit is exposed from the start."""
    names = {"unit": unit, "variant": variant, **({"time": time} if time is not None else {})}
    cols = columns_from_frame(frame, names, "exposures")
    u = _no_blank(as_ids(cols["unit"], f"exposures column {unit!r}"), f"exposures column {unit!r}")
    v = as_ids(cols["variant"], f"exposures column {variant!r}")
    t, kind = (
        as_time_column(cols["time"], f"exposures column {time!r}")
        if time is not None
        else _no_times(len(u))
    )
    if len(u) == 0:
        raise InputError("exposures: the table has no rows; there is nothing to analyse.")
    return Exposures(u, v, t, kind)


def read_events(
    frame: Any, *, unit: str, time: str | None, event: str, value: str | None
) -> Events:
    """The events; with ``time=None`` their times are not read (every event counts)."""
    frame = materialise(frame)  # collected once
    names = {"unit": unit, "event": event, **({"time": time} if time is not None else {})}
    available = column_names(frame, "events")
    use_value = value if value is not None else ("value" if "value" in available else None)
    if use_value is not None:
        names["value"] = use_value
    cols = columns_from_frame(frame, names, "events")
    u = _no_blank(as_ids(cols["unit"], f"events column {unit!r}"), f"events column {unit!r}")
    t, kind = (
        as_time_column(cols["time"], f"events column {time!r}")
        if time is not None
        else _no_times(len(u))
    )
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
    return Events(u, t, e, vals, kind, use_value is not None)
