"""``ranklens.gate``: does a candidate system pass the rules, against a baseline?"""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice
from ranklens.errors import (
    InputError,
    MetricNameError,
    MetricParameterError,
    MissingDependencyError,
    ProvenanceError,
)
from ranklens.gates.rules import Rule, as_rules
from ranklens.gates.verdict import RuleOutcome, Verdict
from ranklens.metrics import get_metric
from ranklens.ranking.conventions import Conventions, resolve_conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, aggregate, evaluate
from ranklens.render.table import number, p_value

__all__ = ["gate"]

_TOL = 1e-12  # a drop equal to the allowed one (up to rounding) passes


def gate(
    qrels: Qrels | None,
    candidate: Any,
    baseline: Any = None,
    rules: Any = (),
    *,
    alpha: float | None = None,
    correction: str | None = None,
    ci: str = "t",
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = None,
    allow_different_qrels: bool = False,
    allow_different_conventions: bool = False,
    allow_different_inputs: bool = False,
    **conventions: Any,
) -> Verdict:
    """Check a candidate system against rules: floors, maximum drops from a baseline
    and non-inferiority tests (the kinds of :class:`ranklens.gates.Rule`).

    Parameters
    ----------
    qrels:
        The judgments the runs are evaluated on (None when every system given is a
        result already).
    candidate, baseline:
        A :class:`~ranklens.Run` (evaluated here on ``qrels`` with the rules'
        metrics and ``conventions``, e.g. ``profile="ranx"``), a
        :class:`~ranklens.Result`, a stored record
        (:class:`ranklens.history.StoredRecord`) or its name ``"PATH#ID"``.  A
        gate of ``min`` rules only needs no baseline.
    rules:
        :class:`~ranklens.gates.Rule` objects, or a mapping in the layout of a
        rules file (``{"max_drop": {"ndcg@10": 0.01, "map": "2%"},
        "non_inferiority": {"ndcg@10": 0.005}, "min": {...}}``), or a
        :class:`~ranklens.gates.RuleSet` (:func:`ranklens.gates.read_rules`).
    alpha, correction:
        Level of the one-sided non-inferiority tests, and the multiple-testing
        correction over them (one of :data:`ranklens.comparison.CORRECTIONS`);
        default: the rules file's ``[settings]``, else 0.05 and ``holm``.
        Intervals of the differences have level ``1 - alpha``.
    ci, n_resamples, seed:
        Interval method of the differences (``t``, ``percentile``, ``bca``; see
        :func:`ranklens.comparison.mean_ci`), with its resamples and seed.
    allow_different_qrels, allow_different_conventions, allow_different_inputs:
        The gate refuses (:class:`~ranklens.errors.ProvenanceError`) results
        whose provenance shows other qrels, or other conventions, than the
        candidate's, or other inputs read by the rules' metrics (a recommender's
        training log, catalog, item features or categories:
        :attr:`ranklens.ranking.provenance.Provenance.inputs`); these let it compare
        them anyway (the verdict says so).

    Values are the metric's own aggregate, the number :func:`ranklens.evaluate`
    reports (a mean; a sum for the counts ``num_q``, ``num_rel``, ...; a geometric mean
    for ``gm_map``, ``gm_bpref``).  Differences are candidate minus baseline values, on
    the queries both have a value for (a query missing from one, or undefined in one,
    is left out of both and the verdict's notes say how many).  A drop is a change in
    the metric's worse direction.  Non-inferiority with margin ``m`` tests, per query,
    ``x = s * (candidate - baseline) + m`` (``s`` is +1 when higher is better,
    -1 otherwise) with a one-sided paired t-test of mean(x) > 0
    (:func:`ranklens.comparison.paired_ttest` with ``alternative="greater"``);
    every x equal gives p = 0 when it is positive, else 1.  Intervals and tests are on
    the metric's scale (:mod:`ranklens.comparison.scales`, as in
    :func:`ranklens.compare`): for a sum, ``n`` times the mean difference's interval
    and the margin ``m / n`` per query; for a geometric mean, the per-query
    logarithms, the interval ``baseline * (exp(bound) - 1)`` and the margin
    ``-log(1 - s * m / baseline) * s`` of the log ratio, the baseline's value taken
    as given.

    Examples
    --------
    >>> import ranklens
    >>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}})
    >>> old = ranklens.Run.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d2": 2, "d1": 1}})
    >>> new = ranklens.Run.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d1": 2, "d2": 1}})
    >>> v = ranklens.gate(qrels, new, old, {"max_drop": {"p@1": 0.1}, "min": {"mrr": 0.5}})
    >>> v.passed, [o.passed for o in v.outcomes]
    (False, [False, True])
    >>> print(v.outcomes[0].reason)
    p@1 dropped by 0.5000 (1.0000 -> 0.5000), more than the 0.1000 allowed; 95% CI of the
    difference [-6.8531, 5.8531]
    """
    from ranklens.comparison import stats as st

    ruleset = as_rules(rules)
    if not ruleset.rules:
        raise InputError(
            "gate: no rule given; pass e.g. rules={'max_drop': {'ndcg@10': "
            "0.01}} (command line: --max-drop ndcg@10=0.01)."
        )
    alpha = st.check_alpha(alpha if alpha is not None else (ruleset.alpha or 0.05))
    correction = st.check_correction(correction or ruleset.correction or "holm", "gate")
    check_choice("ci", ci, st.CI_METHODS)
    rng = st.resolve_rng(seed)
    need_base = [r for r in ruleset.rules if r.needs_baseline]
    for r in need_base:
        if get_metric(r.metric).definition.higher_is_better is None:
            raise MetricParameterError(
                f"{r}: {r.metric} is a count with no better direction, so it cannot "
                "drop or be inferior; use a min rule for it."
            )
    if need_base and baseline is None:
        raise InputError(
            f"gate: the rule(s) {', '.join(str(r) for r in need_base)} compare "
            "with a baseline; pass baseline= (command line: --baseline RUN)."
        )
    metrics = list(dict.fromkeys(r.metric for r in ruleset.rules))
    if conventions:  # checked (names, values) before any evaluation
        _given_conventions(conventions)
    cand = _as_result(candidate, "candidate", qrels, metrics, conventions)
    base = (
        None if baseline is None else _as_result(baseline, "baseline", qrels, metrics, conventions)
    )
    if conventions and not isinstance(candidate, Run) and not isinstance(baseline, Run):
        _check_unused_conventions(
            conventions, {"candidate": cand, **({} if base is None else {"baseline": base})}
        )
    notes = (
        []
        if base is None
        else _check_provenance(cand, base, allow_different_qrels, allow_different_conventions)
        + _check_inputs(cand, base, metrics, allow_different_inputs)
    )
    outcomes: list[RuleOutcome] = []
    tests: list[tuple[int, float]] = []  # (outcome index, raw p) of the NI rules
    for rule in ruleset.rules:
        key = _key(cand, rule.metric, "candidate")
        how = cand.aggregation(key)
        value = aggregate(np.asarray(cand.aggregated_values(key)), how)  # evaluate's number
        if rule.kind == "min":
            outcomes.append(_floor(rule, value))
            continue
        assert base is not None
        c, b, left = _paired(cand, key, base, _key(base, rule.metric, "baseline"))
        if len(c) == 0:
            raise _nothing_in_common(cand, base, rule.metric)
        if left:
            notes.append(
                f"{rule.metric}: {left} queries without a value in both systems were "
                f"left out of the comparison ({len(c)} compared)."
            )
        outcome, p, no_ci = _compared(rule, value, c, b, how, alpha, ci, n_resamples, rng)
        if no_ci and no_ci not in notes:
            notes.append(no_ci)
        if p is not None:
            tests.append((len(outcomes), p))
        outcomes.append(outcome)
    if tests:
        adjusted = st.correct([p for _, p in tests], correction, alpha)
        for (i, p), padj in zip(tests, adjusted, strict=True):
            outcomes[i] = _decide_ni(outcomes[i], p, float(padj), alpha, correction)
    settings: dict[str, Any] = {"alpha": alpha, "ci": ci}
    if any(r.kind == "non_inferiority" for r in ruleset.rules):  # only what was used
        settings.update(correction=correction, test="paired t-test, one-sided (non-inferiority)")
    if ci != "t":
        settings.update(n_resamples=n_resamples, seed=seed if isinstance(seed, int) else None)
    return Verdict(
        passed=all(o.passed for o in outcomes),
        outcomes=tuple(outcomes),
        candidate=cand.run_name or "candidate",
        baseline=None if base is None else (base.run_name or "baseline"),
        settings=settings,
        provenance={"candidate": _prov(cand), "baseline": None if base is None else _prov(base)},
        notes=tuple(notes),
        results={"candidate": cand, **({} if base is None else {"baseline": base})},
    )


