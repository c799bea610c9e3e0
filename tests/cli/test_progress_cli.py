"""Progress on standard error: a percentage per stage when stderr is a terminal (a
pseudo-terminal here), nothing when it is piped or with --quiet; the library's reports
reach a listener only while one listens."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ranklens._shared import progress as shared

pty = pytest.importorskip("pty")
pytest.importorskip("rich")

CLI = [
    sys.executable,
    "-c",
    "import sys; from ranklens.cli import main; sys.argv[0] = 'ranklens'; main()",
]


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(50) for d in range(0, 40, 3))
    )
    runs = []
    for name, shift in (("a.txt", 0), ("b.txt", 1)):
        path = tmp_path / name
        path.write_text(
            "".join(
                f"q{q} Q0 d{d} {d + 1} {((d * 7 + shift) % 40) / 40} t\n"
                for q in range(50)
                for d in range(40)
            )
        )
        runs.append(path)
    return qrels, runs[0], runs[1]


def _run(args: list[str], terminal: bool) -> tuple[int, bytes, bytes]:
    """Run the command with stderr on a pseudo-terminal (or a pipe); (code, out, err)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "100"}
    if not terminal:
        done = subprocess.run(CLI + args, capture_output=True, env=env, timeout=120)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    with subprocess.Popen(CLI + args, stdout=subprocess.PIPE, stderr=slave, env=env) as proc:
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other end closed
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        out = proc.stdout.read() if proc.stdout is not None else b""
        return proc.wait(timeout=120), out, b"".join(chunks)


def _shown(err: bytes) -> str:
    """What a terminal showed: control sequences dropped."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err.decode("utf-8", "replace"))


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_progress_with_a_percentage_on_a_terminal(tmp_path: Path, command: str) -> None:
    qrels, a, b = _files(tmp_path)
    args = [command, str(qrels), str(a), str(b), "-m", "map", "-m", "P.5"]
    if command == "compare":
        args += ["--n-resamples", "20000", "--seed", "1"]
    code, out, err = _run(args, terminal=True)
    assert code == 0, err
    shown = _shown(err)
    # evaluate reads each run when its turn comes: "evaluating RUN: reading", then
    # "evaluating RUN: evaluating"; compare reads them all first
    # (which frames a terminal shows depends on the refresh thread's timing: on a busy
    # machine, e.g. beside other pytest-xdist workers, only some stages are drawn)
    read = [f"evaluating {r}: " for r in (a, b)] if command == "evaluate" else [f"reading {a}"]
    assert any(r in shown for r in read) and "100%" in shown
    assert ("evaluating" in shown) and (command == "evaluate" or "resampling" in shown)
    # the same numbers as without a terminal, where stderr stays empty
    code, plain, quiet_err = _run(args, terminal=False)
    assert code == 0 and quiet_err == b"" and plain == out


@pytest.mark.parametrize("command", ["evaluate", "compare", "plot", "score", "detect", "ab"])
def test_quiet_shows_nothing_even_on_a_terminal(tmp_path: Path, command: str) -> None:
    qrels, a, b = _files(tmp_path)
    (tmp_path / "s.csv").write_text("y,p\n0,0\n1,1\n1,0\n")
    (tmp_path / "gt.json").write_text(
        '{"images": [{"id": 1}], "categories": [{"id": 1}], "annotations": [{"id": 1, '
        '"image_id": 1, "category_id": 1, "bbox": [0, 0, 4, 4], "area": 16, "iscrowd": 0}]}'
    )
    (tmp_path / "det.json").write_text(
        '[{"image_id": 1, "category_id": 1, "bbox": [0, 0, 4, 4], "score": 0.9}]'
    )
    (tmp_path / "e.csv").write_text("unit,variant\nu1,control\nu2,b\nu3,control\nu4,b\n")
    (tmp_path / "v.csv").write_text("unit,event,value\nu1,buy,1\nu2,buy,2\nu4,buy,1\n")
    args = {
        "evaluate": ["evaluate", str(qrels), str(a), "-m", "map"],
        "compare": ["compare", str(qrels), str(a), str(b), "-m", "map", "--seed", "1"],
        "plot": ["plot", "dist", str(qrels), str(a), "-o", str(tmp_path / "p.png")],
        "score": ["score", str(tmp_path / "s.csv"), "-m", "accuracy", "--true", "y", "--pred", "p"],
        "detect": ["detect", str(tmp_path / "gt.json"), str(tmp_path / "det.json")],
        "ab": [
            "ab",
            "analyze",
            str(tmp_path / "e.csv"),
            str(tmp_path / "v.csv"),
            "-m",
            "r=mean(buy)",
        ],
    }
    if command == "plot":
        pytest.importorskip("matplotlib")
    if command in ("compare", "ab"):
        pytest.importorskip("scipy")
        pytest.importorskip("statsmodels")
    code, _, err = _run([*args[command], "--quiet"], terminal=True)
    assert code == 0 and err == b"", err


def test_reports_reach_a_listener_only_while_it_listens() -> None:
    seen: list[tuple[str, float, float]] = []
    shared.report("x", 1, 2)  # nobody listens: nothing happens
    with shared.listening(lambda *a: seen.append(a)):
        shared.report("reading", 3, 4)
    shared.report("x", 1, 2)
    assert seen == [("reading", 3, 4)]
