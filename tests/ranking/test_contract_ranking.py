"""The contract every ranking metric of the catalogue passes.

Generated from :data:`ranklens.metrics.catalogue.CATALOGUE` (in the spirit of
scikit-learn's ``metrics/tests/test_common.py``): for every ranking metric x
every allowed value of each of its parameters x every tie policy it allows x
every profile (each setting its own conventions: empty rankings evaluated,
negative grades judged, per-query logarithms, raw RBP gains...), over seeded
random inputs with ties, graded, negative and unjudged grades, queries only in
the qrels, queries only in the run, queries without a relevant judgment and
queries the run names with an empty ranking (judged and not):

* values lie inside the range the catalogue declares under the profile's
  parameters (for raw-gain metrics, the judgments' gains: ``gain_bounds``;
  NaN only where the metric declares it undefined);
* ``evaluate_cutoffs(...)`` equals ``evaluate(..., m@k)`` at every k;
* evaluating two partitions of the queries and concatenating equals
  evaluating all of them;
* the values do not depend on the order of the rows or of the queries;
* every invalid parameter value raises our error naming the metric and the
  parameter; NaN inputs never reach a kernel.

A metric added to the catalogue is covered without touching this file.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from ranklens.metrics.catalogue import CATALOGUE, MetricDef, Param
from ranklens.metrics.registry import Metric
from ranklens.ranking.cutoffs import CUTOFF_FAMILIES
from ranklens.ranking.evaluation import plan_params

RANKING = [d for d in CATALOGUE if d.domain == "ranking"]
# metrics whose value is undefined (NaN) for some queries, by definition
MAY_BE_NAN = {"fcp", "kendall_tau", "spearman_rho"}  # no value: NaN, left out of the mean
PROFILES: list[str | None] = [None, *rl.PROFILES]


# ------------------------------------------------------------------------- the variants


def _sample(p: Param) -> list[Any]:
    """Valid values of one parameter: every choice, representative numbers."""
    if p.kind == "choice":
        return list(p.choices or ())
    if p.kind == "gainmap":
        return [
            *(p.choices or ()),
            {1: 3.0, 2: 9.0},
            {0: 1.0},
            {0: 0.5, 1: -2.0, 3: 0.0},
            {2: -1.0},
        ]
    if p.kind == "numbers":
        return [(0.0, 0.5, 1.0), (0.25,)]
    lo = p.minimum if p.minimum is not None else -2.0
    hi = p.maximum if p.maximum is not None else lo + 5.0
    if p.open_minimum:  # an excluded end: just inside it
        lo += 0.01
    if p.open_maximum:
        hi -= 0.01
    vals = [lo, hi, (lo + hi) / 2]
    if p.kind == "int":
        vals = [int(np.ceil(v)) for v in vals]
    if p.name == "max_rel":
        vals = [3, 4.5]  # the data's top grade is 3
    if p.name == "p":  # persistence: the ends are degenerate but allowed
        vals = [0.0, 0.5, 0.95, 1.0]
    return sorted(set(vals), key=float)


def _cutoffs(defn: MetricDef) -> list[Any]:
    return {
        "optional": [None, 1, 3, 10],
        "required": [1, 3, 10],
        "none": [None],
        "level": [0.0, 0.3, 1.0],
        "multiple": [0.5, 2.0],
    }[defn.cutoff]


def _variants(defn: MetricDef) -> list[Metric]:
    """The metric with each parameter value in turn (others at their default), at each
    cutoff; combinations the catalogue's rules refuse are left out (tested below)."""
    settings: list[dict[str, Any]] = [{}]
    for p in defn.all_params:
        values = (
            sorted(defn.ties)
            if p.name == "ties"
            else ([0, 1, 2, 2.5] if p.name == "rel" else _sample(p))
        )
        settings += [{p.name: v} for v in values]
    if defn.name == "ndcg":  # the pairs that interact
        settings += [
            {"gain": g, "ideal": i}
            for g in ("exp2", "binary", {1: 2.0, 2: -1.0})
            for i in ("cut", "full", "retrieved")
        ]
        settings += [{"ideal": "k", "ties": "expected"}, {"gain": "binary", "ideal": "k"}]
    if defn.name == "ap":
        settings += [
            {"norm": n, "ties": t}
            for n in ("r", "min_r_k", "retrieved", "k")
            for t in ("grouped", "expected", "input")
        ]
    out = []
    for k in _cutoffs(defn):
        for s in settings:
            m = Metric(defn.name, k, tuple(sorted(s.items())))
            try:
                out.append(rl.get_metric(m))
            except (rl.MetricParameterError, rl.UnsupportedError) as exc:
                assert defn.rules, f"{m._raw()} refused without a catalogue rule: {exc}"
    unique: dict[str, Metric] = {}
    for m in out:
        unique.setdefault(str(m), m)
    return list(unique.values())


