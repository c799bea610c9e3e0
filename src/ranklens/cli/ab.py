"""``ranklens ab``: assign units to experiment variants and analyse A/B tests.

``ranklens ab assign UNITS ...`` writes each unit's variant (CSV, Parquet or
JSON); ``ranklens ab analyze EXPOSURES EVENTS --metric ...`` prints a table
(``--format`` table, markdown, latex, csv or json; :mod:`ranklens.render.online`).
Input tables are CSV/TSV (optionally compressed: .gz, .bz2, .zst), Parquet or JSON
Lines, read by the commands' one reader (:func:`ranklens.cli._common.read_input_table`).

Errors are one sentence on stderr, never a traceback: exit code 3 for bad
input data or files, 2 for bad command-line usage.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any

import click

from ranklens.cli._common import (
    GuardedGroup,
    check_output,
    lines_named,
    parse_each,
    progress,
    read_document,
    read_input_table,
    stage,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli._options import (
    alpha_option,
    budget_option,
    check_budget,
    correction_option,
    format_option,
    output_option,
    quiet_option,
)
from ranklens.errors import InputError
from ranklens.render.online import FORMATS as ANALYSIS_FORMATS

__all__ = ["ab"]

ASSIGN_FORMATS = ("csv", "parquet", "json")


def _library_choices(what: str) -> tuple[str, ...]:
    """A choice list as the library declares it (hash algorithms, the policies of
    :func:`ranklens.online.analyze`)."""
    from typing import get_args

    from ranklens.online import HASH_ALGORITHMS, analysis

    if what == "hash":
        return tuple(HASH_ALGORITHMS)
    kind = {
        "multiple_exposures": analysis.MultipleExposures,
        "unknown_variants": analysis.UnknownVariants,
    }
    return tuple(str(c) for c in get_args(kind[what]))


def _parse_weights(text: str | None, param: str) -> dict[str, float] | None:
    """``control=50,treatment=50`` or ``control,treatment`` (equal weights)."""
    if text is None:
        return None
    out: dict[str, float] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, w = part.partition("=")
        name = name.strip()
        try:
            weight = float(w) if sep else 1.0
        except ValueError:
            raise click.BadParameter(
                f"weight {w!r} of variant {name!r} is not a number.", param_hint=param
            ) from None
        if not name or not math.isfinite(weight) or weight <= 0:
            raise click.BadParameter(
                f"{part!r}: expected NAME=WEIGHT with a positive weight.", param_hint=param
            )
        if name in out:
            raise click.BadParameter(f"variant {name!r} is given twice.", param_hint=param)
        out[name] = weight
    if len(out) < 2:
        raise click.BadParameter(
            "give at least two variants, e.g. control=1,treatment=1.", param_hint=param
        )
    return out


def _load_plan(path: str) -> Any:
    """The plan of a JSON or TOML file; an error in it (an experiment with one variant,
    a bad weight) names the file."""
    from ranklens.online import Plan

    data = read_document(path, "plan")
    try:
        return Plan.from_dict(data, where=path)
    except InputError as exc:
        if str(exc).startswith(path):
            raise
        raise type(exc)(f"{path}: {exc}") from None


# ---------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------
ab = GuardedGroup(
    "ab",
    help="A/B tests: assign units to variants (assign) and analyse experiments (analyze).",
)


@ab.command("assign")
@click.argument("units", metavar="UNITS")
@click.option(
    "--unit-column",
    default="unit",
    show_default=True,
    help="Column of UNITS holding the unit ids (ignored for .txt / stdin).",
)
@click.option(
    "--plan",
    "plan_path",
    metavar="FILE",
    help='JSON or TOML plan: {"experiments": [{"name": ..., "variants": '
    '{...}, "layer": ..., "traffic": ...}], "holdout": ...}.',
)
@click.option(
    "--experiment",
    "-e",
    "experiment",
    help="Experiment name (with --variants), or the one experiment of --plan to output.",
)
@click.option(
    "--variants",
    metavar="NAME=W,...",
    help="Variants and weights, e.g. control=50,treatment=50 (or control,treatment).",
)
@click.option("--control", help="Control variant (default: the first).")
@click.option("--salt", help="Salt of the variant hash (default: the experiment name).")
@click.option(
    "--traffic",
    type=click.FloatRange(0, 1, min_open=True),
    default=1.0,
    show_default=True,
    help="Fraction of units in the experiment.",
)
@click.option("--layer", help="Layer of mutually exclusive experiments.")
@click.option(
    "--holdout",
    type=click.FloatRange(0, 1, max_open=True),
    default=None,
    help="Fraction of units held out of every experiment.",
)
@click.option(
    "--buckets",
    type=click.IntRange(min=2),
    default=None,
    help="Number of hash buckets (default 10000).",
)
@click.option(
    "--hash",
    "algorithm",
    type=click.Choice(_library_choices("hash")),
    default=None,
    help="Hash algorithm (default fnv1a-fmix64, vectorised).",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    default=None,
    help="Write here instead of stdout (.csv, .parquet or .json).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(ASSIGN_FORMATS),
    default=None,
    help="Output format (default: from --output's extension, else csv).",
)
@click.option(
    "--quiet", is_flag=True, help="Do not print the counts of each variant on standard error."
)
@budget_option
def assign_cmd(
    units: str,
    unit_column: str,
    plan_path: str | None,
    experiment: str | None,
    variants: str | None,
    control: str | None,
    salt: str | None,
    traffic: float,
    layer: str | None,
    holdout: float | None,
    buckets: int | None,
    algorithm: str | None,
    output: str | None,
    fmt: str | None,
    quiet: bool,
    memory: str | None,
) -> None:
    """Assign every unit id in UNITS (a table, a .txt file of ids, or - for stdin)
    to a variant, deterministically (salted hashing)."""
    check_output(output)
    check_budget([units], memory)
    fmt = _assign_format(output, fmt)
    settings = {
        k: v
        for k, v in (("holdout", holdout), ("buckets", buckets), ("algorithm", algorithm))
        if v is not None
    }
    if plan_path is None:
        plan = _single_experiment(experiment, variants, control, salt, traffic, layer, settings)
    else:
        plan = _plan_file(plan_path, experiment, variants, control, salt, traffic, layer, settings)
    result = plan.assign(_unit_ids(units, unit_column))
    out = result.to_arrow()
    if experiment is not None and plan_path is not None:
        out = out.select(["unit", "holdout", experiment])
    if not plan.holdout:
        out = out.drop_columns(["holdout"])
    if not quiet:
        for name in [experiment] if experiment is not None else list(result):
            counts = result[name].counts()
            shown = ", ".join(f"{k}: {v}" for k, v in counts.items() if v or not k.startswith("("))
            click.echo(f"{name}: {shown}", err=True)
    write_output(_assignments(out, fmt), output)


def _single_experiment(
    experiment: str | None,
    variants: str | None,
    control: str | None,
    salt: str | None,
    traffic: float,
    layer: str | None,
    settings: dict[str, Any],
) -> Any:
    """The plan of one experiment given by --experiment and --variants."""
    from ranklens.online import Experiment, Plan

    weights = _parse_weights(variants, "--variants")
    if weights is None or experiment is None:
        raise click.UsageError(
            "give --plan FILE, or --experiment NAME with --variants control=1,treatment=1."
        )
    exp = Experiment(experiment, weights, control=control, salt=salt, traffic=traffic, layer=layer)
    return Plan([exp], **settings)


def _plan_file(
    path: str,
    experiment: str | None,
    variants: str | None,
    control: str | None,
    salt: str | None,
    traffic: float,
    layer: str | None,
    settings: dict[str, Any],
) -> Any:
    """The plan of --plan FILE (the single-experiment options refused), with the
    settings given on the command line."""
    from ranklens.online import Plan

    if variants is not None:
        raise click.UsageError("give either --plan or --experiment/--variants, not both.")
    ignored = [
        opt
        for opt, val in (("--control", control), ("--salt", salt), ("--layer", layer))
        if val is not None
    ]
    if traffic != 1.0:
        ignored.append("--traffic")
    if ignored:
        raise click.UsageError(
            f"{', '.join(ignored)} describe a single experiment; with "
            "--plan, put them in the plan file."
        )
    base = _load_plan(path)
    plan = Plan(
        base.experiments,
        **{
            "holdout": base.holdout,
            "holdout_salt": base.holdout_salt,
            "buckets": base.buckets,
            "algorithm": base.algorithm,
            **settings,
        },
    )
    if experiment is not None:
        plan.experiment(experiment)  # validates the name
    return plan


def _unit_ids(units: str, unit_column: str) -> Any:
    """The unit ids of UNITS: a table's --unit-column, or a file (or -) of ids."""
    data = read_input_table(units, "units", text=[(unit_column, "--unit-column")], lines=True)
    # a file of ids has the one column "unit"; a table has --unit-column (checked)
    return data.table.column(unit_column if unit_column in data.columns else "unit")


