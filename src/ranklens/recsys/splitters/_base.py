"""What every splitter shares: the column keywords, cold-start filtering, the checks
of each fold (non-empty sides, no leakage) and its :class:`FoldReport`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import KW_ONLY, InitVar, dataclass, fields
from typing import Any, ClassVar

import numpy as np

from ranklens._shared.deprecation import renamed_keyword
from ranklens._shared.frames import take_rows
from ranklens.errors import InputError
from ranklens.recsys.splitters._data import Interactions
from ranklens.recsys.splitters.leakage import check_rows

__all__ = [
    "FoldReport",
    "Index",
    "RawSplits",
    "Splitter",
    "check_fraction",
    "check_int",
    "group_positions",
    "share",
]

Index = np.ndarray
#: What a splitter's ``_raw_splits`` yields: train rows, test rows and the time cuts
#: as text (``train_end``, ``test_start``, ``test_end``) where it has them.
RawSplits = Iterator[tuple[Index, Index, dict[str, str]]]


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


def check_fraction(value: Any, what: str, param: str) -> float:
    """A fraction in the open interval (0, 1)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.floating))
        or not (0 < float(value) < 1)
    ):
        raise InputError(
            f"{what}: the {param!r} parameter must be a float in the open interval (0, 1). "
            f"Got {value!r} instead."
        )
    return float(value)


def check_int(value: Any, what: str, param: str, low: int) -> int:
    """An integer of at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise InputError(
            f"{what}: the {param!r} parameter must be an int in the range [{low}, inf). "
            f"Got {value!r} instead."
        )
    return int(value)


def share(fraction: float, n: int, *, keep: int = 0) -> int:
    """``round(fraction * n)`` (halves up), at least 1 and at most ``n - keep``."""
    return min(max(int(np.floor(fraction * n + 0.5)), 1), n - keep)


def group_positions(keys: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by ``order`` (grouped by ``keys``), each row's 0-based position
    inside its group and its group's size (both in sorted order)."""
    g = keys[order]
    n = g.size
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, n])
    group_of_row = np.repeat(np.arange(starts.size), sizes)
    pos = np.arange(n) - starts[group_of_row]
    return pos, sizes[group_of_row]


