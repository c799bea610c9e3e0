"""Sampling a pool to judge, with each document's inclusion probability.

Two strata per query: the depth-``judged_depth`` pool (the documents some run ranks
within ``judged_depth``, :attr:`~ranklens.judging.Pool.best_rank`; the depth-``k``
stratum of infAP and statAP's fully judged top) is all judged (inclusion probability
1); the rest are sampled, ``size`` documents per query (or ``rate`` of the stratum,
rounded half up), without replacement:

* ``design="uniform"`` (infAP, Yilmaz & Aslam 2006): a simple random sample, so every
  document of a query's stratum of ``N`` has inclusion probability ``n / N``.
* ``design="apprior"`` (statAP, Aslam, Pavlu & Yilmaz 2006; Pavlu & Aslam 2007):
  inclusion probabilities proportional to the pool's AP-prior
  (:attr:`~ranklens.judging.Pool.ap_prior`), ``pi_i = min(1, c p_i)`` with ``c`` such
  that they sum to ``n`` (documents whose ``c p_i`` reach 1 are taken with certainty
  and ``c`` recomputed over the rest), drawn by systematic sampling (Madow 1949) over
  the stratum in a random order: exactly ``n`` documents, each with probability
  ``pi_i``.

Both designs are fixed-size: the inclusion probabilities of a query sum to the number
of documents it samples.  The draw is a function of ``seed`` only (numpy's PCG64), one
vectorised draw for every query at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy
from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.judging.pooling import Pool

__all__ = ["DESIGNS", "Sample", "sample_pool"]

DESIGNS = ("uniform", "apprior")


@dataclass(frozen=True, eq=False)
class Sample:
    """A pool's rows with the sampling design: ``selected`` (to judge), ``stratum`` (0:
    the fully judged top, 1: the sampled rest) and ``inclusion`` (each row's inclusion
    probability, in (0, 1]); ``weight`` is ``1 / inclusion`` (Horvitz-Thompson)."""

    pool: Pool
    selected: np.ndarray
    stratum: np.ndarray
    inclusion: np.ndarray
    design: str
    seed: int

    @property
    def weight(self) -> np.ndarray:
        return 1.0 / self.inclusion

    def __len__(self) -> int:
        return int(self.selected.sum())

    def to_arrow(self, everything: bool = False) -> pa.Table:
        """The selected rows (all the pool's with ``everything``, and a ``selected``
        column): the pool's columns and ``stratum``, ``inclusion``, ``weight``."""
        table = self.pool.to_arrow()
        table = table.append_column("stratum", from_numpy(self.stratum.astype(np.int64)))
        table = table.append_column("inclusion", from_numpy(self.inclusion))
        table = table.append_column("weight", from_numpy(self.weight))
        if everything:
            return table.append_column("selected", pa.array(self.selected))
        return table.filter(pa.array(self.selected))


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"sample_pool: {name}={value!r}; it must be an integer >= 0.")
    return int(value)


