"""trec_eval's ``relstring``: each query's relevance string of its top documents.

A text-valued, per-query measure (trec_eval prints it per query only, never in the
summary), so it is not a catalogue metric: :func:`relstring` returns
``{query: string}`` and :func:`relstring_lines` trec_eval's lines.
"""

from __future__ import annotations

import numpy as np

from ranklens.ranking.conventions import Conventions
from ranklens.ranking.data import Qrels, Run

__all__ = ["relstring", "relstring_lines"]


def relstring(
    qrels: Qrels, run: Run, cutoff: int = 10, conventions: Conventions | None = None
) -> dict[str, str]:
    """The relevance of each query's first ``cutoff`` ranked documents, one character
    per document, as trec_eval 10's ``relstring.cutoff`` (``m_relstring.c``).

    Grades 0-9 print as the digit, above 9 as ``>``; a document not in the qrels as
    ``-`` (trec_eval's "not pooled"); any negative grade as ``.`` (trec_eval's "pooled
    but unjudged": ``form_res_rels.c`` maps every negative grade there, so its ``<``
    never prints).  The ranking is trec_eval's (score descending, ties by docno
    descending, ``conventions.depth`` applied).

    >>> q = Qrels.from_dict({"q": {"a": 2, "b": 0, "c": 12, "d": -1}})
    >>> r = Run.from_dict({"q": {"a": 5.0, "b": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}})
    >>> relstring(q, r, cutoff=5)
    {'q': '20->.'}
    """
    from ranklens.ranking.engine import prepare

    prep = prepare(qrels, run, conventions or Conventions())
    rel = prep.rel
    digits = np.clip(rel, 0, 9).astype(np.int64).astype(str)
    chars = np.where(rel > 9, ">", digits)
    chars = np.where(rel < 0, ".", chars)
    chars = np.where(~prep.judged & (rel == 0), "-", chars)  # not in the qrels
    keep = prep.pos < cutoff
    seg = prep.seg[keep]
    kept = chars[keep]
    bounds = np.searchsorted(seg, np.arange(prep.n_queries + 1))
    ids = prep.query_ids.to_pylist()
    return {str(ids[i]): "".join(kept[bounds[i] : bounds[i + 1]]) for i in range(len(ids))}


def relstring_lines(strings: dict[str, str], cutoff: int = 10) -> list[str]:
    """trec_eval's lines: ``relstring`` (cutoff 10, its default) or ``relstring_N``.

    >>> relstring_lines({"q": "20->"}, cutoff=4)
    ["relstring_4           \\tq\\t'20->'"]
    """
    name = "relstring" if cutoff == 10 else f"relstring_{cutoff}"
    return [f"{name:<22}\t{q}\t'{s}'" for q, s in strings.items()]
