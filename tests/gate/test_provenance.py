"""Provenance: content fingerprints of qrels and runs (row order, id encoding, the
``ties='input'`` exception), on results of ``evaluate`` and ``Evaluator``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import ranklens
from ranklens.errors import InputError
from ranklens.ranking.provenance import Provenance
from tests.helpers import graded_case


def _case(seed: int = 0) -> tuple[ranklens.Qrels, ranklens.Run]:
    q, r = graded_case(seed, n_queries=(6, 7))
    return ranklens.Qrels.from_dict(q), ranklens.Run.from_dict(r)


def _shuffled(run: ranklens.Run, seed: int) -> ranklens.Run:
    t = run.to_arrow()
    perm = np.random.default_rng(seed).permutation(len(run))
    return ranklens.Run.from_arrays(
        t["query"].take(perm), t["doc"].take(perm), t["score"].take(perm)
    )


def test_row_order_and_id_encoding_do_not_change_the_canonical_fingerprint() -> None:
    _, run = _case()
    again = _shuffled(run, 1)
    assert again.fingerprint() == run.fingerprint()
    assert again.fingerprint("input") != run.fingerprint("input")
    ints = ranklens.Qrels.from_arrays([1, 1, 2], [10, 11, 10], [1, 0, 2])
    text = ranklens.Qrels.from_arrays(["1", "1", "2"], ["10", "11", "10"], [1.0, 0.0, 2.0])
    assert pa.types.is_dictionary(ints._d.type)  # integer ids are kept encoded
    assert ints.fingerprint() == text.fingerprint()


@pytest.mark.parametrize("change", ["value", "doc", "query", "row"])
def test_any_content_change_changes_it(change: str) -> None:
    base = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 0.25}}
    other = {k: dict(v) for k, v in base.items()}
    if change == "value":
        other["q2"]["a"] = 0.26
    elif change == "doc":
        other["q2"] = {"ab": 0.25}
    elif change == "query":
        other = {"q1": base["q1"], "q3": base["q2"]}
    else:
        other["q2"]["c"] = 0.0
    assert ranklens.Run.from_dict(base).fingerprint() != ranklens.Run.from_dict(other).fingerprint()
    # ids cannot run into each other: ("ab", "c") is not ("a", "bc")
    x = ranklens.Run.from_arrays(["ab", "c"], ["x", "x"], [1.0, 1.0])
    y = ranklens.Run.from_arrays(["a", "bc"], ["x", "x"], [1.0, 1.0])
    assert x.fingerprint() != y.fingerprint()


def test_result_provenance_is_lazy_and_complete() -> None:
    qrels, run = _case()
    res = ranklens.evaluate(qrels, run, ["ndcg_cut.10", "map"], missing="zero")
    p = res.provenance
    assert p is not None and "(lazy)" in repr(p) and ("fingerprint", "canonical") not in run._cache
    doc = p.as_dict()
    assert doc["qrels"] == qrels.fingerprint() and doc["run"] == run.fingerprint()
    assert doc["run_form"] == "canonical"
    assert doc["metrics"] == [str(ranklens.get_metric("ndcg_cut.10")), "ap"]
    assert doc["conventions"]["missing"] == "zero"
    assert doc["version"] == ranklens.__version__
    assert Provenance.from_dict(doc) == p and Provenance.from_dict(doc).fingerprint == p.fingerprint
    import pickle

    fresh = ranklens.evaluate(qrels, run, ["map"]).provenance
    blob = pickle.dumps(fresh)
    assert len(blob) < 2000 and pickle.loads(blob) == fresh  # no table inside
    with pytest.raises(InputError, match="provenance record"):
        Provenance.from_dict({"qrels": "x"})


def test_ties_input_fingerprints_the_row_order() -> None:
    qrels, run = _case()
    again = _shuffled(run, 2)
    a = ranklens.evaluate(qrels, run, ["ndcg@5"], ties="input").provenance
    b = ranklens.evaluate(qrels, again, ["ndcg@5"], ties="input").provenance
    assert a is not None and b is not None
    assert a.run_form == "input" and a.run != b.run and a.qrels == b.qrels
    # ranx's profile ranks ties in row order too
    c = ranklens.evaluate(qrels, run, ["ndcg@5"], profile="ranx").provenance
    assert c is not None and c.run_form == "input"


def test_evaluator_provenance() -> None:
    qrels, run = _case(4)
    one = ranklens.Evaluator(["p@5"])
    one.update(qrels, run)
    direct = ranklens.evaluate(qrels, run, ["p@5"]).provenance
    assert one.compute().provenance == direct  # one batch: the same fingerprints
    ids = sorted(set(qrels.query_ids) | set(run.query_ids))
    parts = [ids[:3], ids[3:]]

    def batched(order: list[list[str]]) -> Provenance:
        ev = ranklens.Evaluator(["p@5"])
        for p in order:
            ev.update(qrels.take_queries(p), run.take_queries(p))
        prov = ev.compute().provenance
        assert prov is not None
        return prov

    first, second = batched(parts), batched(parts[::-1])
    assert first == second and first.batches == 2 and first.qrels != direct.qrels


def test_results_do_not_keep_large_runs_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    """A result refers to a large run only weakly until its provenance is read: results
    kept over many large runs must not keep every run in memory.  A small run is held, so
    its fingerprint is there whenever it is read."""
    import gc
    import weakref

    import ranklens._shared.parallel as parallel

    qrels = ranklens.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    small = ranklens.Run.from_dict({"q1": {"a": 0.5, "c": 0.1}, "q2": {"b": 0.2}})
    want = small.fingerprint()
    res_small = ranklens.evaluate(
        qrels, ranklens.Run.from_dict({"q1": {"a": 0.5, "c": 0.1}, "q2": {"b": 0.2}}), ["p@1"]
    )
    gc.collect()
    assert res_small.provenance is not None and res_small.provenance.run == want

    monkeypatch.setattr(parallel, "LARGE_ROWS", 2)  # every table counts as large
    large = ranklens.Run.from_dict({"q1": {"a": 0.5, "c": 0.1}, "q2": {"b": 0.2}})
    alive = weakref.ref(large)
    res_read = ranklens.evaluate(qrels, large, ["p@1"])
    res_gone = ranklens.evaluate(qrels, large, ["p@1"])
    assert res_read.provenance is not None and res_read.provenance.run == want  # read
    del large
    gc.collect()
    assert alive() is None  # the results did not keep it
    assert res_read.provenance.run == want  # what was read stays
    assert res_gone.provenance is not None and res_gone.provenance.run is None
    assert res_gone.provenance.qrels == qrels.fingerprint()  # qrels still alive
