"""Evaluate the example run shipped inside the package.

``python -m ranklens.cli.example`` prints a few standard metrics of a small
TREC-style run, query by query and their means, so that a fresh install can
be checked with nothing else on the machine.
"""

from __future__ import annotations

from importlib import resources

from ranklens.io import read_trec_qrels, read_trec_run
from ranklens.ranking.evaluation import Result, evaluate

__all__ = ["DEFAULT_METRICS", "example_files", "main", "run_example"]

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "r@100", "ndcg(gain=exp2)@10", "bpref")


def example_files() -> tuple[str, str]:
    """The paths of the bundled example qrels and run (inside the installed package)."""
    base = resources.files("ranklens") / "_example_data"
    return str(base / "example.qrels"), str(base / "example.run")


def run_example() -> Result:
    """Evaluate the bundled example run against the bundled qrels."""
    base = resources.files("ranklens") / "_example_data"
    with (
        resources.as_file(base / "example.qrels") as q,
        resources.as_file(base / "example.run") as r,
    ):
        qrels = read_trec_qrels(q)
        run = read_trec_run(r)
    return evaluate(qrels, run, DEFAULT_METRICS)


def main() -> None:
    """Print the example run's mean and per-query values (the table renderer's)."""
    from ranklens.render.report import render

    res = run_example()
    print(f"run {res.run_name!r}: {len(res.query_ids)} queries")
    print(render(res, "table", per_query=True), end="")


if __name__ == "__main__":
    main()
