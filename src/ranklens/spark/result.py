"""The result of an evaluation on Spark: per-query values as a Spark DataFrame, the
summary computed in Spark, and the local :class:`~ranklens.Result` when it fits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.arrow import to_numpy
from ranklens._shared.validate import check_int
from ranklens.errors import InputError, MetricNameError
from ranklens.metrics import Metric, get_metric
from ranklens.ranking.conventions import Conventions
from ranklens.ranking.evaluation import Computed, Plan, Result
from ranklens.ranking.evaluator import combine
from ranklens.recsys.interactions import InteractionEvaluation
from ranklens.spark._tasks import Joined, collect_arrow, column

__all__ = ["SparkInteractionEvaluation", "SparkResult"]


class SparkResult:
    """Per-query values of every metric as a Spark DataFrame, their aggregates and how
    they were made (the Spark counterpart of :class:`ranklens.Result`).

    - :meth:`to_frame`: the per-query values, one row per query, a column named like
      the ``query`` column given, then one double column per metric, named exactly by the
      metric strings given (Spark reads names such as ``ndcg@10`` or ``P.5`` in
      backticks).  The values are those of :func:`ranklens.evaluate` bit for bit
      (the same kernels on the same rows of each query); the frame is persisted until
      :meth:`unpersist`.
    - :meth:`summary`: the aggregates, computed in Spark with the evaluation: each task
      adds its queries' values (NumPy, as locally) and the driver adds the tasks' sums
      exactly (``math.fsum``), rounding once.  Only the order of summation differs from
      the local one, so a mean may differ from the local mean in the last bits: by at
      most ``n * 2**-53`` times the mean absolute value over ``n`` queries (the bound of
      any order of summation), in practice one or two units in the last place; counts
      are exact.  :meth:`to_result` gives the local numbers exactly.
    - ``report``: the counts of :attr:`ranklens.Result.report`, equal to the local ones.
    - :meth:`to_result`: the local :class:`ranklens.Result` (for ``compare``, plots and
      reports), collecting the per-query table to the driver.
    """

    def __init__(
        self, plan: Plan, joined: Joined, report: dict[str, int], run_name: str | None = None
    ) -> None:
        self._plan = plan
        self._joined = joined
        self.report = report
        self.run_name = run_name

    @property
    def metrics(self) -> tuple[str, ...]:
        return self._plan.keys

    @property
    def parsed(self) -> dict[str, Metric]:
        return self._plan.parsed

    @property
    def conventions(self) -> Conventions:
        return self._plan.conventions

    def to_frame(self) -> Any:
        """The per-query values as a Spark DataFrame (see the class)."""
        return self._joined.values

    def summary(self) -> dict[str, float]:
        """``{metric: aggregate}`` (mean, or sum / geometric mean where the metric says;
        NaN where no query has a defined value), from the partial aggregates the Spark
        tasks computed with the evaluation."""
        return {
            m: self._joined.aggregate(m, self.parsed[m].aggregation(self.conventions))
            for m in self.metrics
        }

    def __getitem__(self, metric: str) -> float:
        if metric not in self.parsed:
            want = get_metric(metric)
            found = [m for m, p in self.parsed.items() if p == want]
            if not found:
                raise MetricNameError(
                    f"metric {metric!r} was not evaluated; the result has {list(self.metrics)}."
                )
            metric = found[0]
        return self.summary()[metric]

    def to_result(self, *, max_queries: int = 20_000_000) -> Result:
        """The local :class:`ranklens.Result`: every value, the query order, the summary
        and the report of :func:`ranklens.evaluate` on the same rows, exactly.  Collects
        the per-query table to the driver (about ``8 * (metrics + 2)`` bytes a query);
        more than ``max_queries`` queries raise :class:`InputError` instead."""
        check_int("max_queries", max_queries, where="SparkResult.to_result")
        frame = self._joined.values
        n = self.report.get("queries_evaluated", 0)  # the rows of the frame
        if n > max_queries:
            raise InputError(
                f"SparkResult.to_result: {n} queries are more than max_queries="
                f"{max_queries}; raise max_queries= if the driver has the memory, or use "
                "summary() and to_frame(), which stay in Spark."
            )
        table = collect_arrow(frame)
        ids = column(table, table.column_names[0])
        values = {m: np.array(to_numpy(column(table, m)), dtype=np.float64) for m in self.metrics}
        return combine(self._plan, [Computed(ids, values, dict(self.report))], self.run_name)

    def unpersist(self) -> None:
        """Release the per-query values Spark keeps (the frame is recomputed if used
        after this)."""
        self._joined.persisted.unpersist()

    def __repr__(self) -> str:
        return f"<SparkResult {list(self.metrics)} under profile {self.conventions.profile!r}>"


@dataclass(frozen=True)
class SparkInteractionEvaluation:
    """The :class:`SparkResult` over users and what the recommender conventions did (the
    Spark counterpart of :class:`ranklens.recsys.InteractionEvaluation`)."""

    result: SparkResult
    report: dict[str, int]

    def summary(self) -> dict[str, float]:
        return self.result.summary()

    def to_local(self, *, max_queries: int = 20_000_000) -> InteractionEvaluation:
        """The local :class:`~ranklens.recsys.InteractionEvaluation` (see
        :meth:`SparkResult.to_result`)."""
        return InteractionEvaluation(
            self.result.to_result(max_queries=max_queries), dict(self.report)
        )
