"""The slow TREC reader: any file the fast reader (:mod:`ranklens.io._trec_fast`)
gives up on.  It tokenises ASCII whitespace per line (as trec_eval does), skips blank
and comment lines and knows the line number of every row, so its errors name the line
(``file:line``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, scalar, to_numpy
from ranklens.errors import InputError
from ranklens.io._files import numbers
from ranklens.io._trec_format import Columns, Layout, not_a_run, one_tag

__all__ = ["CHUNK_LINES", "duplicate_lines", "read_slow"]

CHUNK_LINES = 1_000_000
"""Lines tokenised at a time."""


def read_slow(
    path: str, buf: pa.Buffer, b: np.ndarray, layout: Layout, lines_before: int = 0
) -> Columns:
    """The columns of a file's text (``buf``, checked UTF-8; ``b`` its bytes), with the
    line number of every row; ``lines_before``: lines of the file before ``buf`` (a
    block of a file read in parts)."""
    nl = np.flatnonzero(b == 10)
    offs = np.concatenate(([0], nl + 1)).astype(np.int64)
    if offs[-1] != b.size:
        offs = np.append(offs, b.size)
    n_lines = offs.size - 1
    # UTF-8 was checked in check_text
    lines = pa.Array.from_buffers(pa.large_string(), n_lines, [None, pa.py_buffer(offs), buf])
    qs, ds, vs, tags, line_no = [], [], [], [], []
    distinct_tags: set[str] = set()
    for start in range(0, n_lines, CHUNK_LINES):
        # trec_eval splits on ASCII whitespace (C isspace): so do both paths
        chunk = pc.ascii_trim_whitespace(lines.slice(start, CHUNK_LINES))
        tokens = pc.ascii_split_whitespace(chunk)
        count = to_numpy(pc.list_value_length(tokens))
        blank = to_numpy(pc.binary_length(chunk)) == 0
        comment = to_numpy(pc.starts_with(chunk, "#"))
        data = ~blank & ~comment
        short = np.flatnonzero(data & (count < layout.min_columns))
        if short.size:
            i = int(short[0])
            raise InputError(
                f"{path}:{lines_before + start + i + 1}: expected {layout.min_columns} columns "
                f"({layout.header}), found {int(count[i])}."
            )
        keep = from_numpy(data)
        tokens = tokens.filter(keep)
        idx = np.flatnonzero(data) + lines_before + start + 1
        if start == 0 and len(tokens):
            not_a_run(path, [t.encode() for t in tokens[0].as_py()], layout, int(idx[0]))
        qs.append(pc.list_element(tokens, scalar(layout.query)))
        ds.append(pc.list_element(tokens, scalar(layout.doc)))
        vs.append((pc.list_element(tokens, scalar(layout.value)), idx))
        if layout.kind == "run" and len(tokens):
            chunk_tags = pc.list_element(tokens, scalar(5))
            tags.append(chunk_tags[-1].as_py())
            if len(distinct_tags) < 2:
                distinct_tags.update(pc.unique(chunk_tags).to_pylist())
        line_no.append(idx)
    line_numbers = np.concatenate(line_no) if line_no else np.zeros(0, dtype=np.int64)
    if line_numbers.size == 0:
        raise InputError(
            f"{path}: the file is empty: no data lines (only blank lines or comments)."
        )
    values = []
    for text, idx in vs:

        def where(j: int, idx: np.ndarray = idx) -> str:
            return f"{path}:{idx[j]}"

        values.append(numbers(text, where, layout.value_name))
    if len(distinct_tags) > 1:
        one_tag(path, min(distinct_tags - {tags[-1]}), tags[-1])
    return Columns(
        pa.concat_arrays(qs),
        pa.concat_arrays(ds),
        np.concatenate(values),
        tags[-1] if tags else None,
        line_numbers,
    )


def duplicate_lines(cols: Columns) -> str:
    """The first two lines that repeat a (query, doc) pair, as text for an error (the
    columns of the slow reader: they know their lines)."""
    t = pa.table({"q": cols.query, "d": cols.doc, "i": from_numpy(np.arange(len(cols.query)))})
    order = to_numpy(
        pc.sort_indices(t, sort_keys=[("q", "ascending"), ("d", "ascending"), ("i", "ascending")])
    )
    sq, sd = cols.query.take(from_numpy(order)), cols.doc.take(from_numpy(order))
    same = to_numpy(pc.and_(pc.equal(sq[1:], sq[:-1]), pc.equal(sd[1:], sd[:-1])))
    j = int(np.flatnonzero(same)[0])
    assert cols.lines is not None
    a, b = cols.lines[order[j]], cols.lines[order[j + 1]]
    return f"lines {a} and {b} repeat (query {sq[j].as_py()!r}, doc {sd[j].as_py()!r});"
