"""``ranklens agree`` (agreement of label sources) and ``ranklens ppi`` (prediction-powered
mean of a per-query metric from a few human labels and many cheap ones).

``agree`` is :func:`ranklens.judging.agreement.agreement` on QRELS files read through
the shared input options; ``ppi`` is :func:`ranklens.judging.ppi.ppi_mean` (or
:func:`~ranklens.judging.ppi.ppi_difference` with ``--baseline-human``) on the
columns of one table with a row per query.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from ranklens.cli._common import (
    check_output,
    read_input_table,
    stage,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli._inputs import read_qrels
from ranklens.cli._options import (
    Request,
    format_option,
    output_option,
    quiet_option,
    request_options,
)

__all__ = ["agree_cmd", "ppi_cmd"]


def _formats() -> tuple[str, ...]:
    from ranklens.render.agreement import FORMATS

    return tuple(FORMATS)


def _sources(params: dict[str, Any]) -> tuple[str, ...]:
    return tuple(params.pop("others"))


@click.command("agree")
@click.argument("qrels", metavar="QRELS_A", type=click.Path(dir_okay=False))
@click.argument(
    "others", metavar="QRELS_B...", nargs=-1, required=True, type=click.Path(dir_okay=False)
)
@click.option(
    "--weights",
    type=click.Choice(("none", "linear", "quadratic")),
    default="none",
    show_default=True,
    help="Cohen's kappa weights over the sorted grades (two sources).",
)
@click.option(
    "--level",
    type=click.Choice(("nominal", "ordinal", "interval", "ratio")),
    default="nominal",
    show_default=True,
    help="Krippendorff's alpha level of measurement.",
)
@click.option(
    "--ci-level",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence level of the intervals.",
)
@click.option(
    "--n-resamples",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Bootstrap resamples (whole queries).",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Bootstrap seed."
)
@request_options(formats=_formats(), metrics=False, store=False, runs_of=_sources)
def agree_cmd(
    request: Request,
    weights: str,
    level: str,
    ci_level: float,
    n_resamples: int,
    seed: int,
) -> None:
    """Agreement between QRELS_A and QRELS_B (and more): Cohen's kappa (two sources) or
    Fleiss' kappa (three or more), Krippendorff's alpha, with intervals, per query and
    overall, and the confusion table.  Judgments are matched on (query, doc); pairs
    only one file judges are counted in the summary (--format json lists them)."""
    from ranklens.judging.agreement import agreement

    if request.conventions is not None:
        raise click.UsageError(
            "agree compares judgments and evaluates no run: leave out the ranking "
            "convention options."
        )
    paths = [request.inputs.qrels, *request.inputs.runs]
    if len(set(paths)) != len(paths):
        raise click.UsageError("a QRELS file is given twice; give each label source once.")
    sources = []
    for path in paths:
        one = dataclasses.replace(request, inputs=dataclasses.replace(request.inputs, qrels=path))
        sources.append(read_qrels(one))
    names = [_name(p, i) for i, p in enumerate(paths)]
    with warnings_to_stderr(), stage("computing agreement"):
        res = agreement(
            *sources,
            weights=None if weights == "none" else weights,
            level=level,
            ci_level=ci_level,
            n_resamples=n_resamples,
            seed=seed,
            names=names if len(set(names)) == len(names) else None,
        )
    write_output(res.render(request.output.fmt), request.output.path)


def _name(path: str, i: int) -> str:
    from pathlib import Path

    return Path(path).stem if path != "-" else f"source{i + 1}"


def _column(table: Any, name: str, option: str, where: Any) -> Any:
    """A float column (NaN for an empty field); errors name the option and the line."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from ranklens.errors import InputError

    if name not in table.table.column_names:
        raise click.UsageError(
            f"{option} {name}: {table.path} has no column {name!r}; its columns are "
            f"{', '.join(table.columns)}."
        )
    col = table.table.column(name)
    try:
        col = pc.cast(col, pa.float64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        for i, v in enumerate(col.to_pylist()):
            try:
                float(v if v is not None else "nan")
            except ValueError:
                raise InputError(
                    f"{where(i)}: column {name!r} ({option}) holds {v!r}, not a number."
                ) from None
        raise
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)


