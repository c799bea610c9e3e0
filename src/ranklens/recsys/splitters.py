"""Validation splits of interaction logs, in scikit-learn's splitter shape.

Every splitter stores its parameters in ``__init__`` and nothing else;
``split(X, y=None, groups=None)`` yields ``(train_idx, test_idx)`` pairs of
sorted int64 row positions into ``X`` (a pandas, polars or pyarrow table of
interactions whose user, item and timestamp columns are named by
``user_col``, ``item_col`` and ``time_col``); ``get_n_splits`` says how many
pairs ``split`` yields; ``split_frames`` yields the row subsets themselves.
After (or while) splitting, ``report_`` holds one :class:`FoldReport` per fold
with the sizes and what cold-start filtering removed.

Time-based splitters (:class:`GlobalTimeSplit`, :class:`TimeRangeCV`,
:class:`NestedTwoStageSplit`) put every test interaction at or after the
training cut and check it (:func:`check_leakage`, raising
:class:`LeakageError`); the per-user splitters (:class:`LeaveLastN`,
:class:`LeaveOneOut`, :class:`UserRatioSplit`) check it per user.  Timestamps
may be datetimes (any resolution; time-zone aware columns are compared in UTC)
or numbers (e.g. Unix seconds); anything else is an :class:`InputError`.

k-fold, stratified k-fold, leave-p-out and group k-fold are scikit-learn's own
splitters (:class:`KFoldSplit` etc. build them; :class:`SklearnSplit` wraps any
other), with ranklens' frame handling and cold-start options added.

Everything is vectorised: per-user positions come from one stable sort and
group offsets, never from a loop over users.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ranklens._shared.deps import needs
from ranklens.errors import InputError, RanklensError
from ranklens.recsys._frame import (
    column,
    encode,
    format_time,
    n_rows,
    take_rows,
    timestamps,
    to_duration,
    to_time,
)

__all__ = [
    "FoldReport",
    "GlobalTimeSplit",
    "GroupKFoldSplit",
    "KFoldSplit",
    "LeakageError",
    "LeaveLastN",
    "LeaveOneOut",
    "LeavePOutSplit",
    "NestedTwoStageSplit",
    "RandomSplit",
    "SklearnSplit",
    "StratifiedKFoldSplit",
    "TimeRangeCV",
    "TwoStageSplit",
    "UserRatioSplit",
    "check_leakage",
]

Index = np.ndarray


class LeakageError(RanklensError, ValueError):
    """A test interaction happens before the training cut (future data in training)."""


@dataclass(frozen=True)
class FoldReport:
    """What one fold of a split contains and what cold-start filtering removed.

    ``cold_users_dropped`` / ``cold_items_dropped`` count distinct test users /
    items without any training interaction whose test rows were removed;
    ``test_rows_dropped`` counts the removed rows.  ``train_end`` and
    ``test_start`` / ``test_end`` are the time cut(s) as text, where the
    splitter has one.
    """

    fold: int
    n_train: int
    n_test: int
    cold_users_dropped: int = 0
    cold_items_dropped: int = 0
    test_rows_dropped: int = 0
    train_end: str | None = None
    test_start: str | None = None
    test_end: str | None = None


# -- the columns of one table, decoded once -------------------------------------------


class _Data:
    """Lazily decoded columns of an interaction table."""

    def __init__(self, X: Any, owner: _Splitter) -> None:
        self.X = X
        self.what = type(owner).__name__
        self.owner = owner
        self.n = n_rows(X, self.what)
        if self.n == 0:
            raise InputError(f"{self.what}: the interaction table has no rows.")

    def _codes(self, col: str, role: str) -> np.ndarray:
        values = column(self.X, col, self.what, role)
        if values.dtype == object and any(v is None for v in values[:1000]):
            raise InputError(f"{self.what}: the {role} column {col!r} has missing ids.")
        return encode(values)[1]

    @cached_property
    def users(self) -> np.ndarray:
        return self._codes(self.owner.user_col, "user")

    @cached_property
    def items(self) -> np.ndarray:
        return self._codes(self.owner.item_col, "item")

    @cached_property
    def _time(self) -> tuple[np.ndarray, bool]:
        col = self.owner.time_col
        return timestamps(column(self.X, col, self.what, "time"), col, self.what)

    @property
    def t(self) -> np.ndarray:
        return self._time[0]

    @property
    def is_datetime(self) -> bool:
        return self._time[1]

    def fmt(self, value: float | int) -> str:
        return format_time(value, self.is_datetime)


def _group_positions(keys_primary: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by ``order`` (grouped by ``keys_primary``), return each row's
    0-based position inside its group and its group's size (both in sorted order)."""
    g = keys_primary[order]
    n = g.size
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, n])
    group_of_row = np.repeat(np.arange(starts.size), sizes)
    pos = np.arange(n) - starts[group_of_row]
    return pos, sizes[group_of_row]


