"""The cost of provenance: what fingerprinting the qrels and the run adds to an evaluation.

    python benchmarks/bench_provenance.py                 # 10,000 queries x 100 docs (1M run rows)
    python benchmarks/bench_provenance.py --sizes 1000x100 --repeat 1
    python benchmarks/bench_provenance.py --recsys 100000     # a recommender's inputs

Prints, per size: ``ranklens.evaluate`` (five metrics) as it runs by default
(fingerprints lazy, not computed), the first read of ``result.provenance`` after
it (the qrels and run fingerprints, canonical form: a gather of the rows in
(query, doc) order and SHA-256), the input-order fingerprint of the run
(``ties='input'``), and an :class:`ranklens.Evaluator` over 10 batches, which
fingerprints each batch as it comes, against ``evaluate`` on the same rows.

``--recsys USERS``: ``evaluate_interactions`` with nDCG@10, novelty@10 and catalog
coverage on the data of ``bench_recsys.py`` (USERS x 20 recommendations, a
training log of 1M + 50,000 rows), and what fingerprinting the training log it
reads adds (computed with the evaluation: the log is not kept for later).
"""

from __future__ import annotations

import argparse

import numpy as np

import ranklens
from _timing import best
from bench_ranking import Size, make_data

METRICS = ["ndcg@10", "map", "mrr", "p@10", "recall@100"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000x100")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--recsys", type=int, default=None, metavar="USERS")
    args = ap.parse_args()
    if args.recsys is not None:
        bench_recsys(args.recsys, args.repeat)
        return
    for spec in args.sizes.split(","):
        nq, _, nd = spec.partition("x")
        bench(Size(int(nq), int(nd or 100)), args.repeat)


def bench(size: Size, repeat: int) -> None:
    data = make_data(size, seed=1)
    qrels = ranklens.Qrels.from_frame(data.qrels)

    def plain() -> float:
        run = ranklens.Run.from_frame(data.run)
        t = _clock()
        ranklens.evaluate(qrels, run, METRICS)
        return _clock() - t

    def first_read() -> float:
        res = ranklens.evaluate(qrels, ranklens.Run.from_frame(data.run), METRICS)
        assert res.provenance is not None
        t = _clock()
        res.provenance.as_dict()
        return _clock() - t

    def ordered() -> float:
        run = ranklens.Run.from_frame(data.run)
        t = _clock()
        run.fingerprint("input")
        return _clock() - t

    ev_time = min(plain() for _ in range(repeat))
    prov = min(first_read() for _ in range(repeat))
    inp = min(ordered() for _ in range(repeat))
    qrels_fp = best(lambda: ranklens.Qrels.from_frame(data.qrels).fingerprint(), repeat)[0]
    run_all = ranklens.Run.from_frame(data.run)
    parts = np.array_split(np.array(run_all.query_ids), 10)
    pieces = [(qrels.take_queries(p), run_all.take_queries(p)) for p in parts]

    def batched() -> None:
        ev = ranklens.Evaluator(METRICS)
        for q, r in pieces:
            ev.update(q, r)
        ev.compute()

    def one_shot() -> None:
        for q, r in pieces:  # the same partition work, no fingerprints
            ranklens.evaluate(q, r, METRICS)

    # the pieces keep their fingerprints once computed: time the evaluations first
    t_oneshot = best(one_shot, 1)[0]
    t_batched = best(batched, 1)[0]
    print(f"{size.label} ({size.rows:,} run rows)")
    print(f"  evaluate, provenance not read     {ev_time:8.3f} s")
    print(
        f"  first read of result.provenance   {prov:8.3f} s (qrels built and fingerprinted "
        f"alone {qrels_fp:.3f} s)"
    )
    print(f"  run.fingerprint('input')          {inp:8.3f} s")
    print(
        f"  Evaluator, 10 batches             {t_batched:8.3f} s (evaluate on the same "
        f"batches {t_oneshot:.3f} s)"
    )


def bench_recsys(users: int, repeat: int) -> None:
    from bench_recsys import make_data as recsys_data
    from ranklens.recsys import evaluate_interactions
    from ranklens.recsys import inputs as recsys_inputs

    recs, held, train = recsys_data(users)
    metrics = ["ndcg@10", "novelty@10", "catalog_coverage@10"]

    def evaluate() -> None:
        evaluate_interactions(recs, held, metrics, train=train, rank="rank", score=None)

    t_eval = best(evaluate, repeat)[0]
    data = recsys_inputs.BeyondInputs(
        None, recsys_inputs.train_columns(train, "user_id", "item_id"), None, None, None
    )
    t_fp = best(lambda: recsys_inputs.input_fingerprints(data, ["train"]), repeat)[0]
    print(f"recsys: {users:,} users x 20, training log {len(train):,} rows")
    print(f"  evaluate_interactions (nDCG@10, novelty@10, coverage)  {t_eval:8.3f} s")
    print(
        f"  of which the training log's fingerprint              {t_fp:8.3f} s "
        f"({t_fp / t_eval:.0%})"
    )


def _clock() -> float:
    import time

    return time.perf_counter()


if __name__ == "__main__":
    main()
