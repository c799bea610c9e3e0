"""trec_eval 10's preference mode (``-R prefs``, ``-R qrels_prefs``, ``prefs_*``).

Every ``-R`` case of ``trec_eval/MANIFEST.tsv`` (trec_eval 10 on the fixtures
``data/prefs.*`` written by ``make_fixtures.py``) is reproduced line for line
through :func:`ranklens.ranking.prefs.evaluate_prefs`; small cases with values
computed by hand pin the conventions (run order with ties by docno *ascending*,
implied preferences, transitive preferences across sub-groups, the ``Rnonrel``
rescaling), and bad input is refused with the file and line.
"""

from __future__ import annotations

import shlex
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ranklens.cli import main
from ranklens.errors import InputError, MetricNameError, RanklensWarning
from ranklens.io import read_trec_qrels, read_trec_run
from ranklens.io.prefs import Prefs, read_prefs, read_qrels_jg, read_qrels_prefs
from ranklens.ranking.conventions import Conventions
from ranklens.ranking.data import Run
from ranklens.ranking.judgment_groups import evaluate_avgjg
from ranklens.ranking.prefs import PREFS_MEASURES, evaluate_prefs
from ranklens.ranking.relstring import relstring, relstring_lines
from tests.conformance.trec_output import Case, close, read_manifest, read_values

pytestmark = pytest.mark.conformance

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
OUT = HERE / "trec_eval"
_, ALL_CASES = read_manifest(OUT / "MANIFEST.tsv")
PREFS_CASES = [c for c in ALL_CASES if " -R prefs " in c.command or " -R qrels_prefs " in c.command]


def _run(path: Path) -> tuple[list[str], list[str], list[float], str]:
    table = read_trec_run(path).to_arrow()
    tag = path.read_text(encoding="utf-8").split("\n", 1)[0].split()[5]
    return (
        table["query"].to_pylist(),
        table["doc"].to_pylist(),
        table["score"].to_pylist(),
        tag,
    )


def _ranklens_lines(command: str) -> list[str]:
    """ranklens' output for a trec_eval ``-R`` command line."""
    args = shlex.split(command)[1:]
    opts: dict[str, str] = {}
    flags: set[str] = set()
    measures: list[str] = []
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-M", "-R", "-m"):
            i += 1
            if a == "-m":
                measures.append(args[i])
            else:
                opts[a] = args[i]
        elif a.startswith("-"):
            flags.add(a)
        else:
            files.append(a)
        i += 1
    reader = {"prefs": read_prefs, "qrels_prefs": read_qrels_prefs}[opts["-R"]]
    prefs = reader(DATA / files[0])
    query, doc, score, tag = _run(DATA / files[1])
    everything = measures == ["all_prefs"]
    result = evaluate_prefs(
        prefs,
        query,
        doc,
        score,
        measures=None if everything else measures,
        empty_rankings="-c" in flags,
        depth=int(opts["-M"]) if "-M" in opts else None,
    )
    return result.trec_lines(per_query="-q" in flags, runid=tag if everything else None)


@pytest.mark.parametrize("case", [c for c in PREFS_CASES if c.exit_status == 0], ids=str)
def test_every_line_as_trec_eval(case: Case) -> None:
    want = (OUT / case.name).read_text(encoding="utf-8").splitlines()
    got = _ranklens_lines(case.command)
    assert got == want


def test_the_cases_cover_both_readers_c_and_M() -> None:
    commands = " ".join(c.command for c in PREFS_CASES)
    for option in ("-R prefs", "-R qrels_prefs", "-c", "-M 5", "-q", "-m all_prefs"):
        assert option in commands


def test_judged_query_without_results_and_without_c() -> None:
    """trec_eval 10 exits 4 at p11 (judged, not in the run) without -c; ranklens skips
    the query, and every line trec_eval printed before stopping is the same."""
    case = next(c for c in PREFS_CASES if c.id == "prefs.missing")
    assert case.exit_status == 4
    want = (OUT / case.name).read_text(encoding="utf-8").splitlines()
    got = _ranklens_lines(case.command)
    assert want and got[: len(want)] == want
    assert not any("\tp11\t" in line for line in got)


