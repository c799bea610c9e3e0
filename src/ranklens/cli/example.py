"""``ranklens example``: evaluate the example run shipped inside the package.

``python -m ranklens.cli.example`` prints a few standard metrics of a small
TREC-style run, query by query and their means, so that a fresh install can
be checked with nothing else on the machine.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from importlib import resources
from typing import Any

import click

from ranklens.cli._common import write_output
from ranklens.cli._options import format_option

__all__ = ["DEFAULT_METRICS", "example_cmd", "example_files", "main", "run_example"]

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "r@100", "ndcg(gain=exp2)@10", "bpref")


def example_files() -> tuple[str, str]:
    """The paths of the bundled example qrels and run (inside the installed package)."""
    base = resources.files("ranklens") / "_example_data"
    return str(base / "example.qrels"), str(base / "example.run")


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
        qrels, run = example_files()
        files = f"{shlex.quote(qrels)} {shlex.quote(run)}"
        me = command_name()
        click.echo(
            f"\nThe example files: {qrels}\n                   {run}\n"
            "Try next:\n"
            f"  {me} evaluate {files} -m ndcg@10 -m P.5 -q\n"
            f"  {me} evaluate {files} -m all_trec --format trec\n"
            f"  {me} metrics            (every metric, its definition and parameters)"
        )


def main() -> None:
    """Print the example run's mean and per-query values (the table renderer's)."""
    from ranklens.render.report import render

    res = run_example()
    print(f"run {res.run_name!r}: {len(res.query_ids)} queries")
    print(render(res, "table", per_query=True), end="")


if __name__ == "__main__":
    main()
