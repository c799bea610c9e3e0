"""Training the fusion methods that learn from judgments (ranx's ``*_train``).

Every statistic comes from the *hit lists*: for each run and each training query
(every query of the qrels; a run without a ranking for one has an empty list),
whether the document at each position is relevant (grade ``rel_threshold`` or
more, ranx's ``rel_lvl`` 1).  With ``Q`` training queries:

- PosFuse / SlideFuse ``probs[i]``: the share of relevant documents at position
  ``i`` among the queries whose ranking reaches it;
- ProbFuse ``probs[k]`` (``n_segments`` ``S``): the mean over the ``Q`` queries of
  the share of relevant documents in segment ``k`` of the query's ranking (``S``
  segments of ``ceil(n / S)`` positions; an empty segment adds nothing);
- SegFuse ``probs[k]``: the mean over the ``Q`` queries of the relevant documents
  in segment ``k`` (positions 0-4, 5-14, 15-34, ..., ``10 * 2**(k-1) - 5``) divided
  by the segment's size;
- BayesFuse ``log_odds[i]``: ``log(P / (1 - P))`` of ``P`` the mean over the
  ``Q`` queries of the precision in the segment of ``i`` (cut-offs 0, 5, 10, 15,
  20, 30, 100, 200, 500, 1000; ``P`` = 0 counts as 0.001, as does ``1 - P`` = 0);
- MAPFuse ``map_scores``: each (normalised) run's MAP.

Each is one ``bincount`` over the rows of all runs; no loop visits a query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ranklens.errors import InputError
from ranklens.fusion.norms import normalise
from ranklens.fusion.stack import TIES, Stack, stack_runs
from ranklens.ranking.data import Qrels, Run

__all__ = ["BAYES_CUTOFFS", "train_fusion", "train_stack"]

BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000], dtype=np.int64)


def _hits(st: Stack, where: str) -> tuple[np.ndarray, np.ndarray, int]:
    """The rows of training queries (a mask), whether each row's document is relevant,
    and the number of training queries."""
    if st.relevant is None or st.qrels_queries is None:
        raise AssertionError("the stack was built without qrels")
    n_q = int(st.qrels_queries.size)
    if n_q == 0:
        raise InputError(f"{where}: the qrels have no queries to train on.")
    in_train = np.zeros(st.n_queries, dtype=bool)
    in_train[st.qrels_queries] = True
    rows = in_train[st.qcode]
    hit = np.zeros(st.qcode.size, dtype=np.float64)
    key = st.key()[rows]
    found = np.searchsorted(st.relevant, key)
    found = np.minimum(found, max(st.relevant.size - 1, 0))
    hit[rows] = (st.relevant.size > 0) & (st.relevant[found] == key) if key.size else 0.0
    return rows, hit, n_q


def _per_run(
    st: Stack, rows: np.ndarray, index: np.ndarray, weights: np.ndarray, width: int
) -> Any:
    """``bincount`` of ``index`` (within ``[0, width)``) per run over ``rows``."""
    at = st.run[rows] * width + index[rows]
    return np.bincount(at, weights=weights[rows], minlength=st.n_runs * width).reshape(
        st.n_runs, width
    )


def _posfuse(st: Stack, where: str) -> list[np.ndarray]:
    rows, hit, _ = _hits(st, where)
    in_train = np.zeros(st.n_queries, dtype=bool)
    in_train[st.qrels_queries] = True
    widths = (st.lengths * in_train[None, :]).max(axis=1)  # longest training ranking per run
    width = int(widths.max(initial=0))
    num = _per_run(st, rows, st.pos, hit, width)
    den = _per_run(st, rows, st.pos, np.ones(hit.size), width)
    with np.errstate(invalid="ignore", divide="ignore"):
        probs = num / den
    return [probs[r, : widths[r]] for r in range(st.n_runs)]


def _probfuse(st: Stack, n_segments: int, where: str) -> list[np.ndarray]:
    rows, hit, n_q = _hits(st, where)
    n = st.length
    size = -(-n // n_segments)  # ceil(n / S), >= 1 for a row's ranking
    k = st.pos // size
    seg_len = np.minimum(size, n - k * size)
    probs = _per_run(st, rows, k, hit / seg_len, n_segments) / n_q
    return list(probs)


def _segfuse(st: Stack, where: str) -> list[np.ndarray]:
    rows, hit, n_q = _hits(st, where)
    bounds = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)
    k = np.searchsorted(bounds, st.pos, side="right") - 1
    inside = rows & (k < bounds.size - 1)
    sizes = np.diff(bounds).astype(np.float64)
    kk = np.minimum(k, bounds.size - 2)
    probs = _per_run(st, inside, kk, hit / sizes[kk], bounds.size - 1) / n_q
    return list(probs)


def _bayesfuse(st: Stack, where: str) -> list[np.ndarray]:
    rows, hit, n_q = _hits(st, where)
    cut = BAYES_CUTOFFS
    j = np.searchsorted(cut, st.pos, side="right") - 1
    inside = rows & (j < cut.size - 1)
    jj = np.minimum(j, cut.size - 2)
    sizes = np.diff(cut).astype(np.float64)
    prec = _per_run(st, inside, jj, hit / sizes[jj], cut.size - 1) / n_q
    prec = np.where(prec == 0, prec + 0.001, prec)
    neg = 1 - prec
    neg = np.where(neg == 0, neg + 0.001, neg)
    odds = np.log(prec / neg)
    return [np.repeat(odds[r], np.diff(cut)) for r in range(st.n_runs)]


def _mapfuse(st: Stack, qrels: Qrels, rel_threshold: float) -> np.ndarray:
    """Each normalised run's MAP (ranx: ``evaluate(qrels, run, "map")``), by
    :func:`ranklens.evaluate` with the ranx profile."""
    import pyarrow as pa

    from ranklens._shared.arrow import from_numpy
    from ranklens.ranking.evaluation import evaluate

    out = np.zeros(st.n_runs)
    for r in range(st.n_runs):  # one evaluation per run
        m = st.run == r
        if not m.any():
            continue
        q = pa.DictionaryArray.from_arrays(from_numpy(st.qcode[m].astype(np.int32)), st.query_ids)
        d = pa.DictionaryArray.from_arrays(from_numpy(st.dcode[m].astype(np.int32)), st.doc_ids)
        run = Run.from_arrays(q, d, st.score[m])
        res = evaluate(qrels, run, "map", profile="ranx", rel_threshold=rel_threshold)
        out[r] = res.summary()["map"]
    return out


def train_stack(
    st: Stack,
    method: Any,
    params: dict[str, Any],
    *,
    where: str,
    qrels: Qrels | None = None,
    rel_threshold: float = 1.0,
) -> dict[str, Any]:
    """The trained parameters of ``method`` (a :class:`~ranklens.fusion.methods.Method`)
    from a normalised stack built with qrels."""
    name = method.name
    if name == "bayesfuse":
        return {"log_odds": _bayesfuse(st, where)}
    if name in ("posfuse", "slidefuse"):
        return {"probs": _posfuse(st, where)}
    if name == "segfuse":
        return {"probs": _segfuse(st, where)}
    if name == "probfuse":
        if "n_segments" not in params:
            raise InputError(
                f"{where}: training method='probfuse' needs params={{'n_segments': S}} (the "
                "number of segments of each ranking; ranx's optimize_fusion tries 1 to 100), "
                "or use optimize_fusion to choose it."
            )
        return {"probs": _probfuse(st, int(params["n_segments"]), where)}
    if name == "mapfuse":
        if qrels is None:
            raise AssertionError("mapfuse trains with qrels")
        return {"map_scores": _mapfuse(st, qrels, rel_threshold)}
    raise InputError(f"{where}: method={name!r} learns nothing from judgments.")


def train_fusion(
    qrels: Qrels,
    runs: Sequence[Run],
    method: str,
    norm: str | None = "min-max",
    params: dict[str, Any] | None = None,
    *,
    ties: str = "input",
    rel_threshold: float = 1.0,
) -> dict[str, Any]:
    """The parameters ``method`` learns from ``qrels`` (ranx's ``bayesfuse_train``,
    ``posfuse_train``, ``probfuse_train``, ``segfuse_train``, ``slidefuse_train``,
    ``mapfuse_train``), for :func:`~ranklens.fusion.fuse`'s ``params``.

    The runs are normalised by ``norm`` first (as ranx's ``optimize_fusion`` trains on
    the normalised runs); ``params`` gives ProbFuse's ``n_segments``.  See the module
    notes for each statistic.

    >>> from ranklens import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"c": 1, "d": 0}})
    >>> r1 = Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"d": 2.0, "c": 1.0}})
    >>> r2 = Run.from_dict({"q1": {"b": 2.0}, "q2": {"c": 2.0}})
    >>> [p.tolist() for p in train_fusion(qrels, [r1, r2], "posfuse")["probs"]]
    [[0.5, 0.5], [0.5]]
    """
    from ranklens._shared.validate import check_choice
    from ranklens.fusion.spec import check_params, method_spec, norm_name

    check_choice("ties", ties, TIES, where="train_fusion")
    spec = method_spec(method, "train_fusion")
    if not spec.trained:
        raise InputError(
            f"train_fusion: method={spec.name!r} learns nothing from judgments; the trained "
            "methods are bayesfuse, posfuse, probfuse, segfuse, slidefuse and mapfuse."
        )
    if not isinstance(qrels, Qrels):
        raise InputError(
            f"train_fusion: qrels must be a ranklens.Qrels, got {type(qrels).__name__}."
        )
    st = stack_runs(runs, ties=ties, qrels=qrels, rel_threshold=rel_threshold, where="train_fusion")
    st = normalise(st, norm_name(norm, "train_fusion"))
    given = {k: v for k, v in (params or {}).items() if k in spec.training}
    given = check_params(spec, given, st.n_runs, "train_fusion", require=False)
    return train_stack(
        st, spec, given, where="train_fusion", qrels=qrels, rel_threshold=rel_threshold
    )
