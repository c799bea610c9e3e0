"""``ranklens interleave lists`` and ``ranklens interleave analyze``: the same lists and
numbers as the Python API, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest

from ranklens import Qrels, Run
from ranklens.online.interleaving import analyze, credit, interleave, multileave, simulate_clicks
from tests.helpers import one_line_error

click_testing = pytest.importorskip("click.testing")
pytest.importorskip("scipy")

from ranklens.cli import main  # noqa: E402


def run(*args: str) -> Any:
    return click_testing.CliRunner().invoke(main, ["interleave", *args], catch_exceptions=False)


def write_run(path: Path, data: dict[str, dict[str, float]], tag: str) -> None:
    lines = []
    for q, docs in data.items():
        for i, (d, s) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1]), start=1):
            lines.append(f"{q} Q0 {d} {i} {s} {tag}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture()
def runs(tmp_path: Path) -> tuple[list[Path], list[Run], Qrels]:
    rng = np.random.default_rng(0)
    datas = []
    for _ in range(3):
        datas.append(
            {f"0{q}": {f"d{d}": float(rng.integers(0, 20)) for d in range(8)} for q in range(12)}
        )
    paths = []
    for i, (name, data) in enumerate(zip("ABC", datas, strict=True)):
        p = tmp_path / f"run{i}.txt"
        write_run(p, data, name)
        paths.append(p)
    qrels = Qrels.from_dict({f"0{q}": {f"d{d}": int(d % 3) for d in range(8)} for q in range(12)})
    return paths, [Run.from_dict(d, name=n) for n, d in zip("ABC", datas, strict=True)], qrels


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic", "optimized"])
def test_lists_match_the_library(runs: Any, tmp_path: Path, method: str) -> None:
    paths, objs, _ = runs
    out = tmp_path / "lists.csv"
    res = run(
        "lists",
        str(paths[0]),
        str(paths[1]),
        "--method",
        method,
        "-k",
        "5",
        "--seed",
        "7",
        "--impressions",
        "2",
        "--format",
        "csv",
        "-o",
        str(out),
    )
    assert res.exit_code == 0, res.output
    table = pcsv.read_csv(
        out,
        convert_options=pcsv.ConvertOptions(
            column_types={"query": pa.string(), "doc": pa.string()}
        ),
    )
    want = interleave(objs[:2], method, k=5, seed=7, impressions=2).to_arrow()
    assert table.column("query").to_pylist() == want.column("query").to_pylist()
    assert table.column("doc").to_pylist() == want.column("doc").to_pylist()
    assert table.column("team").to_pylist() == want.column("team").to_pylist()


def test_trec_lists_and_multileave(runs: Any) -> None:
    paths, objs, _ = runs
    res = run("lists", *map(str, paths), "-k", "6", "--seed", "3")
    assert res.exit_code == 0, res.output
    want = multileave(objs, "team_draft", k=6, seed=3).to_pylist()
    lines = [ln.split() for ln in res.stdout.splitlines()]
    assert len(lines) == sum(len(r["docs"]) for r in want)
    got = [(q, d, t) for q, _, d, _, _, t in lines]
    assert got == [
        (r["query"], d, t) for r in want for d, t in zip(r["docs"], r["teams"], strict=True)
    ]
    assert [int(x[3]) for x in lines[:6]] == [1, 2, 3, 4, 5, 6]  # positions; query "00"
    assert [float(x[4]) for x in lines[:6]] == [6, 5, 4, 3, 2, 1]  # scores keep the order


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic", "optimized"])
def test_analyze_gives_the_numbers_of_python(runs: Any, tmp_path: Path, method: str) -> None:
    _, objs, qrels = runs
    il = interleave(objs[:2], method, k=5, seed=2, impressions=3)
    clicks = simulate_clicks(il, qrels, "informational", seed=4)
    table = il.to_arrow().append_column("click", pa.array(clicks.astype(np.int64)))
    # rows in another order: the command puts them back by (query, impression, position)
    table = table.take(pa.array(np.random.default_rng(1).permutation(table.num_rows)))
    path = tmp_path / "clicks.csv"
    pcsv.write_csv(table, path)
    res = run(
        "analyze",
        str(path),
        "--method",
        method,
        "-k",
        "5",
        "--format",
        "json",
        "--by",
        "impression",
    )
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    want = analyze(credit(il, clicks), by="impression").to_dict()
    assert got["pairs"][0]["wins"] == want["pairs"][0]["wins"]
    assert got["pairs"][0]["losses"] == want["pairs"][0]["losses"]
    assert got["pairs"][0]["delta"] == pytest.approx(want["pairs"][0]["delta"], rel=1e-12)
    assert got["pairs"][0]["p_value"] == pytest.approx(want["pairs"][0]["p_value"], rel=1e-12)


def test_analyze_by_user_and_the_table(runs: Any, tmp_path: Path) -> None:
    _, objs, qrels = runs
    il = interleave(objs[:2], k=5, seed=2, impressions=2)
    clicks = simulate_clicks(il, qrels, "navigational", seed=4)
    users = [f"u{i % 5}" for i in range(len(il))]
    per_row = np.repeat(users, np.diff(il.offsets))
    table = (
        il.to_arrow()
        .append_column("click", pa.array(clicks))
        .append_column("user", pa.array(per_row.tolist()))
    )
    path = tmp_path / "clicks.csv"
    pcsv.write_csv(table, path)
    res = run("analyze", str(path), "--method", "team_draft", "--by", "user", "--format", "csv")
    assert res.exit_code == 0, res.output
    want = analyze(credit(il, clicks, users=users), by="user").pairs[0]
    row = res.stdout.splitlines()[1].split(",")
    assert row[:6] == ["A", "B", str(want.units), str(want.wins), str(want.ties), str(want.losses)]
    text = run("analyze", str(path), "--method", "team_draft")
    assert text.exit_code == 0 and "team_draft interleaving, units: query" in text.stdout


def test_errors_are_one_line(runs: Any, tmp_path: Path) -> None:
    paths, objs, _ = runs
    one_line_error(run("lists", str(paths[0])), 2, "give two RUNS or more")
    one_line_error(
        run("lists", *map(str, paths), "--method", "balanced"),
        2,
        "--method balanced compares two runs",
    )
    one_line_error(
        run("lists", str(paths[0]), str(paths[1]), "--impressions", "2"),
        2,
        "--format trec holds one list per query",
    )
    one_line_error(
        run("lists", str(paths[0]), str(paths[1]), "--depth", "3"),
        2,
        "--depth goes with --method probabilistic",
    )
    table = interleave(objs[:2], k=3).to_arrow()
    path = tmp_path / "no_clicks.csv"
    pcsv.write_csv(table, path)
    one_line_error(
        run("analyze", str(path), "--method", "team_draft"),
        3,
        "no column named 'click'",
        "--click-column",
    )
    bad = table.append_column("click", pa.array([2] + [0] * (table.num_rows - 1)))
    pcsv.write_csv(bad, path)
    one_line_error(
        run("analyze", str(path), "--method", "team_draft"), 3, f"{path}:2", "must hold 0/1"
    )
    good = table.append_column("click", pa.array([1] * table.num_rows))
    pcsv.write_csv(good, path)
    one_line_error(run("analyze", str(path), "--method", "probabilistic"), 3, "no column 'p_A'")
