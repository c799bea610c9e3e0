"""The intent-aware metrics against ndeval (the TREC Web track's program) and pyndeval,
whose outputs are committed under ``tests/conformance/diversity`` (made by
``make_diversity_outputs.py``; see ``README.md``).  Neither need be installed.

ndeval: every column of its CSV output (ERR-IA, nERR-IA, alpha-DCG, alpha-nDCG at 5,
10 and 20, NRBP, nNRBP, MAP-IA, P-IA and strec at 5, 10 and 20), every topic row and
the ``amean`` row, under its options ``-c``, ``-M``, ``-traditional``, ``-alpha``,
``-beta`` and its default order (the rank column), through the Python API and the
command line.  pyndeval: every measure at cutoffs 1 to 20 on random cases with
graded and negative grades and relevance levels 1 and 2, to 1e-9.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ranklens
from ranklens.cli import main
from tests.conformance.make_diversity_outputs import (
    CUTOFFS,
    MEASURES,
    NDEVAL_CASES,
    NO_CUTOFF,
    fixture_files,
    read_qrels,
    read_run,
)

pytestmark = pytest.mark.conformance

DIV = Path(__file__).resolve().parent / "diversity"

#: ndeval's column -> ranklens' metric family
FAMILY = {
    "ERR-IA": "err_ia",
    "nERR-IA": "nerr_ia",
    "alpha-DCG": "alpha_dcg",
    "alpha-nDCG": "alpha_ndcg",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
    "MAP-IA": "map_ia",
    "P-IA": "p_ia",
    "strec": "strec",
}
WITH_ALPHA = {"ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP"}


def metric_name(column: str, alpha: float = 0.5, beta: float = 0.5) -> str:
    """ranklens' metric for one of ndeval's columns (``alpha-nDCG@20``) under
    ``-alpha``/``-beta``."""
    base, _, k = column.partition("@")
    params = []
    if base in WITH_ALPHA and alpha != 0.5:
        params.append(f"alpha={alpha:g}")
    if base in ("NRBP", "nNRBP") and beta != 0.5:
        params.append(f"beta={beta:g}")
    name = FAMILY[base] + (f"({','.join(params)})" if params else "")
    return name + (f"@{k}" if k else "")


def _option(options: list[str], flag: str, default: float) -> float:
    return float(options[options.index(flag) + 1]) if flag in options else default


def _ndeval(case: str) -> tuple[list[str], dict[str, dict[str, float]]]:
    """ndeval's columns and ``{topic or 'amean': {column: value}}`` (NaN for -nan)."""
    text = (DIV / "ndeval" / f"{case}.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    columns = rows[0][2:]
    out = {r[1]: {c: float(v) for c, v in zip(columns, r[2:], strict=True)} for r in rows[1:]}
    return columns, out


def _tables(case: str) -> tuple[ranklens.DiversityQrels, ranklens.Run]:
    """The fixture read with ranklens' reader; the run's scores are ``-rank`` for
    ndeval's default order (the rank column)."""
    qrels = ranklens.io.read_qrels(DIV / "main.qrels", intents=True)
    rows = read_run(DIV / "main.run")
    by_rank = "-traditional" not in NDEVAL_CASES[case]
    return qrels, ranklens.Run.from_arrays(
        [r[0] for r in rows],
        [r[1] for r in rows],
        [-float(r[2]) if by_rank else r[3] for r in rows],
    )


def _conventions(case: str) -> dict[str, Any]:
    options = NDEVAL_CASES[case]
    kw: dict[str, Any] = {"missing": "zero" if "-c" in options else "skip"}
    if "-M" in options:
        kw["depth"] = int(options[options.index("-M") + 1])
    return kw


def _close(ours: float, printed: float) -> bool:
    """ndeval prints 6 decimals (``-nan`` for 0/0)."""
    if math.isnan(printed) or math.isnan(ours):
        return math.isnan(printed) and math.isnan(ours)
    return abs(ours - printed) <= 5e-7 + 1e-12


@cache
def _ours(case: str) -> tuple[dict[str, str], ranklens.Result]:
    options = NDEVAL_CASES[case]
    alpha, beta = _option(options, "-alpha", 0.5), _option(options, "-beta", 0.5)
    columns, _ = _ndeval(case)
    names = {c: metric_name(c, alpha, beta) for c in columns}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)  # topic 20: no judgments
        res = ranklens.evaluate(*_tables(case), list(names.values()), **_conventions(case))
    return names, res