@click.command("ppi")
@click.argument("table", metavar="TABLE", type=click.Path(dir_okay=False))
@click.option(
    "--human",
    required=True,
    help="Column of the metric under human labels (empty for a query without them).",
)
@click.option("--cheap", required=True, help="Column of the metric under the cheap labels.")
@click.option(
    "--baseline-human",
    default=None,
    help="With --baseline-cheap: the baseline system's columns; the estimate is then "
    "the paired difference (system minus baseline).",
)
@click.option("--baseline-cheap", default=None, help="See --baseline-human.")
@click.option(
    "--lam",
    default="tuned",
    show_default=True,
    help="Weight of the cheap labels: a number in [0, 1] (1: classical PPI, 0: human "
    "labels only) or 'tuned' (PPI++).",
)
@click.option(
    "--level",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
    help="Confidence level.",
)
@format_option(_formats())
@output_option
@quiet_option
def ppi_cmd(
    table: str,
    human: str,
    cheap: str,
    baseline_human: str | None,
    baseline_cheap: str | None,
    lam: str,
    level: float,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """Prediction-powered mean of a per-query metric from TABLE (CSV, TSV, Parquet,
    JSON Lines; a row per query): the rows with a --human value are the labelled
    queries, the others (an empty --human field) the unlabelled ones.  The human-labelled
    queries must be a uniform random sample of all queries for the interval to hold."""
    import numpy as np

    from ranklens.errors import InputError
    from ranklens.judging.ppi import ppi_difference, ppi_mean

    check_output(output)
    if (baseline_human is None) != (baseline_cheap is None):
        raise click.UsageError("--baseline-human and --baseline-cheap go together; give both.")
    if lam == "tuned":
        lam_v: float | None = None
    else:
        try:
            lam_v = float(lam)
        except ValueError:
            raise click.UsageError(f"--lam {lam}: give a number in [0, 1] or 'tuned'.") from None
        if not 0.0 <= lam_v <= 1.0:
            raise click.UsageError(f"--lam {lam}: give a number in [0, 1] or 'tuned'.")
    data = read_input_table(table, "per-query metric")
    y = _column(data, human, "--human", data.where)
    yh = _column(data, cheap, "--cheap", data.where)
    labelled = ~np.isnan(y)
    bad = np.flatnonzero(np.isnan(yh))
    if len(bad):
        raise InputError(
            f"{data.where(int(bad[0]))}: column {cheap!r} (--cheap) is empty; every query "
            "needs its cheap-label metric value."
        )
    with warnings_to_stderr(), stage("prediction-powered inference"):
        if baseline_human is None:
            res = ppi_mean(y[labelled], yh[labelled], yh[~labelled], lam=lam_v, level=level)
            what = f"mean of {human}"
        else:
            assert baseline_cheap is not None
            by = _column(data, baseline_human, "--baseline-human", data.where)
            bh = _column(data, baseline_cheap, "--baseline-cheap", data.where)
            mismatch = np.flatnonzero(np.isnan(by) != ~labelled)
            if len(mismatch):
                raise InputError(
                    f"{data.where(int(mismatch[0]))}: --human and --baseline-human must be "
                    "empty on the same rows (both systems judged by people on the same queries)."
                )
            res = ppi_difference(
                by[labelled],
                y[labelled],
                bh[labelled],
                yh[labelled],
                bh[~labelled],
                yh[~labelled],
                lam=lam_v,
                level=level,
            )
            what = f"{human} - {baseline_human}"
    from ranklens.render.agreement import render_ppi

    write_output(render_ppi(res, fmt, what), output)