VARIANTS = {d.name: _variants(d) for d in RANKING}


def test_every_ranking_metric_has_variants() -> None:
    assert len(RANKING) >= 39
    for name, variants in VARIANTS.items():
        assert variants, name


# ------------------------------------------------------------------------- the data


EMPTY = ("q10", "q12")  # empty rankings in every run: judged (q10), not judged (q12)


def _dataset(seed: int) -> tuple[list[tuple[str, str, float]], list[tuple[str, str, float]]]:
    """Qrels and run rows: graded (-1..3) and binary queries, unjudged retrieved
    documents, tied scores, queries only in the qrels, only in the run, and queries
    whose judgments hold nothing relevant; the run also names :data:`EMPTY`."""
    rng = np.random.default_rng(seed)
    qrels: list[tuple[str, str, float]] = []
    run: list[tuple[str, str, float]] = []
    for q in range(12):
        qid = f"q{q:02d}"
        docs = [f"d{i}" for i in range(int(rng.integers(1, 14)))]
        only_run = q == 11
        if not only_run:
            judged = rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False)
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if q == 3:
                grades = np.minimum(grades, 0)  # nothing relevant
            if q == 4:
                grades = rng.choice([0, 1], size=len(judged))  # binary
            qrels += [(qid, str(d), float(g)) for d, g in zip(judged, grades, strict=True)]
        if q == 10:
            continue  # only in the qrels
        ranked = list(rng.permutation(docs + [f"u{i}" for i in range(int(rng.integers(0, 4)))]))
        ranked = ranked[: int(rng.integers(1, len(ranked) + 1))]
        scores = np.round(rng.normal(size=len(ranked)), 1 if q % 2 else 3)
        run += [(qid, str(d), float(s)) for d, s in zip(ranked, scores, strict=True)]
    return qrels, run


def _tables(
    qrels_rows: list[Any], run_rows: list[Any], empty: Any = EMPTY
) -> tuple[rl.Qrels, rl.Run]:
    """The tables of the rows; the run names the ``empty`` queries without documents."""
    q, d, v = zip(*qrels_rows, strict=True)
    qrels = rl.Qrels.from_arrays(list(q), list(d), list(v))
    q, d, v = zip(*run_rows, strict=True)
    return qrels, rl.Run.from_arrays(list(q), list(d), list(v), empty_queries=list(empty))


def _gain_bounds(qrels_rows: list[Any], params: dict[str, Any]) -> tuple[float, float]:
    """The lowest and highest gain the judgments give under ``params`` (for metrics
    whose range is their gains')."""
    from ranklens.ranking.kernels.graded import gains

    grades = np.array([r[2] for r in qrels_rows], dtype=np.float64)
    g = gains(grades, params.get("gain", "linear"))
    return float(g.min()), float(g.max())


DATA = [_dataset(seed) for seed in (0, 1, 2)]
#: C/W/L models whose gains must lie in [0, 1]: the data's grades (up to 3) fit only
#: under gain=binary
UNIT_GAINS = ("cwl_inst", "cwl_nerr8", "cwl_nerr9", "cwl_nerr10", "cwl_nerr11")


def _fits_data(key: str) -> bool:
    """Whether the data's grades suit the variant (err's scale check and the C/W/L
    gain check refuse the others, naming the parameter)."""
    if key.startswith("err"):
        return "max_rel=4.5" in key
    if key.startswith(UNIT_GAINS):
        return "gain=binary" in key
    return True


