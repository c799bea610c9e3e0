"""The columns of one interaction table, read once and only when a splitter needs them."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ranklens._shared.columns import sorted_id_codes
from ranklens._shared.frames import (
    TimeKind,
    as_time_column,
    columns_from_frame,
    materialise,
    n_rows,
)

__all__ = ["Interactions"]


class Interactions:
    """Lazily read columns of the table ``X``: user and item codes (ids in text
    order), times on the time column's scale (:class:`TimeKind`).  ``what``
    starts every message; ``user`` / ``item`` / ``time`` name the columns."""

    def __init__(self, X: Any, what: str, *, user: str, item: str, time: str) -> None:
        self.X = materialise(X)
        self.what = what
        self.names = {"user": user, "item": item, "time": time}
        self.n = n_rows(self.X, what)

    def column(self, name: str, role: str) -> Any:
        """Column ``name`` of the table (the error names ``role``'s keyword)."""
        return columns_from_frame(self.X, {role: name}, self.what)[role]

    def _id_codes(self, role: str) -> tuple[Any, np.ndarray]:
        name = self.names[role]
        return sorted_id_codes(self.column(name, role), f"{self.what} {role} column {name!r}")

    @cached_property
    def user_ids(self) -> tuple[Any, np.ndarray]:
        """The distinct user ids (text) and each row's code into them."""
        return self._id_codes("user")

    @property
    def users(self) -> np.ndarray:
        return self.user_ids[1]

    @cached_property
    def items(self) -> np.ndarray:
        return self._id_codes("item")[1]

    @cached_property
    def _time(self) -> tuple[np.ndarray, TimeKind]:
        name = self.names["time"]
        return as_time_column(self.column(name, "time"), f"{self.what} time column {name!r}")

    @property
    def t(self) -> np.ndarray:
        return self._time[0]

    @property
    def kind(self) -> TimeKind:
        return self._time[1]

    def text(self, value: float | int) -> str:
        """A time on the column's scale, as text for reports and messages."""
        return self.kind.text(value)
