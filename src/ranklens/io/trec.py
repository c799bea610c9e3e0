"""TREC qrels (``query iter doc relevance``) and run (``query Q0 doc rank score
tag``) files.

Whitespace-separated; a line whose first non-blank character is ``#`` is a
comment; ``#`` inside an id is ordinary text; extra trailing columns are
ignored (as trec_eval does); the rank column is ignored for ordering; CRLF line
ends are accepted.  Errors name the file and line.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ranklens.data import Qrels, Run
from ranklens.errors import InputError

__all__ = ["read_trec_qrels", "read_trec_run"]


def _lines(path: str | os.PathLike[str]) -> list[tuple[int, list[str]]]:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file.")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, not a file.")
    data = p.read_bytes()
    if b"\x00" in data[:8192]:
        raise InputError(f"{p}: looks like a binary file, not a TREC text file.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{p}:{line}: the file is not valid UTF-8 text.") from None
    out = []
    for no, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        out.append((no, stripped.split()))
    if not out:
        raise InputError(f"{p}: the file is empty (no data lines).")
    return out


def _numbers(path: str | os.PathLike[str], rows: list[tuple[int, list[str]]], col: int,
             what: str) -> np.ndarray:
    try:
        return np.array([r[col] for _, r in rows], dtype=np.float64)
    except ValueError:
        for no, r in rows:
            try:
                float(r[col])
            except ValueError:
                raise InputError(
                    f"{path}:{no}: the {what} {r[col]!r} is not a number."
                ) from None
        raise


def read_trec_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file (``query iter doc relevance [...]``)."""
    rows = _lines(path)
    for no, r in rows:
        if len(r) < 4:
            raise InputError(
                f"{path}:{no}: expected 4 columns (query iter doc relevance), found {len(r)}."
            )
    rel = _numbers(path, rows, 3, "relevance")
    return Qrels.from_arrays([r[0] for _, r in rows], [r[2] for _, r in rows], rel)


def read_trec_run(path: str | os.PathLike[str]) -> Run:
    """Read a TREC run file (``query Q0 doc rank score tag [...]``); the run's
    name is the tag of its last line (as trec_eval reports it)."""
    rows = _lines(path)
    for no, r in rows:
        if len(r) < 6:
            raise InputError(
                f"{path}:{no}: expected 6 columns (query Q0 doc rank score tag), found "
                f"{len(r)}."
            )
    score = _numbers(path, rows, 4, "score")
    return Run.from_arrays([r[0] for _, r in rows], [r[2] for _, r in rows], score,
                           name=rows[-1][1][5])
