"""A pytest plugin: a session in which a ``conformance`` test was skipped fails.

The ``conformance`` tests need nothing beyond the repository (the fixtures and
expected outputs under ``tests/conformance``), so a skip means the evidence for
the README's claims was not checked.  A test module in a folder named
``conformance`` that skips as a whole when collected (``pytest.importorskip`` at
the top) counts too: its tests would otherwise vanish without a skipped test.
``tests/conftest.py`` loads these hooks.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

SKIPPED = pytest.StashKey[list[str]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and not hasattr(report, "wasxfail")
        and item.get_closest_marker("conformance") is not None
    ):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        item.config.stash.setdefault(SKIPPED, []).append(f"{item.nodeid}: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    if (
        report.skipped
        and isinstance(collector, pytest.Module)
        and collector.path.parent.name == "conformance"
    ):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        collector.config.stash.setdefault(SKIPPED, []).append(f"{report.nodeid}: {reason}")


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
