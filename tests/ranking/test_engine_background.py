"""A large qrels read from a file builds its judgment index on a background thread
(started by the reader, never by a constructor); results must not change."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ranklens
import ranklens._shared.parallel as parallel
from ranklens.io import read_qrels, read_trec_qrels
from ranklens.ranking.engine import _build_judgment_index, index_ahead


def _columns(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    q = np.repeat(np.arange(n // 10 + 1), 10)[:n].astype(str)
    d = np.arange(n).astype(str)
    return q, d, rng.integers(0, 3, n).astype(float)


def test_constructors_start_no_thread() -> None:
    q, d, rel = _columns(parallel.LARGE_ROWS + 10)
    qrels = ranklens.Qrels.from_arrays(q, d, rel)
    assert qrels.cached("index_future") is None and qrels.cached("index") is None


@pytest.mark.parametrize("suffix", [".qrels", ".csv"])
def test_reading_a_large_qrels_indexes_ahead(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, suffix: str
) -> None:
    monkeypatch.setattr(parallel, "LARGE_ROWS", 50)
    monkeypatch.setenv("RANKLENS_THREADS", "2")
    q, d, rel = _columns(200)
    path = tmp_path / f"judged{suffix}"
    if suffix == ".csv":
        path.write_text(
            "query,doc,relevance\n"
            + "".join(f"{a},{b},{int(c)}\n" for a, b, c in zip(q, d, rel, strict=True))
        )
        qrels = read_qrels(path)
    else:
        path.write_text("".join(f"{a} 0 {b} {int(c)}\n" for a, b, c in zip(q, d, rel, strict=True)))
        qrels = read_trec_qrels(path)
    assert qrels.cached("index_future") is not None  # started by the reader
    run = ranklens.Run.from_arrays(q, d, np.random.default_rng(2).random(len(q)))
    first = ranklens.evaluate(qrels, run, ["map", "ndcg@10", "p@5"]).summary()
    assert qrels.cached("index") is not None and qrels.cached("index_future") is None
    # the same index built in the foreground, and the same values
    idx = _build_judgment_index(qrels)
    np.testing.assert_array_equal(idx.row_qcode, qrels.cached("index").row_qcode)
    np.testing.assert_array_equal(idx.doc_keys.keys, qrels.cached("index").doc_keys.keys)
    fresh = ranklens.Qrels.from_arrays(q, d, rel)
    assert ranklens.evaluate(fresh, run, ["map", "ndcg@10", "p@5"]).summary() == first


def test_no_background_index_for_small_input_or_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    q, d, rel = _columns(200)
    qrels = ranklens.Qrels.from_arrays(q, d, rel)
    index_ahead(qrels)  # small
    assert qrels.cached("index_future") is None
    monkeypatch.setattr(parallel, "LARGE_ROWS", 50)
    monkeypatch.setenv("RANKLENS_THREADS", "1")
    index_ahead(qrels)  # one core: nothing to overlap with
    assert qrels.cached("index_future") is None
