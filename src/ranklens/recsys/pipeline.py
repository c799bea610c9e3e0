"""Multi-stage pipelines: candidate generation, then ranking / re-ranking.

Candidate generation is judged on recall (what it lets through is the most any
later stage can find); later stages are judged on precision and order.
:func:`pipeline_report` evaluates every stage against the same judgments and
puts next to each metric its **ceiling**: the value of an oracle that orders
the candidate set perfectly (by judged relevance, unjudged items last).  The
ratio ``stage / ceiling`` says how much of what the candidates allowed a stage
achieves; ``1 - candidate recall`` is what candidate generation lost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ranklens._shared.arrow import to_numpy
from ranklens.errors import InputError
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, evaluate

__all__ = ["PipelineReport", "oracle_run", "pipeline_report"]


def oracle_run(qrels: Qrels, candidates: Run) -> Run:
    """The candidates re-scored by their judged relevance (unjudged = 0): the best
    ordering any ranker restricted to these candidates can produce."""
    cand = candidates.to_arrow()
    judged = qrels.to_arrow()
    joined = cand.join(judged, keys=["query", "doc"], join_type="left outer")
    rel = to_numpy(joined.column("relevance").cast(pa.float64()), fill=0.0)  # unjudged: 0
    return Run.from_arrays(joined.column("query"), joined.column("doc"), rel, name="oracle")


@dataclass(frozen=True)
class PipelineReport:
    """Per-stage metric means, the oracle ceiling and the ratio to it.

    ``candidate_recall`` is the mean recall of the whole candidate set;
    ``values[stage][metric]`` the stage's mean, ``ceiling[metric]`` the
    oracle's, ``relative[stage][metric] = values / ceiling`` (NaN where the
    ceiling is 0).  ``results`` keeps every per-query :class:`Result`.
    """

    metrics: tuple[str, ...]
    candidate_recall: float
    values: Mapping[str, Mapping[str, float]]
    ceiling: Mapping[str, float]
    relative: Mapping[str, Mapping[str, float]]
    results: Mapping[str, Result]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per stage (``candidates`` oracle first) with every metric and its ratio."""
        out: list[dict[str, Any]] = [
            {
                "stage": "ceiling (oracle on candidates)",
                "candidate_recall": self.candidate_recall,
                **dict(self.ceiling),
            }
        ]
        for stage, vals in self.values.items():
            row: dict[str, Any] = {"stage": stage, "candidate_recall": self.candidate_recall}
            row.update(vals)
            row.update({f"{m} / ceiling": self.relative[stage][m] for m in self.metrics})
            out.append(row)
        return out


def pipeline_report(
    qrels: Qrels,
    candidates: Run,
    stages: Mapping[str, Run],
    metrics: str | Iterable[str],
    **evaluate_kwargs: Any,
) -> PipelineReport:
    """Evaluate each later stage and relate it to the candidate set's ceiling.

    Every stage must only rank candidates: a stage item outside the candidate
    set raises :class:`InputError` (it would make the ceiling meaningless).

    >>> import ranklens
    >>> qrels = ranklens.Qrels.from_dict({"u": {"a": 1, "b": 1, "z": 1}})
    >>> cands = ranklens.Run.from_dict({"u": {"a": 0.1, "b": 0.2, "c": 0.9}})
    >>> ranker = ranklens.Run.from_dict({"u": {"c": 3, "a": 2, "b": 1}})
    >>> rep = pipeline_report(qrels, cands, {"ranker": ranker}, ["p@2"])
    >>> rep.candidate_recall, rep.ceiling["p@2"], rep.values["ranker"]["p@2"]
    (0.6666666666666666, 1.0, 0.5)
    """
    if not isinstance(stages, Mapping) or not stages:
        raise InputError("pipeline_report: stages must be a non-empty mapping {stage name: Run}.")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    cand_pairs = candidates.to_arrow().select(["query", "doc"])
    results: dict[str, Result] = {}
    for stage, run in stages.items():
        if not isinstance(run, Run):
            raise InputError(
                f"pipeline_report: stage {stage!r} must be a ranklens.Run, got "
                f"{type(run).__name__}."
            )
        outside = (
            run.to_arrow()
            .select(["query", "doc"])
            .join(cand_pairs, keys=["query", "doc"], join_type="left anti")
            .num_rows
        )
        if outside:
            raise InputError(
                f"pipeline_report: stage {stage!r} ranks {outside} (user, item) pair(s) that "
                "are not among the candidates; a later stage may only reorder or filter "
                "candidates."
            )
        results[stage] = evaluate(qrels, run, names, **evaluate_kwargs)
    oracle = evaluate(qrels, oracle_run(qrels, candidates), names, **evaluate_kwargs)
    recall = evaluate(qrels, candidates, ["r"], **evaluate_kwargs)
    results["oracle"] = oracle
    results["candidates"] = recall
    ceiling = oracle.summary()
    values = {s: results[s].summary() for s in stages}
    relative = {
        s: {m: (v[m] / ceiling[m] if ceiling[m] else float("nan")) for m in v}
        for s, v in values.items()
    }
    return PipelineReport(
        tuple(oracle.metrics), recall.summary()["r"], values, ceiling, relative, results
    )
