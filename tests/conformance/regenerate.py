"""The command line of the ``make_*_outputs.py`` scripts that write a peer's outputs:
write the files, or with ``--check`` compare them with what the peer gives now."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def write_or_check(files: Callable[[], dict[str, bytes]], folder: Path, peer: str, doc: str) -> int:
    """Exit status of writing ``files()`` into ``folder`` (``--check``: 1 when one
    differs from what ``peer`` gives, naming it)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    for name, data in files().items():
        path = folder / name
        if args.check:
            if path.read_bytes() != data:
                print(f"{path} differs from what {peer} gives", file=sys.stderr)
                return 1
        else:
            path.write_bytes(data)
    return 0
