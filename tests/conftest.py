"""Fixtures shared by the test packages (helpers and random-case generators live in
``tests/helpers.py``, importable as ``tests.helpers``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import ranklens
from ranklens.io import read_trec_qrels, read_trec_run

# a session in which a `conformance` test was skipped fails (tests/conformance/skip_guard.py)
from tests.conformance.skip_guard import (  # noqa: F401
    pytest_collectreport,
    pytest_configure,
    pytest_runtest_logreport,
    pytest_sessionfinish,
    pytest_terminal_summary,
)
from tests.helpers import REPO


@pytest.fixture(scope="session")
def trec_case() -> tuple[ranklens.Qrels, ranklens.Run]:
    """The graded conformance case with odd ids and tied scores
    (``tests/conformance/data/ids.qrels``, ``ids.run``; every run query is judged)."""
    data = REPO / "tests" / "conformance" / "data"
    return read_trec_qrels(data / "ids.qrels"), read_trec_run(data / "ids.run")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local Spark session for every test that needs one (``local[2]``, few shuffle
    partitions, no UI, quiet).  Skips where pyspark or a Java runtime is missing."""
    import shutil
    import sys
    import warnings

    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("pyspark needs a Java runtime and there is no `java` on PATH")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYSPARK_PYTHON", sys.executable)  # Python workers run this interpreter
        with warnings.catch_warnings():
            # pyspark's own FutureWarnings (pandas 3, SQLContext) are not ours to fail on
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            from pyspark.sql import SparkSession

            session = (
                SparkSession.builder.master("local[2]")
                .appName("ranklens-tests")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.shuffle.partitions", "3")
                .config("spark.default.parallelism", "2")
                .config("spark.driver.memory", "768m")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .getOrCreate()
            )
            session.sparkContext.setLogLevel("ERROR")
        try:
            yield session
        finally:
            session.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that uses the ``spark`` session runs on one pytest-xdist worker
    (``--dist loadgroup``), so the suite starts one JVM, not one per worker."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