def test_fixtures_hold_the_edge_cases() -> None:
    prefs = read_prefs(DATA / "prefs.prefs")
    run_q, run_d, _, _ = _run(DATA / "prefs.run")
    assert set(prefs.query_ids) - set(run_q) == {"p11"}
    assert set(run_q) - set(prefs.query_ids) == {"p12"}
    assert {-1.0, 0.0, 1.0, 2.0, 3.0} <= set(prefs.rel_level.tolist())
    subgroups = {(q, g, s) for q, g, s in zip(prefs.query, prefs.jg, prefs.jsg, strict=True)}
    assert len({(q, g) for q, g, _ in subgroups}) < len(subgroups)  # PA judgment groups
    judged = set(zip(prefs.query, prefs.doc, strict=True))
    assert any((q, d) not in judged for q, d in zip(run_q, run_d, strict=True))


def _values(prefs: Prefs, run: list[tuple[str, float]]) -> dict[str, float]:
    r = evaluate_prefs(prefs, ["q"] * len(run), [d for d, _ in run], [s for _, s in run])
    return {m: float(v[0]) for m, v in r.values.items()}


def test_equivalence_classes_by_hand() -> None:
    """d1 (2) > d2 (1) > d3 (0); the run ranks d3, d1, then the unjudged d4, so the
    docid ranks are d3 0, d1 1 (NJR 2), d2 2.  d1>d2 is an implied success, d1>d3 a
    retrieved failure, d2>d3 an implied failure: 1 fulfilled of 3."""
    p = Prefs.from_rows(
        [("q", "a", "0", "d1", 2), ("q", "a", "0", "d2", 1), ("q", "a", "0", "d3", 0)]
    )
    v = _values(p, [("d3", 3.0), ("d1", 2.0), ("d4", 1.0)])
    third = pytest.approx(1 / 3)
    assert v["prefs_num_prefs_poss"] == 3 and v["prefs_num_prefs_ful"] == 1
    assert v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp"] == third and v["prefs_pair"] == third and v["prefs_avgjg"] == third
    assert v["prefs_simp_ret"] == 0 and v["prefs_pair_ret"] == 0 and v["prefs_avgjg_ret"] == 0
    assert v["prefs_simp_imp"] == third and v["prefs_pair_imp"] == third
    # R = 2 (d1, d2) >= N = 1: R * (R - N) = 2 possible, num_rel_ret * 1 = 1 fulfilled added
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx((1 + 1) / (3 + 2))
    # retrieved: R = 1, N = 1: d1>d3 only, failed
    assert v["prefs_avgjg_Rnonrel_ret"] == 0


def test_transitive_preferences_and_docno_ascending_ties() -> None:
    """Sub-group s1: d1 > d2, s2: d2 > d3; the closure adds d1 > d3.  d1 and d2 tie on
    score and trec_eval's prefs mode orders ties by docno ascending: d3, d1, d2."""
    p = Prefs.from_rows(
        [
            ("q", "x", "s1", "d1", 2),
            ("q", "x", "s1", "d2", 1),
            ("q", "x", "s2", "d2", 1),
            ("q", "x", "s2", "d3", 0),
        ]
    )
    v = _values(p, [("d3", 2.0), ("d2", 1.0), ("d1", 1.0)])
    assert v["prefs_num_prefs_poss"] == 3  # two judged, one transitive
    assert v["prefs_num_prefs_ful"] == 1 and v["prefs_num_prefs_ful_ret"] == 1  # d1 > d2
    assert v["prefs_simp_ret"] == pytest.approx(1 / 3)
    # R = 2, N = 1 (all retrieved): (1 + 2 * 1) / (3 + 2 * 1)
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(0.6)
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(0.6)


