"""Readers and writers for qrels, runs and results.

``read_qrels`` / ``read_run`` pick the format from the file suffix (after a
compression suffix ``.gz``/``.bz2``/``.zst``): ``.csv``, ``.tsv``,
``.parquet``, ``.jsonl``, ``.json`` (dict of dicts, as ranx and pytrec_eval
users keep them), anything else TREC.  ``write_qrels`` / ``write_run`` write
every format they read; a round trip is exact.  ``evaluate_files`` evaluates a
run file within a memory budget, streaming runs larger than memory
(:mod:`ranklens.io.stream`).
"""

from ranklens.io._files import COMPRESSIONS, FORMATS, detect_format, numbers, read_bytes
from ranklens.io.stream import evaluate_files
from ranklens.io.tables import read_qrels, read_run, write_qrels, write_run
from ranklens.io.trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

__all__ = [
    "COMPRESSIONS",
    "FORMATS",
    "detect_format",
    "evaluate_files",
    "numbers",
    "read_bytes",
    "read_qrels",
    "read_run",
    "read_trec_qrels",
    "read_trec_run",
    "write_qrels",
    "write_run",
    "write_trec_qrels",
    "write_trec_run",
]
