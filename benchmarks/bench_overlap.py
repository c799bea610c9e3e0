"""Benchmark the run-to-run measures (``rbo``, ``run_kendall_tau``, ``run_jaccard``).

Run from the repository root::

    python benchmarks/bench_overlap.py                               # 10,000 x 100
    python benchmarks/bench_overlap.py --rbo-python /tmp/cwlrbo-side/bin/python

Two runs of ``--queries`` queries x ``--docs`` documents (distinct scores; about 70%
of each run's documents shared with the other, in a shuffled order).  Timed, best of
``--repeat``:

* ranklens: ``ranklens.compare_runs(a, b, [metric])`` on built ``Run`` objects (join,
  ordering, kernel), per metric;
* ``scipy.stats.kendalltau`` (tau-b) on each query's common documents, in a loop, in
  this process;
* Python sets for the Jaccard index of the top 10, in this process;
* the ``rbo`` package's ``RankingSimilarity(a, b).rbo_ext(0.9)`` per query.  The
  package pins numpy<2 and cannot share this process's environment: with
  ``--rbo-python PY`` (a Python of the side environment, ``benchmarks/README.md``)
  the same lists are written to a temporary file and timed in a subprocess of that
  Python (only its loop over the queries is timed); without it the package's own
  algorithm is not timed.

Peak memory: ``tracemalloc``'s peak during one ranklens call.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import tracemalloc
import warnings
from typing import Any

import numpy as np

from _timing import best

RBO_SCRIPT = """
import json, sys, time
from rbo import RankingSimilarity
lists = json.load(open(sys.argv[1]))
best = None
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    out = [RankingSimilarity(a, b).rbo_ext(0.9) for a, b in lists]
    t = time.perf_counter() - t
    best = t if best is None else min(best, t)
print(json.dumps({"seconds": best, "values": out}))
"""


def data(nq: int, nd: int, seed: int) -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    a_lists, b_lists = [], []
    for _ in range(nq):
        a = [f"d{j}" for j in rng.permutation(nd)]
        shared = rng.choice(a, size=int(0.7 * nd), replace=False).tolist()
        b = shared + [f"e{j}" for j in range(nd - len(shared))]
        b = [b[i] for i in rng.permutation(nd)]
        a_lists.append(a)
        b_lists.append(b)
    return a_lists, b_lists


def as_run(lists: list[list[str]]) -> Any:
    import ranklens as rl

    nd = len(lists[0]) if lists else 0
    q = np.repeat([f"q{i}" for i in range(len(lists))], nd)
    d = np.concatenate([np.array(x) for x in lists]) if lists else np.array([])
    s = np.tile(np.arange(nd, 0, -1, dtype=np.float64), len(lists))
    return rl.Run.from_arrays(q, d, s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rbo-python", default=None, help="Python of the side environment")
    args = ap.parse_args()

    from scipy import stats

    import ranklens as rl

    a_lists, b_lists = data(args.queries, args.docs, args.seed)
    run_a, run_b = as_run(a_lists), as_run(b_lists)
    print(f"run to run: {args.queries:,} queries x {args.docs} documents")

    def ours(metric: str) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rl.RanklensWarning)
            return rl.compare_runs(run_a, run_b, [metric])

    results = {}
    for metric in ("rbo(p=0.9)", "run_kendall_tau", "run_jaccard@10"):
        t, res = best(lambda m=metric: ours(m), args.repeat)
        tracemalloc.start()
        ours(metric)
        mem = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        results[metric] = (t, res)
        print(f"  ranklens {metric:<18} {t:8.3f} s   peak {mem:7.1f} MiB")

    score_a = [{d: float(len(x) - i) for i, d in enumerate(x)} for x in a_lists]
    score_b = [{d: float(len(x) - i) for i, d in enumerate(x)} for x in b_lists]

    def scipy_tau() -> list[float]:
        out = []
        for sa, sb in zip(score_a, score_b, strict=True):
            common = sorted(set(sa) & set(sb))
            out.append(stats.kendalltau([sa[d] for d in common], [sb[d] for d in common])[0])
        return out

    t_tau, tau = best(scipy_tau, 1)
    ratio = t_tau / results["run_kendall_tau"][0]
    print(
        f"  scipy.stats.kendalltau loop   {t_tau:8.3f} s   ratio {ratio:.1f}x"
        f"   max |diff| {_diff(tau, results['run_kendall_tau'][1], 'run_kendall_tau'):.1e}"
    )

    def sets() -> list[float]:
        return [
            len(set(a[:10]) & set(b[:10])) / len(set(a[:10]) | set(b[:10]))
            for a, b in zip(a_lists, b_lists, strict=True)
        ]

    t_set, jac = best(sets, args.repeat)
    print(
        f"  Python sets Jaccard@10        {t_set:8.3f} s   ratio "
        f"{t_set / results['run_jaccard@10'][0]:.1f}x   max |diff| "
        f"{_diff(jac, results['run_jaccard@10'][1], 'run_jaccard@10'):.1e}"
    )

    if args.rbo_python:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(list(zip(a_lists, b_lists, strict=True)), f)
            path = f.name
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(RBO_SCRIPT)
            script = f.name
        try:
            out = subprocess.run(
                [args.rbo_python, script, path, str(args.repeat)],
                capture_output=True,
                text=True,
                check=True,
            )
        finally:
            os.unlink(path)
            os.unlink(script)
        peer = json.loads(out.stdout.strip().splitlines()[-1])
        t_rbo = peer["seconds"]
        print(
            f"  rbo package rbo_ext loop      {t_rbo:8.3f} s   ratio "
            f"{t_rbo / results['rbo(p=0.9)'][0]:.1f}x   max |diff| "
            f"{_diff(peer['values'], results['rbo(p=0.9)'][1], 'rbo(p=0.9)'):.1e}  "
            "(side environment)"
        )
    else:
        print("  rbo package: not timed (pass --rbo-python PY, a Python with rbo installed)")


def _diff(values: list[float], res: Any, metric: str) -> float:
    """The largest difference between a peer's values (query i at index i) and ours."""
    ours = res.per_query(metric)
    return float(np.nanmax(np.abs([v - ours[f"q{i}"] for i, v in enumerate(values)])))


if __name__ == "__main__":
    main()
