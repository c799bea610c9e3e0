"""Metrics at every cutoff and precision-recall curves.

:func:`evaluate_cutoffs` returns P, R, F1, AP, nDCG, DCG, success, RR and
ARHR at every k = 1..K in one pass: the top-K of each ranking is laid out
as a dense (queries x K) matrix and every metric is a cumulative sum along
its rows, so all K cutoffs cost about as much as one.  Values equal those
of :func:`ranklens.evaluate` with ``metric@k`` for each k (tested).

:func:`precision_recall_curve` returns precision and recall at every rank of
every query, and interpolated precision at recall levels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.conventions import Conventions, resolve_conventions
from ranklens.data import Qrels, Run
from ranklens.engine import Prepared, prepare
from ranklens.errors import MetricParameterError, UnsupportedError
from ranklens.evaluate import check_tables, metric_list
from ranklens.metrics import Metric, get_metric
from ranklens.metrics._segments import binary_values, dense_ideal, dense_top, require_ties
from ranklens.metrics.binary import _iprec_levels, _thr
from ranklens.metrics.graded import gains

__all__ = ["CutoffResult", "PRCurve", "evaluate_cutoffs", "precision_recall_curve"]

CUTOFF_FAMILIES = ("p", "r", "f1", "ap", "ndcg", "dcg", "success", "rr", "arhr")
_EXPECTED_OK = ("p", "r", "f1", "ndcg", "dcg", "arhr")


@dataclass(frozen=True)
class CutoffResult:
    """Per-query values of each metric at k = 1..K.

    ``values[metric]`` is a (queries x K) array; column ``k - 1`` holds
    ``metric@k``.  ``curve(metric)`` is the mean over queries at every k.
    """

    metrics: tuple[str, ...]
    ks: np.ndarray
    query_ids: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    conventions: Conventions

    def curve(self, metric: str) -> np.ndarray:
        """Mean over queries of ``metric`` at k = 1..K."""
        return self.values[metric].mean(axis=0)

    def summary(self) -> dict[str, dict[int, float]]:
        """``{metric: {k: mean}}``."""
        return {m: dict(zip(self.ks.tolist(), self.curve(m).tolist(), strict=True))
                for m in self.metrics}

    def to_frame(self) -> Any:
        """Long table (pandas): metric, k, mean."""
        import pandas as pd

        rows = [(m, int(k), float(v)) for m in self.metrics
                for k, v in zip(self.ks, self.curve(m), strict=True)]
        return pd.DataFrame(rows, columns=["metric", "k", "mean"])


def _conv(profile: str | None, conventions: Conventions | None,
          overrides: dict[str, Any]) -> Conventions:
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
    ``"ndcg(gain=exp2)"``, ``"ap(norm=min_r_k)"``, ``"p(rel=2)"``.  Supported
    families: p, r, f1, ap, ndcg, dcg, success, rr, arhr.  Conventions as in
    :func:`ranklens.evaluate`.
    """
    if isinstance(max_k, bool) or not isinstance(max_k, (int, np.integer)) or max_k < 1:
        raise MetricParameterError(f"max_k must be a positive integer, got {max_k!r}.")
    check_tables(qrels, run)
    conv = _conv(profile, conventions, overrides)
    names = metric_list(metrics)
    parsed: dict[str, Metric] = {}
    for name in names:
        m = get_metric(name)
        if m.k is not None:
            raise MetricParameterError(
                f"in metric {name!r}: evaluate_cutoffs computes every k = 1..max_k; give the "
                f"metric without '@k' (e.g. {m.name!r})."
            )
        if m.name not in CUTOFF_FAMILIES:
            raise UnsupportedError(
                f"metric {name!r} is not available at every cutoff; choose from "
                f"{', '.join(CUTOFF_FAMILIES)}."
            )
        parsed[name] = m
    K = int(max_k)
    preps: dict[str, Prepared] = {}
    values: dict[str, np.ndarray] = {}
    for name, m in parsed.items():
        params = m.resolved_params(conv.metric_defaults)
        ties = params.get("ties") or conv.ties
        params["ties"] = ties
        allowed = ("trec", "input", "optimistic", "pessimistic") + (
            ("expected",) if m.name in _EXPECTED_OK else ())
        require_ties(f"{m.name} at every cutoff", ties, allowed)
        order = ties if ties in ("input", "optimistic", "pessimistic") else "trec"
        if order not in preps:
            from dataclasses import replace

            preps[order] = prepare(qrels, run, replace(conv, ties=order))
        values[name] = _cutoff_values(preps[order], m.name, params, K)
    prep = next(iter(preps.values()))
    return CutoffResult(tuple(parsed), np.arange(1, K + 1), tuple(prep.query_ids.to_pylist()),
                        values, conv)


