"""The fusion methods, declared once, and :func:`fuse`.

A method is two steps over the stacked runs (:mod:`ranklens.fusion.stack`): each
row's *contribution* (its normalised score, or a function of its 0-based position
``p`` in its ranking), then a *combination* of the contributions of one
(query, doc) candidate over the runs that return it (``n_d`` of the ``R`` runs).
Both are vectorised over every query at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.fusion.norms import candidates, normalise
from ranklens.fusion.spec import (
    MIN_LOG_ODDS,
    MISSING,
    SEGFUSE_BOUNDS,
    Method,
    check_params,
    method_spec,
    norm_name,
)
from ranklens.fusion.stack import TIES, Stack, fused_run, stack_runs
from ranklens.fusion.training import train_stack
from ranklens.ranking.data import Qrels, Run

__all__ = ["fuse", "fuse_stack"]

# ---------------------------------------------------------------------- the two steps


def _padded(arrays: list[np.ndarray], fill: float) -> np.ndarray:
    width = max((a.size for a in arrays), default=0)
    out = np.full((len(arrays), width + 1), fill)  # one spare column for "past the end"
    for i, a in enumerate(arrays):
        out[i, : a.size] = a
    return out


def _at_position(table: list[np.ndarray], run: np.ndarray, pos: np.ndarray, fill: float) -> Any:
    """``table[run][pos]``, ``fill`` past the end of a run's array."""
    lens = np.array([a.size for a in table], dtype=np.int64)
    m = _padded(table, fill)
    return m[run, np.minimum(pos, lens[run])]


