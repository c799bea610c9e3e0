"""``ranklens overlap``: how much two runs' rankings differ (no qrels)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import click

from ranklens.cli._common import progress, write_output
from ranklens.cli._inputs import read_run_file
from ranklens.cli._options import Request, request_options

FORMATS = ("table", "json", "csv", "tsv")
DEFAULT = ("rbo(p=0.9)", "run_jaccard@10", "run_kendall_tau")


def _metric_names(given: Sequence[str], fmt: str) -> list[str]:
    from ranklens.cli._measures import split_measures

    named = [m for text in given for m in split_measures(text)]
    return named or list(DEFAULT)


def _pair(params: dict[str, Any]) -> tuple[str, ...]:
    return (params.pop("run_a"), params.pop("run_b"))


@click.command("overlap")
@click.argument("run_a", type=click.Path(dir_okay=False))
@click.argument("run_b", type=click.Path(dir_okay=False))
@click.option(
    "--ties",
    type=click.Choice(("trec", "input")),
    default="trec",
    show_default=True,
    help="Order of documents with equal scores: trec (document id descending) or input "
    "(the rows' order).",
)
@click.option(
    "--queries",
    type=click.Choice(("both", "either")),
    default="both",
    show_default=True,
    help="Compare the queries both runs rank, or every query either names (a missing "
    "ranking is an empty list).",
)
@click.option("-q", "--per-query", is_flag=True, help="Also print every query's values.")
@request_options(
    formats=FORMATS,
    expand=_metric_names,
    runs_of=_pair,
    store=False,
    qrels=False,
    conventions=False,
    metric_help="A run-to-run metric (repeatable): rbo(p=0.9), rbo(variant=min)@100, "
    "run_jaccard@10, run_kendall_tau(variant=c). Default: " + " ".join(DEFAULT) + ".",
)
def overlap_cmd(request: Request, ties: str, queries: str, per_query: bool) -> None:
    """Compare RUN_A's and RUN_B's rankings of the same queries: rank-biased overlap,
    Jaccard index of the top k, Kendall's tau of the scores.

    The same numbers as ranklens.compare_runs; 'ranklens metrics --family overlap'
    lists the metrics and their parameters.
    """
    from ranklens.ranking.overlap import compare_runs

    path_a, path_b = request.inputs.runs
    with progress(request.output.quiet):
        run_a = read_run_file(request, path_a)
        run_b = read_run_file(request, path_b)
        res = compare_runs(run_a, run_b, list(request.metrics), ties=ties, queries=queries)
    write_output(_render(res, request.output.fmt, per_query), request.output.path)


def _number(v: float) -> str:
    return "nan" if math.isnan(v) else f"{v:.6f}"


def _render(res: Any, fmt: str, per_query: bool) -> str:
    metrics = list(res.metrics)
    rows = [(q, [res.values[m][i] for m in metrics]) for i, q in enumerate(res.query_ids)]
    means = [res[m] for m in metrics]
    if fmt == "json":
        doc: dict[str, Any] = {
            "queries": len(res.query_ids),
            "summary": {
                m: (None if math.isnan(v) else v) for m, v in zip(metrics, means, strict=True)
            },
        }
        if per_query:
            doc["per_query"] = {
                q: {m: (None if math.isnan(v) else v) for m, v in zip(metrics, vals, strict=True)}
                for q, vals in rows
            }
        return json.dumps(doc, indent=1) + "\n"
    if fmt in ("csv", "tsv"):
        import csv
        import io

        buf = io.StringIO()
        out = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        out.writerow(["query", *metrics])
        if per_query:
            for q, vals in rows:
                out.writerow([q, *map(_number, vals)])
        out.writerow(["all", *map(_number, means)])
        return buf.getvalue()
    lines = [(q, list(map(_number, vals))) for q, vals in rows] if per_query else []
    lines.append((f"all ({len(res.query_ids)} queries)", list(map(_number, means))))
    head = ["query", *metrics]
    widths = [max(len(head[0]), *(len(q) for q, _ in lines))] + [
        max(len(m), *(len(v[j]) for _, v in lines)) for j, m in enumerate(metrics)
    ]
    text = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
    for q, vals in lines:
        cells = [q.ljust(widths[0]), *(v.rjust(w) for v, w in zip(vals, widths[1:], strict=True))]
        text.append("  ".join(cells))
    return "\n".join(text) + "\n"
