"""Writing TREC qrels and runs: the ids checked to fit the format, the lines built as
Arrow text columns and written in one piece (compressed by the file's suffix)."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, scalar, strings, to_numpy
from ranklens._shared.files import atomic_path
from ranklens.errors import InputError
from ranklens.io._files import output_compression
from ranklens.ranking.data import Qrels, Run

__all__ = ["qrels_columns", "run_columns", "write_lines"]


def _check_ids(table_name: str, arr: pa.Array, what: str) -> None:
    """TREC ids are non-empty runs of non-whitespace (ASCII whitespace separates
    columns); a query id must not start with '#' (its line would be a comment)."""
    tokens = to_numpy(pc.list_value_length(pc.ascii_split_whitespace(arr)))
    bad = (tokens != 1) | (to_numpy(pc.binary_length(arr)) == 0)
    if what == "query":
        bad |= to_numpy(pc.starts_with(arr, "#"))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = arr[i].as_py()
        why = (
            "is empty"
            if value == ""
            else "starts with '#', which would make its line a comment"
            if value.startswith("#") and tokens[i] == 1
            else "contains whitespace"
        )
        raise InputError(
            f"cannot write {table_name} as TREC: the {what} id {value!r} {why}; the TREC "
            "format cannot hold it, write CSV, Parquet or JSON Lines instead."
        )


def _number_text(values: np.ndarray) -> pa.Array:
    """Shortest text that reads back to exactly the same float64 (Arrow formats
    doubles with the shortest round-trip representation; integers have no '.0')."""
    return from_numpy(np.asarray(values, dtype=np.float64)).cast(pa.string())


def _const(text: str, n: int) -> pa.Array:
    return pa.repeat(scalar(text), n) if n else strings([])


def qrels_columns(qrels: Qrels) -> list[pa.Array]:
    """The columns of ``query 0 doc relevance`` lines."""
    _check_ids("qrels", qrels._query, "query")
    _check_ids("qrels", qrels._doc, "doc")
    n = len(qrels)
    return [qrels._query, _const("0", n), qrels._doc, _number_text(qrels._values)]


def run_columns(run: Run, tag: str | None) -> list[pa.Array]:
    """The columns of ``query Q0 doc rank score tag`` lines, each query's documents in
    rank order (score descending, ties by doc id descending) with ranks 1, 2, ...; the
    tag is ``tag``, else the run's name, else ``ranklens``."""
    _check_ids("run", run._query, "query")
    _check_ids("run", run._doc, "doc")
    name = tag or run.name or "ranklens"
    if any(c.isspace() for c in name):
        raise InputError(f"cannot write the run tag {name!r} as TREC: it contains whitespace.")
    order = pc.sort_indices(
        pa.table({"q": run._query, "s": from_numpy(run._values), "d": run._doc}),
        sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")],
    )
    q = run._query.take(order)
    o = to_numpy(order)
    n = len(o)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = to_numpy(pc.not_equal(q[1:], q[:-1]))
    starts = np.flatnonzero(new)
    rank = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n))) + 1
    return [
        q,
        _const("Q0", n),
        run._doc.take(order),
        from_numpy(rank).cast(pa.string()),
        _number_text(run._values[o]),
        _const(name, n),
    ]


def write_lines(path: str | os.PathLike[str], columns: list[pa.Array]) -> None:
    """Write space-separated columns, one line per row (no quoting)."""
    n = len(columns[0])
    cols = [c.cast(pa.large_string()) for c in columns]
    space, newline = (strings([" "])[0], strings(["\n"])[0])
    lines = pc.binary_join_element_wise(*cols, space)
    lines = pc.binary_join_element_wise(lines, _const("", n).cast(pa.large_string()), newline)
    offsets = to_numpy(
        lines.buffers()[1]
        and pa.Array.from_buffers(
            pa.int64(), n + 1, [None, lines.buffers()[1]], offset=lines.offset
        )
    )
    data = lines.buffers()[2]
    body = data.slice(int(offsets[0]), int(offsets[-1] - offsets[0])) if n else b""
    with (
        atomic_path(path) as tmp,
        pa.output_stream(tmp, compression=output_compression(path)) as out,
    ):
        out.write(body)
