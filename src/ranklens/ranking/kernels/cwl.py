"""C/W/L measures: the user-model metrics of ``cwl_eval`` (Azzopardi, Thomas & Moffat,
SIGIR 2019; Moffat et al., "Users versus models", TOIS 2013).

A C/W/L measure is a user model given by its *continuation* probability ``C(i)``: the
chance that a user who has examined rank ``i`` goes on to rank ``i + 1``.  From it, over
the first ``depth`` ranks (``cwl_eval``'s ``--max_depth``, 1000 by default):

* ``P(i) = prod_{j<i} C(j)`` (the chance of reaching rank ``i``; ``P(1) = 1``);
* the weights ``W(i) = P(i) / sum_j P(j)`` and the stopping chances
  ``L(i) = P(i) (1 - C(i))``;
* five outputs (the ``output`` parameter; ``cwl_eval``'s columns):
  ``eu`` expected utility per item ``sum_i W(i) g(i)``; ``etu`` expected total utility
  ``sum_i L(i) sum_{j<=i} g(j)``; ``ec`` expected cost per item ``sum_i W(i) c(i)``;
  ``etc`` expected total cost ``sum_i L(i) sum_{j<=i} c(j)``; ``ed`` expected depth
  ``1 / W(1) = sum_i P(i)``.

Conventions, all as ``cwl_eval`` 1.0.12 computes them:

* every ranking is cut at ``depth`` and padded to it with gain 0 and the item cost, so a
  short ranking is a long one with nothing relevant after its end (an empty ranking is
  all padding);
* ``g(i)`` is the gain of the document at rank ``i`` under the ``gain`` parameter
  (``linear``, the grade, is ``cwl_eval``'s: its qrels column *is* the gain); documents
  not in the qrels gain 0 (``cwl_eval``'s lower bound), and so does a negative grade
  (judged non-relevant; ``cwl_eval`` refuses negative gains);
* every item costs ``cost`` (1 by default; ``cwl_eval`` without a costs file);
* the mass of ``L`` beyond ``depth`` is dropped, not put at the last rank (so a user
  model that never stops, such as RR on a ranking without relevant documents, has
  ``etu = etc = 0`` and ``ed = depth``);
* the ranks are the ranking's order under the tie policy (``cwl_eval`` takes the rows
  in file order: a file sorted by score with ties in file order is ``ties='input'``).

The measures whose weights are defined directly (TBG, U-measure, TrAP) take
``C(i) = W(i+1) / W(i)`` (0 where ``W(i) = 0``, and at the last rank), as ``cwl_eval``
does.  Everything is computed on a dense (queries x depth) matrix, a slice of queries
at a time, with no loop over queries.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.errors import MetricParameterError
from ranklens.ranking.kernels.graded import gains, run_gains

if TYPE_CHECKING:
    from ranklens.ranking.engine import Prepared

__all__ = [
    "cwl_ap",
    "cwl_bpm",
    "cwl_ift",
    "cwl_ift_goal",
    "cwl_ift_rate",
    "cwl_insq",
    "cwl_inst",
    "cwl_ndcg",
    "cwl_nerr8",
    "cwl_nerr9",
    "cwl_nerr10",
    "cwl_nerr11",
    "cwl_npv",
    "cwl_p",
    "cwl_rbp",
    "cwl_rr",
    "cwl_set",
    "cwl_tbg",
    "cwl_trap",
    "cwl_umeasure",
]

OUTPUTS = ("eu", "etu", "ec", "etc", "ed")
_DENSE_CELLS = 1 << 21
"""The most cells of one dense (queries x depth) slice."""


class Block:
    """A slice of queries as dense (queries x depth) matrices (the constant ones as
    broadcast views, the cumulative gain computed on first use)."""

    def __init__(self, g: np.ndarray, cost: float, rank: np.ndarray, rels: np.ndarray) -> None:
        self.g = g  # gain at each rank (0 past the ranking)
        self.cost = np.broadcast_to(cost, g.shape)  # cost of each rank
        self.cc = np.broadcast_to(np.cumsum(np.full(len(rank), cost)), g.shape)
        self.rank = rank  # 1-based ranks, shape (depth,)
        self.rels = rels  # number of judgments with a positive gain, per query

    @cached_property
    def cg(self) -> np.ndarray:
        """Cumulative gain (inclusive)."""
        return np.cumsum(self.g, axis=1)


# a model gives ("c", continuation) or ("w", weights) for a block
Model = Callable[[Block], tuple[str, np.ndarray]]


def _measure(prep: Prepared, params: dict[str, Any], model: Model) -> np.ndarray:
    depth = int(params["depth"])
    cost = float(params["cost"])
    g_flat = run_gains(prep, params["gain"])
    m = prep.pos < depth
    seg, pos, gv = prep.seg[m], prep.pos[m], g_flat[m]
    _, iseg, _ = _positive_judgments(prep, params["gain"])
    rels = np.bincount(iseg, minlength=prep.n_queries).astype(np.float64)
    out = np.zeros(prep.n_queries)
    step = max(1, _DENSE_CELLS // depth)
    bounds = np.searchsorted(seg, np.arange(0, prep.n_queries + step, step))
    rank = np.arange(1, depth + 1, dtype=np.float64)
    how = params["output"]
    for i, first in enumerate(range(0, prep.n_queries, step)):
        n = min(step, prep.n_queries - first)
        rows = slice(bounds[i], bounds[i + 1])
        g = np.zeros((n, depth))
        g[seg[rows] - first, pos[rows]] = gv[rows]
        blk = Block(g, cost, rank, rels[first : first + n])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out[first : first + n] = _outputs(blk, *model(blk), how)
    return out


def _positive_judgments(prep: Prepared, gain: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rel = prep.ideal_rel
    g = gains(rel, gain, rel >= 0, prep.conventions.rel_threshold)
    keep = g > 0
    return g[keep], prep.ideal_seg[keep], rel[keep]


def _outputs(blk: Block, kind: str, vec: np.ndarray, how: str) -> np.ndarray:
    n, depth = blk.g.shape
    if kind == "c":
        c = vec
        reach = np.ones((n, depth))
        if depth > 1:
            reach[:, 1:] = np.cumprod(c[:, :-1], axis=1)
        total = reach.sum(axis=1)
        w = reach / total[:, None]
        ed = 1.0 / w[:, 0]
    else:
        w = vec
        c = np.zeros((n, depth))
        if depth > 1:
            head, tail = w[:, :-1], w[:, 1:]
            c[:, :-1] = np.where(head > 0.0, tail / np.where(head > 0.0, head, 1.0), 0.0)
        reach = np.ones((n, depth))
        if depth > 1:
            reach[:, 1:] = np.cumprod(c[:, :-1], axis=1)
        ed = 1.0 / w[:, 0]
    if how == "eu":
        return np.einsum("ij,ij->i", w, blk.g)
    if how == "ec":
        return np.einsum("ij,ij->i", w, blk.cost)
    if how == "ed":
        return ed
    stop = reach * (1.0 - c)
    return np.einsum("ij,ij->i", stop, blk.cg if how == "etu" else blk.cc)


def _check_unit_gains(prep: Prepared, params: dict[str, Any], name: str) -> None:
    """``cwl_eval``'s INST and NERR assume gains in [0, 1]: every judgment's gain
    must lie there (as ``cwl_eval``'s check of its gain file)."""
    rel = prep.ideal_rel
    g = gains(rel, params["gain"], rel >= 0, prep.conventions.rel_threshold)
    bad = np.flatnonzero((g < 0.0) | (g > 1.0))
    if bad.size:
        i = int(bad[0])
        q = prep.query_ids[int(prep.ideal_seg[i])].as_py()
        raise MetricParameterError(
            f"{name}: the user model needs gains in [0, 1], but query {q!r} has a judgment "
            f"of grade {rel[i]:g} with gain {g[i]:g} (gain={params['gain']!r}). Pass "
            f"{name}(gain=binary) or a mapping into [0, 1], e.g. "
            f"{name}(gain={{1: 0.5, 2: 1}})."
        )


def _cut(blk: Block, k: Any, values: np.ndarray) -> np.ndarray:
    """``values`` at ranks ``i < k``, 0 from rank ``k`` on."""
    return np.where(blk.rank < int(k), values, 0.0)


# ----------------------------------------------------------------------- the measures


def cwl_p(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Precision at k as a C/W/L measure (``cwl_eval`` ``PrecisionCWLMetric(k)``):
    ``C(i) = 1`` for ``i < k``, else 0, so ``W(i) = 1/k`` on the top k and
    ``eu = sum_{i<=k} g(i) / k`` (divided by k even when fewer documents are ranked,
    as trec_eval's P@k), ``etu`` the cumulative gain at k, ``ed = k``.  Van Rijsbergen
    (1979); the C/W/L framework: Moffat et al., TOIS 2013.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> res = ranklens.evaluate(q, r, ["cwl_p@2", "cwl_p(output=etu)@3", "cwl_p(output=ed)@4"])
    >>> [round(v, 4) for v in res.summary().values()]  # 1/2; 1 + 0 + 1; 4 ranks
    [0.5, 2.0, 4.0]
    """
    return _measure(prep, params, lambda b: ("c", _cut(b, k, np.ones_like(b.g))))


def cwl_rr(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Reciprocal rank as a C/W/L measure (``cwl_eval`` ``RRCWLMetric``; Kantor &
    Voorhees, Information Retrieval 2000): ``C(i) = 1`` until the first rank with a
    positive gain, 0 from there on; ``eu = g(r) / r`` for the first such rank ``r``
    (``1/r`` with binary gains), ``ed = r``; without a positive gain the user never
    stops: ``eu = 0``, ``ed = depth``, ``etu = etc = 0``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> res = ranklens.evaluate(q, r, ["cwl_rr", "cwl_rr(output=ed)", "cwl_rr(output=etu)"])
    >>> [round(v, 4) for v in res.summary().values()]  # stops at rank 2
    [0.5, 2.0, 1.0]
    """
    return _measure(
        prep, params, lambda b: ("c", np.logical_and.accumulate(b.g <= 0.0, axis=1) * 1.0)
    )


def cwl_ap(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Average precision as a C/W/L measure (``cwl_eval`` ``APCWLMetric``; Harman,
    IP&M 1992; Moffat et al., TOIS 2013): with ``s(i) = sum_{j>=i} g(j) / j``,
    ``C(i) = s(i+1) / s(i)`` where ``s(i+1) > 0``, else 0 (and 0 at the last rank), so
    ``W(i)`` is proportional to ``s(i)``.  With binary gains ``eu`` is AP over the
    relevant documents *retrieved* (within depth), not over R; a ranking without gain
    has ``eu = 0`` and ``ed = 1``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_ap"])["cwl_ap"], 4)  # (1 + 2/3) / 2
    0.8333
    """

    def model(b: Block) -> tuple[str, np.ndarray]:
        rii = b.g / b.rank
        bot = np.cumsum(rii[:, ::-1], axis=1)[:, ::-1]
        top = np.zeros_like(bot)
        top[:, :-1] = bot[:, 1:]
        return "c", np.where(top > 0.0, top / bot, 0.0)

    return _measure(prep, params, model)


def cwl_trap(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Average precision over the relevant documents retrieved, with weights defined
    directly (``cwl_eval`` ``TrAPCWLMetric``; Harman, IP&M 1992): ``W(i) = G'(i) /
    (K(i) R)`` where ``G'(i)`` is the cumulative gain at ``i`` (1 while it is still 0,
    except at the last rank), ``K(i)`` the cumulative cost and ``R`` the number of
    judgments with a positive gain (1 when there are none).  The weights do not sum
    to 1, so ``eu`` is not bounded by the gains.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_trap"])["cwl_trap"], 4)  # (1/1 + 2/3) / 2
    0.8333
    """

    def model(b: Block) -> tuple[str, np.ndarray]:
        cg = b.cg.copy()
        lead = np.logical_and.accumulate(cg == 0.0, axis=1)
        lead[:, -1] = False
        cg[lead] = 1.0
        w = cg / b.cc
        return "w", np.where(b.rels[:, None] > 0, w / np.maximum(b.rels, 1.0)[:, None], w)

    return _measure(prep, params, model)


def cwl_rbp(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Rank-biased precision as a C/W/L measure (``cwl_eval`` ``RBPCWLMetric``; Moffat
    & Zobel, TOIS 2008): ``C(i) = p``; ``eu = sum_i g(i) p^(i-1) / sum_{i<=depth}
    p^(i-1)``, i.e. ``(1 - p) sum g(i) p^(i-1)`` normalised over the depth (RBP up to
    the factor ``1 - p^depth``), ``ed`` about ``1 / (1 - p)``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> ms = ["cwl_rbp(p=0.5,depth=3)", "cwl_rbp(p=0.5,depth=3,output=ed)"]
    >>> [round(v, 4) for v in ranklens.evaluate(q, r, ms).summary().values()]  # 1.25/1.75
    [0.7143, 1.75]
    """
    p = float(params["p"])
    return _measure(prep, params, lambda b: ("c", np.full_like(b.g, p)))


def cwl_npv(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Net present value (``cwl_eval`` ``NPVCWLMetric``; Azzopardi, Thomas & Moffat,
    SIGIR 2019): ``C(i) = 1 / (1 + rate)``, RBP with ``p = 1 / (1 + rate)``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 0, "c": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_npv(rate=1,depth=3)"])["cwl_npv(depth=3,rate=1)"], 4)
    0.7143
    """
    c = 1.0 / (1.0 + float(params["rate"]))
    return _measure(prep, params, lambda b: ("c", np.full_like(b.g, c)))


def cwl_ndcg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Scaled DCG at k as a C/W/L measure (``cwl_eval`` ``NDCGCWLMetric(k)``, its
    ``NDCG-k``; Järvelin & Kekäläinen, TOIS 2002): ``C(i) = log2(i + 1) / log2(i + 2)``
    for ``i < k``, else 0, so ``W(i) = (1 / log2(i + 1)) / sum_{j<=k} 1 / log2(j + 1)``:
    DCG@k divided by the sum of the discounts (SDCG), not by the ideal DCG.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_ndcg@2"])["cwl_ndcg@2"], 4)  # 0.6309 / 1.6309
    0.3869
    """

    def model(b: Block) -> tuple[str, np.ndarray]:
        return "c", _cut(b, k, np.log(b.rank + 1.0) / np.log(b.rank + 2.0))[None, :] + 0 * b.g

    return _measure(prep, params, model)


def cwl_set(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """The search economic measure (``cwl_eval`` ``SETCWLMetric(beta, k)``; Azzopardi,
    SIGIR 2014): with ``w(x) = (x + 1)^beta - x^beta``, ``C(i) = w(i + 1) / w(i)`` for
    ``i < k``, else 0 (``cwl_eval``'s indexing: the weight of rank ``i`` is ``w(i)``,
    of rank 1 ``w(1)``... shifted by one, reproduced).  ``beta = 1`` is P@k.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_set(beta=1)@2"])["cwl_set(beta=1)@2"], 4)
    1.0
    """
    beta = float(params["beta"])

    def model(b: Block) -> tuple[str, np.ndarray]:
        def w(x: np.ndarray) -> np.ndarray:
            return np.power(x + 1.0, beta) - np.power(x, beta)

        return "c", _cut(b, k, w(b.rank + 1.0) / w(b.rank))[None, :] + 0 * b.g

    return _measure(prep, params, model)


def cwl_inst(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """INST (``cwl_eval`` ``INSTCWLMetric(T)``; Moffat, Bailey, Scholer & Thomas,
    ADCS 2015): with the gain still wanted ``T_i = T - sum_{j<=i} g(j)``,
    ``C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2``.  Gains must lie in [0, 1].

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> res = ranklens.evaluate(q, r, ["cwl_inst(depth=2)"])
    >>> round(res["cwl_inst(depth=2)"], 4)  # C(1) = (1/2)^2: W = (1, 1/4) / (5/4)
    0.8
    """
    _check_unit_gains(prep, params, "cwl_inst")
    t = float(params["t"])

    def model(b: Block) -> tuple[str, np.ndarray]:
        ti = t - b.cg
        return "c", ((b.rank + t + ti - 1.0) / (b.rank + t + ti)) ** 2

    return _measure(prep, params, model)


def cwl_insq(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """INSQ (``cwl_eval`` ``INSQCWLMetric(T)``; Moffat, Scholer & Thomas, ADCS 2012):
    ``C(i) = ((i + 2T - 1) / (i + 2T))^2``, independent of the gains.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_insq(depth=2)"])["cwl_insq(depth=2)"], 4)
    0.6923
    """
    t = float(params["t"])
    return _measure(
        prep,
        params,
        lambda b: ("c", (((b.rank + 2.0 * t - 1.0) / (b.rank + 2.0 * t)) ** 2)[None, :] + 0 * b.g),
    )


def cwl_tbg(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Time-biased gain (``cwl_eval`` ``TBGCWLMetric(halflife)``; Smucker & Clarke,
    SIGIR 2012): ``W(i)`` proportional to ``H 2^(-K(i-1) / H) / ln 2`` with ``K(i-1)``
    the cost of the ranks before ``i`` (0 at rank 1) and ``H`` the half-life, normalised
    over the depth.  With unit costs it is RBP with ``p = 2^(-1/H)``.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> m = "cwl_tbg(depth=2,halflife=1)"  # W = (1, 1/2) / (3/2)
    >>> round(ranklens.evaluate(q, r, [m])[m], 4)
    0.6667
    """
    h = float(params["halflife"])

    def model(b: Block) -> tuple[str, np.ndarray]:
        before = np.zeros_like(b.cc)
        before[:, 1:] = b.cc[:, :-1]
        w = h * np.power(2.0, -before / h) / np.log(2.0)
        return "w", w / w.sum(axis=1)[:, None]

    return _measure(prep, params, model)


def cwl_umeasure(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """U-measure (``cwl_eval`` ``UMeasureCWLMetric(L)``; Sakai & Dou, SIGIR 2013):
    ``W(i)`` proportional to ``max(0, 1 - K(i-1) / L)`` for ranks before the last,
    0 at the last rank (``cwl_eval``'s), with ``K(i-1)`` the cost before rank ``i``
    (characters read, in the paper) and ``L`` the reading budget.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> m = "cwl_umeasure(budget=2,depth=3)"  # W = (1, 1/2, 0) / (3/2)
    >>> round(ranklens.evaluate(q, r, [m])[m], 4)
    0.6667
    """
    budget = float(params["budget"])

    def model(b: Block) -> tuple[str, np.ndarray]:
        before = np.zeros_like(b.cc)
        before[:, 1:] = b.cc[:, :-1]
        w = np.maximum(0.0, 1.0 - before / budget)
        w[:, -1] = 0.0
        return "w", w / w.sum(axis=1)[:, None]

    return _measure(prep, params, model)


def cwl_bpm(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Bejeweled player model (``cwl_eval`` ``BPMCWLMetric(T, K)``, static, and
    ``BPMDCWLMetric(T, K, hb, hc, gain_med)``, dynamic; Zhang et al., SIGIR 2017):
    ``C(i) = 1`` while, at every rank up to ``i``, the cumulative gain is below the
    benefit goal ``T_j`` and the cumulative cost below the budget ``K``; 0 from the
    first rank where either is reached.  Static: ``T_j = T`` (``hb = 0``); dynamic:
    ``T_j = T + hb sum_{l<j} (g(l) - gain_med)``.  ``cwl_eval``'s dynamic model also
    takes ``hc`` but never uses it (its cost loop adjusts T after the benefit test), so
    ``K`` stays fixed here too.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    >>> ms = ["cwl_bpm(budget=10,t=1)", "cwl_bpm(budget=10,output=ed,t=1)"]
    >>> res = ranklens.evaluate(q, r, ms)
    >>> [round(v, 4) for v in res.summary().values()]  # stops at rank 2: W = (1/2, 1/2)
    [0.5, 2.0]
    """
    t, budget = float(params["t"]), float(params["budget"])
    hb, med = float(params["hb"]), float(params["gain_med"])

    def model(b: Block) -> tuple[str, np.ndarray]:
        goal = np.full_like(b.g, t)
        if hb:  # T + hb (g(1) - med) + hb (g(2) - med) + ..., added in cwl_eval's order
            goal[:, 1:] = hb * (b.g[:, :-1] - med)
            goal = np.cumsum(goal, axis=1)
        ok = (b.cg < goal) & (b.cc < budget)
        return "c", np.logical_and.accumulate(ok, axis=1) * 1.0

    return _measure(prep, params, model)


def _goal(b: Block, params: dict[str, Any]) -> np.ndarray:
    t, b1, r1 = float(params["t"]), float(params["b1"]), float(params["r1"])
    return 1.0 - 1.0 / (1.0 + b1 * np.exp((t - b.cg) * r1))


def _rate(b: Block, params: dict[str, Any]) -> np.ndarray:
    a, b2, r2 = float(params["a"]), float(params["b2"]), float(params["r2"])
    return 1.0 / (1.0 + b2 * np.exp((a - b.cg / b.cc) * r2))


def cwl_ift_goal(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Information-foraging measure, goal only (``cwl_eval`` ``IFTGoalCWLMetric(T, b1,
    R1)``; Azzopardi, Thomas & Craswell, SIGIR 2018):
    ``C(i) = 1 - 1 / (1 + b1 e^{R1 (T - G(i))})`` with ``G(i)`` the cumulative gain.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> m = "cwl_ift_goal(b1=1,depth=2,r1=1,t=1)"  # C(1) = 1 - 1/2
    >>> round(ranklens.evaluate(q, r, [m])[m], 4)  # W = (1, 1/2) / (3/2)
    0.6667
    """
    return _measure(prep, params, lambda b: ("c", _goal(b, params)))


def cwl_ift_rate(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Information-foraging measure, rate only (``cwl_eval`` ``IFTRateCWLMetric(A, b2,
    R2)``; Azzopardi, Thomas & Craswell, SIGIR 2018):
    ``C(i) = 1 / (1 + b2 e^{R2 (A - G(i) / K(i))})`` with ``K(i)`` the cumulative cost.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> m = "cwl_ift_rate(a=1,b2=1,depth=2,r2=1)"  # C(1) = 1/2
    >>> round(ranklens.evaluate(q, r, [m])[m], 4)
    0.6667
    """
    return _measure(prep, params, lambda b: ("c", _rate(b, params)))


def cwl_ift(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Information-foraging measure, goal and rate (``cwl_eval``
    ``IFTGoalRateCWLMetric(T, b1, R1, A, b2, R2)``; Azzopardi, Thomas & Craswell,
    SIGIR 2018): the product of :func:`cwl_ift_goal`'s and :func:`cwl_ift_rate`'s
    continuations.

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> m = "cwl_ift(a=1,b1=1,b2=1,depth=2,r1=1,r2=1,t=1)"  # C(1) = 1/4
    >>> round(ranklens.evaluate(q, r, [m])[m], 4)
    0.8
    """
    return _measure(prep, params, lambda b: ("c", _goal(b, params) * _rate(b, params)))


def cwl_nerr8(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Not-quite ERR, equation 8 (``cwl_eval`` ``NERReq8CWLMetric(k)``):
    ``C(i) = 1 - g(i)`` for ``i < k``, else 0 (Azzopardi, Mackenzie & Moffat, ICTIR
    2021).  Gains must lie in [0, 1].

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_nerr8@3"])["cwl_nerr8@3"], 4)  # W = (1/2, 1/2, 0)
    0.5
    """
    _check_unit_gains(prep, params, "cwl_nerr8")
    return _measure(prep, params, lambda b: ("c", _cut(b, k, 1.0 - b.g)))


def cwl_nerr9(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Not-quite ERR, equation 9 (``cwl_eval`` ``NERReq9CWLMetric(k)``):
    ``C(i) = (i / (i + 1)) (1 - g(i))`` for ``i < k``, else 0 (Azzopardi, Mackenzie &
    Moffat, ICTIR 2021).  Gains must lie in [0, 1].

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_nerr9@3"])["cwl_nerr9@3"], 4)  # W = (2/3, 1/3, 0)
    0.3333
    """
    _check_unit_gains(prep, params, "cwl_nerr9")
    return _measure(
        prep, params, lambda b: ("c", _cut(b, k, b.rank / (b.rank + 1.0) * (1.0 - b.g)))
    )


def cwl_nerr10(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Not-quite ERR, equation 10 (``cwl_eval`` ``NERReq10CWLMetric(phi)``):
    ``C(i) = phi (1 - g(i))`` (Azzopardi, Mackenzie & Moffat, ICTIR 2021).  Gains must
    lie in [0, 1].

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 0, "b": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    >>> m = "cwl_nerr10(depth=3,phi=0.5)"  # W = (1, 1/2, 0) / (3/2)
    >>> round(ranklens.evaluate(q, r, [m])[m], 4)
    0.3333
    """
    _check_unit_gains(prep, params, "cwl_nerr10")
    phi = float(params["phi"])
    return _measure(prep, params, lambda b: ("c", phi * (1.0 - b.g)))


def cwl_nerr11(prep: Prepared, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Not-quite ERR, equation 11 (``cwl_eval`` ``NERReq11CWLMetric(T)``):
    ``C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g(i))``, INSQ's continuation stopped by
    gain (Azzopardi, Mackenzie & Moffat, ICTIR 2021).  Gains must lie in [0, 1].

    >>> import ranklens
    >>> q = ranklens.Qrels.from_dict({"q": {"a": 1}})
    >>> r = ranklens.Run.from_dict({"q": {"a": 1.0}})
    >>> round(ranklens.evaluate(q, r, ["cwl_nerr11"])["cwl_nerr11"], 4)  # stops at rank 1
    1.0
    """
    _check_unit_gains(prep, params, "cwl_nerr11")
    t = float(params["t"])

    def model(b: Block) -> tuple[str, np.ndarray]:
        return "c", ((b.rank + 2.0 * t - 1.0) / (b.rank + 2.0 * t)) ** 2 * (1.0 - b.g)

    return _measure(prep, params, model)
