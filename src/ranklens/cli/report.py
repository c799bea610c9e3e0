"""``ranklens report``: one self-contained HTML report of several runs."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import check_output, warnings_to_stderr, write_output
from ranklens.cli.compare import read_named, stats_options
from ranklens.cli.evaluate import (
    DEFAULT_METRICS,
    _conventions,
    _conventions_options,
    expand_measures,
    file_options,
)

__all__ = ["report_cmd"]


@click.command("report")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="The HTML file to write (e.g. report.html); - for standard output.",
)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="A metric (repeatable). Default: ndcg@10 map mrr p@10 recall@100.",
)
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
    "--store",
    default=None,
    metavar="PATH",
    help="A results store (see 'ranklens history'): the report adds each "
    "metric's history from it (nothing is recorded).",
)
@stats_options
@_conventions_options
@file_options
def report_cmd(
    qrels: str,
    runs: tuple[str, ...],
    output: str,
    metrics: tuple[str, ...],
    baseline: str | None,
    title: str,
    max_k: int | None,
    store: str | None,
    test: str,
    correction: str,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | None,
    profile: str | None,
    ties: str | None,
    missing: str | None,
    complete: bool,
    no_relevant: str | None,
    unjudged: str | None,
    rel_threshold: float | None,
    depth: int | None,
    iprec_rounding: str | None,
    **cols: Any,
) -> None:
    """Write an HTML report of RUNS on QRELS to -o FILE: one file that works offline.

    It holds the summary (means, confidence intervals, paired tests against the
    baseline), metric@k and precision-recall curves, a sortable per-query table
    with the biggest wins and losses, distributions, and the conventions used.
    """
    from ranklens.render.html import html_report

    conv = _conventions(
        profile,
        ties,
        missing,
        complete,
        no_relevant,
        unjudged,
        rel_threshold,
        depth,
        iprec_rounding,
        cols,
    )
    check_output(output)
    names = expand_measures(metrics or DEFAULT_METRICS)
    trend = None if store is None else _trends(store, names)
    qrels_t, named = read_named(qrels, runs, baseline, cols)
    sources = {"qrels": qrels, **{f"run {n}": p for n, p in zip(named, runs, strict=True)}}
    if store is not None:
        sources["history"] = store
    to_stdout = output == "-"
    with warnings_to_stderr():
        page = html_report(
            qrels_t,
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
            **conv,
        )
    if to_stdout:
        write_output(page, output)
    else:
        click.echo(f"wrote {output}")


def _trends(path: str, metrics: list[str]) -> dict[str, Any]:
    """Each metric's history in the store at ``path`` (metrics it never recorded left
    out); a missing, foreign or corrupt file is refused before any input is read."""
    from ranklens.history import Store

    with Store(path, create=False) as history:
        found = {m: history.trend(m) for m in metrics}
    return {m: points for m, points in found.items() if points}
