r"""Off-policy evaluation: the value of a new policy from the log of an old one.

A *log* holds rounds ``i = 1..n``: a context ``x_i`` (a user, a query), the action
``a_i`` the logging policy chose (an item; at a position ``k_i`` of a list when the
interface shows several), the reward ``r_i`` observed and the logging propensity
``p_i = pi_0(a_i | x_i, k_i)``.  The *target* policy is given by its action
probabilities ``pi(a | x_i, k)`` for every action (``action_dist``, shape (n, actions)
or (n, actions, positions) as Open Bandit Pipeline takes it; a ranking becomes one with
:func:`policy_from_scores`), and the model-based estimators take a reward model's
predictions ``q(x_i, a, k)`` of the same shape (``estimated_rewards``).  With the
importance weight ``w_i = pi(a_i | x_i, k_i) / p_i`` and, at the round's position,
``q_i = q(x_i, a_i, k_i)`` and ``m_i = sum_a pi(a | x_i, k_i) q(x_i, a, k_i)``:

============================  ===================================================================
estimator                     estimate
============================  ===================================================================
``dm``                        direct method: ``mean(m_i)``
``ips``                       inverse propensity scoring: ``mean(w_i r_i)``
``snips``                     self-normalised IPS: ``sum(w_i r_i) / sum(w_i)``
``clipped-ips(L)``            ``mean(min(w_i, L) r_i)``
``dr``                        doubly robust: ``mean(m_i + w_i (r_i - q_i))``
``sndr``                      self-normalised DR: ``mean(m_i) + sum(w_i (r_i - q_i)) / sum(w_i)``
``switch-dr(T)``              ``mean(m_i + [w_i <= T] w_i (r_i - q_i))``
``dr-os(L)``                  DR with optimistic shrinkage:
                              ``mean(m_i + L w_i / (w_i^2 + L) (r_i - q_i))`` (``L = inf``: DR)
============================  ===================================================================

Entry points: :func:`ope_arrays` (arrays shaped as Open Bandit Pipeline's),
:func:`ope_tables` (a log table and a policy table, as ``ranklens ope`` reads them),
:func:`slate_ope` and :func:`slate_ope_tables` for slates.

Rankings and slates (:func:`slate_ope`): a slate ``s`` shows items at positions
``k = 1..K`` with a reward per position; the estimators weight each position's reward by
the ratio of the target's to the logger's probability of what was shown, under three
assumptions on how users react (Open Bandit Pipeline's ``pscore`` arguments):

- ``slate-ips`` (standard IPS): the whole slate's probability (``pscore``); unbiased
  for any reward model;
- ``slate-iips`` (independent IPS): the probability of the item at its position
  (``pscore_item_position``); unbiased when each position's reward depends on its own
  item only (the position-based click model; Li et al. 2018);
- ``slate-rips`` (reward-interaction IPS): the probability of the items at positions
  ``1..k`` (``pscore_cascade``); unbiased under the cascade model, where the reward at
  ``k`` depends on the items above it (McInerney et al. 2020);
- ``slate-snips``, ``slate-sniips``, ``slate-snrips``: their self-normalised forms
  (Open Bandit Pipeline's definition: ``slate-snips`` divides by the mean weight of
  all rows, the other two by the mean weight at each position).

Each estimate is the sum over a slate's rows of ``w r``, averaged over slates.

Conventions (Open Bandit Pipeline 0.5.7's, ``obp.ope``, which the tests reproduce to
1e-12): a log without positions is at one position; the self-normalised estimators
divide by the mean weight over all rounds (``sndr`` self-normalises the correction term
only); ``switch-dr`` keeps the correction where ``w <= T`` (``T`` included) and
``dr-os`` with ``L = 0`` is the direct method.  The probabilities of every round (and
position) must sum to 1 (within 1e-6); a propensity must be in (0, 1].

Intervals and diagnostics (one set of statistics, :mod:`ranklens.comparison.stats`):

- ``ci="t"`` (default): the estimator's own variance, the t interval of the mean of
  its per-round values; for the self-normalised estimators of their linearised values
  (the delta method: ``R + (w r - R w) / mean(w)`` for ``snips``), whose mean is the
  estimate;
- ``ci="percentile"`` or ``"bca"``: the bootstrap, resampling rounds (slates) with
  ``n_resamples`` and ``seed``; all estimators share one resampling, and a
  self-normalised estimator is recomputed (re-normalised) on every resample;
- ``ess``: the effective sample size of the weights the estimator uses,
  Kish's ``(sum w)^2 / sum w^2`` (``n`` for ``dm``);
- warnings (:class:`~ranklens.errors.RanklensWarning`, also kept in ``warnings``):
  *tiny propensities*, when a logged action's propensity is below ``1 / max_weight``
  of the target's probability (an importance weight above ``max_weight``, default
  1000), and *support deficiency*, when the target puts probability on actions the
  logger never takes: with ``logging_dist`` (the logger's full distribution) where it
  is 0, else on actions (at a position) that appear nowhere in the log.  The share of
  the target's mass there is ``support_deficit``; no estimator here is unbiased for
  it.

References
----------
- D. G. Horvitz, D. J. Thompson, "A generalization of sampling without replacement
  from a finite universe", JASA 47 (1952): IPS.
- M. Dudík, J. Langford, L. Li, "Doubly Robust Policy Evaluation and Learning",
  ICML 2011: DR.
- A. Swaminathan, T. Joachims, "The Self-Normalized Estimator for Counterfactual
  Learning", NeurIPS 2015: SNIPS.
- Y.-X. Wang, A. Agarwal, M. Dudík, "Optimal and Adaptive Off-policy Evaluation in
  Contextual Bandits", ICML 2017: switch-DR.
- Y. Su, M. Dimakopoulou, A. Krishnamurthy, M. Dudík, "Doubly Robust Off-policy
  Evaluation with Shrinkage", ICML 2020: DR-os.
- A. Swaminathan et al., "Off-policy evaluation for slate recommendation",
  NeurIPS 2017; S. Li et al., "Offline Evaluation of Ranking Policies with Click
  Models", KDD 2018; J. McInerney et al., "Counterfactual Evaluation of Slate
  Recommendations with Sequential Reward Interactions", KDD 2020.
- Y. Saito et al., "Open Bandit Dataset and Pipeline", NeurIPS 2021 Datasets and
  Benchmarks (``obp``).
- L. Kish, "Survey Sampling", Wiley 1965: the effective sample size.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.deps import needs
from ranklens._shared.validate import check_alpha, check_choice, check_number
from ranklens.errors import InputError, RanklensWarning

__all__ = [
    "ESTIMATORS",
    "SLATE_ESTIMATORS",
    "Estimator",
    "OffPolicyEvaluation",
    "PolicyEstimate",
    "ope_arrays",
    "ope_tables",
    "parse_estimator",
    "policy_from_scores",
    "slate_ope",
    "slate_ope_tables",
]

#: bandit estimators: name -> (needs a reward model, its parameter or "")
ESTIMATORS: dict[str, tuple[bool, str]] = {
    "dm": (True, ""),
    "ips": (False, ""),
    "snips": (False, ""),
    "clipped-ips": (False, "clipping threshold L"),
    "dr": (True, ""),
    "sndr": (True, ""),
    "switch-dr": (True, "switch threshold T"),
    "dr-os": (True, "shrinkage L"),
}
#: slate estimators: name -> the propensity they weight by (Open Bandit Pipeline's name)
SLATE_ESTIMATORS: dict[str, str] = {
    "slate-ips": "pscore",
    "slate-iips": "pscore_item_position",
    "slate-rips": "pscore_cascade",
    "slate-snips": "pscore",
    "slate-sniips": "pscore_item_position",
    "slate-snrips": "pscore_cascade",
}
_ALIASES = {
    "ipw": "ips",
    "snipw": "snips",
    "direct": "dm",
    "dros": "dr-os",
    "switchdr": "switch-dr",
}
CI_METHODS: tuple[str, ...] = ("t", "percentile", "bca")
_SPEC = re.compile(r"^\s*([a-z][a-z_-]*)\s*(?:\(\s*([^()]*?)\s*\))?\s*$")
_SUM_TOL = 1e-6


# --------------------------------------------------------------------------- estimators


@dataclass(frozen=True)
class Estimator:
    """One estimator and its parameter (``clipped-ips(10)``: name ``clipped-ips``, 10)."""

    name: str
    param: float | None = None

    @property
    def label(self) -> str:
        """The name as written: ``ips``, ``switch-dr(5)``."""
        if self.param is None:
            return self.name
        p = self.param
        text = str(int(p)) if p.is_integer() and abs(p) < 1e15 else repr(p)
        return f"{self.name}({text})"

    @property
    def needs_model(self) -> bool:
        return ESTIMATORS.get(self.name, (False, ""))[0]


def parse_estimator(spec: str | Estimator) -> Estimator:
    """An estimator from its written form: ``ips``, ``clipped-ips(10)``, ``dr-os(inf)``.

    ``clipped-ips``, ``switch-dr`` and ``dr-os`` need their parameter (a number >= 0;
    ``inf`` allowed); the others take none.

    >>> parse_estimator("switch-dr(5)")
    Estimator(name='switch-dr', param=5.0)
    >>> parse_estimator("clipped-ips")
    Traceback (most recent call last):
    ...
    ranklens.errors.InputError: estimator 'clipped-ips' needs its clipping threshold L: write
    it as clipped-ips(L), e.g. clipped-ips(10).
    """
    if isinstance(spec, Estimator):
        return spec
    m = _SPEC.match(str(spec).lower()) if isinstance(spec, str) else None
    known = [*ESTIMATORS, *SLATE_ESTIMATORS]
    if m is None:
        raise InputError(
            f"estimator {spec!r} is not of the form NAME or NAME(NUMBER); the estimators "
            f"are {', '.join(known)}."
        )
    name = _ALIASES.get(m.group(1).replace("_", "-"), m.group(1).replace("_", "-"))
    check_choice(f"estimator {spec!r}", name, known)
    what = ESTIMATORS.get(name, (False, ""))[1]
    arg = m.group(2)
    if not what:
        if arg is not None:
            raise InputError(f"estimator {name!r} takes no parameter, got {spec!r}; write {name}.")
        return Estimator(name)
    if arg is None:
        raise InputError(
            f"estimator {name!r} needs its {what}: write it as {name}({what[-1]}), e.g. {name}(10)."
        )
    try:
        value = float(arg)
    except ValueError:
        value = math.nan
    if not value >= 0:
        raise InputError(
            f"estimator {spec!r}: the {what} must be a number >= 0 (or inf), got {arg!r}."
        )
    return Estimator(name, value)


def _estimators(specs: str | Sequence[str | Estimator], slate: bool) -> list[Estimator]:
    items = [specs] if isinstance(specs, (str, Estimator)) else list(specs)
    if not items:
        raise InputError("estimators is empty; name at least one, e.g. estimators=['ips'].")
    out = [parse_estimator(s) for s in items]
    wrong = [e.label for e in out if (e.name in SLATE_ESTIMATORS) != slate]
    if wrong:
        fn, other = ("slate_ope", "ope_arrays") if slate else ("ope_arrays", "slate_ope")
        raise InputError(
            f"{fn}: estimator(s) {', '.join(wrong)} belong to {other}; {fn} takes "
            f"{', '.join(SLATE_ESTIMATORS if slate else ESTIMATORS)}."
        )
    labels = [e.label for e in out]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise InputError(f"estimator(s) {', '.join(dup)} given twice; name each once.")
    return out


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PolicyEstimate:
    """One estimator's value of the target policy: ``estimate`` with its standard
    error and ``(1 - alpha)`` interval, the effective sample size of its weights and
    the number of rounds (slates) ``n``."""

    estimator: str
    estimate: float
    std_error: float
    ci_lower: float
    ci_upper: float
    ess: float
    n: int


@dataclass(frozen=True, eq=False)
class OffPolicyEvaluation:
    """Result of :func:`ope_arrays`, :func:`slate_ope` and :func:`ope_tables`.

    ``estimates`` in the order asked; ``n`` rounds (slates); ``ci`` the interval
    method at level ``1 - alpha``; ``ess`` the effective sample size of the plain
    importance weights (bandits); ``max_weight`` the largest of them and
    ``tiny_propensities`` how many exceed the ``max_weight`` threshold;
    ``support_deficit`` the share of the target's mass where the logger never acts
    (None for slates); ``warnings`` what was warned.
    """

    kind: str
    estimates: tuple[PolicyEstimate, ...]
    n: int
    alpha: float
    ci: str
    ess: float
    max_weight: float
    tiny_propensities: int
    support_deficit: float | None
    warnings: tuple[str, ...]

    def get(self, estimator: str) -> PolicyEstimate:
        """The estimate of ``estimator`` (as written: ``ips``, ``switch-dr(5)``)."""
        label = parse_estimator(estimator).label
        for e in self.estimates:
            if e.estimator == label:
                return e
        raise InputError(
            f"no estimate for {estimator!r}; the estimators are "
            f"{[e.estimator for e in self.estimates]}."
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (NaN and infinities become None)."""
        out = {
            "kind": self.kind,
            "n": self.n,
            "alpha": self.alpha,
            "ci": self.ci,
            "ess": self.ess,
            "max_weight": self.max_weight,
            "tiny_propensities": self.tiny_propensities,
            "support_deficit": self.support_deficit,
            "estimates": [asdict(e) for e in self.estimates],
            "warnings": list(self.warnings),
        }
        return _clean(out)

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as strict JSON."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    def to_arrow(self) -> pa.Table:
        """One row per estimator."""
        names = list(PolicyEstimate.__dataclass_fields__)
        rows = [asdict(e) for e in self.estimates]
        return pa.table({k: [r[k] for r in rows] for k in names})

    def to_frame(self) -> Any:
        """One row per estimator, as a pandas DataFrame."""
        with needs("pandas", "OffPolicyEvaluation.to_frame()"):
            return self.to_arrow().to_pandas()

    def render(self, fmt: str = "table", color: bool | None = None) -> str:
        """As text: ``table``, ``markdown``, ``latex``, ``csv`` or ``json``
        (:func:`ranklens.render.online.render_ope`)."""
        from ranklens.render.online import render_ope

        return render_ope(self, fmt, color=color)


