"""Exception and warning types raised by ranklens.

Every error raised on bad user input is a :class:`RanklensError`.  The
subclasses also derive from the matching built-in type (``ValueError``,
``KeyError``, ...) so that generic ``except ValueError`` code keeps working.
Messages say what was wrong, where (column, row, query id, metric string) and
how to fix it.
"""

from __future__ import annotations

import sys

__all__ = [
    "ConventionError",
    "DuplicateError",
    "FormatError",
    "InputError",
    "MetricNameError",
    "MetricParameterError",
    "MissingDependencyError",
    "OutputPathError",
    "ProvenanceError",
    "RanklensError",
    "RanklensWarning",
    "StoreError",
    "UnsupportedError",
]


class RanklensError(Exception):
    """Base class of every error ranklens raises on bad input or usage."""


class InputError(RanklensError, ValueError):
    """Qrels, runs or other data are malformed (wrong type, NaN, empty, ...)."""


class DuplicateError(InputError):
    """A (query, document) pair occurs more than once."""


class FormatError(RanklensError, ValueError):
    """An unknown file or output format (a usage error, not bad data)."""


class MetricNameError(RanklensError, ValueError):
    """A metric string does not parse or names no known metric."""


class MetricParameterError(MetricNameError):
    """A metric parameter is unknown, of the wrong type or out of range."""


class ConventionError(RanklensError, ValueError):
    """An evaluation convention or profile is unknown or has a bad value."""


class StoreError(InputError):
    """A results store (``ranklens.history``) cannot be used: not a SQLite file,
    corrupt, another application's database, or a record that does not exist."""


class ProvenanceError(InputError):
    """Results that do not compare: computed on different qrels or under different
    conventions (:func:`ranklens.gate` refuses them unless told otherwise)."""


class UnsupportedError(RanklensError, ValueError):
    """A valid combination that ranklens does not (yet) compute, e.g. a tie
    policy that is not defined for a metric."""


class MissingDependencyError(RanklensError, ImportError):
    """An optional dependency is not installed; the message names the extra to
    install (``pip install 'ranklens[EXTRA]'``), also held by ``package`` (the missing
    distribution) and ``install`` (that line)."""

    package: str = ""
    install: str = ""


class OutputPathError(RanklensError, ValueError):
    """An output file cannot be written where asked (missing folder, a folder
    given as the file, no permission)."""


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a ``warnings.warn`` called in ranklens at the
    first frame outside the package (the caller's own line)."""
    frame = sys._getframe(1)  # the function calling warnings.warn
    level = 1
    while frame is not None and (frame.f_globals.get("__name__") or "").split(".")[0] == "ranklens":
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


class RanklensWarning(UserWarning):
    """Warnings about data that was evaluated but looks suspicious."""


class RanklensDeprecationWarning(FutureWarning):
    """A spelling that still works for one release; the message names the one to use.

    A :class:`FutureWarning` (shown by default), not a :class:`DeprecationWarning`
    (hidden outside ``__main__``), because those who must change are the users.
    """