def _check_fraction(value: Any, what: str, param: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not (
        0 < float(value) < 1
    ):
        raise InputError(
            f"{what}: the {param!r} parameter must be a float in the open interval (0, 1). "
            f"Got {value!r} instead."
        )
    return float(value)


def _check_int(value: Any, what: str, param: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InputError(
            f"{what}: the {param!r} parameter must be an int in the range [{low}, inf). "
            f"Got {value!r} instead."
        )
    return int(value)


# -- leakage ----------------------------------------------------------------------------


def check_leakage(
    X: Any,
    train_idx: Index,
    test_idx: Index,
    *,
    time_col: str = "timestamp",
    user_col: str | None = None,
) -> None:
    """Raise :class:`LeakageError` if a test interaction precedes the training cut.

    Without ``user_col`` the cut is global: every test timestamp must be at or
    after the latest training timestamp.  With ``user_col`` it is per user
    (leave-last-N style protocols): each user's test interactions must be at or
    after that user's latest training interaction.  Equal timestamps are not
    leakage.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"timestamp": [1, 2, 3]})
    >>> check_leakage(df, [0, 1], [2])
    >>> check_leakage(df, [0, 2], [1])
    Traceback (most recent call last):
    ...
    ranklens.recsys.splitters.LeakageError: check_leakage: 1 test interaction(s) precede the training cut 3 (the earliest at 2); the split puts future data into training.
    """
    what = "check_leakage"
    t, is_dt = timestamps(column(X, time_col, what, "time"), time_col, what)
    train = np.asarray(train_idx, dtype=np.int64)
    test = np.asarray(test_idx, dtype=np.int64)
    if train.size == 0 or test.size == 0:
        return
    if user_col is None:
        cut = t[train].max()
        bad = t[test] < cut
        if bad.any():
            raise LeakageError(
                f"{what}: {int(bad.sum())} test interaction(s) precede the training cut "
                f"{format_time(cut, is_dt)} (the earliest at {format_time(t[test].min(), is_dt)});"
                " the split puts future data into training."
            )
        return
    uniq, users = encode(column(X, user_col, what, "user"))
    last = np.full(uniq.size, -np.inf)
    np.maximum.at(last, users[train], t[train].astype(np.float64))
    bad = t[test].astype(np.float64) < last[users[test]]
    if bad.any():
        first = test[np.flatnonzero(bad)[0]]
        raise LeakageError(
            f"{what}: {int(bad.sum())} test interaction(s) precede their user's latest "
            f"training interaction, e.g. user {str(uniq[users[first]])!r} at "
            f"{format_time(t[first], is_dt)}; the split puts future data into training."
        )


# -- base class -------------------------------------------------------------------------


class _Splitter:
    """Shared machinery: cold-start filtering, empty-fold checks, reports."""

    user_col: str
    item_col: str
    time_col: str
    drop_cold_users: bool
    drop_cold_items: bool
    _leakage: str | None = None  # None, "global" or "user"

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        raise NotImplementedError

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of (train, test) pairs :meth:`split` yields: ``n_splits`` for the
        splitters that take it, else 1."""
        n = getattr(self, "n_splits", None)
        return 1 if n is None else _check_int(n, type(self).__name__, "n_splits", 1)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[Index, Index]]:
        """Yield ``(train_idx, test_idx)``: sorted int64 row positions into ``X``."""
        data = _Data(X, self)
        reports: list[FoldReport] = []
        self.report_ = reports
        for fold, (train, test, cuts) in enumerate(self._raw_splits(data, y, groups)):
            train, test, rep = self._finish(data, fold, train, test, cuts)
            reports.append(rep)
            yield train, test

    def split_frames(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[
        tuple[Any, Any]
    ]:
        """Like :meth:`split`, but yield ``(train_rows, test_rows)`` tables of ``X``'s type."""
        for train, test in self.split(X, y, groups):
            yield take_rows(X, train), take_rows(X, test)

    def _finish(self, data: _Data, fold: int, train: Index, test: Index,
                cuts: dict[str, str]) -> tuple[Index, Index, FoldReport]:
        what = type(self).__name__
        train = np.sort(np.asarray(train, dtype=np.int64))
        test = np.sort(np.asarray(test, dtype=np.int64))
        if train.size == 0:
            raise InputError(
                f"{what}: fold {fold} has an empty training side "
                f"({test.size} test rows); choose a later cut, fewer folds or a smaller "
                "test size."
            )
        if test.size == 0:
            raise InputError(
                f"{what}: fold {fold} has an empty test side ({train.size} training rows); "
                "choose an earlier cut, fewer folds or a larger test size."
            )
        n_users = n_items = dropped = 0
        if self.drop_cold_users or self.drop_cold_items:
            cold = np.zeros(test.size, dtype=bool)
            for flag, codes in ((self.drop_cold_users, "users"), (self.drop_cold_items, "items")):
                if not flag:
                    continue
                c = getattr(data, codes)
                seen = np.zeros(int(c.max()) + 1, dtype=bool)
                seen[c[train]] = True
                mask = ~seen[c[test]]
                count = int(np.unique(c[test][mask]).size)
                if codes == "users":
                    n_users = count
                else:
                    n_items = count
                cold |= mask
            dropped = int(cold.sum())
            test = test[~cold]
            if test.size == 0:
                raise InputError(
                    f"{what}: fold {fold} has no test rows left after dropping cold users/items "
                    f"({dropped} rows of {n_users} cold users and {n_items} cold items "
                    "removed); use a longer training period or keep cold users/items."
                )
        if self._leakage is not None:
            check_leakage(data.X, train, test, time_col=self.time_col,
                          user_col=self.user_col if self._leakage == "user" else None)
        rep = FoldReport(fold, int(train.size), int(test.size), n_users, n_items, dropped,
                         cuts.get("train_end"), cuts.get("test_start"), cuts.get("test_end"))
        return train, test, rep

    def __repr__(self) -> str:
        import inspect

        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        args = ", ".join(f"{p}={getattr(self, p)!r}" for p in names)
        return f"{type(self).__name__}({args})"


# -- time-based -------------------------------------------------------------------------


class GlobalTimeSplit(_Splitter):
    """One global time split: train before the cut, test from the cut on.

    Give either ``test_start`` (a date/datetime, or a number on a numeric time
    column) or ``test_size`` (a fraction in (0, 1): the cut is the timestamp at
    which the last ``round(test_size * n)`` interactions start; interactions
    tied with the cut go to test too).  Test = ``t >= cut``; train =
    ``t < cut - gap`` (``gap`` like ``"1D"``, a timedelta or a number drops
    the interactions just before the cut from training, e.g. to mimic a
    deployment delay).  Optionally ``test_end`` bounds the test side
    (``t < test_end``).

    >>> import pandas as pd
    >>> df = pd.DataFrame({"user_id": [1, 1, 2, 2], "item_id": [1, 2, 1, 3],
    ...                    "timestamp": pd.to_datetime(["2024-01-01", "2024-01-05",
    ...                                                 "2024-01-02", "2024-01-09"])})
    >>> [(tr.tolist(), te.tolist()) for tr, te in GlobalTimeSplit("2024-01-05").split(df)]
    [([0, 2], [1, 3])]
    """

    _leakage = "global"

    def __init__(
        self,
        test_start: Any = None,
        *,
        test_size: float | None = None,
        test_end: Any = None,
        gap: Any = None,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.test_start = test_start
        self.test_size = test_size
        self.test_end = test_end
        self.gap = gap
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _cut(self, data: _Data, rows: Index | None = None) -> float | int:
        what = type(self).__name__
        if (self.test_start is None) == (self.test_size is None):
            raise InputError(
                f"{what}: give exactly one of test_start (a date or number) and test_size "
                f"(a fraction); got test_start={self.test_start!r}, "
                f"test_size={self.test_size!r}."
            )
        t = data.t if rows is None else data.t[rows]
        if self.test_start is not None:
            cut = to_time(self.test_start, data.is_datetime, what, "test_start")
            if t.size and cut > t.max():
                raise InputError(
                    f"{what}: test_start={self.test_start!r} is after the last interaction "
                    f"({data.fmt(t.max())}), so the test side would be empty; choose an "
                    "earlier test_start."
                )
            return cut
        frac = _check_fraction(self.test_size, what, "test_size")
        n = t.size
        m = min(max(int(np.floor(frac * n + 0.5)), 1), n)
        return t[np.argpartition(t, n - m)[n - m]].item()

    def _masks(self, data: _Data, rows: Index) -> tuple[Index, Index, dict[str, str]]:
        what = type(self).__name__
        cut = self._cut(data, rows)
        gap = to_duration(self.gap, data.is_datetime, what, "gap")
        t = data.t[rows]
        test_mask = t >= cut
        cuts = {"train_end": data.fmt(cut - gap), "test_start": data.fmt(cut)}
        if self.test_end is not None:
            end = to_time(self.test_end, data.is_datetime, what, "test_end")
            if end <= cut:
                raise InputError(
                    f"{what}: test_end={self.test_end!r} must be after the test start "
                    f"{data.fmt(cut)}."
                )
            test_mask &= t < end
            cuts["test_end"] = data.fmt(end)
        return rows[t < cut - gap], rows[test_mask], cuts

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        yield self._masks(data, np.arange(data.n))


class TimeRangeCV(_Splitter):
    """Time-range cross-validation: ``n_splits`` consecutive test windows of length
    ``test_size`` ending at the last interaction, training on everything before
    each window.

    With ``T`` the latest timestamp and ``w`` the window, fold ``k`` (0 = the
    oldest) tests ``T - (n-k)w < t <= T - (n-k-1)w`` and trains on
    ``t <= T - (n-k)w - gap``.  Windows are durations (``"7D"``, ``"12h"``,
    a timedelta) on datetime columns and numbers on numeric ones.  A window that
    reaches before the first interaction (an empty training side) or contains no
    interaction is an :class:`InputError`.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"user_id": [1] * 6, "item_id": range(6),
    ...                    "timestamp": [1, 2, 3, 4, 5, 6]})
    >>> [(tr.tolist(), te.tolist()) for tr, te in TimeRangeCV(2, test_size=2).split(df)]
    [([0, 1], [2, 3]), ([0, 1, 2, 3], [4, 5])]
    """

    _leakage = "global"

    def __init__(
        self,
        n_splits: int = 3,
        *,
        test_size: Any = "7D",
        gap: Any = None,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.n_splits = n_splits
        self.test_size = test_size
        self.gap = gap
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        what = type(self).__name__
        n = self.get_n_splits()
        w = to_duration(self.test_size, data.is_datetime, what, "test_size")
        if w <= 0:
            raise InputError(f"{what}: test_size must be a positive duration, got "
                             f"{self.test_size!r}.")
        gap = to_duration(self.gap, data.is_datetime, what, "gap")
        t = data.t
        t_max, t_min = t.max().item(), t.min().item()
        first_start = t_max - n * w
        if first_start - gap < t_min:
            fit = int((t_max - t_min - gap) // w) if t_max - t_min - gap > 0 else 0
            raise InputError(
                f"{what}: the oldest test window starts at {data.fmt(first_start)}, "
                f"{'minus the gap, ' if gap else ''}before the first interaction "
                f"({data.fmt(t_min)}), so fold 0 would have no training data; use at most "
                f"n_splits={max(fit, 0)} with test_size={self.test_size!r}, or a shorter window."
            )
        for k in range(n):
            start = t_max - (n - k) * w
            stop = start + w
            test = np.flatnonzero((t > start) & (t <= stop))
            train = np.flatnonzero(t <= start - gap)
            cuts = {"train_end": data.fmt(start - gap), "test_start": data.fmt(start),
                    "test_end": data.fmt(stop)}
            if test.size == 0:
                raise InputError(
                    f"{what}: fold {k} tests ({data.fmt(start)}, {data.fmt(stop)}], which "
                    "contains no interaction; use a longer test_size or fewer folds."
                )
            yield train, test, cuts


class LeaveLastN(_Splitter):
    """Per user, the last ``n`` interactions by time go to test, the rest to train.

    Rows are ordered per user by (timestamp, row position), so equal timestamps
    keep their input order.  Users with ``n`` or fewer interactions have all of
    them in test (they are cold; ``drop_cold_users=True`` removes them and
    reports the count).  The leakage check is per user.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"user_id": ["a", "a", "a", "b", "b"], "item_id": [1, 2, 3, 1, 4],
    ...                    "timestamp": [3, 1, 2, 5, 9]})
    >>> [(tr.tolist(), te.tolist()) for tr, te in LeaveLastN(1).split(df)]
    [([1, 2, 3], [0, 4])]
    """

    _leakage = "user"

    def __init__(
        self,
        n: int = 1,
        *,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.n = n
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        n = _check_int(self.n, type(self).__name__, "n", 1)
        order = np.lexsort((np.arange(data.n), data.t, data.users))
        pos, size = _group_positions(data.users, order)
        is_test = size - pos <= n
        yield order[~is_test], order[is_test], {}


class LeaveOneOut(LeaveLastN):
    """Per user, the last interaction by time is the test item (``LeaveLastN(1)``)."""

    def __init__(
        self,
        *,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        super().__init__(1, user_col=user_col, item_col=item_col, time_col=time_col,
                         drop_cold_users=drop_cold_users, drop_cold_items=drop_cold_items)

    def __repr__(self) -> str:
        return (f"LeaveOneOut(user_col={self.user_col!r}, item_col={self.item_col!r}, "
                f"time_col={self.time_col!r}, drop_cold_users={self.drop_cold_users!r}, "
                f"drop_cold_items={self.drop_cold_items!r})")


class UserRatioSplit(_Splitter):
    """Per user, a ``test_size`` share of the interactions goes to test.

    A user with ``m`` interactions gets ``floor(test_size * m + 0.5)`` test rows
    (so a user with one interaction and ``test_size < 0.5`` has none):
    the latest ones by time (``by="time"``, the default; leakage-checked per
    user) or a random subset (``by="random"``, seeded by ``random_state``).
    """

    def __init__(
        self,
        test_size: float = 0.2,
        *,
        by: str = "time",
        random_state: int | np.random.Generator | None = None,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.test_size = test_size
        self.by = by
        self.random_state = random_state
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        what = type(self).__name__
        frac = _check_fraction(self.test_size, what, "test_size")
        if self.by == "time":
            self._leakage = "user"
            key = data.t
        elif self.by == "random":
            self._leakage = None
            key = np.random.default_rng(self.random_state).permutation(data.n)
        else:
            raise InputError(f"{what}: by must be 'time' or 'random', got {self.by!r}.")
        order = np.lexsort((np.arange(data.n), key, data.users))
        pos, size = _group_positions(data.users, order)
        n_test = np.floor(frac * size + 0.5).astype(np.int64)
        is_test = size - pos <= n_test
        yield order[~is_test], order[is_test], {}


class RandomSplit(_Splitter):
    """``n_splits`` independent random train/test splits of the interactions
    (``round(test_size * n)`` test rows each), reproducible from ``random_state``.
    Not time-aware: use it only where the protocol ignores time."""

    def __init__(
        self,
        test_size: float = 0.2,
        *,
        n_splits: int = 1,
        random_state: int | np.random.Generator | None = None,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.test_size = test_size
        self.n_splits = n_splits
        self.random_state = random_state
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        frac = _check_fraction(self.test_size, type(self).__name__, "test_size")
        rng = np.random.default_rng(self.random_state)
        m = min(max(int(np.floor(frac * data.n + 0.5)), 1), data.n)
        for _ in range(self.get_n_splits()):
            perm = rng.permutation(data.n)
            yield perm[m:], perm[:m], {}


# -- scikit-learn's splitters -----------------------------------------------------------


class SklearnSplit(_Splitter):
    """Any scikit-learn splitter (``KFold``, ``ShuffleSplit``, ``TimeSeriesSplit``, ...)
    over the rows of an interaction table, with cold-start filtering added.

    ``y_col`` / ``groups_col`` name the columns passed as ``y`` / ``groups``
    (explicit ``y`` / ``groups`` arguments to :meth:`split` win).  The folds are
    exactly scikit-learn's.
    """

    def __init__(
        self,
        cv: Any,
        *,
        y_col: str | None = None,
        groups_col: str | None = None,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.cv = cv
        self.y_col = y_col
        self.groups_col = groups_col
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _make_cv(self) -> Any:
        if not (hasattr(self.cv, "split") and hasattr(self.cv, "get_n_splits")):
            raise InputError(
                f"SklearnSplit: cv must be a scikit-learn splitter (with split and "
                f"get_n_splits), got {type(self.cv).__name__}."
            )
        return self.cv

    def _args(self, X: Any, y: Any, groups: Any) -> tuple[np.ndarray, Any, Any]:
        what = type(self).__name__
        n = n_rows(X, what)
        if y is None and self.y_col is not None:
            y = column(X, self.y_col, what, "y")
        if groups is None and self.groups_col is not None:
            groups = column(X, self.groups_col, what, "groups")
        return np.zeros((n, 1)), y, groups

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        cv = self._make_cv()
        if X is None:
            return int(cv.get_n_splits())
        return int(cv.get_n_splits(*self._args(X, y, groups)))

    def _raw_splits(self, data: _Data, y: Any, groups: Any) -> Iterator[
        tuple[Index, Index, dict[str, str]]
    ]:
        for train, test in self._make_cv().split(*self._args(data.X, y, groups)):
            yield train, test, {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.cv!r})"


class KFoldSplit(SklearnSplit):
    """scikit-learn's ``KFold`` over interactions (not time-aware)."""

    def __init__(self, n_splits: int = 5, *, shuffle: bool = False,
                 random_state: int | None = None, user_col: str = "user_id",
                 item_col: str = "item_id", drop_cold_users: bool = False,
                 drop_cold_items: bool = False) -> None:
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state
        self.y_col = self.groups_col = None
        self.user_col, self.item_col, self.time_col = user_col, item_col, "timestamp"
        self.drop_cold_users, self.drop_cold_items = drop_cold_users, drop_cold_items

    def _make_cv(self) -> Any:
        with needs("ml", "ranklens.recsys.KFoldSplit"):
            from sklearn.model_selection import KFold

        return KFold(self.n_splits, shuffle=self.shuffle, random_state=self.random_state)

    def __repr__(self) -> str:
        return (f"KFoldSplit(n_splits={self.n_splits!r}, shuffle={self.shuffle!r}, "
                f"random_state={self.random_state!r})")


class StratifiedKFoldSplit(SklearnSplit):
    """scikit-learn's ``StratifiedKFold``, stratified on the column ``y_col``
    (e.g. a rating or a click label)."""

    def __init__(self, n_splits: int = 5, *, y_col: str = "rating", shuffle: bool = False,
                 random_state: int | None = None, user_col: str = "user_id",
                 item_col: str = "item_id", drop_cold_users: bool = False,
                 drop_cold_items: bool = False) -> None:
        self.n_splits = n_splits
        self.y_col = y_col
        self.groups_col = None
        self.shuffle = shuffle
        self.random_state = random_state
        self.user_col, self.item_col, self.time_col = user_col, item_col, "timestamp"
        self.drop_cold_users, self.drop_cold_items = drop_cold_users, drop_cold_items

    def _make_cv(self) -> Any:
        with needs("ml", "ranklens.recsys.StratifiedKFoldSplit"):
            from sklearn.model_selection import StratifiedKFold

        return StratifiedKFold(self.n_splits, shuffle=self.shuffle,
                               random_state=self.random_state)

    def __repr__(self) -> str:
        return f"StratifiedKFoldSplit(n_splits={self.n_splits!r}, y_col={self.y_col!r})"


class LeavePOutSplit(SklearnSplit):
    """scikit-learn's ``LeavePOut`` (every set of ``p`` rows is a test set once;
    ``C(n, p)`` splits, so only for small tables)."""

    def __init__(self, p: int = 1, *, user_col: str = "user_id", item_col: str = "item_id",
                 drop_cold_users: bool = False, drop_cold_items: bool = False) -> None:
        self.p = p
        self.y_col = self.groups_col = None
        self.user_col, self.item_col, self.time_col = user_col, item_col, "timestamp"
        self.drop_cold_users, self.drop_cold_items = drop_cold_users, drop_cold_items

    def _make_cv(self) -> Any:
        with needs("ml", "ranklens.recsys.LeavePOutSplit"):
            from sklearn.model_selection import LeavePOut

        return LeavePOut(self.p)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        if X is None:
            raise InputError("LeavePOutSplit.get_n_splits needs X (the count is C(n, p)).")
        return super().get_n_splits(X, y, groups)

    def __repr__(self) -> str:
        return f"LeavePOutSplit(p={self.p!r})"


class GroupKFoldSplit(SklearnSplit):
    """scikit-learn's ``GroupKFold`` with the groups taken from ``groups_col``
    (by default the user column: every user is entirely in train or in test,
    i.e. a cold-user protocol)."""

    def __init__(self, n_splits: int = 5, *, groups_col: str = "user_id",
                 user_col: str = "user_id", item_col: str = "item_id",
                 drop_cold_items: bool = False) -> None:
        self.n_splits = n_splits
        self.groups_col = groups_col
        self.y_col = None
        self.user_col, self.item_col, self.time_col = user_col, item_col, "timestamp"
        self.drop_cold_users, self.drop_cold_items = False, drop_cold_items

    def _make_cv(self) -> Any:
        with needs("ml", "ranklens.recsys.GroupKFoldSplit"):
            from sklearn.model_selection import GroupKFold

        return GroupKFold(self.n_splits)

    def __repr__(self) -> str:
        return f"GroupKFoldSplit(n_splits={self.n_splits!r}, groups_col={self.groups_col!r})"


# -- the nested two-stage split ---------------------------------------------------------


@dataclass(frozen=True)
class TwoStageSplit:
    """Row positions of the nested two-stage protocol (all sorted int64 arrays).

    1. ``global_train`` / ``global_test``: a time split of the whole log;
    2. ``local_train`` / ``local_test``: a time split of ``global_train``;
       the candidate generator is trained on ``local_train`` and predicts for
       ``local_test``;
    3. ``ranker_train`` / ``ranker_test``: ``local_test`` split by users; the
       re-ranker is trained on the first and validated on the second;
    4. the final system (generator from 2, ranker from 3) is scored on
       ``global_test``.
    """

    global_train: Index
    global_test: Index
    local_train: Index
    local_test: Index
    ranker_train: Index
    ranker_test: Index
    reports: dict[str, FoldReport] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Index]:
        """``{name: row positions}`` of the six index sets."""
        return {k: getattr(self, k) for k in ("global_train", "global_test", "local_train",
                                              "local_test", "ranker_train", "ranker_test")}


class NestedTwoStageSplit(_Splitter):
    """The nested split for candidate generation + re-ranking (seed 003).

    The global split is a :class:`GlobalTimeSplit` with ``test_start`` /
    ``test_size`` / ``gap``; the local split applies ``local_test_start`` /
    ``local_test_size`` (same meaning) to the global training rows; the users of
    the local test side are shuffled (``random_state``) and a
    ``ranker_test_size`` share of them (at least one, and at least one left)
    forms ``ranker_test``.  Cold filtering applies to the global test (against
    global train) and the local test (against local train).

    :meth:`split_stages` returns a :class:`TwoStageSplit` with all six index
    sets; :meth:`split` yields the single ``(global_train, global_test)`` pair,
    so the object also works wherever a scikit-learn splitter is expected.
    """

    _leakage = "global"

    def __init__(
        self,
        test_start: Any = None,
        *,
        test_size: float | None = None,
        local_test_start: Any = None,
        local_test_size: float | None = None,
        ranker_test_size: float = 0.5,
        gap: Any = None,
        random_state: int | np.random.Generator | None = None,
        user_col: str = "user_id",
        item_col: str = "item_id",
        time_col: str = "timestamp",
        drop_cold_users: bool = False,
        drop_cold_items: bool = False,
    ) -> None:
        self.test_start = test_start
        self.test_size = test_size
        self.local_test_start = local_test_start
        self.local_test_size = local_test_size
        self.ranker_test_size = ranker_test_size
        self.gap = gap
        self.random_state = random_state
        self.user_col = user_col
        self.item_col = item_col
        self.time_col = time_col
        self.drop_cold_users = drop_cold_users
        self.drop_cold_items = drop_cold_items

    def _stage(self, start: Any, size: Any) -> GlobalTimeSplit:
        return GlobalTimeSplit(start, test_size=size, gap=self.gap, user_col=self.user_col,
                               item_col=self.item_col, time_col=self.time_col,
                               drop_cold_users=self.drop_cold_users,
                               drop_cold_items=self.drop_cold_items)

    def _run_stage(self, data: _Data, rows: Index, stage: str) -> tuple[Index, Index,
                                                                        FoldReport]:
        local = stage == "local"
        splitter = self._stage(self.local_test_start if local else self.test_start,
                               self.local_test_size if local else self.test_size)
        try:
            tr, te, cuts = splitter._masks(data, rows)
            return splitter._finish(data, 0, tr, te, cuts)
        except InputError as exc:
            msg = str(exc).removeprefix("GlobalTimeSplit: ").replace("fold 0", "the split")
            if local:
                msg = re.sub(r"\btest_(start|size)\b", r"local_test_\1", msg)
            raise InputError(f"{type(self).__name__} ({stage} split): {msg}") from None

    def split_stages(self, X: Any) -> TwoStageSplit:
        """All six index sets of the protocol (see :class:`TwoStageSplit`)."""
        what = type(self).__name__
        data = _Data(X, self)
        g_train, g_test, g_rep = self._run_stage(data, np.arange(data.n), "global")
        l_train, l_test, l_rep = self._run_stage(data, g_train, "local")
        frac = _check_fraction(self.ranker_test_size, what, "ranker_test_size")
        users = np.unique(data.users[l_test])
        if users.size < 2:
            raise InputError(
                f"{what}: the local test side has {users.size} user(s); splitting it by "
                "users into ranker train and ranker test needs at least 2. Choose an "
                "earlier local_test_start or a larger local_test_size."
            )
        m = min(max(int(np.floor(frac * users.size + 0.5)), 1), users.size - 1)
        chosen = np.random.default_rng(self.random_state).permutation(users)[:m]
        in_test = np.zeros(int(data.users.max()) + 1, dtype=bool)
        in_test[chosen] = True
        mask = in_test[data.users[l_test]]
        r_train, r_test = l_test[~mask], l_test[mask]
        reports = {"global": g_rep, "local": l_rep,
                   "ranker": FoldReport(0, int(r_train.size), int(r_test.size))}
        self.report_ = [g_rep]
        return TwoStageSplit(g_train, g_test, l_train, l_test, r_train, r_test, reports)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[Index, Index]]:
        """Yield the one ``(global_train, global_test)`` pair."""
        s = self.split_stages(X)
        yield s.global_train, s.global_test