def _plannable(
    metrics: list[Metric], profile: str | None, extra: dict[str, Any]
) -> list[tuple[str, Metric]]:
    """The variants a profile can evaluate (a profile default may meet a rule)."""
    conv = rl.Conventions() if profile is None else rl.PROFILES[profile]
    if extra:
        from dataclasses import replace

        conv = replace(conv, **extra)
    out = []
    for m in metrics:
        try:
            plan_params(str(m), m, conv)
        except (rl.MetricParameterError, rl.UnsupportedError):
            continue
        out.append((str(m), m))
    return out


def _evaluate(qrels: rl.Qrels, run: rl.Run, metrics: list[str], **kw: Any) -> rl.Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        return rl.evaluate(qrels, run, metrics, **kw)


# ------------------------------------------------------------------------- the contract


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "default")
@pytest.mark.parametrize("family", sorted(VARIANTS))
def test_values_in_declared_range_and_partition(family: str, profile: str | None) -> None:
    defn = rl.REGISTRY[family]
    conv = rl.Conventions() if profile is None else rl.PROFILES[profile]
    pairs = _plannable(VARIANTS[family], profile, {})
    if not pairs:
        pytest.skip(f"{profile} refuses every variant of {family}")
    keys = [k for k, _ in pairs]
    for qrels_rows, run_rows in DATA:
        qrels, run = _tables(qrels_rows, run_rows)
        try:
            res = _evaluate(qrels, run, keys, profile=profile)
        except rl.MetricParameterError as exc:  # err's scale, C/W/L's gains: the data
            assert ("max_rel" if family == "err" else "gains in [0, 1]") in str(exc), exc
            keys = [k for k in keys if _fits_data(k)]
            if not keys:
                pytest.skip(f"no variant of {family} under {profile} suits the data's grades")
            res = _evaluate(qrels, run, keys, profile=profile)
        for key, metric in pairs:
            if key not in res.values:
                continue
            v = res.values[key]
            params = metric.resolve(conv)
            lo, hi = defn.value_range(params, _gain_bounds(qrels_rows, params)) or (
                -np.inf,
                np.inf,
            )
            finite = v[~np.isnan(v)]
            # a 0/0 (the catalogue's zero_by_zero) is NaN under undefined='nan' only
            if family not in MAY_BE_NAN and not (defn.zero_by_zero and conv.undefined == "nan"):
                assert not np.isnan(v).any(), (key, profile)
        if defn.zero_by_zero:
            zero = _evaluate(qrels, run, keys, profile=profile, undefined="zero")
            for key in keys:
                assert not np.isnan(zero.values[key]).any(), (key, profile, "undefined=zero")
            assert ((finite >= lo - 1e-12) & (finite <= hi + 1e-12)).all(), (
                key,
                profile,
                finite.min(initial=0),
                finite.max(initial=0),
                (lo, hi),
            )

        # partition of the queries = the whole
        ids = sorted({r[0] for r in qrels_rows} | {r[0] for r in run_rows} | set(EMPTY))
        part = set(ids[::2])
        pieces = []
        for inside in (True, False):
            qr = [r for r in qrels_rows if (r[0] in part) == inside]
            rr = [r for r in run_rows if (r[0] in part) == inside]
            if not qr or not rr:
                break
            empty = [q for q in EMPTY if (q in part) == inside]
            pieces.append(_evaluate(*_tables(qr, rr, empty), list(res.metrics), profile=profile))
        else:
            for key in res.metrics:
                whole = res.per_query(key)
                joined = {**pieces[0].per_query(key), **pieces[1].per_query(key)}
                assert joined.keys() == whole.keys(), key
                np.testing.assert_allclose(
                    [joined[q] for q in whole],
                    list(whole.values()),
                    rtol=1e-12,
                    atol=1e-12,
                    err_msg=key,
                )


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "default")
def test_row_and_query_order_do_not_matter(profile: str | None) -> None:
    conv = rl.Conventions() if profile is None else rl.PROFILES[profile]
    metrics = [m for f in sorted(VARIANTS) for m in VARIANTS[f]]
    keys = [k for k, _ in _plannable(metrics, profile, {})]
    keys = [k for k in keys if _fits_data(k)]
    rng = np.random.default_rng(7)
    for qrels_rows, run_rows in DATA[:2]:
        base = _evaluate(*_tables(qrels_rows, run_rows), keys, profile=profile)
        # shuffle the qrels rows freely; the run's queries as blocks (rows tied on score
        # keep their relative order, which ties=input reads)
        qr = [qrels_rows[i] for i in rng.permutation(len(qrels_rows))]
        blocks: dict[str, list[Any]] = {}
        for r in run_rows:
            blocks.setdefault(r[0], []).append(r)
        order = rng.permutation(sorted(blocks))
        if conv.ties == "input":
            rr = [r for q in order for r in blocks[q]]
        else:
            rr = [run_rows[i] for i in rng.permutation(len(run_rows))]
        other = _evaluate(*_tables(qr, rr), keys, profile=profile)
        assert other.query_ids == base.query_ids
        for key in keys:
            if "ties=input" in key and conv.ties != "input":
                continue  # this metric reads the row order on purpose
            np.testing.assert_allclose(
                other.values[key],
                base.values[key],
                rtol=1e-12,
                atol=1e-12,
                err_msg=f"{key} ({profile})",
            )


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "default")
def test_cutoffs_equal_evaluate_at_every_k(profile: str | None) -> None:
    max_k = 12
    names: list[str] = []
    for family in CUTOFF_FAMILIES:
        for m in VARIANTS[family]:
            if m.k is None:
                names.append(str(m))
    # what the profile can evaluate at every cutoff
    usable = []
    for name in names:
        try:
            rl.get_metric(name, every_cutoff=True)
            conv = rl.Conventions() if profile is None else rl.PROFILES[profile]
            plan_params(
                name, rl.get_metric(name, every_cutoff=True), conv, cutoff=np.arange(1, max_k + 1)
            )
        except (rl.MetricParameterError, rl.UnsupportedError):
            continue
        usable.append(name)
    usable = [n for n in usable if _fits_data(n)]
    assert usable
    for qrels_rows, run_rows in DATA:
        qrels, run = _tables(qrels_rows, run_rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rl.RanklensWarning)
            cut = rl.evaluate_cutoffs(qrels, run, usable, max_k, profile=profile)
        at_k = {(n, k): f"{n}@{k}" for n in usable for k in range(1, max_k + 1)}
        res = _evaluate(qrels, run, sorted(set(at_k.values())), profile=profile)
        assert cut.query_ids == res.query_ids
        for (n, k), key in at_k.items():
            np.testing.assert_allclose(
                cut.values[n][:, k - 1],
                res.values[key],
                rtol=1e-12,
                atol=1e-12,
                err_msg=f"{key} ({profile})",
            )
        for n in usable:
            curve = cut.curve(n)
            for k in (1, 5, max_k):
                assert curve[k - 1] == pytest.approx(res[f"{n}@{k}"], nan_ok=True)


