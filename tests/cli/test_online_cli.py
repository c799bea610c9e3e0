"""``ranklens ab assign`` and ``ranklens ab analyze`` (the group is invoked directly)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from ranklens.online import Experiment, Plan, analyze

click_testing = pytest.importorskip("click.testing")
pd = pytest.importorskip("pandas")
pytest.importorskip("scipy")
pytest.importorskip("statsmodels")
pytest.importorskip("rich")

from ranklens.cli.ab import ab  # noqa: E402

METRICS = ["conversion=proportion(purchase)", "ctr=ratio(count(click), count(impression))"]


def run(*args: str, input: str | None = None) -> Any:
    runner = click_testing.CliRunner()
    return runner.invoke(ab, list(args), input=input, catch_exceptions=False)


@pytest.fixture()
def logs(tmp_path: Path) -> tuple[Path, Path, Any, Any]:
    rng = np.random.default_rng(0)
    n = 2000
    units = np.array([f"{i:06d}" for i in range(n)])  # leading zeros must survive
    variant = rng.choice(["control", "treatment"], n)
    t0 = pd.Timestamp("2024-05-01") + pd.to_timedelta(rng.uniform(0, 5, n), unit="D")
    exposures = pd.DataFrame({"unit": units, "variant": variant, "time": t0})
    imps = rng.poisson(4, n)
    clicks = rng.binomial(imps, 0.1)
    buys = rng.random(n) < 0.08
    ev_unit = np.concatenate([np.repeat(units, imps), np.repeat(units, clicks), units[buys]])
    ev_time = np.concatenate([np.repeat(t0, imps), np.repeat(t0, clicks), t0[buys]])
    ev_time = ev_time + pd.to_timedelta(rng.uniform(0, 2, ev_unit.size), unit="D")
    ev_type = np.repeat(["impression", "click", "purchase"], [imps.sum(), clicks.sum(), buys.sum()])
    events = pd.DataFrame(
        {"unit": ev_unit, "time": ev_time, "event": ev_type, "value": np.ones(ev_unit.size)}
    )
    ex_path, ev_path = tmp_path / "exposures.csv", tmp_path / "events.parquet"
    exposures.to_csv(ex_path, index=False)
    events.to_parquet(ev_path)
    return ex_path, ev_path, exposures, events


# ---------------------------------------------------------------------------------------
# assign
# ---------------------------------------------------------------------------------------
def test_assign_from_csv_matches_the_library(tmp_path: Path) -> None:
    ids = [f"{i:05d}" for i in range(300)]
    src = tmp_path / "units.csv"
    src.write_text("user_id,country\n" + "".join(f"{u},nl\n" for u in ids))
    res = run(
        "assign",
        str(src),
        "--unit-column",
        "user_id",
        "--experiment",
        "exp1",
        "--variants",
        "control=1,treatment=3",
    )
    assert res.exit_code == 0, res.stderr
    table = pcsv.read_csv(
        pa.BufferReader(res.stdout.encode()),
        convert_options=pcsv.ConvertOptions(column_types={"unit": pa.string()}),
    )
    want = Experiment("exp1", {"control": 1, "treatment": 3}).assign(ids)
    assert table.column("unit").to_pylist() == ids
    assert table.column("exp1").to_pylist() == want.labels().to_pylist()
    assert res.stderr.startswith("exp1: control: ")


def test_assign_from_stdin_and_json_output() -> None:
    res = run(
        "assign",
        "-",
        "-e",
        "e",
        "--variants",
        "a,b",
        "--format",
        "json",
        "--quiet",
        input="u1\nu2\n\nu3\n",
    )
    assert res.exit_code == 0
    rows = json.loads(res.stdout)
    want = Experiment("e", ["a", "b"]).assign(["u1", "u2", "u3"]).labels().to_pylist()
    assert [r["e"] for r in rows] == want
    assert res.stderr == ""


def test_assign_with_a_plan_file(tmp_path: Path) -> None:
    plan = {
        "experiments": [
            {
                "name": "rank",
                "variants": {"control": 1, "treatment": 1},
                "layer": "L",
                "traffic": 0.5,
            },
            {"name": "ui", "variants": ["c", "t"], "layer": "L", "traffic": 0.5},
        ],
        "holdout": 0.1,
        "algorithm": "fnv1a-fmix64",
    }
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps(plan))
    ids = [f"user{i}" for i in range(1000)]
    src = tmp_path / "ids.txt"
    src.write_text("\n".join(ids))
    out = tmp_path / "out.parquet"
    res = run("assign", str(src), "--plan", str(plan_path), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    table = pq.read_table(out)
    want = Plan.from_dict(plan).assign(ids)
    assert table.column_names == ["unit", "holdout", "rank", "ui"]
    assert table.column("rank").to_pylist() == want["rank"].labels().to_pylist()
    assert table.column("holdout").to_pylist() == want.held_out.tolist()
    only = run("assign", str(src), "--plan", str(plan_path), "-e", "ui", "--quiet")
    assert only.stdout.splitlines()[0] == "unit,holdout,ui"  # the one CSV writer


@pytest.mark.parametrize(
    ("args", "code", "match"),
    [
        (["assign", "missing.csv", "-e", "e", "--variants", "a,b"], 3, "no such file"),
        (
            ["assign", "UNITS", "-e", "e", "--variants", "a,b", "--unit-column", "uid"],
            3,
            "no column named 'uid'",
        ),
        (["assign", "UNITS", "-e", "e", "--variants", "a=1,b=-2"], 2, "positive weight"),
        (["assign", "UNITS", "-e", "e"], 2, "--variants"),
        (["assign", "UNITS", "-e", "e", "--variants", "a,b", "--hash", "md5"], 2, "md5"),
        (["assign", "UNITS", "--plan", "PLAN"], 3, "unknown key"),
        (["assign", "UNITS", "--plan", "PLAN", "--traffic", "0.5"], 2, "put them in the plan"),
    ],
)
def test_assign_errors(tmp_path: Path, args: list[str], code: int, match: str) -> None:
    units = tmp_path / "units.csv"
    units.write_text("unit\nu1\nu2\n")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"experiments": [], "nope": 1}))
    args = [str(units) if a == "UNITS" else str(plan) if a == "PLAN" else a for a in args]
    res = run(*args)
    assert res.exit_code == code
    assert match in res.stderr
    assert "Traceback" not in res.output
    if code == 3:
        assert res.stderr.startswith("ranklens: error: ")
        assert len(res.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------------------------
# analyze
# ---------------------------------------------------------------------------------------
def test_analyze_json_matches_the_library(logs: tuple[Path, Path, Any, Any]) -> None:
    ex_path, ev_path, exposures, events = logs
    args = ["analyze", str(ex_path), str(ev_path), "--format", "json"]
    for m in METRICS:
        args += ["--metric", m]
    res = run(*args, "--weights", "control=1,treatment=1")
    assert res.exit_code == 0, res.stderr
    got = json.loads(res.stdout)
    want = analyze(exposures, events, METRICS, plan={"control": 1, "treatment": 1})
    assert got["comparisons"] == json.loads(want.to_json())["comparisons"]
    assert got["srm"]["mismatch"] is False


def test_analyze_table(logs: tuple[Path, Path, Any, Any]) -> None:
    ex_path, ev_path, _, _ = logs
    res = run(
        "analyze",
        str(ex_path),
        str(ev_path),
        "-m",
        METRICS[0],
        "-m",
        METRICS[1],
        "--sequential",
        "--cuped",
    )
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    for word in ("conversion", "ctr", "treatment", "verdict", "SRM check", "seq. p adj."):
        assert word in out
    assert "delta-method z-test" in out


def test_analyze_warns_loudly_on_sample_ratio_mismatch(
    logs: tuple[Path, Path, Any, Any], tmp_path: Path
) -> None:
    _, ev_path, exposures, _ = logs
    drop = (exposures["variant"] == "treatment") & (exposures.index % 4 == 0)
    skewed = tmp_path / "skewed.parquet"
    exposures[~drop].to_parquet(skewed)
    res = run("analyze", str(skewed), str(ev_path), "-m", METRICS[0], "--format", "json")
    assert res.exit_code == 0
    assert "WARNING: SAMPLE RATIO MISMATCH" in res.stderr
    assert json.loads(res.stdout)["srm"]["mismatch"] is True
    # the warning comes before the results
    assert res.output.index("SAMPLE RATIO MISMATCH") < res.output.index('"comparisons"')


def test_analyze_with_a_plan(logs: tuple[Path, Path, Any, Any], tmp_path: Path) -> None:
    ex_path, ev_path, _, _ = logs
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[[experiments]]\nname = "exp"\ncontrol = "treatment"\n'
        "[experiments.variants]\ncontrol = 1\ntreatment = 1\n"
    )
    res = run(
        "analyze",
        str(ex_path),
        str(ev_path),
        "-m",
        METRICS[0],
        "--plan",
        str(plan),
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["control"] == "treatment"


@pytest.mark.parametrize(
    ("extra", "code", "match"),
    [
        (["-m", "conversion=proportion(purchse)"], 3, "Did you mean 'purchase'"),
        (["-m", "x=median(click)"], 2, "unknown metric kind"),
        (
            ["-m", "c=proportion(purchase)", "--weights", "control=1,other=1"],
            3,
            "that the plan does not know",
        ),
        (["-m", "c=proportion(purchase)", "--variant-column", "arm"], 3, "no column named 'arm'"),
        (["-m", "c=proportion(purchase)", "--correction", "tukey"], 2, "tukey"),
        (["-m", "c=proportion(purchase)", "--multiple-exposures", "last"], 2, "last"),
        (
            ["-m", "c=proportion(purchase)", "--sequential", "--look-every", "soon"],
            3,
            "as a duration",
        ),
        # the file is named, and the option, not the Python keyword (time=<column name>)
        (
            ["-m", "c=proportion(purchase)", "--time-column", "t"],
            3,
            "exposures.csv: exposures: no column named 't' for the time",
        ),
        (["-m", "c=proportion(purchase)", "--time-column", "t"], 3, "Pass --time-column NAME."),
    ],
)
def test_analyze_errors(
    logs: tuple[Path, Path, Any, Any], extra: list[str], code: int, match: str
) -> None:
    ex_path, ev_path, _, _ = logs
    res = run("analyze", str(ex_path), str(ev_path), *extra)
    assert res.exit_code == code, res.output
    assert match in res.stderr
    assert "Traceback" not in res.output


def test_analyze_bad_files(logs: tuple[Path, Path, Any, Any], tmp_path: Path) -> None:
    ex_path, ev_path, _, _ = logs
    res = run("analyze", str(tmp_path / "nope.csv"), str(ev_path), "-m", METRICS[0])
    assert res.exit_code == 3 and "no such file" in res.stderr
    weird = tmp_path / "events.xlsx"
    weird.write_text("x")
    res = run("analyze", str(ex_path), str(weird), "-m", METRICS[0])
    assert res.exit_code == 2 and "unknown file type '.xlsx'" in res.stderr
    broken = tmp_path / "broken.csv"
    broken.write_text('unit,variant,time\n"u1,control\n')
    res = run("analyze", str(broken), str(ev_path), "-m", METRICS[0])
    # the one reader names the file and the 1-based line
    assert res.exit_code == 3 and f"{broken}:2: expected 3 fields" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_analyze_names_the_line_of_a_bad_json_lines_row(
    logs: tuple[Path, Path, Any, Any], tmp_path: Path
) -> None:
    ex_path, _, _, _ = logs
    events = tmp_path / "events.jsonl"
    events.write_text(
        '{"unit": "000001", "time": 1, "event": "purchase"}\n'
        '{"unit": "000002", "time": 2, "event": "purchase"\n'
    )
    res = run("analyze", str(ex_path), str(events), "-m", METRICS[0])
    assert res.exit_code == 3, res.output
    assert res.stderr.startswith(f"ranklens: error: {events}:2: not valid JSON Lines")


def test_analyze_names_the_line_of_a_bad_value(
    logs: tuple[Path, Path, Any, Any], tmp_path: Path
) -> None:
    _, _, exposures, _ = logs
    ex_path = tmp_path / "exposures.jsonl"
    exposures.assign(time=np.arange(len(exposures), dtype=float)).to_json(
        ex_path, orient="records", lines=True
    )
    events = tmp_path / "events.csv"
    events.write_text("unit,time,event,value\n000001,5,purchase,1\n000002,6,purchase,nan\n")
    res = run("analyze", str(ex_path), str(events), "-m", METRICS[0])
    assert res.exit_code == 3, res.output
    # the library's row 1 (0-based) is the file's line 3 (after the header)
    assert f"{events}:3: events column 'value' has a missing (null) value" in res.stderr


@pytest.mark.parametrize("fmt", ["csv", "markdown", "latex"])
def test_analyze_formats(logs: tuple[Path, Path, Any, Any], tmp_path: Path, fmt: str) -> None:
    ex_path, ev_path, exposures, events = logs
    out = tmp_path / f"out.{fmt}"
    res = run(
        "analyze", str(ex_path), str(ev_path), "-m", METRICS[0], "--format", fmt, "-o", str(out)
    )
    assert res.exit_code == 0, res.stderr
    text = out.read_text()
    want = analyze(exposures, events, [METRICS[0]])
    assert text == want.render(fmt)
    if fmt == "csv":
        rows = list(pcsv.read_csv(pa.BufferReader(text.encode())).to_pylist())
        assert rows[0]["p_value"] == pytest.approx(want.comparisons[0].p_value, rel=1e-12)
    elif fmt == "markdown":
        lines = text.splitlines()  # the units and the settings are paragraphs before it
        assert lines[0].startswith("Units: ") and lines[1] == ""
        assert lines[4].startswith("| metric | variant | n |")
    else:
        assert r"\toprule" in text and "SRM check" in text


def test_analyze_table_is_one_value_per_row_when_wider_than_the_terminal(
    logs: tuple[Path, Path, Any, Any],
) -> None:
    from ranklens.render.online import analysis_table
    from ranklens.render.table import to_text

    _, _, exposures, events = logs
    result = analyze(exposures, events, [METRICS[0]])
    narrow = to_text(analysis_table(result), color=False, max_width=60)
    lines = narrow.splitlines()
    assert lines[0].startswith("Units: ") and lines[2].split() == [
        "metric",
        "variant",
        "metric",
        "value",
    ]
    assert any(line.split()[:3] == ["conversion", "treatment", "verdict"] for line in lines)
    wide = to_text(analysis_table(result), color=False)  # piped: no limit
    assert "rel. diff [CI]" in wide.splitlines()[2]


# ---------------------------------------------------------------------------------------
# analyze from units, sums, and ab assign's output
# ---------------------------------------------------------------------------------------
def _per_unit(exposures: Any, events: Any) -> Any:
    """One row per unit: converted, clicks, impressions (every event is after exposure)."""
    counts = events.pivot_table(
        index="unit", columns="event", values="value", aggfunc="count", fill_value=0
    )
    out = exposures[["unit", "variant"]].set_index("unit").join(counts).fillna(0)
    out["converted"] = (out["purchase"] > 0).astype(float)
    return out.reset_index().rename(columns={"click": "clicks", "impression": "impressions"})


UNIT_METRICS = ["conversion=proportion(converted)", "ctr=ratio(clicks, impressions)"]


def _same_json(got: str, want: Any) -> None:
    a, b = json.loads(got), json.loads(want.to_json())
    for ca, cb in zip(a["comparisons"], b["comparisons"], strict=True):
        for key in (
            "estimate",
            "control_estimate",
            "diff",
            "ci_lower",
            "ci_upper",
            "p_value",
            "p_adjusted",
            "statistic",
        ):
            assert ca[key] == pytest.approx(cb[key], rel=1e-9, abs=1e-12), key


def test_analyze_units_and_stats_equal_the_logs(
    logs: tuple[Path, Path, Any, Any], tmp_path: Path
) -> None:
    from ranklens.online import stats_columns

    _, _, exposures, events = logs
    want = analyze(exposures, events, METRICS, control="control")
    units = _per_unit(exposures, events)
    units_path = tmp_path / "units.csv"
    units.to_csv(units_path, index=False)
    res = run(
        "analyze",
        "--units",
        str(units_path),
        "-m",
        UNIT_METRICS[0],
        "-m",
        UNIT_METRICS[1],
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    _same_json(res.output, want)
    g = units.groupby("variant")
    sums = pd.DataFrame(
        {
            "count": g.size(),
            "converted_sum": g["converted"].sum(),
            "clicks_sum": g["clicks"].sum(),
            "clicks_sum_sq": g["clicks"].apply(lambda x: (x * x).sum()),
            "impressions_sum": g["impressions"].sum(),
            "impressions_sum_sq": g["impressions"].apply(lambda x: (x * x).sum()),
            "clicks_impressions_sum": (units["clicks"] * units["impressions"])
            .groupby(units["variant"])
            .sum(),
        }
    ).reset_index()
    assert set(stats_columns(UNIT_METRICS)) <= set(sums.columns)
    stats_path = tmp_path / "stats.parquet"
    sums.to_parquet(stats_path)
    res = run(
        "analyze",
        "--stats",
        str(stats_path),
        "-m",
        UNIT_METRICS[0],
        "-m",
        UNIT_METRICS[1],
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    _same_json(res.output, want)


def test_assign_output_joins_events_and_feeds_analyze(tmp_path: Path) -> None:
    """ab assign's table (unit, <experiment>) is the exposures of ab analyze as written;
    joined to per-unit values it is the --units table, as written."""
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(f"u{i}" for i in range(300)) + "\n")
    out = tmp_path / "assign.csv"
    res = run(
        "assign",
        str(ids),
        "-e",
        "exp",
        "--variants",
        "control=1,treatment=1",
        "-o",
        str(out),
        "--quiet",
    )
    assert res.exit_code == 0, res.output
    assigned = pd.read_csv(out)
    rng = np.random.default_rng(3)
    buys = rng.poisson(0.5, len(assigned))
    events = pd.DataFrame(
        {
            "unit": np.repeat(assigned["unit"], buys),
            "time": 1.0,
            "event": "purchase",
            "value": rng.gamma(2.0, 5.0, buys.sum()),
        }
    )
    ev_path = tmp_path / "events.csv"
    events.to_csv(ev_path, index=False)
    res = run(
        "analyze",
        str(out),
        str(ev_path),
        "-m",
        "revenue=mean(purchase)",
        "-e",
        "exp",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    want = analyze(
        assigned.rename(columns={"exp": "variant"}), events, ["revenue=mean(purchase)"], time=None
    )
    _same_json(res.output, want)
    per_unit = assigned.merge(
        events.groupby("unit")["value"].sum().rename("revenue"),
        left_on="unit",
        right_index=True,
        how="left",
    ).fillna(0)
    units_path = tmp_path / "units.csv"
    per_unit.to_csv(units_path, index=False)
    res = run(
        "analyze",
        "--units",
        str(units_path),
        "-m",
        "revenue=mean(revenue)",
        "-e",
        "exp",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    _same_json(res.output, want)
    # units outside the experiment are blank: an error saying what to do, or left out
    res = run(
        "assign",
        str(ids),
        "-e",
        "exp",
        "--variants",
        "control=1,treatment=1",
        "--traffic",
        "0.5",
        "-o",
        str(out),
        "--quiet",
    )
    res = run("analyze", str(out), str(ev_path), "-m", "revenue=mean(purchase)", "-e", "exp")
    assert res.exit_code == 3
    assert "assign.csv:" in res.output and "--unknown-variants exclude" in res.output
    res = run(
        "analyze",
        str(out),
        str(ev_path),
        "-m",
        "revenue=mean(purchase)",
        "-e",
        "exp",
        "--unknown-variants",
        "exclude",
    )
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(
    ("exposures", "events", "message"),
    [
        (
            "unit,variant\nu1,control\n,treatment\n",
            "unit,event\nu1,buy\n",
            "exposures.csv:3: exposures column 'unit' is blank",
        ),
        (
            "unit,variant\nu1,control\nu2,\n",
            "unit,event\nu1,buy\n",
            "exposures.csv:3: exposures has no variant",
        ),
        (
            "unit,variant\nu1,control\nu2,control\n",
            "unit,event\nu1,buy\n",
            "exposures.csv: exposures: every unit is in variant 'control'; an A/B test needs at "
            "least two variants",
        ),
        ("unit,variant\nu1,control\nu2,b\n", "", "events.csv: the file is empty"),
        (
            "unit,variant\nu1,control\nu2,b\n",
            "unit,event\n",
            "events.csv: the file has a header but no rows",
        ),
        (
            "unit,variant\nu1,control\nu2,b\n",
            "unit,event\nu1,buy\n,buy\n",
            "events.csv:3: events column 'unit' is blank",
        ),
    ],
)
def test_analyze_input_errors_name_file_and_line(
    tmp_path: Path, exposures: str, events: str, message: str
) -> None:
    (tmp_path / "exposures.csv").write_text(exposures)
    (tmp_path / "events.csv").write_text(events)
    res = run(
        "analyze",
        str(tmp_path / "exposures.csv"),
        str(tmp_path / "events.csv"),
        "-m",
        "buyers=proportion(buy)",
        "--control",
        "control",
    )
    assert res.exit_code == 3
    assert message in res.output, res.output
    assert res.output.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--units", "u.csv", "--stats", "s.csv"], "exactly one of them"),
        (["e.csv"], "EVENTS is missing"),
        ([], "exactly one of them"),
        (["--units", "u.csv", "--cuped"], "--cuped need(s) the event logs"),
        (["e.csv", "v.csv", "--covariate", "x=y"], "--covariate goes with --units or --stats"),
        (["--units", "u.csv", "--covariate", "xy"], "expected METRIC=COLUMN"),
    ],
)
def test_analyze_source_usage_errors(args: list[str], message: str) -> None:
    res = run("analyze", *args, "-m", "revenue=mean(revenue)")
    assert res.exit_code == 2
    assert message in res.output


def test_analyze_reads_the_variant_column_as_text(tmp_path: Path) -> None:
    """Variants 01 and 02 stay 01 and 02 (they were read as the numbers 1 and 2, which
    the plan does not know), from the logs, a table of units and one of sums, whether
    the column is 'variant' or the experiment's name."""
    n = 40
    variant = ["01" if i % 2 else "02" for i in range(n)]
    units = [f"u{i}" for i in range(n)]
    (tmp_path / "e.csv").write_text(
        "unit,variant,time\n" + "".join(f"{u},{v},0\n" for u, v in zip(units, variant, strict=True))
    )
    (tmp_path / "v.csv").write_text(
        "unit,time,event,value\n" + "".join(f"{u},1,buy,{i % 7}\n" for i, u in enumerate(units))
    )
    (tmp_path / "u.csv").write_text(
        "unit,exp,revenue\n"
        + "".join(f"{u},{v},{i % 7}\n" for i, (u, v) in enumerate(zip(units, variant, strict=True)))
    )
    (tmp_path / "s.csv").write_text(
        "variant,count,revenue_sum,revenue_sum_sq\n01,20,60,240\n02,20,60,220\n"
    )
    for args in (
        [str(tmp_path / "e.csv"), str(tmp_path / "v.csv"), "-m", "r=mean(buy)"],
        ["--units", str(tmp_path / "u.csv"), "-e", "exp", "-m", "r=mean(revenue)"],
        ["--stats", str(tmp_path / "s.csv"), "-m", "r=mean(revenue)"],
    ):
        res = run("analyze", *args, "--weights", "01=1,02=1", "--format", "json")
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)["variants"] == ["01", "02"]
