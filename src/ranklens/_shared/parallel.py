"""Threads, sized from the machine: one pool, one size threshold.

Sorting, merging and look-ups in Arrow and NumPy release the GIL, so large
inputs are cut into one piece per core and run on a thread pool.  Below
:data:`LARGE_ROWS` rows a second thread costs more than it saves, and the same
threshold decides which checks are deferred to first use.

>>> split_points(np.array([0, 0, 1, 1, 1, 2]), 2)
[0, 2, 6]
>>> pieces(10, 3)
[(0, 3), (3, 6), (6, 10)]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import numpy as np

LARGE_ROWS = 200_000  # below this, threads and deferred checks cost more than they save

_POOL: ThreadPoolExecutor | None = None


def workers() -> int:
    """The cores this process may run on (``RANKLENS_THREADS`` overrides; at least 1)."""
    env = os.environ.get("RANKLENS_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def parts_for(n: int) -> int:
    """How many pieces to cut ``n`` rows into: one per core when large, else one."""
    return workers() if n >= LARGE_ROWS else 1


def pool() -> ThreadPoolExecutor:
    """The shared thread pool, one thread per core, started on first use."""
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=workers(), thread_name_prefix="ranklens")
    return _POOL


def pieces(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous row ranges of nearly equal size covering ``0..n``."""
    cuts = [n * j // parts for j in range(parts + 1)]
    return [(a, b) for a, b in pairwise(cuts) if b > a] or [(0, n)]


def split_points(codes: np.ndarray, parts: int) -> list[int]:
    """Row boundaries that cut a non-decreasing code array into ``parts`` nearly equal
    pieces without splitting a run of equal codes."""
    n = len(codes)
    cuts = [0]
    for j in range(1, parts):
        c = int(np.searchsorted(codes, codes[n * j // parts], side="left"))
        if c > cuts[-1]:
            cuts.append(c)
    cuts.append(n)
    return cuts


def run_pieces(n: int, work: Callable[[int, int], Any]) -> None:
    """Run ``work(a, b)`` over row ranges covering ``0..n``: one range per core for
    large inputs (the first on this thread), else all at once."""
    ranges = pieces(n, parts_for(n))
    jobs = [pool().submit(work, a, b) for a, b in ranges[1:]]
    work(*ranges[0])
    for job in jobs:
        job.result()


def map_pieces(ranges: list[tuple[int, int]], work: Callable[[int, int], Any]) -> list[Any]:
    """``[work(a, b) for a, b in ranges]``, the first on this thread, the rest on the pool."""
    jobs = [pool().submit(work, a, b) for a, b in ranges[1:]]
    return [work(*ranges[0])] + [job.result() for job in jobs]


def map_large(work: Callable[..., Any], calls: list[tuple[Any, ...]], rows: int) -> list[Any]:
    """``[work(*args) for args in calls]``, the calls at the same time (the first on this
    thread, the rest on the pool) when they handle ``rows`` rows or more each and there
    are cores for them, e.g. coding a table's id columns."""
    if len(calls) < 2 or parts_for(rows) < 2 or _on_pool():
        return [work(*args) for args in calls]
    jobs = [pool().submit(work, *args) for args in calls[1:]]
    try:
        first = work(*calls[0])
    finally:
        rest = [job.result() for job in jobs]
    return [first, *rest]


def _on_pool() -> bool:
    """Whether this thread is one of the pool's (whose tasks must not wait on more pool
    tasks: with every worker waiting, none would be left to run them)."""
    return threading.current_thread().name.startswith("ranklens_")


_AHEAD: ThreadPoolExecutor | None = None


def ahead() -> ThreadPoolExecutor:
    """One background thread for work started ahead of its use (a large qrels'
    judgment index while the run is read); separate from :func:`pool`, whose
    tasks may wait on each other."""
    global _AHEAD
    if _AHEAD is None:
        _AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ranklens-ahead")
    return _AHEAD
