"""Reading run files larger than memory in blocks of whole queries (:func:`stream_run`),
and the memory budget that decides it; the evaluation driver built on it is
:func:`ranklens.evaluate_files` (:mod:`ranklens.ranking.files`: ``io`` reads and does
not import the engine).

The run is read in blocks of whole queries and each block is evaluated by a
:class:`~ranklens.Evaluator`, so that only one block and the per-query values are in
memory at a time; the numbers (per query, aggregates, counts, warnings and errors)
are those of :func:`ranklens.evaluate` on the whole files.

- **In memory when it fits.**  A plain run file whose estimated peak (about
  :data:`RUN_FACTOR` times its size, plus the qrels) fits the budget is read whole,
  as :func:`ranklens.io.read_run` does.  A compressed file, standard input (``-``) or
  a pipe has no size to go by: it is read as a stream of blocks, which for an input
  smaller than one block is one block, i.e. the in-memory evaluation.
- **Grouped runs stream directly.**  A TREC, CSV or TSV run (from a file or a pipe)
  or a Parquet file whose rows of each query are contiguous (as trec_eval writes
  runs, and as most systems do) is cut into blocks at query boundaries and evaluated
  block by block.  That the run is grouped is checked as it streams: a query that
  comes back after another is an ungrouped run.
- **Ungrouped runs are grouped by DuckDB** (``pip install 'ranklens[large]'``), whose
  sort works out of core within a memory limit (:mod:`ranklens.io._partition`),
  keeping each query's rows in their order in the file; the run is read again from
  the start (a file) or from a copy of what was read (a stream: its text is copied
  to the spill folder as it is read, so it is never read twice).  Without DuckDB an
  ungrouped run that does not fit fails with one line naming the extra.
- **Qrels are read into memory** (they are usually small); qrels whose estimated size
  in memory exceeds half the budget are refused, naming ``memory=``.  JSON and JSON
  Lines runs are read whole; one over the budget is refused, naming the formats
  that stream.

Errors name the file and line as the one-file readers do.  Two are about one block
rather than the whole run, and say so or show it: a repeated (query, doc) pair under
``duplicates='error'`` (its counts are the block's), and ``err`` finding a grade above
``max_rel`` (it names the top grade of the block).

Memory grows with the number of distinct queries (their ids and per-query values, a
few hundred bytes each), not with the number of rows.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens._shared.columns import as_id_column
from ranklens._shared.sizes import available_memory, format_size, parse_size
from ranklens.errors import DuplicateError, InputError, RanklensWarning
from ranklens.io._blocks import Block, Source, csv_tables, parquet_tables, trec_blocks
from ranklens.io._files import detect_format, is_stream, output_compression
from ranklens.io._trec_format import RUN, Columns, one_tag
from ranklens.io.tables import named_errors, run_roles, table_run
from ranklens.io.trec import _columns, checked_columns, table_from_columns
from ranklens.ranking.data import Qrels, Run

__all__ = [
    "RUN_FACTOR",
    "STREAMED",
    "Batches",
    "RunStream",
    "block_size",
    "budget_bytes",
    "default_memory",
    "fits_in_memory",
    "is_stream",
    "memory_needed",
    "output_compression",
    "qrels_memory",
    "stream_run",
]

RUN_FACTOR = 4.0
"""The peak memory of an in-memory evaluation, as a multiple of the run file's size
(measured: 3.3x for a 10M-line TREC run, plus the interpreter and libraries)."""
FACTORS = {"trec": RUN_FACTOR, "csv": 8.0, "tsv": 8.0, "parquet": 4.5, "jsonl": 8.0, "json": 20.0}
"""The same by format (measured on a 10M-row run: CSV 7x its size; Parquet 4.2x its
uncompressed size, doubled, in :func:`memory_needed`; JSON is parsed by Python)."""
QRELS_FACTOR = 4.0
"""The memory of qrels read whole, as a multiple of their file's size."""
QRELS_ROW = 64
"""The memory of a judgment of qrels already read, in bytes (an estimate)."""
BASE = 160 * 2**20
"""Memory in use before any data: the interpreter, numpy, pyarrow and ranklens."""
STREAM_FACTOR = 10.0
"""Bytes of memory per byte of text of a block, at the peak of its evaluation: the
text, its columns, the run table and the prepared rankings."""
LARGEST_BLOCK = 8 * 2**20
MIN_BLOCK = 1 << 20
"""The bounds of a block's text, in bytes."""
STREAMED = ("trec", "csv", "tsv", "parquet")


