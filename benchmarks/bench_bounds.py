"""Benchmark "how far to trust a metric" (issue 26, part 3) against its peers.

Run from the repository root::

    python benchmarks/bench_bounds.py                           # defaults below
    python benchmarks/bench_bounds.py --clusters 10000 --size 100 --sampled 500

* Sampled entity-resolution estimates: a population of ``--clusters`` true clusters of
  ``--size`` records each (10,000 x 100 = 1M records; a noisy prediction that splits and
  merges records), a sample of ``--sampled`` whole clusters; ranklens'
  ``entity_resolution.sampled_estimates`` (all four estimates with standard errors, one
  call) against er-evaluation's four estimators (``pairwise_precision_estimator``,
  ``pairwise_recall_estimator``, ``b_cubed_precision_estimator``,
  ``b_cubed_recall_estimator``), same data in one process; the largest difference of
  the estimates and standard errors is printed.
* Unjudged bounds: ``ranklens.judged_bounds`` on ``--queries`` x 100 documents with
  half of them unjudged, against three plain ``ranklens.evaluate`` calls (its floor).
* Offline power: ``topic_set_size`` and ``minimum_detectable_difference`` against
  statsmodels' ``TTestPower().solve_power``.

Times are the best of ``--repeat``; peak memory is what each call allocates
(``tracemalloc``).  Not run by the tests or CI.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any, float]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, out, peak


def bench_er(clusters: int, size: int, sampled: int, repeat: int) -> None:
    import pandas as pd
    from er_evaluation import estimators as ee

    from ranklens.entity_resolution import sampled_estimates

    rng = np.random.default_rng(0)
    t = np.repeat(np.arange(clusters), size)
    n = len(t)
    p = t.copy()
    split = rng.random(n) < 0.1
    p[split] = clusters + np.arange(int(split.sum()))
    merge = rng.random(n) < 0.05
    p[merge] = rng.integers(0, clusters, int(merge.sum()))
    chosen = np.sort(rng.choice(clusters, sampled, replace=False))
    recs = np.flatnonzero(np.isin(t, chosen))
    labels = t[recs]
    ours_t, ours, ours_mem = _best(lambda: sampled_estimates(p, recs, labels), repeat)
    prediction = pd.Series(p, index=np.arange(n))
    sample = pd.Series(labels, index=recs)
    fns = {
        "pairwise_precision": ee.pairwise_precision_estimator,
        "pairwise_recall": ee.pairwise_recall_estimator,
        "bcubed_precision": ee.b_cubed_precision_estimator,
        "bcubed_recall": ee.b_cubed_recall_estimator,
    }

    def peer() -> dict[str, tuple[float, float]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {k: f(prediction, sample, "uniform") for k, f in fns.items()}

    peer_t, theirs, peer_mem = _best(peer, 1)
    diff = max(
        max(abs(ours[k]["estimate"] - theirs[k][0]), abs(ours[k]["std_error"] - theirs[k][1]))
        for k in fns
    )
    print(
        f"sampled ER estimates, {n:,} records, {sampled:,} of {clusters:,} clusters sampled: "
        f"ranklens {ours_t:.3f} s ({ours_mem:.0f} MiB), er-evaluation {peer_t:.3f} s "
        f"({peer_mem:.0f} MiB): {peer_t / ours_t:.1f}x; largest difference {diff:.2e}"
    )


def bench_bounds(queries: int, repeat: int) -> None:
    import ranklens as rl

    rng = np.random.default_rng(1)
    docs = 100
    q = np.repeat(np.arange(queries), docs).astype(str)
    d = np.tile(np.arange(docs), queries).astype(str)
    judged = rng.random(len(q)) < 0.5
    qrels = rl.Qrels.from_arrays(q[judged], d[judged], rng.integers(0, 3, int(judged.sum())))
    run = rl.Run.from_arrays(q, d, rng.random(len(q)))
    metrics = ["p@10", "ndcg@10", "map", "rbp(p=0.8)"]
    bt, _, bmem = _best(lambda: rl.judged_bounds(qrels, run, metrics), repeat)
    et, _, _ = _best(lambda: rl.evaluate(qrels, run, metrics), repeat)
    print(
        f"judged_bounds, {queries:,} queries x {docs} docs (half unjudged), 4 metrics: "
        f"{bt:.3f} s ({bmem:.0f} MiB); one evaluate {et:.3f} s: {bt / et:.1f}x one evaluate "
        "(three evaluations, two fills and the RBP residual)"
    )


def bench_power(repeat: int) -> None:
    from statsmodels.stats.power import TTestPower

    from ranklens.comparison import minimum_detectable_difference, topic_set_size

    diffs = np.random.default_rng(2).normal(0.01, 0.15, 50)
    sd = float(np.std(diffs, ddof=1))
    ot, _, _ = _best(
        lambda: (topic_set_size(diffs, delta=0.02), minimum_detectable_difference(diffs)), repeat
    )
    tp = TTestPower()
    pt, _, _ = _best(
        lambda: (
            tp.solve_power(effect_size=0.02 / sd, alpha=0.05, power=0.8),
            tp.solve_power(nobs=50, alpha=0.05, power=0.8),
        ),
        repeat,
    )
    print(f"topic set size + MDD: ranklens {ot * 1e3:.1f} ms, statsmodels {pt * 1e3:.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clusters", type=int, default=10_000)
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--sampled", type=int, default=200)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    bench_er(args.clusters, args.size, args.sampled, args.repeat)
    bench_bounds(args.queries, args.repeat)
    bench_power(args.repeat)


if __name__ == "__main__":
    main()
