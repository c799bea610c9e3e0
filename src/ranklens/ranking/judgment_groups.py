"""trec_eval's judgment groups (``-R qrels_jg``): measures averaged over assessors.

A ``qrels_jg`` file is a qrels file whose second column names the judgment group
(one assessor's or one user's judgments of the query).  trec_eval 10's ``*_avgjg``
measures (``P_avgjg``, ``map_avgjg``, ``Rprec_mult_avgjg``) compute the measure
against each judgment group's judgments and average over the query's groups, then
over queries.  :func:`evaluate_avgjg` does that for any ranklens metric: one
evaluation per judgment group (each over all queries at once), then the mean over
each query's groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.io.prefs import Prefs
from ranklens.ranking.data import Qrels, Run

__all__ = ["evaluate_avgjg"]


def evaluate_avgjg(
    judgments: Prefs, run: Run, metrics: Sequence[str], **evaluate_kwargs: Any
) -> dict[str, dict[str, float]]:
    """``{metric: {query: value}}``: each metric averaged over the query's judgment
    groups, ``value = sum_jg metric(run, qrels_jg) / number of jgs of the query``,
    with the summary under ``"all"`` (the mean over queries).

    ``judgments``: :func:`ranklens.io.prefs.read_qrels_jg` (the ``jg`` column;
    ``rel_level`` the grade); ``evaluate_kwargs`` go to :func:`ranklens.evaluate`
    (``profile="trec_eval"`` for trec_eval's conventions).

    >>> from ranklens.io.prefs import Prefs
    >>> j = Prefs.from_rows([("q", "a", "0", "d1", 1), ("q", "b", "0", "d2", 1)])
    >>> run = Run.from_dict({"q": {"d1": 2.0, "d2": 1.0}})
    >>> evaluate_avgjg(j, run, ["P.1"])["P.1"]
    {'q': 0.5, 'all': 0.5}
    """
    import ranklens

    totals: dict[str, dict[str, float]] = {m: {} for m in metrics}
    groups: dict[str, int] = {}
    for jg in np.unique(judgments.jg):
        sel = judgments.jg == jg
        qrels = Qrels(judgments.query[sel], judgments.doc[sel], judgments.rel_level[sel])
        result = ranklens.evaluate(qrels, run, list(metrics), **evaluate_kwargs)
        for m in metrics:
            for q, v in result.per_query(m).items():
                totals[m][q] = totals[m].get(q, 0.0) + float(v)
        for q in np.unique(judgments.query[sel]):
            groups[str(q)] = groups.get(str(q), 0) + 1
    out: dict[str, dict[str, float]] = {}
    for m in metrics:
        per_query = {q: totals[m].get(q, 0.0) / n for q, n in sorted(groups.items())}
        per_query = {q: v for q, v in per_query.items() if q in totals[m]}
        out[m] = per_query | {"all": float(np.mean(list(per_query.values())))}
    return out
