"""The cost of provenance: what fingerprinting the qrels and the run adds to an evaluation.

    python benchmarks/bench_provenance.py                 # 10,000 queries x 100 docs (1M run rows)
    python benchmarks/bench_provenance.py --sizes 1000x100 --repeat 1

Prints, per size: ``ranklens.evaluate`` (five metrics) as it runs by default
(fingerprints lazy, not computed), the first read of ``result.provenance`` after
it (the qrels and run fingerprints, canonical form: a gather of the rows in
(query, doc) order and SHA-256), the input-order fingerprint of the run
(``ties='input'``), and an :class:`ranklens.Evaluator` over 10 batches, which
fingerprints each batch as it comes, against ``evaluate`` on the same rows.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best
from bench_ranking import Size, make_data

import ranklens

METRICS = ["ndcg@10", "map", "mrr", "p@10", "recall@100"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000x100")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for spec in args.sizes.split(","):
        nq, _, nd = spec.partition("x")
        size = Size(int(nq), int(nd or 100))
        data = make_data(size, seed=1)
        qrels = ranklens.Qrels.from_frame(data.qrels)
        frame = data.run

        def fresh() -> ranklens.Run:
            return ranklens.Run.from_frame(frame)

        def plain() -> float:
            run = fresh()
            t = _clock()
            ranklens.evaluate(qrels, run, METRICS)
            return _clock() - t

        def with_provenance() -> tuple[float, float]:
            run = fresh()
            res = ranklens.evaluate(qrels, run, METRICS)
            t = _clock()
            assert res.provenance is not None
            res.provenance.as_dict()
            return _clock() - t, 0.0

        def ordered() -> float:
            run = fresh()
            t = _clock()
            run.fingerprint("input")
            return _clock() - t

        ev_times = [plain() for _ in range(args.repeat)]
        prov = [with_provenance()[0] for _ in range(args.repeat)]
        qrels_fp = best(lambda: ranklens.Qrels.from_frame(data.qrels).fingerprint(),
                        args.repeat)[0]
        inp = [ordered() for _ in range(args.repeat)]
        run_all = fresh()
        ids = np.array(run_all.query_ids)
        parts = np.array_split(ids, 10)

        def batched() -> None:
            ev = ranklens.Evaluator(METRICS)
            for p in parts:
                ev.update(qrels.take_queries(p), run_all.take_queries(p))
            ev.compute()

        def one_shot() -> None:
            for p in parts:  # the same partition work, no fingerprints
                ranklens.evaluate(qrels.take_queries(p), run_all.take_queries(p), METRICS)

        t_batched = best(batched, args.repeat)[0]
        t_oneshot = best(one_shot, args.repeat)[0]
        print(f"{size.label} ({size.rows:,} run rows)")
        print(f"  evaluate, provenance not read     {min(ev_times):8.3f} s")
        print(f"  first read of result.provenance   {min(prov):8.3f} s "
              f"(qrels alone {qrels_fp:.3f} s)")
        print(f"  run.fingerprint('input')          {min(inp):8.3f} s")
        print(f"  Evaluator, 10 batches             {t_batched:8.3f} s "
              f"(evaluate on the same batches {t_oneshot:.3f} s)")


def _clock() -> float:
    import time

    return time.perf_counter()


if __name__ == "__main__":
    main()
