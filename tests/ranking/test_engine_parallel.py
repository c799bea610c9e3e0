"""Large inputs take other code paths (two-core sorts and look-ups, grouping of
ungrouped rows before the (query, doc) sort): they must give exactly the values of
the one-thread path.  The size threshold is lowered so small data take them."""

from __future__ import annotations

import numpy as np
import pytest

import ranklens
import ranklens._shared.parallel as threads
import ranklens._shared.sorting as sorting
import ranklens.ranking.data as data
import ranklens.ranking.engine as engine
from ranklens.errors import DuplicateError

METRICS = [
    "ndcg@10",
    "ndcg",
    "map",
    "mrr",
    "p@5",
    "recall@20",
    "bpref",
    "err@10",
    "rprec",
    "num_rel_ret",
    "iprec@0.3",
    "kendall_tau",
]


def _data(seed: int, shuffle: bool) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    nq, m = 60, 40
    q = np.repeat(np.arange(nq), m)
    d = (np.repeat(rng.integers(0, 500, nq), m) + np.tile(np.arange(m) * 7, nq)) % 600
    s = rng.integers(0, 6, nq * m) / 2.0  # many ties
    if shuffle:
        p = rng.permutation(len(q))
        q, d, s = q[p], d[p], s[p]
    run = {
        "query": np.char.add("q", q.astype(str)),
        "doc": np.char.add("d", d.astype(str)),
        "score": s,
    }
    jq = rng.integers(0, nq + 5, 900)  # some judged queries are not in the run
    jd = rng.integers(0, 600, 900)
    key = np.unique(jq * 1000 + jd)
    qrels = {
        "query": np.char.add("q", (key // 1000).astype(str)),
        "doc": np.char.add("d", (key % 1000).astype(str)),
        "relevance": rng.integers(-1, 4, key.size),
    }
    return qrels, run


def _evaluate(
    qrels: dict[str, np.ndarray], run: dict[str, np.ndarray], **conv: object
) -> dict[str, dict[str, float]]:
    q = ranklens.Qrels.from_arrays(qrels["query"], qrels["doc"], qrels["relevance"])
    r = ranklens.Run.from_arrays(run["query"], run["doc"], run["score"])
    res = ranklens.evaluate(q, r, METRICS, **conv)
    return {m: res.per_query(m) for m in METRICS}


@pytest.mark.parametrize("cores", [2, 3])
@pytest.mark.parametrize("deferred", [False, True])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("ties", ["trec", "input", "optimistic", "pessimistic"])
def test_two_core_paths_match_one_core(
    monkeypatch: pytest.MonkeyPatch, shuffle: bool, ties: str, deferred: bool, cores: int
) -> None:
    """Input cut into one piece per core gives the one-core values.  Also the join of a run
    whose pairs are checked on first use (one sort of the run and the qrels together) against
    the hash-and-search join."""
    qrels, run = _data(7, shuffle)
    serial = _evaluate(qrels, run, ties=ties, missing="zero")
    monkeypatch.setattr(threads, "LARGE_ROWS", 10)
    monkeypatch.setenv("RANKLENS_THREADS", str(cores))
    if deferred:
        monkeypatch.setattr(data, "LARGE_ROWS", 1)
    parallel = _evaluate(qrels, run, ties=ties, missing="zero")
    for m in METRICS:
        assert list(parallel[m]) == list(serial[m])
        np.testing.assert_array_equal(list(parallel[m].values()), list(serial[m].values()))


def test_pair_index_two_core_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow as pa

    rng = np.random.default_rng(3)
    q = pa.array(rng.integers(0, 50, 3000).astype(str))
    d = pa.array(rng.integers(0, 40, 3000).astype(str))
    serial = sorting.pair_index(q, d)
    monkeypatch.setattr(threads, "LARGE_ROWS", 10)
    parallel = sorting.pair_index(q, d)
    assert np.array_equal(serial.doc_rank, parallel.doc_rank)
    assert np.array_equal(serial.dup_rows, parallel.dup_rows)
    # the order is (query code, doc) and every repeat of a pair is flagged
    qs, ds = np.array(q.to_pylist()), np.array(d.to_pylist())
    expect = np.lexsort((ds, serial.query_code))
    assert np.array_equal(np.argsort(parallel.doc_rank), expect)
    pairs = np.char.add(np.char.add(qs, "|"), ds)
    assert parallel.dup_rows.size == pairs.size - np.unique(pairs).size


def test_duplicates_found_on_the_two_core_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "LARGE_ROWS", 10)
    q = [f"q{i % 7}" for i in range(200)] + ["q3"]
    d = [f"d{i}" for i in range(200)] + ["d3"]
    with pytest.raises(DuplicateError, match=r"\('q3', 'd3'\)"):
        ranklens.Run.from_arrays(q, d, np.arange(201.0))


@pytest.mark.parametrize("n_codes", [5, 70_000, 5_000_000])
def test_group_order_is_a_stable_argsort(n_codes: int) -> None:
    rng = np.random.default_rng(n_codes)
    codes = rng.integers(0, n_codes, 5000).astype(np.int32)
    assert np.array_equal(sorting.group_order(codes, n_codes), np.argsort(codes, kind="stable"))


@pytest.mark.parametrize("parallel", [False, True])
def test_deferred_duplicate_check(monkeypatch: pytest.MonkeyPatch, parallel: bool) -> None:
    monkeypatch.setattr(data, "LARGE_ROWS", 1)
    if parallel:
        monkeypatch.setattr(threads, "LARGE_ROWS", 10)
    q = [f"q{i % 7}" for i in range(200)] + ["q3", "q3"]
    d = [f"d{i}" for i in range(200)] + ["d3", "d3"]
    qrels = ranklens.Qrels.from_arrays(
        [f"q{i}" for i in range(7)], [f"d{i}" for i in range(7)], [1] * 7
    )
    run = ranklens.Run.from_arrays(q, d, np.arange(202.0))  # no error yet
    message = (
        r"Run: 1 \(query, doc\) pair\(s\) occur more than once \(2 extra row\(s\)\), "
        r"e\.g\. \('q3', 'd3'\)"
    )
    with pytest.raises(DuplicateError, match=message):
        ranklens.evaluate(qrels, run, ["map"])
    with pytest.raises(DuplicateError, match=message):
        run.validate()
    fine = ranklens.Run.from_arrays(q[:200], d[:200], np.arange(200.0))
    assert fine.cached("pairs") is None
    assert fine.validate() is fine
    assert ranklens.evaluate(qrels, fine, ["map"]).summary()["map"] == pytest.approx(
        ranklens.evaluate(qrels, ranklens.Run.from_dict(fine.to_dict()), ["map"]).summary()["map"]
    )


def test_deferred_run_evaluated_twice_and_partitioned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data, "LARGE_ROWS", 1)
    qrels_cols, run_cols = _data(11, True)
    q = ranklens.Qrels.from_arrays(qrels_cols["query"], qrels_cols["doc"], qrels_cols["relevance"])
    r = ranklens.Run.from_arrays(run_cols["query"], run_cols["doc"], run_cols["score"])
    first = ranklens.evaluate(q, r, METRICS).summary()
    second = ranklens.evaluate(q, r, METRICS).summary()  # the pair index is now cached
    np.testing.assert_array_equal(list(first.values()), list(second.values()))
    part = r.take_queries(["q1", "q2"])
    assert part.query_ids == ["q1", "q2"]


