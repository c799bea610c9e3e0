"""Validation splits of interaction logs, in scikit-learn's splitter shape.

Every splitter stores its parameters in ``__init__`` and nothing else;
``split(X, y=None, groups=None)`` yields ``(train_idx, test_idx)`` pairs of
sorted int64 row positions into ``X`` (a pandas, polars or pyarrow table of
interactions); ``get_n_splits`` says how many pairs ``split`` yields;
``split_frames`` yields the row subsets themselves.  After (or while)
splitting, ``report_`` holds one :class:`FoldReport` per fold with the sizes
and what cold-start filtering removed.

Keywords every splitter takes (as :func:`ranklens.recsys.evaluate_interactions`
names its columns): ``user``, ``item`` and ``time`` name the user, item and
timestamp columns (default ``"user_id"``, ``"item_id"``, ``"timestamp"``;
``user_col=``, ``item_col=`` and ``time_col=`` are the deprecated spellings,
kept for one release); ``drop_cold_users`` / ``drop_cold_items`` remove test
rows of users / items that have no training interaction in the fold.

The splitters, by job:

* :mod:`~ranklens.recsys.splitters.temporal`: :class:`GlobalTimeSplit`,
  :class:`TimeRangeCV`; and :mod:`~ranklens.recsys.splitters.two_stage`:
  :class:`NestedTwoStageSplit`.  They put every test interaction at or after
  the training cut and check it (:func:`check_leakage`, raising
  :class:`LeakageError`);
* :mod:`~ranklens.recsys.splitters.per_user`: :class:`LeaveLastN`,
  :class:`LeaveOneOut`, :class:`UserRatioSplit`, checked per user;
* :mod:`~ranklens.recsys.splitters.folds`: :class:`RandomSplit` and
  scikit-learn's k-fold, stratified k-fold, leave-p-out and group k-fold
  (:class:`KFoldSplit` etc. build them; :class:`SklearnSplit` wraps any
  other), which ignore time.

Timestamps may be datetimes (any resolution; time-zone aware columns are
compared as UTC instants), dates, ISO-8601 text or numbers (e.g. Unix
seconds); anything else is an :class:`~ranklens.errors.InputError`.  Durations
(windows, gaps) follow the one grammar of :mod:`ranklens._shared.durations`.

:data:`SPLITTERS` declares every splitter (command name, parameters with types,
defaults and docs) and :func:`split_to_files` runs one on a table or file and
writes the split files (:mod:`~ranklens.recsys.splitters.files`).

Everything is vectorised: per-user positions come from one stable sort and
group offsets, never from a loop over users.
"""

from ranklens.recsys.splitters._base import FoldReport
from ranklens.recsys.splitters.files import (
    SHARED_PARAMS,
    SPLITTERS,
    SplitFiles,
    SplitParam,
    SplitterDef,
    WrittenFile,
    split_to_files,
)
from ranklens.recsys.splitters.folds import (
    GroupKFoldSplit,
    KFoldSplit,
    LeavePOutSplit,
    RandomSplit,
    SklearnSplit,
    StratifiedKFoldSplit,
)
from ranklens.recsys.splitters.leakage import LeakageError, check_leakage
from ranklens.recsys.splitters.per_user import LeaveLastN, LeaveOneOut, UserRatioSplit
from ranklens.recsys.splitters.temporal import GlobalTimeSplit, TimeRangeCV
from ranklens.recsys.splitters.two_stage import NestedTwoStageSplit, TwoStageSplit

__all__ = [  # also exported by ranklens.recsys
    "SHARED_PARAMS",
    "SPLITTERS",
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
    "SplitFiles",
    "SplitParam",
    "SplitterDef",
    "StratifiedKFoldSplit",
    "TimeRangeCV",
    "TwoStageSplit",
    "UserRatioSplit",
    "WrittenFile",
    "check_leakage",
    "split_to_files",
]
