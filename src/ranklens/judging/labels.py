"""The file to label, and the labels read back.

:func:`write_label_file` writes a pool or a sample as CSV, TSV, Parquet or JSON Lines
(:func:`ranklens.io.write_frame`: ids stay text, the write is atomic): ``query``,
``doc``, the pool's ``rank``, ``priority``, ``n_runs`` and ``runs``, a sample's
``stratum``, ``inclusion`` and ``weight``, the text columns carried from a documents
table (joined on the exact doc id), and an empty ``label`` column for the assessor.

:func:`read_labels` reads the filled file back: the labelled rows as
:class:`~ranklens.Qrels` and, aligned with them row for row, the sampling design
(``stratum``, ``inclusion``) the estimators need.  Rows left unlabelled are not
judgments: they are counted and listed, never read as non-relevant.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens.errors import InputError
from ranklens.judging.pooling import Pool
from ranklens.judging.sampling import Sample
from ranklens.ranking.data import Qrels

__all__ = ["Labels", "read_labels", "write_label_file"]

#: The columns the writer adds, in their order (a document column of the same name is
#: an error: it would shadow one).
DESIGN_COLUMNS = (
    "query",
    "doc",
    "rank",
    "priority",
    "n_runs",
    "runs",
    "stratum",
    "inclusion",
    "weight",
    "label",
)


def _documents_table(documents: Any) -> pa.Table:
    if isinstance(documents, (str, os.PathLike)):
        from ranklens.io import read_frame

        return read_frame(documents, text=["doc"])
    if isinstance(documents, pa.Table):
        return documents
    if isinstance(documents, dict):
        return pa.table({"doc": list(documents), "text": list(documents.values())})
    if hasattr(documents, "to_arrow"):  # polars
        return documents.to_arrow()
    if hasattr(documents, "columns"):  # pandas
        return pa.Table.from_pandas(documents, preserve_index=False)
    raise InputError(
        f"write_label_file: documents is a {type(documents).__name__}; pass a file path, a "
        "table (pyarrow, pandas, polars) with a 'doc' column, or a {doc: text} dict."
    )


def _with_texts(table: pa.Table, documents: Any, text_columns: Any) -> pa.Table:
    docs = _documents_table(documents)
    if "doc" not in docs.column_names:
        raise InputError(
            f"write_label_file: the documents have no 'doc' column (columns: "
            f"{', '.join(docs.column_names)}); name the id column 'doc'."
        )
    wanted = (
        [c for c in docs.column_names if c != "doc"] if text_columns is None else list(text_columns)
    )
    for c in wanted:
        if c not in docs.column_names:
            raise InputError(
                f"write_label_file: text_columns names {c!r}, which the documents do not have "
                f"(columns: {', '.join(docs.column_names)})."
            )
        if c in DESIGN_COLUMNS:
            raise InputError(
                f"write_label_file: the documents' column {c!r} has the name of a column of the "
                "file to label; rename it."
            )
    ids = pc.cast(docs.column("doc"), pa.large_string()).combine_chunks()
    if len(pc.unique(ids)) != len(ids):
        counts = pc.value_counts(ids)
        dup = next(v["values"] for v in counts.to_pylist() if v["counts"] > 1)
        raise InputError(
            f"write_label_file: the documents name doc {dup!r} more than once; one row per doc."
        )
    at = pc.index_in(pc.cast(table.column("doc"), pa.large_string()), value_set=ids)
    for c in wanted:
        table = table.append_column(c, docs.column(c).combine_chunks().take(at))
    return table


def write_label_file(
    rows: Pool | Sample,
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    documents: Any = None,
    text_columns: Any = None,
) -> None:
    """Write the documents to label (a sample's selected rows, or a whole pool) to
    ``path`` (format by its suffix unless ``format``: csv, tsv, parquet, jsonl).

    ``documents``: a table (or its file, or a ``{doc: text}`` dict) with a ``doc``
    column whose other columns (or ``text_columns``) are carried through, joined on the
    exact doc id (empty where a doc is not there).

    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from ranklens import Run
    >>> from ranklens.judging import pool
    >>> p = pool([Run.from_dict({"q1": {"007": 2.0, "7": 1.0}})], depth=2)
    >>> path = os.path.join(tempfile.mkdtemp(), "to_label.csv")
    >>> write_label_file(p, path, documents={"007": "Licence to kill"})
    >>> print(Path(path).read_text().strip())
    "query","doc","rank","priority","n_runs","runs","text","label"
    "q1","007",1,1,1,"run1","Licence to kill",
    "q1","7",2,2,1,"run1",,
    """
    from ranklens.io import write_frame

    if isinstance(rows, (Pool, Sample)):
        table = rows.to_arrow()
    else:
        raise InputError(
            f"write_label_file: rows is a {type(rows).__name__}; pass a Pool or a Sample."
        )
    if documents is not None:
        table = _with_texts(table, documents, text_columns)
    elif text_columns is not None:
        raise InputError("write_label_file: text_columns= needs documents= to take them from.")
    table = table.append_column("label", pa.nulls(table.num_rows, pa.float64()))
    write_frame(table, path, format=format)


@dataclass(frozen=True, eq=False)
class Labels:
    """Labels read back: ``qrels`` (the labelled rows, in file order); ``stratum`` and
    ``inclusion`` aligned with its rows (None when the file has no such column: a pool,
    every document judged); ``unlabelled``: the (query, doc) pairs left without a
    label."""

    qrels: Qrels
    stratum: np.ndarray | None
    inclusion: np.ndarray | None
    unlabelled: list[tuple[str, str]]

    @property
    def weight(self) -> np.ndarray | None:
        return None if self.inclusion is None else 1.0 / self.inclusion


def read_labels(
    path: str | os.PathLike[str], *, format: str | None = None, label: str = "label"
) -> Labels:
    """Read a labelled file (as :func:`write_label_file` wrote it, the ``label`` column
    filled with grades) back as :class:`Labels`.

    >>> import os, tempfile
    >>> from pathlib import Path
    >>> path = os.path.join(tempfile.mkdtemp(), "labelled.csv")
    >>> _ = Path(path).write_text(
    ...     "query,doc,stratum,inclusion,label\\nq1,007,0,1.0,2\\nq1,7,1,0.25,\\nq2,x,1,0.5,0\\n"
    ... )
    >>> got = read_labels(path)
    >>> got.qrels.to_dict(), got.weight.tolist(), got.unlabelled
    ({'q1': {'007': 2.0}, 'q2': {'x': 0.0}}, [1.0, 2.0], [('q1', '7')])
    """
    from ranklens.io import read_frame

    name = os.fspath(path)
    table = read_frame(path, format=format, text=["query", "doc"])
    for c in ("query", "doc", label):
        if c not in table.column_names:
            raise InputError(
                f"{name}: no {c!r} column (columns: {', '.join(table.column_names)}); "
                + ("pass label= to name the label column." if c == label else "")
            )
    raw = table.column(label).combine_chunks()
    if pa.types.is_string(raw.type) or pa.types.is_large_string(raw.type):
        raw = pc.if_else(pc.equal(pc.utf8_trim_whitespace(raw), ""), None, raw)
        try:
            raw = pc.cast(raw, pa.float64())
        except pa.ArrowInvalid:
            text = raw.to_pylist()
            for i, v in enumerate(text):
                try:
                    float(v) if v is not None else None
                except ValueError:
                    raise InputError(
                        f"{name}: row {i + 1}, column {label!r}: {v!r} is not a number; "
                        "write a grade (0, 1, 2, ...) or leave it empty."
                    ) from None
            raise
    elif not (
        pa.types.is_integer(raw.type)
        or pa.types.is_floating(raw.type)
        or pa.types.is_null(raw.type)
    ):
        raise InputError(f"{name}: column {label!r} holds {raw.type}, not numbers (grades).")
    values = pc.cast(raw, pa.float64()).to_numpy(zero_copy_only=False)
    done = ~np.isnan(values)
    query = pc.cast(table.column("query"), pa.large_string()).combine_chunks()
    doc = pc.cast(table.column("doc"), pa.large_string()).combine_chunks()
    keep = pa.array(done)
    missing = np.flatnonzero(~done)
    unlabelled = list(
        zip(
            query.take(pa.array(missing)).to_pylist(),
            doc.take(pa.array(missing)).to_pylist(),
            strict=True,
        )
    )
    qrels = Qrels(query.filter(keep), doc.filter(keep), values[done], name=name)

    def column(c: str) -> np.ndarray | None:
        if c not in table.column_names:
            return None
        return np.asarray(pc.cast(table.column(c), pa.float64()).to_numpy(), dtype=np.float64)[done]

    inclusion = column("inclusion")
    if inclusion is not None and not np.all((inclusion > 0) & (inclusion <= 1)):
        bad = int(np.flatnonzero(~((inclusion > 0) & (inclusion <= 1)))[0])
        raise InputError(
            f"{name}: labelled row {bad + 1} has inclusion {inclusion[bad]!r}; an inclusion "
            "probability lies in (0, 1]."
        )
    stratum = column("stratum")
    return Labels(
        qrels, None if stratum is None else stratum.astype(np.int64), inclusion, unlabelled
    )
