"""``ranklens evaluate --bounds``: each metric beside its two unjudged fills."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ranklens.cli import main


def _files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    run = tmp_path / "r.run"
    # q1: a(rel) x(unjudged) b(non-rel); q2: y(unjudged) c(rel)
    run.write_text("q1 Q0 a 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 b 3 1 r\nq2 Q0 y 1 2 r\nq2 Q0 c 2 1 r\n")
    return qrels, run


def test_bounds_json(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    res = CliRunner().invoke(
        main,
        ["evaluate", str(qrels), str(run), "-m", "p@1", "-m", "rr", "--bounds", "--format", "json"],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)["runs"][0]["summary"]
    # p@1: q1 1, q2 0 | filled: q2 1 ; rr: q1 1, q2 1/2 | filled: 1, 1
    assert summary == {
        "p@1": 0.5,
        "p@1 fill 0": 0.5,
        "p@1 fill 1": 1.0,
        "rr": 0.75,
        "rr fill 0": 0.75,
        "rr fill 1": 1.0,
    }


def test_bounds_grade_and_table(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    args = ["evaluate", str(qrels), str(run), "-m", "p(rel=2)@1", "--bounds"]
    res = CliRunner().invoke(main, [*args, "--bounds-grade", "2"])
    assert res.exit_code == 0, res.output
    assert "fill 0" in res.output and "fill 2" in res.output
    # grade 1 is below rel=2: the relevant fill adds nothing relevant
    res = CliRunner().invoke(main, [*args, "--format", "json"])
    summary = json.loads(res.output)["runs"][0]["summary"]
    assert list(summary.values()) == [0.0, 0.0, 0.0]


def test_bounds_usage_errors(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    res = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(run), "--bounds", "--format", "trec"]
    )
    assert res.exit_code == 2 and "--bounds" in res.output and "--format" in res.output
    res = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(run), "--bounds", "--bounds-grade", "0"]
    )
    assert res.exit_code == 2 and "--bounds-grade" in res.output


def test_no_unjudged_no_fill_columns(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    run.write_text("q1 Q0 a 1 3 r\nq2 Q0 c 1 1 r\n")
    res = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(run), "-m", "p@1", "--bounds", "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["runs"][0]["summary"] == {"p@1": 1.0}
