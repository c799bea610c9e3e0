"""Evaluation against preference judgments, trec_eval 10's ``-R prefs`` mode.

:func:`evaluate_prefs` computes trec_eval's ``prefs_*`` measures (see
:mod:`ranklens.ranking.kernels.prefs` for their definitions) of a run against
:class:`ranklens.io.prefs.Prefs` (read by :func:`ranklens.io.prefs.read_prefs` or
:func:`ranklens.io.prefs.read_qrels_prefs`); :meth:`PrefsResult.trec_lines` prints
them as trec_eval does, line for line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ranklens.errors import MetricNameError
from ranklens.io.prefs import Prefs
from ranklens.ranking.kernels.prefs import PREFS_COUNT_MEASURES, PREFS_MEASURES, prefs_values

__all__ = ["PREFS_MEASURES", "PrefsResult", "evaluate_prefs"]


@dataclass(frozen=True)
class PrefsResult:
    """Per-query values of the ``prefs_*`` measures (``values[measure][i]`` belongs to
    ``queries[i]``).  The summary of a count (``prefs_num_*``) is its sum over the
    queries, of any other measure its mean (trec_eval's convention)."""

    queries: list[str]
    values: dict[str, np.ndarray]

    def summary(self, measure: str) -> float:
        v = self.values[measure]
        if measure in PREFS_COUNT_MEASURES:
            return float(v.sum())
        return float(v.mean()) if v.shape[0] else 0.0

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query: {measure: value}}``."""
        return {
            q: {m: float(v[i]) for m, v in self.values.items()} for i, q in enumerate(self.queries)
        }

    def trec_lines(
        self, *, per_query: bool = True, summary: bool = True, runid: str | None = None
    ) -> list[str]:
        """trec_eval's output lines (``-q`` is ``per_query``; ``runid`` prints the
        ``runid`` and ``num_q`` lines of ``-m all_prefs``)."""

        def line(m: str, q: str, x: float) -> str:
            text = f"{round(x)}" if m in PREFS_COUNT_MEASURES else f"{x:.4f}"
            return f"{m:<22}\t{q}\t{text}"

        out: list[str] = []
        if per_query:
            for i, q in enumerate(self.queries):
                out.extend(line(m, q, float(v[i])) for m, v in self.values.items())
        if summary:
            if runid is not None:
                out.append(f"{'runid':<22}\tall\t{runid}")
                out.append(f"{'num_q':<22}\tall\t{len(self.queries)}")
            out.extend(line(m, "all", self.summary(m)) for m in self.values)
        return out


def evaluate_prefs(
    prefs: Prefs,
    run_query: Sequence[str] | np.ndarray,
    run_doc: Sequence[str] | np.ndarray,
    run_score: Sequence[float] | np.ndarray,
    *,
    measures: Sequence[str] | None = None,
    empty_rankings: bool = False,
    depth: int | None = None,
) -> PrefsResult:
    """trec_eval's ``prefs_*`` measures of a run (three parallel columns) against
    preference judgments.

    ``measures``: a subset of :data:`PREFS_MEASURES` (kept in trec_eval's order);
    ``empty_rankings``: trec_eval ``-c`` (judged queries missing from the run are
    evaluated as empty rankings, else skipped); ``depth``: trec_eval ``-M``.
    Fulfilled / possible preferences follow Buckley's trec_eval 10
    (``form_prefs_counts.c``); e.g. ``prefs_simp = fulfilled / possible``.

    >>> from ranklens.io.prefs import Prefs
    >>> p = Prefs.from_rows([("q", "a", "0", "d1", 2.0), ("q", "a", "0", "d2", 0.0)])
    >>> r = evaluate_prefs(p, ["q", "q"], ["d2", "d1"], [2.0, 1.0], measures=["prefs_simp"])
    >>> r.to_dict()
    {'q': {'prefs_simp': 0.0}}
    """
    chosen = list(PREFS_MEASURES) if measures is None else list(measures)
    unknown = [m for m in chosen if m not in PREFS_MEASURES]
    if unknown:
        raise MetricNameError(
            f"measures={unknown!r}: not a prefs measure; use one of {', '.join(PREFS_MEASURES)}"
        )
    queries, values = prefs_values(
        prefs.query,
        prefs.jg,
        prefs.jsg,
        prefs.doc,
        prefs.rel_level,
        np.asarray(run_query, dtype=str),
        np.asarray(run_doc, dtype=str),
        np.asarray(run_score, dtype=np.float64),
        empty_rankings=empty_rankings,
        depth=depth,
    )
    return PrefsResult(queries, {m: values[m] for m in PREFS_MEASURES if m in chosen})
