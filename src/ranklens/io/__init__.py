"""Readers and writers for qrels, runs and results.

``read_qrels`` / ``read_run`` pick the format from the file suffix (after a
compression suffix ``.gz``/``.bz2``/``.zst``): ``.csv``, ``.tsv``,
``.parquet``, ``.jsonl``, ``.json`` (dict of dicts, as ranx and pytrec_eval
users keep them), anything else TREC.  ``write_qrels`` / ``write_run`` write
every format they read; a round trip is exact.  ``evaluate_files`` evaluates a
run file within a memory budget, streaming runs larger than memory
(:mod:`ranklens.io.stream`).  ``read_frame`` / ``write_frame`` read and write any
other table (interactions, item features, split files) with every column.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.io._files import FORMATS, detect_format
    from ranklens.io.stream import evaluate_files
    from ranklens.io.tables import (
        TABLE_FORMATS,
        read_frame,
        read_qrels,
        read_run,
        write_frame,
        write_qrels,
        write_run,
    )
    from ranklens.io.trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.io._files": (
            "FORMATS",
            "detect_format",
        ),
        "ranklens.io.stream": ("evaluate_files",),
        "ranklens.io.tables": (
            "TABLE_FORMATS",
            "read_frame",
            "read_qrels",
            "read_run",
            "write_frame",
            "write_qrels",
            "write_run",
        ),
        "ranklens.io.trec": (
            "read_trec_qrels",
            "read_trec_run",
            "write_trec_qrels",
            "write_trec_run",
        ),
    },
)

__all__ = [
    "FORMATS",
    "TABLE_FORMATS",
    "detect_format",
    "evaluate_files",
    "read_frame",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "write_frame",
    "write_qrels",
    "write_run",
    "write_trec_qrels",
    "write_trec_run",
]
