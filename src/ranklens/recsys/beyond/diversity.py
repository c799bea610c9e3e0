"""Diversity of the lists: intra-list diversity (how different the items of one list
are) and personalisation (how different the users' lists are)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Unpack, overload

import numpy as np

from ranklens.errors import InputError
from ranklens.ranking.data import Run
from ranklens.recsys.beyond import _items
from ranklens.recsys.beyond._ids import distinct_keys
from ranklens.recsys.beyond._items import check_nonzero, item_table
from ranklens.recsys.beyond._lists import Lists, user_lists
from ranklens.recsys.beyond.values import ListOptions, UserValues, reduce, resolve_reduction

__all__ = ["intra_list_diversity", "personalisation"]
# and, for ranklens.spark: list_vector_sums, personalisation_of


def _segment_sums(unit: np.ndarray, row: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment of ``offsets`` (every one non-empty), the sum of the feature rows
    ``unit[row[j]]``, added one after another in row order (as ``np.add.at`` would).

    Segments of one length ``L`` are gathered together (``np.take``, in blocks of at most
    ``BLOCK_VALUES`` numbers) as a ``(segments, L, dim)`` array and summed with ``L``
    vectorised additions: no loop over segments, no scatter-add."""
    lengths = np.diff(offsets)
    dim = unit.shape[1]
    out = np.empty((lengths.size, dim))
    step = max(_items.BLOCK_VALUES // max(dim, 1), 1)
    for length in np.unique(lengths).tolist():
        segs = np.flatnonzero(lengths == length)
        per = max(step // length, 1)
        for s0 in range(0, segs.size, per):
            seg = segs[s0 : s0 + per]
            if seg[-1] - seg[0] + 1 == seg.size:  # consecutive segments: one slice
                rows = row[offsets[seg[0]] : offsets[seg[-1] + 1]]
            else:
                rows = row[(offsets[seg][:, None] + np.arange(length)).ravel()]
            block = np.take(unit, rows, axis=0).reshape(seg.size, length, dim)
            acc = block[:, 0].copy()
            for j in range(1, length):
                acc += block[:, j]
            out[seg] = acc
    return out


def _same_category_counts(user: np.ndarray, cat: np.ndarray, n_users: int) -> np.ndarray:
    """Per user, ``sum_c n_c^2`` over the categories ``c`` of the user's rows (``n_c``
    rows in category ``c``): the number of ordered same-category pairs, ``i = j``
    included."""
    n_cats = np.int64(cat.max() + 1) if cat.size else np.int64(1)
    keys, counts = distinct_keys(user.astype(np.int64) * n_cats + cat)
    n = counts.astype(np.float64)
    return np.bincount(keys // n_cats, weights=n * n, minlength=n_users)


@overload
def intra_list_diversity(
    recs: Run,
    *,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> float: ...
@overload
def intra_list_diversity(
    recs: Run,
    *,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: Literal["none"],
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> UserValues: ...
@overload
def intra_list_diversity(
    recs: Run,
    *,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: str = ...,
    per_user: bool | None = ...,
    **options: Unpack[ListOptions],
) -> float | UserValues: ...
def intra_list_diversity(
    recs: Run,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """Mean intra-list diversity: average pairwise distance inside each list.

    ``ILD(L) = 1 / (|L| (|L| - 1)) sum_{i != j in L} d(i, j)``, averaged over
    users whose list has at least two items.  ``d = 1 - cos(f_i, f_j)`` for
    item feature vectors (``features``: ``{item: vector}`` or
    ``(item_ids, matrix)``), or ``d = 1`` when two items' ``categories``
    differ and 0 when equal.  Computed without pairs: with unit vectors
    ``sum_{i != j} cos = |sum_i f_i|^2 - |L|``.  Every recommended item must
    have a feature vector / category (:class:`InputError` otherwise), and
    feature vectors must be non-zero and finite.  ``reduction="none"`` returns
    the :class:`UserValues` of ``ILD(L_u)``: NaN for one-item lists (counted in
    ``report["users_with_one_item"]``).  Sources: Smyth & McClave (2001),
    Ziegler et al. (2005); Vargas & Castells (2011).

    >>> recs = Run.from_dict({"u1": {"a": 3, "b": 2, "c": 1}})
    >>> round(intra_list_diversity(recs, categories={"a": "x", "b": "x", "c": "y"}), 4)
    0.6667
    """
    what = "intra_list_diversity"
    reduction = resolve_reduction(what, reduction, per_user)
    if (features is None) == (categories is None):
        raise InputError(f"{what}: give exactly one of features and categories.")
    lists = user_lists(recs, k, what, ties, profile)
    items = item_table(features, categories, what)
    row = items.rows_of(lists, what)
    n = lists.lengths.astype(np.float64)
    if items.cat is not None:
        # cos is 1 for the same category, else 0
        pair_sim = _same_category_counts(lists.user, items.cat[row], lists.n_users) - n
    else:
        check_nonzero(items, row, what)
        assert items.unit is not None
        sums = _segment_sums(items.unit, row, lists.offsets)
        pair_sim = (sums * sums).sum(axis=1) - n
    ok = n >= 2
    if not ok.any():
        raise InputError(f"{what}: no list has two or more items, so ILD is undefined.")
    ild = np.full(n.size, np.nan)
    # mean distances of unit vectors lie in [0, 2] up to rounding: clipped there
    ild[ok] = np.clip(1.0 - pair_sim[ok] / (n[ok] * (n[ok] - 1)), 0.0, 2.0)
    return reduce(what, lists, ild, reduction, {"users_with_one_item": int((~ok).sum())})


@overload
def personalisation(
    recs: Run,
    *,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[ListOptions],
) -> float: ...
@overload
def personalisation(
    recs: Run, *, reduction: Literal["none"], per_user: None = ..., **options: Unpack[ListOptions]
) -> UserValues: ...
@overload
def personalisation(
    recs: Run, *, reduction: str = ..., per_user: bool | None = ..., **options: Unpack[ListOptions]
) -> float | UserValues: ...
def personalisation(
    recs: Run,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """Personalisation: one minus the mean cosine similarity of two users' lists.

    With ``x_u`` the 0/1 item vector of user ``u``'s top-``k`` list,
    ``P = 1 - (1 / (n (n - 1))) sum_{u != v} cos(x_u, x_v)``; for lists of
    equal length ``L`` the cosine is the overlap ``|L_u & L_v| / L``, i.e. the
    mean Hamming distance of Zhou et al. (2010).  Computed exactly in
    ``O(rows)`` (no ``n x n`` matrix): with ``y_u = x_u / |x_u|`` and
    ``S = sum_v y_v``, ``sum_{v != u} cos(x_u, x_v) = y_u . S - 1``.  Needs two
    or more users.  ``reduction="none"`` returns the :class:`UserValues` of
    ``P(u) = 1 - (y_u . S - 1) / (n - 1)``: one minus ``u``'s mean cosine
    similarity to every other user's list (their mean is ``P``).

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}})
    >>> round(personalisation(recs), 12)
    0.5
    """
    what = "personalisation"
    reduction = resolve_reduction(what, reduction, per_user)
    lists = user_lists(recs, k, what, ties, profile)
    n = lists.n_users
    if n < 2:
        raise InputError(f"{what}: needs recommendations for at least 2 users, got {n}.")
    return reduce(what, lists, personalisation_of(lists, list_vector_sums(lists), n), reduction)


def list_vector_sums(lists: Lists) -> np.ndarray:
    """``S = sum_u y_u`` over the users of ``lists``: per item of ``lists.items``, the
    sum of ``1 / sqrt(|L_u|)`` over the lists holding it."""
    weight = 1.0 / np.sqrt(lists.lengths[lists.user])
    return np.bincount(lists.item, weights=weight, minlength=len(lists.items))


def personalisation_of(lists: Lists, s: np.ndarray, n: int) -> np.ndarray:
    """``P(u)`` for the users of ``lists``, from ``S`` (per item of ``lists.items``,
    :func:`list_vector_sums` over all ``n`` users)."""
    weight = 1.0 / np.sqrt(lists.lengths[lists.user])
    dot = np.bincount(
        lists.user, weights=weight * s[lists.item], minlength=lists.n_users
    )  # y_u . S
    # one minus a mean cosine of non-negative vectors: in [0, 1] up to rounding
    return np.clip(1.0 - (dot - 1.0) / (n - 1), 0.0, 1.0)
