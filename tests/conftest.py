"""Fixtures shared by the test packages (helpers and random-case generators live in
``tests/helpers.py``, importable as ``tests.helpers``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.io import read_trec_qrels, read_trec_run
from tests.helpers import CONFORMANCE


@pytest.fixture(scope="session")
def trec_case() -> tuple[ranklens.Qrels, ranklens.Run]:
    """trec_eval's graded test case (``qrels.rel_level``, ``results.test``), or a random
    graded case with tied scores where ``../shared/conformance`` is absent."""
    if CONFORMANCE.is_dir():
        return (
            read_trec_qrels(CONFORMANCE / "qrels.rel_level"),
            read_trec_run(CONFORMANCE / "results.test"),
        )
    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 4)) for j in range(30)} for i in range(5)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 9)) for j in range(40)} for i in range(5)}
    return ranklens.Qrels.from_dict(qrels), ranklens.Run.from_dict(run)


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