def test_pairs_share_conflicting_groups() -> None:
    """Two judgment groups disagree on d1 vs d2: prefs_pair scores the pair 1/2 (one
    of its two preferences fulfilled) and prefs_avgjg averages 1 and 0."""
    p = Prefs.from_rows(
        [
            ("q", "a", "0", "d1", 1),
            ("q", "a", "0", "d2", 0),
            ("q", "b", "0", "d1", 0),
            ("q", "b", "0", "d2", 1),
        ]
    )
    v = _values(p, [("d1", 2.0), ("d2", 1.0)])
    assert v["prefs_pair"] == pytest.approx(0.5) and v["prefs_avgjg"] == pytest.approx(0.5)
    assert v["prefs_simp"] == pytest.approx(0.5) and v["prefs_num_prefs_poss"] == 2


def test_no_judged_document_retrieved() -> None:
    p = Prefs.from_rows([("q", "a", "0", "d1", 1), ("q", "a", "0", "d2", 0)])
    v = _values(p, [("d9", 1.0)])
    assert v["prefs_num_prefs_poss"] == 1 and v["prefs_simp"] == 0 and v["prefs_simp_imp"] == 0
    assert v["prefs_pair"] == 0 and v["prefs_pair_imp"] == 0


def test_contradictions_are_refused() -> None:
    cycle = Prefs.from_rows(
        [
            ("q", "x", "s1", "d1", 2),
            ("q", "x", "s1", "d2", 1),
            ("q", "x", "s2", "d2", 2),
            ("q", "x", "s2", "d1", 1),
        ]
    )
    with pytest.raises(InputError, match="contradict"):
        _values(cycle, [("d1", 1.0)])
    zero_and_not = Prefs.from_rows(
        [
            ("q", "x", "s1", "d1", 0),
            ("q", "x", "s1", "d2", 1),
            ("q", "x", "s2", "d1", 1),
            ("q", "x", "s2", "d3", 0),
        ]
    )
    with pytest.raises(InputError, match="0 and a non-0"):
        _values(zero_and_not, [("d1", 1.0)])
    with pytest.raises(MetricNameError, match="measures="):
        evaluate_prefs(cycle, ["q"], ["d1"], [1.0], measures=["prefs_nope"])


def test_reader_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.prefs"
    bad.write_text("# comment\nq a 0 d1 1\nq a d2 1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.prefs:3: .*5 columns"):
        read_prefs(bad)
    bad.write_text("q 0 d1 high\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.prefs:1: .*rel_level"):
        read_qrels_prefs(bad)


def test_qrels_prefs_reads_iter_as_judgment_group(tmp_path: Path) -> None:
    path = tmp_path / "q.qrels"
    path.write_text("q 7 d1 1\nq 8 d1 0\n", encoding="utf-8")
    p = read_qrels_prefs(path)
    assert p.jg.tolist() == ["7", "8"] and p.jsg.tolist() == ["0", "0"]
    assert p.doc.tolist() == ["d1", "d1"] and p.rel_level.tolist() == [1.0, 0.0]
    assert len(PREFS_MEASURES) == 14 and np.all(p.query == "q")


def _cli_args(command: str) -> list[str]:
    """``ranklens evaluate`` arguments for a trec_eval ``-R`` command line."""
    args = shlex.split(command)[1:]
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-R":
            out += ["--qrels-format", args[i + 1]]
            i += 1
        elif a in ("-M", "-m"):
            out += [a, args[i + 1]]
            i += 1
        elif a.startswith("-"):
            out.append(a)
        else:
            out.append(str(DATA / a))
        i += 1
    return ["evaluate", *out, "--format", "trec"]


@pytest.mark.parametrize("case", [c for c in PREFS_CASES if c.exit_status == 0], ids=str)
def test_every_line_from_the_command_line(case: Case) -> None:
    result = CliRunner().invoke(main, _cli_args(case.command))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (OUT / case.name).read_text(encoding="utf-8")


