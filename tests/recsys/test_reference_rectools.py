"""Reference tests: ranklens (profile ``rectools``) against RecTools' ``calc_metrics``.

RecTools pins pandas<3 and numpy<2, so it is not in the test extra; these tests
run where it can be imported (they were run with RecTools 0.19.0 on pandas 3 /
numpy 2, where ``rectools.metrics`` works) and skip otherwise.  Data follow
RecTools' expectations: deduplicated interactions and recommendations, ranks
1..n per user.
"""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.recsys import evaluate_interactions
from tests.helpers import user_lists_case

pd = pytest.importorskip("pandas")
rt = pytest.importorskip("rectools.metrics")

pytestmark = pytest.mark.reference

K = (1, 3, 10)


def _case(seed: int) -> tuple[object, object]:
    rec_rows, int_rows = user_lists_case(7000 + seed)
    recs = pd.DataFrame(rec_rows, columns=["user_id", "item_id", "rank"])
    inter = pd.DataFrame(int_rows, columns=["user_id", "item_id"])
    return recs, inter


def _rectools(recs: object, inter: object) -> dict[str, float]:
    metrics = {}
    for k in K:
        metrics.update(
            {
                f"p@{k}": rt.Precision(k=k),
                f"r@{k}": rt.Recall(k=k),
                f"map@{k}": rt.MAP(k=k),
                f"map_k@{k}": rt.MAP(k=k, divide_by_k=True),
                f"ndcg@{k}": rt.NDCG(k=k),
                f"ndcg_ach@{k}": rt.NDCG(k=k, divide_by_achievable=True),
                f"mrr@{k}": rt.MRR(k=k),
                f"hit@{k}": rt.HitRate(k=k),
            }
        )
    return rt.calc_metrics(
        metrics,
        reco=recs.rename(columns={"user_id": "user_id"}),
        interactions=inter.assign(weight=1.0, datetime=0),
    )


OURS = {
    "p": "p@{k}",
    "r": "r@{k}",
    "map": "map@{k}",
    "map_k": "ap(norm=k)@{k}",
    "ndcg": "ndcg@{k}",
    "ndcg_ach": "ndcg(ideal=cut)@{k}",
    "mrr": "rr@{k}",
    "hit": "success@{k}",
}


@pytest.mark.parametrize("seed", range(12))
def test_agrees_with_rectools(seed: int) -> None:
    recs, inter = _case(seed)
    want = _rectools(recs, inter)
    names = [OURS[key].format(k=k) for key in OURS for k in K]
    ev = evaluate_interactions(
        recs.rename(columns={"user_id": "user_id"}),
        inter,
        names,
        rank="rank",
        repeats="binary",
        profile="rectools",
    )
    got = ev.summary()
    for key, pattern in OURS.items():
        for k in K:
            assert got[pattern.format(k=k)] == pytest.approx(
                want[f"{key}@{k}"], abs=1e-9, rel=1e-9
            ), (seed, key, k)


@pytest.mark.parametrize("seed", range(6))
def test_weighted_interactions_agree_with_rectools(seed: int) -> None:
    """Graded held-out interactions (weights 1..5): RecTools' metrics are binary (every
    held-out item counts once, whatever its weight), and so are the rectools profile's:
    nDCG stays in [0, 1] (ranklens' ideal list of k unit gains once met graded gains)."""
    recs, inter = _case(100 + seed)
    inter = inter.assign(
        weight=np.random.default_rng(seed).integers(1, 6, len(inter)).astype(float)
    )
    metrics = {}
    for k in K:
        metrics.update(
            {
                f"ndcg@{k}": rt.NDCG(k=k),
                f"map@{k}": rt.MAP(k=k),
                f"ndcg_ach@{k}": rt.NDCG(k=k, divide_by_achievable=True),
                f"p@{k}": rt.Precision(k=k),
            }
        )
    want = rt.calc_metrics(metrics, reco=recs, interactions=inter.assign(datetime=0))
    names = {
        f"{key}@{k}": OURS[key].format(k=k) for key in ("ndcg", "map", "ndcg_ach", "p") for k in K
    }
    ev = evaluate_interactions(
        recs,
        inter,
        list(names.values()),
        rank="rank",
        weight="weight",
        repeats="max",
        profile="rectools",
    )
    got = ev.summary()
    for key, ours in names.items():
        assert got[ours] == pytest.approx(want[key], abs=1e-9, rel=1e-9), (seed, key)
    for ours in names.values():
        assert 0.0 <= ev.result.values[ours].min() <= ev.result.values[ours].max() <= 1.0
