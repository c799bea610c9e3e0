"""The ``ranklens`` command line: trec_eval's own regression outputs reproduced
line for line through ``ranklens evaluate --format trec`` (where
``../shared/conformance`` lies beside the repository; the evidence from a plain
clone is ``tests/conformance/test_trec_eval.py``), several runs in one
table, every output format parseable, ``ranklens metrics`` / ``example``, exit
codes, one-line errors and warnings on stderr, ``--debug`` and ``-o``.

Most tests call :data:`ranklens.cli.main` in-process through click's
``CliRunner``; a few run the installed console script in a subprocess to check
what a shell sees (exit status, no traceback).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ranklens
from ranklens.cli import main
from ranklens.metrics import REGISTRY
from tests.helpers import CONFORMANCE, NEEDS_CONFORMANCE, one_line_error

EXIT_USAGE = 2
EXIT_BAD_INPUT = 3


def invoke(*args: str | os.PathLike[str]) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _assert_one_line_error(result: Result, code: int, message: str | None = None) -> None:
    one_line_error(result, code, message=message)


# --------------------------------------------------------------------------------------
# trec_eval conformance through the command line


def _manifest_cases() -> list[tuple[str, list[str]]]:
    """(expected output file, trec_eval arguments) for every MANIFEST command we
    implement: not the preference / qrels_jg formats (-R) and not -Z.  Rows
    whose role does not start with a ``trec_eval`` command (after an optional
    parenthesised note) describe data files."""
    cases: list[tuple[str, list[str]]] = []
    if not (CONFORMANCE / "MANIFEST.tsv").is_file():
        return cases
    rows = (CONFORMANCE / "MANIFEST.tsv").read_text().splitlines()[1:]
    for row in rows:
        name, *_, command = row.split("\t")
        name = Path(name).name
        start = re.search(r"(?:^|\)\s*)(trec_eval\s.*)$", command)
        if start is None:
            continue
        command = start.group(1)
        also = re.search(r"\(also:?\s*([^)]*)\)", command)
        command = command[: also.start()] if also else command
        args = shlex.split(command)[1:]
        if any(a.startswith(("-R", "-Z")) for a in args):
            continue
        # we do not implement relstring (a string, not a measure): drop it
        args = [a for a in args if not a.startswith("-mrelstring")]
        cases.append((name, args))
        if also:
            files = also.group(1).split()
            if len(files) == 2:
                cases.append((name, [*args[:-2], *files]))
    return cases


CASES = _manifest_cases()


def _expected_lines(name: str) -> list[str]:
    return [
        line
        for line in (CONFORMANCE / name).read_text().splitlines()
        if not line.startswith("relstring")
    ]


def _cli_args(args: list[str]) -> list[str]:
    """trec_eval's arguments as given, with the file names made absolute."""
    return [str(CONFORMANCE / a) if (CONFORMANCE / a).is_file() else a for a in args]


@NEEDS_CONFORMANCE
def test_manifest_cases_cover_the_expected_outputs() -> None:
    names = {name for name, _ in CASES}
    assert names == {
        "out.302.iprec.v10",
        "out.comment.test",
        "out.test",
        "out.test.a",
        "out.test.aq",
        "out.test.aqc",
        "out.test.aqcM",
        "out.test.aql",
        "out.test.meas_params",
    }
    assert ("out.test", ["qrels.test.with-comments", "results.test"]) in CASES


@NEEDS_CONFORMANCE
@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}:{' '.join(a)}" for n, a in CASES] or None)
def test_trec_eval_output_line_for_line(name: str, args: list[str]) -> None:
    result = invoke("evaluate", *_cli_args(args), "--format", "trec")
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert result.stdout.splitlines() == _expected_lines(name)
    if name == "out.comment.test":
        # results.comment.test has 270 topics without judgments (trec_eval skips them)
        assert result.stderr.startswith("ranklens: warning: ")
    else:
        assert result.stderr == ""


