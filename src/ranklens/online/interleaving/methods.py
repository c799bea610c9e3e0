r"""Interleaved and multileaved result lists: :func:`interleave` (two rankers) and
:func:`multileave` (two or more), one impression per query (or ``impressions`` per
query), vectorised over all queries: a loop over the ``k`` positions, none over queries.

Each ranker's list for a query is its run's ranking (score descending, equal scores by
``ties``: ``"trec"``, document id descending, as trec_eval; or ``"input"``, the order
of the run's rows), cut at ``k`` (``depth`` for ``probabilistic``).  A query that one
ranker does not rank is an empty list for that ranker.  The interleaved list has
``min(k, |union of the lists|)`` documents, no document twice.

Methods
-------
``team_draft``
    Radlinski, Kurup & Joachims (2008), "How does clickthrough data reflect
    retrieval quality?", CIKM; for more than two rankers the team-draft multileave
    of Schuth et al. (2014), "Multileaved comparisons for fast online evaluation",
    CIKM.  At each position the ranker that picks is one of the rankers with the
    fewest picks so far (chosen uniformly among them by the position's random
    number); it adds its highest-ranked document not yet in the list, which joins
    its team.  A ranker with no unused document left drops out (Radlinski et al.
    stop there; we go on with the others, so the list reaches
    ``min(k, |union|)``).
``balanced``
    Joachims (2003), "Evaluating retrieval performance using clickthrough data",
    in *Text Mining*: one coin decides which ranker leads; pointers ``ka, kb`` into
    the two lists advance alternately (the one behind moves, the leader on equal
    pointers), each adding its document unless it is in the list already.  When a
    list is exhausted the other goes on.  ``team`` is the ranker whose pointer
    added the document.
``probabilistic``
    Hofmann, Whiteson & de Rijke (2011), "A probabilistic method for inferring
    preferences from clicks", CIKM: each ranker is a softmax over its list,
    :math:`P_r(d) \propto 1 / \mathrm{rank}_r(d)^\tau` (``tau``, default 3); at each
    position a ranker is drawn uniformly (among those with documents left) and
    draws a document from its softmax renormalised over the documents not yet
    shown.  ``probability[i, r]`` keeps :math:`P_r(d_i \mid d_1..d_{i-1})` for every
    ranker ``r``: what the marginalised credit needs.  Multileaving: Schuth et al.
    (2015), "Probabilistic multileave for online retrieval evaluation", SIGIR.
``optimized``
    Radlinski & Craswell (2013), "Optimized interleaving for online retrieval
    evaluation", WSDM: the lists allowed are those whose every document is the
    highest-ranked unused document of ``A`` or of ``B``; a distribution over them
    is solved as a linear program (:func:`scipy.optimize.linprog`) so that a user
    clicking at random gives each ranker the same expected credit at every depth
    (the credit of a click on ``d`` is ``f(rank_A(d)) - f(rank_B(d))``,
    ``credit_function`` ``"linear"`` (``f(r) = -r``, the linear rank difference) or
    ``"inverse"`` (``f(r) = 1 / r``); a document outside a ranker's top ``k`` has rank
    ``k + 1``), minimising the insensitivity of Schuth et al. (2014, section 3.3)
    (the variance, over the rankers, of each list's credit under clicks with
    probability ``1 / position``).  The program is solved once per distinct overlap
    pattern of the two top-``k`` lists, not once per query, and kept for later calls;
    a pattern has up to ``2**k`` allowed lists, about 0.1 s of work at ``k = 10``, so
    rankers whose top lists overlap differently on every query cost that per query.
    ``team`` is the ranker whose next document it was, ``-1`` when it was both
    rankers'.

Randomness: every random number is a function of (``seed``, query id, impression,
draw), see :mod:`ranklens.online.interleaving._streams`; so a query's lists do not
depend on the other queries or their order.

>>> from ranklens import Run
>>> a = Run.from_dict({"q": {"d1": 3, "d2": 2, "d3": 1}}, name="A")
>>> b = Run.from_dict({"q": {"d2": 3, "d4": 2, "d1": 1}}, name="B")
>>> il = interleave([a, b], method="team_draft", k=4, seed=1)
>>> row = il.to_pylist()[0]
>>> sorted(row["docs"]) == ["d1", "d2", "d3", "d4"], sorted(row["teams"])
(True, ['A', 'A', 'B', 'B'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.validate import check_choice, check_int, check_number
from ranklens.errors import InputError
from ranklens.online.interleaving._lists import Rankings, dense_rankings, ranker_names
from ranklens.online.interleaving._streams import stream_keys, uniforms

__all__ = [
    "CREDIT_FUNCTIONS",
    "INTERLEAVE_METHODS",
    "MULTILEAVE_METHODS",
    "Interleaving",
    "interleave",
    "multileave",
]

InterleaveMethod = Literal["team_draft", "balanced", "probabilistic", "optimized"]
MultileaveMethod = Literal["team_draft", "probabilistic"]
CreditFunction = Literal["linear", "inverse"]
INTERLEAVE_METHODS: tuple[str, ...] = get_args(InterleaveMethod)
MULTILEAVE_METHODS: tuple[str, ...] = get_args(MultileaveMethod)
CREDIT_FUNCTIONS: tuple[str, ...] = get_args(CreditFunction)
TIES = ("trec", "input")


@dataclass(frozen=True, eq=False)
class Interleaving:
    """Interleaved lists, one per impression (a query shown once), in CSR form.

    Impression ``i`` shows ``doc[offsets[i]:offsets[i + 1]]`` for query ``query[i]``
    (its ``impression[i]``-th showing, from 0).  Per shown document (``P`` in all):
    ``team`` the index into ``rankers`` of the ranker it was drafted for (``-1``:
    none), ``rank[:, r]`` its rank in ranker ``r``'s list (1-based; 0: not in the
    top ``k``), and for ``probabilistic`` ``probability[:, r]``, the probability that
    ranker ``r`` would have drawn it at that position.  ``notes``: what the method
    could not do as defined (optimized interleaving's unbiasedness, see
    :func:`interleave`).
    """

    method: str
    rankers: tuple[str, ...]
    k: int
    seed: int
    query: pa.Array
    impression: np.ndarray
    offsets: np.ndarray
    doc: pa.Array
    team: np.ndarray
    rank: np.ndarray
    probability: np.ndarray | None = None
    tau: float | None = None
    credit_function: str | None = None
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.impression)

    @property
    def positions(self) -> np.ndarray:
        """The 1-based position of every shown document."""
        starts = np.repeat(self.offsets[:-1], np.diff(self.offsets))
        return np.arange(len(self.team), dtype=np.int64) - starts + 1

    def to_arrow(self) -> pa.Table:
        """One row per shown document: ``query``, ``impression``, ``position``,
        ``doc``, ``team`` (the ranker's name, empty for none), ``rank_<ranker>`` (0: not
        in its list) and, for ``probabilistic``, ``p_<ranker>``."""
        n = np.diff(self.offsets)
        names = np.array([*self.rankers, ""], dtype=object)
        cols: dict[str, Any] = {
            "query": self.query.take(from_numpy(np.repeat(np.arange(len(n)), n))),
            "impression": from_numpy(np.repeat(self.impression, n)),
            "position": from_numpy(self.positions),
            "doc": self.doc,
            "team": pa.array(names[self.team].tolist(), type=pa.large_string()),
        }
        for r, name in enumerate(self.rankers):
            cols[f"rank_{name}"] = from_numpy(np.ascontiguousarray(self.rank[:, r]))
        if self.probability is not None:
            for r, name in enumerate(self.rankers):
                cols[f"p_{name}"] = from_numpy(np.ascontiguousarray(self.probability[:, r]))
        return pa.table(cols)

    @classmethod
    def from_arrow(
        cls,
        table: Any,
        *,
        method: str,
        k: int | None = None,
        credit_function: str = "linear",
        seed: int = 0,
        where: str = "Interleaving.from_arrow",
    ) -> Interleaving:
        """The interleaving a table of :meth:`to_arrow`'s columns describes (a file the
        command line wrote, read back): rows grouped by (``query``, ``impression``;
        ``impression`` optional, 0) in ``position`` order; the rankers are named by the
        ``rank_<ranker>`` columns; ``p_<ranker>`` columns are needed for
        ``probabilistic``.  ``k`` (optimized's rank of a document outside a top-k list,
        ``k + 1``) defaults to the longest list.  Extra columns are ignored."""
        import pyarrow.compute as pc

        check_choice("method", method, INTERLEAVE_METHODS, where=where)
        cols = list(table.column_names)
        for need in ("query", "position", "doc", "team"):
            if need not in cols:
                raise InputError(
                    f"{where}: the table has no column {need!r} (it has {cols}); write it "
                    "with Interleaving.to_arrow() or 'ranklens interleave lists'."
                )
        rankers = tuple(c[len("rank_") :] for c in cols if c.startswith("rank_"))
        if len(rankers) < 2:
            raise InputError(
                f"{where}: the table needs a rank_<ranker> column per ranker (two or more); "
                f"it has {cols}."
            )
        n = table.num_rows
        query = table.column("query").combine_chunks().cast(pa.large_string())
        imp = (
            to_numpy(table.column("impression").combine_chunks().cast(pa.int64()))
            if "impression" in cols
            else np.zeros(n, dtype=np.int64)
        )
        position = to_numpy(table.column("position").combine_chunks().cast(pa.int64()))
        qenc = pc.dictionary_encode(query)
        qcode = to_numpy(qenc.indices).astype(np.int64)
        order = np.lexsort((position, imp, qcode))
        key = np.stack([qcode[order], imp[order]], axis=1)
        new = np.ones(n, dtype=bool)
        new[1:] = (key[1:] != key[:-1]).any(axis=1)
        starts = np.flatnonzero(new)
        offsets = np.append(starts, n).astype(np.int64)
        expect = np.arange(n) - np.repeat(starts, np.diff(offsets)) + 1
        bad = np.flatnonzero(position[order] != expect)
        if bad.size:
            i = int(order[bad[0]])
            raise InputError(
                f"{where}: row {i + 1} (query {query[i].as_py()!r}, impression "
                f"{int(imp[i])}) has position {int(position[i])}; the positions of an "
                "impression must be 1, 2, 3, ... once each."
            )
        take = from_numpy(order)
        team_names = table.column("team").combine_chunks().cast(pa.large_string())
        team_names = team_names.take(take).to_pylist()
        lookup = {name: i for i, name in enumerate(rankers)}
        unknown = sorted({t for t in team_names if t and t not in lookup})
        if unknown:
            raise InputError(
                f"{where}: team {unknown[0]!r} is not a ranker of the table "
                f"({', '.join(rankers)}, from its rank_<ranker> columns)."
            )
        team = np.array([lookup.get(t or "", -1) for t in team_names], dtype=np.int16)

        def matrix(prefix: str, dtype: Any) -> np.ndarray:
            return np.stack(
                [
                    to_numpy(table.column(f"{prefix}{r}").combine_chunks()).astype(dtype)[order]
                    for r in rankers
                ],
                axis=1,
            )

        probability = None
        if method == "probabilistic":
            missing = [f"p_{r}" for r in rankers if f"p_{r}" not in cols]
            if missing:
                raise InputError(
                    f"{where}: method='probabilistic' credits clicks with each ranker's "
                    f"probability; the table has no column {missing[0]!r}."
                )
            probability = matrix("p_", np.float64)
        lengths = np.diff(offsets)
        return cls(
            method=method,
            rankers=rankers,
            k=int(k) if k is not None else int(lengths.max(initial=0)),
            seed=seed,
            query=query.take(from_numpy(order[starts])),
            impression=imp[order[starts]],
            offsets=offsets,
            doc=table.column("doc").combine_chunks().cast(pa.large_string()).take(take),
            team=team,
            rank=matrix("rank_", np.int64),
            probability=probability,
            credit_function=credit_function if method == "optimized" else None,
        )

    def to_pylist(self) -> list[dict[str, Any]]:
        """One dict per impression: ``query``, ``impression``, ``docs`` and ``teams``
        (ranker names, ``None`` for none)."""
        docs = self.doc.to_pylist()
        names = [*self.rankers, None]
        out = []
        for i, q in enumerate(self.query.to_pylist()):
            a, b = int(self.offsets[i]), int(self.offsets[i + 1])
            out.append(
                {
                    "query": q,
                    "impression": int(self.impression[i]),
                    "docs": docs[a:b],
                    "teams": [names[t] for t in self.team[a:b].tolist()],
                }
            )
        return out


def interleave(
    runs: Any,
    method: str = "team_draft",
    *,
    k: int = 10,
    seed: int = 0,
    tau: float = 3.0,
    impressions: int = 1,
    depth: int | None = None,
    credit_function: str = "linear",
    ties: str = "trec",
) -> Interleaving:
    """Interleave the rankings of two runs, every query at once.

    ``runs``: two :class:`~ranklens.Run` (a list, named by ``Run.name`` else ``A`` and
    ``B``, or a mapping ``{name: Run}``).  ``method``: ``team_draft``, ``balanced``,
    ``probabilistic`` (softmax temperature ``tau``) or ``optimized``
    (``credit_function`` ``linear`` or ``inverse``); see the module documentation
    for each algorithm and its reference.  ``k``: length of the interleaved lists;
    ``impressions``: independent impressions per query; ``seed``: an integer;
    ``depth``: how much of each ranking the probabilistic softmax covers (default
    all of it); ``ties``: ``trec`` or ``input``.  Returns an :class:`Interleaving`.

    >>> from ranklens import Run
    >>> a = Run.from_dict({"q": {"a": 3, "b": 2, "c": 1}}, name="A")
    >>> b = Run.from_dict({"q": {"b": 3, "c": 2, "a": 1}}, name="B")
    >>> leads = {tuple(interleave([a, b], "balanced", k=3, seed=s).to_pylist()[0]["docs"])
    ...          for s in range(20)}
    >>> sorted(leads)  # A leads: a, b, c; B leads: b, a, c
    [('a', 'b', 'c'), ('b', 'a', 'c')]
    """
    where = "interleave"
    check_choice("method", method, INTERLEAVE_METHODS, where=where)
    items = ranker_names(runs, where, low=2, high=2)
    return _run(items, method, where, k, seed, tau, impressions, depth, credit_function, ties)


def multileave(
    runs: Any,
    method: str = "team_draft",
    *,
    k: int = 10,
    seed: int = 0,
    tau: float = 3.0,
    impressions: int = 1,
    depth: int | None = None,
    ties: str = "trec",
) -> Interleaving:
    """Multileave the rankings of two or more runs (Schuth et al. 2014): ``method``
    ``team_draft`` (team-draft multileave) or ``probabilistic`` (probabilistic
    multileave, Schuth et al. 2015); the other parameters as :func:`interleave`.
    With two runs it gives the same lists as :func:`interleave`.

    >>> from ranklens import Run
    >>> runs = {n: Run.from_dict({"q": {f"{n}{i}": 5 - i for i in range(3)}}) for n in "xyz"}
    >>> row = multileave(runs, k=6, seed=3).to_pylist()[0]
    >>> sorted(row["teams"]), len(set(row["docs"]))
    (['x', 'x', 'y', 'y', 'z', 'z'], 6)
    """
    where = "multileave"
    check_choice("method", method, MULTILEAVE_METHODS, where=where)
    items = ranker_names(runs, where, low=2, high=None)
    return _run(items, method, where, k, seed, tau, impressions, depth, "linear", ties)


def _check_seed(seed: Any, where: str) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InputError(
            f"{where}: seed must be an integer (the lists are a function of the seed and "
            f"the query ids), got {seed!r}."
        )
    return int(seed)


def _run(
    items: list[tuple[str, Any]],
    method: str,
    where: str,
    k: Any,
    seed: Any,
    tau: Any,
    impressions: Any,
    depth: Any,
    credit_function: str,
    ties: str,
) -> Interleaving:
    k = check_int("k", k, where=where, hint="the length of the interleaved list, e.g. k=10")
    n_imp = check_int("impressions", impressions, where=where)
    seed = _check_seed(seed, where)
    check_choice("ties", ties, TIES, where=where)
    tau_v = None
    cut: int | None = k
    if method == "probabilistic":
        tau_v = check_number("tau", tau, low=0, low_open=False, where=where, hint="e.g. tau=3")
        cut = None if depth is None else check_int("depth", depth, where=where)
    elif depth is not None:
        raise InputError(
            f"{where}: depth is a parameter of method='probabilistic' (the lists of the "
            f"other methods are cut at k); got depth={depth!r} with method={method!r}."
        )
    if method == "optimized":
        check_choice("credit_function", credit_function, CREDIT_FUNCTIONS, where=where)
    names = tuple(n for n, _ in items)
    lists = dense_rankings([r for _, r in items], cut, ties)
    n_q = len(lists.queries)
    qrow = np.repeat(np.arange(n_q, dtype=np.int64), n_imp)
    keys = stream_keys(lists.queries, n_imp, seed=seed, salt="interleave")
    local = lists.local[qrow]
    lengths = lists.lengths[qrow]
    probability = None
    notes: list[str] = []
    if method == "team_draft":
        out, team = _team_draft(local, uniforms(keys, k), k, lists.width)
    elif method == "balanced":
        out, team = _balanced(local, lengths, uniforms(keys, 1)[:, 0], k, lists.width)
    elif method == "probabilistic":
        assert tau_v is not None
        out, team, probability = _probabilistic(local, uniforms(keys, 2 * k), k, lists.width, tau_v)
    else:
        from ranklens.online.interleaving._optimized import optimized

        out, team, biased = optimized(lists, qrow, uniforms(keys, 1)[:, 0], k, credit_function)
        if biased:
            notes.append(
                f"{biased} of {n_q} queries have lists that no distribution makes unbiased "
                "under random clicks (a document only one ranker has, with no other list to "
                "balance it); their lists are drawn from the distribution of least bias"
            )
    return _result(
        method,
        names,
        k,
        seed,
        lists,
        qrow,
        n_imp,
        out,
        team,
        probability,
        tau_v,
        credit_function,
        tuple(notes),
    )


def _result(
    method: str,
    names: tuple[str, ...],
    k: int,
    seed: int,
    lists: Rankings,
    qrow: np.ndarray,
    n_imp: int,
    out: np.ndarray,
    team: np.ndarray,
    probability: np.ndarray | None,
    tau: float | None,
    credit_function: str,
    notes: tuple[str, ...],
) -> Interleaving:
    """The result arrays from the per-impression local ids ``out`` (N, k) (``width``:
    none) and teams."""
    n, m, width = len(qrow), len(names), lists.width
    shown = out < width
    counts = shown.sum(axis=1)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    n_q = lists.codes.shape[0]
    qidx = np.repeat(np.arange(n_q, dtype=np.int64), width)
    code_of = np.full((n_q, width + 1), -1, dtype=np.int64)
    code_of[qidx, lists.local.reshape(-1)] = lists.codes.reshape(-1)
    code_of[:, width] = -1
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    loc = out[shown]
    codes = code_of[qrow[rows], loc]
    rank = np.zeros((len(loc), m), dtype=np.int64)
    depth_l = lists.codes.shape[2]
    pos = np.zeros((n_q, width + 1), dtype=np.int64)
    for r in range(m):
        pos[:] = 0
        pos[np.repeat(np.arange(n_q), depth_l), lists.local[:, r, :].reshape(-1)] = np.tile(
            np.arange(1, depth_l + 1), n_q
        )
        pos[:, width] = 0
        rank[:, r] = pos[qrow[rows], loc]
    return Interleaving(
        method=method,
        rankers=names,
        k=k,
        seed=seed,
        query=lists.queries.take(from_numpy(qrow)),
        impression=np.tile(np.arange(n_imp, dtype=np.int64), n_q),
        offsets=offsets,
        doc=lists.docs.take(from_numpy(codes)).cast(pa.large_string()),
        team=team[shown].astype(np.int16),
        rank=rank,
        probability=None if probability is None else probability[shown],
        tau=tau,
        credit_function=credit_function if method == "optimized" else None,
        notes=notes,
    )


def _advance(local: np.ndarray, used: np.ndarray, ptr: np.ndarray) -> None:
    """Move every pointer past the documents already shown (and the padding)."""
    n, m, depth = local.shape
    flat_local = local.reshape(-1)
    flat_used = used.reshape(-1)
    base = (np.arange(n, dtype=np.int64) * (m * depth))[:, None] + np.arange(m) * depth
    row_base = (np.arange(n, dtype=np.int64) * used.shape[1])[:, None]
    while True:
        cur = flat_local[base + np.minimum(ptr, depth - 1)]
        stale = (ptr < depth) & flat_used[row_base + cur]
        if not stale.any():
            return
        ptr += stale


def _pick(eligible: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ``floor(u * c)``-th (0-based) of the ``c`` eligible rankers of each row, and
    whether the row has any."""
    c = eligible.sum(axis=1)
    j = np.minimum(np.floor(u * c), np.maximum(c - 1, 0)).astype(np.int64)
    r = np.argmax(np.cumsum(eligible, axis=1) > j[:, None], axis=1)
    return r, c > 0


