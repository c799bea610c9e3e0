"""Per-user values of the beyond-accuracy metrics (``reduction="none"``) and the one
place that turns a metric's per-user values into what it returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

import numpy as np

from ranklens._shared.deprecation import renamed_keyword
from ranklens._shared.deps import needs
from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.ranking.evaluation import aggregate
from ranklens.recsys.beyond._lists import Lists

__all__ = ["REDUCTIONS", "ListOptions", "UserValues", "reduce", "resolve_reduction"]

REDUCTIONS = ("mean", "none")
"""``reduction=``: the mean over users (default) or one value per user."""


class ListOptions(TypedDict, total=False):
    """How every beyond-accuracy metric cuts and orders the lists (keyword arguments)."""

    k: int | None
    ties: str | None
    profile: str | None


def _mean(values: np.ndarray) -> float:
    """Mean of the defined (non-NaN) per-user values."""
    return aggregate(values, "mean")


@dataclass(frozen=True)
class UserValues:
    """Per-user values of one beyond-accuracy metric (``reduction="none"``).

    ``values[j]`` belongs to ``user_ids[j]`` (users in sorted id order, every
    user of the recommendations); NaN marks a user whose value is undefined
    under the metric's documented rule (e.g. a one-item list for ILD, a user
    without a training profile for profile-based serendipity).  ``report``
    counts the users each rule touched.

    >>> from ranklens import Run
    >>> from ranklens.recsys import novelty
    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"b": 1}})
    >>> v = novelty(recs, ["x", "y", "x", "y"], ["a", "a", "b", "a"], reduction="none")
    >>> v.per_user()
    {'u1': 0.0, 'u2': 1.0}
    >>> v.mean
    0.5
    """

    metric: str
    user_ids: tuple[str, ...]
    values: np.ndarray
    report: Mapping[str, int] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """The mean over users with a defined value: what the metric returns by default."""
        return _mean(self.values)

    def per_user(self) -> dict[str, float]:
        """``{user id: value}``, users in sorted id order (NaN where undefined)."""
        return dict(zip(self.user_ids, self.values.tolist(), strict=True))

    def to_arrow(self) -> Any:
        """A pyarrow table with columns ``user`` and the metric name."""
        import pyarrow as pa

        return pa.table(
            {"user": pa.array(self.user_ids, type=pa.string()), self.metric: self.values}
        )

    def to_frame(self) -> Any:
        """Per-user values as a pandas DataFrame indexed by user, one column named
        after the metric (requires pandas); join several with ``pandas.concat(...,
        axis=1)``."""
        with needs("pandas", "UserValues.to_frame()"):
            return self.to_arrow().to_pandas().set_index("user")

    def __len__(self) -> int:
        return len(self.user_ids)

    def __repr__(self) -> str:
        defined = int((~np.isnan(self.values)).sum())
        return (
            f"<UserValues {self.metric}: mean={self.mean:.4f} over {defined} of "
            f"{len(self.user_ids)} users>"
        )


def resolve_reduction(what: str, reduction: str, per_user: bool | None) -> str:
    """``reduction`` checked, or the value of the deprecated ``per_user`` (``True``:
    ``"none"``, ``False``: ``"mean"``) with a :class:`RanklensDeprecationWarning`."""
    if per_user is not None and not isinstance(per_user, (bool, np.bool_)):
        raise InputError(f"{what}: per_user must be True or False, got {per_user!r}.")
    reduction = renamed_keyword(
        what,
        "per_user",
        per_user,
        "reduction",
        reduction,
        convert=lambda v: "none" if v else "mean",
    )
    return check_choice("reduction", reduction, REDUCTIONS, where=what)


def reduce(
    what: str,
    lists: Lists,
    values: np.ndarray,
    reduction: str,
    report: Mapping[str, int] | None = None,
) -> float | UserValues:
    """What a metric returns from its per-user ``values``: their mean over users with a
    defined value (``reduction="mean"``), or the :class:`UserValues` (``"none"``)."""
    values = np.asarray(values, dtype=np.float64)
    if reduction == "mean":
        return _mean(values)
    values.setflags(write=False)
    return UserValues(what, tuple(lists.users.to_pylist()), values, dict(report or {}))