def _clean(obj: Any) -> Any:
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


# --------------------------------------------------------------------------- the kernel


@dataclass(frozen=True)
class _Terms:
    """An estimator as ``mean(a) + sum_k mean(b[:, k]) / mean(c[:, k])`` over rounds
    (``b`` None: a plain mean), with the weights it uses (for the ESS)."""

    a: np.ndarray
    b: np.ndarray | None
    c: np.ndarray | None
    weights: np.ndarray | None


def _value(t: _Terms) -> tuple[float, np.ndarray]:
    """The estimate and the per-round values whose mean it is (linearised for ratios)."""
    if t.b is None or t.c is None:
        return float(t.a.mean()), t.a
    mb, mc = t.b.mean(axis=0), t.c.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = mb / mc
        lin = t.a + ((t.b - r * t.c) / mc + r).sum(axis=1)
    return float(t.a.mean() + r.sum()), lin


def _ess(w: np.ndarray | None, n: int) -> float:
    if w is None:
        return float(n)
    s2 = float((w * w).sum())
    return float(w.sum()) ** 2 / s2 if s2 > 0 else math.nan


def _bandit_terms(
    e: Estimator,
    r: np.ndarray,
    w: np.ndarray,
    m: np.ndarray | None,
    q: np.ndarray | None,
    memo: dict[str, np.ndarray],
) -> _Terms:
    """The estimator's terms; ``memo`` keeps what several estimators share (``w r``,
    ``r - q``, ``w (r - q)``)."""

    def shared(key: str) -> np.ndarray:
        if key not in memo:
            if key == "wr":
                memo[key] = w * r
            elif key == "resid":
                assert q is not None
                memo[key] = r - q
            else:
                memo[key] = w * shared("resid")
        return memo[key]

    col = np.ndarray.reshape
    if e.name == "ips":
        return _Terms(shared("wr"), None, None, w)
    if e.name == "snips":
        return _Terms(np.zeros_like(r), col(shared("wr"), -1, 1), col(w, -1, 1), w)
    if e.name == "clipped-ips":
        assert e.param is not None
        wc = np.minimum(w, e.param)
        return _Terms(wc * r, None, None, wc)
    assert m is not None and q is not None  # checked by the caller
    if e.name == "dm":
        return _Terms(m, None, None, None)
    resid = shared("resid")
    if e.name == "dr":
        return _Terms(m + shared("wresid"), None, None, w)
    if e.name == "sndr":
        return _Terms(m, col(shared("wresid"), -1, 1), col(w, -1, 1), w)
    if e.name == "switch-dr":
        ws = np.where(w <= e.param, w, 0.0)
        return _Terms(m + ws * resid, None, None, ws)
    lam = e.param
    assert e.name == "dr-os" and lam is not None
    # lam = 0 is the direct method (OBP's formula gives 0/0 where w = 0)
    if math.isinf(lam):
        return _Terms(m + shared("wresid"), None, None, w)
    wh = np.zeros_like(w) if lam == 0 else lam * w / (w * w + lam)
    return _Terms(m + wh * resid, None, None, wh)


