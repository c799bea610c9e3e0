"""Experiment analysis from event logs: exposures + events -> per metric and variant results.

Pipeline of :func:`analyze` (every step is reported in
:attr:`ExperimentAnalysis.report`):

1. **Exposures** ``(unit, variant, time)``: a unit's first exposure is when
   it entered the experiment.  Variants the plan does not know are an error
   (or dropped with ``unknown_variants="exclude"``).  A unit exposed to two
   variants is handled by ``multiple_exposures``: ``"exclude"`` (default;
   drop the unit, since its outcome mixes both treatments), ``"first"`` (keep
   its first variant) or ``"error"``.
2. **Sample ratio mismatch**: units per variant against the planned shares
   (chi-square, :func:`ranklens.online.stats.sample_ratio_mismatch`); a
   mismatch is a :class:`ranklens.errors.RanklensWarning`, issued before any
   result is returned.
3. **Events** ``(unit, time, event, value)``: events of units never exposed
   are excluded (and counted), events before the unit's first exposure are
   excluded from the metrics (and used as the CUPED covariate when
   ``cuped=True``).
4. **Metrics** (:class:`ranklens.online.OnlineMetric`) are computed per
   unit (units without events count as zero) and every variant is compared
   with the control: two-proportion z-test, Welch t-test or delta-method
   z-test (see :mod:`ranklens.online.stats`), optionally CUPED-adjusted.
5. **Multiple comparisons**: the p-values of all (metric, variant)
   comparisons are adjusted together with ``statsmodels``' ``multipletests``
   (Holm by default); the verdict uses the adjusted p-value.  Confidence
   intervals are per comparison (not simultaneous).
6. **Sequential monitoring** (``sequential=True``): the comparison is
   recomputed at every look (daily by default) on the data available then,
   and the normal-mixture mSPRT (:mod:`ranklens.online.sequential`) gives
   always-valid p-values and confidence sequences; the verdict then uses
   those, so it stays valid however often the dashboard was looked at.  The
   test assumes a constant effect; metrics that mature slowly (purchases
   days after exposure) show a smaller effect at early looks, and the
   running intersection of the confidence sequence then leans towards those
   early values.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pyarrow.compute as pc

from ranklens._shared import corrections as _corrections
from ranklens._shared.deps import needs
from ranklens._shared.durations import as_duration
from ranklens._shared.frames import TimeKind, check_same_time_kind
from ranklens._shared.validate import check_alpha
from ranklens.errors import InputError, RanklensWarning
from ranklens.online._data import Events, Exposures, blank_rows, read_events, read_exposures
from ranklens.online._logs import (
    EventRows,
    Units,
    covariates_from_table,
    format_examples,
    prepare_events,
    prepare_units,
    unit_values,
)
from ranklens.online._moments import Moments, Stats, metric_stats
from ranklens.online.assignment import Experiment
from ranklens.online.metrics import OnlineMetric, parse_metric
from ranklens.online.results import (
    DataReport,
    ExperimentAnalysis,
    GroupEstimate,
    MetricComparison,
    SequentialTrace,
)
from ranklens.online.sequential import mixture_tau, msprt
from ranklens.online.stats import (
    Comparison,
    SRMResult,
    normal_comparison,
    sample_ratio_mismatch,
    two_proportion_ztest,
    welch_ttest,
)

__all__ = [
    "CORRECTIONS",
    "DataReport",
    "ExperimentAnalysis",
    "GroupEstimate",
    "MetricComparison",
    "SequentialTrace",
    "analyze",
]

MultipleExposures = Literal["exclude", "first", "error"]
UnknownVariants = Literal["error", "exclude"]

#: Multiple-comparison corrections: the one list :func:`ranklens.compare` takes too
#: (:mod:`ranklens._shared.corrections`; ``fdr_bh`` and the other statsmodels
#: spellings are deprecated aliases of ``bh``, ``by``, ``tsbh``, ``tsbky``).
CORRECTIONS: tuple[str, ...] = _corrections.CORRECTIONS


# ---------------------------------------------------------------------------------------
# preparation
# ---------------------------------------------------------------------------------------
def _resolve_metrics(metrics: Any, where: str = "analyze") -> tuple[OnlineMetric, ...]:
    if isinstance(metrics, (str, OnlineMetric)):
        metrics = [metrics]
    if not isinstance(metrics, Sequence) or not metrics:
        raise InputError(
            f"{where}: metrics must be a non-empty list of metric strings (e.g. "
            "'conversion=proportion(purchase)') or OnlineMetric objects."
        )
    out: list[OnlineMetric] = []
    for m in metrics:
        if isinstance(m, str):
            out.append(parse_metric(m))
        elif isinstance(m, OnlineMetric):
            out.append(m)
        else:
            raise InputError(f"{where}: {m!r} is not a metric string or OnlineMetric.")
    names = [m.name for m in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(
            f"{where}: metric name(s) {dup} are used twice; give each metric a "
            "unique name (name=definition)."
        )
    return tuple(out)


def _resolve_plan(
    plan: Experiment | Mapping[str, float] | None,
    control: str | None,
    observed: list[str],
    what: str = "exposures",
    where: str = "analyze",
) -> tuple[list[str], dict[str, float] | None, str]:
    """Return (planned variants or None-derived list, expected shares or None, control);
    ``what`` names the table of ``observed`` variants in messages, ``where`` the function."""
    if plan is None:
        if len(observed) == 1:
            raise InputError(
                f"{what}: every unit is in variant {observed[0]!r}; an A/B test needs at "
                "least two variants (check the variant column, or give the plan)."
            )
        if control is None:
            if "control" in observed:
                control = "control"
            else:
                raise InputError(
                    f"{where}: cannot tell which variant is the control among {sorted(observed)}; "
                    "pass control=<variant> (or a plan)."
                )
        if control not in observed:
            raise InputError(
                f"{where}: control={control!r} does not occur in the {what}; "
                f"the variants there are {sorted(observed)}."
            )
        variants = [control, *sorted(v for v in observed if v != control)]
        return variants, None, control
    if isinstance(plan, Experiment):
        shares = plan.allocation()
        default_control = plan.control
    elif isinstance(plan, Mapping):
        if len(plan) < 2:
            raise InputError(f"{where}: the plan needs at least two variants {{variant: weight}}.")
        w: dict[str, float] = {}
        for k, v in plan.items():
            okv = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
            if not isinstance(k, str) or not okv or not math.isfinite(float(v)) or float(v) <= 0:
                raise InputError(
                    f"{where}: plan weights must map variant names to positive "
                    f"numbers, got {k!r}: {v!r}."
                )
            w[k] = float(v)
        total = sum(w.values())
        shares = {k: v / total for k, v in w.items()}
        default_control = next(iter(w))
    else:
        raise InputError(
            f"{where}: plan must be an Experiment or a {{variant: weight}} mapping, "
            f"got {type(plan).__name__}."
        )
    control = control if control is not None else default_control
    if control not in shares:
        raise InputError(
            f"{where}: control={control!r} is not a variant of the plan {list(shares)}."
        )
    variants = [control] + [v for v in shares if v != control]
    return variants, shares, control


# ---------------------------------------------------------------------------------------
# per-unit values and group statistics
# ---------------------------------------------------------------------------------------
def _metric_stats(
    metric: OnlineMetric,
    num: np.ndarray,
    den: np.ndarray | None,
    group: np.ndarray,
    k: int,
    cov: np.ndarray | None,
) -> Stats:
    """A metric's per-variant statistics from per-unit values (``group``: each unit's
    variant, -1 when not analysed), through the sufficient statistics."""
    return metric_stats(metric.kind, Moments.from_values(num, den, cov, group, k), cov is not None)


def _test_name(metric: OnlineMetric, cuped: bool) -> str:
    if metric.kind == "proportion" and not cuped:
        return "two-proportion z-test"
    if metric.kind == "mean":
        return "CUPED Welch t-test" if cuped else "Welch t-test"
    name = "delta-method z-test" if metric.kind == "ratio" else "z-test"
    return ("CUPED " + name) if cuped else name


def _run_test(
    metric: OnlineMetric, st: Stats, t: np.ndarray, alpha: float, cuped: bool
) -> Comparison:
    c = 0
    if metric.kind == "proportion" and not cuped:
        return two_proportion_ztest(st.total[t], st.n[t], st.total[c], st.n[c], alpha=alpha)
    if metric.kind == "mean":
        return welch_ttest(
            st.estimate[t],
            st.sample_var[t],
            st.n[t],
            st.estimate[c],
            st.sample_var[c],
            st.n[c],
            alpha=alpha,
        )
    return normal_comparison(
        st.estimate[t], st.est_var[t], st.estimate[c], st.est_var[c], alpha=alpha
    )


def _compare(
    metric: OnlineMetric, st: Stats, t: np.ndarray, alpha: float, cuped: bool
) -> tuple[Comparison, str]:
    """Every treatment in ``t`` against the control (group 0).  A comparison with an empty
    group is not a test (the tests raise on groups of no units): its fields are NaN."""
    name = _test_name(metric, cuped)
    full = (st.n[t] > 0) & (st.n[0] > 0)
    if full.all():
        return _run_test(metric, st, t, alpha, cuped), name
    out = {f.name: np.full(t.shape, np.nan) for f in dataclasses.fields(Comparison)}
    if full.any():
        sub = _run_test(metric, st, t[full], alpha, cuped)
        for k, arr in out.items():
            arr[full] = getattr(sub, k)
    part = ~full
    out["estimate"][part] = np.where(st.n[t] > 0, st.estimate[t], np.nan)[part]
    out["control_estimate"][part] = st.estimate[0] if st.n[0] > 0 else np.nan
    return Comparison(**out), name


# ---------------------------------------------------------------------------------------
# the public entry point
# ---------------------------------------------------------------------------------------
def analyze(
    exposures: Any,
    events: Any,
    metrics: Sequence[str | OnlineMetric] | str | OnlineMetric,
    *,
    plan: Experiment | Mapping[str, float] | None = None,
    control: str | None = None,
    alpha: float = 0.05,
    correction: str = "holm",
    cuped: bool = False,
    covariates: Any = None,
    pre_window: Any = None,
    multiple_exposures: MultipleExposures = "exclude",
    unknown_variants: UnknownVariants = "error",
    srm_threshold: float = 0.001,
    sequential: bool = False,
    look_every: Any = None,
    tau: float | Mapping[str, float] | None = None,
    # the column names
    unit: str = "unit",
    variant: str = "variant",
    time: str | None = "time",
    event: str = "event",
    value: str | None = None,
) -> ExperimentAnalysis:
    """Analyse an A/B test from its exposure and event logs.

    Parameters
    ----------
    exposures
        pandas/polars DataFrame or pyarrow Table with columns ``unit``,
        ``variant`` and ``time`` (names set by the keyword arguments of the
        same name).  Several rows per unit are fine (repeat exposures).
    events
        Table with columns ``unit``, ``time``, ``event`` (the event type) and
        optionally a numeric ``value`` (default column name ``"value"`` if
        present; otherwise every event has value 1).
    metrics
        Metric strings (``"conversion=proportion(purchase)"``,
        ``"revenue=mean(purchase)"``, ``"ctr=ratio(count(click),
        count(impression))"``) or :class:`OnlineMetric` objects.
    plan
        The :class:`Experiment` or ``{variant: weight}``: the variants that
        may occur, the expected shares for the SRM check, and the default
        control (the experiment's control, or the first variant).  Without a
        plan the variants are those observed, an equal split is expected and
        the control must be named (or be called ``"control"``).
    control
        The control variant.
    alpha
        Significance level of tests, intervals and verdicts.
    correction
        Multiple-comparison correction over all (metric, variant) pairs:
        one of :data:`CORRECTIONS` (``"bh"`` for Benjamini-Hochberg; the
        statsmodels spelling ``"fdr_bh"`` still works for one release and
        warns), ``"holm"`` by default, ``"none"`` to switch off.
    cuped, covariates, pre_window
        CUPED variance reduction (Deng et al. 2013).  With ``cuped=True`` the
        covariate of each metric is the same metric computed from the unit's
        events before its first exposure (within ``pre_window`` of it, if
        given; units with no earlier events have covariate 0).  Alternatively
        pass ``covariates``, a table with the ``unit`` column and one numeric
        column per metric name (or one column ``"covariate"`` for all
        metrics); units missing from it get covariate 0.
    multiple_exposures
        Policy for units exposed to more than one variant: ``"exclude"``,
        ``"first"`` or ``"error"``.
    unknown_variants
        Policy for exposure rows whose variant is not in the plan, or blank
        (a unit outside the experiment, as ``ranklens ab assign`` writes it):
        ``"error"`` or ``"exclude"``.
    srm_threshold
        p-value below which the sample-ratio-mismatch check warns.
    sequential, look_every, tau
        Always-valid sequential monitoring (normal-mixture mSPRT): looks every
        ``look_every`` (default one day for timestamps; required for numeric
        times) from the first exposure; ``tau`` is the mixing scale per metric
        (a number for all, or ``{metric name: tau}``); by default it is tuned
        to the variance at the last look (:func:`ranklens.online.mixture_tau`).
    unit, variant, time, event, value
        Column names.  ``time=None``: the exposures are an assignment table
        without times (``ranklens ab assign``'s output, one row per unit): every
        unit counts as exposed from the start and every event counts (no
        pre-exposure CUPED, no sequential monitoring).

    Returns
    -------
    ExperimentAnalysis
        Per (metric, variant) comparisons, per-group estimates, the SRM check
        and a report of excluded rows.

    Warns
    -----
    RanklensWarning
        On a sample ratio mismatch, an empty variant or units exposed to more
        than one variant.
    """
    mets, alpha, correction = _check_options(
        metrics, alpha, correction, multiple_exposures, unknown_variants, srm_threshold
    )
    if covariates is not None and not cuped:
        cuped = True
    exp, ev = _read_logs(
        exposures, events, mets, unit=unit, variant=variant, time=time, event=event, value=value
    )
    if sequential and time is None:
        raise InputError(
            "analyze: sequential monitoring needs the exposure times; pass time=<column name>."
        )
    if time is None and ((cuped and covariates is None) or pre_window is not None):
        raise InputError(
            "analyze: CUPED from the events before exposure needs the exposure "
            "times; pass time=<column name>, or the covariates as a table "
            "(covariates=<table>)."
        )
    data = _join(exp, ev, plan, control, unknown_variants, multiple_exposures)
    per_variant = data.units_per_variant()
    srm, messages, empty = _check_data(data, per_variant, srm_threshold, multiple_exposures)
    for msg in messages:  # before any result
        warnings.warn(msg, RanklensWarning, stacklevel=2)
    notes = _data_notes(data, pre_as_covariate=cuped and covariates is None)
    if time is None:
        notes.insert(
            0,
            "no exposure times (an assignment table): every unit counts as "
            "exposed from the start, and every event counts.",
        )
    cov_for = _covariates(data, mets, cuped, covariates, pre_window, unit, notes)

    per_metric = [_fixed_horizon(m, data, cov_for.get(m.name), alpha) for m in mets]
    seq_traces: list[SequentialTrace] | None = None
    seq: tuple[np.ndarray, ...] | None = None
    if sequential:
        seq_traces, *seq_rows = _sequential(mets, data, look_every, tau, alpha, cov_for)
        seq = tuple(seq_rows)
    report = _data_report(len(exp.unit), data, per_variant, multiple_exposures, empty, notes)
    return _conclude(
        mets, per_metric, data.variants, alpha, correction, srm, report, messages, seq_traces, seq
    )


def _conclude(
    mets: tuple[OnlineMetric, ...],
    per_metric: list[_MetricResult],
    variants: list[str],
    alpha: float,
    correction: str,
    srm: SRMResult,
    report: DataReport,
    messages: list[str],
    seq_traces: list[SequentialTrace] | None = None,
    seq: tuple[np.ndarray, ...] | None = None,
) -> ExperimentAnalysis:
    """The analysis from every metric's comparisons (and, with ``seq``, the always-valid
    p-values and confidence sequence bounds per comparison): p-values adjusted together,
    verdicts, the result (shared by every input form: logs, units, sums)."""
    k = len(variants)
    pvals = np.concatenate([c.p_value for _, _, c, _ in per_metric]) if k > 1 else np.zeros(0)
    p_adj = _adjust(pvals, alpha, correction)
    if seq is not None:
        seq_p, seq_lo, seq_hi = seq
        seq = (seq_p, _adjust(seq_p, alpha, correction), seq_lo, seq_hi)
    groups, out = _assemble(per_metric, variants, p_adj, seq, alpha)
    return ExperimentAnalysis(
        control=variants[0],
        variants=tuple(variants),
        metrics=mets,
        alpha=alpha,
        correction=correction,
        comparisons=tuple(out),
        groups=tuple(groups),
        srm=srm,
        report=report,
        sequential=tuple(seq_traces) if seq_traces is not None else None,
        warnings=tuple(messages),
    )


# ---------------------------------------------------------------------------------------
# the steps of analyze
# ---------------------------------------------------------------------------------------
_MetricResult = tuple[OnlineMetric, Stats, Comparison, str]
"""One metric's statistics, comparisons with the control and the name of its test."""


def _check_options(
    metrics: Any,
    alpha: Any,
    correction: str,
    multiple_exposures: str,
    unknown_variants: str,
    srm_threshold: Any,
    where: str = "analyze",
) -> tuple[tuple[OnlineMetric, ...], float, str]:
    """The options of ``where`` (analyze, analyze_units, analyze_stats) checked before any
    reading: the online extra installed, the metrics parsed, the correction in its one
    spelling; returns (metrics, alpha, correction)."""
    _multipletests(where)
    correction = _corrections.canonical(where, correction)
    mets = _resolve_metrics(metrics, where)
    alpha = check_alpha(alpha, where=where)
    if correction not in CORRECTIONS:
        raise InputError(
            f"{where}: correction={correction!r} is not known; use one of {', '.join(CORRECTIONS)}."
        )
    if multiple_exposures not in ("exclude", "first", "error"):
        raise InputError(
            f"{where}: multiple_exposures={multiple_exposures!r} is not a policy; "
            "use 'exclude', 'first' or 'error'."
        )
    if unknown_variants not in ("error", "exclude"):
        raise InputError(
            f"{where}: unknown_variants={unknown_variants!r} is not a policy; use "
            "'error' or 'exclude'."
        )
    okt = isinstance(srm_threshold, (int, float)) and not isinstance(srm_threshold, bool)
    if not okt or not 0 < srm_threshold < 1:
        raise InputError(f"{where}: srm_threshold must be in (0, 1), got {srm_threshold!r}.")
    return mets, float(alpha), correction


def _read_logs(
    exposures: Any,
    events: Any,
    mets: tuple[OnlineMetric, ...],
    *,
    unit: str,
    variant: str,
    time: str | None,
    event: str,
    value: str | None,
) -> tuple[Exposures, Events]:
    """Read and validate the inputs: the exposure and event tables on one time axis
    (numeric times both float64 when one column is integer), and every event type the
    metrics read present in the events.  With ``time=None`` the exposures are an
    assignment table (``ranklens ab assign``'s output): every unit is exposed from the
    start and every event counts."""
    exp = read_exposures(exposures, unit=unit, variant=variant, time=time)
    ev = read_events(events, unit=unit, time=time, event=event, value=value)
    check_same_time_kind(exp.time_kind, ev.time_kind, "exposure", "event")
    tkind = exp.time_kind
    if exp.time.dtype != ev.time.dtype:  # numbers: int vs float columns
        exp = Exposures(exp.unit, exp.variant, exp.time.astype(np.float64), tkind)
        ev = Events(ev.unit, ev.time.astype(np.float64), ev.event, ev.value, tkind, ev.has_value)
    _check_event_types(mets, ev)
    return exp, ev


def _check_event_types(mets: tuple[OnlineMetric, ...], ev: Events) -> None:
    """Every event type a metric reads occurs in the events (else the closest one is
    suggested)."""
    present = set(pc.unique(ev.event).to_pylist())
    for m in mets:
        for e in m.events:
            if e not in present:
                import difflib

                close = difflib.get_close_matches(e, sorted(present), n=1)
                hint = f" Did you mean {close[0]!r}?" if close else ""
                raise InputError(
                    f"analyze: metric {m.name!r} reads event type {e!r}, which does not occur in "
                    f"the events table (event types there: {sorted(present)[:20]}).{hint}"
                )


@dataclass(frozen=True, eq=False)
class _Joined:
    """Exposures and events joined on the unit: each unit's variant and first
    exposure, and the event rows of exposed units."""

    variants: list[str]  # the control first
    shares: dict[str, float] | None  # planned shares (None: no plan)
    control: str
    units: Units
    rows: EventRows
    tkind: TimeKind
    uinfo: dict[str, Any]  # what joining the exposures dropped or merged
    einfo: dict[str, Any]  # what joining the events dropped

    @property
    def k(self) -> int:
        """The number of variants."""
        return len(self.variants)

    @property
    def n_units(self) -> int:
        """The number of exposed units (analysed or not)."""
        return len(self.units.ids)

    @property
    def group(self) -> np.ndarray:
        """Variant index per unit, -1 for a unit that is not analysed."""
        return self.units.group

    def units_per_variant(self) -> dict[str, int]:
        """Analysed units per variant."""
        n_per = np.bincount(self.group[self.group >= 0], minlength=self.k)
        return {v: int(n_per[i]) for i, v in enumerate(self.variants)}


def _join(
    exp: Exposures,
    ev: Events,
    plan: Experiment | Mapping[str, float] | None,
    control: str | None,
    unknown_variants: str,
    multiple_exposures: str,
) -> _Joined:
    """Join exposures and events: the variants and the control (from the plan, else
    the exposures), each unit's variant and first exposure (the exposure policies
    applied), and the events of exposed units, before or after that exposure."""
    blank = blank_rows(exp.variant)
    if blank.size and unknown_variants == "error":
        raise InputError(
            f"exposures: row {int(blank[0])} has no variant ({blank.size} "
            "row(s) in all), as for units outside the experiment; drop those rows, or pass "
            "unknown_variants='exclude' to leave them out."
        )
    observed = [str(v) for v in pc.unique(exp.variant).to_pylist() if str(v).strip()]
    variants, shares, control = _resolve_plan(plan, control, observed)
    units, uinfo = prepare_units(exp, variants, unknown_variants, multiple_exposures)
    rows, einfo = prepare_events(ev, units)
    return _Joined(variants, shares, control, units, rows, exp.time_kind, uinfo, einfo)


def _check_data(
    data: _Joined, per_variant: dict[str, int], srm_threshold: float, multiple_exposures: str
) -> tuple[SRMResult, list[str], tuple[str, ...]]:
    """The sample-ratio-mismatch check (units per variant against the planned shares,
    an equal split without a plan) and the messages :func:`analyze` warns with before
    any result: a mismatch, variants without analysed units, units exposed to more
    than one variant.  Returns (SRM check, messages, empty variants)."""
    srm, messages, empty = _check_split(data.variants, data.shares, per_variant, srm_threshold)
    uinfo = data.uinfo
    if uinfo["multiple_variant_units"]:
        how = {"exclude": "excluded them", "first": "kept each one's first variant"}
        messages.append(
            f"{uinfo['multiple_variant_units']} unit(s) were exposed to more than one variant "
            "(e.g. "
            + format_examples(uinfo["multiple_variant_examples"], uinfo["multiple_variant_units"])
            + "); "
            f"multiple_exposures={multiple_exposures!r} {how[multiple_exposures]}."
        )
    return srm, messages, empty


def _check_split(
    variants: list[str],
    shares: dict[str, float] | None,
    per_variant: dict[str, int],
    srm_threshold: float,
) -> tuple[SRMResult, list[str], tuple[str, ...]]:
    """The sample-ratio-mismatch check (units per variant against the planned shares,
    an equal split without a plan) and the messages to warn with: a mismatch, variants
    without units.  Returns (SRM check, messages, empty variants)."""
    expected = shares if shares is not None else {v: 1.0 / len(variants) for v in variants}
    srm = sample_ratio_mismatch(per_variant, expected, threshold=srm_threshold)
    messages: list[str] = []
    if srm.mismatch:
        messages.append("SAMPLE RATIO MISMATCH: " + srm.describe())
    empty = tuple(v for v in variants if per_variant[v] == 0)
    if empty:
        messages.append(
            f"variant(s) {list(empty)} have no analysed units; their comparisons are not computed."
        )
    return srm, messages, empty


def _data_notes(data: _Joined, pre_as_covariate: bool) -> list[str]:
    """The report's notes on the rows the join left out (these do not warn)."""
    uinfo, einfo = data.uinfo, data.einfo
    notes: list[str] = []
    if data.shares is None:
        notes.append("no plan given: the SRM check assumes an equal split.")
    if uinfo["unknown_variant_rows"]:
        notes.append(
            f"{uinfo['unknown_variant_rows']} exposure row(s) with variant(s) "
            f"{list(uinfo['unknown_variants'])} unknown to the plan were excluded."
        )
    if einfo["unexposed_event_rows"]:
        notes.append(
            f"{einfo['unexposed_event_rows']} event row(s) of {einfo['unexposed_units']} unit(s) "
            "never exposed (e.g. "
            + format_examples(einfo["unexposed_examples"], einfo["unexposed_units"])
            + ") "
            "were excluded."
        )
    if einfo["pre_exposure_event_rows"]:
        notes.append(
            f"{einfo['pre_exposure_event_rows']} event row(s) before the unit's first "
            "exposure were excluded from the metrics"
            + (" (and used as the CUPED covariate)." if pre_as_covariate else ".")
        )
    return notes


def _metric_values(
    m: OnlineMetric, rows: EventRows, mask: np.ndarray, n_units: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-unit aggregation: the metric's numerator and (for a ratio) denominator per
    unit over the event rows in ``mask`` (a unit without events has 0)."""
    num = unit_values(rows, m.numerator, mask, n_units)
    den = unit_values(rows, m.denominator, mask, n_units) if m.denominator is not None else None
    return num, den


def _covariates(
    data: _Joined,
    mets: tuple[OnlineMetric, ...],
    cuped: bool,
    covariates: Any,
    pre_window: Any,
    unit: str,
    notes: list[str],
) -> dict[str, np.ndarray]:
    """The CUPED covariate per metric and unit (none without ``cuped``): from the
    ``covariates`` table, else from the events before the unit's first exposure.  A
    covariate that does not vary over the analysed units is dropped with a note: its
    metric is analysed without CUPED."""
    cov_for: dict[str, np.ndarray] = {}
    if cuped:
        if covariates is not None:
            cov_for = covariates_from_table(covariates, unit, data.units.ids, mets, notes)
        else:
            cov_for = _pre_exposure_covariates(data, mets, pre_window, notes)
    analysed = data.group >= 0
    for name in list(cov_for):
        c = cov_for[name][analysed]
        if c.size < 2 or float(c.max()) == float(c.min()):
            del cov_for[name]
            notes.append(
                f"metric {name!r}: the covariate does not vary (no pre-exposure "
                "data?); analysed without CUPED."
            )
    return cov_for


def _pre_exposure_covariates(
    data: _Joined, mets: tuple[OnlineMetric, ...], pre_window: Any, notes: list[str]
) -> dict[str, np.ndarray]:
    """Each metric computed from the unit's events before its first exposure (within
    ``pre_window`` of it, if given); for a ratio its linearisation
    ``(x - r_pre y) / mean(y)`` (none, with a note, without pre-exposure denominator
    events)."""
    rows, units = data.rows, data.units
    pre = ~rows.post
    if pre_window is not None:
        w = as_duration(pre_window, data.tkind, "pre_window")
        pre &= rows.time >= units.t0[rows.unit] - w
    cov_for: dict[str, np.ndarray] = {}
    for m in mets:
        x, y = _metric_values(m, rows, pre, data.n_units)
        if m.kind != "ratio":
            cov_for[m.name] = x
            continue
        assert y is not None
        sel = data.group >= 0
        my = y[sel].mean() if sel.any() else 0.0
        if my > 0:
            rpre = x[sel].sum() / y[sel].sum()
            cov_for[m.name] = (x - rpre * y) / my
        else:
            notes.append(
                f"metric {m.name!r}: no pre-exposure denominator events; analysed without CUPED."
            )
    return cov_for


def _fixed_horizon(
    m: OnlineMetric, data: _Joined, cov: np.ndarray | None, alpha: float
) -> _MetricResult:
    """Per-metric statistics on every event after exposure: the per-variant estimates
    (CUPED-adjusted with a covariate) and every treatment compared with the control."""
    num, den = _metric_values(m, data.rows, data.rows.post, data.n_units)
    st = _metric_stats(m, num, den, data.group, data.k, cov)
    comp, test = _compare(m, st, np.arange(1, data.k), alpha, cov is not None)
    return m, st, comp, test


def _verdict(
    m: OnlineMetric,
    st: Stats,
    ti: int,
    variants: list[str],
    p: float,
    use_p: float,
    diff: float,
    alpha: float,
) -> tuple[str, str]:
    """The verdict of one comparison (on ``use_p``, the p-value it is judged by) and,
    when it was not computed, why."""
    if not math.isfinite(p):
        return "not computed", _why_not(m, st, ti, variants)
    if math.isfinite(use_p) and use_p < alpha:
        return ("increase" if diff > 0 else "decrease"), ""
    return "inconclusive", ""


def _assemble(
    per_metric: list[_MetricResult],
    variants: list[str],
    p_adj: np.ndarray,
    seq: tuple[np.ndarray, ...] | None,
    alpha: float,
) -> tuple[list[GroupEstimate], list[MetricComparison]]:
    """Result assembly: per metric, an estimate per variant and a comparison per
    treatment, judged by the adjusted p-value, or with ``seq`` (always-valid p-values,
    adjusted ones and the confidence sequence's bounds, one row per comparison) by the
    adjusted always-valid p-value."""
    groups: list[GroupEstimate] = []
    out: list[MetricComparison] = []
    row_i = 0
    for m, st, comp, test in per_metric:
        for gi, v in enumerate(variants):
            groups.append(
                GroupEstimate(
                    m.name, v, int(st.n[gi]), float(st.estimate[gi]), float(np.sqrt(st.est_var[gi]))
                )
            )
        for j, ti in enumerate(range(1, len(variants))):
            p, pa_ = float(comp.p_value[j]), float(p_adj[row_i])
            sp: float | None = None
            sa: float | None = None
            clo: float | None = None
            chi: float | None = None
            if seq is not None:
                sp, sa, clo, chi = (float(a[row_i]) for a in seq)
            verdict, note = _verdict(
                m, st, ti, variants, p, pa_ if sa is None else sa, float(comp.diff[j]), alpha
            )
            out.append(
                MetricComparison(
                    metric=m.name,
                    kind=m.kind,
                    variant=variants[ti],
                    control=variants[0],
                    test=test,
                    n=int(st.n[ti]),
                    n_control=int(st.n[0]),
                    estimate=float(comp.estimate[j]),
                    control_estimate=float(comp.control_estimate[j]),
                    diff=float(comp.diff[j]),
                    ci_lower=float(comp.ci_lower[j]),
                    ci_upper=float(comp.ci_upper[j]),
                    rel_diff=float(comp.rel_diff[j]),
                    rel_ci_lower=float(comp.rel_ci_lower[j]),
                    rel_ci_upper=float(comp.rel_ci_upper[j]),
                    statistic=float(comp.statistic[j]),
                    p_value=p,
                    p_adjusted=pa_,
                    verdict=verdict,
                    cuped_theta=st.theta,
                    variance_reduction=st.reduction,
                    seq_p_value=sp,
                    seq_p_adjusted=sa,
                    cs_lower=clo,
                    cs_upper=chi,
                    note=note,
                )
            )
            row_i += 1
    return groups, out


def _data_report(
    exposure_rows: int,
    data: _Joined,
    per_variant: dict[str, int],
    multiple_exposures: str,
    empty: tuple[str, ...],
    notes: list[str],
) -> DataReport:
    """What the join kept, merged and left out, for :attr:`ExperimentAnalysis.report`."""
    uinfo, einfo = data.uinfo, data.einfo
    return DataReport(
        exposure_rows=exposure_rows,
        exposed_units=data.n_units,
        analysed_units=int((data.group >= 0).sum()),
        units_per_variant=per_variant,
        multiple_exposures=multiple_exposures,
        multiple_variant_units=uinfo["multiple_variant_units"],
        multiple_variant_examples=uinfo["multiple_variant_examples"],
        unknown_variants=uinfo["unknown_variants"],
        unknown_variant_rows=uinfo["unknown_variant_rows"],
        event_rows=einfo["event_rows"],
        unexposed_event_rows=einfo["unexposed_event_rows"],
        unexposed_units=einfo["unexposed_units"],
        unexposed_examples=einfo["unexposed_examples"],
        pre_exposure_event_rows=einfo["pre_exposure_event_rows"],
        empty_variants=empty,
        notes=tuple(notes),
    )


def _multipletests(where: str) -> None:
    """Fail early (naming the ``online`` extra) when statsmodels, which the correction
    needs, is missing."""
    with needs("stats", f"ranklens.online.{where}"):
        import statsmodels.stats.multitest  # type: ignore[import-untyped, unused-ignore]  # noqa: F401


def _adjust(p: np.ndarray, alpha: float, correction: str) -> np.ndarray:
    """Multiple-comparison correction: the p-values of all (metric, variant) comparisons
    adjusted together (NaN stays NaN and is not counted)."""
    out: np.ndarray = _corrections.adjust(p, correction, alpha, "stats", "ranklens.online.analyze")
    return out


def _why_not(m: OnlineMetric, st: Stats, ti: int, variants: list[str]) -> str:
    """Why the comparison of treatment ``ti`` with the control has no p-value."""
    for gi in (0, ti):
        if st.n[gi] == 0:
            return f"no units in variant {variants[gi]!r}"
    if m.kind == "mean" and (st.n[0] < 2 or st.n[ti] < 2):
        return "fewer than two units in a group"
    if m.kind == "ratio" and not (np.isfinite(st.estimate[0]) and np.isfinite(st.estimate[ti])):
        return "the denominator is zero in a group"
    return "no variation in either group"


# ---------------------------------------------------------------------------------------
# sequential monitoring
# ---------------------------------------------------------------------------------------
def _sequential(
    mets: tuple[OnlineMetric, ...],
    data: _Joined,
    look_every: Any,
    tau: float | Mapping[str, float] | None,
    alpha: float,
    cov_for: dict[str, np.ndarray],
) -> tuple[list[SequentialTrace], np.ndarray, np.ndarray, np.ndarray]:
    """Always-valid monitoring of every (metric, treatment) comparison: the mSPRT over
    the looks.  Returns the traces and, per comparison row (metric-major, treatments
    in variant order), the always-valid p-value and confidence sequence at the last
    look (NaN where no mixing scale could be tuned)."""
    looks = _look_times(data, look_every)
    t_idx = np.arange(1, data.k)
    diffs, varis = _look_series(mets, data, looks, cov_for)
    taus = _mixing_scales(mets, varis, t_idx.size, tau, alpha)
    n_rows = len(mets) * t_idx.size
    good_rows = np.isfinite(taus)
    p_last = np.full(n_rows, np.nan)
    lo_last = np.full(n_rows, np.nan)
    hi_last = np.full(n_rows, np.nan)
    traces: list[SequentialTrace] = []
    res = (
        msprt(diffs[good_rows], varis[good_rows], tau=taus[good_rows], alpha=alpha)
        if good_rows.any()
        else None
    )
    look_values = tuple(data.tkind.format(x) for x in looks)
    gi = 0
    for mi, m in enumerate(mets):
        for j, ti in enumerate(t_idx):
            r = mi * t_idx.size + j
            if good_rows[r] and res is not None:
                p_last[r] = res.p_value[gi, -1]
                lo_last[r] = res.ci_lower[gi, -1]
                hi_last[r] = res.ci_upper[gi, -1]
                traces.append(
                    SequentialTrace(
                        m.name,
                        data.variants[ti],
                        float(taus[r]),
                        look_values,
                        tuple(float(x) for x in diffs[r]),
                        tuple(float(x) for x in varis[r]),
                        tuple(float(x) for x in res.p_value[gi]),
                        tuple(float(x) for x in res.ci_lower[gi]),
                        tuple(float(x) for x in res.ci_upper[gi]),
                    )
                )
                gi += 1
    return traces, p_last, lo_last, hi_last


def _look_times(data: _Joined, look_every: Any) -> np.ndarray:
    """The times of the looks: every ``look_every`` (default one day; required for
    numeric times) from the first exposure until past the last exposure or event."""
    if look_every is None:
        if data.tkind.kind == "number":
            raise InputError(
                "analyze: the times are numbers, so sequential monitoring needs "
                "look_every=<interval between looks, in the same unit>."
            )
        look_every = "1d"
    step = as_duration(look_every, data.tkind, "look_every")
    units, rows = data.units, data.rows
    sel = units.group >= 0
    if not sel.any():
        raise InputError("analyze: no analysed units, nothing to monitor.")
    start = units.t0[sel].min()
    last = max(units.t0[sel].max(), rows.time.max() if rows.time.size else start)
    n_looks = int((last - start) // step) + 1
    if n_looks > 10_000:
        raise InputError(
            f"analyze: look_every={look_every!r} gives {n_looks} looks; choose a longer interval."
        )
    looks: np.ndarray = start + step * np.arange(1, n_looks + 1)
    return looks


def _look_series(
    mets: tuple[OnlineMetric, ...], data: _Joined, looks: np.ndarray, cov_for: dict[str, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Per comparison row and look, the difference from the control and its variance,
    on the units exposed before the look and their events after exposure and before
    the look."""
    units, rows, k = data.units, data.rows, data.k
    t_idx = np.arange(1, k)
    n_rows = len(mets) * t_idx.size
    diffs = np.full((n_rows, looks.size), np.nan)
    varis = np.full((n_rows, looks.size), np.nan)
    for li, lk in enumerate(looks):
        g = np.where(units.t0 < lk, units.group, -1)
        emask = rows.post & (rows.time < lk)
        for mi, m in enumerate(mets):
            num, den = _metric_values(m, rows, emask, data.n_units)
            st = _metric_stats(m, num, den, g, k, cov_for.get(m.name))
            var = st.est_var
            sl = slice(mi * t_idx.size, (mi + 1) * t_idx.size)
            diffs[sl, li] = st.estimate[t_idx] - st.estimate[0]
            varis[sl, li] = var[t_idx] + var[0]
    return diffs, varis


def _mixing_scales(
    mets: tuple[OnlineMetric, ...],
    varis: np.ndarray,
    n_treat: int,
    tau: float | Mapping[str, float] | None,
    alpha: float,
) -> np.ndarray:
    """The mSPRT mixing scale per comparison row: ``tau`` as given (one number, or one
    per metric name), else tuned to the variance at the last look (NaN where that
    variance is not a positive number: the row is not monitored)."""
    taus = np.full(len(mets) * n_treat, np.nan)
    for mi, m in enumerate(mets):
        sl = slice(mi * n_treat, (mi + 1) * n_treat)
        if tau is None:
            vlast = varis[sl, -1]
            good = np.isfinite(vlast) & (vlast > 0)
            taus[sl] = np.where(good, mixture_tau(np.where(good, vlast, 1.0), alpha=alpha), np.nan)
        else:
            tv = tau.get(m.name) if isinstance(tau, Mapping) else tau
            if tv is None:
                raise InputError(f"analyze: tau has no entry for metric {m.name!r}.")
            ok = isinstance(tv, (int, float)) and not isinstance(tv, bool)
            if not ok or not math.isfinite(float(tv)) or float(tv) <= 0:
                raise InputError(
                    f"analyze: tau for metric {m.name!r} must be a positive number, got {tv!r}."
                )
            taus[sl] = float(tv)
    return taus
