"""Comparing systems: paired significance tests, confidence intervals, effect sizes.

>>> from ranklens.comparison import compare, Comparison   # doctest: +SKIP
>>> cmp = compare(qrels, {"bm25": run_a, "dense": run_b}, ["ndcg@10", "map"],
...               baseline="bm25", test="randomization", correction="holm", seed=42)
... # doctest: +SKIP
>>> print(cmp.render("markdown"))                      # doctest: +SKIP

The function is also ``ranklens.compare``; the package is named
``ranklens.comparison`` so that no module hides behind a function of its name.

:mod:`ranklens.comparison.stats` holds the tests and intervals (formulas and
citations there); :mod:`ranklens.comparison.systems` the :class:`Comparison`
result; :mod:`ranklens.render.comparison` its table formats.  scipy and
statsmodels are imported only when a test or interval needs them.
"""

from __future__ import annotations

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.comparison.power import (
        PowerCheck,
        minimum_detectable_difference,
        paired_power,
        power_check,
        topic_set_size,
    )
    from ranklens.comparison.stats import (
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
    from ranklens.comparison.systems import Comparison, PairTest, compare

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.comparison.power": (
            "PowerCheck",
            "minimum_detectable_difference",
            "paired_power",
            "power_check",
            "topic_set_size",
        ),
        "ranklens.comparison.stats": (
            "CI_METHODS",
            "CORRECTIONS",
            "TESTS",
            "bootstrap_test",
            "cohens_d_paired",
            "correct",
            "mean_ci",
            "paired_ttest",
            "randomization_test",
            "wilcoxon_test",
        ),
        "ranklens.comparison.systems": ("Comparison", "PairTest", "compare"),
    },
)

__all__ = [
    "CI_METHODS",
    "CORRECTIONS",
    "TESTS",
    "Comparison",
    "PairTest",
    "PowerCheck",
    "bootstrap_test",
    "cohens_d_paired",
    "compare",
    "correct",
    "mean_ci",
    "minimum_detectable_difference",
    "paired_power",
    "paired_ttest",
    "power_check",
    "randomization_test",
    "topic_set_size",
    "wilcoxon_test",
]
