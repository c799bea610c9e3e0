"""Benchmark ir_measures' own measures in ranklens (``Judged@k``, ``Compat``) against
ir_measures 0.4, on the same data in one process.

Run from the repository root::

    python benchmarks/bench_irm.py                      # 10,000 queries x 100 documents
    python benchmarks/bench_irm.py --queries 1000 --repeat 1

Data: ``--queries`` queries of ``--docs`` documents with scores k/64 (ties), and
qrels of 30 documents per query (half of them retrieved) with grades -1..3.  Timed,
best of ``--repeat``, for each measure: ranklens ``evaluate(qrels, run, [measure],
profile="ir_measures")`` from built ``Qrels`` / ``Run`` objects, and ir_measures'
``calc_aggregate([measure], qrels, run)`` from ``{query: {doc: grade/score}}`` dicts
(building either input is not timed).  The two means must agree to 1e-9.  Peak
memory: ``tracemalloc``'s peak during one call of each.
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings
from typing import Any

import numpy as np

from _timing import best

MEASURES = ["Judged@10", "Judged@100", "Compat", "Compat(p=0.8,normalize=False)"]


def make_data(
    n_q: int, n_d: int, seed: int
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_q):
        docs = [f"d{j}" for j in rng.permutation(2 * n_d)[:n_d]]
        judged = [docs[j] for j in range(0, n_d, max(1, n_d // 15))][:15]
        judged += [f"u{j}" for j in range(15)]
        grades = rng.integers(-1, 4, size=len(judged))
        qrels[f"q{q}"] = {d: int(g) for d, g in sorted(zip(judged, grades, strict=True))}
        scores = rng.integers(1, 65, n_d) / 64
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


def peak(fn: Any) -> float:
    tracemalloc.start()
    fn()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import ir_measures

    import ranklens

    qrels_d, run_d = make_data(args.queries, args.docs, args.seed)
    qrels = ranklens.Qrels.from_dict(qrels_d)
    run = ranklens.Run.from_dict(run_d)
    print(f"{args.queries:,} queries x {args.docs} documents; best of {args.repeat}")
    print(
        f"{'measure':32} {'ranklens s':>10} {'ir_measures s':>13} {'ratio':>7} "
        f"{'MiB rl':>7} {'MiB irm':>8}"
    )
    for spec in MEASURES:
        measure = ir_measures.parse_measure(spec)

        def ours(spec: str = spec) -> float:
            res = ranklens.evaluate(qrels, run, [spec], profile="ir_measures")
            return float(res.summary()[spec])

        def theirs(measure: Any = measure) -> float:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return float(ir_measures.calc_aggregate([measure], qrels_d, run_d)[measure])

        t_ours, v_ours = best(ours, args.repeat)
        t_theirs, v_theirs = best(theirs, args.repeat)
        if abs(v_ours - v_theirs) > 1e-9:
            raise SystemExit(f"{spec}: ranklens {v_ours!r} != ir_measures {v_theirs!r}")
        print(
            f"{spec:32} {t_ours:10.3f} {t_theirs:13.3f} {t_theirs / t_ours:6.1f}x "
            f"{peak(ours):7.1f} {peak(theirs):8.1f}"
        )


if __name__ == "__main__":
    main()
