"""Property tests over the whole metric registry (hypothesis).

Random small qrels and runs: graded relevance -1..3, score ties, unjudged
documents, queries of the qrels missing from the run.  The properties:
values within each metric's declared range, perfect rankings scoring 1,
invariance to row and query order, evaluation by partitions of queries,
metric strings parsing back, every constructor giving the same result, and
the caller's data left untouched.
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import ranklens as rl

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# nnrbp: 0/0 on a query without a relevant judgment (ndeval prints nan)
NAN_ALLOWED = {"fcp", "kendall_tau", "spearman_rho", "nnrbp"}
ORDERED_TIES = ("trec", "input", "optimistic", "pessimistic")

# the ranking families (other domains have their own entry points)
RANKING = {n: d for n, d in rl.REGISTRY.items() if d.domain == "ranking"}


#: C/W/L models whose gains must lie in [0, 1]: the generated grades (up to 3) fit only
#: under gain=binary
UNIT_GAINS = ("cwl_inst", "cwl_nerr8", "cwl_nerr9", "cwl_nerr10", "cwl_nerr11")


def _metric_names() -> list[str]:
    """Every registry family with a cutoff where it takes one, plus parameter variants."""
    names: list[str] = []
    for family, defn in RANKING.items():
        name = f"{family}(gain=binary)" if family in UNIT_GAINS else family
        if defn.cutoff == "optional":
            names += [name, f"{name}@1", f"{name}@3"]
        elif defn.cutoff == "none":
            names.append(name)
        elif defn.cutoff == "level":
            names += [f"{name}@0", f"{name}@0.3", f"{name}@1"]
        elif defn.cutoff == "multiple":
            names += [f"{name}@0.5", f"{name}@2"]
        else:  # pragma: no cover - no family needs a cutoff today
            names.append(f"{name}@3")
    names += [
        "ndcg(gain=exp2)@3",
        "ndcg(ideal=full)@2",
        "ndcg(ideal=retrieved)@2",
        "ndcg(gain={1:3,2:9})@3",
        "ndcg(gain={3:1,1:4})",
        "dcg(gain=exp2)@3",
        "ap(norm=min_r_k)@2",
        "ap(norm=retrieved)@2",
        "ap(norm=retrieved)",
        "mar(mode=all)@4",
        "mar(mode=all)",
        "f1(beta=0.5)@3",
        "err(max_rel=5)@3",
        "fcp(score_ties=ignore)",
        "fcp(score_ties=half,unjudged=zero)",
        "kendall_tau(unjudged=zero)",
        "spearman_rho(unjudged=zero)",
        "rbp(p=0.5)",
        "rbp(gain={1:2,3:7})",
        "g(gain={2:5})",
        "p(rel=2)@2",
        "utility(a=2,b=-0.5,c=-1,d=0.25)",
        "11pt_avg..25,.5,.75",
        "11pt_avg(levels=[0,0.5,1])",
        "ndcg_cut(gain=exp2)@2",
        "rbp_resid(p=0.5)@2",
        "ndcg_rel(gain=exp2)",
    ]
    return names


METRICS = _metric_names()


def _supports_expected(m: str) -> bool:
    metric = rl.get_metric(m)
    if "expected" not in metric.definition.ties:
        return False
    # ap(norm=retrieved)@k is refused under expected ties (its normaliser is random)
    return not (
        metric.name == "ap"
        and dict(metric.params).get("norm") == "retrieved"
        and metric.k is not None
    )


EXPECTED_METRICS = [m for m in METRICS if _supports_expected(m)]


# ---------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------

GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])
SCORES = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 1.0, 2.0, 2.5, 3.0])
DOCS = [f"d{i}" for i in range(6)]
UNJUDGED = ["u0", "u1", "u2"]


@st.composite
def datasets(draw, max_queries: int = 4):
    """(qrels rows, run rows): run queries are a non-empty subset of the qrels queries."""
    nq = draw(st.integers(1, max_queries))
    qids = [f"q{i}" for i in range(nq)]
    qrels_rows, run_rows = [], []
    for q in qids:
        judged = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=5))
        qrels_rows += [(q, d, draw(GRADES)) for d in judged]
    in_run = draw(st.lists(st.sampled_from(qids), unique=True, min_size=1))
    for q in in_run:
        docs = draw(st.lists(st.sampled_from(DOCS + UNJUDGED), unique=True, min_size=1, max_size=7))
        run_rows += [(q, d, draw(SCORES)) for d in docs]
    return qrels_rows, run_rows


def build(rows, cls):
    q, d, v = zip(*rows, strict=True) if rows else ((), (), ())
    return cls.from_arrays(list(q), list(d), list(v))


def evaluate_rows(qrels_rows, run_rows, metrics, **kw):
    return rl.evaluate(build(qrels_rows, rl.Qrels), build(run_rows, rl.Run), metrics, **kw)


def per_query_arrays(res):
    return {m: np.asarray(res.values[m]) for m in res.metrics}


def assert_same_values(a, b):
    assert a.query_ids == b.query_ids
    for m in a.metrics:
        np.testing.assert_array_equal(a.values[m], b.values[m], err_msg=m)


# ---------------------------------------------------------------------------------------
# ranges
# ---------------------------------------------------------------------------------------


def _check_ranges(res):
    for m in res.metrics:
        defn = res.parsed[m].definition
        v = np.asarray(res.values[m])
        if defn.name not in NAN_ALLOWED:
            assert not np.isnan(v).any(), (m, v)
        if defn.range is None:
            continue
        lo, hi = defn.range
        finite = v[~np.isnan(v)]
        assert (finite >= lo - 1e-12).all() and (finite <= hi + 1e-12).all(), (m, v)


@SETTINGS
@given(
    data=datasets(),
    ties=st.sampled_from(ORDERED_TIES),
    missing=st.sampled_from(["skip", "zero"]),
    rel_threshold=st.sampled_from([1, 2]),
)
def test_values_within_declared_range(data, ties, missing, rel_threshold):
    qrels_rows, run_rows = data
    res = evaluate_rows(
        qrels_rows, run_rows, METRICS, ties=ties, missing=missing, rel_threshold=rel_threshold
    )
    _check_ranges(res)


@SETTINGS
@given(data=datasets(), missing=st.sampled_from(["skip", "zero"]))
def test_values_within_declared_range_expected_ties(data, missing):
    qrels_rows, run_rows = data
    res = evaluate_rows(qrels_rows, run_rows, EXPECTED_METRICS, ties="expected", missing=missing)
    _check_ranges(res)


@SETTINGS
@given(data=datasets(), no_relevant=st.sampled_from(["skip", "nan"]))
def test_no_relevant_skip_and_nan(data, no_relevant):
    qrels_rows, run_rows = data
    metrics = ["p@3", "ndcg@3", "ap", "rr", "num_ret"]
    base = evaluate_rows(qrels_rows, run_rows, metrics)
    res = evaluate_rows(qrels_rows, run_rows, metrics, no_relevant=no_relevant)
    has_rel = {q for q, _, g in qrels_rows if g >= 1}
    for m in metrics:
        got, want = res.per_query(m), base.per_query(m)
        if no_relevant == "skip":
            assert got == {q: v for q, v in want.items() if q in has_rel}
        else:
            assert set(got) == set(want)
            for q, v in got.items():
                assert math.isnan(v) if q not in has_rel else v == want[q]


# ---------------------------------------------------------------------------------------
# perfect rankings
# ---------------------------------------------------------------------------------------

PERFECT_ONE = [
    "p@1",
    "rprec",
    "r",
    "r@50",
    "ndcg",
    "ndcg@1",
    "ndcg@3",
    "ndcg(gain=exp2)@3",
    "ndcg(ideal=full)",
    "ndcg(ideal=retrieved)@2",
    "ndcg(gain=exp2,ideal=full)",
    "ndcg(gain={1:2,2:5,3:9})@4",
    "ap",
    "ap@50",
    "ap(norm=min_r_k)@2",
    "ap(norm=retrieved)@3",
    "rr",
    "rr@1",
    "success@1",
    "bpref",
    "iprec@0",
    "iprec@0.3",
    "iprec@1",
    "11pt_avg",
    "infap",
    "bing",
    "g",
    "ndcg_rel",
    "rndcg",
    "relative_p@1",
    "relative_p@2",
    "relative_p",
]


@st.composite
def perfect_data(draw):
    """Judgments with at least one relevant document per query and a run that ranks
    every judged document by grade (distinct scores), unjudged ones last."""
    nq = draw(st.integers(1, 4))
    qrels_rows, run_rows = [], []
    for qi in range(nq):
        q = f"q{qi}"
        docs = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=6))
        grades = [draw(GRADES) for _ in docs]
        grades[0] = draw(st.sampled_from([1, 2, 3]))
        for j, (d, g) in enumerate(zip(docs, grades, strict=True)):
            qrels_rows.append((q, d, g))
            run_rows.append((q, d, 10.0 * g + j / 100))
        extra = draw(st.lists(st.sampled_from(UNJUDGED), unique=True, max_size=3))
        run_rows += [(q, u, -100.0 - j) for j, u in enumerate(extra)]
    return qrels_rows, run_rows


@SETTINGS
@given(data=perfect_data(), ties=st.sampled_from((*ORDERED_TIES, "expected")))
def test_perfect_ranking_scores_one(data, ties):
    qrels_rows, run_rows = data
    if ties == "expected":
        metrics = [m for m in PERFECT_ONE if _supports_expected(m)]
    else:
        metrics = [*PERFECT_ONE, "fcp"]
    res = evaluate_rows(qrels_rows, run_rows, metrics, ties=ties)
    for m in metrics:
        for q, v in res.per_query(m).items():
            if m == "fcp" and math.isnan(v):
                continue  # no pair of different grades
            # infAP's smoothing epsilon (1e-5) keeps it a hair below 1
            tol = 1e-4 if m == "infap" else 1e-12
            assert v == pytest.approx(1.0, abs=tol), (m, q)


@SETTINGS
@given(data=perfect_data())
def test_reversed_perfect_ranking_is_not_better(data):
    qrels_rows, run_rows = data
    rev = [(q, d, -s) for q, d, s in run_rows]
    metrics = ["ndcg@3", "ap", "rr", "p@2", "dcg@3", "err@3", "rbp"]
    best = evaluate_rows(qrels_rows, run_rows, metrics)
    worst = evaluate_rows(qrels_rows, rev, metrics)
    for m in metrics:
        assert (np.asarray(worst.values[m]) <= np.asarray(best.values[m]) + 1e-12).all(), m


# ---------------------------------------------------------------------------------------
# invariance to the order of rows and queries
# ---------------------------------------------------------------------------------------


@SETTINGS
@given(
    data=datasets(),
    seed=st.integers(0, 2**32 - 1),
    ties=st.sampled_from(["trec", "optimistic", "pessimistic"]),
)
def test_row_order_does_not_matter(data, seed, ties):
    qrels_rows, run_rows = data
    rng = np.random.default_rng(seed)
    shuffled_q = [qrels_rows[i] for i in rng.permutation(len(qrels_rows))]
    shuffled_r = [run_rows[i] for i in rng.permutation(len(run_rows))]
    a = evaluate_rows(qrels_rows, run_rows, METRICS, ties=ties, missing="zero")
    b = evaluate_rows(shuffled_q, shuffled_r, METRICS, ties=ties, missing="zero")
    assert_same_values(a, b)
    ea = evaluate_rows(qrels_rows, run_rows, EXPECTED_METRICS, ties="expected")
    eb = evaluate_rows(shuffled_q, shuffled_r, EXPECTED_METRICS, ties="expected")
    assert_same_values(ea, eb)


@SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**32 - 1))
def test_input_ties_only_depend_on_the_order_within_a_query(data, seed):
    # ties='input' is the exception: row order inside a query matters.  Moving whole
    # queries around (keeping each query's rows in order) must not change anything.
    qrels_rows, run_rows = data
    rng = np.random.default_rng(seed)
    qids = sorted({q for q, _, _ in run_rows})
    order = [qids[i] for i in rng.permutation(len(qids))]
    moved = [row for q in order for row in run_rows if row[0] == q]
    a = evaluate_rows(qrels_rows, run_rows, METRICS, ties="input")
    b = evaluate_rows(qrels_rows, moved, METRICS, ties="input")
    assert_same_values(a, b)


def test_input_ties_do_depend_on_row_order():
    qrels = rl.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    first = rl.Run.from_arrays(["q", "q"], ["a", "b"], [1.0, 1.0])
    second = rl.Run.from_arrays(["q", "q"], ["b", "a"], [1.0, 1.0])
    assert rl.evaluate(qrels, first, "p@1", ties="input")["p@1"] == 1.0
    assert rl.evaluate(qrels, second, "p@1", ties="input")["p@1"] == 0.0
    # the other policies ignore the row order
    for ties in ("trec", "optimistic", "pessimistic", "expected"):
        assert (
            rl.evaluate(qrels, first, "p@1", ties=ties)["p@1"]
            == rl.evaluate(qrels, second, "p@1", ties=ties)["p@1"]
        ), ties


# ---------------------------------------------------------------------------------------
# partitions of queries
# ---------------------------------------------------------------------------------------


@SETTINGS
@given(
    data=datasets(max_queries=5),
    mask=st.lists(st.booleans(), min_size=5, max_size=5),
    ties=st.sampled_from(ORDERED_TIES),
    missing=st.sampled_from(["skip", "zero"]),
)
def test_partitioned_evaluation_concatenates(data, mask, ties, missing):
    qrels_rows, run_rows = data
    qrels, run = build(qrels_rows, rl.Qrels), build(run_rows, rl.Run)
    qids = qrels.query_ids
    part_a = [q for i, q in enumerate(qids) if mask[i]]
    part_b = [q for i, q in enumerate(qids) if not mask[i]]
    run_q = set(run.query_ids)
    assume(set(part_a) & run_q and set(part_b) & run_q)
    kw = {"ties": ties, "missing": missing}
    full = rl.evaluate(qrels, run, METRICS, **kw)
    ra = rl.evaluate(qrels.take_queries(part_a), run.take_queries(part_a), METRICS, **kw)
    rb = rl.evaluate(qrels.take_queries(part_b), run.take_queries(part_b), METRICS, **kw)
    for m in METRICS:
        merged = {**ra.per_query(m), **rb.per_query(m)}
        want = full.per_query(m)
        assert set(merged) == set(want), m
        for q, v in want.items():
            assert merged[q] == pytest.approx(v, rel=1e-12, abs=1e-12, nan_ok=True), (m, q)


def test_take_queries_keeps_only_those_queries():
    run = rl.Run.from_dict({"a": {"x": 1.0}, "b": {"x": 2.0, "y": 1.0}, "c": {"z": 0.0}})
    part = run.take_queries(["b", "c", "nope"])
    assert part.query_ids == ["b", "c"]
    assert len(part) == 3
    assert part.to_dict() == {"b": {"x": 2.0, "y": 1.0}, "c": {"z": 0.0}}
    assert run.query_ids == ["a", "b", "c"]  # the original is unchanged


def test_err_is_partition_invariant():
    # err's scale is fixed (max_rel=4), so a query's value does not depend on the others
    qrels = rl.Qrels.from_dict({"q1": {"a": 1, "b": 0}, "q2": {"c": 3}})
    run = rl.Run.from_dict({"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0}})
    full = rl.evaluate(qrels, run, ["err"]).per_query("err")
    alone = rl.evaluate(qrels.take_queries(["q1"]), run.take_queries(["q1"]), ["err"]).per_query(
        "err"
    )
    assert alone["q1"] == pytest.approx(full["q1"])


# ---------------------------------------------------------------------------------------
# metric strings parse back
# ---------------------------------------------------------------------------------------

ROUND_TRIP_NAMES = [
    "p@5",
    "precision@5",
    "P.5",
    "P_5",
    "set_P",
    "r@100",
    "recall@10",
    "f1@10",
    "f@3",
    "f1(beta=0.5)@10",
    "set_F.0.5",
    "ap",
    "map@10",
    "ap(norm=min_r_k)@10",
    "ap(norm=retrieved,ties=grouped)",
    "ndcg@10",
    "NDCG@10",
    "ndcg(gain=exp2)@10",
    "ndcg(gain={1:3,2:9})",
    "ndcg(gain={1:3,2:9,4:4.5})@23",
    "ndcg(ideal=retrieved)@10",
    "ndcg(ideal=full,gain=exp2)@3",
    "dcg@10",
    "cg@10",
    "err@20",
    "err(max_rel=4)",
    "mrr",
    "rr@10",
    "recip_rank",
    "success@10",
    "success.10",
    "hit_rate@10",
    "arhr@10",
    "mar@10",
    "mar(mode=all)@5",
    "rprec",
    "r-precision",
    "Rprec",
    "bpref",
    "iprec@0.3",
    "iprec_at_recall.0.10",
    "iprec_at_recall_0.00",
    "11pt_avg",
    "fcp",
    "fcp(score_ties=half,unjudged=zero)",
    "kendall_tau",
    "spearman_rho",
    "p(rel=2)@5",
    "num_ret",
    "num_rel_ret",
    "num_q",
    "relative_P.5",
    "set_relative_P",
    "set_map",
    "Rprec_mult_0.20",
    "rprec_mult@0.2",
    "utility(a=2)",
    "infAP",
    "binG",
    "G",
    "G.2=4",
    "rbp",
    "rbp.p=0.8",
    "rbp(p=0.5)@10",
    "unj@5",
    "unj.5",
    "gm_map",
    "gm_bpref",
    "p(ties=expected)@3",
    "ndcg(ties=pessimistic)@3",
    "rbp(gain={1:0.5,2:1})",
    "Rndcg",
]


@pytest.mark.parametrize("name", ROUND_TRIP_NAMES)
def test_metric_string_parses_back(name):
    m = rl.get_metric(name)
    assert rl.get_metric(str(m)) == m
    assert str(rl.get_metric(str(m))) == str(m)


def _value_for(param):
    """A strategy of valid values of one parameter (its default included)."""
    if param.kind == "choice":
        return st.sampled_from(list(param.choices))
    if param.kind in ("number", "int"):
        lo = -1e6 if param.minimum is None else param.minimum
        hi = 1e6 if param.maximum is None else param.maximum
        ints = st.integers(
            math.floor(lo) + 1 if param.open_minimum else math.ceil(lo),
            math.ceil(hi) - 1 if param.open_maximum else math.floor(hi),
        )
        if param.kind == "int":
            return ints
        return st.one_of(
            ints,
            st.floats(
                lo,
                hi,
                allow_nan=False,
                allow_infinity=False,
                exclude_min=param.open_minimum,
                exclude_max=param.open_maximum,
            ),
        )
    if param.kind == "gainmap":
        return st.one_of(
            st.sampled_from(list(param.choices)),
            st.dictionaries(
                st.integers(0, 5),
                st.one_of(st.integers(-5, 20), st.floats(-20, 20, allow_nan=False)),
                min_size=1,
                max_size=4,
            ),
        )
    if param.kind == "numbers":
        return st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=4)
    raise AssertionError(param.kind)  # pragma: no cover


@st.composite
def metric_specs(draw):
    family = draw(st.sampled_from(sorted(RANKING)))
    defn = RANKING[family]
    aliases = [a for a, f in _aliases().items() if f == family]
    spelling = draw(st.sampled_from(sorted(aliases)))
    params = list(defn.all_params)
    chosen = (
        draw(st.lists(st.sampled_from(params), unique_by=lambda p: p.name, max_size=len(params)))
        if params
        else []
    )
    values = {p.name: draw(_value_for(p)) for p in chosen}
    if defn.cutoff == "optional":
        k = draw(st.one_of(st.none(), st.integers(1, 10_000)))
    elif defn.cutoff == "level":
        k = draw(st.floats(0, 1, allow_nan=False))
    elif defn.cutoff == "multiple":
        k = draw(st.floats(1e-3, 100, allow_nan=False))
    elif defn.cutoff == "required":  # the intent-aware metrics (alpha_ndcg@k, ...)
        k = draw(st.integers(1, 10_000))
    else:
        k = None
    return family, spelling, values, k


def _breaks_a_rule(defn, values, k) -> bool:
    """Whether the catalogue's rules refuse these explicit parameter values."""
    params = {p.name: p.default for p in defn.all_params}
    params.update({n: (v.lower() if isinstance(v, str) else v) for n, v in values.items()})
    for rule in defn.rules:
        if not rule.applies(params, k):
            continue
        if rule.needs_cutoff and k is None:
            return True
        for name, allowed in rule.only:
            if name in values and params[name] is not None and params[name] not in allowed:
                return True
    return False


