"""ruff and mypy run as part of the suite (the repository contract: lint and type clean)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (it comes with the test extra)")
    return found


def test_ruff_clean() -> None:
    out = subprocess.run(
        [_tool("ruff"), "check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_clean() -> None:
    out = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