@pytest.mark.parametrize("case", sorted(NDEVAL_CASES))
def test_every_ndeval_column_and_row(case: str) -> None:
    names, res = _ours(case)
    _, printed = _ndeval(case)
    judged = {r[0] for r in read_qrels(DIV / "main.qrels")}
    topics = [t for t in printed if t != "amean"]
    # ndeval prints a row of zeros for a run topic without judgments and leaves it out
    # of its mean; ranklens leaves it out
    for t in topics:
        if t not in judged:
            assert t not in res.query_ids
            assert all(v == 0 for v in printed[t].values()), t
    evaluated = [t for t in topics if t in judged]
    expected = set(evaluated)
    if "-c" in NDEVAL_CASES[case]:
        expected = judged  # -c: the topics absent from the run count, as 0
    assert set(res.query_ids) == expected
    checked = 0
    for column, metric in names.items():
        per_query = res.per_query(metric)
        for t in evaluated:
            assert _close(per_query[t], printed[t][column]), (case, t, column, per_query[t])
            checked += 1
        assert _close(res[metric], printed["amean"][column]), (case, column, res[metric])
    assert checked == 21 * len(evaluated)


def test_ndeval_cases_cover_what_the_fixture_promises() -> None:
    _, printed = _ndeval("c")
    qrels = read_qrels(DIV / "main.qrels")
    run_topics = {r[0] for r in read_run(DIV / "main.run")}
    judged = {r[0] for r in qrels}
    assert judged - run_topics == {"13"}  # -c
    assert run_topics - judged == {"20"}  # a run topic without judgments
    assert math.isnan(printed["3"]["nNRBP"])  # nothing relevant: 0/0
    assert math.isnan(printed["amean"]["nNRBP"])
    # documents judged for several subtopics (the greedy ideal ranking at work)
    per_doc: dict[tuple[str, str], int] = {}
    for t, _, d, g in qrels:
        per_doc[t, d] = per_doc.get((t, d), 0) + (g >= 1)
    assert max(per_doc.values()) >= 3
    # ties in scores, and a rank column that disagrees with the scores
    rows = read_run(DIV / "main.run")
    assert len({(r[0], r[3]) for r in rows}) < len(rows)
    assert any((a[2] < b[2]) != (a[3] > b[3]) for a, b in itertools.pairwise(rows) if a[0] == b[0])


@pytest.mark.parametrize("case", ["traditional", "c", "M5", "alpha_beta"])
def test_ndeval_through_the_command_line(case: str) -> None:
    names, res = _ours(case)
    options = NDEVAL_CASES[case]
    args = ["evaluate", str(DIV / "main.qrels"), str(DIV / "main.run")]
    args += ["--qrels-format", "diversity", "--format", "json", "-q"]
    assert "-traditional" in options  # a TREC run is ordered by its scores
    if "-c" in options:
        args += ["--missing", "zero"]
    if "-M" in options:
        args += ["--depth", options[options.index("-M") + 1]]
    for m in names.values():
        args += ["-m", m]
    out = CliRunner().invoke(main, args, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)["runs"][0]
    for m in names.values():
        got = {q: (math.nan if v is None else v) for q, v in data["per_query"][m].items()}
        want = res.per_query(m)
        assert got.keys() == want.keys()
        np.testing.assert_allclose(list(got.values()), list(want.values()), rtol=0, atol=0)


