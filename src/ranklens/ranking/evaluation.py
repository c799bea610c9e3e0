"""``ranklens.evaluate``: the public entry point for ranking evaluation."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.deps import needs
from ranklens._shared.progress import report as report_progress
from ranklens.errors import InputError, MetricNameError, RanklensWarning
from ranklens.metrics import Metric, get_metric
from ranklens.metrics.catalogue import GM_FLOOR, ORDERED
from ranklens.ranking.conventions import Conventions, resolve_conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import Prepared, prepare
from ranklens.ranking.kernels._segments import require_ties
from ranklens.ranking.provenance import Provenance

__all__ = ["Result", "evaluate"]


def aggregate(values: np.ndarray, how: str) -> float:
    """Mean, geometric mean (trec_eval: floor 1e-5), the exponential of the mean
    (``expmean``: a geometric mean of values that are logarithms already, as
    ``gm_map(values=log)`` gives them) or sum; NaN entries are excluded, unless ``how``
    ends in ``+nan`` (``mean+nan``: a metric's value 0/0 under ``undefined='nan'``),
    where a NaN makes the aggregate NaN, as trec_eval's, pytrec_eval's and ranx's."""
    return finish_aggregate(*partial_aggregate(values, how), how)


def partial_aggregate(values: np.ndarray, how: str) -> tuple[int, float]:
    """What :func:`aggregate` needs of some of the values: how many are defined (not
    NaN; all of them for a ``+nan`` aggregate, whose sum is then NaN) and their sum (of
    logarithms, floored at ``GM_FLOOR``, for ``gmean``).  The parts of several batches
    add up (counts exactly, sums to rounding)."""
    how, keep_nan = _base(how)
    v = summands(values if keep_nan else values[~np.isnan(values)], how)
    # added one after another in query order, as trec_eval adds them: numpy's pairwise
    # sum can round a mean that lies halfway between two printed decimals the other way
    return int(v.size), float(np.add.accumulate(v)[-1]) if v.size else 0.0


def summands(values: np.ndarray, how: str) -> np.ndarray:
    """The per-query terms that the aggregate ``how`` averages or adds: the values
    themselves, or for ``gmean`` their logarithms with trec_eval's floor,
    ``log(max(v, GM_FLOOR))`` (an ``expmean`` metric's values are logarithms already).
    Paired comparisons test these (:mod:`ranklens.comparison.scales`).

    >>> summands(np.array([0.5, 0.0]), "gmean").round(4).tolist()
    [-0.6931, -11.5129]
    """
    if _base(how)[0] == "gmean":
        return np.log(np.maximum(values, GM_FLOOR))
    return values


def finish_aggregate(count: int, total: float, how: str) -> float:
    """The aggregate from :func:`partial_aggregate`'s count and sum (NaN if no value)."""
    how = _base(how)[0]
    if count == 0:
        return float("nan")
    if how == "sum":
        return float(total)
    if how in ("gmean", "expmean"):
        return float(np.exp(total / count))
    return float(total / count)


def _base(how: str) -> tuple[str, bool]:
    """``how`` without its ``+nan`` suffix, and whether it had one."""
    base = how.removesuffix("+nan")
    return base, base != how


@dataclass(frozen=True)
class Result:
    """Per-query values of every metric, their aggregates and how they were made.

    The same type whatever the number of metrics.  Keys are exactly the metric
    strings passed to :func:`evaluate`.  ``provenance`` fingerprints the qrels,
    the run, the metrics and the conventions it was computed from
    (:mod:`ranklens.ranking.provenance`; None for a result built by hand).
    """

    metrics: tuple[str, ...]
    query_ids: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    parsed: Mapping[str, Metric]
    conventions: Conventions
    report: Mapping[str, int] = field(default_factory=dict)
    run_name: str | None = None
    provenance: Provenance | None = field(default=None, compare=False, repr=False)
    # per-query values the aggregate of a metric reads where they are not its per-query
    # values (num_rel(summary=trec) under missing='zero': trec_eval -c's summary)
    summary_values: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False)

    def summary(self) -> dict[str, float]:
        """``{metric: aggregate}`` (mean, or sum / geometric mean where the metric says)."""
        return {m: self[m] for m in self.metrics}

    def __getitem__(self, metric: str) -> float:
        key = self._key(metric)
        return aggregate(self.aggregated_values(key), self.aggregation(key))

    def aggregated_values(self, metric: str) -> np.ndarray:
        """The per-query values that ``metric``'s aggregate reads (one per query, in
        :attr:`query_ids` order): its per-query values, or where the summary reads
        others (``num_rel(summary=trec)`` under ``missing='zero'``) those."""
        key = self._key(metric)
        return self.summary_values.get(key, self.values[key])

    def aggregation(self, metric: str) -> str:
        """How ``metric``'s per-query values aggregate under this result's conventions
        (``mean``, ``gmean``, ``expmean`` or ``sum``, with ``+nan`` where a NaN value
        makes the aggregate NaN; see :func:`aggregate`)."""
        return self.parsed[self._key(metric)].aggregation(self.conventions)

    def metric_key(self, metric: str) -> str:
        """The key under which this result holds ``metric``: the string itself, or the
        key of a metric that parses to the same one (``P.5`` for ``p@5``);
        :class:`~ranklens.errors.MetricNameError` when it holds none."""
        if metric in self.values:
            return metric
        want = get_metric(metric)
        for m, p in self.parsed.items():
            if p == want:
                return m
        raise MetricNameError(
            f"metric {metric!r} was not evaluated; the result has {list(self.metrics)}."
        )

    _key = metric_key

    def per_query(self, metric: str) -> dict[str, float]:
        """``{query id: value}`` of one metric, queries in sorted id order."""
        vals = self.values[self._key(metric)]
        return dict(zip(self.query_ids, vals.tolist(), strict=True))

    def per_query_all(self) -> dict[str, dict[str, float]]:
        """``{metric: {query id: value}}`` for every metric."""
        return {m: self.per_query(m) for m in self.metrics}

    def to_arrow(self) -> Any:
        import pyarrow as pa

        cols: dict[str, Any] = {"query": pa.array(self.query_ids, type=pa.string())}
        for m in self.metrics:
            cols[m] = self.values[m]
        return pa.table(cols)

    def to_frame(self) -> Any:
        """Per-query values as a pandas DataFrame: one row per query, one column
        per metric (requires pandas)."""
        with needs("pandas", "Result.to_frame()"):
            return self.to_arrow().to_pandas().set_index("query")

    def __repr__(self) -> str:
        s = ", ".join(f"{k}={v:.4f}" for k, v in self.summary().items())
        return f"<Result {len(self.query_ids)} queries: {s}>"


