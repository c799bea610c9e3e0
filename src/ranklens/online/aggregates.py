"""A/B analysis from a table of units or from per-variant sums (what a warehouse
query produces), with the statistics of :func:`ranklens.online.analyze`.

- :func:`analyze_units`: one row per unit, with its variant and one column per
  per-unit value (``revenue``, ``clicks``, ``converted`` ...).
- :func:`analyze_stats`: one row per variant with the number of units and the
  sums a metric needs (its *sufficient statistics*), so an experiment of any
  size is analysed from a ``GROUP BY variant`` query.

In both, a metric names columns instead of events: ``revenue=mean(revenue)``,
``conversion=proportion(converted)`` (a 0/1 column), ``ctr=ratio(clicks,
impressions)``.  CUPED takes ``covariates={metric name: column}`` (for a ratio
metric the covariate adjusts its linearisation, as ``analyze``'s covariates
table does).  Both reduce their input to the per-variant sums and
compute every estimate from them (:mod:`ranklens.online._moments`), as the
event-log analysis does, so the three agree to rounding.

The columns of a sums table, for a metric on column ``y`` (numerator ``y`` and
denominator ``d`` for a ratio) with covariate ``c``; ``count`` is the number of
units of the variant (``--count-column``)::

    mean, proportion   y_sum, y_sum_sq            (a proportion needs only y_sum)
    ratio              y_sum, y_sum_sq, d_sum, d_sum_sq, y_d_sum
    with a covariate   c_sum, c_sum_sq, y_c_sum   (ratio: d_c_sum too)

where ``y_sum_sq`` is ``SUM(y * y)`` and ``y_d_sum`` is ``SUM(y * d)`` over the
variant's units (:func:`stats_columns` lists them).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.columns import as_float_column
from ranklens._shared.frames import column_names, columns_from_frame, materialise
from ranklens._shared.validate import py_value
from ranklens.errors import InputError, RanklensWarning
from ranklens.online._data import _no_blank, as_ids
from ranklens.online._moments import Moments, metric_stats
from ranklens.online.analysis import (
    _check_options,
    _check_split,
    _compare,
    _conclude,
    _MetricResult,
    _resolve_metrics,
    _resolve_plan,
)
from ranklens.online.assignment import Experiment
from ranklens.online.metrics import OnlineMetric
from ranklens.online.results import DataReport, ExperimentAnalysis

__all__ = ["analyze_stats", "analyze_units", "stats_columns"]


def _columns(m: OnlineMetric, where: str) -> tuple[str, str | None]:
    """The value (numerator) column and the denominator column a metric names."""
    for agg in (m.numerator, m.denominator):
        if agg is not None and agg.agg == "count":
            raise InputError(
                f"{where}: metric {m.name!r} counts events ({m.spec}), but a table of units or "
                f"sums has no events; name the column of per-unit values, e.g. "
                f"{m.name}={m.kind}({agg.event})."
            )
    if m.kind == "mean" and m.numerator.agg == "any":
        raise InputError(
            f"{where}: metric {m.name!r}: mean(any(...)) reads events; for a 0/1 "
            f"column use {m.name}=proportion({m.numerator.event})."
        )
    return m.numerator.event, m.denominator.event if m.denominator is not None else None


def _covariate_of(
    mets: Sequence[OnlineMetric], covariates: Mapping[str, str] | None, where: str
) -> dict[str, str]:
    """``{metric name: covariate column}``, checked against the metrics."""
    if covariates is None:
        return {}
    if not isinstance(covariates, Mapping):
        raise InputError(
            f"{where}: covariates must map metric names to column names, e.g. "
            f"{{'revenue': 'pre_revenue'}}; got {type(covariates).__name__}."
        )
    names = [m.name for m in mets]
    for name, col in covariates.items():
        if name not in names:
            raise InputError(
                f"{where}: covariates names metric {name!r}, which is not "
                f"analysed; the metrics are {names}."
            )
        if not isinstance(col, str) or not col:
            raise InputError(
                f"{where}: the covariate of metric {name!r} must be a column name, got {col!r}."
            )
    return dict(covariates)


def stats_columns(
    metrics: Sequence[str | OnlineMetric] | str | OnlineMetric,
    covariates: Mapping[str, str] | None = None,
) -> list[str]:
    """The sum columns :func:`analyze_stats` reads for ``metrics`` (besides the
    variant and count columns), in order.

    >>> stats_columns(["revenue=mean(revenue)", "ctr=ratio(clicks, views)"],
    ...               covariates={"revenue": "pre"})
    ['revenue_sum', 'revenue_sum_sq', 'pre_sum', 'pre_sum_sq', 'revenue_pre_sum', \
'clicks_sum', 'clicks_sum_sq', 'views_sum', 'views_sum_sq', 'clicks_views_sum']
    """
    mets = _resolve_metrics(metrics, "stats_columns")
    cov = _covariate_of(mets, covariates, "stats_columns")
    out: list[str] = []
    for m in mets:
        for col in _sum_columns(m, cov.get(m.name), "stats_columns").values():
            if col not in out:
                out.append(col)
    return out


def _sum_columns(m: OnlineMetric, cov: str | None, where: str) -> dict[tuple[str, str], str]:
    """``{(a, b): column}``: ``(a, '')`` is the sum of variable ``a`` (``y`` value or
    numerator, ``d`` denominator, ``c`` covariate), ``(a, b)`` the sum of ``a * b``."""
    y, d = _columns(m, where)
    names = {"y": y, "d": d, "c": cov}
    present = [v for v in ("y", "d", "c") if names[v] is not None]
    out: dict[tuple[str, str], str] = {}
    for a in present:
        out[(a, "")] = f"{names[a]}_sum"
        if not (m.kind == "proportion" and a == "y"):
            out[(a, a)] = f"{names[a]}_sum_sq"
    for a, b in (("y", "d"), ("y", "c"), ("d", "c")):
        if a in present and b in present:
            out[(a, b)] = f"{names[a]}_{names[b]}_sum"
    return out


def _finish(
    mets: tuple[OnlineMetric, ...],
    moments: list[Moments],
    cuped: list[bool],
    variants: list[str],
    shares: dict[str, float] | None,
    alpha: float,
    correction: str,
    srm_threshold: float,
    rows: int,
) -> ExperimentAnalysis:
    """Comparisons from each metric's moments (groups in ``variants`` order, the control
    first), the split checked, the result assembled as :func:`analyze` does."""
    n = moments[0].n  # every metric is over the same units
    per_variant = {v: int(n[i]) for i, v in enumerate(variants)}
    srm, messages, empty = _check_split(variants, shares, per_variant, srm_threshold)
    for msg in messages:  # before any result
        warnings.warn(msg, RanklensWarning, stacklevel=3)
    treat = np.arange(1, len(variants))
    per_metric: list[_MetricResult] = []
    for m, mom, cu in zip(mets, moments, cuped, strict=True):
        st = metric_stats(m.kind, mom, cu)
        comp, test = _compare(m, st, treat, alpha, cu)
        per_metric.append((m, st, comp, test))
    notes = ("no plan given: the SRM check assumes an equal split.",) if shares is None else ()
    total = int(n.sum())
    report = DataReport(
        exposure_rows=rows,
        exposed_units=total,
        analysed_units=total,
        units_per_variant=per_variant,
        multiple_exposures="error",
        multiple_variant_units=0,
        multiple_variant_examples=(),
        unknown_variants=(),
        unknown_variant_rows=0,
        event_rows=0,
        unexposed_event_rows=0,
        unexposed_units=0,
        unexposed_examples=(),
        pre_exposure_event_rows=0,
        empty_variants=empty,
        notes=notes,
    )
    return _conclude(mets, per_metric, variants, alpha, correction, srm, report, messages)


def _plan_variants(
    observed: list[str],
    plan: Experiment | Mapping[str, float] | None,
    control: str | None,
    what: str,
    where: str,
) -> tuple[list[str], dict[str, float] | None]:
    """The variants (control first) and planned shares; every observed variant must be
    planned."""
    variants, shares, _ = _resolve_plan(plan, control, observed, what, where)
    unknown = sorted(set(observed) - set(variants))
    if unknown:
        raise InputError(
            f"{what}: variant(s) {unknown} are not in the plan (it has "
            f"{variants}); fix the plan or drop those rows."
        )
    return variants, shares


def _finite(values: np.ndarray, what: str) -> np.ndarray:
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise InputError(
            f"{what}: row {int(bad[0])} is NaN or infinite ({bad.size} row(s) in "
            "all); every value must be a finite number."
        )
    return values


def analyze_units(
    units: Any,
    metrics: Sequence[str | OnlineMetric] | str | OnlineMetric,
    *,
    plan: Experiment | Mapping[str, float] | None = None,
    control: str | None = None,
    alpha: float = 0.05,
    correction: str = "holm",
    covariates: Mapping[str, str] | None = None,
    srm_threshold: float = 0.001,
    unit: str = "unit",
    variant: str = "variant",
) -> ExperimentAnalysis:
    """Analyse an A/B test from one row per unit: its variant and its values.

    Parameters
    ----------
    units
        pandas/polars DataFrame or pyarrow Table: the ``unit`` and ``variant``
        columns and the columns the metrics name (``revenue=mean(revenue)``,
        ``conversion=proportion(converted)`` on a 0/1 column, ``ctr=ratio(clicks,
        impressions)``).  Each unit once.
    covariates
        CUPED: ``{metric name: column}`` of a pre-experiment value per unit.
    plan, control, alpha, correction, srm_threshold, unit, variant
        As for :func:`ranklens.online.analyze`.

    Returns
    -------
    ExperimentAnalysis
        As :func:`ranklens.online.analyze` returns; equal (to rounding) to it on the
        logs the units' values were computed from.

    Examples
    --------
    >>> from ranklens.online import analyze_units
    >>> units = {"unit": ["a", "b", "c", "d"], "variant": ["control", "control", "new", "new"],
    ...          "revenue": [1.0, 3.0, 2.0, 6.0]}
    >>> res = analyze_units(units, ["revenue=mean(revenue)"])
    >>> res.get("revenue", "new").diff
    2.0
    """
    mets, alpha, correction = _check_options(
        metrics, alpha, correction, "exclude", "error", srm_threshold, "analyze_units"
    )
    cov = _covariate_of(mets, covariates, "analyze_units")
    frame = materialise(units)
    spec = {"unit": unit, "variant": variant}
    available = column_names(frame, "units")
    for m in mets:
        y, d = _columns(m, "units")
        named = [c for c in (y, d, cov.get(m.name)) if c is not None]
        missing = [c for c in named if c not in available]
        if missing:
            raise InputError(
                f"units: no column(s) {missing}, which metric {m.name!r} reads; "
                f"the table has {available}. A metric on a table of units names "
                "its columns, e.g. revenue=mean(revenue)."
            )
        spec.update({f"v:{c}": c for c in named})
    cols = columns_from_frame(frame, spec, "units")
    ids = _no_blank(as_ids(cols["unit"], f"units column {unit!r}"), f"units column {unit!r}")
    if len(ids) == 0:
        raise InputError("units: the table has no rows; there is nothing to analyse.")
    if len(pc.unique(ids)) != len(ids):
        first = _first_repeat(ids)
        raise InputError(
            f"units column {unit!r}: row {first} repeats unit "
            f"{ids[first].as_py()!r}; give one row per unit (aggregate the "
            "values per unit first)."
        )
    var = _no_blank(
        as_ids(cols["variant"], f"units column {variant!r}"), f"units column {variant!r}"
    )
    observed = [str(v) for v in pc.unique(var).to_pylist()]
    variants, shares = _plan_variants(observed, plan, control, "units", "analyze_units")
    planned = pa.array(variants, type=pa.large_string())
    group = np.asarray(
        pc.index_in(var, value_set=planned).to_numpy(zero_copy_only=False), dtype=np.int64
    )
    values = {
        spec[c]: _finite(
            as_float_column(cols[c], f"units column {spec[c]!r}"), f"units column {spec[c]!r}"
        )
        for c in spec
        if c.startswith("v:")
    }
    moments = []
    for m in mets:
        y, d = _columns(m, "units")
        if m.kind == "proportion":
            _zero_one(values[y], f"units column {y!r}", m)
        moments.append(
            Moments.from_values(
                values[y],
                values[d] if d is not None else None,
                values[cov[m.name]] if m.name in cov else None,
                group,
                len(variants),
            )
        )
    return _finish(
        mets,
        moments,
        [m.name in cov for m in mets],
        variants,
        shares,
        alpha,
        correction,
        srm_threshold,
        len(ids),
    )


def _first_repeat(ids: Any) -> int:
    """The first row whose unit occurred in an earlier row."""
    codes = np.asarray(pc.dictionary_encode(ids).indices.to_numpy(zero_copy_only=False))
    order = np.argsort(codes, kind="stable")
    s = codes[order]
    return int(order[1:][s[1:] == s[:-1]].min())


def _zero_one(values: np.ndarray, what: str, m: OnlineMetric) -> None:
    bad = np.flatnonzero((values != 0) & (values != 1))
    if bad.size:
        raise InputError(
            f"{what}: row {int(bad[0])} is {values[bad[0]]:g}; metric {m.name!r} "
            "is a proportion, so every value must be 0 or 1 (use "
            f"{m.name}=mean({m.numerator.event}) for other values)."
        )


def analyze_stats(
    stats: Any,
    metrics: Sequence[str | OnlineMetric] | str | OnlineMetric,
    *,
    plan: Experiment | Mapping[str, float] | None = None,
    control: str | None = None,
    alpha: float = 0.05,
    correction: str = "holm",
    covariates: Mapping[str, str] | None = None,
    srm_threshold: float = 0.001,
    variant: str = "variant",
    count: str = "count",
) -> ExperimentAnalysis:
    """Analyse an A/B test from per-variant sums (one row per variant).

    Parameters
    ----------
    stats
        pandas/polars DataFrame, pyarrow Table or dict of columns: the
        ``variant`` column, the ``count`` column (units per variant) and the sum
        columns of each metric (the module documentation and
        :func:`stats_columns` name them: ``revenue_sum``, ``revenue_sum_sq``, ...).
    covariates
        CUPED: ``{metric name: covariate column name}``; the table then holds the
        covariate's sums and its cross sums with the metric's columns.
    plan, control, alpha, correction, srm_threshold, variant
        As for :func:`ranklens.online.analyze`.

    Returns
    -------
    ExperimentAnalysis
        As :func:`analyze_units` returns on the units the sums were taken over.

    Examples
    --------
    >>> from ranklens.online import analyze_stats
    >>> stats = {"variant": ["control", "new"], "count": [2, 2],
    ...          "revenue_sum": [4.0, 8.0], "revenue_sum_sq": [10.0, 40.0]}
    >>> analyze_stats(stats, ["revenue=mean(revenue)"]).get("revenue", "new").diff
    2.0
    """
    mets, alpha, correction = _check_options(
        metrics, alpha, correction, "exclude", "error", srm_threshold, "analyze_stats"
    )
    cov = _covariate_of(mets, covariates, "analyze_stats")
    frame = materialise(stats)
    sums = {m.name: _sum_columns(m, cov.get(m.name), "stats") for m in mets}
    spec = {"variant": variant, "count": count}
    for cols_of in sums.values():
        spec.update({col: col for col in cols_of.values()})
    available = column_names(frame, "stats")
    missing = [c for c in spec.values() if c not in available]
    if missing:
        raise InputError(
            f"stats: no column(s) {missing}; the table has {available}. A sums "
            "table has one row per variant with the variant, its number of units "
            f"({count!r}) and, per metric column y, y_sum and y_sum_sq (see "
            "ranklens.online.stats_columns)."
        )
    cols = columns_from_frame(frame, spec, "stats")
    var = _no_blank(
        as_ids(cols["variant"], f"stats column {variant!r}"), f"stats column {variant!r}"
    )
    if len(var) == 0:
        raise InputError("stats: the table has no rows; there is nothing to analyse.")
    observed = [str(v) for v in var.to_pylist()]
    repeated = sorted({v for v in observed if observed.count(v) > 1})
    if repeated:
        raise InputError(
            f"stats column {variant!r}: variant(s) {repeated} have several rows; "
            "give one row per variant (GROUP BY the variant)."
        )
    variants, shares = _plan_variants(observed, plan, control, "stats", "analyze_stats")
    order = np.array([observed.index(v) if v in observed else -1 for v in variants])
    numbers = {
        c: _finite(
            as_float_column(cols[c], f"stats column {spec[c]!r}"), f"stats column {spec[c]!r}"
        )
        for c in spec
        if c != "variant"
    }

    def per_variant(col: str) -> np.ndarray:
        return np.where(order >= 0, numbers[col][np.maximum(order, 0)], 0.0)

    n = per_variant("count")
    bad = np.flatnonzero((n < 0) | (n != np.round(n)))
    if bad.size:
        raise InputError(
            f"stats column {count!r}: variant {py_value(variants[int(bad[0])])!r} has "
            f"{n[bad[0]]:g} units; a count is a whole number >= 0."
        )
    moments = [_moments_of(m, sums[m.name], per_variant, n, variants) for m in mets]
    return _finish(
        mets,
        moments,
        [m.name in cov for m in mets],
        variants,
        shares,
        alpha,
        correction,
        srm_threshold,
        len(observed),
    )


def _moments_of(
    m: OnlineMetric,
    cols: dict[tuple[str, str], str],
    per_variant: Any,
    n: np.ndarray,
    variants: list[str],
) -> Moments:
    """One metric's moments from its sum columns, checked: a proportion's sum is a count
    of units, and a sum of squares is at least the square of the sum over the count."""
    sums = {a: per_variant(col) for (a, b), col in cols.items() if b == ""}
    products = {(a, b): per_variant(col) for (a, b), col in cols.items() if b}
    if m.kind == "proportion":
        s = sums["y"]
        bad = np.flatnonzero((s < 0) | (s > n) | (s != np.round(s)))
        if bad.size:
            raise InputError(
                f"stats column {cols[('y', '')]!r}: variant "
                f"{py_value(variants[int(bad[0])])!r} has "
                f"{s[bad[0]]:g} successes out of {n[bad[0]]:g} units; metric {m.name!r} is a "
                "proportion, so the sum counts units with a 1 (a whole number from 0 to the "
                "count)."
            )
        products[("y", "y")] = s  # y is 0 or 1: y * y = y
    mom = Moments.from_sums(n, sums, products)
    for a in sums:
        spread = mom.c(a, a)
        scale = np.where(n > 0, products[(a, a)], 0.0)
        bad = np.flatnonzero(spread < -1e-9 * np.maximum(np.abs(scale), 1.0))
        if bad.size:
            col = cols.get((a, a), cols[(a, "")])
            raise InputError(
                f"stats column {col!r}: variant {py_value(variants[int(bad[0])])!r}: the sum of "
                "squares "
                "is smaller than sum^2 / count, which no set of values gives; check that it "
                "is SUM(x * x) over the same units as the sum and the count."
            )
    return mom
