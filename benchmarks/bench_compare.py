"""Benchmark the randomisation test of ``ranklens.compare`` against ranx's ``compare``.

Run from the repository root::

    python benchmarks/bench_compare.py                       # 5 systems x 10,000 queries
    python benchmarks/bench_compare.py --queries 2000 --permutations 2000 --quick

Both libraries get the same qrels and runs (``--docs`` documents per query)
and do the same work: every pair of the systems (10 pairs for 5 systems)
tested with Fisher's randomisation test on one metric (ndcg@10) with
``--permutations`` sign flips.  Timed:

* ``ranx.compare(qrels, runs, ["ndcg@10"], stat_test="fisher", ...)`` (after a
  warm-up on small data so numba compilation is not counted);
* ``ranklens.compare(qrels, runs, ["ndcg@10"], baseline=None,
  test="randomization", correction="none", ...)`` end to end (evaluation,
  tests, t intervals);
* ranklens's test alone on the per-query values (one 10,000 x 10 matrix of
  differences).

Wall-clock, best of ``--repeat`` runs.  Also checks that both libraries'
p-values agree within Monte-Carlo error.
"""

from __future__ import annotations

import argparse
import math
import os
import warnings
from typing import Any

import numpy as np

from _timing import best


def _objects(df: Any) -> Any:
    """ranx wants object-dtype id columns (pandas may infer its string dtype)."""
    for col in ("q_id", "doc_id"):
        df[col] = df[col].astype(object)
    return df


def make_data(n_queries: int, n_docs: int, n_systems: int, seed: int) -> tuple[Any, ...]:
    import pandas as pd

    rng = np.random.default_rng(seed)
    q = np.repeat(np.array([f"q{i}" for i in range(n_queries)], dtype=object), n_docs)
    d = np.tile(np.array([f"d{j}" for j in range(n_docs)], dtype=object), n_queries)
    rel = rng.integers(0, 3, q.size)
    qrels = _objects(pd.DataFrame({"q_id": q, "doc_id": d, "score": rel}))
    runs = []
    for s in range(n_systems):
        noise = 1.5 + 0.1 * s
        score = rel + rng.normal(0, noise, q.size)
        runs.append((f"sys{s}", _objects(pd.DataFrame({"q_id": q, "doc_id": d, "score": score}))))
    return qrels, runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--systems", type=int, default=5)
    ap.add_argument("--permutations", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one repeat")
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat

    import ranx

    import ranklens
    from ranklens.comparison import compare, randomization_test

    qrels_df, run_dfs = make_data(args.queries, args.docs, args.systems, 0)
    qrels = ranklens.Qrels.from_frame(qrels_df, query="q_id", doc="doc_id", relevance="score")
    runs = {
        n: ranklens.Run.from_frame(df, query="q_id", doc="doc_id", score="score", name=n)
        for n, df in run_dfs
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rq = ranx.Qrels.from_df(qrels_df, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        rruns = []
        for n, df in run_dfs:
            r = ranx.Run.from_df(df, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
            r.name = n
            rruns.append(r)
        # warm-up: numba compiles ranx's kernels on first use
        small_q, small_r = make_data(50, 5, 2, 1)
        wq = ranx.Qrels.from_df(small_q, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        wr = [
            ranx.Run.from_df(df, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
            for _, df in small_r
        ]
        for i, r in enumerate(wr):
            r.name = f"w{i}"
        ranx.compare(wq, wr, ["ndcg@10"], stat_test="fisher", n_permutations=100)

        t_ranx, report = best(
            lambda: ranx.compare(
                rq,
                rruns,
                ["ndcg@10"],
                stat_test="fisher",
                n_permutations=args.permutations,
                random_seed=42,
            ),
            repeat,
        )
    t_rl, cmp = best(
        lambda: compare(
            qrels,
            runs,
            ["ndcg@10"],
            baseline=None,
            test="randomization",
            correction="none",
            n_resamples=args.permutations,
            seed=42,
        ),
        repeat,
    )

    vals = np.column_stack(
        [ranklens.evaluate(qrels, r, ["ndcg@10"]).values["ndcg@10"] for r in runs.values()]
    )
    S = vals.shape[1]
    pairs = [(i, j) for i in range(S) for j in range(i + 1, S)]
    diffs = np.column_stack([vals[:, j] - vals[:, i] for i, j in pairs])
    t_kernel, _ = best(lambda: randomization_test(diffs, args.permutations, seed=42), repeat)

    # agreement of p-values (Monte-Carlo error of two independent estimates)
    worst = 0.0
    for p in cmp.pairs:
        pr = report.comparisons[p.other, p.system]["ndcg@10"]["p_value"]
        se = math.sqrt(
            max(p.p_value * (1 - p.p_value), 1 / args.permutations) * 2 / args.permutations
        )
        worst = max(worst, abs(pr - p.p_value) / se)

    print(
        f"data: {args.systems} systems x {args.queries} queries x {args.docs} docs, "
        f"{len(pairs)} pairs, {args.permutations} permutations, ndcg@10; "
        f"{os.cpu_count()} CPUs"
    )
    print(f"ranx.compare (fisher, numba)            {t_ranx:8.3f} s")
    print(
        f"ranklens.compare (randomization, e2e)   {t_rl:8.3f} s   "
        f"ratio ranx/ranklens {t_ranx / t_rl:6.1f}x"
    )
    print(
        f"ranklens randomization_test (kernel)    {t_kernel:8.3f} s   "
        f"ratio ranx/kernel {t_ranx / t_kernel:6.1f}x"
    )
    print(f"largest p-value gap ranx vs ranklens: {worst:.2f} Monte-Carlo SEs")


if __name__ == "__main__":
    main()