def _estimate_all(
    terms: list[tuple[str, _Terms]],
    n: int,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | np.random.Generator | None,
) -> tuple[PolicyEstimate, ...]:
    """Estimates, standard errors and intervals (one bootstrap for all estimators)."""
    from ranklens.comparison.stats import bootstrap_means, mean_ci

    level = 1.0 - alpha
    values = [_value(t) for _, t in terms]
    boot: np.ndarray | None = None
    if ci != "t" and n >= 2:
        cols: list[np.ndarray] = []
        where: list[tuple[int, int]] = []
        for _, t in terms:
            start = len(cols)
            cols.append(t.a)
            if t.b is not None and t.c is not None:
                cols.extend(t.b.T)
                cols.extend(t.c.T)
            where.append((start, len(cols)))
        means = bootstrap_means(np.column_stack(cols), n_resamples, seed)
        boot = np.empty((means.shape[0], len(terms)))
        for j, ((_, t), (s, e)) in enumerate(zip(terms, where, strict=True)):
            block = means[:, s:e]
            if t.b is None:
                boot[:, j] = block[:, 0]
            else:
                k = (e - s - 1) // 2
                with np.errstate(divide="ignore", invalid="ignore"):
                    boot[:, j] = block[:, 0] + (block[:, 1 : 1 + k] / block[:, 1 + k :]).sum(1)
    lins = np.empty((len(terms), n))  # one row per estimator: contiguous reductions
    for j, (_, lin) in enumerate(values):
        lins[j] = lin
    if boot is None:
        lo, hi = mean_ci(lins.T, "t", level=level)
        # the standard error from the t interval's half-width (one pass over the values)
        from scipy import special

        se = (np.asarray(hi) - np.asarray(lo)) / (2 * special.stdtrit(max(n - 1, 1), 1 - alpha / 2))
    else:
        lo, hi = mean_ci(lins.T, ci, level=level, boot=boot)
        se = lins.std(axis=1, ddof=1) / math.sqrt(n) if n >= 2 else np.full(len(terms), np.nan)
    ess: dict[int, float] = {}
    for _, t in terms:  # estimators that share their weights share the sums
        key = id(t.weights)
        if key not in ess:
            ess[key] = _ess(t.weights, n)
    out = [
        PolicyEstimate(
            label, est, float(se[j]), float(lo[j]), float(hi[j]), ess[id(t.weights)], int(n)
        )
        for j, ((label, t), (est, _)) in enumerate(zip(terms, values, strict=True))
    ]
    return tuple(out)


def _warn(
    kind: str,
    w: np.ndarray,
    max_weight: float,
    deficit: float | None,
    rounds: Any,
) -> tuple[tuple[str, ...], int]:
    """The tiny-propensity and support warnings (issued, and returned as text)."""
    said = []
    big = np.flatnonzero(w > max_weight)
    if big.size:
        top = int(big[np.argmax(w[big])])
        said.append(
            f"tiny propensities: {big.size} of {w.size} {kind} have an importance weight above "
            f"{max_weight:g} (a logging propensity below 1/{max_weight:g} of the target's "
            f"probability; the largest, {w[top]:.4g}, at {kind[:-1]} {_name(rounds, top)}): the "
            "IPS-type estimates rest on them; consider clipped-ips(L), switch-dr(T) or "
            "dr-os(L), or a logger that explores more."
        )
    if deficit is not None and deficit > 0:
        said.append(
            f"support deficiency: the target policy puts {deficit:.4g} of its probability "
            "(averaged over rounds) on actions the logging policy never takes; no estimator "
            "here is unbiased for that part: log with more exploration, or restrict the "
            "target to the logger's support."
        )
    for text in said:
        warnings.warn(text, RanklensWarning, stacklevel=3)
    return tuple(said), int(big.size)


