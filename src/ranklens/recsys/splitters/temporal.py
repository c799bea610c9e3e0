"""Time-based splitters: one global cut, or consecutive test windows.

Every test interaction is at or after the training cut, and each fold is
checked for it (:func:`~ranklens.recsys.splitters.leakage.check_leakage`).
Instants are dates or datetimes on a timestamp column and numbers on a numeric
one; windows and gaps are durations (:mod:`ranklens._shared.durations`:
``"7D"``, ``"2 weeks"``, ``"12h"``, a timedelta) or numbers likewise.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, ClassVar

import numpy as np

from ranklens._shared.durations import as_duration
from ranklens._shared.frames import as_instant
from ranklens.errors import InputError
from ranklens.recsys.splitters._base import (
    Index,
    RawSplits,
    Splitter,
    check_fraction,
    share,
)
from ranklens.recsys.splitters._data import Interactions

__all__ = ["GlobalTimeSplit", "TimeRangeCV"]


@dataclass(eq=False, repr=False)
class GlobalTimeSplit(Splitter):
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

    test_start: Any = None
    _: KW_ONLY
    test_size: float | None = None
    test_end: Any = None
    gap: Any = None

    _LEAKAGE: ClassVar[str | None] = "global"

    def _cut(self, data: Interactions, rows: Index) -> float | int:
        if (self.test_start is None) == (self.test_size is None):
            raise InputError(
                f"{self.name}: give exactly one of test_start (a date or number) and test_size "
                f"(a fraction); got test_start={self.test_start!r}, "
                f"test_size={self.test_size!r}."
            )
        t = data.t[rows]
        if self.test_start is not None:
            cut = as_instant(self.test_start, data.kind, "test_start", self.name)
            if t.size and cut > t.max():
                raise InputError(
                    f"{self.name}: test_start={self.test_start!r} is after the last interaction "
                    f"({data.text(t.max())}), so the test side would be empty; choose an "
                    "earlier test_start."
                )
            return cut
        m = share(check_fraction(self.test_size, self.name, "test_size"), t.size)
        return t[np.argpartition(t, t.size - m)[t.size - m]].item()

    def _masks(self, data: Interactions, rows: Index) -> tuple[Index, Index, dict[str, str]]:
        """The training and test rows among ``rows``, and the cuts as text."""
        cut = self._cut(data, rows)
        gap = as_duration(self.gap, data.kind, "gap", self.name, zero_ok=True)
        t = data.t[rows]
        test_mask = t >= cut
        cuts = {"train_end": data.text(cut - gap), "test_start": data.text(cut)}
        if self.test_end is not None:
            end = as_instant(self.test_end, data.kind, "test_end", self.name)
            if end <= cut:
                raise InputError(
                    f"{self.name}: test_end={self.test_end!r} must be after the test start "
                    f"{data.text(cut)}."
                )
            test_mask &= t < end
            cuts["test_end"] = data.text(end)
        return rows[t < cut - gap], rows[test_mask], cuts

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        yield self._masks(data, np.arange(data.n))


@dataclass(eq=False, repr=False)
class TimeRangeCV(Splitter):
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

    n_splits: int = 3
    _: KW_ONLY
    test_size: Any = "7D"
    gap: Any = None

    _LEAKAGE: ClassVar[str | None] = "global"

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        n = self.get_n_splits()
        w = as_duration(self.test_size, data.kind, "test_size", self.name)
        gap = as_duration(self.gap, data.kind, "gap", self.name, zero_ok=True)
        t = data.t
        t_max, t_min = t.max().item(), t.min().item()
        first_start = t_max - n * w
        if first_start - gap < t_min:
            fit = int((t_max - t_min - gap) // w) if t_max - t_min - gap > 0 else 0
            raise InputError(
                f"{self.name}: the oldest test window starts at {data.text(first_start)}, "
                f"{'minus the gap, ' if gap else ''}before the first interaction "
                f"({data.text(t_min)}), so fold 0 would have no training data; use at most "
                f"n_splits={max(fit, 0)} with test_size={self.test_size!r}, or a shorter window."
            )
        for k in range(n):
            start = t_max - (n - k) * w
            stop = start + w
            test = np.flatnonzero((t > start) & (t <= stop))
            train = np.flatnonzero(t <= start - gap)
            cuts = {
                "train_end": data.text(start - gap),
                "test_start": data.text(start),
                "test_end": data.text(stop),
            }
            if test.size == 0:
                raise InputError(
                    f"{self.name}: fold {k} tests ({data.text(start)}, {data.text(stop)}], "
                    "which contains no interaction; use a longer test_size or fewer folds."
                )
            yield train, test, cuts
