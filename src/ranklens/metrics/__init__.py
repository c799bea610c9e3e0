"""The metric catalogue: every metric of every family, its names and kernel.

:mod:`ranklens.metrics.catalogue` declares them; use :func:`get_metric` to
parse a name and :data:`REGISTRY` to list them; :func:`metric_table` lists every metric of every
family as records and :func:`describe` documents one.  Kernels load on first use.
"""

from ranklens.metrics.listing import describe, metric_table
from ranklens.metrics.registry import REGISTRY, Metric, MetricDef, Param, get_metric
from ranklens.metrics.trec_names import expand_trec_name

__all__ = [
    "REGISTRY",
    "Metric",
    "MetricDef",
    "Param",
    "describe",
    "expand_trec_name",
    "get_metric",
    "metric_table",
]
