"""Fixtures shared by the test packages (helpers and random-case generators live in
``tests/helpers.py``, importable as ``tests.helpers``)."""

from __future__ import annotations

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
        return (read_trec_qrels(CONFORMANCE / "qrels.rel_level"),
                read_trec_run(CONFORMANCE / "results.test"))
    rng = np.random.default_rng(5)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 4)) for j in range(30)} for i in range(5)}
    run = {f"q{i}": {f"d{j}": float(rng.integers(0, 9)) for j in range(40)} for i in range(5)}
    return ranklens.Qrels.from_dict(qrels), ranklens.Run.from_dict(run)
