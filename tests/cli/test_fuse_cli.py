"""``ranklens fuse``: the same numbers as :func:`ranklens.fusion.fuse` and
:func:`ranklens.fusion.optimize_fusion`, a TREC run written to -o, exit codes 2
(usage) and 3 (bad data)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ranklens import io
from ranklens.cli import main
from ranklens.fusion import fuse, optimize_fusion


def invoke(*args: Any) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    a = tmp_path / "a.run"
    a.write_text(
        "q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq1 Q0 d3 3 1.0 a\nq2 Q0 d5 1 0.5 a\nq2 Q0 d6 2 0.5 a\n"
    )
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 d2 1 9 b\nq1 Q0 d4 2 8 b\nq3 Q0 d9 1 1 b\n")
    c = tmp_path / "c.run"
    c.write_text("q1 Q0 d4 1 -1 c\nq2 Q0 d6 1 -2 c\nq2 Q0 d1 2 -3 c\n")
    qrels = tmp_path / "train.qrels"
    qrels.write_text("q1 0 d4 1\nq1 0 d1 2\nq2 0 d6 1\nq3 0 d9 0\n")
    return {"a": a, "b": b, "c": c, "qrels": qrels, "dir": tmp_path}


def _runs(files: dict[str, Path]) -> list[Any]:
    return [io.read_run(files[k]) for k in ("a", "b", "c")]


@pytest.mark.parametrize(
    ("method", "norm", "args", "params"),
    [
        ("rrf", "min-max", ["--param", "k=10"], {"k": 10}),
        ("sum", "zmuv", [], None),
        ("wsum", "sum", ["--weights", "0.5,0.3,0.2"], {"weights": [0.5, 0.3, 0.2]}),
        ("mnz", "borda", [], None),
        ("gmnz", "max", ["--param", "gamma=0.5"], {"gamma": 0.5}),
        ("min", "none", ["--missing", "zero"], None),
    ],
)
def test_the_same_run_as_python(
    files: dict[str, Path], method: str, norm: str, args: list[str], params: Any
) -> None:
    out = files["dir"] / "fused.run"
    res = invoke("fuse", files["a"], files["b"], files["c"], "-m", method, "--norm", norm,
                 *args, "-o", out)  # fmt: skip
    assert res.exit_code == 0, res.output
    missing = "zero" if "--missing" in args else "ignore"
    want = fuse(_runs(files), method, norm, params, missing=missing)
    got = io.read_run(out)
    _close(got.to_dict(), want.to_dict())
    assert got.name == method


def _close(got: dict[str, dict[str, float]], want: dict[str, dict[str, float]]) -> bool:
    want = {q: d for q, d in want.items() if d}
    assert got.keys() == want.keys()
    for q in got:
        assert got[q] == pytest.approx(want[q], rel=1e-12)
    return True


def test_trained_method_learns_from_qrels(files: dict[str, Path]) -> None:
    out = files["dir"] / "pos.run"
    res = invoke("fuse", files["a"], files["b"], files["c"], "-m", "posfuse", "--qrels",
                 files["qrels"], "-o", out, "--name", "pf")  # fmt: skip
    assert res.exit_code == 0, res.output
    want = fuse(_runs(files), "posfuse", qrels=io.read_qrels(files["qrels"]))
    _close(io.read_run(out).to_dict(), want.to_dict())
    assert io.read_run(out).name == "pf"


def test_optimize_writes_the_best_run_and_says_the_settings(files: dict[str, Path]) -> None:
    out = files["dir"] / "best.run"
    res = invoke("fuse", files["a"], files["b"], files["c"], "-m", "wsum", "--optimize",
                 "--qrels", files["qrels"], "--metric", "map", "--step", "0.5",
                 "-o", out)  # fmt: skip
    assert res.exit_code == 0, res.output
    found = optimize_fusion(io.read_qrels(files["qrels"]), _runs(files), "wsum", "map", step=0.5)
    weights = ",".join(map(str, found.best_params["weights"]))
    assert f"best of {len(found.trials)} settings: weights={weights}" in res.stderr
    _close(io.read_run(out).to_dict(), found.run.to_dict())


def test_random_search_is_repeatable(files: dict[str, Path]) -> None:
    outs = []
    for name in ("r1.run", "r2.run"):
        out = files["dir"] / name
        res = invoke("fuse", files["a"], files["b"], "-m", "rbc", "--optimize", "--qrels",
                     files["qrels"], "--search", "random", "--n-trials", "5", "--seed", "7",
                     "-o", out, "--quiet")  # fmt: skip
        assert res.exit_code == 0, res.output
        assert res.stderr == ""  # --quiet: no note
        outs.append(out.read_text())
    assert outs[0] == outs[1]


def test_other_output_formats(files: dict[str, Path]) -> None:
    out = files["dir"] / "fused.csv"
    res = invoke("fuse", files["a"], files["b"], "-m", "isr", "-o", out)
    assert res.exit_code == 0, res.output
    # isr: q1 d2 = 2 * (1/4 + 1); q2 (a only) d5 1, d6 1/4; q3 d9 1
    got = io.read_run(out, query="query", doc="doc", score="score").to_dict()
    assert got["q1"]["d2"] == 2.5 and got["q2"] == {"d5": 1.0, "d6": 0.25}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-m", "wsum"], "-m wsum needs --weights"),
        (["-m", "posfuse"], "give --qrels FILE"),
        (["-m", "probfuse", "--qrels", "QRELS"], "--param n_segments"),
        (["-m", "rrf", "--param", "k"], "give NAME=VALUE"),
        (["-m", "rrf", "--param", "k=x"], "is not a number"),
        (["-m", "wsum", "--weights", "a,b"], "one number per run"),
        (["-m", "rrf", "--optimize"], "give --qrels FILE"),
        (["-m", "nope"], "-m nope: not a fusion method"),
        (["-m", "sum", "--norm", "l2"], "Invalid value for '--norm'"),
    ],
)
def test_usage_errors_exit_2(files: dict[str, Path], args: list[str], fragment: str) -> None:
    args = [str(files["qrels"]) if a == "QRELS" else a for a in args]
    res = invoke("fuse", files["a"], files["b"], *args, "-o", files["dir"] / "x.run")
    assert res.exit_code == 2, res.output
    assert fragment in res.stderr
    assert "Traceback" not in res.output


def test_one_run_and_no_output_are_usage_errors(files: dict[str, Path]) -> None:
    res = invoke("fuse", files["a"], "-m", "sum", "-o", files["dir"] / "x.run")
    assert res.exit_code == 2 and "two or more RUNS" in res.stderr
    res = invoke("fuse", files["a"], files["b"], "-m", "sum")
    assert res.exit_code == 2 and "give -o FILE" in res.stderr


def test_bad_data_exits_3(files: dict[str, Path]) -> None:
    bad = files["dir"] / "bad.run"
    bad.write_text("q1 Q0 d1 1 notanumber x\n")
    res = invoke("fuse", files["a"], bad, "-m", "sum", "-o", files["dir"] / "x.run")
    assert res.exit_code == 3, res.output
    assert "bad.run" in res.stderr and "Traceback" not in res.output
    res = invoke("fuse", files["a"], files["dir"] / "none.run", "-m", "sum", "-o",
                 files["dir"] / "x.run")  # fmt: skip
    assert res.exit_code == 3 and "none.run" in res.stderr
    res = invoke("fuse", files["a"], files["b"], "-m", "wsum", "--weights", "1,2,3", "-o",
                 files["dir"] / "x.run")  # fmt: skip
    assert res.exit_code == 3 and "3 weight(s) for 2 runs" in res.stderr
    assert not (files["dir"] / "x.run").exists()
