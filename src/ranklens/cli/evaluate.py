"""``ranklens evaluate``, ``ranklens metrics`` and ``ranklens example``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from ranklens.cli._common import echo_warning, progress, write_output
from ranklens.cli._inputs import evaluate_bounds, evaluate_runs, read_qrels, record_results
from ranklens.cli._measures import (
    DEFAULT_METRICS,
    NICKNAMES,
    TREC_OFFICIAL,
    expand_measures,
    split_measures,
    trec_position,
)
from ranklens.cli._options import Request, request_options


def _report_formats() -> tuple[str, ...]:
    from ranklens.render.report import FORMATS

    return tuple(FORMATS)


def _note_no_intents(request: Request, qrels: Any) -> None:
    """An intent-aware metric on qrels read without intents takes each query as one
    intent: say so (unless --quiet), with the option that reads the intent column."""
    from ranklens.metrics import get_metric
    from ranklens.metrics.catalogue import INTENT_AWARE
    from ranklens.ranking.intents import DiversityQrels

    if request.output.quiet or isinstance(qrels, DiversityQrels):
        return
    if any(get_metric(m).definition.name in INTENT_AWARE for m in request.metrics):
        click.echo(
            f"ranklens: {request.inputs.qrels} is read without intents, so the intent-aware "
            "metrics take each query as one intent; pass --qrels-format diversity (TREC "
            "`query intent doc relevance`) or --intents to read its intent column.",
            err=True,
        )


def _metric_names(given: Sequence[str], fmt: str) -> list[str]:
    """The metrics of ``-m`` (``runid`` is a line, not a metric), else the default ones
    (trec_eval's official set with --format trec, in trec_eval's order there)."""
    named = [m for text in given for m in split_measures(text) if m != "runid"]
    if named and all(m == "all_prefs" or m.startswith("prefs_") for m in named):
        return named  # trec_eval's preference measures (--qrels-format prefs), checked there
    names = expand_measures(named or list(TREC_OFFICIAL if fmt == "trec" else DEFAULT_METRICS))
    if fmt == "trec":  # trec_eval prints its measures in its own order, whatever -m says
        names = sorted(names, key=trec_position)
    return names


@click.command("evaluate")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option("-q", "--per-query", is_flag=True, help="Also print every query's values.")
@click.option(
    "-n",
    "--no-summary",
    is_flag=True,
    help="With -q: leave out the aggregate over the queries (trec_eval -n).",
)
@click.option(
    "--bounds",
    is_flag=True,
    help="Beside each metric, its value with every unjudged retrieved document judged "
    "non-relevant (fill 0) and judged relevant (fill G, --bounds-grade): true bounds for "
    "P@k, success, RR, DCG, RBP; for AP and nDCG the relevant fill can be the lower one. "
    "Shown when the run retrieves unjudged documents.",
)
@click.option(
    "--bounds-grade",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="With --bounds: the grade the relevant fill gives every unjudged document.",
)
@request_options(
    formats=_report_formats(),
    expand=_metric_names,
    metric_help="A metric (repeatable): ndcg@10, map, P.5, all_trec, ... "
    "Default: ndcg@10 map mrr p@10 recall@100 (trec_eval's set with --format trec).",
)
def evaluate_cmd(
    request: Request, per_query: bool, no_summary: bool, bounds: bool, bounds_grade: float
) -> None:
    """Evaluate one or more RUNS against QRELS.

    Several runs print one table, one row per run.  Files may be TREC, CSV,
    TSV, Parquet, JSON Lines or JSON (dict of dicts), optionally .gz/.bz2/.zst.
    """
    from ranklens.render.report import render

    if no_summary and not per_query:
        raise click.UsageError(
            "-n leaves out the summary, so give -q too (each query's "
            "values), or there is nothing to print."
        )
    if request.inputs.prefs is not None:
        _evaluate_prefs(request, per_query, no_summary)
        return
    _point_to_recsys(request)
    fmt = request.output.fmt
    given = request.metric_args
    # trec_eval prints its runid line with its default measures, all_trec or -m runid
    runid = fmt == "trec" and (
        not given or any(m in ("runid", *NICKNAMES) for text in given for m in split_measures(text))
    )
    with progress(request.output.quiet):
        qrels = read_qrels(request)
        _note_no_intents(request, qrels)
        if bounds:
            if fmt == "trec":
                raise click.UsageError(
                    "--bounds adds columns that trec_eval's format has no place for; "
                    "choose another --format (table, json, csv, markdown, latex)."
                )
            found = evaluate_bounds(request, qrels, request.metrics, bounds_grade)
            results = list(found.values())
        else:
            results = list(evaluate_runs(request, qrels, request.metrics).values())
    _warn_different_queries(results)
    write_output(
        render(results, fmt, per_query=per_query, runid=runid, summary=not no_summary),
        request.output.path,
    )
    record_results(request, "evaluate", results)


def _evaluate_prefs(request: Request, per_query: bool, no_summary: bool) -> None:
    """trec_eval -R prefs / -R qrels_prefs: the prefs_* measures, trec_eval's lines."""
    from ranklens.io import read_trec_run
    from ranklens.io.prefs import read_prefs, read_qrels_prefs
    from ranklens.ranking.prefs import PREFS_MEASURES, evaluate_prefs

    if request.output.fmt != "trec":
        raise click.UsageError(
            f"--qrels-format {request.inputs.prefs} computes trec_eval's prefs_* measures, "
            "printed as trec_eval prints them: give --format trec."
        )
    named = [m for text in request.metric_args for m in split_measures(text) if m != "runid"]
    everything = not named or "all_prefs" in named
    unknown = [m for m in named if m != "all_prefs" and m not in PREFS_MEASURES]
    if unknown:
        raise click.UsageError(
            f"-m {unknown[0]}: with --qrels-format {request.inputs.prefs} give all_prefs or "
            f"prefs measures: {', '.join(PREFS_MEASURES)}."
        )
    reader = read_prefs if request.inputs.prefs == "prefs" else read_qrels_prefs
    conventions = request.conventions
    lines: list[str] = []
    with progress(request.output.quiet):
        prefs = reader(request.inputs.qrels)
        for path in request.inputs.runs:
            run = read_trec_run(path)
            table = run.to_arrow()
            result = evaluate_prefs(
                prefs,
                table["query"].to_numpy(zero_copy_only=False),
                table["doc"].to_numpy(zero_copy_only=False),
                table["score"].to_numpy(),
                measures=None if everything else named,
                empty_rankings=conventions is not None and conventions.missing == "zero",
                depth=None if conventions is None else conventions.depth,
            )
            lines += result.trec_lines(
                per_query=per_query,
                summary=not no_summary,
                runid=run.name if everything else None,
            )
    write_output("\n".join(lines) + "\n", request.output.path)


