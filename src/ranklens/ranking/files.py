"""Evaluating run files within a memory budget: :func:`evaluate_files`, the driver that
runs the engine on a run read whole (when it fits) or in blocks of whole queries
(:func:`ranklens.io.stream.stream_run`, when it does not), with the numbers of
:func:`ranklens.evaluate` on the whole files.  ``io`` reads; this module evaluates."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from typing import Any

import pyarrow.compute as pc

from ranklens._shared.sizes import format_size
from ranklens.errors import InputError
from ranklens.io import detect_format, read_qrels, read_run
from ranklens.io.stream import (
    QRELS_ROW,
    STREAMED,
    budget_bytes,
    fits_in_memory,
    is_stream,
    memory_needed,
    output_compression,
    qrels_memory,
    stream_run,
)
from ranklens.metrics import Metric
from ranklens.ranking.conventions import Conventions
from ranklens.ranking.data import Qrels
from ranklens.ranking.engine import no_relevant_error
from ranklens.ranking.evaluation import Result, evaluate, metric_list
from ranklens.ranking.evaluator import Evaluator

__all__ = ["evaluate_files"]


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
    budget = budget_bytes(memory)
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
        columns: dict[str, Any] = (
            {} if trec_qrels else dict(query=query, doc=doc, relevance=relevance)
        )
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
    batches = Evaluator(names, conventions=relaxed)
    stream = stream_run(
        batches,
        judged,
        run,
        budget=budget,
        qrels_bytes=qrels_bytes,
        temp_dir=temp_dir,
        fmt=fmt,
        query=query,
        doc=doc,
        score=score,
        rank=rank,
        name=name,
        duplicates=duplicates,
    )
    missing, run_name = stream.finish(name)
    if conv.no_relevant == "error":
        _no_relevant(judged, set(judged.query_ids) & stream.seen | _zero(missing, conv), conv)
    res = batches.compute()
    return dataclasses.replace(res, conventions=conv, run_name=run_name)


def _zero(missing: list[str], conv: Conventions) -> set[str]:
    """The queries the run lacks that are scored (``missing='zero'``)."""
    return set(missing) if conv.missing == "zero" else set()


def _no_relevant(qrels: Qrels, chosen: set[str], conv: Conventions) -> None:
    """``no_relevant='error'``: the error of one evaluation, naming every query."""
    t = qrels.to_arrow()
    relevant = set(
        pc.unique(
            t.column("query").filter(pc.greater_equal(t.column("relevance"), conv.rel_threshold))
        ).to_pylist()
    )
    ids = sorted(chosen - relevant)
    if ids:
        raise no_relevant_error(ids, conv.rel_threshold)
