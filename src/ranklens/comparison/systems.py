"""``ranklens.compare``: several systems, one table, honest statistics."""

from __future__ import annotations

import string
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._shared.corrections import correction_phrase
from ranklens._shared.deps import needs
from ranklens.comparison import stats as st
from ranklens.comparison.scales import Scale, scale_of
from ranklens.errors import InputError, MetricNameError, RanklensWarning
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, evaluate

__all__ = [
    "TIE_TOLERANCE",
    "Comparison",
    "PairTest",
    "compare",
    "evaluated_systems",
    "named_systems",
]

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "recall@100")
_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "Fisher randomisation test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTION_NAMES = st.CORRECTION_NAMES
#: Per-query differences within this are ties (not wins or losses).
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PairTest:
    """One paired comparison: ``system`` against ``other`` on ``metric``.

    ``mean_diff`` is the contrast of the two systems' values on the metric's own scale
    (:mod:`ranklens.comparison.scales`), named by ``contrast``: for a mean the mean
    per-query difference ``system - other``; for a sum (``num_q``, ``num_rel``, ...) the
    difference of the sums (``n`` times the mean difference); for a geometric mean
    (``gm_map``, ``gm_bpref``) the ``ratio`` of the geometric means, ``system / other``
    (1 is no change), tested on the per-query logarithms.  ``diff_ci_low`` and
    ``diff_ci_high`` bound it on the same scale; ``relative`` is the fractional change
    ``(value - other's value) / other's value`` (NaN when that is 0); ``cohens_d`` is on
    the tested per-query terms.  ``wins`` counts the queries where ``system`` is higher
    (by more than 1e-12 on the tested scale), ``losses`` where it is lower, ``ties``
    the rest.
    """

    system: str
    other: str
    metric: str
    n_queries: int
    mean_diff: float
    diff_ci_low: float
    diff_ci_high: float
    relative: float
    cohens_d: float
    p_value: float
    p_adjusted: float
    significant: bool
    wins: int
    ties: int
    losses: int
    contrast: str = "difference"

    @property
    def shift(self) -> float:
        """The contrast as a signed change: the difference, or the log of the ratio."""
        if self.contrast == "ratio":
            return float(np.log(self.mean_diff)) if self.mean_diff > 0 else float("nan")
        return self.mean_diff


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: values, intervals, tests and effect sizes.

    ``means``, ``ci_low`` and ``ci_high`` are (systems x metrics) arrays: each
    system's value of each metric is its own aggregate, the number
    :func:`ranklens.evaluate` reports (a mean, or a sum or geometric mean where the
    metric says: ``aggregates`` names it per metric), on the compared queries;
    ``pairs`` holds every test made (against the baseline, or every pair when
    ``baseline`` is None).  ``test``, ``correction``, ``alpha``, ``ci``,
    ``ci_level``, ``n_resamples`` and ``seed`` record how it was produced.
    """

    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    baseline: str | None
    test: str
    correction: str
    alpha: float
    ci: str
    ci_level: float
    n_resamples: int
    seed: int | None
    n_queries: Mapping[str, int]
    means: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    pairs: tuple[PairTest, ...]
    results: Mapping[str, Result] = field(repr=False, default_factory=dict)
    aggregates: Mapping[str, str] = field(default_factory=dict)

    # ------------------------------------------------------------------ lookups

    @property
    def letters(self) -> dict[str, str]:
        """The superscript letter of each system (a, b, c, ... in order)."""
        return {s: _letter(i) for i, s in enumerate(self.systems)}

    def mean(self, system: str, metric: str) -> float:
        """``system``'s value of ``metric``: its own aggregate over the compared queries
        (a mean, sum or geometric mean, as :func:`ranklens.evaluate` reports it)."""
        return float(self.means[self._si(system), self._mi(metric)])

    value = mean

    def pair(self, system: str, other: str, metric: str) -> PairTest:
        """The test of ``system`` vs ``other`` on ``metric`` (in either order:
        the reverse pair is returned with signs flipped)."""
        for p in self.pairs:
            if p.metric == metric and (p.system, p.other) == (system, other):
                return p
            if p.metric == metric and (p.system, p.other) == (other, system):
                return _reverse(p)
        raise InputError(
            f"no test of {system!r} against {other!r} on {metric!r} was made; "
            f"systems {list(self.systems)}, metrics {list(self.metrics)}, "
            f"baseline {self.baseline!r}."
        )

    def better_than(self, system: str, metric: str) -> list[str]:
        """Systems that ``system`` is significantly better than on ``metric``, in the
        metric's direction (the catalogue's ``higher_is_better``: lower is better
        for e.g. ``num_nonrel_judged_ret``; a count such as ``num_ret`` has no
        better side, so none)."""
        sign = self._direction(metric)
        out = []
        for p in self.pairs:
            if p.metric != metric or not p.significant or sign == 0:
                continue
            if p.system == system and sign * p.shift > 0:
                out.append(p.other)
            elif p.other == system and sign * p.shift < 0:
                out.append(p.system)
        return sorted(out, key=self.systems.index)

    def _direction(self, metric: str) -> int:
        """+1 when higher is better, -1 when lower is, 0 for counts and diagnostics."""
        for res in self.results.values():
            if metric in res.parsed:
                better = res.parsed[metric].definition.higher_is_better
                return 0 if better is None else (1 if better else -1)
        return 1

    def _si(self, system: str) -> int:
        if system not in self.systems:
            raise InputError(f"unknown system {system!r}; the comparison has {list(self.systems)}.")
        return self.systems.index(system)

    def _mi(self, metric: str) -> int:
        if metric not in self.metrics:
            raise MetricNameError(
                f"metric {metric!r} is not in this comparison; it has {list(self.metrics)}."
            )
        return self.metrics.index(metric)

    @property
    def description(self) -> str:
        """One sentence naming the test, correction, alpha and interval."""
        scope = f"against {self.baseline}" if self.baseline is not None else "pairwise"
        ci = {"t": "t", "percentile": "bootstrap percentile", "bca": "bootstrap BCa"}[self.ci]
        seed = (
            f"seed {self.seed}"
            if self.seed is not None
            else "no fixed seed (the resampled numbers vary from run to run)"
        )
        res = (
            f", {self.n_resamples} resamples, {seed}"
            if self.test in ("randomization", "bootstrap") or self.ci != "t"
            else ""
        )
        corrected = correction_phrase(self.correction, len(self.pairs))
        return (
            f"{_TEST_NAMES[self.test]} ({scope}), {corrected}"
            f", alpha {self.alpha:g}; {self.ci_level:.0%} {ci} intervals{res}."
        )

    # ------------------------------------------------------------------ tables

    def to_records(self) -> list[dict[str, Any]]:
        """One dict per (system, metric): mean, interval, marks and, with a
        baseline, the comparison with it."""
        rows = []
        for i, s in enumerate(self.systems):
            for j, m in enumerate(self.metrics):
                row: dict[str, Any] = {
                    "system": s,
                    "metric": m,
                    "n_queries": self.n_queries[m],
                    "mean": float(self.means[i, j]),
                    "ci_low": float(self.ci_low[i, j]),
                    "ci_high": float(self.ci_high[i, j]),
                    "better_than": ",".join(self.better_than(s, m)),
                    "aggregate": self.aggregates.get(m, "mean"),
                }
                if self.baseline is not None:
                    p = None if s == self.baseline else self.pair(s, self.baseline, m)
                    for k in (
                        "mean_diff",
                        "diff_ci_low",
                        "diff_ci_high",
                        "relative",
                        "cohens_d",
                        "p_value",
                        "p_adjusted",
                    ):
                        row[k] = float("nan") if p is None else float(getattr(p, k))
                    row["significant"] = None if p is None else bool(p.significant)
                    for k in ("wins", "ties", "losses"):
                        row[k] = None if p is None else int(getattr(p, k))
                    row["contrast"] = None if p is None else p.contrast
                rows.append(row)
        return rows

    def to_frame(self) -> Any:
        """:meth:`to_records` as a pandas DataFrame (requires pandas)."""
        with needs("pandas", "ranklens.comparison.systems.to_frame"):
            import pandas as pd

        return pd.DataFrame(self.to_records())

    def pairs_frame(self) -> Any:
        """Every test made, one row each (pandas DataFrame)."""
        from dataclasses import asdict

        with needs("pandas", "ranklens.comparison.systems.pairs_frame"):
            import pandas as pd

        cols = list(PairTest.__dataclass_fields__)
        return pd.DataFrame([asdict(p) for p in self.pairs], columns=cols)

    def render(self, fmt: str = "table", color: bool | None = None) -> str:
        """The comparison as text: ``table`` (rich), ``markdown``, ``latex``,
        ``csv`` or ``json`` (see :mod:`ranklens.render.comparison`)."""
        from ranklens.render.comparison import render

        return render(self, fmt, color=color)

    def __str__(self) -> str:
        return self.render("table", color=False)

    def __repr__(self) -> str:
        return (
            f"<Comparison {len(self.systems)} systems x {len(self.metrics)} metrics: "
            f"{self.description}>"
        )


def _letter(i: int) -> str:
    return string.ascii_lowercase[i] if i < 26 else f"s{i + 1}"


def _reverse(p: PairTest) -> PairTest:
    if p.contrast == "ratio":  # other / system
        contrast, low, high = 1 / p.mean_diff, 1 / p.diff_ci_high, 1 / p.diff_ci_low
    else:
        contrast, low, high = -p.mean_diff, -p.diff_ci_high, -p.diff_ci_low
    return PairTest(
        p.other,
        p.system,
        p.metric,
        p.n_queries,
        contrast,
        low,
        high,
        float("nan"),
        -p.cohens_d,
        p.p_value,
        p.p_adjusted,
        p.significant,
        p.losses,
        p.ties,
        p.wins,
        p.contrast,
    )


# ---------------------------------------------------------------------- inputs


def named_systems(runs: Mapping[str, Any] | Sequence[Any]) -> list[tuple[str, Any]]:
    """``runs`` as (name, Run or Result) pairs: a mapping's keys, or each list item's
    name (``Run.name``, ``Result.run_name``, else ``run1``, ``run2``, ...), repeats
    made unique as ``name-2``, ``name-3``; anything but a Run or a Result refused."""
    if isinstance(runs, Mapping):
        items = [(str(k), v) for k, v in runs.items()]
    elif isinstance(runs, (list, tuple)):
        items = []
        for i, r in enumerate(runs, start=1):
            name = (
                getattr(r, "run_name", None) if isinstance(r, Result) else getattr(r, "name", None)
            )
            items.append((name or f"run{i}", r))
        seen: dict[str, int] = {}
        for i, (name, r) in enumerate(items):
            if name in seen:
                seen[name] += 1
                items[i] = (f"{name}-{seen[name]}", r)
            else:
                seen[name] = 1
    else:
        raise InputError(
            f"runs must be a mapping {{name: Run or Result}} or a list of them, "
            f"got {type(runs).__name__}."
        )
    for name, r in items:
        if not isinstance(r, (Run, Result)):
            raise InputError(
                f"system {name!r} is a {type(r).__name__}; pass a ranklens.Run "
                "or a ranklens.Result (the return value of ranklens.evaluate)."
            )
    return items


def evaluated_systems(
    qrels: Qrels | None,
    items: list[tuple[str, Any]],
    metrics: Iterable[str] | str | None,
    conventions: dict[str, Any],
) -> tuple[dict[str, Result], list[str]]:
    """Each named system as a :class:`Result` (a Run evaluated on ``qrels`` under
    ``conventions``, a Result checked to hold every metric) and the metric names: what
    :func:`compare` and the HTML report compare."""
    if (
        metrics is not None
        and not isinstance(metrics, str)
        and (not isinstance(metrics, Iterable) or isinstance(metrics, Mapping))
    ):
        raise InputError(
            f"metrics must be a metric string or a list of them, e.g. "
            f"['ndcg@10', 'map'], got {type(metrics).__name__}."
        )
    names = (
        None
        if metrics is None
        else ([metrics] if isinstance(metrics, str) else [str(m) for m in metrics])
    )
    if names == []:
        raise InputError(
            "metrics is empty; pass at least one metric, e.g. ['ndcg@10'] (or "
            "None for the default ones)."
        )
    out: dict[str, Result] = {}
    for name, r in items:
        if isinstance(r, Result):
            out[name] = r
            continue
        if qrels is None:
            raise InputError(f"system {name!r} is a Run: pass the qrels to evaluate it.")
        out[name] = evaluate(qrels, r, names or list(DEFAULT_METRICS), **conventions)
    if names is None:
        first = next(iter(out.values())).metrics
        names = [m for m in first if all(m in r.values for r in out.values())]
        if not names:
            raise MetricNameError("the results share no metric; pass metrics=[...].")
    for name, res in out.items():
        lacking = [m for m in names if m not in res.values]
        if lacking:
            raise MetricNameError(
                f"system {name!r} has no values for {lacking}; evaluate it "
                "with the same metric strings as the others."
            )
    return out, names


def _matrix(results: Mapping[str, Result], metric: str) -> tuple[np.ndarray, int]:
    """(queries x systems) values on the queries every system has; a query where the metric
    is NaN (undefined) in any system is dropped for all of them; also how many were."""
    res = list(results.values())
    common = set(res[0].query_ids)
    for r in res[1:]:
        common &= set(r.query_ids)
    ids = sorted(common)
    cols = []
    for r in res:
        pos = {q: i for i, q in enumerate(r.query_ids)}
        take = np.fromiter((pos[q] for q in ids), dtype=np.int64, count=len(ids))
        cols.append(np.asarray(r.aggregated_values(metric), dtype=np.float64)[take])
    x = np.column_stack(cols) if ids else np.zeros((0, len(res)))
    undefined = np.isnan(x).any(axis=1)
    return x[~undefined], int(undefined.sum())


def _scale(results: Mapping[str, Result], metric: str) -> Scale:
    """The scale of ``metric``'s aggregate, the same in every system (results evaluated
    under conventions that aggregate it differently do not compare)."""
    hows = {name: r.aggregation(metric) for name, r in results.items()}
    kinds = {h.removesuffix("+nan") for h in hows.values()}
    if len(kinds) > 1:
        raise InputError(
            f"{metric}: the systems' values aggregate differently ({hows}), so their "
            "summaries do not compare; evaluate them under the same conventions (e.g. the "
            "same profile or the same values= parameter)."
        )
    return scale_of(next(iter(hows.values())))


# ---------------------------------------------------------------------- entry point


def compare(
    qrels: Qrels | None,
    runs: Mapping[str, Run | Result] | Sequence[Run | Result],
    metrics: Iterable[str] | str | None = None,
    *,
    baseline: str | None = None,
    test: str = "randomization",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = None,
    ci: str = "t",
    ci_level: float | None = None,
    **conventions: Any,
) -> Comparison:
    """Compare systems on per-query values: values, intervals, paired tests, effects.

    Each system's value of a metric is the number :func:`ranklens.evaluate` reports
    for it: its own aggregate (a mean; a sum for ``num_q``, ``num_rel`` and the other
    counts; a geometric mean for ``gm_map`` and ``gm_bpref``).  Tests, intervals and
    contrasts are on that scale (:mod:`ranklens.comparison.scales`): a sum's contrast
    is the difference of the sums (``n`` times the mean difference; the tests'
    p-values are those of the per-query values), a geometric mean's is the ratio of
    the geometric means, tested and bounded on the per-query logarithms (trec_eval's
    floor 1e-5); :attr:`PairTest.contrast` says which.

    Parameters
    ----------
    qrels:
        The judgments (may be ``None`` when every system is a precomputed
        :class:`~ranklens.Result`).
    runs:
        ``{"bm25": run_a, "dense": run_b, ...}`` (or a list, named by each run's
        ``name``, made unique); values are :class:`~ranklens.Run` (evaluated
        here with ``conventions``, e.g. ``profile="ranx"``, ``missing="zero"``)
        or :class:`~ranklens.Result`.
    metrics:
        Metric strings (default ``ndcg@10 map mrr p@10 recall@100``; for
        Results, the metrics they share).
    baseline:
        Test every other system against this one; ``None`` tests every pair.
    test:
        ``randomization`` (default; Smucker, Allan & Carterette 2007),
        ``t``, ``wilcoxon`` or ``bootstrap`` (see :mod:`ranklens.comparison.stats`).
    correction:
        ``holm`` (default), ``bonferroni``, ``bh``, ``none`` or another of
        :data:`~ranklens.comparison.CORRECTIONS` (the list the online analysis
        takes too), applied over the whole family of tests (every tested pair
        x every metric).
    alpha:
        Significance level of the adjusted p-values.
    n_resamples, seed:
        Resamples of the randomisation / bootstrap test and bootstrap
        intervals; an int seed or a :class:`numpy.random.Generator`.  Random
        numbers are drawn in a fixed order (metric by metric: test, then
        intervals), so a seed fixes every number.
    ci, ci_level:
        Interval method for means and paired differences (``t``,
        ``percentile``, ``bca``) and its level (default ``1 - alpha``).

    Queries: each metric is compared on the queries every system has a value
    for.  A query is left out, for every system at once, when a run lacks it
    (with ``missing="skip"``, the default) or when the metric is undefined
    (NaN) for it in any system -- e.g. FCP or Kendall's tau on a query with a
    single judged document.  The tests stay paired, a
    :class:`~ranklens.RanklensWarning` says how many queries were left out
    and ``Comparison.n_queries`` records how many were used.  (The functions
    of :mod:`ranklens.comparison.stats` themselves never drop anything: a NaN
    per-query value makes that test's p-value and intervals NaN.)  A metric
    with no query left raises :class:`~ranklens.errors.InputError`.

    Examples
    --------
    >>> import ranklens
    >>> from ranklens.comparison import compare
    >>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d1": 1}})
    >>> a = ranklens.Run.from_dict({"q1": {"d1": 1, "d2": 2}, "q2": {"d1": 1, "d2": 2},
    ...                             "q3": {"d1": 1, "d2": 2}})
    >>> b = ranklens.Run.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d1": 2, "d2": 1},
    ...                             "q3": {"d1": 2, "d2": 1}})
    >>> cmp = compare(qrels, {"a": a, "b": b}, ["p@1"], baseline="a", seed=0)
    >>> cmp.mean("b", "p@1"), cmp.pair("b", "a", "p@1").wins
    (0.6666666666666666, 2)
    """
    st._check_choice("test", test, st.TESTS)
    correction = st.check_correction(correction, "compare")
    st._check_choice("ci", ci, st.CI_METHODS)
    alpha = st.check_alpha(alpha)
    level = 1.0 - alpha if ci_level is None else st.check_alpha(ci_level, "ci_level")
    R = st.check_resamples(n_resamples)
    rng = st.resolve_rng(seed)
    items = named_systems(runs)
    if len(items) < 2:
        raise InputError(f"compare needs at least two systems, got {len(items)}.")
    systems = [n for n, _ in items]
    if baseline is not None and baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not one of the systems {systems}.")
    results, metric_names = evaluated_systems(qrels, items, metrics, conventions)

    S, M = len(systems), len(metric_names)
    if baseline is not None:
        b = systems.index(baseline)
        index_pairs = [(i, b) for i in range(S) if i != b]
    else:
        index_pairs = [(j, i) for i in range(S) for j in range(i + 1, S)]
    means = np.full((S, M), np.nan)
    lows = np.full((S, M), np.nan)
    highs = np.full((S, M), np.nan)
    raw: list[dict[str, Any]] = []
    n_queries: dict[str, int] = {}
    total = len(set().union(*(set(r.query_ids) for r in results.values())))
    scales = {m: _scale(results, m) for m in metric_names}
    for j, m in enumerate(metric_names):
        x, undefined = _matrix(results, m)
        n = x.shape[0]
        n_queries[m] = n
        if n < total:
            missing = total - n - undefined
            why = []
            if missing:
                why.append(
                    f"{missing} missing in some system (evaluate with missing='zero' to "
                    "score missing queries as 0)"
                )
            if undefined:
                why.append(f"{undefined} where {m} is undefined (NaN) in some system")
            warnings.warn(
                f"{m}: {total - n} of {total} queries were left out of the comparison, for "
                f"every system: {'; '.join(why)}; the tests use the other {n}.",
                RanklensWarning,
                stacklevel=2,
            )
        if n == 0:
            raise InputError(f"{m}: no query has a value in every system; nothing to compare.")
        sc = scales[m]
        # the tests, intervals and effect sizes read the per-query terms of the metric's
        # own aggregate (logarithms for a geometric mean); a sum's terms are its values
        # (n times their mean is the sum; a paired test's p-value is the same for values
        # all multiplied by n, so they are tested as they are)
        u = sc.per_query(x)
        sys_idx = np.array([p[0] for p in index_pairs])
        oth_idx = np.array([p[1] for p in index_pairs])
        a, bb = u[:, oth_idx], u[:, sys_idx]
        d = bb - a
        pvals = st.paired_pvalues(a, bb, test, R, rng)
        # each system's value is the number evaluate reports (its aggregate, same code)
        values = [sc.value(x[:, i]) for i in range(S)]
        means[:, j] = values
        need_boot = ci != "t" and n >= 2
        both = np.column_stack([u, d])
        boot = st.bootstrap_means(both, R, rng) if need_boot else None
        lo, hi = st.mean_ci(both, ci, level, R, rng, boot=boot)
        lo, hi = sc.from_mean(lo, n), sc.from_mean(hi, n)
        lows[:, j], highs[:, j] = lo[:S], hi[:S]
        effect = st.cohens_d_paired(a, bb)
        for k, (si, oi) in enumerate(index_pairs):
            raw.append(
                dict(
                    system=systems[si],
                    other=systems[oi],
                    metric=m,
                    n_queries=n,
                    mean_diff=sc.contrast_of(values[si], values[oi]),
                    diff_ci_low=float(lo[S + k]),
                    diff_ci_high=float(hi[S + k]),
                    relative=sc.relative(values[si], values[oi]),
                    cohens_d=float(effect[k]),
                    p_value=float(pvals[k]),
                    wins=int((d[:, k] > TIE_TOLERANCE).sum()),
                    losses=int((d[:, k] < -TIE_TOLERANCE).sum()),
                    contrast=sc.contrast,
                )
            )
    adjusted = st.correct([r["p_value"] for r in raw], correction, alpha)
    pairs = tuple(
        PairTest(
            **r,
            p_adjusted=float(p),
            significant=bool(p <= alpha),
            ties=int(r["n_queries"] - r["wins"] - r["losses"]),
        )
        for r, p in zip(raw, adjusted, strict=True)
    )
    return Comparison(
        systems=tuple(systems),
        metrics=tuple(metric_names),
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        ci=ci,
        ci_level=level,
        n_resamples=R,
        seed=int(seed) if isinstance(seed, (int, np.integer)) else None,
        n_queries=n_queries,
        aggregates={m: sc.how.removesuffix("+nan") for m, sc in scales.items()},
        means=means,
        ci_low=lows,
        ci_high=highs,
        pairs=pairs,
        results=results,
    )