def _point_to_recsys(request: Request) -> None:
    """A beyond-accuracy metric is ``ranklens recsys``'s (it reads more than qrels and
    runs): a usage error that says the command to run, before any file is read."""
    from ranklens.errors import RanklensError
    from ranklens.metrics import get_metric

    for name in request.metrics:
        try:
            defn = get_metric(name).definition
        except RanklensError:  # the evaluation names it
            continue
        if defn.domain == "recsys":
            needs = " ".join(
                f"{group[0].option} FILE" for group in defn.required_inputs if group[0].option
            )
            raise click.UsageError(
                f"{name} is a beyond-accuracy metric of recommendation lists; evaluate it "
                f"with 'ranklens recsys {request.inputs.qrels} {' '.join(request.inputs.runs)} "
                f"-m {name}{' ' + needs if needs else ''}' (ranking metrics too)."
            )


def _warn_different_queries(results: list[Any]) -> None:
    """Runs evaluated on different queries have means that do not compare: say so (as
    compare does)."""
    sets = [set(r.query_ids) for r in results]
    if len(sets) < 2 or all(q == sets[0] for q in sets[1:]):
        return
    common = set.intersection(*sets)
    counts = ", ".join(f"{r.run_name}: {len(q)}" for r, q in zip(results, sets, strict=True))
    n_out = len(set.union(*sets) - common)
    echo_warning(
        f"the runs were evaluated on different queries ({counts}; {n_out} not in "
        "every run), so their means do not compare; -c scores the queries a run "
        "lacks as 0."
    )
