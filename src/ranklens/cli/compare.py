"""``ranklens compare`` and ``ranklens plot``."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import progress, stage, warnings_to_stderr, write_output
from ranklens.cli._inputs import read_qrels, read_systems, record_results
from ranklens.cli._measures import DEFAULT_METRICS, expand_measures
from ranklens.cli._options import Request, baseline_name, request_options, stats_options

__all__ = ["compare_cmd", "plot_cmd"]

_PLOTS = ("cutoffs", "pr", "diff", "dist")


def _comparison_formats() -> tuple[str, ...]:
    from ranklens.render.comparison import FORMATS

    return tuple(FORMATS)


def _metrics(given: Any, fmt: str) -> list[str]:
    return expand_measures(given or DEFAULT_METRICS)


@click.command("compare")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "--baseline", default=None, help="Run name to test the others against (default: the first run)."
)
@click.option("--pairwise", is_flag=True, help="Test every pair of runs, not a baseline.")
@click.option(
    "--power",
    "target_power",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    default=0.8,
    show_default=True,
    help="The power at which a note gives each comparison's minimum detectable difference "
    "(paired t-test on its queries) and says when the observed difference is below it "
    "(underpowered), with the queries it would need.",
)
@stats_options
@request_options(formats=_comparison_formats(), expand=_metrics)
def compare_cmd(
    request: Request,
    baseline: str | None,
    pairwise: bool,
    target_power: float,
    test: str,
    correction: str,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | None,
) -> None:
    """Compare two or more RUNS on QRELS: means, confidence intervals, paired
    significance tests against a baseline (or pairwise), win/tie/loss counts.

    A RUN may be a stored record PATH#ID (see 'ranklens history'): its stored
    per-query values are compared."""
    from ranklens import Result
    from ranklens.comparison import compare

    if len(request.inputs.runs) < 2:
        raise click.UsageError("compare needs at least two run files.")
    if pairwise and baseline is not None:
        raise click.UsageError("--pairwise and --baseline exclude each other.")
    with progress(request.output.quiet):
        qrels = read_qrels(request)
        named = read_systems(request, qrels)
        baseline_name(request, list(named), baseline)
        base = None if pairwise else (baseline or next(iter(named)))
        with warnings_to_stderr(), stage(f"comparing ({test})"):
            cmp = compare(
                qrels,
                named,
                list(request.metrics),
                baseline=base,
                test=test,
                correction=correction,
                alpha=alpha,
                n_resamples=n_resamples,
                seed=seed,
                ci=ci,
                **request.convention_kwargs(),
            )
    if target_power <= alpha:
        raise click.BadParameter(
            f"{target_power:g} is not above --alpha {alpha:g}; ask for a power above it, "
            "e.g. --power 0.8.",
            param_hint="--power",
        )
    text = cmp.render(request.output.fmt)
    notes = _power_notes(cmp, target_power)
    if notes and request.output.fmt in ("table", "markdown"):
        text = text.rstrip("\n") + "\n\n" + "\n".join(notes) + "\n"
    elif notes and not request.output.quiet:
        for line in notes:
            click.echo(f"ranklens: note: {line}", err=True)
    write_output(text, request.output.path)
    made = [n for n, r in named.items() if not isinstance(r, Result)]
    record_results(request, "compare", [cmp.results[n] for n in made], made)


def _power_notes(cmp: Any, target_power: float) -> list[str]:
    """One line per underpowered comparison: ``power: dense vs bm25 on map: n=8 queries
    detect a difference of 0.12 with 80% power; observed 0.03: underpowered (about 120
    needed)``."""
    from ranklens.comparison.power import comparison_power

    checks = comparison_power(cmp, power=target_power)
    return [
        f"power: {system} vs {other} on {metric}: {check.note()}"
        for (system, other, metric), check in checks.items()
        if check.underpowered
    ]


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
@request_options(
    metrics=False, store=False, output_required=True, output_text="Image file: .png or .svg."
)
def plot_cmd(
    request: Request,
    kind: str,
    metric: str | None,
    max_k: int,
    pr_kind: str,
    dist_kind: str,
) -> None:
    """Draw a chart of RUNS on QRELS into -o FILE (.png or .svg).

    KIND: cutoffs (metric at k = 1..K), pr (precision-recall), diff (per-query
    difference of the second run minus the first), dist (per-query values).
    """
    from ranklens import Result, evaluate
    from ranklens.render import plots

    output = request.output.path
    assert output is not None  # a required option
    if not output.lower().endswith(plots.IMAGE_SUFFIXES):
        raise click.BadParameter(
            f"{output!r}: a chart is saved as {' or '.join(plots.IMAGE_SUFFIXES)}; name the "
            "file so.",
            param_hint="-o",
        )
    runs = request.inputs.runs
    if kind == "diff" and len(runs) != 2:
        raise click.UsageError("plot diff needs exactly two runs (the difference is RUN2 - RUN1).")
    conv = request.convention_kwargs()
    with progress(request.output.quiet):
        qrels = read_qrels(request)
        named = read_systems(request, qrels)
    stored = [n for n, r in named.items() if isinstance(r, Result)]
    if stored and kind in ("cutoffs", "pr"):
        raise click.UsageError(
            f"plot {kind} draws rankings, and {stored[0]!r} is a stored result (per-query "
            "values only); give its run file, or use plot diff / plot dist."
        )
    with warnings_to_stderr():
        if kind == "cutoffs":
            plots.plot_cutoffs(qrels, named, metric or "ndcg", max_k, output, **conv)
        elif kind == "pr":
            plots.plot_pr_curves(qrels, named, pr_kind, path=output, **conv)
        else:
            m = metric or "ndcg@10"
            res = {
                n: r if isinstance(r, Result) else evaluate(qrels, r, [m], **conv)
                for n, r in named.items()
            }  # a stored result has its per-query values
            if kind == "diff":
                (na, ra), (nb, rb) = res.items()
                plots.plot_differences(ra, rb, m, output, labels=(na, nb))
            else:
                plots.plot_distribution(res, m, dist_kind, output)
    if not request.output.quiet:
        click.echo(f"wrote {output}")
