"""What the diversity qrels readers share (:func:`ranklens.io.read_diversity_qrels`).

Diversity qrels (``query intent doc relevance``) and intent weights files.

A TREC diversity qrels file (the TREC Web track's, ndeval's input) has the layout
of a TREC qrels file whose second column is the intent (subtopic) instead of the
unused iteration: ``query intent doc relevance``.  The two are told apart only by
what the second column means, so a reader is told which it reads:
``read_qrels(path, intents=True)`` (``--qrels-format diversity`` on the command
line) reads a :class:`~ranklens.DiversityQrels`; a table (CSV, TSV, Parquet, JSON
Lines) has an intent column (``intent``, ``subtopic``, ``aspect``, or named), and a
JSON file maps ``{query: {intent: {doc: relevance}}}``.

Intent weights files hold ``query intent weight`` lines (TREC-like, whitespace
separated) or a table with query, intent and weight columns.
"""

from __future__ import annotations

import os

import pyarrow as pa

from ranklens.errors import InputError

__all__ = ["INTENT_NAMES", "intent_column_used"]

INTENT_NAMES = ("intent", "intent_id", "subtopic", "subtopic_id", "aspect", "facet")


def intent_column_used(path: str | os.PathLike[str]) -> bool:
    """Whether a TREC qrels file's second column holds anything but ``0`` (a diversity
    qrels' intents, where a plain qrels has its unused iteration); False when the file
    cannot be read that way."""
    from ranklens.io._trec_format import QRELS, Layout
    from ranklens.io.trec import checked_columns

    try:
        cols = checked_columns(path, Layout("qrels", 4, 0, 1, 3, "relevance", QRELS.header))
    except InputError:
        return False
    second = cols.doc
    if pa.types.is_dictionary(second.type):
        second = second.dictionary_decode()
    import pyarrow.compute as pc

    return bool(pc.any(pc.not_equal(second.cast(pa.large_string()), "0")).as_py())
