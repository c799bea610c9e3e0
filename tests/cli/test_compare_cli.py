"""``ranklens compare`` and ``ranklens plot``: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

from ranklens._shared.corrections import CORRECTIONS
from ranklens.cli import main
from tests.helpers import system_files


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return system_files(tmp_path, noise={"bm25": 2.0, "dense": 0.3})


def _invoke(*args: str) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def test_compare_table_and_json(files: dict[str, Path]) -> None:
    res = _invoke(
        "compare",
        files["qrels"],
        files["bm25"],
        files["dense"],
        "-m",
        "ndcg@5",
        "-m",
        "map",
        "--seed",
        "1",
        "--n-resamples",
        "500",
    )
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    text = res.output  # type: ignore[attr-defined]
    assert "(a) bm25" in text and "(b) dense" in text and "Fisher randomisation" in text
    res = _invoke(
        "compare",
        files["qrels"],
        files["bm25"],
        files["dense"],
        "-m",
        "ndcg@5",
        "--test",
        "t",
        "--correction",
        "bonferroni",
        "--format",
        "json",
    )
    assert res.exit_code == 0
    doc = json.loads(res.output)  # type: ignore[attr-defined]
    assert doc["baseline"] == "bm25" and doc["test"] == "t"
    assert doc["correction"] == "bonferroni" and doc["tests"][0]["system"] == "dense"


def test_compare_same_seed_same_output(files: dict[str, Path]) -> None:
    args = (
        "compare",
        files["qrels"],
        files["bm25"],
        files["dense"],
        "-m",
        "map",
        "--seed",
        "7",
        "--n-resamples",
        "300",
        "--test",
        "bootstrap",
        "--format",
        "csv",
    )
    a, b = _invoke(*args), _invoke(*args)
    assert a.exit_code == 0 and a.output == b.output  # type: ignore[attr-defined]


def test_compare_pairwise_duplicate_names_and_output(
    files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "table.tex"
    res = _invoke(
        "compare",
        files["qrels"],
        files["bm25"],
        files["bm25"],
        files["dense"],
        "-m",
        "p@5",
        "--pairwise",
        "--test",
        "wilcoxon",
        "--format",
        "latex",
        "-o",
        out,
    )
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    tex = out.read_text()
    assert "bm25-2" in tex and r"\toprule" in tex and "Wilcoxon" in tex


def test_compare_errors(files: dict[str, Path], tmp_path: Path) -> None:
    res = _invoke("compare", files["qrels"], files["bm25"], files["dense"], "--baseline", "x")
    assert res.exit_code == 2 and "--baseline" in res.output  # type: ignore[attr-defined]
    res = _invoke("compare", files["qrels"], files["bm25"])
    assert res.exit_code == 2
    res = _invoke("compare", files["qrels"], files["bm25"], files["dense"], "-m", "nope@3")
    assert res.exit_code == 2
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 notanumber x\n")
    res = _invoke("compare", files["qrels"], files["bm25"], bad)
    assert res.exit_code == 3, res.output  # type: ignore[attr-defined]
    res = _invoke("compare", files["qrels"], files["bm25"], files["dense"], "--test", "z")
    assert res.exit_code == 2


@pytest.mark.parametrize("kind", ["cutoffs", "pr", "diff", "dist"])
def test_plot_command(files: dict[str, Path], tmp_path: Path, kind: str) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / f"{kind}.png"
    res = _invoke("plot", kind, files["qrels"], files["bm25"], files["dense"], "-o", out)
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert out.read_bytes().startswith(b"\x89PNG")


def test_plot_errors(files: dict[str, Path], tmp_path: Path) -> None:
    res = _invoke("plot", "cutoffs", files["qrels"], files["bm25"], "-o", tmp_path / "x.gif")
    assert res.exit_code == 2 and ".png or .svg" in res.output  # type: ignore[attr-defined]
    res = _invoke("plot", "diff", files["qrels"], files["bm25"], "-o", tmp_path / "x.png")
    assert res.exit_code == 2


def test_negative_seed_names_the_option(files: dict[str, Path]) -> None:
    result = _invoke("compare", files["qrels"], files["bm25"], files["dense"], "--seed", "-1")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    err = result.stderr  # type: ignore[attr-defined]
    assert "'--seed': -1 is not in the range x>=0" in err
    assert "parameter" not in err and err.count("\n") == 1


def _ab_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(2)
    units = [f"u{i}" for i in range(300)]
    variants = rng.choice(["control", "b", "c"], len(units))
    exposures = tmp_path / "exposures.csv"
    exposures.write_text(
        "unit,variant\n" + "".join(f"{u},{v}\n" for u, v in zip(units, variants, strict=True))
    )
    events = tmp_path / "events.csv"
    events.write_text(
        "unit,event,value\n"
        + "".join(f"{u},buy,{rng.gamma(2.0, 3.0):.4f}\n" for u in units if rng.random() < 0.4)
    )
    return exposures, events


@pytest.mark.parametrize("name", [*CORRECTIONS, "fdr_bh"])
def test_compare_and_ab_analyze_take_the_same_corrections(
    files: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """Every correction name works in both commands, and gives the library's adjusted
    p-values; the deprecated statsmodels spelling works in both and warns."""
    from ranklens._shared.corrections import DEPRECATED

    res = _invoke(
        "compare",
        files["qrels"],
        files["bm25"],
        files["dense"],
        files["bm25"],
        "-m",
        "ndcg@5",
        "-m",
        "map",
        "--seed",
        "1",
        "--n-resamples",
        "200",
        "--correction",
        name,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    canonical = DEPRECATED.get(name, name)
    assert json.loads(res.stdout)["correction"] == canonical  # type: ignore[attr-defined]
    exposures, events = _ab_files(tmp_path)
    res = _invoke(
        "ab",
        "analyze",
        exposures,
        events,
        "-m",
        "revenue=mean(buy)",
        "-m",
        "buyers=proportion(buy)",
        "--correction",
        name,
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert json.loads(res.stdout)["correction"] == canonical  # type: ignore[attr-defined]
    if name in DEPRECATED:
        assert f"--correction {name} is deprecated" in res.stderr  # type: ignore[attr-defined]
        assert "pass --correction bh" in res.stderr  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["compare", "ab"])
def test_an_unknown_correction_is_one_line_listing_them(
    files: dict[str, Path], tmp_path: Path, command: str
) -> None:
    exposures, events = _ab_files(tmp_path)
    args = (
        ["compare", files["qrels"], files["bm25"], files["dense"]]
        if command == "compare"
        else ["ab", "analyze", exposures, events, "-m", "revenue=mean(buy)"]
    )
    res = _invoke(*args, "--correction", "fdr-bh")
    assert res.exit_code == 2  # type: ignore[attr-defined]
    lines = res.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and "'fdr-bh' is not one of holm, bonferroni, bh" in lines[0]
    assert "Did you mean 'fdr_bh'?" in lines[0]


def test_runs_are_named_alike_by_evaluate_compare_and_gate(tmp_path: Path) -> None:
    """Runs sharing a TREC tag are named by their file in every command (issue: 'the same
    run named two ways'); a unique tag stays the name."""
    files = system_files(tmp_path)
    text = files["good"].read_text()
    (tmp_path / "again.run").write_text(text)  # the same tag 'good' twice
    runs = [files["good"], tmp_path / "again.run", files["bad"]]
    out = CliRunner().invoke(
        main, ["evaluate", str(files["qrels"]), *map(str, runs), "-m", "map", "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    evaluated = [r["run"] for r in json.loads(out.stdout)["runs"]]
    cmp = CliRunner().invoke(
        main,
        [
            "compare",
            str(files["qrels"]),
            *map(str, runs),
            "-m",
            "map",
            "--seed",
            "1",
            "--n-resamples",
            "50",
            "--format",
            "json",
        ],
    )
    assert cmp.exit_code == 0, cmp.output
    compared = list(json.loads(cmp.stdout)["systems"])
    assert compared == ["good", "again", "bad"] == evaluated, (compared, evaluated)
    gate = CliRunner().invoke(
        main,
        ["gate", str(files["qrels"]), str(runs[1]), "--baseline", str(runs[0]), "--min", "map=0"],
    )
    assert gate.exit_code == 0, gate.output
    assert "again against good" in gate.stdout


def test_compare_power_note(tmp_path: Path) -> None:
    import ranklens as rl
    from ranklens.comparison import power_check

    files = system_files(tmp_path, n_queries=8, noise={"a": 1.0, "b": 1.1}, seed=3)
    args = ["compare", files["qrels"], files["a"], files["b"], "-m", "map", "--seed", "1"]
    res = _invoke(*args, "--n-resamples", "200")
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    qrels = rl.io.read_qrels(files["qrels"])
    va, vb = (
        rl.evaluate(qrels, rl.io.read_run(files[n]), ["map"]).values["map"] for n in ("a", "b")
    )
    check = power_check(vb - va, power=0.9)
    assert check.underpowered  # 8 queries, systems this close
    res = _invoke(*args, "--n-resamples", "200", "--power", "0.9")
    assert f"power: b vs a on map: {check.note()}" in res.output  # type: ignore[attr-defined]
    # json keeps stdout machine-readable: the note goes to stderr
    res = _invoke(*args, "--n-resamples", "200", "--format", "json")
    assert res.exit_code == 0
    json.loads(res.stdout)  # type: ignore[attr-defined]
    assert "ranklens: note: power: b vs a on map" in res.stderr  # type: ignore[attr-defined]
    res = _invoke(*args, "--power", "0.01")
    assert res.exit_code == 2 and "--power" in res.output  # type: ignore[attr-defined]
