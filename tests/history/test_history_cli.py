"""``ranklens history`` and ``--store`` on evaluate and compare; stored records as
inputs of compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ranklens.cli import main
from ranklens.history import Store
from tests.helpers import system_files


def cli(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def stored(tmp_path: Path) -> tuple[dict[str, Path], Path]:
    files = system_files(tmp_path)
    store = tmp_path / "results.db"
    for run, model in (("good", "v1"), ("bad", "v2")):
        res = cli(
            "evaluate",
            files["qrels"],
            files[run],
            "-m",
            "ndcg@10",
            "-m",
            "map",
            "--store",
            store,
            "--tag",
            f"model={model}",
            "--tag",
            "split=dev",
        )
        assert res.exit_code == 0, res.output
        assert "recorded 1 result(s)" in res.output
    return files, store


def test_list_and_filters(stored: tuple[dict[str, Path], Path]) -> None:
    _, store = stored
    out = cli("history", store)
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert lines[0].split()[:4] == ["id", "time", "(UTC)", "run"]
    assert "good" in out.output and "bad" in out.output and "model=v1" in out.output
    doc = json.loads(cli("history", store, "--run", "bad", "--format", "json").output)
    assert [r["id"] for r in doc["records"]] == [2] and doc["records"][0]["tags"]["model"] == "v2"
    doc = json.loads(cli("history", store, "--tag", "model=v1", "--format", "json").output)
    assert [r["id"] for r in doc["records"]] == [1]
    doc = json.loads(
        cli("history", store, "--metric", "map", "--since", "1d", "--format", "json").output
    )
    assert len(doc["records"]) == 2 and "ndcg@10" not in doc["records"][0]
    empty = cli("history", store, "--until", "2001-01-01")
    assert empty.exit_code == 0 and "no record matches" in empty.output
    csv = cli("history", store, "--format", "csv").output
    assert csv.splitlines()[0].startswith("id,time,run,command,verdict,git_commit,tags,n_queries")


def test_show(stored: tuple[dict[str, Path], Path]) -> None:
    _, store = stored
    out = cli("history", store, "show", "1")
    assert out.exit_code == 0
    assert "record 1 of" in out.output and "by 'ranklens evaluate'" in out.output
    assert "model=v1 split=dev" in out.output and "qrels " in out.output
    doc = json.loads(cli("history", store, "show", "2", "-q", "--format", "json").output)
    assert doc["run"] == "bad" and set(doc["summary"]) == {"ndcg@10", "map"}
    assert len(doc["per_query"]["map"]) == 30 and doc["provenance"]["run_form"] == "canonical"
    md = cli("history", store, "show", "2", "--per-query", "--format", "markdown").output
    assert "| query | ndcg@10 | map |" in md


def test_show_a_record_whose_fingerprints_are_unknown(tmp_path: Path) -> None:
    # a large table gone before its fingerprint was read leaves it None in the record
    import dataclasses

    import ranklens
    from ranklens.ranking.provenance import Provenance

    qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}})
    res = ranklens.evaluate(qrels, ranklens.Run.from_dict({"q1": {"d1": 1.0}}), ["p@1"])
    doc = {**res.provenance.as_dict(), "qrels": None, "run": None}
    with Store(tmp_path / "results.db") as store:
        store.record(dataclasses.replace(res, provenance=Provenance.from_dict(doc)))
    out = cli("history", tmp_path / "results.db", "show", "1")
    assert out.exit_code == 0, out.output
    assert "qrels unknown, run unknown (canonical)" in out.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["show"], 2, "history PATH show ID"),
        (["show", "x"], 2, "history PATH show ID"),
        (["show", "\u00b2"], 2, "history PATH show ID"),  # a digit to isdigit(), not to int()
        (["list"], 2, "unexpected 'list'"),
        (["show", "9"], 3, "no record 9"),
        (["show", "1", "--run", "good"], 2, "show takes no filter"),
        (["--since", "yesterday-ish"], 2, "is not a time"),
        (["--tag", "novalue"], 2, "write KEY=VALUE"),
    ],
)
def test_errors(
    stored: tuple[dict[str, Path], Path], args: list[str], code: int, message: str
) -> None:
    _, store = stored
    res = cli("history", store, *args)
    assert res.exit_code == code, res.output
    assert message in res.output and "Traceback" not in res.output


def test_missing_store(tmp_path: Path) -> None:
    res = cli("history", tmp_path / "none.db")
    assert res.exit_code == 3 and "no such results store" in res.output
    assert not (tmp_path / "none.db").exists()


def test_compare_takes_stored_records_and_records(stored: tuple[dict[str, Path], Path]) -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("statsmodels")
    files, store = stored
    direct = cli(
        "compare",
        files["qrels"],
        files["good"],
        files["bad"],
        "-m",
        "ndcg@10",
        "-m",
        "map",
        "--seed",
        "1",
        "--format",
        "json",
    )
    mixed = cli(
        "compare",
        files["qrels"],
        f"{store}#1",
        files["bad"],
        "-m",
        "ndcg@10",
        "-m",
        "map",
        "--seed",
        "1",
        "--format",
        "json",
        "--store",
        store,
        "--tag",
        "via=compare",
    )
    assert mixed.exit_code == 0, mixed.output
    a, b = json.loads(direct.output), json.loads(mixed.output.split("ranklens: recorded")[0])
    assert a["rows"] == b["rows"] and a["tests"] == b["tests"]
    with Store(store) as s:
        (rec,) = s.records(tags={"via": "compare"})  # only the run read from a file
    assert rec.run == "bad" and rec.command == "compare"
    lacking = cli("compare", files["qrels"], f"{store}#1", files["bad"], "-m", "mrr")
    assert lacking.exit_code == 2 and "no values for ['mrr']" in lacking.output


def test_compare_warns_about_a_record_of_other_qrels(
    stored: tuple[dict[str, Path], Path], tmp_path: Path
) -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("statsmodels")
    files, store = stored
    other = tmp_path / "other.qrels"
    other.write_text(files["qrels"].read_text().replace(" 2\n", " 1\n"))
    res = cli("compare", other, f"{store}#1", files["bad"], "-m", "map")
    assert res.exit_code == 0 and "was evaluated on other qrels than" in res.output
    same = cli("compare", files["qrels"], f"{store}#1", files["bad"], "-m", "map")
    assert "other qrels" not in same.output


def test_plot_takes_stored_records_where_per_query_values_suffice(
    stored: tuple[dict[str, Path], Path], tmp_path: Path
) -> None:
    """plot diff and plot dist draw per-query values, which a stored record has; plot
    cutoffs and plot pr need rankings, so a stored record is refused in one line."""
    pytest.importorskip("matplotlib")
    files, store = stored
    for kind in ("diff", "dist"):
        out = tmp_path / f"{kind}.png"
        res = cli("plot", kind, files["qrels"], f"{store}#1", files["bad"], "-m", "map", "-o", out)
        assert res.exit_code == 0, res.output
        assert out.stat().st_size > 0
    res = cli(
        "plot", "cutoffs", files["qrels"], f"{store}#1", files["bad"], "-o", tmp_path / "c.png"
    )
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1
    assert "is a stored result" in res.stderr and "plot diff" in res.stderr


def test_a_gate_keeps_its_verdict_and_history_shows_it(tmp_path: Path) -> None:
    """``gate --store`` keeps the gate's verdict with the record; ``history`` shows which
    command made each record and the verdict of those a gate judged."""
    files = system_files(tmp_path)
    store = tmp_path / "results.db"
    passed = cli("gate", files["qrels"], files["good"], "--baseline", files["bad"],
                 "--min", "map=0", "--store", store, "--quiet")  # fmt: skip
    failed = cli("gate", files["qrels"], files["bad"], "--baseline", files["good"],
                 "--max-drop", "map=0", "--store", store, "--quiet")  # fmt: skip
    assert (passed.exit_code, failed.exit_code) == (0, 1), passed.output + failed.output
    assert (
        cli("evaluate", files["qrels"], files["good"], "--store", store, "--quiet").exit_code == 0
    )
    with Store(store, create=False) as s:
        records = s.records()
    assert [(r.command, r.passed) for r in records] == [
        ("gate", True),
        ("gate", False),
        ("evaluate", None),
    ]
    assert records[1].verdict is not None and records[1].verdict["passed"] is False
    listing = cli("history", store, "--format", "json")
    assert listing.exit_code == 0, listing.output
    rows = json.loads(listing.output)
    rows = rows["records"] if isinstance(rows, dict) else rows
    assert [(r["command"], r["verdict"]) for r in rows] == [
        ("gate", "passed"),
        ("gate", "failed"),
        ("evaluate", None),
    ]
    table = cli("history", store)
    assert "verdict" in table.output and "failed" in table.output, table.output
