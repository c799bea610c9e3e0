"""Reference tests: ranklens (profile ``replay``) against RePlay's metrics.

RePlay (``replay-rec``) pins pandas<3, polars<2 and pyarrow<24, so it is not in
the test extra; these tests run where ``replay.metrics`` can be imported (they
were run with replay-rec 0.22.0 on pandas 3.1 / polars 2.1 / pyarrow 26, where
it imports and runs without scikit-learn, torch or pyspark) and skip
otherwise.  Data follow RePlay's expectations: deduplicated ground truth and
recommendations, one score per recommended item (string item ids, so that
RePlay's item-id tie rule is ranklens' ``trec`` rule).
"""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.recsys import evaluate_interactions
from tests.helpers import user_lists_case

pd = pytest.importorskip("pandas")
rm = pytest.importorskip("replay.metrics")

pytestmark = pytest.mark.reference

K = [1, 3, 10]

OURS = {
    "Precision": "p@{k}",
    "Recall": "recall@{k}",
    "MAP": "map@{k}",
    "NDCG": "ndcg@{k}",
    "MRR": "rr@{k}",
    "HitRate": "success@{k}",
}


def _case(seed: int, ties: bool) -> tuple[object, object]:
    def scores(rng: np.random.Generator, n: int) -> np.ndarray:
        return (
            rng.integers(0, 3, size=n).astype(float) if ties else rng.permutation(10 * n)[:n] / 7.0
        )  # distinct per user

    rec_rows, int_rows = user_lists_case(9000 + seed, scores)
    recs = pd.DataFrame(rec_rows, columns=["user_id", "item_id", "score"])
    inter = pd.DataFrame(int_rows, columns=["user_id", "item_id"])
    return recs, inter


def _replay(recs: object, inter: object) -> dict[str, float]:
    want: dict[str, float] = {}
    for name in OURS:
        metric = getattr(rm, name)(
            K, query_column="user_id", item_column="item_id", rating_column="score"
        )
        want.update(metric(recs, inter))
    return want


def _check(recs: object, inter: object, want: dict[str, float], tag: object) -> None:
    names = [pattern.format(k=k) for pattern in OURS.values() for k in K]
    ev = evaluate_interactions(
        recs, inter, names, score="score", repeats="binary", profile="replay"
    )
    got = ev.summary()
    for key, pattern in OURS.items():
        for k in K:
            assert got[pattern.format(k=k)] == pytest.approx(
                want[f"{key}@{k}"], abs=1e-9, rel=1e-9
            ), (tag, key, k)


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_replay(seed: int) -> None:
    recs, inter = _case(seed, ties=False)
    _check(recs, inter, _replay(recs, inter), seed)


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_replay_polars_input(seed: int) -> None:
    pl = pytest.importorskip("polars")
    recs, inter = _case(seed, ties=False)
    _check(recs, inter, _replay(pl.from_pandas(recs), pl.from_pandas(inter)), seed)


@pytest.mark.parametrize("seed", range(4))
def test_tied_scores_follow_item_id_descending(seed: int) -> None:
    # RePlay sorts by (score, item) descending; for string ids that is ties='trec'
    recs, inter = _case(seed, ties=True)
    _check(recs, inter, _replay(recs, inter), seed)
