"""Every splitter declared as data, and one call that splits an interaction table
and writes the split files.

:data:`SPLITTERS` names each splitter of :mod:`ranklens.recsys.splitters` once
(its command name, class, summary, its own parameters with their types,
defaults and docs, and how many folds it writes); the keywords every splitter
shares are :data:`SHARED_PARAMS`.  A command line can generate
``ranklens split NAME --param value`` from them: :meth:`SplitParam.convert`
turns an option's text into the value the splitter takes.

:func:`split_to_files` runs one splitter on an interaction table (a frame, or
a file read by :func:`ranklens.io.read_frame` with the id columns as text) and
writes each fold's train and test rows through :func:`ranklens.io.write_frame`
(every column kept, ids exactly as read): ``train.csv`` / ``test.csv`` for one
fold, ``train-0.csv``, ``test-0.csv``, ... for several (numbered as the
folds of :class:`FoldReport`), and ``global_train``, ``global_test``,
``local_train``, ``local_test``, ``ranker_train``, ``ranker_test`` for the
nested two-stage split.  It returns what it wrote (:class:`SplitFiles`).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.columns import to_arrow
from ranklens._shared.frames import column_names, is_table, materialise
from ranklens.errors import InputError
from ranklens.io import read_frame, write_frame
from ranklens.io.tables import TABLE_FORMATS
from ranklens.recsys.splitters._base import FoldReport

__all__ = [
    "SHARED_PARAMS",
    "SPLITTERS",
    "SplitFiles",
    "SplitParam",
    "SplitterDef",
    "WrittenFile",
    "split_to_files",
]


@dataclass(frozen=True)
class SplitParam:
    """One splitter parameter: name (the keyword; the option is ``--`` + the name
    with ``-`` for ``_``), type, default and doc.

    ``type``: ``int``, ``float``, ``bool``, ``str`` (a choice when ``choices``),
    ``column`` (a column name), ``time`` (a date / datetime as ISO text, or a
    number on a numeric time column), ``duration`` (``"7D"``, ``"12h"``, or a
    number on a numeric time column)."""

    name: str
    type: str
    default: Any
    doc: str
    choices: tuple[str, ...] = ()

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")

    def convert(self, text: str) -> Any:
        """The value of the option's ``text`` (numbers for numeric types; ``time`` and
        ``duration`` stay text unless they are numbers)."""
        where = f"{self.option} {text!r}"
        if self.type in ("int", "float"):
            try:
                return int(text) if self.type == "int" else float(text)
            except ValueError:
                raise InputError(
                    f"{where}: expected {'an integer' if self.type == 'int' else 'a number'}."
                ) from None
        if self.type == "bool":
            low = text.lower()
            if low in ("true", "yes", "1"):
                return True
            if low in ("false", "no", "0"):
                return False
            raise InputError(f"{where}: expected true or false.")
        if self.type in ("time", "duration"):
            for number in (int, float):
                try:
                    return number(text)
                except ValueError:
                    pass
            return text
        if self.choices and text not in self.choices:
            raise InputError(f"{where}: expected one of {', '.join(self.choices)}.")
        return text


@dataclass(frozen=True)
class SplitterDef:
    """One splitter: its command name, class (``"module:Class"``, imported on use),
    summary, own parameters and the files it writes (``folds``: ``one``,
    ``n_splits`` or ``stages``)."""

    name: str
    cls: str
    summary: str
    params: tuple[SplitParam, ...]
    folds: str = "one"

    def build(self, params: Mapping[str, Any]) -> Any:
        """The splitter object, from keyword values (the declared ones only)."""
        known = {p.name for p in (*self.params, *SHARED_PARAMS)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise InputError(
                f"splitter {self.name!r}: unknown parameter(s) {', '.join(map(repr, unknown))}; "
                f"it takes {', '.join(sorted(known))}."
            )
        module, _, name = self.cls.partition(":")
        cls = getattr(importlib.import_module(module), name)
        return cls(**params)


_M = "ranklens.recsys.splitters."
_SEED = SplitParam("random_state", "int", None, "seed of the random draw (default: a fresh one)")
_TEST_FRACTION = SplitParam("test_size", "float", 0.2, "share of the rows in test, in (0, 1)")
_N_SPLITS = SplitParam("n_splits", "int", 5, "number of folds")
_SHUFFLE = SplitParam("shuffle", "bool", False, "shuffle the rows before cutting folds")
_GAP = SplitParam(
    "gap", "duration", None, "drop this much time before the cut from training, e.g. 1D"
)

#: The keywords every splitter takes.
SHARED_PARAMS: tuple[SplitParam, ...] = (
    SplitParam("user", "column", "user_id", "the user column"),
    SplitParam("item", "column", "item_id", "the item column"),
    SplitParam("time", "column", "timestamp", "the timestamp column (time-aware splitters)"),
    SplitParam("drop_cold_users", "bool", False, "drop test rows of users without a training row"),
    SplitParam("drop_cold_items", "bool", False, "drop test rows of items without a training row"),
)

#: Every splitter, by command name.
SPLITTERS: dict[str, SplitterDef] = {
    d.name: d
    for d in (
        SplitterDef(
            "random",
            _M + "folds:RandomSplit",
            "holdout: a random share of the rows in test (not time-aware)",
            (
                _TEST_FRACTION,
                SplitParam("n_splits", "int", 1, "number of independent random splits"),
                _SEED,
            ),
            "n_splits",
        ),
        SplitterDef(
            "kfold",
            _M + "folds:KFoldSplit",
            "k-fold cross-validation over rows (scikit-learn's KFold)",
            (_N_SPLITS, _SHUFFLE, _SEED),
            "n_splits",
        ),
        SplitterDef(
            "stratified",
            _M + "folds:StratifiedKFoldSplit",
            "k-fold stratified on a label column (scikit-learn's StratifiedKFold)",
            (
                _N_SPLITS,
                SplitParam("y", "column", "rating", "the column to stratify on"),
                _SHUFFLE,
                _SEED,
            ),
            "n_splits",
        ),
        SplitterDef(
            "group-kfold",
            _M + "folds:GroupKFoldSplit",
            "k-fold with every group (default: user) wholly in train or in test",
            (_N_SPLITS, SplitParam("groups", "column", "user_id", "the group column")),
            "n_splits",
        ),
        SplitterDef(
            "leave-p-out",
            _M + "folds:LeavePOutSplit",
            "every set of p rows is the test set once (C(n, p) folds: small tables)",
            (SplitParam("p", "int", 1, "rows per test set"),),
            "n_splits",
        ),
        SplitterDef(
            "leave-last",
            _M + "per_user:LeaveLastN",
            "per user, the last n interactions by time in test",
            (SplitParam("n", "int", 1, "test interactions per user"),),
        ),
        SplitterDef(
            "leave-one-out",
            _M + "per_user:LeaveOneOut",
            "per user, the last interaction by time in test",
            (),
        ),
        SplitterDef(
            "user-ratio",
            _M + "per_user:UserRatioSplit",
            "per user, a share of the interactions in test (the latest, or random)",
            (
                _TEST_FRACTION,
                SplitParam(
                    "by", "str", "time", "which rows: time (latest) or random", ("time", "random")
                ),
                _SEED,
            ),
        ),
        SplitterDef(
            "time",
            _M + "temporal:GlobalTimeSplit",
            "one global time cut: train before it, test from it on",
            (
                SplitParam("test_start", "time", None, "the cut (give it or test_size)"),
                SplitParam(
                    "test_size", "float", None, "share of the latest rows in test, in (0, 1)"
                ),
                SplitParam("test_end", "time", None, "end of the test period (exclusive)"),
                _GAP,
            ),
        ),
        SplitterDef(
            "time-cv",
            _M + "temporal:TimeRangeCV",
            "n consecutive test windows ending at the last interaction",
            (
                SplitParam("n_splits", "int", 3, "number of windows"),
                SplitParam("test_size", "duration", "7D", "length of a window, e.g. 7D"),
                _GAP,
            ),
            "n_splits",
        ),
        SplitterDef(
            "two-stage",
            _M + "two_stage:NestedTwoStageSplit",
            "nested split for candidate generation + re-ranking (global, local, ranker)",
            (
                SplitParam("test_start", "time", None, "the global cut (or test_size)"),
                SplitParam("test_size", "float", None, "share of the rows in the global test"),
                SplitParam(
                    "local_test_start",
                    "time",
                    None,
                    "the cut inside global train (or local_test_size)",
                ),
                SplitParam(
                    "local_test_size", "float", None, "share of global train in the local test"
                ),
                SplitParam(
                    "ranker_test_size", "float", 0.5, "share of the local test users in ranker test"
                ),
                _GAP,
                _SEED,
            ),
            "stages",
        ),
    )
}


@dataclass(frozen=True)
class WrittenFile:
    """One file :func:`split_to_files` wrote: its role (``train``, ``test``, or a
    stage such as ``local_train``), fold (None: the only one), path and row count."""

    role: str
    fold: int | None
    path: str
    rows: int


@dataclass(frozen=True)
class SplitFiles:
    """What :func:`split_to_files` did: the splitter, the files and each fold's
    :class:`FoldReport` (sizes, cold rows dropped, time cuts)."""

    splitter: str
    files: tuple[WrittenFile, ...]
    reports: tuple[FoldReport, ...]

    def rows(self) -> list[dict[str, Any]]:
        """One record per file: ``role``, ``fold``, ``path``, ``rows``."""
        return [
            {"role": f.role, "fold": f.fold, "path": f.path, "rows": f.rows} for f in self.files
        ]


def _as_table(data: Any, what: str) -> pa.Table:
    """A frame (pandas, polars, pyarrow, dict of columns) as a pyarrow Table."""
    data = materialise(data)
    if isinstance(data, pa.Table):
        return data
    if not is_table(data):
        raise InputError(
            f"{what}: expected a file path or a pandas, polars or pyarrow table, got "
            f"{type(data).__name__}."
        )
    if type(data).__module__.split(".")[0] == "polars":
        table: pa.Table = data.to_arrow()
        return table
    names = column_names(data, what)
    cols = data if isinstance(data, Mapping) else {n: data[n] for n in names}
    return pa.table(
        {n: to_arrow(cols[n], f"{what} column {n!r}", nan_is_null=False) for n in names}
    )


def read_interactions(
    data: Any, what: str, id_columns: tuple[str, ...], format: str | None = None
) -> pa.Table:
    """An interaction table from a frame or a file (ids read as text)."""
    if isinstance(data, (str, os.PathLike)):
        return read_frame(data, format=format, text=id_columns)
    return _as_table(data, what)


def split_to_files(
    data: Any,
    splitter: str,
    output: str | os.PathLike[str],
    *,
    format: str = "csv",
    params: Mapping[str, Any] | None = None,
    input_format: str | None = None,
    overwrite: bool = False,
) -> SplitFiles:
    """Split the interactions ``data`` with the splitter named ``splitter`` (a key of
    :data:`SPLITTERS`) and write the train / test rows of every fold into the folder
    ``output`` (created if missing) as ``format`` (csv, tsv, parquet or jsonl).

    ``data``: a table (pandas, polars, pyarrow, dict of columns) or a file path (CSV,
    TSV, Parquet, JSON Lines; ``input_format`` overrides the suffix), read with the
    user and item columns as text.  ``params``: the splitter's keywords
    (:data:`SPLITTERS` ``[splitter].params`` and :data:`SHARED_PARAMS`).  Files
    that exist already are an error unless ``overwrite``.  Every column of
    ``data`` is written, rows in their input order.

    >>> import tempfile, pyarrow as pa
    >>> log = pa.table({"user_id": ["u1", "u1", "u2", "u2"], "item_id": ["a", "b", "a", "c"],
    ...                 "timestamp": [1, 2, 1, 3]})
    >>> out = split_to_files(log, "leave-one-out", tempfile.mkdtemp())
    >>> [(f.role, f.rows) for f in out.files]
    [('train', 2), ('test', 2)]
    """
    if splitter not in SPLITTERS:
        raise InputError(
            f"unknown splitter {splitter!r}; the splitters are {', '.join(SPLITTERS)}."
        )
    if format not in TABLE_FORMATS:
        raise InputError(
            f"format={format!r} is not a table format; use one of {', '.join(TABLE_FORMATS)}."
        )
    defn = SPLITTERS[splitter]
    given = dict(params or {})
    obj = defn.build(given)
    table = read_interactions(data, "interactions", (obj.user, obj.item), input_format)
    folder = Path(output)
    parts: list[tuple[str, int | None, Any]] = []
    if defn.folds == "stages":
        stages = obj.split_stages(table)
        parts = [(name, None, rows) for name, rows in stages.as_dict().items()]
        reports = tuple(stages.reports.values())
    else:
        folds = list(obj.split(table))
        many = len(folds) > 1
        for i, (train, test) in enumerate(folds):
            parts += [("train", i if many else None, train), ("test", i if many else None, test)]
        reports = tuple(obj.report_)
    paths = [
        folder / (f"{role}.{format}" if fold is None else f"{role}-{fold}.{format}")
        for role, fold, _ in parts
    ]
    existing = [str(p) for p in paths if p.exists()]
    if existing and not overwrite:
        raise InputError(
            f"{existing[0]} exists already ({len(existing)} of the {len(paths)} split files "
            "do); choose another output folder or pass overwrite=True."
        )
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for (role, fold, rows), path in zip(parts, paths, strict=True):
        write_frame(table.take(pa.array(np.asarray(rows, dtype=np.int64))), path, format=format)
        written.append(WrittenFile(role, fold, str(path), len(rows)))
    return SplitFiles(repr(obj), tuple(written), reports)
