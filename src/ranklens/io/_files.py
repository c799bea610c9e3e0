"""Opening files: existence checks, transparent compression, format detection."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.columns import NUMBER_TEXT
from ranklens.errors import FormatError, InputError

__all__ = [
    "COMPRESSIONS",
    "FORMATS",
    "check_readable",
    "detect_format",
    "numbers",
    "output_compression",
    "read_bytes",
]

COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bz2", ".zst": "zstd", ".zstd": "zstd"}
FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl", "json")
_SUFFIX_FORMAT = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}


def _suffixes(path: Path) -> tuple[str, str | None]:
    """(format suffix, compression) of a path: ``run.tsv.gz`` -> ('.tsv', 'gzip')."""
    suffixes = [s.lower() for s in path.suffixes]
    compression = None
    if suffixes and suffixes[-1] in COMPRESSIONS:
        compression = COMPRESSIONS[suffixes.pop()]
    return (suffixes[-1] if suffixes else ""), compression


def detect_format(path: str | os.PathLike[str], fmt: str | None = None) -> tuple[str, str | None]:
    """The format (``trec`` unless the suffix says otherwise) and compression of a path."""
    p = _as_path(path)
    suffix, compression = _suffixes(p)
    if fmt is not None:
        key = fmt.lower()
        if key not in FORMATS:
            raise FormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
        return key, compression
    return _SUFFIX_FORMAT.get(suffix, "trec"), compression


def _as_path(path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"a file path must be a string or a path, got {type(path).__name__}.")
    return Path(path)


STDIN = "-"
# the standard inputs (sys.stdin objects) read already: each can be read only once (a
# test runner that swaps in a new sys.stdin may read that one)
_STDIN_READ: weakref.WeakSet[Any] = weakref.WeakSet()


def stdin_buffer() -> Any:
    """``sys.stdin.buffer``, for one reader: a second read of the same standard input
    (``evaluate - -``: qrels and run both from it) is an :class:`InputError` instead of
    an "empty file"."""
    stdin = sys.stdin
    try:
        again = stdin in _STDIN_READ
        _STDIN_READ.add(stdin)
    except TypeError:  # an object without weak references: not tracked
        again = False
    if again:
        raise InputError(
            "standard input ('-') can be read only once, and another input already read "
            "it: two inputs are both '-' (e.g. the qrels and the run); give all but one "
            "of them as files."
        )
    return stdin.buffer


# the first bytes of a compressed stream, for input that has no suffix to go by
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\x28\xb5\x2f\xfd", "zstd"))


def is_stream(path: str | os.PathLike[str]) -> bool:
    """Standard input (``-``) or a file that can only be read once, front to back (a
    pipe, ``/dev/stdin``, a process substitution ``<(zcat run.gz)``)."""
    if str(path) == STDIN:
        return True
    try:
        return not stat.S_ISREG(os.stat(path).st_mode) and not os.path.isdir(path)
    except OSError:
        return False


def check_readable(path: str | os.PathLike[str]) -> Path:
    p = _as_path(path)
    if str(path) == STDIN:
        return p
    if not p.exists():
        raise InputError(f"{p}: no such file; check the path.")
    if p.is_dir():
        raise InputError(f"{p}: is a directory, not a file; give the path of a file in it.")
    if not os.access(p, os.R_OK):
        raise InputError(f"{p}: permission denied; the file is not readable.")
    return p


def read_bytes(path: str | os.PathLike[str]) -> pa.Buffer:
    """The (decompressed) contents of a file as an Arrow buffer (memory-mapped when plain)."""
    p = check_readable(path)
    _, compression = _suffixes(p)
    if is_stream(path):
        return _read_stream(path, compression)
    try:
        if compression is None:
            return pa.memory_map(str(p)).read_buffer()
        with pa.input_stream(str(p), compression=compression) as stream:
            return stream.read_buffer()
    except (OSError, pa.ArrowInvalid) as exc:
        raise InputError(f"{p}: cannot read the {compression or ''} file ({exc}).") from exc


def _read_stream(path: str | os.PathLike[str], compression: str | None) -> pa.Buffer:
    """All of a stream's bytes (read once, front to back), decompressed by the suffix or,
    without one, by the stream's first bytes."""
    name = "standard input" if str(path) == STDIN else str(path)
    try:
        if str(path) == STDIN:
            data = stdin_buffer().read()
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        raise InputError(f"{name}: cannot read it ({exc.strerror}).") from None
    if compression is None:
        compression = next((c for magic, c in _MAGIC if data.startswith(magic)), None)
    if compression is None:
        return pa.py_buffer(data)
    try:
        with pa.input_stream(pa.BufferReader(data), compression=compression) as stream:
            return stream.read_buffer()
    except (OSError, pa.ArrowInvalid) as exc:
        raise InputError(f"{name}: cannot read the {compression} stream ({exc}).") from exc


def output_compression(path: str | os.PathLike[str]) -> str | None:
    """The compression to write ``path`` with, from its suffix (None: plain)."""
    return _suffixes(Path(path))[1]


def numbers(text: pa.Array, where: Callable[[int], str], what: str) -> np.ndarray:
    """Parse a text column as float64; on failure (not a number, NaN or infinite) name
    the first bad row.

    ``where(i)`` gives the location (``file:line``) of row ``i`` for the message.
    """
    import pyarrow.compute as pc

    from ranklens._shared.arrow import to_numpy

    out: np.ndarray | None = None
    if pa.types.is_integer(text.type):  # exactly, or an error naming the line
        from ranklens._shared.columns import exact_floats

        out = exact_floats(to_numpy(text, fill=0), lambda i: f"{where(i)}: the {what}")
        if text.null_count:
            out[~to_numpy(text.is_valid())] = np.nan  # missing: named below
    elif pa.types.is_floating(text.type):
        out = np.array(to_numpy(text.cast(pa.float64())), dtype=np.float64)
    else:
        with contextlib.suppress(
            pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError
        ):  # not numbers: named below
            out = np.array(to_numpy(pc.cast(text, pa.float64())), dtype=np.float64)
    if out is not None:
        bad = np.flatnonzero(~np.isfinite(out))
        if bad.size:
            i = int(bad[0])
            value = text[i].as_py()
            shown = (
                "is missing (empty, NA or NaN)"
                if value is None
                else (f"{value!r} is not a finite number")
            )
            raise InputError(
                f"{where(i)}: the {what} {shown}; every {what} must be a finite number "
                f"({bad.size} row(s) are not)."
            )
        return out
    binary = pa.types.is_binary(text.type) or pa.types.is_large_binary(text.type)
    # (a CSV column that is not UTF-8 text is binary: matched as it is, not cast to text)
    ok = to_numpy(
        pc.match_substring_regex(
            text if binary else text.cast(pa.large_string()), NUMBER_TEXT, ignore_case=True
        ),
        fill=False,
    )
    bad = np.flatnonzero(~ok)
    i = int(bad[0]) if bad.size else 0
    raise InputError(f"{where(i)}: the {what} {text[i].as_py()!r} is not a number.")
