"""TREC qrels (``query iter doc relevance``) and run (``query Q0 doc rank score
tag``) files.

Whitespace-separated; a line whose first non-blank character is ``#`` is a
comment; ``#`` inside an id is ordinary text; extra trailing columns are
ignored (as trec_eval does); the rank column is ignored for ordering; CRLF
line ends are accepted; ``.gz``/``.bz2``/``.zst`` files are decompressed.

Regular files (one delimiter, no comment lines, the same number of columns
everywhere) go through Arrow's multi-threaded CSV reader; anything else takes
a slower path that tokenises whitespace per line and knows the line number
of every row, which is also the path that words the error messages
(``file:line``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ranklens._arrow import from_numpy, scalar, to_numpy
from ranklens.data import Qrels, Run
from ranklens.errors import DuplicateError, InputError
from ranklens.io._files import read_bytes

__all__ = ["read_trec_qrels", "read_trec_run", "write_trec_qrels", "write_trec_run"]

_CHUNK_LINES = 1_000_000


@dataclass(frozen=True)
class _Layout:
    kind: str           # "qrels" or "run"
    min_columns: int
    query: int
    doc: int
    value: int
    value_name: str
    header: str


_QRELS = _Layout("qrels", 4, 0, 2, 3, "relevance", "query iter doc relevance")
_RUN = _Layout("run", 6, 0, 2, 4, "score", "query Q0 doc rank score tag")


@dataclass
class _Columns:
    query: pa.Array
    doc: pa.Array
    value: np.ndarray
    tag: str | None
    lines: np.ndarray | None  # 1-based line number of each row (slow path only)


def _line_of(b: np.ndarray, pos: int) -> int:
    return int(np.count_nonzero(b[:pos] == 10)) + 1


def _check_text(path: str, buf: pa.Buffer) -> np.ndarray:
    b = np.frombuffer(buf, dtype=np.uint8)
    if b.size == 0:
        raise InputError(f"{path}: the file is empty; expected TREC lines.")
    if np.any(b[:65536] == 0):
        raise InputError(f"{path}: looks like a binary file, not a TREC text file.")
    return b


def _regular(b: np.ndarray) -> str | None:
    """The delimiter if the file can go through the fast CSV reader, else None."""
    has_tab = bool(np.any(b == 9))
    has_space = bool(np.any(b == 32))
    if has_tab and has_space:
        return None
    sep = 9 if has_tab else 32
    s = b == sep
    if s[0] or s[-1]:
        return None
    nl = (b == 10) | (b == 13)
    # doubled delimiters, delimiters at line starts or ends, blank lines
    if np.any(s[1:] & (s[:-1] | nl[:-1])) or np.any(s[:-1] & nl[1:]):
        return None
    # a token starting with '#' may be a comment line
    hashes = np.flatnonzero(b == 35)
    if hashes.size and (hashes[0] == 0 or np.any(s[hashes[hashes > 0] - 1] |
                                                  nl[hashes[hashes > 0] - 1])):
        return None
    return "\t" if has_tab else " "


def _fast(buf: pa.Buffer, sep: str, layout: _Layout) -> _Columns | None:
    names = [f"c{i}" for i in range(layout.min_columns)]
    # read the first line to learn how many columns the file has
    first = bytes(buf[: min(len(buf), 65536)]).split(b"\n", 1)[0].rstrip(b"\r")
    ncols = len(first.split(sep.encode()))
    if ncols < layout.min_columns:
        return None
    names = [f"c{i}" for i in range(ncols)]
    want = {f"c{layout.query}": pa.string(), f"c{layout.doc}": pa.string(),
            f"c{layout.value}": pa.float64()}
    if layout.kind == "run":
        want["c5"] = pa.string()
    try:
        table = pacsv.read_csv(
            pa.BufferReader(buf),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char=False,
                                              double_quote=False, escape_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=want, include_columns=list(want),
                strings_can_be_null=False, null_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    value = table.column(f"c{layout.value}")
    if value.null_count:
        return None
    tag = None
    if layout.kind == "run" and table.num_rows:
        tag = table.column("c5")[-1].as_py()
    return _Columns(table.column(f"c{layout.query}").combine_chunks(),
                    table.column(f"c{layout.doc}").combine_chunks(),
                    np.array(to_numpy(value), dtype=np.float64), tag, None)


def _slow(path: str, buf: pa.Buffer, b: np.ndarray, layout: _Layout) -> _Columns:
    nl = np.flatnonzero(b == 10)
    offs = np.concatenate(([0], nl + 1)).astype(np.int64)
    if offs[-1] != b.size:
        offs = np.append(offs, b.size)
    n_lines = offs.size - 1
    lines = pa.Array.from_buffers(pa.large_binary(), n_lines, [None, pa.py_buffer(offs), buf])
    try:
        lines = lines.cast(pa.large_string())
        lines.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        try:
            bytes(buf).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path}:{_line_of(b, exc.start)}: the file is not valid UTF-8 text; "
                "re-encode it as UTF-8."
            ) from None
        raise
    qs, ds, vs, tags, line_no = [], [], [], [], []
    for start in range(0, n_lines, _CHUNK_LINES):
        chunk = pc.utf8_trim_whitespace(lines.slice(start, _CHUNK_LINES))
        tokens = pc.utf8_split_whitespace(chunk)
        count = to_numpy(pc.list_value_length(tokens))
        blank = to_numpy(pc.utf8_length(chunk)) == 0
        comment = to_numpy(pc.starts_with(chunk, "#"))
        data = ~blank & ~comment
        short = np.flatnonzero(data & (count < layout.min_columns))
        if short.size:
            i = int(short[0])
            raise InputError(
                f"{path}:{start + i + 1}: expected {layout.min_columns} columns "
                f"({layout.header}), found {int(count[i])}."
            )
        keep = from_numpy(data)
        tokens = tokens.filter(keep)
        idx = np.flatnonzero(data) + start + 1
        qs.append(pc.list_element(tokens, scalar(layout.query)))
        ds.append(pc.list_element(tokens, scalar(layout.doc)))
        vs.append((pc.list_element(tokens, scalar(layout.value)), idx))
        if layout.kind == "run" and len(tokens):
            tags.append(pc.list_element(tokens, scalar(5))[-1].as_py())
        line_no.append(idx)
    line_numbers = np.concatenate(line_no) if line_no else np.zeros(0, dtype=np.int64)
    if line_numbers.size == 0:
        raise InputError(f"{path}: the file is empty: no data lines (only blank lines or "
                         "comments).")
    values = []
    for text, idx in vs:
        try:
            values.append(np.array(to_numpy(pc.cast(text, pa.float64())), dtype=np.float64))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            for j, item in enumerate(text.to_pylist()):
                try:
                    float(item)
                except ValueError:
                    raise InputError(
                        f"{path}:{idx[j]}: the {layout.value_name} {item!r} is not a number."
                    ) from None
            raise
    return _Columns(pa.concat_arrays(qs), pa.concat_arrays(ds), np.concatenate(values),
                    tags[-1] if tags else None, line_numbers)


def _columns(path: str | os.PathLike[str], layout: _Layout, fast: bool = True) -> _Columns:
    name = str(path)
    buf = read_bytes(path)
    b = _check_text(name, buf)
    if fast:
        sep = _regular(b)
        if sep is not None:
            cols = _fast(buf, sep, layout)
            if cols is not None and len(cols.query):
                return cols
    return _slow(name, buf, b, layout)


def _build(path: str | os.PathLike[str], layout: _Layout, cls: type[Qrels] | type[Run],
           duplicates: str) -> Qrels | Run:
    cols = _columns(path, layout)
    try:
        return cls(cols.query, cols.doc, cols.value, name=cols.tag, duplicates=duplicates)
    except DuplicateError:
        if cols.lines is None:  # re-read the slow way to know the line numbers
            cols = _columns(path, layout, fast=False)
        try:
            return cls(cols.query, cols.doc, cols.value, name=cols.tag, duplicates=duplicates)
        except DuplicateError as exc:
            raise DuplicateError(f"{path}: {_duplicate_lines(cols)} {exc}") from None
        except InputError as exc:  # pragma: no cover - same data, same checks
            raise InputError(f"{path}: {exc}") from None
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def _duplicate_lines(cols: _Columns) -> str:
    t = pa.table({"q": cols.query, "d": cols.doc, "i": from_numpy(np.arange(len(cols.query)))})
    order = to_numpy(pc.sort_indices(t, sort_keys=[("q", "ascending"), ("d", "ascending"),
                                                     ("i", "ascending")]))
    sq, sd = cols.query.take(from_numpy(order)), cols.doc.take(from_numpy(order))
    same = to_numpy(pc.and_(pc.equal(sq[1:], sq[:-1]),
                              pc.equal(sd[1:], sd[:-1])))
    j = int(np.flatnonzero(same)[0])
    assert cols.lines is not None
    a, b = cols.lines[order[j]], cols.lines[order[j + 1]]
    return (f"lines {a} and {b} repeat (query {sq[j].as_py()!r}, doc {sd[j].as_py()!r});")


def read_trec_qrels(path: str | os.PathLike[str], *, duplicates: str = "error") -> Qrels:
    """Read a TREC qrels file (``query iter doc relevance [...]``)."""
    out = _build(path, _QRELS, Qrels, duplicates)
    assert isinstance(out, Qrels)
    out.name = None
    return out


def read_trec_run(path: str | os.PathLike[str], *, duplicates: str = "error") -> Run:
    """Read a TREC run file (``query Q0 doc rank score tag [...]``); the run's
    name is the tag of its last line (as trec_eval reports it)."""
    out = _build(path, _RUN, Run, duplicates)
    assert isinstance(out, Run)
    return out


def _check_ids(table_name: str, arr: pa.Array, what: str) -> None:
    bad = pc.match_substring_regex(arr, r"\s")
    if pc.any(bad).as_py():
        i = int(np.flatnonzero(to_numpy(bad))[0])
        raise InputError(
            f"cannot write {table_name} as TREC: the {what} id {arr[i].as_py()!r} contains "
            "whitespace, which the TREC format cannot hold; write CSV, Parquet or JSON Lines."
        )


def _number_text(values: np.ndarray) -> pa.Array:
    """Shortest text that reads back to exactly the same float64 (Arrow formats
    doubles with the shortest round-trip representation; integers have no '.0')."""
    return pa.array(values, type=pa.float64()).cast(pa.string())


def _write_lines(path: str | os.PathLike[str], columns: list[pa.Array]) -> None:
    table = pa.table({f"c{i}": c for i, c in enumerate(columns)})
    with pa.output_stream(str(path), compression="detect") as out:
        pacsv.write_csv(table, out, write_options=pacsv.WriteOptions(
            include_header=False, delimiter=" ", quoting_style="none"))


def write_trec_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write ``query 0 doc relevance`` lines."""
    _check_ids("qrels", qrels._query, "query")
    _check_ids("qrels", qrels._doc, "doc")
    n = len(qrels)
    _write_lines(path, [qrels._query, pa.array(["0"] * n, type=pa.string()) if n else
                        pa.array([], type=pa.string()), qrels._doc,
                        _number_text(qrels._values)])


def write_trec_run(run: Run, path: str | os.PathLike[str], tag: str | None = None) -> None:
    """Write ``query Q0 doc rank score tag`` lines, each query's documents in rank
    order (score descending, ties by doc id descending) with ranks 1, 2, ..."""
    _check_ids("run", run._query, "query")
    _check_ids("run", run._doc, "doc")
    name = tag or run.name or "ranklens"
    if any(c.isspace() for c in name):
        raise InputError(f"cannot write the run tag {name!r} as TREC: it contains whitespace.")
    order = pc.sort_indices(pa.table({"q": run._query, "s": from_numpy(run._values),
                                      "d": run._doc}),
                            sort_keys=[("q", "ascending"), ("s", "descending"),
                                       ("d", "descending")])
    q = run._query.take(order)
    o = to_numpy(order)
    n = len(o)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = to_numpy(pc.not_equal(q[1:], q[:-1]))
    starts = np.flatnonzero(new)
    rank = np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n))) + 1
    const = pa.array(["Q0"] * n, type=pa.string())
    _write_lines(path, [q, const, run._doc.take(order), from_numpy(rank).cast(pa.string()),
                        _number_text(run._values[o]),
                        pa.array([name] * n, type=pa.string())])
