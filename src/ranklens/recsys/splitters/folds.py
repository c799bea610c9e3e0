"""Splitters that ignore time: random splits, and scikit-learn's k-fold, stratified
k-fold, leave-p-out, group k-fold or any other scikit-learn splitter over the rows
of an interaction table, with the frame handling and cold-start options added.

Use them only where the protocol ignores time: nothing here is leakage-checked.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import Any

import numpy as np

from ranklens._shared.columns import to_arrow
from ranklens._shared.deps import needs
from ranklens.errors import InputError
from ranklens.recsys.splitters._base import RawSplits, Splitter, check_fraction, share
from ranklens.recsys.splitters._data import Interactions

__all__ = [
    "GroupKFoldSplit",
    "KFoldSplit",
    "LeavePOutSplit",
    "RandomSplit",
    "SklearnSplit",
    "StratifiedKFoldSplit",
]


@dataclass(eq=False, repr=False)
class RandomSplit(Splitter):
    """``n_splits`` independent random train/test splits of the interactions
    (``round(test_size * n)`` test rows each), reproducible from ``random_state``.
    Not time-aware: use it only where the protocol ignores time."""

    test_size: float = 0.2
    _: KW_ONLY
    n_splits: int = 1
    random_state: int | np.random.Generator | None = None

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        frac = check_fraction(self.test_size, self.name, "test_size")
        rng = np.random.default_rng(self.random_state)
        m = share(frac, data.n)
        for _ in range(self.get_n_splits()):
            perm = rng.permutation(data.n)
            yield perm[m:], perm[:m], {}


@dataclass(eq=False, repr=False)
class _ScikitLearnSplit(Splitter):
    """The folds of a scikit-learn splitter (:meth:`_cv`) over the table's rows; the
    columns named by :meth:`_columns` are passed as its ``y`` / ``groups`` unless
    :meth:`split` is given them."""

    def _cv(self) -> Any:
        with needs("ml", f"ranklens.recsys.{self.name}"):
            from sklearn import model_selection
        return self._build(model_selection)

    def _build(self, model_selection: Any) -> Any:
        raise NotImplementedError

    def _columns(self) -> tuple[str | None, str | None]:
        """The columns passed as ``y`` and ``groups`` (None: none)."""
        return None, None

    def _args(self, data: Interactions, y: Any, groups: Any) -> tuple[np.ndarray, Any, Any]:
        """scikit-learn's ``split`` arguments: a stand-in ``X`` with one row per
        interaction, and ``y`` / ``groups``."""
        y_col, groups_col = self._columns()
        if y is None and y_col is not None:
            y = _values(data.column(y_col, "y"))
        if groups is None and groups_col is not None:
            groups = _values(data.column(groups_col, "groups"))
        return np.zeros((data.n, 1)), y, groups

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        """The number of folds, as the scikit-learn splitter counts them."""
        cv = self._cv()
        if X is None:
            return int(cv.get_n_splits())
        data = Interactions(X, self.name, user=self.user, item=self.item, time=self.time)
        return int(cv.get_n_splits(*self._args(data, y, groups)))

    def _raw_splits(self, data: Interactions, y: Any, groups: Any) -> RawSplits:
        for train, test in self._cv().split(*self._args(data, y, groups)):
            yield train, test, {}


def _values(column: Any) -> np.ndarray:
    """A column as a NumPy array for scikit-learn (object dtype for text)."""
    return np.asarray(to_arrow(column, "column").to_numpy(zero_copy_only=False))


@dataclass(eq=False, repr=False)
class SklearnSplit(_ScikitLearnSplit):
    """Any scikit-learn splitter (``KFold``, ``ShuffleSplit``, ``TimeSeriesSplit``, ...)
    over the rows of an interaction table, with cold-start filtering added.

    ``y`` / ``groups`` name the columns passed as ``y`` / ``groups``
    (explicit ``y`` / ``groups`` arguments to :meth:`split` win; ``y_col=`` and
    ``groups_col=`` are the deprecated spellings).  The folds are exactly
    scikit-learn's.
    """

    cv: Any
    _: KW_ONLY
    y: str | None = None
    groups: str | None = None
    y_col: InitVar[str | None] = None
    groups_col: InitVar[str | None] = None

    _RENAMED = (*Splitter._RENAMED, ("y_col", "y"), ("groups_col", "groups"))

    def _cv(self) -> Any:
        if not (hasattr(self.cv, "split") and hasattr(self.cv, "get_n_splits")):
            raise InputError(
                f"SklearnSplit: cv must be a scikit-learn splitter (with split and "
                f"get_n_splits), got {type(self.cv).__name__}."
            )
        return self.cv

    def _columns(self) -> tuple[str | None, str | None]:
        return self.y, self.groups


@dataclass(eq=False, repr=False)
class KFoldSplit(_ScikitLearnSplit):
    """scikit-learn's ``KFold`` over interactions (not time-aware)."""

    n_splits: int = 5
    _: KW_ONLY
    shuffle: bool = False
    random_state: int | None = None

    def _build(self, model_selection: Any) -> Any:
        return model_selection.KFold(
            self.n_splits, shuffle=self.shuffle, random_state=self.random_state
        )


@dataclass(eq=False, repr=False)
class StratifiedKFoldSplit(_ScikitLearnSplit):
    """scikit-learn's ``StratifiedKFold``, stratified on the column ``y`` (e.g. a
    rating or a click label; ``y_col=`` is the deprecated spelling)."""

    n_splits: int = 5
    _: KW_ONLY
    y: str = "rating"
    shuffle: bool = False
    random_state: int | None = None
    y_col: InitVar[str | None] = None

    _RENAMED = (*Splitter._RENAMED, ("y_col", "y"))

    def _build(self, model_selection: Any) -> Any:
        return model_selection.StratifiedKFold(
            self.n_splits, shuffle=self.shuffle, random_state=self.random_state
        )

    def _columns(self) -> tuple[str | None, str | None]:
        return self.y, None


@dataclass(eq=False, repr=False)
class LeavePOutSplit(_ScikitLearnSplit):
    """scikit-learn's ``LeavePOut`` (every set of ``p`` rows is a test set once;
    ``C(n, p)`` splits, so only for small tables)."""

    p: int = 1

    def _build(self, model_selection: Any) -> Any:
        return model_selection.LeavePOut(self.p)

    def get_n_splits(self, X: Any = None, y: Any = None, groups: Any = None) -> int:
        if X is None:
            raise InputError("LeavePOutSplit.get_n_splits needs X (the count is C(n, p)).")
        return super().get_n_splits(X, y, groups)


@dataclass(eq=False, repr=False)
class GroupKFoldSplit(_ScikitLearnSplit):
    """scikit-learn's ``GroupKFold`` with the groups taken from the column ``groups``
    (by default the user column's default name: every user is entirely in train or
    in test, i.e. a cold-user protocol; ``groups_col=`` is the deprecated
    spelling)."""

    n_splits: int = 5
    _: KW_ONLY
    groups: str = "user_id"
    drop_cold_users: bool = field(default=False, init=False)
    groups_col: InitVar[str | None] = None

    _RENAMED = (*Splitter._RENAMED, ("groups_col", "groups"))

    def _build(self, model_selection: Any) -> Any:
        return model_selection.GroupKFold(self.n_splits)

    def _columns(self) -> tuple[str | None, str | None]:
        return None, self.groups
