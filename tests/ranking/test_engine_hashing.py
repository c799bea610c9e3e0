"""The join of text doc ids by hashes and the ordering of tied rows only: hashes that
collide change no number and no duplicate check, long ids are compared as text, and
the tie rules hold on every ordering path (blocks of one width, other layouts)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import ranklens
import ranklens._shared.sorting as sorting
import ranklens.ranking.data as data
import ranklens.ranking.engine as engine
from ranklens._shared.hashing import pair_hashes, text_hashes
from ranklens.errors import DuplicateError

GOLDEN = 0x9E3779B97F4A7C15
METRICS = ["map", "ndcg@3", "P.2", "recip_rank", "num_rel_ret"]


def test_a_short_id_is_its_own_hash() -> None:
    """Up to 8 bytes: the bytes as a little-endian word, xor the length times the golden
    ratio constant (computed by hand here)."""
    h, length = text_hashes(pa.array(["ab", "", "abcdefgh"]))
    assert length.tolist() == [2, 0, 8]
    assert int(h[0]) == 0x6261 ^ (2 * GOLDEN) % 2**64
    assert int(h[1]) == 0
    assert int(h[2]) == int.from_bytes(b"abcdefgh", "little") ^ (8 * GOLDEN) % 2**64


def test_hashes_depend_on_the_id_only() -> None:
    ids = ["d1", "a much longer document id", "d1", "", "x" * 17, "a much longer document id!"]
    h, _ = text_hashes(pa.array(ids))
    assert h[0] == h[2] and len(set(h.tolist())) == 5
    for other in (
        pa.array(ids, type=pa.large_string()),
        pa.array(ids).dictionary_encode(),
        pa.array(["pad", *ids]).slice(1),
    ):
        assert text_hashes(other)[0].tolist() == h.tolist()
    # a longer neighbour (more words to read in the column) changes no hash
    assert text_hashes(pa.array([*ids, "y" * 40]))[0][:6].tolist() == h.tolist()
    p = pair_hashes(np.array([0, 1, 0]), h[:3])
    assert p[0] == p[2] != p[1]


def _tables(long_ids: bool) -> tuple[ranklens.Qrels, ranklens.Run]:
    rng = np.random.default_rng(4)
    nq, m = 30, 12
    prefix = "document-number-" if long_ids else "d"
    q = np.repeat([f"q{i}" for i in range(nq)], m)
    d = [f"{prefix}{(7 * i + 3 * j) % 50}" for i in range(nq) for j in range(m)]
    s = rng.integers(0, 4, nq * m) / 2.0  # many ties
    jq = [f"q{i}" for i in range(nq + 2) for _ in range(5)]
    jd = [f"{prefix}{(7 * i + 5 * j) % 50}" for i in range(nq + 2) for j in range(5)]
    rel = rng.integers(-1, 3, len(jq))
    return ranklens.Qrels.from_arrays(jq, jd, rel), ranklens.Run.from_arrays(q, d, s)


@pytest.mark.parametrize("long_ids", [False, True])
@pytest.mark.parametrize("ties", ["trec", "input", "optimistic", "pessimistic"])
@pytest.mark.parametrize("hashes", ["per_query", "constant"])
def test_colliding_hashes_change_nothing(
    monkeypatch: pytest.MonkeyPatch, long_ids: bool, ties: str, hashes: str
) -> None:
    """Pair hashes that collide for every doc of a query (or for every row) give the
    values of the real hashes, on a run checked for repeated pairs in the join too."""
    qrels, run = _tables(long_ids)
    want = ranklens.evaluate(qrels, run, METRICS, ties=ties)
    bad = {
        "per_query": lambda codes, h: np.asarray(codes, dtype=np.uint64) << np.uint64(40),
        "constant": lambda codes, h: np.zeros(len(codes), dtype=np.uint64),
    }[hashes]
    for module in (engine, sorting):  # the qrels' keys and the run's
        monkeypatch.setattr(module, "pair_hashes", bad)
    monkeypatch.setattr(data, "LARGE_ROWS", 1)  # the run's pairs are checked in the join
    qrels, run = _tables(long_ids)
    assert run.cached("pairs") is None
    got = ranklens.evaluate(qrels, run, METRICS, ties=ties)
    for m in METRICS:
        assert got.per_query(m) == want.per_query(m)
    assert run.cached("pairs") is not None


def test_colliding_hashes_still_find_repeated_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (engine, sorting):
        monkeypatch.setattr(module, "pair_hashes", lambda c, h: np.zeros(len(c), dtype=np.uint64))
    monkeypatch.setattr(data, "LARGE_ROWS", 1)
    qrels = ranklens.Qrels.from_arrays(["q1"], ["a-long-document-id"], [1])
    run = ranklens.Run.from_arrays(
        ["q1", "q1", "q2", "q1"],
        ["a-long-document-id", "b", "a-long-document-id", "a-long-document-id"],
        [3.0, 2.0, 1.0, 0.0],
    )
    with pytest.raises(DuplicateError, match=r"\('q1', 'a-long-document-id'\)"):
        ranklens.evaluate(qrels, run, ["map"])


@pytest.mark.parametrize("colliding", [False, True])
def test_long_ids_join_as_text(monkeypatch: pytest.MonkeyPatch, colliding: bool) -> None:
    """Ids longer than 8 bytes that share their first 8 bytes: only the exact id is
    judged.  q1 ranks document-2 (score 3), document-10 (2), document-1 (1); of those
    only document-1 is relevant (document-1x, as long as document-10, is too): reciprocal
    rank 1/3, P@2 = 0.  ``colliding``: every id longer than 8 bytes hashes alike (the
    hashes of shorter ids are the ids), so the text decides."""
    if colliding:

        def alike(ids: pa.Array) -> tuple[np.ndarray, np.ndarray]:
            h, length = text_hashes(ids)
            return np.where(length > 8, np.uint64(7), h), length

        for module in (engine, sorting):
            monkeypatch.setattr(module, "text_hashes", alike)
    qrels = ranklens.Qrels.from_arrays(["q1", "q1"], ["document-1", "document-1x"], [1, 1])
    run = ranklens.Run.from_arrays(
        ["q1"] * 3, ["document-2", "document-10", "document-1"], [3.0, 2.0, 1.0]
    )
    res = ranklens.evaluate(qrels, run, ["recip_rank", "P.2", "num_rel_ret"])
    assert res.per_query("recip_rank") == {"q1": pytest.approx(1 / 3)}
    assert res.per_query("P.2") == {"q1": 0.0}
    assert res.per_query("num_rel_ret") == {"q1": 1.0}


@pytest.mark.parametrize("blocks", [True, False])
@pytest.mark.parametrize("deferred", [False, True])
def test_tie_rules_by_hand(monkeypatch: pytest.MonkeyPatch, blocks: bool, deferred: bool) -> None:
    """q1's docs d2, d10, d1 tie at score 1, d3 follows at 0.5; only d10 is relevant
    (grade 2; d1 is judged non-relevant).  trec: doc id descending as text, d2 > d10 >
    d1, so d10 is 2nd (RR 1/2); input: the rows' order, d10 2nd after d2 (rows d2, d10,
    d1) or 3rd when the rows are given d1, d2, d10; optimistic: d10 first (RR 1);
    pessimistic: d10 last of the tie, after the unjudged d2 and the non-relevant d1
    (both grade 0) - d2 before d1 by doc id descending - so 3rd (RR 1/3).  ``blocks``:
    q2 has as many rows as q1 (rows in blocks of one width) or one row fewer."""
    if deferred:
        monkeypatch.setattr(data, "LARGE_ROWS", 1)
    qrels = ranklens.Qrels.from_arrays(["q1", "q1", "q2"], ["d10", "d1", "x"], [2, 0, 1])
    q2_docs = ["x", "y", "z", "w"] if blocks else ["x", "y", "z"]
    q2_scores = [1.0, 0.5, 0.25, 0.0][: len(q2_docs)]

    def rr(q1_docs: list[str], q1_scores: list[float], ties: str) -> float:
        run = ranklens.Run.from_arrays(
            ["q2"] * len(q2_docs) + ["q1"] * 4, q2_docs + q1_docs, q2_scores + q1_scores
        )
        res = ranklens.evaluate(qrels, run, ["recip_rank"], ties=ties)
        assert res.per_query("recip_rank")["q2"] == 1.0
        return res.per_query("recip_rank")["q1"]

    given = (["d2", "d10", "d1", "d3"], [1.0, 1.0, 1.0, 0.5])
    shuffled = (["d3", "d1", "d2", "d10"], [0.5, 1.0, 1.0, 1.0])
    for docs, scores in (given, shuffled):
        assert rr(docs, scores, "trec") == pytest.approx(1 / 2)
        assert rr(docs, scores, "optimistic") == 1.0
        assert rr(docs, scores, "pessimistic") == pytest.approx(1 / 3)
    assert rr(*given, "input") == pytest.approx(1 / 2)
    assert rr(*shuffled, "input") == pytest.approx(1 / 3)


@pytest.mark.parametrize("collide", [False, True])
def test_pair_index_finds_repeats_among_colliding_hashes(
    monkeypatch: pytest.MonkeyPatch, collide: bool
) -> None:
    """A table's repeated pairs are found (and only those) whether the pair hashes are
    real or all equal: rows 3 and 5 repeat rows 0 and 1."""
    if collide:
        monkeypatch.setattr(sorting, "pair_hashes", lambda c, h: np.zeros(len(c), dtype=np.uint64))
    q = pa.array(["a", "a", "b", "a", "b", "a"])
    d = pa.array(["x", "a-long-document-id", "x", "x", "y", "a-long-document-id"])
    assert sorting.pair_index(q, d).dup_rows.tolist() == [3, 5]
    fine = sorting.pair_index(q.slice(0, 3), d.slice(0, 3))
    assert fine.dup_rows.size == 0 and not fine.doc_rank_known
    assert fine.doc_rank.tolist() == [1, 0, 2]  # ("a", "a-long..") < ("a", "x") < ("b", "x")
    with pytest.raises(DuplicateError, match=r"2 \(query, doc\) pair\(s\)"):
        ranklens.Qrels.from_arrays(q, d, [1] * 6)
