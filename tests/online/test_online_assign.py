"""Assignment: hashing definitions, determinism across processes, balance,
independence, layers, holdouts and bad input."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from ranklens.errors import InputError
from ranklens.online import (
    HOLDOUT,
    NOT_ENROLLED,
    Experiment,
    Plan,
    assign,
    bucket_units,
    hash_units,
)

stats = pytest.importorskip("scipy.stats")

MASK = (1 << 64) - 1
N_BIG = 1_000_000


def fnv_fmix_reference(message: bytes) -> int:
    """Independent byte-at-a-time implementation of the documented definition."""
    h = 0xCBF29CE484222325
    for b in message:
        h = ((h ^ b) * 0x100000001B3) & MASK
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & MASK
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & MASK
    h ^= h >> 33
    return h


def sha_reference(message: bytes) -> int:
    return int.from_bytes(hashlib.sha256(message).digest()[:8], "big")


UNITS = ["", "a", "alice", "héllo wörld", "日本語", "x" * 257, "user:42", "007", "7"]


@pytest.fixture(scope="module")
def big_ids() -> pa.Array:
    return pa.array([f"user-{i}" for i in range(N_BIG)])


# ---------------------------------------------------------------------------------------
# hash definitions
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("salt", ["exp1", "ünïcode salt", "s:with:colons"])
def test_sha256_matches_definition(salt: str) -> None:
    got = hash_units(UNITS, salt, algorithm="sha256")
    want = [sha_reference(f"{salt}:{u}".encode()) for u in UNITS]
    assert got.dtype == np.uint64
    assert [int(x) for x in got] == want


@pytest.mark.parametrize("salt", ["exp1", "ünïcode salt"])
def test_fnv_matches_definition(salt: str) -> None:
    got = hash_units(UNITS, salt, algorithm="fnv1a-fmix64")
    want = [fnv_fmix_reference(f"{salt}:{u}".encode()) for u in UNITS]
    assert [int(x) for x in got] == want


def test_fnv_random_lengths_match_definition() -> None:
    rng = np.random.default_rng(3)
    ids = [
        "".join(chr(c) for c in rng.integers(32, 0x3000, size=int(n)))
        for n in rng.integers(0, 60, size=500)
    ]
    got = hash_units(ids, "s", algorithm="fnv1a-fmix64")
    assert [int(x) for x in got] == [fnv_fmix_reference(f"s:{u}".encode()) for u in ids]


def test_integer_ids_hash_as_decimal_text() -> None:
    a = hash_units([7, 123456789012], "s")
    b = hash_units(["7", "123456789012"], "s")
    assert a.tolist() == b.tolist()


def test_input_containers_agree() -> None:
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    ids = [f"u{i}" for i in range(100)]
    want = hash_units(ids, "s").tolist()
    for container in (
        np.array(ids, dtype=object),
        pd.Series(ids),
        pl.Series(ids),
        pa.array(ids),
        pa.chunked_array([ids[:50], ids[50:]]),
        pa.array(ids, type=pa.large_string()),
        pa.array(ids).slice(0),
    ):
        assert hash_units(container, "s").tolist() == want
    sliced = pa.array(["zzz", *ids]).slice(1)
    for alg in ("sha256", "fnv1a-fmix64"):
        assert (
            hash_units(sliced, "s", algorithm=alg).tolist()
            == hash_units(ids, "s", algorithm=alg).tolist()
        )


def test_bucket_units_is_hash_mod_buckets() -> None:
    ids = [f"u{i}" for i in range(1000)]
    h = hash_units(ids, "s")
    b = bucket_units(ids, "s", 977)
    assert b.tolist() == [int(x) % 977 for x in h]
    assert b.min() >= 0 and b.max() < 977


# ---------------------------------------------------------------------------------------
# determinism
# ---------------------------------------------------------------------------------------
_CHILD = """
import json, sys
from ranklens.online import Experiment, Plan
ids = [f"unit-{i}" for i in range(20000)]
plan = Plan([Experiment("exp-a", {"control": 1, "treatment": 2}),
             Experiment("exp-b", ["a", "b", "c"], layer="L", traffic=0.5),
             Experiment("exp-c", ["a", "b"], layer="L", traffic=0.3)],
            holdout=0.05, algorithm=sys.argv[1])