def _team_draft(
    local: np.ndarray, u: np.ndarray, k: int, width: int
) -> tuple[np.ndarray, np.ndarray]:
    n, m, _ = local.shape
    rows = np.arange(n)
    used = np.zeros((n, width + 1), dtype=bool)
    used[:, width] = True
    ptr = np.zeros((n, m), dtype=np.int64)
    picks = np.zeros((n, m), dtype=np.int64)
    out = np.full((n, k), width, dtype=np.int64)
    team = np.full((n, k), -1, dtype=np.int64)
    big = np.iinfo(np.int64).max
    for s in range(k):
        _advance(local, used, ptr)
        left = ptr < local.shape[2]
        fewest = np.where(left, picks, big)
        eligible = left & (fewest == fewest.min(axis=1)[:, None])
        r, active = _pick(eligible, u[:, s])
        if not active.any():
            break
        a = rows[active]
        ra = r[active]
        x = local[a, ra, ptr[a, ra]]
        out[a, s] = x
        team[a, s] = ra
        used[a, x] = True
        picks[a, ra] += 1
    return out, team


def _balanced(
    local: np.ndarray, lengths: np.ndarray, coin: np.ndarray, k: int, width: int
) -> tuple[np.ndarray, np.ndarray]:
    n = local.shape[0]
    rows = np.arange(n)
    used = np.zeros((n, width + 1), dtype=bool)
    used[:, width] = True
    a_first = coin < 0.5
    ka = np.zeros(n, dtype=np.int64)
    kb = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    out = np.full((n, k), width, dtype=np.int64)
    team = np.full((n, k), -1, dtype=np.int64)
    depth = local.shape[2]
    while True:
        a_left = ka < lengths[:, 0]
        b_left = kb < lengths[:, 1]
        active = (count < k) & (a_left | b_left)
        if not active.any():
            break
        a_turn = np.where(a_left & b_left, (ka < kb) | ((ka == kb) & a_first), a_left)
        side = np.where(a_turn, 0, 1)
        at = np.minimum(np.where(a_turn, ka, kb), depth - 1)
        x = local[rows, side, at]
        new = active & ~used[rows, x]
        idx = rows[new]
        out[idx, count[idx]] = x[idx]
        team[idx, count[idx]] = side[idx]
        used[idx, x[idx]] = True
        count += new
        ka += active & a_turn
        kb += active & ~a_turn
    return out, team


def _probabilistic(
    local: np.ndarray, u: np.ndarray, k: int, width: int, tau: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, m, depth = local.shape
    rows = np.arange(n)
    weights = np.arange(1, depth + 1, dtype=np.float64) ** -tau
    rem = np.where(local < width, weights[None, None, :], 0.0)
    out = np.full((n, k), width, dtype=np.int64)
    team = np.full((n, k), -1, dtype=np.int64)
    prob = np.zeros((n, k, m))
    for s in range(k):
        total = rem.sum(axis=2)
        r, active = _pick(total > 0, u[:, 2 * s])
        if not active.any():
            break
        a = rows[active]
        ra = r[active]
        cum = np.cumsum(rem[a, ra, :], axis=1)
        target = u[a, 2 * s + 1] * cum[:, -1]
        p = np.argmax(cum > target[:, None], axis=1)
        x = local[a, ra, p]
        hit = local[a] == x[:, None, None]
        wx = (rem[a] * hit).sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            prob[a, s, :] = np.where(total[a] > 0, wx / np.where(total[a] > 0, total[a], 1), 0)
        sub = rem[a]
        sub[hit] = 0.0
        rem[a] = sub
        out[a, s] = x
        team[a, s] = ra
    return out, team, prob
