"""Compute the ``rbo`` package's rank-biased overlaps on seeded random list pairs.

The ``rbo`` package (0.1.3) pins ``numpy<2``, so it lives in a side environment, not
in the test extras (``benchmarks/README.md`` says how to make it)::

    python3 -m venv /tmp/cwlrbo-side && /tmp/cwlrbo-side/bin/pip install rbo==0.1.3
    /tmp/cwlrbo-side/bin/python tests/conformance/make_rbo_outputs.py          # writes
    /tmp/cwlrbo-side/bin/python tests/conformance/make_rbo_outputs.py --check  # compares

It writes ``peers/rbo.json``: per query two strict rankings (lists of document ids,
best first; ``rbo`` takes no ties) of 0 to 30 documents drawn from a small pool, so
lists overlap, differ in length and may be empty, and per ``p`` the package's
``rbo_ext(p)`` (Webber et al.'s extrapolated RBO, ranklens ``rbo(variant=ext)``), and per cutoff
``k`` its ``rbo(k, p)`` (the truncated sum, ranklens ``rbo(variant=trunc)@k``) and
``rbo(k, p, ext=True)`` (extrapolated at depth ``min(len, k)``; ranklens ``rbo@k`` where
both lists hold ``k`` documents).  ``tests/ranking/test_reference_overlap.py`` reads
it; it needs only the standard library and the package.
"""

from __future__ import annotations

import io
import json
import random
import sys
from contextlib import redirect_stdout
from importlib import metadata
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "peers" / "rbo.json"
PS = (0.5, 0.9, 0.98)
KS = (1, 5, 10, 50)


def lists(seed: int, n_queries: int = 40) -> dict[str, tuple[list[str], list[str]]]:
    """Seeded pairs of strict rankings: shared and own documents, 0-30 long."""
    rng = random.Random(seed)
    out: dict[str, tuple[list[str], list[str]]] = {}
    for q in range(n_queries):
        pool = [f"d{i}" for i in range(rng.randint(1, 40))]
        a = rng.sample(pool, rng.randint(0, min(30, len(pool))))
        b = rng.sample(pool, rng.randint(0, min(30, len(pool))))
        if q == 0:
            a, b = [], []
        if q == 1:
            b = []
        if q == 2:
            b = list(a)
        out[f"q{q:02d}"] = (a, b)
    return out


def values(pairs: dict[str, tuple[list[str], list[str]]]) -> dict[str, Any]:
    from rbo import RankingSimilarity

    res: dict[str, Any] = {}
    quiet = io.StringIO()  # the package prints when it bounds a value
    with redirect_stdout(quiet):
        for q, (a, b) in pairs.items():
            sim = RankingSimilarity(a, b)
            res[q] = {
                "ext": {str(p): float(sim.rbo_ext(p)) for p in PS},
                "trunc": {f"{p}@{k}": float(sim.rbo(k, p)) for p in PS for k in KS},
                "ext_at": {f"{p}@{k}": float(sim.rbo(k, p, ext=True)) for p in PS for k in KS},
            }
    return res


def files() -> dict[str, bytes]:
    pairs = lists(0)
    doc = {
        "library": "rbo",
        "version": metadata.version("rbo"),
        "lists": {q: {"a": a, "b": b} for q, (a, b) in pairs.items()},
        "values": values(pairs),
    }
    return {OUT.name: (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()}


def main() -> int:
    if __package__:  # imported by the tests
        from tests.conformance.regenerate import write_or_check
    else:  # run as a script: its folder is on sys.path
        from regenerate import write_or_check  # type: ignore[no-redef]

    return write_or_check(files, OUT.parent, "rbo", __doc__ or "")


if __name__ == "__main__":
    sys.exit(main())