def sample_pool(
    pool: Pool,
    size: int | None = None,
    *,
    rate: float | None = None,
    design: str = "uniform",
    judged_depth: int = 0,
    seed: int = 0,
) -> Sample:
    """Sample ``pool`` below its depth-``judged_depth`` documents per query (see the
    module's text): ``size`` documents per query, or a ``rate`` in [0, 1] of each
    query's sampled stratum; a query with fewer documents gives all of them.

    >>> from ranklens import Run
    >>> from ranklens.judging import pool
    >>> run = Run.from_dict({"q": {f"d{i}": 10.0 - i for i in range(6)}})
    >>> s = sample_pool(pool([run], depth=6), 2, judged_depth=2, seed=1)
    >>> s.stratum.tolist(), s.inclusion.tolist()  # 2 of the 4 below the top 2
    ([0, 0, 1, 1, 1, 1], [1.0, 1.0, 0.5, 0.5, 0.5, 0.5])
    >>> int(s.selected.sum()), bool(s.selected[:2].all())
    (4, True)
    """
    if not isinstance(pool, Pool):
        raise InputError(
            f"sample_pool: pool is a {type(pool).__name__}; pass the Pool that "
            "ranklens.judging.pool returns."
        )
    check_choice("design", design, DESIGNS, where="sample_pool")
    judged_depth = _count(judged_depth, "judged_depth")
    if (size is None) == (rate is None):
        raise InputError("sample_pool: give exactly one of size= (per query) and rate=.")
    if rate is not None and not (0.0 <= float(rate) <= 1.0):
        raise InputError(f"sample_pool: rate={rate!r}; it must lie in [0, 1].")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"sample_pool: seed={seed!r}; it must be an integer.")
    rng = np.random.default_rng(int(seed))
    n = len(pool)
    stratum = (pool.best_rank > judged_depth).astype(np.int8)
    # the sampled stratum's rows, grouped by query (the pool's rows are)
    qcode = np.zeros(n, dtype=np.int64)
    if n > 1:
        change = pc.not_equal(pool.query.slice(1), pool.query.slice(0, n - 1))
        np.cumsum(change.to_numpy(zero_copy_only=False), out=qcode[1:])
    nq = int(qcode.max()) + 1 if n else 0
    lower = stratum == 1
    big_n = np.bincount(qcode[lower], minlength=nq)
    if size is not None:
        want = np.minimum(_count(size, "size"), big_n)
    else:
        want = np.minimum(np.floor(float(rate) * big_n + 0.5).astype(np.int64), big_n)  # type: ignore[arg-type]
    inclusion = np.ones(n)
    selected = ~lower
    key = rng.random(n)  # one draw for every row: the random order within a stratum
    rows = np.flatnonzero(lower)
    rows = rows[np.lexsort((key[rows], qcode[rows]))]
    g = qcode[rows]
    start = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(big_n, out=start[1:])
    if design == "uniform":
        pos = np.arange(len(rows)) - start[g]
        selected[rows] = pos < want[g]
        inclusion[rows] = want[g] / np.maximum(big_n[g], 1)
    else:
        pi = capped_inclusion(pool.ap_prior[rows], g, want, nq)
        inclusion[rows] = pi
        selected[rows] = systematic_draw(pi, g, start, want, rng.random(nq))
    return Sample(pool, selected, stratum, inclusion, design, int(seed))


def capped_inclusion(p: np.ndarray, g: np.ndarray, want: np.ndarray, nq: int) -> np.ndarray:
    """Inclusion probabilities ``min(1, c_g p)`` summing to ``want[g]`` per group."""
    pi = np.zeros(len(p))
    fixed = np.zeros(len(p), dtype=bool)
    while True:
        free = ~fixed
        left = want - np.bincount(g[fixed], minlength=nq)
        mass = np.bincount(g[free], weights=p[free], minlength=nq)
        scale = np.divide(left, mass, out=np.zeros(nq), where=mass > 0)
        pi[free] = p[free] * scale[g[free]]
        over = free & (pi >= 1.0)
        if not over.any():
            break
        pi[over] = 1.0
        fixed |= over
    return pi


def systematic_draw(
    pi: np.ndarray, g: np.ndarray, start: np.ndarray, want: np.ndarray, u: np.ndarray
) -> np.ndarray:
    """Systematic sampling: in each group the points ``u + j`` (``j = 0 .. n-1``) fall
    in the cumulative intervals ``[C_(i-1), C_i)`` of its rows (in the given order)."""
    if len(pi) == 0:
        return np.zeros(0, dtype=bool)
    c = np.cumsum(pi)
    before = np.r_[0.0, c][start[:-1]]  # cumulative sum before each group
    c -= before[g]
    total = np.bincount(g, weights=pi, minlength=len(want))
    c *= np.divide(want, total, out=np.zeros(len(want)), where=total > 0)[g]  # exact ends
    last = start[1:] - 1
    has = want > 0
    c[last[has]] = want[has]
    prev = np.r_[0.0, c[:-1]]
    prev[start[:-1][start[:-1] < len(c)]] = 0.0
    return np.ceil(c - u[g]) > np.ceil(prev - u[g])
