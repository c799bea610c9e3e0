"""``ranklens example``: evaluate the example run shipped inside the package.

``python -m ranklens.cli.example`` prints a few standard metrics of a small
TREC-style run, query by query and their means, so that a fresh install can
be checked with nothing else on the machine.

The package ships one qrels file (8 queries) and two runs on it: ``example.run``
(tag ``example_bm25``) and ``example_rerank.run`` (tag ``example_rerank``, a re-ranking
of the same 20 documents per query, better on some queries and worse on others), so
that ``compare``, ``gate`` and ``report`` can be tried on bundled data.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from importlib import resources
from importlib.util import find_spec
from typing import Any, NamedTuple

import click

from ranklens.cli._common import write_output
from ranklens.cli._options import format_option

__all__ = [
    "DEFAULT_METRICS",
    "ExampleFiles",
    "example_cmd",
    "example_files",
    "example_paths",
    "main",
    "run_example",
]

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "r@100", "ndcg(gain=exp2)@10", "bpref")


class ExampleFiles(NamedTuple):
    """The paths of the bundled example files (inside the installed package)."""

    qrels: str
    run: str  # example_bm25
    rerank: str  # example_rerank: a second system on the same queries


def example_paths() -> ExampleFiles:
    """The paths of the bundled example qrels and its two runs."""
    base = resources.files("ranklens") / "_example_data"
    return ExampleFiles(
        str(base / "example.qrels"), str(base / "example.run"), str(base / "example_rerank.run")
    )


def example_files() -> tuple[str, str]:
    """The paths of the bundled example qrels and run (the first run; :func:`example_paths`
    has the second too)."""
    paths = example_paths()
    return paths.qrels, paths.run


def run_example() -> Any:
    """Evaluate the bundled example run against the bundled qrels (a Result)."""
    from ranklens import evaluate
    from ranklens.io import read_trec_qrels, read_trec_run

    base = resources.files("ranklens") / "_example_data"
    with (
        resources.as_file(base / "example.qrels") as q,
        resources.as_file(base / "example.run") as r,
    ):
        qrels = read_trec_qrels(q)
        run = read_trec_run(r)
    return evaluate(qrels, run, DEFAULT_METRICS)


def command_name() -> str:
    """How to run ``ranklens`` from a shell here: ``ranklens`` when that is this program
    on PATH, else the path of the running executable (a venv not activated), else
    ``python -m ranklens``."""
    argv0 = sys.argv[0] if sys.argv else ""
    here = os.path.realpath(argv0) if os.path.basename(argv0) == "ranklens" else None
    found = shutil.which("ranklens")
    if here is not None:
        if found is not None and os.path.realpath(found) == here:
            return "ranklens"
        return shlex.quote(os.path.abspath(argv0))
    if found is not None:
        return "ranklens"
    return f"{shlex.quote(sys.executable)} -m ranklens"


def _report_formats() -> tuple[str, ...]:
    from ranklens.render.report import FORMATS

    return tuple(FORMATS)


@click.command("example")
@format_option(_report_formats())
def example_cmd(fmt: str) -> None:
    """Evaluate the example run shipped with ranklens (checks an installation)."""
    from ranklens.render.report import render

    write_output(render([run_example()], fmt), None)
    if fmt == "table":  # the data formats stay machine-readable
        click.echo(_try_next(example_paths(), command_name()))


def _try_next(paths: ExampleFiles, me: str) -> str:
    """Where the example files are, and commands on them that run as printed (what
    follows a ``#`` is a shell comment)."""
    qrels, run, rerank = (shlex.quote(p) for p in paths)
    stats = all(find_spec(name) is not None for name in ("scipy", "statsmodels"))
    needs = "" if stats else "  # compare and report need: pip install 'ranklens[stats]'\n"
    return (
        f"\nThe example files: {paths.qrels}\n"
        f"                   {paths.run}\n"
        f"                   {paths.rerank}   (a second system)\n"
        "Try next:\n"
        f"  {me} evaluate {qrels} {run} -m ndcg@10 -m P.5 -q\n"
        f"  {me} evaluate {qrels} {run} -m all_trec --format trec\n"
        f"{needs}"
        f"  {me} compare {qrels} {run} {rerank} -m ndcg@10 -m map\n"
        f"  {me} gate {qrels} {rerank} --baseline {run} --max-drop ndcg@10=0.02\n"
        f"  {me} report {qrels} {run} {rerank} -m ndcg@10 -m map -o example.html\n"
        f"  {me} metrics  # every metric, its definition and parameters"
    )


def main() -> None:
    """Print the example run's mean and per-query values (the table renderer's)."""
    from ranklens.render.report import render

    res = run_example()
    print(f"run {res.run_name!r}: {len(res.query_ids)} queries")
    print(render(res, "table", per_query=True), end="")


if __name__ == "__main__":
    main()
