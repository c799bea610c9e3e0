"""Popularity-based metrics of the recommended items, from the training log: novelty
(self-information), average recommendation popularity (ARP) and the long-tail share
(APLT)."""

from __future__ import annotations

from typing import Any, Literal, Unpack, overload

import numpy as np
import pyarrow as pa

from ranklens.errors import InputError
from ranklens.ranking.data import Run
from ranklens.recsys.beyond._ids import (
    distinct_ids,
    distinct_keys,
    sorted_order,
    training_log,
)
from ranklens.recsys.beyond._lists import Lists, user_lists
from ranklens.recsys.beyond.values import ListOptions, UserValues, reduce, resolve_reduction

__all__ = ["average_recommendation_popularity", "long_tail_share", "novelty"]
# and, for ranklens.spark: novelty_of, popularity_of, long_tail_of (per-user values from
# statistics of the training log gathered elsewhere)


def _popularity(train_users: Any, train_items: Any, what: str) -> tuple[pa.Array, np.ndarray, int]:
    """``(distinct item ids, distinct users per item, number of users)`` of the training
    log."""
    users, ucode, items, icode = training_log(train_users, train_items, what, "")
    n_users = len(users)
    pairs, _ = distinct_keys(icode.astype(np.int64) * n_users + ucode)
    users_per_item = np.bincount(pairs // n_users, minlength=len(items))
    return items, users_per_item, n_users


def _interactions_per_item(train_items: Any, what: str) -> tuple[pa.Array, np.ndarray]:
    """``(distinct item ids, training interactions per item)``."""
    items, codes = distinct_ids(train_items, f"{what} train_items")
    return items, np.bincount(codes, minlength=len(items))


@overload
def novelty(
    recs: Run,
    train_users: Any,
    train_items: Any,
    *,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> float: ...
@overload
def novelty(
    recs: Run,
    train_users: Any,
    train_items: Any,
    *,
    reduction: Literal["none"],
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> UserValues: ...
@overload
def novelty(
    recs: Run,
    train_users: Any,
    train_items: Any,
    *,
    reduction: str = ...,
    per_user: bool | None = ...,
    **options: Unpack[ListOptions],
) -> float | UserValues: ...
def novelty(
    recs: Run,
    train_users: Any,
    train_items: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """Mean self-information of the recommended items (bits), averaged over users.

    ``novelty = mean_u novelty(u)``, ``novelty(u) = (1/|L_u|) sum_{i in L_u}
    -log2 p(i)`` with ``p(i) = |U_i| / |U|``: the share of training users who
    interacted with ``i`` (Zhou et al. 2010; the popularity-based novelty of
    Vargas & Castells 2011).  ``train_users`` / ``train_items`` are the user
    and item columns of the training interactions.  An item no training user
    saw has infinite self-information, so it raises :class:`InputError`
    (filter cold items or add them with a prior count).  ``reduction="none"``
    returns the :class:`UserValues` of ``novelty(u)``.

    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"b": 1}})
    >>> novelty(recs, ["x", "y", "x", "y"], ["a", "a", "b", "a"])  # p(a) = 1, p(b) = 1/2
    0.5
    """
    what = "novelty"
    reduction = resolve_reduction(what, reduction, per_user)
    lists = user_lists(recs, k, what, ties, profile)
    items, users_per_item, n_users = _popularity(train_users, train_items, what)
    return reduce(what, lists, novelty_of(lists, items, users_per_item, n_users), reduction)


def novelty_of(
    lists: Lists, items: pa.Array, users_per_item: np.ndarray, n_users: int
) -> np.ndarray:
    """Per user of ``lists``, the mean self-information of the list's items, from the
    training log's distinct ``items`` (text), the distinct users of each and the number
    of users."""
    what = "novelty"
    pos = lists.item_positions(
        items,
        what,
        "have no training interaction",
        ", so their self-information is infinite; drop cold items "
        "from the recommendations or evaluate them separately.",
    )
    used = pos >= 0
    info = np.zeros(len(pos))  # per distinct recommended item, then one gather per row
    info[used] = -np.log2(users_per_item[pos[used]] / n_users)
    return lists.item_mean(info)


@overload
def average_recommendation_popularity(
    recs: Run,
    train_items: Any,
    *,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> float: ...
@overload
def average_recommendation_popularity(
    recs: Run,
    train_items: Any,
    *,
    reduction: Literal["none"],
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> UserValues: ...
@overload
def average_recommendation_popularity(
    recs: Run,
    train_items: Any,
    *,
    reduction: str = ...,
    per_user: bool | None = ...,
    **options: Unpack[ListOptions],
) -> float | UserValues: ...
def average_recommendation_popularity(
    recs: Run,
    train_items: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """ARP: the mean over users of the mean training popularity of their list.

    ``ARP = (1/|U|) sum_u ARP(u)``, ``ARP(u) = (1/|L_u|) sum_{i in L_u} phi(i)``
    with ``phi(i)`` the number of training interactions of ``i`` (0 for items
    never seen).  Source: Abdollahpouri, Burke & Mobasher (2019).
    ``reduction="none"`` returns the :class:`UserValues` of ``ARP(u)``.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}})
    >>> average_recommendation_popularity(recs, ["a", "a", "a", "b"])
    2.0
    """
    what = "average_recommendation_popularity"
    reduction = resolve_reduction(what, reduction, per_user)
    lists = user_lists(recs, k, what, ties, profile)
    items, counts = _interactions_per_item(train_items, what)
    return reduce(what, lists, popularity_of(lists, items, counts), reduction)


def popularity_of(lists: Lists, items: pa.Array, counts: np.ndarray) -> np.ndarray:
    """Per user of ``lists``, the mean number of training interactions of the list's
    items, from the training log's distinct ``items`` (text) and the interactions of
    each."""
    at = lists.lookup(items)
    phi = np.where(at >= 0, counts[np.maximum(at, 0)], 0) if counts.size else np.zeros(at.size)
    return lists.item_mean(phi.astype(np.float64))


@overload
def long_tail_share(
    recs: Run,
    train_items: Any,
    *,
    head_share: float = ...,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> float: ...
@overload
def long_tail_share(
    recs: Run,
    train_items: Any,
    *,
    head_share: float = ...,
    reduction: Literal["none"],
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> UserValues: ...
@overload
def long_tail_share(
    recs: Run,
    train_items: Any,
    *,
    head_share: float = ...,
    reduction: str = ...,
    per_user: bool | None = ...,
    **options: Unpack[ListOptions],
) -> float | UserValues: ...
def long_tail_share(
    recs: Run,
    train_items: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    head_share: float = 0.2,
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """APLT: the mean over users of the share of long-tail items in their list.

    Items are ranked by training interactions; the short head ``H`` is the
    ``ceil(head_share * m)`` most popular of the ``m`` items seen in training
    (ties at the boundary broken by item id), and the long tail is every other
    item, including items never seen in training.
    ``APLT = (1/|U|) sum_u |L_u \\ H| / |L_u|``.  Source: Abdollahpouri, Burke &
    Mobasher (2019); the head size is a parameter because papers differ
    (20 % of items is the common choice).  ``reduction="none"`` returns the
    :class:`UserValues` of ``|L_u \\ H| / |L_u|``.

    >>> recs = Run.from_dict({"u1": {"a": 2, "c": 1}})
    >>> long_tail_share(recs, ["a"] * 5 + ["b"] * 2 + ["c"] + ["d"] + ["e"], head_share=0.2)
    0.5
    """
    what = "long_tail_share"
    reduction = resolve_reduction(what, reduction, per_user)
    if not isinstance(head_share, (int, float)) or not 0 < head_share < 1:
        raise InputError(
            f"{what}: the 'head_share' parameter must be a float in the open interval (0, 1). "
            f"Got {head_share!r} instead."
        )
    lists = user_lists(recs, k, what, ties, profile)
    items, counts = _interactions_per_item(train_items, what)
    return reduce(what, lists, long_tail_of(lists, items, counts, head_share), reduction)


def long_tail_of(
    lists: Lists, items: pa.Array, counts: np.ndarray, head_share: float
) -> np.ndarray:
    """Per user of ``lists``, the share of long-tail items in the list, from the training
    log's distinct ``items`` (text) and the interactions of each."""
    what = "long_tail_share"
    if len(items) == 0:
        raise InputError(f"{what}: the training interactions are empty.")
    n_head = int(np.ceil(head_share * len(items)))
    # most interactions first, ties by item id (the distinct items only)
    rank = np.empty(len(items), dtype=np.int64)
    rank[sorted_order(items)] = np.arange(len(items))
    head = np.zeros(len(items) + 1, dtype=bool)  # the last slot: unseen items
    head[np.lexsort((rank, -counts))[:n_head]] = True
    in_tail = ~head[lists.lookup(items)]  # per distinct recommended item
    return lists.item_mean(in_tail.astype(np.float64))