def _name(rounds: Any, i: int) -> str:
    if rounds is None:
        return str(i)
    return str(rounds[i].as_py() if isinstance(rounds, pa.Array) else rounds[i])


def _evaluate_rounds(
    estimators: list[Estimator],
    *,
    reward: np.ndarray,
    weight: np.ndarray,
    model: np.ndarray | None,
    factual: np.ndarray | None,
    deficit: float | None,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | np.random.Generator | None,
    max_weight: float,
    rounds: Any = None,
) -> OffPolicyEvaluation:
    """The bandit estimators from per-round arrays: reward, importance weight, the
    model's value of the target at the round (``m``) and of the logged action (``q``)."""
    n = reward.size
    memo: dict[str, np.ndarray] = {}
    terms = [(e.label, _bandit_terms(e, reward, weight, model, factual, memo)) for e in estimators]
    estimates = _estimate_all(terms, n, alpha, ci, n_resamples, seed)
    said, tiny = _warn("rounds", weight, max_weight, deficit, rounds)
    return OffPolicyEvaluation(
        kind="bandit",
        estimates=estimates,
        n=n,
        alpha=alpha,
        ci=ci,
        ess=_ess(weight, n),
        max_weight=float(weight.max()),
        tiny_propensities=tiny,
        support_deficit=deficit,
        warnings=said,
    )


# --------------------------------------------------------------------------- checks


def _settings(
    alpha: float, ci: str, n_resamples: int, max_weight: float, where: str
) -> tuple[float, str]:
    from ranklens.comparison.stats import check_resamples

    a = check_alpha(alpha, where=where)
    check_choice("ci", ci, CI_METHODS, where=where)
    check_resamples(n_resamples)
    check_number("max_weight", max_weight, low=0, where=where, hint="e.g. max_weight=1000")
    return a, ci


def _vector(x: Any, name: str, where: str, n: int | None = None) -> np.ndarray:
    from ranklens._shared.validate import floats

    arr = floats(x, name, where)
    if arr.ndim != 1:
        raise InputError(f"{where}: {name} must be one-dimensional, got shape {arr.shape}.")
    if n is not None and arr.size != n:
        raise InputError(
            f"{where}: {name} has {arr.size} value(s) but reward has {n}; give one per round."
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise InputError(
            f"{where}: {name} is NaN or infinite at round {int(bad[0])} ({bad.size} in all); "
            "every value must be a finite number."
        )
    return arr


def _probabilities(p: np.ndarray, name: str, where: str, *, zero: bool) -> None:
    low = p < 0 if zero else p <= 0
    bad = np.flatnonzero(low | (p > 1))
    if bad.size:
        i = int(bad[0])
        rng = "[0, 1]" if zero else "(0, 1]"
        raise InputError(
            f"{where}: {name} at round {i} is {p[i]:.6g}, not a probability in {rng} "
            f"({bad.size} value(s) in all); "
            + (
                "pass probabilities, not scores (policy_from_scores turns scores into them)."
                if zero
                else "a logged action has a positive propensity: log the probability with "
                "which the logger chose it."
            )
        )


def _index(x: Any, name: str, where: str, n: int, size: int, what: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.size != n:
        raise InputError(f"{where}: {name} must hold one {what} per round ({n}), got {arr.shape}.")
    if arr.dtype.kind not in "iu" and not (
        arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))
    ):
        raise InputError(f"{where}: {name} must be integer {what} codes 0..{size - 1}.")
    codes = arr.astype(np.int64)
    bad = np.flatnonzero((codes < 0) | (codes >= size))
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"{where}: {name} at round {i} is {codes[i]}, outside 0..{size - 1} (the "
            f"{what}s of action_dist's shape); give codes in that range."
        )
    return codes


def _cells(arr: np.ndarray, flat: np.ndarray) -> np.ndarray:
    """``arr[i, j]`` for the flat indices ``i * columns + j`` (one gather)."""
    return np.take(arr.reshape(-1), flat)


def _cube(x: Any, name: str, where: str, n: int, check: bool = True) -> np.ndarray:
    """(rounds, actions, positions) floats; ``check``: finite (else the caller checks
    what it uses)."""
    from ranklens._shared.validate import floats

    arr = floats(x, name, where)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3 or arr.shape[0] != n:
        raise InputError(
            f"{where}: {name} must have shape (rounds, actions) or (rounds, actions, "
            f"positions) with {n} rounds, got {arr.shape}."
        )
    if check and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))
        raise InputError(
            f"{where}: {name} is NaN or infinite at round {int(bad[0][0])}, action "
            f"{int(bad[0][1])}; every value must be a finite number."
        )
    return arr


# --------------------------------------------------------------------------- bandits


