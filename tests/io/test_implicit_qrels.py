"""Held-out interactions without grades (implicit feedback) read as qrels by the library
(``ranklens.io.read_qrels(implicit=...)``) and by the command line, the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ranklens
from ranklens.cli import main
from ranklens.errors import InputError, RanklensWarning
from ranklens.io import read_qrels

# ids that must come back exactly: leading zeros, inner and outer spaces, unicode
USERS = ("0001", "1", " u 2 ", "ユーザー")
ITEMS = ("007", "7", " x y ", "é項目")


def _write(path: Path, header: str, rows: list[tuple[str, ...]]) -> Path:
    import csv

    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(header.split(","))
        w.writerows(rows)
    return path


@pytest.fixture
def held(tmp_path: Path) -> Path:
    """Line 2: (0001, 007); line 4 repeats it, line 6 repeats line 3's pair; 5 distinct
    pairs on 7 rows."""
    rows = [
        ("0001", "007"),  # line 2
        ("1", "7"),  # line 3
        ("0001", "007"),  # line 4: a repeat of line 2
        (" u 2 ", " x y "),  # line 5
        ("1", "7"),  # line 6: a repeat of line 3
        ("ユーザー", "é項目"),  # line 7
        ("0001", "7"),  # line 8
    ]
    return _write(tmp_path / "held.csv", "user_id,item_id", rows)


@pytest.fixture
def recs(tmp_path: Path) -> Path:
    rows = [
        ("0001", "7", "3"),
        ("0001", "x", "2"),
        ("0001", "007", "1"),
        ("1", "7", "1"),
        (" u 2 ", "nothing", "2"),
        (" u 2 ", " x y ", "1"),
        ("ユーザー", "é項目", "5"),
    ]
    return _write(tmp_path / "recs.csv", "user_id,item_id,score", rows)


EXPECTED = {
    "0001": {"007": 1.0, "7": 1.0},
    "1": {"7": 1.0},
    " u 2 ": {" x y ": 1.0},
    "ユーザー": {"é項目": 1.0},
}


def _cli(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def test_every_row_is_one_relevant_judgment_and_ids_round_trip(held: Path) -> None:
    with pytest.warns(RanklensWarning) as caught:
        qrels = read_qrels(held, implicit=True)
    assert qrels.to_dict() == EXPECTED
    assert len(qrels) == 5
    (w,) = [str(x.message) for x in caught]
    assert "2 row(s) repeat the (query, doc) pair of an earlier row" in w
    assert "the first is line 4, ('0001', '007')" in w


def test_auto_reads_a_table_without_grades_and_says_so(held: Path, tmp_path: Path) -> None:
    with pytest.warns(RanklensWarning) as caught:
        qrels = read_qrels(held, implicit="auto")
    assert qrels.to_dict() == EXPECTED
    texts = [str(x.message) for x in caught]
    assert any("has no relevance column" in t and "relevance=<column name>" in t for t in texts)
    assert any("2 row(s) repeat" in t for t in texts)
    # a table with grades keeps them under auto, and False needs them
    graded = _write(tmp_path / "g.csv", "user_id,item_id,rating", [("1", "7", "3")])
    assert read_qrels(graded, implicit="auto").to_dict() == {"1": {"7": 3.0}}
    with pytest.raises(InputError, match="cannot tell which column holds the relevance"):
        read_qrels(held)


def test_python_and_the_command_line_give_the_same_qrels_and_numbers(
    held: Path, recs: Path
) -> None:
    """MRR by hand: 0001's first relevant is 7 at rank 1 (1); 1's 7 at rank 1 (1); ' u 2 '
    has ' x y ' at rank 2 (1/2); ユーザー's é項目 at rank 1 (1): mean 3.5 / 4."""
    with pytest.warns(RanklensWarning):
        qrels = read_qrels(held, implicit=True)
    run = ranklens.io.read_run(recs)
    res = ranklens.evaluate(qrels, run, ["mrr", "num_rel"])
    assert res["mrr"] == pytest.approx(3.5 / 4)
    assert res["num_rel"] == 5.0  # the 7 rows are 5 judgments
    cli = _cli("evaluate", held, recs, "-m", "mrr", "-m", "num_rel", "--format", "json", "-q")
    assert cli.exit_code == 0, cli.output
    doc = json.loads(cli.stdout)["runs"][0]
    assert doc["summary"] == {"mrr": res["mrr"], "num_rel": 5.0}
    per = _cli("evaluate", held, recs, "-m", "num_rel", "--format", "json", "--per-query", "-q")
    per_query = json.loads(per.stdout)["runs"][0]["per_query"]["num_rel"]
    assert per_query == {u: float(len(d)) for u, d in EXPECTED.items()}  # ids exactly