def _aliases() -> dict[str, str]:
    """Every spelling of a family the registry knows: name -> family."""
    out = {}
    for name, defn in RANKING.items():
        for spelling in (name, *defn.aliases):
            out[spelling] = name
    return out


def _spell(spelling, values, k):
    def fmt(v):
        if isinstance(v, dict):
            return "{" + ",".join(f"{a}:{b!r}" for a, b in v.items()) + "}"
        if isinstance(v, list):
            return "[" + ",".join(repr(x) for x in v) + "]"
        return repr(v) if isinstance(v, float) else str(v)

    text = spelling
    if values:
        text += "(" + ",".join(f"{n}={fmt(v)}" for n, v in values.items()) + ")"
    if k is not None:
        text += f"@{fmt(k)}"
    return text


@settings(max_examples=300, deadline=None)
@given(spec=metric_specs())
def test_generated_metric_strings_parse_back(spec):
    family, spelling, values, k = spec
    text = _spell(spelling, values, k)
    if _breaks_a_rule(RANKING[family], values, k):
        with pytest.raises((rl.MetricParameterError, rl.UnsupportedError), match=family):
            rl.get_metric(text)
        return
    m = rl.get_metric(text)
    assert m.name == family
    again = rl.get_metric(str(m))
    assert again == m, (text, str(m))
    assert dict(again.params) == dict(m.params)
    assert again.k == m.k