def metric_list(metrics: Any) -> list[Any]:
    """``metrics`` as a list: one metric string or Metric, or an iterable of them."""
    if isinstance(metrics, (str, Metric)):
        return [metrics]
    if isinstance(metrics, Iterable):
        return list(metrics)
    raise MetricNameError(
        f"metrics must be a metric string, a Metric or a list of them (e.g. "
        f"['ndcg@10', 'map']), got {type(metrics).__name__}."
    )


def check_tables(qrels: Any, run: Any) -> None:
    """Raise InputError unless ``qrels`` is a Qrels and ``run`` a Run."""
    if not isinstance(qrels, Qrels):
        raise InputError(
            f"qrels must be a ranklens.Qrels, got {type(qrels).__name__}; build one with "
            "Qrels.from_dict, Qrels.from_frame or Qrels.from_arrays."
        )
    if not isinstance(run, Run):
        raise InputError(
            f"run must be a ranklens.Run, got {type(run).__name__}; build one with "
            "Run.from_dict, Run.from_frame or Run.from_arrays."
        )


def _ordering(ties: str) -> str:
    """The sort a tie policy needs (expected/grouped work on the trec order)."""
    return ties if ties in ("input", "optimistic", "pessimistic", "doc_asc") else "trec"


def evaluate(
    qrels: Qrels,
    run: Run,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    profile: str | None = None,
    conventions: Conventions | None = None,
    ties: str | None = None,
    missing: str | None = None,
    no_relevant: str | None = None,
    unjudged: str | None = None,
    rel_threshold: float | None = None,
    depth: int | None = None,
    judged_only: bool | None = None,
    collection_size: int | None = None,
    empty_rankings: str | None = None,
    negative_grades: str | None = None,
    undefined: str | None = None,
    iprec_rounding: str | None = None,
    score_precision: str | None = None,
) -> Result:
    """Evaluate ``run`` against ``qrels`` with every metric in ``metrics``.

    Parameters
    ----------
    qrels, run:
        :class:`~ranklens.Qrels` and :class:`~ranklens.Run`.
    metrics:
        Metric strings (``"ndcg@10"``, ``"map"``, ``"P.5"``, ...) or
        :class:`~ranklens.metrics.Metric` values; one string is accepted too.
    profile, conventions:
        A named profile (``trec_eval``, ``pytrec_eval``, ``ranx``, ``sklearn``,
        ``rectools``, ``replay``, ``spark``; see :mod:`ranklens.ranking.conventions`)
        or a :class:`~ranklens.Conventions`; the keyword arguments after them
        override single conventions (each is documented on
        :class:`~ranklens.Conventions`).

    Returns
    -------
    Result
        Per-query values for every metric, their aggregates, the conventions
        used and a report of how many queries each rule affected.

    Examples
    --------
    >>> import ranklens
    >>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 2, "d2": 0, "d3": 1}})
    >>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}})
    >>> res = ranklens.evaluate(qrels, run, ["p@2", "ndcg_cut.10"])
    >>> res.summary()["p@2"]
    1.0
    """
    check_tables(qrels, run)
    plan = Plan.make(
        metrics,
        conventions,
        profile,
        dict(
            ties=ties,
            missing=missing,
            no_relevant=no_relevant,
            unjudged=unjudged,
            rel_threshold=rel_threshold,
            depth=depth,
            judged_only=judged_only,
            collection_size=collection_size,
            empty_rankings=empty_rankings,
            negative_grades=negative_grades,
            undefined=undefined,
            iprec_rounding=iprec_rounding,
            score_precision=score_precision,
        ),
    )
    out = run_jobs(qrels, run, plan.conventions, plan.jobs, stacklevel=3)
    return plan.result(
        out,
        run.name,
        Provenance.of_evaluation(
            qrels, run, plan.canonical_metrics, plan.conventions, plan.input_order
        ),
    )


