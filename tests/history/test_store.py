"""``ranklens.history.Store``: records round-trip exactly, filters, trends, tags, times."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import ranklens
from ranklens.errors import InputError, StoreError
from ranklens.history import Store, git_commit, load_ref, parse_time, split_ref
from tests.helpers import graded_case


def _result(
    seed: int, name: str, metrics: list[str] | None = None, **conv: object
) -> ranklens.Result:
    q, r = graded_case(seed, n_queries=(8, 9))
    run = ranklens.Run.from_dict(r, name=name)
    return ranklens.evaluate(
        ranklens.Qrels.from_dict(q), run, metrics or ["ndcg@10", "P.5", "fcp"], **conv
    )


def assert_same(a: ranklens.Result, b: ranklens.Result) -> None:
    """Every field equal; per-query values bit for bit (NaN where NaN)."""
    assert (a.metrics, a.query_ids, a.run_name) == (b.metrics, b.query_ids, b.run_name)
    assert (a.conventions, dict(a.report), dict(a.parsed)) == (
        b.conventions,
        dict(b.report),
        dict(b.parsed),
    )
    for m in a.metrics:
        np.testing.assert_array_equal(a.values[m], b.values[m])


def test_round_trip_is_exact(tmp_path: Path) -> None:
    res = _result(1, "bm25", no_relevant="nan", missing="zero")
    with Store(tmp_path / "r.db") as store:
        rid = store.record(res, tags={"model": "bm25", "epoch": 3}, commit="abc123")
        rec = store.get(rid)
        back = rec.result()
    assert rec.run == "bm25" and rec.tags == {"model": "bm25", "epoch": "3"}
    assert rec.git_commit == "abc123" and rec.command == "python"
    assert rec.metrics == res.metrics and rec.n_queries == len(res.query_ids)
    assert rec.summary == pytest.approx(res.summary(), nan_ok=True)
    assert_same(back, res)  # ids, values (NaN where NaN), conventions, report, run name
    assert np.isnan(back.values["fcp"]).any()
    assert back.provenance == res.provenance
    assert back.summary() == pytest.approx(res.summary(), nan_ok=True)
    assert rec.created.tzinfo is not None
    assert abs(rec.created - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=5)


def test_odd_ids_round_trip(tmp_path: Path) -> None:
    ids = ["007", "7", "<script>alert(1)</script>", "naïve\tq", "a\x00b"]
    qrels = ranklens.Qrels.from_arrays(ids, ["d"] * 5, [1] * 5)
    run = ranklens.Run.from_arrays(ids, ["d"] * 5, [0.5] * 5)
    res = ranklens.evaluate(qrels, run, ["p@1"])
    with Store(tmp_path / "r.db") as store:
        back = store.get(store.record(res)).result()
    assert back.query_ids == res.query_ids and set(back.query_ids) == set(ids)


def test_many_queries_and_metrics(tmp_path: Path) -> None:
    n = 100_000
    rng = np.random.default_rng(0)
    metrics = [f"p@{k}" for k in range(1, 11)]
    values = {m: rng.random(n) for m in metrics}
    res = ranklens.Result(
        metrics=tuple(metrics),
        query_ids=tuple(f"q{i:06d}" for i in range(n)),
        values=values,
        parsed={m: ranklens.get_metric(m) for m in metrics},
        conventions=ranklens.Conventions(),
        run_name="big",
    )
    path = tmp_path / "r.db"
    with Store(path) as store:
        back = store.get(store.record(res)).result()
    assert_same(back, res)
    assert back.provenance is None
    assert path.stat().st_size < 12 * n * 8  # about 8 bytes a value, not text


def test_filters_and_trend(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        a1 = store.record(_result(1, "bm25"), tags={"model": "bm25", "split": "dev"})
        b1 = store.record(_result(2, "dense", ["ndcg@10", "map"]), tags={"model": "dense"})
        a2 = store.record(_result(3, "bm25"), tags={"model": "bm25", "split": "test"})
        assert [r.id for r in store.records()] == [a1, b1, a2] == [r.id for r in store]
        assert [r.id for r in store.records(run="bm25")] == [a1, a2]
        assert [r.id for r in store.records(metric="map")] == [b1]
        assert [r.id for r in store.records(tags={"model": "bm25", "split": "test"})] == [a2]
        assert store.records(run="nope") == []
        t = store.get(b1).created
        assert [r.id for r in store.records(since=t)] == [b1, a2]
        assert [r.id for r in store.records(until=t)] == [a1, b1]
        assert len(store.records(since="30d")) == 3
        assert store.records(until="2000-01-01") == []
        today = dt.datetime.now(dt.UTC).date().isoformat()
        assert len(store.records(until=today)) == 3  # a date: up to its end
        trend = store.trend("ndcg@10")
        assert [p[3] for p in trend] == [a1, b1, a2]
        when, run, value, rid = trend[0]
        assert isinstance(when, dt.datetime) and run == "bm25" and rid == a1
        assert value == pytest.approx(store.get(a1).summary["ndcg@10"])
        assert [p[3] for p in store.trend("ndcg@10", run="bm25")] == [a1, a2]
        assert store.trend("map", run="bm25") == []
        assert len(store) == 3


def test_bad_arguments(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        with pytest.raises(InputError, match=r"takes a ranklens\.Result"):
            store.record({"ndcg": 1})  # type: ignore[arg-type]
        with pytest.raises(InputError, match="tag"):
            store.record(_result(1, "x"), tags={"": "v"})
        with pytest.raises(StoreError, match="no record 5"):
            store.get(5)
        with pytest.raises(InputError, match="is not a time"):
            store.records(since="last tuesday")
    with pytest.raises(StoreError, match="no such results store"):
        Store(tmp_path / "absent.db", create=False)
    with pytest.raises(StoreError, match="is a folder"):
        Store(tmp_path)
    with pytest.raises(StoreError, match="does not exist"):
        Store(tmp_path / "nope" / "r.db")


def test_refs_and_times(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with Store(path) as store:
        rid = store.record(_result(1, "bm25"))
    assert split_ref(f"{path}#{rid}") == (str(path), rid)
    assert split_ref("run.txt") is None and split_ref("a#b") is None
    assert load_ref(f"{path}#{rid}").id == rid
    with pytest.raises(InputError, match="PATH#ID"):
        load_ref("run.txt")
    assert parse_time("2026-11-01", "since") == dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    assert parse_time(dt.date(2026, 11, 1), "since").day == 1


def test_git_commit(tmp_path: Path) -> None:
    assert git_commit(tmp_path) is None  # not a checkout
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(tmp_path),
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=a",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    sha = git_commit(tmp_path)
    assert sha is not None and len(sha) == 40


def test_the_file_is_sqlite_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with Store(path) as store:
        store.record(_result(1, "x"))
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT version FROM ranklens_schema").fetchall() == [(3,)]
    con.close()
