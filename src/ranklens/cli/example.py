"""Evaluate the example run shipped inside the package.

``python -m ranklens.cli.example`` prints the mean of a few standard metrics and
the per-query nDCG@10 of a small TREC-style run, so that a fresh install can
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
    with resources.as_file(base / "example.qrels") as q, resources.as_file(
        base / "example.run"
    ) as r:
        qrels = read_trec_qrels(q)
        run = read_trec_run(r)
    return evaluate(qrels, run, DEFAULT_METRICS)


def main() -> None:
    res = run_example()
    print(f"run {res.run_name!r}: {len(res.query_ids)} queries")
    width = max(map(len, res.metrics))
    for metric, value in res.summary().items():
        print(f"{metric:<{width}}  {value:.4f}")
    print("\nper-query ndcg@10:")
    for query, value in res.per_query("ndcg@10").items():
        print(f"  {query:<6} {value:.4f}")


if __name__ == "__main__":
    main()
