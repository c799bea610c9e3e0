"""Integer and categorical ids are kept as integer codes into their distinct text
values: every result must be what the same ids given as text produce."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import ranklens
from ranklens.errors import DuplicateError, InputError

METRICS = ["ndcg@10", "map", "mrr", "p@5", "recall@20", "bpref", "rprec", "kendall_tau"]


def _frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    nq, m = 30, 25
    q = np.repeat(rng.permutation(nq) * 7 + 3, m)  # rows grouped, queries unsorted
    d = rng.integers(0, 120, nq * m)
    s = rng.integers(0, 4, nq * m).astype(float)  # many ties: order by id text
    run = pd.DataFrame({"query": q, "doc": d, "score": s}).drop_duplicates(["query", "doc"])
    qrels = pd.DataFrame(
        {
            "query": rng.integers(0, nq + 4, 400) * 7 + 3,
            "doc": rng.integers(0, 120, 400),
            "relevance": rng.integers(0, 3, 400),
        }
    ).drop_duplicates(["query", "doc"])
    return qrels, run


def _per_query(qrels: object, run: object, **conv: object) -> dict[str, dict[str, float]]:
    q = ranklens.Qrels.from_frame(qrels)
    r = ranklens.Run.from_frame(run)
    res = ranklens.evaluate(q, r, METRICS, **conv)
    return {m: res.per_query(m) for m in METRICS}


def _same(a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> None:
    for m in METRICS:
        assert list(a[m]) == list(b[m])
        np.testing.assert_array_equal(list(a[m].values()), list(b[m].values()))


def _as_text(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(query=df["query"].astype(str), doc=df["doc"].astype(str))


@pytest.mark.parametrize("ties", ["trec", "input", "optimistic"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_integer_ids_equal_text_ids(seed: int, ties: str) -> None:
    qrels, run = _frames(seed)
    want = _per_query(_as_text(qrels), _as_text(run), ties=ties, missing="zero")
    _same(_per_query(qrels, run, ties=ties, missing="zero"), want)
    # shuffled rows, polars and pyarrow input, one side as text
    shuffled = run.sample(frac=1.0, random_state=seed)
    if ties != "input":  # (input order is the tie rule there)
        _same(_per_query(qrels, shuffled, ties=ties, missing="zero"), want)
    _same(
        _per_query(pl.from_pandas(qrels), pa.Table.from_pandas(run), ties=ties, missing="zero"),
        want,
    )
    _same(_per_query(_as_text(qrels), run, ties=ties, missing="zero"), want)
    _same(_per_query(qrels, _as_text(run), ties=ties, missing="zero"), want)


def test_categorical_ids_equal_text_ids() -> None:
    qrels, run = _frames(5)
    want = _per_query(_as_text(qrels), _as_text(run))
    cat = _as_text(run)
    # unused categories and categories in an order unrelated to the text
    cats = sorted(set(cat["doc"]) | {"unused1", "zz"}, reverse=True)
    cat["doc"] = pd.Categorical(cat["doc"], categories=cats)
    cat["query"] = pd.Categorical(cat["query"], categories=[*set(cat["query"]), "nobody"])
    _same(_per_query(_as_text(qrels), cat), want)
    plcat = pl.from_pandas(_as_text(run)).with_columns(pl.col("doc").cast(pl.Categorical))
    _same(_per_query(_as_text(qrels), plcat), want)
    r = ranklens.Run.from_frame(cat)
    assert r.num_queries == run["query"].nunique()
    assert r.to_arrow().column("doc").type in (pa.string(), pa.large_string())


def test_tied_integer_ids_break_by_text_not_number() -> None:
    # trec_eval orders tied documents by id descending as text: "9" before "10"
    run = pd.DataFrame({"query": [1, 1], "doc": [9, 10], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query": [1], "doc": [10], "relevance": [1]})
    res = ranklens.evaluate(ranklens.Qrels.from_frame(qrels), ranklens.Run.from_frame(run), ["mrr"])
    assert res.per_query("mrr") == {"1": 0.5}


def test_integer_ids_come_back_as_text() -> None:
    run = ranklens.Run.from_frame(
        pd.DataFrame({"query": [7, 7], "doc": [-1, 12], "score": [1.0, 2.0]})
    )
    assert run.to_dict() == {"7": {"-1": 1.0, "12": 2.0}}
    assert run == ranklens.Run.from_dict({"7": {"-1": 1.0, "12": 2.0}})
    assert run.query_ids == ["7"]


def test_duplicate_integer_pairs_are_named() -> None:
    df = pd.DataFrame({"query": [1, 1, 2, 1], "doc": [5, 6, 5, 5], "score": [1.0, 2, 3, 4]})
    with pytest.raises(DuplicateError, match=r"\('1', '5'\)"):
        ranklens.Run.from_frame(df)
    kept = ranklens.Run.from_frame(df, duplicates="max")
    assert kept.to_dict() == {"1": {"5": 4.0, "6": 2.0}, "2": {"5": 3.0}}


def test_missing_categorical_id_is_an_error() -> None:
    df = pd.DataFrame(
        {"query": pd.Categorical(["a", None]), "doc": ["x", "y"], "score": [1.0, 2.0]}
    )
    with pytest.raises(InputError, match="row 1 has a missing"):
        ranklens.Run.from_frame(df)


def test_take_queries_of_an_encoded_table() -> None:
    _, run = _frames(3)
    r = ranklens.Run.from_frame(run)
    some = sorted(run["query"].astype(str).unique())[:5]
    part = r.take_queries(some)
    assert part.query_ids == some
    assert part == ranklens.Run.from_frame(_as_text(run)).take_queries(some)


def test_frames_whose_columns_are_several_arrow_chunks() -> None:
    # pandas 3 string columns of a concatenated frame are chunked Arrow arrays
    a = pd.DataFrame({"query": ["q1", "q1"], "doc": ["d1", "d2"], "relevance": [1, 0]})
    b = pd.DataFrame({"query": ["q2"], "doc": ["d1"], "relevance": [2]})
    qrels = ranklens.Qrels.from_frame(pd.concat([a, b], ignore_index=True))
    run = ranklens.Run.from_frame(
        pd.concat([a, b], ignore_index=True).rename(columns={"relevance": "score"})
    )
    assert qrels.to_dict() == {"q1": {"d1": 1.0, "d2": 0.0}, "q2": {"d1": 2.0}}
    assert ranklens.evaluate(qrels, run, ["map"]).per_query("map") == {"q1": 1.0, "q2": 1.0}


def test_integer_ids_are_ordered_as_their_text() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ranklens._shared.columns import as_id_column, decimal_text_order

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=40, unique=True))
    def check(values: list[int]) -> None:
        arr = np.array(values, dtype=np.int64)
        text = [str(v) for v in arr[decimal_text_order(arr)]]
        assert text == sorted(text, key=str.encode)
        enc = as_id_column(arr, "ids", encode=True)
        assert enc.dictionary.to_pylist() == sorted({str(v) for v in values}, key=str.encode)
        assert enc.dictionary_decode().to_pylist() == [str(v) for v in values]

    check()


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("ids", ["int", "text"])
def test_pair_index_ranks_rows_by_query_code_then_doc_text(grouped: bool, ids: str) -> None:
    from ranklens._shared.columns import as_id_column
    from ranklens._shared.sorting import pair_index

    rng = np.random.default_rng(4)
    q = rng.integers(0, 40, 2000)
    q = q[np.argsort(-q, kind="stable")] if grouped else q  # grouped, codes out of order
    d = rng.integers(0, 300, 2000)
    qa = as_id_column(q if ids == "int" else q.astype(str), "q", encode=True)
    da = as_id_column(d if ids == "int" else d.astype(str), "d", encode=True)
    index = pair_index(qa, da)
    text = np.array(d.astype(str), dtype=object)
    want = np.lexsort((text, index.query_code))
    assert np.array_equal(np.argsort(index.doc_rank), want)
    pairs = {(a, b) for a, b in zip(q.tolist(), d.tolist(), strict=True)}
    assert index.dup_rows.size == len(q) - len(pairs)


@pytest.mark.parametrize(
    "kind", ["small", "negative", "sparse", "extreme", "int32", "uint16", "one"]
)
def test_dense_integer_ids_code_as_the_hash_does(kind: str) -> None:
    """Integer ids in a narrow range are coded through a table over the range instead of
    a hash: the same codes and the same distinct ids (decimal-text order), or no fast path
    (sparse ids, uint64)."""
    from ranklens._shared import columns

    rng = np.random.default_rng(len(kind))
    n = 3000
    v = {
        "small": rng.integers(0, 500, n),
        "negative": rng.integers(-70, 70, n),
        "sparse": rng.integers(0, 10**12, n),
        "extreme": rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64),
        "int32": rng.integers(0, 4 * n, n).astype(np.int32),
        "uint16": rng.integers(0, 300, n).astype(np.uint16),
        "one": np.full(n, 12345),
    }[kind]
    arr = pa.array(v)
    dense = columns._dense_id_codes(arr)
    hashed = columns._hashed_id_codes(arr)
    assert (dense is None) == (kind in ("sparse", "extreme"))
    if dense is not None:
        assert np.array_equal(dense[0], hashed[0]) and np.array_equal(dense[1], hashed[1])
    coded = columns.as_id_column(arr, "ids", encode=True)
    assert coded.dictionary_decode().to_pylist() == [str(x) for x in v.tolist()]
    assert coded.dictionary.to_pylist() == sorted(coded.dictionary.to_pylist())
