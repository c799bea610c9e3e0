"""Writing files so that a failed write never destroys the previous one.

Every file ranklens writes (TREC, CSV, Parquet, JSON Lines, the HTML report,
charts, JUnit, tables) goes through :func:`atomic_path`: the writer fills a
temporary file in the same folder, which then replaces the target in one
rename (what SQLite, git and pip do).  A write that fails midway (a full disk,
an interrupt, an error while rendering) leaves the old file as it was and no
temporary file behind.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator

from ranklens.errors import OutputPathError

__all__ = ["atomic_path", "atomic_write"]


def _replaceable(path: str) -> bool:
    """Whether ``path`` is a regular file or does not exist (a pipe, a device such as
    ``/dev/stdout`` or ``/dev/null``, is written in place: renaming over it would
    replace the device by a file)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[str]:
    """A temporary path next to ``path`` to write to; when the ``with`` block ends
    without an error it replaces ``path`` (a symbolic link's target is replaced, the
    link kept), else it is removed and ``path`` is left untouched.

    The temporary file exists (empty) when the block starts, with the permissions a
    new file gets (or those of the file it replaces).  Writers that choose a format
    or a compression by the file's suffix must take them from ``path``, not from the
    temporary name.  An :class:`OSError` (no space, no permission) becomes an
    :class:`~ranklens.errors.OutputPathError` naming ``path``.
    """
    target = os.path.realpath(os.fspath(path))
    if not _replaceable(target):
        yield target
        return
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise OutputPathError(_cannot(path, exc)) from None
    try:
        yield tmp
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputPathError(_cannot(path, exc)) from None
        raise


def _cannot(path: str | os.PathLike[str], exc: OSError) -> str:
    why = exc.strerror or str(exc)
    return (
        f"path {os.fspath(path)!r}: cannot write it: {why}; the previous file, if any, "
        "is left as it was."
    )


def atomic_write(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through :func:`atomic_path`."""
    blob = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(blob)
