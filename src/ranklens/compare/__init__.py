"""Comparing systems: paired significance tests, confidence intervals, effect sizes.

>>> from ranklens.compare import compare, Comparison   # doctest: +SKIP
>>> cmp = compare(qrels, {"bm25": run_a, "dense": run_b}, ["ndcg@10", "map"],
...               baseline="bm25", test="randomization", correction="holm", seed=42)
... # doctest: +SKIP
>>> print(cmp.render("markdown"))                      # doctest: +SKIP

After ``import ranklens.compare`` the module itself is callable, so
``ranklens.compare(qrels, runs, metrics, ...)`` works as well.

:mod:`ranklens.compare.stats` holds the tests and intervals (formulas and
citations there); :mod:`ranklens.compare.render` the table formats.  scipy and
statsmodels are imported only when a test or interval needs them.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from ranklens.compare.comparison import Comparison, PairTest, compare
from ranklens.compare.stats import (
    CI_METHODS,
    CORRECTIONS,
    TESTS,
    bootstrap_test,
    cohens_d_paired,
    correct,
    mean_ci,
    paired_ttest,
    randomization_test,
    wilcoxon_test,
)

__all__ = [
    "CI_METHODS",
    "CORRECTIONS",
    "TESTS",
    "Comparison",
    "PairTest",
    "bootstrap_test",
    "cohens_d_paired",
    "compare",
    "correct",
    "mean_ci",
    "paired_ttest",
    "randomization_test",
    "wilcoxon_test",
]


class _CallableModule(types.ModuleType):
    """Lets ``ranklens.compare(...)`` call :func:`compare` once the module is imported."""

    def __call__(self, *args: Any, **kwargs: Any) -> Comparison:
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