def test_the_folded_rows_are_reported_on_the_command_line_too(held: Path, recs: Path) -> None:
    res = _cli("evaluate", held, recs, "-m", "mrr")
    assert res.exit_code == 0
    assert "no relevance column" in res.stderr and "--relevance-col NAME" in res.stderr
    assert "2 row(s) repeat the (query, doc) pair" in res.stderr
    assert "the first is line 4, ('0001', '007')" in res.stderr
    # --quiet hides the note, not the folded rows (a change to the data)
    quiet = _cli("evaluate", held, recs, "-m", "mrr", "--quiet")
    assert "no relevance column" not in quiet.stderr
    assert "2 row(s) repeat" in quiet.stderr


def test_a_header_only_file_is_the_same_error_on_both_paths(tmp_path: Path, recs: Path) -> None:
    empty = _write(tmp_path / "empty.csv", "user_id,item_id", [])
    with pytest.raises(InputError, match=r"empty\.csv: the file has a header but no rows"):
        read_qrels(empty, implicit=True)
    res = _cli("evaluate", empty, recs, "-m", "mrr")
    assert res.exit_code == 3 and "empty.csv: the file has a header but no rows" in res.stderr


def test_no_repeat_no_warning(tmp_path: Path) -> None:
    path = _write(tmp_path / "h.csv", "user_id,item_id", [("a", "1"), ("a", "2")])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_qrels(path, implicit=True).to_dict() == {"a": {"1": 1.0, "2": 1.0}}


def test_parquet_and_jsonl_name_the_row_and_the_line(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(
        pa.table({"user_id": ["a", "b", "a"], "item_id": ["1", "2", "1"]}), tmp_path / "h.parquet"
    )
    with pytest.warns(RanklensWarning, match=r"1 row\(s\) repeat .* the first is row 3, \('a'"):
        assert read_qrels(tmp_path / "h.parquet", implicit=True).to_dict() == {
            "a": {"1": 1.0},
            "b": {"2": 1.0},
        }
    lines = ['{"user_id": "a", "item_id": "1"}', '{"user_id": "a", "item_id": "1"}']
    (tmp_path / "h.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.warns(RanklensWarning, match=r"the first is line 2, \('a', '1'\)"):
        read_qrels(tmp_path / "h.jsonl", implicit=True)


def test_duplicates_policy_is_checked_and_every_policy_folds_alike(held: Path) -> None:
    got = []
    for policy in ("error", "max", "first", "last"):
        with pytest.warns(RanklensWarning, match="2 row"):
            got.append(read_qrels(held, implicit=True, duplicates=policy).to_dict())
    assert all(g == EXPECTED for g in got)
    with pytest.raises(InputError, match="duplicates='most' is not a known policy"):
        read_qrels(held, implicit=True, duplicates="most")


def test_implicit_refuses_what_would_lose_grades(tmp_path: Path, held: Path) -> None:
    graded = _write(tmp_path / "g.csv", "user_id,item_id,label", [("1", "7", "3")])
    with pytest.raises(InputError, match=r"g\.csv: column 'label' holds grades.*implicit"):
        read_qrels(graded, implicit=True)
    with pytest.raises(InputError, match="column 'item_id' holds grades"):
        read_qrels(held, implicit=True, relevance="item_id")
    trec = tmp_path / "q.txt"
    trec.write_text("q1 0 d1 1\n")
    with pytest.raises(InputError, match="a TREC qrels file holds grades"):
        read_qrels(trec, implicit=True, format="trec")
    assert read_qrels(trec, implicit="auto", format="trec").to_dict() == {"q1": {"d1": 1.0}}
    with pytest.raises(InputError, match="implicit must be False, True or 'auto', got 'yes'"):
        read_qrels(held, implicit="yes")
