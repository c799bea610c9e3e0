"""``ranklens recsys``: recommendation lists against held-out interactions, with
ranking and beyond-accuracy metrics, per user or per cold / warm / hot segment.

The command is :func:`ranklens.recsys.evaluate_interactions` (and, with
``--segments``, :func:`ranklens.recsys.evaluate_segments`) on the command line: the
options that give what beyond-accuracy metrics read (``--train``, ``--catalog``,
``--item-features``, ``--categories``) are generated from the catalogue's
:data:`~ranklens.metrics.catalogue.INPUTS`, and a metric whose input is missing is
a usage error naming the option (or ``HELD_OUT``, which may be left out when no
metric reads it), before any file is read.  ``--store`` records the evaluation of
every user with the metrics of all lists together (the record's totals) and, with
``--segments``, the segment table (the record's details).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

import click

from ranklens.cli._common import check_output, progress, run_names, write_output
from ranklens.cli._inputs import record_results
from ranklens.cli._measures import DEFAULT_METRICS, check_measures, split_measures
from ranklens.cli._options import (
    Inputs,
    Output,
    Request,
    convention_options,
    format_option,
    output_option,
    quiet_option,
    store_options,
    take_conventions,
    take_store,
)

__all__ = ["recsys_cmd"]


def _formats() -> tuple[str, ...]:
    from ranklens.render.report import FORMATS

    return tuple(FORMATS)


def _input_options(fn: Any) -> Any:
    """One option per input of :data:`ranklens.metrics.catalogue.INPUTS` that has an
    option (``--train FILE`` ...), its help the catalogue's description."""
    from ranklens.metrics.catalogue import INPUTS

    for i in reversed([i for i in INPUTS.values() if i.option is not None]):
        assert i.option is not None
        fn = click.option(
            i.option,
            i.name,
            default=None,
            metavar="FILE",
            type=click.Path(dir_okay=False),
            help=f"File (CSV, TSV, Parquet, JSON Lines) of {i.doc}.",
        )(fn)
    return fn


def _column_options(fn: Any) -> Any:
    """The columns of the tables, named as every command names them."""
    for opt in reversed(
        [
            click.option(
                "--query-col",
                default="user_id",
                show_default=True,
                help="User column of every table.",
            ),
            click.option(
                "--doc-col",
                default="item_id",
                show_default=True,
                help="Item column of every table.",
            ),
            click.option(
                "--score-col",
                default=None,
                help="Score column of RECOMMENDATIONS (higher is better; default 'score').",
            ),
            click.option(
                "--rank-col",
                default=None,
                help="Rank column of RECOMMENDATIONS (1 = best), instead of a score column; "
                "a table with no 'score' column and a column named 'rank' is read as ranks.",
            ),
            click.option(
                "--relevance-col",
                default=None,
                help="Grade column of HELD_OUT (default: none, every row is a relevant "
                "interaction of grade 1: implicit feedback).",
            ),
            click.option(
                "--category-col",
                default="category",
                show_default=True,
                help="Category column of the --categories table.",
            ),
        ]
    ):
        fn = opt(fn)
    return fn


@click.command("recsys")
@click.argument(
    "files", metavar="[HELD_OUT] RECOMMENDATIONS", nargs=-1, type=click.Path(dir_okay=False)
)
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="A metric (repeatable): a ranking metric (ndcg@10, map, mrr, ...) or a "
    "beyond-accuracy one (novelty@10, ild@10, catalog_coverage@10, ...; 'ranklens metrics "
    f"--family recsys' lists them). Default: {' '.join(DEFAULT_METRICS)}.",
)
@click.option(
    "-k",
    "k",
    type=click.IntRange(min=1),
    default=None,
    help="The cutoff of every metric given without one that takes one (ndcg becomes "
    "ndcg@10 with -k 10).",
)
@_column_options
@_input_options
@click.option(
    "--repeats",
    type=click.Choice(("sum", "max", "binary")),
    default="sum",
    show_default=True,
    help="Grade of a user-item pair in HELD_OUT several times: the sum of its grades, "
    "the largest, or 1.",
)
@click.option(
    "--duplicates",
    type=click.Choice(("error", "first")),
    default="error",
    show_default=True,
    help="An item recommended twice to a user: an error, or keep its best position.",
)
@convention_options
@click.option(
    "--segments",
    type=click.Choice(("user", "item")),
    default=None,
    help="Evaluate per cold / warm / hot segment of users or of held-out items, "
    "labelled from --train (cold: no training interaction); --store records the "
    "evaluation of every user with the segment table.",
)
@click.option(
    "--hot-threshold",
    type=click.IntRange(min=1),
    default=None,
    help="With --segments: hot means more than this many training interactions.",
)
@click.option(
    "--hot-quantile",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="With --segments: hot means above this quantile of the warm counts.",
)
@click.option("-q", "--per-query", is_flag=True, help="Also print every user's values.")
@format_option(_formats())
@output_option
@store_options
@quiet_option
def recsys_cmd(**params: Any) -> None:
    """Evaluate RECOMMENDATIONS (user, item, score or rank) against HELD_OUT
    interactions (user, item[, grade]), with ranking and beyond-accuracy metrics.

    HELD_OUT may be left out when every metric reads only the lists and what
    --train, --catalog, --item-features or --categories give (novelty, coverage,
    diversity ...): then every recommended user is evaluated.

    HELD_OUT rows without a grade column are relevant (implicit feedback).  Users
    with held-out interactions but no list score 0 (--missing skip leaves them
    out); users with a list but no held-out interaction are left out (--unjudged
    zero scores them 0).  Metrics of all lists together (catalog coverage,
    entropy, Gini) are printed after the per-user ones.  Files may be CSV, TSV,
    Parquet or JSON Lines (ids read as text), or TREC.
    """
    held_out, recommendations = _files(params.pop("files"))
    given = tuple(params.pop("metrics") or ())
    check_measures(given)
    names = [m for text in given for m in split_measures(text)] or list(DEFAULT_METRICS)
    k = params.pop("k")
    segments = params.pop("segments")
    hot = {"hot_threshold": params.pop("hot_threshold"), "hot_quantile": params.pop("hot_quantile")}
    per_query = bool(params.pop("per_query"))
    fmt, output = params.pop("fmt"), params.pop("output")
    quiet = bool(params.pop("quiet"))
    store, tags = take_store(params)
    # the recommender conventions (users without a list score 0, users without held-out
    # interactions are left out) unless an option says otherwise
    complete, missing = bool(params.pop("complete")), params.pop("missing")
    if complete:
        if missing not in (None, "zero"):
            raise click.UsageError(
                f"-c means --missing zero; do not combine it with --missing {missing}."
            )
        missing = "zero"
    unjudged = params.pop("unjudged")
    conventions = take_conventions(params)  # the others
    check_output(output)
    if held_out is None:
        _check_without_held_out(names, k, given, complete, missing, unjudged)
    beyond = _check_metrics(names, k, params, segments, hot, fmt, per_query, held_out)
    kwargs: dict[str, Any] = {
        "user": params.pop("query_col"),
        "item": params.pop("doc_col"),
        "score": params.pop("score_col"),
        "rank": params.pop("rank_col"),
        "weight": params.pop("relevance_col"),
        "category": params.pop("category_col"),
        "k": k,
        "repeats": params.pop("repeats"),
        "duplicates": params.pop("duplicates"),
        "missing": missing or "zero",
        "unjudged": unjudged or "skip",
        **{name: params.pop(name) for name in _input_names()},
        **({} if conventions is None else {"conventions": conventions}),
    }
    if kwargs["score"] is None and kwargs["rank"] is None:
        kwargs["score"] = "score"  # the library's default: a 'rank' column is read as ranks
    if kwargs["score"] is not None and kwargs["rank"] is not None:
        raise click.UsageError(
            "--score-col and --rank-col both order the recommendations; give one of them."
        )
    assert not params, params  # every option is taken
    with progress(quiet):
        if segments is not None:
            from ranklens.recsys import evaluate_segments

            train = kwargs.pop("train")
            table = evaluate_segments(
                recommendations, held_out, names, train=train, by=segments, **hot, **kwargs
            )
        else:
            from ranklens.recsys import evaluate_interactions

            ev = evaluate_interactions(recommendations, held_out, names, **kwargs)
    name = run_names([recommendations], [None])[0]
    # the store's record: the result of every user (with --segments, the segment "all")
    request = Request(
        Inputs(held_out or "", (recommendations,)),  # "": no HELD_OUT
        output=Output(fmt, output, quiet, store, tags),
    )
    if segments is not None:
        write_output(_segment_output(table, fmt), output)
        rows = table.rows()
        details = {"segments": {"by": table.by, **hot, "rows": rows}}
        every = dataclasses.replace(table.results["all"], run_name=name)
        record_results(request, "recsys", [every], details=details)
        return
    if not quiet:
        for note in ev.notes:
            click.echo(f"ranklens: {_in_options(note)}", err=True)
    result = dataclasses.replace(ev.result, run_name=name)
    totals = dict(ev.totals)
    write_output(_output(result, totals, fmt, per_query, beyond), output)
    record_results(request, "recsys", [result], totals=totals)


def _files(files: Sequence[str]) -> tuple[str | None, str]:
    """HELD_OUT (None when left out) and RECOMMENDATIONS."""
    if len(files) == 2:
        return files[0], files[1]
    if len(files) == 1:
        return None, files[0]
    raise click.UsageError(
        "give HELD_OUT RECOMMENDATIONS (the held-out interactions, then the lists), or "
        "RECOMMENDATIONS alone when every metric reads only the lists"
        + (f"; got {len(files)} files." if files else ".")
    )


def _check_without_held_out(
    names: Sequence[str],
    k: int | None,
    given: Sequence[str],
    complete: bool,
    missing: str | None,
    unjudged: str | None,
) -> None:
    """Without HELD_OUT: every metric reads no held-out interaction (else a usage error
    naming the metric and HELD_OUT), and no option about them is given."""
    from ranklens.errors import MetricNameError
    from ranklens.recsys.inputs import parse_metrics

    try:
        ranking, beyond = parse_metrics(list(names), k)
    except MetricNameError:
        return  # said by _check_metrics in the command's words
    needs = (
        ranking[:1]
        or [
            (key, m)
            for key, m in beyond
            if any(i.name == "held_out" for group in m.definition.required_inputs for i in group)
        ][:1]
    )
    if needs:
        key = needs[0][0]
        default = "" if given else " (a default metric; -m chooses others)"
        raise click.UsageError(
            f"metric {key!r}{default} needs the held-out interactions: give HELD_OUT "
            "before RECOMMENDATIONS, or only metrics that read the lists alone (novelty, "
            "catalog_coverage, ild, ...; 'ranklens metrics --family recsys')."
        )
    ctx = click.get_current_context()
    cli_given = [
        p.opts[0]
        for p in ctx.command.params
        if isinstance(p, click.Option)
        and p.name in ("relevance_col", "repeats")
        and ctx.get_parameter_source(p.name) == click.core.ParameterSource.COMMANDLINE
    ]
    cli_given += [
        o for o, v in (("-c", complete), ("--missing", missing), ("--unjudged", unjudged)) if v
    ]
    if cli_given:
        raise click.UsageError(
            f"{cli_given[0]} says how HELD_OUT is read or scored, and no HELD_OUT is given; "
            "leave it out or give HELD_OUT before RECOMMENDATIONS."
        )


def _input_names() -> list[str]:
    from ranklens.metrics.catalogue import INPUTS

    return [i.name for i in INPUTS.values() if i.option is not None]


def _in_options(note: str) -> str:
    """A library note in the command's words (``train=`` is ``--train``)."""
    from ranklens.metrics.catalogue import INPUTS

    for i in INPUTS.values():
        if i.option is not None:
            note = note.replace(f"{i.keyword}=", i.option)
    return (
        note.replace("Pass rank= or score= to choose.", "Pass --rank-col or --score-col to choose.")
        .replace("rank=", "--rank-col")
        .replace("score=", "--score-col")
    )