def ope_arrays(
    reward: Any,
    action: Any,
    propensity: Any,
    action_dist: Any,
    *,
    estimators: str | Sequence[str | Estimator] = ("ips", "snips"),
    position: Any = None,
    estimated_rewards: Any = None,
    logging_dist: Any = None,
    alpha: float = 0.05,
    ci: str = "t",
    n_resamples: int = 2000,
    seed: int | np.random.Generator | None = 0,
    max_weight: float = 1000.0,
) -> OffPolicyEvaluation:
    """Estimate the value of the target policy ``action_dist`` from a logged bandit feedback.

    ``reward``, ``action`` (integer codes ``0..actions-1``), ``propensity`` (the
    logger's probability of the logged action) and ``position`` (codes, default all
    0) hold one value per round; ``action_dist`` (and the reward model's
    ``estimated_rewards`` for ``dm``, ``dr``, ``sndr``, ``switch-dr``, ``dr-os``) has
    shape (rounds, actions) or (rounds, actions, positions), as Open Bandit Pipeline's
    ``action_dist`` and ``estimated_rewards_by_reg_model``; ``logging_dist`` of the
    same shape, when known, makes the support check exact.  Estimators, intervals
    (``ci``: ``t``, ``percentile``, ``bca``), the effective sample size and the
    warnings: the module docs.  Impossible inputs (shapes, probabilities outside
    [0, 1], rows that do not sum to 1, a propensity of 0) raise
    :class:`~ranklens.errors.InputError` naming the argument and the round.

    Three rounds, two actions; the target always takes action 1, the logger took
    each with probability 1/2, so ``w = (0, 2, 2)`` and IPS is ``(0 + 2 + 0) / 3``:

    >>> res = ope_arrays([1.0, 1.0, 0.0], [0, 1, 1], [0.5, 0.5, 0.5],
    ...           [[0.0, 1.0], [0.0, 1.0], [0.0, 1.0]], estimators=["ips", "snips"])
    >>> [(e.estimator, round(e.estimate, 4)) for e in res.estimates]
    [('ips', 0.6667), ('snips', 0.5)]
    >>> round(res.ess, 4)
    2.0
    """
    where = "ope_arrays"
    alpha, ci = _settings(alpha, ci, n_resamples, max_weight, where)
    ests = _estimators(estimators, slate=False)
    r = _vector(reward, "reward", where)
    n = r.size
    if n == 0:
        raise InputError(f"{where}: the log has no rounds; there is nothing to estimate.")
    p = _vector(propensity, "propensity", where, n)
    _probabilities(p, "propensity", where, zero=False)
    pi = _cube(action_dist, "action_dist", where, n)
    _, n_actions, n_pos = pi.shape
    a = _index(action, "action", where, n, n_actions, "action")
    k = (
        np.zeros(n, dtype=np.int64)
        if position is None
        else _index(position, "position", where, n, n_pos, "position")
    )
    rows = np.arange(n)
    # (n, actions): the target at each round's position (a view with one position)
    at = pi[:, :, 0] if n_pos == 1 else pi[rows, :, k]
    # no negative (NaN fails the test) and sums of 1: every value is at most 1 + 1e-6
    if not at.min() >= 0:
        bad = np.flatnonzero(((at < 0) | np.isnan(at)).any(axis=1))
        i = int(bad[0])
        raise InputError(
            f"{where}: action_dist at round {i} holds {at[i].tolist()[:10]}, not probabilities "
            f"in [0, 1] ({bad.size} round(s) in all); pass probabilities, not scores "
            "(policy_from_scores turns scores into them)."
        )
    sums = at @ np.ones(n_actions)  # (a row sum over few columns is slow in numpy)
    off = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOL)
    if off.size:
        i = int(off[0])
        raise InputError(
            f"{where}: action_dist at round {i} (position {int(k[i])}) sums to {sums[i]:.8g}, "
            f"not 1 ({off.size} round(s) in all); each round's probabilities over actions "
            "must sum to 1."
        )
    flat = rows * n_actions + a  # the logged action's cell of each round
    w = _cells(at, flat) / p
    model = factual = None
    if any(e.needs_model for e in ests):
        if estimated_rewards is None:
            need = [e.label for e in ests if e.needs_model]
            raise InputError(
                f"{where}: {', '.join(need)} need(s) a reward model: pass "
                "estimated_rewards=<its predictions, shaped like action_dist>."
            )
        q = _cube(estimated_rewards, "estimated_rewards", where, n, check=False)
        if q.shape != pi.shape:
            raise InputError(
                f"{where}: estimated_rewards has shape {q.shape}, action_dist {pi.shape}; "
                "give the model's prediction for every round, action and position."
            )
        qat = q[:, :, 0] if n_pos == 1 else q[rows, :, k]
        model = np.einsum("ij,ij->i", at, qat)
        factual = _cells(qat, flat)
        if not (np.isfinite(model).all() and np.isfinite(factual).all()):
            i, j = (int(x) for x in np.argwhere(~np.isfinite(qat))[0])
            raise InputError(
                f"{where}: estimated_rewards is NaN or infinite at round {i}, action {j}; "
                "every value must be a finite number."
            )
    if logging_dist is not None:
        b = _cube(logging_dist, "logging_dist", where, n)
        if b.shape != pi.shape:
            raise InputError(
                f"{where}: logging_dist has shape {b.shape}, action_dist {pi.shape}; "
                "give the logger's probabilities of every round, action and position."
            )
        bat = b[:, :, 0] if n_pos == 1 else b[rows, :, k]
        deficit = float(np.einsum("ij,ij->", at, (bat <= 0).astype(np.float64)) / n)
    else:
        logged = np.bincount(a * n_pos + k, minlength=n_actions * n_pos)
        unseen = (logged == 0).reshape(n_actions, n_pos)
        deficit = 0.0
        if unseen.any():  # the mass on actions never logged at the round's position
            deficit = float(np.einsum("ij,ij->", at, unseen[:, k].T.astype(np.float64)) / n)
    return _evaluate_rounds(
        ests,
        reward=r,
        weight=w,
        model=model,
        factual=factual,
        deficit=deficit,
        alpha=alpha,
        ci=ci,
        n_resamples=n_resamples,
        seed=seed,
        max_weight=max_weight,
    )


def policy_from_scores(
    scores: Any, *, positions: int = 1, temperature: float | None = None
) -> np.ndarray:
    """A target policy's ``action_dist`` from its scores (rounds, actions).

    Without ``temperature`` the policy is the ranking itself: the action ranked
    ``k``-th (scores descending; ties: the lower action code first) is shown at
    position ``k`` with probability 1, for ``positions`` positions (shape (rounds,
    actions, positions)).  With ``temperature`` (one position only) it is the softmax
    ``exp(s / t) / sum exp(s / t)``.

    >>> policy_from_scores([[0.2, 0.9, 0.5]], positions=2)[0].T.tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> policy_from_scores([[0.0, 0.0]], temperature=1.0).ravel().tolist()
    [0.5, 0.5]
    """
    where = "policy_from_scores"
    from ranklens._shared.validate import floats

    s = floats(scores, "scores", where)
    if s.ndim != 2 or s.shape[1] == 0 or not np.isfinite(s).all():
        raise InputError(
            f"{where}: scores must be finite numbers of shape (rounds, actions), got {s.shape}."
        )
    n, n_actions = s.shape
    if temperature is not None:
        t = check_number("temperature", temperature, low=0, where=where)
        if positions != 1:
            raise InputError(f"{where}: a softmax policy has one position; pass positions=1.")
        z = (s - s.max(axis=1, keepdims=True)) / t
        e = np.exp(z)
        return (e / e.sum(axis=1, keepdims=True))[:, :, None]
    if not isinstance(positions, int) or not 1 <= positions <= n_actions:
        raise InputError(
            f"{where}: positions must be an int in 1..{n_actions} (the actions), got {positions!r}."
        )
    order = np.argsort(-s, axis=1, kind="stable")[:, :positions]
    out = np.zeros((n, n_actions, positions))
    out[np.arange(n)[:, None], order, np.arange(positions)[None, :]] = 1.0
    return out


# --------------------------------------------------------------------------- slates