def _assign_format(output: str | None, fmt: str | None) -> str:
    """--format, else from --output's suffix (CSV on standard output)."""
    if fmt is not None:
        return fmt
    suffix = os.path.splitext(output)[1].lower() if output else ""
    known = {
        ".parquet": "parquet",
        ".pq": "parquet",
        ".json": "json",
        ".csv": "csv",
        ".txt": "csv",
        "": "csv",
    }
    if suffix not in known:
        raise click.UsageError(
            f"-o {output}: cannot tell the format from {suffix!r}; name the file .csv, "
            ".parquet or .json, or pass --format."
        )
    return known[suffix]


def _assignments(table: Any, fmt: str) -> str | bytes:
    """The assignments as CSV or JSON text, or Parquet bytes."""
    from ranklens.render.table import to_csv, to_json

    if fmt == "json":
        return to_json(table.to_pylist())
    if fmt == "csv":
        return to_csv(table)
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())


@ab.command("analyze")
@click.argument("exposures", metavar="[EXPOSURES", required=False)
@click.argument("events", metavar="EVENTS]", required=False)
@click.option(
    "--units",
    "units_path",
    metavar="FILE",
    help="Instead of EXPOSURES EVENTS: one row per unit (unit, variant and the "
    "columns the metrics name, e.g. -m revenue=mean(revenue)).",
)
@click.option(
    "--stats",
    "stats_path",
    metavar="FILE",
    help="Instead of EXPOSURES EVENTS: one row per variant with the unit count and "
    "the sums of each metric column y: y_sum, y_sum_sq (and cross sums: "
    "y_d_sum for ratio(y, d), y_c_sum with a covariate c).",
)
@click.option(
    "--metric",
    "-m",
    "metric_specs",
    multiple=True,
    required=True,
    metavar="[NAME=]KIND(ARGS)",
    help="Metric, repeatable: conversion=proportion(purchase), "
    "revenue=mean(purchase), ctr=ratio(count(click), count(impression)).",
)
@click.option(
    "--plan",
    "plan_path",
    metavar="FILE",
    help="Plan file (as for assign); with --experiment, gives the variants, planned "
    "shares and control.",
)
@click.option(
    "--experiment",
    "-e",
    help="Experiment of --plan to analyse; its name is the variant column when the "
    "input has no 'variant' column (as ranklens ab assign writes it), with or "
    "without --plan.",
)
@click.option(
    "--weights",
    metavar="NAME=W,...",
    help="Planned variants and weights instead of a plan, e.g. control=1,treatment=1.",
)
@click.option("--control", help="Control variant.")
@alpha_option
@correction_option
@click.option(
    "--cuped", is_flag=True, help="CUPED with each metric's pre-exposure value as the covariate."
)
@click.option(
    "--pre-window",
    metavar="DURATION",
    help="With --cuped: only events this long before exposure (e.g. 14d).",
)
@click.option(
    "--covariates",
    metavar="FILE",
    help="CUPED covariates: unit column plus one column per metric name.",
)
@click.option(
    "--covariate",
    "covariate_specs",
    multiple=True,
    metavar="METRIC=COLUMN",
    help="With --units or --stats: CUPED, the covariate column of METRIC (repeatable).",
)
@click.option(
    "--multiple-exposures",
    type=click.Choice(_library_choices("multiple_exposures")),
    default="exclude",
    show_default=True,
    help="Units exposed to several variants.",
)
@click.option(
    "--unknown-variants",
    type=click.Choice(_library_choices("unknown_variants")),
    default="error",
    show_default=True,
    help="Variants the plan does not know, and blank variants (units outside the experiment).",
)
@click.option(
    "--srm-threshold",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.001,
    show_default=True,
    help="p-value of the sample ratio mismatch test below which the split is flagged.",
)
@click.option(
    "--sequential",
    is_flag=True,
    help="Always-valid sequential test (mSPRT) over daily (--look-every) looks.",
)
@click.option(
    "--look-every",
    metavar="DURATION",
    help="Interval between looks (e.g. 1d; a number for numeric times).",
)
@click.option(
    "--tau",
    type=click.FloatRange(0, min_open=True),
    default=None,
    help="mSPRT mixing scale in metric units (default: tuned per metric).",
)
@click.option("--unit-column", default="unit", show_default=True, help="Column of the unit ids.")
@click.option(
    "--variant-column", default=None, help="[default: variant, else the --experiment name]"
)
@click.option(
    "--time-column",
    default=None,
    help="[default: time] Exposures without a 'time' column are an assignment "
    "table (ranklens ab assign's output): every event counts.",
)
@click.option(
    "--event-column", default="event", show_default=True, help="Column of the event names."
)
@click.option(
    "--value-column",
    default=None,
    help="Numeric event value column (default: 'value' if present, else 1 per event).",
)
@click.option(
    "--count-column",
    default="count",
    show_default=True,
    help="With --stats: the column of units per variant.",
)
@format_option(ANALYSIS_FORMATS)
@output_option
@quiet_option
@budget_option
def analyze_cmd(
    exposures: str | None,
    events: str | None,
    units_path: str | None,
    stats_path: str | None,
    metric_specs: tuple[str, ...],
    plan_path: str | None,
    experiment: str | None,
    weights: str | None,
    control: str | None,
    alpha: float,
    correction: str,
    cuped: bool,
    pre_window: str | None,
    covariates: str | None,
    covariate_specs: tuple[str, ...],
    multiple_exposures: str,
    unknown_variants: str,
    srm_threshold: float,
    sequential: bool,
    look_every: str | None,
    tau: float | None,
    unit_column: str,
    variant_column: str | None,
    time_column: str | None,
    event_column: str,
    value_column: str | None,
    count_column: str,
    fmt: str,
    output: str | None,
    quiet: bool,
    memory: str | None,
) -> None:
    """Analyse an A/B test from its EXPOSURES (unit, variant, time) and EVENTS
    (unit, time, event, value) tables, or from a table of units (--units) or of
    per-variant sums (--stats)."""
    metrics = _parse_metrics(metric_specs)
    plan = _analysis_plan(plan_path, experiment, weights)
    source = _source(exposures, events, units_path, stats_path)
    if source != "logs":
        given = [
            opt
            for opt, on in (
                ("--cuped", cuped),
                ("--pre-window", pre_window),
                ("--covariates", covariates),
                ("--sequential", sequential),
                ("--look-every", look_every),
                ("--tau", tau),
            )
            if on
        ]
        if given:
            raise click.UsageError(
                f"{', '.join(given)} need(s) the event logs (EXPOSURES "
                f"EVENTS); with --{source}, CUPED is --covariate "
                "METRIC=COLUMN."
            )
    elif covariate_specs:
        raise click.UsageError(
            "--covariate goes with --units or --stats; with event logs, "
            "use --cuped or --covariates FILE."
        )
    check_output(output)
    check_budget([exposures, events, units_path, stats_path, covariates], memory)
    named = experiment if experiment is not None else getattr(plan, "name", None)
    options = dict(
        plan=plan, control=control, alpha=alpha, correction=correction, srm_threshold=srm_threshold
    )
    with progress(quiet), warnings_to_stderr(loud=lambda m: m.startswith("SAMPLE RATIO")):
        if source == "logs":
            assert exposures is not None and events is not None
            result = _analyze_logs(
                exposures,
                events,
                metrics,
                options,
                covariates,
                variant_column,
                named,
                unit=unit_column,
                time=time_column,
                event=event_column,
                value=value_column,
                cuped=cuped,
                pre_window=_number_or_text(pre_window),
                multiple_exposures=multiple_exposures,
                unknown_variants=unknown_variants,
                sequential=sequential,
                look_every=_number_or_text(look_every),
                tau=tau,
            )
        else:
            result = _analyze_table(
                source,
                units_path or stats_path or "",
                metrics,
                options,
                _covariate_columns(covariate_specs),
                variant_column,
                named,
                unit_column,
                count_column,
            )
    write_output(result.render(fmt), output)


