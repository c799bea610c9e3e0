"""The metric catalogue: one registry of every metric, its names and kernel.

Importing this package registers the ranking metrics.  Use
:func:`get_metric` to parse a name and :data:`REGISTRY` to list them.
"""

from ranklens.metrics import binary, graded, order, trec  # noqa: F401  (registration)
from ranklens.metrics.registry import REGISTRY, Metric, MetricDef, Param, get_metric
from ranklens.metrics.trec_names import expand_trec_name

__all__ = ["REGISTRY", "Metric", "MetricDef", "Param", "expand_trec_name", "get_metric"]
