"""The fusion methods, declared once, and :func:`fuse`.

A method is two steps over the stacked runs (:mod:`ranklens.fusion.stack`): each
row's *contribution* (its normalised score, or a function of its 0-based position
``p`` in its ranking), then a *combination* of the contributions of one
(query, doc) candidate over the runs that return it (``n_d`` of the ``R`` runs).
Both are vectorised over every query at once.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.fusion.norms import ALIASES, NORMS, candidates, normalise
from ranklens.fusion.stack import TIES, Stack, fused_run, stack_runs
from ranklens.ranking.data import Qrels, Run

__all__ = ["METHODS", "MISSING", "Method", "fuse", "fuse_stack", "method_spec"]

#: What a document that a run does not return counts as, for CombMIN, CombMAX and
#: CombMED: ``ignore`` (the runs that return it only; ranx, whose stand-ins are
#: +1e9 and -1e9) or ``zero`` (a score of 0, Fox & Shaw's reading).
MISSING = ("ignore", "zero")

#: BayesFuse's log-odds of a document a run does not return (ranx's value), also
#: given to positions past the last trained one.
MIN_LOG_ODDS = math.log(0.001 / 0.999)

#: SegFuse's segment boundaries: 0, 5, 15, 35, ... (``10 * 2**(k-1) - 5``).
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)], dtype=np.int64)


@dataclass(frozen=True)
class Method:
    """One fusion method: its name, how a row contributes, how a candidate's
    contributions combine, its parameters (with defaults where ranx has one), the
    ones learnt from qrels, and where it comes from."""

    name: str
    title: str
    contribution: str
    combination: str
    params: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    trained: tuple[str, ...] = ()
    training: tuple[str, ...] = ()  # settings of the training only (probfuse's n_segments)
    formula: str = ""
    cite: str = ""


_FOX = "Fox & Shaw, Combination of Multiple Searches, TREC-2 (1994)"
_ISR = "Mourao, Martins & Magalhaes, Multimodal medical IR with unsupervised rank fusion (2015)"
_ASLAM = "Aslam & Montague, Models for Metasearch, SIGIR 2001"
_LILLIS06 = "Lillis, Toolan, Collier & Dunnion, ProbFuse, SIGIR 2006"
_LILLIS10 = "Lillis et al., Estimating probabilities for effective data fusion, SIGIR 2010"

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("sum", "CombSUM", "score", "sum", formula="sum_r s_r", cite=_FOX),
        Method("mnz", "CombMNZ", "score", "mnz", formula="n_d * sum_r s_r", cite=_FOX),
        Method("anz", "CombANZ", "score", "anz", formula="sum_r s_r / n_d", cite=_FOX),
        Method("max", "CombMAX", "score", "max", formula="max_r s_r", cite=_FOX),
        Method("min", "CombMIN", "score", "min", formula="min_r s_r", cite=_FOX),
        Method("med", "CombMED", "score", "med", formula="median_r s_r", cite=_FOX),
        Method(
            "gmnz",
            "CombGMNZ",
            "score",
            "gmnz",
            ("gamma",),
            formula="n_d**gamma * sum_r s_r",
            cite="Joon Ho Lee, Analyses of multiple evidence combination, SIGIR 1997",
        ),
        Method(
            "rrf",
            "Reciprocal rank fusion",
            "rrf",
            "sum",
            ("k",),
            {"k": 60},
            formula="sum_r 1 / (k + p_r + 1)",
            cite="Cormack, Clarke & Buettcher, Reciprocal rank fusion, SIGIR 2009",
        ),
        Method("isr", "ISR", "isr", "mnz", formula="n_d * sum_r 1 / (p_r + 1)**2", cite=_ISR),
        Method(
            "log_isr", "log-ISR", "isr", "log", formula="log(n_d) * sum_r 1/(p_r+1)**2", cite=_ISR
        ),
        Method(
            "logn_isr",
            "logN-ISR",
            "isr",
            "logn",
            ("sigma",),
            {"sigma": 0.01},
            formula="log(n_d + sigma) * sum_r 1/(p_r+1)**2",
            cite=_ISR,
        ),
        Method(
            "bordafuse",
            "BordaFuse",
            "borda",
            "borda",
            formula="sum_r (C - p_r), a run without d: (C - n_r + 1) / 2",
            cite=_ASLAM,
        ),
        Method(
            "w_bordafuse",
            "Weighted BordaFuse",
            "borda",
            "wborda",
            ("weights",),
            formula="sum_r w_r * borda_r",
            cite=_ASLAM,
        ),
        Method(
            "wsum",
            "Weighted sum",
            "score",
            "wsum",
            ("weights",),
            formula="sum_r w_r s_r",
            cite=_FOX,
        ),
        Method(
            "wmnz",
            "Weighted MNZ",
            "score",
            "wmnz",
            ("weights",),
            formula="(sum_r w_r over runs with d) * sum_r s_r",
            cite="Wu, Crestani & Bi, Evaluating score normalization methods in data fusion (2006)",
        ),
        Method(
            "mixed",
            "Mixed",
            "score",
            "mixed",
            ("weights",),
            formula="sqrt(n_d) * sum_r w_r s_r",
            cite="Wu & Crestani, Data fusion with estimated weights, CIKM 2002",
        ),
        Method(
            "rbc",
            "Rank-biased centroids",
            "rbc",
            "sum",
            ("phi",),
            formula="sum_r (1 - phi) * phi**p_r",
            cite="Bailey, Moffat, Scholer & Thomas, Retrieval consistency, SIGIR 2017",
        ),
        Method(
            "bayesfuse",
            "BayesFuse",
            "bayes",
            "bayes",
            ("log_odds",),
            trained=("log_odds",),
            formula="sum_r log_odds_r[p_r], a run without d: log(0.001/0.999)",
            cite=_ASLAM,
        ),
        Method(
            "posfuse",
            "PosFuse",
            "pos",
            "sum",
            ("probs",),
            trained=("probs",),
            formula="sum_r probs_r[p_r]",
            cite=_LILLIS10,
        ),
        Method(
            "probfuse",
            "ProbFuse",
            "prob",
            "sum",
            ("probs", "n_segments"),
            trained=("probs",),
            training=("n_segments",),
            formula="sum_r probs_r[k] / (k + 1), k = p_r // ceil(n_r / S)",
            cite=_LILLIS06,
        ),
        Method(
            "segfuse",
            "SegFuse",
            "seg",
            "sum",
            ("probs",),
            trained=("probs",),
            formula="sum_r probs_r[k] * (s_r + 1), k the segment of p_r",
            cite="Shokouhi, Segmentation of search engine results for effective data-fusion, "
            "ECIR 2007",
        ),
        Method(
            "slidefuse",
            "SlideFuse",
            "slide",
            "sum",
            ("probs", "w"),
            trained=("probs",),
            formula="sum_r mean(probs_r[max(p-w,0) .. min(p+w,n_r-1)])",
            cite="Lillis et al., Extending probabilistic data fusion using sliding windows, "
            "ECIR 2008",
        ),
        Method(
            "mapfuse",
            "MAPFuse",
            "map",
            "sum",
            ("map_scores",),
            trained=("map_scores",),
            formula="sum_r MAP_r / (p_r + 1)",
            cite=_LILLIS10,
        ),
    )
}

#: Other spellings: ranx's names of the Comb* methods and common long ones.
METHOD_ALIASES = {
    "comb_sum": "sum",
    "combsum": "sum",
    "comb_mnz": "mnz",
    "combmnz": "mnz",
    "comb_anz": "anz",
    "combanz": "anz",
    "comb_max": "max",
    "combmax": "max",
    "comb_min": "min",
    "combmin": "min",
    "comb_med": "med",
    "comb_gmnz": "gmnz",
    "borda": "bordafuse",
    "weighted_sum": "wsum",
}


def method_spec(name: str, where: str = "fuse") -> Method:
    """The :class:`Method` named ``name`` (or one of its other spellings)."""
    key = METHOD_ALIASES.get(str(name).lower(), str(name).lower())
    if key not in METHODS:
        raise InputError(
            f"{where}: method={name!r} is not a fusion method; use one of {', '.join(METHODS)}."
        )
    return METHODS[key]


def norm_name(norm: str | None, where: str = "fuse") -> str:
    """The normalisation's canonical name (None is ``none``)."""
    key = "none" if norm is None else ALIASES.get(str(norm).lower(), str(norm).lower())
    return check_choice("norm", key, NORMS, where=where)


