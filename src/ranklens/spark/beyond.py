"""Beyond-accuracy metrics of recommendation lists held as a Spark DataFrame, with the
numbers of :mod:`ranklens.recsys.beyond`.

Each user's top-``k`` list is built in the tasks by the local code
(:func:`ranklens.recsys.beyond._lists.user_lists`: the ranking engine's order, ``ties``
or ``profile`` as locally), on the rows of whole users (``repartition`` by user,
``mapInArrow``).  What needs every user or the training log is computed by Spark
aggregations and is small (one number per item): the slots each item fills (coverage,
entropy, Gini), the distinct training users of each item (novelty), the training
interactions of each item (ARP, long-tail share), the sum of the users' normalised list
vectors (personalisation).  The tasks then finish per user with the local functions.
Per-user values equal the local ones to a few units in the last place (Spark adds the
partial sums of the statistics in an order of its own); counts are exact.

Recommendations are a DataFrame with the columns named by ``user``, ``item`` and
``score`` (higher ranks higher; give ``-rank`` for ranks); the training log a DataFrame
with ``user`` and ``item`` columns.  ``reduction="mean"`` (default) returns the mean
over users (computed in Spark); ``"none"`` the per-user values as a Spark DataFrame
(columns ``user`` and the metric's name).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens.errors import InputError
from ranklens.ranking.data import Run
from ranklens.ranking.evaluation import partial_aggregate
from ranklens.recsys.beyond.coverage import (
    catalog_counts,
    coverage_of,
    entropy_of,
    gini_of,
    shares_of,
    slot_counts,
)
from ranklens.recsys.beyond.diversity import list_vector_sums, personalisation_of
from ranklens.recsys.beyond.popularity import long_tail_of, novelty_of, popularity_of
from ranklens.spark._tasks import (
    Joined,
    Partials,
    by_query,
    check_frame,
    collect_arrow,
    column,
    functions,
    id_column,
    in_row_order,
    number_column,
    row_order,
    values_table,
)

__all__ = [
    "average_recommendation_popularity",
    "catalog_coverage",
    "gini_index",
    "long_tail_share",
    "novelty",
    "personalisation",
    "shannon_entropy",
]

Finish = Callable[[Any], np.ndarray]
"""Per-user values of one task's :class:`Lists`."""


class _Lists:
    """How the recommendation lists are read: the columns, ``k`` and the tie rule."""

    def __init__(
        self,
        recs: Any,
        what: str,
        user: str,
        item: str,
        score: str,
        k: int | None,
        ties: str | None,
        profile: str | None,
        partitions: int | None,
    ) -> None:
        from ranklens.recsys.beyond._lists import list_ties

        sf = functions(what)
        check_frame(recs, what, "recs")
        self.what, self.user, self.k, self.profile = what, user, k, profile
        self.ties = list_ties(ties, profile, what)
        self.partitions = partitions
        order = [row_order(sf)] if self.ties == "input" else []
        self.frame = recs.select(
            id_column(recs, user, "user", what).alias("user"),
            id_column(recs, item, "item", what).alias("item"),
            number_column(recs, score, "score", what).alias("score"),
            *order,
        )

    def per_task(
        self, emit: Callable[[Any], tuple[pa.Array, list[np.ndarray]]], names: list[str]
    ) -> Joined:
        """Run ``emit(lists)`` (ids and value columns) on the lists of whole users; the
        partial means of the value columns come with them."""
        what, k, ties = self.what, self.k, self.ties  # the task holds these, not self

        def task(t: pa.Table, _: pa.Table) -> tuple[pa.Table, dict[str, int], Partials]:
            from ranklens.recsys.beyond._lists import user_lists

            t = in_row_order(t)
            run = Run(column(t, "user"), column(t, "item"), column(t, "score"))
            lists = user_lists(run, k, what, ties, None)
            ids, cols = emit(lists)
            partials = {
                n: partial_aggregate(c, "mean") for n, c in zip(names[1:], cols, strict=True)
            }
            return values_table(ids, cols, names), {"users": lists.n_users}, partials

        return by_query(
            self.frame,
            None,
            "user",
            task,
            names,
            partitions=self.partitions,
            shuffle="partition",
            what=self.what,
        )

    def per_user(self, finish: Finish, metric: str, reduction: str) -> Any:
        """Per-user values ``finish(lists)``: their mean over users with a defined value
        (``reduction="mean"``), or the DataFrame (columns ``user`` and ``metric``)."""
        from ranklens.recsys.beyond.values import resolve_reduction

        resolve_reduction(self.what, reduction, None)
        joined = self.per_task(lambda lists: (lists.users, [finish(lists)]), ["user", metric])
        if reduction == "none":
            return joined.values
        joined.persisted.unpersist()
        return joined.aggregate(metric, "mean")