@NEEDS_CONFORMANCE
@pytest.mark.parametrize(
    "args",
    [
        ["-m", "all_trec", "-q", "-c", "-M", "100"],
        ["-m", "all_trec", "-q", "-c", "--depth", "100", "--missing", "zero"],
        ["--metric", "all_trec", "--per-query", "-c", "-M100"],
    ],
)
def test_spelled_out_options_give_the_same_output(args: list[str]) -> None:
    result = invoke(
        "evaluate",
        CONFORMANCE / "qrels.test",
        CONFORMANCE / "results.trunc",
        *args,
        "--format",
        "trec",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == _expected_lines("out.test.aqcM")


@NEEDS_CONFORMANCE
def test_several_cutoffs_and_separate_rel_threshold() -> None:
    result = invoke(
        "evaluate",
        CONFORMANCE / "qrels.rel_level",
        CONFORMANCE / "results.test",
        "-m",
        "all_trec",
        "-q",
        "-l",
        "2",
        "--format",
        "trec",
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == _expected_lines("out.test.aql")
    result = invoke(
        "evaluate",
        CONFORMANCE / "qrels.test",
        CONFORMANCE / "results.test",
        "-m",
        "P.5,7,3",
        "--format",
        "trec",
    )
    assert (
        result.stdout.splitlines()
        == [
            line
            for line in _expected_lines("out.test.meas_params")
            if line.startswith("P_") and "\tall\t" in line
        ]
        == [
            "P_3                   \tall\t0.2222",
            "P_5                   \tall\t0.2667",
            "P_7                   \tall\t0.3333",
        ]
    )


# --------------------------------------------------------------------------------------
# small files for the rest

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 0\n"
RUN_A = "q1 Q0 d1 1 0.9 bm25\nq1 Q0 d2 2 0.5 bm25\nq2 Q0 d4 1 1.0 bm25\nq2 Q0 d1 2 0.5 bm25\n"
RUN_B = "q1 Q0 d3 1 0.9 dense\nq1 Q0 d2 2 0.5 dense\nq2 Q0 d1 1 1.0 dense\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "qrels": _write(tmp_path / "qrels.txt", QRELS),
        "a": _write(tmp_path / "a.run", RUN_A),
        "b": _write(tmp_path / "b.run", RUN_B),
    }


def _expected_summary(run_text: str, metrics: list[str]) -> dict[str, float]:
    qrels = ranklens.Qrels.from_dict(_nested(QRELS, 3))
    run = ranklens.Run.from_dict(_nested(run_text, 4))
    return ranklens.evaluate(qrels, run, metrics).summary()


def _nested(text: str, value_col: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        cols = line.split()
        out.setdefault(cols[0], {})[cols[2]] = float(cols[value_col])
    return out


METRICS = ["map", "ndcg@10", "P.5"]


def test_several_runs_one_table(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate", files["qrels"], files["a"], files["b"], *[f"-m{m}" for m in METRICS]
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines[0].split() == ["run", *METRICS]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line[0].isalnum()}
    assert set(rows) == {"bm25", "dense"}
    for name, text in (("bm25", RUN_A), ("dense", RUN_B)):
        want = _expected_summary(text, METRICS)
        assert [float(v) for v in rows[name]] == [round(want[m], 4) for m in METRICS]
    assert "\x1b[" not in result.stdout  # no ANSI styles when not on a terminal


def test_csv_output(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate",
        files["qrels"],
        files["a"],
        files["b"],
        "-m",
        "map",
        "-m",
        "ndcg@10",
        "--format",
        "csv",
    )
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["run"] for r in rows] == ["bm25", "dense"]
    for row, text in zip(rows, (RUN_A, RUN_B), strict=True):
        want = _expected_summary(text, ["map", "ndcg@10"])
        assert float(row["map"]) == want["map"]  # full precision
        assert float(row["ndcg@10"]) == want["ndcg@10"]


def test_csv_output_per_query(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate", files["qrels"], files["a"], files["b"], "-m", "map", "-q", "--format", "csv"
    )
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(r["run"], r["query"]) for r in rows] == [
        ("bm25", "q1"),
        ("bm25", "q2"),
        ("dense", "q1"),
        ("dense", "q2"),
    ]


