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
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ranklens._shared.arrow import from_numpy, scalar, strings, to_numpy
from ranklens.errors import DuplicateError, InputError, RanklensWarning, user_stacklevel
from ranklens.io._files import (
    check_readable,
    is_stream,
    numbers,
    output_compression,
    read_bytes,
)
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import index_ahead

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
    ASCII whitespace inside lines (vertical tab, form feed, a carriage return not
    ending a line: the CSV reader would end the line there).  What a byte count
    cannot see (doubled delimiters, indented or '#' comment lines) is checked on
    the parsed columns by :func:`_fast`.
    """
    counts = _byte_counts(b)
    if counts[11] or counts[12] or (counts[9] and counts[32]):
        return None
    if counts[13] and _lone_cr(b):
        return None
    return "\t" if counts[9] else " "


def _lone_cr(b: np.ndarray) -> bool:
    """Whether some carriage return in ``b`` is not followed by a line feed."""
    step = 1 << 23
    for start in range(0, b.size, step):
        cr = np.flatnonzero(b[start:start + step] == 13) + start
        if cr.size and (cr[-1] == b.size - 1 or np.any(b[cr + 1] != 10)):
            return True
    return False


_BLOCK_SIZE = 1 << 19
"""Bytes of text per CSV block (about 9,000 lines of a typical run).  The reader
reads up to 32 blocks ahead, and Arrow's allocator keeps freed blocks resident:
small blocks keep that small (1 MiB blocks: 0.1 s faster on 10M lines, 20-40 MiB
more at the peak)."""


class _Growing:
    """A NumPy array filled a batch at a time, sized once for the most it can take.
    Pages never written are never resident, so a generous size costs address space,
    not memory.  Growing (a copy: both sizes resident for a moment) is a safety net
    that a correct bound never needs, unless the system refuses to reserve that much
    (no overcommit): then the array starts at ``fallback`` elements."""

    __slots__ = ("array", "size")

    def __init__(self, dtype: type[np.generic], capacity: int, fallback: int = 0) -> None:
        try:
            self.array: np.ndarray = np.empty(max(capacity, 16), dtype=dtype)
        except MemoryError:  # no overcommit (or no address space): start smaller
            self.array = np.empty(max(fallback, 16), dtype=dtype)
        self.size = 0

    def slot(self, n: int) -> np.ndarray:
        """The next ``n`` elements, to be written (they count as filled)."""
        need = self.size + n
        if need > len(self.array):
            grown = np.empty(max(need, len(self.array) * 3 // 2), dtype=self.array.dtype)
            grown[:self.size] = self.array[:self.size]
            self.array = grown
        out = self.array[self.size:need]
        self.size = need
        return out

    def finish(self) -> np.ndarray:
        """The filled part: a view (the unwritten rest was never resident)."""
        out = self.array[:self.size]
        self.array = np.empty(0, dtype=self.array.dtype)
        return out


def _fast(buf: Any, sep: str, layout: _Layout, head: bytes | None = None,
          tail: bytes | None = None, rows: int | None = None, name: str = "") -> _Columns | None:
    """Read a regular file with Arrow's CSV reader.  ``buf`` is the file's bytes or
    its path (then ``head`` and ``tail`` are its first and last bytes); ``rows`` an
    estimate of the number of lines (it sizes the columns)."""
    if head is None:
        head = bytes(buf[: min(len(buf), 65536)])
        tail = bytes(buf[max(0, len(buf) - 65536):])
    # read the first line to learn how many columns the file has
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    name = name or (buf if isinstance(buf, str) else "the file")
    _not_a_run(name, first.split(), layout, 1)
    ncols = len(first.split(sep.encode()))
    if ncols < layout.min_columns or ncols != len(first.split()):
        return None
    names = [f"c{i}" for i in range(ncols)]
    want = {f"c{layout.query}": pa.string(), f"c{layout.doc}": pa.string(),
            f"c{layout.value}": pa.float64()}
    size = os.path.getsize(buf) if isinstance(buf, str) else len(buf)
    pool = _reader_pool()
    try:
        reader = pacsv.open_csv(
            buf if isinstance(buf, str) else pa.BufferReader(buf),
            read_options=pacsv.ReadOptions(column_names=names, block_size=_BLOCK_SIZE),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char=False,
                                              double_quote=False, escape_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=want, include_columns=list(want),
                strings_can_be_null=False, null_values=[]),
            memory_pool=pool,
        )
        cols = _stream(reader, layout, size, rows)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    finally:
        # the reader's buffers are freed (the columns are copies): let the allocators
        # give the memory back rather than keep it resident
        pool.release_unused()
        pa.default_memory_pool().release_unused()
    if cols is None:
        return None
    if layout.kind == "run" and len(cols.value):
        cols.tag = _last_tag(tail or b"", sep)
        fields = first.split(sep.encode())
        first_tag = fields[5].decode("utf-8", "replace") if len(fields) > 5 else None
        _one_tag(name, first_tag, cols.tag)
    return cols


def _not_a_run(path: str, fields: list[bytes], layout: _Layout, line: int) -> None:
    """A run file given where qrels belong would be read with its rank as the relevance
    (every retrieved document relevant): refuse a qrels line shaped like a run line."""
    if layout.kind == "qrels" and len(fields) >= 6 and fields[1].upper() == b"Q0":
        raise InputError(
            f"{path}:{line}: this looks like a run line (query Q0 doc rank score tag), not "
            "qrels (query iter doc relevance); give the qrels file first, then the run: "
            "ranklens evaluate QRELS RUN."
        )


def _one_tag(path: str, first: str | None, last: str | None) -> None:
    """trec_eval names a run after the tag of its last line; say so when the file holds
    several tags (the fast reader compares the first line's tag with the last's)."""
    if first is not None and last is not None and first != last:
        warnings.warn(
            f"{path}: the run has several run tags (e.g. {first!r} and {last!r}); it is "
            f"named {last!r}, after its last line, as trec_eval does. Give each system its "
            "own file.", RanklensWarning, stacklevel=user_stacklevel())


def _reader_pool() -> pa.MemoryPool:
    """The pool for the CSV reader's buffers, which live for one batch each: jemalloc
    where pyarrow has it (it gives freed blocks back; the default mimalloc keeps
    blocks freed by another thread than the one that allocated them, 25 MiB more at
    the peak of reading a 1M-line run), else the default pool."""
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:  # pragma: no cover - pyarrow built without jemalloc
        return pa.default_memory_pool()


def _stream(reader: Any, layout: _Layout, size: int, rows: int | None) -> _Columns | None:
    """The columns of a CSV reader's batches, built as they come (no batch is kept):
    the scores and the doc ids are copied into arrays of their final size; the query
    ids are dictionary-encoded (int32 codes into the distinct ids), which is what the
    engine works on.  The next batch is parsed on a second thread while this one is
    copied.  None if a batch shows what only the slow path may judge: an empty field
    (a doubled delimiter, an indented line), a line starting with '#' (a comment) or
    a missing value."""
    from concurrent.futures import ThreadPoolExecutor

    q_name, d_name, v_name = f"c{layout.query}", f"c{layout.doc}", f"c{layout.value}"
    # offsets into the doc text: 32-bit while the whole input fits them
    wide = size >= 2**31 - 1
    offset_type: type[np.signedinteger[Any]] = np.int64 if wide else np.int32
    # sized for the most the input can hold: the lines counted (else one per
    # 2 * min_columns - 1 bytes, the shortest line), the input's size for the doc text
    cap = rows if rows is not None else size // (2 * layout.min_columns - 1) + 1
    values = _Growing(np.float64, cap)
    codes = _Growing(np.int32, cap)
    doc_offsets = _Growing(offset_type, cap + 1)
    doc_offsets.slot(1)[0] = 0
    doc_text: _Growing | None = None
    dicts: list[pa.Array] = []
    starts: list[int] = []  # first row of each batch
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ranklens-csv") as ahead:
        pending = ahead.submit(_next_batch, reader)
        while True:
            batch = pending.result()
            if batch is None:
                break
            pending = ahead.submit(_next_batch, reader)
            k = batch.num_rows
            if k == 0:
                continue
            v = batch.column(v_name)
            if v.null_count:
                return None
            # the doc ids: offsets shifted onto the column's, text appended
            d = batch.column(d_name)
            offs = np.frombuffer(d.buffers()[1], dtype=np.int32, count=k + 1,
                                 offset=d.offset * 4)
            if (offs[1:] == offs[:-1]).any():
                return None
            lo, hi = int(offs[0]), int(offs[-1])
            if doc_text is None:  # at most the whole input; else guessed from this batch
                doc_text = _Growing(np.uint8, size, (hi - lo) * cap // k * 5 // 4)
            np.add(offs[1:], offset_type(doc_text.size - lo), out=doc_offsets.slot(k))
            doc_text.slot(hi - lo)[:] = np.frombuffer(d.buffers()[2], dtype=np.uint8,
                                                       count=hi - lo, offset=lo)
            # the query ids: codes into this batch's distinct ids, unified below
            enc = pc.dictionary_encode(batch.column(q_name))
            ids = enc.dictionary
            if pc.min(pc.binary_length(ids)).as_py() == 0 or \
                    pc.any(pc.starts_with(ids, "#")).as_py():
                return None
            starts.append(codes.size)
            codes.slot(k)[:] = to_numpy(enc.indices)
            dicts.append(ids)
            values.slot(k)[:] = to_numpy(v)
            del batch, v, d, enc, ids
    value = values.finish()
    n = len(value)
    code = codes.finish()
    if n == 0 or doc_text is None:
        return _Columns(strings([]), strings([]), value, None, None)
    text = doc_text.finish()
    offsets = doc_offsets.finish()
    query = pa.DictionaryArray.from_arrays(from_numpy(code), _unify(dicts, starts, code))
    doc = pa.Array.from_buffers(pa.large_string() if wide else pa.string(), n,
                                [None, pa.py_buffer(offsets), pa.py_buffer(text)])
    return _Columns(query, doc, value, None, None)


def _next_batch(reader: Any) -> pa.RecordBatch | None:
    try:
        return reader.read_next_batch()
    except StopIteration:
        return None


def _unify(dicts: list[pa.Array], starts: list[int], code: np.ndarray) -> pa.Array:
    """One dictionary for the batches' query codes (``code``, rewritten in place): the
    distinct ids in order of first appearance (the first batch's codes stay)."""
    if len(dicts) == 1:
        return dicts[0]
    wide = sum(len(x.buffers()[2] or b"") for x in dicts) >= 2**31 - 1
    enc = pc.dictionary_encode(
        pa.concat_arrays([x.cast(pa.large_string()) for x in dicts] if wide else dicts))
    remap = to_numpy(enc.indices)
    base = len(dicts[0])
    for i in range(1, len(dicts)):
        stop = starts[i + 1] if i + 1 < len(starts) else len(code)
        part = code[starts[i]:stop]
        np.take(remap, part + base, out=part)
        base += len(dicts[i])
    out: pa.Array = enc.dictionary
    return out


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
    distinct_tags: set[str] = set()
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
        if start == 0 and len(tokens):
            _not_a_run(path, [t.encode() for t in tokens[0].as_py()], layout, int(idx[0]))
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
        raise InputError(f"{path}: the file is empty: no data lines (only blank lines or "
                         "comments).")
    values = []
    for text, idx in vs:
        def where(j: int, idx: np.ndarray = idx) -> str:
            return f"{path}:{idx[j]}"

        values.append(numbers(text, where, layout.value_name))
    if len(distinct_tags) > 1:
        _one_tag(path, min(distinct_tags - {tags[-1]}), tags[-1])
    return _Columns(pa.concat_arrays(qs), pa.concat_arrays(ds), np.concatenate(values),
                    tags[-1] if tags else None, line_numbers)


_SCAN_CHUNK = 1 << 20


def _scan(path: str) -> tuple[str | None, bytes, bytes, int]:
    """Check a plain file in chunks, without holding it in memory: text, UTF-8,
    and which delimiter the fast reader could use (as :func:`_delimiter` does).
    Returns (delimiter or None, the first bytes, the last bytes, the number of
    lines).  The chunks are read into one reused buffer and checked in place."""
    seen = {b"\t": False, b" ": False, b"\v": False, b"\f": False}
    lone_cr = False
    lines = 0
    chunk = bytearray(_SCAN_CHUNK)
    newline = np.empty(_SCAN_CHUNK, dtype=bool)
    filled = 0  # bytes at the start of ``chunk``: the previous chunk's unfinished line
    with open(path, "rb") as fh:
        head = fh.read(65536 + len(_BOM))
        skip = len(_BOM) if head.startswith(_BOM) else 0
        head = head[skip:skip + 65536]
        if b"\x00" in head:
            raise InputError(f"{path}: looks like a binary file, not a TREC text file.")
        fh.seek(skip)
        while True:
            if filled == len(chunk):  # a line longer than the buffer
                chunk.extend(bytes(len(chunk)))
                newline = np.empty(len(chunk), dtype=bool)
            with memoryview(chunk) as view:
                got = fh.readinto(view[filled:])
            end = filled + got
            # whole lines only: the rest waits for the next chunk
            cut = chunk.rfind(b"\n", 0, end) + 1 if got else end
            if cut:
                for ch in seen:
                    seen[ch] = seen[ch] or chunk.find(ch, 0, cut) >= 0  # memchr: fast
                with memoryview(chunk) as view:
                    _check_utf8(path, view[:cut], lines)
                part = np.frombuffer(chunk, dtype=np.uint8, count=cut)
                if not lone_cr and chunk.find(b"\r", 0, cut) >= 0:
                    lone_cr = _lone_cr(part)
                lines += int(np.count_nonzero(np.equal(part, 10, out=newline[:cut])))
                del part
            if not got:
                if end and chunk[end - 1] != 10:
                    lines += 1  # the last line has no line end
                break
            chunk[: end - cut] = chunk[cut:end]
            filled = end - cut
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 65536))
        tail = fh.read()
    if not head.strip():
        raise InputError(f"{path}: the file is empty; expected TREC lines.")
    if seen[b"\v"] or seen[b"\f"] or (seen[b"\t"] and seen[b" "]) or lone_cr:
        return None, head, tail, lines
    return ("\t" if seen[b"\t"] else " "), head, tail, lines


