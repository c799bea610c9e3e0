"""TREC qrels (``query iter doc relevance``) and run (``query Q0 doc rank score
tag``) files.

Whitespace-separated; a line whose first non-blank character is ``#`` is a
comment; ``#`` inside an id is ordinary text; extra trailing columns are
ignored (as trec_eval does); the rank column is ignored for ordering; CRLF
line ends are accepted; ``.gz``/``.bz2``/``.zst`` files are decompressed.

Regular files (one delimiter, no comment lines, the same number of columns
everywhere) go through Arrow's CSV reader, a block at a time, each block copied
into the final columns as it comes (the doc ids a string column, the query ids
dictionary-encoded, the scores float64), so that the peak memory of a load is
close to the size of what it loads; anything else takes a slower path that
tokenises whitespace per line and knows the line number of every row, which is
also the path that words the error messages (``file:line``).

The three jobs live in their own modules: :mod:`ranklens.io._trec_fast` (the
Arrow CSV reader), :mod:`ranklens.io._trec_slow` (the tokenising reader and its
``file:line`` errors) and :mod:`ranklens.io._trec_write` (the writers); what a
file is for both readers is in :mod:`ranklens.io._trec_format`.  This module
chooses the path and holds the public entry points.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from ranklens.errors import DuplicateError, InputError
from ranklens.io._files import check_readable, is_stream, output_compression, read_bytes
from ranklens.io._trec_fast import delimiter, read_fast, scan
from ranklens.io._trec_format import QRELS, RUN, Columns, Layout, check_text
from ranklens.io._trec_slow import duplicate_lines, read_slow
from ranklens.io._trec_write import qrels_columns, run_columns, write_lines
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import index_ahead

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"]


def _columns(
    path: str | os.PathLike[str],
    layout: Layout,
    fast: bool = True,
    data: pa.Buffer | None = None,
    lines_before: int = 0,
) -> Columns:
    """The file's columns; ``data``: its bytes, already read (a stream can be read once),
    or a block of whole lines with ``lines_before`` lines of the file before it."""
    name = str(path)
    if fast and data is None and output_compression(path) is None and not is_stream(path):
        # a plain file: check it in chunks and let Arrow read it from disk, so that the
        # whole file is never in memory at once
        p = check_readable(path)
        sep, head, tail, lines = scan(str(p))
        if sep is not None:
            cols = read_fast(str(p), sep, layout, head, tail, lines, name=name)
            if cols is not None and len(cols.query):
                return cols
    buf, b = check_text(name, read_bytes(path) if data is None else data, lines_before)
    if fast:
        sep = delimiter(buf, b)
        if sep is not None:
            cols = read_fast(buf, sep, layout, name=name)
            if cols is not None and len(cols.query):
                return cols
    return read_slow(name, buf, b, layout, lines_before)


def checked_columns(
    path: str | os.PathLike[str],
    layout: Layout,
    data: pa.Buffer | None = None,
    lines_before: int = 0,
) -> Columns:
    """The columns of a file (or of a block of it, as :func:`_columns`), every value a
    finite number: else the slow reader names the line."""
    cols = _columns(path, layout, data=data, lines_before=lines_before)
    if cols.lines is None and not np.isfinite(cols.value).all():
        _columns(path, layout, fast=False, data=data, lines_before=lines_before)
    return cols


def table_from_columns(
    path: str | os.PathLike[str],
    layout: Layout,
    cls: type[Qrels] | type[Run],
    duplicates: str,
    cols: Columns,
    data: pa.Buffer | None = None,
    lines_before: int = 0,
) -> Qrels | Run:
    """The table of a file's columns (as :func:`checked_columns` returns them); a
    duplicate (query, doc) pair is named by its lines, for which the file (or the block
    ``data``) is read again the slow way unless ``cols`` know their lines."""

    def with_lines() -> Columns:
        if cols.lines is not None:
            return cols
        return _columns(path, layout, fast=False, data=data, lines_before=lines_before)

    try:
        out = cls(
            cols.query, cols.doc, cols.value, name=cols.tag, duplicates=duplicates, _own_values=True
        )
    except DuplicateError:
        lined = with_lines()  # re-read the slow way to know the line numbers
        try:
            return cls(lined.query, lined.doc, lined.value, name=lined.tag, duplicates=duplicates)
        except DuplicateError as exc:
            raise DuplicateError(f"{path}: {duplicate_lines(lined)} {exc}") from None
        except InputError as exc:  # pragma: no cover - same data, same checks
            raise InputError(f"{path}: {exc}") from None
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    # a large run checks its (query, doc) pairs on first use: then name the file's lines
    out.keep(
        "describe_duplicates",
        lambda exc: DuplicateError(f"{path}: {duplicate_lines(with_lines())} {exc}"),
    )
    return out


def _build(
    path: str | os.PathLike[str], layout: Layout, cls: type[Qrels] | type[Run], duplicates: str
) -> Qrels | Run:
    """The table of a file; a duplicate (query, doc) pair or a non-finite value is
    named by its line, for which the file is read again the slow way."""
    data = read_bytes(path) if is_stream(path) else None  # a stream is read once
    cols = checked_columns(path, layout, data)
    return table_from_columns(path, layout, cls, duplicates, cols, data)


def read_trec_qrels(path: str | os.PathLike[str], *, duplicates: str = "error") -> Qrels:
    """Read a TREC qrels file (``query iter doc relevance [...]``)."""
    out = _build(path, QRELS, Qrels, duplicates)
    assert isinstance(out, Qrels)
    out.name = None
    index_ahead(out)  # a large qrels: its judgment index is built while the run is read
    return out


def read_trec_run(path: str | os.PathLike[str], *, duplicates: str = "error") -> Run:
    """Read a TREC run file (``query Q0 doc rank score tag [...]``); the run's
    name is the tag of its last line (as trec_eval reports it)."""
    out = _build(path, RUN, Run, duplicates)
    assert isinstance(out, Run)
    return out


def write_trec_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write ``query 0 doc relevance`` lines."""
    write_lines(path, qrels_columns(qrels))


def write_trec_run(run: Run, path: str | os.PathLike[str], tag: str | None = None) -> None:
    """Write ``query Q0 doc rank score tag`` lines, each query's documents in rank
    order (score descending, ties by doc id descending) with ranks 1, 2, ..."""
    write_lines(path, run_columns(run, tag))