def _source(exposures: str | None, events: str | None, units: str | None, stats: str | None) -> str:
    """Which input the command was given: logs, units or stats (exactly one)."""
    given = [
        name
        for name, on in (
            ("logs", exposures is not None),
            ("units", units is not None),
            ("stats", stats is not None),
        )
        if on
    ]
    if len(given) != 1:
        raise click.UsageError(
            "give EXPOSURES EVENTS (event logs), --units FILE (one row per "
            "unit) or --stats FILE (sums per variant): exactly one of them."
        )
    if given[0] == "logs" and events is None:
        raise click.UsageError(
            "EVENTS is missing: give EXPOSURES EVENTS (or --units FILE, or --stats FILE)."
        )
    return given[0]


def _covariate_columns(specs: Sequence[str]) -> dict[str, str] | None:
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, col = (x.strip() for x in spec.partition("="))
        if not sep or not name or not col:
            raise click.BadParameter(
                f"{spec!r}: expected METRIC=COLUMN, e.g. revenue=pre_revenue.",
                param_hint="--covariate",
            )
        out[name] = col
    return out or None


def _variant_name(columns: list[str], given: str | None, experiment: str | None) -> str:
    """--variant-column, else 'variant', else the experiment's name (the column
    ranklens ab assign writes), whichever the table has."""
    if given is not None:
        return given
    return experiment if "variant" not in columns and experiment in columns else "variant"


