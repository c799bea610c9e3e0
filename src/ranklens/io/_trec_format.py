"""What a TREC qrels or run file is, for both readers: the column layouts, the columns
a reader returns, and the checks either path makes (UTF-8 text, a run given as qrels,
several run tags)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens.errors import InputError, RanklensWarning, user_stacklevel

__all__ = [
    "BOM",
    "QRELS",
    "RUN",
    "Columns",
    "Layout",
    "check_text",
    "check_utf8",
    "not_a_run",
    "one_tag",
]


@dataclass(frozen=True)
class Layout:
    """Where a file kind keeps its columns (0-based) and how its lines are described."""

    kind: str  # "qrels" or "run"
    min_columns: int
    query: int
    doc: int
    value: int
    value_name: str
    header: str


QRELS = Layout("qrels", 4, 0, 2, 3, "relevance", "query iter doc relevance")
RUN = Layout("run", 6, 0, 2, 4, "score", "query Q0 doc rank score tag")


@dataclass
class Columns:
    """The columns a reader returns."""

    query: pa.Array
    doc: pa.Array
    value: np.ndarray
    tag: str | None
    lines: np.ndarray | None  # 1-based line number of each row (slow path only)


BOM = b"\xef\xbb\xbf"


def check_text(path: str, buf: pa.Buffer, lines_before: int = 0) -> tuple[pa.Buffer, np.ndarray]:
    """The file's bytes without a UTF-8 byte-order mark, checked to be UTF-8 text;
    returns them as a buffer and as a NumPy byte array (no copy).  ``lines_before``:
    lines of the file before ``buf`` (a later block of a file read in parts: a mark
    there is text)."""
    if lines_before == 0 and len(buf) >= 3 and bytes(buf[:3]) == BOM:
        buf = buf.slice(3)
    b = np.frombuffer(buf, dtype=np.uint8)
    if b.size == 0:
        raise InputError(f"{path}: the file is empty; expected TREC lines.")
    if np.any(b[:65536] == 0):
        raise InputError(f"{path}: looks like a binary file, not a TREC text file.")
    check_utf8(path, buf, lines_before)
    return buf, b


def check_utf8(path: str, part: Any, lines_before: int = 0) -> None:
    """Raise :class:`InputError` naming the line (``lines_before`` lines precede
    ``part``, a buffer of whole lines) where ``part`` stops being UTF-8 text."""
    try:
        _whole(part).cast(pa.large_string())  # Arrow's check, no copy
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        try:
            bytes(part).decode("utf-8")
        except UnicodeDecodeError as exc:
            # no local keeps a view of ``part``: the caller may release it
            line = lines_before + bytes(part[: exc.start]).count(b"\n") + 1
            raise InputError(
                f"{path}:{line}: the file is not valid UTF-8 text; re-encode it as UTF-8."
            ) from None
        raise


def _whole(data: Any) -> pa.Array:
    """The whole buffer as a one-element binary array (no copy)."""
    buf = data if isinstance(data, pa.Buffer) else pa.py_buffer(data)
    offsets = np.array([0, len(buf)], dtype=np.int64)
    return pa.Array.from_buffers(pa.large_binary(), 1, [None, pa.py_buffer(offsets), buf])


def not_a_run(path: str, fields: list[bytes], layout: Layout, line: int) -> None:
    """A run file given where qrels belong would be read with its rank as the relevance
    (every retrieved document relevant): refuse a qrels line shaped like a run line."""
    if layout.kind == "qrels" and len(fields) >= 6 and fields[1].upper() == b"Q0":
        raise InputError(
            f"{path}:{line}: this looks like a run line (query Q0 doc rank score tag), not "
            "qrels (query iter doc relevance); give the qrels file first, then the run: "
            "ranklens evaluate QRELS RUN."
        )


def one_tag(path: str, first: str | None, last: str | None) -> None:
    """trec_eval names a run after the tag of its last line; say so when the file holds
    several tags (the fast reader compares the first line's tag with the last's)."""
    if first is not None and last is not None and first != last:
        warnings.warn(
            f"{path}: the run has several run tags (e.g. {first!r} and {last!r}); it is "
            f"named {last!r}, after its last line, as trec_eval does. Give each system its "
            "own file.",
            RanklensWarning,
            stacklevel=user_stacklevel(),
        )
