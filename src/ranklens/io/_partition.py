"""Grouping the rows of an ungrouped run by query, within a memory budget, with DuckDB.

The rows (query, doc, score and their place in the file) go into a DuckDB table whose
memory is capped (``memory_limit``) and which spills to a folder on disk
(``temp_directory``); one ``ORDER BY query, place`` then streams them back grouped by
query, each query's rows in their order in the file (which ``ties='input'`` and the
``first``/``last`` duplicate rules depend on).  DuckDB's sort works out of core, so
the run may be larger than the memory.

Measured against Polars' streaming engine (a hash-partitioned ``sink_parquet`` and one
sort per partition) on a shuffled 10M-line run on 2 cores: DuckDB 5.6 s at a 665 MB
peak, Polars 8.0 s at 1,043 MB (same Arrow source, whose reading alone peaks at 392
MB); DuckDB takes Arrow batches without an intermediate file and caps its own memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pyarrow as pa

from ranklens._shared.deps import needs
from ranklens._shared.sizes import format_size
from ranklens.errors import RanklensError
from ranklens.io._blocks import table_blocks

__all__ = ["Partitioner"]

SHARE = 4
"""DuckDB's memory limit is this fraction of the budget (it uses about 130 MB more, and
the blocks being read and evaluated need the rest)."""


class Partitioner:
    """Rows in (:meth:`add`), whole queries out (:meth:`groups`), DuckDB in between,
    within a share of the memory budget ``budget`` (bytes), spilling into ``folder``."""

    def __init__(self, budget: int, folder: str, what: str) -> None:
        with needs("large", what, why=what):
            import duckdb
        self._budget = budget
        memory = budget // SHARE
        self._error: type[Exception] = duckdb.Error
        self._con: Any = duckdb.connect(
            ":memory:",
            config={
                "memory_limit": f"{max(memory // 2**20, 64)}MiB",
                "temp_directory": os.path.join(folder, "duckdb"),
                "threads": max(1, min(os.cpu_count() or 1, 4)),
                "preserve_insertion_order": False,
                # give freed memory back early: the budget is about the process, not only
                # about what DuckDB's buffers hold
                "allocator_flush_threshold": "16MiB",
                "allocator_bulk_deallocation_flush_threshold": "16MiB",
                "write_buffer_row_group_memory_limit": f"{max(memory // 2**22, 8)}MiB",
            },
        )
        self._made = False

    def add(self, rows: pa.Table) -> None:
        """Add rows (columns query and doc as text, score, line: the file's line or row
        number, and the same types every time)."""
        with self._out_of_memory():
            self._con.register("batch", rows)
            try:
                self._con.execute(
                    "INSERT INTO rows SELECT * FROM batch"
                    if self._made
                    else "CREATE TABLE rows AS SELECT * FROM batch"
                )
                self._made = True
            finally:
                self._con.unregister("batch")

    def groups(self, rows: int) -> Iterator[pa.Table]:
        """Every row, as tables of whole queries of about ``rows`` rows, in query order;
        a query's rows in the order of their ``line``."""
        with self._out_of_memory():
            reader = self._con.sql("SELECT * FROM rows ORDER BY query, line").to_arrow_reader(
                max(rows, 1024)
            )
            yield from (table for table, _ in table_blocks(iter(reader), "query"))

    @contextmanager
    def _out_of_memory(self) -> Iterator[None]:
        """DuckDB's errors (running out of its share of the budget, of disk) as ours."""
        try:
            yield
        except self._error as exc:
            raise RanklensError(
                "grouping the ungrouped run by query within the memory budget "
                f"({format_size(self._budget)}) failed: {str(exc).splitlines()[0]}. Give a "
                "larger budget (memory='...'), or write the run grouped by query (the rows "
                "of each query together), which streams without grouping."
            ) from None

    def close(self) -> None:
        self._con.close()