def _variant_text(
    path: str, given: str | None, experiment: str | None
) -> tuple[Callable[[list[str]], str], str]:
    """The variant column as a ``text`` entry of read_input_table (read as text: variant
    ``01`` stays ``01``), chosen from the header by :func:`_variant_name`."""

    def pick(columns: list[str]) -> str:
        name = _variant_name(columns, given, experiment)
        if name not in columns:
            raise InputError(
                f"{path}: no column named {name!r}; it has columns {columns}. "
                "Pass --variant-column NAME (ranklens ab assign names the "
                "variant column after the experiment: -e EXPERIMENT reads it)."
            )
        return name

    return pick, "--variant-column"


def _analyze_logs(
    exposures: str,
    events: str,
    metrics: list[Any],
    options: dict[str, Any],
    covariates: str | None,
    variant_column: str | None,
    experiment: str | None,
    *,
    unit: str,
    **rest: Any,
) -> Any:
    from ranklens.online import analyze

    with stage(f"reading {exposures}"):
        tables = {
            "exposures": read_input_table(
                exposures,
                "exposures",
                text=[
                    (unit, "--unit-column"),
                    _variant_text(exposures, variant_column, experiment),
                ],
            )
        }
    variant = _variant_name(tables["exposures"].columns, variant_column, experiment)
    if rest["time"] is None:  # not given: 'time' if the exposures have it, else none
        rest["time"] = "time" if "time" in tables["exposures"].columns else None
    with stage(f"reading {events}"):
        tables["events"] = read_input_table(
            events, "events", text=[(unit, "--unit-column"), (rest["event"], "--event-column")]
        )
    if covariates is not None:
        tables["covariates"] = read_input_table(
            covariates, "covariates", text=[(unit, "--unit-column")]
        )
    with lines_named(tables), stage("analysing"):
        return analyze(
            tables["exposures"].table,
            tables["events"].table,
            metrics,
            covariates=tables["covariates"].table if covariates is not None else None,
            unit=unit,
            variant=variant,
            **options,
            **rest,
        )


