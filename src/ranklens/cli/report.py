"""``ranklens report``: one self-contained HTML report of several runs."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import echo_warning, progress, warnings_to_stderr, write_output
from ranklens.cli._inputs import read_qrels, read_systems
from ranklens.cli._measures import DEFAULT_METRICS, expand_measures
from ranklens.cli._options import Request, baseline_name, request_options, stats_options

__all__ = ["report_cmd"]


def _metrics(given: Any, fmt: str) -> list[str]:
    return expand_measures(given or DEFAULT_METRICS)


def _history(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and param.name == "old_store":
        echo_warning(
            f"report --store {value} is deprecated and goes in the next release (--store "
            f"records into a store in every other command); pass --history {value}."
        )
    return value


@click.command("report")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "--baseline", default=None, help="Run name to test the others against (default: the first run)."
)
@click.option("--title", default="ranklens report", show_default=True, help="The report's title.")
@click.option(
    "--max-k",
    type=click.IntRange(min=1),
    default=None,
    help="The largest k of the metric@k charts (default: the largest cutoff of "
    "the metrics, at least 20).",
)
@click.option(
    "--history",
    "history",
    default=None,
    metavar="PATH",
    help="A results store (see 'ranklens history'): the report adds each "
    "metric's history from it (nothing is recorded).",
)
@click.option(
    "--store",
    "old_store",
    default=None,
    metavar="PATH",
    callback=_history,
    hidden=True,
    help="Deprecated spelling of --history.",
)
@stats_options
@request_options(
    formats=None,
    store=False,
    expand=_metrics,
    output_required=True,
    output_text="The HTML file to write (e.g. report.html); - for standard output.",
)
def report_cmd(
    request: Request,
    baseline: str | None,
    title: str,
    max_k: int | None,
    history: str | None,
    old_store: str | None,
    test: str,
    correction: str,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | None,
) -> None:
    """Write an HTML report of RUNS on QRELS to -o FILE: one file that works offline.

    It holds the summary (means, confidence intervals, paired tests against the
    baseline), metric@k and precision-recall curves, a sortable per-query table
    with the biggest wins and losses, distributions, and the conventions used.
    """
    from ranklens.render.html import html_report

    if history is not None and old_store is not None:
        raise click.UsageError("--store is the old spelling of --history; give one of them.")
    store = history if history is not None else old_store
    output = request.output.path
    assert output is not None  # a required option
    names = list(request.metrics)
    trend = None if store is None else _trends(store, names)
    with progress(request.output.quiet):
        qrels = read_qrels(request)
        named = read_systems(request, qrels)
    baseline_name(request, list(named), baseline)
    sources = {
        "qrels": request.inputs.qrels,
        **{f"run {n}": p for n, p in zip(named, request.inputs.runs, strict=True)},
    }
    if store is not None:
        sources["history"] = store
    to_stdout = output == "-"
    with warnings_to_stderr():
        page = html_report(
            qrels,
            named,
            names,
            baseline=baseline,
            trend=trend,
            path=None if to_stdout else output,
            title=title,
            provenance=sources,
            max_k=max_k,
            test=test,
            correction=correction,
            alpha=alpha,
            n_resamples=n_resamples,
            seed=seed,
            ci=ci,
            **request.convention_kwargs(),
        )
    if to_stdout:
        write_output(page, output)
    elif not request.output.quiet:
        click.echo(f"wrote {output}")


def _trends(path: str, metrics: list[str]) -> dict[str, Any]:
    """Each metric's history in the store at ``path`` (metrics it never recorded left
    out); a missing, foreign or corrupt file is refused before any input is read."""
    from ranklens.history import Store

    with Store(path, create=False) as history:
        found = {m: history.trend(m) for m in metrics}
    return {m: points for m, points in found.items() if points}
