"""Recommender metrics: ranklens vs RecTools and RePlay on the same data, in one process.

100,000 users x 20 recommendations (ranks 1..20, integer user and item ids),
500,000 held-out interactions and a training log; P@10, R@10, MAP@10 and
nDCG@10 under each peer's profile (``rectools``, ``replay``), plus catalog
coverage and novelty.  Each library gets its input as a pandas frame (and
RePlay also as a polars frame); times are best of ``--repeat`` calls, from the
frames to the four means.

The peers pin old stacks (RecTools: pandas<3, numpy<2; RePlay: pandas<3,
polars<2, pyarrow<24) but import and run on pandas 3 / polars 2 / pyarrow 26.
Install them without their pins, e.g. ``pip install --no-deps rectools
replay-rec`` plus attrs<24, pydantic, typeguard, tqdm for RecTools, and the
benchmark runs whichever imports.

    python benchmarks/bench_recsys.py [--users 100000] [--repeat 3] [--ids int|str]

``--ids str`` gives users and items as text (``u17``, ``i4031``), as logs exported
from a warehouse often are; ``--peers ranklens`` leaves the peers out (scaling runs).
RecTools is timed on P/R/MAP/nDCG@10 (``calc_metrics``) and on coverage + novelty
(``CatalogCoverage`` + ``MeanInvUserFreq``, the same definitions as ranklens'
``catalog_coverage`` and ``novelty``).
"""

from __future__ import annotations

import argparse
import resource
import sys
from typing import Any

import numpy as np
import pandas as pd

from _timing import best
from ranklens import Run
from ranklens.recsys import catalog_coverage, evaluate_interactions, novelty

NAMES = ["p@10", "r@10", "map@10", "ndcg@10"]