# names of registry families that start with a trec_eval base name (ndcg_cut, ndcg_rel,
# rbp_resid) take the grammar's @k and (params) like any other
@pytest.mark.parametrize(
    "name",
    [
        "ndcg_cut@10",
        "ndcg_cut(gain=exp2)@10",
        "ndcg_rel(gain=exp2)",
        "ndcg_rel(ties=trec)",
        "rbp_resid@5",
        "rbp_resid(p=0.5)",
    ],
)
def test_registry_names_accept_the_grammar(name):
    m = rl.get_metric(name)
    assert rl.get_metric(str(m)) == m


# explicit parameters equal to the default are kept in the canonical string: they matter,
# since explicit (and trec_eval-pinned) values win over profile defaults
@pytest.mark.parametrize(
    "name", ["ap(norm=r)", "map_cut.10", "ndcg_cut.10", "ndcg(ideal=cut)@5", "rbp(p=0.9)"]
)
def test_explicit_default_parameters_survive_str(name):
    m = rl.get_metric(name)
    assert rl.get_metric(str(m)) == m
    assert m.params  # the explicit / pinned values are there


def test_explicit_default_keeps_its_meaning_under_a_profile():
    qrels = rl.Qrels.from_dict({"q": {"a": 2, "b": 1, "z": 1}})
    run = rl.Run.from_dict({"q": {"a": 1.0, "b": 0.5}})
    pinned = rl.get_metric("ndcg(ideal=cut)@3")
    res = rl.evaluate(qrels, run, [pinned, "ndcg@3"], profile="sklearn", ties="trec")
    assert str(pinned) == "ndcg(ideal=cut)@3"
    # z (relevant, not retrieved) counts in the cut ideal only
    assert res.summary()[str(pinned)] < res.summary()["ndcg@3"] == pytest.approx(1.0)


