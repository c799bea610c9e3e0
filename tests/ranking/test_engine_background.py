"""A large qrels builds its judgment index on the second core; results must not change."""

from __future__ import annotations

import numpy as np

import ranklens
from ranklens.ranking.engine import _BACKGROUND_ROWS, _build_judgment_index


def test_background_index_gives_the_same_results() -> None:
    n = _BACKGROUND_ROWS + 10
    rng = np.random.default_rng(1)
    q = np.repeat(np.arange(n // 10 + 1), 10)[:n].astype(str)
    d = np.arange(n).astype(str)
    rel = rng.integers(0, 3, n).astype(float)
    qrels = ranklens.Qrels.from_arrays(q, d, rel)
    assert "index_future" in qrels._cache  # started on construction
    run = ranklens.Run.from_arrays(q, d, rng.random(n))
    first = ranklens.evaluate(qrels, run, ["map", "ndcg@10", "p@5"]).summary()
    assert "index" in qrels._cache and "index_future" not in qrels._cache
    # the same index built in the foreground
    fresh = ranklens.Qrels.from_arrays(q[:100], d[:100], rel[:100])
    assert "index_future" not in fresh._cache  # small qrels: built when needed
    idx = _build_judgment_index(qrels)
    np.testing.assert_array_equal(idx.row_qcode, qrels._cache["index"].row_qcode)
    np.testing.assert_array_equal(idx.doc_keys.keys, qrels._cache["index"].doc_keys.keys)
    again = ranklens.evaluate(qrels, run, ["map", "ndcg@10", "p@5"]).summary()
    assert first == again
