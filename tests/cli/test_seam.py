"""The one seam between the command line and the library (issue 27): ranks read as
ranks, one vocabulary of options, one table of exit codes for every subcommand, the
same numbers as the Python API over the whole catalogue, and a start that imports
only what the command needs."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

import ranklens
from ranklens.cli import _COMMANDS, main
from ranklens.errors import ConventionError, InputError, RanklensWarning, StoreError

SRC = Path(ranklens.__file__).resolve().parents[1]


def invoke(*args: Any, input: str | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def recs(tmp_path: Path) -> dict[str, Path]:
    """The issue's case: held-out items and a top-2 list per user, ranked by position
    (rank 1 = best).  Hand-computed: u1's relevant b is at rank 2 (RR 1/2, AP@2 1/2),
    u2's relevant d at rank 2 too, so mrr = map@2 = 0.5 (as rank numbers read as scores,
    higher first, would make both 1.0)."""
    return {
        "held": _write(tmp_path / "held.csv", "user_id,item_id,rel\nu1,b,1\nu2,d,1\n"),
        "recs": _write(
            tmp_path / "recs.csv", "user_id,item_id,rank\nu1,a,1\nu1,b,2\nu2,c,1\nu2,d,2\n"
        ),
    }


def _summary(result: Result) -> dict[str, float]:
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    return dict(doc["runs"][0]["summary"]) if "runs" in doc else dict(doc["summary"])


# ------------------------------------------------------------------------------ ranks


def test_rank_col_reads_ranks_as_the_python_api_does(recs: dict[str, Path]) -> None:
    from ranklens.recsys import evaluate_interactions

    res = invoke(
        "evaluate", recs["held"], recs["recs"], "--rank-col", "rank", "-m", "mrr", "-m", "map@2",
        "--format", "json",
    )  # fmt: skip
    assert _summary(res) == {"mrr": 0.5, "map@2": 0.5}
    import pyarrow.csv as pacsv

    held = pacsv.read_csv(recs["held"])
    table = pacsv.read_csv(recs["recs"])
    py = evaluate_interactions(table, held, ["mrr", "map@2"], score=None, rank="rank")
    assert py.summary() == {"mrr": 0.5, "map@2": 0.5}


def test_a_rank_column_without_a_score_column_is_read_as_ranks_and_said(
    recs: dict[str, Path],
) -> None:
    res = invoke("evaluate", recs["held"], recs["recs"], "-m", "mrr", "--format", "json")
    assert _summary(res) == {"mrr": 0.5}
    notes = [line for line in res.stderr.splitlines() if "as ranks" in line]
    assert len(notes) == 1 and "--rank-col" in notes[0], res.stderr
    quiet = invoke(
        "evaluate", recs["held"], recs["recs"], "-m", "mrr", "--format", "json", "--quiet"
    )
    assert _summary(quiet) == {"mrr": 0.5} and quiet.stderr == ""


@pytest.mark.parametrize("command", ["evaluate", "compare", "gate", "report", "plot"])
def test_score_col_rank_is_refused_in_every_command_that_reads_runs(
    command: str, recs: dict[str, Path], tmp_path: Path
) -> None:
    args: list[Any] = [recs["held"], recs["recs"], recs["recs"], "--score-col", "rank"]
    if command == "plot":
        args = ["dist", *args, "-o", tmp_path / "x.png"]
    if command == "report":
        args += ["-o", tmp_path / "x.html"]
    if command == "gate":
        args = [recs["held"], recs["recs"], "--min", "mrr=0.1", "--score-col", "rank"]
    res = invoke(command, *args)
    assert res.exit_code == 2, res.output
    assert "--rank-col rank" in res.stderr and "Traceback" not in res.stderr


def test_rank_col_in_compare_and_gate(recs: dict[str, Path], tmp_path: Path) -> None:
    other = _write(tmp_path / "other.csv", "user_id,item_id,rank\nu1,b,1\nu1,a,2\nu2,d,1\nu2,c,2\n")
    res = invoke(
        "compare", recs["held"], recs["recs"], other, "-m", "mrr", "--rank-col", "rank",
        "--format", "json", "--seed", "1",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)["rows"]
    assert {r["system"]: r["mean"] for r in rows} == {"recs.csv": 0.5, "other.csv": 1.0}
    # the candidate's mrr is 1.0 (other), a floor of 0.75 passes; recs (0.5) fails it
    ok = invoke("gate", recs["held"], other, "--min", "mrr=0.75", "--rank-col", "rank")
    bad = invoke("gate", recs["held"], recs["recs"], "--min", "mrr=0.75", "--rank-col", "rank")
    assert (ok.exit_code, bad.exit_code) == (0, 1), (ok.output, bad.output)


def test_score_col_and_rank_col_exclude_each_other(recs: dict[str, Path]) -> None:
    res = invoke("evaluate", recs["held"], recs["recs"], "--score-col", "s", "--rank-col", "r")
    assert res.exit_code == 2 and "--rank-col" in res.stderr


def test_standard_input_twice_is_a_usage_error(recs: dict[str, Path]) -> None:
    res = invoke("evaluate", "-", "-", "-", input="q1 0 d1 1\n")
    assert res.exit_code == 2 and "standard input" in res.stderr
    assert "empty" not in res.stderr


# ------------------------------------------------------------------------- vocabulary


def _commands() -> Iterator[tuple[str, click.Command]]:
    for name in sorted(_COMMANDS):
        cmd = main.get_command(click.Context(main), name)
        assert cmd is not None
        if isinstance(cmd, click.Group):
            for sub in sorted(cmd.commands):
                yield f"{name} {sub}", cmd.commands[sub]
        else:
            yield name, cmd


COMMANDS = [name for name, _ in _commands()]


def _options(cmd: click.Command) -> dict[str, click.Option]:
    return {
        o: p
        for p in cmd.params
        if isinstance(p, click.Option)
        for o in [*p.opts, *p.secondary_opts]
    }


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_has_help_text(name: str) -> None:
    cmd = dict(_commands())[name]
    missing = [
        p.opts[0] for p in cmd.params if isinstance(p, click.Option) and not p.hidden and not p.help
    ]
    assert missing == [], f"{name}: options without help: {missing}"
    assert "%%" not in (cmd.help or "") + "".join(
        p.help or "" for p in cmd.params if isinstance(p, click.Option)
    )


@pytest.mark.parametrize("name", COMMANDS)
def test_one_vocabulary(name: str) -> None:
    """-q is per-query wherever it exists; --format offers table (the human table) where
    the command prints one; --store records (report reads a history with --history)."""
    opts = _options(dict(_commands())[name])
    if "-q" in opts:
        assert opts["-q"].name == "per_query", name
    fmt = opts.get("--format")
    # assign, the splitters, interleave lists, pool and sample write data only (--format:
    # the data files' format)
    data_only = name in ("ab assign", "interleave lists", "pool", "sample") or name.startswith(
        "split "
    )
    if fmt is not None and not data_only:
        assert isinstance(fmt.type, click.Choice) and "table" in fmt.type.choices, name
    if "--store" in opts and not opts["--store"].hidden:
        assert "Record" in (opts["--store"].help or ""), name
    if "--quiet" in opts:
        assert opts["--quiet"].is_flag and "-q" not in opts["--quiet"].opts, name


@pytest.mark.parametrize(
    "name",
    ["evaluate", "compare", "gate", "report", "plot", "score", "detect", "ab assign",
     "ab analyze", "ope"],
)  # fmt: skip
def test_quiet_and_memory_wherever_inputs_are_read(name: str) -> None:
    opts = _options(dict(_commands())[name])
    assert {"--quiet", "--memory"} <= set(opts), name
    if name in ("evaluate", "compare", "gate", "report", "plot"):
        assert "--rank-col" in opts
    if name in ("evaluate", "compare", "gate"):
        assert "--store" in opts


def test_memory_refuses_an_input_that_would_not_fit(tmp_path: Path) -> None:
    table = _write(tmp_path / "t.csv", "y_true,y_pred\n1,1\n0,1\n")
    small = invoke("score", table, "-m", "accuracy", "--memory", "1KB")
    assert small.exit_code == 3 and "--memory 1KB" in small.stderr
    big = invoke("score", table, "-m", "accuracy", "--memory", "8GB", "--format", "json")
    assert big.exit_code == 0 and json.loads(big.stdout) == {"accuracy": 0.5}


def test_the_convention_options_are_the_fields_of_conventions() -> None:
    """Generated from the library: one option per field (a profile sets the others),
    with the library's choices."""
    import dataclasses

    from ranklens.ranking.conventions import TIE_POLICIES, Conventions

    for name in ("evaluate", "compare", "gate", "report", "plot"):
        cmd = dict(_commands())[name]
        params = {p.name: p for p in cmd.params}
        for f in dataclasses.fields(Conventions):
            if f.name not in ("metric_defaults", "profile"):
                assert f.name in params, (name, f.name)
        ties = params["ties"]
        assert isinstance(ties.type, click.Choice) and tuple(ties.type.choices) == TIE_POLICIES