def test_command_line_errors() -> None:
    base = [str(DATA / "prefs.prefs"), str(DATA / "prefs.run"), "--qrels-format", "prefs"]
    table = CliRunner().invoke(main, ["evaluate", *base])
    assert table.exit_code == 2 and "--format trec" in table.stderr
    other = CliRunner().invoke(main, ["evaluate", *base, "--format", "trec", "-m", "ndcg"])
    assert other.exit_code == 2 and "-m ndcg" in other.stderr and "all_prefs" in other.stderr
    swapped = [str(DATA / "prefs.run"), str(DATA / "prefs.run"), "--qrels-format", "prefs"]
    bad = CliRunner().invoke(main, ["evaluate", *swapped, "--format", "trec"])
    assert bad.exit_code == 3 and "prefs.run:1:" in bad.stderr
    assert "Traceback" not in bad.stderr


# ------------------------------------------------------------------------- relstring

RELSTRING_CASES = [c for c in ALL_CASES if "relstring" in c.command]


@pytest.mark.parametrize("case", RELSTRING_CASES, ids=str)
def test_relstring_as_trec_eval(case: Case) -> None:
    args = shlex.split(case.command)[1:]
    qrels, run = (DATA / a for a in args[-2:])
    measure = args[args.index("-m") + 1]
    cutoff = int(measure.split(".")[1]) if "." in measure else 10
    depth = int(args[args.index("-M") + 1]) if "-M" in args else None
    strings = relstring(
        read_trec_qrels(qrels), read_trec_run(run), cutoff, Conventions(depth=depth)
    )
    want = (OUT / case.name).read_text(encoding="utf-8").splitlines()
    assert relstring_lines(strings, cutoff) == want


def test_relstring_by_hand() -> None:
    """Ranking a (2), b (0), x (not judged), c (12), d (-1), e (-2): '20->..'."""
    from ranklens.ranking.data import Qrels

    q = Qrels.from_dict({"q": {"a": 2, "b": 0, "c": 12, "d": -1, "e": -2}})
    r = Run.from_dict({"q": {"a": 6.0, "b": 5.0, "x": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}})
    assert relstring(q, r) == {"q": "20->.."}
    assert relstring(q, r, cutoff=2) == {"q": "20"}
    assert relstring_lines({"q": "20"}) == ["relstring             \tq\t'20'"]


# --------------------------------------------------------------- judgment groups

JG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
JG_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


def _avgjg_names() -> dict[str, str]:
    """ranklens metric -> trec_eval's -m qrels_jg name."""
    return (
        {"map": "map_avgjg"}
        | {f"P.{c}": f"P_avgjg_{c}" for c in JG_CUTS}
        | {f"Rprec_mult.{m}": f"Rprec_mult_avgjg_{m:.2f}" for m in JG_MULTS}
    )


@pytest.mark.parametrize("case", [c for c in ALL_CASES if "qrels_jg" in c.command], ids=str)
def test_judgment_group_averages_as_trec_eval(case: Case) -> None:
    args = shlex.split(case.command)[1:]
    judgments = read_qrels_jg(DATA / args[-2])
    run = read_trec_run(DATA / args[-1])
    names = _avgjg_names()
    missing = "zero" if "-c" in args else "skip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)
        got = evaluate_avgjg(judgments, run, list(names), profile="trec_eval", missing=missing)
    want = read_values((OUT / case.name).read_text(encoding="utf-8"))
    checked = 0
    for metric, trec_name in names.items():
        assert set(got[metric]) == set(want[trec_name]), trec_name
        for q, value in want[trec_name].items():
            assert close(got[metric][q], value, 5e-5), (trec_name, q, got[metric][q], value)
            checked += 1
    assert checked == len(names) * (len(set(judgments.query_ids)) + 1)


def test_judgment_groups_by_hand() -> None:
    """Assessor a judges d1 relevant, b judges d2: P@1 of the run d1, d2 is 1 for a and
    0 for b, 1/2 averaged; map is (1 + 1/2) / 2."""
    j = Prefs.from_rows([("q", "a", "0", "d1", 1), ("q", "b", "0", "d2", 1)])
    run = Run.from_dict({"q": {"d1": 2.0, "d2": 1.0}})
    got = evaluate_avgjg(j, run, ["P.1", "map"], profile="trec_eval")
    assert got["P.1"] == {"q": 0.5, "all": 0.5}
    assert got["map"]["q"] == pytest.approx(0.75)
