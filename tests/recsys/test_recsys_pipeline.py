"""Multi-stage pipeline report of ranklens.recsys."""

from __future__ import annotations

import math

import pytest

import ranklens as rl
import ranklens.recsys as rs
from ranklens.errors import InputError

QRELS = rl.Qrels.from_dict({"u1": {"a": 2, "b": 1, "z": 1}, "u2": {"c": 1}})
CANDS = rl.Run.from_dict({"u1": {"a": 0.1, "b": 0.2, "x": 0.9}, "u2": {"c": 0.5, "y": 0.7}})


def test_pipeline_report_by_hand():
    ranker = rl.Run.from_dict({"u1": {"x": 3, "a": 2, "b": 1}, "u2": {"c": 2, "y": 1}})
    rerank = rl.Run.from_dict({"u1": {"a": 3, "x": 2}, "u2": {"y": 2, "c": 1}})
    rep = rs.pipeline_report(
        QRELS, CANDS, {"ranker": ranker, "reranker": rerank}, ["p@1", "recall@2"]
    )
    assert math.isclose(rep.candidate_recall, (2 / 3 + 1) / 2)
    assert rep.ceiling == {"p@1": 1.0, "recall@2": (2 / 3 + 1) / 2}
    assert rep.values["ranker"] == {"p@1": 0.5, "recall@2": (1 / 3 + 1) / 2}
    assert rep.values["reranker"] == {"p@1": 0.5, "recall@2": (1 / 3 + 1) / 2}
    assert rep.relative["ranker"]["p@1"] == 0.5
    rows = rep.rows()
    assert [r["stage"] for r in rows] == ["ceiling (oracle on candidates)", "ranker", "reranker"]
    assert rows[1]["p@1 / ceiling"] == 0.5


def test_oracle_orders_by_relevance():
    oracle = rs.oracle_run(QRELS, CANDS)
    assert oracle.to_dict() == {"u1": {"a": 2.0, "b": 1.0, "x": 0.0}, "u2": {"c": 1.0, "y": 0.0}}


def test_stage_outside_candidates():
    bad = rl.Run.from_dict({"u1": {"z": 1.0}, "u2": {"c": 1.0}})
    with pytest.raises(InputError) as e:
        rs.pipeline_report(QRELS, CANDS, {"ranker": bad}, ["p@1"])
    assert str(e.value) == (
        "pipeline_report: stage 'ranker' ranks 1 (user, item) pair(s) that are not among the "
        "candidates; a later stage may only reorder or filter candidates."
    )
    with pytest.raises(InputError, match="stages must be a non-empty mapping"):
        rs.pipeline_report(QRELS, CANDS, {}, ["p@1"])
