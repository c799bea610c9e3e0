"""Metrics at every cutoff and precision-recall curves.

:func:`evaluate_cutoffs` returns metrics at every k = 1..K.  It runs the very
kernels :func:`ranklens.evaluate` runs, through the same evaluation path, with
k given as the vector of cutoffs: the kernels that take a vector
(P, R, F, AP, nDCG, DCG, CG, RR, success, ARHR, ERR, RBP, ...) return one
column per cutoff in one pass; the others are called once per cutoff.  So
``evaluate_cutoffs(...).values[m][:, k - 1]`` equals
``evaluate(..., f"{m}@{k}")`` for every k (tested over the whole catalogue).

:func:`precision_recall_curve` returns precision and recall at every rank of
every query, and interpolated precision at recall levels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.deps import needs
from ranklens.errors import MetricNameError, MetricParameterError, UnsupportedError
from ranklens.metrics import REGISTRY, Metric, get_metric
from ranklens.ranking.conventions import Conventions, resolve_conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import prepare
from ranklens.ranking.evaluation import (
    Job,
    aggregate,
    check_tables,
    metric_list,
    plan_params,
    run_jobs,
)
from ranklens.ranking.kernels.binary import _iprec_levels, _thr

__all__ = [
    "CUTOFF_FAMILIES",
    "CutoffResult",
    "PRCurve",
    "evaluate_cutoffs",
    "precision_recall_curve",
]

# the ranking metrics that take an integer cutoff k
CUTOFF_FAMILIES = tuple(
    d.name
    for d in REGISTRY.values()
    if d.domain == "ranking" and d.cutoff in ("optional", "required")
)


@dataclass(frozen=True)
class CutoffResult:
    """Per-query values of each metric at k = 1..K.

    ``values[metric]`` is a (queries x K) array; column ``k - 1`` holds
    ``metric@k``.  ``curve(metric)`` aggregates over queries at every k, as
    :meth:`ranklens.Result.summary` does (mean, NaN left out).
    """

    metrics: tuple[str, ...]
    ks: np.ndarray
    query_ids: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    conventions: Conventions
    parsed: Mapping[str, Metric] | None = None

    def curve(self, metric: str) -> np.ndarray:
        """Aggregate over queries of ``metric`` at k = 1..K."""
        how = self.parsed[metric].aggregation(self.conventions) if self.parsed else "mean"
        values = self.values[metric]
        return np.array([aggregate(values[:, j], how) for j in range(values.shape[1])])

    def summary(self) -> dict[str, dict[int, float]]:
        """``{metric: {k: mean}}``."""
        return {
            m: dict(zip(self.ks.tolist(), self.curve(m).tolist(), strict=True))
            for m in self.metrics
        }

    def to_frame(self) -> Any:
        """Long table (pandas): metric, k, mean."""
        with needs("pandas", "ranklens.ranking.cutoffs.to_frame"):
            import pandas as pd

        rows = [
            (m, int(k), float(v))
            for m in self.metrics
            for k, v in zip(self.ks, self.curve(m), strict=True)
        ]
        return pd.DataFrame(rows, columns=["metric", "k", "mean"])


def _conv(
    profile: str | None, conventions: Conventions | None, overrides: dict[str, Any]
) -> Conventions:
    return resolve_conventions(conventions, profile, overrides)


def evaluate_cutoffs(
    qrels: Qrels,
    run: Run,
    metrics: Iterable[str] = ("p", "r", "ndcg", "ap"),
    max_k: int = 100,
    *,
    profile: str | None = None,
    conventions: Conventions | None = None,
    **overrides: Any,
) -> CutoffResult:
    """Every metric in ``metrics`` at every cutoff k = 1..``max_k``.

    ``metrics`` are names without a cutoff, with parameters if needed:
    ``"ndcg(gain=exp2)"``, ``"ap(norm=min_r_k)"``, ``"p(rel=2)"``.  Every
    ranking metric that takes an integer cutoff is supported
    (:data:`CUTOFF_FAMILIES`).  Conventions as in :func:`ranklens.evaluate`,
    and the values are those of :func:`ranklens.evaluate` with ``metric@k``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 1, "d9": 1}})
    >>> r = ranklens.Run.from_dict({"q1": {"d1": .9, "d2": .8, "d3": .7}})
    >>> ranklens.evaluate_cutoffs(q, r, ["ap(norm=k)"], 3).summary()["ap(norm=k)"][2]
    0.5
    """
    if isinstance(max_k, bool) or not isinstance(max_k, (int, np.integer)) or max_k < 1:
        raise MetricParameterError(f"max_k must be a positive integer, got {max_k!r}.")
    check_tables(qrels, run)
    conv = _conv(profile, conventions, overrides)
    names = metric_list(metrics)
    if not names:
        raise MetricNameError("no metric given: pass at least one, e.g. ['ndcg', 'p'].")
    ks = np.arange(1, int(max_k) + 1, dtype=np.int64)
    parsed: dict[str, Metric] = {}
    jobs: list[Job] = []
    for name in names:
        m = get_metric(name, every_cutoff=True)
        key = str(name)
        if m.k is not None:
            raise MetricParameterError(
                f"in metric {name!r}: evaluate_cutoffs computes every k = 1..max_k; give the "
                f"metric without '@k' (e.g. {m.name!r})."
            )
        if m.name not in CUTOFF_FAMILIES:
            raise UnsupportedError(
                f"metric {name!r} takes no integer cutoff, so it has no value at every k; "
                f"choose from {', '.join(CUTOFF_FAMILIES)}."
            )
        if key in parsed:
            raise MetricNameError(f"metric {key!r} given more than once.")
        parsed[key] = m
        jobs.append(Job(key, m, plan_params(key, m, conv, cutoff=ks), ks))
    out = run_jobs(qrels, run, conv, jobs, stacklevel=3)
    return CutoffResult(
        tuple(parsed), ks, tuple(out.query_ids.to_pylist()), out.values, conv, parsed
    )


@dataclass(frozen=True)
class PRCurve:
    """Precision and recall at every rank, and interpolated precision.

    ``query``, ``rank``, ``precision``, ``recall`` are flat arrays, one entry per
    retrieved document of each query.  ``levels`` and ``interpolated`` (queries
    x levels) hold trec_eval-style interpolated precision at recall levels;
    ``mean_interpolated`` its mean over queries (trec_eval
    ``iprec_at_recall``).
    """

    query_ids: tuple[str, ...]
    query: np.ndarray
    rank: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    levels: np.ndarray
    interpolated: np.ndarray

    @property
    def mean_interpolated(self) -> np.ndarray:
        return self.interpolated.mean(axis=0)

    def to_frame(self) -> Any:
        """Per-rank points as a pandas DataFrame (query, rank, precision, recall)."""
        with needs("pandas", "ranklens.ranking.cutoffs.to_frame"):
            import pandas as pd

        ids = np.asarray(self.query_ids, dtype=object)
        return pd.DataFrame(
            {
                "query": ids[self.query],
                "rank": self.rank,
                "precision": self.precision,
                "recall": self.recall,
            }
        )


def precision_recall_curve(
    qrels: Qrels,
    run: Run,
    levels: Iterable[float] | None = None,
    *,
    rel: float | None = None,
    profile: str | None = None,
    conventions: Conventions | None = None,
    **overrides: Any,
) -> PRCurve:
    """Precision and recall after every rank of every query, plus interpolated
    precision at ``levels`` (default 0.0, 0.1, ..., 1.0)."""
    check_tables(qrels, run)
    conv = _conv(profile, conventions, overrides)
    if conv.ties in ("expected", "grouped"):
        raise UnsupportedError(
            "precision_recall_curve needs an ordering tie policy (trec, input, optimistic, "
            "pessimistic)."
        )
    lv = np.array([i / 10 for i in range(11)] if levels is None else list(levels), dtype=float)
    if lv.size == 0 or (lv < 0).any() or (lv > 1).any():
        raise MetricParameterError("recall levels must be a non-empty list of numbers in [0, 1].")
    prep = prepare(qrels, run, conv)
    params = {"rel": rel, "ties": conv.ties}
    thr = _thr(prep, params)
    b = prep.is_rel(thr)
    cum = prep.seg_cumsum_int(b.astype(np.int64))
    rank = prep.pos + 1
    precision = cum / rank
    nrel = prep.num_rel(thr).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(nrel[prep.seg] > 0, cum / np.where(nrel > 0, nrel, 1.0)[prep.seg], 0.0)
    interp = (
        np.vstack(_iprec_levels(prep, lv.tolist(), params)).T
        if prep.n_queries
        else (np.zeros((0, lv.size)))
    )
    return PRCurve(tuple(prep.query_ids.to_pylist()), prep.seg, rank, precision, recall, lv, interp)
