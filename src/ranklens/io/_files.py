"""Opening files: existence checks, transparent compression, format detection."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa

from ranklens.errors import InputError

__all__ = ["COMPRESSIONS", "FORMATS", "check_readable", "detect_format", "read_bytes"]

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
    p = Path(path)
    suffix, compression = _suffixes(p)
    if fmt is not None:
        key = fmt.lower()
        if key not in FORMATS:
            raise InputError(
                f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}."
            )
        return key, compression
    return _SUFFIX_FORMAT.get(suffix, "trec"), compression


def check_readable(path: str | os.PathLike[str]) -> Path:
    p = Path(path)
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
    try:
        if compression is None:
            return pa.memory_map(str(p)).read_buffer()
        with pa.input_stream(str(p), compression=compression) as stream:
            return stream.read_buffer()
    except (OSError, pa.ArrowInvalid) as exc:
        raise InputError(f"{p}: cannot read the {compression or ''} file ({exc}).") from exc
