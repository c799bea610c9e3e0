"""trec_eval's preference mode: all fourteen ``prefs_*`` measures, ranklens vs trec_eval.

Generates ``--queries`` queries, each with three judgment groups of ``--judged``
documents (levels 0-3, one sub-group) and one judgment group of three sub-groups
(transitive preferences), and a run of ``--depth`` documents per query with tied
scores; times :func:`ranklens.ranking.prefs.evaluate_prefs` on the columns in
memory (best of ``--repeat``; peak traced memory) and trec_eval 10 (``-q -c -m
all_prefs -R prefs``, no Python package implements the preference measures) on the
same files, and checks that every printed line agrees.  trec_eval runs as a separate
process (reading its files included: that is the only way to call it)::

    python benchmarks/bench_trecmodes.py --trec-eval /tmp/trec_eval_src/trec_eval
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from _timing import best
from ranklens.io.prefs import read_prefs
from ranklens.ranking.prefs import evaluate_prefs


def _write(tmp: Path, queries: int, judged: int, depth: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    prefs, run = [], []
    for q in range(queries):
        pool = rng.choice(4 * depth, size=max(judged * 2, depth), replace=False)
        for jg in ("a", "b", "c"):
            for d in rng.choice(pool, size=judged, replace=False):
                prefs.append(f"q{q} {jg} 0 d{d} {rng.integers(0, 4)}")
        hidden = {int(d): float(rng.random()) for d in pool}
        for jsg in ("s1", "s2", "s3"):
            for d in rng.choice(pool, size=max(judged // 3, 2), replace=False):
                u = hidden[int(d)]
                prefs.append(f"q{q} x {jsg} d{d} {0 if u < 0.3 else 1 + int((u - 0.3) * 4)}")
        docs = rng.choice(4 * depth, size=depth, replace=False)
        scores = rng.integers(0, depth // 2, size=depth)
        run += [
            f"q{q} Q0 d{d} {i + 1} {s} bench"
            for i, (d, s) in enumerate(zip(docs, scores, strict=True))
        ]
    (tmp / "p.prefs").write_text("\n".join(prefs) + "\n")
    (tmp / "r.run").write_text("\n".join(run) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--judged", type=int, default=30)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trec-eval", default="/tmp/trec_eval_src/trec_eval")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _write(tmp, args.queries, args.judged, args.depth, 7)
        prefs = read_prefs(tmp / "p.prefs")
        cols = [line.split() for line in (tmp / "r.run").read_text().splitlines()]
        rq = np.array([c[0] for c in cols])
        rd = np.array([c[2] for c in cols])
        rs = np.array([float(c[4]) for c in cols])

        def ours() -> list[str]:
            res = evaluate_prefs(prefs, rq, rd, rs, empty_rankings=True)
            return res.trec_lines(per_query=True, runid="bench")

        t_ours, lines = best(ours, args.repeat)
        tracemalloc.start()
        ours()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        cmd = [args.trec_eval, "-q", "-c", "-m", "all_prefs", "-R", "prefs", "p.prefs", "r.run"]
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            done = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=True)
            times.append(time.perf_counter() - t)
        same = done.stdout.splitlines() == lines
        print(
            f"{args.queries} queries x {len(prefs) // max(args.queries, 1)} judgment lines, "
            f"run depth {args.depth}: ranklens {t_ours:.3f} s (peak traced "
            f"{peak / 2**20:.1f} MiB), trec_eval {min(times):.3f} s, ratio "
            f"{min(times) / t_ours:.2f}x; every line the same: {same}"
        )


if __name__ == "__main__":
    main()