def _item_counts(frame: Any, value: str, what: str) -> tuple[pa.Array, np.ndarray]:
    """The per-item sums of ``value`` gathered from the tasks' rows (Spark aggregation),
    collected: distinct items (text) and their sums."""
    sf = functions(what)
    table = collect_arrow(frame.groupBy("item").agg(sf.sum(value).alias(value)))
    return column(table, "item"), np.asarray(column(table, value).to_numpy(), np.float64)


def _slots(
    recs: Any,
    what: str,
    user: str,
    item: str,
    score: str,
    k: int | None,
    ties: str | None,
    profile: str | None,
    partitions: int | None,
    catalog: Any,
    sort: bool,
) -> np.ndarray:
    """Each catalog item's number of top-``k`` slots (see
    :func:`ranklens.recsys.beyond.coverage.catalog_counts`)."""
    spec = _Lists(recs, what, user, item, score, k, ties, profile, partitions)

    def emit(lists: Any) -> tuple[pa.Array, list[np.ndarray]]:
        items, counts = slot_counts(lists)
        return items, [counts.astype(np.float64)]

    joined = spec.per_task(emit, ["item", "slots"])
    items, counts = _item_counts(joined.values, "slots", what)
    joined.persisted.unpersist()
    if _is_dataframe(catalog):
        name = _single_column(catalog, item, what)
        catalog = column(
            collect_arrow(catalog.select(id_column(catalog, name, "catalog", what).alias("item"))),
            "item",
        )
    return catalog_counts(items, counts.astype(np.int64), catalog, what, sort=sort)


def _is_dataframe(value: Any) -> bool:
    from pyspark.sql import DataFrame

    return isinstance(value, DataFrame)


def _single_column(df: Any, item: str, what: str) -> str:
    if item in df.columns:
        return item
    if len(df.columns) == 1:
        return str(df.columns[0])
    raise InputError(
        f"{what}: the catalog DataFrame has no {item!r} column (the item= "
        f"column) and more than one column: {df.columns}."
    )


