"""ranklens on Spark vs Spark's own ranking metrics and RePlay's Spark metrics, in one
local Spark session, on the same Parquet files.

Two workloads (sizes as options; the defaults are the full sizes):

* **recommendations**: ``--users`` users x 20 recommendations (ranks 1..20, integer
  ids; 100,000 users = 2M rows) against ``--held`` held-out interactions (500,000);
  P@10, R@10, MAP@10 and nDCG@10.  ranklens: ``ranklens.spark.evaluate_interactions``
  under ``profile="spark"`` (with ``repeats="binary"``: Spark's label sets, and
  ``unjudged="zero"``: users without held-out items score 0, as in Spark), both
  shuffles; Spark: ``pyspark.ml.evaluation.RankingEvaluator`` (the DataFrame API over
  MLlib's ``RankingMetrics``), one ``evaluate`` per metric on a DataFrame of
  (predicted list, label list) built from the same tables by ``groupBy``/``join``;
  RePlay (``replay-rec``): ``OfflineMetrics`` of ``Precision``, ``Recall``, ``MAP``,
  ``NDCG`` on the Spark DataFrames, when it imports.
* **ranking run**: ``--queries`` queries x 100 scored documents (100,000 = 10M rows)
  against qrels of 10-20 relevant documents per query; nDCG@10, MAP, P@10, recall@100.
  ranklens: ``ranklens.spark.evaluate`` (``profile="spark"``), both shuffles; Spark:
  ``RankingEvaluator`` on lists sorted by score (``array_sort`` of ``collect_list``).

Every timing starts from the Parquet files (read lazily by each library) and ends
with the four means on the driver; best of ``--repeat``.  The means of each library
are printed next to ranklens' (they agree: the ``spark`` profile reproduces
``RankingMetrics``; Python's ``RankingEvaluator`` computes the binary nDCG).

RePlay pins an old stack; install it without its pins into a separate folder and put
that on the path, e.g. ``pip install --no-deps --target /tmp/replay replay-rec`` then
``PYTHONPATH=/tmp/replay python benchmarks/bench_spark.py``; it is skipped (and says
so) when it does not import.

    python benchmarks/bench_spark.py [--users 100000] [--held 500000]
        [--queries 100000] [--partitions 16] [--repeat 1] [--cores 2]
        [--driver-memory 6g] [--workloads recs,run] [--peers spark,replay]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from _timing import best

REC_NAMES = {
    "p@10": ("precisionAtK", 10),
    "r@10": ("recallAtK", 10),
    "map@10": ("meanAveragePrecisionAtK", 10),
    "ndcg@10": ("ndcgAtK", 10),
}
RUN_NAMES = {
    "ndcg@10": ("ndcgAtK", 10),
    "map": ("meanAveragePrecision", 10),
    "p@10": ("precisionAtK", 10),
    "recall@100": ("recallAtK", 100),
}
REPLAY_NAMES = {
    "p@10": "Precision@10",
    "r@10": "Recall@10",
    "map@10": "MAP@10",
    "ndcg@10": "NDCG@10",
}


# ------------------------------------------------------------------------------ data


def write_recommendations(folder: Path, users: int, held: int, seed: int = 0) -> None:
    """``recs.parquet`` (user_id, item_id, rank, score = -rank) and ``held.parquet``
    (user_id, item_id), integer ids, about 30% of held-out items recommended."""
    rng = np.random.default_rng(seed)
    n_items = 50_000
    u = np.repeat(np.arange(users, dtype=np.int64), 20)
    items = (
        np.tile(np.arange(20), users) * 2503 + np.repeat(rng.integers(0, n_items, users), 20)
    ) % n_items
    rank = np.tile(np.arange(1, 21), users)
    pq.write_table(
        pa.table(
            {
                "user_id": u,
                "item_id": items.astype(np.int64),
                "rank": rank.astype(np.int64),
                "score": -rank.astype(float),
            }
        ),
        folder / "recs.parquet",
    )
    n = int(held * 1.05)
    hu = rng.integers(0, users, n)
    # about 30% of the held-out items are among the user's own recommendations
    hi = np.where(
        rng.random(n) < 0.3, items[hu * 20 + rng.integers(0, 20, n)], rng.integers(0, n_items, n)
    )
    keys = np.unique(hu * n_items + hi)[:held]  # distinct (user, item) pairs
    rng.shuffle(keys)
    pq.write_table(
        pa.table({"user_id": keys // n_items, "item_id": keys % n_items}), folder / "held.parquet"
    )


def write_run(folder: Path, queries: int, seed: int = 1) -> None:
    """``run.parquet`` (query, doc, score: 100 distinct documents a query, scores
    distinct within a query) and ``qrels.parquet`` (10-20 relevant documents a query,
    relevance 1, about 60% of them retrieved); integer ids."""
    rng = np.random.default_rng(seed)
    n_docs = 1_000_000
    q = np.repeat(np.arange(queries, dtype=np.int64), 100)
    base = np.repeat(rng.integers(0, n_docs, queries), 100)
    d = (base + np.tile(np.arange(100) * 7919, queries)) % n_docs
    score = rng.random(queries * 100)
    pq.write_table(
        pa.table({"query": q, "doc": d.astype(np.int64), "score": score}), folder / "run.parquet"
    )
    per = rng.integers(10, 21, queries)
    qq = np.repeat(np.arange(queries, dtype=np.int64), per)
    slot = np.concatenate([rng.choice(170, size=k, replace=False) for k in per])
    # slots 0-99 are retrieved documents, 100-169 documents the run does not have
    dd = (np.repeat(base[::100], per) + slot * 7919) % n_docs
    pq.write_table(
        pa.table({"query": qq, "doc": dd.astype(np.int64), "relevance": np.ones(len(qq))}),
        folder / "qrels.parquet",
    )


# ------------------------------------------------------------------------------ peers


def spark_lists(sf: Any, preds: Any, labels: Any, key: str, item: str, order: Any) -> Any:
    """(prediction, label) arrays of doubles per user/query, as RankingEvaluator reads
    them: predictions sorted by ``order`` (ascending), labels the set of relevant items;
    a user on one side only gets an empty array on the other (RankingMetrics scores
    such a user 0)."""
    p = (
        preds.groupBy(key)
        .agg(
            sf.array_sort(
                sf.collect_list(sf.struct(order.alias("o"), sf.col(item).cast("double").alias("i")))
            ).alias("sorted")
        )
        .select(key, sf.col("sorted").getField("i").alias("prediction"))
    )
    lab = labels.groupBy(key).agg(sf.collect_set(sf.col(item).cast("double")).alias("label"))
    empty = sf.array().cast("array<double>")
    return lab.join(p, key, "full").select(
        sf.coalesce("prediction", empty).alias("prediction"),
        sf.coalesce("label", empty).alias("label"),
    )


def run_ranking_evaluator(
    sf: Any, frame: Any, names: dict[str, tuple[str, int]]
) -> dict[str, float]:
    from pyspark.ml.evaluation import RankingEvaluator

    frame = frame.cache()
    out = {}
    for name, (metric, k) in names.items():
        out[name] = RankingEvaluator(metricName=metric, k=k).evaluate(frame)
    frame.unpersist()
    return out


def _line(
    label: str, seconds: float, ours: float, values: dict[str, float], want: dict[str, float]
) -> None:
    diff = max(abs(values[k] - want[k]) for k in want)
    print(
        f"  {label:<34} {seconds:8.2f} s  {seconds / ours:6.2f}x ranklens   "
        + " ".join(f"{k}={v:.6f}" for k, v in values.items())
        + f"   max |diff| {diff:.1e}"
    )


def _both_shuffles(ours: Any, repeat: int) -> tuple[float, dict[str, float]]:
    """Time ranklens with each shuffle, print both; the cogroup time and means."""
    t_co, v_co = best(lambda: ours("cogroup"), repeat)
    t_pa, v_pa = best(lambda: ours("partition"), repeat)
    _line("ranklens.spark (cogroup)", t_co, t_co, v_co, v_co)
    _line("ranklens.spark (partition)", t_pa, t_co, v_pa, v_co)
    return t_co, v_co


# ------------------------------------------------------------------------------ main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--held", type=int, default=500_000)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--driver-memory", default="6g")
    ap.add_argument("--workloads", default="recs,run")
    ap.add_argument("--peers", default="spark,replay")
    ap.add_argument(
        "--data", default=None, help="folder for the Parquet files (default: a temporary folder)"
    )
    args = ap.parse_args()
    workloads, peers = set(args.workloads.split(",")), set(args.peers.split(","))
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warnings.filterwarnings("ignore", category=FutureWarning)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as sf

    import ranklens.spark as rs

    spark = (
        SparkSession.builder.master(f"local[{args.cores}]")
        .appName("bench-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.sql.shuffle.partitions", str(args.partitions))
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.data or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        print(
            f"local[{args.cores}], {args.partitions} partitions, pyspark "
            f"{spark.version}, data in {folder}"
        )
        if "recs" in workloads:
            _recommendations(spark, sf, rs, folder, args, peers)
        if "run" in workloads:
            _ranking_run(spark, sf, rs, folder, args, peers)
    spark.stop()


def _recommendations(
    spark: Any, sf: Any, rs: Any, folder: Path, args: Any, peers: set[str]
) -> None:
    write_recommendations(folder, args.users, args.held)
    print(
        f"\nrecommendations: {args.users:,} users x 20 = {args.users * 20:,} rows; "
        f"{args.held:,} held-out interactions"
    )

    def read() -> tuple[Any, Any]:
        return (
            spark.read.parquet(str(folder / "recs.parquet")),
            spark.read.parquet(str(folder / "held.parquet")),
        )

    def ours(shuffle: str) -> dict[str, float]:
        recs, held = read()
        ev = rs.evaluate_interactions(
            recs,
            held,
            list(REC_NAMES),
            rank="rank",
            score=None,
            repeats="binary",
            unjudged="zero",
            profile="spark",
            shuffle=shuffle,
        )
        out = ev.summary()
        ev.result.unpersist()
        return out

    best(lambda: ours("cogroup"), 1)  # warm-up: the Python workers, the JVM's code
    t_co, v_co = _both_shuffles(ours, args.repeat)
    if "spark" in peers:

        def theirs() -> dict[str, float]:
            recs, held = read()
            frame = spark_lists(sf, recs, held, "user_id", "item_id", sf.col("rank"))
            return run_ranking_evaluator(sf, frame, REC_NAMES)

        t_sp, v_sp = best(theirs, args.repeat)
        _line("Spark RankingEvaluator", t_sp, t_co, v_sp, v_co)
    if "replay" in peers:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import replay.metrics as rm
        except ImportError as exc:
            print(f"  RePlay: does not import ({exc}); skipped")
            return
        cols = {"query_column": "user_id", "item_column": "item_id", "rating_column": "score"}
        offline = rm.OfflineMetrics(
            [rm.Precision(10), rm.Recall(10), rm.MAP(10), rm.NDCG(10)], **cols
        )

        def replay() -> dict[str, float]:
            recs, held = read()
            out = offline(recs.drop("rank"), held)
            return {k: float(out[v]) for k, v in REPLAY_NAMES.items()}

        v_ours_rp = rs.evaluate_interactions(
            *read(), list(REC_NAMES), rank="rank", score=None, repeats="binary", profile="replay"
        )
        want = v_ours_rp.summary()
        v_ours_rp.result.unpersist()
        try:
            t_rp, v_rp = best(replay, args.repeat)
        except Exception as exc:  # RePlay on a newer pyspark than it pins
            print(
                f"  RePlay: failed on pyspark {spark.version}: {type(exc).__name__}: "
                f"{str(exc)[:200]}"
            )
            return
        _line("RePlay OfflineMetrics (Spark)", t_rp, t_co, v_rp, want)
        print("  (RePlay's means are compared with ranklens under profile='replay')")


def _ranking_run(spark: Any, sf: Any, rs: Any, folder: Path, args: Any, peers: set[str]) -> None:
    write_run(folder, args.queries)
    print(
        f"\nranking run: {args.queries:,} queries x 100 = {args.queries * 100:,} rows; "
        "qrels of 10-20 relevant documents a query"
    )

    def read() -> tuple[Any, Any]:
        return (
            spark.read.parquet(str(folder / "qrels.parquet")),
            spark.read.parquet(str(folder / "run.parquet")),
        )

    def ours(shuffle: str) -> dict[str, float]:
        res = rs.evaluate(*read(), list(RUN_NAMES), profile="spark", shuffle=shuffle)
        out = res.summary()
        res.unpersist()
        return out

    t_co, v_co = _both_shuffles(ours, args.repeat)
    if "spark" in peers:

        def theirs() -> dict[str, float]:
            qrels, run = read()
            order = sf.struct((-sf.col("score")).alias("neg"), sf.col("doc"))
            frame = spark_lists(sf, run, qrels, "query", "doc", order)
            return run_ranking_evaluator(sf, frame, RUN_NAMES)

        t_sp, v_sp = best(theirs, args.repeat)
        _line("Spark RankingEvaluator", t_sp, t_co, v_sp, v_co)


if __name__ == "__main__":
    main()
