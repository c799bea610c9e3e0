"""ranklens: exact, fast evaluation of ranking and other machine-learned systems.

>>> import ranklens
>>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 2, "d2": 0, "d3": 1}})
>>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}})
>>> ranklens.evaluate(qrels, run, ["p@1", "mrr"]).summary()
{'p@1': 1.0, 'mrr': 1.0}
"""

from typing import TYPE_CHECKING

from ranklens._version import __version__ as __version__
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
from ranklens.metrics import REGISTRY, Metric, get_metric
from ranklens.ranking.conventions import PROFILES, Conventions
from ranklens.ranking.cutoffs import CutoffResult, PRCurve, evaluate_cutoffs, precision_recall_curve
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, evaluate
from ranklens.ranking.evaluator import Evaluator

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


if TYPE_CHECKING:  # for type checkers; at run time they come from __getattr__
    from ranklens.gates import gate
    from ranklens.ranking.files import evaluate_files
    from ranklens.render.html import html_report

# functions whose modules are imported on first use (importing ranklens stays light)
_LAZY = {
    "evaluate_files": "ranklens.ranking.files",  # reading (and streaming) files
    "gate": "ranklens.gates",  # regression gates
    "html_report": "ranklens.render.html",  # the HTML report
}


def __getattr__(name: str) -> object:
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in FAMILIES:
        return importlib.import_module(f"ranklens.{name}")
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
