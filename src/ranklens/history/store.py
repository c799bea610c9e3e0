"""A results history in one SQLite file (:class:`Store`).

Each record is one evaluation of one run: its summary, every per-query value,
its provenance (:mod:`ranklens.ranking.provenance`), the time (UTC), the git
commit of the working directory when there is one, the command that made it
(``evaluate``, ``gate``, ...), the verdict of a gate that recorded it, the
user's tags, and what else the command computed: the values of metrics of the whole
evaluation with no per-query value (a recommender's catalog coverage: "totals") and
a JSON document of details (``ranklens recsys --segments``: the segment table).

The file is SQLite in WAL mode (readers never wait for a writer).  A record is
written in one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``): a writer killed
in the middle leaves no trace of it, and two processes writing at once take
turns (each waits up to ``timeout`` seconds for the other).  The file says what
it is: SQLite's ``application_id`` is ranklens' own and the table
``ranklens_schema`` holds the schema version; any other SQLite database, or a
file that is not one, is refused with a :class:`~ranklens.errors.StoreError`
naming the file.

Layout (schema version 3)::

    ranklens_schema(version, created)
    records(id, created, run, command, git_commit, version, n_queries, metrics,
            conventions, report, provenance, query_ids,   -- ids: Arrow IPC blob
            verdict,                                      -- JSON, or NULL
            details)                                      -- JSON, or NULL
    metric_values(record_id, position, metric, value, per_query)  -- values: .npy blob
    tags(record_id, key, value)

Per-query values are stored compactly: one ``.npy`` blob (float64) per
(record, metric) and one Arrow IPC blob of the query ids per record, so 100,000
queries x 10 metrics is one small transaction of 11 blobs.  A total (a metric of the
whole evaluation) is a ``metric_values`` row with its value and no per-query value
(an empty blob), after the record's ``metrics``: it is in the record's ``summary``
and ``trend``, not in its :class:`ranklens.Result`.

A store of schema version 1 (ranklens before the ``verdict`` column) or 2 (before
the ``details`` column) is upgraded in place when it is opened for writing (one
transaction adds the columns), and is read as it is when it is read-only (its
records have no verdict or details).  A read-only
store (no write permission on the file or its folder) opens for reading; writing a
record into it is a :class:`~ranklens.errors.StoreError` that says so.

>>> import ranklens, tempfile, os
>>> from ranklens.history import Store
>>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}})
>>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9}, "q2": {"d1": 0.5}}, name="bm25")
>>> path = os.path.join(tempfile.mkdtemp(), "results.db")
>>> with Store(path) as store:
...     rid = store.record(ranklens.evaluate(qrels, run, ["p@1"]), tags={"model": "v1"})
...     rec = store.get(rid)
>>> rec.run, rec.summary, rec.tags, rec.result().per_query("p@1")
('bm25', {'p@1': 0.5}, {'model': 'v1'}, {'q1': 1.0, 'q2': 0.0})
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import sqlite3
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ranklens.errors import InputError, StoreError
from ranklens.ranking.evaluation import Result

__all__ = [
    "SCHEMA_VERSION",
    "Store",
    "StoredRecord",
    "git_commit",
    "load_ref",
    "parse_time",
    "split_ref",
]

#: The schema version this ranklens writes and reads (it also reads, and upgrades,
#: the versions in :data:`READS`).
SCHEMA_VERSION = 3
READS = (1, 2, 3)
#: SQLite ``application_id`` of a ranklens store ("RkLH").
APPLICATION_ID = 0x526B4C48
#: The largest record id (SQLite's largest integer).
MAX_RECORD_ID = 2**63 - 1
#: Seconds a writer waits for another writer's transaction.
TIMEOUT = 60.0
#: Test hook: seconds to sleep inside the write transaction, after half the values
#: (for the fault tests, which kill a writer there).
_PAUSE_ENV = "RANKLENS_STORE_TEST_PAUSE"

_SCHEMA = """
CREATE TABLE ranklens_schema (version INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    run TEXT,
    command TEXT NOT NULL,
    git_commit TEXT,
    version TEXT NOT NULL,
    n_queries INTEGER NOT NULL,
    metrics TEXT NOT NULL,
    conventions TEXT NOT NULL,
    report TEXT NOT NULL,
    provenance TEXT,
    query_ids BLOB NOT NULL,
    verdict TEXT,
    details TEXT
);
CREATE TABLE metric_values (
    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    metric TEXT NOT NULL,
    value REAL,
    per_query BLOB NOT NULL,
    PRIMARY KEY (record_id, metric)
);
CREATE TABLE tags (
    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (record_id, key)
);
CREATE INDEX records_by_run ON records(run, created);
CREATE INDEX records_by_time ON records(created);
CREATE INDEX metric_values_by_metric ON metric_values(metric, record_id);
"""
_TABLES = {"ranklens_schema", "records", "metric_values", "tags"}


def git_commit(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """``git rev-parse HEAD`` in ``cwd`` (default: the current directory); None when
    it is not a git checkout or git is missing."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    return sha if out.returncode == 0 and sha else None


