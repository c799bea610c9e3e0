"""Progress of long work (reading a file, evaluating metrics, resampling), reported
to whoever listens: nobody by default (a report is one global read), the command
line while it draws a percentage on a terminal (:func:`ranklens.cli._common.progress`).

Library code calls :func:`report` with how much of a task is done; a listener set
with :func:`listening` receives it.  Reports may come from any thread.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Listener", "listening", "report"]

Listener = Callable[[str, float, float], None]
"""``listener(task, done, total)``: ``done`` of ``total`` units of ``task``."""

_listener: Listener | None = None


def report(task: str, done: float, total: float) -> None:
    """``done`` of ``total`` units of ``task`` are finished (no-op without a listener)."""
    listener = _listener
    if listener is not None:
        listener(task, done, total)


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send every :func:`report` made inside the block to ``listener``."""
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous
