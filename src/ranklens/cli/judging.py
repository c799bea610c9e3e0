"""``ranklens pool`` and ``ranklens sample``: the file of documents to label, from the
pool of several runs (:func:`ranklens.judging.pool`) or a sample of it with inclusion
probabilities (:func:`ranklens.judging.sample_pool`), written by
:func:`ranklens.judging.write_label_file` (the same numbers as the Python API)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ranklens.cli._common import check_output, progress, run_names, stage
from ranklens.cli._options import format_option, output_option, quiet_option

__all__ = ["pool_cmd", "sample_cmd"]

#: The label file's formats (those of :func:`ranklens.io.write_frame`).
LABEL_FORMATS = ("csv", "tsv", "jsonl", "parquet")


def _pool_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False)),
        click.option(
            "--depth",
            type=click.IntRange(min=1),
            default=10,
            show_default=True,
            help="Documents per run per query (depth), or per query in all (rrf, rbp).",
        ),
        click.option(
            "--strategy",
            type=click.Choice(["depth", "rrf", "rbp"]),
            default="depth",
            show_default=True,
            help="depth: every run's top --depth; rrf / rbp: the --depth documents of "
            "highest fused weight (trectools' topX, rrf, rbp).",
        ),
        click.option(
            "--ties",
            type=click.Choice(["trec", "trectools"]),
            default="trec",
            show_default=True,
            help="Equal scores: doc id descending (trec_eval) or ascending (trectools).",
        ),
        click.option(
            "--rrf-k",
            type=click.FloatRange(min=0),
            default=60.0,
            show_default=True,
            help="RRF's k: a document weighs 1 / (k + rank).",
        ),
        click.option(
            "--rbp-p",
            type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
            default=0.8,
            show_default=True,
            help="RBP's p: a document weighs (1 - p) p^(rank - 1).",
        ),
        click.option(
            "--rbp-merge",
            type=click.Choice(["sum", "max"]),
            default="sum",
            show_default=True,
            help="How RBP weights of several runs combine.",
        ),
        click.option(
            "--budget-per-query",
            type=click.IntRange(min=0),
            default=None,
            help="At most this many documents per query (the first by priority).",
        ),
        click.option(
            "--budget",
            type=click.IntRange(min=0),
            default=None,
            help="At most this many documents in all, dealt out round-robin over the queries.",
        ),
        click.option(
            "--documents",
            type=click.Path(dir_okay=False),
            default=None,
            help="A table (csv, tsv, jsonl, parquet) with a 'doc' column whose other columns "
            "(or --text-column) are carried into the file.",
        ),
        click.option(
            "--text-column",
            "text_columns",
            multiple=True,
            help="A column of --documents to carry (repeatable; default: all).",
        ),
        format_option(
            LABEL_FORMATS, default=None, text="Format of the file (default: -o's suffix)"
        ),
        lambda f: output_option(
            f, required=True, text="The file to label (csv, tsv, jsonl, parquet)."
        ),
        quiet_option,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _pool(params: dict[str, Any], quiet: bool) -> Any:
    from ranklens import io
    from ranklens.judging import pool

    paths = params["runs"]
    check_output(params["output"])
    if params["text_columns"] and params["documents"] is None:
        raise click.UsageError("--text-column needs --documents FILE to take the column from.")
    runs = []
    for path in paths:
        with stage(f"reading {path}"):
            runs.append(io.read_run(path))
    names = run_names(paths, runs)
    with stage("pooling"):
        return pool(
            dict(zip(names, runs, strict=True)),
            params["depth"],
            strategy=params["strategy"],
            ties=params["ties"],
            rrf_k=params["rrf_k"],
            rbp_p=params["rbp_p"],
            rbp_merge=params["rbp_merge"],
            budget_per_query=params["budget_per_query"],
            budget=params["budget"],
        )


def _write(rows: Any, params: dict[str, Any], quiet: bool, what: str) -> None:
    from ranklens.judging import write_label_file

    with stage(f"writing {params['output']}"):
        write_label_file(
            rows,
            params["output"],
            format=params["fmt"],
            documents=params["documents"],
            text_columns=list(params["text_columns"]) or None,
        )
    if not quiet:
        click.echo(f"ranklens: {what} written to {params['output']}.", err=True)


@click.command("pool")
@_pool_options
def pool_cmd(**params: Any) -> None:
    """Pool RUNS (trec or table run files): the documents to judge, written to -o FILE
    with their query, priority and contributing runs, and an empty 'label' column.
    Read the labelled file back with ranklens.judging.read_labels."""
    quiet = params["quiet"]
    with progress(quiet):
        p = _pool(params, quiet)
        _write(p, params, quiet, f"{len(p)} documents of {len(p.query_ids)} queries")


@click.command("sample")
@_pool_options
@click.option(
    "--size",
    type=click.IntRange(min=0),
    default=None,
    help="Documents sampled per query below --judged-depth (or --rate).",
)
@click.option(
    "--rate",
    type=click.FloatRange(min=0, max=1),
    default=None,
    help="The share of each query's documents below --judged-depth to sample.",
)
@click.option(
    "--design",
    type=click.Choice(["uniform", "apprior"]),
    default="uniform",
    show_default=True,
    help="uniform: a simple random sample (infAP); apprior: inclusion probabilities "
    "proportional to the AP-prior (statAP).",
)
@click.option(
    "--judged-depth",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Documents some run ranks within this depth are all judged (inclusion 1).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the draw.")
def sample_cmd(**params: Any) -> None:
    """Sample the pool of RUNS for judging: the selected documents written to -o FILE
    with their stratum, inclusion probability and weight (1 / inclusion), and an empty
    'label' column."""
    from ranklens.judging import sample_pool

    if (params["size"] is None) == (params["rate"] is None):
        raise click.UsageError("give exactly one of --size and --rate.")
    quiet = params["quiet"]
    with progress(quiet):
        p = _pool(params, quiet)
        with stage("sampling"):
            s = sample_pool(
                p,
                params["size"],
                rate=params["rate"],
                design=params["design"],
                judged_depth=params["judged_depth"],
                seed=params["seed"],
            )
        _write(s, params, quiet, f"{len(s)} of {len(p)} pooled documents")
