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
from dataclasses import dataclass
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
from ranklens.ranking.conventions import UNJUDGED_POLICIES
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import index_ahead
from ranklens.ranking.evaluation import Result, evaluate

__all__ = ["InteractionEvaluation", "evaluate_interactions"]


@dataclass(frozen=True)
class InteractionEvaluation:
    """The :class:`~ranklens.Result` over users and what the conventions did."""

    result: Result
    report: dict[str, int]

    def summary(self) -> dict[str, float]:
        return self.result.summary()


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
    # the recommender conventions
    repeats: str = "sum",
    missing: str = "zero",
    duplicates: str = "error",
    unjudged: str = "skip",
    unjudged_users: str | None = None,
    **conventions: Any,
) -> InteractionEvaluation:
    """Evaluate recommendation lists against held-out interactions.

    Parameters
    ----------
    recommendations:
        Table (pandas, polars, pyarrow) with ``user``, ``item`` and either a
        ``score`` column (higher is better) or a ``rank`` column (1 = best).
    interactions:
        Held-out table with ``user``, ``item`` and optionally ``weight``
        (default 1 per interaction).
    metrics:
        Ranking metric names, as for :func:`ranklens.evaluate`.
    repeats:
        Grade of a pair interacted with several times: ``sum`` of weights,
        ``max`` weight, or ``binary`` (1).
    missing:
        Users with interactions but no recommendations: ``zero`` (default; they
        count as 0) or ``skip``.
    duplicates:
        A user-item pair recommended twice: ``error`` (default) or ``first``
        (keep the best position).
    unjudged:
        Users with recommendations but no held-out interactions: ``skip``
        (default; they cannot be judged) or ``zero`` (they are listed in the
        per-user results with 0 for every metric, also counts such as
        ``num_ret``, and count in the mean, as in Spark's ``RankingMetrics``).
        Either way ``report["users_without_interactions"]`` counts them.
        (``unjudged_users=`` and the choice ``exclude`` are the deprecated
        spellings of ``unjudged=`` and ``skip``.)
    conventions:
        Further conventions for :func:`ranklens.evaluate` (``ties``,
        ``rel_threshold``, ...).
    """
    unjudged = check_options(repeats, missing, duplicates, unjudged, unjudged_users)
    qrels, run, merged = interaction_tables(
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

    import warnings

    from ranklens.errors import RanklensWarning

    with warnings.catch_warnings():
        # users without interactions are the documented rule here, counted below
        warnings.simplefilter("ignore", RanklensWarning)
        res = evaluate(qrels, run, metrics, missing=missing, unjudged=unjudged, **conventions)
    report = interaction_report(res.report, len(res.query_ids), merged, run.dropped_duplicates)
    return InteractionEvaluation(res, report)


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
    use_rank = rank is not None
    if not use_rank and score is None:
        raise InputError("give the recommendations' score= or rank= column.")
    rec_cols: dict[str, str] = {"user": user, "item": item}
    rec_cols["rank" if use_rank else "score"] = str(rank if use_rank else score)
    rec = columns_from_frame(recommendations, rec_cols, "recommendations")
    inter_cols = {"user": user, "item": item}
    if weight is not None:
        inter_cols["weight"] = weight
    held = columns_from_frame(interactions, inter_cols, "interactions")

    def values() -> np.ndarray:  # made while the Run codes its ids
        return (
            scores_from_ranks(rec["rank"], "recommendations")
            if use_rank
            else as_float_column(rec["score"], "recommendations score")
        )

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
    run = Run(
        rec["user"],
        rec["item"],
        values,
        name="recommendations",
        duplicates="max" if duplicates == "first" else duplicates,
        _own_values=True,
    )
    return qrels, run, merged


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
