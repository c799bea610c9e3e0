"""The fast TREC reader: regular files (one delimiter, no comment lines, the same number
of columns everywhere) through Arrow's CSV reader, a block at a time, each block copied
into the final columns as it comes (the doc ids a string column, the query ids
dictionary-encoded, the scores float64), so that the peak memory of a load is close to
the size of what it loads.  It gives up (``None``) on anything else: the slow reader
(:mod:`ranklens.io._trec_slow`) takes that file and words the errors."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ranklens._shared.arrow import from_numpy, strings, to_numpy
from ranklens._shared.progress import report as report_progress
from ranklens.errors import InputError
from ranklens.io._trec_format import BOM, Columns, Layout, check_utf8, not_a_run, one_tag

__all__ = ["BLOCK_SIZE", "SCAN_CHUNK", "Growing", "delimiter", "next_batch", "read_fast", "scan"]


# -- may the file take the fast path? --------------------------------------------------


def _present(buf: pa.Buffer, wanted: bytes) -> set[int]:
    """Which of the byte values ``wanted`` occur in ``buf`` (memchr over slices of it,
    not a pass of NumPy per byte value)."""
    found: set[int] = set()
    step = 1 << 23
    for start in range(0, len(buf), step):
        part = buf.slice(start, min(step, len(buf) - start)).to_pybytes()
        found.update(c for c in wanted if c not in found and part.find(bytes([c])) >= 0)
    return found


def delimiter(buf: pa.Buffer, b: np.ndarray) -> str | None:
    """The delimiter if the file may go through the fast CSV reader, else None.

    The fast reader needs one delimiter (space or tab, not both) and no other
    ASCII whitespace inside lines (vertical tab, form feed, a carriage return not
    ending a line: the CSV reader would end the line there).  What a byte search
    cannot see (doubled delimiters, indented or '#' comment lines) is checked on
    the parsed columns by :func:`read_fast`.
    """
    seen = _present(buf, b"\t \v\f\r")
    if 11 in seen or 12 in seen or (9 in seen and 32 in seen):
        return None
    if 13 in seen and _lone_cr(b):
        return None
    return "\t" if 9 in seen else " "


def _lone_cr(b: np.ndarray) -> bool:
    """Whether some carriage return in ``b`` is not followed by a line feed."""
    step = 1 << 23
    for start in range(0, b.size, step):
        cr = np.flatnonzero(b[start : start + step] == 13) + start
        if cr.size and (cr[-1] == b.size - 1 or np.any(b[cr + 1] != 10)):
            return True
    return False


SCAN_CHUNK = 1 << 20
"""Bytes of a plain file :func:`scan` checks at a time."""


def scan(path: str) -> tuple[str | None, bytes, bytes, int]:
    """Check a plain file in chunks, without holding it in memory: text, UTF-8,
    and which delimiter the fast reader could use (as :func:`delimiter` does).
    Returns (delimiter or None, the first bytes, the last bytes, the number of
    lines).  The chunks are read into one reused buffer and checked in place."""
    seen = {b"\t": False, b" ": False, b"\v": False, b"\f": False}
    lone_cr = False
    lines = 0
    chunk = bytearray(SCAN_CHUNK)
    newline = np.empty(SCAN_CHUNK, dtype=bool)
    filled = 0  # bytes at the start of ``chunk``: the previous chunk's unfinished line
    with open(path, "rb") as fh:
        head = fh.read(65536 + len(BOM))
        skip = len(BOM) if head.startswith(BOM) else 0
        head = head[skip : skip + 65536]
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
                    check_utf8(path, view[:cut], lines)
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


# -- reading: Arrow's CSV reader, a block at a time ------------------------------------


BLOCK_SIZE = 1 << 19
"""Bytes of text per CSV block (about 9,000 lines of a typical run).  The reader
reads up to 32 blocks ahead, and Arrow's allocator keeps freed blocks resident:
small blocks keep that small (1 MiB blocks: 0.1 s faster on 10M lines, 20-40 MiB
more at the peak)."""


class Growing:
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
            grown[: self.size] = self.array[: self.size]
            self.array = grown
        out = self.array[self.size : need]
        self.size = need
        return out

    def finish(self) -> np.ndarray:
        """The filled part: a view (the unwritten rest was never resident)."""
        out = self.array[: self.size]
        self.array = np.empty(0, dtype=self.array.dtype)
        return out


def read_fast(
    buf: Any,
    sep: str,
    layout: Layout,
    head: bytes | None = None,
    tail: bytes | None = None,
    rows: int | None = None,
    name: str = "",
) -> Columns | None:
    """Read a regular file with Arrow's CSV reader.  ``buf`` is the file's bytes or
    its path (then ``head`` and ``tail`` are its first and last bytes); ``rows`` an
    estimate of the number of lines (it sizes the columns)."""
    if head is None:
        head = bytes(buf[: min(len(buf), 65536)])
        tail = bytes(buf[max(0, len(buf) - 65536) :])
    # read the first line to learn how many columns the file has
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    name = name or (buf if isinstance(buf, str) else "the file")
    not_a_run(name, first.split(), layout, 1)
    ncols = len(first.split(sep.encode()))
    if ncols < layout.min_columns or ncols != len(first.split()):
        return None
    names = [f"c{i}" for i in range(ncols)]
    want = {
        f"c{layout.query}": pa.string(),
        f"c{layout.doc}": pa.string(),
        f"c{layout.value}": pa.float64(),
    }
    size = os.path.getsize(buf) if isinstance(buf, str) else len(buf)
    pool = _reader_pool()
    try:
        reader = pacsv.open_csv(
            buf if isinstance(buf, str) else pa.BufferReader(buf),
            read_options=pacsv.ReadOptions(column_names=names, block_size=BLOCK_SIZE),
            parse_options=pacsv.ParseOptions(
                delimiter=sep, quote_char=False, double_quote=False, escape_char=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=want,
                include_columns=list(want),
                strings_can_be_null=False,
                null_values=[],
            ),
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
        one_tag(name, first_tag, cols.tag)
    return cols


def _reader_pool() -> pa.MemoryPool:
    """The pool for the CSV reader's buffers, which live for one batch each: jemalloc
    where pyarrow has it (it gives freed blocks back; the default mimalloc keeps
    blocks freed by another thread than the one that allocated them, 25 MiB more at
    the peak of reading a 1M-line run), else the default pool."""
    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:  # pragma: no cover - pyarrow built without jemalloc
        return pa.default_memory_pool()


def _stream(reader: Any, layout: Layout, size: int, rows: int | None) -> Columns | None:
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
    values = Growing(np.float64, cap)
    codes = Growing(np.int32, cap)
    doc_offsets = Growing(offset_type, cap + 1)
    doc_offsets.slot(1)[0] = 0
    doc_text: Growing | None = None
    dicts: list[pa.Array] = []
    starts: list[int] = []  # first row of each batch
    blocks = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ranklens-csv") as ahead:
        pending = ahead.submit(next_batch, reader)
        while True:
            batch = pending.result()
            if batch is None:
                break
            pending = ahead.submit(next_batch, reader)
            blocks += 1  # a batch is one block of BLOCK_SIZE bytes of the input
            report_progress("reading", min(blocks * BLOCK_SIZE, size), size)
            k = batch.num_rows
            if k == 0:
                continue
            v = batch.column(v_name)
            if v.null_count:
                return None
            # the doc ids: offsets shifted onto the column's, text appended
            d = batch.column(d_name)
            offs = np.frombuffer(d.buffers()[1], dtype=np.int32, count=k + 1, offset=d.offset * 4)
            if (offs[1:] == offs[:-1]).any():
                return None
            lo, hi = int(offs[0]), int(offs[-1])
            if doc_text is None:  # at most the whole input; else guessed from this batch
                doc_text = Growing(np.uint8, size, (hi - lo) * cap // k * 5 // 4)
            np.add(offs[1:], offset_type(doc_text.size - lo), out=doc_offsets.slot(k))
            doc_text.slot(hi - lo)[:] = np.frombuffer(
                d.buffers()[2], dtype=np.uint8, count=hi - lo, offset=lo
            )
            # the query ids: codes into this batch's distinct ids, unified below
            enc = pc.dictionary_encode(batch.column(q_name))
            ids = enc.dictionary
            if (
                pc.min(pc.binary_length(ids)).as_py() == 0
                or pc.any(pc.starts_with(ids, "#")).as_py()
            ):
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
        return Columns(strings([]), strings([]), value, None, None)
    text = doc_text.finish()
    offsets = doc_offsets.finish()
    query = pa.DictionaryArray.from_arrays(
        from_numpy(code), _unify(dicts, starts, code), safe=False
    )  # codes made by the reader
    doc = pa.Array.from_buffers(
        pa.large_string() if wide else pa.string(),
        n,
        [None, pa.py_buffer(offsets), pa.py_buffer(text)],
    )
    return Columns(query, doc, value, None, None)


def next_batch(reader: Any) -> pa.RecordBatch | None:
    """The reader's next batch, None at the end."""
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
        pa.concat_arrays([x.cast(pa.large_string()) for x in dicts] if wide else dicts)
    )
    remap = to_numpy(enc.indices)
    base = len(dicts[0])
    for i in range(1, len(dicts)):
        stop = starts[i + 1] if i + 1 < len(starts) else len(code)
        part = code[starts[i] : stop]
        np.take(remap, part + base, out=part)
        base += len(dicts[i])
    out: pa.Array = enc.dictionary
    return out


def _last_tag(tail: bytes, sep: str) -> str | None:
    """The run tag (6th column) of the last non-blank line of ``tail`` (the file's end)."""
    fields = tail.rstrip(b"\r\n \t").rsplit(b"\n", 1)[-1].split(sep.encode())
    return fields[5].decode("utf-8", "replace") if len(fields) > 5 else None
