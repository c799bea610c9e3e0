"""The store under faults, for real: a writer killed with SIGKILL in the middle of a
record, two processes writing at once, corrupt and foreign files."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import ranklens
from ranklens.cli import main
from ranklens.errors import StoreError
from ranklens.history import Store
from tests.helpers import system_files

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

WRITER = """
import sys
import ranklens
from ranklens.history import Store

path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
qrels = ranklens.Qrels.from_dict({f"q{i}": {"d": 1, "e": 0} for i in range(200)})
run = ranklens.Run.from_dict({f"q{i}": {"d": 0.5, "e": 0.7} for i in range(200)}, name=name)
res = ranklens.evaluate(qrels, run, ["p@1", "p@2", "ndcg@2", "map"])
with Store(path) as store:
    for _ in range(count):
        store.record(res, tags={"writer": name}, commit=None)
print("done", flush=True)
"""


def _writer(path: Path, name: str, count: int, pause: float = 0.0) -> subprocess.Popen[str]:
    env = dict(os.environ)
    src = str(Path(ranklens.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    env["RANKLENS_STORE_TEST_PAUSE"] = str(pause)  # the test hook: sleep inside the transaction
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(count)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _write_locked(path: Path) -> bool:
    """Whether another connection holds the write lock (is inside a write transaction)."""
    con = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc) or "busy" in str(exc)
        return True
    finally:
        con.close()


def _consistent(path: Path) -> int:
    """Check the store's integrity; the number of records (each of them whole)."""
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        orphans = con.execute(
            "SELECT count(*) FROM metric_values WHERE record_id NOT IN (SELECT id FROM records)"
        ).fetchone()[0]
        partial = con.execute(
            "SELECT count(*) FROM records r WHERE (SELECT count(*) FROM "
            "metric_values m WHERE m.record_id = r.id) != 4"
        ).fetchone()[0]
        assert orphans == 0 and partial == 0
        return int(con.execute("SELECT count(*) FROM records").fetchone()[0])
    finally:
        con.close()


def test_sigkill_in_the_middle_of_a_record_leaves_it_absent(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    first = _writer(path, "first", 1)
    err = first.communicate(timeout=120)[1]
    assert first.returncode == 0, err
    victim = _writer(path, "victim", 1, pause=120)
    try:
        deadline = time.monotonic() + 120
        while not _write_locked(path):  # the victim is inside its transaction, asleep
            assert victim.poll() is None, victim.communicate()[1]
            assert time.monotonic() < deadline, "the writer never began its transaction"
            time.sleep(0.05)
        # it has written the record's row and half its values: kill it there
        os.kill(victim.pid, signal.SIGKILL)
        assert victim.wait(timeout=30) == -signal.SIGKILL
    finally:
        if victim.poll() is None:
            victim.kill()
        victim.communicate()
    assert _consistent(path) == 1
    with Store(path) as store:
        assert [r.run for r in store.records()] == ["first"]
        assert store.records(run="victim") == []
        again = store.record(store.get(1).result(), commit=None)  # the store still works
        assert again == 2 and len(store) == 2
    assert _consistent(path) == 2


def test_two_processes_writing_at_once_both_succeed(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    writers = [_writer(path, name, 12, pause=0.02) for name in ("a", "b")]
    for w in writers:
        out, err = w.communicate(timeout=300)
        assert w.returncode == 0, err
        assert out.strip() == "done"
    assert _consistent(path) == 24
    with Store(path) as store:
        assert len(store.records(tags={"writer": "a"})) == 12
        assert len(store.records(tags={"writer": "b"})) == 12


def _valid_store(path: Path) -> None:
    with Store(path) as store:
        store.record(
            ranklens.evaluate(
                ranklens.Qrels.from_dict({"q": {"d": 1}}),
                ranklens.Run.from_dict({"q": {"d": 1.0}}),
                ["p@1"],
            )
        )


@pytest.mark.parametrize("kind", ["random", "header", "damaged", "truncated"])
def test_corrupt_files_are_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "results.db"
    if kind == "random":
        path.write_bytes(os.urandom(8192))
    elif kind == "header":
        path.write_bytes(b"SQLite format 3\x00" + os.urandom(8000))
    else:
        _valid_store(path)
        data = bytearray(path.read_bytes())
        if kind == "damaged":  # the schema page overwritten after its header
            data[100:4096] = os.urandom(3996)
            path.write_bytes(bytes(data))
        else:
            path.write_bytes(bytes(data[:150]))
    with pytest.raises(StoreError, match=re.escape(str(path))) as info, Store(path) as store:
        store.records()
    assert (
        "corrupt" in str(info.value)
        or "not a SQLite database" in str(info.value)
        or "damaged" in str(info.value)
    )
    res = CliRunner().invoke(main, ["history", str(path)])
    assert res.exit_code == 3 and str(path) in res.output and "Traceback" not in res.output


def test_foreign_sqlite_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"another application.*users"):
        Store(path)
    files = system_files(tmp_path)
    res = CliRunner().invoke(
        main, ["evaluate", str(files["qrels"]), str(files["good"]), "--store", str(path)]
    )
    assert res.exit_code == 3 and f"{path}: is a SQLite database of another" in res.output
    assert res.output.count("\n") == 1  # refused before evaluating: no table printed
    assert path.read_bytes() == before  # untouched


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    _valid_store(path)
    con = sqlite3.connect(path)
    con.execute("UPDATE ranklens_schema SET version = 4")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="schema version 4; this ranklens reads versions 1, 2, 3"):
        Store(path)


def test_processes_making_one_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Six processes open one store that does not exist yet, at once, ten times over:
    each succeeds.  (A process could read the store's id before another made it and its
    tables after, and call it another application's database; or be told "database is
    locked" while the other switched the new file to WAL.)"""
    code = "import sys; from ranklens.history import Store; Store(sys.argv[1]).close()"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for round_ in range(10):
        path = tmp_path / f"new{round_}.db"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(path)], stderr=subprocess.PIPE, text=True, env=env
            )
            for _ in range(6)
        ]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert all(p.returncode == 0 for p in procs), [e for e in errors if e]


@pytest.mark.parametrize(
    "column, text, why",
    [
        ("conventions", "{not json", "is not valid JSON"),
        ("metrics", '{"p@1": 1}', "is a JSON dict, not the list"),
        ("report", "[1, 2]", "is a JSON list, not the object"),
        ("provenance", "", "is not valid JSON"),
    ],
)
def test_a_record_edited_by_hand_is_refused_by_name(
    tmp_path: Path, column: str, text: str, why: str
) -> None:
    """A record whose JSON columns were changed outside ranklens is a StoreError naming
    the store, the record and the column (exit 3 on the command line), not a traceback."""
    path = tmp_path / "results.db"
    _valid_store(path)
    con = sqlite3.connect(path)
    con.execute(f"UPDATE records SET {column} = ?", (text,))
    con.commit()
    con.close()
    with (
        pytest.raises(
            StoreError,
            match=rf"{re.escape(str(path))}: record 1: its {column} "
            rf"{re.escape(why)}",
        ),
        Store(path) as store,
    ):
        store.records()
    res = CliRunner().invoke(main, ["history", str(path)])
    assert res.exit_code == 3 and f"record 1: its {column}" in res.output
    assert "Traceback" not in res.output
