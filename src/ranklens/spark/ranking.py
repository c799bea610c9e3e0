"""``ranklens.spark.evaluate`` and ``ranklens.spark.evaluate_interactions``: the local
evaluations run inside Spark on whole queries (see :mod:`ranklens.spark`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens.errors import InputError
from ranklens.metrics import Metric
from ranklens.ranking.conventions import Conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import check_not_empty, missing_queries_error
from ranklens.ranking.evaluation import Plan, compute_jobs, partial_aggregate, warn_unmatched
from ranklens.recsys.interactions import check_options, interaction_report, interaction_tables
from ranklens.spark._tasks import (
    Partials,
    by_query,
    check_frame,
    column,
    functions,
    id_column,
    in_row_order,
    number_column,
    row_order,
    values_table,
)
from ranklens.spark.result import SparkInteractionEvaluation, SparkResult

__all__ = ["evaluate", "evaluate_interactions"]


def _plan(
    what: str,
    metrics: Any,
    conventions: Conventions | None,
    profile: str | None,
    single: dict[str, Any],
) -> Plan:
    return Plan.make(metrics, conventions, profile, single)  # checks the keywords too


def _partials(plan: Plan) -> Callable[[dict[str, np.ndarray]], Partials]:
    """A task's partial aggregates of its values (each metric's own aggregate; give it
    the values the aggregates read, ``Computed.summary_values`` over the per-query ones)."""
    how = {k: plan.parsed[k].aggregation(plan.conventions) for k in plan.keys}

    def partials(values: dict[str, np.ndarray]) -> Partials:
        return {k: partial_aggregate(values[k], how[k]) for k in how}

    return partials


def _in_input_order(plan: Plan) -> bool:
    """Whether some metric orders tied documents by the rows' order."""
    return any(job.params["ties"] == "input" for job in plan.jobs)


def evaluate(
    qrels: Any,
    run: Any,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    query: str = "query",
    doc: str = "doc",
    relevance: str = "relevance",
    score: str = "score",
    profile: str | None = None,
    conventions: Conventions | None = None,
    partitions: int | None = None,
    shuffle: str = "cogroup",
    **single: Any,
) -> SparkResult:
    """Evaluate a run against qrels held as Spark DataFrames, with the numbers of
    :func:`ranklens.evaluate`.

    Parameters
    ----------
    qrels, run:
        pyspark DataFrames with the columns named by ``query``, ``doc`` and
        ``relevance`` / ``score`` (ids strings or integers, numbers numeric).  Each
        (query, doc) pair once per table (repeated pairs raise
        :class:`~ranklens.errors.DuplicateError`; ``dropDuplicates`` first).
    metrics, profile, conventions, single conventions (``ties=``, ``missing=``, ...):
        As for :func:`ranklens.evaluate`: every metric, profile and convention.
        ``ties='input'`` keeps the order of the run DataFrame's rows (partition by
        partition, as ``monotonically_increasing_id`` numbers them before any shuffle).
    partitions:
        How many parts the queries are split into (one Python task each; default
        ``spark.sql.shuffle.partitions``).  A task holds its queries' rows in memory.
    shuffle:
        ``cogroup`` (default: buckets of queries cogrouped, ``applyInArrow``) or
        ``partition`` (both inputs repartitioned by query, ``mapInArrow``); the same
        numbers, see :mod:`ranklens.spark`.

    Returns
    -------
    SparkResult
        Per-query values as a Spark DataFrame (persisted), the summary computed in
        Spark, the report of :func:`ranklens.evaluate` and :meth:`SparkResult.to_result`.
        Queries of the qrels missing from the run, run queries without judgments and
        queries without a relevant judgment follow the conventions exactly as locally,
        and the same warnings are given.  ``missing='error'`` finds the missing queries
        over all queries first (a left anti join in Spark) and raises the local error;
        other errors found in the data (``no_relevant='error'``, repeated pairs, null
        ids) are raised as the first failing task found them, so their message names
        the queries of that task only.
    """
    what = "ranklens.spark.evaluate"
    sf = functions(what)
    check_frame(qrels, what, "qrels")
    check_frame(run, what, "run")
    plan = _plan(what, metrics, conventions, profile, single)
    left = qrels.select(
        id_column(qrels, query, "query", what).alias("query"),
        id_column(qrels, doc, "doc", what).alias("doc"),
        number_column(qrels, relevance, "relevance", what).alias("relevance"),
    )
    order = [row_order(sf)] if _in_input_order(plan) else []
    right = run.select(
        id_column(run, query, "query", what).alias("query"),
        id_column(run, doc, "doc", what).alias("doc"),
        number_column(run, score, "score", what).alias("score"),
        *order,
    )
    conv, jobs, keys, partials = plan.conventions, plan.jobs, plan.keys, _partials(plan)
    if conv.missing == "error":
        _check_missing(left, right)

    def task(q: pa.Table, r: pa.Table) -> tuple[pa.Table, dict[str, int], Partials]:
        r = in_row_order(r)
        out = compute_jobs(
            Qrels(column(q, "query"), column(q, "doc"), column(q, "relevance")),
            Run(column(r, "query"), column(r, "doc"), column(r, "score")),
            conv,
            jobs,
            batch=True,
        )
        return (
            values_table(out.query_ids, [out.values[k] for k in keys], [query, *keys]),
            out.report,
            partials({**out.values, **out.summary_values}),
        )

    joined = by_query(
        left,
        right,
        "query",
        task,
        [query, *keys],
        partitions=partitions,
        shuffle=shuffle,
        what=what,
    )
    report = dict(joined.counts)
    check_not_empty(report.pop("left_rows", 0), report.pop("right_rows", 0))
    warn_unmatched(report, conv, stacklevel=2)
    return SparkResult(plan, joined, report)