# ---------------------------------------------------------------------------- inputs


def _as_result(
    obj: Any, what: str, qrels: Qrels | None, metrics: list[str], conventions: dict[str, Any]
) -> Result:
    if isinstance(obj, Run):
        if qrels is None:
            raise InputError(f"gate: the {what} is a Run; pass the qrels to evaluate it.")
        return evaluate(qrels, obj, metrics, **conventions)
    from ranklens.history.store import StoredRecord, load_ref

    if isinstance(obj, str):
        obj = load_ref(obj)
    if isinstance(obj, StoredRecord):
        obj = obj.result()
    if not isinstance(obj, Result):
        raise InputError(
            f"gate: the {what} must be a ranklens.Run, a ranklens.Result or a "
            f"stored record ('results.db#3'), got {type(obj).__name__}."
        )
    return obj


def _check_unused_conventions(conventions: dict[str, Any], results: dict[str, Result]) -> None:
    """Conventions given when no system is a run evaluated here do nothing: refuse them
    unless every result was evaluated under them."""
    given = _given_conventions(conventions).as_dict()
    for what, res in results.items():
        differ = sorted(k for k, v in given.items() if res.conventions.as_dict().get(k) != v)
        if differ:
            raise InputError(
                f"gate: conventions were given, but no run is evaluated here and the {what} "
                f"({res.run_name or what}) was evaluated under others ({', '.join(differ)} "
                "differ); conventions apply to runs evaluated here. Pass the runs instead, "
                "or leave the conventions out."
            )