def _check_utf8(path: str, part: memoryview, lines_before: int) -> None:
    try:
        _whole(pa.py_buffer(part)).cast(pa.large_string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        try:
            bytes(part).decode("utf-8")
        except UnicodeDecodeError as exc:
            line = lines_before + bytes(part[: exc.start]).count(b"\n") + 1
            raise InputError(f"{path}:{line}: the file is not valid UTF-8 text; "
                             "re-encode it as UTF-8.") from None


def _columns(path: str | os.PathLike[str], layout: _Layout, fast: bool = True,
             data: pa.Buffer | None = None) -> _Columns:
    """The file's columns; ``data``: its bytes, already read (a stream can be read once)."""
    name = str(path)
    if fast and data is None and output_compression(path) is None and not is_stream(path):
        # a plain file: check it in chunks and let Arrow read it from disk, so that the
        # whole file is never in memory at once
        p = check_readable(path)
        sep, head, tail, lines = _scan(str(p))
        if sep is not None:
            cols = _fast(str(p), sep, layout, head, tail, lines, name=name)
            if cols is not None and len(cols.query):
                return cols
    buf, b = _check_text(name, read_bytes(path) if data is None else data)
    if fast:
        sep = _delimiter(buf, b)
        if sep is not None:
            cols = _fast(buf, sep, layout, name=name)
            if cols is not None and len(cols.query):
                return cols
    return _slow(name, buf, b, layout)


def _build(path: str | os.PathLike[str], layout: _Layout, cls: type[Qrels] | type[Run],
           duplicates: str) -> Qrels | Run:
    data = read_bytes(path) if is_stream(path) else None  # a stream is read once
    cols = _columns(path, layout, data=data)
    if cols.lines is None and not np.isfinite(cols.value).all():
        _columns(path, layout, fast=False, data=data)  # the slow reader names the line
    try:
        out = cls(cols.query, cols.doc, cols.value, name=cols.tag, duplicates=duplicates,
                  _own_values=True)
    except DuplicateError:
        if cols.lines is None:  # re-read the slow way to know the line numbers
            cols = _columns(path, layout, fast=False, data=data)
        try:
            return cls(cols.query, cols.doc, cols.value, name=cols.tag, duplicates=duplicates)
        except DuplicateError as exc:
            raise DuplicateError(f"{path}: {_duplicate_lines(cols)} {exc}") from None
        except InputError as exc:  # pragma: no cover - same data, same checks
            raise InputError(f"{path}: {exc}") from None
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    # a large run checks its (query, doc) pairs on first use: then name the file's lines
    out.keep("describe_duplicates", lambda exc: DuplicateError(
        f"{path}: {_duplicate_lines(_columns(path, layout, fast=False, data=data))} {exc}"))
    return out


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
    index_ahead(out)  # a large qrels: its judgment index is built while the run is read
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
