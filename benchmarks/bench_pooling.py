"""Benchmark ranklens' pooling (``ranklens.judging.pool``) against trectools'
``TrecPoolMaker.make_pool``, and time the sampling of the pool.

Run from the repository root::

    python benchmarks/bench_pooling.py                     # 10,000 queries x 100 docs x 3 runs
    python benchmarks/bench_pooling.py --queries 1000 --runs 5 --repeat 1

Synthetic runs: ``--runs`` runs of ``--queries`` queries x ``--docs`` documents drawn
from 3 x ``--docs`` candidates per query, scores rounded to 2 decimals (ties).  Both
libraries get already built objects (ranklens ``Run``; trectools ``TrecRun`` loaded
from the same frame and sorted as its file reader sorts), and do the same work: the
pools of every strategy (``topX`` 10 / ``depth``; ``rrf`` and ``rbp`` top 10), under
trectools' order (``ties="trectools"``), checked equal.  trectools' ``topX`` filters
the whole run once per query and run (quadratic): it is timed on ``--topx-queries``
queries (default 1,000), ranklens on the same.  Wall-clock, best of ``--repeat``;
peak memory (tracemalloc) of one call each.  The sampling rows (ranklens only; no
peer has it) time ``sample_pool`` of the depth-10 pool (uniform and AP-prior).
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings
from typing import Any

import numpy as np

from _timing import best


def _frames(n_q: int, n_d: int, n_runs: int, seed: int) -> list[Any]:
    import pandas as pd

    rng = np.random.default_rng(seed)
    out = []
    for j in range(n_runs):
        q = np.repeat(np.arange(n_q), n_d)
        d = (rng.random((n_q, 3 * n_d)).argsort(axis=1)[:, :n_d]).reshape(-1)
        s = np.round(rng.random(n_q * n_d), 2)
        df = pd.DataFrame(
            {"query": q.astype(str), "q0": "Q0", "docid": [f"d{x}" for x in d], "score": s,
             "system": f"r{j}"}
        )  # fmt: skip
        df = df.sort_values(["query", "score", "docid"], ascending=[True, False, True])
        df["rank"] = df.groupby("query").cumcount() + 1
        out.append(df.reset_index(drop=True))
    return out


def _peak(fn: Any) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--topx-queries", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import trectools

    from ranklens import Run
    from ranklens.judging import pool, sample_pool

    def build(n_q: int) -> tuple[list[Run], list[Any]]:
        frames = _frames(n_q, args.docs, args.runs, args.seed)
        ours = [
            Run.from_arrays(f["query"], f["docid"], f["score"], name=f"r{j}")
            for j, f in enumerate(frames)
        ]
        theirs = []
        for f in frames:
            r = trectools.TrecRun()
            r.load_run_from_dataframe(f)
            theirs.append(r)
        return ours, theirs

    maker = trectools.TrecPoolMaker()
    print(
        f"{args.runs} runs x {args.queries:,} queries x {args.docs} docs "
        f"(topX: {args.topx_queries:,} queries)"
    )
    print(
        f"{'case':<22}{'ranklens s':>12}{'trectools s':>13}{'ratio':>9}"
        f"{'MiB ours':>10}{'MiB theirs':>12}"
    )
    cases = [
        ("topX 10", args.topx_queries, {"strategy": "topX", "topX": 10}, {"strategy": "depth"}),
        ("rrf top 10", args.queries, {"strategy": "rrf", "topX": 10}, {"strategy": "rrf"}),
        (
            "rbp(0.8) sum top 10",
            args.queries,
            {"strategy": "rbp", "topX": 10},
            {"strategy": "rbp"},
        ),
    ]
    built: dict[int, tuple[list[Run], list[Any]]] = {}
    for label, n_q, kw_t, kw_o in cases:
        if n_q not in built:
            built[n_q] = build(n_q)
        ours, theirs = built[n_q]

        def run_ours(ours: list[Run] = ours, kw: dict[str, Any] = kw_o) -> Any:
            return pool(ours, 10, ties="trectools", **kw)

        def run_theirs(theirs: list[Any] = theirs, kw: dict[str, Any] = kw_t) -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return maker.make_pool(theirs, **kw)

        t_o, p_o = best(run_ours, args.repeat)
        t_t, p_t = best(run_theirs, 1 if label.startswith("topX") else args.repeat)
        same = {q: d for q, d in p_o.to_dict().items() if d} == {
            str(q): set(d) for q, d in p_t.pool.items()
        }
        m_o, m_t = _peak(run_ours), _peak(run_theirs)
        print(
            f"{label:<22}{t_o:>12.3f}{t_t:>13.3f}{t_t / t_o:>8.1f}x{m_o:>10.0f}{m_t:>12.0f}"
            f"  {'same pools' if same else 'POOLS DIFFER'}"
        )
    ours, _ = built[args.queries]
    deep = pool(ours, 10)
    for design in ("uniform", "apprior"):
        t, s = best(
            lambda d=design: sample_pool(deep, 5, design=d, judged_depth=1, seed=1), args.repeat
        )
        print(f"sample {design:<15}{t:>12.3f}   ({len(s):,} of {len(deep):,} pooled documents)")


if __name__ == "__main__":
    main()
