"""``ranklens overlap``: the numbers of ranklens.compare_runs, its formats and exit codes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ranklens as rl
from ranklens.cli import main

A = "q1 Q0 a 1 3.0 r\nq1 Q0 b 2 2.0 r\nq1 Q0 c 3 1.0 r\nq2 Q0 a 1 1.0 r\nq4 Q0 x 1 1.0 r\n"
B = "q1 Q0 b 1 3.0 r\nq1 Q0 a 2 2.0 r\nq1 Q0 d 3 1.0 r\nq2 Q0 a 1 1.0 r\nq3 Q0 a 1 1.0 r\n"


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text(A)
    b.write_text(B)
    return a, b


def test_same_numbers_as_python(runs: tuple[Path, Path]) -> None:
    metrics = [
        "rbo(p=0.9)",
        "rbo(p=0.5,variant=upper)@2",
        "run_jaccard@2",
        "run_kendall_tau(items=union,variant=c)",
    ]
    args = [a for m in metrics for a in ("-m", m)]
    out = invoke("overlap", *runs, *args, "--format", "json", "-q", "--queries", "either")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    py = rl.compare_runs(
        rl.io.read_run(runs[0]), rl.io.read_run(runs[1]), metrics, queries="either"
    )
    assert doc["queries"] == 4
    for m in metrics:
        assert doc["summary"][m] == pytest.approx(py[m])
        for q, v in py.per_query(m).items():
            got = doc["per_query"][q][m]
            assert (got is None and math.isnan(v)) or got == pytest.approx(v), (m, q)
    # q1: a b c against b a d: X = (0, 2, 2); RBO ext at p = 0.9 by hand
    want = 0.1 / 0.9 * (2 / 2 * 0.81 + 2 / 3 * 0.729) + 2 / 3 * 0.729
    assert py.per_query("rbo(p=0.9)")["q1"] == pytest.approx(want)


def test_table_csv_and_default_metrics(runs: tuple[Path, Path]) -> None:
    out = invoke("overlap", *runs)
    assert out.exit_code == 0, out.output
    assert "rbo(p=0.9)" in out.stdout and "all (2 queries)" in out.stdout
    assert "--queries either" in out.stderr  # two queries of one run only
    csv = invoke("overlap", *runs, "-m", "run_jaccard", "--format", "csv", "-q", "--quiet")
    assert csv.exit_code == 0, csv.output
    assert csv.stdout.splitlines() == [
        "query,run_jaccard",
        "q1,0.500000",
        "q2,1.000000",
        "all,0.750000",
    ]


def test_ties_option(tmp_path: Path) -> None:
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("q Q0 x 1 1.0 r\nq Q0 y 2 1.0 r\n")
    b.write_text("q Q0 x 1 2.0 r\nq Q0 y 2 1.0 r\n")
    m = "rbo(p=0.5,variant=trunc)@1"
    given = invoke("overlap", a, b, "-m", m, "--ties", "input", "--format", "json")
    trec = invoke("overlap", a, b, "-m", m, "--format", "json")
    assert json.loads(given.stdout)["summary"][m] == 0.5
    assert json.loads(trec.stdout)["summary"][m] == 0.0


def test_exit_codes(runs: tuple[Path, Path], tmp_path: Path) -> None:
    bad_param = invoke("overlap", *runs, "-m", "rbo(p=2)")
    assert bad_param.exit_code == 2 and "'p'" in bad_param.stderr
    not_overlap = invoke("overlap", *runs, "-m", "ndcg@10")
    assert not_overlap.exit_code == 2 and "run-to-run" in not_overlap.stderr
    missing = invoke("overlap", runs[0], tmp_path / "nope.run")
    assert missing.exit_code == 3 and "nope.run" in missing.stderr
    (tmp_path / "bad.run").write_text("q Q0 x 1 notanumber r\n")
    bad_data = invoke("overlap", runs[0], tmp_path / "bad.run")
    assert bad_data.exit_code == 3
    assert "Traceback" not in bad_data.output
