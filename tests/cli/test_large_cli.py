"""``ranklens evaluate --memory SIZE``: runs larger than the budget are streamed with the
numbers of the in-memory evaluation, from files and from standard input, within the
budget (peak RSS of a subprocess on a 1.5M-line run)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import ranklens.io.stream as stream
from ranklens.cli import main
from tests.helpers import graded_case

ROOT = Path(__file__).resolve().parents[2]
METRICS = ["-m", "map", "-m", "ndcg@10", "-m", "P.5", "-m", "bpref", "-m", "recip_rank"]


def invoke(*args: Any, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=stdin, catch_exceptions=True)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    qrels_d, run_d = graded_case(11, n_queries=(40, 60), stray_query=True)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels_d.items() for d, g in docs.items())
    )
    run = tmp_path / "run.txt"
    run.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s!r} sys\n"
            for q, docs in run_d.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    return qrels, run


def _json(result: Result) -> Any:
    assert result.exit_code == 0, (result.stderr, result.exception)
    return json.loads(result.stdout)


@pytest.mark.parametrize("shuffled", [False, True])
def test_memory_gives_the_in_memory_numbers(
    files: tuple[Path, Path], shuffled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    qrels, run = files
    if shuffled:
        lines = run.read_text().splitlines(keepends=True)
        run.write_text(
            "".join(lines[i] for i in range(0, len(lines), 2))
            + "".join(lines[i] for i in range(1, len(lines), 2))
        )
    want = _json(invoke("evaluate", qrels, run, *METRICS, "--format", "json", "-q"))
    monkeypatch.setattr(stream, "LARGEST_BLOCK", 400)  # many blocks
    monkeypatch.setattr(stream, "MIN_BLOCK", 400)
    for size in ("500MB", "1MB", "1.5 GiB"):
        got = invoke("evaluate", qrels, run, *METRICS, "--format", "json", "-q", "--memory", size)
        assert _json(got) == want
    stdin = invoke(
        "evaluate",
        qrels,
        "-",
        *METRICS,
        "--format",
        "json",
        "-q",
        "--memory",
        "1MB",
        stdin=run.read_bytes(),
    )
    assert _json(stdin) == want


def test_a_run_too_large_for_the_default_budget_is_streamed_and_said(
    files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    qrels, run = files
    want = _json(invoke("evaluate", qrels, run, *METRICS, "--format", "json"))
    monkeypatch.setattr(stream, "default_memory", lambda: 2**20)
    got = invoke("evaluate", qrels, run, *METRICS, "--format", "json")
    assert _json(got) == want
    assert (
        "evaluating it in a stream of whole queries (same numbers); --memory SIZE sets "
        "the budget" in got.stderr
    )


@pytest.mark.parametrize("size", ["5XB", "lots", "0", "-2GB"])
def test_a_bad_memory_is_a_usage_error_naming_the_option(
    files: tuple[Path, Path], size: str
) -> None:
    qrels, run = files
    result = invoke("evaluate", qrels, run, "--memory", size)
    assert result.exit_code == 2
    assert "--memory" in result.stderr and "Traceback" not in result.stderr


def test_large_qrels_name_the_option(files: tuple[Path, Path]) -> None:
    qrels, run = files
    result = invoke("evaluate", qrels, run, "--memory", "1KB")
    assert result.exit_code == 3
    assert "--memory" in result.stderr and "memory=" not in result.stderr


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bench_large", ROOT / "benchmarks" / "bench_large.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _peak(bench: Any, args: list[str]) -> tuple[int, Any]:
    """Peak RSS (bytes) and JSON output of ``python -m ranklens ...`` in its own process."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", str(ROOT / "src"))
        _, peak, out = bench.measure([sys.executable, "-m", "ranklens", *args])
    return peak, json.loads(out)


def test_a_large_run_stays_within_the_budget(tmp_path: Path) -> None:
    """1.5M lines (51 MB of text, about 255 MiB at the peak in memory): streamed with
    --memory 250MB it stays under the budget, with the same numbers."""
    bench = _bench()
    qrels, run = str(tmp_path / "qrels"), str(tmp_path / "run")
    bench.write_run(run, 1_500_000, docs=500)
    bench.write_qrels(qrels, 1_500_000, docs=500)
    args = ["evaluate", qrels, run, *METRICS, "--format", "json"]
    _, whole = _peak(bench, args)
    peak, got = _peak(bench, [*args, "--memory", "250MB"])
    assert got == whole
    assert peak < 250 * 10**6, peak