def default_memory() -> int:
    """The memory budget when none is given: half the memory available now (at least
    512 MiB; 2 GiB where the available memory cannot be read)."""
    free = available_memory()
    return 2 * 2**30 if free is None else max(free // 2, 512 * 2**20)


def budget_bytes(memory: str | int | float | None) -> int:
    return default_memory() if memory is None else parse_size(memory, "memory")


def fits_in_memory(
    run: str | os.PathLike[str],
    memory: str | int | float | None = None,
    qrels_bytes: int = 0,
    fmt: str | None = None,
) -> bool:
    """Whether the run file is evaluated in memory under the budget ``memory`` (a size,
    default :func:`default_memory`): a plain file whose estimated peak fits.  A stream
    or a compressed file is read in blocks (one block when it is small)."""
    if is_stream(run) or output_compression(run) is not None:
        return False
    return qrels_bytes + memory_needed(run, fmt) <= budget_bytes(memory)


def memory_needed(run: str | os.PathLike[str], fmt: str | None = None) -> int:
    """The estimated peak of evaluating the run file ``run`` (format ``fmt``, default
    by its suffix) in memory, without the qrels."""
    return int(BASE + FACTORS[detect_format(run, fmt)[0]] * _text_size(run, fmt))


def _text_size(path: str | os.PathLike[str], fmt: str | None) -> int:
    """The size of a run file as text: its size, or for Parquet (compressed, encoded)
    the uncompressed size its metadata gives, doubled (ids are dictionary-encoded)."""
    if not os.path.isfile(path):
        return 0
    if detect_format(path, fmt)[0] == "parquet":
        import pyarrow.parquet as pq

        try:
            meta = pq.ParquetFile(path).metadata
        except (pa.ArrowInvalid, OSError):
            return os.path.getsize(path)  # the reader names the problem
        return 2 * sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return os.path.getsize(path)


def qrels_memory(path: str | os.PathLike[str], memory: str | int | float | None) -> int:
    """The estimated memory of the qrels file ``path`` (0 for a stream: unknown), refused
    (:class:`InputError` naming ``memory=``) if over half the budget ``memory``."""
    budget = budget_bytes(memory)
    if is_stream(path) or not os.path.isfile(path):
        return 0
    need = int(os.path.getsize(path) * QRELS_FACTOR)
    if need > budget // 2:
        given = "the default memory budget" if memory is None else f"memory={memory!r}"
        raise InputError(
            f"{path}: the qrels would take about {format_size(need)} in memory, more than "
            f"half of {given} ({format_size(budget)}); qrels are held in memory whole "
            f"while the run streams. Give a larger budget, e.g. "
            f"memory='{max(need * 2 // 2**30 + 1, 1)}GB'."
        )
    return need


def block_size(budget: int, qrels_bytes: int) -> int:
    free = budget - BASE - qrels_bytes
    return int(min(max(free / STREAM_FACTOR, MIN_BLOCK), LARGEST_BLOCK))


@contextlib.contextmanager
def _spill_folder(parent: str | os.PathLike[str] | None) -> Iterator[str]:
    if parent is not None and not os.path.isdir(parent):
        raise InputError(f"temp_dir={str(parent)!r} is not a folder; create it or give another.")
    try:
        folder = tempfile.mkdtemp(prefix="ranklens-", dir=parent)
    except OSError as exc:
        where = "the system's temporary folder" if parent is None else f"temp_dir={str(parent)!r}"
        raise InputError(
            f"cannot make a folder in {where} to spill the run into "
            f"({exc.strerror}); give a writable folder (temp_dir='...')."
        ) from None
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _first_tag(data: bytes) -> str | None:
    """The run tag (6th field) of the first data line of ``data``."""
    for line in data.split(b"\n", 64)[:64]:
        fields = line.split()
        if fields and not fields[0].startswith(b"#"):
            return fields[5].decode("utf-8", "replace") if len(fields) > 5 else None
    return None


class Batches(Protocol):
    """Where a streamed run's batches of whole queries go (a
    :class:`~ranklens.Evaluator`): ``update`` with each batch's judgments and rankings,
    ``reset`` to start again (an ungrouped run, read a second time)."""

    def update(self, qrels: Qrels, run: Run) -> Any: ...

    def reset(self) -> Any: ...


Piece = tuple[Columns, Callable[[Columns], Run]]
"""Rows of whole queries (columns with their lines, for grouping) and how their run is
made from them (with the errors and names of the one-file reader)."""


class RunStream:
    """The state of one streamed run: where its batches of whole queries go
    (``batches``), the queries seen and the run tags (the run is named after the tag of
    its last line, as trec_eval does)."""

    def __init__(
        self,
        ev: Batches,
        qrels: Qrels,
        name: str,
        duplicates: str,
        block_size: int,
        table: dict[str, Any] | None = None,
    ) -> None:
        self.ev, self.qrels, self.name = ev, qrels, name
        self.duplicates = duplicates
        self.block_size = block_size
        self.table = table  # a CSV/TSV run: format and column options; None: TREC
        self.seen: set[str] = set()
        self.tags: set[str] = set()
        self.last_tag: str | None = None

    # -- reading ---------------------------------------------------------------------------
    def pieces(self, source: Any, lines: bool = False) -> Iterator[Piece]:
        """The run's rows, a block of whole queries at a time (``lines``: with the line
        of every row, as the partitioner needs)."""
        if self.table is not None:
            yield from self._table_pieces(source)
            return
        for block in trec_blocks(source, self.block_size):
            data = pa.py_buffer(block.data)
            cols = self._trec_columns(block, data, lines)

            def make(cols: Columns, data: pa.Buffer = data, block: Block = block) -> Run:
                run = table_from_columns(
                    self.name, RUN, Run, self.duplicates, cols, data, block.lines_before
                )
                assert isinstance(run, Run)
                return run

            yield cols, make

    def _trec_columns(self, block: Block, data: pa.Buffer, lines: bool) -> Columns:
        """A TREC block's columns; run-tag warnings are given once, at the end."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RanklensWarning)
            cols = checked_columns(self.name, RUN, data, block.lines_before)
        for w in caught:
            if "several run tags" not in str(w.message):  # pragma: no cover - none other
                warnings.warn(w.message, w.category, stacklevel=2)
        if caught or block.lines_before == 0:
            tag = _first_tag(block.data)
            if tag is not None:
                self.tags.add(tag)
        if cols.tag is not None:
            self.tags.add(cols.tag)
        self.last_tag = cols.tag
        if lines and cols.lines is None:
            n = block.data.count(b"\n") + (not block.data.endswith(b"\n"))
            if n == len(cols.value):  # every line a row
                cols.lines = np.arange(block.lines_before + 1, block.lines_before + n + 1)
            else:
                cols.lines = _columns(
                    self.name, RUN, fast=False, data=data, lines_before=block.lines_before
                ).lines
        return cols

    def _table_pieces(self, source: Any) -> Iterator[Piece]:
        """A CSV/TSV run's rows (the score as text: parsed, and named by its line, when
        its run is made), a block of whole queries at a time."""
        assert self.table is not None
        opts = self.table

        def make(cols: Columns) -> Run:
            assert cols.lines is not None  # every row's line (regrouped: not consecutive)
            with named_errors(self.name):
                return table_run(
                    self.name,
                    {"query": cols.query, "doc": cols.doc, "score": cols.value},
                    cols.lines,
                    opts["label"],
                    self.duplicates,
                    ranks=opts["ranks"],
                )

        tables = (
            parquet_tables(self.name, opts["roles"], self.block_size)
            if opts["format"] == "parquet"
            else csv_tables(source, self.name, opts["format"], opts["roles"], self.block_size)
        )
        for table, first in tables:
            n = table.num_rows
            yield (
                Columns(
                    as_id_column(table.column("query"), "query column"),
                    as_id_column(table.column("doc"), "doc column"),
                    table.column("score").combine_chunks(),
                    None,
                    np.arange(first, first + n),
                ),
                make,
            )

    def add(self, piece: Piece, ids: list[str]) -> None:
        """Evaluate a batch of whole queries (their ids ``ids``)."""
        cols, make = piece
        try:
            run = make(cols)
        except DuplicateError as exc:  # the counts are the block's: say so
            raise DuplicateError(
                f"{exc} (Counted in the block of whole queries where the first repeat was "
                "found: the run is read in blocks, so repeats further on are not counted.)"
            ) from None
        self.ev.update(self.qrels.take_queries(ids), run)
        self.seen.update(ids)

    # -- the two paths ---------------------------------------------------------------------
    def grouped(self, pieces: Iterator[Piece]) -> bool:
        """Evaluate the pieces while the run is grouped by query; False (nothing kept)
        when a query comes back after another."""
        for piece in pieces:
            query = piece[0].query
            enc = query if pa.types.is_dictionary(query.type) else pc.dictionary_encode(query)
            codes = to_numpy(enc.indices)
            ids = enc.dictionary.to_pylist()
            runs = int(np.count_nonzero(codes[1:] != codes[:-1])) + 1 if len(codes) else 0
            if runs != len(ids) or not self.seen.isdisjoint(ids):
                self.ev.reset()
                self.seen.clear()
                return False
            self.add(piece, ids)
        return True

    def regroup(self, source: Any, budget: int, folder: str) -> None:
        """Evaluate an ungrouped run: every row through DuckDB, back grouped by query."""
        from ranklens.io._partition import Partitioner

        parts = Partitioner(
            budget, folder, f"evaluating the ungrouped run {self.name} within the memory budget"
        )
        try:
            self.tags.clear()
            make = None
            for piece in self.pieces(source, lines=True):
                cols, make = piece  # a group's run is made as a block's is
                q = cols.query
                parts.add(
                    pa.table(
                        {
                            "query": q.dictionary_decode() if pa.types.is_dictionary(q.type) else q,
                            "doc": cols.doc,
                            "score": cols.value,
                            "line": cols.lines,
                        }
                    )
                )
                del cols, piece
            for table in parts.groups(max(self.block_size // 48, 1024)):
                q = table.column("query").combine_chunks()
                score = table.column("score").combine_chunks()
                cols = Columns(
                    q,
                    table.column("doc").combine_chunks(),
                    np.array(to_numpy(score), dtype=np.float64) if self.table is None else score,
                    None,
                    to_numpy(table.column("line").combine_chunks()),
                )
                assert make is not None
                self.add((cols, make), pc.unique(q).to_pylist())
        finally:
            parts.close()

    # -- the end -------------------------------------------------------------------------------
    def finish(self, name: str | None) -> tuple[list[str], str | None]:
        """After the last block: the judged queries the run lacks (given to the batches
        as one batch of empty rankings: the ``missing`` rule applies to them) and the
        run's name (``name``, else the table's label, else the tag of its last line;
        several tags warn, as for one file)."""
        judged = set(self.qrels.query_ids)
        missing = sorted(judged - self.seen)
        if missing:  # one batch of judged queries absent from the run: the missing rule
            self.ev.update(self.qrels.take_queries(missing), Run.from_arrays([], [], []))
        if name is None and self.last_tag is not None and len(self.tags) > 1:
            one_tag(self.name, min(self.tags - {self.last_tag}), self.last_tag)
        if self.table is not None:
            name = self.table["label"]
        return missing, name if name is not None else self.last_tag


def stream_run(
    batches: Batches,
    qrels: Qrels,
    run: str | os.PathLike[str],
    *,
    budget: int,
    qrels_bytes: int,
    temp_dir: str | os.PathLike[str] | None,
    fmt: str,
    query: str | None,
    doc: str | None,
    score: str | None,
    rank: str | None,
    name: str | None,
    duplicates: str,
) -> RunStream:
    """Read the run file ``run`` (format ``fmt``: one of :data:`STREAMED`) in blocks of
    whole queries and give each block, with the judgments of its queries, to
    ``batches.update(qrels, run)``; an ungrouped run is grouped first (within
    ``budget`` bytes, spilling to ``temp_dir``).  Returns the stream, whose
    :meth:`RunStream.finish` ends it."""
    table = None
    if fmt != "trec":
        table = {
            "format": fmt,
            "roles": run_roles(query, doc, score, rank),
            "ranks": rank is not None,
            "label": name or os.path.basename(str(run)),
        }
    stream = RunStream(batches, qrels, str(run), duplicates, block_size(budget, qrels_bytes), table)
    with _spill_folder(temp_dir) as folder, contextlib.ExitStack() as opened:
        source = opened.enter_context(Source(run))
        if source.stream:  # what is read is kept, should it have to be read again
            source.spill_to(os.path.join(folder, "run.txt"))
        if not stream.grouped(stream.pieces(source)):
            again = opened.enter_context(source.replay() if source.stream else Source(run))
            stream.regroup(again, budget, folder)
    return stream
