"""``ranklens gate``: exit codes 0 / 1 / 2 / 3, every rule option, the formats, the rules
file, stored baselines and the provenance refusals with their flags."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

from ranklens.cli import main
from tests.helpers import system_files


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return system_files(tmp_path)


def gate(*args: object) -> Result:
    return CliRunner().invoke(main, ["gate", *map(str, args)])


def test_pass_and_regression(files: dict[str, Path]) -> None:
    ok = gate(
        files["qrels"],
        files["good"],
        "--baseline",
        files["good"],
        "--max-drop",
        "ndcg@10=0.01",
        "--non-inferiority",
        "ndcg@10=0.005",
        "--min",
        "map=0.3",
    )
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("ranklens gate: PASSED") and "3 of 3 rules pass" in ok.output
    bad = gate(
        files["qrels"],
        files["bad"],
        "--baseline",
        files["good"],
        "--non-inferiority",
        "ndcg@10=0.005",
        "--max-drop",
        "map=2%",
    )
    assert bad.exit_code == 1, bad.output
    assert "FAIL non_inferiority ndcg@10 margin 0.005" in bad.output
    assert "one-sided paired t-test p =" in bad.output and "CI of the difference" in bad.output
    assert "FAIL max_drop map <= 2%" in bad.output


def test_formats(files: dict[str, Path], tmp_path: Path) -> None:
    args = [
        files["qrels"],
        files["bad"],
        "--baseline",
        files["good"],
        "--max-drop",
        "ndcg@10=0.01",
        "--min",
        "ndcg@10=0.0",
    ]
    junit = gate(*args, "--format", "junit")
    assert junit.exit_code == 1
    suite = ET.fromstring(junit.output).find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    doc = json.loads(gate(*args, "--format", "json").output)
    # rules come by kind: --min, --max-drop, --non-inferiority
    assert doc["passed"] is False and [r["passed"] for r in doc["rules"]] == [True, False]
    md = gate(*args, "--format", "markdown").output
    assert "| rule |" in md and "**FAIL**" in md
    out = tmp_path / "gate.xml"
    written = gate(*args, "--format", "junit", "-o", out)
    assert written.exit_code == 1 and "ranklens gate: FAILED" in written.output  # on stderr
    assert ET.parse(out).getroot().tag == "testsuites"


def test_rules_file_and_settings(files: dict[str, Path], tmp_path: Path) -> None:
    rules = tmp_path / "gate.toml"
    rules.write_text(
        '[settings]\nalpha = 0.1\ncorrection = "bonferroni"\n'
        '[non_inferiority]\n"ndcg@10" = 0.005\nmap = 0.005\n'
    )
    res = gate(
        files["qrels"],
        files["bad"],
        "--baseline",
        files["good"],
        "--rules",
        rules,
        "--format",
        "json",
    )
    doc = json.loads(res.output)
    assert res.exit_code == 1 and doc["settings"]["alpha"] == 0.1
    assert doc["settings"]["correction"] == "bonferroni" and len(doc["rules"]) == 2
    # the command line wins over the file's settings
    doc = json.loads(
        gate(
            files["qrels"],
            files["bad"],
            "--baseline",
            files["good"],
            "--rules",
            rules,
            "--alpha",
            "0.01",
            "--format",
            "json",
        ).output
    )
    assert doc["settings"]["alpha"] == 0.01
    rules.write_text("[max_drop]\nmap = 0.1\n[min]\nmap == 2\n")
    bad = gate(files["qrels"], files["good"], "--baseline", files["good"], "--rules", rules)
    assert bad.exit_code == 3 and f"{rules}:4: not valid TOML" in bad.output
    # a bad setting in the file is named as the file's setting, not as the --alpha option
    rules.write_text('[settings]\nalpha = 2\ncorrection = "nope"\n[min]\nmap = 0.1\n')
    bad = gate(files["qrels"], files["good"], "--baseline", files["good"], "--rules", rules)
    assert bad.exit_code == 3 and f"{rules}:2: the alpha setting must be" in bad.output
    assert "--alpha" not in bad.output and "e.g. alpha = 0.05" in bad.output
    rules.write_text('[settings]\ncorrection = "nope"\n[min]\nmap = 0.1\n')
    bad = gate(files["qrels"], files["good"], "--baseline", files["good"], "--rules", rules)
    assert bad.exit_code == 3 and f"{rules}:2: the correction setting must be" in bad.output
    assert "--correction" not in bad.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "no rule given"),
        (["--max-drop", "ndcg@10"], "write METRIC=VALUE"),
        (["--min", "ndcg@10=high"], "'high' is not a number"),
        (["--tag", "a=b", "--min", "map=0"], "--tag labels what --store records"),
        (["--correction", "nope", "--min", "map=0"], "'nope' is not one of"),
        (["--max-drop", "num_ret=1"], "no better direction"),
    ],
)
def test_usage_errors_exit_2(files: dict[str, Path], args: list[str], message: str) -> None:
    res = gate(files["qrels"], files["good"], "--baseline", files["good"], *args)
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output


def test_no_baseline_for_a_drop_is_a_data_error(files: dict[str, Path]) -> None:
    res = gate(files["qrels"], files["good"], "--max-drop", "map=0.1")
    assert res.exit_code == 3 and "--baseline RUN" in res.output
    assert gate(files["qrels"], files["good"], "--min", "map=0.1").exit_code == 0


def test_bad_data_exit_3(files: dict[str, Path], tmp_path: Path) -> None:
    missing = gate(files["qrels"], tmp_path / "absent.run", "--min", "map=0")
    assert missing.exit_code in (2, 3) and "absent.run" in missing.output
    junk = tmp_path / "junk.run"
    junk.write_text("q1 Q0 d1 1 notanumber x\n")
    assert gate(files["qrels"], junk, "--min", "map=0").exit_code == 3


def test_provenance_refusal_and_flags(files: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    assert (
        CliRunner()
        .invoke(
            main,
            [
                "evaluate",
                str(files["qrels"]),
                str(files["good"]),
                "-m",
                "ndcg@10",
                "--ties",
                "input",
                "--store",
                str(store),
            ],
        )
        .exit_code
        == 0
    )
    res = gate(
        files["qrels"], files["good"], "--baseline", f"{store}#1", "--max-drop", "ndcg@10=0.01"
    )
    assert res.exit_code == 3
    assert "different conventions (ties: 'trec' vs 'input')" in res.output
    assert "--allow-different-conventions" in res.output
    ok = gate(
        files["qrels"],
        files["good"],
        "--baseline",
        f"{store}#1",
        "--max-drop",
        "ndcg@10=0.01",
        "--allow-different-conventions",
    )
    assert ok.exit_code == 0 and "despite different conventions" in ok.output
    other = tmp_path / "other.qrels"
    other.write_text(files["qrels"].read_text().replace(" 2\n", " 1\n"))
    res = gate(
        other,
        files["good"],
        "--baseline",
        f"{store}#1",
        "--max-drop",
        "ndcg@10=1",
        "--ties",
        "input",
    )
    assert res.exit_code == 3 and "different qrels" in res.output
    assert "--allow-different-qrels" in res.output
    assert (
        gate(
            other,
            files["good"],
            "--baseline",
            f"{store}#1",
            "--max-drop",
            "ndcg@10=1",
            "--ties",
            "input",
            "--allow-different-qrels",
        ).exit_code
        == 0
    )


def test_store_baseline_and_recording(files: dict[str, Path], tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    CliRunner().invoke(
        main,
        [
            "evaluate",
            str(files["qrels"]),
            str(files["good"]),
            "-m",
            "ndcg@10",
            "-m",
            "map",
            "--store",
            str(store),
        ],
    )
    res = gate(
        files["qrels"],
        files["bad"],
        "--baseline",
        f"{store}#1",
        "--non-inferiority",
        "ndcg@10=0.005",
        "--store",
        store,
        "--tag",
        "pr=42",
    )
    assert res.exit_code == 1 and "recorded 1 result(s)" in res.output
    from ranklens.history import Store

    with Store(store) as s:
        rec = s.get(2)
    assert rec.command == "gate" and rec.tags == {"pr": "42"} and rec.run == "bad"
    absent = gate(files["qrels"], files["bad"], "--baseline", f"{store}#9", "--min", "map=0")
    assert absent.exit_code == 3 and "no record 9" in absent.output


def test_correction_spellings_are_those_of_compare(files: dict[str, Path]) -> None:
    # a deprecated spelling passes with a warning (as in compare); a typo gets a hint
    args = (
        files["qrels"],
        files["good"],
        "--baseline",
        files["good"],
        "--non-inferiority",
        "map=0.1",
    )
    res = gate(*args, "--correction", "fdr_bh", "--format", "json")
    assert res.exit_code in (0, 1), res.output
    assert "fdr_bh" in res.output and '"correction": "bh"' in res.output
    res = gate(*args, "--correction", "holmes")
    assert res.exit_code == 2 and "Did you mean 'holm'?" in res.output