def slate_ope(
    slate: Any,
    position: Any,
    reward: Any,
    *,
    estimators: str | Sequence[str | Estimator] = ("slate-ips", "slate-iips", "slate-rips"),
    pscore: Any = None,
    evaluation_policy_pscore: Any = None,
    pscore_item_position: Any = None,
    evaluation_policy_pscore_item_position: Any = None,
    pscore_cascade: Any = None,
    evaluation_policy_pscore_cascade: Any = None,
    alpha: float = 0.05,
    ci: str = "t",
    n_resamples: int = 2000,
    seed: int | np.random.Generator | None = 0,
    max_weight: float = 1000.0,
) -> OffPolicyEvaluation:
    """Estimate the value of a slate (ranking) policy from a log of slates.

    One row per shown position: the ``slate`` id, the ``position`` (integer codes
    ``0..K-1``), the position's ``reward``, and for each estimator the logger's and the
    target's probability of what was shown, named as Open Bandit Pipeline names them:
    ``pscore`` / ``evaluation_policy_pscore`` (the whole slate; ``slate-ips``,
    ``slate-snips``), ``pscore_item_position`` / ``..._item_position`` (the item at its
    position; ``slate-iips``, ``slate-sniips``), ``pscore_cascade`` / ``..._cascade``
    (the items at positions up to this one; ``slate-rips``, ``slate-snrips``).  The
    estimate is the mean over slates of the sum of a slate's weighted rewards; the
    interval and ESS as for :func:`ope_arrays`, over slates (the ESS of the row weights).
    There is no support check for slates (only the shown slates' probabilities are
    given).

    Two slates of two positions; the target doubles the probability of what slate
    ``a`` showed and halves slate ``b``'s:

    >>> res = slate_ope(["a", "a", "b", "b"], [0, 1, 0, 1], [1.0, 0.0, 1.0, 1.0],
    ...                 estimators="slate-ips", pscore=[0.2, 0.2, 0.4, 0.4],
    ...                 evaluation_policy_pscore=[0.4, 0.4, 0.2, 0.2])
    >>> round(res.get("slate-ips").estimate, 4)
    1.5
    """
    from ranklens._shared.columns import id_codes
    from ranklens.online._data import as_ids

    where = "slate_ope"
    alpha, ci = _settings(alpha, ci, n_resamples, max_weight, where)
    ests = _estimators(estimators, slate=True)
    r = _vector(reward, "reward", where)
    n_rows = r.size
    if n_rows == 0:
        raise InputError(f"{where}: the log has no rows; there is nothing to estimate.")
    ids = as_ids(slate, "slate_ope: slate")
    if len(ids) != n_rows:
        raise InputError(f"{where}: slate has {len(ids)} value(s) but reward has {n_rows}.")
    values, s = id_codes(ids)
    s = s.astype(np.int64)
    n = len(values)
    pos_arr = np.asarray(position)
    k_max = int(pos_arr.max()) + 1 if pos_arr.size and pos_arr.dtype.kind in "iuf" else 1
    k = _index(position, "position", where, n_rows, max(k_max, 1), "position")
    given = {
        "pscore": (pscore, evaluation_policy_pscore),
        "pscore_item_position": (pscore_item_position, evaluation_policy_pscore_item_position),
        "pscore_cascade": (pscore_cascade, evaluation_policy_pscore_cascade),
    }
    weights: dict[str, np.ndarray] = {}
    for kind in dict.fromkeys(SLATE_ESTIMATORS[e.name] for e in ests):
        lp, tp = given[kind]
        if lp is None or tp is None:
            need = [e.name for e in ests if SLATE_ESTIMATORS[e.name] == kind]
            raise InputError(
                f"{where}: {', '.join(need)} weight(s) by {kind}: pass {kind}=<the logger's "
                f"probabilities> and evaluation_policy_{kind}=<the target's>, one per row."
            )
        lpv = _vector(lp, kind, where, n_rows)
        tpv = _vector(tp, f"evaluation_policy_{kind}", where, n_rows)
        _probabilities(lpv, kind, where, zero=False)
        _probabilities(tpv, f"evaluation_policy_{kind}", where, zero=True)
        weights[kind] = tpv / lpv
    n_k = np.bincount(k, minlength=k_max).astype(np.float64)
    terms = []
    for e in ests:
        w = weights[SLATE_ESTIMATORS[e.name]]
        per_slate = np.bincount(s, weights=w * r, minlength=n)
        if not e.name.startswith("slate-sn"):
            terms.append((e.label, _Terms(per_slate, None, None, w)))
        elif e.name == "slate-snips":  # one normaliser: the mean weight of all rows
            norm = np.bincount(s, weights=w, minlength=n) * (n / n_rows)
            terms.append((e.label, _Terms(np.zeros(n), per_slate[:, None], norm[:, None], w)))
        else:  # the mean weight at each position
            cell = s * k_max + k
            b = np.bincount(cell, weights=w * r, minlength=n * k_max).reshape(n, k_max)
            cw = np.bincount(cell, weights=w, minlength=n * k_max).reshape(n, k_max)
            used = n_k > 0
            norms = cw[:, used] * (n / n_k[used])
            terms.append((e.label, _Terms(np.zeros(n), b[:, used], norms, w)))
    estimates = _estimate_all(terms, n, alpha, ci, n_resamples, seed)
    first = weights[SLATE_ESTIMATORS[ests[0].name]]
    said, tiny = _warn("rows", first, max_weight, None, None)
    return OffPolicyEvaluation(
        kind="slate",
        estimates=estimates,
        n=n,
        alpha=alpha,
        ci=ci,
        ess=_ess(first, n_rows),
        max_weight=float(first.max()),
        tiny_propensities=tiny,
        support_deficit=None,
        warnings=said,
    )


# --------------------------------------------------------------------------- tables