@dataclass(eq=False, repr=False)
class Splitter:
    """The keywords and the machinery every splitter shares.

    ``user``, ``item`` and ``time`` name the columns of the interaction table
    (``user_col=``, ``item_col=`` and ``time_col=`` are their deprecated
    spellings); ``drop_cold_users`` / ``drop_cold_items`` remove from each
    fold's test side the rows of users / items without a training interaction
    (counted in :class:`FoldReport`).  A subclass states its own parameters and
    yields its raw folds (:meth:`_raw_splits`); :meth:`split` checks and
    reports them.
    """

    _: KW_ONLY
    user: str = "user_id"
    item: str = "item_id"
    time: str = "timestamp"
    drop_cold_users: bool = False
    drop_cold_items: bool = False
    user_col: InitVar[str | None] = None
    item_col: InitVar[str | None] = None
    time_col: InitVar[str | None] = None

    #: The deprecated keywords (InitVars, in the order of their declaration) and the
    #: fields they are the old spellings of.
    _RENAMED: ClassVar[tuple[tuple[str, str], ...]] = (
        ("user_col", "user"),
        ("item_col", "item"),
        ("time_col", "time"),
    )

    def __post_init__(self, *old_values: str | None) -> None:
        for (old, new), value in zip(self._RENAMED, old_values, strict=True):
            setattr(self, new, renamed_keyword(self.name, old, value, new, getattr(self, new)))

    @property
    def name(self) -> str:
        """The splitter's class name, which starts its messages."""
        return type(self).__name__

    #: How a fold is checked for leakage: ``"global"``, per ``"user"``, or not (None).
    _LEAKAGE: ClassVar[str | None] = None

    def _leakage(self) -> str | None:
        return self._LEAKAGE

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        raise NotImplementedError

    def _interactions(self, X: Any) -> Interactions:
        data = Interactions(X, self.name, user=self.user, item=self.item, time=self.time)
        if data.n == 0:
            raise InputError(f"{self.name}: the interaction table has no rows.")
        return data

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of (train, test) pairs :meth:`split` yields: ``n_splits`` for the
        splitters that take it, else 1."""
        n = getattr(self, "n_splits", None)
        return 1 if n is None else check_int(n, self.name, "n_splits", 1)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[Index, Index]]:
        """Yield ``(train_idx, test_idx)``: sorted int64 row positions into ``X``."""
        data = self._interactions(X)
        reports: list[FoldReport] = []
        self.report_ = reports
        for fold, (train, test, cuts) in enumerate(self._raw_splits(data, y, groups)):
            train, test, rep = self._finish(data, fold, train, test, cuts)
            reports.append(rep)
            yield train, test

    def split_frames(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[Any, Any]]:
        """Like :meth:`split`, but yield ``(train_rows, test_rows)`` tables of ``X``'s type."""
        for train, test in self.split(X, y, groups):
            yield take_rows(X, train), take_rows(X, test)

    def _drop_cold(
        self, data: Interactions, fold: int, train: Index, test: Index
    ) -> tuple[Index, int, int, int]:
        """The test rows left after cold-start filtering, and how many cold users, cold
        items and rows were dropped."""
        cold = np.zeros(test.size, dtype=bool)
        counts = {"users": 0, "items": 0}
        for flag, role in ((self.drop_cold_users, "users"), (self.drop_cold_items, "items")):
            if not flag:
                continue
            c = getattr(data, role)
            seen = np.zeros(int(c.max()) + 1, dtype=bool)
            seen[c[train]] = True
            mask = ~seen[c[test]]
            counts[role] = int(np.unique(c[test][mask]).size)
            cold |= mask
        dropped = int(cold.sum())
        test = test[~cold]
        if test.size == 0:
            raise InputError(
                f"{self.name}: fold {fold} has no test rows left after dropping cold users/items "
                f"({dropped} rows of {counts['users']} cold users and {counts['items']} cold "
                "items removed); use a longer training period or keep cold users/items."
            )
        return test, counts["users"], counts["items"], dropped

    def _finish(
        self, data: Interactions, fold: int, train: Index, test: Index, cuts: dict[str, str]
    ) -> tuple[Index, Index, FoldReport]:
        """Sort a raw fold's rows, check both sides, filter cold rows, check leakage."""
        train = np.sort(np.asarray(train, dtype=np.int64))
        test = np.sort(np.asarray(test, dtype=np.int64))
        if train.size == 0:
            raise InputError(
                f"{self.name}: fold {fold} has an empty training side "
                f"({test.size} test rows); choose a later cut, fewer folds or a smaller "
                "test size."
            )
        if test.size == 0:
            raise InputError(
                f"{self.name}: fold {fold} has an empty test side ({train.size} training "
                "rows); choose an earlier cut, fewer folds or a larger test size."
            )
        n_users = n_items = dropped = 0
        if self.drop_cold_users or self.drop_cold_items:
            test, n_users, n_items, dropped = self._drop_cold(data, fold, train, test)
        leakage = self._leakage()
        if leakage is not None:
            check_rows(data, train, test, per_user=leakage == "user")
        rep = FoldReport(
            fold,
            int(train.size),
            int(test.size),
            n_users,
            n_items,
            dropped,
            cuts.get("train_end"),
            cuts.get("test_start"),
            cuts.get("test_end"),
        )
        return train, test, rep

    def __repr__(self) -> str:
        """The splitter's own parameters first, then the shared keywords."""
        shared = {f.name for f in fields(Splitter)}
        shown = [f for f in fields(self) if f.init and f.repr]
        ordered = [f for f in shown if f.name not in shared] + [
            f for f in shown if f.name in shared
        ]
        args = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in ordered)
        return f"{self.name}({args})"
