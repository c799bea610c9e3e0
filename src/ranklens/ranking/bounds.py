"""What unjudged documents could do to a metric: its value with every unjudged
retrieved document judged non-relevant, and judged relevant at a chosen grade
(:func:`judged_bounds`; issue 26, "how far to trust a metric").

Both fills add judgments for *every* retrieved document that the qrels lack, anywhere
in the ranking (not only above a cutoff), and evaluate once each through the one engine
(:func:`ranklens.evaluate`): the filled qrels are built with array operations, never per
query.  Only queries that have judgments are filled: a run query without any judgment
stays out of the evaluation as it was.

For some metrics the two fills are true bounds (the catalogue's ``fill_bounds``,
:data:`ranklens.metrics.catalogue.FILL_BOUNDED`): P@k, success@k, RR, ARHR, hits,
num_rel_ret, (n)CG/DCG without normalisation and RBP are non-decreasing in the grade of
every retrieved document and read nothing else of the judgments, so with any completion
of the judgments (each unjudged retrieved document judged at a grade between 0 and
``grade``) the value lies between the two fills.  For AP, recall, F, nDCG, R-precision,
bpref and ERR it is not so: filling also raises the number of relevant documents and the
ideal gains, and the "relevant" fill can be *lower* than the "non-relevant" one.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens.errors import InputError, RanklensWarning
from ranklens.metrics import Metric, get_metric
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, check_tables, evaluate, metric_list

__all__ = ["JudgedBounds", "fill_bounded", "fill_unjudged", "judged_bounds"]


def fill_bounded(metric: str | Metric, grade: float = 1.0) -> bool:
    """Whether the fills of ``metric`` (grade 0 and ``grade``) are true bounds of its value
    under every completion of the judgments at grades between 0 and ``grade``.

    Declared per metric in the catalogue (``fill_bounds``); ``rbp`` with ``scale=trec``
    (the default) rescales a query's gains by its highest grade when that exceeds 1, so it
    is a true bound for ``grade <= 1`` only.

    >>> fill_bounded("p@10"), fill_bounded("ndcg@10"), fill_bounded("rbp", 2)
    (True, False, False)
    """
    m = get_metric(metric)
    d = m.definition
    if not d.fill_bounds:
        return False
    params = m.resolved_params()
    if d.name == "rbp" and params.get("scale") == "trec":
        return grade <= 1.0
    return True


def fill_unjudged(qrels: Qrels, run: Run, grade: float) -> tuple[Qrels, np.ndarray]:
    """``qrels`` with every document that ``run`` retrieves for a judged query and that
    the qrels lack added at ``grade``, and the number of documents added per query of
    the qrels (in the order of ``qrels.query_ids``).  One hash join of the run's
    ``(query, doc)`` pairs with the qrels' (Arrow), no per-query loop.

    >>> q = Qrels.from_dict({"q": {"a": 1}})
    >>> r = Run.from_dict({"q": {"a": 2.0, "b": 1.0}, "x": {"c": 1.0}})
    >>> filled, added = fill_unjudged(q, r, 0)
    >>> filled.to_dict(), added.tolist()
    ({'q': {'a': 1.0, 'b': 0.0}}, [1])
    """
    new = _unjudged_pairs(qrels, run)
    return _filled(qrels, new, grade), _added_per_query(qrels, new)


def _unjudged_pairs(qrels: Qrels, run: Run) -> tuple[pa.Array, pa.Array]:
    """The run's ``(query, doc)`` pairs of judged queries that the qrels lack."""
    rq, rd = run._query.cast(pa.large_string()), run._doc.cast(pa.large_string())
    qq, qd = qrels._query.cast(pa.large_string()), qrels._doc.cast(pa.large_string())
    judged_q = pc.is_in(rq, value_set=pc.unique(qq))
    left = pa.table({"q": rq, "d": rd}).filter(judged_q)
    right = pa.table({"q": qq, "d": qd, "hit": pa.repeat(True, len(qq))})
    joined = left.join(right, keys=["q", "d"], join_type="left outer")
    new = joined.filter(pc.is_null(joined["hit"]))
    return new["q"].combine_chunks(), new["d"].combine_chunks()


def _filled(qrels: Qrels, new: tuple[pa.Array, pa.Array], grade: float) -> Qrels:
    q_new, d_new = new
    return Qrels.from_arrays(
        pa.concat_arrays([qrels._query.cast(pa.large_string()), q_new]),
        pa.concat_arrays([qrels._doc.cast(pa.large_string()), d_new]),
        np.concatenate([qrels.relevance, np.full(len(q_new), float(grade))]),
        name=qrels.name,
    )


def _added_per_query(qrels: Qrels, new: tuple[pa.Array, pa.Array]) -> np.ndarray:
    ids = pa.array(qrels.query_ids, type=pa.large_string())
    where = to_numpy(pc.index_in(new[0], value_set=ids)).astype(np.int64)
    return np.bincount(where, minlength=len(ids)).astype(np.int64)


