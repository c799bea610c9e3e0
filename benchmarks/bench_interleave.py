"""Benchmark interleaving (``ranklens.online.interleaving``): lists for many queries,
credit and analysis, against a per-query Python implementation of team-draft.

Run from the repository root::

    python benchmarks/bench_interleave.py                    # 100,000 queries x k = 10
    python benchmarks/bench_interleave.py --queries 10000 --repeat 1

Data: two runs of ``--docs`` (20) documents per query, drawn from a pool of 1.5 x
``--docs`` documents per query so the rankings overlap, random scores.  Timed (best of
``--repeat``):

* ``interleave(runs, method, k=10)`` for team_draft, balanced and probabilistic (the
  softmax over the whole 20-document rankings) from the two ``Run`` objects, ranking
  included; optimized on ``--optimized-queries`` (1,000) queries, since it solves one
  linear program per distinct overlap pattern (every query here has its own);
* ``simulate_clicks`` (cascade, informational), ``credit`` and ``analyze`` (by query)
  of the team-draft lists;
* the peer: no maintained Python package does interleaving (PyPI's ``interleaving``
  is an empty placeholder; Kato's ``interleaving`` and Lerot are GitHub-only), so the
  comparison is the textbook algorithm (Radlinski et al. 2008) written as a per-query
  Python loop with ``random.Random`` -- what those implementations do -- from the same
  runs as ``{query: {doc: score}}`` dicts (each query's rankings sorted, then drafted;
  building the dicts is not timed).

Peak memory: ``tracemalloc``'s peak during one ranklens call (numpy reports its
allocations to it).
"""

from __future__ import annotations

import argparse
import random
import tracemalloc
from typing import Any

import numpy as np

from _timing import best


def make_runs(
    n_q: int, n_docs: int, seed: int
) -> tuple[Any, Any, list[list[str]], list[list[str]]]:
    from ranklens import Run

    rng = np.random.default_rng(seed)
    pool = int(1.5 * n_docs)
    q = np.repeat(np.array([f"q{i}" for i in range(n_q)], dtype=object), n_docs)
    runs, lists = [], []
    for name in ("A", "B"):
        picks = np.argsort(rng.random((n_q, pool)), axis=1)[:, :n_docs]
        d = np.array([f"d{j}" for j in range(pool)], dtype=object)[picks].reshape(-1)
        score = rng.random(n_q * n_docs)
        runs.append(Run.from_arrays(q, d, score, name=name))
        # the peer's input: {query: {doc: score}} per run, the pytrec_eval / ranx layout
        dd, ss = d.reshape(n_q, n_docs).tolist(), score.reshape(n_q, n_docs).tolist()
        lists.append([dict(zip(x, y, strict=True)) for x, y in zip(dd, ss, strict=True)])
    return runs[0], runs[1], lists[0], lists[1]


def python_team_draft(a_runs: list[Any], b_runs: list[Any], k: int, seed: int) -> Any:
    """Radlinski et al. (2008) per query, in Python: each query's two rankings sorted
    (score descending, document id descending), then drafted."""
    rnd = random.Random(seed)
    out = []
    for da, db in zip(a_runs, b_runs, strict=True):
        a = [d for d, _ in sorted(da.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
        b = [d for d, _ in sorted(db.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
        shown: list[str] = []
        seen: set[str] = set()
        teams: list[int] = []
        na = nb = 0
        ia = ib = 0
        while len(shown) < k:
            while ia < len(a) and a[ia] in seen:
                ia += 1
            while ib < len(b) and b[ib] in seen:
                ib += 1
            if ia == len(a) and ib == len(b):
                break
            if ib == len(b) or (ia < len(a) and (na < nb or (na == nb and rnd.random() < 0.5))):
                shown.append(a[ia])
                teams.append(0)
                na += 1
            else:
                shown.append(b[ib])
                teams.append(1)
                nb += 1
            seen.add(shown[-1])
        out.append((shown, teams))
    return out


def peak(fn: Any) -> float:
    tracemalloc.start()
    fn()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("-k", type=int, default=10)
    parser.add_argument("--optimized-queries", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from ranklens import Qrels
    from ranklens.online.interleaving import analyze, credit, interleave, simulate_clicks

    a, b, la, lb = make_runs(args.queries, args.docs, args.seed)
    k, r = args.k, args.repeat
    # warm-up on small data: imports (scipy) and first calls are not timed
    wa, wb, _, _ = make_runs(50, args.docs, args.seed)
    for method in ("team_draft", "balanced", "probabilistic", "optimized"):
        wl = interleave([wa, wb], method, k=3, seed=0)
        analyze(credit(wl, np.ones(len(wl.doc), dtype=bool)))
    print(f"{args.queries:,} queries x {args.docs} documents per run, k = {k}")
    print(f"{'what':<40} {'seconds':>9} {'us/query':>9} {'peak MiB':>9}")

    def row(label: str, secs: float, n: int, mib: float | None = None) -> None:
        mem = f"{mib:9.1f}" if mib is not None else f"{'':>9}"
        print(f"{label:<40} {secs:9.3f} {secs / n * 1e6:9.2f} {mem}")

    times = {}
    for method in ("team_draft", "balanced", "probabilistic"):
        t, _ = best(lambda m=method: interleave([a, b], m, k=k, seed=1), r)
        times[method] = t
        row(
            f"ranklens interleave {method}",
            t,
            args.queries,
            peak(lambda m=method: interleave([a, b], m, k=k, seed=1)),
        )
    n_opt = min(args.optimized_queries, args.queries)
    ao, bo, _, _ = make_runs(n_opt, args.docs, args.seed + 1)
    t, _ = best(lambda: interleave([ao, bo], "optimized", k=k, seed=1), 1)
    row(f"ranklens interleave optimized ({n_opt:,} q)", t, n_opt)
    t_py, _ = best(lambda: python_team_draft(la, lb, k, 1), r)
    row("per-query Python team-draft", t_py, args.queries)
    print(f"ratio Python / ranklens (team_draft): {t_py / times['team_draft']:.1f}x")

    lists = interleave([a, b], "team_draft", k=k, seed=1)
    qrels = Qrels.from_arrays(
        lists.query.take(np.repeat(np.arange(len(lists)), np.diff(lists.offsets))),
        lists.doc,
        np.random.default_rng(2).integers(0, 2, len(lists.doc)),
    )
    t, clicks = best(lambda: simulate_clicks(lists, qrels, "informational", seed=3), r)
    row("simulate_clicks (cascade, informational)", t, args.queries)
    t, out = best(lambda: credit(lists, clicks), r)
    row("credit (team_draft)", t, args.queries)
    t, res = best(lambda: analyze(out, by="query"), r)
    row("analyze (by query, t interval, sign test)", t, args.queries)
    p = res.pairs[0]
    print(f"delta = {p.delta:+.4f} [{p.ci_low:+.4f}, {p.ci_high:+.4f}], p = {p.p_value:.3g}")


if __name__ == "__main__":
    main()