def test_gate_format_text_is_a_deprecated_table(recs: dict[str, Path]) -> None:
    new = invoke("gate", recs["held"], recs["recs"], "--min", "mrr=0.25", "--format", "table")
    old = invoke("gate", recs["held"], recs["recs"], "--min", "mrr=0.25", "--format", "text")
    assert new.exit_code == old.exit_code == 0
    assert new.stdout == old.stdout
    assert "deprecated" in old.stderr and "--format table" in old.stderr


def test_report_store_is_a_deprecated_history(recs: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "r.db"
    rec = invoke("evaluate", recs["held"], recs["recs"], "-m", "mrr", "--store", store, "--quiet")
    assert rec.exit_code == 0, rec.output
    for option in ("--history", "--store"):
        out = tmp_path / f"r{option}.html"
        res = invoke(
            "report",
            recs["held"],
            recs["recs"],
            "-m",
            "mrr",
            option,
            store,
            "-o",
            out,
            "--seed",
            "1",
        )
        assert res.exit_code == 0, res.output
        assert ("deprecated" in res.stderr) == (option == "--store")


def test_metrics_has_formats() -> None:
    res = invoke("metrics", "--format", "json")
    assert res.exit_code == 0
    names = {m["name"] for m in json.loads(res.stdout)["metrics"]}
    assert {"ap", "ndcg"} <= names
    csv = invoke("metrics", "--format", "csv")
    assert csv.exit_code == 0 and csv.stdout.splitlines()[0].startswith("name,")


def test_ab_assign_quiet_is_quiet_only(tmp_path: Path) -> None:
    units = _write(tmp_path / "u.txt", "a\nb\n")
    loud = invoke("ab", "assign", units, "-e", "x", "--variants", "c,t")
    quiet = invoke("ab", "assign", units, "-e", "x", "--variants", "c,t", "--quiet")
    assert loud.exit_code == quiet.exit_code == 0
    assert loud.stderr and quiet.stderr == ""
    assert invoke("ab", "assign", units, "-e", "x", "--variants", "c,t", "-q").exit_code == 2


# ------------------------------------------------------------------------- exit codes


def _raiser(error: BaseException) -> Any:
    def callback(*args: Any, **kwargs: Any) -> None:
        raise error

    return callback


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InputError("x.run:3: bad data"), 3),
        (StoreError("r.db: damaged"), 3),
        (ConventionError("ties='x' is not a convention"), 2),
        (click.UsageError("bad usage"), 2),
        (KeyboardInterrupt(), 130),
        (RuntimeError("a bug"), 4),
        (OSError(28, "No space left on device"), 3),
    ],
    ids=["input", "store", "convention", "usage", "interrupt", "internal", "oserror"],
)
def test_every_subcommand_maps_every_fault_to_its_exit_code(
    name: str, error: BaseException, code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one table of exit codes applies to every subcommand: 1 is never a fault."""
    cmd = dict(_commands())[name]
    monkeypatch.setattr(cmd, "callback", _raiser(error))
    args = [*name.split(), *(["x"] * sum(1 for p in cmd.params if isinstance(p, click.Argument)))]
    for p in cmd.params:  # the required options, any value: the command never runs
        if isinstance(p, click.Option) and p.required:
            args += [p.opts[0], "x.png"]
    if name == "plot":
        args[1] = "dist"
    res = CliRunner().invoke(main, args)
    assert res.exit_code == code, (name, res.output)
    assert "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


@pytest.mark.parametrize("name", COMMANDS)
def test_an_unknown_option_is_a_usage_error_everywhere(name: str) -> None:
    res = invoke(*name.split(), "--no-such-option")
    assert res.exit_code == 2 and res.stderr.startswith("ranklens: error:")


def _run(*args: str, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "ranklens", *args], stdout=stdout, stderr=subprocess.PIPE,
        text=True, env=env, check=False,
    )  # fmt: skip


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_output_to_a_full_device_is_one_line_not_a_traceback() -> None:
    with open("/dev/full", "w") as full:
        proc = _run("metrics", stdout=full)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.strip().startswith("ranklens: error: cannot write")
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_python_m_ranklens_is_named_ranklens() -> None:
    proc = _run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("ranklens, version ")


# ----------------------------------------------------------- the same numbers as Python


def _catalogue_metrics() -> list[str]:
    """Every ranking metric of the catalogue at a cutoff it takes (generated)."""
    from ranklens.metrics import REGISTRY

    out = []
    for defn in sorted(REGISTRY.values(), key=lambda d: d.name):
        if defn.domain != "ranking":
            continue
        suffix = {"required": "@3", "optional": "@3", "level": "@0.5", "multiple": "@1"}.get(
            defn.cutoff, ""
        )
        # the C/W/L models that need gains in [0, 1] (the grades here reach 3)
        unit = defn.name.startswith(("cwl_inst", "cwl_nerr"))
        out.append(defn.name + ("(gain=binary)" if unit else "") + suffix)
    return out


@pytest.fixture
def trec(tmp_path: Path) -> dict[str, Path]:
    qrels = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d9 1\nq2 0 d4 1\nq2 0 d5 0\nq3 0 d6 3\n"
    a = "q1 Q0 d1 1 0.9 a\nq1 Q0 d2 2 0.8 a\nq1 Q0 d7 3 0.7 a\nq1 Q0 d3 4 0.6 a\n"
    a += "q2 Q0 d5 1 0.9 a\nq2 Q0 d4 2 0.5 a\nq3 Q0 d8 1 0.4 a\nq3 Q0 d6 2 0.3 a\n"
    b = "q1 Q0 d3 1 0.9 b\nq1 Q0 d1 2 0.8 b\nq2 Q0 d4 1 0.9 b\nq3 Q0 d6 1 0.7 b\n"
    return {
        "qrels": _write(tmp_path / "qrels.txt", qrels),
        "a": _write(tmp_path / "a.run", a),
        "b": _write(tmp_path / "b.run", b),
    }


def _close(x: float | None, y: float) -> bool:
    if x is None:
        return math.isnan(y)
    return x == y or (math.isnan(x) and math.isnan(y))


def test_evaluate_gives_the_python_numbers_for_every_metric(trec: dict[str, Path]) -> None:
    names = _catalogue_metrics()
    qrels, run = ranklens.io.read_qrels(trec["qrels"]), ranklens.io.read_run(trec["a"])
    expected = ranklens.evaluate(qrels, run, names).summary()
    args = [a for m in names for a in ("-m", m)]
    got = _summary(invoke("evaluate", trec["qrels"], trec["a"], *args, "--format", "json"))
    assert set(got) == set(expected)
    bad = {m: (got[m], expected[m]) for m in expected if not _close(got[m], expected[m])}
    assert bad == {}


def test_compare_gives_the_python_numbers_for_every_metric(trec: dict[str, Path]) -> None:
    """compare's means (and intervals and p-values of the paired t-test) are those of
    ranklens.compare on the same runs, for every metric of the catalogue."""
    names = _catalogue_metrics()
    qrels = ranklens.io.read_qrels(trec["qrels"])
    runs = {n: ranklens.io.read_run(trec[n]) for n in ("a", "b")}
    args = [a for m in names for a in ("-m", m)]
    res = invoke("compare", trec["qrels"], trec["a"], trec["b"], *args, "--format", "json",
                 "--test", "t")  # fmt: skip
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)["rows"]
    with warnings.catch_warnings():  # (the same warnings as the CLI's, on its stderr)
        warnings.simplefilter("ignore", RanklensWarning)
        cmp = ranklens.compare(qrels, runs, names, baseline="a", test="t")
    expected = json.loads(cmp.render("json"))["rows"]
    assert len(got) == len(expected) == 2 * len(names)
    keys = ("system", "metric", "mean", "ci_low", "ci_high", "mean_diff", "p_value")
    assert [{k: r[k] for k in keys} for r in got] == [{k: r[k] for k in keys} for r in expected]


def _means_of(doc: Any, run: str) -> dict[str, float | None]:
    """A run's means in compare's JSON (a row per system and metric)."""
    return {r["metric"]: r["mean"] for r in doc["rows"] if r["system"] == run}


def test_gate_gives_the_python_numbers_for_every_metric(trec: dict[str, Path]) -> None:
    """A floor at each metric's Python value passes (the CLI's value is at least it);
    the same floor raised by 1e-9 on one metric fails: the CLI's value is exactly the
    Python one."""
    from ranklens.metrics import get_metric

    qrels, run = ranklens.io.read_qrels(trec["qrels"]), ranklens.io.read_run(trec["a"])
    names = [m for m in _catalogue_metrics() if get_metric(m).definition.higher_is_better is True]
    expected = ranklens.evaluate(qrels, run, names).summary()
    usable = {m: v for m, v in expected.items() if not math.isnan(v) and v > 0}
    floors = [a for m, v in usable.items() for a in ("--min", f"{m}={v!r}")]
    res = invoke("gate", trec["qrels"], trec["a"], *floors, "--format", "json")
    assert res.exit_code == 0, res.output
    first, value = next(iter(usable.items()))
    higher = invoke("gate", trec["qrels"], trec["a"], "--min", f"{first}={value + 1e-9!r}")
    assert higher.exit_code == 1, higher.output


# -------------------------------------------------------------------------- start-up


def _loaded(code: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('LOADED', sorted(sys.modules))"],
        capture_output=True, text=True, env=env, check=True,
    ).stdout  # fmt: skip
    return list(eval(out.rsplit("LOADED", 1)[1]))


HEAVY = ("numpy", "pyarrow", "scipy", "statsmodels", "pandas", "matplotlib", "sklearn")


@pytest.mark.parametrize("args", [["--help"], ["metrics"], ["metrics", "ndcg"], ["gate", "--help"]])
def test_the_start_imports_only_what_the_command_needs(args: list[str]) -> None:
    """``ranklens --help`` and ``ranklens metrics`` load no heavy dependency beyond what
    ``import ranklens`` itself loads (none, once the package imports lazily), and
    ``--help`` loads no command module; a command's ``--help`` loads no statistics;
    ``metrics NAME`` loads the kernel module whose docstring it prints (numpy), no more."""
    base = {m.split(".")[0] for m in _loaded("import ranklens") if m.split(".")[0] in HEAVY}
    loaded = _loaded(
        f"from ranklens.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass"
    )
    heavy = {m.split(".")[0] for m in loaded if m.split(".")[0] in HEAVY}
    if args[0] == "gate":
        assert heavy - base <= {"numpy", "pyarrow"}, heavy - base
    elif args == ["metrics", "ndcg"]:  # the definition's text is its kernel's docstring
        assert heavy - base <= {"numpy"}, heavy - base
    else:
        assert heavy - base == set(), heavy - base
    if args == ["--help"]:
        assert [m for m in loaded if m.startswith("ranklens.cli.")] == ["ranklens.cli._common"]


def test_try_next_names_a_command_that_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ranklens example``'s suggestions start with ``ranklens`` only when that is the
    program on PATH; else with the path of the running script (a venv not activated),
    else ``python -m ranklens``."""
    from ranklens.cli import example

    script = "/opt/venv/bin/ranklens"
    monkeypatch.setattr(example.sys, "argv", [script, "example"])
    monkeypatch.setattr(example.shutil, "which", lambda name: None)
    assert example.command_name() == script
    monkeypatch.setattr(example.shutil, "which", lambda name: script)
    monkeypatch.setattr(example.os.path, "realpath", lambda p: p)
    assert example.command_name() == "ranklens"
    monkeypatch.setattr(example.sys, "argv", ["-c"])
    monkeypatch.setattr(example.shutil, "which", lambda name: None)
    assert example.command_name() == f"{example.sys.executable} -m ranklens"


@pytest.mark.skipif(not os.path.exists("/proc/self/wchan"), reason="needs Linux /proc")
def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    """Ctrl-C while a command waits for its input (standard input, a pipe kept open):
    'ranklens: interrupted', exit 130, no traceback.  The signal is sent once the
    process is blocked reading the pipe (seen in /proc), not after a delay."""
    import signal

    qrels = _write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ranklens", "evaluate", str(qrels), "-"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        text=True,
    )  # fmt: skip
    try:
        wchan = Path(f"/proc/{proc.pid}/wchan")
        while proc.poll() is None and "pipe_read" not in wchan.read_text():
            pass  # started and importing: not yet reading standard input
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    # (click ends the terminal's ^C echo with a blank line first)
    assert err.strip() == "ranklens: interrupted" and out == ""
