r"""Interleaving analysis over many impressions: wins, ties and losses per unit, the
preference :math:`\Delta_{AB}` with a confidence interval, and a sign test.

Units are impressions, queries or users (``by``).  Impressions without clicks say
nothing and are left out (their number is kept).  A unit's outcome for a pair
``(a, b)`` is the mean outcome of its clicked impressions (:func:`credit`); the unit is
a win for ``a`` when it is positive, a loss when negative, a tie at zero.  Following
Chapelle, Joachims, Radlinski & Yue (2012), "Large-scale validation and analysis of
interleaved search evaluation", TOIS 30(1):

.. math:: \Delta_{AB} = \frac{\mathrm{wins}_A + \mathrm{ties}/2}{\mathrm{wins}_A +
          \mathrm{wins}_B + \mathrm{ties}} - 0.5 \in [-0.5, 0.5]

the mean over units of ``s - 0.5`` with ``s`` = 1, 1/2, 0 for a win, tie, loss; so its
confidence interval is :func:`ranklens.comparison.stats.mean_ci` of those values
(``ci``: ``t``, ``percentile`` or ``bca``), and its p-value the sign test of wins
against losses (:func:`ranklens.online.stats.sign_test`).  With more than two rankers
(multileaving) every pair is tested and the p-values corrected together
(``correction``, one of :data:`ranklens.comparison.stats.CORRECTIONS`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import to_numpy
from ranklens._shared.corrections import CORRECTIONS, adjust, canonical
from ranklens._shared.validate import check_alpha, check_choice, check_int
from ranklens.errors import InputError
from ranklens.online.interleaving.outcomes import Outcomes

__all__ = ["BY", "InterleavingAnalysis", "Preference", "analyze"]

BY = ("query", "user", "impression")
CIS = ("t", "percentile", "bca")


@dataclass(frozen=True)
class Preference:
    """One pair of rankers: ``delta`` > 0 means ``a`` is preferred."""

    a: str
    b: str
    units: int
    wins: int
    ties: int
    losses: int
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    significant: bool

    @property
    def winner(self) -> str | None:
        """The preferred ranker when the preference is significant, else None."""
        if not self.significant:
            return None
        return self.a if self.delta > 0 else self.b


@dataclass(frozen=True)
class InterleavingAnalysis:
    """What :func:`analyze` found: one :class:`Preference` per pair of rankers."""

    method: str
    rankers: tuple[str, ...]
    by: str
    alpha: float
    ci: str
    correction: str
    impressions: int
    clicked_impressions: int
    pairs: tuple[Preference, ...]

    def matrix(self) -> np.ndarray:
        """The preferences as an antisymmetric (rankers, rankers) array:
        ``[i, j]`` is :math:`\\Delta` of ranker ``i`` over ranker ``j``."""
        m = len(self.rankers)
        out = np.zeros((m, m))
        at = {n: i for i, n in enumerate(self.rankers)}
        for p in self.pairs:
            out[at[p.a], at[p.b]] = p.delta
            out[at[p.b], at[p.a]] = -p.delta
        return out

    def to_arrow(self) -> pa.Table:
        """One row per pair of rankers (the fields of :class:`Preference`)."""
        rows = [asdict(p) for p in self.pairs]
        return pa.table({f.name: [r[f.name] for r in rows] for f in fields(Preference)})

    def to_dict(self) -> dict[str, Any]:
        """Every field, the pairs as dicts (JSON-ready but for NaN)."""
        d = asdict(self)
        d["rankers"] = list(self.rankers)
        d["pairs"] = [asdict(p) for p in self.pairs]
        return d


def _units(outcomes: Outcomes, by: str, keep: np.ndarray) -> tuple[np.ndarray, int]:
    if by == "impression":
        n = int(keep.sum())
        return np.arange(n, dtype=np.int64), n
    if by == "user":
        if outcomes.user is None:
            raise InputError(
                "analyze: by='user' needs the user of every impression; pass "
                "credit(..., users=...) or analyze by='query'."
            )
        ids = outcomes.user
    else:
        ids = outcomes.query
    enc = pc.dictionary_encode(ids.filter(pa.array(keep)))
    return to_numpy(enc.indices).astype(np.int64), len(enc.dictionary)


def analyze(
    outcomes: Outcomes,
    by: str = "query",
    *,
    alpha: float = 0.05,
    ci: str = "t",
    n_resamples: int = 10_000,
    seed: int = 0,
    correction: str = "holm",
) -> InterleavingAnalysis:
    """Wins, ties, losses, :math:`\\Delta_{AB}` with its ``1 - alpha`` interval and the
    sign test of every pair of rankers, over units ``by`` ``query`` (default),
    ``user`` or ``impression`` (formulas in the module documentation).  ``n_resamples``
    and ``seed`` are the bootstrap's (``ci='percentile'`` or ``'bca'``).

    >>> import numpy as np, pyarrow as pa
    >>> from ranklens.online.interleaving import Outcomes
    >>> out = Outcomes("team_draft", ("A", "B"), ((0, 1),), pa.array(list("abcdef")),
    ...                np.zeros(6, int), np.ones(6, int), np.zeros((6, 2)),
    ...                np.array([[1.0], [1], [1], [0], [-1], [1]]))
    >>> p = analyze(out).pairs[0]
    >>> p.wins, p.ties, p.losses, round(p.delta, 4)  # (4 + 1/2) / 6 - 0.5
    (4, 1, 1, 0.25)
    >>> round(p.p_value, 4)  # sign test of 4 wins against 1 loss
    0.375
    """
    from ranklens.comparison.stats import mean_ci
    from ranklens.online.stats import sign_test

    where = "analyze"
    if not isinstance(outcomes, Outcomes):
        raise InputError(
            f"{where}: outcomes must be what credit() returns, got {type(outcomes).__name__}."
        )
    check_choice("by", by, BY, where=where)
    alpha = check_alpha(alpha, where=where)
    check_choice("ci", ci, CIS, where=where)
    n_resamples = check_int("n_resamples", n_resamples, where=where)
    correction = canonical(where, correction)
    check_choice("correction", correction, CORRECTIONS, where=where)
    keep = outcomes.clicks > 0
    unit, n_units = _units(outcomes, by, keep)
    outcome = outcomes.outcome[keep]
    n_pairs = len(outcomes.pairs)
    per = max(n_units, 1)
    counts = np.bincount(unit, minlength=per).astype(np.float64)
    value = np.zeros((per, n_pairs))
    for j in range(n_pairs):
        value[:, j] = np.bincount(unit, weights=outcome[:, j], minlength=per)
    value /= np.maximum(counts, 1.0)[:, None]
    value = value[:n_units]
    score = np.where(value > 0, 1.0, np.where(value < 0, 0.0, 0.5)) - 0.5
    wins = (value > 0).sum(axis=0)
    losses = (value < 0).sum(axis=0)
    ties = n_units - wins - losses
    if n_units:
        delta = score.mean(axis=0)
        lo, hi = mean_ci(score, ci, 1 - alpha, n_resamples, seed)
        lo, hi = np.atleast_1d(lo), np.atleast_1d(hi)
    else:
        delta = lo = hi = np.full(n_pairs, np.nan)
    p = sign_test(wins, losses)
    padj = adjust(p, correction, alpha, "stats", where) if n_pairs > 1 else p
    names = outcomes.rankers
    pairs = tuple(
        Preference(
            a=names[a],
            b=names[b],
            units=int(n_units),
            wins=int(wins[j]),
            ties=int(ties[j]),
            losses=int(losses[j]),
            delta=float(delta[j]),
            ci_low=float(lo[j]),
            ci_high=float(hi[j]),
            p_value=float(p[j]),
            p_adjusted=float(padj[j]),
            significant=bool(padj[j] < alpha),
        )
        for j, (a, b) in enumerate(outcomes.pairs)
    )
    return InterleavingAnalysis(
        method=outcomes.method,
        rankers=names,
        by=by,
        alpha=alpha,
        ci=ci,
        correction=correction if n_pairs > 1 else "none",
        impressions=len(outcomes),
        clicked_impressions=int(keep.sum()),
        pairs=pairs,
    )