def test_eleven_point_levels_survive_str():
    m = rl.get_metric("11pt_avg..25,.5,.75")
    assert rl.get_metric(str(m)) == m
    assert rl.get_metric("11pt_avg(levels=[0.25,0.5,0.75])") == m


def test_canonical_names_of_equivalent_spellings_agree():
    assert str(rl.get_metric("P.5")) == str(rl.get_metric("precision@5")) == "p@5"
    assert rl.get_metric("P_5") == rl.get_metric("p@5")
    assert rl.get_metric("recip_rank") == rl.get_metric("MRR") == rl.get_metric("rr")
    assert rl.get_metric("success.10") == rl.get_metric("hit_rate@10")
    assert rl.get_metric("iprec_at_recall.0.10") == rl.get_metric("iprec@0.1")


# ---------------------------------------------------------------------------------------
# every constructor gives the same result
# ---------------------------------------------------------------------------------------

SOME_METRICS = [
    "p@3",
    "r@3",
    "ndcg@3",
    "ap",
    "rr",
    "bpref",
    "err@3",
    "fcp",
    "num_ret",
    "unj@3",
    "kendall_tau",
]


def _constructors(rows, cls):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    value = "relevance" if cls is rl.Qrels else "score"
    q = [r[0] for r in rows]
    d = [r[1] for r in rows]
    v = [r[2] for r in rows]
    nested: dict = {}
    for qq, dd, vv in rows:
        nested.setdefault(qq, {})[dd] = vv
    cols = {"query": q, "doc": d, value: v}
    yield "from_dict", cls.from_dict(nested)
    yield "from_arrays(list)", cls.from_arrays(q, d, v)
    yield "from_arrays(numpy)", cls.from_arrays(np.array(q), np.array(d), np.array(v))
    yield "from_arrays(pyarrow)", cls.from_arrays(pa.array(q), pa.array(d), pa.array(v))
    yield "from_frame(pandas)", cls.from_frame(pd.DataFrame(cols))
    yield "from_frame(polars)", cls.from_frame(pl.DataFrame(cols))
    yield "from_frame(pyarrow)", cls.from_frame(pa.table(cols))
    renamed = pd.DataFrame({"qid": q, "docno": d, "val": v})
    kw = {"relevance" if cls is rl.Qrels else "score": "val"}
    yield "from_frame(renamed)", cls.from_frame(renamed, query="qid", doc="docno", **kw)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets())
