"""Benchmark run fusion: ``ranklens.fusion.fuse`` against ranx's ``fuse``.

Run from the repository root::

    python benchmarks/bench_fusion.py                      # 10,000 queries x 100 docs x 3 runs
    python benchmarks/bench_fusion.py --queries 1000 --quick

Both libraries fuse the same three runs (each ranks ``--docs`` of ``1.5 * --docs``
documents per query, so the runs overlap but differ; rows in rank order, as run
files come, or in random order with ``--unranked``) with the same method and
normalisation; both start from their own run objects, built before the timing
(``ranklens.Run.from_frame``; ``ranx.Run.from_df``).  ranx's numba functions are
compiled by a warm-up on 50 queries before anything is timed, so the JIT is *not*
counted.  Timed: wall clock, best of ``--repeat`` calls.  Peak memory: the rise of
the process's peak RSS during one call (Linux ``/proc/self/clear_refs``), per
library.  Also checks that the two fused runs agree (every score to 1e-9).
"""

from __future__ import annotations

import argparse
import gc
import math
import warnings
from typing import Any

import numpy as np

from _timing import best

CASES = [  # (method, norm, params)
    ("sum", "min-max", {}),
    ("mnz", "zmuv", {}),
    ("rrf", "min-max", {"k": 60}),
    ("wsum", "min-max", {"weights": [0.5, 0.3, 0.2]}),
    ("bordafuse", "min-max", {}),
    ("isr", "max", {}),
    ("max", "sum", {}),
    ("posfuse", "min-max", "trained"),
]


def _status_kb(field_name: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return 0


def _peak_mb(fn: Any) -> float:
    """The rise of the peak RSS (MB) while ``fn`` runs."""
    gc.collect()
    base = _status_kb("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return float("nan")
    fn()
    return (_status_kb("VmHWM") - base) / 1024


def _objects(df: Any) -> Any:
    """ranx wants object-dtype id columns (pandas 3 infers its string dtype)."""
    for col in ("q_id", "doc_id"):
        df[col] = df[col].astype(object)
    return df


def make_frames(
    n_queries: int, n_docs: int, seed: int, ranked: bool = True
) -> tuple[Any, list[Any]]:
    """Three runs (``ranked``: each query's rows in rank order, as run files come)
    and qrels judging the first run's documents 0 or 1."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    pool = int(n_docs * 1.5)
    q = np.repeat(np.array([f"q{i}" for i in range(n_queries)], dtype=object), n_docs)
    frames = []
    for _ in range(3):
        docs = np.argsort(rng.random((n_queries, pool)), axis=1)[:, :n_docs].ravel()
        d = np.array([f"d{j}" for j in range(pool)], dtype=object)[docs]
        # distinct scores: ranx's sort of a ranking of more than 15 documents is not
        # stable, so tied scores would rank differently there (see ranklens.fusion.fuse)
        score = rng.random((n_queries, n_docs))
        if ranked:
            score = -np.sort(-score, axis=1)
        frames.append(_objects(pd.DataFrame({"q_id": q, "doc_id": d, "score": score.ravel()})))
    rel = rng.integers(0, 2, q.size)
    qrels = _objects(
        pd.DataFrame({"q_id": q, "doc_id": frames[0]["doc_id"].to_numpy(), "score": rel})
    )
    return qrels, frames


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one repeat, no memory")
    ap.add_argument("--methods", default=None, help="comma-separated subset of the methods")
    ap.add_argument(
        "--unranked", action="store_true", help="rows of a query in random order, not ranked"
    )
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat
    warnings.simplefilter("ignore")

    import ranx

    import ranklens
    from ranklens.fusion import fuse, train_fusion

    qrels_df, frames = make_frames(args.queries, args.docs, 0, ranked=not args.unranked)
    cols = {"query": "q_id", "doc": "doc_id"}
    ours = [ranklens.Run.from_frame(f, **cols, score="score") for f in frames]
    our_qrels = ranklens.Qrels.from_frame(qrels_df, **cols, relevance="score")
    theirs = [
        ranx.Run.from_df(f, q_id_col="q_id", doc_id_col="doc_id", score_col="score") for f in frames
    ]
    their_qrels = ranx.Qrels.from_df(
        qrels_df, q_id_col="q_id", doc_id_col="doc_id", score_col="score"
    )

    # warm-up: compile ranx's numba functions (not timed)
    small_q, small = make_frames(50, 10, 1)
    small_runs = [
        ranx.Run.from_df(f, q_id_col="q_id", doc_id_col="doc_id", score_col="score") for f in small
    ]
    small_qrels = ranx.Qrels.from_df(
        small_q, q_id_col="q_id", doc_id_col="doc_id", score_col="score"
    )
    cases = [c for c in CASES if args.methods is None or c[0] in args.methods.split(",")]
    for method, norm, params in cases:
        p = params
        if params == "trained":
            p = ranx.optimize_fusion(small_qrels, small_runs, norm=norm, method=method)
        ranx.fuse(small_runs, norm=norm, method=method, params=p)

    rows = 3 * args.queries * args.docs
    print(f"{args.queries:,} queries x {args.docs} docs x 3 runs ({rows:,} rows); "
          f"best of {repeat}; ranx's JIT warm-up excluded")  # fmt: skip
    print(f"{'method':<10} {'norm':<8} {'ranklens s':>10} {'ranx s':>8} {'ratio':>6} "
          f"{'ranklens MB':>11} {'ranx MB':>8}  agree")  # fmt: skip
    for method, norm, params in cases:
        if params == "trained":
            ours_p = train_fusion(our_qrels, ours, method, norm)
            theirs_p = ranx.optimize_fusion(their_qrels, theirs, norm=norm, method=method)
        else:
            ours_p = theirs_p = params

        def run_ours(m: str = method, n: str = norm, p: Any = ours_p) -> Any:
            return fuse(ours, m, n, p)

        def run_ranx(m: str = method, n: str = norm, p: Any = theirs_p) -> Any:
            return ranx.fuse(theirs, norm=n, method=m, params=p)

        t_ours, fused_ours = best(run_ours, repeat)
        t_ranx, fused_ranx = best(run_ranx, repeat)
        mem_ours = mem_ranx = float("nan")
        if not args.quick:
            mem_ours, mem_ranx = _peak_mb(run_ours), _peak_mb(run_ranx)
        a, b = fused_ours.to_dict(), fused_ranx.to_dict()
        agree = a.keys() == b.keys() and all(
            a[q].keys() == b[q].keys()
            and all(math.isclose(a[q][d], b[q][d], rel_tol=1e-9, abs_tol=1e-12) for d in a[q])
            for q in a
        )
        print(f"{method:<10} {norm:<8} {t_ours:>10.3f} {t_ranx:>8.3f} {t_ranx / t_ours:>5.1f}x "
              f"{mem_ours:>11.0f} {mem_ranx:>8.0f}  {'yes' if agree else 'NO'}")  # fmt: skip


if __name__ == "__main__":
    main()