def test_json_output(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate",
        files["qrels"],
        files["a"],
        files["b"],
        *[f"-m{m}" for m in METRICS],
        "--format",
        "json",
        "--per-query",
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [r["run"] for r in data["runs"]] == ["bm25", "dense"]
    for entry, text in zip(data["runs"], (RUN_A, RUN_B), strict=True):
        assert entry["summary"] == _expected_summary(text, METRICS)
        assert set(entry["per_query"]["map"]) == {"q1", "q2"}
        assert entry["conventions"]["ties"] == "trec"


def test_markdown_output(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate",
        files["qrels"],
        files["a"],
        files["b"],
        "-m",
        "map",
        "-m",
        "P.5",
        "--format",
        "markdown",
    )
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    cells = [
        [c.strip().strip("*") for c in line.strip().strip("|").split("|")] for line in lines
    ]  # the best value of each metric is **bold**
    assert cells[0] == ["run", "map", "P.5"]
    assert all(re.fullmatch(r":?-+:?", c) for c in cells[1])
    assert [row[0] for row in cells[2:]] == ["bm25", "dense"]
    want = _expected_summary(RUN_A, ["map", "P.5"])
    assert cells[2][1:] == [f"{want['map']:.4f}", f"{want['P.5']:.4f}"]


def test_latex_output(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate",
        files["qrels"],
        files["a"],
        files["b"],
        "-m",
        "map",
        "-m",
        "P.5",
        "--format",
        "latex",
    )
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == r"\begin{tabular}{lrr}" and lines[-1] == r"\end{tabular}"
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    assert [row.split(" & ")[0] for row in body] == ["bm25", "dense"]
    assert all(row.endswith(r" \\") and row.count(" & ") == 2 for row in body)
    assert r"run & map & P.5 \\" in lines


def test_trec_output_of_several_runs(files: dict[str, Path]) -> None:
    result = invoke(
        "evaluate",
        files["qrels"],
        files["a"],
        files["b"],
        "-m",
        "map",
        "--format",
        "trec",
        "-m",
        "runid",
    )
    assert result.stdout.splitlines() == [
        "runid                 \tall\tbm25",
        f"map                   \tall\t{_expected_summary(RUN_A, ['map'])['map']:6.4f}",
        "runid                 \tall\tdense",
        f"map                   \tall\t{_expected_summary(RUN_B, ['map'])['map']:6.4f}",
    ]


def test_runs_with_the_same_tag_get_distinct_rows(tmp_path: Path, files: dict[str, Path]) -> None:
    other = _write(tmp_path / "c.run", RUN_B.replace("dense", "bm25"))
    result = invoke("evaluate", files["qrels"], files["a"], other, "-m", "map", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len({r["run"] for r in rows}) == 2


def test_default_metrics(files: dict[str, Path]) -> None:
    result = invoke("evaluate", files["qrels"], files["a"], "--format", "csv")
    header = next(csv.reader(io.StringIO(result.stdout)))
    assert header[0] == "run" and len(header) > 2
    result = invoke("evaluate", files["qrels"], files["a"], "--format", "trec")
    names = [line.split("\t")[0].strip() for line in result.stdout.splitlines()]
    assert names[:5] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret"]


def test_tabular_inputs_with_custom_columns(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "qrels.csv", "user_id,item_id,rating\nu1,i1,1\nu1,i2,0\n")
    run = _write(tmp_path / "run.tsv", "uid\tiid\tp\nu1\ti1\t0.2\nu1\ti2\t0.9\n")
    result = invoke(
        "evaluate",
        qrels,
        run,
        "-m",
        "rr",
        "--format",
        "json",
        "--query-col",
        "uid",
        "--doc-col",
        "iid",
        "--score-col",
        "p",
        "--relevance-col",
        "rating",
    )
    # the column options apply to both files: user_id is not uid
    _assert_one_line_error(
        result,
        EXIT_BAD_INPUT,
        (
            f"{qrels}: no column named 'uid' for the query; the file has columns "
            "['user_id', 'item_id', 'rating']. Pass --query-col NAME."
        ),
    )
    # --qrels-format overrides the suffix: this CSV is not a TREC file
    result = invoke("evaluate", qrels, run, "-m", "rr", "--qrels-format", "trec")
    _assert_one_line_error(
        result,
        EXIT_BAD_INPUT,
        (f"{qrels}:1: expected 4 columns (query iter doc relevance), found 1."),
    )
    run2 = _write(tmp_path / "run2.tsv", "user_id\titem_id\tp\nu1\ti1\t0.2\nu1\ti2\t0.9\n")
    result = invoke("evaluate", qrels, run2, "-m", "rr", "--format", "json", "--score-col", "p")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0]["summary"] == {"rr": 0.5}


def test_output_file(tmp_path: Path, files: dict[str, Path]) -> None:
    out = tmp_path / "result.json"
    result = invoke(
        "evaluate", files["qrels"], files["a"], "-m", "map", "--format", "json", "-o", out
    )
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr == ""
    data = json.loads(out.read_text())
    assert data["runs"][0]["summary"] == _expected_summary(RUN_A, ["map"])
    trec = tmp_path / "result.trec"
    invoke(
        "evaluate", files["qrels"], files["a"], "-m", "map", "--format", "trec", "--output", trec
    )
    assert trec.read_text() == (
        f"map                   \tall\t{_expected_summary(RUN_A, ['map'])['map']:6.4f}\n"
    )


# --------------------------------------------------------------------------------------
# warnings


def test_run_queries_without_judgments_warn_on_stderr(
    tmp_path: Path, files: dict[str, Path]
) -> None:
    run = _write(tmp_path / "extra.run", RUN_A + "q9 Q0 d1 1 1.0 bm25\n")
    result = invoke("evaluate", files["qrels"], run, "-m", "map", "--format", "trec")
    assert result.exit_code == 0
    assert result.stderr.startswith(f"ranklens: warning: {run}: ")
    assert "\n" not in result.stderr.rstrip("\n")
    # the result is the same as without the extra query
    assert (
        result.stdout
        == invoke("evaluate", files["qrels"], files["a"], "-m", "map", "--format", "trec").stdout
    )


def test_run_sharing_no_query_with_the_qrels(tmp_path: Path, files: dict[str, Path]) -> None:
    run = _write(tmp_path / "other.run", "x1 Q0 d1 1 1.0 t\n")
    result = invoke("evaluate", files["qrels"], run, "-m", "map", "--format", "json")
    assert result.exit_code == 0
    assert result.stderr == (
        f"ranklens: warning: {run}: the run shares no query with the qrels, so every query "
        "scores as missing (--missing skip); check that the query ids match (e.g. 'q1' vs "
        "'1') and that this is the right qrels file.\n"
    )
    summary = json.loads(result.stdout)["runs"][0]["summary"]
    assert summary == {"map": None}  # no query evaluated: NaN, written as null
    result = invoke("evaluate", files["qrels"], run, "-m", "map", "-c", "--format", "json")
    assert json.loads(result.stdout)["runs"][0]["summary"] == {"map": 0.0}


# --------------------------------------------------------------------------------------
# errors and exit codes


def test_unknown_metric(files: dict[str, Path]) -> None:
    result = invoke("evaluate", files["qrels"], files["a"], "-m", "nosuch")
    _assert_one_line_error(
        result, EXIT_USAGE, "unknown metric 'nosuch'. Run `ranklens metrics` for the full list."
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["--format", "xml"],
        ["--ties", "random-ish"],
        ["-M", "0"],
        ["-M", "x"],
        ["--profile", "nope"],
    ],
)
def test_bad_options_are_usage_errors(files: dict[str, Path], args: list[str]) -> None:
    result = invoke("evaluate", files["qrels"], files["a"], *args)
    _assert_one_line_error(result, EXIT_USAGE)
    assert "ranklens evaluate --help" in result.stderr


def test_missing_arguments_and_unknown_command(files: dict[str, Path]) -> None:
    assert invoke("evaluate", files["qrels"]).exit_code == EXIT_USAGE
    assert invoke("evaluate").exit_code == EXIT_USAGE
    assert invoke("evalute", files["qrels"], files["a"]).exit_code == EXIT_USAGE


