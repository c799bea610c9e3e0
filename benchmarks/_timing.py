"""Timing helper shared by the benchmark scripts (run as ``python benchmarks/x.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The fastest of ``repeat`` calls of ``fn`` (seconds) and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out
