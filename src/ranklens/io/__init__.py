"""Readers and writers for qrels, runs and results.

``read_qrels`` / ``read_run`` pick the format from the file suffix (after a
compression suffix ``.gz``/``.bz2``/``.zst``): ``.csv``, ``.tsv``,
``.parquet``, ``.jsonl``, ``.json`` (dict of dicts, as ranx and pytrec_eval
users keep them), anything else TREC.  ``write_qrels`` / ``write_run`` write
every format they read; a round trip is exact.  :mod:`ranklens.io.stream` reads runs
larger than memory in blocks of whole queries; the evaluation driver built on it is
:func:`ranklens.evaluate_files` (``io`` reads and writes, and does not import the
engine; ``ranklens.io.evaluate_files`` is a deprecated spelling of it).
``read_frame`` / ``write_frame`` read and write any other table (interactions, item
features, split files) with every column.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.io._files import COMPRESSIONS, FORMATS, detect_format, numbers, read_bytes
    from ranklens.io.tables import (
        TABLE_FORMATS,
        read_diversity_qrels,
        read_frame,
        read_intent_weights,
        read_qrels,
        read_run,
        write_frame,
        write_qrels,
        write_run,
    )
    from ranklens.io.trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run

_lazy_getattr, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.io._files": ("COMPRESSIONS", "FORMATS", "detect_format", "numbers", "read_bytes"),
        "ranklens.io.tables": (
            "TABLE_FORMATS",
            "read_diversity_qrels",
            "read_frame",
            "read_intent_weights",
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
    "COMPRESSIONS",
    "FORMATS",
    "TABLE_FORMATS",
    "detect_format",
    "numbers",
    "read_bytes",
    "read_diversity_qrels",
    "read_frame",
    "read_intent_weights",
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


def __getattr__(name: str) -> object:
    """Each public name, imported on first use; ``ranklens.io.evaluate_files``: the
    deprecated spelling of :func:`ranklens.evaluate_files` (the driver lives above ``io``)."""
    if name == "evaluate_files":
        import warnings

        import ranklens  # the public API above io (io itself does not import the engine)
        from ranklens.errors import RanklensDeprecationWarning

        warnings.warn(
            "ranklens.io.evaluate_files is deprecated and goes in the next release; use "
            "ranklens.evaluate_files",
            RanklensDeprecationWarning,
            stacklevel=2,
        )
        return ranklens.evaluate_files
    return _lazy_getattr(name)
