"""Reference tests over every parameter a peer shares with ranklens.

The other reference files check defaults; this one sweeps parameters, on
seeded random inputs with ties (and, for pytrec_eval, float32 near-ties),
graded and negative grades, unjudged documents, queries missing from the run,
run queries missing from the qrels and queries with no relevant judgment.
Every per-query value must agree to 1e-9.

pytrec_eval (trec_eval 9, profile ``pytrec_eval``)
    every measure of ``pytrec_eval.supported_measures`` that ranklens has
    (all but ``runid`` and ``relstring``), at relevance levels 1, 2 and 3
    (pytrec_eval's ``relevance_level`` = ranklens ``rel_threshold`` or the
    per-metric ``rel=``; pytrec_eval refuses level 0); cutoffs 1 to 1000
    (beyond every ranking) for ``P``, ``recall``, ``ndcg_cut``, ``map_cut``,
    ``success``, ``relative_P``; recall levels for ``iprec_at_recall``;
    multiples for ``Rprec_mult``; weights for ``utility`` and ``set_F``;
    levels for ``11pt_avg``; gain maps (zero, negative, for grade 0,
    reordering the levels, for grades that do not occur) for ``ndcg``,
    ``ndcg_rel``, ``Rndcg`` and ``G``; trec_eval spellings and the ranklens
    grammar; per-query values and aggregates (mean, sum, geometric mean).
    ``judged_docs_only_flag`` (trec_eval ``-J``) is ranklens' ``judged_only=True``
    (and ranklens on the run without unjudged documents).
    trec_eval 9 has no ``rbp``, ``rbp_resid`` or ``unj``; they are not
    compared here.
ranx (profile ``ranx``)
    every ranx metric at cutoffs 1 to 20 (beyond the rankings), relevance
    levels 0 to 3 (ranx ``-lN``), graded judgments (``ndcg`` / ``dcg``
    linear, ``_burges`` = exp2 gains; ranx drops grades below the level, a
    gain map here), ``rbp`` at several persistences and ``bpref`` where ranx
    defines them (see below).
scikit-learn (profile ``sklearn``)
    ``ndcg_score`` / ``dcg_score`` at several k, with ``ignore_ties`` both
    ways, and the mean over queries; ``average_precision_score`` per query at
    relevance thresholds 1 to 4; ``label_ranking_average_precision_score``.

Exclusions, each tested where ranklens documents what it does instead:

* pytrec_eval hangs or crashes (memory corruption) when a query's judgments
  are all negative and several measures are computed: every judged query here
  has a judgment >= 0.
* trec_eval sorts gain levels with a comparator that truncates gain
  differences to int, so mapped gains less than 1 apart can be misordered in
  its ideal list: gain maps here keep distinct gains at least 1 apart
  (``test_close_gains_are_sorted_exactly``).
* trec_eval's ``Rndcg`` is 0/0 (nan) for a query with relevant documents but
  no positive gain, and so is ranklens' under ``undefined='nan'``
  (``test_rndcg_without_positive_gain``); every NaN of pytrec_eval (interpolated
  precision of an empty ranking too) must be NaN here, and its aggregate NaN.
* ranx's ``rbp`` uses raw grades (no rescaling to [0, 1] as trec_eval does):
  the ``ranx`` profile's ``rbp(scale=none)``, compared on graded judgments too.  ranx's
  ``bpref`` is 0/0 (nan) without judged non-relevant documents, as the profile's
  ``bpref(no_nonrel=undefined)``; ranx's bpref loop stops at a query without relevant
  documents (leaving 0 after it), so bpref is compared where every query has one.
* scikit-learn's ``ignore_ties=True`` orders tied scores by an unstable
  argsort: compared on distinct scores.  ``dcg_score(log_base=...)`` other
  than 2 and negative ``y_true`` have no ranklens counterpart.
* ``label_ranking_average_precision_score`` scores a query without relevant
  documents 1: compared on the others.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ranklens
from tests.helpers import graded_case

pytestmark = pytest.mark.reference

Qrels = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]


def _evaluate(qrels: Qrels, run: RunDict, names: list[str], **kw: Any) -> ranklens.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        return ranklens.evaluate(
            ranklens.Qrels.from_dict(qrels), ranklens.Run.from_dict(run), names, **kw
        )


def _close(got: float, want: float) -> bool:
    return bool(np.isclose(got, want, atol=1e-9, rtol=1e-9))


# =========================================================================== pytrec_eval


def _pytrec() -> Any:
    return pytest.importorskip("pytrec_eval")


def _evaluator(qrels: Qrels, measures: set[str], level: int, judged_only: bool = False) -> Any:
    """pytrec_eval's evaluator with trec_eval's own measure syntax: the Python
    wrapper's name normaliser accepts only unsigned numbers, so ``ndcg.1=3`` or
    ``utility.1,-1,0,0`` go to the extension as trec_eval reads them (the
    wrapper's other fix, dropping queries without judgments, is kept)."""
    pytrec_eval = _pytrec()

    class Evaluator(pytrec_eval.RelevanceEvaluator):  # type: ignore[misc, name-defined]
        def _combine_measures(self, measures: Any) -> set[str]:
            return set(measures)

    return Evaluator(qrels, measures, relevance_level=level, judged_docs_only_flag=judged_only)


def _trec_case(seed: int) -> tuple[Qrels, RunDict]:
    rng = np.random.default_rng(9000 + seed)
    qrels: Qrels = {}
    run: RunDict = {}
    for qi in range(int(rng.integers(3, 10))):
        q = f"q{qi}" if rng.random() < 0.8 else f"{qi:03d}"
        docs = [f"d{j}" for j in rng.permutation(40)[: int(rng.integers(1, 30))]]
        if rng.random() < 0.85:
            pool = docs + [f"x{j}" for j in range(10)]  # x*: judged, never retrieved
            judged = rng.choice(pool, size=int(rng.integers(1, min(20, len(pool)))), replace=False)
            grades = rng.choice([-2, -1, 0, 0, 1, 1, 2, 3, 4], size=len(judged))
            if rng.random() < 0.15:
                grades = np.minimum(grades, 0)  # no relevant judgment
            if grades.max() < 0:
                grades[0] = 0  # pytrec_eval misbehaves on all-negative queries
            qrels[q] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
        if rng.random() < 0.9 or q not in qrels:  # some judged queries are not in the run
            scores = rng.integers(0, 8, size=len(docs)) / 8.0  # exact ties
            near = rng.random(len(docs)) < 0.2  # near-ties, equal in float32
            scores = np.where(near, scores + 1e-9, scores)
            run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
            if rng.random() < 0.08:
                run[q] = {}  # named with no document (pytrec_eval evaluates it)
    if not qrels:
        qrels["q0"] = {"d0": 1}
    if not any(run.get(q) for q in qrels):
        run[next(iter(qrels))] = {"d0": 0.5, "d1": 0.25}
    return qrels, run


CUTOFFS = (1, 2, 5, 10, 30, 1000)  # the longest ranking has 29 documents
IPREC = ("0.00", "0.05", "0.10", "0.15", "0.33", "0.50", "0.67", "0.90", "1.00")
RPREC_MULT = ("0.20", "0.50", "1.00", "1.50", "2.00", "10.00")

# pytrec_eval output key -> ranklens names that must equal it (trec_eval spelling
# and grammar); the measures are computed by one pytrec_eval evaluator
PLAIN: dict[str, tuple[str, ...]] = {
    "map": ("map", "ap"),
    "gm_map": ("gm_map",),
    "gm_bpref": ("gm_bpref",),
    "Rprec": ("Rprec", "rprec"),
    "bpref": ("bpref",),
    "recip_rank": ("recip_rank", "rr"),
    "11pt_avg": ("11pt_avg",),
    "ndcg": ("ndcg",),
    "set_P": ("set_P", "p"),
    "set_recall": ("set_recall", "r"),
    "set_F": ("set_F", "f1"),
    "set_map": ("set_map",),
    "set_relative_P": ("set_relative_P", "relative_p"),
    "num_q": ("num_q",),
    "num_ret": ("num_ret",),
    "num_rel": ("num_rel",),
    "num_rel_ret": ("num_rel_ret",),
    "num_nonrel_judged_ret": ("num_nonrel_judged_ret",),
    "infAP": ("infAP", "infap"),
    "binG": ("binG", "bing"),
    "G": ("G", "g"),
    "Rndcg": ("Rndcg", "rndcg"),
    "ndcg_rel": ("ndcg_rel",),
    "utility": ("utility",),
}
for _k in CUTOFFS:
    PLAIN[f"P_{_k}"] = (f"P.{_k}", f"p@{_k}")
    PLAIN[f"recall_{_k}"] = (f"recall.{_k}", f"r@{_k}")
    PLAIN[f"ndcg_cut_{_k}"] = (f"ndcg_cut.{_k}", f"ndcg@{_k}")
    PLAIN[f"map_cut_{_k}"] = (f"map_cut.{_k}", f"ap@{_k}")
    PLAIN[f"success_{_k}"] = (f"success.{_k}", f"success@{_k}")
    PLAIN[f"relative_P_{_k}"] = (f"relative_P.{_k}", f"relative_p@{_k}")
for _x in IPREC:
    PLAIN[f"iprec_at_recall_{_x}"] = (f"iprec_at_recall.{_x}", f"iprec@{float(_x)}")
for _x in RPREC_MULT:
    PLAIN[f"Rprec_mult_{_x}"] = (f"Rprec_mult.{_x}", f"rprec_mult@{float(_x)}")


def _plain_measures() -> set[str]:
    """PLAIN's measures as pytrec_eval takes them (cutoffs and levels combined)."""
    out = {
        k
        for k in PLAIN
        if not any(
            k.startswith(b + "_")
            for b in (
                "P",
                "recall",
                "ndcg_cut",
                "map_cut",
                "success",
                "relative_P",
                "iprec_at_recall",
                "Rprec_mult",
            )
        )
    }
    out.add("P." + ",".join(map(str, CUTOFFS)))
    out.add("recall." + ",".join(map(str, CUTOFFS)))
    out.add("ndcg_cut." + ",".join(map(str, CUTOFFS)))
    out.add("map_cut." + ",".join(map(str, CUTOFFS)))
    out.add("success." + ",".join(map(str, CUTOFFS)))
    out.add("relative_P." + ",".join(map(str, CUTOFFS)))
    out.add("iprec_at_recall." + ",".join(IPREC))
    out.add("Rprec_mult." + ",".join(RPREC_MULT))
    return out


# gain maps: zero and negative gains, a gain for grade 0, levels reordered, a level
# that no query has (5), non-integer gains (distinct gains, those of unmapped grades
# included, at least 1 apart)
GAINS = (
    "1=3,2=9",
    "1=5,2=1",
    "0=1",
    "0=2,1=1",
    "1=0,2=4",
    "1=-2,3=5",
    "2=-1",
    "0=-1,1=2",
    "3=0,4=0",
    "1=1,2=1,3=1,4=1",
    "1=10,2=10,3=2",
    "0=0",
    "5=7",
    "1=2.5,2=2.5,3=7.5",
    "4=-3,0=2",
    "1=1.5,2=5.5,3=2.5,4=8",
)
GAIN_FAMILIES = {"ndcg": "ndcg", "ndcg_rel": "ndcg_rel", "Rndcg": "rndcg", "G": "g"}


def _grammar_gain(spec: str) -> str:
    return "{" + ",".join(p.replace("=", ":") for p in spec.split(",")) + "}"


# other measures whose output key does not name the parameter: (trec spelling,
# pytrec_eval key, grammar spellings)
PARAMETRISED: list[tuple[str, str, tuple[str, ...]]] = [
    ("utility.2,-1,0,0", "utility", ("utility(a=2,b=-1,c=0,d=0)",)),
    ("utility.1,-2,-1,0.5", "utility", ("utility(a=1,b=-2,c=-1,d=0.5)",)),
    ("utility.0,0,0,1", "utility", ("utility(a=0,b=0,c=0,d=1)",)),
    ("utility.-1.5,0.5,2,-3", "utility", ("utility(a=-1.5,b=0.5,c=2,d=-3)",)),
    ("set_F.0", "set_F", ("f1(beta=0)",)),
    ("set_F.0.25", "set_F", ("f1(beta=0.5)",)),
    ("set_F.0.5", "set_F", ()),
    ("set_F.4", "set_F", ("f1(beta=2)",)),
    ("set_F.10", "set_F", ()),
    ("11pt_avg.0.25,0.5,0.75", "11pt_avg", ("11pt_avg(levels=[0.25,0.5,0.75])",)),
    ("11pt_avg.0,1", "11pt_avg", ("11pt_avg(levels=[0,1])",)),
    ("11pt_avg.0.33", "11pt_avg", ("11pt_avg(levels=0.33)",)),
]
for _base, _fam in GAIN_FAMILIES.items():
    for _g in GAINS:
        PARAMETRISED.append((f"{_base}.{_g}", _base, (f"{_fam}(gain={_grammar_gain(_g)})",)))


def _check_against(
    expected: dict[str, dict[str, float]],
    key: str,
    names: tuple[str, ...],
    res: ranklens.Result,
    where: tuple[Any, ...],
    nan_ok: Callable[[str], bool] | None = None,
) -> None:
    for name in names:
        got = res.per_query(name)
        assert set(got) == set(expected), (where, name)
        for q, values in expected.items():
            want = values[key]
            # pytrec_eval reports gm_ measures as log(max(v, 1e-5)) per query, and so
            # does the pytrec_eval profile (gm_map(values=log))
            g = got[q]
            if math.isnan(want) and nan_ok is not None and nan_ok(q):
                assert g == 0.0, (where, name, q)
                continue
            # a NaN (0/0: undefined='nan') only equals a NaN
            assert _close(g, want) or (math.isnan(g) and math.isnan(want)), (
                where,
                name,
                q,
                g,
                want,
            )
        values_all = [v[key] for v in expected.values()]
        agg = _pytrec().compute_aggregated_measure(key, values_all)
        if nan_ok is None:  # pytrec_eval's mean of a NaN is NaN, and so is ranklens'
            assert _close(res[name], agg) or (math.isnan(res[name]) and math.isnan(agg)), (
                where,
                name,
                "aggregate",
            )


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("seed", range(10))
def test_pytrec_eval_every_measure_and_parameter(seed: int, level: int) -> None:
    qrels, run = _trec_case(seed)
    names = [n for ns in PLAIN.values() for n in ns]
    names += [n for trec, _key, grammar in PARAMETRISED for n in (trec, *grammar)]
    res = _evaluate(qrels, run, names, profile="pytrec_eval", rel_threshold=level)

    expected = _evaluator(qrels, _plain_measures(), level).evaluate(run)
    assert set(next(iter(expected.values()))) == set(PLAIN)
    for key, ns in PLAIN.items():
        _check_against(expected, key, ns, res, (seed, level))
    for trec, key, grammar in PARAMETRISED:
        expected = _evaluator(qrels, {trec}, level).evaluate(run)
        _check_against(expected, key, (trec, *grammar), res, (seed, level, trec))


def test_every_pytrec_eval_measure_is_compared() -> None:
    """Every measure pytrec_eval supports is compared above, but ``runid`` and
    ``relstring`` (strings, not numbers)."""
    supported = set(_pytrec().supported_measures) - {"runid", "relstring"}
    compared = {m.split(".")[0] for m in _plain_measures()} | {
        trec.split(".")[0] for trec, _key, _grammar in PARAMETRISED
    }
    assert compared == supported


# the binary measures take rel= per metric; pytrec_eval's relevance_level is global
REL_PARAM = {
    "P_5": "p(rel={L})@5",
    "P_1000": "p(rel={L})@1000",
    "recall_10": "r(rel={L})@10",
    "map": "ap(rel={L})",
    "map_cut_10": "ap(rel={L})@10",
    "recip_rank": "rr(rel={L})",
    "success_5": "success(rel={L})@5",
    "Rprec": "rprec(rel={L})",
    "bpref": "bpref(rel={L})",
    "iprec_at_recall_0.30": "iprec(rel={L})@0.3",
    "11pt_avg": "11pt_avg(rel={L})",
    "num_rel": "num_rel(rel={L})",
    "num_rel_ret": "num_rel_ret(rel={L})",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret(rel={L})",
    "relative_P_5": "relative_p(rel={L})@5",
    "set_map": "set_map(rel={L})",
    "set_F": "f1(rel={L})",
    "Rprec_mult_2.00": "rprec_mult(rel={L})@2",
    "utility": "utility(rel={L})",
    "infAP": "infap(rel={L})",
    "binG": "bing(rel={L})",
    "Rndcg": "rndcg(rel={L})",
    "gm_map": "gm_map(rel={L})",
    "gm_bpref": "gm_bpref(rel={L})",
}


@pytest.mark.parametrize("seed", range(6))
def test_pytrec_eval_relevance_level_is_the_rel_parameter(seed: int) -> None:
    qrels, run = _trec_case(seed)
    measures = {
        "P.5,1000",
        "recall.10",
        "map",
        "map_cut.10",
        "recip_rank",
        "success.5",
        "Rprec",
        "bpref",
        "iprec_at_recall.0.30",
        "11pt_avg",
        "num_rel",
        "num_rel_ret",
        "num_nonrel_judged_ret",
        "relative_P.5",
        "set_map",
        "set_F",
        "Rprec_mult.2.00",
        "utility",
        "infAP",
        "binG",
        "Rndcg",
        "gm_map",
        "gm_bpref",
    }
    for level in (1, 2, 3):
        names = {key: pattern.format(L=level) for key, pattern in REL_PARAM.items()}
        res = _evaluate(qrels, run, list(names.values()), profile="pytrec_eval")
        expected = _evaluator(qrels, measures, level).evaluate(run)
        for key, name in names.items():
            _check_against(expected, key, (name,), res, (seed, level))


def _trec_spelling(key: str) -> str:
    """trec_eval's command-line name for an output key (``P_5`` -> ``P.5``)."""
    for base in (
        "P",
        "recall",
        "map_cut",
        "ndcg_cut",
        "relative_P",
        "success",
        "Rprec_mult",
        "iprec_at_recall",
    ):
        if key.startswith(base + "_") and key[len(base) + 1].isdigit():
            return f"{base}.{key[len(base) + 1 :]}"
    return key


@pytest.mark.parametrize("seed", range(8))
def test_pytrec_eval_judged_docs_only_is_the_judged_run(seed: int) -> None:
    """pytrec_eval's ``judged_docs_only_flag`` (trec_eval ``-J``) equals ranklens'
    ``judged_only=True``, and ranklens on the run without the documents that are
    unjudged (not in the qrels, or judged with a negative grade).  A query left
    with no judged document is still evaluated (an empty ranking), where
    trec_eval's ``iprec_at_recall`` and ``11pt_avg`` are 0/0 (nan), as ranklens'
    (``undefined='nan'``); on the filtered run such a query is absent and
    ``missing='zero'`` ranks trec_eval ``-c``'s one stand-in document there: 0."""
    qrels, run = _trec_case(seed)
    judged_run = {
        q: {d: s for d, s in docs.items() if qrels.get(q, {}).get(d, -1) >= 0}
        for q, docs in run.items()
    }
    judged_run = {q: docs for q, docs in judged_run.items() if docs}
    run_qrels = {q: j for q, j in qrels.items() if q in run}
    keys = (
        "P_5",
        "P_30",
        "recall_5",
        "map",
        "map_cut_5",
        "ndcg",
        "ndcg_cut_5",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "infAP",
        "recip_rank",
        "Rndcg",
        "G",
        "ndcg_rel",
        "utility",
        "set_F",
        "set_P",
        "set_recall",
        "set_map",
        "set_relative_P",
        "relative_P_5",
        "binG",
        "num_nonrel_judged_ret",
        "Rprec",
        "Rprec_mult_2.00",
        "11pt_avg",
        "iprec_at_recall_0.20",
        "success_5",
    )
    measures = {
        "P.5,30",
        "recall.5",
        "map",
        "map_cut.5",
        "ndcg",
        "ndcg_cut.5",
        "bpref",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "infAP",
        "recip_rank",
        "Rndcg",
        "G",
        "ndcg_rel",
        "utility",
        "set_F",
        "set_P",
        "set_recall",
        "set_map",
        "set_relative_P",
        "relative_P.5",
        "binG",
        "num_nonrel_judged_ret",
        "Rprec",
        "Rprec_mult.2.00",
        "11pt_avg",
        "iprec_at_recall.0.20",
        "success.5",
    }
    for level in (1, 2):
        expected = _evaluator(qrels, measures, level, judged_only=True).evaluate(run)
        names = [_trec_spelling(k) for k in keys]
        res = _evaluate(
            run_qrels, judged_run, names, profile="pytrec_eval", rel_threshold=level, missing="zero"
        )
        direct = _evaluate(
            qrels, run, names, profile="pytrec_eval", rel_threshold=level, judged_only=True
        )
        for key, name in zip(keys, names, strict=True):
            nan_ok = (
                (lambda q: q not in judged_run)
                if key in ("11pt_avg", "iprec_at_recall_0.20")
                else None
            )
            _check_against(expected, key, (name,), res, (seed, level), nan_ok)
            _check_against(expected, key, (name,), direct, (seed, level, "-J"))


def test_close_gains_are_sorted_exactly() -> None:
    """trec_eval compares gain levels by ``(int)(g1 - g2)``, so gains less than 1
    apart can stay out of order in its ideal list; ranklens sorts them exactly.
    Grades 1, 2, 3 with gains 3, 2.2, 2.9: the ideal list is 3, 2.9, 2.2."""
    qrels = {"q": {"a": 1, "b": 2, "c": 3}}
    run = {"q": {"b": 0.9, "c": 0.8, "a": 0.7}}
    res = _evaluate(qrels, run, ["ndcg.1=3,2=2.2,3=2.9"], profile="pytrec_eval")
    disc = [1 / math.log2(i + 2) for i in range(3)]
    want = (2.2 * disc[0] + 2.9 * disc[1] + 3 * disc[2]) / (
        3 * disc[0] + 2.9 * disc[1] + 2.2 * disc[2]
    )
    assert res.per_query("ndcg.1=3,2=2.2,3=2.9")["q"] == pytest.approx(want, abs=1e-12)


def test_rndcg_without_positive_gain() -> None:
    """A query with relevant documents but no positive gain: trec_eval's Rndcg
    divides 0 by 0 (nan), and so does ranklens under undefined='nan' (every
    profile's); undefined='zero' reports 0, as its docstring says."""
    qrels = {"q": {"a": 1, "b": 2, "c": 0}, "r": {"a": 3}}
    run = {"q": {"a": 0.9, "b": 0.8, "z": 0.7}, "r": {"a": 1.0}}
    res = _evaluate(qrels, run, ["Rndcg.1=0,2=-1"], profile="pytrec_eval")
    got = res.per_query("Rndcg.1=0,2=-1")
    assert math.isnan(got["q"]) and got["r"] == 1.0 and math.isnan(res["Rndcg.1=0,2=-1"])
    zero = _evaluate(qrels, run, ["Rndcg.1=0,2=-1"], profile="pytrec_eval", undefined="zero")
    assert zero.per_query("Rndcg.1=0,2=-1") == {"q": 0.0, "r": 1.0}
    ref = _evaluator(qrels, {"Rndcg.1=0,2=-1"}, 1).evaluate(run)
    assert math.isnan(ref["q"]["Rndcg"]) and ref["r"]["Rndcg"] == 1.0


# =========================================================================== ranx


def _ranx_case(
    seed: int,
    longest: int = 15,
    ties: bool = True,
    binary: bool = False,
    every_query_both: bool = False,
) -> tuple[Qrels, RunDict]:
    """Rankings of at most 15 documents when scores tie (ranx's sort is stable
    only up to 15), grades 0-3 (0-1 with ``binary``), a stray run query half the time
    (ranx drops it)."""
    return graded_case(
        11000 + seed,
        n_queries=(2, 9),
        longest=longest,
        max_judged=14,
        ties=ties,
        binary=binary,
        every_query_both=every_query_both,
        stray_query=True,
    )


def _level_gains(level: int, exp2: bool) -> str:
    """ranx drops the judgments below its relevance level: their gain is 0."""
    return (
        "{"
        + ",".join(f"{g}:{((2**g - 1) if exp2 else g) if g >= level else 0}" for g in range(4))
        + "}"
    )


def _ranx_names(level: int, cutoffs: tuple[int, ...]) -> dict[str, str]:
    lv = f"-l{level}"
    binary = {
        "hits": "hits",
        "hit_rate": "success",
        "precision": "p",
        "recall": "r",
        "f1": "f1",
        "mrr": "rr",
        "map": "ap",
    }
    graded = {
        "ndcg": ("ndcg", False),
        "ndcg_burges": ("ndcg", True),
        "dcg": ("dcg", False),
        "dcg_burges": ("dcg", True),
    }
    out: dict[str, str] = {}
    for suffix, at in [("", "")] + [(f"@{k}", f"@{k}") for k in cutoffs]:
        for rx, rl in binary.items():
            out[f"{rx}{suffix}{lv}"] = f"{rl}(rel={level}){at}"
        for rx, (rl, exp2) in graded.items():
            out[f"{rx}{suffix}{lv}"] = f"{rl}(gain={_level_gains(level, exp2)}){at}"
    out[f"r-precision{lv}"] = f"rprec(rel={level})"
    if level == 1:  # ranx's default level; the ranklens names at their defaults
        out.update(
            {
                "ndcg@10": "ndcg@10",
                "ndcg_burges@10": "ndcg(gain=exp2)@10",
                "dcg_burges": "dcg(gain=exp2)",
                "map@3": "map@3",
                "mrr": "mrr",
                "hit_rate@5": "hit_rate@5",
                "r-precision": "rprec",
            }
        )
    return out


def _compare_ranx(qrels: Qrels, run: RunDict, names: dict[str, str], where: Any) -> None:
    ranx = pytest.importorskip("ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety warnings in rbp
        expected = ranx.evaluate(
            ranx.Qrels(qrels), ranx.Run(run), list(names), return_mean=False, make_comparable=True
        )
    if not isinstance(expected, dict):
        expected = {next(iter(names)): expected}
    res = _evaluate(qrels, run, list(names.values()), profile="ranx")
    order = list(ranx.Qrels(qrels).keys())  # ranx's query order
    assert sorted(order) == sorted(res.query_ids)
    for measure, name in names.items():
        got = res.per_query(name)
        want = dict(zip(order, np.atleast_1d(expected[measure]).tolist(), strict=True))
        for q in order:
            g, w = got[q], want[q]
            assert _close(g, w) or (math.isnan(g) and math.isnan(w)), (
                where,
                measure,
                name,
                q,
                g,
                w,
            )
        # ranx's mean is numpy's: NaN when a query's value is
        mean = float(np.mean(np.atleast_1d(expected[measure])))
        assert _close(res[name], mean) or (math.isnan(res[name]) and math.isnan(mean)), (
            where,
            name,
            "mean",
        )


@pytest.mark.parametrize("seed", range(12))
def test_ranx_every_metric_cutoff_and_level(seed: int) -> None:
    qrels, run = _ranx_case(seed)
    for level in (0, 1, 2, 3):
        _compare_ranx(qrels, run, _ranx_names(level, (1, 2, 3, 5, 10, 20)), (seed, level))
    qrels, run = _ranx_case(seed, longest=40, ties=False)  # long rankings, no ties
    _compare_ranx(qrels, run, _ranx_names(1, (1, 5, 30, 50)), (seed, "long"))


@pytest.mark.parametrize("seed", range(12))
def test_ranx_rbp_and_bpref(seed: int) -> None:
    for binary in (True, False):  # ranx's rbp gains are the raw grades (the profile's too)
        qrels, run = _ranx_case(seed, binary=binary)
        _compare_ranx(
            qrels,
            run,
            {f"rbp.{p}": f"rbp(p=0.{p})" for p in ("1", "5", "8", "95", "99")},
            (seed, "rbp"),
        )
    qrels, run = _ranx_case(seed, every_query_both=True)
    for level in (1, 2, 3):
        if all(
            any(g >= level for g in j.values()) for j in qrels.values()
        ):  # ranx's bpref loop stops at a query without relevant documents otherwise
            _compare_ranx(
                qrels, run, {f"bpref-l{level}": f"bpref(rel={level})"}, (seed, "bpref", level)
            )


def test_ranx_graded_rbp_and_bpref_disagreements() -> None:
    """Graded rbp sums the raw grades (trec_eval rescales a query's gains to [0, 1]),
    and bpref without judged non-relevant documents is 0/0 (NaN): the ranx profile's
    ``rbp(scale=none)`` and ``bpref(no_nonrel=undefined)``; trec_eval's bpref counts
    such a relevant document 1."""
    ranx = pytest.importorskip("ranx")
    qrels = {"a": {"d1": 2, "d2": 0, "d3": 1}, "b": {"d1": 1}}
    run = {"a": {"d1": 0.9, "d2": 0.8, "d3": 0.7}, "b": {"d1": 1.0, "d5": 0.5}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["rbp.8", "bpref"], return_mean=False)
    res = _evaluate(
        qrels,
        run,
        ["rbp(p=0.8)", "rbp(p=0.8,scale=trec)", "bpref", "bpref(no_nonrel=one)"],
        profile="ranx",
    )
    assert ref["rbp.8"][0] == pytest.approx(0.2 * 2 + 0.2 * 0.64 * 1)
    # the ranx profile sums the raw grades too; trec_eval's rescaling halves them here
    assert res.per_query("rbp(p=0.8)")["a"] == pytest.approx(ref["rbp.8"][0])
    assert res.per_query("rbp(p=0.8,scale=trec)")["a"] == pytest.approx(ref["rbp.8"][0] / 2)
    assert math.isnan(ref["bpref"][1]) and math.isnan(res.per_query("bpref")["b"])
    assert res.per_query("bpref")["a"] == pytest.approx(ref["bpref"][0])
    assert res.per_query("bpref(no_nonrel=one)")["b"] == 1.0


# =========================================================================== scikit-learn


def _sk_case(seed: int, distinct: bool) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(13000 + seed)
    queries, rels, scores = [], [], []
    for qi in range(int(rng.integers(2, 8))):
        n = int(rng.integers(2, 30))
        rel = rng.choice([0, 0, 0, 1, 2, 3, 4], size=n)
        if rng.random() < 0.1:
            rel[:] = 0
        elif rng.random() < 0.1:
            rel[:] = int(rng.integers(1, 3))  # every document relevant, one grade
        if distinct:
            sc = rng.permutation(n) / n + rng.random()
        else:
            sc = rng.integers(0, 4, size=n) / 2.0 + (rng.random() < 0.2) * rng.random(n)
        queries.append(f"q{qi}")
        rels.append(rel)
        scores.append(sc)
    return queries, rels, scores


def _sk_dicts(
    queries: list[str], rels: list[np.ndarray], scores: list[np.ndarray]
) -> tuple[Qrels, RunDict]:
    qrels = {
        q: {f"d{i}": int(r) for i, r in enumerate(rel)}
        for q, rel in zip(queries, rels, strict=True)
    }
    run = {
        q: {f"d{i}": float(s) for i, s in enumerate(sc)}
        for q, sc in zip(queries, scores, strict=True)
    }
    return qrels, run


SK_K = (1, 2, 3, 5, 10, 50)


@pytest.mark.parametrize("distinct", [False, True], ids=["ties", "distinct"])
@pytest.mark.parametrize("seed", range(12))
def test_sklearn_ndcg_dcg_ap_every_parameter(seed: int, distinct: bool) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    queries, rels, scores = _sk_case(seed, distinct)
    qrels, run = _sk_dicts(queries, rels, scores)
    names = (
        ["ndcg", "dcg", "ndcg(ties=trec)", "dcg(ties=trec)", "ap(ties=grouped)"]
        + [f"ndcg@{k}" for k in SK_K]
        + [f"dcg@{k}" for k in SK_K]
        + [f"ndcg(ties=trec)@{k}" for k in SK_K]
        + [f"dcg(ties=trec)@{k}" for k in SK_K]
        + [f"ap(rel={t})" for t in (1, 2, 3, 4)]
    )
    res = _evaluate(qrels, run, names, profile="sklearn")
    lrap = _evaluate(qrels, run, ["ap"], profile="sklearn", no_relevant="skip")
    for q, rel, sc in zip(queries, rels, scores, strict=True):
        yt, ys = rel[None, :].astype(float), sc[None, :]
        checks: list[tuple[str, float]] = [
            ("ndcg", metrics.ndcg_score(yt, ys)),
            ("dcg", metrics.dcg_score(yt, ys)),
        ]
        for k in SK_K:
            checks.append((f"ndcg@{k}", metrics.ndcg_score(yt, ys, k=k)))
            checks.append((f"dcg@{k}", metrics.dcg_score(yt, ys, k=k, log_base=2)))
            if distinct:  # ignore_ties sorts with an unstable argsort: distinct scores only
                checks.append(
                    (f"ndcg(ties=trec)@{k}", metrics.ndcg_score(yt, ys, k=k, ignore_ties=True))
                )
                checks.append(
                    (f"dcg(ties=trec)@{k}", metrics.dcg_score(yt, ys, k=k, ignore_ties=True))
                )
        if distinct:
            checks.append(("ndcg(ties=trec)", metrics.ndcg_score(yt, ys, ignore_ties=True)))
            checks.append(("dcg(ties=trec)", metrics.dcg_score(yt, ys, ignore_ties=True)))
        for t in (1, 2, 3, 4):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # no positive sample: sklearn warns
                ap = metrics.average_precision_score((rel >= t).astype(int), sc)
            checks.append((f"ap(rel={t})", ap))
        if (rel >= 1).any():  # LRAP scores a query without relevant documents 1
            want = metrics.label_ranking_average_precision_score(
                (rel >= 1)[None, :].astype(int), ys
            )
            checks.append(("ap(ties=grouped)", want))
            assert _close(lrap.per_query("ap")[q], want), (seed, q, "lrap")
        for name, want in checks:
            got = res.per_query(name)[q]
            assert _close(got, want), (seed, distinct, q, name, got, want)


@pytest.mark.parametrize("seed", range(8))
def test_sklearn_mean_over_queries(seed: int) -> None:
    """``ndcg_score`` / ``dcg_score`` on a (queries x documents) matrix average the
    queries: the ranklens mean (queries of equal length)."""
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(15000 + seed)
    n_q, n = int(rng.integers(2, 9)), int(rng.integers(2, 20))
    yt = rng.choice([0, 0, 1, 2, 3], size=(n_q, n)).astype(float)
    ys = rng.integers(0, 5, size=(n_q, n)) / 4.0
    qrels, run = _sk_dicts([f"q{i}" for i in range(n_q)], list(yt.astype(int)), list(ys))
    res = _evaluate(qrels, run, ["ndcg", "ndcg@3", "dcg@5"], profile="sklearn")
    assert _close(res["ndcg"], metrics.ndcg_score(yt, ys))
    assert _close(res["ndcg@3"], metrics.ndcg_score(yt, ys, k=3))
    assert _close(res["dcg@5"], metrics.dcg_score(yt, ys, k=5))
