r"""Credit for clicks on interleaved lists: which ranker each impression prefers.

:func:`credit` turns the clicks on an :class:`~ranklens.online.interleaving.Interleaving`
into an :class:`Outcomes`: per impression, a credit per ranker and, per pair of
rankers ``(a, b)``, an outcome in ``[-1, 1]`` (``+1``: ``a`` wins, ``-1``: ``b`` wins,
``0``: a tie).  The rule is the method's:

``team_draft``
    credit = clicks on the ranker's team (Radlinski et al. 2008; Schuth et al. 2014
    for multileaving); outcome = sign of the credit difference.
``balanced``
    Joachims (2003) as Chapelle et al. (2012) state it: with ``d`` the lowest clicked
    document and :math:`k^* = \min(\mathrm{rank}_A(d), \mathrm{rank}_B(d))`, the credit of
    each ranker is the number of clicked documents in its top :math:`k^*`; outcome = sign
    of the difference.
``probabilistic``
    the **marginalised** outcome of Hofmann et al. (2011, section 4.2; exact, no
    sampling): given the list, the ranker that contributed position ``i`` is ``r``
    with posterior probability :math:`\pi_{ir} = p_r(i) / \sum_s p_s(i)` (``p`` the
    ``probability`` kept by the interleaving, independent over positions), credit =
    expected clicks :math:`\sum_{i \in C} \pi_{ir}`, and the outcome of ``(a, b)`` is
    :math:`P(n_a > n_b) - P(n_a < n_b)` for the numbers of clicks assigned to each,
    computed exactly by convolving the clicked positions.
``optimized``
    the credit function of Radlinski & Craswell (2013) the lists were solved for
    (``linear``: :math:`-\mathrm{rank}`, ``inverse``: :math:`1/\mathrm{rank}`; rank ``k + 1``
    outside the top ``k``), summed over the clicked documents; outcome = sign of the
    difference.

An impression without clicks has outcome 0 for every pair; :func:`analyze` leaves such
impressions out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.columns import as_id_column
from ranklens.errors import InputError
from ranklens.online.interleaving._optimized import credit_values
from ranklens.online.interleaving.methods import Interleaving

__all__ = ["Outcomes", "credit"]


@dataclass(frozen=True, eq=False)
class Outcomes:
    """Per impression (``query``, ``impression``, optional ``user``): ``clicks`` (the
    number), ``credit`` (impressions, rankers) and ``outcome`` (impressions, pairs),
    pair ``j`` being ``(rankers[pairs[j][0]], rankers[pairs[j][1]])``, positive when the
    first ranker wins."""

    method: str
    rankers: tuple[str, ...]
    pairs: tuple[tuple[int, int], ...]
    query: pa.Array
    impression: np.ndarray
    clicks: np.ndarray
    credit: np.ndarray
    outcome: np.ndarray
    user: pa.Array | None = None

    def __len__(self) -> int:
        return len(self.impression)


def _clicks(clicks: Any, n: int) -> np.ndarray:
    arr = np.asarray(clicks)
    if arr.ndim != 1 or len(arr) != n:
        raise InputError(
            f"credit: clicks must be one value per shown document ({n}, aligned with "
            f"interleaving.doc), got shape {arr.shape}."
        )
    if arr.dtype == np.bool_:
        return arr
    if not np.issubdtype(arr.dtype, np.number):
        raise InputError(f"credit: clicks must be booleans or 0/1, got values of type {arr.dtype}.")
    bad = np.flatnonzero(~np.isin(arr, (0, 1)))
    if bad.size:
        raise InputError(
            f"credit: clicks must be booleans or 0/1; clicks[{int(bad[0])}] is "
            f"{arr[bad[0]].item()!r}."
        )
    return arr.astype(bool)


def _sign(x: np.ndarray) -> np.ndarray:
    return np.sign(np.where(np.abs(x) <= 1e-12 * np.maximum(1.0, np.abs(x)), 0.0, x))


def credit(interleaving: Interleaving, clicks: Any, *, users: Any = None) -> Outcomes:
    """Credit every ranker for the ``clicks`` on ``interleaving`` (one boolean per shown
    document, aligned with ``interleaving.doc``; the rule of each method in the module
    documentation).  ``users``: one user id per impression, for
    ``analyze(..., by="user")``.

    >>> from ranklens import Run
    >>> from ranklens.online.interleaving import interleave
    >>> a = Run.from_dict({"q": {"a": 3, "b": 2, "c": 1}}, name="A")
    >>> b = Run.from_dict({"q": {"b": 3, "c": 2, "a": 1}}, name="B")
    >>> il = interleave([a, b], "balanced", k=3, seed=0)
    >>> il.to_pylist()[0]["docs"]
    ['b', 'a', 'c']
    >>> out = credit(il, [False, False, True])  # c: k* = min(3, 2) = 2
    >>> out.credit.tolist(), out.outcome.tolist()  # A's top 2 is a, b; B's is b, c
    ([[0.0, 1.0]], [[-1.0]])
    """
    if not isinstance(interleaving, Interleaving):
        raise InputError(
            f"credit: interleaving must be what interleave() or multileave() returns, got "
            f"{type(interleaving).__name__}."
        )
    il = interleaving
    click = _clicks(clicks, len(il.team))
    n, m = len(il), len(il.rankers)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(il.offsets))
    pairs = tuple((a, b) for a in range(m) for b in range(a + 1, m))
    ci = np.flatnonzero(click)
    crow = rows[ci]
    n_clicks = np.bincount(crow, minlength=n)
    cred = np.zeros((n, m))
    outcome = np.zeros((n, len(pairs)))
    if il.method == "team_draft":
        for r in range(m):
            cred[:, r] = np.bincount(crow, weights=il.team[ci] == r, minlength=n)
    elif il.method == "balanced":
        last = np.full(n, -1, dtype=np.int64)
        np.maximum.at(last, crow, ci)
        has = last >= 0
        big = np.iinfo(np.int64).max
        rank_last = np.where(il.rank[last[has]] > 0, il.rank[last[has]], big)
        kstar = np.zeros(n, dtype=np.int64)
        kstar[has] = rank_last.min(axis=1)
        rk = il.rank[ci]
        inside = (rk > 0) & (rk <= kstar[crow][:, None])
        for r in range(m):
            cred[:, r] = np.bincount(crow, weights=inside[:, r], minlength=n)
    elif il.method == "probabilistic":
        assert il.probability is not None
        p = il.probability[ci]
        tot = p.sum(axis=1, keepdims=True)
        post = p / np.where(tot > 0, tot, 1.0)
        for r in range(m):
            cred[:, r] = np.bincount(crow, weights=post[:, r], minlength=n)
        for j, (a, b) in enumerate(pairs):
            outcome[:, j] = _marginalised(crow, post[:, a], post[:, b], n, n_clicks)
    else:  # optimized
        f = credit_values(il.rank[ci], il.k, il.credit_function or "linear")
        for r in range(m):
            cred[:, r] = np.bincount(crow, weights=f[:, r], minlength=n)
        cred[n_clicks == 0] = 0.0
    if il.method != "probabilistic":
        for j, (a, b) in enumerate(pairs):
            outcome[:, j] = _sign(cred[:, a] - cred[:, b])
    user = None
    if users is not None:
        user = as_id_column(users, "credit: users").cast(pa.large_string())
        if len(user) != n:
            raise InputError(
                f"credit: users must hold one id per impression ({n}), got {len(user)}."
            )
    return Outcomes(
        method=il.method,
        rankers=il.rankers,
        pairs=pairs,
        query=il.query,
        impression=il.impression,
        clicks=n_clicks,
        credit=cred,
        outcome=outcome,
        user=user,
    )


def _marginalised(
    crow: np.ndarray, pa_: np.ndarray, pb: np.ndarray, n: int, n_clicks: np.ndarray
) -> np.ndarray:
    """``P(D > 0) - P(D < 0)`` per impression for ``D`` the sum over its clicks of
    independent steps ``+1`` (prob ``pa_``), ``-1`` (``pb``), ``0`` (the rest)."""
    out = np.zeros(n)
    if len(crow) == 0:
        return out
    cmax = int(n_clicks.max())
    # the j-th click of each impression
    first = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(n_clicks, out=first[1:])
    j = np.arange(len(crow)) - first[crow]
    da = np.zeros((n, cmax))
    db = np.zeros((n, cmax))
    da[crow, j] = pa_
    db[crow, j] = pb
    dist = np.zeros((n, 2 * cmax + 1))
    dist[:, cmax] = 1.0
    for t in range(cmax):
        a, b = da[:, t : t + 1], db[:, t : t + 1]
        new = dist * (1.0 - a - b)
        new[:, 1:] += dist[:, :-1] * a
        new[:, :-1] += dist[:, 1:] * b
        dist = new
    return dist[:, cmax + 1 :].sum(axis=1) - dist[:, :cmax].sum(axis=1)
