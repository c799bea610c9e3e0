"""Run tables ranked by position: ``read_run(rank=)`` and ``evaluate_files(rank=)`` read
ranks (1 = best) as the scores ``-rank`` (one definition: ``scores_from_ranks``), a table
with no score column and a column named ``rank`` is read as ranks and says so, and a
rank below 1 names its line."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import ranklens
from ranklens.errors import InputError, RanklensWarning
from ranklens.io import read_run

RECS = "user_id,item_id,rank\nu1,a,1\nu1,b,2\nu2,c,1\nu2,d,2\n"
# rank 1 first: u1 a then b, u2 c then d (as scores, higher first, b and d would lead)
EXPECTED = {"u1": {"a": -1.0, "b": -2.0}, "u2": {"c": -1.0, "d": -2.0}}


@pytest.fixture
def recs(tmp_path: Path) -> Path:
    path = tmp_path / "recs.csv"
    path.write_text(RECS)
    return path


def test_rank_keyword(recs: Path) -> None:
    assert read_run(recs, rank="rank").to_dict() == EXPECTED


def test_a_rank_column_without_a_score_column_is_read_as_ranks(recs: Path) -> None:
    with pytest.warns(RanklensWarning, match=r"reading column 'rank' as ranks"):
        assert read_run(recs).to_dict() == EXPECTED


def test_a_score_column_wins_over_a_rank_column(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("query,doc,score,rank\nq,a,0.1,1\nq,b,0.9,2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_run(path).to_dict() == {"q": {"a": 0.1, "b": 0.9}}


def test_a_rank_below_one_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("query,doc,rank\nq,a,1\nq,b,0\n")
    with pytest.raises(InputError, match=r"r\.csv:3: the rank is 0; ranks start at 1"):
        read_run(path, rank="rank")


def test_score_and_rank_exclude_each_other(recs: Path) -> None:
    with pytest.raises(InputError, match="give one of them"):
        read_run(recs, score="rank", rank="rank")


@pytest.mark.parametrize("memory", [None, "1KB"])
def test_evaluate_files_reads_ranks_in_memory_and_streamed(
    recs: Path, tmp_path: Path, memory: str | None
) -> None:
    """u1's relevant b and u2's relevant d are both at rank 2: mrr 0.5 (hand-computed),
    read whole or streamed in blocks."""
    qrels = tmp_path / "held.csv"
    qrels.write_text("user_id,item_id,rel\nu1,b,1\nu2,d,1\n")
    res = ranklens.evaluate_files(qrels, recs, ["mrr"], rank="rank", memory=memory)
    assert res.summary() == {"mrr": 0.5}
