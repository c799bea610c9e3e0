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
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ranklens._arrow import from_numpy, scalar, strings, to_numpy
from ranklens.data import Qrels, Run
from ranklens.errors import DuplicateError, InputError
from ranklens.io._files import check_readable, numbers, output_compression, read_bytes

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


_BOM = b"\xef\xbb\xbf"


def _check_text(path: str, buf: pa.Buffer) -> tuple[pa.Buffer, np.ndarray]:
    """The file's bytes without a UTF-8 byte-order mark, checked to be UTF-8 text."""
    if len(buf) >= 3 and bytes(buf[:3]) == _BOM:
        buf = buf.slice(3)
    b = np.frombuffer(buf, dtype=np.uint8)
    if b.size == 0:
        raise InputError(f"{path}: the file is empty; expected TREC lines.")
    if np.any(b[:65536] == 0):
        raise InputError(f"{path}: looks like a binary file, not a TREC text file.")
    try:
        _whole(buf).cast(pa.large_string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        try:
            bytes(buf).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{path}:{_line_of(b, exc.start)}: the file is not valid UTF-8 text; "
                "re-encode it as UTF-8."
            ) from None
        raise
    return buf, b


def _whole(buf: pa.Buffer) -> pa.Array:
    """The whole buffer as a one-element binary array (no copy)."""
    offsets = np.array([0, len(buf)], dtype=np.int64)
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, pa.py_buffer(offsets), buf])


def _byte_counts(b: np.ndarray) -> np.ndarray:
    """How often each byte value occurs (counted in chunks to bound memory)."""
    counts = np.zeros(256, dtype=np.int64)
    step = 1 << 23
    for start in range(0, b.size, step):
        counts += np.bincount(b[start:start + step], minlength=256)
    return counts


def _delimiter(buf: pa.Buffer, b: np.ndarray) -> str | None:
    """The delimiter if the file may go through the fast CSV reader, else None.

    The fast reader needs one delimiter (space or tab, not both) and no other
    ASCII whitespace inside lines (vertical tab, form feed).  What a byte count
    cannot see (doubled delimiters, indented or '#' comment lines) is checked
    on the parsed columns by :func:`_fast`.
    """
    counts = _byte_counts(b)
    if counts[11] or counts[12] or (counts[9] and counts[32]):
        return None
    return "\t" if counts[9] else " "


def _fast(buf: Any, sep: str, layout: _Layout, head: bytes | None = None,
          tail: bytes | None = None) -> _Columns | None:
    """Read a regular file with Arrow's CSV reader.  ``buf`` is the file's bytes or
    its path (then ``head`` and ``tail`` are its first and last bytes)."""
    if head is None:
        head = bytes(buf[: min(len(buf), 65536)])
        tail = bytes(buf[max(0, len(buf) - 65536):])
    # read the first line to learn how many columns the file has
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    ncols = len(first.split(sep.encode()))
    if ncols < layout.min_columns or ncols != len(first.split()):
        return None
    names = [f"c{i}" for i in range(ncols)]
    want = {f"c{layout.query}": pa.string(), f"c{layout.doc}": pa.string(),
            f"c{layout.value}": pa.float64()}
    try:
        table = pacsv.read_csv(
            buf if isinstance(buf, str) else pa.BufferReader(buf),
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char=False,
                                              double_quote=False, escape_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=want, include_columns=list(want),
                strings_can_be_null=False, null_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    rows = table.num_rows
    chunked = {name: table.column(name) for name in want}
    del table
    if chunked[f"c{layout.value}"].null_count:
        return None
    # one column at a time: the chunked original is freed before the next is combined
    value = np.array(to_numpy(chunked.pop(f"c{layout.value}")), dtype=np.float64)
    query = chunked.pop(f"c{layout.query}").combine_chunks()
    doc = chunked.pop(f"c{layout.doc}").combine_chunks()
    # an empty token means a doubled delimiter or an indented line; a query id starting
    # with '#' a comment line: both are the slow path's to judge
    for col in (query, doc):
        if len(col) and pc.min(pc.binary_length(col)).as_py() == 0:
            return None
    if pc.any(pc.starts_with(query, "#")).as_py():
        return None
    tag = _last_tag(tail or b"", sep) if layout.kind == "run" and rows else None
    return _Columns(query, doc, value, tag, None)


def _last_tag(tail: bytes, sep: str) -> str | None:
    """The run tag (6th column) of the last non-blank line of ``tail`` (the file's end)."""
    fields = tail.rstrip(b"\r\n \t").rsplit(b"\n", 1)[-1].split(sep.encode())
    return fields[5].decode("utf-8", "replace") if len(fields) > 5 else None


def _slow(path: str, buf: pa.Buffer, b: np.ndarray, layout: _Layout) -> _Columns:
    nl = np.flatnonzero(b == 10)
    offs = np.concatenate(([0], nl + 1)).astype(np.int64)
    if offs[-1] != b.size:
        offs = np.append(offs, b.size)
    n_lines = offs.size - 1
    # UTF-8 was checked in _check_text
    lines = pa.Array.from_buffers(pa.large_string(), n_lines, [None, pa.py_buffer(offs), buf])
    qs, ds, vs, tags, line_no = [], [], [], [], []
    for start in range(0, n_lines, _CHUNK_LINES):
        # trec_eval splits on ASCII whitespace (C isspace): so do both paths
        chunk = pc.ascii_trim_whitespace(lines.slice(start, _CHUNK_LINES))
        tokens = pc.ascii_split_whitespace(chunk)
        count = to_numpy(pc.list_value_length(tokens))
        blank = to_numpy(pc.binary_length(chunk)) == 0
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
        def where(j: int, idx: np.ndarray = idx) -> str:
            return f"{path}:{idx[j]}"

        values.append(numbers(text, where, layout.value_name))
    return _Columns(pa.concat_arrays(qs), pa.concat_arrays(ds), np.concatenate(values),
                    tags[-1] if tags else None, line_numbers)


_SCAN_CHUNK = 1 << 24


def _scan(path: str) -> tuple[str | None, bytes, bytes]:
    """Check a plain file in chunks, without holding it in memory: text, UTF-8,
    and which delimiter the fast reader could use.  Returns (delimiter or None,
    the first bytes, the last bytes)."""
    seen = {b"\t": False, b" ": False, b"\v": False, b"\f": False}
    head = b""
    lines_before = 0
    carry = b""
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_SCAN_CHUNK)
            if not block and not carry:
                break
            data = carry + block
            if not head:
                if data.startswith(_BOM):
                    data = data[3:]
                head = data[:65536]
                if b"\x00" in head:
                    raise InputError(f"{path}: looks like a binary file, not a TREC text file.")
            cut = data.rfind(b"\n") + 1 if block else len(data)
            part, carry = data[:cut], data[cut:]
            if not part and block:
                carry = data
                continue
            for ch in seen:
                seen[ch] = seen[ch] or ch in part  # memchr: fast
            try:
                _whole(pa.py_buffer(part)).cast(pa.large_string())
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                try:
                    part.decode("utf-8")
                except UnicodeDecodeError as exc:
                    line = lines_before + part[: exc.start].count(b"\n") + 1
                    raise InputError(f"{path}:{line}: the file is not valid UTF-8 text; "
                                     "re-encode it as UTF-8.") from None
            lines_before += part.count(b"\n")
            if not block:
                break
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    if not head.strip():
        raise InputError(f"{path}: the file is empty; expected TREC lines.")
    if seen[b"\v"] or seen[b"\f"] or (seen[b"\t"] and seen[b" "]):
        return None, head, tail
    return ("\t" if seen[b"\t"] else " "), head, tail