@dataclass(frozen=True)
class Plan:
    """What :func:`evaluate` computes, settled before any data is read: the
    conventions, the metric keys as given, the parsed metrics and their jobs."""

    conventions: Conventions
    keys: tuple[str, ...]
    parsed: dict[str, Metric]
    jobs: list[Job]

    @classmethod
    def make(
        cls,
        metrics: Any,
        conventions: Conventions | None,
        profile: str | None,
        overrides: dict[str, Any],
    ) -> Plan:
        conv = resolve_conventions(conventions, profile, overrides)
        names = metric_list(metrics)
        if not names:
            raise MetricNameError("no metric given: pass at least one, e.g. ['ndcg@10', 'map'].")
        keys = [str(m) for m in names]
        if len(set(keys)) != len(keys):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise MetricNameError(f"metric(s) {dup} given more than once.")
        parsed = {key: get_metric(m) for key, m in zip(keys, names, strict=True)}
        jobs = [Job(key, metric, plan_params(key, metric, conv)) for key, metric in parsed.items()]
        return cls(conv, tuple(keys), parsed, jobs)

    def result(
        self, out: Computed, run_name: str | None, provenance: Provenance | None = None
    ) -> Result:
        """The :class:`Result` of computed values."""
        return Result(
            metrics=self.keys,
            query_ids=tuple(out.query_ids.to_pylist()),
            values=out.values,
            parsed=self.parsed,
            conventions=self.conventions,
            report=out.report,
            run_name=run_name,
            provenance=provenance,
            summary_values=out.summary_values,
        )

    @property
    def canonical_metrics(self) -> tuple[str, ...]:
        """The metrics in their canonical spelling (for provenance)."""
        return tuple(str(self.parsed[k]) for k in self.keys)

    @property
    def input_order(self) -> bool:
        """Whether a job ranks tied documents in row order (``ties='input'``), so that
        the run's row order can change a number."""
        return any(job.params["ties"] == "input" for job in self.jobs)