def _check_metrics(
    names: Sequence[str],
    k: int | None,
    params: Mapping[str, Any],
    segments: str | None,
    hot: Mapping[str, Any],
    fmt: str,
    per_query: bool,
    held_out: str | None,
) -> list[str]:
    """The metrics parse and have their inputs, the options go together: a usage
    error naming the option, before any file is read.  Returns the keys of the
    metrics of all lists together (no per-user value)."""
    from ranklens.errors import MetricNameError
    from ranklens.recsys.inputs import missing_inputs, parse_metrics

    try:
        _, beyond = parse_metrics(list(names), k)
    except MetricNameError as exc:  # the library's words for this command
        raise MetricNameError(
            str(exc).replace("evaluate_interactions takes", "ranklens recsys takes")
        ) from None
    given = {name: params.get(name) is not None for name in _input_names()}
    given["held_out"] = held_out is not None
    for key, group in missing_inputs(beyond, given)[:1]:
        options = " or ".join(f"{i.option} FILE" for i in group if i.option is not None)
        what = "; or ".join(i.doc for i in group)
        raise click.UsageError(f"metric {key!r} needs {options} ({what}); give it.")
    if segments is None and any(v is not None for v in hot.values()):
        raise click.UsageError("--hot-threshold and --hot-quantile go with --segments user|item.")
    if hot["hot_threshold"] is not None and hot["hot_quantile"] is not None:
        raise click.UsageError("give --hot-threshold or --hot-quantile, not both.")
    if segments is not None:
        if params.get("train") is None:
            raise click.UsageError(
                f"--segments {segments} labels {segments}s cold, warm or hot from the training "
                "log; give --train FILE."
            )
        if per_query:
            raise click.UsageError("--segments prints one row per segment; leave out -q.")
        if segments == "item" and held_out is None:
            raise click.UsageError(
                "--segments item splits the held-out interactions by item; give HELD_OUT "
                "before RECOMMENDATIONS, or use --segments user."
            )
        if fmt not in ("table", "markdown", "latex", "csv", "json"):
            raise click.UsageError(
                f"--segments prints a table of segments: --format table, markdown, latex, csv "
                f"or json, not {fmt}."
            )
    whole = [key for key, m in beyond if not m.definition.per_query]
    if whole and per_query and fmt == "csv":
        raise click.UsageError(
            f"{whole[0]} is one value of all lists together, with no value per user, so it "
            "has no place in the per-user CSV; with -q use --format json or table, or give "
            "it in a call without -q."
        )
    return whole


def _number(x: float) -> str:
    return f"{x:.4f}"


def _output(
    result: Any, totals: dict[str, float], fmt: str, per_query: bool, whole: Sequence[str]
) -> str:
    """The result as ``evaluate`` prints it, with the metrics of all lists together
    (``totals``) as further summary columns (in JSON, in the summary)."""
    from ranklens.render.report import render

    main = render(result, fmt, per_query=per_query)
    if fmt == "json":  # with the totals, and the fingerprints of every input
        doc = json.loads(main)
        doc["runs"][0]["summary"].update(totals)
        if result.provenance is not None:
            doc["runs"][0]["provenance"] = result.provenance.as_dict()
        from ranklens.render.table import to_json

        return to_json(doc)
    if not totals:
        return main
    if fmt == "trec":
        return (
            main.rstrip("\n")
            + "\n"
            + "\n".join(f"{key:<22}\tall\t{_number(v)}" for key, v in totals.items())
        )
    from ranklens.render.table import Table, render_as

    summary = result.summary()
    keys = [*summary, *totals]
    values = {**summary, **totals}

    def layout() -> Table:
        return Table(["run", *keys], [[result.run_name, *(_number(values[k]) for k in keys)]])

    def records() -> Any:
        import pyarrow as pa

        return pa.Table.from_pylist([{"run": result.run_name, **values}])

    block = render_as(fmt, layout=layout, records=records, document=lambda: values)
    if not per_query:
        return block
    # every user's values as evaluate prints them, then the summary with the totals
    return main.rstrip("\n") + "\n\n" + block


def _segment_output(table: Any, fmt: str) -> str:
    from ranklens.render.table import Table, render_as

    rows = table.rows()

    def layout() -> Table:
        header = ["segment", f"{table.by}s", *table.metrics]
        body: list[list[Any]] = [
            [r["segment"], str(r["n_queries"]), *(_number(r[m]) for m in table.metrics)]
            for r in rows
        ]
        return Table(header, body)

    def records() -> Any:
        import pyarrow as pa

        return pa.Table.from_pylist(rows)

    return render_as(
        fmt, layout=layout, records=records, document=lambda: {"by": table.by, "segments": rows}
    )


def _recommender_defaults(command: click.Command) -> None:
    """The help of ``--missing`` and ``--unjudged`` says this command's defaults (the
    recommender conventions of :func:`ranklens.recsys.evaluate_interactions`), not
    those of ``evaluate``."""
    texts = {
        "missing": "Users with held-out interactions but no list: zero (default; they "
        "score 0 and count in the mean) or skip (left out); trec_eval -c is zero.",
        "unjudged": "Users with a list but no held-out interaction: skip (default; they "
        "cannot be judged) or zero (0 on every metric, counted in the mean, as Spark).",
    }
    for p in command.params:
        if isinstance(p, click.Option) and p.name in texts:
            p.help = texts[p.name]
            if p.name == "missing":  # evaluate_interactions' choices
                p.type = click.Choice(("zero", "skip"))


_recommender_defaults(recsys_cmd)