def _columns(path: str | os.PathLike[str], layout: _Layout, fast: bool = True) -> _Columns:
    name = str(path)
    if fast and output_compression(path) is None:
        # a plain file: check it in chunks and let Arrow read it from disk, so that the
        # whole file is never in memory at once
        p = check_readable(path)
        sep, head, tail = _scan(str(p))
        if sep is not None:
            cols = _fast(str(p), sep, layout, head, tail)
            if cols is not None and len(cols.query):
                return cols
    buf, b = _check_text(name, read_bytes(path))
    if fast:
        sep = _delimiter(buf, b)
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
    """TREC ids are non-empty runs of non-whitespace (ASCII whitespace separates
    columns); a query id must not start with '#' (its line would be a comment)."""
    tokens = to_numpy(pc.list_value_length(pc.ascii_split_whitespace(arr)))
    bad = (tokens != 1) | (to_numpy(pc.binary_length(arr)) == 0)
    if what == "query":
        bad |= to_numpy(pc.starts_with(arr, "#"))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        value = arr[i].as_py()
        why = ("is empty" if value == "" else "starts with '#', which would make its line a "
               "comment" if value.startswith("#") and tokens[i] == 1 else "contains whitespace")
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


def _write_lines(path: str | os.PathLike[str], columns: list[pa.Array]) -> None:
    """Write space-separated columns, one line per row (no quoting)."""
    n = len(columns[0])
    cols = [c.cast(pa.large_string()) for c in columns]
    space, newline = (strings([" "])[0], strings(["\n"])[0])
    lines = pc.binary_join_element_wise(*cols, space)
    lines = pc.binary_join_element_wise(lines, _const("", n).cast(pa.large_string()), newline)
    offsets = to_numpy(lines.buffers()[1] and pa.Array.from_buffers(
        pa.int64(), n + 1, [None, lines.buffers()[1]], offset=lines.offset))
    data = lines.buffers()[2]
    body = data.slice(int(offsets[0]), int(offsets[-1] - offsets[0])) if n else b""
    with pa.output_stream(str(path), compression=output_compression(path)) as out:
        out.write(body)


def write_trec_qrels(qrels: Qrels, path: str | os.PathLike[str]) -> None:
    """Write ``query 0 doc relevance`` lines."""
    _check_ids("qrels", qrels._query, "query")
    _check_ids("qrels", qrels._doc, "doc")
    n = len(qrels)
    _write_lines(path, [qrels._query, _const("0", n), qrels._doc,
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
    _write_lines(path, [q, _const("Q0", n), run._doc.take(order),
                        from_numpy(rank).cast(pa.string()), _number_text(run._values[o]),
                        _const(name, n)])
