"""Evaluating recommendations against held-out interactions.

:func:`evaluate_interactions` takes recommendations ``(user, item, score or
rank)`` and held-out interactions ``(user, item[, weight])`` as tables and runs
:func:`ranklens.evaluate` with the recommender conventions made explicit:

* users with held-out interactions but no recommendations score 0 and count
  in the mean (``missing="zero"``; ``"skip"`` leaves them out);
* users with recommendations but no held-out interactions cannot be judged:
  they are counted in ``report["users_without_interactions"]`` and left out
  (``unjudged="skip"``, as :func:`ranklens.evaluate` does with unjudged queries), or
  score 0 on every metric and count in the mean (``"zero"``, as Spark's
  ``RankingMetrics`` does);
* a user-item pair interacted with several times is one relevant item, of
  grade the summed weight (``repeats="sum"``), the largest weight (``"max"``)
  or 1 (``"binary"``);
* a recommendation list given by rank (1 = best) is turned into scores
  ``-rank``; a repeated recommendation of the same item is an error unless
  ``duplicates="first"`` keeps its best position.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy
from ranklens._shared.columns import (
    as_float_column,
    as_id_column,
    column_length,
    scores_from_ranks,
)
from ranklens._shared.deprecation import renamed_choice, renamed_keyword
from ranklens._shared.frames import columns_from_frame
from ranklens._shared.parallel import map_large
from ranklens.errors import InputError
from ranklens.metrics import get_metric
from ranklens.ranking.conventions import UNJUDGED_POLICIES, resolve_conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import index_ahead
from ranklens.ranking.evaluation import Result, evaluate
from ranklens.ranking.provenance import Provenance, conventions_document

__all__ = ["InteractionEvaluation", "evaluate_interactions", "recommendation_run"]


@dataclass(frozen=True)
class InteractionEvaluation:
    """The :class:`~ranklens.Result` over users, the values of the metrics of all lists
    together (``totals``: catalog coverage, entropy, Gini) and what the conventions did
    (``report``: counts; ``notes``: how the inputs were read, in words)."""

    result: Result
    report: dict[str, int]
    totals: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def summary(self) -> dict[str, float]:
        """``{metric: value}`` of every metric: the aggregate over users, or the value
        of all lists together."""
        return {**self.result.summary(), **self.totals}


def _judgments(user: pa.Array, item: pa.Array, weight: np.ndarray, how: str) -> tuple[Qrels, int]:
    """The held-out interactions as qrels, one row per (user, item); returns them and how
    many rows were merged.

    One (user, item) sort (the pair index Qrels build) groups the repeats; the
    weights are summed or maxed per group with ``reduceat``, and the merged rows, in
    (user, item) order, keep that index."""
    from ranklens._shared.sorting import PairIndex, pair_index

    index = pair_index(user, item)
    if index.dup_rows.size == 0:
        w = np.ones_like(weight) if how == "binary" else weight
        return Qrels._indexed(user, item, w, index), 0
    order = np.argsort(index.doc_rank)  # rows in (user, item) order
    is_dup = np.zeros(len(user), dtype=bool)
    is_dup[index.dup_rows] = True
    starts = np.flatnonzero(~is_dup[order])
    w = weight[order]
    agg = np.add.reduceat(w, starts) if how == "sum" else np.maximum.reduceat(w, starts)
    if how == "binary":
        agg = np.ones_like(agg)
    kept = order[starts]
    merged = PairIndex(
        index.query_dict,
        index.query_code[kept],
        np.arange(kept.size, dtype=index.doc_rank.dtype),
        np.zeros(0, np.int64),
    )
    keep = from_numpy(kept)
    return (
        Qrels._indexed(user.take(keep), item.take(keep), agg, merged),
        int(len(user) - starts.size),
    )


def evaluate_interactions(
    recommendations: Any,
    interactions: Any,
    metrics: Any,
    *,
    # the columns
    user: str = "user_id",
    item: str = "item_id",
    score: str | None = "score",
    rank: str | None = None,
    weight: str | None = None,
    # what beyond-accuracy metrics read
    train: Any = None,
    catalog: Any = None,
    item_features: Any = None,
    categories: Any = None,
    category: str = "category",
    k: int | None = None,
    # the recommender conventions
    repeats: str = "sum",
    missing: str = "zero",
    duplicates: str = "error",
    unjudged: str = "skip",
    unjudged_users: str | None = None,
    **conventions: Any,
) -> InteractionEvaluation:
    """Evaluate recommendation lists against held-out interactions, with ranking and
    beyond-accuracy metrics in one call.

    Every table may be a frame (pandas, polars, pyarrow, dict of columns) or a file
    path: CSV, TSV, Parquet or JSON Lines (ids read as text, so ``007`` stays
    ``007``), or a TREC / JSON run (recommendations) or qrels (interactions).

    Parameters
    ----------
    recommendations:
        Table with ``user``, ``item`` and either a ``score`` column (higher is
        better) or a ``rank`` column (1 = best).  With neither ``rank=`` nor another
        ``score=`` given, a table without a ``score`` column but with a ``rank``
        column is read by rank, and ``notes`` says so.
    interactions:
        Held-out table with ``user``, ``item`` and optionally a grade column
        ``weight``; without one every row is a relevant interaction of grade 1
        (implicit feedback).  A TREC / JSON qrels file keeps its grades.  None:
        only metrics that need no held-out interactions (e.g. novelty, coverage).
    metrics:
        Metric names: ranking metrics (as for :func:`ranklens.evaluate`) and
        beyond-accuracy (``recsys``) metrics of the catalogue (``novelty@10``,
        ``ild@10``, ``catalog_coverage@10``, ...) mixed in one list; ``@k`` on a
        beyond-accuracy metric is each user's top ``k``.
    train, catalog, item_features, categories:
        What the beyond-accuracy metrics read besides the lists, as their catalogue
        entries declare (:attr:`ranklens.metrics.MetricDef.inputs`; a metric whose
        input is missing is an :class:`~ranklens.errors.InputError` naming the
        keyword, before any data is read): ``train``, the training interactions
        (columns ``user`` and ``item``: popularity and user profiles); ``catalog``,
        every recommendable item (ids, or a table with the ``item`` column;
        default: the items of ``train``); ``item_features``, a table of the ``item``
        column and numeric feature columns (or ``{item: vector}``, or ``(ids,
        matrix)``); ``categories``, a table of the ``item`` and ``category``
        columns (or ``{item: category}``).
    k:
        The cutoff of every metric given without one that takes one
        (``ndcg`` becomes ``ndcg@10``: its key too).
    repeats:
        Grade of a pair interacted with several times: ``sum`` of weights,
        ``max`` weight, or ``binary`` (1).
    missing:
        Users with interactions but no recommendations: ``zero`` (default; they
        count as 0 on ranking metrics; beyond-accuracy metrics, undefined
        without a list, are NaN for them and left out of their means) or ``skip``.
    duplicates:
        A user-item pair recommended twice: ``error`` (default) or ``first``
        (keep the best position).
    unjudged:
        Users with recommendations but no held-out interactions: ``skip``
        (default; they cannot be judged) or ``zero`` (they are listed in the
        per-user results with 0 for every ranking metric, also counts such as
        ``num_ret``, and count in the mean, as in Spark's ``RankingMetrics``).
        Either way ``report["users_without_interactions"]`` counts them.
        (``unjudged_users=`` and the choice ``exclude`` are the deprecated
        spellings of ``unjudged=`` and ``skip``.)
    conventions:
        Further conventions for :func:`ranklens.evaluate` (``ties``,
        ``rel_threshold``, ``profile``, ...); the beyond-accuracy metrics order
        tied items by the same tie rule.

    Returns
    -------
    InteractionEvaluation
        ``result``: one :class:`~ranklens.Result` with a value per evaluated user
        for every ranking metric and every per-user beyond-accuracy metric;
        ``totals``: the metrics of all lists together (coverage, entropy, Gini);
        ``report`` and ``notes``.  Every metric is computed over the same users:
        the users of the ranking evaluation (with ``interactions``), else every
        recommended user.  A beyond-accuracy metric's mean is exactly what its
        function in :mod:`ranklens.recsys.beyond` returns on those users' lists.

    Examples
    --------
    >>> recs = {"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["a", "b", "a", "c"],
    ...         "rank": [1, 2, 1, 2]}
    >>> held = {"user_id": ["u1", "u2"], "item_id": ["b", "c"]}
    >>> train = {"user_id": ["u3", "u3", "u4", "u4", "u5"], "item_id": ["a", "b", "a", "c", "d"]}
    >>> ev = evaluate_interactions(recs, held, ["mrr", "arp", "catalog_coverage"], train=train)
    >>> ev.summary()  # mrr: hits at rank 2; arp: a 2, b 1, c 1 times in train; a, b, c of 4
    {'mrr': 0.5, 'arp': 1.5, 'catalog_coverage': 0.75}
    >>> ev.notes[0][:44]
    "the recommendations have no 'score' column; "
    """
    from ranklens.recsys import inputs

    unjudged = check_options(repeats, missing, duplicates, unjudged, unjudged_users)
    ranking, beyond = inputs.parse_metrics(metrics, k)
    given = {
        "train": train,
        "catalog": catalog,
        "item_features": item_features,
        "categories": categories,
    }
    check_needs(ranking, beyond, interactions is not None, given)
    tables = read_tables(
        recommendations,
        interactions,
        user=user,
        item=item,
        score=score,
        rank=rank,
        weight=weight,
        repeats=repeats,
        duplicates=duplicates,
    )
    data = beyond_inputs(beyond, given, user=user, item=item, category=category)
    return evaluate_tables(
        tables, ranking, beyond, data, missing=missing, unjudged=unjudged, conventions=conventions
    )


@dataclass(frozen=True)
class Tables:
    """The tables of one recommender evaluation as read: the held-out interactions as
    :class:`Qrels` (None without them), the recommendations as a :class:`Run`, how many
    held-out rows were merged, and the notes on how they were read."""

    qrels: Qrels | None
    run: Run
    merged: int = 0
    notes: tuple[str, ...] = ()


def check_needs(
    ranking: list[tuple[str, Any]],
    beyond: list[tuple[str, Any]],
    held_out: bool,
    given: Mapping[str, Any],
) -> None:
    """Every metric has what it reads, before any data is read: the held-out
    interactions for a ranking metric (and for the beyond-accuracy ones that read
    relevance), the inputs of its catalogue entry; else an :class:`InputError` naming
    the metric and the keyword."""
    from ranklens.recsys import inputs

    if ranking and not held_out:
        raise InputError(
            f"metric {ranking[0][0]!r} needs the held-out interactions; pass interactions=."
        )
    inputs.check_inputs(
        beyond, {"held_out": held_out, **{n: v is not None for n, v in given.items()}}
    )


def read_tables(
    recommendations: Any,
    interactions: Any,
    *,
    user: str,
    item: str,
    score: str | None,
    rank: str | None,
    weight: str | None,
    repeats: str,
    duplicates: str,
) -> Tables:
    """The recommendations and the held-out interactions (frames or files) as
    :class:`Tables`."""
    from ranklens.recsys import inputs

    notes: list[str] = []
    recs = inputs.read_input(recommendations, "recommendations", (user, item), "score")
    score, rank, note = inputs.recommendation_columns(recs, score, rank)
    if note:
        notes.append(note)
    if interactions is None:
        run = recommendation_run(
            recs, user=user, item=item, score=score, rank=rank, duplicates=duplicates
        )
        return Tables(None, run, 0, tuple(notes))
    held, weight = inputs.read_held_out(interactions, user, item, weight)
    qrels, run, merged = interaction_tables(
        recs,
        held,
        user=user,
        item=item,
        score=score,
        rank=rank,
        weight=weight,
        repeats=repeats,
        duplicates=duplicates,
    )
    return Tables(qrels, run, merged, tuple(notes))


def beyond_inputs(
    beyond: list[tuple[str, Any]],
    given: Mapping[str, Any],
    *,
    user: str,
    item: str,
    category: str,
) -> Any:
    """The inputs the beyond-accuracy metrics read (``given``: ``{input name: table,
    path or None}``), read once as :class:`ranklens.recsys.inputs.BeyondInputs`, with
    the fingerprints of those the metrics read; None without such metrics."""
    from ranklens.recsys import inputs

    if not beyond:
        return None
    data = inputs.BeyondInputs(
        None,
        inputs.train_columns(given["train"], user, item),
        inputs.catalog_ids(given["catalog"], item),
        inputs.item_features(given["item_features"], item),
        inputs.item_categories(given["categories"], item, category),
    )
    read = inputs.inputs_read(beyond, {n: v is not None for n, v in given.items()})
    return replace(data, fingerprints=inputs.input_fingerprints(data, read))


def evaluate_tables(
    tables: Tables,
    ranking: list[tuple[str, Any]],
    beyond: list[tuple[str, Any]],
    data: Any,
    *,
    missing: str,
    unjudged: str,
    conventions: Mapping[str, Any],
) -> InteractionEvaluation:
    """:func:`evaluate_interactions` on tables already read (``data``: what
    :func:`beyond_inputs` read; ``tables.qrels`` is the relevance the beyond-accuracy
    metrics read too)."""
    from ranklens.recsys import inputs

    conventions = dict(conventions)
    notes = list(tables.notes)
    qrels, run = tables.qrels, tables.run
    if qrels is not None:
        import warnings

        from ranklens.errors import RanklensWarning

        # without ranking metrics, one cheap one finds the evaluated users
        asked = [m for _, m in ranking] or [get_metric("num_ret")]
        with warnings.catch_warnings():
            # users without interactions are the documented rule here, counted below
            warnings.simplefilter("ignore", RanklensWarning)
            res = evaluate(qrels, run, asked, missing=missing, unjudged=unjudged, **conventions)
        report = interaction_report(
            res.report, len(res.query_ids), tables.merged, run.dropped_duplicates
        )
        conv = res.conventions
        evaluated = res.query_ids
        values = {key: res.values[str(m)] for key, m in ranking}
        run_report: Mapping[str, int] = res.report
    else:
        conv = resolve_conventions(
            conventions.pop("conventions", None), conventions.pop("profile", None), conventions
        )
        evaluated = tuple(run.query_ids)
        values = {}
        report = {
            "users_evaluated": len(evaluated),
            "duplicate_recommendations_dropped": run.dropped_duplicates,
        }
        run_report = {}
    totals: dict[str, float] = {}
    if beyond:
        data = replace(data, qrels=qrels)
        if data.catalog is None and any(
            m.definition.inputs == ("catalog|train",) for _, m in beyond
        ):
            notes.append("the catalog is the items of the training log (train=).")
        # the lists of the evaluated users (every metric is over the same users)
        lists = run if qrels is None else run.take_queries(list(evaluated))
        per_user, totals, rules = inputs.per_user_values(
            beyond, lists, evaluated, data, {"ties": conv.ties}
        )
        values.update(per_user)
        report.update(rules)
    keys = tuple(key for key, m in ranking + beyond if m.definition.per_query)
    parsed = {key: m for key, m in ranking + beyond if m.definition.per_query}
    canonical = tuple(str(m) for _, m in ranking + beyond)
    result = Result(
        metrics=keys,
        query_ids=tuple(evaluated),
        values={key: values[key] for key in keys},
        parsed=parsed,
        conventions=conv,
        report=dict(run_report),
        run_name=run.name,
        provenance=Provenance(
            qrels=qrels,
            run=run,
            run_form="input" if conv.ties == "input" else "canonical",
            metrics=canonical,
            conventions=conventions_document(conv),
            inputs=None if data is None else data.fingerprints,
        ),
    )
    return InteractionEvaluation(result, report, totals, tuple(notes))


def check_options(
    repeats: str, missing: str, duplicates: str, unjudged: str, unjudged_users: str | None = None
) -> str:
    """Check the recommender conventions of :func:`evaluate_interactions` (before any data
    is read) and return ``unjudged`` (its deprecated spellings resolved)."""
    if repeats not in ("sum", "max", "binary"):
        raise InputError(f"repeats={repeats!r} is not known; use 'sum', 'max' or 'binary'.")
    if missing not in ("zero", "skip"):
        raise InputError(f"missing={missing!r} is not known here; use 'zero' or 'skip'.")
    if duplicates not in ("error", "first"):
        raise InputError(f"duplicates={duplicates!r} is not known; use 'error' or 'first'.")
    renamed = {"exclude": "skip"}
    unjudged = renamed_keyword(
        "evaluate_interactions",
        "unjudged_users",
        unjudged_users,
        "unjudged",
        renamed_choice("evaluate_interactions", "unjudged", unjudged, renamed),
        convert=lambda old: renamed.get(old, old),
    )
    if not isinstance(unjudged, str) or unjudged not in UNJUDGED_POLICIES:
        raise InputError(f"unjudged={unjudged!r} is not known; use 'skip' or 'zero'.")
    return unjudged


def interaction_tables(
    recommendations: Any,
    interactions: Any,
    *,
    user: str,
    item: str,
    score: str | None,
    rank: str | None,
    weight: str | None,
    repeats: str,
    duplicates: str,
) -> tuple[Qrels, Run, int]:
    """The held-out interactions as :class:`Qrels` (repeats merged) and the
    recommendations as a :class:`Run` (ranks turned into scores ``-rank``), and how many
    interaction rows were merged; options checked by :func:`check_options`."""
    rec, use_rank = _rec_columns(recommendations, user, item, score, rank)
    inter_cols = {"user": user, "item": item}
    if weight is not None:
        inter_cols["weight"] = weight
    held = columns_from_frame(interactions, inter_cols, "interactions")

    def values() -> np.ndarray:  # made while the Run codes its ids
        return _rec_values(rec, use_rank)

    hu, hi = map_large(
        lambda column, what: as_id_column(column, what, encode=True),
        [(held["user"], "interactions user column"), (held["item"], "interactions item column")],
        column_length(held["user"]),
    )
    n_held = len(hu)
    w = (
        as_float_column(held["weight"], "interactions weight column")
        if weight is not None
        else np.ones(n_held)
    )
    # the qrels first: a large one indexes itself on another thread meanwhile
    qrels, merged = _judgments(hu, hi, w, repeats)
    index_ahead(qrels, doc_keys=pa.types.is_dictionary(hi.type))
    run = _run(rec, values, duplicates)
    return qrels, run, merged


def _run(rec: dict[str, Any], values: Any, duplicates: str) -> Run:
    return Run(
        rec["user"],
        rec["item"],
        values,
        name="recommendations",
        duplicates="max" if duplicates == "first" else duplicates,
        _own_values=True,
    )


def _rec_columns(
    recommendations: Any, user: str, item: str, score: str | None, rank: str | None
) -> tuple[dict[str, Any], bool]:
    """The recommendations' columns (roles user, item and rank or score)."""
    use_rank = rank is not None
    if not use_rank and score is None:
        raise InputError("give the recommendations' score= or rank= column.")
    rec_cols: dict[str, str] = {"user": user, "item": item}
    rec_cols["rank" if use_rank else "score"] = str(rank if use_rank else score)
    return columns_from_frame(recommendations, rec_cols, "recommendations"), use_rank


def _rec_values(rec: dict[str, Any], use_rank: bool) -> np.ndarray:
    return (
        scores_from_ranks(rec["rank"], "recommendations")
        if use_rank
        else as_float_column(rec["score"], "recommendations score")
    )


def recommendation_run(
    recommendations: Any,
    *,
    user: str,
    item: str,
    score: str | None,
    rank: str | None,
    duplicates: str,
) -> Run:
    """The recommendations as a :class:`Run` (ranks turned into scores ``-rank``)."""
    rec, use_rank = _rec_columns(recommendations, user, item, score, rank)
    return _run(rec, lambda: _rec_values(rec, use_rank), duplicates)


def interaction_report(
    report: Mapping[str, int], users_evaluated: int, merged: int, dropped: int
) -> dict[str, int]:
    """The report of :func:`evaluate_interactions` from the evaluation's ``report``."""
    return {
        "users_evaluated": users_evaluated,
        "users_without_recommendations": report["qrels_queries_missing_from_run"],
        "users_without_interactions": report["run_queries_without_judgments"],
        "repeated_interactions_merged": merged,
        "duplicate_recommendations_dropped": dropped,
    }