def _check_missing(qrels: Any, run: Any) -> None:
    """``missing='error'`` over all queries: the qrels queries absent from the run, by a
    left anti join in Spark, raise the local error (their number, the first five)."""
    from ranklens.spark._tasks import collect_arrow

    absent = (
        qrels.select("query").distinct().join(run.select("query").distinct(), "query", "left_anti")
    )
    total = absent.count()
    if total:
        first = collect_arrow(absent.orderBy("query").limit(5))["query"].to_pylist()
        raise missing_queries_error(first, total)


def evaluate_interactions(
    recommendations: Any,
    interactions: Any,
    metrics: Any,
    *,
    user: str = "user_id",
    item: str = "item_id",
    score: str | None = "score",
    rank: str | None = None,
    weight: str | None = None,
    repeats: str = "sum",
    missing: str = "zero",
    duplicates: str = "error",
    unjudged: str = "skip",
    unjudged_users: str | None = None,
    partitions: int | None = None,
    shuffle: str = "cogroup",
    **conventions: Any,
) -> SparkInteractionEvaluation:
    """:func:`ranklens.recsys.evaluate_interactions` on pyspark DataFrames: the same
    keywords, conventions and numbers, per user.

    Every task builds its users' judgments and recommendation lists with the local code
    (repeats merged, ranks turned into scores, duplicates refused or kept at their best
    position) and evaluates them with the local kernels; ``partitions`` and ``shuffle``
    are those of :func:`evaluate`.  Returns the per-user :class:`SparkResult` and the
    report of the local function (counts summed over the tasks).  Where a task finds
    bad data (a rank below 1, a null id), the error is the local one and its row number
    counts within the task.
    """
    what = "ranklens.spark.evaluate_interactions"
    sf = functions(what)
    check_frame(recommendations, what, "recommendations")
    check_frame(interactions, what, "interactions")
    unjudged = check_options(repeats, missing, duplicates, unjudged, unjudged_users)
    if rank is None and score is None:
        raise InputError("give the recommendations' score= or rank= column.")
    conv_obj = conventions.pop("conventions", None)
    profile = conventions.pop("profile", None)
    plan = _plan(
        what, metrics, conv_obj, profile, {**conventions, "missing": missing, "unjudged": unjudged}
    )
    value = ("rank", rank) if rank is not None else ("score", str(score))
    order = [row_order(sf)] if _in_input_order(plan) else []
    recs = recommendations.select(
        id_column(recommendations, user, "user", what).alias("user"),
        id_column(recommendations, item, "item", what).alias("item"),
        number_column(recommendations, value[1], value[0], what).alias(value[0]),
        *order,
    )
    held_cols = [
        id_column(interactions, user, "user", what).alias("user"),
        id_column(interactions, item, "item", what).alias("item"),
    ]
    if weight is not None:
        held_cols.append(number_column(interactions, weight, "weight", what).alias("weight"))
    held = interactions.select(*held_cols)
    conv, jobs, keys, partials = plan.conventions, plan.jobs, plan.keys, _partials(plan)

    def task(h: pa.Table, r: pa.Table) -> tuple[pa.Table, dict[str, int], Partials]:
        qrels, run, merged = interaction_tables(
            in_row_order(r),
            h,
            user="user",
            item="item",
            score="score" if value[0] == "score" else None,
            rank="rank" if value[0] == "rank" else None,
            weight="weight" if weight is not None else None,
            repeats=repeats,
            duplicates=duplicates,
        )
        out = compute_jobs(qrels, run, conv, jobs, batch=True)
        counts = {**out.report, "_merged": merged, "_dropped": run.dropped_duplicates}
        return (
            values_table(out.query_ids, [out.values[k] for k in keys], [user, *keys]),
            counts,
            partials({**out.values, **out.summary_values}),
        )

    joined = by_query(
        held, recs, "user", task, [user, *keys], partitions=partitions, shuffle=shuffle, what=what
    )
    report = dict(joined.counts)
    check_not_empty(report.pop("left_rows", 0), report.pop("right_rows", 0))
    merged, dropped = report.pop("_merged", 0), report.pop("_dropped", 0)
    result = SparkResult(plan, joined, report, run_name="recommendations")
    users = report.get("queries_evaluated", 0)
    return SparkInteractionEvaluation(result, interaction_report(report, users, merged, dropped))
