"""The metric catalogue: every metric of every family, its names and kernel.

:mod:`ranklens.metrics.catalogue` declares them; use :func:`get_metric` to
parse a name and :data:`REGISTRY` to list them.  Kernels load on first use.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.metrics.registry import REGISTRY, Metric, MetricDef, Param, get_metric
    from ranklens.metrics.trec_names import expand_trec_name

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.metrics.registry": ("REGISTRY", "Metric", "MetricDef", "Param", "get_metric"),
        "ranklens.metrics.trec_names": ("expand_trec_name",),
    },
)

__all__ = ["REGISTRY", "Metric", "MetricDef", "Param", "expand_trec_name", "get_metric"]
