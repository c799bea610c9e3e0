"""The nested two-stage split for candidate generation + re-ranking."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import KW_ONLY, dataclass, field, fields
from typing import Any

import numpy as np

from ranklens.errors import InputError
from ranklens.recsys.splitters._base import (
    FoldReport,
    Index,
    Splitter,
    check_fraction,
    share,
)
from ranklens.recsys.splitters._data import Interactions
from ranklens.recsys.splitters.temporal import GlobalTimeSplit

__all__ = ["NestedTwoStageSplit", "TwoStageSplit"]


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
        return {
            k: getattr(self, k)
            for k in (
                "global_train",
                "global_test",
                "local_train",
                "local_test",
                "ranker_train",
                "ranker_test",
            )
        }


@dataclass(eq=False, repr=False)
class NestedTwoStageSplit(Splitter):
    """The nested split for candidate generation + re-ranking.

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

    test_start: Any = None
    _: KW_ONLY
    test_size: float | None = None
    local_test_start: Any = None
    local_test_size: float | None = None
    ranker_test_size: float = 0.5
    gap: Any = None
    random_state: int | np.random.Generator | None = None

    def _stage(self, local: bool) -> GlobalTimeSplit:
        """The global or the local time split, with this splitter's shared keywords."""
        shared = {f.name: getattr(self, f.name) for f in fields(Splitter) if f.init}
        if local:
            return GlobalTimeSplit(
                self.local_test_start, test_size=self.local_test_size, gap=self.gap, **shared
            )
        return GlobalTimeSplit(self.test_start, test_size=self.test_size, gap=self.gap, **shared)

    def _run_stage(
        self, data: Interactions, rows: Index, stage: str
    ) -> tuple[Index, Index, FoldReport]:
        """One time split of ``rows``; its errors say which stage and parameter."""
        local = stage == "local"
        splitter = self._stage(local)
        try:
            tr, te, cuts = splitter._masks(data, rows)
            return splitter._finish(data, 0, tr, te, cuts)
        except InputError as exc:
            msg = str(exc).removeprefix("GlobalTimeSplit: ").replace("fold 0", "the split")
            if local:
                msg = re.sub(r"\btest_(start|size)\b", r"local_test_\1", msg)
            raise InputError(f"{self.name} ({stage} split): {msg}") from None

    def _ranker_split(self, data: Interactions, local_test: Index) -> tuple[Index, Index]:
        """``local_test`` split by users: a ``ranker_test_size`` share of them, drawn
        with ``random_state``, is the ranker's test side."""
        frac = check_fraction(self.ranker_test_size, self.name, "ranker_test_size")
        users = np.unique(data.users[local_test])
        if users.size < 2:
            raise InputError(
                f"{self.name}: the local test side has {users.size} user(s); splitting it by "
                "users into ranker train and ranker test needs at least 2. Choose an "
                "earlier local_test_start or a larger local_test_size."
            )
        m = share(frac, users.size, keep=1)
        chosen = np.random.default_rng(self.random_state).permutation(users)[:m]
        in_test = np.zeros(int(data.users.max()) + 1, dtype=bool)
        in_test[chosen] = True
        mask = in_test[data.users[local_test]]
        return local_test[~mask], local_test[mask]

    def split_stages(self, X: Any) -> TwoStageSplit:
        """All six index sets of the protocol (see :class:`TwoStageSplit`)."""
        data = self._interactions(X)
        g_train, g_test, g_rep = self._run_stage(data, np.arange(data.n), "global")
        l_train, l_test, l_rep = self._run_stage(data, g_train, "local")
        r_train, r_test = self._ranker_split(data, l_test)
        reports = {
            "global": g_rep,
            "local": l_rep,
            "ranker": FoldReport(0, int(r_train.size), int(r_test.size)),
        }
        self.report_ = [g_rep]
        return TwoStageSplit(g_train, g_test, l_train, l_test, r_train, r_test, reports)

    def split(self, X: Any, y: Any = None, groups: Any = None) -> Iterator[tuple[Index, Index]]:
        """Yield the one ``(global_train, global_test)`` pair."""
        s = self.split_stages(X)
        yield s.global_train, s.global_test