def test_ndeval_default_order_through_the_command_line(tmp_path: Path) -> None:
    """ndeval's default order (the rank column): a table run read with --rank-col."""
    names, res = _ours("default")
    rows = read_run(DIV / "main.run")
    table = "query,doc,rank\n" + "".join(f"{t},{d},{k}\n" for t, d, k, _ in rows)
    run = tmp_path / "run.csv"
    run.write_text(table, encoding="utf-8")
    args = ["evaluate", str(DIV / "main.qrels"), str(run), "--qrels-format", "diversity"]
    args += ["--format", "json", "-q", "--rank-col", "rank"]
    for m in names.values():
        args += ["-m", m]
    out = CliRunner().invoke(main, args, catch_exceptions=False)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)["runs"][0]
    for m in names.values():
        got = {q: (math.nan if v is None else v) for q, v in data["per_query"][m].items()}
        np.testing.assert_allclose(
            list(got.values()), list(res.per_query(m).values()), rtol=0, atol=0
        )


# ------------------------------------------------------------------------ pyndeval


@cache
def _pyndeval() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DIV / "pyndeval.json").read_text(encoding="utf-8"))
    return data


def _case_tables(spec: dict[str, Any]) -> tuple[ranklens.DiversityQrels, ranklens.Run]:
    q, i, d, g = zip(*spec["qrels"], strict=True)
    qrels = ranklens.DiversityQrels.from_arrays(list(q), list(i), list(d), list(g))
    q, d, s = zip(*spec["run"], strict=True)
    return qrels, ranklens.Run.from_arrays(list(q), list(d), list(s))


def _intents(spec: dict[str, Any]) -> dict[str, int]:
    """Per query, the intents with a document at or above the relevance level."""
    level = spec["relevance_level"]
    seen = {(q, i) for q, i, _, g in spec["qrels"] if g >= level}
    out: dict[str, int] = {}
    for q, _ in seen:
        out[q] = out.get(q, 0) + 1
    return out


@pytest.mark.parametrize("case", sorted(_pyndeval()["cases"]))
def test_pyndeval_every_measure_and_cutoff(case: str) -> None:
    spec = _pyndeval()["cases"][case]
    alpha, beta, level = spec["alpha"], spec["beta"], spec["relevance_level"]
    columns = [f"{m}@{k}" for m in MEASURES for k in CUTOFFS] + list(NO_CUTOFF)
    names = {c: metric_name(c, alpha, beta) for c in columns}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        res = ranklens.evaluate(*_case_tables(spec), list(names.values()), rel_threshold=level)
    values = spec["values"]
    assert set(res.query_ids) == set(values)  # queries on one side only are left out
    intents = _intents(spec)
    for column, metric in names.items():
        ours = res.per_query(metric)
        for q, theirs in values.items():
            want = math.nan if theirs[column] is None else theirs[column]
            got = ours[q]
            if column in ("ERR-IA@1", "alpha-DCG@1"):
                # ndeval's loop normalising ERR-IA and alpha-DCG starts at rank 2: at 1
                # it gives the un-normalised gain, ranklens divides by W (the intents)
                got *= intents.get(q, 0) or 1
            if math.isnan(want):
                assert math.isnan(got), (case, q, column, got)
            else:
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (case, q, column)


def test_pyndeval_cases_hold_what_they_promise() -> None:
    cases = _pyndeval()["cases"]
    levels = {c["relevance_level"] for c in cases.values()}
    assert levels == {1, 2}
    grades = {g for c in cases.values() for *_, g in c["qrels"]}
    assert {-1, 0, 1, 2, 3} <= grades
    for c in cases.values():
        scores = [(q, s) for q, _, s in c["run"]]
        assert len(set(scores)) < len(scores)  # ties
        judged = {(q, d) for q, _, d, _ in c["qrels"]}
        assert any((q, d) not in judged for q, d, _ in c["run"])  # unjudged documents
        qrels_q = {r[0] for r in c["qrels"]}
        run_q = {r[0] for r in c["run"]}
        assert qrels_q - run_q and run_q - qrels_q  # queries on one side only


def test_fixtures_are_what_the_generator_writes() -> None:
    for name, data in fixture_files().items():
        assert (DIV / name).read_bytes() == data, name
