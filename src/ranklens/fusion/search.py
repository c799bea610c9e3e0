"""Choosing a fusion method's settings against a metric on training queries
(ranx's ``optimize_fusion``).

The runs are stacked and normalised once; every trial fuses the stack with one
setting and evaluates the fused run with :func:`ranklens.evaluate` (the ``ranx``
profile by default).  The search spaces are ranx's:

- ``weights`` (wsum, wmnz, mixed, w_bordafuse): every tuple of multiples of
  ``step`` (0.1) in [0, 1], one per run, whose sum is exactly 1.0 when added up
  left to right in floating point (ranx's rule, which leaves out a few tuples such
  as (0.7, 0.2, 0.1), whose float sum is 0.9999999999999999);
- ``k`` (rrf): 10, 20, ..., 100; ``gamma`` (gmnz), ``sigma`` (logn_isr) and ``phi``
  (rbc): 0.01, 0.02, ..., 1.0;
- ``n_segments`` (probfuse, retrained for each): 1, ..., 100; ``w`` (slidefuse):
  1, ..., 100;
- the trained parameters are learnt from the same qrels (:func:`train_fusion`).

``search="grid"`` tries every setting in order; ``search="random"`` tries
``n_trials`` of them drawn without repeats by ``seed`` (in grid order).  The best
is the *last* setting with the highest score, as ranx keeps the last of equal ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.fusion.methods import fuse_stack
from ranklens.fusion.norms import normalise
from ranklens.fusion.spec import MISSING, check_params, method_spec, norm_name
from ranklens.fusion.stack import TIES, stack_runs
from ranklens.fusion.training import train_stack
from ranklens.ranking.data import Qrels, Run

__all__ = ["SEARCHES", "Optimization", "optimize_fusion", "search_space", "weight_grid"]

SEARCHES = ("grid", "random")


def _steps(low: float, high: float, step: float) -> list[float]:
    """ranx's grid of a number: ``low, low + step, ...`` up to ``high``, rounded to
    the decimals of ``step``."""
    digits = max(str(step)[::-1].find("."), 0)
    return [round(float(x), digits) for x in np.arange(low, high + step, step)]


def weight_grid(n_runs: int, step: float = 0.1) -> list[tuple[float, ...]]:
    """Every weight tuple of ranx's grid: multiples of ``step`` in [0, 1], one per
    run, summing to exactly 1.0 in floating point (added left to right).

    >>> weight_grid(2, 0.25)
    [(0.0, 1.0), (0.25, 0.75), (0.5, 0.5), (0.75, 0.25), (1.0, 0.0)]
    >>> (0.1, 0.2, 0.7) in weight_grid(3), (0.7, 0.2, 0.1) in weight_grid(3)
    (True, False)
    """
    values = _steps(0.0, 1.0, step)
    return [w for w in product(values, repeat=n_runs) if sum(w) == 1.0]


def search_space(method: str, n_runs: int, step: float | None = None) -> dict[str, list[Any]]:
    """The values ranx's ``optimize_fusion`` tries for ``method``'s settings (``step``
    replaces the grid step of weights, ``gamma``, ``sigma``, ``phi`` or ``k``)."""
    name = method_spec(method, "optimize_fusion").name
    if name in ("wsum", "wmnz", "mixed", "w_bordafuse"):
        return {"weights": [list(w) for w in weight_grid(n_runs, step or 0.1)]}
    if name == "rrf":
        return {"k": list(range(10, 101, int(step or 10)))}
    if name in ("gmnz", "logn_isr", "rbc"):
        param = {"gmnz": "gamma", "logn_isr": "sigma", "rbc": "phi"}[name]
        return {param: _steps(0.01, 1.0, step or 0.01)}
    if name == "probfuse":
        return {"n_segments": list(range(1, 101))}
    if name == "slidefuse":
        return {"w": list(range(1, 101))}
    return {}


@dataclass(frozen=True)
class Optimization:
    """What :func:`optimize_fusion` found: the best settings, their score, the fused
    run with them, and every setting tried with its score (in the order tried)."""

    method: str
    norm: str
    metric: str
    best_params: dict[str, Any]
    best_score: float
    run: Run
    trials: list[tuple[dict[str, Any], float]] = field(default_factory=list)

    def table(self) -> list[dict[str, Any]]:
        """The tried settings as rows ``{setting..., metric: score}``."""
        return [dict(setting) | {self.metric: score} for setting, score in self.trials]


def optimize_fusion(
    qrels: Qrels,
    runs: Sequence[Run],
    method: str,
    metric: str = "ndcg",
    norm: str | None = "min-max",
    *,
    search: str = "grid",
    n_trials: int | None = None,
    seed: int | None = None,
    space: Mapping[str, Sequence[Any]] | None = None,
    step: float | None = None,
    params: Mapping[str, Any] | None = None,
    profile: str = "ranx",
    ties: str = "input",
    missing: str = "ignore",
    rel_threshold: float = 1.0,
    name: str | None = None,
) -> Optimization:
    """Choose ``method``'s settings that score best on ``metric`` over the queries of
    ``qrels`` (ranx's ``optimize_fusion``; the best settings equal ranx's).

    ``space``: the values to try, by setting name (default :func:`search_space`, ranx's
    grids; ``step`` changes their step); ``params``: settings held fixed.  ``metric``
    is any metric string of :func:`ranklens.evaluate`, evaluated with ``profile``
    (``ranx`` by default) at relevance ``rel_threshold``; ``search`` is ``grid``
    (every setting) or ``random`` (``n_trials`` settings drawn by ``seed``).  The
    other arguments are :func:`~ranklens.fusion.fuse`'s.

    >>> from ranklens import Qrels, Run
    >>> qrels = Qrels.from_dict({"q": {"d2": 1}})
    >>> a = Run.from_dict({"q": {"d1": 2.0, "d2": 1.0}})
    >>> b = Run.from_dict({"q": {"d2": 2.0, "d1": 1.0}})
    >>> found = optimize_fusion(qrels, [a, b], "wsum", "mrr", step=0.5)
    >>> found.best_params, found.best_score, found.table()
    ({'weights': [0.0, 1.0]}, 1.0, [{'weights': [0.0, 1.0], 'mrr': 1.0}, \
{'weights': [0.5, 0.5], 'mrr': 0.5}, {'weights': [1.0, 0.0], 'mrr': 0.5}])
    """
    from ranklens.ranking.evaluation import evaluate

    where = "optimize_fusion"
    check_choice("search", search, SEARCHES, where=where)
    check_choice("ties", ties, TIES, where=where)
    check_choice("missing", missing, MISSING, where=where)
    if not isinstance(qrels, Qrels):
        raise InputError(f"{where}: qrels must be a ranklens.Qrels, got {type(qrels).__name__}.")
    spec = method_spec(method, where)
    norm_key = norm_name(norm, where)
    st = stack_runs(runs, ties=ties, qrels=qrels, rel_threshold=rel_threshold, where=where)
    st = normalise(st, norm_key)
    fixed = dict(params or {})
    grid = dict(space) if space is not None else search_space(spec.name, st.n_runs, step)
    unknown = sorted(set(grid) - set(spec.params))
    if unknown:
        raise InputError(
            f"{where}: space names {', '.join(unknown)}, which method={spec.name!r} does not "
            f"take (it takes {', '.join(spec.params) or 'no settings'})."
        )
    names = list(grid)
    settings = [dict(zip(names, values, strict=True)) for values in product(*grid.values())]
    if not settings:
        raise InputError(f"{where}: space has no values to try; give at least one per setting.")
    if search == "random":
        if n_trials is None or isinstance(n_trials, bool) or int(n_trials) < 1:
            raise InputError(
                f"{where}: search='random' needs n_trials=N (a whole number >= 1), got "
                f"{n_trials!r}."
            )
        if n_trials < len(settings):
            rng = np.random.default_rng(seed)
            picked = np.sort(rng.choice(len(settings), size=int(n_trials), replace=False))
            settings = [settings[i] for i in picked]
    trained: dict[str, Any] = {}
    needs_training = [t for t in spec.trained if t not in fixed]
    if needs_training and "n_segments" not in names:  # trained once for every trial
        trained = train_stack(
            st, spec, fixed, where=where, qrels=qrels, rel_threshold=rel_threshold
        )
    trials: list[tuple[dict[str, Any], float]] = []
    label = metric
    runs_by_trial: list[dict[str, Any]] = []
    for setting in settings:  # one fusion and one evaluation per setting
        p = fixed | trained | setting
        if needs_training and "n_segments" in setting:
            p |= train_stack(st, spec, p, where=where, qrels=qrels, rel_threshold=rel_threshold)
        full = check_params(spec, p, st.n_runs, where)
        fused = fuse_stack(st, spec, full, ties=ties, missing=missing, name=None, depth=None)
        res = evaluate(qrels, fused, metric, profile=profile, rel_threshold=rel_threshold)
        label, score = next(iter(res.summary().items()))
        trials.append((setting, float(score)))
        runs_by_trial.append(full)
    scores = np.array([s for _, s in trials])
    best = int(np.flatnonzero(scores == scores.max())[-1])
    best_full = runs_by_trial[best]
    best_params = trials[best][0] | {k: best_full[k] for k in spec.trained if k in best_full}
    run = fuse_stack(
        st, spec, best_full, ties=ties, missing=missing, name=name or spec.name, depth=None
    )
    return Optimization(
        method=spec.name,
        norm=norm_key,
        metric=str(label),
        best_params=best_params,
        best_score=float(scores[best]),
        run=run,
        trials=trials,
    )