def make_data(users: int, seed: int = 0, ids: str = "int") -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(seed)
    n_items = 50_000
    pop = rng.zipf(1.3, size=n_items).astype(float)
    pop /= pop.sum()
    u = np.repeat(np.arange(users), 20)
    # 20 distinct items per user: random offsets into a per-user permutation window
    items = (
        np.tile(np.arange(20), users) * 2503 + np.repeat(rng.integers(0, n_items, users), 20)
    ) % n_items
    recs = pd.DataFrame({"user_id": u, "item_id": items, "rank": np.tile(np.arange(1, 21), users)})
    held_u = rng.integers(0, users, 520_000)
    hit = held_u * 20 + rng.integers(0, 20, 520_000)  # one of the user's own recommendations
    held_i = np.where(
        rng.random(520_000) < 0.3, items[hit], rng.integers(0, n_items, 520_000)
    )  # about 30% hit a recommended item
    held = pd.DataFrame({"user_id": held_u, "item_id": held_i}).drop_duplicates().head(500_000)
    # every item has at least one training interaction (novelty needs p(i) > 0)
    train = pd.DataFrame(
        {
            "user_id": np.concatenate(
                [rng.integers(0, users, 1_000_000), rng.integers(0, users, n_items)]
            ),
            "item_id": np.concatenate(
                [rng.choice(n_items, size=1_000_000, p=pop), np.arange(n_items)]
            ),
        }
    )
    if ids == "str":  # the same data with text ids
        for frame in (recs, held, train):
            frame["user_id"] = "u" + frame["user_id"].astype(str)
            frame["item_id"] = "i" + frame["item_id"].astype(str)
    return recs, held, train


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _report(
    label: str, seconds: float, ours: float, values: dict[str, float], want: dict[str, float]
) -> None:
    diff = max(abs(values[k] - want[k]) for k in NAMES)
    print(
        f"{label:<22} {seconds:7.3f} s   {seconds / ours:5.2f}x ranklens's time   "
        f"max |difference| of the means {diff:.1e}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ids", choices=("int", "str"), default="int")
    ap.add_argument(
        "--peers",
        default="ranklens,rectools,replay",
        help="comma-separated: which libraries to run (ranklens always runs)",
    )
    args = ap.parse_args()
    peers = set(args.peers.split(","))
    recs, held, train = make_data(args.users, ids=args.ids)
    print(
        f"{args.users:,} users x 20 recommendations; {len(held):,} held-out interactions; "
        f"{len(train):,} training interactions; {args.ids} ids"
    )
    rss0 = _peak_mib()

    def ours(profile: str) -> dict[str, float]:
        return evaluate_interactions(
            recs, held, NAMES, rank="rank", repeats="binary", profile=profile
        ).summary()

    t_ours, v_ours = best(lambda: ours("rectools"), args.repeat)
    t_ours_rp, v_ours_rp = best(lambda: ours("replay"), args.repeat)
    run = Run.from_frame(recs, query="user_id", doc="item_id", rank="rank")
    catalog = np.unique(train["item_id"].to_numpy())

    def beyond_ours() -> tuple[float, float]:  # from the frames, as RecTools starts
        recs_run = Run.from_frame(recs, query="user_id", doc="item_id", rank="rank")
        return (
            catalog_coverage(recs_run, catalog, k=10),
            novelty(recs_run, train["user_id"], train["item_id"], k=10),
        )

    t_beyond, beyond = best(beyond_ours, args.repeat)
    print(
        f"\nranklens (profile rectools)   accuracy {t_ours:.3f} s   "
        f"coverage+novelty {t_beyond:.3f} s   peak RSS +{_peak_mib() - rss0:.0f} MiB"
    )
    print("  " + ", ".join(f"{k}={v:.6f}" for k, v in v_ours.items()))
    print(f"  coverage={beyond[0]:.6f} novelty={beyond[1]:.6f} (self-information, bits)")
    print(f"ranklens (profile replay)     accuracy {t_ours_rp:.3f} s")
    print("  " + ", ".join(f"{k}={v:.6f}" for k, v in v_ours_rp.items()))
    print()

    try:
        if "rectools" not in peers:
            raise ImportError
        import rectools.metrics as rt
    except ImportError:
        print("rectools               not run (not installed or not in --peers)")
    else:
        metrics = {
            "p@10": rt.Precision(k=10),
            "r@10": rt.Recall(k=10),
            "map@10": rt.MAP(k=10),
            "ndcg@10": rt.NDCG(k=10),
        }
        inter = held.assign(weight=1.0, datetime=0)
        t_rt, v_rt = best(
            lambda: rt.calc_metrics(metrics, reco=recs, interactions=inter), args.repeat
        )
        _report("rectools (pandas)", t_rt, t_ours, v_rt, v_ours)
        beyond_rt = {
            "coverage": rt.CatalogCoverage(k=10, normalize=True),
            "novelty": rt.MeanInvUserFreq(k=10),
        }
        t_brt, v_brt = best(
            lambda: rt.calc_metrics(
                beyond_rt,
                reco=recs,
                interactions=inter,
                prev_interactions=train.assign(weight=1.0, datetime=0),
                catalog=catalog,
            ),
            args.repeat,
        )
        print(
            f"rectools coverage+novelty {t_brt:7.3f} s   {t_brt / t_beyond:5.2f}x ranklens's "
            f"time   values {v_brt['coverage']:.6f} {v_brt['novelty']:.6f} vs "
            f"{beyond[0]:.6f} {beyond[1]:.6f}"
        )

    try:
        if "replay" not in peers:
            raise ImportError
        import replay.metrics as rm
    except ImportError:
        print("replay                 not run (not installed or not in --peers)")
        return
    cols = {"query_column": "user_id", "item_column": "item_id", "rating_column": "score"}
    offline = rm.OfflineMetrics([rm.Precision(10), rm.Recall(10), rm.MAP(10), rm.NDCG(10)], **cols)
    keys = {"p@10": "Precision@10", "r@10": "Recall@10", "map@10": "MAP@10", "ndcg@10": "NDCG@10"}
    scored = recs.assign(score=(-recs["rank"]).astype(float)).drop(columns="rank")
    t_cov_rp, cov_rp = best(lambda: rm.Coverage(10, **cols)(scored, train), args.repeat)
    t_cov, cov = best(lambda: catalog_coverage(run, catalog, k=10), args.repeat)
    frames: list[tuple[str, Any, Any]] = [("pandas", scored, held)]
    try:
        import polars as pl
    except ImportError:
        pass
    else:
        frames.append(("polars", pl.from_pandas(scored), pl.from_pandas(held)))
    for label, rec_frame, held_frame in frames:
        t_rp, out = best(lambda r=rec_frame, h=held_frame: offline(r, h), args.repeat)
        _report(
            f"replay ({label})", t_rp, t_ours_rp, {k: out[v] for k, v in keys.items()}, v_ours_rp
        )
    print(
        f"replay Coverage@10     {t_cov_rp:7.3f} s   {t_cov_rp / t_cov:5.2f}x ranklens's "
        f"catalog_coverage ({t_cov:.3f} s); values {cov_rp['Coverage@10']:.6f} vs {cov:.6f}"
    )
    print(
        "(RePlay's Novelty is the share of recommended items the user had not seen in "
        "training, not self-information: not compared)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
