"""Reading TOML (the standard library's ``tomllib``) with errors that name the file and
the 1-based line.

>>> loads('[min]\\nmap = 0.3\\n', "gate.toml")
{'min': {'map': 0.3}}
>>> loads('[min]\\nmap = = 0.3\\n', "gate.toml")
Traceback (most recent call last):
...
ranklens.errors.InputError: gate.toml:2: not valid TOML (Invalid value, column 7).
"""

from __future__ import annotations

import re
from typing import Any

from ranklens.errors import InputError

__all__ = ["loads"]

_WHERE = re.compile(r"\(at line (\d+), column (\d+)\)")


def loads(text: str, path: str, what: str = "file") -> dict[str, Any]:
    """The TOML document ``text`` read from ``path``; :class:`InputError` naming
    ``path:line`` when it is not valid TOML."""
    import tomllib  # on first use: a command that reads no TOML file does not load it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _WHERE.search(message)
        if found is None:
            raise InputError(f"{path}: the {what} is not valid TOML ({message}).") from None
        raise InputError(
            f"{path}:{found.group(1)}: not valid TOML "
            f"({message[: found.start()].strip()}, column {found.group(2)})."
        ) from None