def split_ref(text: str) -> tuple[str, int] | None:
    """``(path, id)`` of a stored record named ``PATH#ID`` (``results.db#12``); None
    when ``text`` is not of that form, or is an existing file's name."""
    import re

    found = re.fullmatch(r"(.+)#(\d+)", str(text))
    if found is None or _exists(text):
        return None
    path, digits = found.group(1), found.group(2).lstrip("0") or "0"
    if len(digits) > len(str(MAX_RECORD_ID)) or int(digits) > MAX_RECORD_ID:
        shown = digits if len(digits) <= 30 else f"{digits[:30]}... ({len(digits)} digits)"
        raise StoreError(
            f"{path}: no record {shown}: record ids are whole numbers from 1 to "
            f"{MAX_RECORD_ID} (see 'ranklens history {path}')."
        )
    return path, int(digits)


def _exists(path: str) -> bool:
    """Whether ``path`` exists (a name too long to be a file's does not)."""
    try:
        return Path(path).exists()
    except OSError:
        return False


def load_ref(text: str) -> StoredRecord:
    """The stored record ``PATH#ID``; :class:`~ranklens.errors.StoreError` when the
    store or the record does not exist."""
    ref = split_ref(text)
    if ref is None:
        raise InputError(
            f"{text!r} does not name a stored record; write PATH#ID, e.g. "
            "results.db#3 (ids: 'ranklens history PATH')."
        )
    with Store(ref[0], create=False) as store:
        return store.get(ref[1])


