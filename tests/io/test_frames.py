"""read_frame / write_frame: any table with every column, ids exactly as written,
writes that leave no partial file."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import ranklens
from ranklens.io import read_frame, write_frame

TABLE = pa.table(
    {
        "user_id": ["007", "7", "a,b", 'q"uote'],
        "item_id": ["0.10", "1e3", " x", "ü"],
        "timestamp": [1, 2, 3, 4],
        "rating": [0.1, 2.5, -1.0, 3.0],
    }
)


@pytest.mark.parametrize("name", ["t.csv", "t.tsv", "t.parquet", "t.jsonl", "t.csv.gz"])
def test_a_round_trip_keeps_ids_and_values(tmp_path: Path, name: str) -> None:
    write_frame(TABLE, tmp_path / name)
    back = read_frame(tmp_path / name, text=("user_id", "item_id", "not_a_column"))
    assert back.column_names == TABLE.column_names
    for c in TABLE.column_names:
        assert back.column(c).to_pylist() == TABLE.column(c).to_pylist(), c
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


def test_a_failed_write_leaves_no_file(tmp_path: Path) -> None:
    bad = pa.table({"user_id": ["u"], "nested": [[1, 2]]})  # CSV cannot hold a list
    with pytest.raises(ranklens.InputError, match=r"out\.csv: cannot write"):
        write_frame(bad, tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []


def test_formats_that_are_not_tables_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ranklens.FormatError, match="table"):
        write_frame(TABLE, tmp_path / "out.trec")
    with pytest.raises(ranklens.FormatError, match="table"):
        read_frame(tmp_path / "in.json")
