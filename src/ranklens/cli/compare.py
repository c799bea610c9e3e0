"""``ranklens compare`` and ``ranklens plot``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from ranklens.cli._common import (
    check_output,
    correction_option,
    progress,
    quiet_option,
    run_names,
    stage,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli.evaluate import (
    DEFAULT_METRICS,
    _conventions,
    _conventions_options,
    _read_inputs,
    check_measures,
    expand_measures,
    file_options,
)
from ranklens.cli.history import read_systems, record_results, store_options, take_store
from ranklens.ranking.evaluation import Result
from ranklens.render.comparison import FORMATS

__all__ = ["compare_cmd", "plot_cmd", "read_named", "stats_options"]

_TESTS = ("randomization", "t", "wilcoxon", "bootstrap")
_CIS = ("t", "percentile", "bca")
_PLOTS = ("cutoffs", "pr", "diff", "dist")


def read_named(
    qrels: str, runs: Sequence[str], baseline: str | None, cols: dict[str, Any]
) -> tuple[Any, dict[str, Any]]:
    """The qrels and ``{run name: run}`` (:func:`run_names`) read from the files (a
    ``STORE#ID`` is a stored result); ``--baseline`` must name one of the runs."""
    qrels_t, run_ts = read_systems(qrels, runs, cols, _read_inputs)
    names = run_names(runs, run_ts)
    if baseline is not None and baseline not in names:
        raise click.UsageError(
            f"--baseline {baseline!r} is not a run name; the runs are {', '.join(names)}."
        )
    return qrels_t, dict(zip(names, run_ts, strict=True))


def stats_options(fn: Any) -> Any:
    """The options of the paired tests and intervals (compare, report): ``test``,
    ``correction``, ``alpha``, ``ci``, ``n_resamples`` and ``seed``."""
    options: list[Callable[[Any], Any]] = [
        click.option(
            "--test",
            type=click.Choice(_TESTS),
            default="randomization",
            show_default=True,
            help="Paired significance test.",
        ),
        correction_option,
        click.option(
            "--alpha",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=0.05,
            show_default=True,
            help="Significance level.",
        ),
        click.option(
            "--ci",
            type=click.Choice(_CIS),
            default="t",
            show_default=True,
            help="Confidence interval method.",
        ),
        click.option(
            "--n-resamples",
            type=click.IntRange(min=1),
            default=10_000,
            show_default=True,
            help="Permutations / bootstrap resamples.",
        ),
        click.option(
            "--seed",
            type=click.IntRange(min=0),
            default=None,
            help="Random seed (reproducible p-values).",
        ),
    ]
    for opt in reversed(options):
        fn = opt(fn)
    return fn


@click.command("compare")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
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
@click.option("--pairwise", is_flag=True, help="Test every pair of runs, not a baseline.")
@stats_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file instead of standard output.",
)
@_conventions_options
@file_options
@store_options
@quiet_option
def compare_cmd(
    qrels: str,
    runs: tuple[str, ...],
    metrics: tuple[str, ...],
    baseline: str | None,
    pairwise: bool,
    test: str,
    correction: str,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | None,
    fmt: str,
    output: str | None,
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
    """Compare two or more RUNS on QRELS: means, confidence intervals, paired
    significance tests against a baseline (or pairwise), win/tie/loss counts.

    A RUN may be a stored record PATH#ID (see 'ranklens history'): its stored
    per-query values are compared."""
    from ranklens.comparison import compare

    if len(runs) < 2:
        raise click.UsageError("compare needs at least two run files.")
    check_measures(metrics)
    if pairwise and baseline is not None:
        raise click.UsageError("--pairwise and --baseline exclude each other.")
    store, tags = take_store(cols)
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
    with progress(cols.pop("quiet", False)):
        qrels_t, named = read_named(qrels, runs, baseline, cols)
        base = None if pairwise else (baseline or next(iter(named)))
        with warnings_to_stderr(), stage(f"comparing ({test})"):
            cmp = compare(
                qrels_t,
                named,
                expand_measures(metrics or DEFAULT_METRICS),
                baseline=base,
                test=test,
                correction=correction,
                alpha=alpha,
                n_resamples=n_resamples,
                seed=seed,
                ci=ci,
                **conv,
            )
    write_output(cmp.render(fmt), output)
    made = [n for n, r in named.items() if not isinstance(r, Result)]
    record_results(store, tags, "compare", [cmp.results[n] for n in made], made)


@click.command("plot")
@click.argument("kind", type=click.Choice(_PLOTS))
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "-m",
    "--metric",
    default=None,
    help="cutoffs: a family without @k (default ndcg); diff/dist: a metric (default ndcg@10).",
)
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False),
    help="Image file: .png or .svg.",
)
@click.option(
    "--max-k",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="cutoffs: the largest k.",
)
@click.option(
    "--pr",
    "pr_kind",
    type=click.Choice(("both", "interpolated", "raw")),
    default="both",
    show_default=True,
    help="pr: which curves.",
)
@click.option(
    "--dist",
    "dist_kind",
    type=click.Choice(("box", "hist")),
    default="box",
    show_default=True,
    help="dist: box plot or histograms.",
)
@_conventions_options
@file_options
@quiet_option
def plot_cmd(
    kind: str,
    qrels: str,
    runs: tuple[str, ...],
    metric: str | None,
    output: str,
    max_k: int,
    pr_kind: str,
    dist_kind: str,
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
    """Draw a chart of RUNS on QRELS into -o FILE (.png or .svg).

    KIND: cutoffs (metric at k = 1..K), pr (precision-recall), diff (per-query
    difference of the second run minus the first), dist (per-query values).
    """
    from ranklens.ranking.evaluation import evaluate
    from ranklens.render import plots

    plots._check_path(output)
    check_output(output)
    if kind == "diff" and len(runs) != 2:
        raise click.UsageError("plot diff needs exactly two runs (the difference is RUN2 - RUN1).")
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
    with progress(cols.pop("quiet", False)):
        qrels_t, named = read_named(qrels, runs, None, cols)
    stored = [n for n, r in named.items() if isinstance(r, Result)]
    if stored and kind in ("cutoffs", "pr"):
        raise click.UsageError(
            f"plot {kind} draws rankings, and {stored[0]!r} is a stored result (per-query "
            "values only); give its run file, or use plot diff / plot dist."
        )
    if kind == "cutoffs":
        plots.plot_cutoffs(qrels_t, named, metric or "ndcg", max_k, output, **conv)
    elif kind == "pr":
        plots.plot_pr_curves(qrels_t, named, pr_kind, path=output, **conv)
    else:
        m = metric or "ndcg@10"
        res = {
            n: r if isinstance(r, Result) else evaluate(qrels_t, r, [m], **conv)
            for n, r in named.items()
        }  # a stored result has its per-query values
        if kind == "diff":
            (na, ra), (nb, rb) = res.items()
            plots.plot_differences(ra, rb, m, output, labels=(na, nb))
        else:
            plots.plot_distribution(res, m, dist_kind, output)
    click.echo(f"wrote {output}")
