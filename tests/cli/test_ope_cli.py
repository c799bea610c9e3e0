"""``ranklens ope LOG POLICY``: the numbers of :func:`ranklens.online.ope_tables`, every
output format, and errors that name the file and its 1-based line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from ranklens.cli import main
from ranklens.online import ope_tables

pytest.importorskip("scipy")
pytest.importorskip("rich")

ESTIMATORS = ["dm", "ips", "snips", "clipped-ips(2)", "dr", "sndr", "switch-dr(3)", "dr-os(1)"]


def invoke(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, pa.Table, pa.Table]:
    """300 rounds, four items (ids with leading zeros), a log in CSV, the policy in
    Parquet with predictions."""
    rng = np.random.default_rng(7)
    n, items = 300, ["001", "002", "003", "004"]
    logger = np.array([0.4, 0.3, 0.2, 0.1])
    action = rng.choice(4, n, p=logger)
    log = pa.table(
        {
            "round": [f"r{i}" for i in range(n)],
            "action": [items[a] for a in action],
            "reward": rng.integers(0, 2, n).astype(float),
            "propensity": logger[action],
        }
    )
    target = rng.dirichlet(np.ones(4), n)
    policy = pa.table(
        {
            "round": np.repeat([f"r{i}" for i in range(n)], 4),
            "action": items * n,
            "probability": target.ravel(),
            "prediction": rng.random(4 * n),
        }
    )
    log_path, policy_path = tmp_path / "log.csv", tmp_path / "policy.parquet"
    pcsv.write_csv(log, log_path)
    pq.write_table(policy, policy_path)
    return log_path, policy_path, log, policy


def _estimator_args() -> list[str]:
    return [x for e in ESTIMATORS for x in ("-e", e)]


def test_same_numbers_as_python(files: tuple[Path, Path, pa.Table, pa.Table]) -> None:
    log_path, policy_path, log, policy = files
    res = invoke("ope", log_path, policy_path, *_estimator_args(), "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    lib = ope_tables(log, policy, estimators=ESTIMATORS)
    assert [e["estimator"] for e in doc["estimates"]] == ESTIMATORS
    for got, want in zip(doc["estimates"], lib.estimates, strict=True):
        assert got["estimate"] == pytest.approx(want.estimate, rel=1e-12)
        assert got["ci_lower"] == pytest.approx(want.ci_lower, rel=1e-12)
        assert got["ess"] == pytest.approx(want.ess, rel=1e-12)
    # ips by hand: mean of pi(a_i) / p_i * r_i
    target = policy["probability"].to_numpy().reshape(-1, 4)
    codes = np.array([int(a) - 1 for a in log["action"].to_pylist()])
    w = target[np.arange(len(codes)), codes] / log["propensity"].to_numpy()
    ips = float((w * log["reward"].to_numpy()).mean())
    assert doc["estimates"][1]["estimate"] == pytest.approx(ips, rel=1e-12)


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "csv", "json"])
def test_every_format(
    files: tuple[Path, Path, pa.Table, pa.Table], fmt: str, tmp_path: Path
) -> None:
    log_path, policy_path, _, _ = files
    out = tmp_path / f"out.{fmt}"
    res = invoke("ope", log_path, policy_path, "-e", "ips", "-e", "dr", "--format", fmt, "-o", out)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "ips" in text and "dr" in text
    if fmt == "csv":
        assert text.splitlines()[0] == "estimator,estimate,std_error,ci_lower,ci_upper,ess,n"


def test_bootstrap_interval_with_a_seed(files: tuple[Path, Path, pa.Table, pa.Table]) -> None:
    log_path, policy_path, log, policy = files
    args = ["--ci", "percentile", "--n-resamples", "500", "--seed", "4", "--format", "json"]
    one = invoke("ope", log_path, policy_path, "-e", "snips", *args)
    two = invoke("ope", log_path, policy_path, "-e", "snips", *args)
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout
    lib = ope_tables(log, policy, estimators="snips", ci="percentile", n_resamples=500, seed=4)
    assert json.loads(one.stdout)["estimates"][0]["ci_lower"] == pytest.approx(
        lib.estimates[0].ci_lower, rel=1e-12
    )


def test_errors_name_the_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("round,action,reward,propensity\n1,x,1,0.5\n2,y,0,0\n")
    policy = tmp_path / "policy.csv"
    policy.write_text("round,action,probability\n1,x,1\n2,x,1\n")
    res = invoke("ope", log, policy)
    assert res.exit_code == 3
    assert f"{log}:3: log column 'propensity' is 0, not a probability" in res.stderr
    log.write_text("round,action,reward,propensity\n1,x,1,0.5\n2,y,0,0.5\n")
    policy.write_text("round,action,probability\n1,x,1\n2,x,0.5\n")
    res = invoke("ope", log, policy)
    assert res.exit_code == 3
    assert f"{log}:3: log column 'round' is round '2', whose probabilities" in res.stderr
    policy.write_text("round,action,probability\n1,x,1\n2,x,1\n2,x,1\n")
    res = invoke("ope", log, policy)
    assert res.exit_code == 3 and f"{policy}:4: policy repeats the probability" in res.stderr
    res = invoke("ope", log, policy, "--propensity-col", "p")
    assert res.exit_code == 3 and "--propensity-col" in res.stderr
    res = invoke("ope", log, policy, "-e", "dr")
    assert res.exit_code == 3 and "--prediction-col" in res.stderr
    assert "Traceback" not in res.output


def test_usage_errors(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("round,action,reward,propensity\n1,x,1,0.5\n")
    res = invoke("ope", log, log, "-e", "clipped-ips")
    assert res.exit_code == 2 and "clipped-ips(L)" in res.stderr
    res = invoke("ope", log, log, "--ci", "nope")
    assert res.exit_code == 2


def test_support_warning_on_stderr(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("user,action,reward,propensity\nu1,x,1,1\nu2,x,0,1\n")
    policy = tmp_path / "policy.csv"
    policy.write_text("user,action,probability\nu1,x,0.5\nu1,y,0.5\nu2,x,1\n")
    res = invoke("ope", log, policy, "--context-col", "user", "--format", "json")
    assert res.exit_code == 0, res.output
    assert "support deficiency" in res.stderr
    doc = json.loads(res.stdout)
    assert doc["support_deficit"] == pytest.approx(0.25)  # (0.5 + 0) / 2
    assert doc["estimates"][0]["estimate"] == pytest.approx(0.25)  # (0.5 * 1 + 0) / 2


def test_slates(tmp_path: Path) -> None:
    """Two slates of two positions (1-based labels): the hand-computed slate IPS and
    independent IPS; a missing policy row names the log's line."""
    log = tmp_path / "log.csv"
    log.write_text(
        "slate,position,reward,pscore,pscore_item_position\n"
        "a,1,1,0.2,0.5\na,2,0,0.2,0.5\nb,1,1,0.4,0.5\nb,2,1,0.4,0.5\n"
    )
    policy = tmp_path / "policy.csv"
    policy.write_text(
        "slate,position,pscore,pscore_item_position\n"
        "b,2,0.2,0.5\na,1,0.4,0.5\na,2,0.4,1.0\nb,1,0.2,0.25\n"
    )
    args = ["--slate-col", "slate", "-e", "slate-ips", "-e", "slate-iips", "--format", "json"]
    res = invoke("ope", log, policy, *args)
    assert res.exit_code == 0, res.output
    got = {e["estimator"]: e["estimate"] for e in json.loads(res.stdout)["estimates"]}
    # weights: slate a 2, 2; b 0.5, 0.5 | item-position: a 1, 2; b 0.5, 1
    assert got == pytest.approx({"slate-ips": (2 + 0.5 + 0.5) / 2, "slate-iips": 2.5 / 2})
    policy.write_text("slate,position,pscore,pscore_item_position\na,1,0.4,0.5\n")
    res = invoke("ope", log, policy, *args)
    assert res.exit_code == 3
    assert f"{log}:3: log column 'slate' (position '2') has no row in the policy" in res.stderr
    res = invoke("ope", log, policy, "--slate-col", "slate", "-e", "slate-rips")
    assert res.exit_code == 3 and "pscore_cascade" in res.stderr