# ------------------------------------------------------------------------- bad parameters


def _invalid(p: Param) -> list[Any]:
    if p.kind == "choice":
        return ["bogus", 3, None]
    if p.kind == "gainmap":
        return ["bogus", {-1: 2.0}, {1: float("nan")}, {}, {1: "x"}, [1, 2]]
    if p.kind == "numbers":
        return [[], ["a"], [float("nan")], *([[-0.5], [1.5]] if p.maximum == 1 else [])]
    bad: list[Any] = ["x", float("nan"), float("inf"), True]
    if p.minimum is not None:
        bad.append(p.minimum - 1)
    if p.maximum is not None:
        bad.append(p.maximum + 1)
    if p.kind == "int":
        bad.append(2.5)
    return bad


@pytest.mark.parametrize("family", sorted(VARIANTS))
def test_invalid_parameters_raise_naming_metric_and_parameter(family: str) -> None:
    defn = rl.REGISTRY[family]
    k = _cutoffs(defn)[-1]
    for p in defn.all_params:
        if p.name == "rel":
            bads: list[Any] = ["x", float("nan"), True]
        elif p.name == "ties":
            bads = [
                "bogus",
                *sorted(
                    {"trec", "input", "optimistic", "pessimistic", "expected", "grouped"}
                    - set(defn.ties)
                ),
            ]
        else:
            bads = _invalid(p)
        for bad in bads:
            m = Metric(defn.name, k, ((p.name, bad),))
            with pytest.raises(rl.MetricParameterError) as info:
                rl.get_metric(m)
            assert p.name in str(info.value) and defn.name in str(info.value), str(info.value)
    with pytest.raises(rl.MetricParameterError, match=f"{defn.name}.*nosuch"):
        rl.get_metric(Metric(defn.name, k, (("nosuch", 1),)))


