"""A pytest plugin: a session in which a ``conformance`` test was skipped fails.

The ``conformance`` tests need nothing beyond the repository (the fixtures and
expected outputs under ``tests/conformance``), so a skip means the evidence for
the README's claims was not checked.  A test module in a folder named
``conformance`` that skips as a whole when collected (``pytest.importorskip`` at
the top) counts too: its tests would otherwise vanish without a skipped test.
``tests/conftest.py`` loads these hooks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

SKIPPED = pytest.StashKey[list[str]]()
_CONFIG: list[pytest.Config] = []  # the session's config (hooks below get only the report)


def pytest_configure(config: pytest.Config) -> None:
    _CONFIG[:] = [config]


def _record(nodeid: str, longrepr: Any) -> None:
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    _CONFIG[0].stash.setdefault(SKIPPED, []).append(f"{nodeid}: {reason}")


# Reports rather than items: with pytest-xdist the workers run the tests and the
# controller, which decides the exit status, sees only their reports (the markers
# travel in ``report.keywords``; a skipped module's collect report is forwarded too).
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail") and "conformance" in report.keywords:
        _record(report.nodeid, report.longrepr)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    path = report.nodeid.split("::")[0]
    if report.skipped and path.endswith(".py") and Path(path).parent.name == "conformance":
        _record(report.nodeid, report.longrepr)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if session.config.stash.get(SKIPPED, []) and session.exitstatus in (
        pytest.ExitCode.OK,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    ):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    skipped = config.stash.get(SKIPPED, [])
    if not skipped:
        return
    terminalreporter.section("conformance tests skipped", red=True)
    for line in skipped:
        terminalreporter.write_line(line)
    terminalreporter.write_line(
        f"{len(skipped)} conformance test(s) skipped: they need only what is in the "
        "repository and must run, so this session fails."
    )
