"""Benchmark the C/W/L measures (``cwl_*``) against cwl_eval 1.0.12.

Run from the repository root::

    python benchmarks/bench_cwl.py                          # 10,000 queries x 100 documents
    python benchmarks/bench_cwl.py --queries 1000 --peer-queries 1000 --quick

Both get the same data: ``--queries`` queries of ``--docs`` ranked documents, gains
0, 1/3, 2/3, 1 (grades 0-3) on about half the documents, unit costs, depth 1000
(cwl_eval's default: every ranking padded to 1000 ranks).  Timed, best of
``--repeat``:

* ranklens: ``ranklens.evaluate(qrels, run, metrics, ties="input")`` on built
  ``Qrels``/``Run`` objects, every measure with all five outputs (eu, etu, ec, etc,
  ed: five kernel calls per measure), end to end (join, ordering, kernels);
* cwl_eval: what its command line does per topic, without reading files: a
  ``RankingMaker`` fed the topic's documents in rank order, then ``measure`` of every
  measure object (one call gives the five outputs).  cwl_eval takes about 2-10 ms per
  topic and measure, so it runs on the first ``--peer-queries`` queries (default 1,000)
  and its time is scaled to ``--queries`` (linear: it works topic by topic); give
  ``--peer-queries 10000`` to time it on all of them.

Peak memory: ``tracemalloc``'s peak (numpy's buffers included) during one timed run
of each.  The values are checked to agree (relative 1e-9) on the queries both ran.
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings
from typing import Any

import numpy as np

from _timing import best

MEASURES: list[tuple[str, tuple[Any, ...], str]] = [
    ("PrecisionCWLMetric", (10,), "cwl_p@10"),
    ("RRCWLMetric", (), "cwl_rr"),
    ("APCWLMetric", (), "cwl_ap"),
    ("RBPCWLMetric", (0.8,), "cwl_rbp(p=0.8)"),
    ("NDCGCWLMetric", (10,), "cwl_ndcg@10"),
    ("INSTCWLMetric", (1.0,), "cwl_inst(t=1)"),
    ("INSQCWLMetric", (1.0,), "cwl_insq(t=1)"),
    ("TBGCWLMetric", (22,), "cwl_tbg(halflife=22)"),
    ("UMeasureCWLMetric", (50,), "cwl_umeasure(budget=50)"),
    ("BPMCWLMetric", (1.0, 10), "cwl_bpm(budget=10,t=1)"),
    ("IFTGoalRateCWLMetric", (2.0, 0.9, 10, 0.2, 0.9, 10), "cwl_ift(a=0.2,t=2)"),
]
OUTPUTS = ("eu", "etu", "ec", "etc", "ed")
GAIN = "gain={1:0.3333333333333333,2:0.6666666666666666,3:1}"


def data(nq: int, nd: int, seed: int) -> tuple[list[Any], list[Any]]:
    rng = np.random.default_rng(seed)
    q = np.repeat([f"q{i}" for i in range(nq)], nd)
    d = np.tile([f"d{j}" for j in range(nd)], nq)
    score = -np.tile(np.arange(nd, dtype=np.float64), nq)  # file order = rank order
    judged = rng.random(nq * nd) < 0.5
    grade = rng.integers(0, 4, nq * nd).astype(np.float64)
    return [q[judged], d[judged], grade[judged]], [q, d, score]


def output_keys() -> dict[str, list[str]]:
    """Each measure's five ranklens metrics (eu, etu, ec, etc, ed)."""
    out: dict[str, list[str]] = {}
    for _, _, name in MEASURES:
        base, at, k = name.partition("@")
        keys = []
        for o in OUTPUTS:
            extra = f"output={o},{GAIN}"
            full = base[:-1] + "," + extra + ")" if base.endswith(")") else f"{base}({extra})"
            keys.append(full + at + k)
        out[name] = keys
    return out


def ranklens_names() -> list[str]:
    return [k for keys in output_keys().values() for k in keys]


def run_ranklens(qrels: Any, run: Any) -> Any:
    import ranklens as rl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        return rl.evaluate(qrels, run, ranklens_names(), ties="input")


def run_cwl(qrels_cols: list[Any], run_cols: list[Any], topics: list[str]) -> dict[str, Any]:
    import importlib
    import pkgutil

    import cwl.ruler.measures as pkg
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    classes: dict[str, Any] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        classes.update({k: v for k, v in vars(module).items() if k.endswith("CWLMetric")})
    handler = TrecQrelHandler()
    unit = {0.0: 0.0, 1.0: 1 / 3, 2.0: 2 / 3, 3.0: 1.0}
    wanted = set(topics)
    for q, d, g in zip(*qrels_cols, strict=True):
        if q in wanted:
            handler.put_value(q, d, unit[float(g)])
    docs: dict[str, list[str]] = {t: [] for t in topics}
    for q, d in zip(run_cols[0], run_cols[1], strict=True):
        if q in wanted:
            docs[q].append(d)
    metrics = [classes[cls](*args) for cls, args, _ in MEASURES]
    out: dict[str, Any] = {name: {} for _, _, name in MEASURES}
    for t in topics:
        maker = RankingMaker(t, handler, None)
        for d in docs[t]:
            maker.add(d, "Q0")
        ranking = maker.get_ranking()
        for m, (_, _, name) in zip(metrics, MEASURES, strict=True):
            m.residuals = False
            m.measure(ranking)
            out[name][t] = m.get_scores()
    return out


def peak(fn: Any) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--peer-queries", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="one repetition")
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat

    import ranklens as rl

    qrels_cols, run_cols = data(args.queries, args.docs, args.seed)
    qrels = rl.Qrels.from_arrays(*qrels_cols)
    run = rl.Run.from_arrays(*run_cols)
    t_rl, res = best(lambda: run_ranklens(qrels, run), repeat)
    mem_rl = peak(lambda: run_ranklens(qrels, run))
    n_peer = min(args.peer_queries, args.queries)
    topics = [f"q{i}" for i in range(n_peer)]
    t_cwl, peer = best(lambda: run_cwl(qrels_cols, run_cols, topics), 1)
    mem_cwl = peak(lambda: run_cwl(qrels_cols, run_cols, topics[: max(1, n_peer // 10)]))
    scale = args.queries / n_peer
    # agreement
    worst = 0.0
    for name, keys in output_keys().items():
        for j, key in enumerate(keys):
            got = res.per_query(key)
            for t in topics:
                want = peer[name][t][j]
                worst = max(worst, abs(got[t] - want) / max(1.0, abs(want)))
    m = len(MEASURES)
    print(
        f"C/W/L: {args.queries:,} queries x {args.docs} documents, depth 1000, "
        f"{m} measures x 5 outputs"
    )
    print(f"  ranklens evaluate      {t_rl:9.2f} s   peak {mem_rl:8.1f} MiB")
    print(
        f"  cwl_eval ({n_peer:,} topics) {t_cwl:9.2f} s   peak {mem_cwl:8.1f} MiB "
        f"(on {max(1, n_peer // 10):,} topics; it keeps one topic at a time)"
    )
    print(f"  cwl_eval scaled to {args.queries:,}: {t_cwl * scale:9.2f} s")
    print(f"  ratio (cwl_eval / ranklens): {t_cwl * scale / t_rl:.1f}x")
    print(f"  largest relative difference on the {n_peer:,} shared topics: {worst:.2e}")


if __name__ == "__main__":
    main()
