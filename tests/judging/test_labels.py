"""The file to label and the labels read back: round trips in every table format,
ids kept exactly, text columns carried through, the design kept for the estimators."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ranklens import InputError, Run
from ranklens.judging import pool, read_labels, sample_pool, write_label_file

RUN = Run.from_dict({"01": {"007": 3.0, "7": 2.0, "x,y": 1.0, "é": 0.5}, "1": {"a": 1.0}})


@pytest.mark.parametrize("suffix", ["csv", "tsv", "jsonl", "parquet"])
def test_round_trip(tmp_path: Path, suffix: str) -> None:
    s = sample_pool(pool([RUN], depth=4), 2, judged_depth=1, seed=3)
    path = tmp_path / f"to_label.{suffix}"
    docs = pa.table({"doc": ["7", "007", "a"], "title": ["seven", "bond", "A"], "n": [1, 2, 3]})
    write_label_file(s, path, documents=docs, text_columns=["title"])
    from ranklens.io import read_frame, write_frame

    table = read_frame(path, text=["query", "doc", "title"])
    got = table.to_pylist()
    chosen = s.to_arrow().to_pylist()
    assert [(r["query"], r["doc"]) for r in got] == [(r["query"], r["doc"]) for r in chosen]
    titles = {"7": "seven", "007": "bond", "a": "A"}
    blank = "" if suffix in ("csv", "tsv") else None  # a text file's empty field
    assert [r["title"] for r in got] == [titles.get(r["doc"], blank) for r in got]
    assert "n" not in table.column_names
    # the assessor fills in the labels: every row but the last
    labels = [*[2, 0, 1, 1][: table.num_rows - 1], None]
    filled = table.set_column(
        table.column_names.index("label"), "label", pa.array(labels, pa.float64())
    )
    write_frame(filled, path)
    back = read_labels(path)
    last = (got[-1]["query"], got[-1]["doc"])
    assert back.unlabelled == [last]
    expect: dict[str, dict[str, float]] = {}
    for r, v in zip(got[:-1], labels, strict=False):
        expect.setdefault(r["query"], {})[r["doc"]] = float(v)  # type: ignore[arg-type]
    assert back.qrels.to_dict() == expect
    assert back.inclusion is not None and back.stratum is not None
    assert back.inclusion.tolist() == [r["inclusion"] for r in chosen[:-1]]
    assert back.stratum.tolist() == [r["stratum"] for r in chosen[:-1]]


def test_the_sample_keeps_inclusion_by_hand(tmp_path: Path) -> None:
    # q "01": 4 docs, the top 1 judged, 2 of the other 3 sampled: inclusion 2/3
    s = sample_pool(pool([RUN], depth=4), 2, judged_depth=1, seed=0)
    path = tmp_path / "s.jsonl"
    write_label_file(s, path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["inclusion"] for r in rows if r["query"] == "01"] == [1.0, 2 / 3, 2 / 3]
    assert [r["weight"] for r in rows if r["query"] == "01"] == [1.0, 1.5, 1.5]
    assert rows[0]["doc"] == "007" and rows[0]["label"] is None


def test_a_pool_file_has_no_design(tmp_path: Path) -> None:
    path = tmp_path / "pool.csv"
    write_label_file(pool([RUN], depth=1), path)
    text = path.read_text().replace('"run1",\n', '"run1",1\n')
    path.write_text(text)
    back = read_labels(path)
    assert back.qrels.to_dict() == {"01": {"007": 1.0}, "1": {"a": 1.0}}
    assert back.inclusion is None and back.weight is None and back.unlabelled == []


def test_bad_files_say_where(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("query,doc,label\nq,d,2\nq,e,high\n")
    with pytest.raises(InputError, match=r"row 2, column 'label': 'high' is not a number"):
        read_labels(path)
    path.write_text("query,doc,grade\nq,d,2\n")
    with pytest.raises(InputError, match="label="):
        read_labels(path)
    path.write_text("query,doc,inclusion,label\nq,d,0,2\n")
    with pytest.raises(InputError, match=r"inclusion probability lies in \(0, 1\]"):
        read_labels(path)
    with pytest.raises(InputError, match="more than once"):
        write_label_file(pool([RUN]), path, documents=pa.table({"doc": ["a", "a"]}))
    with pytest.raises(InputError, match="'doc' column"):
        write_label_file(pool([RUN]), path, documents=pa.table({"id": ["a"]}))
    with pytest.raises(InputError, match="rename it"):
        write_label_file(pool([RUN]), path, documents=pa.table({"doc": ["a"], "rank": [1]}))
    assert np.isnan(np.nan)  # the file was left as it was
    assert path.read_text() == "query,doc,inclusion,label\nq,d,0,2\n"
