"""Result types of :func:`ranklens.online.analyze`."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.deps import needs
from ranklens.errors import InputError
from ranklens.online.metrics import OnlineMetric
from ranklens.online.stats import SRMResult

__all__ = [
    "DataReport",
    "ExperimentAnalysis",
    "GroupEstimate",
    "MetricComparison",
    "SequentialTrace",
]


# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GroupEstimate:
    """A metric's value in one variant: ``estimate ± std_error`` over ``n`` units."""

    metric: str
    variant: str
    n: int
    estimate: float
    std_error: float


@dataclass(frozen=True)
class MetricComparison:
    """One metric, one variant against the control.

    ``diff``/``ci_*`` are absolute (metric units), ``rel_*`` relative to the
    control (0.05 = +5%); ``p_adjusted`` is corrected for all comparisons of
    the analysis.  With sequential monitoring, ``seq_p_value`` is the
    always-valid p-value and ``cs_lower``/``cs_upper`` the confidence
    sequence of the absolute difference at the last look.  ``verdict`` is
    ``"increase"``, ``"decrease"`` (significant at ``alpha`` after the
    correction), ``"inconclusive"`` or ``"not computed"`` (see ``note``).
    """

    metric: str
    kind: str
    variant: str
    control: str
    test: str
    n: int
    n_control: int
    estimate: float
    control_estimate: float
    diff: float
    ci_lower: float
    ci_upper: float
    rel_diff: float
    rel_ci_lower: float
    rel_ci_upper: float
    statistic: float
    p_value: float
    p_adjusted: float
    verdict: str
    cuped_theta: float | None = None
    variance_reduction: float | None = None
    seq_p_value: float | None = None
    seq_p_adjusted: float | None = None
    cs_lower: float | None = None
    cs_upper: float | None = None
    note: str = ""


@dataclass(frozen=True)
class SequentialTrace:
    """The sequential test of one comparison, look by look."""

    metric: str
    variant: str
    tau: float
    looks: tuple[Any, ...]
    diff: tuple[float, ...]
    variance: tuple[float, ...]
    p_value: tuple[float, ...]
    cs_lower: tuple[float, ...]
    cs_upper: tuple[float, ...]


@dataclass(frozen=True)
class DataReport:
    """What the analysis did with the input rows."""

    exposure_rows: int
    exposed_units: int
    analysed_units: int
    units_per_variant: dict[str, int]
    multiple_exposures: str
    multiple_variant_units: int
    multiple_variant_examples: tuple[str, ...]
    unknown_variants: tuple[str, ...]
    unknown_variant_rows: int
    event_rows: int
    unexposed_event_rows: int
    unexposed_units: int
    unexposed_examples: tuple[str, ...]
    pre_exposure_event_rows: int
    empty_variants: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True, eq=False)
class ExperimentAnalysis:
    """Result of :func:`analyze`."""

    control: str
    variants: tuple[str, ...]
    metrics: tuple[OnlineMetric, ...]
    alpha: float
    correction: str
    comparisons: tuple[MetricComparison, ...]
    groups: tuple[GroupEstimate, ...]
    srm: SRMResult
    report: DataReport
    sequential: tuple[SequentialTrace, ...] | None
    warnings: tuple[str, ...]

    def get(self, metric: str, variant: str) -> MetricComparison:
        """The comparison of ``variant`` with the control on ``metric`` (by name)."""
        for c in self.comparisons:
            if c.metric == metric and c.variant == variant:
                return c
        raise InputError(
            f"no comparison for metric {metric!r} and variant {variant!r}; metrics are "
            f"{[m.name for m in self.metrics]}, treatment variants "
            f"{[v for v in self.variants if v != self.control]}."
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready nested dict (NaN and infinities become None)."""
        out: dict[str, Any] = {
            "control": self.control,
            "variants": list(self.variants),
            "metrics": [
                {"name": m.name, "definition": str(m), "kind": m.kind} for m in self.metrics
            ],
            "alpha": self.alpha,
            "correction": self.correction,
            "srm": asdict(self.srm),
            "data": asdict(self.report),
            "groups": [asdict(g) for g in self.groups],
            "comparisons": [asdict(c) for c in self.comparisons],
            "warnings": list(self.warnings),
        }
        if self.sequential is not None:
            out["sequential"] = [asdict(s) for s in self.sequential]
        return _clean(out)

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as strict JSON."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    def to_arrow(self) -> pa.Table:
        """One row per comparison."""
        rows = [asdict(c) for c in self.comparisons]
        names = list(MetricComparison.__dataclass_fields__)
        return pa.table({k: [r[k] for r in rows] for k in names})

    def to_frame(self) -> Any:
        """One row per comparison, as a pandas DataFrame."""
        with needs("pandas", "ExperimentAnalysis.to_frame()"):
            return self.to_arrow().to_pandas()

    def render(self, fmt: str = "table", color: bool | None = None) -> str:
        """The analysis as text: ``table``, ``markdown``, ``latex``, ``csv`` or ``json``
        (see :mod:`ranklens.render.online`)."""
        from ranklens.render.online import render

        return render(self, fmt, color=color)


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, (np.floating, np.integer, np.bool_)):
        return _clean(obj.item())
    return obj