def test_all_constructors_agree(data):
    qrels_rows, run_rows = data
    ref = evaluate_rows(qrels_rows, run_rows, SOME_METRICS, missing="zero")
    qrels_all = list(_constructors(qrels_rows, rl.Qrels))
    run_all = list(_constructors(run_rows, rl.Run))
    for (qname, qrels), (rname, run) in zip(qrels_all, run_all, strict=True):
        res = rl.evaluate(qrels, run, SOME_METRICS, missing="zero")
        assert res.query_ids == ref.query_ids, (qname, rname)
        for m in SOME_METRICS:
            np.testing.assert_array_equal(
                res.values[m], ref.values[m], err_msg=f"{qname} {rname} {m}"
            )
    # every Qrels / Run built here holds the same rows and compares equal
    assert all(q.to_dict() == qrels_all[0][1].to_dict() for _, q in qrels_all)
    assert all(r.to_dict() == run_all[0][1].to_dict() for _, r in run_all)
    assert all(q == qrels_all[0][1] for _, q in qrels_all)
    assert all(r == run_all[0][1] for _, r in run_all)


def test_equal_rows_compare_equal_whatever_the_constructor():
    # ids from frames arrive as large_string, from dicts as string: equal all the same
    pl = pytest.importorskip("polars")
    a = rl.Qrels.from_dict({"q0": {"d0": 1, "d1": 0}})
    b = rl.Qrels.from_frame(
        pl.DataFrame({"query": ["q0", "q0"], "doc": ["d0", "d1"], "relevance": [1, 0]})
    )
    assert a.to_dict() == b.to_dict()
    assert a == b


