"""Per-user splitters: each user's latest interactions (or a share of them) are tested.

Rows are ordered per user by (timestamp, row position), from one stable sort
and group offsets, never a loop over users; leakage is checked per user.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

import numpy as np

from ranklens.errors import InputError
from ranklens.recsys.splitters._base import (
    RawSplits,
    Splitter,
    check_fraction,
    check_int,
    group_positions,
)
from ranklens.recsys.splitters._data import Interactions

__all__ = ["LeaveLastN", "LeaveOneOut", "UserRatioSplit"]


@dataclass(eq=False, repr=False)
class LeaveLastN(Splitter):
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

    n: int = 1

    _LEAKAGE: ClassVar[str | None] = "user"

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        n = check_int(self.n, self.name, "n", 1)
        order = np.lexsort((np.arange(data.n), data.t, data.users))
        pos, size = group_positions(data.users, order)
        is_test = size - pos <= n
        yield order[~is_test], order[is_test], {}


@dataclass(eq=False, repr=False)
class LeaveOneOut(LeaveLastN):
    """Per user, the last interaction by time is the test item (``LeaveLastN(1)``)."""

    n: int = field(default=1, init=False)


@dataclass(eq=False, repr=False)
class UserRatioSplit(Splitter):
    """Per user, a ``test_size`` share of the interactions goes to test.

    A user with ``m`` interactions gets ``floor(test_size * m + 0.5)`` test rows
    (so a user with one interaction and ``test_size < 0.5`` has none):
    the latest ones by time (``by="time"``, the default; leakage-checked per
    user) or a random subset (``by="random"``, seeded by ``random_state``).
    """

    test_size: float = 0.2
    _: KW_ONLY
    by: str = "time"
    random_state: int | np.random.Generator | None = None

    def _leakage(self) -> str | None:
        return "user" if self.by == "time" else None

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        frac = check_fraction(self.test_size, self.name, "test_size")
        if self.by == "time":
            key = data.t
        elif self.by == "random":
            key = np.random.default_rng(self.random_state).permutation(data.n)
        else:
            raise InputError(f"{self.name}: by must be 'time' or 'random', got {self.by!r}.")
        order = np.lexsort((np.arange(data.n), key, data.users))
        pos, size = group_positions(data.users, order)
        n_test = np.floor(frac * size + 0.5).astype(np.int64)
        is_test = size - pos <= n_test
        yield order[~is_test], order[is_test], {}