@dataclass(frozen=True)
class JudgedBounds:
    """A metric's value beside its two fills (:func:`judged_bounds`).

    ``value``, ``fill_zero`` and ``fill_grade`` are :class:`~ranklens.Result` values of
    the same metrics over the same queries: as judged, with every unjudged retrieved
    document judged 0, and judged ``grade``.  ``unjudged`` counts the unjudged retrieved
    documents per query (``{query: count}``); ``bounded`` says per metric whether the
    two fills are true bounds (:func:`fill_bounded`); ``residual`` holds, for every RBP
    metric, its residual (``rbp_resid``, per query) as judged.
    """

    value: Result
    fill_zero: Result
    fill_grade: Result
    grade: float
    unjudged: Mapping[str, int]
    bounded: Mapping[str, bool]
    residual: Mapping[str, Result]

    @property
    def metrics(self) -> tuple[str, ...]:
        return self.value.metrics

    @property
    def any_unjudged(self) -> bool:
        """Whether the run retrieves any unjudged document of a judged query."""
        return any(self.unjudged.values())

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per metric: ``value``, ``fill_0``, ``fill_g`` (aggregates), ``bounded``, and
        ``residual`` (the mean RBP residual; RBP metrics only)."""
        out: dict[str, dict[str, Any]] = {}
        for m in self.metrics:
            row: dict[str, Any] = {
                "value": self.value[m],
                "fill_0": self.fill_zero[m],
                "fill_g": self.fill_grade[m],
                "bounded": self.bounded[m],
            }
            if m in self.residual:
                row["residual"] = self.residual[m].summary()[self.residual[m].metrics[0]]
            out[m] = row
        return out

    def labels(self, metric: str) -> tuple[str, str]:
        """The column labels of ``metric``'s two fills: ``"<metric> fill 0"`` and
        ``"<metric> fill <grade>"``."""
        return f"{metric} fill 0", f"{metric} fill {self.grade:g}"

    def as_result(self) -> Result:
        """One :class:`~ranklens.Result` with every metric followed by its two fills
        (:meth:`labels`), which every table format renders beside the value; the value
        result itself when the run retrieves no unjudged document of a judged query.

        >>> import ranklens
        >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
        >>> r = ranklens.Run.from_dict({"q": {"a": 2.0, "x": 1.0}})
        >>> ranklens.judged_bounds(q, r, "p@2").as_result().summary()
        {'p@2': 0.5, 'p@2 fill 0': 0.5, 'p@2 fill 1': 1.0}
        """
        if not self.any_unjudged:
            return self.value
        names: list[str] = []
        values: dict[str, np.ndarray] = {}
        parsed: dict[str, Metric] = {}
        for m in self.metrics:
            lo, hi = self.labels(m)
            for name, res in ((m, self.value), (lo, self.fill_zero), (hi, self.fill_grade)):
                names.append(name)
                values[name] = res.values[m]
                parsed[name] = res.parsed[m]
        return replace(self.value, metrics=tuple(names), values=values, parsed=parsed)

    def per_query(self, metric: str) -> dict[str, tuple[float, float, float]]:
        """``{query: (value, fill_0, fill_g)}`` of one metric."""
        v, lo, hi = (r.per_query(metric) for r in (self.value, self.fill_zero, self.fill_grade))
        return {q: (v[q], lo[q], hi[q]) for q in v}


def judged_bounds(
    qrels: Qrels,
    run: Run,
    metrics: str | Metric | Iterable[str | Metric],
    *,
    grade: float = 1.0,
    **conventions: Any,
) -> JudgedBounds:
    """Evaluate ``run`` as judged and with every unjudged retrieved document filled in:
    judged non-relevant (grade 0) and judged relevant at ``grade``.

    Every document of the run that the qrels lack, for a query the qrels judge, is added
    to the qrels (:func:`fill_unjudged`), at any rank; each fill is one
    :func:`ranklens.evaluate` with the same ``conventions`` (keywords of
    :func:`ranklens.evaluate`, ``profile=`` included).  For the metrics that
    :func:`fill_bounded` names, ``fill_0 <= value under any completion <= fill_g``
    (per query, hence on the mean); for the others (AP, nDCG, ...) the fills are what
    the two completions give, not bounds.  RBP also reports its residual (Moffat &
    Zobel 2008, "Rank-biased precision for measurement of retrieval effectiveness").

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "x": 2.0, "b": 1.0, "y": 0.5}})
    >>> b = ranklens.judged_bounds(q, r, ["p@2", "ap"])
    >>> b.summary()["p@2"]  # x unjudged at rank 2: 1/2 as judged and filled 0, 2/2 filled 1
    {'value': 0.5, 'fill_0': 0.5, 'fill_g': 1.0, 'bounded': True}
    >>> round(b.fill_grade["ap"], 4), b.bounded["ap"]  # R = 3: (1 + 1 + 3/4) / 3
    (0.9167, False)
    """
    check_tables(qrels, run)
    if (
        isinstance(grade, bool)
        or not isinstance(grade, (int, float))
        or not np.isfinite(grade)
        or grade <= 0
    ):
        raise InputError(
            f"judged_bounds: 'grade' must be a finite number > 0 (the grade the relevant "
            f"fill gives every unjudged retrieved document), got {grade!r}."
        )
    wanted = metric_list(metrics)
    keys = [m if isinstance(m, str) else str(m) for m in wanted]
    value = evaluate(qrels, run, keys, **conventions)  # warns (once) as evaluate does
    pairs = _unjudged_pairs(qrels, run)  # one join, two fills
    zero, high = _filled(qrels, pairs, 0.0), _filled(qrels, pairs, float(grade))
    added = _added_per_query(qrels, pairs)
    residual: dict[str, Result] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RanklensWarning)  # the same warnings again
        fill_zero = evaluate(zero, run, keys, **conventions)
        fill_grade = evaluate(high, run, keys, **conventions)
        for key in keys:
            parsed = value.parsed[key]
            if parsed.name == "rbp":
                p = parsed.resolved_params()["p"]
                residual[key] = evaluate(qrels, run, f"rbp_resid(p={p})", **conventions)
    return JudgedBounds(
        value=value,
        fill_zero=fill_zero,
        fill_grade=fill_grade,
        grade=float(grade),
        unjudged=dict(zip(qrels.query_ids, added.tolist(), strict=True)),
        bounded={k: fill_bounded(value.parsed[k], float(grade)) for k in keys},
        residual=residual,
    )
