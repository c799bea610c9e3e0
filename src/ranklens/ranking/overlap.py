"""Run-to-run measures: how much two rankings of the same queries differ (no qrels).

:func:`compare_runs` evaluates catalogue metrics of the ``overlap`` family (``rbo``,
``run_jaccard``, ``run_kendall_tau``) on two runs; :func:`rbo`, :func:`jaccard` and
:func:`kendall_tau` are its one-metric forms.  The result holds one value per query
and the mean (:class:`OverlapResult`).

Conventions (explicit, the same for every metric):

* each run's rankings are ordered by score descending, equal scores under the tie
  policy ``ties`` (``trec``: document id descending, as trec_eval; ``input``: the rows'
  order), by the engine's one ordering routine, so a ranking is a strict order and RBO
  treats it as one (Webber et al.'s tie-aware RBO, section 4.3, is not implemented);
* the queries compared are those both runs rank (``queries='both'``, the default; the
  others are counted in ``report``) or every query either run names
  (``queries='either'``: an absent or empty ranking is an empty list);
* two empty lists are identical (RBO and Jaccard 1), an empty and a non-empty list
  share nothing (0), as the ``rbo`` package; Kendall's tau of fewer than two common
  documents, or of a ranking whose scores all tie, is undefined (NaN, left out of the
  mean, as ``scipy.stats.kendalltau`` gives NaN);
* a cutoff ``@k`` cuts both rankings to their top ``k`` first.

Everything is vectorised over the queries: the documents of both runs are joined once
on (query, document), and the overlaps at every depth are cumulative sums over a dense
(queries x depth) matrix, a slice of queries at a time.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens.errors import InputError, RanklensWarning
from ranklens.metrics.registry import Metric, get_metric

__all__ = ["OverlapResult", "Pair", "compare_runs", "jaccard", "kendall_tau", "rbo"]

_DENSE_CELLS = 1 << 21
NOT_RANKED = np.iinfo(np.int64).max
TIES = ("trec", "input")
QUERIES = ("both", "either")


@dataclass(frozen=True)
class Pair:
    """Two runs' rankings of the same queries, aligned.

    Per query ``i``: ``n_a[i]``, ``n_b[i]`` documents ranked by each run.  Per
    document both runs rank: its query ``seg``, its 1-based ranks ``rank_a`` and
    ``rank_b`` and its scores.  ``a_seg``/``a_rank``/``a_score`` (and ``b_``) hold every
    ranked document of each run, grouped by query in rank order."""

    query_ids: tuple[str, ...]
    n_a: np.ndarray
    n_b: np.ndarray
    seg: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    score_a: np.ndarray
    score_b: np.ndarray
    a_seg: np.ndarray
    a_rank: np.ndarray
    a_score: np.ndarray
    a_other: np.ndarray  # each of a's documents' rank in b (NOT_RANKED: none)
    b_seg: np.ndarray
    b_rank: np.ndarray
    b_score: np.ndarray
    b_other: np.ndarray

    @property
    def a_common(self) -> np.ndarray:
        """Whether each of a's documents is ranked by b too."""
        return self.a_other < NOT_RANKED

    @property
    def b_common(self) -> np.ndarray:
        return self.b_other < NOT_RANKED

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def cut(self, k: Any) -> Pair:
        """Both rankings cut to their top ``k`` (None: unchanged)."""
        if k is None:
            return self
        k = int(k)
        keep = (self.rank_a <= k) & (self.rank_b <= k)
        ka, kb = self.a_rank <= k, self.b_rank <= k
        # a document of a's top k is common only if b ranks it in its top k
        a_other = np.where(self.a_other <= k, self.a_other, NOT_RANKED)
        b_other = np.where(self.b_other <= k, self.b_other, NOT_RANKED)
        return Pair(
            self.query_ids,
            np.minimum(self.n_a, k),
            np.minimum(self.n_b, k),
            self.seg[keep],
            self.rank_a[keep],
            self.rank_b[keep],
            self.score_a[keep],
            self.score_b[keep],
            self.a_seg[ka],
            self.a_rank[ka],
            self.a_score[ka],
            a_other[ka],
            self.b_seg[kb],
            self.b_rank[kb],
            self.b_score[kb],
            b_other[kb],
        )


