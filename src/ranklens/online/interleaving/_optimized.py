"""Optimized interleaving (Radlinski & Craswell 2013): the allowed lists of each
overlap pattern of two top-``k`` lists, and their distribution, solved by
:func:`scipy.optimize.linprog` once per pattern (queries whose lists overlap in the
same way share it)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ranklens._shared.deps import needs
from ranklens.errors import UnsupportedError
from ranklens.online.interleaving._lists import Rankings

__all__ = ["allowed_lists", "credit_values", "optimized", "solve"]


def credit_values(rank: np.ndarray, k: int, function: str) -> np.ndarray:
    """``f(rank)`` with rank 0 (not in the top ``k``) read as ``k + 1``: ``-rank``
    (``linear``) or ``1 / rank`` (``inverse``)."""
    r = np.where(rank > 0, rank, k + 1).astype(np.float64)
    return -r if function == "linear" else 1.0 / r


def allowed_lists(
    a: list[int], b: list[int], k: int
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every list (documents, teams) whose each document is the highest-ranked unused
    document of ``a`` or of ``b`` (team 0 or 1; -1 when it is both's), of length
    ``min(k, |a ∪ b|)``."""
    n = min(k, len(set(a) | set(b)))
    found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def grow(docs: tuple[int, ...], teams: tuple[int, ...]) -> None:
        if len(docs) == n:
            found.append((docs, teams))
            return
        shown = set(docs)
        na = next((d for d in a if d not in shown), None)
        nb = next((d for d in b if d not in shown), None)
        if na is not None and na == nb:
            grow((*docs, na), (*teams, -1))
            return
        if na is not None:
            grow((*docs, na), (*teams, 0))
        if nb is not None:
            grow((*docs, nb), (*teams, 1))

    grow((), ())
    return found


def solve(
    a: list[int], b: list[int], k: int, function: str
) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], np.ndarray, bool]:
    """The allowed lists, their probabilities and whether the program had to be
    relaxed: ``sum_L p_L sum_{j <= i} delta(L_j) = 0`` for every depth ``i`` (no
    expected credit from random clicks),
    ``sum p = 1``, ``p >= 0``, minimising ``sum_L p_L var_L`` (``var_L``: the
    variance over the two rankers of the credit each gets from ``L`` under clicks of
    probability ``1 / position``).  When no distribution is unbiased at every depth
    (a document that only one ranker has, with no list to balance it), the one of least
    total bias ``sum_i |sum_L p_L sum_{j <= i} delta(L_j)|`` is taken instead, and the
    third value is True."""
    with needs("stats", "ranklens.online.interleave(method='optimized')"):
        from scipy.optimize import linprog  # type: ignore[import-untyped, unused-ignore]

    lists = allowed_lists(a, b, k)
    ra = {d: i + 1 for i, d in enumerate(a)}
    rb = {d: i + 1 for i, d in enumerate(b)}
    n = len(lists[0][0])
    if n == 0:
        return lists, np.ones(1), False
    ranks = np.array(
        [[[ra.get(d, 0), rb.get(d, 0)] for d in docs] for docs, _ in lists], dtype=np.int64
    )  # (lists, n, 2)
    f = credit_values(ranks, k, function)
    delta = np.cumsum(f[:, :, 0] - f[:, :, 1], axis=1)  # (lists, n)
    click = 1.0 / np.arange(1, n + 1)
    mu = (f * click[None, :, None]).sum(axis=1)  # (lists, 2)
    var = ((mu - mu.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    a_eq = np.vstack([np.ones(len(lists)), delta.T])
    b_eq = np.zeros(n + 1)
    b_eq[0] = 1.0
    res = linprog(var, A_eq=a_eq, b_eq=b_eq, bounds=(0, 1), method="highs")
    if res.success:
        p = np.clip(res.x, 0.0, None)
        return lists, p / p.sum(), False
    # no unbiased distribution (e.g. a document only one ranker has, and no other list):
    # the distribution of least total bias, sum_i |E[credit up to depth i]|
    m = len(lists)
    eye = np.eye(n)
    a_eq = np.block([[np.ones((1, m)), np.zeros((1, 2 * n))], [delta.T, eye, -eye]])
    cost = np.concatenate([np.zeros(m), np.ones(2 * n)])
    res = linprog(cost, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    if not res.success:  # pragma: no cover - the relaxed program is always feasible
        raise UnsupportedError(f"interleave(method='optimized'): {res.message}")
    p = np.clip(res.x[:m], 0.0, None)
    return lists, p / p.sum(), True


@lru_cache(maxsize=4096)
def _solved(
    a: tuple[int, ...], b: tuple[int, ...], k: int, function: str
) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], np.ndarray, bool]:
    """:func:`solve`, kept for patterns seen before (the same pair of lists comes back
    for every impression and every call): read-only results."""
    lists, p, relaxed = solve(list(a), list(b), k, function)
    p.setflags(write=False)
    return lists, p, relaxed


def optimized(
    lists: Rankings, qrow: np.ndarray, u: np.ndarray, k: int, function: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """Per impression, a list drawn from its pattern's distribution (by ``u``), as
    local ids (``width``: none) and teams; and the number of queries whose pattern has
    no unbiased distribution."""
    n_q, _, depth = lists.codes.shape
    width = lists.width
    flat = lists.local.reshape(n_q, 2 * depth)
    # the canonical form of a query's pair of lists: each document named by the first
    # position (in A's list, then B's) where it appears; the padding 2 * depth
    first = np.full((n_q, width + 1), 2 * depth, dtype=np.int64)
    np.minimum.at(
        first,
        (np.repeat(np.arange(n_q), 2 * depth), flat.reshape(-1)),
        np.tile(np.arange(2 * depth, dtype=np.int64), n_q),
    )
    first[:, width] = 2 * depth
    sig = np.take_along_axis(first, flat, axis=1)
    patterns, which = np.unique(sig, axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    n = len(qrow)
    out = np.full((n, k), width, dtype=np.int64)
    team = np.full((n, k), -1, dtype=np.int64)
    imp_pattern = which[qrow]
    biased = 0
    order = np.argsort(imp_pattern, kind="stable")
    bounds = np.searchsorted(imp_pattern[order], np.arange(len(patterns) + 1))
    for g, pat in enumerate(patterns):
        rows = order[bounds[g] : bounds[g + 1]]
        if rows.size == 0:
            continue
        a = [int(x) for x in pat[:depth] if x < 2 * depth]
        b = [int(x) for x in pat[depth:] if x < 2 * depth]
        allowed, p, relaxed = _solved(tuple(a), tuple(b), k, function)
        if relaxed:
            biased += int(np.count_nonzero(which == g))
        pick = np.searchsorted(np.cumsum(p)[:-1], u[rows], side="right")
        docs = np.full((len(allowed), k), -1, dtype=np.int64)
        teams = np.full((len(allowed), k), -1, dtype=np.int64)
        for i, (d, t) in enumerate(allowed):
            docs[i, : len(d)] = d
            teams[i, : len(t)] = t
        chosen = docs[pick]  # canonical names: positions in the query's flat lists
        ok = chosen >= 0
        local = np.full(chosen.shape, width, dtype=np.int64)
        qr = np.broadcast_to(qrow[rows][:, None], chosen.shape)
        local[ok] = flat[qr[ok], chosen[ok]]
        out[rows] = local
        team[rows] = np.where(ok, teams[pick], -1)
    return out, team, biased
