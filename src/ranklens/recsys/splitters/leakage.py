"""Future data in training: the check every time-aware splitter runs on its folds."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens._shared.deprecation import renamed_keyword
from ranklens.errors import RanklensError
from ranklens.recsys.splitters._data import Interactions

__all__ = ["LeakageError", "check_leakage", "check_rows"]

Index = np.ndarray


class LeakageError(RanklensError, ValueError):
    """A test interaction happens before the training cut (future data in training)."""


def check_leakage(
    X: Any,
    train_idx: Index,
    test_idx: Index,
    *,
    time: str = "timestamp",
    user: str | None = None,
    time_col: str | None = None,
    user_col: str | None = None,
) -> None:
    """Raise :class:`LeakageError` if a test interaction precedes the training cut.

    Without ``user`` the cut is global: every test timestamp must be at or
    after the latest training timestamp.  With ``user`` (the user column) it is
    per user (leave-last-N style protocols): each user's test interactions must
    be at or after that user's latest training interaction.  Equal timestamps
    are not leakage.  ``time`` names the time column.  (``time_col=`` and
    ``user_col=`` are the deprecated spellings of ``time=`` and ``user=``.)

    >>> import pandas as pd
    >>> df = pd.DataFrame({"timestamp": [1, 2, 3]})
    >>> check_leakage(df, [0, 1], [2])
    >>> check_leakage(df, [0, 2], [1])
    Traceback (most recent call last):
    ...
    ranklens.recsys.splitters.leakage.LeakageError: check_leakage: 1 test interaction(s)
    precede the training cut 3 (the earliest at 2); the split puts future data into training.
    """
    what = "check_leakage"
    time = renamed_keyword(what, "time_col", time_col, "time", time)
    user = renamed_keyword(what, "user_col", user_col, "user", user)
    data = Interactions(X, what, user=user or "", item="", time=time)
    check_rows(
        data,
        np.asarray(train_idx, dtype=np.int64),
        np.asarray(test_idx, dtype=np.int64),
        per_user=user is not None,
    )


def check_rows(data: Interactions, train: Index, test: Index, *, per_user: bool) -> None:
    """:func:`check_leakage` on rows of already read columns."""
    if train.size == 0 or test.size == 0:
        return
    t = data.t
    if not per_user:
        cut = t[train].max()
        bad = t[test] < cut
        if bad.any():
            raise LeakageError(
                f"{data.what}: {int(bad.sum())} test interaction(s) precede the training cut "
                f"{data.text(cut)} (the earliest at {data.text(t[test].min())}); the split puts "
                "future data into training."
            )
        return
    ids, users = data.user_ids
    lowest = np.iinfo(np.int64).min if t.dtype.kind == "i" else -np.inf
    last = np.full(len(ids), lowest, dtype=t.dtype)
    np.maximum.at(last, users[train], t[train])
    bad = t[test] < last[users[test]]
    if bad.any():
        first = test[np.flatnonzero(bad)[0]]
        raise LeakageError(
            f"{data.what}: {int(bad.sum())} test interaction(s) precede their user's latest "
            f"training interaction, e.g. user {ids[int(users[first])].as_py()!r} at "
            f"{data.text(t[first])}; the split puts future data into training."
        )