def _contribution(method: Method, st: Stack, p: dict[str, Any]) -> np.ndarray:
    kind, pos = method.contribution, st.pos
    if kind == "score":
        return st.score
    if kind == "rrf":
        return 1.0 / (p["k"] + pos + 1)
    if kind == "isr":
        return 1.0 / (pos + 1) ** 2
    if kind == "rbc":
        phi = p["phi"]
        return (1 - phi) * phi ** pos.astype(np.float64)
    if kind == "map":
        return np.asarray(p["map_scores"][st.run] / (pos + 1))
    if kind == "borda":
        n_cand = _n_candidates(st)
        return (n_cand[st.qcode] - pos).astype(np.float64)
    if kind == "pos":
        return np.asarray(_at_position(p["probs"], st.run, pos, 0.0))
    if kind == "bayes":
        return np.asarray(_at_position(p["log_odds"], st.run, pos, MIN_LOG_ODDS))
    if kind == "prob":
        n_seg = np.array([a.size for a in p["probs"]], dtype=np.int64)
        if np.any(n_seg == 0):
            raise InputError("fuse: params['probs'] of probfuse needs one value per segment.")
        size = -(-st.length // n_seg[st.run])  # ceil(n / S)
        k = pos // np.maximum(size, 1)
        m = _padded(p["probs"], 0.0)
        return np.asarray(m[st.run, k] / (k + 1))
    if kind == "seg":
        k = np.searchsorted(SEGFUSE_BOUNDS, pos, side="right") - 1
        m = _padded([a[: SEGFUSE_BOUNDS.size - 1] for a in p["probs"]], 0.0)
        k = np.minimum(k, m.shape[1] - 1)
        return np.asarray(m[st.run, k] * (st.score + 1))
    if kind == "slide":
        w, n = p["w"], st.length
        a = np.maximum(pos - w, 0)
        b = np.minimum(pos + w, n - 1)
        lens = np.array([x.size for x in p["probs"]], dtype=np.int64)
        cs = np.zeros((st.n_runs, int(lens.max(initial=0)) + 1))
        for i, x in enumerate(p["probs"]):  # one cumulative sum per run
            cs[i, 1 : x.size + 1] = np.cumsum(x)
            cs[i, x.size + 1 :] = cs[i, x.size]
        lr = lens[st.run]
        total = cs[st.run, np.minimum(b + 1, lr)] - cs[st.run, np.minimum(a, lr)]
        return np.asarray(total / (b - a + 1))
    raise AssertionError(kind)


def _n_candidates(st: Stack) -> np.ndarray:
    """The number of distinct documents the runs return for each query."""
    keys, _, _ = candidates(st)
    return np.bincount(keys // max(st.n_docs, 1), minlength=st.n_queries)


def _borda_fill(st: Stack) -> tuple[np.ndarray, np.ndarray]:
    """BordaFuse's points for a candidate a run does not return, per (run, query):
    ``(C - n_r + 1) / 2``; and the number of candidates per query."""
    n_cand = _n_candidates(st)
    return (n_cand[None, :] - st.lengths + 1) / 2.0, n_cand


def _combine(
    method: Method,
    st: Stack,
    vals: np.ndarray,
    p: dict[str, Any],
    missing: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each candidate's fused score: (its query code, doc code, score, first row)."""
    keys, first, inv = candidates(st)
    nd = max(st.n_docs, 1)
    cand_q, cand_d = keys // nd, keys % nd
    nc = keys.size
    cnt = np.bincount(inv, minlength=nc).astype(np.float64)
    kind, r = method.combination, st.n_runs

    def total(x: np.ndarray) -> np.ndarray:
        return np.bincount(inv, weights=x, minlength=nc)

    if kind == "sum":
        fused = total(vals)
    elif kind == "mnz":
        fused = total(vals) * cnt
    elif kind == "anz":
        fused = total(vals) / cnt
    elif kind == "gmnz":
        fused = total(vals) * cnt ** p["gamma"]
    elif kind == "log":
        fused = total(vals) * np.log(cnt)
    elif kind == "logn":
        fused = total(vals) * np.log(cnt + p["sigma"])
    elif kind == "wsum":
        fused = total(p["weights"][st.run] * vals)
    elif kind == "wmnz":
        fused = total(vals) * total(p["weights"][st.run])
    elif kind == "mixed":
        fused = total(p["weights"][st.run] * vals) * np.sqrt(cnt)
    elif kind == "bayes":
        fused = total(vals) + (r - cnt) * MIN_LOG_ODDS
    elif kind in ("borda", "wborda"):
        fill, _ = _borda_fill(st)
        w = p["weights"] if kind == "wborda" else np.ones(r)
        row_fill = fill[st.run, st.qcode]
        fused = total(w[st.run] * (vals - row_fill)) + (w[:, None] * fill).sum(axis=0)[cand_q]
    elif kind in ("max", "min"):
        fn = np.maximum if kind == "max" else np.minimum
        fused = np.full(nc, -np.inf if kind == "max" else np.inf)
        fn.at(fused, inv, vals)
        if missing == "zero":
            fused = np.where(cnt < r, fn(fused, 0.0), fused)
    elif kind == "med":
        fused = _median(vals, inv, cnt, r if missing == "zero" else None)
    else:
        raise AssertionError(kind)
    return cand_q, cand_d, np.asarray(fused, dtype=np.float64), first


def _median(vals: np.ndarray, inv: np.ndarray, cnt: np.ndarray, n_runs: int | None) -> np.ndarray:
    """The median of each candidate's values (with ``n_runs``: the absent runs as 0)."""
    if n_runs is not None:  # add a zero for every absent run
        n_zero = (n_runs - cnt).astype(np.int64)
        inv = np.concatenate([inv, np.repeat(np.arange(cnt.size), n_zero)])
        vals = np.concatenate([vals, np.zeros(int(n_zero.sum()))])
        cnt = np.full(cnt.size, float(n_runs))
    starts = np.zeros(cnt.size, dtype=np.int64)
    np.cumsum(cnt[:-1].astype(np.int64), out=starts[1:])
    order = np.lexsort((vals, inv))
    v = vals[order]
    c = cnt.astype(np.int64)
    return np.asarray((v[starts + (c - 1) // 2] + v[starts + c // 2]) / 2.0)


# ------------------------------------------------------------------------------ fuse


def fuse_stack(
    st: Stack,
    method: Method,
    params: dict[str, Any],
    *,
    ties: str,
    missing: str,
    name: str | None,
    depth: int | None,
) -> Run:
    """The fused run of a normalised stack (parameters checked and trained)."""
    vals = _contribution(method, st, params)
    q, d, score, first = _combine(method, st, vals, params, missing)
    return fused_run(st, q, d, score, first, ties=ties, name=name, depth=depth)


def fuse(
    runs: Sequence[Run],
    method: str,
    norm: str | None = "min-max",
    params: Mapping[str, Any] | None = None,
    *,
    qrels: Qrels | None = None,
    ties: str = "input",
    missing: str = "ignore",
    rel_threshold: float = 1.0,
    depth: int | None = None,
    name: str | None = None,
) -> Run:
    """Fuse several runs into one :class:`~ranklens.Run` (numbers equal to ranx's
    ``fuse``).

    Parameters
    ----------
    runs:
        Two or more :class:`~ranklens.Run`.  A query a run lacks (or names without
        documents) is an empty ranking of that run; the fused run has every query of
        any run (one no run returns a document for is one of its
        :attr:`~ranklens.Run.empty_queries`).
    method:
        One of :data:`METHODS` (``sum``, ``mnz``, ``anz``, ``max``, ``min``, ``med``,
        ``gmnz``, ``rrf``, ``isr``, ``log_isr``, ``logn_isr``, ``bordafuse``,
        ``w_bordafuse``, ``wsum``, ``wmnz``, ``mixed``, ``rbc``, ``bayesfuse``,
        ``posfuse``, ``probfuse``, ``segfuse``, ``slidefuse``, ``mapfuse``); ranx's
        ``comb_*`` spellings are accepted.  ``ranklens.fusion.METHODS[name]`` holds each
        one's formula and citation.
    norm:
        The normalisation applied to each ranking first (ranx's default ``min-max``;
        ``max``, ``sum``, ``zmuv``, ``rank``, ``borda``, ``min-max-inverted``, or
        ``None``/``"none"``); see :mod:`ranklens.fusion.norms`.
    params:
        The method's parameters, as ranx takes them: ``k`` (rrf, default 60),
        ``weights`` (one per run: wsum, wmnz, mixed, w_bordafuse), ``gamma`` (gmnz),
        ``sigma`` (logn_isr, default 0.01), ``phi`` (rbc), ``w`` (slidefuse), and the
        trained ones: ``log_odds`` (bayesfuse), ``probs`` (posfuse, probfuse, segfuse,
        slidefuse), ``map_scores`` (mapfuse).
    qrels:
        Judgments to train the trained parameters from when ``params`` does not give
        them (:func:`~ranklens.fusion.train_fusion`: relevant is a grade of
        ``rel_threshold`` or more; ranx's ``rel_lvl`` 1).
    ties:
        Documents of one input ranking that tie on score, and fused documents that
        tie: ``input`` (their order in the run, and in the fused run the order in
        which they first appear in the runs: ranx's order) or ``trec`` (document id
        descending).
    missing:
        CombMIN / CombMAX / CombMED over the runs that return a document
        (``ignore``, ranx) or with 0 for the runs that do not (``zero``).
    depth:
        Keep only the best ``depth`` documents of each query (ranx keeps all).
    name:
        The fused run's name (default: the method's name).

    Conventions: ranx's throughout.  Where ranx's result depends on a Python set's
    order, ours follows a rule: after ``borda`` normalisation the documents a run did
    not return rank after its own, in order of first appearance (ranx: set order, which
    the rank-based methods then read), and BordaFuse's tied fused documents come in
    order of first appearance in the runs' own rankings.  Where ranx sorts unstably
    (rankings of more than 15 documents with tied scores), ours keeps ``ties``.  ranx's
    ``zmuv`` loses every ranking of a run that has an empty one; ours normalises the
    others as usual.

    Examples
    --------
    >>> from ranklens import Run
    >>> a = Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})
    >>> b = Run.from_dict({"q": {"d2": 9.0, "d4": 8.0}})
    >>> fuse([a, b], "rrf", norm=None, params={"k": 0}).to_dict()
    {'q': {'d2': 1.5, 'd1': 1.0, 'd4': 0.5, 'd3': 0.3333333333333333}}
    >>> fuse([a, b], "mnz").to_dict()  # min-max: a = (1, .5, 0), b = (1, 0)
    {'q': {'d2': 3.0, 'd1': 1.0, 'd3': 0.0, 'd4': 0.0}}
    """
    check_choice("ties", ties, TIES, where="fuse")
    check_choice("missing", missing, MISSING, where="fuse")
    spec = method_spec(method)
    norm_key = norm_name(norm)
    if depth is not None and (isinstance(depth, bool) or int(depth) != depth or depth < 1):
        raise InputError(f"fuse: depth must be a whole number >= 1, got {depth!r}.")
    runs = list(runs) if isinstance(runs, Sequence) and not isinstance(runs, Run) else runs
    n_runs = len(runs) if isinstance(runs, list) else 0
    given = dict(params or {})
    p = check_params(spec, given, n_runs)
    untrained = [t for t in spec.trained if t not in p]
    if untrained and qrels is None:
        raise InputError(
            f"fuse: method={spec.name!r} needs params['{untrained[0]}'] learnt from "
            "judgments; pass qrels=<training qrels> (they are trained on them) or "
            f"params from train_fusion(qrels, runs, method={spec.name!r})."
        )
    st = stack_runs(
        runs,
        ties=ties,
        qrels=qrels if untrained else None,
        rel_threshold=rel_threshold,
    )
    st = normalise(st, norm_key)
    if untrained:
        trained = train_stack(st, spec, p, where="fuse", qrels=qrels, rel_threshold=rel_threshold)
        p = check_params(spec, given | trained, n_runs)
    return fuse_stack(st, spec, p, ties=ties, missing=missing, name=name or spec.name, depth=depth)