def test_deferred_duplicates_in_a_trec_file_name_its_lines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from pathlib import Path

    from ranklens.io import read_trec_qrels, read_trec_run

    monkeypatch.setattr(data, "LARGE_ROWS", 1)
    base = Path(str(tmp_path))
    (base / "qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (base / "run").write_text("q1 Q0 a 1 3 t\nq2 Q0 b 1 2 t\nq1 Q0 c 2 1 t\nq1 Q0 a 3 0 t\n")
    run = read_trec_run(base / "run")  # the pairs are checked on first use
    match = r"run: lines 1 and 4 repeat \(query 'q1', doc 'a'\); Run: 1 \(query, doc\)"
    with pytest.raises(DuplicateError, match=match):
        ranklens.evaluate(read_trec_qrels(base / "qrels"), run, ["map"])
    with pytest.raises(DuplicateError, match=match):
        read_trec_run(base / "run").validate()


@pytest.mark.parametrize("ties", ["trec", "input", "optimistic"])
@pytest.mark.parametrize("layout", ["ranked", "ties_ascending", "split_queries"])
def test_runs_given_in_rank_order_skip_the_sort(
    monkeypatch: pytest.MonkeyPatch, ties: str, layout: str
) -> None:
    """Rows already grouped by query and ranked take a no-sort path; rows that only look
    ranked (ties in the wrong order, a query's rows split up) must not, and every layout
    gives the values of a full sort."""
    qrels, run = _data(5, shuffle=False)
    q, d, s = run["query"], run["doc"], run["score"]
    drank = np.unique(d, return_inverse=True)[1]  # doc ids in text order
    qdesc = -np.unique(q, return_inverse=True)[1]  # queries in an order unlike the ids'
    tie = drank if layout == "ties_ascending" else -drank
    order = np.lexsort((tie, -s, qdesc))
    if layout == "split_queries":
        order = np.r_[order[len(order) // 2 :], order[: len(order) // 2]]
    ranked = {k: v[order] for k, v in run.items()}
    got = _evaluate(qrels, ranked, ties=ties, missing="zero")
    monkeypatch.setattr(engine, "_ordered_groups", lambda cols, keys, depth=None, blocks=None: None)
    want = _evaluate(qrels, ranked, ties=ties, missing="zero")  # always a full sort
    for m in METRICS:
        assert list(got[m]) == list(want[m])
        np.testing.assert_array_equal(list(got[m].values()), list(want[m].values()))


def test_ordered_groups_detection() -> None:
    keys = [("q", "ascending"), ("s", "descending"), ("d", "descending")]
    cols = {
        "q": np.array([2, 2, 0, 0, 1]),
        "s": np.array([3.0, 1, 5, 5, 0]),
        "d": np.array([0, 9, 4, 2, 1]),
    }
    assert engine._ordered_groups(cols, keys).tolist() == [2, 3, 4, 0, 1]
    wrong_tie = dict(cols, d=np.array([0, 9, 2, 4, 1]))
    assert engine._ordered_groups(wrong_tie, keys) is None
    split = dict(cols, q=np.array([2, 0, 2, 0, 1]))
    assert engine._ordered_groups(split, keys) is None
