"""The intent-aware metrics and diversity qrels: hand-computed values, the conventions
they share with the other ranking metrics, the one-intent reading of a plain Qrels,
the readers and the command line.  ndeval's and pyndeval's own numbers are checked in
tests/conformance/test_diversity.py."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ranklens as rl
from ranklens.cli import main
from tests.helpers import one_line_error

L3 = math.log2(3)


def _eval(qrels: Any, run: Any, metrics: list[str], **kw: Any) -> rl.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        return rl.evaluate(qrels, run, metrics, **kw)


# ------------------------------------------------------------------ hand-computed values

# intents 1..4; a covers 1 and 2, b covers 3 and 4, c covers 1 and 3; d nothing
QRELS = rl.DiversityQrels.from_dict(
    {
        "q": {
            "1": {"a": 1, "c": 1, "d": 0},
            "2": {"a": 1},
            "3": {"b": 1, "c": 2},
            "4": {"b": 1},
        }
    }
)


def test_novelty_gains_and_the_ideal_ideal_by_hand() -> None:
    run = rl.Run.from_dict({"q": {"c": 4.0, "d": 3.0, "a": 2.0, "b": 1.0}})
    res = _eval(QRELS, run, ["alpha_dcg@4", "err_ia@4", "p_ia@4", "strec@1", "strec@3", "nrbp"])
    # gains: c 1 + 1 (intents 1, 3), d 0, a 0.5 + 1 (1 seen once, 2 new), b 0.5 + 1
    s = [2.0, 0.0, 1.5, 1.5]
    disc = [1 / math.log2(i + 2) for i in range(4)]
    ideal_ideal = [4 * 0.5**i for i in range(4)]  # W = 4 intents
    assert res["alpha_dcg@4"] == pytest.approx(
        sum(a * b for a, b in zip(s, disc, strict=True))
        / sum(a * b for a, b in zip(ideal_ideal, disc, strict=True)),
        rel=1e-12,
    )
    assert res["err_ia@4"] == pytest.approx(
        sum(v / (i + 1) for i, v in enumerate(s))
        / sum(v / (i + 1) for i, v in enumerate(ideal_ideal)),
        rel=1e-12,
    )
    assert res["p_ia@4"] == pytest.approx((2 + 0 + 2 + 2) / (4 * 4))
    assert res["strec@1"] == 0.5 and res["strec@3"] == 0.75
    beta = 0.5
    assert res["nrbp"] == pytest.approx(
        (1 - 0.5 * beta) / 4 * sum(v * beta**i for i, v in enumerate(s)), rel=1e-12
    )


def test_map_ia_by_hand() -> None:
    run = rl.Run.from_dict({"q": {"c": 4.0, "d": 3.0, "a": 2.0, "b": 1.0}})
    # intent 1: c@1, a@3 -> (1 + 2/3) / 2; intent 2: a@3 -> 1/3; intent 3: c@1, b@4 ->
    # (1 + 2/4) / 2; intent 4: b@4 -> 1/4
    ap = [(1 + 2 / 3) / 2, 1 / 3, (1 + 2 / 4) / 2, 1 / 4]
    assert _eval(QRELS, run, ["map_ia"])["map_ia"] == pytest.approx(sum(ap) / 4, rel=1e-12)


def test_the_greedy_ideal_breaks_ties_to_the_greatest_doc_id() -> None:
    # rank 1: a, b and c all gain 2; ndeval takes c (the greatest id), then a and b
    # tie at 1.5 (b taken), then a: ideal gains 2, 1.5, 1.5 -- not the best ranking
    run = rl.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})  # gains 2, 2, 1
    ideal = 2 + 1.5 / L3 + 1.5 / 2
    value = _eval(QRELS, run, ["alpha_ndcg@3"])["alpha_ndcg@3"]
    assert value == pytest.approx((2 + 2 / L3 + 1 / 2) / ideal, rel=1e-12)
    assert value > 1  # the greedy ideal is an approximation (ndeval's)
    # renamed so that the document of intents 1 and 2 has the greatest id: the greedy
    # takes it first and finds the best ranking, 2, 2, 1
    renamed = rl.DiversityQrels.from_dict(
        {"q": {"1": {"z": 1, "c": 1}, "2": {"z": 1}, "3": {"b": 1, "c": 1}, "4": {"b": 1}}}
    )
    run = rl.Run.from_dict({"q": {"z": 3.0, "b": 2.0, "c": 1.0}})
    assert _eval(renamed, run, ["alpha_ndcg@3"])["alpha_ndcg@3"] == pytest.approx(1.0)


def test_nerr_and_nnrbp_over_the_greedy_ideal_by_hand() -> None:
    run = rl.Run.from_dict({"q": {"d": 4.0, "a": 3.0}})  # gains 0, 2
    res = _eval(QRELS, run, ["nerr_ia@2", "nnrbp(alpha=0.5,beta=0.5)"])
    assert res["nerr_ia@2"] == pytest.approx((2 / 2) / (2 + 1.5 / 2), rel=1e-12)
    # the whole greedy ideal: 2, 1.5, 1.5 (see above)
    assert res["nnrbp(alpha=0.5,beta=0.5)"] == pytest.approx(
        (2 * 0.5) / (2 + 1.5 * 0.5 + 1.5 * 0.25), rel=1e-12
    )


def test_alpha_and_relevance_threshold() -> None:
    run = rl.Run.from_dict({"q": {"c": 2.0, "a": 1.0}})
    # alpha = 1: an intent gains only once: c 2, a 1 (intent 2)
    res = _eval(QRELS, run, ["alpha_dcg(alpha=1)@2", "strec(rel=2)@1", "p_ia(rel=2)@2"])
    assert res["alpha_dcg(alpha=1)@2"] == pytest.approx((2 + 1 / L3) / 4)
    # rel=2: only (c, intent 3) is relevant; one intent
    assert res["strec(rel=2)@1"] == 1.0
    assert res["p_ia(rel=2)@2"] == 0.5


def test_intent_weights() -> None:
    weights = {"q": {"1": 0.4, "2": 0.1, "3": 0.3, "4": 0.2}}
    qrels = rl.DiversityQrels.from_dict(
        {"q": {"1": {"a": 1}, "2": {"a": 1}, "3": {"b": 1}, "4": {"b": 1}, "5": {"a": 0}}},
        weights={**weights, "q": {**weights["q"], "5": 9.0}},  # intent 5: nothing relevant
    )
    run = rl.Run.from_dict({"q": {"b": 2.0, "a": 1.0}})
    res = _eval(
        qrels,
        run,
        ["strec@1", "strec(weights=uniform)@1", "p_ia@1", "alpha_dcg@2", "map_ia"],
    )
    assert res["strec@1"] == pytest.approx(0.5)  # intents 3 and 4: 0.3 + 0.2 of 1
    assert res["strec(weights=uniform)@1"] == 0.5
    assert res["p_ia@1"] == pytest.approx(0.5)
    # gains 0.5 (b: 0.3 + 0.2), 0.5 (a); ideal ideal W = 1: 1, 0.5
    assert res["alpha_dcg@2"] == pytest.approx((0.5 + 0.5 / L3) / (1 + 0.5 / L3))
    assert res["map_ia"] == pytest.approx(0.4 * 0.5 + 0.1 * 0.5 + 0.3 + 0.2)


def test_ndcg_ia_by_hand() -> None:
    qrels = rl.DiversityQrels.from_dict(
        {"q": {"1": {"a": 2, "c": 1}, "2": {"b": 1, "c": 3}, "3": {"a": 0, "x": -1}}},
        weights={"q": {"1": 0.25, "2": 0.75, "3": 5.0}},  # intent 3: no positive gain
    )
    run = rl.Run.from_dict({"q": {"c": 3.0, "a": 2.0, "x": 1.0}})
    res = _eval(qrels, run, ["ndcg_ia@2", "ndcg_ia(weights=uniform)@2", "ndcg_ia(gain=exp2)@1"])
    one = (1 + 2 / L3) / (2 + 1 / L3)  # intent 1: gains 1 (c), 2 (a); ideal 2, 1
    two = 3 / (3 + 1 / L3)  # intent 2: gain 3 (c); ideal 3, 1
    assert res["ndcg_ia@2"] == pytest.approx(0.25 * one + 0.75 * two, rel=1e-12)
    assert res["ndcg_ia(weights=uniform)@2"] == pytest.approx((one + two) / 2, rel=1e-12)
    # exp2 at 1: intent 1: 1 / 3 (c's 2^1 - 1 over a's 2^2 - 1); intent 2: 1
    assert res["ndcg_ia(gain=exp2)@1"] == pytest.approx(0.25 / 3 + 0.75, rel=1e-12)


# ---------------------------------------------------------- the conventions they share


def test_a_plain_qrels_is_one_intent_per_query() -> None:
    """One intent: alpha=0 gives binary DCG, P-IA is P, strec is success, MAP-IA is AP
    (other kernels, other code)."""
    rng = np.random.default_rng(5)
    qrels: dict[str, dict[str, float]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(30):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 20)))]
        qrels[f"q{q}"] = {d: float(rng.choice([-1, 0, 1, 2])) for d in docs if rng.random() < 0.7}
        run[f"q{q}"] = {d: float(rng.integers(0, 5)) for d in docs if rng.random() < 0.8}
    qrels = {q: j for q, j in qrels.items() if j}
    run = {q: r for q, r in run.items() if r}
    Q, R = rl.Qrels.from_dict(qrels), rl.Run.from_dict(run)
    pairs = {
        "alpha_ndcg(alpha=0)@5": "ndcg(gain=binary)@5",
        "alpha_dcg(alpha=0)@1": "p@1",
        "p_ia@5": "p@5",
        "strec@5": "success@5",
        "map_ia": "ap",
        "ndcg_ia@5": "ndcg@5",
        "ndcg_ia(gain=exp2)@3": "ndcg(gain=exp2)@3",
    }
    res = _eval(Q, R, [*pairs, *pairs.values()], no_relevant="zero")
    for ours, other in pairs.items():
        np.testing.assert_allclose(res.values[ours], res.values[other], atol=1e-12, err_msg=ours)
    # and it equals the same judgments given as one intent each
    rows = [(q, "only", d, g) for q, j in qrels.items() for d, g in j.items()]
    D = rl.DiversityQrels.from_arrays(*map(list, zip(*rows, strict=True)))
    names = ["alpha_ndcg@5", "nnrbp", "err_ia@3", "map_ia", "strec@2"]
    a, b = _eval(Q, R, names), _eval(D, R, names)
    for n in names:
        np.testing.assert_allclose(a.values[n], b.values[n], rtol=1e-12, err_msg=n)


def test_empty_rankings_missing_queries_and_no_relevant() -> None:
    qrels = rl.DiversityQrels.from_dict(
        {"q1": {"1": {"a": 1}}, "q2": {"1": {"b": 1}}, "q3": {"1": {"c": 0}}}
    )
    run = rl.Run.from_dict({"q1": {}, "q3": {"c": 1.0}, "q4": {"x": 1.0}})
    res = _eval(
        qrels, run, ["alpha_ndcg@5", "nnrbp", "map_ia"], empty_rankings="evaluate", missing="zero"
    )
    assert res.query_ids == ("q1", "q2", "q3")
    assert res.per_query("alpha_ndcg@5") == {"q1": 0.0, "q2": 0.0, "q3": 0.0}
    nn = res.per_query("nnrbp")
    assert nn["q1"] == 0.0 and nn["q2"] == 0.0 and math.isnan(nn["q3"])  # q3: 0/0
    assert math.isnan(res["nnrbp"])  # as ndeval's amean
    zero = _eval(qrels, run, ["nnrbp"], missing="zero", undefined="zero")
    assert zero.per_query("nnrbp")["q3"] == 0.0
    both = _eval(qrels, run, ["map_ia"], unjudged="zero")
    assert both.query_ids == ("q3", "q4")


def test_depth_judged_only_and_ties() -> None:
    qrels = rl.DiversityQrels.from_dict({"q": {"1": {"a": 1, "b": 1}, "2": {"b": 1}}})
    run = rl.Run.from_dict({"q": {"x": 3.0, "a": 1.0, "b": 1.0}})
    # trec ties: b before a (doc id descending): gains 0, 2, 0.5
    res = _eval(qrels, run, ["alpha_dcg@3", "alpha_dcg(ties=input)@3"])
    ii = 2 + 1 / L3 + 0.5 / 2
    assert res["alpha_dcg@3"] == pytest.approx((2 / L3 + 0.5 / 2) / ii)
    assert res["alpha_dcg(ties=input)@3"] == pytest.approx((1 / L3 + 1.5 / 2) / ii)
    assert _eval(qrels, run, ["strec@3"], depth=1)["strec@3"] == 0.0
    assert _eval(qrels, run, ["strec@1"], judged_only=True)["strec@1"] == 1.0


def test_a_partition_of_the_queries_gives_the_same_values() -> None:
    rows = [
        (f"q{q}", f"i{i}", f"d{d}", (q + i + d) % 3)
        for q in range(6)
        for i in range(3)
        for d in range(8)
        if (q * i + d) % 4
    ]
    qrels = rl.DiversityQrels.from_arrays(*map(list, zip(*rows, strict=True)))
    run = rl.Run.from_dict(
        {f"q{q}": {f"d{d}": float((d * 7 + q) % 5) for d in range(9)} for q in range(6)}
    )
    names = ["alpha_ndcg@4", "nerr_ia@3", "nnrbp", "map_ia", "p_ia@2", "strec@3"]
    whole = _eval(qrels, run, names)
    part = qrels.take_queries(["q1", "q4"])
    assert isinstance(part, rl.DiversityQrels) and part.query_ids == ["q1", "q4"]
    some = _eval(part, run.take_queries(["q1", "q4"]), names)
    for n in names:
        for q in ("q1", "q4"):
            assert some.per_query(n)[q] == whole.per_query(n)[q]


def test_plain_metrics_read_the_collapsed_view() -> None:
    run = rl.Run.from_dict({"q": {"c": 4.0, "b": 1.0}})
    # the collapsed view: the highest grade over the intents (c: 2)
    assert QRELS.to_dict() == {"q": {"a": 1.0, "b": 1.0, "c": 2.0, "d": 0.0}}
    res = _eval(QRELS, run, ["dcg@1", "p@2"])
    assert res["dcg@1"] == 2.0 and res["p@2"] == 1.0


# ----------------------------------------------------------------- the data and errors


def test_diversity_qrels_errors() -> None:
    with pytest.raises(rl.DuplicateError, match=r"\(query 'q', intent '1', doc 'a'\)"):
        rl.DiversityQrels.from_arrays(["q", "q"], ["1", "1"], ["a", "a"], [1, 0])
    with pytest.raises(rl.InputError, match="NaN or infinite"):
        rl.DiversityQrels.from_arrays(["q"], ["1"], ["a"], [float("nan")])
    with pytest.raises(rl.InputError, match="different lengths"):
        rl.DiversityQrels.from_arrays(["q"], ["1", "2"], ["a"], [1])
    with pytest.raises(rl.InputError, match="not a number"):
        rl.DiversityQrels.from_dict({"q": {"1": {"a": "x"}}})
    with pytest.raises(rl.InputError, match=r"have no weight, the first \(query 'q', intent '2'\)"):
        rl.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"a": 1}}}, weights={"q": {"1": 1}})
    with pytest.raises(rl.InputError, match="finite numbers >= 0"):
        rl.DiversityQrels.from_dict({"q": {"1": {"a": 1}}}, weights={"q": {"1": -1}})


def test_equality_and_repr() -> None:
    a = rl.DiversityQrels.from_dict({"q": {"1": {"a": 1}, "2": {"a": 0}}})
    b = rl.DiversityQrels.from_arrays(["q", "q"], ["2", "1"], ["a", "a"], [0, 1])
    assert a == b and a != rl.DiversityQrels.from_arrays(["q"], ["1"], ["a"], [1])
    assert repr(a) == "<DiversityQrels: 1 (query, doc) rows, 2 intents, 1 queries>"
    assert a.intent_ids("q") == ["1", "2"]


def test_readers(tmp_path: Path) -> None:
    (tmp_path / "d.qrels").write_text("1 0 a 1\n1 1 a 0\n1 1 b 2\n2 3 x 1\n", encoding="utf-8")
    trec = rl.io.read_qrels(tmp_path / "d.qrels", intents=True)
    (tmp_path / "d.csv").write_text(
        "topic,subtopic,docno,judgment\n1,0,a,1\n1,1,a,0\n1,1,b,2\n2,3,x,1\n", encoding="utf-8"
    )
    table = rl.io.read_qrels(tmp_path / "d.csv", intents=True)
    (tmp_path / "d.json").write_text(
        json.dumps({"1": {"0": {"a": 1}, "1": {"a": 0, "b": 2}}, "2": {"3": {"x": 1}}}),
        encoding="utf-8",
    )
    as_json = rl.io.read_qrels(tmp_path / "d.json", intents=True)
    assert trec == table == as_json
    assert trec.to_dict() == {"1": {"a": 1.0, "b": 2.0}, "2": {"x": 1.0}}
    (tmp_path / "w.txt").write_text("# weights\n1 0 0.75\n1 1 0.25\n2 3 1\n", encoding="utf-8")
    weighted = rl.io.read_qrels(tmp_path / "d.qrels", intents=True, weights=tmp_path / "w.txt")
    assert weighted.intents.slot_weight.tolist() == [0.75, 0.25, 1.0]
    (tmp_path / "bad.txt").write_text("1 0 0.75\n1 1 x\n", encoding="utf-8")
    with pytest.raises(rl.InputError, match=r"bad.txt:2: the weight 'x' is not a number"):
        rl.io.read_intent_weights(tmp_path / "bad.txt")


def test_a_diversity_qrels_read_as_plain_says_how_to_read_it(tmp_path: Path) -> None:
    path = tmp_path / "d.qrels"
    path.write_text("1 0 a 1\n1 1 a 0\n", encoding="utf-8")
    with pytest.raises(rl.DuplicateError, match=r"pass intents=True"):
        rl.io.read_qrels(path)
    path.write_text("1 0 a 1\n1 0 a 0\n", encoding="utf-8")
    with pytest.raises(rl.DuplicateError) as info:
        rl.io.read_qrels(path)
    assert "intents" not in str(info.value)  # the second column is all 0


# --------------------------------------------------------------------- the command line


def _files(tmp_path: Path) -> tuple[Path, Path]:
    q = tmp_path / "d.qrels"
    q.write_text("1 1 a 1\n1 1 c 1\n1 2 a 1\n1 3 b 1\n1 3 c 2\n1 4 b 1\n", encoding="utf-8")
    r = tmp_path / "r.run"
    r.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n", encoding="utf-8")
    return q, r


def test_the_cli_and_the_api_agree(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    metrics = ["alpha-nDCG@3", "ERR_IA@2", "nrbp(beta=0.7)", "strec@1"]
    args = ["evaluate", str(q), str(r), "--qrels-format", "diversity", "--format", "json"]
    out = CliRunner().invoke(main, [*args, *(a for m in metrics for a in ("-m", m))])
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)["runs"][0]["summary"]
    api = rl.evaluate(rl.io.read_qrels(q, intents=True), rl.io.read_run(r), metrics)
    assert summary == api.summary()
    assert summary["alpha-nDCG@3"] == pytest.approx((2 + 2 / L3 + 1 / 2) / (2 + 1.5 / L3 + 0.75))


def test_cli_errors_and_notes(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    one_line_error(
        CliRunner().invoke(
            main, ["evaluate", str(q), str(r), "--intent-col", "x", "-m", "strec@1"]
        ),
        2,
        "--intent-col",
    )
    plain = CliRunner().invoke(main, ["evaluate", str(q), str(r), "-m", "strec@1"])
    one_line_error(plain, 3, "--qrels-format diversity")
    (tmp_path / "p.qrels").write_text("1 0 a 1\n", encoding="utf-8")
    note = CliRunner().invoke(
        main, ["evaluate", str(tmp_path / "p.qrels"), str(r), "-m", "strec@1"]
    )
    assert note.exit_code == 0
    assert "read without intents" in note.stderr and "--qrels-format diversity" in note.stderr
    quiet = CliRunner().invoke(
        main, ["evaluate", str(tmp_path / "p.qrels"), str(r), "-m", "strec@1", "--quiet"]
    )
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_streamed_in_blocks_equals_in_memory() -> None:
    """evaluate_files streams a run larger than its memory budget in blocks of whole
    queries (DiversityQrels.take_queries per block): the same per-query values."""
    folder = Path(__file__).resolve().parents[1] / "conformance" / "diversity"
    qrels = rl.io.read_qrels(folder / "main.qrels", intents=True)
    names = ["alpha_ndcg@5", "nnrbp", "map_ia", "ndcg_ia@3", "strec@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        streamed = rl.evaluate_files(qrels, folder / "main.run", names, memory="1KB")
        whole = rl.evaluate(qrels, rl.io.read_run(folder / "main.run"), names)
    assert streamed.query_ids == whole.query_ids
    for n in names:
        np.testing.assert_array_equal(streamed.values[n], whole.values[n])
