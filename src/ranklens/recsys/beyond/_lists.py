"""The recommendation lists, prepared once: each user's top-``k`` items, ordered by the
ranking engine (:func:`ranklens.ranking.engine.order_rankings`), in CSR form."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.columns import id_codes
from ranklens.errors import InputError
from ranklens.ranking.data import Run
from ranklens.recsys.beyond._ids import examples, index_in, sorted_order

__all__ = ["LIST_TIES", "Lists", "list_ties", "user_lists"]

_SLICE_ROWS = 1 << 18  # rows gathered at a time by Lists.item_mean (2 MiB of float64)

LIST_TIES = ("trec", "input")
"""The tie policies that order a list without relevance."""


@dataclass(frozen=True)
class Lists:
    """Top-k lists in CSR form: rows grouped by user (users in sorted id order), rank
    order inside a user; items as int32 codes into ``items``."""

    users: pa.Array  # distinct user ids (text), sorted
    items: pa.Array  # distinct item ids (text); may hold ids no kept row uses
    item: np.ndarray  # item code per kept row
    offsets: np.ndarray  # row offsets per user (len = n_users + 1)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def width(self) -> int | None:
        """The length of every list when all have one length (top-n lists), else None."""
        lengths = self.lengths
        if len(lengths) and int(lengths.min()) == int(lengths.max()) > 0:
            return int(lengths[0])
        return None

    @cached_property
    def user(self) -> np.ndarray:
        """The user index of each kept row (non-decreasing)."""
        return np.repeat(np.arange(self.n_users, dtype=np.int64), self.lengths)

    @property
    def n_users(self) -> int:
        return len(self.users)

    @cached_property
    def item_counts(self) -> np.ndarray:
        """How many kept rows recommend each of ``items``."""
        return np.bincount(self.item, minlength=len(self.items))

    @cached_property
    def _used(self) -> np.ndarray:
        if "item_counts" in self.__dict__:
            return np.asarray(self.item_counts > 0)
        present = np.zeros(len(self.items), dtype=bool)  # a scatter: cheaper than counts
        present[self.item] = True
        return present

    def used(self) -> np.ndarray:
        """Which of ``items`` some kept row recommends."""
        return self._used

    def lookup(self, ids: pa.Array) -> np.ndarray:
        """Position of each of ``items`` in ``ids`` (distinct), -1 where absent."""
        return index_in(self.items, ids)

    def positions(self, ids: pa.Array, what: str, problem: str, tail: str) -> np.ndarray:
        """Per kept row, the position of its item in ``ids`` (distinct); recommended
        items that are not there raise :class:`InputError` ("{problem}, e.g. [...]{tail}")."""
        return self.item_positions(ids, what, problem, tail)[self.item]

    def item_positions(self, ids: pa.Array, what: str, problem: str, tail: str) -> np.ndarray:
        """:meth:`positions` per distinct item of ``items`` (-1 for the unused ones that
        are not in ``ids``): what a per-item value is looked up with before it is
        spread over the rows in one gather."""
        pos = self.lookup(ids)
        bad = (pos < 0) & self.used()
        if bad.any():
            missing = self.items.filter(from_numpy(bad))
            raise InputError(
                f"{what}: {len(missing)} recommended item(s) {problem}, e.g. "
                f"{examples(missing)}{tail}"
            )
        return pos

    def item_mean(self, per_item: np.ndarray) -> np.ndarray:
        """Per user, the mean over the user's list of a value per item of ``items``:
        :meth:`user_mean` of ``per_item[item]``, gathered a slice of users at a time for
        lists of one length (no row-long intermediate)."""
        width = self.width
        if width is None:
            return self.user_mean(per_item[self.item])
        by_user = self.item.reshape(-1, width)
        out = np.empty(len(by_user))
        step = max(1, _SLICE_ROWS // width)
        for a in range(0, len(by_user), step):
            out[a : a + step] = per_item[by_user[a : a + step]].sum(axis=1)
        return out / width

    def user_mean(self, per_row: np.ndarray) -> np.ndarray:
        """Per user, the mean of ``per_row`` over the user's list."""
        width = self.width
        if width is not None:  # lists of one length: a sum along the rows of a 2-d view
            return per_row.reshape(-1, width).sum(axis=1) / width
        sums = np.bincount(self.user, weights=per_row, minlength=self.n_users)
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums / self.lengths