def _analyze_table(
    source: str,
    path: str,
    metrics: list[Any],
    options: dict[str, Any],
    covariates: dict[str, str] | None,
    variant_column: str | None,
    experiment: str | None,
    unit: str,
    count: str,
) -> Any:
    from ranklens.online import analyze_stats, analyze_units

    text: list[tuple[Any, str]] = [_variant_text(path, variant_column, experiment)]
    if source == "units":
        text.insert(0, (unit, "--unit-column"))
    with stage(f"reading {path}"):
        table = read_input_table(path, source, text=text)
    variant = _variant_name(table.columns, variant_column, experiment)
    with lines_named({source: table}):
        if source == "units":
            return analyze_units(
                table.table, metrics, covariates=covariates, unit=unit, variant=variant, **options
            )
        return analyze_stats(
            table.table, metrics, covariates=covariates, variant=variant, count=count, **options
        )


def _parse_metrics(specs: Sequence[str]) -> list[Any]:
    from ranklens.online.metrics import parse_metric

    return parse_each(specs, parse_metric, "--metric")


def _analysis_plan(plan_path: str | None, experiment: str | None, weights: str | None) -> Any:
    """The planned variants: an experiment of --plan, or --weights (or none)."""
    w = _parse_weights(weights, "--weights")
    if plan_path is None:  # --experiment alone names the variant column (as assign writes)
        return w
    if w is not None:
        raise click.UsageError("give either --plan or --weights, not both.")
    p = _load_plan(plan_path)
    if experiment is not None:
        return p.experiment(experiment)
    if len(p.experiments) != 1:
        raise click.UsageError(
            f"the plan has {len(p.experiments)} experiments; choose one with --experiment NAME."
        )
    return p.experiments[0]


def _number_or_text(text: str | None) -> Any:
    """A duration option: a number (numeric times) or a text such as ``14d``."""
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return text