@dataclass(frozen=True)
class Job:
    """One metric to compute: its key, the metric, its resolved parameters and the
    vector of cutoffs the kernel receives (None: the metric's own k)."""

    key: str
    metric: Metric
    params: dict[str, Any]
    k: np.ndarray | None = None


def plan_params(key: str, metric: Metric, conv: Conventions, cutoff: Any = None) -> dict[str, Any]:
    """The parameters ``metric`` is computed with under ``conv``, checked against
    the catalogue (family, tie policy, allowed combinations) before any data is
    touched."""
    defn = metric.definition
    if defn.domain != "ranking":
        raise MetricNameError(
            f"metric {key!r} is a {defn.domain} metric, not a ranking metric; compute it "
            f"with ranklens.{defn.domain}, not ranklens.evaluate."
        )
    params = metric.resolve(conv, cutoff)
    require_ties(f"{defn.name} ({key!r})", params["ties"], tuple(sorted(defn.ties)))
    return params


@dataclass(frozen=True)
class Computed:
    query_ids: pa.Array
    values: dict[str, np.ndarray]
    report: dict[str, int]
    summary_values: dict[str, np.ndarray] = field(default_factory=dict)


def run_jobs(
    qrels: Qrels, run: Run, conv: Conventions, jobs: list[Job], stacklevel: int = 2
) -> Computed:
    """The one evaluation path: prepare the rankings once per ordering, run each
    metric's kernel (with a vector of cutoffs where the job gives one and the
    kernel takes it, else once per cutoff), then apply the conventions' rules
    for queries without relevant documents and run queries without judgments
    (and warn about them: :func:`warn_unmatched`).  Values have one row per query
    (and one column per cutoff for vector jobs)."""
    out = compute_jobs(qrels, run, conv, jobs)
    warn_unmatched(out.report, conv, stacklevel + 1)
    return out


def compute_jobs(
    qrels: Qrels, run: Run, conv: Conventions, jobs: list[Job], *, batch: bool = False
) -> Computed:
    """:func:`run_jobs` without its warnings; ``batch``: a batch of a larger evaluation,
    whose qrels or run may be empty (see :func:`~ranklens.ranking.engine.prepare`)."""
    prepared: dict[str, Prepared] = {}
    values: dict[str, np.ndarray] = {}
    top = top_depth(jobs, conv)
    for done, job in enumerate(jobs):
        report_progress("evaluating", done, len(jobs))
        order = _ordering(job.params["ties"])
        if order not in prepared:
            prepared[order] = prepare(
                qrels,
                run,
                conv if order == conv.ties else _with_ties(conv, order),
                batch=batch,
                top=top,
            )
        prep = prepared[order]
        defn = job.metric.definition
        kernel = defn.kernel
        k = job.metric.k if job.k is None else job.k
        if isinstance(k, np.ndarray) and not defn.vector_k:
            cols = [np.asarray(kernel(prep, int(c), job.params), dtype=np.float64) for c in k]
            v = np.column_stack(cols) if cols else np.zeros((prep.n_queries, 0))
        else:
            v = np.asarray(kernel(prep, k, job.params), dtype=np.float64)
        values[job.key] = np.array(v, dtype=np.float64)  # own, writable copy
    report_progress("evaluating", len(jobs), len(jobs))
    prep = next(iter(prepared.values()))
    if conv.no_relevant == "nan":
        none = prep.num_rel(conv.rel_threshold) == 0
        for key in values:
            values[key][none] = np.nan
    report = dict(prep.report)
    summary_values = _trec_summaries(prep, conv, jobs)
    n = report.get("run_queries_without_judgments", 0)
    query_ids = prep.query_ids
    if n and conv.unjudged == "zero" and prep.unjudged_ids is not None:
        # "0" of a metric whose per-query values are logarithms is log(1e-5)
        floor = {
            job.key: np.log(GM_FLOOR)
            for job in jobs
            if job.metric.definition.aggregate_for(job.params) == "expmean"
        }
        ids = query_ids
        query_ids, values = _with_zero_queries(ids, values, prep.unjudged_ids, floor)
        summary_values = _with_zero_queries(ids, summary_values, prep.unjudged_ids)[1]
        report["run_queries_scored_zero_without_judgments"] = n
        report["queries_evaluated"] = len(query_ids)
    for key in values:
        values[key].setflags(write=False)
    return Computed(query_ids, values, report, summary_values)