def ope_tables(
    log: Any,
    policy: Any,
    *,
    estimators: str | Sequence[str | Estimator] = ("ips", "snips"),
    round: str | None = "round",
    context: str | None = None,
    action: str = "action",
    reward: str = "reward",
    propensity: str = "propensity",
    position: str | None = None,
    probability: str = "probability",
    prediction: str | None = None,
    alpha: float = 0.05,
    ci: str = "t",
    n_resamples: int = 2000,
    seed: int | np.random.Generator | None = 0,
    max_weight: float = 1000.0,
) -> OffPolicyEvaluation:
    """:func:`ope_arrays` from two tables (pandas, polars, pyarrow): the ``log``, one row per
    round, and the target ``policy`` in long form, one row per (round, action[,
    position]) it gives probability to, with the reward model's ``prediction`` for the
    model-based estimators.

    The policy's rows are keyed by the log's ``round`` column (default ``"round"``;
    ``round=None``: rounds are the log's rows 0..n-1, and the policy's ``round``
    column holds those numbers; a policy row of a round the log does not have is an
    error), or, with ``context``, by a context column (a user): every round of that
    context has that context's distribution (contexts the log does not have are
    not used).  An action the policy
    has no row for has probability 0; the model-based estimators need a prediction
    for every action with probability and for each logged action (give the logged
    action a row of probability 0 if the target never takes it).  With ``position``
    both tables have the position column.  Errors name the table, the column and the
    row (0-based; the command line says the file's line).

    >>> import pyarrow as pa
    >>> log = pa.table({"round": [1, 2], "action": ["x", "y"], "reward": [1.0, 0.0],
    ...                 "propensity": [0.5, 0.5]})
    >>> policy = pa.table({"round": [1, 2], "action": ["x", "x"], "probability": [1.0, 1.0]})
    >>> round(ope_tables(log, policy, estimators="ips").get("ips").estimate, 4)
    1.0
    """
    from ranklens._shared.columns import as_float_column, id_codes
    from ranklens._shared.frames import column_names, columns_from_frame, materialise
    from ranklens.online._data import as_ids

    where = "ope_tables"
    alpha, ci = _settings(alpha, ci, n_resamples, max_weight, where)
    ests = _estimators(estimators, slate=False)
    log, policy = materialise(log), materialise(policy)
    key = context if context is not None else round
    lnames = {"action": action, "reward": reward, "propensity": propensity}
    if key is not None:
        lnames["key"] = key
    if position is not None:
        lnames["position"] = position
    lc = columns_from_frame(log, lnames, "log")
    pnames = {"key": key if key is not None else "round", "action": action}
    pnames["probability"] = probability
    needs_model = [e.label for e in ests if e.needs_model]
    pred = prediction
    if pred is None and "prediction" in column_names(policy, "policy"):
        pred = "prediction"
    if needs_model and pred is None:
        raise InputError(
            f"policy: {', '.join(needs_model)} need(s) the reward model's predictions: the "
            "table has no 'prediction' column; name it with prediction=<column name>."
        )
    if pred is not None:
        pnames["prediction"] = pred
    if position is not None:
        pnames["position"] = position
    pc_ = columns_from_frame(policy, pnames, "policy")
    r = as_float_column(lc["reward"], f"log column {reward!r}")
    n = r.size
    if n == 0:
        raise InputError("log: the table has no rows; there is nothing to estimate.")
    _finite(r, f"log column {reward!r}")
    p = as_float_column(lc["propensity"], f"log column {propensity!r}")
    _finite(p, f"log column {propensity!r}")
    bad = np.flatnonzero((p <= 0) | (p > 1))
    if bad.size:
        raise InputError(
            f"log column {propensity!r}: row {int(bad[0])} is {p[bad[0]]:.6g}, not a "
            f"probability in (0, 1] ({bad.size} row(s) in all); log the probability with "
            "which the logger chose the action."
        )
    prob = as_float_column(pc_["probability"], f"policy column {probability!r}")
    _finite(prob, f"policy column {probability!r}")
    bad = np.flatnonzero((prob < 0) | (prob > 1))
    if bad.size:
        raise InputError(
            f"policy column {probability!r}: row {int(bad[0])} is {prob[bad[0]]:.6g}, not a "
            f"probability in [0, 1] ({bad.size} row(s) in all)."
        )
    m_rows = prob.size
    # one code space for each id kind, shared by both tables
    acts, a_all = id_codes(
        pa.concat_arrays(
            [
                as_ids(lc["action"], f"log column {action!r}"),
                as_ids(pc_["action"], f"policy column {action!r}"),
            ]
        )
    )
    a_all = a_all.astype(np.int64)
    la, pa_ = a_all[:n], a_all[n:]
    if key is not None:
        lk_ids = as_ids(lc["key"], f"log column {key!r}")
    else:
        lk_ids = as_ids(pa.array(np.arange(n).astype(str)), "log rows")
    pk_ids = as_ids(pc_["key"], f"policy column {pnames['key']!r}")
    keys, k_all = id_codes(pa.concat_arrays([lk_ids, pk_ids]))
    k_all = k_all.astype(np.int64)
    lk, pk = k_all[:n], k_all[n:]
    if context is None and key is not None:
        dup = _first_repeat(lk)
        if dup is not None:
            raise InputError(
                f"log column {key!r}: row {dup[1]} repeats round {_name(lk_ids, dup[1])!r} "
                "(given on an earlier row); each round is one row: give distinct round ids, "
                "or key the policy by context=<column>."
            )
    if position is not None:
        poss, k_codes = id_codes(
            pa.concat_arrays(
                [
                    as_ids(lc["position"], f"log column {position!r}"),
                    as_ids(pc_["position"], f"policy column {position!r}"),
                ]
            )
        )
        k_codes = k_codes.astype(np.int64)
        lpos, ppos = k_codes[:n], k_codes[n:]
        n_pos = len(poss)
    else:
        lpos, ppos, n_pos = np.zeros(n, np.int64), np.zeros(m_rows, np.int64), 1
    n_act, n_key = len(acts), len(keys)
    pcode = (pk * n_act + pa_) * n_pos + ppos
    order = np.argsort(pcode, kind="stable")
    sorted_codes = pcode[order]
    same = np.flatnonzero(sorted_codes[1:] == sorted_codes[:-1])
    if same.size:
        row = int(max(order[same[0]], order[same[0] + 1]))
        raise InputError(
            f"policy: row {row} repeats the probability of action "
            f"{_name(acts, int(pa_[row]))!r} at "
            f"{pnames['key']} {_name(keys, int(pk[row]))!r}"
            f"{'' if position is None else ' and that position'}; give each once."
        )
    if context is None:  # a policy row of a round the log does not have is a mistake
        in_log = np.zeros(n_key, dtype=bool)
        in_log[lk] = True
        stray = np.flatnonzero(~in_log[pk])
        if stray.size:
            j = int(stray[0])
            raise InputError(
                f"policy column {pnames['key']!r}: row {j} is round "
                f"{_name(keys, int(pk[j]))!r}, which the log does not have ({stray.size} "
                "row(s) in all); give the policy of the logged rounds only."
            )
    group_p = pk * n_pos + ppos
    sums = np.bincount(group_p, weights=prob, minlength=n_key * n_pos)
    group_l = lk * n_pos + lpos
    off = np.flatnonzero(np.abs(sums[group_l] - 1.0) > _SUM_TOL)
    if off.size:
        i = int(off[0])
        raise InputError(
            f"{_log_key(key)}: row {i} is {pnames['key']} {_name(keys, int(lk[i]))!r}, whose "
            f"probabilities in the policy table{'' if position is None else ' at its position'} "
            f"sum to {sums[group_l[i]]:.8g}, not 1 ({off.size} round(s) in all); give the "
            "target's distribution over actions for every round (actions absent from the "
            "policy table have probability 0)."
        )
    lcode = (lk * n_act + la) * n_pos + lpos
    at = np.searchsorted(sorted_codes, lcode)
    at_c = np.minimum(at, m_rows - 1)
    found = sorted_codes[at_c] == lcode
    hit = order[at_c]
    target = np.where(found, prob[hit], 0.0)
    w = target / p
    model = factual = None
    if pred is not None and needs_model:
        q = as_float_column(pc_["prediction"], f"policy column {pred!r}")
        _finite(q, f"policy column {pred!r}")
        miss = np.flatnonzero(~found)
        if miss.size:
            i = int(miss[0])
            raise InputError(
                f"log column {action!r}: row {i} is action {_name(acts, int(la[i]))!r}, which "
                "the policy table has no row for, so the reward model's prediction for it is "
                f"unknown ({miss.size} round(s) in all); {', '.join(needs_model)} need it: "
                "add the row with probability 0 and the prediction."
            )
        model = np.bincount(group_p, weights=prob * q, minlength=n_key * n_pos)[group_l]
        factual = q[hit]
    seen = np.zeros(n_act * n_pos, dtype=bool)
    seen[la * n_pos + lpos] = True
    unseen_mass = np.bincount(
        group_p, weights=prob * ~seen[pa_ * n_pos + ppos], minlength=n_key * n_pos
    )
    deficit = float(unseen_mass[group_l].sum() / n)
    return _evaluate_rounds(
        ests,
        reward=r,
        weight=w,
        model=model,
        factual=factual,
        deficit=deficit,
        alpha=alpha,
        ci=ci,
        n_resamples=n_resamples,
        seed=seed,
        max_weight=max_weight,
        rounds=lk_ids,
    )


