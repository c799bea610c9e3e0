"""Reading a run front to back in blocks of whole queries, never all of it at once.

A :class:`Source` gives the decompressed bytes of a file, of standard input (``-``)
or of a pipe (``/dev/stdin``, ``<(zcat run.gz)``), read once; a stream without a
compression suffix is decompressed by its first bytes.  A stream's bytes can be
copied to a spill file as they are read (:meth:`Source.spill_to`), so that the text
already read can be read again (:meth:`Source.replay`) without reading the stream
twice.

:func:`trec_blocks` cuts TREC text into blocks of whole lines at query boundaries:
a block ends where a query ends, unless the same query goes on in the next block,
which then happens only when the rows of one query are not contiguous (an
ungrouped run: the caller finds that out).  :func:`table_blocks` does the same for
Arrow batches: those of a CSV/TSV text (:func:`csv_tables`) or of a Parquet file
(:func:`parquet_tables`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ranklens._shared.arrow import to_numpy
from ranklens.errors import InputError, RanklensError
from ranklens.io._files import (
    _MAGIC,
    STDIN,
    _suffixes,
    check_readable,
    is_stream,
    stdin_buffer,
)
from ranklens.io._trec_format import BOM
from ranklens.io.tables import Roles, _csv_header, csv_field_problem, pick_roles

__all__ = [
    "Block",
    "Source",
    "csv_tables",
    "last_query_start",
    "parquet_tables",
    "table_blocks",
    "trec_blocks",
]


class Source(io.RawIOBase):
    """The decompressed bytes of ``path`` (a file, ``-`` or a pipe), read once, front to
    back.  ``stream``: it can be read only once; ``size``: the bytes of a plain regular
    file (None for a stream or a compressed file: their text size is unknown)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = str(path)
        self.name = "standard input" if self.path == STDIN else self.path
        self.stream = is_stream(path)
        p = check_readable(path)
        _, compression = _suffixes(p)
        self.size: int | None = None
        self._spill: BinaryIO | None = None
        self._raw: BinaryIO | None = None
        try:
            if self.stream:
                fh: Any = stdin_buffer() if self.path == STDIN else open(p, "rb")  # noqa: SIM115
                if not hasattr(fh, "peek"):  # e.g. a test's in-memory standard input
                    fh = io.BufferedReader(fh)
                self._raw = fh
                if compression is None:
                    head = fh.peek(4)[:4]
                    compression = next((c for m, c in _MAGIC if head.startswith(m)), None)
                self._in: Any = (
                    fh
                    if compression is None
                    else pa.CompressedInputStream(pa.PythonFile(fh, mode="r"), compression)
                )
            elif compression is None:
                self._in = open(p, "rb")  # noqa: SIM115
                self.size = os.path.getsize(p)
            else:
                self._in = pa.input_stream(str(p), compression=compression)
        except (OSError, pa.ArrowInvalid) as exc:
            raise InputError(f"{self.name}: cannot read it ({exc}).") from None
        self.compression = compression

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (fewer only at the end)."""
        out = []
        want = size
        try:
            while want != 0:
                got = self._in.read(want if want > 0 else 1 << 24)
                if not got:
                    break
                out.append(bytes(got))
                if want > 0:
                    want -= len(got)
        except (OSError, pa.ArrowInvalid) as exc:
            what = f"the {self.compression} " if self.compression else ""
            raise InputError(f"{self.name}: cannot read {what}text ({exc}).") from None
        data = b"".join(out)
        if self._spill is not None:
            try:
                self._spill.write(data)
            except OSError as exc:
                raise RanklensError(
                    f"{self.name}: cannot keep a copy of the stream in "
                    f"{os.path.dirname(self._spill.name)} ({exc.strerror}); give a folder "
                    "with more room (temp_dir='...')."
                ) from None
        return data

    def spill_to(self, path: str) -> None:
        """Copy every byte read from now on to the file ``path``."""
        self._spill = open(path, "wb")  # noqa: SIM115

    def replay(self) -> BinaryIO:
        """The bytes read so far (from the spill file) and then the rest of the source;
        spilling stops."""
        if self._spill is None:  # pragma: no cover - a programming error
            raise AssertionError("replay() needs spill_to() before reading")
        self._spill.close()
        spilled = open(self._spill.name, "rb")  # noqa: SIM115
        self._spill = None
        return io.BufferedReader(_Chain(spilled, self), 1 << 20)

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        if self._in is not self._raw and hasattr(self._in, "close"):
            self._in.close()
        if self._raw is not None and self.path != STDIN:
            self._raw.close()
        super().close()


class _Chain(io.RawIOBase):
    """Two readers one after the other."""

    def __init__(self, first: BinaryIO, then: Any) -> None:
        super().__init__()
        self._parts = [first, then]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self._parts:
            data = self._parts[0].read(len(buffer))
            if data:
                buffer[: len(data)] = data
                return len(data)
            self._done(self._parts.pop(0))
        return 0

    @staticmethod
    def _done(part: Any) -> None:
        if not isinstance(part, Source):  # the source is closed by its owner
            part.close()

    def close(self) -> None:
        while self._parts:
            self._done(self._parts.pop(0))
        super().close()


@dataclass
class Block:
    """Whole lines of a TREC file, ``lines_before`` lines of the file before them."""

    data: bytes
    lines_before: int


def last_query_start(buf: bytes, end: int, known: int = 0) -> int:
    """Where, in ``buf[:end]`` (whole lines), the lines of its last query start: the
    offset after the last line of another query (comment and blank lines go with the
    query after them), 0 if every line is of that query.  ``known``: the lines of
    ``buf[:known]`` are known to be of one query (a query longer than a block is not
    scanned again at every read)."""
    pos = end
    last: bytes | None = None
    while pos > 0:
        start = buf.rfind(b"\n", 0, pos - 1) + 1
        token = buf[start:pos].split(None, 1)
        if token and not token[0].startswith(b"#"):
            if start < known and (last is None or token[0] == last):
                return 0  # the rest is of this query too
            if last is None:
                last = token[0]
            elif token[0] != last:
                return pos
        pos = start
    return 0


def trec_blocks(source: Any, size: int) -> Iterator[Block]:
    """The text of ``source`` (anything with ``read``) in blocks of whole queries of
    about ``size`` bytes (more where one query's lines are longer)."""
    carry = b""
    known = 0  # the carry's whole lines up to here are of one query
    lines_before = 0
    first = True
    given = False
    while True:
        chunk = source.read(size)
        if first:
            if chunk.startswith(BOM):  # the mark is not text (as the one-file readers)
                chunk = chunk[len(BOM) :]
            first = False
        buf = carry + chunk if carry else chunk
        if not chunk:
            if buf or not given:  # an empty input: the reader says so
                yield Block(buf, lines_before)
            return
        end = buf.rfind(b"\n") + 1
        cut = last_query_start(buf, end, known) if end else 0
        if cut == 0:  # one query so far: read on
            carry, known = buf, end
            continue
        known = 0
        block = buf[:cut]
        carry = buf[cut:]
        del buf
        given = True
        yield Block(block, lines_before)
        lines_before += block.count(b"\n")


def table_blocks(batches: Iterator[pa.RecordBatch], query: str) -> Iterator[tuple[pa.Table, int]]:
    """Arrow batches regrouped into tables of whole queries (the rows of the last query
    of a batch wait for the next batch), each with the number of rows before it."""
    carry: pa.Table | None = None  # the rows of one query (the last one so far)
    rows_before = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        q = batch.column(query)
        tail = _last_run_start(q)  # in the batch only: a long query is not compared again
        held = 0 if carry is None else carry.num_rows
        if tail == 0 and carry is not None and carry.column(query)[0] != q[0]:
            tail = held  # the batch is one new query
        elif tail > 0:
            tail += held
        table = pa.Table.from_batches([batch])
        if carry is not None:
            table = pa.concat_tables([carry, table])
        carry = table.slice(tail) if tail > 0 else table
        if tail > 0:
            yield table.slice(0, tail), rows_before
            rows_before += tail
    if carry is not None and carry.num_rows:
        yield carry, rows_before


def _last_run_start(q: pa.Array) -> int:
    """The row where the last run of equal values of ``q`` starts."""
    last = q[len(q) - 1]
    same = to_numpy(pc.equal(q, last), fill=False)
    other = np.flatnonzero(~same)
    return int(other[-1]) + 1 if other.size else 0


def parquet_tables(path: str, roles: Roles, size: int) -> Iterator[tuple[pa.Table, int]]:
    """The rows of a Parquet run (columns query, doc and score), a batch of about
    ``size`` bytes at a time, in tables of whole queries with the number of rows before
    them (Parquet rows have no line: messages count rows from 0, as the one-file
    reader does)."""
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({exc}).") from None
    picks = pick_roles(path, list(parquet.schema_arrow.names), roles)
    rows = max(size // 32, 1024)
    with parquet:
        batches = (
            pa.record_batch(
                [b.column(picks[r]) for r in ("query", "doc", "score")],
                names=["query", "doc", "score"],
            )
            for b in parquet.iter_batches(rows, columns=list(dict.fromkeys(picks.values())))
        )
        yield from table_blocks(batches, "query")


def _csv_problem(name: str, fmt: str, delimiter: str, ncols: int, exc: Exception) -> str:
    """Where a CSV/TSV run that Arrow refused goes wrong: a file is read again, line by
    line, for the line (a stream cannot be: Arrow's reason, which quotes the row)."""
    if is_stream(name):
        return f"{name}: cannot read the {fmt.upper()} file: {exc}"
    bad: list[int] = []  # the line that is not UTF-8 text

    def lines(raw: BinaryIO) -> Iterator[str]:
        for number, line in enumerate(raw, start=1):
            try:
                yield line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError:
                bad.append(number)
                return

    with io.BufferedReader(Source(name), 1 << 20) as raw:
        problem = csv_field_problem(name, lines(raw), delimiter, ncols, fmt, exc)
    if bad:
        return f"{name}:{bad[0]}: the file is not valid UTF-8 text; re-encode it as UTF-8."
    return problem


def csv_tables(
    source: Any, name: str, fmt: str, roles: Roles, size: int
) -> Iterator[tuple[pa.Table, int]]:
    """The rows of a CSV/TSV run (columns query, doc and score, all as text), in tables
    of whole queries with the file line of their first row (the header is line 1)."""
    head = source.read(size)
    if head.startswith(BOM):  # Excel's "CSV UTF-8"
        head = head[len(BOM) :]
    if b"\x00" in head[:65536]:
        raise InputError(f"{name}: looks like a binary file, not {fmt.upper()} text.")
    delimiter = "," if fmt == "csv" else "\t"
    header = _csv_header(name, pa.py_buffer(head), delimiter)
    picks = pick_roles(name, header, roles)
    text = io.BufferedReader(_Chain(io.BytesIO(head), source), 1 << 20)
    try:
        reader = pacsv.open_csv(
            pa.PythonFile(text, mode="r"),
            # Arrow parses ahead and keeps its blocks: a quarter of the text budget each
            read_options=pacsv.ReadOptions(block_size=max(size // 4, 1 << 16)),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in picks.values()},
                include_columns=list(dict.fromkeys(picks.values())),
                strings_can_be_null=False,
            ),
        )
        batches = (
            pa.record_batch(
                [b.column(picks[r]) for r in ("query", "doc", "score")],
                names=["query", "doc", "score"],
            )
            for b in reader
        )
        given = False
        for table, rows_before in table_blocks(batches, "query"):
            given = True
            yield table, 2 + rows_before
    except pa.ArrowInvalid as exc:
        raise InputError(_csv_problem(name, fmt, delimiter, len(header), exc)) from None
    finally:
        text.close()
    if not given:
        raise InputError(f"{name}: the file has a header but no rows.")