def test_integer_ids_become_their_decimal_text():
    a = rl.Qrels.from_dict({7: {1: 1, 2: 0}})
    b = rl.Qrels.from_arrays(np.array([7, 7]), np.array([1, 2]), np.array([1, 0]))
    c = rl.Qrels.from_dict({"7": {"1": 1, "2": 0}})
    assert a == b == c
    assert a.query_ids == ["7"]


# ---------------------------------------------------------------------------------------
# the caller's data is never mutated nor shared
# ---------------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(data=datasets())
def test_callers_data_not_mutated(data):
    pd = pytest.importorskip("pandas")
    qrels_rows, run_rows = data
    qd: dict = {}
    for q, d, g in qrels_rows:
        qd.setdefault(q, {})[d] = g
    rd: dict = {}
    for q, d, s in run_rows:
        rd.setdefault(q, {})[d] = s
    qd_copy, rd_copy = copy.deepcopy(qd), copy.deepcopy(rd)
    q_arr = np.array([r[0] for r in run_rows])
    d_arr = np.array([r[1] for r in run_rows])
    s_arr = np.array([r[2] for r in run_rows])
    arrays_copy = (q_arr.copy(), d_arr.copy(), s_arr.copy())
    frame = pd.DataFrame(
        {
            "query": [r[0] for r in qrels_rows],
            "doc": [r[1] for r in qrels_rows],
            "relevance": [r[2] for r in qrels_rows],
        }
    )
    frame_copy = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        for ties in ("trec", "expected", "optimistic"):
            rl.evaluate(
                rl.Qrels.from_dict(qd),
                rl.Run.from_dict(rd),
                EXPECTED_METRICS,
                ties=ties,
                missing="zero",
            )
        rl.evaluate(
            rl.Qrels.from_frame(frame),
            rl.Run.from_arrays(q_arr, d_arr, s_arr),
            METRICS,
            score_precision="float32",
            depth=3,
        )
    assert qd == qd_copy
    assert rd == rd_copy
    for a, b in zip((q_arr, d_arr, s_arr), arrays_copy, strict=True):
        np.testing.assert_array_equal(a, b)
    pd.testing.assert_frame_equal(frame, frame_copy)


def test_containers_do_not_share_the_callers_arrays():
    scores = np.array([3.0, 2.0, 1.0])
    docs = ["a", "b", "c"]
    run = rl.Run.from_arrays(["q", "q", "q"], docs, scores)
    qrels = rl.Qrels.from_dict({"q": {"a": 0, "c": 1}})
    before = rl.evaluate(qrels, run, ["rr"])["rr"]
    scores[:] = [0.0, 0.0, 9.0]
    docs[0] = "c"
    assert rl.evaluate(qrels, run, ["rr"])["rr"] == before == pytest.approx(1 / 3)
    assert not run.scores.flags.writeable
    assert not qrels.relevance.flags.writeable
