"""``ranklens pool`` and ``ranklens sample``: the same rows and numbers as the Python
API, option errors named by their option (exit 2), bad data exit 3."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from ranklens import io
from ranklens.cli import main
from ranklens.judging import pool, read_labels, sample_pool


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def runs(tmp_path: Path) -> list[Path]:
    rng = np.random.default_rng(5)
    paths = []
    for j in range(3):
        lines = []
        for q in range(4):
            docs = rng.choice(30, size=12, replace=False)
            scores = rng.integers(0, 6, size=12)
            lines += [f"q{q} Q0 {d:03d} 0 {s} tag{j}" for d, s in zip(docs, scores, strict=True)]
        path = tmp_path / f"r{j}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


@pytest.mark.parametrize(
    "args",
    [
        ("--depth", "3"),
        ("--depth", "4", "--strategy", "rrf", "--rrf-k", "2", "--ties", "trectools"),
        ("--depth", "5", "--strategy", "rbp", "--rbp-p", "0.5", "--rbp-merge", "max"),
        ("--depth", "5", "--budget-per-query", "3"),
        ("--depth", "5", "--budget", "7"),
    ],
)
def test_pool_equals_python(runs: list[Path], tmp_path: Path, args: tuple[str, ...]) -> None:
    out = tmp_path / "pool.csv"
    result = invoke("pool", *runs, *args, "-o", out, "--quiet")
    assert result.exit_code == 0, result.output
    kw = dict(zip(args[0::2], args[1::2], strict=True))
    expected = pool(
        {f"tag{j}": io.read_run(p) for j, p in enumerate(runs)},
        int(kw["--depth"]),
        strategy=kw.get("--strategy", "depth"),
        ties=kw.get("--ties", "trec"),
        rrf_k=float(kw.get("--rrf-k", 60)),
        rbp_p=float(kw.get("--rbp-p", 0.8)),
        rbp_merge=kw.get("--rbp-merge", "sum"),
        budget_per_query=int(kw["--budget-per-query"]) if "--budget-per-query" in kw else None,
        budget=int(kw["--budget"]) if "--budget" in kw else None,
    ).to_arrow()
    got = io.read_frame(out, text=["query", "doc", "runs"])
    assert got.column("query").to_pylist() == expected.column("query").to_pylist()
    assert got.column("doc").to_pylist() == expected.column("doc").to_pylist()  # "007" kept
    assert got.column("runs").to_pylist() == expected.column("runs").to_pylist()
    assert np.allclose(got.column("priority").to_numpy(), expected.column("priority").to_numpy())


@pytest.mark.parametrize("design", ["uniform", "apprior"])
def test_sample_equals_python(runs: list[Path], tmp_path: Path, design: str) -> None:
    out = tmp_path / "sample.jsonl"
    result = invoke(
        "sample", *runs, "--depth", "6", "--size", "4", "--judged-depth", "1",
        "--design", design, "--seed", "11", "-o", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "written to" in result.stderr
    p = pool({f"tag{j}": io.read_run(r) for j, r in enumerate(runs)}, 6)
    expected = sample_pool(p, 4, design=design, judged_depth=1, seed=11).to_arrow()
    got = read_labels(out)  # nothing labelled yet
    assert got.qrels.to_dict() == {}
    assert got.unlabelled == list(
        zip(expected["query"].to_pylist(), expected["doc"].to_pylist(), strict=True)
    )
    table = io.read_frame(out)
    assert table.column("inclusion").to_pylist() == expected.column("inclusion").to_pylist()


def test_usage_and_data_errors(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    bad = invoke("pool", *runs, "--depth", "0", "-o", out)
    assert bad.exit_code == 2 and "--depth" in bad.stderr
    bad = invoke("sample", *runs, "-o", out)
    assert bad.exit_code == 2 and "--size" in bad.stderr
    bad = invoke("pool", *runs, "--text-column", "title", "-o", out)
    assert bad.exit_code == 2 and "--documents" in bad.stderr
    bad = invoke("pool", *runs)
    assert bad.exit_code == 2 and "-o" in bad.stderr
    broken = tmp_path / "broken.run"
    broken.write_text("q1 Q0 d1 1\n")
    bad = invoke("pool", broken, "-o", out)
    assert bad.exit_code == 3 and "broken.run" in bad.stderr
    assert not out.exists()
