"""Readers for trec_eval's preference judgments (``-R prefs`` and ``-R qrels_prefs``).

A preference file holds, per query, judgment groups (``jg``: one information need
judged consistently, e.g. one assessor) split into judgment sub-groups (``jsg``);
within a sub-group a document with a higher ``rel_level`` is preferred to one with a
lower level.  ``-R prefs`` lines read ``qid jg jsg docno rel_level``; ``-R
qrels_prefs`` reads an ordinary qrels file (``qid iter docno rel``) as preferences:
the second column is the judgment group and every line is in sub-group ``"0"``
(trec_eval 10, ``get_prefs.c`` and ``get_qrels_prefs.c``).  Lines starting with
``#`` are comments.  Ids are kept exactly as written (text, never numbers).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ranklens.errors import InputError

__all__ = ["Prefs", "read_prefs", "read_qrels_jg", "read_qrels_prefs"]


@dataclass(frozen=True)
class Prefs:
    """Preference judgments: one row per (query, jg, jsg, document) judgment line.

    ``query``, ``jg``, ``jsg`` and ``doc`` are numpy arrays of ``str``;
    ``rel_level`` is ``float64``.  Rows keep the order of the file.
    """

    query: np.ndarray
    jg: np.ndarray
    jsg: np.ndarray
    doc: np.ndarray
    rel_level: np.ndarray

    def __len__(self) -> int:
        return int(self.query.shape[0])

    @property
    def query_ids(self) -> list[str]:
        """The distinct queries, in ``strcmp`` order (as trec_eval walks them)."""
        return [str(q) for q in np.unique(self.query)]

    @classmethod
    def from_rows(cls, rows: list[tuple[str, str, str, str, float]]) -> Prefs:
        """Build from ``(query, jg, jsg, doc, rel_level)`` tuples.

        >>> p = Prefs.from_rows([("q1", "a", "0", "d1", 1.0), ("q1", "a", "0", "d2", 0.0)])
        >>> len(p), p.query_ids
        (2, ['q1'])
        """
        cols = list(zip(*rows, strict=True)) if rows else [(), (), (), (), ()]
        return cls(
            query=np.array(cols[0], dtype=str),
            jg=np.array(cols[1], dtype=str),
            jsg=np.array(cols[2], dtype=str),
            doc=np.array(cols[3], dtype=str),
            rel_level=np.array(cols[4], dtype=np.float64),
        )


def _read(path: str | os.PathLike[str], fields: int, what: str) -> Prefs:
    rows: list[tuple[str, str, str, str, float]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if line.startswith("#") or not line.strip():
                continue
            parts = line.split()
            if len(parts) != fields:
                raise InputError(
                    f"{os.fspath(path)}:{lineno}: a {what} line has {fields} columns, "
                    f"this one has {len(parts)}: {line.strip()!r}; fix or remove the line"
                )
            try:
                rel = float(parts[-1])
            except ValueError:
                raise InputError(
                    f"{os.fspath(path)}:{lineno}: column {fields} (rel_level) must be a "
                    f"number, got {parts[-1]!r}; fix the line"
                ) from None
            if fields == 5:
                rows.append((parts[0], parts[1], parts[2], parts[3], rel))
            else:
                rows.append((parts[0], parts[1], "0", parts[2], rel))
    return Prefs.from_rows(rows)


def read_prefs(path: str | os.PathLike[str]) -> Prefs:
    """Read a trec_eval ``-R prefs`` file: ``qid jg jsg docno rel_level`` per line."""
    return _read(path, 5, "prefs (qid jg jsg docno rel_level)")


def read_qrels_prefs(path: str | os.PathLike[str]) -> Prefs:
    """Read a qrels file as preferences (trec_eval ``-R qrels_prefs``): the second
    column is the judgment group, every line is in sub-group ``"0"``."""
    return _read(path, 4, "qrels (qid iter docno rel)")


def read_qrels_jg(path: str | os.PathLike[str]) -> Prefs:
    """Read a trec_eval ``-R qrels_jg`` file: a qrels file whose second column is the
    judgment group (``jg``); the grade is ``rel_level``.  The same reading as
    :func:`read_qrels_prefs` (one definition), for
    :func:`ranklens.ranking.judgment_groups.evaluate_avgjg`."""
    return read_qrels_prefs(path)