def _given_conventions(conventions: dict[str, Any]) -> Conventions:
    """The conventions of ``gate(..., **conventions)``: a profile, a Conventions, single
    ones (as :func:`ranklens.evaluate` takes them)."""
    single = {k: v for k, v in conventions.items() if k not in ("profile", "conventions")}
    return resolve_conventions(conventions.get("conventions"), conventions.get("profile"), single)


def _key(res: Result, metric: str, what: str) -> str:
    """The key under which ``res`` holds ``metric`` (:meth:`Result.metric_key`)."""
    try:
        return res.metric_key(metric)
    except MetricNameError:
        raise MetricNameError(
            f"the {what} ({res.run_name or what}) has no values for {metric!r}; it has "
            f"{list(res.metrics)}. Evaluate it with the rules' metrics."
        ) from None


def _paired(cand: Result, ck: str, base: Result, bk: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Both systems' values on the queries both have a (non-NaN) value for, and how
    many queries of either were left out."""
    cq, bq = np.array(cand.query_ids, dtype=str), np.array(base.query_ids, dtype=str)
    _, ci, bi = np.intersect1d(cq, bq, assume_unique=True, return_indices=True)
    c = np.asarray(cand.aggregated_values(ck), dtype=np.float64)[ci]
    b = np.asarray(base.aggregated_values(bk), dtype=np.float64)[bi]
    ok = ~(np.isnan(c) | np.isnan(b))
    total = len(np.union1d(cq, bq))
    return c[ok], b[ok], int(total - ok.sum())


def _nothing_in_common(cand: Result, base: Result, metric: str) -> InputError:
    """The data error of a comparison with no query to compare: the two results share
    no query, or none with a value of ``metric`` in both."""
    names = (
        f"the candidate ({cand.run_name or 'candidate'}, {len(cand.query_ids)} queries) and "
        f"the baseline ({base.run_name or 'baseline'}, {len(base.query_ids)} queries)"
    )
    if not set(cand.query_ids) & set(base.query_ids):
        return InputError(
            f"gate: {names} have no query in common, so there is nothing to compare; "
            "check that both runs answer the same queries (the same qrels and topics)."
        )
    return InputError(
        f"gate: {names} have no query with a value of {metric} in both (it is undefined "
        "wherever they overlap), so there is nothing to compare; check the qrels and "
        "the conventions for queries without relevant documents."
    )


def _prov(res: Result) -> dict[str, Any] | None:
    return None if res.provenance is None else res.provenance.as_dict()


def _check_provenance(cand: Result, base: Result, allow_qrels: bool, allow_conv: bool) -> list[str]:
    """Refuse results that do not compare; the notes of what was checked or allowed."""
    pc, pb = cand.provenance, base.provenance
    if pc is None or pb is None:
        which = "candidate" if pc is None else "baseline"
        return [
            f"the {which} result carries no provenance, so its qrels and conventions "
            "could not be checked against the other's."
        ]
    notes = []
    same = pc.same_qrels(pb)
    if pc.qrels is None or pb.qrels is None:
        which = "candidate" if pc.qrels is None else "baseline"
        notes.append(
            f"the {which}'s qrels were gone before their fingerprint was read, so "
            "the two results' qrels could not be compared."
        )
    elif same is None:
        notes.append(
            f"the qrels fingerprints differ ({pc.qrels[:12]}: {pc.batches} "
            f"batch(es); {pb.qrels[:12]}: {pb.batches}), and a result evaluated in "
            "batches carries a digest of its batches' fingerprints, so whether the "
            "qrels are the same could not be told."
        )
    elif not same:
        if not allow_qrels:
            raise ProvenanceError(
                f"the candidate and the baseline were evaluated on different qrels (content "
                f"fingerprints {pc.qrels[:12]} and {pb.qrels[:12]}), so their numbers do not "
                "compare; evaluate both on the same qrels, or pass "
                "allow_different_qrels=True to compare them anyway."
            )
        notes.append(
            f"compared despite different qrels (fingerprints {pc.qrels[:12]} and "
            f"{pb.qrels[:12]}), as allowed."
        )
    if pc.conventions_fingerprint != pb.conventions_fingerprint:
        keys = sorted(
            k
            for k in set(pc.conventions) | set(pb.conventions)
            if k != "profile" and pc.conventions.get(k) != pb.conventions.get(k)
        )
        diff = "; ".join(
            f"{k}: {pc.conventions.get(k)!r} vs {pb.conventions.get(k)!r}" for k in keys
        )
        if not allow_conv:
            raise ProvenanceError(
                f"the candidate and the baseline were evaluated under different conventions "
                f"({diff}), so their numbers do not compare; evaluate both under the same "
                "conventions, or pass allow_different_conventions=True to compare them "
                "anyway."
            )
        notes.append(f"compared despite different conventions ({diff}), as allowed.")
    if pc.version != pb.version:
        notes.append(
            f"the candidate was computed by ranklens {pc.version}, the baseline by {pb.version}."
        )
    if pc.run == pb.run and pc.run_form == pb.run_form:
        notes.append("the candidate and the baseline have the same run content.")
    return notes


def _check_inputs(cand: Result, base: Result, metrics: list[str], allow: bool) -> list[str]:
    """Refuse results whose metrics read other inputs besides the qrels (a recommender's
    training log, catalog, ...: the inputs of the metrics' catalogue entries) unless
    ``allow``; the notes of what was allowed or could not be checked."""
    from ranklens.metrics.catalogue import INPUTS

    pc, pb = cand.provenance, base.provenance
    if pc is None or pb is None:
        return []  # said by _check_provenance
    names = [
        i.name
        for m in metrics
        for group in get_metric(m).definition.required_inputs
        for i in group
        if i.name != "held_out"  # the qrels
    ]
    differ, unknown = pc.different_inputs(pb, names)
    notes = []
    if unknown:
        which = "candidate" if not pc.inputs else "baseline"
        notes.append(
            f"the {which} records no fingerprint of its {', '.join(unknown)} (made by a "
            "ranklens that did not record them), so they could not be compared."
        )
    if not differ:
        return notes

    def said(name: str) -> str:
        c, b = pc.inputs.get(name), pb.inputs.get(name)
        if c is None or b is None:
            return f"{name}: read by the {'baseline' if c is None else 'candidate'} only"
        return f"{name}: fingerprints {c[:12]} and {b[:12]}"

    what = "; ".join(said(n) for n in differ)
    if not allow:
        raise ProvenanceError(
            f"the candidate and the baseline were evaluated with different inputs of "
            f"{', '.join(metrics)} ({what}; {INPUTS[differ[0]].name}: "
            f"{INPUTS[differ[0]].doc}), so their numbers do not compare; evaluate both with "
            "the same inputs, or pass allow_different_inputs=True to compare them anyway."
        )
    notes.append(f"compared despite different inputs ({what}), as allowed.")
    return notes


# ---------------------------------------------------------------------------- rules


def _floor(rule: Rule, value: float) -> RuleOutcome:
    t = number(rule.threshold)
    if value != value:
        return RuleOutcome(
            rule, False, f"{rule.metric} is undefined (NaN) for the candidate.", value
        )
    if value >= rule.threshold:
        return RuleOutcome(rule, True, f"{rule.metric} = {number(value)} is at least {t}", value)
    return RuleOutcome(
        rule,
        False,
        f"{rule.metric} = {number(value)} is below the floor {t} "
        f"by {number(rule.threshold - value)}",
        value,
    )


def _compared(
    rule: Rule,
    value: float,
    c: np.ndarray,
    b: np.ndarray,
    how: str,
    alpha: float,
    ci: str,
    n_resamples: int,
    rng: np.random.Generator,
) -> tuple[RuleOutcome, float | None, str | None]:
    """The outcome of a max_drop rule, or a non-inferiority rule's values and raw p-value
    (decided after the correction: :func:`_decide_ni`); and, when the interval of the
    difference was not computed (only a max_drop rule, which is decided without it, goes
    on without the statistics extra), a note that says so."""
    from ranklens.comparison.scales import scale_of
    from ranklens.comparison.stats import mean_ci, paired_ttest

    n = len(c)
    # on the metric's own scale (ranklens.comparison.scales, as compare's): the values
    # are its aggregates; the interval and the test read the per-query terms of that
    # aggregate (logarithms for a geometric mean), mapped back to the values' units
    sc = scale_of(how)
    cm, bm = sc.value(c), sc.value(b)
    d = sc.per_query(c) - sc.per_query(b)
    diff = cm - bm
    lo = hi = float("nan")
    no_ci = None
    if n >= 2:
        try:
            lo, hi = (
                float(sc.as_difference(x, n, bm))
                for x in mean_ci(d, ci, 1 - alpha, n_resamples, rng)
            )
        except MissingDependencyError as exc:
            if rule.kind != "max_drop":  # the non-inferiority test needs the statistics
                raise
            no_ci = f"CI not computed ({exc.package} is not installed): {exc.install}"
    sign = 1.0 if get_metric(rule.metric).definition.higher_is_better else -1.0
    fields = dict(
        candidate=value,
        baseline=bm,
        difference=diff,
        relative_difference=diff / abs(bm) if bm != 0 else float("nan"),
        ci_low=float(lo),
        ci_high=float(hi),
        n_queries=n,
    )
    ci_text = f"{1 - alpha:.0%} CI of the difference [{number(lo)}, {number(hi)}]"
    if rule.kind == "max_drop":
        drop = -sign * diff
        allowed = rule.threshold * abs(bm) if rule.relative else rule.threshold
        limit = (
            f"{number(allowed)} allowed ({rule.threshold * 100:g}% of the baseline)"
            if rule.relative
            else f"{number(allowed)} allowed"
        )
        moved = f"{number(bm)} -> {number(cm)}"
        if drop <= allowed + _TOL:
            what = f"dropped by {number(drop)}" if drop > 0 else f"did not drop ({moved})"
            text = (
                f"{rule.metric} {what}"
                + (f" ({moved})" if drop > 0 else "")
                + f", within the {limit}"
            )
            return RuleOutcome(rule, True, text, **fields), None, no_ci  # type: ignore[arg-type]
        text = f"{rule.metric} dropped by {number(drop)} ({moved}), more than the {limit}"
        if n >= 2 and no_ci is None:  # else the verdict's note says it was not computed
            text += f"; {ci_text}"
        return RuleOutcome(rule, False, text, **fields), None, no_ci  # type: ignore[arg-type]
    x = sign * d + sc.margin(rule.threshold, n, bm, sign)
    if n < 2:
        p = float("nan")
    elif np.all(x == x[0]):
        p = 0.0 if x[0] > 0 else 1.0  # no variance: decided by the sign (t = +-inf)
    else:
        p = paired_ttest(np.zeros(n), x, alternative="greater")
    return RuleOutcome(rule, False, ci_text, **fields), p, None  # type: ignore[arg-type]


def _decide_ni(o: RuleOutcome, p: float, padj: float, alpha: float, correction: str) -> RuleOutcome:
    from dataclasses import replace

    from ranklens._shared.corrections import NAMES

    m = number(o.rule.threshold)
    test = f"one-sided paired t-test p = {p_value(p)}" + (
        "" if correction == "none" else f" ({NAMES[correction]}-adjusted {p_value(padj)})"
    )
    what = f"difference {o.difference:+.4f} over {o.n_queries} queries, {o.reason}"
    if padj != padj:
        return replace(
            o,
            passed=False,
            p_value=p,
            p_adjusted=padj,
            reason=(
                f"{o.metric}: non-inferiority within {m} cannot be tested with {o.n_queries} "
                "query(ies); at least 2 are needed"
            ),
        )
    if padj <= alpha:
        return replace(
            o,
            passed=True,
            p_value=p,
            p_adjusted=padj,
            reason=(
                f"{o.metric} is not worse than the baseline by {m} or more: {what}; {test} <= "
                f"alpha {alpha:g}"
            ),
        )
    return replace(
        o,
        passed=False,
        p_value=p,
        p_adjusted=padj,
        reason=(
            f"{o.metric}: non-inferiority within {m} not shown: {what}; {test} > alpha {alpha:g}"
        ),
    )