def test_c_conflicts_with_another_missing_policy(files: dict[str, Path]) -> None:
    result = invoke("evaluate", files["qrels"], files["a"], "-c", "--missing", "skip")
    assert result.exit_code == EXIT_USAGE
    assert "-c means --missing zero; do not combine it with --missing skip." in result.stderr


def test_unknown_input_format_option_is_a_usage_error(files: dict[str, Path]) -> None:
    result = invoke("evaluate", files["qrels"], files["a"], "--run-format", "xml")
    _assert_one_line_error(result, EXIT_USAGE)


def test_unknown_input_format_option_message(files: dict[str, Path]) -> None:
    """The choices are the library's list of formats (ranklens.io.FORMATS)."""
    result = invoke("evaluate", files["qrels"], files["a"], "--run-format", "xml")
    assert result.stderr.startswith("ranklens: error: Invalid value for '--run-format': 'xml'")
    assert "'trec', 'csv', 'tsv', 'parquet', 'jsonl', 'json'" in result.stderr


def test_bad_input_files(tmp_path: Path, files: dict[str, Path]) -> None:
    bad = _write(tmp_path / "bad.run", "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2\n")
    _assert_one_line_error(
        invoke("evaluate", files["qrels"], bad),
        EXIT_BAD_INPUT,
        f"{bad}:2: expected 6 columns (query Q0 doc rank score tag), found 4.",
    )
    score = _write(tmp_path / "score.run", "q1 Q0 d1 1 high t\n")
    _assert_one_line_error(
        invoke("evaluate", files["qrels"], score),
        EXIT_BAD_INPUT,
        f"{score}:1: the score 'high' is not a number.",
    )
    missing = tmp_path / "nope.run"
    _assert_one_line_error(
        invoke("evaluate", files["qrels"], missing),
        EXIT_BAD_INPUT,
        f"{missing}: no such file; check the path.",
    )
    _assert_one_line_error(
        invoke("evaluate", tmp_path, files["a"]),
        EXIT_BAD_INPUT,
        f"{tmp_path}: is a directory, not a file; give the path of a file in it.",
    )
    empty = _write(tmp_path / "empty.qrels", b"")
    _assert_one_line_error(
        invoke("evaluate", empty, files["a"]),
        EXIT_BAD_INPUT,
        f"{empty}: the file is empty; expected TREC lines.",
    )
    binary = _write(tmp_path / "bin.run", b"\x00\x01\x02\x03")
    _assert_one_line_error(
        invoke("evaluate", files["qrels"], binary),
        EXIT_BAD_INPUT,
        f"{binary}: looks like a binary file, not a TREC text file.",
    )
    latin = _write(tmp_path / "latin.run", "q1 Q0 caf\u00e9 1 1 t\n".encode("latin-1"))
    _assert_one_line_error(
        invoke("evaluate", files["qrels"], latin),
        EXIT_BAD_INPUT,
        f"{latin}:1: the file is not valid UTF-8 text; re-encode it as UTF-8.",
    )
    dup = _write(tmp_path / "dup.run", "q1 Q0 d1 1 0.9 t\nq1 Q0 d1 2 0.5 t\n")
    result = invoke("evaluate", files["qrels"], dup)
    _assert_one_line_error(result, EXIT_BAD_INPUT)
    assert result.stderr.startswith(
        f"ranklens: error: {dup}: lines 1 and 2 repeat (query 'q1', doc 'd1'); "
    )
    csv_file = _write(tmp_path / "run.csv", "a,b,c\nq1,d1,1\n")
    _assert_one_line_error(
        invoke("evaluate", files["qrels"], csv_file, "--score-col", "s"),
        EXIT_BAD_INPUT,
        f"{csv_file}: cannot tell which column holds the query; the file "
        "has columns ['a', 'b', 'c']. Pass --query-col NAME.",
    )


def test_arrow_parse_errors_are_bad_input(tmp_path: Path, files: dict[str, Path]) -> None:
    run = _write(tmp_path / "u.run", "q1 Q0 d1 1 1_0 t\n")
    _assert_one_line_error(invoke("evaluate", files["qrels"], run), EXIT_BAD_INPUT)


def test_debug_shows_the_traceback(tmp_path: Path, files: dict[str, Path]) -> None:
    bad = _write(tmp_path / "bad.run", "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2\n")
    result = invoke("--debug", "evaluate", files["qrels"], bad)
    assert result.exit_code == EXIT_BAD_INPUT
    assert "Traceback (most recent call last):" in result.stderr
    assert "ranklens.errors.InputError" in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"ranklens: error: {bad}:2: expected 6 columns (query Q0 doc rank score tag), found 4."
    )
    result = invoke("--debug", "evaluate", files["qrels"], files["a"], "-m", "nosuch")
    assert result.exit_code == EXIT_USAGE
    assert "Traceback (most recent call last):" in result.stderr


# --------------------------------------------------------------------------------------
# metrics and example


def test_metrics_lists_every_registry_metric() -> None:
    result = invoke("metrics")
    assert result.exit_code == 0 and result.stderr == ""
    # grouped by family: a heading "family: what it measures", then its metrics, indented
    lines = [line for line in result.stdout.splitlines() if line.startswith("  ")]
    headings = [line.split(":")[0] for line in result.stdout.splitlines() if line[:1].isalpha()]
    assert headings == sorted({d.domain for d in REGISTRY.values()}, key=headings.index)
    listed = [line.split()[0] for line in lines]
    assert sorted(listed) == sorted(REGISTRY)
    for line in lines:
        defn = REGISTRY[line.split()[0]]
        assert defn.summary in line
        for alias in defn.aliases:
            if alias != defn.name:
                assert alias in line