def _cutoff_values(prep: Prepared, family: str, params: dict[str, Any], K: int) -> np.ndarray:
    ks = np.arange(1, K + 1, dtype=np.float64)
    if family in ("ndcg", "dcg"):
        g = gains(prep.rel, params["gain"])
        if params["ties"] == "expected":
            from ranklens.metrics._segments import group_mean

            g = group_mean(prep, g)
        dcg = np.cumsum(dense_top(prep, g / np.log2(prep.pos + 2.0), K), axis=1)
        if family == "dcg":
            return dcg
        ideal = params["ideal"]
        if ideal == "retrieved":
            raw = gains(prep.rel, params["gain"])
            order = np.lexsort((-raw, prep.seg))
            ig = dense_top(prep, raw[order] / np.log2(prep.pos + 2.0), K)
            idcg = np.cumsum(ig, axis=1)
        else:
            ir = gains(prep.ideal_rel, params["gain"])
            if isinstance(params["gain"], dict):
                o = np.lexsort((-ir, prep.ideal_seg))
                ir = ir[o]
            contrib = ir / np.log2(prep.ideal_pos + 2.0)
            if ideal == "full":
                total = np.bincount(prep.ideal_seg, weights=contrib, minlength=prep.n_queries)
                idcg = np.repeat(total[:, None], K, axis=1)
            else:
                idcg = np.cumsum(dense_ideal(prep, contrib, K), axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(idcg > 0, dcg / np.where(idcg > 0, idcg, 1.0), 0.0)
    thr = _thr(prep, params)
    b = binary_values(prep, thr, params["ties"])
    bm = dense_top(prep, b, K)
    hits = np.cumsum(bm, axis=1)
    nrel = prep.num_rel(thr).astype(np.float64)[:, None]

    def div(a: np.ndarray, d: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(d > 0, a / np.where(d > 0, d, 1.0), 0.0)

    if family == "p":
        return hits / ks
    if family == "r":
        return div(hits, np.broadcast_to(nrel, hits.shape))
    if family == "f1":
        beta2 = float(params["beta"]) ** 2
        p = hits / ks
        r = div(hits, np.broadcast_to(nrel, hits.shape))
        return div((1 + beta2) * p * r, beta2 * p + r)
    if family == "arhr":
        return np.cumsum(bm / ks, axis=1)
    if family == "ap":
        if params["ties"] not in ("trec", "input", "optimistic", "pessimistic"):
            raise UnsupportedError("ap at every cutoff supports the ordering tie policies only.")
        contrib = np.cumsum(bm * hits / ks, axis=1)
        norm = params["norm"]
        if norm == "r":
            den = np.broadcast_to(nrel, hits.shape)
        elif norm == "min_r_k":
            den = np.minimum(nrel, ks[None, :])
        else:
            den = hits
        return div(contrib, den)
    first = (bm > 0) & (hits == 1)
    if family == "success":
        return (hits > 0).astype(np.float64)
    # rr
    return np.cumsum(np.where(first, 1.0 / ks, 0.0), axis=1)


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
        import pandas as pd

        ids = np.asarray(self.query_ids, dtype=object)
        return pd.DataFrame({"query": ids[self.query], "rank": self.rank,
                             "precision": self.precision, "recall": self.recall})


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
        recall = np.where(nrel[prep.seg] > 0, cum / np.where(nrel > 0, nrel, 1.0)[prep.seg],
                          0.0)
    interp = np.vstack(_iprec_levels(prep, lv.tolist(), params)).T if prep.n_queries else (
        np.zeros((0, lv.size)))
    return PRCurve(tuple(prep.query_ids.to_pylist()), prep.seg, rank, precision, recall, lv,
                   interp)