def _trec_summaries(prep: Prepared, conv: Conventions, jobs: list[Job]) -> dict[str, np.ndarray]:
    """The per-query values the summaries of ``num_rel(summary=trec)`` read under
    ``missing='zero'``: each query's judgments with a grade > 0, whatever the threshold
    (trec_eval 10 ``-c``: ``te_calc_avg_num_rel`` counts them in the whole qrels)."""
    if conv.missing != "zero":
        return {}
    keys = [
        j.key
        for j in jobs
        if j.metric.definition.name == "num_rel" and j.params.get("summary") == "trec"
    ]
    if not keys:
        return {}
    positive = prep.ideal_seg[prep.ideal_rel > 0]
    counts = np.bincount(positive, minlength=prep.n_queries).astype(np.float64)
    return {key: counts for key in keys}


def top_depth(jobs: list[Job], conv: Conventions) -> int | None:
    """The deepest cutoff of ``jobs`` when every one of them reads only the top ``k``
    of each ranking (the catalogue's ``top_k``: integer cutoffs, a tie policy that
    orders), so that the rankings need ordering and judging only that deep; None when
    some job reads further, or when the conventions cut or filter the rankings
    themselves (``depth``, ``judged_only``)."""
    if conv.depth is not None or conv.judged_only or not jobs:
        return None
    deepest = 0
    for job in jobs:
        defn = job.metric.definition
        k = job.metric.k if job.k is None else job.k
        if (
            not defn.top_k
            or k is None
            or job.params.get("ties") not in ORDERED
            or any(job.params.get(name) == value for name, value in defn.top_k_unless)
        ):
            return None
        cuts = np.atleast_1d(np.asarray(k))
        if cuts.size == 0 or cuts.dtype.kind not in "iu":
            return None
        deepest = max(deepest, int(cuts.max()))
    return deepest if deepest > 0 else None


def warn_unmatched(report: Mapping[str, int], conv: Conventions, stacklevel: int) -> None:
    """Warn when the run shares no query with the qrels, or (``unjudged='skip'``) when
    run queries without judgments were left out."""
    n = report.get("run_queries_without_judgments", 0)
    if report.get("run_queries_matched", 1) == 0:
        warnings.warn(
            "the run shares no query with the qrels, so every query scores as missing "
            f"(missing={conv.missing!r}); check that the query ids match (e.g. 'q1' vs '1') "
            "and that this is the right qrels file.",
            RanklensWarning,
            stacklevel=stacklevel,
        )
    elif n and conv.unjudged == "skip":
        warnings.warn(
            f"{n} run queries have no judgments in the qrels and were not evaluated "
            f"({report['run_rows_without_judged_query']} rows); unjudged='zero' scores them 0.",
            RanklensWarning,
            stacklevel=stacklevel,
        )


def _with_zero_queries(
    query_ids: pa.Array,
    values: dict[str, np.ndarray],
    extra: pa.Array,
    fill: Mapping[str, float] | None = None,
) -> tuple[pa.Array, dict[str, np.ndarray]]:
    """Add the ``extra`` queries (none of them in ``query_ids``) at 0 for every metric
    (``fill``: another value for some metrics), keeping the ids in byte order."""
    ids = pa.concat_arrays([query_ids.cast(pa.large_string()), extra.cast(pa.large_string())])
    order = to_numpy(pc.array_sort_indices(ids))
    fill = fill or {}
    return (
        ids.take(from_numpy(order)),
        {
            k: np.concatenate([v, np.full((len(extra), *v.shape[1:]), fill.get(k, 0.0))])[order]
            for k, v in values.items()
        },
    )


def _with_ties(conv: Conventions, ties: str) -> Conventions:
    from dataclasses import replace

    return replace(conv, ties=ties)