def test_metrics_ndcg_prints_its_definition() -> None:
    result = invoke("metrics", "ndcg")
    assert result.exit_code == 0
    defn = REGISTRY["ndcg"]
    lines = result.stdout.splitlines()
    assert lines[0] == f"ndcg: {defn.summary}"
    assert "aliases: " + ", ".join(defn.aliases) in lines
    assert "parameters:" in lines
    assert any(line.strip().startswith("gain (default") for line in lines)
    assert defn.doc.strip().splitlines()[0] in result.stdout


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_metrics_describes_each_metric(name: str) -> None:
    result = invoke("metrics", name)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{name}: {REGISTRY[name].summary}\n")


def test_metrics_by_alias_and_unknown_name() -> None:
    result = invoke("metrics", "map")
    assert result.exit_code == 0
    assert result.stdout.startswith("ap: ")
    result = invoke("metrics", "nosuch")
    _assert_one_line_error(
        result, EXIT_USAGE, "unknown metric 'nosuch'. Run `ranklens metrics` for the full list."
    )


def test_example() -> None:
    result = invoke("example")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert lines[0].split()[0] == "run"
    assert len(lines) >= 3
    data = json.loads(invoke("example", "--format", "json").stdout)
    (entry,) = data["runs"]
    assert entry["summary"] and all(0 <= v <= 1 for v in entry["summary"].values())


def test_help_and_version() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("evaluate", "metrics", "example"):
        assert command in result.stdout
    assert invoke("evaluate", "--help").exit_code == 0
    result = invoke("--version")
    assert result.exit_code == 0 and "version" in result.stdout


# --------------------------------------------------------------------------------------
# the installed console script, as a shell sees it


def _script() -> str:
    candidate = Path(sys.executable).parent / "ranklens"
    found = str(candidate) if candidate.is_file() else shutil.which("ranklens")
    if found is None:
        pytest.skip("the ranklens console script is not installed")
    return found