# ------------------------------------------------------------------------ parameters


def _floats(value: Any, what: str, where: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{where}: {what} must be numbers, got {value!r}.") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{where}: {what} must be finite numbers, got {value!r}.")
    return arr


def _per_run(value: Any, n_runs: int, name: str, where: str) -> list[np.ndarray]:
    """One 1-d array per run (``probs``, ``log_odds``)."""
    if isinstance(value, np.ndarray) and value.ndim == 2:
        value = list(value)
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != n_runs:
        got = len(value) if isinstance(value, Sequence) else type(value).__name__
        raise InputError(
            f"{where}: params['{name}'] must hold one array per run ({n_runs} runs), got "
            f"{got}; train them with train_fusion(qrels, runs, method=...) or pass qrels=."
        )
    return [_floats(v, f"params['{name}'][{i}]", where).reshape(-1) for i, v in enumerate(value)]


def check_params(
    method: Method,
    params: Mapping[str, Any] | None,
    n_runs: int,
    where: str = "fuse",
    *,
    require: bool = True,
) -> dict[str, Any]:
    """``params`` checked against ``method``: known names, with the defaults filled
    in (trained parameters may be absent: the caller trains them)."""
    given = dict(params or {})
    unknown = sorted(set(given) - set(method.params))
    if unknown:
        takes = ", ".join(method.params) if method.params else "no parameters"
        raise InputError(
            f"{where}: method={method.name!r} takes {takes}; params names {', '.join(unknown)}."
        )
    out: dict[str, Any] = dict(method.defaults) | given
    for name in method.params:
        if not require or name in method.trained or name in method.training or name in out:
            continue
        hint = (
            f"[w_1, ..., w_{n_runs}]"
            if name == "weights"
            else {"gamma": "0.5", "phi": "0.8", "w": "2"}.get(name, "...")
        )
        raise InputError(
            f"{where}: method={method.name!r} needs params={{'{name}': {hint}}}; "
            f"find it with optimize_fusion(qrels, runs, method={method.name!r}, ...)."
        )
    if "weights" in out:
        w = _floats(out["weights"], "params['weights']", where).reshape(-1)
        if w.size != n_runs:
            raise InputError(
                f"{where}: params['weights'] has {w.size} weight(s) for {n_runs} runs; give "
                "one weight per run, in the order of the runs."
            )
        out["weights"] = w
    for name in ("k", "gamma", "sigma", "phi"):
        if name in out:
            v = _floats(out[name], f"params['{name}']", where)
            if v.ndim != 0:
                raise InputError(
                    f"{where}: params['{name}'] must be one number, got {out[name]!r}."
                )
            out[name] = float(v)
    if "sigma" in out and not 0.0 <= out["sigma"] <= 1.0:
        raise InputError(f"{where}: params['sigma'] must be in [0, 1], got {out['sigma']}.")
    for name in ("w", "n_segments"):
        if name not in out:
            continue
        low = 1 if name == "n_segments" else 0
        v = out[name]
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise InputError(f"{where}: params['{name}'] must be a whole number, got {v!r}.")
        if int(v) != v or int(v) < low:
            raise InputError(
                f"{where}: params['{name}'] must be a whole number >= {low}, got {v!r}."
            )
        out[name] = int(v)
    for name in ("probs", "log_odds"):
        if name in out:
            out[name] = _per_run(out[name], n_runs, name, where)
    if "map_scores" in out:
        ms = _floats(out["map_scores"], "params['map_scores']", where).reshape(-1)
        if ms.size != n_runs:
            raise InputError(
                f"{where}: params['map_scores'] has {ms.size} value(s) for {n_runs} runs."
            )
        out["map_scores"] = ms
    return out


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

    Conventions: ranx's throughout, with two named departures where ranx's result
    depends on a Python set's order (after ``borda`` normalisation, the documents a
    run did not return rank after its own in order of first appearance) or on
    unstable sorting (rankings of more than 15 documents with tied scores: ranx's
    sort is not stable there; ours keeps ``ties``).

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
        from ranklens.fusion.training import train_stack

        trained = train_stack(st, spec, p, where="fuse", qrels=qrels, rel_threshold=rel_threshold)
        p = check_params(spec, given | trained, n_runs)
    return fuse_stack(st, spec, p, ties=ties, missing=missing, name=name or spec.name, depth=depth)
