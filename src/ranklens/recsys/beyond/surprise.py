"""Surprise: how far the recommended items are from what the user already knows
(unexpectedness, against the user's training profile) and the share of them that are
both relevant and unexpected (serendipity)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Unpack, overload

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens.errors import InputError, RanklensWarning, user_stacklevel
from ranklens.ranking.data import Qrels, Run
from ranklens.recsys.beyond import _items
from ranklens.recsys.beyond._ids import (
    distinct_keys,
    examples,
    index_in,
    sorted_order,
    training_log,
)
from ranklens.recsys.beyond._items import Items, check_nonzero, item_table
from ranklens.recsys.beyond._lists import Lists, user_lists
from ranklens.recsys.beyond.values import ListOptions, UserValues, reduce, resolve_reduction

__all__ = ["serendipity", "unexpectedness"]


class _ProfileOptions(ListOptions, total=False):
    """The keyword options of :func:`unexpectedness` besides the item descriptions."""

    profile_distance: str
    no_profile: str


class _SerendipityOptions(_ProfileOptions, total=False):
    """The keyword options of :func:`serendipity` besides its two definitions."""

    threshold: float | None
    rel_threshold: float


# -- (user, item) pairs of the lists ---------------------------------------------------


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``values`` of ``query`` integers in sorted ``keys`` (0 where absent)."""
    if keys.size == 0:
        return np.zeros(query.size, dtype=values.dtype)
    pos = np.searchsorted(keys, query)
    pos_c = np.minimum(pos, keys.size - 1)
    found = (pos < keys.size) & (keys[pos_c] == query)
    return np.where(found, values[pos_c], 0)


def _pairs_in(lists: Lists, user: np.ndarray, item: np.ndarray) -> np.ndarray:
    """For each kept row, whether its (user, item) is among the pairs ``(user, item)``
    (codes of ``lists``; -1 for a user or item that is not there)."""
    ok = (user >= 0) & (item >= 0)
    n_items = np.int64(max(len(lists.items), 1))
    keys = np.sort(user[ok].astype(np.int64) * n_items + item[ok])
    rec = lists.user.astype(np.int64) * n_items + lists.item
    return _lookup(keys, np.ones(keys.size, dtype=bool), rec).astype(bool)


def _pair_rows(lists: Lists, other: Lists) -> np.ndarray:
    """For each kept row, whether its (user, item) pair is in the lists ``other``."""
    user = index_in(other.users, lists.users)[other.user]
    item = index_in(other.items, lists.items)[other.item]
    return _pairs_in(lists, user, item)


def _relevant_rows(lists: Lists, qrels: Qrels, rel_threshold: float) -> tuple[np.ndarray, int]:
    """Whether each recommended row is relevant, and how many users have no judgment."""
    pairs = qrels._pairs
    user_of = index_in(pairs.query_dict, lists.users)  # per distinct qrels user
    rows = np.flatnonzero((qrels.relevance >= rel_threshold) & (user_of[pairs.query_code] >= 0))
    d = qrels._d
    if pa.types.is_dictionary(d.type):
        item = index_in(d.dictionary, lists.items)[to_numpy(d.indices)[rows]]
    else:
        item = index_in(d.take(from_numpy(rows)), lists.items)
    hit = _pairs_in(lists, user_of[pairs.query_code[rows]], item)
    return hit, int((index_in(lists.users, pairs.query_dict) < 0).sum())


# -- the user's training profile ---------------------------------------------------------


@dataclass(frozen=True)
class _Profiles:
    """Distinct (recommended user, profile item) pairs in CSR form, grouped by user."""

    pos: np.ndarray  # row of each profile item in the item table
    size: np.ndarray  # |P_u| per recommended user (0 = no profile)
    offsets: np.ndarray  # pair offsets per user (len = n_users + 1)