def _run_script(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONWARNINGS": "error::UserWarning"}
    return subprocess.run(
        [_script(), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_console_script_exit_codes(tmp_path: Path, files: dict[str, Path]) -> None:
    ok = _run_script(
        "evaluate", files["qrels"], files["a"], files["b"], "-m", "map", "--format", "trec"
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr == ""
    assert "\x1b[" not in ok.stdout
    assert [line.split("\t")[0].strip() for line in ok.stdout.splitlines()] == ["map", "map"]

    bad = _write(tmp_path / "bad.run", "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 x 0.5\n")
    proc = _run_script("evaluate", files["qrels"], bad)
    assert proc.returncode == EXIT_BAD_INPUT
    assert proc.stdout == ""
    assert proc.stderr == (
        f"ranklens: error: {bad}:2: expected 6 columns (query Q0 doc rank score tag), found 5.\n"
    )

    usage = _run_script("evaluate", files["qrels"], files["a"], "-m", "nosuch")
    assert usage.returncode == EXIT_USAGE
    assert usage.stderr == (
        "ranklens: error: unknown metric 'nosuch'. Run `ranklens metrics` for the full list.\n"
    )
    assert "Traceback" not in proc.stderr + usage.stderr


def test_console_script_debug_traceback(tmp_path: Path, files: dict[str, Path]) -> None:
    proc = _run_script("--debug", "evaluate", files["qrels"], tmp_path / "nope.run")
    assert proc.returncode == EXIT_BAD_INPUT
    assert "Traceback (most recent call last):" in proc.stderr
    assert proc.stderr.endswith(
        f"ranklens: error: {tmp_path / 'nope.run'}: no such file; check the path.\n"
    )


def test_unjudged_queries_scored_zero_on_the_command_line(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\n")
    run = tmp_path / "r.txt"
    run.write_text("q1 Q0 a 1 1.0 t\nq2 Q0 b 1 1.0 t\n")
    out = CliRunner().invoke(
        main,
        [
            "evaluate",
            str(qrels),
            str(run),
            "-m",
            "map",
            "--unjudged",
            "zero",
            "--per-query",
            "--format",
            "csv",
        ],
    )
    assert out.exit_code == 0, out.output
    assert "q2" in out.stdout and "warning" not in out.output


def test_judged_only_flag_is_trec_eval_minus_j(tmp_path: Path) -> None:
    """-J throws out unjudged documents before scoring; a query whose documents are all
    unjudged stays, as an empty ranking."""
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 1\n")
    run.write_text("q1 Q0 x 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 1.0 t\nq2 Q0 y 1 1.0 t\n")
    plain = CliRunner().invoke(
        main,
        ["evaluate", str(qrels), str(run), "-m", "P.1", "-m", "num_ret", "-q", "--format", "trec"],
    )
    judged = CliRunner().invoke(
        main,
        [
            "evaluate",
            str(qrels),
            str(run),
            "-m",
            "P.1",
            "-m",
            "num_ret",
            "-q",
            "--format",
            "trec",
            "-J",
        ],
    )
    assert plain.exit_code == judged.exit_code == 0, (plain.output, judged.output)
    rows = {tuple(line.split()[:2]): line.split()[2] for line in judged.stdout.splitlines()}
    assert rows[("P_1", "q1")] == "1.0000" and rows[("num_ret", "q1")] == "2"
    assert rows[("num_ret", "q2")] == "0" and rows[("num_ret", "all")] == "2"
    before = {tuple(line.split()[:2]): line.split()[2] for line in plain.stdout.splitlines()}
    assert before[("P_1", "q1")] == "0.0000" and before[("num_ret", "all")] == "4"


def test_collection_size_is_trec_eval_minus_n_upper(tmp_path: Path) -> None:
    """-N (--collection-size) gives utility's non-relevant documents not retrieved."""
    qrels = _write(tmp_path / "qrels.txt", "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
    run = _write(tmp_path / "run.txt", "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    # n = 2, RR = 1, R = 2: 1*1 - 1*1 + 0*1 + 1*(N + 1 - 2 - 2)
    for args, want in (
        ([], "-3.0000"),
        (["-N", "100"], "97.0000"),
        (["--collection-size", "10"], "7.0000"),
    ):
        res = invoke("evaluate", qrels, run, "-m", "utility.1,-1,0,1", "--format", "trec", *args)
        assert res.exit_code == 0, res.output
        assert res.stdout.split() == ["utility_1,-1,0,1", "all", want]
    bad = invoke("evaluate", qrels, run, "-N", "-5")
    _assert_one_line_error(bad, EXIT_USAGE)
    assert "'--collection-size' / '-N': -5 is not in the range x>=0" in bad.stderr
    res = invoke(
        "compare", qrels, run, run, "-m", "utility.1,-1,0,1", "-N", "100", "--format", "json"
    )
    if res.exit_code == 0:  # scipy present
        assert json.loads(res.stdout)["rows"][0]["mean"] == 97.0


@pytest.mark.parametrize("fmt", ["trec", "table", "markdown", "latex", "json"])
def test_no_summary_is_trec_eval_minus_n(tmp_path: Path, fmt: str) -> None:
    """-n leaves out the aggregate over the queries (with -q); without -q it is a usage
    error (nothing would be printed)."""
    qrels = _write(tmp_path / "qrels.txt", "q1 0 a 1\nq2 0 b 1\n")
    run = _write(tmp_path / "run.txt", "q1 Q0 a 1 2.0 t\nq2 Q0 c 1 1.0 t\n")
    full = invoke("evaluate", qrels, run, "-m", "P.1", "-q", "--format", fmt)
    cut = invoke("evaluate", qrels, run, "-m", "P.1", "-q", "-n", "--format", fmt)
    assert full.exit_code == cut.exit_code == 0, cut.output
    if fmt == "json":
        assert "summary" in json.loads(full.stdout)["runs"][0]
        assert "summary" not in json.loads(cut.stdout)["runs"][0]
        assert json.loads(cut.stdout)["runs"][0]["per_query"]["P.1"] == {"q1": 1.0, "q2": 0.0}
    else:
        assert re.search(r"\ball\b", full.stdout) and not re.search(r"\ball\b", cut.stdout)
        assert "q1" in cut.stdout and "q2" in cut.stdout
    bad = invoke("evaluate", qrels, run, "-n")
    _assert_one_line_error(bad, EXIT_USAGE)
    assert "give -q too" in bad.stderr


@pytest.mark.parametrize("command", ["evaluate", "compare", "plot", "ab"])
@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_output_path_that_cannot_be_written_is_one_line(
    tmp_path: Path, command: str, where: str
) -> None:
    """-o into a folder that does not exist, or onto a folder: one line, exit 2, before any
    input is read (evaluate, compare, plot and ab assign)."""
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    units = _write(tmp_path / "units.txt", "u1\nu2\n")
    (tmp_path / "dir.png").mkdir()
    out = (
        str(tmp_path / "nope" / "out.png")
        if where == "missing-folder"
        else str(tmp_path / "dir.png")
    )
    args = {
        "evaluate": ["evaluate", str(qrels), str(run)],
        "compare": ["compare", str(qrels), str(run), str(run), "--seed", "1"],
        "plot": ["plot", "cutoffs", str(qrels), str(run)],
        "ab": ["ab", "assign", str(units), "--experiment", "e", "--variants", "a=1,b=1"],
    }[command]
    result = CliRunner().invoke(main, [*args, "-o", out])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    if where == "missing-folder":
        assert "does not exist; create it first" in result.stderr
    else:
        assert "is a folder" in result.stderr or "is a directory" in result.stderr


@pytest.mark.parametrize(
    ("args", "want"),
    [
        (["-m", "P.5,10", "-m", "P.10,20"], ["P_5", "P_10"]),  # the first -m's cutoffs
        (["-m", "P", "-m", "P.7"], ["P_7"]),  # bare P takes P.7's
        (["-m", "map", "-m", "P.5", "-m", "num_q"], ["num_q", "map", "P_5"]),  # trec_eval order
        (["-m", "set_F.1,2", "-m", "set_F"], ["set_F_1,2"]),  # set_F reads the first weight
        (["-m", "ndcg", "-m", "ndcg.1=3"], ["ndcg_1=3"]),
        (
            ["-m", "set"],
            [
                "runid",
                "num_q",
                "num_ret",
                "num_rel",
                "num_rel_ret",
                "utility",
                "set_P",
                "set_relative_P",
                "set_recall",
                "set_map",
                "set_F",
            ],
        ),
        (
            ["-m", "official"],
            [
                "runid",
                "num_q",
                "num_ret",
                "num_rel",
                "num_rel_ret",
                "map",
                "gm_map",
                "Rprec",
                "bpref",
                "recip_rank",
            ],
        ),
        (["-m", "P.5 map"], ["map", "P_5"]),  # ir_measures: one argument
    ],
)
def test_measures_as_trec_eval_reads_them(tmp_path: Path, args: list[str], want: list[str]) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), *args, "--format", "trec"])
    assert result.exit_code == 0, result.output
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert names[: len(want)] == want


def test_ir_measures_names_in_one_argument(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n")
    result = CliRunner().invoke(
        main,
        [
            "evaluate",
            str(qrels),
            str(run),
            "-m",
            "nDCG@10 P@5 AP ndcg(gain=exp2, ideal=cut)@3",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["runs"][0]["summary"]) == [
        "nDCG@10",
        "P@5",
        "AP",
        "ndcg(gain=exp2, ideal=cut)@3",
    ]


def test_cli_errors_name_cli_options_not_python_keywords(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "qrels.txt", "q1 0 a 1\nq1 0 a 0\nq2 0 b 1\n")
    good = _write(tmp_path / "good.txt", "q1 0 a 1\nq2 0 b 1\n")
    run = _write(tmp_path / "run.txt", "q1 Q0 a 1 2.0 t\n")
    csv = _write(tmp_path / "run.csv", "query,doc,s\nq1,a,1\n")
    cases = [
        (["evaluate", str(qrels), str(run)], 3, "pass --duplicates max (the highest)"),
        (["evaluate", str(good), str(run), "--missing", "error"], 3, "Pass --missing zero"),
        (["evaluate", str(good), str(csv)], 3, "Pass --score-col NAME"),
        (["compare", str(qrels), str(run), str(run)], 3, "--duplicates first"),
    ]
    for args, code, want in cases:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == code, (args, result.output)
        assert want in result.stderr, (args, result.stderr)
        assert "='" not in result.stderr and "=<" not in result.stderr, result.stderr
    # the option exists and works
    result = CliRunner().invoke(
        main,
        ["evaluate", str(qrels), str(run), "--duplicates", "max", "-m", "P.1", "--format", "trec"],
    )
    assert result.exit_code == 0 and "P_1" in result.stdout


def test_silent_wrong_inputs_are_refused_or_said(tmp_path: Path) -> None:
    qrels = _write(tmp_path / "qrels.txt", "q1 0 a 1\nq1 0 b 0\n")
    run = _write(tmp_path / "run.txt", "q1 Q0 a 1 2.0 t1\nq1 Q0 b 2 1.0 t2\n")
    # a run given as the qrels (its rank would be read as the relevance: map 1.0)
    result = CliRunner().invoke(main, ["evaluate", str(run), str(run)])
    assert result.exit_code == 3 and "looks like a run line" in result.stderr
    # -l nan
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-l", "nan"])
    assert result.exit_code == 2
    assert result.stderr == "ranklens: error: --rel-threshold must be a finite number, got nan.\n"
    # two run tags: named after the last, and said
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-m", "map"])
    assert result.exit_code == 0 and "t2" in result.stdout
    assert "several run tags (e.g. 't1' and 't2')" in result.stderr
    # --query-col with only TREC files
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "--query-col", "q"])
    assert result.exit_code == 2 and "every input is a TREC file" in result.stderr
    # ab assign -o with a suffix it cannot write
    units = _write(tmp_path / "units.txt", "u1\nu2\n")
    result = CliRunner().invoke(
        main,
        [
            "ab",
            "assign",
            str(units),
            "--experiment",
            "e",
            "--variants",
            "a=1,b=1",
            "-o",
            str(tmp_path / "a.xlsx"),
        ],
    )
    assert result.exit_code == 2 and "cannot tell the format from '.xlsx'" in result.stderr
    assert not (tmp_path / "a.xlsx").exists()


def test_ids_round_trip_in_data_formats_and_are_escaped_for_display(tmp_path: Path) -> None:
    """An id with an ANSI escape, '|' or '<script>' keeps its exact bytes in CSV and
    JSON, and is escaped where it is displayed (table, Markdown, trec)."""
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    ids = ["q\x1b[31mred", "q|1", "q<script>"]
    qrels.write_text("".join(f"{q} 0 a 1\n" for q in ids))
    run.write_text("".join(f"{q} Q0 a 1 2.0 t\n" for q in ids))
    base = ["evaluate", str(qrels), str(run), "-m", "map", "-q"]
    csv_out = CliRunner().invoke(main, [*base, "--format", "csv"]).stdout
    got = {row["query"] for row in csv.DictReader(io.StringIO(csv_out))}
    assert got == set(ids)
    js = json.loads(CliRunner().invoke(main, [*base, "--format", "json"]).stdout)
    assert set(js["runs"][0]["per_query"]["map"]) == set(ids)
    md = CliRunner().invoke(main, [*base, "--format", "markdown"]).stdout
    assert "q\\|1" in md and "q&lt;script&gt;" in md and "\x1b" not in md
    for fmt in ("table", "trec"):
        text = CliRunner().invoke(main, [*base, "--format", fmt]).stdout
        assert "\x1b" not in text and "q\\x1b[31mred" in text, fmt


def test_runs_and_qrels_from_standard_input_and_pipes(tmp_path: Path) -> None:
    import gzip

    qrels = _write(tmp_path / "qrels.txt", "q1 0 a 1\nq1 0 b 0\n")
    run_text = "q1 Q0 b 1 2.0 t\nq1 Q0 a 2 1.0 t\n"
    args = ["evaluate", str(qrels), "-", "-m", "rr", "--format", "csv"]
    for data in (run_text.encode(), gzip.compress(run_text.encode())):  # plain or gzip
        result = CliRunner().invoke(main, args, input=data)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[1] == "t,0.5"
    result = CliRunner().invoke(
        main, ["evaluate", "-", str(tmp_path / "run.txt")], input=b"q1 0 a 1\n"
    )
    assert result.exit_code == 3 and "run.txt: no such file" in result.stderr
    # a pipe opened by path (/dev/stdin, as <(zcat run.gz) gives /dev/fd/N): read once, and
    # a repeated pair still names its lines
    dup = "q1 Q0 a 1 2.0 t\nq1 Q0 a 2 1.0 t\n"
    done = subprocess.run(
        [sys.executable, "-m", "ranklens", "evaluate", str(qrels), "/dev/stdin"],
        input=dup,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("ranklens: error: /dev/stdin: lines 1 and 2 repeat")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ranklens",
            "evaluate",
            str(qrels),
            "/dev/stdin",
            "-m",
            "rr",
            "--format",
            "csv",
        ],
        input=run_text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.splitlines()[1] == "t,0.5", done.stderr


def test_runs_on_different_queries_are_said_and_per_query_tables_end_with_all(
    tmp_path: Path,
) -> None:
    qrels = _write(tmp_path / "qrels.txt", "q1 0 a 1\nq2 0 b 1\n")
    full = _write(tmp_path / "x.txt", "q1 Q0 a 1 2.0 x\nq2 Q0 c 1 2.0 x\n")
    part = _write(tmp_path / "y.txt", "q1 Q0 a 1 2.0 y\n")
    result = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(full), str(part), "-m", "map", "-q"]
    )
    assert result.exit_code == 0
    assert "evaluated on different queries (x: 2, y: 1; 1 not in every run)" in result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[2:]]
    assert rows == [
        ["x", "q1", "1.0000"],
        ["x", "q2", "0.0000"],
        ["x", "all", "0.5000"],
        ["y", "q1", "1.0000"],
        ["y", "all", "1.0000"],
    ]
    result = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(full), str(part), "-m", "map", "-c"]
    )
    assert result.exit_code == 0 and result.stderr == ""