def _check_k(recs: Run, k: int | None, what: str) -> None:
    if not isinstance(recs, Run):
        raise InputError(
            f"{what}: recs must be a ranklens.Run of (user, item, score) rows, got "
            f"{type(recs).__name__}; build one with Run.from_frame(df, query='user_id', "
            "doc='item_id', score='score')."
        )
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise InputError(
            f"{what}: the 'k' parameter must be an int in the range [1, inf) or None. "
            f"Got {k!r} instead."
        )
    if len(recs) == 0:
        raise InputError(f"{what}: recs has no rows.")


def list_ties(ties: str | None, profile: str | None, what: str) -> str:
    """The tie policy that orders the recommendation lists: ``ties`` if given, else the
    profile's (default ``trec``: item id descending).  Only ordering policies apply to
    a list without relevance: ``trec`` or ``input``."""
    from ranklens.errors import UnsupportedError
    from ranklens.ranking.conventions import resolve_conventions

    if ties is None:
        ties = resolve_conventions(None, profile, {}).ties
        source = f"profile={profile!r} orders tied items by ties={ties!r}, which"
    else:
        if profile is not None:
            resolve_conventions(None, profile, {})  # an unknown profile is still an error
        source = f"ties={ties!r}"
    if not isinstance(ties, str) or ties not in LIST_TIES:
        if isinstance(ties, str) and ties in ("optimistic", "pessimistic", "expected", "grouped"):
            raise UnsupportedError(
                f"{what}: {source} needs relevance judgments or averages over tied "
                "orders, and a recommendation list has neither; pass ties='trec' (item id "
                "descending, trec_eval) or ties='input' (the order of the rows)."
            )
        raise InputError(
            f"{what}: ties must be one of {', '.join(map(repr, LIST_TIES))}, got {ties!r}."
        )
    return ties


def user_lists(
    recs: Run, k: int | None, what: str, ties: str | None = None, profile: str | None = None
) -> Lists:
    """Each user's top-``k`` list, ordered by :func:`ranklens.ranking.engine.order_rankings`
    (score descending, equal scores by the tie policy); kept on ``recs`` (immutable), so
    several metrics of one run order its lists once."""
    _check_k(recs, k, what)
    policy = list_ties(ties, profile, what)
    key = f"lists:{k}:{policy}"
    lists = recs.cached(key)
    if lists is None:
        lists = _user_lists(recs, k, policy)
        recs.keep(key, lists)
    return lists


def _user_lists(recs: Run, k: int | None, policy: str) -> Lists:
    from ranklens.ranking.engine import order_rankings

    pairs = recs._pairs
    qdict = pairs.query_dict
    qcode = pairs.query_code
    n_users = len(qdict)
    by_text = sorted_order(qdict)
    in_text_order = bool(np.all(by_text[1:] > by_text[:-1]))
    users = qdict if in_text_order else qdict.take(from_numpy(by_text))
    width = pairs.blocks
    # lists of one length are ordered by the codes as they are and their blocks then put
    # in user id order; others are ordered by codes in user id order
    ucode = qcode
    if not in_text_order and width is None:
        urank = np.empty(n_users, dtype=np.int64)
        urank[by_text] = np.arange(n_users, dtype=np.int64)
        ucode = urank[qcode]
    within = None
    if policy == "trec":

        def within() -> np.ndarray:
            # the item's rank among its user's items (doc_rank numbers the rows of one
            # user consecutively in item id order): a narrow tie key, read only if two
            # items of a user tie on score
            qstart = np.zeros(n_users + 1, dtype=np.int64)
            np.cumsum(np.bincount(qcode, minlength=n_users), out=qstart[1:])
            return np.asarray(pairs.doc_rank, dtype=np.int64) - qstart[qcode]

    rows = order_rankings(
        ucode,
        n_users,
        recs.scores,
        policy,
        doc_rank=within,
        depth=None if k is None else int(k),
        blocks=width,
    )
    if width is not None:  # lists of one length (top-n recommendations)
        cut = width if k is None else min(int(k), width)
        lengths = np.full(n_users, cut, dtype=np.int64)
        if not in_text_order:
            rows = rows.reshape(n_users, cut)[by_text].reshape(-1)
    else:
        lengths = np.bincount(ucode, minlength=n_users)
        if k is not None:
            lengths = np.minimum(lengths, int(k))
    d = recs._d
    if pa.types.is_dictionary(d.type):
        items = d.dictionary
        item = to_numpy(d.indices)[rows].astype(np.int32, copy=False)
    else:  # plain strings: hash the kept rows' ids only
        items, item = id_codes(d.take(from_numpy(rows)))
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return Lists(users, items, item, offsets)
