"""ranklens: exact, fast evaluation of ranking and other machine-learned systems.

>>> import ranklens
>>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 2, "d2": 0, "d3": 1}})
>>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}})
>>> ranklens.evaluate(qrels, run, ["p@1", "mrr"]).summary()
{'p@1': 1.0, 'mrr': 1.0}
"""

from ranklens.comparison import Comparison, compare
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
from ranklens.gates import gate
from ranklens.metrics import REGISTRY, Metric, get_metric
from ranklens.ranking.conventions import PROFILES, Conventions
from ranklens.ranking.cutoffs import CutoffResult, PRCurve, evaluate_cutoffs, precision_recall_curve
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, evaluate
from ranklens.ranking.evaluator import Evaluator

__version__ = "0.1.0"

# metric families outside ranking, imported on first use (they load scikit-learn/scipy)
FAMILIES = ("classification", "regression", "clustering", "entity_resolution", "detection",
            "online", "recsys")


def __getattr__(name: str) -> object:
    if name == "evaluate_files":  # reading files: imported on first use
        from ranklens.io.stream import evaluate_files

        return evaluate_files
    if name in FAMILIES:
        import importlib

        return importlib.import_module(f"ranklens.{name}")
    if name == "html_report":  # loaded on first use (the report's modules are not small)
        from ranklens.render.html import html_report

        return html_report
    raise AttributeError(f"module 'ranklens' has no attribute {name!r}")


__all__ = [
    "FAMILIES",
    "PROFILES",
    "REGISTRY",
    "Comparison",
    "ConventionError",
    "Conventions",
    "CutoffResult",
    "DuplicateError",
    "Evaluator",
    "FormatError",
    "InputError",
    "Metric",
    "MetricNameError",
    "MetricParameterError",
    "PRCurve",
    "Qrels",
    "RanklensDeprecationWarning",
    "RanklensError",
    "RanklensWarning",
    "Result",
    "Run",
    "UnsupportedError",
    "compare",
    "evaluate",
    "evaluate_cutoffs",
    "evaluate_files",
    "gate",
    "get_metric",
    "html_report",
    "precision_recall_curve",
]