def catalog_coverage(
    recs: Any,
    catalog: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> float:
    """:func:`ranklens.recsys.catalog_coverage` of the lists in ``recs`` (a DataFrame);
    ``catalog`` is a list of item ids or a DataFrame (its ``item`` column, or its only
    column)."""
    return coverage_of(
        _slots(
            recs,
            "catalog_coverage",
            user,
            item,
            score,
            k,
            ties,
            profile,
            partitions,
            catalog,
            False,
        )
    )


def shannon_entropy(
    recs: Any,
    catalog: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    normalise: bool = False,
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> float:
    """:func:`ranklens.recsys.shannon_entropy` of the lists in ``recs`` (see
    :func:`catalog_coverage`)."""
    return entropy_of(
        shares_of(
            _slots(
                recs,
                "shannon_entropy",
                user,
                item,
                score,
                k,
                ties,
                profile,
                partitions,
                catalog,
                True,
            )
        ),
        normalise,
    )


def gini_index(
    recs: Any,
    catalog: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> float:
    """:func:`ranklens.recsys.gini_index` of the lists in ``recs`` (see
    :func:`catalog_coverage`)."""
    return gini_of(
        shares_of(
            _slots(
                recs, "gini_index", user, item, score, k, ties, profile, partitions, catalog, True
            )
        )
    )


def _training(train: Any, user: str, item: str, what: str) -> Any:
    check_frame(train, what, "train")
    return train.select(
        id_column(train, user, "user", what).alias("user"),
        id_column(train, item, "item", what).alias("item"),
    )


def _per_item(frame: Any, what: str) -> tuple[pa.Array, np.ndarray]:
    """Distinct items of ``frame`` and their rows (a Spark aggregation); an empty
    training log raises the local error."""
    table = collect_arrow(frame.groupBy("item").count())
    if table.num_rows == 0:
        raise InputError(f"{what}: the training interactions are empty.")
    return column(table, "item"), np.asarray(column(table, "count").to_numpy(), np.int64)


def novelty(
    recs: Any,
    train: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> Any:
    """:func:`ranklens.recsys.novelty` of the lists in ``recs`` against the training log
    ``train`` (a DataFrame of ``user`` and ``item`` columns).  The distinct training users
    of each item and their number come from Spark aggregations."""
    what = "novelty"
    spec = _Lists(recs, what, user, item, score, k, ties, profile, partitions)
    log = _training(train, user, item, what)
    items, users_per_item = _per_item(log.distinct(), what)
    n_users = log.select("user").distinct().count()
    return spec.per_user(
        lambda lists: novelty_of(lists, items, users_per_item, n_users), what, reduction
    )


def average_recommendation_popularity(
    recs: Any,
    train: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> Any:
    """:func:`ranklens.recsys.average_recommendation_popularity` of the lists in ``recs``
    against the training log ``train`` (see :func:`novelty`)."""
    what = "average_recommendation_popularity"
    spec = _Lists(recs, what, user, item, score, k, ties, profile, partitions)
    check_frame(train, what, "train")
    sf = functions(what)
    table = collect_arrow(
        train.select(id_column(train, item, "item", what).alias("item"))
        .groupBy("item")
        .agg(sf.count(sf.lit(1)).alias("count"))
    )
    items, counts = column(table, "item"), np.asarray(column(table, "count").to_numpy(), np.int64)
    return spec.per_user(lambda lists: popularity_of(lists, items, counts), what, reduction)


def long_tail_share(
    recs: Any,
    train: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    head_share: float = 0.2,
    reduction: str = "mean",
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> Any:
    """:func:`ranklens.recsys.long_tail_share` of the lists in ``recs`` against the
    training log ``train`` (see :func:`novelty`)."""
    what = "long_tail_share"
    if not isinstance(head_share, (int, float)) or not 0 < head_share < 1:
        raise InputError(
            f"{what}: the 'head_share' parameter must be a float in the open interval (0, 1). "
            f"Got {head_share!r} instead."
        )
    spec = _Lists(recs, what, user, item, score, k, ties, profile, partitions)
    items, counts = _per_item(_training(train, user, item, what), what)
    return spec.per_user(
        lambda lists: long_tail_of(lists, items, counts, head_share), what, reduction
    )


def personalisation(
    recs: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    user: str = "user_id",
    item: str = "item_id",
    score: str = "score",
    partitions: int | None = None,
) -> Any:
    """:func:`ranklens.recsys.personalisation` of the lists in ``recs``: one pass sums
    the users' normalised list vectors per item (tasks, then a Spark aggregation), a
    second finishes per user."""
    what = "personalisation"
    spec = _Lists(recs, what, user, item, score, k, ties, profile, partitions)
    joined = spec.per_task(lambda lists: (lists.items, [list_vector_sums(lists)]), ["item", "s"])
    items, s = _item_counts(joined.values, "s", what)
    joined.persisted.unpersist()
    n = joined.counts["users"]
    if n < 2:
        raise InputError(f"{what}: needs recommendations for at least 2 users, got {n}.")

    def finish(lists: Any) -> np.ndarray:
        return personalisation_of(lists, s[lists.lookup(items)], n)

    return spec.per_user(finish, what, reduction)
