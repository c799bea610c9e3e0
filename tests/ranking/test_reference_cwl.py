"""The C/W/L measures (``cwl_*``) against cwl_eval 1.0.12.

``tests/conformance/peers/cwl_eval.json`` holds cwl_eval's five outputs per topic on
seeded random data (grades -1..3 given as gains in [0, 1] or as they are, unjudged
documents, ties, rankings longer than the depth, a topic without relevant judgments,
topics only in the qrels or only in the run), for every measure cwl_eval ships with
several parameter settings, under unit and doubled costs and two depths; it was made
by ``tests/conformance/make_cwl_outputs.py``, whose docstring says what cwl_eval was
given.  The tests here read that file (a plain clone checks it), and the ``reference``
ones run the installed cwl_eval on fresh data.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from tests.conformance import make_cwl_outputs as mk

PEER = Path(__file__).resolve().parents[1] / "conformance" / "peers" / "cwl_eval.json"


def _tables(qrels: mk.Rows, run: mk.Rows) -> tuple[rl.Qrels, rl.Run]:
    q = rl.Qrels.from_arrays(*map(list, zip(*qrels, strict=True)))
    r = rl.Run.from_arrays(*map(list, zip(*run, strict=True)))
    return q, r


def _compare(
    qrels: mk.Rows, run: mk.Rows, values: dict[str, Any], gains: str, cost: float, depth: int
) -> int:
    """Assert ranklens (ties in row order) equals cwl_eval on every judged run topic;
    return the number of values compared."""
    names = {
        mk.ranklens_name(metric, out, gains, cost, depth): (metric, j)
        for metric in values
        for j, out in enumerate(mk.OUTPUTS)
    }
    q, r = _tables(qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)  # the run-only topic
        res = rl.evaluate(q, r, list(names), ties="input")
    judged = {t for t, _, _ in qrels}
    n = 0
    for key, (metric, j) in names.items():
        got = res.per_query(key)
        for topic, vals in values[metric].items():
            if topic not in judged:
                # cwl_eval scores a run topic without judgments with gain 0 everywhere;
                # ranklens skips it (unjudged='skip') or scores 0 (unjudged='zero')
                assert topic not in got
                if j in (0, 1):
                    assert vals[j] == 0.0
                continue
            assert got[topic] == pytest.approx(vals[j], rel=1e-10, abs=1e-12), (key, topic)
            n += 1
    return n


@pytest.mark.parametrize("case", sorted(mk.CASES))
def test_agrees_with_committed_cwl_eval_outputs(case: str) -> None:
    doc = json.loads(PEER.read_text())
    assert doc["version"] == "1.0.12"
    c = doc["cases"][case]
    qrels, run = mk.dataset(c["seed"])
    n = _compare(qrels, run, c["values"], c["gains"], c["cost"], c["depth"])
    unit_only = sum(cls.startswith(mk.UNIT_ONLY) for cls, _, _ in mk.MEASURES)
    measures = len(mk.MEASURES) - (unit_only if c["gains"] == "linear" else 0)
    assert len(c["values"]) == measures
    assert n == measures * 5 * 9  # every measure, output and judged run topic


def test_every_cwl_measure_of_the_catalogue_is_compared() -> None:
    compared = {m.partition("(")[0].partition("@")[0] for _, _, m in mk.MEASURES}
    cwl = {d.name for d in rl.REGISTRY.values() if d.name.startswith("cwl_")}
    assert compared == cwl
    classes = {cls for cls, _, _ in mk.MEASURES}
    assert len(classes) == 21  # every measure class cwl_eval 1.0.12 ships (BPM: two)


@pytest.mark.reference
@pytest.mark.parametrize(("seed", "gains", "cost", "depth"), [(11, "unit", 1.5, 40)])
def test_agrees_with_installed_cwl_eval(seed: int, gains: str, cost: float, depth: int) -> None:
    pytest.importorskip("cwl", reason="cwl-eval (a test extra) is not installed")
    qrels, run = mk.dataset(seed)
    values = mk.cwl_values(qrels, run, gains, cost, depth)
    assert _compare(qrels, run, values, gains, cost, depth) > 0


# ---------------------------------------------------------------- hand-computed cases


def _one(metric: str, ranked: dict[str, float], judged: dict[str, float], **kw: Any) -> float:
    q = rl.Qrels.from_dict({"q": judged})
    r = rl.Run.from_dict({"q": ranked})
    return float(rl.evaluate(q, r, [metric], **kw).per_query(metric)["q"])


def test_empty_ranking_is_all_padding() -> None:
    # RBP p=1/2 over 3 ranks: P = (1, 1/2, 1/4), L = (1/2, 1/4, 1/8), K = (1, 2, 3)
    q = rl.Qrels.from_dict({"q": {"a": 1}})
    r = rl.Run.from_dict({"q": {}})
    ms = [f"cwl_rbp(depth=3,output={o},p=0.5)" for o in ("eu", "etu", "ec", "etc", "ed")]
    res = rl.evaluate(q, r, ms, empty_rankings="evaluate")
    got = [res.per_query(m)["q"] for m in ms]
    np.testing.assert_allclose(got, [0.0, 0.0, 1.0, 0.5 + 0.5 + 0.375, 1.75], rtol=1e-12)


def test_rr_without_relevant_never_stops() -> None:
    # C = 1 everywhere: W = 1/depth, L = 0 (the mass past the depth is dropped)
    ranked, judged = {"a": 2.0, "b": 1.0}, {"a": 0, "b": -1}
    assert _one("cwl_rr(depth=4,output=ed)", ranked, judged) == 4.0
    assert _one("cwl_rr(depth=4,output=etc)", ranked, judged) == 0.0
    assert _one("cwl_rr(depth=4,output=ec)", ranked, judged) == pytest.approx(1.0)


def test_negative_grade_gains_nothing_and_unjudged_neither() -> None:
    # P@2 over gains (0, 1): the negative grade and the unjudged document give 0
    assert _one("cwl_p@3", {"a": 3.0, "x": 2.0, "b": 1.0}, {"a": -2, "b": 1}) == pytest.approx(
        1 / 3
    )


def test_costs_scale_cost_outputs() -> None:
    # P@2 with cost 2.5: W = (1/2, 1/2), ec = 2.5; L = (0, 1), etc = 5
    ranked, judged = {"a": 2.0, "b": 1.0}, {"a": 1}
    assert _one("cwl_p(cost=2.5,output=ec)@2", ranked, judged) == pytest.approx(2.5)
    assert _one("cwl_p(cost=2.5,output=etc)@2", ranked, judged) == pytest.approx(5.0)


def test_ties_follow_the_tie_policy() -> None:
    # a and b tied: trec order (doc id descending) ranks b first, input order a first
    ranked, judged = {"a": 1.0, "b": 1.0}, {"a": 1}
    assert _one("cwl_rr", ranked, judged, ties="input") == 1.0
    assert _one("cwl_rr", ranked, judged, ties="trec") == 0.5


@pytest.mark.parametrize("metric", ["cwl_inst", "cwl_nerr10", "cwl_nerr8@3"])
def test_gains_outside_unit_interval_are_refused(metric: str) -> None:
    with pytest.raises(rl.MetricParameterError, match=r"gains in \[0, 1\].*'q'.*gain=binary"):
        _one(metric, {"a": 1.0}, {"a": 2})
    base, at, k = metric.partition("@")
    assert 0 < _one(f"{base}(gain=binary){at}{k}", {"a": 1.0}, {"a": 2}) <= 1
