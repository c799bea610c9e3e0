"""The store keeps a gate's verdict and the command with a record, opens stores of the
previous schema (upgrading them when it may write), reads read-only stores and says
so when asked to write into one, and refuses out-of-range ids and times in words."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ranklens
from ranklens.cli import main
from ranklens.errors import InputError, StoreError
from ranklens.history import Store
from ranklens.history import store as store_module
from ranklens.history.store import load_ref, parse_time, split_ref

QRELS = ranklens.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
RUN = ranklens.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}}, name="r")


def _result() -> ranklens.Result:
    return ranklens.evaluate(QRELS, RUN, ["p@1"])


def _v1_store(path: Path, version: int = 1) -> None:
    """A store as ranklens wrote it before schema 2 (no verdict column, version 1) or
    before schema 3 (no details column, version 2)."""
    with Store(path) as store:
        store.record(_result(), command="evaluate", commit=None)
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE records DROP COLUMN details")
    if version == 1:
        con.execute("ALTER TABLE records DROP COLUMN verdict")
    con.execute("DELETE FROM ranklens_schema")
    con.execute(f"INSERT INTO ranklens_schema VALUES ({version}, '2026-01-01T00:00:00+00:00')")
    con.commit()
    con.close()


def _columns(path: Path) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {r[1] for r in con.execute("PRAGMA table_info(records)")}
    finally:
        con.close()


def test_a_gates_verdict_and_command_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    verdict = ranklens.gate(QRELS, RUN, rules={"min": {"p@1": 0.9}})
    assert not verdict.passed  # p@1 = 0.5
    with Store(path) as store:
        rid = store.record(verdict.results["candidate"], command="gate", verdict=verdict)
        plain = store.record(_result(), command="evaluate")
        rec, other = store.get(rid), store.get(plain)
    assert rec.command == "gate" and rec.passed is False
    assert rec.verdict is not None
    assert rec.verdict["headline"] == verdict.headline
    assert [r["rule"] for r in rec.verdict["rules"]] == ["min p@1 >= 0.9"]
    assert other.command == "evaluate" and other.verdict is None and other.passed is None


@pytest.mark.parametrize("version", [1, 2])
def test_a_store_of_a_previous_schema_opens_and_is_upgraded(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.db"
    _v1_store(path, version)
    assert "details" not in _columns(path)
    assert ("verdict" in _columns(path)) is (version == 2)
    with Store(path) as store:
        (old,) = store.records()
        assert old.command == "evaluate" and old.verdict is None
        assert old.result().per_query("p@1") == {"q1": 1.0, "q2": 0.0}
        assert old.details is None and old.totals == {}
        rid = store.record(
            _result(),
            verdict={"passed": True, "headline": "ok"},
            totals={"coverage": 0.25},
            details={"segments": {"by": "user"}},
        )
        new = store.get(rid)
        assert new.passed is True and new.totals == {"coverage": 0.25}
        assert new.details == {"segments": {"by": "user"}}
    assert {"verdict", "details"} <= _columns(path)
    con = sqlite3.connect(path)
    assert con.execute("SELECT max(version) FROM ranklens_schema").fetchone()[0] == 3
    con.close()


def test_a_read_only_store_is_read_and_refuses_writes_by_name(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """(Permissions are simulated: the tests may run as root, who may write anything.)"""
    path = tmp_path / "results.db"
    _v1_store(path)  # and of the previous schema: read as it is, not upgraded
    real = os.access
    monkeypatch.setattr(
        store_module.os, "access", lambda p, mode: False if mode & os.W_OK else real(p, mode)
    )
    with Store(path) as store:
        assert store.read_only
        (rec,) = store.records()
        assert rec.verdict is None and rec.result().per_query("p@1")["q1"] == 1.0
        assert rec.details is None
        with pytest.raises(StoreError, match=r"is read-only.*chmod u\+w") as info:
            store.record(_result())
        with pytest.raises(StoreError, match="is read-only"):
            store.check_writable()  # before any work, as --store checks it
    assert "corrupt" not in str(info.value)
    assert "verdict" not in _columns(path)


def test_sqlites_read_only_refusal_is_named_read_only(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with Store(path) as store:
        store.record(_result(), commit=None)
    with Store(path) as store:  # what a read-only file answers to a write
        store._con.close()
        store._con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        with pytest.raises(StoreError, match="read-only") as info:
            store.record(_result(), commit=None)
    assert "corrupt" not in str(info.value) and "cannot write the record" not in str(info.value)


@pytest.mark.parametrize("digits", ["10000000000000000000000", "9223372036854775808", "9" * 5000])
def test_a_huge_record_id_is_no_record(tmp_path: Path, digits: str) -> None:
    path = tmp_path / "base.db"
    with Store(path) as store:
        store.record(_result(), commit=None)
        with pytest.raises(StoreError, match="record ids are whole numbers from 1 to"):
            store.get(10 ** len(digits) - 1 if digits[0] == "9" else 10 ** (len(digits) - 1))
    with pytest.raises(StoreError, match=r"no record \d+.*record ids are whole numbers"):
        load_ref(f"{path}#{digits}")
    res = CliRunner().invoke(main, ["history", f"{path}#{digits}"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert split_ref(f"{path}#9223372036854775807") == (str(path), 2**63 - 1)


@pytest.mark.parametrize("value", ["99999999999d", "9" * 40 + " weeks"])
def test_a_duration_back_before_year_one_is_refused(value: str) -> None:
    with pytest.raises(InputError, match=r"since=.*reaches back before the year 1"):
        parse_time(value, "since")


def test_a_duration_longer_than_a_timestamp_holds_is_refused() -> None:
    from ranklens._shared.durations import as_duration
    from ranklens._shared.frames import TimeKind

    with pytest.raises(InputError, match="window: '99999999999d' is longer than the longest"):
        as_duration("99999999999d", TimeKind("timestamp"), "window")
    assert as_duration("106751d", TimeKind("timestamp"), "window") == 106751 * 86_400 * 10**9
