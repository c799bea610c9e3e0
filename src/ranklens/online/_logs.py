"""From exposure and event logs to per-unit arrays (the data side of :func:`analyze`).

Units are dictionary-encoded once; every later step works on integer unit
codes: the variant of each unit (``-1`` when excluded), its first exposure
time, and the events of analysed units with their unit code, event-type code,
value and whether they happened at or after the unit's first exposure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.columns import as_float_column
from ranklens._shared.frames import column_names, columns_from_frame, materialise
from ranklens.errors import InputError
from ranklens.online._data import Events, Exposures, as_ids
from ranklens.online.metrics import EventAggregate, OnlineMetric

__all__ = [
    "EventRows",
    "Units",
    "covariates_from_table",
    "format_examples",
    "prepare_events",
    "prepare_units",
    "unit_values",
]

MAX_EXAMPLES = 5


@dataclass(frozen=True, eq=False)
class Units:
    """Every unit of the exposures table, in dictionary order."""

    ids: pa.Array  # exposed unit ids (dictionary)
    group: np.ndarray  # variant index per unit, -1 if excluded
    t0: np.ndarray  # first exposure time per unit


@dataclass(frozen=True, eq=False)
class EventRows:
    """The event rows of analysed units."""

    unit: np.ndarray  # unit index (into Units.ids)
    time: np.ndarray
    type_code: np.ndarray
    types: list[str]
    value: np.ndarray
    post: np.ndarray  # at or after the unit's first exposure


def examples(values: pa.Array | list[str]) -> tuple[str, ...]:
    vals = values.to_pylist() if isinstance(values, pa.Array) else values
    return tuple(str(v) for v in vals[:MAX_EXAMPLES])


def format_examples(ex: tuple[str, ...], total: int) -> str:
    shown = ", ".join(repr(e) for e in ex)
    return shown + (f" and {total - len(ex)} more" if total > len(ex) else "")


def prepare_units(
    exp: Exposures,
    variants: list[str] | None,
    unknown_variants: str,
    multiple_exposures: str,
) -> tuple[Units, dict[str, Any]]:
    """First exposure and variant of every unit, applying the unknown-variant and
    multiple-exposure policies; ``info`` counts what was excluded."""
    info: dict[str, Any] = {"unknown_variants": (), "unknown_variant_rows": 0}
    vcode_arr = pc.index_in(exp.variant, value_set=pa.array(variants, type=pa.large_string()))
    unknown_mask = np.asarray(pc.is_null(vcode_arr).to_numpy(zero_copy_only=False))
    keep_rows = ~unknown_mask
    if unknown_mask.any():
        bad = exp.variant.filter(pa.array(unknown_mask))
        counts = pc.value_counts(bad).to_pylist()
        names = tuple(sorted(str(c["values"]) for c in counts))
        n_bad = int(unknown_mask.sum())
        if unknown_variants == "error":
            raise InputError(
                f"exposures: {n_bad} row(s) have variant(s) {list(names)} that the plan does not "
                f"know (it has {variants}). Fix the plan, or pass unknown_variants='exclude' "
                "to drop those rows."
            )
        info["unknown_variants"] = names
        info["unknown_variant_rows"] = n_bad
    vcode = np.asarray(vcode_arr.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    enc = pc.dictionary_encode(exp.unit)
    ucode = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    ids = enc.dictionary
    n_units = len(ids)
    rows = np.flatnonzero(keep_rows)
    order = rows[np.lexsort((rows, exp.time[rows], ucode[rows]))]
    su = ucode[order]
    starts = np.flatnonzero(np.r_[True, su[1:] != su[:-1]]) if su.size else np.zeros(0, int)
    group = np.full(n_units, -1, dtype=np.int64)
    t0 = np.zeros(n_units, dtype=exp.time.dtype)
    first_rows = order[starts]
    group[su[starts]] = vcode[first_rows]
    t0[su[starts]] = exp.time[first_rows]
    multi_units = np.zeros(0, dtype=np.int64)
    if su.size:
        sv = vcode[order]
        vmin = np.minimum.reduceat(sv, starts)
        vmax = np.maximum.reduceat(sv, starts)
        multi_units = su[starts][vmin != vmax]
    info["multiple_variant_units"] = int(multi_units.size)
    info["multiple_variant_examples"] = examples(ids.take(pa.array(multi_units[:MAX_EXAMPLES])))
    if multi_units.size:
        if multiple_exposures == "error":
            raise InputError(
                f"exposures: {multi_units.size} unit(s) were exposed to more than one variant, "
                f"e.g. {format_examples(info['multiple_variant_examples'], multi_units.size)}. "
                "Fix the assignment, or pass multiple_exposures='exclude' (drop them) or "
                "'first' (keep their first variant)."
            )
        if multiple_exposures == "exclude":
            group[multi_units] = -1
    # units seen only with unknown variants stay at -1 (excluded)
    return Units(ids, group, t0), info


def prepare_events(ev: Events, units: Units) -> tuple[EventRows, dict[str, Any]]:
    """Events of analysed units; events of never-exposed units are counted and dropped."""
    code_arr = pc.index_in(ev.unit, value_set=units.ids)
    unexposed = np.asarray(pc.is_null(code_arr).to_numpy(zero_copy_only=False))
    info: dict[str, Any] = {
        "event_rows": len(ev.unit),
        "unexposed_event_rows": int(unexposed.sum()),
        "unexposed_units": 0,
        "unexposed_examples": (),
    }
    if unexposed.any():
        bad_units = pc.unique(ev.unit.filter(pa.array(unexposed)))
        info["unexposed_units"] = len(bad_units)
        info["unexposed_examples"] = examples(bad_units.slice(0, MAX_EXAMPLES))
    code = np.asarray(code_arr.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    keep = ~unexposed
    code = code[keep]
    # events of excluded units (multiple variants, unknown variants) are dropped too
    in_analysis = units.group[code] >= 0
    rows = np.flatnonzero(keep)[in_analysis]
    code = code[in_analysis]
    tenc = pc.dictionary_encode(ev.event.take(pa.array(rows)))
    tcode = np.asarray(tenc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    time = ev.time[rows]
    post = time >= units.t0[code]
    info["pre_exposure_event_rows"] = int((~post).sum())
    return EventRows(
        code, time, tcode, [str(t) for t in tenc.dictionary.to_pylist()], ev.value[rows], post
    ), info


def unit_values(rows: EventRows, agg: EventAggregate, mask: np.ndarray, n_units: int) -> np.ndarray:
    """Per-unit ``sum``/``count``/``any`` of one event type over the rows in ``mask``."""
    try:
        code = rows.types.index(agg.event)
    except ValueError:
        return np.zeros(n_units)
    m = mask & (rows.type_code == code)
    if agg.agg == "sum":
        return np.bincount(rows.unit[m], weights=rows.value[m], minlength=n_units)
    counts = np.bincount(rows.unit[m], minlength=n_units).astype(np.float64)
    return (counts > 0).astype(np.float64) if agg.agg == "any" else counts


def covariates_from_table(
    table: Any, unit: str, ids: pa.Array, mets: tuple[OnlineMetric, ...], notes: list[str]
) -> dict[str, np.ndarray]:
    """CUPED covariates per metric from a (unit, metric columns...) table."""
    table = materialise(table)
    names = column_names(table, "covariates")
    wanted = {m.name: m.name for m in mets if m.name in names}
    if not wanted and "covariate" in names:
        wanted = {m.name: "covariate" for m in mets}
    if not wanted:
        raise InputError(
            f"covariates: the table needs a column named after a metric "
            f"({[m.name for m in mets]}) or a column 'covariate'; it has {names}."
        )
    spec = {"unit": unit, **{f"c:{k}": v for k, v in wanted.items()}}
    cols = columns_from_frame(table, spec, "covariates")
    cu = as_ids(cols["unit"], f"covariates column {unit!r}")
    if len(pc.unique(cu)) != len(cu):
        raise InputError("covariates: a unit occurs more than once; give one row per unit.")
    pos = pc.index_in(ids, value_set=cu)
    missing = int(pos.null_count)
    posn = np.asarray(pos.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    out: dict[str, np.ndarray] = {}
    for mname, col in wanted.items():
        vals = as_float_column(cols[f"c:{mname}"], f"covariates column {col!r}")
        if not np.all(np.isfinite(vals)):
            raise InputError(f"covariates column {col!r}: values must be finite numbers.")
        out[mname] = np.where(posn >= 0, vals[np.maximum(posn, 0)] if vals.size else 0.0, 0.0)
    if missing:
        notes.append(
            f"{missing} exposed unit(s) are missing from the covariates table; their "
            "covariate is 0."
        )
    skipped = [m.name for m in mets if m.name not in out]
    if skipped:
        notes.append(f"no covariate for metric(s) {skipped}; analysed without CUPED.")
    return out
