"""``ranklens.Evaluator``: batches of whole queries give one evaluation's numbers.

The catalogue-wide equality (every metric variant, every profile) is in
``test_contract_ranking.py``; these tests cover the inputs and the refusals."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ranklens
from tests.helpers import graded_case

METRICS = ["map", "ndcg@10", "p@5", "11pt_avg", "ndcg_rel", "num_ret", "gm_map"]


def _split(seed: int, parts: int) -> tuple[Any, Any, list[tuple[Any, Any]]]:
    qrels_d, run_d = graded_case(seed, n_queries=(30, 60), stray_query=True)
    qrels, run = ranklens.Qrels.from_dict(qrels_d), ranklens.Run.from_dict(run_d)
    ids = sorted(set(qrels_d) | set(run_d))
    batches = []
    for i in range(parts):
        mine = ids[i::parts]
        q = {k: v for k, v in qrels_d.items() if k in mine}
        r = {k: v for k, v in run_d.items() if k in mine}
        if q and r:
            batches.append((ranklens.Qrels.from_dict(q), ranklens.Run.from_dict(r)))
    return qrels, run, batches


@pytest.mark.parametrize("unjudged", ["skip", "zero"])
@pytest.mark.parametrize("missing", ["zero", "skip"])
@pytest.mark.parametrize("seed", range(4))
def test_batches_equal_one_evaluation(seed: int, missing: str, unjudged: str) -> None:
    qrels, run, batches = _split(seed, 3)
    conv = dict(missing=missing, unjudged=unjudged)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        whole = ranklens.evaluate(qrels, run, METRICS, **conv)
    ev = ranklens.Evaluator(METRICS, **conv)
    for q, r in batches:
        ev.update(q, r)
    assert len(ev) == len(batches)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        got = ev.compute()
    covered = {q for q, _ in batches for q in q.query_ids}
    if covered != set(qrels.query_ids):  # a third without run rows: not a batch
        return
    assert got.query_ids == whole.query_ids
    for m in METRICS:
        np.testing.assert_array_equal(got.values[m], whole.values[m], err_msg=m)
    assert got.summary() == whole.summary()
    assert dict(got.report) == dict(whole.report)


def test_warnings_come_once_from_compute() -> None:
    qrels = ranklens.Qrels.from_dict({"a": {"d": 1}, "b": {"d": 1}})
    ev = ranklens.Evaluator(["p@1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.update(
            ranklens.Qrels.from_dict({"a": {"d": 1}}),
            ranklens.Run.from_dict({"a": {"d": 1.0}, "x": {"d": 1.0}}),
        )
        ev.update(
            ranklens.Qrels.from_dict({"b": {"d": 1}}),
            ranklens.Run.from_dict({"b": {"d": 1.0}, "y": {"d": 1.0}}),
        )
    with pytest.warns(ranklens.RanklensWarning, match="2 run queries have no judgments") as rec:
        res = ev.compute()
    assert len(rec) == 1 and rec[0].filename == __file__
    assert res.per_query("p@1") == {"a": 1.0, "b": 1.0}
    assert qrels.query_ids == list(res.query_ids)


def test_a_query_split_across_batches_is_refused() -> None:
    ev = ranklens.Evaluator(["map"])
    ev.update(
        ranklens.Qrels.from_dict({"q1": {"a": 1}}), ranklens.Run.from_dict({"q1": {"a": 1.0}})
    )
    with pytest.raises(ranklens.InputError, match=r"batch 2: queries 'q1' were in an earlier"):
        ev.update(
            ranklens.Qrels.from_dict({"q2": {"a": 1}}),
            ranklens.Run.from_dict({"q1": {"b": 1.0}, "q2": {"a": 1.0}}),
        )
    assert len(ev) == 1  # the refused batch left nothing behind


def test_merge_workers_and_refusals() -> None:
    _, _, batches = _split(7, 4)
    a, b = ranklens.Evaluator(METRICS), ranklens.Evaluator(METRICS)
    for i, (q, r) in enumerate(batches):
        (a if i % 2 else b).update(q, r)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        merged = a.merge(b).compute()
        one = ranklens.Evaluator(METRICS)
        for q, r in batches:
            one.update(q, r)
        want = one.compute()
    assert merged.summary() == want.summary()
    with pytest.raises(ranklens.RanklensError, match="differ in their conventions"):
        a.merge(ranklens.Evaluator(METRICS, ties="input"))
    with pytest.raises(ranklens.InputError, match="evaluated by both evaluators"):
        a.merge(b)
    with pytest.raises(ranklens.InputError, match="takes an Evaluator"):
        a.merge("b")  # type: ignore[arg-type]


def test_compute_needs_a_batch_and_reset_forgets() -> None:
    ev = ranklens.Evaluator("p@1")
    with pytest.raises(ranklens.InputError, match="no batch yet; call update"):
        ev.compute()
    ev.update(ranklens.Qrels.from_dict({"q": {"a": 1}}), ranklens.Run.from_dict({"q": {"a": 1.0}}))
    ev.reset()
    assert len(ev) == 0
    ev.update(
        ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}}),
        ranklens.Run.from_dict({"q": {"a": 1.0, "b": 0.5}}),
    )  # q again: a new epoch
    assert ev.compute()["p@1"] == 0.0


def test_bad_metrics_and_keywords_fail_before_any_batch() -> None:
    with pytest.raises(ranklens.MetricNameError):
        ranklens.Evaluator(["ndcg@x"])
    with pytest.raises(
        ranklens.ConventionError, match=r"unknown convention\(s\): tie \(did you mean 'ties'\?\)"
    ):
        ranklens.Evaluator(["map"], tie="input")
    with pytest.raises(ranklens.ConventionError):
        ranklens.Evaluator(["map"], ties="sideways")


class _ArrayOnly:
    """An array-like that is neither numpy nor a sequence (a tensor's shape)."""

    def __init__(self, data: Any) -> None:
        self._data = np.asarray(data)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._data if dtype is None else self._data.astype(dtype)


class _DLPackOnly:
    """Exposes only the DLPack protocol, as CPU tensors of other frameworks do."""

    def __init__(self, data: Any) -> None:
        self._data = np.asarray(data)

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self._data.__dlpack_device__()


@pytest.mark.parametrize(
    "wrap",
    [np.asarray, list, _ArrayOnly, _DLPackOnly],
    ids=["numpy", "list", "array_protocol", "dlpack"],
)
def test_update_arrays_takes_array_likes(wrap: Any) -> None:
    query = np.array([1, 1, 1, 2, 2])
    doc = np.array([10, 11, 12, 10, 13])
    rel = np.array([1.0, 0.0, 2.0, 0.0, 1.0])
    score = np.array([0.9, 0.8, 0.1, 0.5, 0.4])
    ev = ranklens.Evaluator(["ndcg", "p@2"])
    ev.update_arrays(wrap(query), wrap(doc), wrap(rel), wrap(score))
    want = ranklens.evaluate(
        ranklens.Qrels.from_arrays(query, doc, rel),
        ranklens.Run.from_arrays(query, doc, score),
        ["ndcg", "p@2"],
    )
    assert ev.compute().per_query_all() == want.per_query_all()


def test_update_takes_frames() -> None:
    pd = pytest.importorskip("pandas")
    qrels = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "relevance": [1, 0]})
    run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [0.1, 0.9]})
    ev = ranklens.Evaluator(["rr"])
    ev.update(qrels, run)
    assert ev.compute()["rr"] == 0.5


