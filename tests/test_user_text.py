"""What a user reads: no internal notes in user-facing documentation."""

from __future__ import annotations

import re
from pathlib import Path

import ranklens

SRC = Path(ranklens.__file__).parent


def test_docs_cite_sources_not_internal_seed_numbers() -> None:
    """Docstrings and metric docs cite the source by what it is ("seed 000" means
    nothing to a user)."""
    pattern = re.compile(r"\bseeds? ?0\d\d\b")
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in sorted(SRC.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
