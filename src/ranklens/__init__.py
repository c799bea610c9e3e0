"""ranklens: exact, fast evaluation of ranking and other machine-learned systems.

>>> import ranklens
>>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 2, "d2": 0, "d3": 1}})
>>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}})
>>> ranklens.evaluate(qrels, run, ["p@1", "mrr"]).summary()
{'p@1': 1.0, 'mrr': 1.0}
"""

from ranklens._shared.lazy import lazy_exports
from ranklens._version import __version__ as __version__
from ranklens.errors import (
    ConventionError,
    DuplicateError,
    FormatError,
    InputError,
    MetricNameError,
    MetricParameterError,
    RanklensDeprecationWarning,
    RanklensError,
    RanklensWarning,
    UnsupportedError,
)

# metric families outside ranking, imported on first use (they load scikit-learn/scipy)
FAMILIES = (
    "classification",
    "regression",
    "clustering",
    "entity_resolution",
    "detection",
    "online",
    "recsys",
)

# ``typing`` is not imported for this (it costs a few ms): type checkers take any name
# TYPE_CHECKING as true
TYPE_CHECKING = False
if TYPE_CHECKING:  # for type checkers and readers; at run time they come from __getattr__
    from ranklens.comparison.systems import Comparison, compare
    from ranklens.gates.core import gate
    from ranklens.metrics.registry import REGISTRY, Metric, get_metric
    from ranklens.ranking.bounds import JudgedBounds, judged_bounds
    from ranklens.ranking.conventions import PROFILES, Conventions
    from ranklens.ranking.cutoffs import (
        CutoffResult,
        PRCurve,
        evaluate_cutoffs,
        precision_recall_curve,
    )
    from ranklens.ranking.data import Qrels, Run
    from ranklens.ranking.evaluation import Result, evaluate
    from ranklens.ranking.evaluator import Evaluator
    from ranklens.ranking.files import evaluate_files
    from ranklens.ranking.intents import DiversityQrels
    from ranklens.ranking.overlap import OverlapResult, compare_runs
    from ranklens.render.html import html_report

# Every public name but the exception types is imported on first use, from its module
# (PEP 562), so that ``import ranklens`` loads neither numpy nor pyarrow: a command or a
# script pays only for what it uses.  ``dir(ranklens)`` and ``__all__`` list them all.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.comparison.systems": ("Comparison", "compare"),
        "ranklens.gates.core": ("gate",),
        "ranklens.ranking.files": ("evaluate_files",),
        "ranklens.metrics.registry": ("REGISTRY", "Metric", "get_metric"),
        "ranklens.ranking.conventions": ("PROFILES", "Conventions"),
        "ranklens.ranking.cutoffs": (
            "CutoffResult",
            "PRCurve",
            "evaluate_cutoffs",
            "precision_recall_curve",
        ),
        "ranklens.ranking.data": ("Qrels", "Run"),
        "ranklens.ranking.intents": ("DiversityQrels",),
        "ranklens.ranking.bounds": ("JudgedBounds", "judged_bounds"),
        "ranklens.ranking.evaluation": ("Result", "evaluate"),
        "ranklens.ranking.evaluator": ("Evaluator",),
        "ranklens.ranking.overlap": ("OverlapResult", "compare_runs"),
        "ranklens.render.html": ("html_report",),
    },
    # the subpackages, as ``ranklens.comparison``, ``ranklens.online`` etc. (imported on
    # first use too; the metric families outside ranking load scikit-learn/scipy)
    (*FAMILIES, "comparison", "gates", "history", "io", "metrics", "ranking", "render", "spark"),
)

__all__ = [
    "FAMILIES",
    "PROFILES",
    "REGISTRY",
    "Comparison",
    "ConventionError",
    "Conventions",
    "CutoffResult",
    "DiversityQrels",
    "DuplicateError",
    "Evaluator",
    "FormatError",
    "InputError",
    "JudgedBounds",
    "Metric",
    "MetricNameError",
    "MetricParameterError",
    "OverlapResult",
    "PRCurve",
    "Qrels",
    "RanklensDeprecationWarning",
    "RanklensError",
    "RanklensWarning",
    "Result",
    "Run",
    "UnsupportedError",
    "compare",
    "compare_runs",
    "evaluate",
    "evaluate_cutoffs",
    "evaluate_files",
    "gate",
    "get_metric",
    "html_report",
    "judged_bounds",
    "precision_recall_curve",
]