def test_rules_are_enforced_at_parse_time() -> None:
    for text, pattern in [
        ("ap(norm=k)", "needs a cutoff"),
        ("ndcg(ideal=k)", "needs a cutoff"),
        ("ndcg(gain=exp2,ideal=k)@5", "gain=binary"),
        ("ndcg(gain={1:2},ideal=k)@5", "gain=binary"),
    ]:
        with pytest.raises(rl.MetricParameterError, match=pattern):
            rl.get_metric(text)
    # a profile's default meets the rule before any data is read
    qrels, run = _tables(*DATA[0])
    with pytest.raises(rl.MetricParameterError, match="needs a cutoff"):
        rl.evaluate(qrels, run, ["ndcg"], profile="rectools")
    with pytest.raises(rl.UnsupportedError, match="ties=expected"):
        rl.evaluate(qrels, run, ["ap(norm=retrieved)@3"], ties="expected")


def test_nan_inputs_never_reach_a_kernel() -> None:
    with pytest.raises(rl.InputError, match="NaN"):
        rl.Run.from_arrays(["q", "q"], ["a", "b"], [1.0, float("nan")])
    with pytest.raises(rl.InputError, match="NaN"):
        rl.Qrels.from_arrays(["q", "q"], ["a", "b"], [1.0, float("nan")])


