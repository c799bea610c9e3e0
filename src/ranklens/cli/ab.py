"""``ranklens ab``: assign units to experiment variants and analyse A/B tests.

``ranklens ab assign UNITS ...`` writes each unit's variant (CSV, Parquet or
JSON); ``ranklens ab analyze EXPOSURES EVENTS --metric ...`` prints a table
(or JSON with ``--format json``).  Input tables are CSV/TSV (optionally
compressed: .gz, .bz2, .zst), Parquet or JSON lines, read with pyarrow.

Errors are one sentence on stderr, never a traceback: exit code 3 for bad
input data or files, 2 for bad command-line usage.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
import pyarrow as pa

from ranklens.cli._common import check_output, run_guarded
from ranklens.errors import InputError, RanklensError, RanklensWarning

__all__ = ["ab"]


_CSV_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn ranklens errors into one line on stderr and exit code 3 (data) or 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return run_guarded(lambda: fn(*args, **kwargs), click.get_current_context())

    return wrapper


# ---------------------------------------------------------------------------------------
# reading tables
# ---------------------------------------------------------------------------------------
def _kind_of(path: Path) -> tuple[str, str | None]:
    suffixes = [s.lower() for s in path.suffixes]
    compression = None
    if suffixes and suffixes[-1] in _COMPRESSION:
        compression = _COMPRESSION[suffixes.pop()]
    last = suffixes[-1] if suffixes else ""
    if last in _CSV_SUFFIXES:
        return last, compression
    if last in (".parquet", ".pq"):
        return "parquet", compression
    if last in (".jsonl", ".ndjson", ".json"):
        return "jsonl", compression
    if last in (".txt", ".ids"):
        return "lines", compression
    return "", compression


def read_table(path_text: str, *, string_columns: Sequence[str] = (),
               what: str = "input") -> pa.Table:
    """Read a CSV/TSV/Parquet/JSON-lines file; ``string_columns`` are read as text
    (so that ids like ``007`` keep their leading zeros)."""
    path = Path(path_text)
    if not path.exists():
        raise InputError(f"{path}: no such file (the {what} table).")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a file.")
    kind, compression = _kind_of(path)
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(str(path))
        stream = pa.input_stream(str(path), compression=compression)
        if kind in _CSV_SUFFIXES:
            import pyarrow.csv as pcsv

            head = pcsv.open_csv(
                pa.input_stream(str(path), compression=compression),
                parse_options=pcsv.ParseOptions(delimiter=_CSV_SUFFIXES[kind]),
            ).schema.names
            types = {c: pa.string() for c in string_columns if c in head}
            return pcsv.read_csv(
                stream, parse_options=pcsv.ParseOptions(delimiter=_CSV_SUFFIXES[kind]),
                convert_options=pcsv.ConvertOptions(column_types=types),
            )
        if kind == "jsonl":
            import pyarrow.json as pjson

            return pjson.read_json(stream)
        if kind == "lines":
            ids = [ln.strip() for ln in stream.read().decode("utf-8").splitlines() if ln.strip()]
            return pa.table({"unit": pa.array(ids, type=pa.string())})
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the {what} table ({exc}).") from exc
    raise InputError(
        f"{path}: unknown file type; use .csv, .tsv, .parquet, .jsonl or .txt (one id per line), "
        "optionally compressed (.gz, .bz2, .zst)."
    )


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
            raise click.BadParameter(f"weight {w!r} of variant {name!r} is not a number.",
                                     param_hint=param) from None
        if not name or not math.isfinite(weight) or weight <= 0:
            raise click.BadParameter(f"{part!r}: expected NAME=WEIGHT with a positive weight.",
                                     param_hint=param)
        if name in out:
            raise click.BadParameter(f"variant {name!r} is given twice.", param_hint=param)
        out[name] = weight
    if len(out) < 2:
        raise click.BadParameter("give at least two variants, e.g. control=1,treatment=1.",
                                 param_hint=param)
    return out


def _load_plan(path_text: str) -> Any:
    from ranklens.online import Plan

    path = Path(path_text)
    if not path.exists():
        raise InputError(f"{path}: no such file (the plan).")
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".toml":
            try:
                import tomllib
            except ImportError:  # Python 3.10
                raise InputError(f"{path}: reading TOML plans needs Python 3.11 or later; "
                                 "write the plan as JSON instead.") from None
            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the plan ({exc}).") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: the plan is not valid JSON ({exc.msg}).") from exc
    except ValueError as exc:  # tomllib.TOMLDecodeError
        raise InputError(f"{path}: the plan is not valid TOML ({exc}).") from exc
    return Plan.from_dict(data, where=str(path))


# ---------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------
ab = click.Group(
    "ab",
    help="A/B tests: assign units to variants (assign) and analyse experiments (analyze).",
)


@ab.command("assign")
@click.argument("units", metavar="UNITS")
@click.option("--unit-column", default="unit", show_default=True,
              help="Column of UNITS holding the unit ids (ignored for .txt / stdin).")
@click.option("--plan", "plan_path", metavar="FILE",
              help="JSON or TOML plan: {\"experiments\": [{\"name\": ..., \"variants\": "
                   "{...}, \"layer\": ..., \"traffic\": ...}], \"holdout\": ...}.")
@click.option("--experiment", "-e", "experiment",
              help="Experiment name (with --variants), or the one experiment of --plan to "
                   "output.")
@click.option("--variants", metavar="NAME=W,...",
              help="Variants and weights, e.g. control=50,treatment=50 (or control,treatment).")
@click.option("--control", help="Control variant (default: the first).")
@click.option("--salt", help="Salt of the variant hash (default: the experiment name).")
@click.option("--traffic", type=click.FloatRange(0, 1, min_open=True), default=1.0,
              show_default=True, help="Fraction of units in the experiment.")
@click.option("--layer", help="Layer of mutually exclusive experiments.")
@click.option("--holdout", type=click.FloatRange(0, 1, max_open=True), default=None,
              help="Fraction of units held out of every experiment.")
@click.option("--buckets", type=click.IntRange(min=2), default=None,
              help="Number of hash buckets (default 10000).")
@click.option("--hash", "algorithm", type=click.Choice(["sha256", "fnv1a-fmix64"]),
              default=None, help="Hash algorithm (default fnv1a-fmix64, vectorised).")
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Write here instead of stdout (.csv, .parquet or .json).")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "json"]), default=None,
              help="Output format (default: from --output's extension, else csv).")
@click.option("--quiet", "-q", is_flag=True, help="Do not print the counts to stderr.")
@_guarded
def assign_cmd(units: str, unit_column: str, plan_path: str | None, experiment: str | None,
               variants: str | None, control: str | None, salt: str | None, traffic: float,
               layer: str | None, holdout: float | None, buckets: int | None,
               algorithm: str | None, output: str | None, fmt: str | None,
               quiet: bool) -> None:
    """Assign every unit id in UNITS (a table, a .txt file of ids, or - for stdin)
    to a variant, deterministically (salted hashing)."""
    from ranklens.online import Experiment, Plan

    check_output(output)
    weights = _parse_weights(variants, "--variants")
    if plan_path is not None and weights is not None:
        raise click.UsageError("give either --plan or --experiment/--variants, not both.")
    if plan_path is None and (weights is None or experiment is None):
        raise click.UsageError("give --plan FILE, or --experiment NAME with --variants "
                               "control=1,treatment=1.")
    extra: dict[str, Any] = {}
    if holdout is not None:
        extra["holdout"] = holdout
    if buckets is not None:
        extra["buckets"] = buckets
    if algorithm is not None:
        extra["algorithm"] = algorithm
    if plan_path is not None:
        ignored = [opt for opt, val in (("--control", control), ("--salt", salt),
                                        ("--layer", layer)) if val is not None]
        if traffic != 1.0:
            ignored.append("--traffic")
        if ignored:
            raise click.UsageError(f"{', '.join(ignored)} describe a single experiment; with "
                                   "--plan, put them in the plan file.")
        base = _load_plan(plan_path)
        plan = Plan(base.experiments, **{**_plan_kwargs(base), **extra})
        if experiment is not None:
            plan.experiment(experiment)  # validates the name
    else:
        assert weights is not None and experiment is not None
        exp = Experiment(experiment, weights, control=control, salt=salt, traffic=traffic,
                         layer=layer)
        plan = Plan([exp], **extra)

    if units == "-":
        ids = [ln.strip() for ln in sys.stdin.read().splitlines() if ln.strip()]
        unit_ids: Any = pa.array(ids, type=pa.string())
    else:
        table = read_table(units, string_columns=[unit_column], what="units")
        if _kind_of(Path(units))[0] == "lines":
            unit_ids = table.column("unit")
        elif unit_column in table.column_names:
            unit_ids = table.column(unit_column)
        else:
            raise InputError(f"{units}: no column named {unit_column!r}; the table has columns "
                             f"{table.column_names}. Pass --unit-column NAME.")
    result = plan.assign(unit_ids)
    out = result.to_arrow()
    if experiment is not None and plan_path is not None:
        out = out.select(["unit", "holdout", experiment])
    if not plan.holdout:
        out = out.drop_columns(["holdout"])
    if not quiet:
        for name in ([experiment] if experiment is not None else list(result)):
            counts = result[name].counts()
            shown = ", ".join(f"{k}: {v}" for k, v in counts.items()
                              if v or not k.startswith("("))
            click.echo(f"{name}: {shown}", err=True)
    _write_assignments(out, output, fmt)


def _plan_kwargs(plan: Any) -> dict[str, Any]:
    return {"holdout": plan.holdout, "holdout_salt": plan.holdout_salt,
            "buckets": plan.buckets, "algorithm": plan.algorithm}


def _write_assignments(table: pa.Table, output: str | None, fmt: str | None) -> None:
    if fmt is None:
        suffix = Path(output).suffix.lower() if output else ""
        known = {".parquet": "parquet", ".pq": "parquet", ".json": "json", ".csv": "csv",
                 ".txt": "csv", "": "csv"}
        if suffix not in known:
            raise click.UsageError(
                f"-o {output}: cannot tell the format from {suffix!r}; name the file .csv, "
                ".parquet or .json, or pass --format.")
        fmt = known[suffix]
    if fmt == "parquet" and output is None:
        raise click.UsageError("--format parquet needs --output FILE.")
    try:
        if fmt == "json":
            text = json.dumps(table.to_pylist())
            if output is None:
                click.echo(text)
            else:
                Path(output).write_text(text + "\n", encoding="utf-8")
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            assert output is not None
            pq.write_table(table, output)
        else:
            import pyarrow.csv as pcsv

            sink = pa.BufferOutputStream()
            pcsv.write_csv(table, sink)
            data = sink.getvalue().to_pybytes()
            if output is None:
                click.echo(data.decode("utf-8"), nl=False)
            else:
                Path(output).write_bytes(data)
    except OSError as exc:
        raise InputError(f"{output}: cannot write the output ({exc}).") from exc


@ab.command("analyze")
@click.argument("exposures", metavar="EXPOSURES")
@click.argument("events", metavar="EVENTS")
@click.option("--metric", "-m", "metric_specs", multiple=True, required=True,
              metavar="[NAME=]KIND(ARGS)",
              help="Metric, repeatable: conversion=proportion(purchase), "
                   "revenue=mean(purchase), ctr=ratio(count(click), count(impression)).")
@click.option("--plan", "plan_path", metavar="FILE",
              help="Plan file (as for assign); with --experiment, gives the variants, planned "
                   "shares and control.")
@click.option("--experiment", "-e", help="Experiment of --plan to analyse.")
@click.option("--weights", metavar="NAME=W,...",
              help="Planned variants and weights instead of a plan, e.g. control=1,treatment=1.")
@click.option("--control", help="Control variant.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True)
@click.option("--correction", default="holm", show_default=True,
              help="Multiple-comparison correction (statsmodels multipletests method, or none).")
@click.option("--cuped", is_flag=True,
              help="CUPED with each metric's pre-exposure value as the covariate.")
@click.option("--pre-window", metavar="DURATION",
              help="With --cuped: only events this long before exposure (e.g. 14d).")
@click.option("--covariates", metavar="FILE",
              help="CUPED covariates: unit column plus one column per metric name.")
@click.option("--multiple-exposures", type=click.Choice(["exclude", "first", "error"]),
              default="exclude", show_default=True,
              help="Units exposed to several variants.")
@click.option("--unknown-variants", type=click.Choice(["error", "exclude"]), default="error",
              show_default=True, help="Variants the plan does not know.")
@click.option("--srm-threshold", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.001, show_default=True)
@click.option("--sequential", is_flag=True,
              help="Always-valid sequential test (mSPRT) over daily (--look-every) looks.")
@click.option("--look-every", metavar="DURATION",
              help="Interval between looks (e.g. 1d; a number for numeric times).")
@click.option("--tau", type=click.FloatRange(0, min_open=True), default=None,
              help="mSPRT mixing scale in metric units (default: tuned per metric).")
@click.option("--unit-column", default="unit", show_default=True)
@click.option("--variant-column", default="variant", show_default=True)
@click.option("--time-column", default="time", show_default=True)
@click.option("--event-column", default="event", show_default=True)
@click.option("--value-column", default=None,
              help="Numeric event value column (default: 'value' if present, else 1 per event).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@_guarded
def analyze_cmd(exposures: str, events: str, metric_specs: tuple[str, ...],
                plan_path: str | None, experiment: str | None, weights: str | None,
                control: str | None, alpha: float, correction: str, cuped: bool,
                pre_window: str | None, covariates: str | None, multiple_exposures: str,
                unknown_variants: str, srm_threshold: float, sequential: bool,
                look_every: str | None, tau: float | None, unit_column: str,
                variant_column: str, time_column: str, event_column: str,
                value_column: str | None, fmt: str) -> None:
    """Analyse an A/B test from its EXPOSURES (unit, variant, time) and EVENTS
    (unit, time, event, value) tables."""
    from ranklens.online import analyze
    from ranklens.online.metrics import parse_metric

    metrics = []
    for spec in metric_specs:
        try:
            metrics.append(parse_metric(spec))
        except RanklensError as exc:
            raise click.BadParameter(str(exc), param_hint="--metric") from None
    w = _parse_weights(weights, "--weights")
    if plan_path is not None and w is not None:
        raise click.UsageError("give either --plan or --weights, not both.")
    plan: Any = w
    if plan_path is not None:
        p = _load_plan(plan_path)
        if experiment is None:
            if len(p.experiments) != 1:
                raise click.UsageError(
                    f"the plan has {len(p.experiments)} experiments; choose one with "
                    "--experiment NAME.")
            plan = p.experiments[0]
        else:
            plan = p.experiment(experiment)
    elif experiment is not None:
        raise click.UsageError("--experiment selects an experiment of --plan; give --plan.")
    if correction not in _corrections():
        raise click.BadParameter(f"{correction!r} is not one of {', '.join(_corrections())}.",
                                 param_hint="--correction")
    look: Any = float(look_every) if look_every is not None and _looks_numeric(look_every) \
        else look_every
    window: Any = float(pre_window) if pre_window is not None and _looks_numeric(pre_window) \
        else pre_window
    ex = read_table(exposures, string_columns=[unit_column, variant_column], what="exposures")
    ev = read_table(events, string_columns=[unit_column, event_column], what="events")
    cov = (read_table(covariates, string_columns=[unit_column], what="covariates")
           if covariates is not None else None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RanklensWarning)
        result = analyze(
            ex, ev, metrics, plan=plan, control=control, alpha=alpha, correction=correction,
            cuped=cuped, covariates=cov, pre_window=window,
            multiple_exposures=multiple_exposures,  # type: ignore[arg-type]
            unknown_variants=unknown_variants,  # type: ignore[arg-type]
            srm_threshold=srm_threshold, sequential=sequential, look_every=look, tau=tau,
            unit=unit_column, variant=variant_column, time=time_column, event=event_column,
            value=value_column,
        )
    for wmsg in caught:
        if issubclass(wmsg.category, RanklensWarning):
            _warn_line(str(wmsg.message), loud=str(wmsg.message).startswith("SAMPLE RATIO"))
        else:  # pragma: no cover - someone else's warning: pass it on
            warnings.warn_explicit(wmsg.message, wmsg.category, wmsg.filename, wmsg.lineno)
    if fmt == "json":
        click.echo(result.to_json(indent=2))
    else:
        _print_table(result)


def _corrections() -> tuple[str, ...]:
    from ranklens.online import CORRECTIONS

    return CORRECTIONS


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _warn_line(message: str, *, loud: bool) -> None:
    if loud:
        bar = "!" * 78
        click.echo(click.style(bar, fg="red", bold=True), err=True)
        click.echo(click.style("WARNING: " + message, fg="red", bold=True), err=True)
        click.echo(click.style(bar, fg="red", bold=True), err=True)
    else:
        click.echo(click.style("warning: " + message, fg="yellow"), err=True)
    sys.stderr.flush()


def _fmt(x: float | None, pct: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    if pct:
        return f"{x:+.2%}"
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e6):
        return f"{x:.3g}"
    return f"{x:.4g}"


def _fmt_p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "-"
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


def _print_table(result: Any) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    stream = sys.stdout
    width = None if stream.isatty() else int(os.environ.get("COLUMNS", "200"))
    console = Console(file=stream, width=width, highlight=False)
    srm = result.srm
    srm_text = (f"SRM check: chi2 = {_fmt(srm.statistic)}, p = {_fmt_p(srm.p_value)}"
                + (" [bold red]MISMATCH[/]" if srm.mismatch else " (ok)"))
    units = ", ".join(f"{v}: {n}" for v, n in result.report.units_per_variant.items())
    console.print(f"Units: {units}.  {srm_text}")
    seq = result.sequential is not None
    if console.width < 150:
        _print_blocks(console, result, seq)
        return
    title = (f"control = {result.control}, alpha = {result.alpha:g}, correction = "
             f"{result.correction}" + (", sequential (mSPRT)" if seq else ""))
    table = Table(title=title, box=box.SIMPLE_HEAD)
    for name, justify in [("metric", "left"), ("variant", "left"), ("n", "right"),
                          ("control", "right"), ("variant value", "right"),
                          ("diff [CI]", "right"), ("rel. diff [CI]", "right"),
                          ("p", "right"), ("p adj.", "right")]:
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    if seq:
        table.add_column("seq. p adj.", justify="right", no_wrap=True)
        table.add_column("conf. sequence", justify="right", no_wrap=True)
    table.add_column("verdict", justify="left", no_wrap=True)
    table.add_column("test", justify="left", no_wrap=True)
    for c in result.comparisons:
        colour = {"increase": "green", "decrease": "red"}.get(c.verdict, "")
        verdict = f"[{colour}]{c.verdict}[/]" if colour else c.verdict
        if c.note:
            verdict += f" ({c.note})"
        cells = [
            c.metric, c.variant, f"{c.n}", _fmt(c.control_estimate), _fmt(c.estimate),
            f"{_fmt(c.diff)} [{_fmt(c.ci_lower)}, {_fmt(c.ci_upper)}]",
            f"{_fmt(c.rel_diff, True)} [{_fmt(c.rel_ci_lower, True)}, "
            f"{_fmt(c.rel_ci_upper, True)}]",
            _fmt_p(c.p_value), _fmt_p(c.p_adjusted),
        ]
        if seq:
            cells += [_fmt_p(c.seq_p_adjusted), f"[{_fmt(c.cs_lower)}, {_fmt(c.cs_upper)}]"]
        cells += [verdict, c.test]
        table.add_row(*cells)
    console.print(table)
    for note in result.report.notes:
        console.print(f"note: {note}")


def _print_blocks(console: Any, result: Any, seq: bool) -> None:
    """The narrow-terminal layout: one short block per comparison."""
    console.print(f"control = {result.control}, alpha = {result.alpha:g}, correction = "
                  f"{result.correction}" + (", sequential (mSPRT)" if seq else ""))
    for c in result.comparisons:
        console.print()
        console.print(f"[bold]{c.metric}[/]: {c.variant} vs {c.control} ({c.test})")
        console.print(f"  n {c.n} vs {c.n_control}; value {_fmt(c.estimate)} vs "
                      f"{_fmt(c.control_estimate)}")
        console.print(f"  diff {_fmt(c.diff)} [{_fmt(c.ci_lower)}, {_fmt(c.ci_upper)}]; "
                      f"relative {_fmt(c.rel_diff, True)} [{_fmt(c.rel_ci_lower, True)}, "
                      f"{_fmt(c.rel_ci_upper, True)}]")
        line = f"  p {_fmt_p(c.p_value)}, adjusted {_fmt_p(c.p_adjusted)}"
        if seq:
            line += (f"; always-valid p {_fmt_p(c.seq_p_adjusted)} (adjusted), confidence "
                     f"sequence [{_fmt(c.cs_lower)}, {_fmt(c.cs_upper)}]")
        console.print(line)
        colour = {"increase": "green", "decrease": "red"}.get(c.verdict, "")
        verdict = f"[{colour}]{c.verdict}[/]" if colour else c.verdict
        console.print(f"  verdict: {verdict}" + (f" ({c.note})" if c.note else ""))
    console.print()
    for note in result.report.notes:
        console.print(f"note: {note}")