res = plan.assign(ids)
print(json.dumps({k: res[k].codes.tolist() for k in res}))
"""


@pytest.mark.parametrize("algorithm", ["sha256", "fnv1a-fmix64"])
def test_same_assignment_in_another_process(algorithm: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, algorithm],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    theirs = json.loads(out.stdout)
    ids = [f"unit-{i}" for i in range(20000)]
    plan = Plan(
        [
            Experiment("exp-a", {"control": 1, "treatment": 2}),
            Experiment("exp-b", ["a", "b", "c"], layer="L", traffic=0.5),
            Experiment("exp-c", ["a", "b"], layer="L", traffic=0.3),
        ],
        holdout=0.05,
        algorithm=algorithm,
    )  # type: ignore[arg-type]
    ours = plan.assign(ids)
    assert set(theirs) == set(ours)
    for k in ours:
        assert ours[k].codes.tolist() == theirs[k]


def test_order_and_batching_do_not_matter() -> None:
    ids = np.array([f"u{i}" for i in range(5000)])
    exp = Experiment("e", ["a", "b", "c"])
    whole = exp.assign(ids).codes
    perm = np.random.default_rng(0).permutation(ids.size)
    assert np.array_equal(exp.assign(ids[perm]).codes, whole[perm])
    parts = np.concatenate([exp.assign(ids[i : i + 700]).codes for i in range(0, ids.size, 700)])
    assert np.array_equal(parts, whole)


# ---------------------------------------------------------------------------------------
# balance and independence (one million ids)
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("algorithm", "weights"),
    [
        ("sha256", {"control": 1, "treatment": 1}),
        ("fnv1a-fmix64", {"control": 1, "treatment": 1}),
        ("fnv1a-fmix64", {"a": 20, "b": 30, "c": 50}),
    ],
)
def test_balance_on_a_million_ids(
    big_ids: pa.Array, algorithm: str, weights: dict[str, float]
) -> None:
    exp = Experiment("balance", weights)
    a = assign(big_ids, exp, algorithm=algorithm)  # type: ignore[arg-type]
    counts = np.bincount(a.codes, minlength=len(weights))
    share = np.array(list(exp.allocation().values()))
    res = stats.chisquare(counts, share * N_BIG)
    # a correct hash gives p ~ U(0, 1); p < 0.001 would be a 1-in-1000 event
    assert res.pvalue > 1e-3, (counts, res)


def test_buckets_uniform_on_a_million_ids(big_ids: pa.Array) -> None:
    for alg in ("sha256", "fnv1a-fmix64"):
        b = bucket_units(big_ids, "uniformity", 100, algorithm=alg)
        counts = np.bincount(b, minlength=100)
        assert stats.chisquare(counts).pvalue > 1e-3


def test_two_experiments_are_independent(big_ids: pa.Array) -> None:
    a = assign(big_ids, Experiment("exp-one", ["c", "t"]), algorithm="fnv1a-fmix64")
    b = assign(big_ids, Experiment("exp-two", ["c", "t1", "t2"]), algorithm="fnv1a-fmix64")
    table = np.zeros((2, 3))
    np.add.at(table, (a.codes, b.codes), 1)
    res = stats.chi2_contingency(table, correction=False)
    assert res.pvalue > 1e-3, table


def test_salt_is_what_matters_not_the_name() -> None:
    ids = [f"u{i}" for i in range(2000)]
    a = Experiment("first", ["c", "t"], salt="shared").assign(ids).codes
    b = Experiment("second", ["c", "t"], salt="shared").assign(ids).codes
    c = Experiment("shared", ["c", "t"]).assign(ids).codes
    assert np.array_equal(a, b) and np.array_equal(a, c)


# ---------------------------------------------------------------------------------------
# weights, layers, holdout, ramp-up
# ---------------------------------------------------------------------------------------
def test_boundaries_follow_the_documented_rounding() -> None:
    exp = Experiment("e", {"a": 1, "b": 1, "c": 1})
    assert exp.boundaries(10_000).tolist() == [0, 3333, 6667, 10_000]
    assert exp.allocation(10_000) == {"a": 0.3333, "b": 0.3334, "c": 0.3333}
    ids = [f"u{i}" for i in range(3000)]
    bucket = bucket_units(ids, "e", 10_000)
    codes = exp.assign(ids).codes
    want = np.where(bucket < 3333, 0, np.where(bucket < 6667, 1, 2))
    assert np.array_equal(codes, want)


def test_layer_experiments_never_share_units() -> None:
    ids = pa.array([f"u{i}" for i in range(200_000)])
    plan = Plan(
        [
            Experiment("a", ["c", "t"], layer="ranking", traffic=0.2),
            Experiment("b", ["c", "t"], layer="ranking", traffic=0.3),
            Experiment("c", ["c", "t"], layer="ui"),
        ],
        algorithm="fnv1a-fmix64",
    )
    res = plan.assign(ids)
    in_a, in_b, in_c = (res[k].codes >= 0 for k in "abc")
    assert not (in_a & in_b).any()
    assert in_c.all()
    n = len(ids)
    for frac, mask in ((0.2, in_a), (0.3, in_b)):
        se = np.sqrt(frac * (1 - frac) / n)
        assert abs(mask.mean() - frac) < 4 * se
    # other layers are independent of the ranking layer
    table = np.array(
        [
            [np.sum(in_a & (res["c"].codes == v)), np.sum(~in_a & (res["c"].codes == v))]
            for v in (0, 1)
        ]
    )
    assert stats.chi2_contingency(table, correction=False).pvalue > 1e-3


def test_ramping_up_traffic_only_adds_units() -> None:
    ids = [f"u{i}" for i in range(50_000)]
    small = Experiment("ramp", ["c", "t"], traffic=0.1).assign(ids).codes
    large = Experiment("ramp", ["c", "t"], traffic=0.5).assign(ids).codes
    enrolled = small >= 0
    assert np.array_equal(large[enrolled], small[enrolled])
    assert (large >= 0).sum() > 4 * enrolled.sum()


def test_holdout_units_are_in_no_experiment() -> None:
    ids = pa.array([f"u{i}" for i in range(100_000)])
    plan = Plan(
        [Experiment("a", ["c", "t"]), Experiment("b", ["c", "t"], layer="x", traffic=0.5)],
        holdout=0.1,
        algorithm="fnv1a-fmix64",
    )
    res = plan.assign(ids)
    held = res.held_out
    for k in res:
        assert (res[k].codes[held] == HOLDOUT).all()
        assert not (res[k].codes[~held] == HOLDOUT).any()
    assert abs(held.mean() - 0.1) < 4 * np.sqrt(0.1 * 0.9 / len(ids))
    assert (res["b"].codes == NOT_ENROLLED).any()
    table = res.to_arrow()
    assert table.column_names == ["unit", "holdout", "a", "b"]
    assert table.column("a").null_count == int(held.sum())


def test_assignment_helpers() -> None:
    a = Experiment("e", {"control": 1, "treatment": 3}).assign(["x", "y", "z", "w"])
    counts = a.counts()
    assert counts["control"] + counts["treatment"] == 4
    assert counts["(not enrolled)"] == 0 and counts["(holdout)"] == 0
    labels = a.labels().to_pylist()
    assert labels == [a.variants[c] for c in a.codes]
    assert a.to_arrow().column_names == ["unit", "variant"]


def test_plan_round_trips_through_json() -> None:
    plan = Plan(
        [
            Experiment(
                "a", {"c": 1, "t": 2}, control="t", salt="s1", layer="L", traffic=0.4, offset=0.1
            ),
            Experiment("b", ["x", "y"]),
        ],
        holdout=0.05,
        buckets=1000,
        algorithm="fnv1a-fmix64",
    )
    again = Plan.from_dict(json.loads(json.dumps(plan.to_dict())))
    assert again == plan and hash(again) == hash(plan)
    assert len({plan.experiments[0], again.experiments[0]}) == 1
    ids = [f"u{i}" for i in range(500)]
    for k in ("a", "b"):
        assert np.array_equal(again.assign(ids)[k].codes, plan.assign(ids)[k].codes)


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"variants": {"a": 1}}, "at least two variants"),
        ({"variants": {"a": 1, "b": -1}}, "weight of variant 'b' must be a positive"),
        ({"variants": {"a": 1, "b": float("nan")}}, "positive number"),
        ({"variants": "ab"}, "mapping"),
        ({"variants": ["a", "a"]}, "listed twice"),
        ({"variants": ["a", "b"], "control": "c"}, "control='c' is not one of"),
        ({"variants": ["a", "b"], "traffic": 0}, r"traffic must be a number in \(0, 1\]"),
        ({"variants": ["a", "b"], "traffic": 1.5}, "traffic"),
        ({"variants": ["a", "b"], "salt": ""}, "salt must be a non-empty string"),
        ({"variants": ["a", "b"], "offset": 0.8, "traffic": 0.5}, "exceeds 1"),
    ],
)
def test_bad_experiments(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(InputError, match=match):
        Experiment("e", **kwargs)  # type: ignore[arg-type]


def test_bad_plans() -> None:
    with pytest.raises(InputError, match="named 'a'; names must be unique"):
        Plan([Experiment("a", ["x", "y"]), Experiment("a", ["x", "y"], salt="other")])
    with pytest.raises(InputError, match="share the salt"):
        Plan([Experiment("a", ["x", "y"], salt="s"), Experiment("b", ["x", "y"], salt="s")])
    with pytest.raises(InputError, match="over-full"):
        Plan(
            [
                Experiment("a", ["x", "y"], layer="L", traffic=0.6),
                Experiment("b", ["x", "y"], layer="L", traffic=0.6),
            ]
        )
    with pytest.raises(InputError, match="overlap in layer"):
        Plan(
            [
                Experiment("a", ["x", "y"], layer="L", traffic=0.5),
                Experiment("b", ["x", "y"], layer="L", traffic=0.2, offset=0.4),
            ]
        )
    with pytest.raises(InputError, match="holdout"):
        Plan([Experiment("a", ["x", "y"])], holdout=1.0)
    with pytest.raises(InputError, match="not a known hash"):
        Plan([Experiment("a", ["x", "y"])], algorithm="md5")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="buckets must be an integer"):
        Plan([Experiment("a", ["x", "y"])], buckets=1)
    with pytest.raises(InputError, match="get no bucket"):
        Experiment("a", {"x": 1, "y": 1e-9}).boundaries(100)
    with pytest.raises(InputError, match="non-empty list"):
        Plan([])
    with pytest.raises(InputError, match="unknown key"):
        Plan.from_dict({"experiments": [{"name": "a", "variants": ["x", "y"], "wieght": 1}]})
    res = Plan([Experiment("a", ["x", "y"])]).assign(["u"])
    with pytest.raises(InputError, match="no experiment named 'b'; the plan has"):
        res["b"]
    assert "b" not in res and "a" in res and res.get("b") is None and len(res) == 1


def test_bad_unit_ids() -> None:
    with pytest.raises(InputError, match="missing"):
        hash_units(["a", None], "s")
    with pytest.raises(InputError, match="strings or integers"):
        hash_units([1.5, 2.5], "s")
    with pytest.raises(InputError, match="not a known hash"):
        hash_units(["a"], "s", algorithm="crc32")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="salt"):
        hash_units(["a"], "")
    assert hash_units([], "s").shape == (0,)
