"""The hook of ``skip_guard.py``: a session fails when a ``conformance`` test skips
(run in a pytest subprocess on a tiny test file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CONFTEST = "from tests.conformance.skip_guard import *  # noqa: F403\n"
INI = "[pytest]\nmarkers =\n    conformance: needs only the repository\n"


def _run(
    tmp_path: Path, body: str, folder: str = "tiny", extra: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "pytest.ini").write_text(INI)
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "test_tiny.py").write_text("import pytest\n\n" + body)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "src")])}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_skipped_conformance_test_fails_the_session(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        "@pytest.mark.conformance\n"
        "def test_evidence():\n"
        "    pytest.skip('the expected file is missing')\n",
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "1 skipped" in done.stdout
    assert "conformance tests skipped" in done.stdout
    assert "test_tiny.py::test_evidence: " in done.stdout
    assert "the expected file is missing" in done.stdout


def test_a_skipif_conformance_test_fails_the_session(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        "@pytest.mark.conformance\n"
        "@pytest.mark.skipif(True, reason='no fixtures')\n"
        "def test_evidence():\n"
        "    pass\n",
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "no fixtures" in done.stdout


def test_a_conformance_module_skipped_when_collected_fails_the_session(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        "pytest.importorskip('no_such_module_here')\n\n"
        "pytestmark = pytest.mark.conformance\n\n"
        "def test_evidence():\n"
        "    pass\n",
        folder="conformance",
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "no_such_module_here" in done.stdout
    assert "conformance tests skipped" in done.stdout


def test_other_skips_and_xfails_do_not(tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        "def test_optional():\n"
        "    pytest.skip('an optional tool is missing')\n\n"
        "@pytest.mark.conformance\n"
        "@pytest.mark.xfail(strict=True, reason='a known difference')\n"
        "def test_known():\n"
        "    assert False\n\n"
        "@pytest.mark.conformance\n"
        "def test_evidence():\n"
        "    pass\n",
    )
    assert done.returncode == pytest.ExitCode.OK, done.stdout
    assert "1 passed, 1 skipped, 1 xfailed" in done.stdout
    assert "conformance tests skipped" not in done.stdout


@pytest.mark.parametrize("folder", ["tiny", "conformance"])
def test_the_guard_holds_when_workers_run_the_tests(tmp_path: Path, folder: str) -> None:
    """Under pytest-xdist (the suite's default) the controller sees only reports."""
    pytest.importorskip("xdist")
    body = (
        "pytest.importorskip('no_such_module_here')\n\n"
        "pytestmark = pytest.mark.conformance\n\n"
        "def test_evidence():\n"
        "    pass\n"
        if folder == "conformance"
        else "@pytest.mark.conformance\n"
        "def test_evidence():\n"
        "    pytest.skip('the expected file is missing')\n\n"
        "def test_other():\n"
        "    pass\n"
    )
    done = _run(tmp_path, body, folder=folder, extra=("-n", "2"))
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "conformance tests skipped" in done.stdout
