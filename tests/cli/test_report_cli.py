"""``ranklens report``: the HTML file, its options, and one-line errors with exit codes
2 (usage) and 3 (bad data)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

import ranklens
from ranklens.cli import main
from ranklens.io import write_qrels, write_run
from ranklens.render.table import number
from tests.helpers import REPO, report_case


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    qrels, runs = report_case(25, seed=2)
    folder = tmp_path_factory.mktemp("report_cli")
    out = {"qrels": folder / "qrels.txt"}
    write_qrels(qrels, out["qrels"])
    for name in ("bm25", "dense"):
        out[name] = folder / f"{name}.run"
        write_run(runs[name], out[name], tag=name)
    return out


def _invoke(*args: Any) -> Any:
    return CliRunner().invoke(main, [str(a) for a in args])


def _data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="rl-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_writes_the_report(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    res = _invoke(
        "report",
        files["qrels"],
        files["bm25"],
        files["dense"],
        "-o",
        out,
        "-m",
        "ndcg@10",
        "-m",
        "P.5",
        "--seed",
        "3",
        "--n-resamples",
        "200",
        "--baseline",
        "dense",
        "--title",
        "weekly <run>",
    )
    assert res.exit_code == 0, res.output
    assert res.stdout == f"wrote {out}\n"
    assert "left out of the comparison" in res.stderr  # dense lacks a query: said once
    page = out.read_text(encoding="utf-8")
    data = _data(page)
    assert data["runs"] == ["bm25", "dense"] and data["baseline"] == 1
    assert data["metrics"] == ["ndcg@10", "P.5"]
    assert "<title>weekly &lt;run&gt;</title>" in page
    # the input files in the provenance table
    assert f'<th scope="row">run bm25</th><th scope="row">{files["bm25"]}</th>' in page
    qrels = ranklens.io.read_qrels(files["qrels"])
    run = ranklens.io.read_run(files["bm25"])
    per = ranklens.evaluate(qrels, run, ["P.5"]).per_query("P.5")
    shown = dict(zip(data["queries"], data["values"][1][0], strict=True))
    assert {q: f"{v:.4f}" for q, v in shown.items()} == {q: number(v) for q, v in per.items()}


def test_conventions_reach_the_report(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    res = _invoke(
        "report",
        files["qrels"],
        files["bm25"],
        "-o",
        out,
        "-m",
        "map",
        "--profile",
        "ranx",
        "-c",
        "--max-k",
        "5",
    )
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert '<th scope="row">profile</th><td class="num">ranx</td>' in page
    assert '<th scope="row">missing</th><td class="num">zero</td>' in page
    assert "ap@k" in page


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--baseline", "nope"), 2, "--baseline 'nope' is not a run name"),
        (("-m", "nope@3"), 2, "unknown metric 'nope@3'"),
        (("--ties", "sideways"), 2, "--ties"),
        (("-c", "--missing", "skip"), 2, "-c means --missing zero"),
        (("--alpha", "2"), 2, "--alpha"),
    ],
)
def test_usage_errors(
    files: dict[str, Path], tmp_path: Path, args: tuple[str, ...], code: int, message: str
) -> None:
    res = _invoke("report", files["qrels"], files["bm25"], "-o", tmp_path / "r.html", *args)
    assert res.exit_code == code, res.output
    assert message in res.stderr and res.stderr.count("\n") == 1, res.stderr
    assert not (tmp_path / "r.html").exists()


def test_output_and_data_errors(files: dict[str, Path], tmp_path: Path) -> None:
    res = _invoke("report", files["qrels"], files["bm25"])
    assert res.exit_code == 2 and "'-o' / '--output'" in res.stderr
    res = _invoke("report", files["qrels"], files["bm25"], "-o", tmp_path)
    assert res.exit_code == 2 and "is a directory" in res.stderr
    res = _invoke("report", files["qrels"], files["bm25"], "-o", tmp_path / "no" / "r.html")
    assert res.exit_code == 2 and "does not exist" in res.stderr
    res = _invoke("report", files["qrels"], tmp_path / "missing.run", "-o", tmp_path / "r.html")
    assert res.exit_code == 3 and "missing.run" in res.stderr and res.stderr.count("\n") == 1
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 not-a-number tag\n")
    res = _invoke("report", files["qrels"], bad, "-o", tmp_path / "r.html")
    assert res.exit_code == 3 and "bad.run:1" in res.stderr and res.stderr.count("\n") == 1
    assert "Traceback" not in res.output


def test_without_scipy_names_the_extra(files: dict[str, Path], tmp_path: Path) -> None:
    """On an install without the stats extra: one line naming it, exit 2."""
    code = textwrap.dedent("""
        import sys
        from importlib.abc import MetaPathFinder

        class Missing(MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in ("scipy", "statsmodels"):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, Missing())
        from ranklens.cli import main
        main(sys.argv[1:])
    """)
    out = tmp_path / "r.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "report",
            str(files["qrels"]),
            str(files["bm25"]),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "ranklens[stats]" in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not out.exists()


def test_store_adds_each_metrics_history_and_stored_records_are_runs(
    files: dict[str, Path], tmp_path: Path
) -> None:
    """``--history`` draws the history of every metric the store recorded (nothing is
    recorded by the report itself); a stored record ``STORE#ID`` is a run of the report;
    a missing store is refused with one line before any input is read (exit 3)."""
    store = tmp_path / "results.db"
    for name in ("bm25", "dense"):
        res = _invoke("evaluate", files["qrels"], files[name], "-m", "ndcg@10", "--store", store)
        assert res.exit_code == 0, res.output
    out = tmp_path / "report.html"
    res = _invoke(
        "report",
        files["qrels"],
        f"{store}#1",
        files["dense"],
        "-o",
        out,
        "-m",
        "ndcg@10",
        "--history",
        store,
        "--seed",
        "1",
        "--n-resamples",
        "100",
    )
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert "<h2>History</h2>" in page and str(store) in page
    from ranklens.history import Store

    with Store(store) as history:
        assert len(history) == 2  # the report recorded nothing
        want = [number(v) for _, _, v, _ in history.trend("ndcg@10")]
    assert all(w in page for w in want)
    res = _invoke(
        "report",
        files["qrels"],
        files["bm25"],
        "-o",
        tmp_path / "x.html",
        "--history",
        tmp_path / "missing.db",
    )
    assert res.exit_code == 3 and len(res.stderr.splitlines()) == 1, res.output
    assert "missing.db" in res.stderr and not (tmp_path / "x.html").exists()


def test_output_dash_is_standard_output(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o - writes the page to standard output, as every command's -o does (it wrote a
    file named '-')."""
    monkeypatch.chdir(tmp_path)
    res = _invoke("report", files["qrels"], files["bm25"], "-o", "-", "-m", "ndcg@10")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("<!DOCTYPE html>") and res.stdout.endswith("</html>\n")
    assert not (tmp_path / "-").exists()
