"""Paths and random-case generators shared by the test packages."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO.parent / "shared" / "conformance" / "trec_eval"
