"""``ranklens agree`` and ``ranklens ppi``: the same numbers as the Python API, every
format, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ranklens import Qrels
from ranklens.cli import main
from ranklens.judging.agreement import agreement
from ranklens.judging.ppi import ppi_difference, ppi_mean


def _invoke(*args: object) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def qrels_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(4)
    a_lines, b_lines = [], []
    for q in range(6):
        for d in range(8):
            g = int(rng.integers(-1, 3))
            h = g if rng.random() < 0.7 else int(rng.integers(-1, 3))
            if not (q == 0 and d == 7):
                a_lines.append(f"q{q} 0 d{d} {g}")
            if not (q == 1 and d == 0):
                b_lines.append(f"q{q} 0 d{d} {h}")
    a, b = tmp_path / "human.qrels", tmp_path / "llm.qrels"
    a.write_text("\n".join(a_lines) + "\n")
    b.write_text("\n".join(b_lines) + "\n")
    return a, b


@pytest.mark.parametrize("weights", ["none", "linear", "quadratic"])
def test_agree_matches_python(qrels_files: tuple[Path, Path], weights: str) -> None:
    from ranklens.io import read_trec_qrels

    a, b = qrels_files
    res = _invoke("agree", a, b, "--weights", weights, "--format", "json", "--seed", "3")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    py = agreement(
        read_trec_qrels(a),
        read_trec_qrels(b),
        weights=None if weights == "none" else weights,
        seed=3,
        names=["human", "llm"],
    )
    assert doc["kappa"] == pytest.approx(py.kappa, abs=1e-15)
    assert doc["kappa_bootstrap_ci"] == pytest.approx(list(py.kappa_boot_ci), abs=1e-15)
    assert doc["alpha"] == pytest.approx(py.alpha, abs=1e-15)
    assert doc["only"] == {"human": 1, "llm": 1}
    assert doc["compared"] == 6 * 8 - 2


def test_agree_formats_and_errors(qrels_files: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = qrels_files
    for fmt in ("table", "markdown", "latex", "csv"):
        res = _invoke("agree", a, b, "--format", fmt)
        assert res.exit_code == 0, res.output
    assert "human \\ llm" in _invoke("agree", a, b).output
    assert _invoke("agree", a, b, "--format", "csv").output.startswith("query,items,kappa,alpha")
    out = tmp_path / "out.json"
    assert _invoke("agree", a, b, "--format", "json", "-o", out).exit_code == 0
    assert json.loads(out.read_text())["sources"] == ["human", "llm"]
    assert _invoke("agree", a).exit_code == 2
    assert _invoke("agree", a, a).exit_code == 2
    assert _invoke("agree", a, tmp_path / "missing.qrels").exit_code in (2, 3)
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 d1 x\n")
    res = _invoke("agree", a, bad)
    assert res.exit_code == 3 and "bad.qrels" in res.output
    assert _invoke("agree", a, b, "--depth", "10").exit_code == 2


def _metric_table(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    rng = np.random.default_rng(11)
    n = 40
    truth = rng.random(n)
    cheap = truth + rng.normal(0, 0.1, n)
    base = truth * 0.8
    base_cheap = base + rng.normal(0, 0.1, n)
    human = np.where(np.arange(n) % 3 == 0, truth, np.nan)
    bh = np.where(np.isnan(human), np.nan, base)
    lines = ["query,human,cheap,bh,bc"]
    for i in range(n):
        h = "" if np.isnan(human[i]) else repr(float(human[i]))
        bb = "" if np.isnan(bh[i]) else repr(float(bh[i]))
        lines.append(f"q{i},{h},{float(cheap[i])!r},{bb},{float(base_cheap[i])!r}")
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, {"human": human, "cheap": cheap, "bh": bh, "bc": base_cheap}


@pytest.mark.parametrize("lam", ["tuned", "1", "0.5"])
def test_ppi_matches_python(tmp_path: Path, lam: str) -> None:
    path, c = _metric_table(tmp_path)
    res = _invoke(
        "ppi", path, "--human", "human", "--cheap", "cheap", "--lam", lam, "--format", "json"
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    lab = ~np.isnan(c["human"])
    py = ppi_mean(
        c["human"][lab],
        c["cheap"][lab],
        c["cheap"][~lab],
        lam=None if lam == "tuned" else float(lam),
    )
    assert doc["estimate"] == pytest.approx(py.estimate, abs=1e-15)
    assert doc["low"] == pytest.approx(py.low, abs=1e-15)
    assert doc["effective_n"] == pytest.approx(py.effective_n, abs=1e-12)
    res = _invoke(
        "ppi", path, "--human", "human", "--cheap", "cheap", "--baseline-human", "bh",
        "--baseline-cheap", "bc", "--format", "json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    diff = ppi_difference(
        c["bh"][lab],
        c["human"][lab],
        c["bc"][lab],
        c["cheap"][lab],
        c["bc"][~lab],
        c["cheap"][~lab],
    )
    assert json.loads(res.output)["estimate"] == pytest.approx(diff.estimate, abs=1e-15)


def test_ppi_errors(tmp_path: Path) -> None:
    path, _ = _metric_table(tmp_path)
    args = ["ppi", path, "--human", "human", "--cheap", "cheap"]
    assert _invoke(*args, "--lam", "2").exit_code == 2
    assert _invoke(*args, "--lam", "x").exit_code == 2
    assert _invoke(*args, "--baseline-human", "bh").exit_code == 2
    assert _invoke("ppi", path, "--human", "nope", "--cheap", "cheap").exit_code == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("query,human,cheap\nq1,0.5,\nq2,,0.3\nq3,0.1,0.2\n")
    res = _invoke("ppi", bad, "--human", "human", "--cheap", "cheap")
    assert res.exit_code == 3 and "bad.csv:2" in res.output
    for fmt in ("table", "markdown", "latex", "csv"):
        assert _invoke(*args, "--format", fmt).exit_code == 0


def test_agree_python_qrels_names() -> None:
    a = Qrels.from_dict({"q": {"x": 1, "y": 0}})
    assert agreement(a, a, names=["p", "q"]).kappa == 1.0