@dataclass(frozen=True)
class OverlapResult:
    """Per-query values of run-to-run metrics and their means.

    ``values[metric]`` is aligned with ``query_ids``; ``report`` counts the queries
    left out (ranked by one run only, under ``queries='both'``)."""

    metrics: tuple[str, ...]
    query_ids: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    report: Mapping[str, int] = field(default_factory=dict)

    def per_query(self, metric: str) -> dict[str, float]:
        """``{query: value}`` of one metric."""
        return dict(zip(self.query_ids, self._values(metric).tolist(), strict=True))

    def __getitem__(self, metric: str) -> float:
        """The mean over the queries (NaN values, where a metric is undefined, left
        out; NaN when no query has a value)."""
        v = self._values(metric)
        v = v[~np.isnan(v)]
        return float(v.mean()) if v.size else math.nan

    def summary(self) -> dict[str, float]:
        """``{metric: mean}``."""
        return {m: self[m] for m in self.metrics}

    def _values(self, metric: str) -> np.ndarray:
        if metric not in self.values:
            from ranklens.errors import MetricNameError

            raise MetricNameError(
                f"this result holds no metric {metric!r}; it holds {', '.join(self.metrics)}."
            )
        return self.values[metric]


# ----------------------------------------------------------------------- the pair


def _codes(
    a: pa.Array, b: pa.Array, in_order: bool = False
) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Shared dense codes of two string arrays, and the distinct values (with
    ``in_order``: codes in the values' sorted order, the values sorted)."""
    both = pa.chunked_array([a.cast(pa.large_string()), b.cast(pa.large_string())])
    enc = pc.dictionary_encode(both).combine_chunks()
    idx = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    values = enc.dictionary
    if in_order:
        order = pc.array_sort_indices(values).to_numpy()
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        idx = rank[idx]
        values = values.take(pa.array(order))
    return idx[: len(a)], idx[len(a) :], values


def pair_runs(
    run_a: Any, run_b: Any, ties: str = "trec", queries: str = "both"
) -> tuple[Pair, int]:
    """The :class:`Pair` of two :class:`~ranklens.Run` s (``ties`` and ``queries``
    checked here), and the number of queries left out (ranked by one run only)."""
    from ranklens.ranking.data import Run
    from ranklens.ranking.engine import order_rankings

    for name, run in (("run_a", run_a), ("run_b", run_b)):
        if not isinstance(run, Run):
            raise InputError(
                f"{name} must be a ranklens.Run (e.g. ranklens.Run.from_dict(...)), "
                f"got {type(run).__name__}."
            )
    if ties not in TIES:
        raise InputError(f"ties must be one of {', '.join(map(repr, TIES))}, got {ties!r}.")
    if queries not in QUERIES:
        raise InputError(
            f"queries must be one of {', '.join(map(repr, QUERIES))}, got {queries!r}."
        )
    extra = sorted(set(run_a.empty_queries) | set(run_b.empty_queries))
    qa, qb, qnames = _codes(
        pa.concat_arrays(
            [run_a._query.cast(pa.large_string()), pa.array(extra, pa.large_string())]
        ),
        run_b._query,
        in_order=True,
    )
    qa = qa[: len(run_a.scores)]  # (the empty queries only take their place in the order)
    da, db, _ = _codes(run_a._doc, run_b._doc)
    names = qnames.to_pylist()  # sorted: codes are in id order
    nq, nd = len(names), int(max(da.max(initial=-1), db.max(initial=-1))) + 1

    def ranked(q: np.ndarray, d: np.ndarray, run: Any) -> tuple[np.ndarray, ...]:
        order = order_rankings(q, nq, run.scores, ties, doc_ids=run._doc)
        q, d, s = q[order], d[order], run.scores[order]
        n = np.bincount(q, minlength=nq)
        start = np.concatenate(([0], np.cumsum(n)))[:-1]
        rank = np.arange(len(q)) - start[q] + 1
        return q, d, s, rank, n

    aq, ad, as_, ar, na = ranked(qa, da, run_a)
    bq, bd, bs, br, nb = ranked(qb, db, run_b)
    ka, kb = aq * nd + ad, bq * nd + bd
    # the documents both rank: a's (query, doc) keys looked up among b's, sorted once
    by_key = np.argsort(kb)
    sorted_b = kb[by_key]
    at = np.minimum(np.searchsorted(sorted_b, ka), max(len(kb) - 1, 0))
    ia = np.flatnonzero(sorted_b[at] == ka) if len(kb) else np.zeros(0, dtype=np.int64)
    ib = by_key[at[ia]]
    a_other = np.full(len(ka), NOT_RANKED, dtype=np.int64)
    a_other[ia] = br[ib]
    b_other = np.full(len(kb), NOT_RANKED, dtype=np.int64)
    b_other[ib] = ar[ia]
    # queries: named by both (or either)
    named_a = np.zeros(nq, dtype=bool)
    named_b = np.zeros(nq, dtype=bool)
    named_a[aq] = True
    named_b[bq] = True
    index = {q: i for i, q in enumerate(names)}
    for q in run_a.empty_queries:
        named_a[index[q]] = True
    for q in run_b.empty_queries:
        named_b[index[q]] = True
    keep = (named_a & named_b) if queries == "both" else (named_a | named_b)
    order = np.flatnonzero(keep)  # in id order (the codes are)
    new = np.full(nq, -1, dtype=np.int64)
    new[order] = np.arange(len(order))

    def kept(seg: np.ndarray, *cols: np.ndarray) -> tuple[np.ndarray, ...]:
        if len(order) == nq:
            return (seg, *cols)
        m = new[seg] >= 0
        return (new[seg[m]], *(c[m] for c in cols))

    seg, rka, rkb, sa, sb = kept(aq[ia], ar[ia], br[ib], as_[ia], bs[ib])
    a_seg, a_rank, a_score, a_oth = kept(aq, ar, as_, a_other)
    b_seg, b_rank, b_score, b_oth = kept(bq, br, bs, b_other)
    return Pair(
        tuple(names[i] for i in order),
        na[order].astype(np.int64),
        nb[order].astype(np.int64),
        seg,
        rka.astype(np.int64),
        rkb.astype(np.int64),
        sa,
        sb,
        a_seg,
        a_rank.astype(np.int64),
        a_score,
        a_oth,
        b_seg,
        b_rank.astype(np.int64),
        b_score,
        b_oth,
    ), int((~keep & (named_a | named_b)).sum())


# ----------------------------------------------------------------------- kernels


def _overlaps(pair: Pair, first: int, n: int, depth: int) -> np.ndarray:
    """``X[i, d-1]``: the documents both of query ``first + i``'s rankings hold in their
    top ``d``, for ``d = 1..depth``."""
    lo, hi = np.searchsorted(pair.seg, [first, first + n])
    seg = pair.seg[lo:hi] - first
    at = np.maximum(pair.rank_a[lo:hi], pair.rank_b[lo:hi])
    keep = at <= depth
    x = np.zeros((n, depth))
    np.add.at(x, (seg[keep], at[keep] - 1), 1.0)
    return np.cumsum(x, axis=1)


def _slices(nq: int, depth: int) -> list[tuple[int, int]]:
    step = max(1, _DENSE_CELLS // max(depth, 1))
    return [(f, min(step, nq - f)) for f in range(0, nq, step)]


def rbo_kernel(pair: Pair, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Rank-biased overlap (Webber, Moffat & Zobel, TOIS 2010) of the two rankings,
    per query; ``A_d = X_d / d`` is the agreement at depth ``d`` (``X_d``: documents in
    both top-``d`` lists) and ``p`` the persistence.  With ``s <= l`` the two lists'
    lengths (after the cutoff ``k``):

    * ``ext`` (extrapolated, the paper's eq. 32 as the ``rbo`` package's ``rbo_ext``
      cites it): ``(1-p)/p [sum_{d<=l} X_d p^d / d + sum_{s<d<=l} X_s (d-s) p^d
      / (s d)] + ((X_l - X_s) / l + X_s / s) p^l``;
    * ``trunc`` (RBO at depth ``s``; the ``rbo`` package's ``rbo(k, p)``):
      ``(1-p) sum_{d<=s} p^(d-1) A_d``, the RBO of the seen prefix;
    * ``min`` = ``lower`` (RBO_min at depth ``s``): the RBO if nothing past depth ``s``
      matches, ``(1-p)/p [sum_{d<=s} (X_d - X_s) p^d / d - X_s ln(1-p)]``;
    * ``res`` (RBO_res at depth ``s``): the most the unseen ranks can add,
      ``p^f + 2(1-p)/p sum_{s<d<=f} (d-s) p^d / d - X_s (1-p)/p [ln(1/(1-p)) -
      sum_{d<=f} p^d / d]`` with ``f = 2s - X_s``;
    * ``upper`` = ``min + res``.

    The bounds are taken at the shorter list's length ``s`` (the longer list's extra
    documents are not read; Webber et al.'s uneven-list bounds are not implemented);
    with an empty list nothing is seen: ``min`` 0, ``res`` 1, ``upper`` 1.  ``ext`` and
    ``trunc`` take the lists as complete: two empty lists 1, one empty list 0.
    ``trunc`` here: ``(1 - 1/2) (1 + 1/2 * 1/2 + 1/4 * 1) = 0.75``.

    >>> import ranklens
    >>> a = ranklens.Run.from_dict({"q": {"x": 3, "y": 2, "z": 1}})
    >>> b = ranklens.Run.from_dict({"q": {"x": 3, "z": 2, "y": 1}})
    >>> res = ranklens.compare_runs(a, b, ["rbo(p=0.5)", "rbo(p=0.5,variant=trunc)"])
    >>> [round(v, 4) for v in res.summary().values()]  # A = (1, 1/2, 1): trunc + 0.5^3
    [0.875, 0.75]
    """
    p = float(params["p"])
    variant = params["variant"]
    pair = pair.cut(k)
    s = np.minimum(pair.n_a, pair.n_b)
    long = np.maximum(pair.n_a, pair.n_b)
    out = np.zeros(pair.n_queries)
    limit = int(long.max(initial=0)) if variant in ("ext",) else int(s.max(initial=0))
    depth = max(1, 2 * limit if variant in ("res", "upper") else limit)
    d = np.arange(1, depth + 1, dtype=np.float64)
    pd = np.power(p, d)
    ln = math.log(1.0 / (1.0 - p))
    for first, n in _slices(pair.n_queries, depth):
        x = _overlaps(pair, first, n, depth)
        sq = s[first : first + n]
        lq = long[first : first + n]
        rows = np.arange(n)
        xs = np.where(sq > 0, x[rows, np.maximum(sq, 1) - 1], 0.0)
        upto_s = d[None, :] <= sq[:, None]
        if variant == "ext":
            xl = np.where(lq > 0, x[rows, np.maximum(lq, 1) - 1], 0.0)
            upto_l = d[None, :] <= lq[:, None]
            between = upto_l & ~upto_s
            ss = np.maximum(sq, 1)[:, None]
            body = np.where(upto_l, x * pd / d, 0.0).sum(axis=1)
            tail = np.where(between, xs[:, None] * (d - ss) * pd / (ss * d), 0.0).sum(axis=1)
            lsafe = np.maximum(lq, 1)
            val = (1 - p) / p * (body + tail) + (
                (xl - xs) / lsafe + xs / np.maximum(sq, 1)
            ) * np.power(p, lq)
        elif variant == "trunc":
            val = (1 - p) * np.where(upto_s, x / d * pd / p, 0.0).sum(axis=1)
        else:
            low = (
                (1 - p)
                / p
                * (np.where(upto_s, (x - xs[:, None]) * pd / d, 0.0).sum(axis=1) + xs * ln)
            )
            f = 2 * sq - xs
            upto_f = d[None, :] <= f[:, None]
            grow = upto_f & ~upto_s
            res = (
                np.power(p, f)
                + 2 * (1 - p) / p * np.where(grow, (d - sq[:, None]) * pd / d, 0.0).sum(axis=1)
                - xs * (1 - p) / p * (ln - np.where(upto_f, pd / d, 0.0).sum(axis=1))
            )
            val = {"min": low, "lower": low, "res": res, "upper": low + res}[variant]
        if variant in ("ext", "trunc"):  # complete lists: empty = empty, else nothing shared
            val = np.where(lq == 0, 1.0, np.where(sq == 0, 0.0, val))
        out[first : first + n] = val
    return out


def jaccard_kernel(pair: Pair, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Jaccard index of the two rankings' document sets (top ``k`` of each with a
    cutoff): ``|A ∩ B| / |A ∪ B|``; two empty lists: 1.  Jaccard (1912).

    >>> import ranklens
    >>> a = ranklens.Run.from_dict({"q": {"x": 3, "y": 2, "z": 1}})
    >>> b = ranklens.Run.from_dict({"q": {"x": 3, "w": 2, "y": 1}})
    >>> res = ranklens.compare_runs(a, b, ["run_jaccard", "run_jaccard@2"])
    >>> [round(v, 4) for v in res.summary().values()]  # 2/4; 1/3
    [0.5, 0.3333]
    """
    pair = pair.cut(k)
    inter = np.bincount(pair.seg, minlength=pair.n_queries).astype(np.float64)
    union = pair.n_a + pair.n_b - inter
    return np.where(union > 0, inter / np.maximum(union, 1), 1.0)


def kendall_tau_kernel(pair: Pair, k: Any, params: dict[str, Any]) -> np.ndarray:
    """Kendall's tau between the two runs' scores of the same documents (Kendall 1938;
    tau-b, Kendall 1945; tau-c, Stuart 1953), as ``scipy.stats.kendalltau``:
    ``tau_b = (P - Q) / sqrt((P + Q + T) (P + Q + U))``, ``tau_c = 2 (P - Q) / (n^2
    (m - 1) / m)`` with ``P``/``Q`` the concordant/discordant pairs, ``T``/``U`` the
    pairs tied in one run's scores only, ``n`` the documents and ``m`` the smaller
    number of distinct scores.  ``items=common``: the documents both rankings hold;
    ``items=union``: every document either holds, one a run does not rank scoring
    below all it ranks (tied with the others it misses).  Undefined (NaN) with fewer
    than two documents or when a run's scores all tie.

    >>> import ranklens
    >>> a = ranklens.Run.from_dict({"q": {"x": 3, "y": 2, "z": 1}})
    >>> b = ranklens.Run.from_dict({"q": {"x": 3, "z": 2, "y": 1}})
    >>> round(ranklens.compare_runs(a, b, ["run_kendall_tau"])["run_kendall_tau"], 4)
    0.3333
    """
    pair = pair.cut(k)
    if params["items"] == "common":
        seg, x, y = pair.seg, pair.score_a, pair.score_b
    else:
        seg, x, y = _union_scores(pair)
    n = np.bincount(seg, minlength=pair.n_queries)
    out = np.full(pair.n_queries, np.nan)
    width = int(n.max(initial=0))
    if width < 2:
        return out
    offsets = np.concatenate(([0], np.cumsum(n)))
    pos = np.arange(len(seg)) - offsets[seg]
    step = max(1, _DENSE_CELLS // (width * width))
    iu = np.triu_indices(width, 1)
    for first in range(0, pair.n_queries, step):
        m = min(step, pair.n_queries - first)
        lo, hi = offsets[first], offsets[first + m]
        xs = np.full((m, width), np.nan)
        ys = np.full((m, width), np.nan)
        xs[seg[lo:hi] - first, pos[lo:hi]] = x[lo:hi]
        ys[seg[lo:hi] - first, pos[lo:hi]] = y[lo:hi]
        dx = np.sign(xs[:, iu[0]] - xs[:, iu[1]])
        dy = np.sign(ys[:, iu[0]] - ys[:, iu[1]])
        valid = ~np.isnan(dx)
        prod = np.where(valid, dx * dy, 0.0)
        cmd = prod.sum(axis=1)  # concordant - discordant
        tot = valid.sum(axis=1).astype(np.float64)
        xtie = (valid & (dx == 0)).sum(axis=1).astype(np.float64)
        ytie = (valid & (dy == 0)).sum(axis=1).astype(np.float64)
        nn = n[first : first + m].astype(np.float64)
        ok = (nn >= 2) & (xtie < tot) & (ytie < tot)
        with np.errstate(divide="ignore", invalid="ignore"):
            if params["variant"] == "b":
                tau = cmd / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
            else:
                classes = np.minimum(_distinct(xs), _distinct(ys))
                tau = 2 * cmd / (nn**2 * (classes - 1) / classes)
        out[first : first + m] = np.where(ok, tau, np.nan)
    return out


def _distinct(mat: np.ndarray) -> np.ndarray:
    """Distinct non-NaN values per row."""
    srt = np.sort(mat, axis=1)
    new = np.ones_like(srt, dtype=bool)
    new[:, 1:] = srt[:, 1:] != srt[:, :-1]
    return (new & ~np.isnan(srt)).sum(axis=1).astype(np.float64)


def _union_scores(pair: Pair) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query, every document either run ranks with both runs' scores (a missing
    score: below the run's lowest in that query)."""
    nq = pair.n_queries
    low_a = np.full(nq, 0.0)
    low_b = np.full(nq, 0.0)
    if len(pair.a_seg):
        low_a = np.full(nq, np.inf)
        np.minimum.at(low_a, pair.a_seg, pair.a_score)
    if len(pair.b_seg):
        low_b = np.full(nq, np.inf)
        np.minimum.at(low_b, pair.b_seg, pair.b_score)
    low_a = np.where(np.isfinite(low_a), low_a - 1.0, 0.0)
    low_b = np.where(np.isfinite(low_b), low_b - 1.0, 0.0)
    only_a = ~pair.a_common
    only_b = ~pair.b_common
    seg = np.concatenate([pair.seg, pair.a_seg[only_a], pair.b_seg[only_b]])
    x = np.concatenate([pair.score_a, pair.a_score[only_a], low_a[pair.b_seg[only_b]]])
    y = np.concatenate([pair.score_b, low_b[pair.a_seg[only_a]], pair.b_score[only_b]])
    o = np.argsort(seg, kind="stable")
    return seg[o], x[o], y[o]


# ----------------------------------------------------------------------- entry points


def compare_runs(
    run_a: Any,
    run_b: Any,
    metrics: str | Sequence[str],
    *,
    ties: str = "trec",
    queries: str = "both",
) -> OverlapResult:
    """Compare two runs' rankings of the same queries with run-to-run metrics
    (the catalogue's ``overlap`` family: ``rbo``, ``run_jaccard``,
    ``run_kendall_tau``); see the module docstring for the conventions.

    >>> import ranklens
    >>> a = ranklens.Run.from_dict({"q1": {"x": 2, "y": 1}, "q2": {"x": 1}})
    >>> b = ranklens.Run.from_dict({"q1": {"y": 2, "x": 1}, "q2": {"z": 1}})
    >>> res = ranklens.compare_runs(a, b, ["run_jaccard"])
    >>> res.per_query("run_jaccard"), res["run_jaccard"]
    ({'q1': 1.0, 'q2': 0.0}, 0.5)
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        from ranklens.errors import MetricNameError

        raise MetricNameError("no metric given: pass at least one, e.g. ['rbo(p=0.9)'].")
    parsed: dict[str, Metric] = {}
    for name in names:
        m = get_metric(name)
        if m.definition.domain != "overlap":
            from ranklens.errors import MetricNameError

            raise MetricNameError(
                f"metric {name!r} is not a run-to-run metric; compare_runs takes the "
                "overlap family: rbo, run_jaccard, run_kendall_tau (ranklens metrics "
                "--family overlap)."
            )
        parsed[name] = m
    pair, left_out = pair_runs(run_a, run_b, ties, queries)
    if left_out:
        warnings.warn(
            f"{left_out} queries ranked by one run only were not compared; "
            "queries='either' compares them with an empty ranking.",
            RanklensWarning,
            stacklevel=2,
        )
    values = {
        name: np.asarray(m.definition.kernel(pair, m.k, m.resolved_params()), dtype=np.float64)
        for name, m in parsed.items()
    }
    return OverlapResult(tuple(names), pair.query_ids, values, {"queries_left_out": left_out})


def rbo(
    run_a: Any,
    run_b: Any,
    p: float = 0.9,
    variant: str = "ext",
    k: int | None = None,
    *,
    ties: str = "trec",
    queries: str = "both",
) -> OverlapResult:
    """Rank-biased overlap of two runs per query (see :func:`rbo_kernel`):
    ``compare_runs(run_a, run_b, "rbo(p=...,variant=...)@k")``.

    >>> import ranklens
    >>> from ranklens.ranking.overlap import rbo
    >>> a = ranklens.Run.from_dict({"q": {"x": 3, "y": 2, "z": 1}})
    >>> round(rbo(a, a, p=0.5).per_query("rbo(p=0.5,variant=ext)")["q"], 4)
    1.0
    """
    name = f"rbo(p={p!r},variant={variant})" + ("" if k is None else f"@{k}")
    return compare_runs(run_a, run_b, [name], ties=ties, queries=queries)


def jaccard(
    run_a: Any, run_b: Any, k: int | None = 10, *, ties: str = "trec", queries: str = "both"
) -> OverlapResult:
    """Jaccard index of the two runs' top ``k`` per query (see :func:`jaccard_kernel`).

    >>> import ranklens
    >>> from ranklens.ranking.overlap import jaccard
    >>> a = ranklens.Run.from_dict({"q": {"x": 2, "y": 1}})
    >>> jaccard(a, a, k=1)["run_jaccard@1"]
    1.0
    """
    name = "run_jaccard" + ("" if k is None else f"@{k}")
    return compare_runs(run_a, run_b, [name], ties=ties, queries=queries)


def kendall_tau(
    run_a: Any,
    run_b: Any,
    variant: str = "b",
    items: str = "common",
    k: int | None = None,
    *,
    ties: str = "trec",
    queries: str = "both",
) -> OverlapResult:
    """Kendall's tau between two runs' scores per query (see
    :func:`kendall_tau_kernel`).

    >>> import ranklens
    >>> a = ranklens.Run.from_dict({"q": {"x": 2, "y": 1}})
    >>> b = ranklens.Run.from_dict({"q": {"x": 1, "y": 2}})
    >>> from ranklens.ranking.overlap import kendall_tau
    >>> kendall_tau(a, b)["run_kendall_tau(items=common,variant=b)"]
    -1.0
    """
    name = f"run_kendall_tau(items={items},variant={variant})" + ("" if k is None else f"@{k}")
    return compare_runs(run_a, run_b, [name], ties=ties, queries=queries)
