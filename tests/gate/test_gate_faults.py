"""Faults of a gate: typed data errors (no query in common, a damaged stored record),
rules that can never pass or never fail, and what the JUnit output claims."""

from __future__ import annotations

import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ranklens
from ranklens.cli import main
from ranklens.errors import InputError, MetricParameterError, StoreError
from ranklens.gates import Rule, gate, read_rules
from ranklens.history import Store

QRELS = ranklens.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}, "q4": {"d": 1}})
CAND = ranklens.Run.from_dict({"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 1.0, "x": 2.0}}, name="cand")
BASE = ranklens.Run.from_dict({"q3": {"c": 2.0, "x": 1.0}, "q4": {"d": 1.0, "x": 2.0}}, name="base")


def test_no_query_in_common_is_a_data_error() -> None:
    with pytest.raises(InputError, match=r"cand.*2 queries.*base.*2 queries.*no query in common"):
        gate(QRELS, CAND, BASE, {"max_drop": {"p@1": 0.1}})


def test_no_query_in_common_exits_3_on_the_command_line(tmp_path: Path) -> None:
    qrels, cand, base = tmp_path / "q.txt", tmp_path / "c.run", tmp_path / "b.run"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    cand.write_text("q1 Q0 a 1 2 cand\n")
    base.write_text("q2 Q0 b 1 2 base\n")
    args = ["gate", str(qrels), str(cand), "--baseline", str(base), "--max-drop", "p@1=0.1"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 3, res.output
    assert "no query in common" in res.output


@pytest.mark.parametrize(
    ("kind", "text", "why"),
    [
        ("min", "ndcg@10=1.5", "no system can reach a floor of 1.5: the rule can never pass"),
        ("min", "ndcg@10=-0.5", "above a floor of -0.5: the rule can never fail"),
        ("max_drop", "ndcg@10=1.5", "drop by at most 1: allowing 1.5 means the rule can never"),
        ("max_drop", "map=150%", "at most 100% of the baseline: allowing 150%"),
        ("non_inferiority", "p@5=2", "a margin of 2 means the rule can never fail"),
    ],
)
def test_rules_outside_the_metrics_range_are_refused(kind: str, text: str, why: str) -> None:
    flag = {"min": "--min", "max_drop": "--max-drop", "non_inferiority": "--non-inferiority"}
    with pytest.raises(MetricParameterError) as caught:
        Rule.parse(kind, text)
    message = str(caught.value)
    assert message.startswith(f"{flag[kind]} {text}: ")  # the rule as the user wrote it
    assert why in message and "in [0, 1]" in message


@pytest.mark.parametrize("text", ["ndcg@10=1", "ndcg@10=0", "ndcg@10=1.0", "map=100%"])
def test_rules_at_the_edge_of_the_range_are_kept(text: str) -> None:
    Rule.parse("min" if "%" not in text else "max_drop", text)


def test_unreachable_rule_in_a_rules_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "gate.toml"
    path.write_text('[max_drop]\nmap = 0.01\n\n[min]\n"ndcg@10" = 1.5\n')
    with pytest.raises(InputError, match=rf"^{path}:5: min ndcg@10: .*can never pass"):
        read_rules(str(path))


def test_unreachable_floor_is_a_usage_error_on_the_command_line(tmp_path: Path) -> None:
    qrels, cand = tmp_path / "q.txt", tmp_path / "c.run"
    qrels.write_text("q1 0 a 1\n")
    cand.write_text("q1 Q0 a 1 2 cand\n")
    res = CliRunner().invoke(main, ["gate", str(qrels), str(cand), "--min", "ndcg@10=1.5"])
    assert res.exit_code == 2, res.output
    assert "--min ndcg@10=1.5" in res.output and "can never pass" in res.output


def _stored(tmp_path: Path) -> Path:
    path = tmp_path / "results.db"
    run = ranklens.Run.from_dict({"q1": {"a": 2.0}, "q2": {"b": 1.0, "x": 2.0}}, name="base")
    with Store(path) as store:
        store.record(ranklens.evaluate(QRELS, run, ["p@1"]), commit=None)
    return path


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        (
            "UPDATE metric_values SET per_query = ?",
            "p@1 has 3 per-query values for 2 query ids",
        ),
        ("UPDATE records SET provenance = '{\"qrels\": 1}'", "record 1 is damaged"),
    ],
)
def test_a_damaged_record_is_a_store_error(tmp_path: Path, sql: str, why: str) -> None:
    path = _stored(tmp_path)
    con = sqlite3.connect(path)
    if "?" in sql:
        import io

        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.zeros(3), allow_pickle=False)
        con.execute(sql, (buf.getvalue(),))
    else:
        con.execute(sql)
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=why):
        gate(QRELS, CAND, f"{path}#1", {"max_drop": {"p@1": 0.1}})
    run = tmp_path / "c.run"
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    run.write_text("q1 Q0 a 1 2 cand\n")
    res = CliRunner().invoke(
        main, ["gate", str(qrels), str(run), "--baseline", f"{path}#1", "--max-drop", "p@1=0.1"]
    )
    assert res.exit_code == 3, res.output
    assert "damaged" in res.output


def test_junit_lists_no_test_that_was_not_asked_for() -> None:
    qrels = ranklens.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    run = ranklens.Run.from_dict({"q1": {"a": 2.0}, "q2": {"b": 1.0}}, name="r")
    v = gate(qrels, run, run, {"max_drop": {"p@1": 0.1}, "min": {"p@1": 0.5}})
    xml = v.render("junit")
    assert "non-inferiority" not in xml and "correction" not in xml
    names = [p.get("name") for p in ET.fromstring(xml).iter("property")]
    assert names == ["candidate", "baseline", "alpha", "ci"]
    ni = gate(qrels, run, run, {"non_inferiority": {"p@1": 0.1}}).render("junit")
    assert "non-inferiority" in ni and 'name="correction"' in ni


def test_junit_escapes_what_xml_cannot_hold_and_says_so() -> None:
    qrels = ranklens.Qrels.from_dict({"q1": {"a": 1}})
    run = ranklens.Run.from_dict({"q1": {"a": 2.0}}, name="new\ufffe\u202eversion")
    xml = gate(qrels, run, rules={"min": {"p@1": 0.5}}).render("junit")
    root = ET.fromstring(xml)  # parses: no U+FFFE in the document
    assert "\ufffe" not in xml and "\u202e" not in xml
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["candidate"] == "new\\ufffe\\u202eversion"
    assert "written as \\uNNNN" in (root.find("testsuite/system-err").text or "")
