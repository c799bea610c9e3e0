"""Entity resolution on a label budget: which candidate pairs, or which predicted
clusters, to label, with each one's inclusion probability.

Inputs are those of :mod:`ranklens.entity_resolution`: candidate pairs as an ``(m, 2)``
array of record indices, and predicted clusters as a ``record -> entity id`` array.

* :func:`sample_pairs` ``design="uniform"``: a simple random sample of ``size`` pairs,
  inclusion ``size / m``.
* ``design="score"``: stratified by the predicted score (``scores``, one per pair) cut
  at ``edges`` (default: the deciles of the scores); the ``size`` pairs are allocated
  equally over the strata (the remainder to the lowest strata, a stratum never asked
  more than it holds, what it cannot take going to the others), each stratum a simple
  random sample: inclusion ``n_h / N_h``.  Rare high-score (or low-score) pairs are
  then labelled far more often than under a uniform sample; the weights undo it.
* :func:`sample_clusters`: ``size`` predicted clusters drawn with probability
  proportional to their size (``weighted=True``; systematic pi-ps sampling, sizes that
  reach certainty taken with probability 1) or uniformly; every pair inside a drawn
  cluster is labelled, with the cluster's inclusion probability.

Weights are ``1 / inclusion`` (Horvitz-Thompson); draws are seeded and vectorised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice
from ranklens.errors import InputError
from ranklens.judging.sampling import capped_inclusion, systematic_draw

__all__ = ["PairSample", "sample_clusters", "sample_pairs"]


@dataclass(frozen=True, eq=False)
class PairSample:
    """The pairs to label (``pairs``, ``(n, 2)`` record indices), their ``stratum`` (a
    score bucket, or the predicted cluster's id) and ``inclusion`` probability."""

    pairs: np.ndarray
    stratum: np.ndarray
    inclusion: np.ndarray

    @property
    def weight(self) -> np.ndarray:
        return 1.0 / self.inclusion

    def __len__(self) -> int:
        return len(self.pairs)


def _size(size: Any, where: str) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise InputError(f"{where}: size={size!r}; it must be an integer >= 0.")
    return int(size)


def _pairs(pairs: Any, where: str) -> np.ndarray:
    arr = np.asarray(pairs)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise InputError(
            f"{where}: pairs must be an (m, 2) array of integer record indices, got shape "
            f"{arr.shape} of {arr.dtype}."
        )
    return arr.astype(np.int64)


def _allocate(want: int, sizes: np.ndarray) -> np.ndarray:
    """``want`` spread equally over strata of ``sizes`` (remainders to the first), a
    stratum never given more than it holds (water-filling)."""
    n = np.zeros(len(sizes), dtype=np.int64)
    left = min(want, int(sizes.sum()))
    while left > 0:
        room = sizes - n
        open_ = np.flatnonzero(room > 0)
        share = np.full(len(open_), left // len(open_), dtype=np.int64)
        share[: left % len(open_)] += 1
        take = np.minimum(share, room[open_])
        n[open_] += take
        left -= int(take.sum())
    return n


def sample_pairs(
    pairs: Any,
    size: int,
    *,
    design: str = "uniform",
    scores: Any = None,
    edges: Any = None,
    seed: int = 0,
) -> PairSample:
    """Sample ``size`` of the candidate ``pairs`` to label (see the module's text).

    >>> pairs = [[0, 1], [0, 2], [1, 2], [3, 4], [5, 6], [7, 8]]
    >>> s = sample_pairs(pairs, 3, design="score", scores=[.9, .8, .1, .2, .3, .95],
    ...                  edges=[0.5], seed=0)
    >>> sorted(zip(s.stratum.tolist(), s.inclusion.tolist()))  # 2 of 3 low, 1 of 3 high
    [(0, 0.6666666666666666), (0, 0.6666666666666666), (1, 0.3333333333333333)]
    """
    where = "sample_pairs"
    check_choice("design", design, ("uniform", "score"), where=where)
    arr = _pairs(pairs, where)
    m = len(arr)
    want = _size(size, where)
    rng = np.random.default_rng(seed)
    if design == "uniform":
        stratum = np.zeros(m, dtype=np.int64)
    else:
        if scores is None:
            raise InputError(f"{where}: design='score' needs scores= (one per pair).")
        s = np.asarray(scores, dtype=np.float64)
        if s.shape != (m,) or not np.all(np.isfinite(s)):
            raise InputError(f"{where}: scores must be {m} finite numbers, one per pair.")
        cuts = np.quantile(s, np.linspace(0.1, 0.9, 9)) if edges is None else edges
        cuts = np.unique(np.asarray(cuts, dtype=np.float64))
        stratum = np.searchsorted(cuts, s, side="right").astype(np.int64)
    n_strata = int(stratum.max(initial=-1)) + 1
    big_n = np.bincount(stratum, minlength=n_strata)
    n_h = _allocate(want, big_n)
    order = np.lexsort((rng.random(m), stratum))  # random order within each stratum
    start = np.zeros(n_strata + 1, dtype=np.int64)
    np.cumsum(big_n, out=start[1:])
    pos = np.empty(m, dtype=np.int64)
    pos[order] = np.arange(m) - start[stratum[order]]
    chosen = np.flatnonzero(pos < n_h[stratum])
    inclusion = n_h[stratum[chosen]] / big_n[stratum[chosen]]
    return PairSample(arr[chosen], stratum[chosen], inclusion.astype(np.float64))


def sample_clusters(
    pred_entities: Any, size: int, *, weighted: bool = True, seed: int = 0
) -> PairSample:
    """Draw ``size`` predicted clusters (of two records or more: a singleton has no pair)
    and return every pair inside them, with the cluster's inclusion probability.

    Clusters "a" (3 records) and "b" (2) are drawn with probabilities 3/5 and 2/5:

    >>> s = sample_clusters(["a", "a", "a", "b", "b", "c"], 1, seed=0)
    >>> s.stratum.tolist(), s.inclusion.round(3).tolist(), s.pairs.tolist()
    (['a', 'a', 'a'], [0.6, 0.6, 0.6], [[0, 1], [0, 2], [1, 2]])
    """
    where = "sample_clusters"
    labels = np.asarray(pred_entities)
    if labels.ndim != 1:
        raise InputError(f"{where}: pred_entities must be one entity id per record.")
    want = _size(size, where)
    ids, code = np.unique(labels, return_inverse=True)
    sizes = np.bincount(code)
    eligible = np.flatnonzero(sizes >= 2)
    rng = np.random.default_rng(seed)
    n = min(want, len(eligible))
    p = sizes[eligible].astype(np.float64) if weighted else np.ones(len(eligible))
    group = np.zeros(len(eligible), dtype=np.int64)
    pi = capped_inclusion(p, group, np.array([n]), 1)
    perm = rng.permutation(len(eligible))
    start = np.array([0, len(eligible)], dtype=np.int64)
    picked = np.zeros(len(eligible), dtype=bool)
    picked[perm] = systematic_draw(pi[perm], group, start, np.array([n]), rng.random(1))
    clusters = eligible[picked]
    # every pair of records inside a drawn cluster, record indices ascending
    members = np.flatnonzero(np.isin(code, clusters))
    members = members[np.argsort(code[members], kind="stable")]
    c = code[members]
    idx = np.arange(len(members), dtype=np.int64)
    end = np.cumsum(np.bincount(c, minlength=len(sizes)))[c]  # one past the cluster
    later = end - idx - 1  # partners after each member
    left = np.repeat(idx, later)
    first = np.repeat(np.cumsum(later) - later, later)
    right = left + 1 + (np.arange(len(left), dtype=np.int64) - first)
    pairs = np.stack([members[left], members[right]], axis=1)
    cluster_pi = np.zeros(len(sizes))
    cluster_pi[eligible] = pi
    return PairSample(pairs, ids[c[left]], cluster_pi[c[left]])