def test_registry_does_not_depend_on_imports() -> None:
    import subprocess
    import sys

    code = (
        "import ranklens as r; n = len(r.REGISTRY); import ranklens.classification, "
        "ranklens.clustering, ranklens.detection, ranklens.regression, "
        "ranklens.entity_resolution; print(n, len(r.REGISTRY)); import sys; "
        "print(any(m.startswith('sklearn') for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[0] == out[1] == str(len(CATALOGUE))
    # 'import ranklens' alone loads no scikit-learn
    first = subprocess.run(
        [
            sys.executable,
            "-c",
            "import ranklens, sys; print(any(m.startswith('sklearn') for m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert first == "False"


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "default")
def test_evaluator_batches_equal_one_evaluation(profile: str | None) -> None:
    """Every variant of every ranking metric, under every profile: batches of whole
    queries through ``Evaluator`` give one evaluation's per-query values (to the bit),
    query order, aggregates and report."""
    keys = [k for family in sorted(VARIANTS) for k, _ in _plannable(VARIANTS[family], profile, {})]
    keys = [k for k in keys if not k.startswith(UNIT_GAINS) or _fits_data(k)]
    for qrels_rows, run_rows in DATA:
        whole = _evaluate(*_tables(qrels_rows, run_rows), keys, profile=profile)
        ids = sorted({r[0] for r in qrels_rows} | {r[0] for r in run_rows} | set(EMPTY))
        ev = rl.Evaluator(keys, profile=profile)
        other = rl.Evaluator(keys, profile=profile)
        for i, target in enumerate((ev, ev, other)):
            part = set(ids[i::3])
            qr = [r for r in qrels_rows if r[0] in part]
            rr = [r for r in run_rows if r[0] in part]
            if qr and rr:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # a batch warns nothing; compute() does
                    target.update(*_tables(qr, rr, [q for q in EMPTY if q in part]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rl.RanklensWarning)
            got = ev.merge(other).compute()
        batched = {q for q in ids if any(q == r[0] for r in qrels_rows)}
        if len(got.query_ids) != len(whole.query_ids):  # a batch without judgments or run
            assert set(got.query_ids) < set(whole.query_ids) | batched
            continue
        assert got.query_ids == whole.query_ids
        for key in keys:
            np.testing.assert_array_equal(got.values[key], whole.values[key], err_msg=key)
        np.testing.assert_array_equal(list(got.summary().values()), list(whole.summary().values()))
        assert dict(got.report) == dict(whole.report)


def _uniform_lists(seed: int, ties: bool) -> tuple[rl.Qrels, rl.Run]:
    """Top-n lists as a recommender writes them: integer ids, every query the same
    number of rows, grouped and ranked (no equal scores unless ``ties``)."""
    rng = np.random.default_rng(seed)
    n_q, width = 9, 7
    user = np.repeat(rng.permutation(np.arange(3, 3 + n_q) * 7), width)
    item = np.concatenate([rng.choice(40, size=width, replace=False) for _ in range(n_q)])
    score = np.tile(np.arange(width, 0, -1, dtype=float), n_q)
    if ties:
        score = np.round(score / 3)
    held = rng.random(len(user)) < 0.4
    extra_u = rng.choice(np.unique(user), 6)
    qrels = rl.Qrels.from_arrays(
        np.r_[user[held], extra_u, [999]],
        np.r_[item[held], rng.integers(40, 60, 6), [1]],
        np.r_[rng.choice([-1, 0, 1, 2, 3], held.sum()), rng.choice([1, 2], 6), [1]].astype(float),
    )
    return qrels, rl.Run.from_arrays(user, item, score)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "default")
def test_top_k_rankings_equal_whole_rankings(
    monkeypatch: pytest.MonkeyPatch, profile: str | None
) -> None:
    """Metrics the catalogue marks ``top_k`` are evaluated from each ranking's top k
    only (ordered and judged that deep); every variant at every cutoff gives exactly
    the values of the whole rankings."""
    from ranklens.ranking import evaluation

    metrics = [m for d in RANKING if d.top_k for m in VARIANTS[d.name] if m.k is not None]
    keys = [k for k, _ in _plannable(metrics, profile, {})]
    keys = [k for k in keys if _fits_data(k)]
    datasets = [_tables(q, r) for q, r in DATA] + [
        _uniform_lists(seed, ties) for seed in (0, 1) for ties in (False, True)
    ]
    conv = rl.Conventions() if profile is None else rl.PROFILES[profile]
    cut = 0
    for qrels, run in datasets:
        whole = {}
        with monkeypatch.context() as patch:
            patch.setattr(evaluation, "top_depth", lambda jobs, conv: None)
            for key in keys:
                whole[key] = _evaluate(qrels, run, [key], profile=profile)
        for key in keys:
            plan = evaluation.Plan.make([key], None, profile, {})
            cut += evaluation.top_depth(plan.jobs, conv) is not None
            got = _evaluate(qrels, run, [key], profile=profile)
            assert got.query_ids == whole[key].query_ids, key
            np.testing.assert_array_equal(
                got.values[key], whole[key].values[key], err_msg=f"{key} ({profile})"
            )
    assert cut > 0  # the top-k path was taken


# ------------------------------------------------------------------------- documentation


@pytest.mark.parametrize("defn", RANKING, ids=lambda d: d.name)
def test_every_ranking_entry_documents_its_formula_source_and_example(defn: MetricDef) -> None:
    from tests.helpers import doc_gaps

    assert callable(defn.kernel), f"{defn.name}: {defn.impl} does not import"
    shared = sum(d.impl == defn.impl for d in CATALOGUE) > 1
    gaps = doc_gaps(defn.kernel.__doc__, defn.name, shared)
    assert not gaps, f"{defn.name}: the docstring of {defn.impl} lacks {gaps}"


def test_the_listing_describes_every_ranking_metric() -> None:
    from ranklens.metrics import describe, metric_table

    rows = metric_table("ranking")
    assert [r["name"] for r in rows] == sorted(d.name for d in RANKING)
    for r in rows:
        d = rl.REGISTRY[r["name"]]
        lo, hi = d.range if d.range is not None else (float("-inf"), float("inf"))
        assert (r["min"], r["max"]) == (
            lo if abs(lo) != float("inf") else "-inf",
            hi if abs(hi) != float("inf") else "inf",
        )
        assert r["better"] == {True: "higher", False: "lower", None: "none"}[d.higher_is_better]
        assert r["inputs"] == "" and r["per_query"] is True
        full = describe(r["name"])
        assert [p["name"] for p in full["parameters"]] == [p.name for p in d.all_params]
        assert full["doc"] == d.doc
    # a metric string and a trec_eval name describe their family
    assert describe("ndcg(gain=exp2)@10")["name"] == "ndcg"
    assert describe("ndcg_cut.10")["name"] == "ndcg"
