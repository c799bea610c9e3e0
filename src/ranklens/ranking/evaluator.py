"""Evaluation in batches of whole queries: ``update`` per batch, ``merge`` across
workers, ``compute`` once, with exactly the numbers of one :func:`ranklens.evaluate`.

A ranking metric's value for a query depends only on that query's judgments and
ranking (a design principle of ranklens), so a batch holding *whole*
queries (all their judgments and all their run rows) is evaluated on its own and
the per-query values concatenate.  The aggregates (mean, geometric mean, sum) and
the report's counts are computed from the concatenation, as one call would.  Only
the per-query values (and each batch's fingerprints, for the result's
provenance) are kept between batches, never the data.

Batches come as :class:`~ranklens.Qrels` and :class:`~ranklens.Run`, as tables
(pandas, polars, pyarrow; columns ``query``, ``doc``, ``relevance`` / ``score``),
or as aligned arrays (:meth:`Evaluator.update_arrays`: numpy, lists, pyarrow, and
any object with ``__dlpack__`` or ``__array__``, so CPU tensors work without
ranklens importing torch).

>>> import ranklens
>>> ev = ranklens.Evaluator(["p@2", "ndcg"])
>>> ev.update(ranklens.Qrels.from_dict({"q1": {"a": 1, "b": 0}}),
...           ranklens.Run.from_dict({"q1": {"a": 0.9, "b": 0.1}}))
>>> ev.update_arrays(query=["q2", "q2"], doc=["c", "d"], relevance=[0, 2],
...                  score=[0.7, 0.2])
>>> res = ev.compute()
>>> res.per_query("p@2")
{'q1': 0.5, 'q2': 0.5}
>>> round(res["ndcg"], 4)
0.8155
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens.errors import InputError, ProvenanceError
from ranklens.metrics import Metric
from ranklens.ranking.conventions import Conventions
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import check_not_empty
from ranklens.ranking.evaluation import Computed, Plan, Result, compute_jobs, warn_unmatched
from ranklens.ranking.provenance import Provenance

__all__ = ["Evaluator"]


def host_array(values: Any) -> Any:
    """``values`` as something the column readers take: numpy arrays, lists, pandas,
    polars and pyarrow pass through; an object with ``__dlpack__`` (a CPU tensor of
    any framework) or ``__array__`` becomes a numpy array (no copy where possible).

    >>> class Tensor:  # any object exposing the array protocol
    ...     def __array__(self, dtype=None, copy=None):
    ...         return np.array([1.0, 2.0])
    >>> host_array(Tensor())
    array([1., 2.])
    """
    if isinstance(values, (np.ndarray, pa.Array, pa.ChunkedArray, list, tuple, str)):
        return values
    if type(values).__module__.split(".")[0] in ("pandas", "polars", "pyarrow"):
        return values
    if hasattr(values, "__dlpack__"):
        try:
            return np.from_dlpack(values)
        except (TypeError, RuntimeError, BufferError, ValueError):
            pass  # e.g. a device tensor: the array protocol may still copy it to the host
    if hasattr(values, "__array__"):
        return np.asarray(values)
    return values


class Evaluator:
    """Accumulates per-query values over batches of whole queries.

    Parameters are those of :func:`ranklens.evaluate` (metrics, ``profile=``,
    ``conventions=`` and single conventions), checked once, before any batch.

    - :meth:`update` / :meth:`update_arrays` evaluate one batch.  Every query of a
      batch must be whole: a query seen in an earlier batch (in its judgments or its
      run) is refused, since its value would be computed twice.  Either side of a
      batch may be empty: a batch of run queries without judgments, or of judged
      queries absent from the run (the ``missing`` rule scores them); only all the
      batches together must hold judgments and run rows.
    - :meth:`merge` adds another evaluator's batches (e.g. from another worker);
      both must evaluate the same metrics under the same conventions.
    - :meth:`compute` returns the :class:`~ranklens.Result` of everything seen:
      the values, order of queries, aggregates and report counts of one
      :func:`ranklens.evaluate` over all batches together.  Its warnings (run
      queries without judgments, no query shared) are given once, here.
    - :meth:`reset` forgets the batches (e.g. at the start of an epoch).
    """

    def __init__(
        self,
        metrics: str | Metric | Iterable[str | Metric],
        *,
        profile: str | None = None,
        conventions: Conventions | None = None,
        **single: Any,
    ) -> None:
        self._plan = Plan.make(metrics, conventions, profile, single)
        self.reset()

    @property
    def conventions(self) -> Conventions:
        return self._plan.conventions

    @property
    def metrics(self) -> tuple[str, ...]:
        return self._plan.keys

    def reset(self) -> None:
        """Forget every batch (the metrics and conventions stay)."""
        self._batches: list[Computed] = []
        self._fingerprints: list[tuple[str, str]] = []  # (qrels, run) of each batch
        self._seen: set[str] = set()
        self._run_name: str | None = None
        self._rows = [0, 0]  # judgments and run rows seen

    def __len__(self) -> int:
        """The number of batches seen."""
        return len(self._batches)

    # -- adding batches ---------------------------------------------------------------
    def update(self, qrels: Any, run: Any) -> None:
        """Evaluate one batch: ``qrels`` and ``run`` as :class:`Qrels`/:class:`Run` or
        tables with columns ``query``, ``doc`` and ``relevance`` / ``score``."""
        q = qrels if isinstance(qrels, Qrels) else Qrels.from_frame(qrels)
        r = run if isinstance(run, Run) else Run.from_frame(run)
        self._add(q, r)

    def update_arrays(self, query: Any, doc: Any, relevance: Any, score: Any) -> None:
        """Evaluate one batch given as aligned columns: every row is a scored, judged
        document (the usual shape inside a training loop).  A row's relevance may be
        0; documents retrieved but never judged go through :meth:`update`."""
        query, doc = host_array(query), host_array(doc)
        self._add(
            Qrels.from_arrays(query, doc, host_array(relevance)),
            Run.from_arrays(query, doc, host_array(score)),
        )

    def _add(self, qrels: Qrels, run: Run) -> None:
        ids = set(qrels.query_ids) | set(run.query_ids)
        again = sorted(ids & self._seen)
        if again:
            shown = ", ".join(map(repr, again[:5])) + (
                f" and {len(again) - 5} more" if len(again) > 5 else ""
            )
            raise InputError(
                f"Evaluator batch {len(self._batches) + 1}: queries {shown} were in an "
                "earlier batch. Each batch must hold whole queries (all their judgments "
                "and all their run rows); group the rows by query before batching."
            )
        plan = self._plan
        self._batches.append(compute_jobs(qrels, run, plan.conventions, plan.jobs, batch=True))
        self._fingerprints.append((qrels.fingerprint(), run.fingerprint(self._run_form)))
        self._seen |= ids
        self._rows = [self._rows[0] + len(qrels), self._rows[1] + len(run)]
        self._run_name = self._run_name or run.name

    def merge(self, other: Evaluator) -> Evaluator:
        """Add ``other``'s batches to this evaluator and return it.  Both evaluate the
        same metrics (in any order or spelling that parses to the same metric) under
        the same conventions; otherwise a :class:`~ranklens.errors.ProvenanceError`
        says what differs."""
        if not isinstance(other, Evaluator):
            raise InputError(f"merge() takes an Evaluator, got {type(other).__name__}.")
        keys = self._same_plan(other)
        again = sorted(self._seen & other._seen)
        if again:
            raise InputError(
                f"merge(): queries {again[:5]} were evaluated by both evaluators; each "
                "query must be in the batches of one of them."
            )
        self._batches += [
            Computed(
                b.query_ids,
                {keys[k]: v for k, v in b.values.items()},
                b.report,
                {keys[k]: v for k, v in b.summary_values.items()},
            )
            for b in other._batches
        ]
        self._fingerprints += other._fingerprints
        self._seen |= other._seen
        self._rows = [a + b for a, b in zip(self._rows, other._rows, strict=True)]
        self._run_name = self._run_name or other._run_name
        return self

    def _same_plan(self, other: Evaluator) -> dict[str, str]:
        """``{other's metric key: this one's key}``; a ProvenanceError naming what
        differs when the metrics or the conventions differ."""
        mine = list(self._plan.parsed.items())  # Metric values may hold dicts: unhashable
        keys = {
            k: next((key for key, metric in mine if metric == m), None)
            for k, m in other._plan.parsed.items()
        }
        found = {v for v in keys.values() if v is not None}
        differ = []
        only_mine = [k for k in self._plan.keys if k not in found]
        only_theirs = [k for k, v in keys.items() if v is None]
        if only_mine or only_theirs:
            differ.append(
                "metrics: "
                + "; ".join(
                    f"{', '.join(ks)} only in {who}"
                    for ks, who in ((only_mine, "this one"), (only_theirs, "the other"))
                    if ks
                )
            )
        a, b = self._plan.conventions.as_dict(), other._plan.conventions.as_dict()
        changed = [k for k in a if a[k] != b.get(k)]
        if changed:
            differ.append(
                "conventions: "
                + ", ".join(f"{k}={a[k]!r} here, {b.get(k)!r} there" for k in changed)
            )
        if differ:
            what = " and ".join(d.split(":")[0] for d in differ)
            raise ProvenanceError(
                f"merge(): the evaluators differ in their {what} "
                f"({'; '.join(differ)}); evaluators that are merged must evaluate the same "
                "metrics under the same conventions."
            )
        return {k: v for k, v in keys.items() if v is not None}

    # -- the result --------------------------------------------------------------------
    def compute(self) -> Result:
        """The :class:`~ranklens.Result` of every batch so far."""
        if not self._batches:
            raise InputError("Evaluator.compute(): no batch yet; call update() first.")
        check_not_empty(*self._rows)
        plan = self._plan
        return combine(
            plan,
            self._batches,
            self._run_name,
            stacklevel=4,
            provenance=Provenance.of_batches(
                self._fingerprints, self._run_form, plan.canonical_metrics, plan.conventions
            ),
        )

    @property
    def _run_form(self) -> str:
        return "input" if self._plan.input_order else "canonical"


def combine(
    plan: Plan,
    batches: Sequence[Computed],
    run_name: str | None,
    *,
    stacklevel: int | None = None,
    provenance: Provenance | None = None,
) -> Result:
    """The :class:`~ranklens.Result` of one evaluation from the values of its batches of
    whole queries (in any order): per-query values concatenated and put in the query
    order of one evaluation (byte order of the ids), report counts summed.  With a
    ``stacklevel`` the warnings of one evaluation are given (:func:`warn_unmatched`)."""
    ids = pa.concat_arrays([b.query_ids.cast(pa.large_string()) for b in batches])
    order = to_numpy(pc.array_sort_indices(ids))  # the byte order of one evaluation
    values = {}
    for key in plan.keys:
        v = np.concatenate([b.values[key] for b in batches])[order]
        v.setflags(write=False)
        values[key] = v
    summary_values = {
        key: np.concatenate([b.summary_values[key] for b in batches])[order]
        for key in batches[0].summary_values
    }
    report = sum_reports([b.report for b in batches])
    if stacklevel is not None:
        warn_unmatched(report, plan.conventions, stacklevel=stacklevel)
    return plan.result(
        Computed(ids.take(from_numpy(order)), values, report, summary_values),
        run_name,
        provenance,
    )


def sum_reports(reports: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Every count of a batch's report is a count over its queries or rows: summed."""
    total: dict[str, int] = {}
    for rep in reports:
        for k, v in rep.items():
            total[k] = total.get(k, 0) + int(v)
    return total
