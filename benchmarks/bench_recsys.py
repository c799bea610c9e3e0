"""Recommender metrics: ranklens vs RecTools on the same data, in one process.

100,000 users x 20 recommendations (ranks 1..20), 500,000 held-out
interactions, a training log for novelty; P@10, R@10, MAP@10, nDCG@10 with the
``rectools`` profile, plus catalog coverage and novelty.  RecTools runs when it
can be imported (it pins pandas<3 and numpy<2: install it with ``pip install
--no-deps rectools`` plus attrs<24, pydantic, typeguard, tqdm).

    python benchmarks/bench_recsys.py [--users 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pandas as pd

from _timing import best
from ranklens import Run
from ranklens.recsys import catalog_coverage, evaluate_interactions, novelty


def make_data(users: int, seed: int = 0) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    n_items = 50_000
    pop = rng.zipf(1.3, size=n_items).astype(float)
    pop /= pop.sum()
    u = np.repeat(np.arange(users), 20)
    # 20 distinct items per user: random offsets into a per-user permutation window
    items = (np.tile(np.arange(20), users) * 2503 + np.repeat(rng.integers(0, n_items, users), 20)
             ) % n_items
    recs = pd.DataFrame({"user_id": u, "item_id": items, "rank": np.tile(np.arange(1, 21), users)})
    held_u = rng.integers(0, users, 520_000)
    held_i = np.where(rng.random(520_000) < 0.3, items[rng.integers(0, users * 20, 520_000)],
                      rng.integers(0, n_items, 520_000))  # about 30% hit a recommended item
    held = pd.DataFrame({"user_id": held_u, "item_id": held_i}).drop_duplicates().head(500_000)
    # every item has at least one training interaction (novelty needs p(i) > 0)
    train = pd.DataFrame({
        "user_id": np.concatenate([rng.integers(0, users, 1_000_000),
                                   rng.integers(0, users, n_items)]),
        "item_id": np.concatenate([rng.choice(n_items, size=1_000_000, p=pop),
                                   np.arange(n_items)]),
    })
    return recs, held, train



def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    recs, held, train = make_data(args.users)
    print(f"{args.users:,} users x 20 recommendations; {len(held):,} held-out interactions")
    names = ["p@10", "r@10", "map@10", "ndcg@10"]

    def ours() -> dict[str, float]:
        return evaluate_interactions(recs, held, names, rank="rank", repeats="binary",
                                     profile="rectools").summary()

    t_ours, v_ours = best(ours, args.repeat)
    run = Run.from_frame(recs.assign(score=-recs["rank"]), query="user_id", doc="item_id",
                         score="score")
    t_beyond, beyond = best(lambda: (
        catalog_coverage(run, np.arange(50_000), k=10),
        novelty(run, train["user_id"].to_numpy(), train["item_id"].to_numpy(), k=10)),
        args.repeat)
    print(f"ranklens   accuracy {t_ours:.3f} s   coverage+novelty {t_beyond:.3f} s")
    print("  " + ", ".join(f"{k}={v:.6f}" for k, v in v_ours.items()))
    print(f"  coverage={beyond[0]:.6f} novelty={beyond[1]:.6f}")
    try:
        import rectools.metrics as rt
    except ImportError:
        print("rectools    not installed: skipped")
        return
    metrics = {"p@10": rt.Precision(k=10), "r@10": rt.Recall(k=10), "map@10": rt.MAP(k=10),
               "ndcg@10": rt.NDCG(k=10)}
    inter = held.assign(weight=1.0, datetime=0)
    t_rt, v_rt = best(lambda: rt.calc_metrics(metrics, reco=recs, interactions=inter),
                      args.repeat)
    print(f"rectools   accuracy {t_rt:.3f} s   ratio rectools/ranklens {t_rt / t_ours:.2f}x")
    diff = max(abs(v_rt[k] - v_ours[k]) for k in names)
    print(f"  max |difference| of the means: {diff:.2e}")


if __name__ == "__main__":
    main()