def test_example_says_where_its_files_are_and_what_to_try(tmp_path: Path) -> None:
    """Every line under "Try next:" runs as printed, in a shell's words (a subprocess of
    shlex.split(line, comments=True)), from a fresh folder: evaluate, compare and gate on
    the two bundled runs (the gate's rule passes: exit 0), report writes example.html."""
    pytest.importorskip("scipy")  # compare and report need the stats extra
    pytest.importorskip("statsmodels")
    result = CliRunner().invoke(main, ["example"])
    assert result.exit_code == 0
    text = result.stdout
    assert "The example files:" in text and "Try next:" in text
    assert "example_rerank.run" in text and "ranklens[stats]" not in text
    lines = text.split("Try next:\n", 1)[1].splitlines()
    commands = [words for words in (shlex.split(ln, comments=True) for ln in lines) if words]
    verbs = {"evaluate", "compare", "gate", "report", "metrics"}
    said = [next(w for w in words if w in verbs) for words in commands]
    assert said == ["evaluate", "evaluate", "compare", "gate", "report", "metrics"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for words in commands:
        done = subprocess.run(words, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (words, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, words
        assert done.stdout.strip() or words[-2:] == ["-o", "example.html"], words
    gate = commands[said.index("gate")]
    assert gate[gate.index("--baseline") + 1].endswith("example.run")
    assert gate[gate.index("gate") + 2].endswith("example_rerank.run")
    assert "<html" in (tmp_path / "example.html").read_text(encoding="utf-8")[:2000].lower()
    assert "Try next" not in CliRunner().invoke(main, ["example", "--format", "csv"]).stdout


def test_example_try_next_says_compare_and_report_need_the_stats_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without scipy/statsmodels the compare and report lines are preceded by a shell
    comment that names the extra (and the lines stay runnable as printed)."""
    from ranklens.cli import example

    monkeypatch.setattr(example, "find_spec", lambda name: None)
    text = example._try_next(example.example_paths(), "ranklens")
    lines = text.split("Try next:\n", 1)[1].splitlines()
    note = next(i for i, line in enumerate(lines) if "ranklens[stats]" in line)
    assert lines[note].strip().startswith("#")
    assert shlex.split(lines[note], comments=True) == []
    assert shlex.split(lines[note + 1])[:2] == ["ranklens", "compare"]
    monkeypatch.setattr(example, "find_spec", lambda name: object())
    assert "ranklens[stats]" not in example._try_next(example.example_paths(), "ranklens")


def test_example_files_keeps_its_two_paths_and_example_paths_adds_the_second_run() -> None:
    from ranklens.cli.example import example_files, example_paths
    from ranklens.io import read_trec_qrels, read_trec_run

    paths = example_paths()
    assert example_files() == (paths.qrels, paths.run)
    qrels = read_trec_qrels(paths.qrels)
    first, second = read_trec_run(paths.run), read_trec_run(paths.rerank)
    assert (first.name, second.name) == ("example_bm25", "example_rerank")
    assert set(qrels.query_ids) == {f"q{i}" for i in range(1, 9)}
    # the same 8 judged queries, the same 20 documents per query, in another order
    one, two = first.to_dict(), second.to_dict()
    assert set(one) == set(two) == set(qrels.query_ids)
    for query in one:
        assert set(one[query]) == set(two[query]) and len(two[query]) == 20, query
        assert sorted(one[query], key=one[query].get) != sorted(two[query], key=two[query].get)