def test_a_batch_may_have_one_side_empty() -> None:
    """Run queries without judgments, or judged queries absent from the run, may come
    in a batch of their own: the numbers are those of one evaluation."""
    qrels_d, run_d = graded_case(7, n_queries=(20, 30), stray_query=True)
    qrels, run = ranklens.Qrels.from_dict(qrels_d), ranklens.Run.from_dict(run_d)
    judged_run = {k: v for k, v in run_d.items() if k in qrels_d}
    stray = {k: v for k, v in run_d.items() if k not in qrels_d}
    absent = {k: v for k, v in qrels_d.items() if k not in run_d}
    assert stray
    with_run = {k: v for k, v in qrels_d.items() if k in run_d}
    for conv in (dict(missing="zero", unjudged="zero"), dict(missing="skip", unjudged="skip")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ranklens.RanklensWarning)
            whole = ranklens.evaluate(qrels, run, METRICS, **conv)
            ev = ranklens.Evaluator(METRICS, **conv)
            ev.update(ranklens.Qrels.from_dict(with_run), ranklens.Run.from_dict(judged_run))
            ev.update(ranklens.Qrels.from_arrays([], [], []), ranklens.Run.from_dict(stray))
            if absent:
                ev.update(ranklens.Qrels.from_dict(absent), ranklens.Run.from_arrays([], [], []))
            got = ev.compute()
        assert got.query_ids == whole.query_ids
        for m in METRICS:
            np.testing.assert_array_equal(got.values[m], whole.values[m], err_msg=m)
        assert dict(got.report) == dict(whole.report)


def test_all_batches_without_judgments_is_refused() -> None:
    ev = ranklens.Evaluator(["map"])
    ev.update(ranklens.Qrels.from_arrays([], [], []), ranklens.Run.from_dict({"q": {"d": 1.0}}))
    with pytest.raises(ranklens.InputError, match="qrels are empty"):
        ev.compute()


def test_one_query_a_batch_gives_the_same_bits() -> None:
    """The most batches there can be, one query each (a query's value must not depend
    on the others: ERR's padded matrix and 11pt_avg's mean once did), long rankings."""
    rng = np.random.default_rng(3)
    qrels_d = {
        f"q{i}": {f"d{j}": int(rng.integers(0, 5)) for j in range(0, 60, 3)} for i in range(25)
    }
    run_d = {
        f"q{i}": {f"d{j}": float(rng.integers(0, 8)) / 8 for j in range(int(rng.integers(1, 60)))}
        for i in range(25)
    }
    metrics = [
        "err",
        "err@10",
        "err@50",
        "11pt_avg",
        "ndcg",
        "map",
        "bpref",
        "infAP",
        "rbp",
        "iprec_at_recall.0.3",
    ]
    whole = ranklens.evaluate(
        ranklens.Qrels.from_dict(qrels_d), ranklens.Run.from_dict(run_d), metrics
    )
    ev = ranklens.Evaluator(metrics)
    for q in qrels_d:
        ev.update(ranklens.Qrels.from_dict({q: qrels_d[q]}), ranklens.Run.from_dict({q: run_d[q]}))
    got = ev.compute()
    for m in metrics:
        np.testing.assert_array_equal(got.values[m], whole.values[m], err_msg=m)
