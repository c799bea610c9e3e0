"""Evaluating run files larger than memory: :func:`evaluate_files`.

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
import dataclasses
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

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
from ranklens.io.tables import named_errors, read_qrels, read_run, run_roles, table_run
from ranklens.io.trec import _columns, checked_columns, table_from_columns
from ranklens.metrics import Metric
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import no_relevant_error
from ranklens.ranking.evaluation import Result, evaluate, metric_list
from ranklens.ranking.evaluator import Evaluator

__all__ = [
    "RUN_FACTOR",
    "default_memory",
    "evaluate_files",
    "fits_in_memory",
    "memory_needed",
    "qrels_memory",
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


def _budget(memory: str | int | float | None) -> int:
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
    return qrels_bytes + memory_needed(run, fmt) <= _budget(memory)


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


def evaluate_files(
    qrels: str | os.PathLike[str] | Qrels,
    run: str | os.PathLike[str],
    metrics: str | Metric | Iterable[str | Metric],
    *,
    memory: str | int | float | None = None,
    temp_dir: str | os.PathLike[str] | None = None,
    qrels_format: str | None = None,
    run_format: str | None = None,
    query: str | None = None,
    doc: str | None = None,
    relevance: str | None = None,
    score: str | None = None,
    name: str | None = None,
    duplicates: str = "error",
    rank: str | None = None,
    profile: str | None = None,
    conventions: Any = None,
    **single: Any,
) -> Result:
    """Evaluate a run file against qrels within a memory budget, with exactly the
    numbers of :func:`ranklens.evaluate` on the whole files.

    Parameters
    ----------
    qrels:
        A qrels file (any format :func:`ranklens.io.read_qrels` reads) or a
        :class:`~ranklens.Qrels`.
    run:
        A run file, ``-`` (standard input) or a pipe (``/dev/stdin``,
        ``<(zcat run.gz)``); TREC, CSV, TSV and Parquet runs larger than the budget
        are streamed, JSON and JSON Lines runs are read whole.
    metrics, profile, conventions, single conventions:
        As :func:`ranklens.evaluate`.
    memory:
        The budget: bytes or a size such as ``"500MB"``, ``"2GB"``, ``"1.5 GiB"``
        (default: half the memory available, :func:`default_memory`).
    temp_dir:
        Where an ungrouped run is spilled while it is grouped (default: the system's
        temporary folder).
    qrels_format, run_format, query, doc, relevance, score, name, duplicates, rank:
        As :func:`ranklens.io.read_qrels` / :func:`ranklens.io.read_run`
        (``format=`` is ``qrels_format=`` / ``run_format=`` here); the column names
        apply to the files that are tables (a TREC file's columns are fixed).

    Examples
    --------
    >>> import os, tempfile, ranklens
    >>> folder = tempfile.mkdtemp()
    >>> qrels, run = os.path.join(folder, "qrels"), os.path.join(folder, "run")
    >>> with open(qrels, "w") as fh:
    ...     _ = fh.write("q1 0 d1 1\\nq2 0 d3 1\\n")
    >>> with open(run, "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 0.9 sys\\nq1 Q0 d2 2 0.5 sys\\nq2 Q0 d3 1 0.7 sys\\n")
    >>> res = ranklens.evaluate_files(qrels, run, ["p@1", "map"], memory="1MB")
    >>> res.summary()
    {'p@1': 1.0, 'map': 1.0}
    >>> res.run_name
    'sys'
    """
    names = metric_list(metrics)
    ev = Evaluator(names, profile=profile, conventions=conventions, **single)
    conv = ev.conventions
    budget = _budget(memory)
    fmt = detect_format(run, run_format)[0]
    trec_qrels = isinstance(qrels, Qrels) or detect_format(qrels, qrels_format)[0] == "trec"
    given = {
        k: v
        for k, v in dict(query=query, doc=doc, relevance=relevance, score=score, rank=rank).items()
        if v is not None
    }
    if given and trec_qrels and fmt == "trec":
        raise InputError(
            f"{next(iter(given))}=<column> names a column, but the qrels and the "
            "run are TREC files, whose columns are fixed; leave it out."
        )
    if isinstance(qrels, Qrels):
        judged, qrels_bytes = qrels, len(qrels) * QRELS_ROW
    else:
        qrels_bytes = qrels_memory(qrels, memory)
        columns = {} if trec_qrels else dict(query=query, doc=doc, relevance=relevance)
        judged = read_qrels(qrels, format=qrels_format, duplicates=duplicates, **columns)
    if fmt == "trec":
        query = doc = score = rank = None  # the names are the qrels table's
    fits = fits_in_memory(run, budget, qrels_bytes, fmt)
    if fmt not in STREAMED and not fits and not is_stream(run) and output_compression(run) is None:
        need = format_size(qrels_bytes + memory_needed(run, fmt))
        raise InputError(
            f"{run}: a {fmt.upper()} run is read whole, which would take about {need}, more "
            f"than the memory budget ({format_size(budget)}); give a larger budget "
            "(memory='...') or write the run as TREC, CSV, TSV or Parquet, which stream."
        )
    if fmt not in STREAMED or fits:
        whole = read_run(
            run,
            format=run_format,
            query=query,
            doc=doc,
            score=score,
            name=name,
            duplicates=duplicates,
            rank=rank,
        )
        return evaluate(judged, whole, names, conventions=conv)
    relaxed = dataclasses.replace(conv, no_relevant="zero") if conv.no_relevant == "error" else conv
    table = None
    if fmt != "trec":
        table = {
            "format": fmt,
            "roles": run_roles(query, doc, score, rank),
            "ranks": rank is not None,
            "label": name or os.path.basename(str(run)),
        }
    stream = _Stream(
        Evaluator(names, conventions=relaxed),
        judged,
        str(run),
        duplicates,
        _block_size(budget, qrels_bytes),
        table,
    )
    with _spill_folder(temp_dir) as folder, contextlib.ExitStack() as opened:
        source = opened.enter_context(Source(run))
        if source.stream:  # what is read is kept, should it have to be read again
            source.spill_to(os.path.join(folder, "run.txt"))
        if not stream.grouped(stream.pieces(source)):
            again = opened.enter_context(source.replay() if source.stream else Source(run))
            stream.regroup(again, budget, folder)
    return stream.result(conv, name)


def qrels_memory(path: str | os.PathLike[str], memory: str | int | float | None) -> int:
    """The estimated memory of the qrels file ``path`` (0 for a stream: unknown), refused
    (:class:`InputError` naming ``memory=``) if over half the budget ``memory``."""
    budget = _budget(memory)
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


def _block_size(budget: int, qrels_bytes: int) -> int:
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


Piece = tuple[Columns, Callable[[Columns], Run]]
"""Rows of whole queries (columns with their lines, for grouping) and how their run is
made from them (with the errors and names of the one-file reader)."""


class _Stream:
    """The state of one streamed evaluation: the evaluator, the queries seen and the
    run tags (the run is named after the tag of its last line, as trec_eval does)."""

    def __init__(
        self,
        ev: Evaluator,
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

    # -- the result ----------------------------------------------------------------------------
    def result(self, conv: Any, name: str | None) -> Result:
        """The evaluation's :class:`Result` under ``conv`` (the conventions asked for)."""
        judged = set(self.qrels.query_ids)
        missing = sorted(judged - self.seen)
        if missing:  # one batch of judged queries absent from the run: the missing rule
            self.ev.update(self.qrels.take_queries(missing), Run.from_arrays([], [], []))
        if conv.no_relevant == "error":
            self._no_relevant(judged, missing, conv)
        if name is None and self.last_tag is not None and len(self.tags) > 1:
            one_tag(self.name, min(self.tags - {self.last_tag}), self.last_tag)
        res = self.ev.compute()
        if self.table is not None:
            name = self.table["label"]
        return dataclasses.replace(
            res, conventions=conv, run_name=name if name is not None else self.last_tag
        )

    def _no_relevant(self, judged: set[str], missing: list[str], conv: Any) -> None:
        """``no_relevant='error'``: the error of one evaluation, naming every query."""
        t = self.qrels.to_arrow()
        relevant = set(
            pc.unique(
                t.column("query").filter(
                    pc.greater_equal(t.column("relevance"), conv.rel_threshold)
                )
            ).to_pylist()
        )
        chosen = (judged & self.seen) | (set(missing) if conv.missing == "zero" else set())
        ids = sorted(chosen - relevant)
        if ids:
            raise no_relevant_error(ids, conv.rel_threshold)
