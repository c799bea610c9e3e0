"""Diversity qrels (``query intent doc relevance``) and intent weights files.

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
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens.errors import InputError
from ranklens.io._files import detect_format, read_bytes
from ranklens.ranking.intents import DiversityQrels

__all__ = ["INTENT_NAMES", "intent_column_used", "read_diversity_qrels", "read_intent_weights"]

INTENT_NAMES = ("intent", "intent_id", "subtopic", "subtopic_id", "aspect", "facet")


def read_diversity_qrels(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    query: str | None = None,
    intent: str | None = None,
    doc: str | None = None,
    relevance: str | None = None,
    weights: Any = None,
) -> DiversityQrels:
    """Read diversity qrels from any supported format (chosen by suffix unless
    ``format``); ``weights``: intent weights (a path to a weights file, a mapping or a
    table; None: uniform)."""
    from ranklens.io._trec_format import QRELS, Layout
    from ranklens.io.tables import (
        DOC_NAMES,
        QUERY_NAMES,
        RELEVANCE_NAMES,
        _read_json_dict,
        _read_table,
        _to_float,
        named_errors,
    )
    from ranklens.io.trec import checked_columns

    fmt, _ = detect_format(path, format)
    name = str(path)
    if isinstance(weights, (str, os.PathLike)):
        weights = read_intent_weights(weights)
    if fmt == "trec":
        given = [k for k, v in (("query", query), ("intent", intent), ("doc", doc)) if v]
        if given or relevance:
            raise InputError(
                f"{name}: a TREC diversity qrels file has fixed columns (query intent doc "
                f"relevance), so {(given or ['relevance'])[0]}=<column> does not apply; "
                "leave it out."
            )
        data = read_bytes(path)  # read once: the two passes read the same bytes
        docs = checked_columns(path, QRELS, data)
        # the same lines, the intent read where the doc is
        intents = checked_columns(
            path, Layout("qrels", 4, 0, 1, 3, "relevance", QRELS.header), data
        )
        with named_errors(name):
            return DiversityQrels(
                docs.query, intents.doc, docs.doc, docs.value, weights=weights, name=None
            )
    with named_errors(name):
        if fmt == "json":
            return DiversityQrels.from_dict(_read_json_dict(name), weights=weights)
        cols, first = _read_table(
            name,
            fmt,
            {
                "query": (query, QUERY_NAMES, "query"),
                "intent": (intent, INTENT_NAMES, "intent"),
                "doc": (doc, DOC_NAMES, "doc"),
                "relevance": (relevance, RELEVANCE_NAMES, "relevance"),
            },
        )
        rel = _to_float(name, cols["relevance"], "relevance", first)
        return DiversityQrels(
            cols["query"], cols["intent"], cols["doc"], rel, weights=weights, name=None
        )


def read_intent_weights(path: str | os.PathLike[str], *, format: str | None = None) -> pa.Table:
    """Read intent weights: ``query intent weight`` lines (TREC-like, ``#`` comments),
    or a CSV/TSV/Parquet/JSON Lines table with query, intent and weight columns.
    Returns a table with those three columns (ids as text, weights float64)."""
    from ranklens.io.tables import QUERY_NAMES, _read_table, _to_float, named_errors

    fmt, _ = detect_format(path, format)
    name = str(path)
    if fmt in ("csv", "tsv", "parquet", "jsonl"):
        with named_errors(name):
            cols, first = _read_table(
                name,
                fmt,
                {
                    "query": (None, QUERY_NAMES, "query"),
                    "intent": (None, INTENT_NAMES, "intent"),
                    "weight": (None, ("weight", "probability", "prob", "p"), "weight"),
                },
            )
            w = _to_float(name, cols["weight"], "weight", first)
            return pa.table({"query": cols["query"], "intent": cols["intent"], "weight": w})
    if fmt == "json":
        raise InputError(
            f"{name}: intent weights are read from `query intent weight` lines or a table; "
            "from Python, pass a mapping {query: {intent: weight}}."
        )
    try:
        text = bytes(read_bytes(path)).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: the file is not valid UTF-8 text.") from None
    qs: list[str] = []
    is_: list[str] = []
    ws: list[float] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 3:
            raise InputError(
                f"{name}:{line_no}: expected `query intent weight`, got {line.strip()!r}."
            )
        try:
            weight = float(fields[2])
        except ValueError:
            raise InputError(
                f"{name}:{line_no}: the weight {fields[2]!r} is not a number."
            ) from None
        if not np.isfinite(weight) or weight < 0:
            raise InputError(
                f"{name}:{line_no}: the weight {fields[2]!r} must be a finite number >= 0."
            )
        qs.append(fields[0])
        is_.append(fields[1])
        ws.append(weight)
    if not qs:
        raise InputError(f"{name}: no intent weight in the file; expected `query intent weight`.")
    return pa.table(
        {
            "query": pa.array(qs, type=pa.large_string()),
            "intent": pa.array(is_, type=pa.large_string()),
            "weight": np.array(ws, dtype=np.float64),
        }
    )


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
