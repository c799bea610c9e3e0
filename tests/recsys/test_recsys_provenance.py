"""The provenance of a recommender evaluation names every input its numbers depend
on: besides the held-out interactions (qrels) and the lists (run), the training log,
catalog, item features and categories its beyond-accuracy metrics read, by content;
a store keeps them, and a gate refuses results whose metrics read other inputs, as it
refuses other qrels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.errors import ProvenanceError
from ranklens.history import Store
from ranklens.ranking.provenance import Provenance
from ranklens.recsys import evaluate_interactions
from tests.recsys.test_recsys_from_files import CATS, HELD, RECS, TRAIN

FEATS = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [0.5, 0.5]}
ALL_INPUTS: dict[str, Any] = {
    "train": TRAIN,
    "catalog": ["a", "b", "c", "d", "e"],
    "item_features": FEATS,
    "categories": CATS,
}


def _inputs(metrics: list[str], **given: Any) -> dict[str, str]:
    ev = evaluate_interactions(RECS, HELD, metrics, **given)
    assert ev.result.provenance is not None
    return ev.result.provenance.inputs


@pytest.mark.parametrize(
    ("metrics", "read"),
    [
        (["mrr", "p@2"], []),  # ranking metrics read none of them
        (["novelty"], ["train"]),
        (["arp", "aplt"], ["train"]),
        (["catalog_coverage"], ["catalog"]),  # the catalog given is read, not train's items
        (["ild"], ["item_features"]),  # features first, when both are given
        (["personalisation"], []),
        (["unexpectedness"], ["train", "item_features"]),
        (["serendipity(threshold=0.5)", "mrr"], ["train", "item_features"]),
    ],
)
def test_the_inputs_recorded_are_those_the_metrics_read(
    metrics: list[str], read: list[str]
) -> None:
    inputs = _inputs(metrics, **ALL_INPUTS)
    assert sorted(inputs) == sorted(read)
    assert all(len(v) == 64 and int(v, 16) >= 0 for v in inputs.values())


def test_without_the_catalog_its_default_is_the_training_log() -> None:
    assert list(_inputs(["catalog_coverage"], train=TRAIN)) == ["train"]
    assert list(_inputs(["ild"], categories=CATS)) == ["categories"]


def test_a_result_that_reads_no_input_keeps_its_provenance_document() -> None:
    ev = evaluate_interactions(RECS, HELD, ["mrr"], train=TRAIN)
    assert ev.result.provenance is not None
    assert "inputs" not in ev.result.provenance.as_dict()


def _shuffled(table: dict[str, list[Any]], seed: int) -> dict[str, list[Any]]:
    order = np.random.default_rng(seed).permutation(len(next(iter(table.values()))))
    return {k: [col[i] for i in order] for k, col in table.items()}


def test_fingerprints_follow_the_content_not_the_row_order() -> None:
    metrics = ["novelty", "catalog_coverage", "ild", "unexpectedness"]
    base = _inputs(metrics, train=TRAIN, catalog=["a", "b", "c", "d"], categories=CATS)
    same = _inputs(
        metrics,
        train=_shuffled(TRAIN, 1),
        catalog=["d", "c", "b", "a", "a"],  # a set of ids: order and repeats do not count
        categories=dict(reversed(list(zip(CATS["item_id"], CATS["category"], strict=True)))),
    )
    assert same == base
    # one more training row of a pair already there: a repeat counts in a log
    more = {k: [*v, v[0]] for k, v in TRAIN.items()}
    assert _inputs(metrics, train=more, catalog=["a", "b", "c", "d"], categories=CATS) == {
        **base,
        "train": _inputs(["novelty"], train=more)["train"],
    }
    assert _inputs(["novelty"], train=more)["train"] != base["train"]
    other_cat = {**CATS, "category": ["x", "y", "y", "y"]}
    assert _inputs(["ild"], categories=other_cat)["categories"] != base["categories"]
    assert (
        _inputs(["catalog_coverage"], catalog=["a", "b", "c", "d", "e"])["catalog"]
        != base["catalog"]
    )


def test_feature_fingerprints_follow_the_vectors() -> None:
    a = _inputs(["ild"], item_features=FEATS)["item_features"]
    # the same vectors as (ids, matrix) in another order, and as a table file would give
    ids = ["d", "c", "b", "a"]
    assert (
        _inputs(["ild"], item_features=(ids, np.array([FEATS[i] for i in ids])))["item_features"]
        == a
    )
    moved = {**FEATS, "d": [0.5, 0.25]}
    assert _inputs(["ild"], item_features=moved)["item_features"] != a


def test_a_store_keeps_the_inputs(tmp_path: Path) -> None:
    ev = evaluate_interactions(RECS, HELD, ["mrr", "novelty"], train=TRAIN)
    assert ev.result.provenance is not None
    with Store(tmp_path / "r.db") as store:
        rec = store.get(store.record(ev.result, commit=None))
    assert rec.provenance is not None
    assert rec.provenance["inputs"] == ev.result.provenance.inputs
    loaded = rec.result().provenance
    assert loaded is not None and loaded.inputs == ev.result.provenance.inputs


# --------------------------------------------------------------------------- the gate


def _result(train: Any, **given: Any) -> ranklens.Result:
    metrics = ["mrr", "novelty", "ild"]
    return evaluate_interactions(RECS, HELD, metrics, train=train, **given).result


MORE = {"user_id": [*TRAIN["user_id"], "t9"], "item_id": [*TRAIN["item_id"], "d"]}


def test_the_gate_refuses_other_inputs_as_it_refuses_other_qrels() -> None:
    cand, base = _result(MORE, categories=CATS), _result(TRAIN, categories=CATS)
    rules = {"max_drop": {"novelty": 0.5}}
    with pytest.raises(
        ProvenanceError,
        match=r"different inputs of novelty \(train: fingerprints .*allow_different_inputs=True",
    ):
        ranklens.gate(None, cand, base, rules)
    v = ranklens.gate(None, cand, base, rules, allow_different_inputs=True)
    assert any("compared despite different inputs (train: fingerprints" in n for n in v.notes)
    # mrr and ild read no training log: another log does not matter to them
    assert ranklens.gate(None, cand, base, {"max_drop": {"mrr": 0.5, "ild": 1.0}}).passed


def test_the_gate_compares_only_the_inputs_its_metrics_read() -> None:
    cand = _result(TRAIN, item_features=FEATS)
    base = _result(TRAIN, categories=CATS)
    assert ranklens.gate(None, cand, base, {"max_drop": {"novelty": 0.5}}).passed
    with pytest.raises(
        ProvenanceError,
        match="item_features: read by the candidate only; categories: read by the baseline",
    ):
        ranklens.gate(None, cand, base, {"max_drop": {"ild": 1.0}})
    other = _result(TRAIN, categories={**CATS, "category": ["x", "y", "y", "y"]})
    with pytest.raises(ProvenanceError, match="categories: fingerprints"):
        ranklens.gate(None, other, base, {"non_inferiority": {"ild": 0.1}})


def test_a_result_that_records_no_inputs_is_noted() -> None:
    cand = _result(TRAIN, categories=CATS)
    base = _result(TRAIN, categories=CATS)
    assert base.provenance is not None
    doc = base.provenance.as_dict()
    del doc["inputs"]  # as a ranklens before inputs were recorded stored it
    old = ranklens.Result(
        metrics=base.metrics,
        query_ids=base.query_ids,
        values=base.values,
        parsed=base.parsed,
        conventions=base.conventions,
        report=base.report,
        run_name=base.run_name,
        provenance=Provenance.from_dict(doc),
    )
    v = ranklens.gate(None, cand, old, {"max_drop": {"novelty": 0.5}})
    assert any("baseline records no fingerprint of its train" in n for n in v.notes)
