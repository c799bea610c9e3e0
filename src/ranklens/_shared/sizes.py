"""Sizes of memory: the one grammar (``"500MB"``, ``"2GB"``, ``"1.5 GiB"``) and the memory
this machine has available.

>>> parse_size("1.5 GiB")
1610612736
>>> parse_size("500MB")
500000000
>>> format_size(1610612736)
'1.5 GiB'
"""

from __future__ import annotations

import math
import os
import re

from ranklens._shared.validate import is_number
from ranklens.errors import InputError

__all__ = ["available_memory", "format_size", "parse_size"]

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "k": 2**10,
    "m": 2**20,
    "g": 2**30,
    "t": 2**40,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([a-z]*)\s*$", re.IGNORECASE)


def parse_size(value: str | int | float, name: str = "memory") -> int:
    """A number of bytes from ``value``: a number (bytes) or text with a unit: decimal
    ``KB``, ``MB``, ``GB``, ``TB`` (powers of 1000), binary ``KiB``, ``MiB``, ``GiB``,
    ``TiB`` and their short forms ``K``, ``M``, ``G``, ``T`` (powers of 1024), any case,
    a blank allowed before the unit.  ``name`` is the parameter named in the error."""
    if not (isinstance(value, str) or is_number(value)):
        raise InputError(
            f"{name} must be a size such as '500MB', '2GB' or '1.5 GiB', got "
            f"{type(value).__name__}."
        )
    if not isinstance(value, str):
        number, unit = float(value), ""
        if not math.isfinite(number):
            raise InputError(f"{name}={value!r} must be a finite size, e.g. {name}='2GB'.")
    else:
        m = _SIZE.match(value)
        if m is None or m.group(2).lower() not in _UNITS:
            raise InputError(
                f"{name}={value!r} is not a size; give a number and a unit, e.g. "
                f"{name}='500MB', '2GB' or '1.5 GiB' (KB/MB/GB are powers of 1000, "
                "KiB/MiB/GiB powers of 1024)."
            )
        number, unit = float(m.group(1)), m.group(2).lower()
    size = int(number * _UNITS[unit])
    if not size > 0:
        raise InputError(f"{name}={value!r} must be a positive size, e.g. {name}='2GB'.")
    return size


def format_size(size: int) -> str:
    """``size`` bytes in binary units, as short as they are exact to 3 digits."""
    for unit, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size} B"


def available_memory() -> int | None:
    """The memory available to new work, in bytes: ``MemAvailable`` of
    ``/proc/meminfo`` (Linux), less where a cgroup (v2) limit leaves less
    (``memory.max`` - ``memory.current``: a container's limit), else the physical
    memory (``os.sysconf``), else None."""
    free: int | None = None
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if free is None:
        try:
            free = int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
        except (OSError, ValueError, AttributeError):
            return None
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as fh:
            limit = fh.read().strip()
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as fh:
            used = int(fh.read().strip())
        if limit != "max":
            free = min(free, max(int(limit) - used, 0))
    except (OSError, ValueError):
        pass
    return free