def slate_ope_tables(
    log: Any,
    policy: Any,
    *,
    estimators: str | Sequence[str | Estimator] = ("slate-ips", "slate-iips", "slate-rips"),
    slate: str = "slate",
    position: str = "position",
    reward: str = "reward",
    alpha: float = 0.05,
    ci: str = "t",
    n_resamples: int = 2000,
    seed: int | np.random.Generator | None = 0,
    max_weight: float = 1000.0,
) -> OffPolicyEvaluation:
    """:func:`slate_ope` from two tables: the ``log``, one row per shown (``slate``,
    ``position``) with its ``reward`` and the logger's probabilities, and the target
    ``policy``, one row per (slate, position) of the log with the target's
    probabilities of the same things.  The probability columns are named as Open
    Bandit Pipeline names them, in both tables: ``pscore`` (the whole slate),
    ``pscore_item_position`` (the item at its position), ``pscore_cascade`` (the items
    down to this position); only those the estimators need are read.  Positions are
    labels (``1, 2, 3`` or ``top``...), compared as text.

    >>> import pyarrow as pa
    >>> log = pa.table({"slate": [1, 1], "position": [1, 2], "reward": [1.0, 0.0],
    ...                 "pscore": [0.25, 0.25]})
    >>> policy = pa.table({"slate": [1, 1], "position": [1, 2], "pscore": [0.5, 0.5]})
    >>> slate_ope_tables(log, policy, estimators="slate-ips").get("slate-ips").estimate
    2.0
    """
    from ranklens._shared.columns import as_float_column, id_codes
    from ranklens._shared.frames import columns_from_frame, materialise
    from ranklens.online._data import as_ids

    _settings(alpha, ci, n_resamples, max_weight, "slate_ope_tables")
    ests = _estimators(estimators, slate=True)
    kinds = list(dict.fromkeys(SLATE_ESTIMATORS[e.name] for e in ests))
    log, policy = materialise(log), materialise(policy)
    keys = {"slate": slate, "position": position}
    lc = columns_from_frame(log, {**keys, "reward": reward, **{k: k for k in kinds}}, "log")
    pc_ = columns_from_frame(policy, {**keys, **{k: k for k in kinds}}, "policy")
    r = as_float_column(lc["reward"], f"log column {reward!r}")
    _finite(r, f"log column {reward!r}")
    n = r.size
    if n == 0:
        raise InputError("log: the table has no rows; there is nothing to estimate.")
    codes = []
    log_ids = {}
    for role, name in keys.items():
        log_ids[role] = as_ids(lc[role], f"log column {name!r}")
        both = pa.concat_arrays([log_ids[role], as_ids(pc_[role], f"policy column {name!r}")])
        values, c = id_codes(both)
        codes.append((len(values), c.astype(np.int64)))
    (_, sc), (n_pos, kc) = codes
    cell = sc * n_pos + kc
    lcell, pcell = cell[:n], cell[n:]
    for table, cells in (("log", lcell), ("policy", pcell)):
        dup = _first_repeat(cells)
        if dup is not None:
            raise InputError(
                f"{table} column {slate!r}: row {dup[1]} repeats a (slate, position) of an "
                "earlier row; give each shown position once."
            )
    order = np.argsort(pcell, kind="stable")
    at = np.minimum(np.searchsorted(pcell[order], lcell), pcell.size - 1)
    found = pcell[order][at] == lcell
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        raise InputError(
            f"log column {slate!r}: row {i} (position {_name(log_ids['position'], i)!r}) has no "
            f"row in the policy table ({int((~found).sum())} row(s) in all); give the "
            "target's probabilities of every logged (slate, position)."
        )
    if pcell.size > n:
        in_log = np.zeros(pcell.size, dtype=bool)
        in_log[order[at]] = True
        j = int(np.flatnonzero(~in_log)[0])
        raise InputError(
            f"policy column {slate!r}: row {j} is a (slate, position) the log does not have; "
            "give the policy of the logged slates only."
        )
    hit = order[at]
    probs: dict[str, Any] = {}
    for kind in kinds:
        lp = as_float_column(lc[kind], f"log column {kind!r}")
        tp = as_float_column(pc_[kind], f"policy column {kind!r}")[hit]
        _finite(lp, f"log column {kind!r}")
        bad = np.flatnonzero(~((lp > 0) & (lp <= 1)))
        if bad.size:
            raise InputError(
                f"log column {kind!r}: row {int(bad[0])} is {lp[bad[0]]:.6g}, not a probability "
                f"in (0, 1] ({bad.size} row(s) in all); log the probability of what was shown."
            )
        bad = np.flatnonzero(~((tp >= 0) & (tp <= 1)))
        if bad.size:
            raise InputError(
                f"policy column {kind!r}: row {int(hit[bad[0]])} is {tp[bad[0]]:.6g}, not a "
                f"probability in [0, 1] ({bad.size} row(s) in all)."
            )
        probs[kind] = lp
        probs[f"evaluation_policy_{kind}"] = tp
    return slate_ope(
        sc[:n],
        kc[:n],
        r,
        estimators=ests,
        alpha=alpha,
        ci=ci,
        n_resamples=n_resamples,
        seed=seed,
        max_weight=max_weight,
        **probs,
    )


def _log_key(key: str | None) -> str:
    return "log" if key is None else f"log column {key!r}"


def _finite(x: np.ndarray, what: str) -> None:
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        raise InputError(
            f"{what}: row {int(bad[0])} is NaN or infinite ({bad.size} row(s) in all); "
            "every value must be a finite number."
        )


def _first_repeat(codes: np.ndarray) -> tuple[int, int] | None:
    """(first row, repeating row) of the first code given twice, or None."""
    order = np.argsort(codes, kind="stable")
    s = codes[order]
    rep = np.flatnonzero(s[1:] == s[:-1])
    if not rep.size:
        return None
    later = order[rep + 1]
    j = int(np.argmin(later))
    return int(order[rep[j]]), int(later[j])