def _profiles(profiles: Any, lists: Lists, items: Items, what: str) -> _Profiles:
    """The training profiles of the recommended users (``profiles = (train_users,
    train_items)``); every profile item must have a description in ``items``."""
    if not (isinstance(profiles, tuple) and len(profiles) == 2):
        raise InputError(
            f"{what}: profiles must be a tuple (train_users, train_items): the user and "
            f"item columns of the training interactions; got {type(profiles).__name__}."
        )
    uids, ucode, iids, icode = training_log(profiles[0], profiles[1], what, "profiles")
    rec_code = index_in(uids, lists.users)[ucode]
    keep = rec_code >= 0  # interactions of recommended users only
    pair_user = rec_code[keep].astype(np.int64)
    pair_item = icode[keep]
    used = np.flatnonzero(np.bincount(pair_item, minlength=len(iids)))
    row = index_in(iids.take(from_numpy(used)), items.ids)
    if (row < 0).any():
        missing = iids.take(from_numpy(used[row < 0]))
        raise InputError(
            f"{what}: {len(missing)} item(s) in the training profiles of recommended users "
            f"have no {items.label}, e.g. {examples(missing)}; add them to {items.label} "
            "or drop those interactions from profiles."
        )
    # distinct (user, item) pairs, sorted by user, then item id: the order profile sums run in
    n_items = np.int64(len(items.ids))
    by_id = sorted_order(items.ids)
    id_rank = np.empty(by_id.size, dtype=np.int64)
    id_rank[by_id] = np.arange(by_id.size)
    rank_of = np.zeros(len(iids), dtype=np.int64)
    rank_of[used] = id_rank[row]
    key, _ = distinct_keys(pair_user * n_items + rank_of[pair_item])
    size = np.bincount(key // n_items, minlength=lists.n_users)
    return _Profiles(by_id[key % n_items], size, np.r_[0, np.cumsum(size)])


def _without_profile(lists: Lists, prof: _Profiles, no_profile: str, what: str) -> np.ndarray:
    """Which recommended users have no profile: an error when none has one or with
    ``no_profile="error"``, else a warning that they are left out of the mean."""
    missing = prof.size == 0
    n_users = lists.n_users
    if missing.all():
        raise InputError(
            f"{what}: none of the {n_users} recommended user(s) has a training profile "
            f"(e.g. {lists.users.slice(0, 3).to_pylist()}); check that the user ids of recs "
            "and profiles match."
        )
    if missing.any():
        m = int(missing.sum())
        some = lists.users.filter(from_numpy(missing)).slice(0, 3).to_pylist()
        if no_profile == "error":
            raise InputError(
                f"{what}: {m} recommended user(s) have no training profile, e.g. {some}, "
                "so their unexpectedness is undefined; drop them from the recommendations or "
                "pass no_profile='skip' to leave them out of the mean."
            )
        warnings.warn(
            f"{what}: {m} of {n_users} recommended user(s) have no training profile, e.g. "
            f"{some}; their unexpectedness is undefined, so they are left out of the mean "
            "(no_profile='skip'; reduction='none' shows them as NaN).",
            RanklensWarning,
            stacklevel=user_stacklevel(),
        )
    return missing


def _category_similarity(
    lists: Lists, rec_pos: np.ndarray, prof: _Profiles, cat: np.ndarray, how: str
) -> np.ndarray:
    """With categories (cos is 1 for the same category, else 0): per recommended row,
    the share of the user's profile items in its category (``how="mean"``) or whether
    any is (``"min"``); NaN for users without a profile."""
    n_cats = np.int64(cat.max() + 1)
    user_prof = np.repeat(np.arange(lists.n_users, dtype=np.int64), prof.size)
    keys, counts = distinct_keys(user_prof * n_cats + cat[prof.pos])
    same = _lookup(keys, counts, lists.user.astype(np.int64) * n_cats + cat[rec_pos])
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = same / prof.size[lists.user] if how == "mean" else (same > 0).astype(np.float64)
    sim[prof.size[lists.user] == 0] = np.nan
    return sim


def _profile_similarity(
    lists: Lists, rec_pos: np.ndarray, prof: _Profiles, unit: np.ndarray, how: str
) -> np.ndarray:
    """Mean (``how="mean"``) or largest (``"min"`` distance) cosine similarity of each
    recommended row with its user's profile items; NaN for users without a profile.

    Users are processed in blocks of consecutive users so that no gathered block of
    feature rows holds more than ``BLOCK_VALUES`` numbers (one user that needs more
    is a block on its own); there is no loop over single users."""
    n_users = lists.n_users
    dim = max(unit.shape[1], 1)
    n_rec = lists.lengths.astype(np.int64)
    n_prof = prof.size.astype(np.int64)
    cost = (n_rec * n_prof if how == "min" else n_rec + n_prof + 1) * dim
    cum = np.cumsum(cost)
    out = np.full(rec_pos.size, np.nan)
    a = 0
    while a < n_users:
        done = int(cum[a - 1]) if a else 0
        b = max(int(np.searchsorted(cum, done + _items.BLOCK_VALUES, side="right")), a + 1)
        r0, r1 = int(lists.offsets[a]), int(lists.offsets[b])
        user = lists.user[r0:r1]
        sel = np.flatnonzero(n_prof[user] > 0)
        if sel.size:
            user, pos, cnt = user[sel], rec_pos[r0:r1][sel], n_prof[user[sel]]
            if how == "mean":
                # segment sum of the unit profile vectors of the users in [a, b)
                p0, p1 = int(prof.offsets[a]), int(prof.offsets[b])
                has = np.flatnonzero(n_prof[a:b] > 0)
                sums = np.zeros((b - a, unit.shape[1]))
                sums[has] = np.add.reduceat(
                    np.take(unit, prof.pos[p0:p1], axis=0), prof.offsets[a:b][has] - p0, axis=0
                )
                sim = (
                    np.einsum(
                        "ij,ij->i", np.take(unit, pos, axis=0), np.take(sums, user - a, axis=0)
                    )
                    / cnt
                )
            else:
                # every (recommended item, profile item) pair of the block, then a segment max
                first = np.cumsum(cnt) - cnt
                row = np.repeat(np.arange(sel.size), cnt)
                within = np.arange(row.size) - first[row]
                other = prof.pos[prof.offsets[user][row] + within]
                sims = np.einsum(
                    "ij,ij->i", np.take(unit, pos[row], axis=0), np.take(unit, other, axis=0)
                )
                sim = np.maximum.reduceat(sims, first)
            out[r0 + sel] = sim
        a = b
    return out


def _unexpectedness_rows(
    lists: Lists,
    profiles: Any,
    features: Any,
    categories: Any,
    profile_distance: str,
    no_profile: str,
    what: str,
) -> tuple[np.ndarray, np.ndarray]:
    """``unexp(i, u)`` of every recommended row (NaN for users without a profile) and
    the mask of those users."""
    if profile_distance not in ("mean", "min"):
        raise InputError(
            f"{what}: profile_distance must be 'mean' or 'min', got {profile_distance!r}."
        )
    if no_profile not in ("skip", "error"):
        raise InputError(f"{what}: no_profile must be 'skip' or 'error', got {no_profile!r}.")
    items = item_table(features, categories, what)
    rec_pos = items.rows_of(lists, what)
    prof = _profiles(profiles, lists, items, what)
    if items.unit is not None:
        check_nonzero(items, rec_pos, what)
        check_nonzero(items, prof.pos, what)
    missing = _without_profile(lists, prof, no_profile, what)
    if items.cat is not None:
        sim = _category_similarity(lists, rec_pos, prof, items.cat, profile_distance)
    else:
        assert items.unit is not None
        sim = _profile_similarity(lists, rec_pos, prof, items.unit, profile_distance)
    # a cosine of unit vectors is in [-1, 1] up to rounding: the distance stays in [0, 2]
    return np.clip(1.0 - sim, 0.0, 2.0), missing


def _threshold(threshold: Any, what: str) -> float:
    if threshold is None:
        raise InputError(
            f"{what}: with profiles=... give threshold=: a recommended item is unexpected "
            "when its distance to the user's profile is above it (cosine distances lie in "
            "[0, 2], category distances in [0, 1])."
        )
    if (
        isinstance(threshold, (bool, np.bool_))
        or not isinstance(threshold, (int, float, np.integer, np.floating))
        or not np.isfinite(threshold)
    ):
        raise InputError(
            f"{what}: the 'threshold' parameter must be a finite number. Got {threshold!r} instead."
        )
    return float(threshold)


# -- the metrics -----------------------------------------------------------------------


@overload
def unexpectedness(
    recs: Run,
    profiles: Any,
    *,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[_ProfileOptions],
) -> float: ...
@overload
def unexpectedness(
    recs: Run,
    profiles: Any,
    *,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: Literal["none"],
    per_user: None = ...,
    **options: Unpack[_ProfileOptions],
) -> UserValues: ...
@overload
def unexpectedness(
    recs: Run,
    profiles: Any,
    *,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: str = ...,
    per_user: bool | None = ...,
    **options: Unpack[_ProfileOptions],
) -> float | UserValues: ...
def unexpectedness(
    recs: Run,
    profiles: Any,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    profile_distance: str = "mean",
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    no_profile: str = "skip",
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """Mean distance of the recommended items from the user's training profile.

    ``P_u`` is the set of distinct items in user ``u``'s training interactions
    (``profiles = (train_users, train_items)``, the user and item columns of
    the training log; repeats count once).  The distance ``d(i, j)`` of two
    items is ``1 - cos(f_i, f_j)`` for feature vectors (``features``:
    ``{item: vector}`` or ``(item_ids, matrix)``; in ``[0, 2]``) or 1 when
    their ``categories`` differ and 0 when equal, as in
    :func:`intra_list_diversity`.  The unexpectedness of item ``i`` for ``u``:

    * ``profile_distance="mean"`` (default):
      ``unexp(i, u) = (1/|P_u|) sum_{j in P_u} d(i, j)``, the expected profile
      distance (EPD) of Vargas & Castells (2011) without rank or relevance
      discount, the content-based unexpectedness surveyed by Kaminskas &
      Bridge (2016).  Computed exactly without pairs:
      ``unexp(i, u) = 1 - f_i . c_u`` with unit vectors and
      ``c_u = (1/|P_u|) sum_{j in P_u} f_j`` (a segment sum per user), so the
      cost is ``O((|L| + |P|) dim)``.  This is the mean distance, not the
      cosine distance to the normalised centroid (which would weigh a
      profile's spread differently).
    * ``profile_distance="min"``: ``unexp(i, u) = min_{j in P_u} d(i, j)``, the
      content-based surprise of Kaminskas & Bridge (2014): an item is only as
      surprising as the closest item the user already knows, so a broad
      profile does not dilute it.  Needs every (recommended item, profile
      item) pair: ``sum_u |L_u| |P_u|`` dot products, vectorised over blocks
      of users with bounded memory.

    With categories both variants count same-category profile items
    (``mean``: ``1 - |{j in P_u : c_j = c_i}| / |P_u|``; ``min``: 0 if any
    profile item shares ``i``'s category, else 1) and need no vectors.

    ``unexpectedness = mean_u (1/|L_u|) sum_{i in L_u} unexp(i, u)`` over
    users with a profile.  A recommended user without any training
    interaction has no profile, so their value is undefined:
    ``no_profile="skip"`` (default) leaves them out of the mean with a
    :class:`~ranklens.errors.RanklensWarning` that gives their number
    (``report["users_without_profile"]``; NaN with ``reduction="none"``),
    ``no_profile="error"`` raises :class:`InputError`.  Recommended items
    and the profile items of recommended users must all have features
    (non-zero, finite) or a category: unknown ids raise :class:`InputError`
    (never silently dropped); training interactions of users who are not
    recommended to are ignored.  ``reduction="none"`` returns the
    :class:`UserValues` of the per-user means.

    >>> recs = Run.from_dict({"u1": {"a": 2, "c": 1}})
    >>> profile = (["u1", "u1"], ["a", "b"])          # u1 knows a and b
    >>> cats = {"a": "x", "b": "x", "c": "y"}
    >>> unexpectedness(recs, profile, categories=cats)  # a: 0, c: 1
    0.5
    >>> feats = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> # mean: a (0 + 1) / 2, c (2 - sqrt 2) / 2; min: a 0, c 1 - 1 / sqrt 2
    >>> round(unexpectedness(recs, profile, features=feats), 4)
    0.3964
    >>> round(unexpectedness(recs, profile, features=feats, profile_distance="min"), 4)
    0.1464
    """
    what = "unexpectedness"
    reduction = resolve_reduction(what, reduction, per_user)
    lists = user_lists(recs, k, what, ties, profile)
    unexp, missing = _unexpectedness_rows(
        lists, profiles, features, categories, profile_distance, no_profile, what
    )
    return reduce(
        what,
        lists,
        lists.user_mean(unexp),
        reduction,
        {"users_without_profile": int(missing.sum())},
    )


@overload
def serendipity(
    recs: Run,
    qrels: Qrels,
    baseline: Run | None = ...,
    *,
    profiles: Any = ...,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: Literal["mean"] = ...,
    per_user: None = ...,
    **options: Unpack[_SerendipityOptions],
) -> float: ...
@overload
def serendipity(
    recs: Run,
    qrels: Qrels,
    baseline: Run | None = ...,
    *,
    profiles: Any = ...,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: Literal["none"],
    per_user: None = ...,
    **options: Unpack[_SerendipityOptions],
) -> UserValues: ...
@overload
def serendipity(
    recs: Run,
    qrels: Qrels,
    baseline: Run | None = ...,
    *,
    profiles: Any = ...,
    features: Any = ...,
    categories: Mapping[Any, Any] | None = ...,
    reduction: str = ...,
    per_user: bool | None = ...,
    **options: Unpack[_SerendipityOptions],
) -> float | UserValues: ...
def serendipity(
    recs: Run,
    qrels: Qrels,
    baseline: Run | None = None,
    *,
    profiles: Any = None,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    threshold: float | None = None,
    profile_distance: str = "mean",
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    rel_threshold: float = 1.0,
    no_profile: str = "skip",
    reduction: str = "mean",
    per_user: bool | None = None,
) -> float | UserValues:
    """Share of recommended items that are both relevant and unexpected, averaged
    over users.

    ``ser(u) = |{i in L_u : rel(u, i) >= rel_threshold and i is unexpected}| / |L_u|``
    and ``serendipity = mean_u ser(u)``.  Users absent from ``qrels``
    contribute 0 (``report["users_without_judgments"]``).  Give exactly one
    of two definitions of "unexpected":

    * ``baseline`` (a :class:`~ranklens.Run`): ``i`` is unexpected when it is
      not in ``PM_u``, user ``u``'s top-``k`` list from a primitive baseline
      recommender (e.g. most popular): what any simple system would have
      shown is not serendipitous.  Source: Ge, Delgado-Battenfeld & Jannach
      (2010); survey in Kaminskas & Bridge (2016).
    * ``profiles=(train_users, train_items)`` with ``features`` or
      ``categories`` and ``threshold``: ``i`` is unexpected when
      ``unexp(i, u) > threshold``, its distance from ``u``'s training profile
      as defined by :func:`unexpectedness` (``profile_distance="mean"``: mean
      distance to the profile items; ``"min"``: distance to the closest one).
      Source: the profile-based unexpectedness of Kaminskas & Bridge (2014,
      2016) and Vargas & Castells (2011).  Users without a training profile
      follow ``no_profile`` (default ``"skip"``: left out of the mean with a
      warning, counted in ``report["users_without_profile"]``).

    ``reduction="none"`` returns the :class:`UserValues` of ``ser(u)``.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}})
    >>> qrels = Qrels.from_dict({"u1": {"a": 1, "b": 1}})
    >>> serendipity(recs, qrels, Run.from_dict({"u1": {"a": 1}}))
    0.5
    >>> cats = {"a": "x", "b": "y", "c": "x"}
    >>> serendipity(recs, qrels, profiles=(["u1"], ["c"]), categories=cats, threshold=0.5)
    0.5
    """
    what = "serendipity"
    reduction = resolve_reduction(what, reduction, per_user)
    if not isinstance(qrels, Qrels):
        raise InputError(f"{what}: qrels must be a ranklens.Qrels, got {type(qrels).__name__}.")
    if (baseline is None) == (profiles is None):
        raise InputError(
            f"{what}: give exactly one of baseline (a primitive recommender's Run: Ge et al. "
            "2010) and profiles=(train_users, train_items) (distance from the user's profile: "
            "Kaminskas & Bridge 2016)."
        )
    lists = user_lists(recs, k, what, ties, profile)
    relevant, unjudged = _relevant_rows(lists, qrels, rel_threshold)
    report = {"users_without_judgments": unjudged}
    if baseline is not None:
        extra = [
            name
            for name, value in (
                ("features", features),
                ("categories", categories),
                ("threshold", threshold),
            )
            if value is not None
        ]
        if extra:
            raise InputError(
                f"{what}: {', '.join(extra)} only apply with profiles=...; with baseline=... "
                "an item is unexpected when the baseline does not recommend it."
            )
        base = user_lists(baseline, k, what, ties, profile)
        hit = relevant & ~_pair_rows(lists, base)
        return reduce(what, lists, lists.user_mean(hit.astype(np.float64)), reduction, report)
    limit = _threshold(threshold, what)
    unexp, missing = _unexpectedness_rows(
        lists, profiles, features, categories, profile_distance, no_profile, what
    )
    values = lists.user_mean((relevant & (unexp > limit)).astype(np.float64))
    values[missing] = np.nan
    report["users_without_profile"] = int(missing.sum())
    return reduce(what, lists, values, reduction, report)
