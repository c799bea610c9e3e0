"""Reference tests: ranklens (profile ``ir_measures``, ir_measures' spelling) against
ir_measures 0.4.

The random cases of ``make_ir_measures_outputs.py`` (graded and negative grades,
unjudged documents, tied scores, queries missing from the run or from the qrels,
queries without relevant judgment, empty rankings): every per-query value of
``ir_measures.iter_calc`` and every ``calc_aggregate`` must agree to 1e-9.  The
values committed in ``peers/ir_measures.json`` are checked without ir_measures; the
``reference`` tests recompute them with the installed ir_measures.
"""

from __future__ import annotations

import json
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import ranklens
from tests.ranking import make_ir_measures_outputs as make

PEER = Path(__file__).resolve().parent / "peers" / "ir_measures.json"


@cache
def _committed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PEER.read_text(encoding="utf-8"))
    return data


def _ranklens(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> tuple[ranklens.Result, ranklens.Result]:
    """ranklens' results on the run and, for Judged and Compat, on the run without
    empty rankings."""
    q = ranklens.Qrels.from_dict(qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        full = ranklens.evaluate(
            q, ranklens.Run.from_dict(run), make.MEASURES, profile="ir_measures"
        )
        judged = ranklens.evaluate(
            q,
            ranklens.Run.from_dict({k: v for k, v in run.items() if v}),
            make.PY_MEASURES,
            profile="ir_measures",
        )
    return full, judged


#: measures whose value on a query of the qrels absent from the run differs: ir_measures
#: reports its default 0.0 for every measure there, ranklens (``missing='zero'``, as
#: trec_eval -c) counts the query (``num_q`` 1) and its relevant judgments (``num_rel``)
ABSENT_DIFFERS = {"NumQ", "NumRel"}


def _check(case: str, qrels: Any, run: Any, values: dict[str, Any]) -> None:
    full, judged = _ranklens(qrels, run)
    absent = set(qrels) - set(run)
    for spec, want in values.items():
        res = judged if spec in make.PY_MEASURES else full
        got = res.per_query(spec)
        assert set(got) == set(want["per_query"]), (case, spec)
        if spec in ABSENT_DIFFERS and absent:
            for qid in absent:  # the documented difference, exactly
                relevant = sum(g >= 1 for g in qrels[qid].values())
                assert got[qid] == (1.0 if spec == "NumQ" else relevant), (case, spec, qid)
                assert want["per_query"][qid] == 0.0
            continue
        for qid, value in want["per_query"].items():
            assert got[qid] == pytest.approx(value, abs=1e-9, rel=1e-9, nan_ok=True), (
                case,
                spec,
                qid,
            )
        assert res.summary()[spec] == pytest.approx(
            want["aggregate"], abs=1e-9, rel=1e-9, nan_ok=True
        ), (case, spec)


@pytest.mark.parametrize("case", sorted(_committed()["cases"], key=int))
def test_agrees_with_committed_ir_measures_values(case: str) -> None:
    spec = _committed()["cases"][case]
    _check(case, spec["qrels"], spec["run"], spec["values"])


def test_committed_cases_cover_every_measure_and_the_hard_cases() -> None:
    """The committed cases exercise what they claim (so the test above can fail)."""
    cases = _committed()["cases"].values()
    assert all(set(c["values"]) == set(make.MEASURES) for c in cases)
    assert any(any(not r for r in c["run"].values()) for c in cases)  # empty rankings
    assert any(set(c["qrels"]) - set(c["run"]) for c in cases)  # missing from the run
    assert any(not set(c["qrels"]) - set(c["run"]) for c in cases)  # NumQ, NumRel checked
    assert any(set(c["run"]) - set(c["qrels"]) for c in cases)  # missing from the qrels
    assert any(any(g < 0 for j in c["qrels"].values() for g in j.values()) for c in cases)
    assert any(any(len(set(r.values())) < len(r) for r in c["run"].values()) for c in cases)  # ties


@pytest.mark.reference
@pytest.mark.parametrize("seed", list(make.SEEDS)[:10])
def test_agrees_with_live_ir_measures(seed: int) -> None:
    pytest.importorskip("ir_measures", reason="ir-measures (a test extra) is not installed")
    qrels, run = make.random_case(seed + 1000)
    _check(str(seed), qrels, run, make.peer_values(qrels, run))


@pytest.mark.reference
def test_committed_values_are_what_ir_measures_gives_today() -> None:
    pytest.importorskip("ir_measures", reason="ir-measures (a test extra) is not installed")
    assert PEER.read_bytes() == make.dumps()