def parse_time(value: Any, name: str) -> dt.datetime:
    """A point in time (UTC): a datetime (naive means UTC), a date (its midnight), ISO
    text (``2026-11-01``, ``2026-11-01T12:00``) or a duration back from now (``30d``,
    ``2 weeks``: see :mod:`ranklens._shared.durations`)."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if isinstance(value, str):
        try:
            return parse_time(dt.datetime.fromisoformat(value.strip()), name)
        except ValueError:
            pass
        from ranklens._shared.durations import parse_duration

        try:
            ns = parse_duration(value)
        except ValueError:
            pass
        else:
            try:
                return dt.datetime.now(dt.UTC) - dt.timedelta(microseconds=ns // 1000)
            except OverflowError:
                raise InputError(
                    f"{name}={value!r} reaches back before the year 1; give a shorter "
                    "duration ('30d', '2 weeks') or a date ('2026-11-01')."
                ) from None
    raise InputError(
        f"{name}={value!r} is not a time; give a date or time "
        "('2026-11-01', '2026-11-01T12:00'), a duration back from now ('30d', "
        "'2 weeks') or a datetime."
    )


def _npy(values: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(
        buf, np.ascontiguousarray(values, dtype=np.float64), allow_pickle=False
    )
    return buf.getvalue()


def _from_npy(blob: bytes) -> np.ndarray:
    arr = np.lib.format.read_array(io.BytesIO(blob), allow_pickle=False)
    arr.setflags(write=False)
    return arr


def _ids_blob(ids: tuple[str, ...]) -> bytes:
    import pyarrow as pa

    table = pa.table({"query": pa.array(ids, type=pa.large_string())})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _ids_from_blob(blob: bytes) -> tuple[str, ...]:
    import pyarrow as pa

    table = pa.ipc.open_stream(pa.py_buffer(blob)).read_all()
    return tuple(table.column("query").to_pylist())


@dataclass(frozen=True)
class StoredRecord:
    """One stored evaluation (what :meth:`Store.records` lists and :meth:`Store.get`
    returns).  :meth:`result` gives it back as a :class:`ranklens.Result`."""

    id: int
    created: dt.datetime
    run: str | None
    command: str
    git_commit: str | None
    version: str
    n_queries: int
    metrics: tuple[str, ...]
    summary: dict[str, float]
    tags: dict[str, str]
    conventions: dict[str, Any]
    report: dict[str, int]
    provenance: dict[str, Any] | None
    path: str = field(repr=False, default="")
    #: the verdict of the gate that recorded this result (``Verdict.as_dict()``: its
    #: ``passed``, ``headline``, ``rules`` ...); None when no gate recorded it
    verdict: dict[str, Any] | None = field(repr=False, default=None)
    #: what else the command computed, as it recorded it (``ranklens recsys
    #: --segments``: ``{"segments": {"by": ..., "rows": [...]}}``); None: nothing
    details: dict[str, Any] | None = field(repr=False, default=None)

    @property
    def totals(self) -> dict[str, float]:
        """The metrics of the whole evaluation, with no per-query value (in
        ``summary`` after the per-query metrics' means)."""
        return {m: v for m, v in self.summary.items() if m not in self.metrics}

    @property
    def passed(self) -> bool | None:
        """Whether the gate that recorded this result passed (None: no gate did)."""
        return None if self.verdict is None else bool(self.verdict.get("passed"))

    def result(self) -> Result:
        """The stored evaluation as a :class:`ranklens.Result` (per-query values,
        conventions, report, run name and provenance as recorded)."""
        with Store(self.path, create=False) as store:
            return store.load_result(self)

    @property
    def ref(self) -> str:
        """``PATH#ID``: how the command line names this record."""
        return f"{self.path}#{self.id}"


class Store:
    """A results history in the SQLite file ``path`` (created when missing).

    Use as a context manager or call :meth:`close`.  ``create=False`` refuses a
    missing file.  See the module documentation for the layout and guarantees.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = True, timeout: float = TIMEOUT
    ) -> None:
        self.path = str(path)
        self._timeout = timeout
        self._verdicts = True  # the records table has the verdict column (schema 2)
        self._details = True  # and the details column (schema 3)
        p = Path(self.path)
        if p.is_dir():
            raise StoreError(
                f"{self.path}: is a folder; a results store is a file (e.g. results.db)."
            )
        if not p.exists():
            if not create:
                raise StoreError(
                    f"{self.path}: no such results store; record into it first (--store PATH)."
                )
            if not p.parent.is_dir():
                raise StoreError(f"{self.path}: the folder {str(p.parent)!r} does not exist.")
        #: the store can be read but not written (no write permission on the file or
        #: its folder): it is opened read-only, and :meth:`record` says so
        self.read_only = p.exists() and not (
            os.access(p, os.W_OK) and os.access(p.resolve().parent, os.W_OK | os.X_OK)
        )
        self._con = self._connect(immutable=False)
        try:
            self._prepare()
        except StoreError:
            self._con.close()
            if not self.read_only:
                raise
            # a read-only WAL database whose folder cannot hold its -shm file: read it
            # as a snapshot
            self._con = self._connect(immutable=True)
            try:
                self._prepare()
            except BaseException:
                self._con.close()
                raise
        except BaseException:
            self._con.close()
            raise

    def _connect(self, immutable: bool) -> sqlite3.Connection:
        try:
            if not self.read_only:
                return sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
            from urllib.parse import quote

            uri = f"file:{quote(os.path.abspath(self.path))}?mode=ro"
            uri += "&immutable=1" if immutable else ""
            return sqlite3.connect(uri, uri=True, timeout=self._timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open the results store ({exc}).") from None

    def check_writable(self) -> None:
        """Raise the :class:`~ranklens.errors.StoreError` that :meth:`record` would
        raise in a read-only store, before any work is done."""
        if self.read_only:
            raise self._read_only_error()

    def _read_only_error(self) -> StoreError:
        return self._fail(
            "the results store is read-only (no write permission on the file or its "
            f"folder), so nothing can be recorded in it; make it writable (chmod u+w "
            f"{self.path}, and its folder) or record into another store."
        )

    # -- opening ----------------------------------------------------------------------
    def _fail(self, why: str) -> StoreError:
        return StoreError(f"{self.path}: {why}")

    def _prepare(self) -> None:
        """Check the file and make or check the schema.  Another process may be making
        the same new store: SQLite then answers "database is locked" at once in places
        where it calls no busy handler (switching a new file to WAL), so that is waited
        out, up to the timeout."""
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                self._prepare_once()
                return
            except sqlite3.OperationalError as exc:
                if _read_only(exc):
                    raise self._read_only_error() from None
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise self._fail(
                        f"the results store is corrupt or unreadable ({exc})."
                    ) from None
                time.sleep(0.02)

    def _prepare_once(self) -> None:
        con = self._con
        try:
            con.execute("BEGIN")  # one snapshot: another process may be making the store
            try:
                app = con.execute("PRAGMA application_id").fetchone()[0]
                tables = {
                    r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                }
            finally:
                con.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if _locked(exc) or _read_only(exc):
                raise
            raise self._fail(
                f"not a ranklens results store: the file is not a SQLite "
                f"database or is corrupt ({exc})."
            ) from None
        if app != APPLICATION_ID and tables:
            shown = ", ".join(sorted(tables)[:8])
            raise self._fail(
                f"is a SQLite database of another application (tables: "
                f"{shown}), not a ranklens results store; give another file "
                "name."
            )
        if app != APPLICATION_ID and self.read_only:
            raise self._fail(
                "the file is empty and read-only, so it cannot become a results store; "
                "give another file name."
            )
        try:
            con.execute("PRAGMA foreign_keys = ON")
            con.execute(f"PRAGMA busy_timeout = {int(self._timeout * 1000)}")
            if (
                not self.read_only
                and con.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal"
            ):
                con.execute("PRAGMA journal_mode = WAL")
            if app != APPLICATION_ID:
                self._create()
            self._check_schema()
        except sqlite3.DatabaseError as exc:
            if _locked(exc) or _read_only(exc):
                raise
            raise self._fail(f"the results store is corrupt or unreadable ({exc}).") from None

    def _create(self) -> None:
        """Make the schema in one transaction (another process may be doing the same)."""
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                for stmt in _SCHEMA.strip().split(";"):
                    if stmt.strip():
                        con.execute(stmt)
                con.execute(
                    "INSERT INTO ranklens_schema VALUES (?, ?)", (SCHEMA_VERSION, _stamp(_now()))
                )
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _check_schema(self) -> None:
        tables = {
            r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if not _TABLES.issubset(tables):
            raise self._fail("the results store lacks its tables (damaged); start a new file.")
        row = self._con.execute("SELECT max(version) FROM ranklens_schema").fetchone()
        version = row[0] if row else None
        if version not in READS:
            raise self._fail(
                f"the results store has schema version {version}; this ranklens "
                f"reads versions {', '.join(map(str, READS))}. Upgrade ranklens (or use a "
                "new file)."
            )
        if version < SCHEMA_VERSION and not self.read_only:
            self._upgrade()
        columns = {r[1] for r in self._con.execute("PRAGMA table_info(records)")}
        self._verdicts = "verdict" in columns
        self._details = "details" in columns

    def _upgrade(self) -> None:
        """Schema 1 or 2 -> 3 in one transaction: the records' verdict column (schema 2)
        and details column (schema 3) (another process may be doing the same)."""
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            version = con.execute("SELECT max(version) FROM ranklens_schema").fetchone()[0]
            if version < SCHEMA_VERSION:
                columns = {r[1] for r in con.execute("PRAGMA table_info(records)")}
                for column in ("verdict", "details"):
                    if column not in columns:
                        con.execute(f"ALTER TABLE records ADD COLUMN {column} TEXT")
                con.execute(
                    "INSERT INTO ranklens_schema VALUES (?, ?)", (SCHEMA_VERSION, _stamp(_now()))
                )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Store {self.path!r}>"

    # -- writing ----------------------------------------------------------------------
    def record(
        self,
        result: Result,
        *,
        tags: Mapping[str, str] | None = None,
        command: str = "python",
        commit: str | None = "auto",
        run: str | None = None,
        verdict: Any = None,
        totals: Mapping[str, float] | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> int:
        """Store ``result`` (one transaction) and return its record id.

        ``tags`` are the user's labels (``{"model": "v2"}``); ``command`` what made
        the record (``"evaluate"``, ``"gate"``; shown by ``ranklens history``);
        ``commit`` is the git commit to record (``"auto"``: that of the current
        directory, if any; None: none); ``run`` names the run (default:
        ``result.run_name``); ``verdict`` the :class:`ranklens.gates.Verdict` (or its
        ``as_dict()``) of the gate that judged ``result``, kept with the record
        (:attr:`StoredRecord.verdict`); ``totals`` the values of metrics of the whole
        evaluation, with no per-query value (:attr:`StoredRecord.totals`; e.g. a
        recommender's catalog coverage); ``details`` a JSON object of what else the
        command computed (:attr:`StoredRecord.details`).
        """
        if not isinstance(result, Result):
            raise InputError(f"Store.record takes a ranklens.Result, got {type(result).__name__}.")
        self.check_writable()
        if not isinstance(command, str) or not command.strip():
            raise InputError(f"command must be non-empty text, got {command!r}.")
        verdict_json = _verdict_json(verdict)
        totals = _check_totals(totals, result)
        details_json = _details_json(details)
        clean = _check_tags(tags)
        sha = git_commit() if commit == "auto" else commit
        prov = None if result.provenance is None else json.dumps(result.provenance.as_dict())
        summary = result.summary()
        blobs = [(i, m, summary[m], _npy(result.values[m])) for i, m in enumerate(result.metrics)]
        none = _npy(np.zeros(0))
        blobs += [(len(blobs) + i, m, v, none) for i, (m, v) in enumerate(totals.items())]
        ids = _ids_blob(result.query_ids)
        pause = float(os.environ.get(_PAUSE_ENV, "0") or 0)
        con = self._con
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                cur = con.execute(
                    "INSERT INTO records (created, run, command, git_commit, version, n_queries,"
                    " metrics, conventions, report, provenance, query_ids, verdict, details) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        _stamp(_now()),
                        run if run is not None else result.run_name,
                        command,
                        sha,
                        _version(result),
                        len(result.query_ids),
                        json.dumps(list(result.metrics)),
                        json.dumps(result.conventions.as_dict()),
                        json.dumps({k: int(v) for k, v in result.report.items()}),
                        prov,
                        ids,
                        verdict_json,
                        details_json,
                    ),
                )
                rid = int(cur.lastrowid or 0)
                half = len(blobs) // 2
                for n, (i, m, v, blob) in enumerate(blobs):
                    if n == half and pause:
                        time.sleep(pause)  # the fault tests kill the writer here
                    con.execute(
                        "INSERT INTO metric_values VALUES (?, ?, ?, ?, ?)",
                        (rid, i, m, None if v != v else v, blob),
                    )
                con.executemany(
                    "INSERT INTO tags VALUES (?, ?, ?)", [(rid, k, v) for k, v in clean.items()]
                )
                con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise
        except sqlite3.DatabaseError as exc:
            if _read_only(exc):
                raise self._read_only_error() from None
            raise self._fail(f"cannot write the record ({exc}).") from None
        return rid

    # -- reading ----------------------------------------------------------------------
    def records(
        self,
        *,
        run: str | None = None,
        metric: str | None = None,
        tags: Mapping[str, str] | None = None,
        since: Any = None,
        until: Any = None,
    ) -> list[StoredRecord]:
        """The records (oldest first) matching every filter given: the run's name, a
        metric among the record's (its key as stored, e.g. ``ndcg@10``), tags (each
        ``key: value`` must match), and times ``since`` / ``until`` (inclusive, UTC;
        see :func:`parse_time`; ``until`` a date alone means the end of that day)."""
        where, args = [], []
        if run is not None:
            where.append("r.run = ?")
            args.append(run)
        if metric is not None:
            where.append(
                "EXISTS (SELECT 1 FROM metric_values m WHERE m.record_id = r.id AND m.metric = ?)"
            )
            args.append(metric)
        for k, v in _check_tags(tags).items():
            where.append(
                "EXISTS (SELECT 1 FROM tags t WHERE t.record_id = r.id AND t.key = ? "
                "AND t.value = ?)"
            )
            args += [k, v]
        for value, op, name in ((since, ">=", "since"), (until, "<=", "until")):
            if value is not None:
                where.append(f"r.created {op} ?")
                t = parse_time(value, name)
                if name == "until" and isinstance(value, str) and len(value.strip()) == 10:
                    t += dt.timedelta(days=1, microseconds=-1)  # a date: the whole day
                args.append(_stamp(t))
        sql = (
            "SELECT r.id, r.created, r.run, r.command, r.git_commit, r.version, "
            f"r.n_queries, r.metrics, r.conventions, r.report, r.provenance, {self._verdict}, "
            f"{self._detail} FROM records r"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY r.created, r.id"
        rows = self._query(sql, args)
        return self._with_values(rows)

    def get(self, record_id: int) -> StoredRecord:
        """The record ``record_id``; :class:`~ranklens.errors.StoreError` if there is none."""
        if isinstance(record_id, bool) or not isinstance(record_id, (int, np.integer)):
            raise InputError(f"record_id must be an integer, got {record_id!r}.")
        if not 1 <= int(record_id) <= MAX_RECORD_ID:
            rid = int(record_id)
            shown = str(rid) if rid.bit_length() < 100 else f"of {rid.bit_length()} bits"
            raise self._fail(
                f"no record {shown}: record ids are whole numbers from 1 to "
                f"{MAX_RECORD_ID} (see 'ranklens history {self.path}')."
            )
        rows = self._query(
            "SELECT id, created, run, command, git_commit, version, n_queries, metrics, "
            f"conventions, report, provenance, {self._verdict}, {self._detail} FROM records r "
            "WHERE id = ?",
            [int(record_id)],
        )
        if not rows:
            raise self._fail(f"no record {record_id} (see 'ranklens history {self.path}').")
        return self._with_values(rows)[0]

    def load_result(self, record: int | StoredRecord) -> Result:
        """The record ``record`` (its id, or the :class:`StoredRecord` already read) as a
        :class:`ranklens.Result`."""
        from ranklens.metrics import get_metric
        from ranklens.ranking.conventions import Conventions
        from ranklens.ranking.provenance import Provenance

        rec = record if isinstance(record, StoredRecord) else self.get(record)
        ids = self._query("SELECT query_ids FROM records WHERE id = ?", [rec.id])[0][0]
        blobs = dict(
            self._query("SELECT metric, per_query FROM metric_values WHERE record_id = ?", [rec.id])
        )
        try:
            values = {m: _from_npy(blobs[m]) for m in rec.metrics}
            conv = Conventions(**rec.conventions)
            parsed = {m: get_metric(m) for m in rec.metrics}
            query_ids = _ids_from_blob(ids)
            prov = None if rec.provenance is None else Provenance.from_dict(rec.provenance)
        except (KeyError, ValueError, TypeError, AttributeError, OSError) as exc:
            why = f"missing values of {exc}" if isinstance(exc, KeyError) else str(exc)
            raise self._damaged(rec.id, why) from None
        for m, v in values.items():
            if v.ndim != 1 or len(v) != len(query_ids) or len(query_ids) != rec.n_queries:
                raise self._damaged(
                    rec.id,
                    f"{m} has {v.size} per-query values for {len(query_ids)} query ids; "
                    f"the record says {rec.n_queries} queries",
                )
        return Result(
            metrics=rec.metrics,
            query_ids=query_ids,
            values=values,
            parsed=parsed,
            conventions=conv,
            report=rec.report,
            run_name=rec.run,
            provenance=prov,
        )

    def _damaged(self, record_id: int, why: str) -> StoreError:
        return self._fail(
            f"record {record_id} is damaged ({why}); the store was changed outside ranklens "
            "or cut short. Restore the store from a copy, or record the run again."
        )

    def trend(
        self, metric: str, run: str | None = None
    ) -> list[tuple[dt.datetime, str, float, int]]:
        """``(time, run name, value, record id)`` of every record holding ``metric``
        (its key as stored), oldest first; only the run named ``run`` if given."""
        sql = (
            "SELECT r.created, r.run, m.value, r.id FROM records r JOIN metric_values m "
            "ON m.record_id = r.id WHERE m.metric = ?"
        )
        args: list[Any] = [metric]
        if run is not None:
            sql += " AND r.run = ?"
            args.append(run)
        rows = self._query(sql + " ORDER BY r.created, r.id", args)
        return [
            (_parse_utc(t), name or "", float("nan") if v is None else float(v), int(i))
            for t, name, v, i in rows
        ]

    def __len__(self) -> int:
        return int(self._query("SELECT count(*) FROM records", [])[0][0])

    def __iter__(self) -> Iterator[StoredRecord]:
        return iter(self.records())

    def _query(self, sql: str, args: list[Any]) -> list[tuple[Any, ...]]:
        try:
            return self._con.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail(f"cannot read the results store ({exc}).") from None

    def _with_values(self, rows: list[tuple[Any, ...]]) -> list[StoredRecord]:
        if not rows:
            return []
        ids = [r[0] for r in rows]
        marks = ",".join("?" * len(ids))
        summaries: dict[int, dict[str, float]] = {i: {} for i in ids}
        for rid, m, v in self._query(
            f"SELECT record_id, metric, value FROM metric_values WHERE record_id IN "
            f"({marks}) ORDER BY record_id, position",
            ids,
        ):
            summaries[rid][m] = float("nan") if v is None else float(v)
        tags: dict[int, dict[str, str]] = {i: {} for i in ids}
        for rid, k, v in self._query(
            f"SELECT record_id, key, value FROM tags WHERE record_id IN ({marks}) ORDER BY key", ids
        ):
            tags[rid][k] = v
        out = []
        for row in rows:
            rid, created, run, command, sha, version, nq, metrics, conv, report, prov, ver = row[
                :12
            ]
            det = row[12]
            out.append(
                StoredRecord(
                    id=int(rid),
                    created=_parse_utc(created),
                    run=run,
                    command=command,
                    git_commit=sha,
                    version=version,
                    n_queries=int(nq),
                    metrics=tuple(self._json(rid, "metrics", metrics, list)),
                    summary=summaries[rid],
                    tags=tags[rid],
                    conventions=self._json(rid, "conventions", conv, dict),
                    report=self._json(rid, "report", report, dict),
                    provenance=None if prov is None else self._json(rid, "provenance", prov, dict),
                    path=self.path,
                    verdict=None if ver is None else self._json(rid, "verdict", ver, dict),
                    details=None if det is None else self._json(rid, "details", det, dict),
                )
            )
        return out

    @property
    def _verdict(self) -> str:
        """The verdict column in a query (NULL in a read-only store of schema 1)."""
        return "r.verdict" if self._verdicts else "NULL"

    @property
    def _detail(self) -> str:
        """The details column in a query (NULL in a read-only store of schema 1 or 2)."""
        return "r.details" if self._details else "NULL"

    def _json(self, record: Any, column: str, text: Any, kind: type) -> Any:
        """A record's JSON column read back; a value changed outside ranklens (not JSON,
        or not a JSON list / object as written) is a :class:`StoreError` naming it."""
        try:
            value = json.loads(text)
        except (TypeError, ValueError) as exc:
            value, why = None, f"is not valid JSON ({exc})"
        else:
            why = (
                ""
                if isinstance(value, kind)
                else (
                    f"is a JSON {type(value).__name__}, not the "
                    f"{'list' if kind is list else 'object'} ranklens writes"
                )
            )
        if why:
            raise self._fail(
                f"record {record}: its {column} {why}; the store was changed "
                "outside ranklens. Restore the store from a copy."
            )
        return value


def _verdict_json(verdict: Any) -> str | None:
    """A gate's verdict as stored: JSON of ``verdict.as_dict()`` (or of the mapping)."""
    if verdict is None:
        return None
    doc = verdict.as_dict() if hasattr(verdict, "as_dict") else verdict
    if not isinstance(doc, Mapping) or "passed" not in doc:
        raise InputError(
            "verdict must be the ranklens.gates.Verdict of a gate (or its as_dict()), "
            f"got {type(verdict).__name__}."
        )
    try:
        return json.dumps(doc, default=_plain)
    except (TypeError, ValueError) as exc:
        raise InputError(f"verdict: cannot store it as JSON ({exc}).") from None


