"""The fusion methods declared once: names, formulas, parameters (with ranx's
defaults), the ones learnt from judgments, citations; and the checking of a
method's parameters.  :mod:`ranklens.fusion.methods` runs them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.fusion.norms import ALIASES, NORMS

__all__ = [
    "METHODS",
    "METHOD_ALIASES",
    "MIN_LOG_ODDS",
    "MISSING",
    "SEGFUSE_BOUNDS",
    "Method",
    "check_params",
    "method_spec",
    "norm_name",
]

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