def _check_totals(totals: Mapping[str, float] | None, result: Result) -> dict[str, float]:
    """The totals as stored: metric keys of text, not among the result's metrics, with
    real values."""
    if totals is None:
        return {}
    if not isinstance(totals, Mapping):
        raise InputError(
            f"totals must be a mapping {{metric: value}}, got {type(totals).__name__}."
        )
    out = {}
    for m, v in totals.items():
        if not isinstance(m, str) or not m or m in result.metrics:
            raise InputError(
                f"totals: {m!r} must be a metric key (non-empty text) that is not one of the "
                f"result's per-query metrics {list(result.metrics)}."
            )
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise InputError(f"totals: the value of {m!r} must be a number, got {v!r}.")
        out[m] = float(v)
    return out


def _details_json(details: Mapping[str, Any] | None) -> str | None:
    """A record's details as stored: JSON of the mapping."""
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise InputError(
            f"details must be a mapping (a JSON object), got {type(details).__name__}."
        )
    try:
        return json.dumps(dict(details), default=_plain)
    except (TypeError, ValueError) as exc:
        raise InputError(f"details: cannot store them as JSON ({exc}).") from None


def _plain(value: Any) -> Any:
    """numpy scalars and other values a verdict holds, as JSON takes them."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    return str(value)


def _check_tags(tags: Mapping[str, str] | None) -> dict[str, str]:
    if tags is None:
        return {}
    if not isinstance(tags, Mapping):
        raise InputError(
            f"tags must be a mapping {{key: value}} of text, got {type(tags).__name__}."
        )
    out = {}
    for k, v in tags.items():
        if not isinstance(k, str) or not k or not isinstance(v, (str, int, float)):
            raise InputError(
                f"tag {k!r}: keys must be non-empty text and values text (or numbers), got {v!r}."
            )
        out[k] = str(v)
    return out


def _version(result: Result) -> str:
    from ranklens.ranking.provenance import ranklens_version

    return result.provenance.version if result.provenance is not None else ranklens_version()


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _stamp(t: dt.datetime) -> str:
    """A time as stored: UTC ISO 8601 with microseconds (text order is time order)."""
    return t.astimezone(dt.UTC).isoformat(timespec="microseconds")


def _parse_utc(text: str) -> dt.datetime:
    t = dt.datetime.fromisoformat(text)
    return t if t.tzinfo else t.replace(tzinfo=dt.UTC)


def _read_only(exc: sqlite3.DatabaseError) -> bool:
    """SQLite refused to write: the file or its folder is read-only."""
    return "readonly" in str(exc) or "read-only" in str(exc)


def _locked(exc: sqlite3.DatabaseError) -> bool:
    """Another connection holds the lock (worth waiting for), not a damaged file."""
    return isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)
