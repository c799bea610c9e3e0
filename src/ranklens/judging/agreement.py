r"""Agreement between label sources: Cohen's kappa, Fleiss' kappa, Krippendorff's alpha.

Two assessors (people, or an LLM judge against people) label the same items;
how far do they agree beyond chance?

Cohen's kappa (Cohen 1960; weighted: Cohen 1968) of two sources with the
``K x K`` table of proportions ``p_ij`` (source A gave category i, B gave j),
margins ``r_i``, ``c_j`` and disagreement weights ``d_ij``::

    kappa = 1 - sum_ij d_ij p_ij / sum_ij d_ij r_i c_j

``weights=None``: ``d_ij = [i != j]``; ``"linear"``: ``|i - j|``;
``"quadratic"``: ``(i - j)^2``, with ``i, j`` the positions of the categories
in sorted order (as scikit-learn's ``cohen_kappa_score``; a grade no source
gives takes no position).  Its large-sample variance (Fleiss, Cohen and
Everitt 1969), with agreement weights ``w = 1 - d / max d``,
``wr_i = sum_j c_j w_ij``, ``wc_j = sum_i r_i w_ij`` and ``pe = sum w r c``::

    var = (sum_ij p_ij (w_ij - (wr_i + wc_j)(1 - kappa))^2 - (kappa - pe (1 - kappa))^2)
          / (n (1 - pe)^2)

gives the analytic interval ``kappa +- z sqrt(var)`` (statsmodels'
``cohens_kappa``).

Fleiss' kappa (Fleiss 1971) of ``m`` raters per item, ``n_ij`` raters putting
item i in category j, ``N`` items::

    P_i = (sum_j n_ij^2 - m) / (m (m - 1)),  p_j = sum_i n_ij / (N m)
    kappa = (mean_i P_i - sum_j p_j^2) / (1 - sum_j p_j^2)

Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's
alpha-reliability") from the coincidence matrix ``o_ck`` (every ordered pair of
values from different raters of one item, weighted ``1 / (m_u - 1)``),
``n_c = sum_k o_ck``, ``n = sum_c n_c`` and a distance ``delta``::

    alpha = 1 - (n - 1) sum_ck o_ck delta_ck / sum_ck n_c n_k delta_ck

``nominal``: ``[c != k]``; ``ordinal``: ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``;
``interval``: ``(v_c - v_k)^2``; ``ratio``: ``((v_c - v_k) / (v_c + v_k))^2``.
Missing labels (NaN) are allowed; items with fewer than two labels do not count.

Conventions: a statistic whose chance agreement is perfect (every label the
same category: expected disagreement 0) is NaN, not 1 or 0: it is 0 / 0, and
no number would be honest (scikit-learn also returns NaN there).  Per query,
the statistics are computed from that query's items alone (one grouped
contingency table per query, built with one ``bincount``); overall, from all
items.

>>> cohen_kappa([0, 1, 1, 0], [0, 1, 0, 0])
0.5
>>> round(cohen_kappa([0, 1, 2, 2], [0, 2, 2, 1], weights="linear"), 4)  # 1 - (1/4) / (7/16) = 3/7
0.4286
>>> round(krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 1]]), 4)  # 1 - 7 * 2 / 42
0.6667
>>> round(fleiss_kappa([[3, 0], [0, 3], [2, 1]]), 4)  # (7/9 - 41/81) / (40/81)
0.55
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._shared.validate import check_choice, floats
from ranklens.errors import InputError

__all__ = [
    "LEVELS",
    "WEIGHTS",
    "Agreement",
    "agreement",
    "cohen_kappa",
    "cohen_kappa_ci",
    "fleiss_kappa",
    "krippendorff_alpha",
]

#: the weights of :func:`cohen_kappa` (``None`` is unweighted)
WEIGHTS: tuple[str | None, ...] = (None, "linear", "quadratic")
#: the levels of measurement of :func:`krippendorff_alpha`
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")


# --------------------------------------------------------------------------- kernels


def _disagreement(k: int, weights: str | None) -> np.ndarray:
    """(k, k) disagreement weights scaled to a largest weight of 1 (all 0 when k == 1)."""
    i = np.arange(k, dtype=np.float64)
    diff = np.abs(i[:, None] - i[None, :])
    if weights is None:
        d = (diff > 0).astype(np.float64)
    else:
        d = diff if weights == "linear" else diff**2
    top = d.max() if k > 1 else 1.0
    return d / top


def _kappa_tables(t: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's kappa and its large-sample variance for each (K, K) count table of ``t``
    (shape (G, K, K)); NaN where the table is empty or the chance disagreement is 0."""
    n = t.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = t / n[:, None, None]
        r = p.sum(axis=2)
        c = p.sum(axis=1)
        e = r[:, :, None] * c[:, None, :]
        obs = (d * p).sum(axis=(1, 2))
        exp = (d * e).sum(axis=(1, 2))
        kappa = np.where(exp > 0, 1.0 - obs / exp, np.nan)
        w = 1.0 - d
        wr = np.einsum("gj,ij->gi", c, w)
        wc = np.einsum("gi,ij->gj", r, w)
        pe = (w * e).sum(axis=(1, 2))
        dev = w - (wr[:, :, None] + wc[:, None, :]) * (1.0 - kappa)[:, None, None]
        term = (p * dev**2).sum(axis=(1, 2))
        var = (term - (kappa - pe * (1.0 - kappa)) ** 2) / ((1.0 - pe) ** 2 * n)
    return kappa, np.where(np.isfinite(kappa), np.maximum(var, 0.0), np.nan)


def _unit_counts(codes: np.ndarray, k: int) -> np.ndarray:
    """(units, K) how many raters gave each value to each unit; ``codes`` is
    (units, raters) with -1 for a missing label."""
    units, raters = codes.shape
    unit = np.repeat(np.arange(units), raters)
    flat = codes.ravel()
    keep = flat >= 0
    out = np.bincount(unit[keep] * k + flat[keep], minlength=units * k)
    return out.reshape(units, k).astype(np.float64)


def _coincidences(counts: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(G, K, K) coincidence matrices of the groups of consecutive units beginning at
    ``starts`` (units with fewer than two values add nothing)."""
    m = counts.sum(axis=1)
    scale = np.where(m >= 2, 1.0 / np.maximum(m - 1.0, 1.0), 0.0)
    w = counts * scale[:, None]
    per_unit = w[:, :, None] * counts[:, None, :]
    k = counts.shape[1]
    idx = np.arange(k)
    per_unit[:, idx, idx] -= w
    if not len(starts):
        return np.zeros((0, k, k))
    return np.add.reduceat(per_unit, starts, axis=0)


def _alpha(o: np.ndarray, values: np.ndarray, level: str) -> np.ndarray:
    """Krippendorff's alpha of each (K, K) coincidence matrix of ``o`` (G, K, K)."""
    nc = o.sum(axis=2)
    n = nc.sum(axis=1)
    if level == "nominal":
        delta = np.broadcast_to(1.0 - np.eye(len(values)), o.shape)
    elif level == "ordinal":
        cum = np.cumsum(nc, axis=1)
        diff = cum[:, None, :] - cum[:, :, None] - (nc[:, None, :] - nc[:, :, None]) / 2.0
        delta = diff**2
    elif level == "interval":
        delta = np.broadcast_to((values[:, None] - values[None, :]) ** 2, o.shape)
    else:
        s = values[:, None] + values[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(s != 0, (values[:, None] - values[None, :]) / s, 0.0)
        delta = np.broadcast_to(ratio**2, o.shape)
    observed = (o * delta).sum(axis=(1, 2))
    expected = (nc[:, :, None] * nc[:, None, :] * delta).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1.0 - (n - 1.0) * observed / expected, np.nan)


def _fleiss(counts: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Fleiss' kappa of each group of consecutive items (rows of ``counts``, items x
    categories, every row with the same number of raters)."""
    m = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_item = ((counts**2).sum(axis=1) - m) / (m * (m - 1.0))
        sizes = np.diff(np.append(starts, len(counts)))
        mean_p = np.add.reduceat(p_item, starts) / sizes
        share = np.add.reduceat(counts, starts, axis=0)
        share = share / share.sum(axis=1, keepdims=True)
        pe = (share**2).sum(axis=1)
        return np.where(pe < 1.0, (mean_p - pe) / (1.0 - pe), np.nan)


# --------------------------------------------------------------------------- array API


def _labels(x: Any, name: str, where: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise InputError(f"{where}: {name} must be a 1-d array of labels, got shape {a.shape}.")
    return a


def _codes(arrays: Sequence[np.ndarray], labels: Any, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Every array's labels as codes into the sorted categories (``labels`` when given)."""
    joined = np.concatenate(arrays)
    if joined.dtype.kind == "f" and np.isnan(joined).any():
        bad = int(np.flatnonzero(np.isnan(joined))[0])
        raise InputError(
            f"{where}: a label is missing (NaN, index {bad % len(arrays[0])}); Cohen's kappa "
            "needs both labels of every item: drop the item, or use krippendorff_alpha, "
            "which allows missing labels."
        )
    cats = np.unique(joined) if labels is None else np.asarray(labels)
    if labels is not None:
        if len(np.unique(cats)) != len(cats):
            raise InputError(f"{where}: labels must be distinct, got {list(cats)!r}.")
        order = np.argsort(cats, kind="stable")
        pos = np.searchsorted(cats[order], joined)
        pos = np.minimum(pos, len(cats) - 1)
        found = cats[order][pos] == joined
        if not found.all():
            bad = joined[np.flatnonzero(~found)[0]]
            raise InputError(
                f"{where}: label {bad!r} is not in labels={list(cats)!r}; add it to labels."
            )
        code = order[pos]
    else:
        code = np.searchsorted(cats, joined)
    return code.astype(np.int64), cats


def cohen_kappa(
    labels_a: Any, labels_b: Any, *, weights: str | None = None, labels: Any = None
) -> float:
    """Cohen's kappa of two label sources over the same items (formula: module docs).

    ``weights`` is ``None`` (unweighted), ``"linear"`` or ``"quadratic"``;
    ``labels`` fixes the categories and their order (default: every label
    either source gives, sorted), as scikit-learn's ``cohen_kappa_score``.  NaN
    when the chance disagreement is 0 (every label the same category).

    Cohen, J. (1960) "A coefficient of agreement for nominal scales"; Cohen, J.
    (1968) "Weighted kappa".

    >>> cohen_kappa([1, 2, 3], [1, 2, 3])
    1.0
    >>> cohen_kappa([1, 1], [1, 1])  # one category: chance agreement is perfect
    nan
    """
    where = "cohen_kappa"
    check_choice("the 'weights' parameter", weights, WEIGHTS, where=where)
    a = _labels(labels_a, "labels_a", where)
    b = _labels(labels_b, "labels_b", where)
    if len(a) != len(b):
        raise InputError(
            f"{where}: labels_a has {len(a)} labels and labels_b {len(b)}; "
            "they must label the same items."
        )
    if not len(a):
        raise InputError(f"{where}: no labels; at least one item is needed.")
    code, cats = _codes([a, b], labels, where)
    k = len(cats)
    n = len(a)
    t = np.bincount(code[:n] * k + code[n:], minlength=k * k).reshape(1, k, k)
    kappa, _ = _kappa_tables(t.astype(np.float64), _disagreement(k, weights))
    return float(kappa[0])


def cohen_kappa_ci(
    labels_a: Any,
    labels_b: Any,
    *,
    weights: str | None = None,
    labels: Any = None,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """``(kappa, low, high)``: Cohen's kappa with its large-sample interval
    ``kappa +- z sqrt(var)`` (Fleiss, Cohen and Everitt 1969, "Large sample standard
    errors of kappa and weighted kappa"; the variance in the module docs, as
    statsmodels' ``cohens_kappa``).

    >>> k, lo, hi = cohen_kappa_ci([0, 1, 1, 0, 1, 0], [0, 1, 1, 0, 0, 0])
    >>> round(k, 4), round(lo, 4), round(hi, 4)
    (0.6667, 0.1044, 1.229)
    """
    from ranklens._shared.validate import check_alpha

    where = "cohen_kappa_ci"
    check_choice("the 'weights' parameter", weights, WEIGHTS, where=where)
    check_alpha(level, name="level", where=where)
    a = _labels(labels_a, "labels_a", where)
    b = _labels(labels_b, "labels_b", where)
    if len(a) != len(b) or not len(a):
        raise InputError(
            f"{where}: labels_a ({len(a)}) and labels_b ({len(b)}) must label the same, "
            "non-empty set of items."
        )
    code, cats = _codes([a, b], labels, where)
    k, n = len(cats), len(a)
    t = np.bincount(code[:n] * k + code[n:], minlength=k * k).reshape(1, k, k)
    kappa, var = _kappa_tables(t.astype(np.float64), _disagreement(k, weights))
    h = _z(level) * math.sqrt(var[0]) if np.isfinite(var[0]) else math.nan
    return float(kappa[0]), float(kappa[0] - h), float(kappa[0] + h)


def _z(level: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + level / 2.0)


def fleiss_kappa(table: Any) -> float:
    """Fleiss' kappa of an (items, categories) table of rater counts, every item rated
    by the same number (two or more) of raters (formula: module docs; statsmodels'
    ``fleiss_kappa`` with ``method='fleiss'``).

    Fleiss, J. L. (1971) "Measuring nominal scale agreement among many raters".

    >>> fleiss_kappa([[2, 0], [0, 2]])
    1.0
    """
    where = "fleiss_kappa"
    t = floats(table, "table", where, " (rater counts)")
    if t.ndim != 2 or t.shape[0] < 1 or t.shape[1] < 1:
        raise InputError(f"{where}: table must be (items, categories) counts, got {t.shape}.")
    if not np.isfinite(t).all() or (t < 0).any() or (t != np.round(t)).any():
        raise InputError(f"{where}: table must hold non-negative whole counts of raters.")
    m = t.sum(axis=1)
    if (m != m[0]).any() or m[0] < 2:
        bad = int(np.flatnonzero(m != m[0])[0]) if (m != m[0]).any() else 0
        raise InputError(
            f"{where}: every item needs the same number (2 or more) of raters; item {bad} "
            f"(0-based) has {m[bad]:g}, item 0 has {m[0]:g}.  With missing ratings use "
            "krippendorff_alpha."
        )
    return float(_fleiss(t, np.array([0]))[0])


def _value_codes(data: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
    """(raters, units) floats with NaN missing -> (units, raters) codes (-1 missing)
    and the sorted distinct values."""
    ok = ~np.isnan(data)
    values = np.unique(data[ok])
    codes = np.full(data.shape, -1, dtype=np.int64)
    codes[ok] = np.searchsorted(values, data[ok])
    return codes.T.copy(), values


def krippendorff_alpha(reliability_data: Any, level: str = "nominal") -> float:
    """Krippendorff's alpha of a (raters, units) array of values, NaN where a rater
    gave no value (formula: module docs; the ``krippendorff`` package's
    ``alpha(reliability_data, level_of_measurement=...)``).

    ``level`` is ``nominal``, ``ordinal``, ``interval`` or ``ratio``.  NaN when fewer
    than two distinct values are pairable (no expected disagreement).

    Krippendorff, K. (2011) "Computing Krippendorff's alpha-reliability";
    Hayes, A. F. and Krippendorff, K. (2007) "Answering the call for a standard
    reliability measure for coding data".

    >>> krippendorff_alpha([[1, 2, float("nan")], [1, 2, 2]])
    1.0
    """
    where = "krippendorff_alpha"
    check_choice("the 'level' parameter", level, LEVELS, where=where)
    data = floats(reliability_data, "reliability_data", where, " (NaN for a missing value)")
    if data.ndim != 2 or data.size == 0:
        raise InputError(
            f"{where}: reliability_data must be a non-empty (raters, units) array, got "
            f"shape {data.shape}."
        )
    if np.isinf(data).any():
        raise InputError(f"{where}: reliability_data holds an infinite value; use NaN for none.")
    codes, values = _value_codes(data, where)
    counts = _unit_counts(codes, max(len(values), 1))
    o = _coincidences(counts, np.array([0]))
    return float(_alpha(o, values.astype(np.float64), level)[0])


# --------------------------------------------------------------------------- label sources


@dataclass(frozen=True)
class Agreement:
    """Agreement of two or more label sources (``Qrels``) aligned on (query, doc).

    ``items``: the (query, doc) pairs any source judged, and ``labels`` (items,
    sources) their labels (NaN where a source has none); ``only`` counts, per
    source, the items only that source judged (they count in no statistic of two
    sources; Krippendorff's alpha uses every item with two labels or more).
    ``kappa``: Cohen's kappa (two sources) or Fleiss' kappa (three or more, over
    the items every source judged) overall with its interval ``kappa_ci``
    (analytic for Cohen's, else the bootstrap one) and ``kappa_boot_ci`` (bootstrap
    over queries, percentile); ``alpha`` and ``alpha_ci`` likewise for
    Krippendorff's alpha; ``per_query`` the same statistics for each query.
    ``confusion`` (two sources): counts, rows the categories of the first source,
    columns those of the second.
    """

    sources: tuple[str, ...]
    queries: tuple[str, ...]
    item_query: np.ndarray
    item_doc: tuple[str, ...]
    labels: np.ndarray
    categories: np.ndarray
    weights: str | None
    level: str
    ci_level: float
    kappa: float
    kappa_ci: tuple[float, float]
    kappa_boot_ci: tuple[float, float]
    alpha: float
    alpha_ci: tuple[float, float]
    per_query_kappa: np.ndarray
    per_query_alpha: np.ndarray
    per_query_items: np.ndarray
    confusion: np.ndarray | None
    n_resamples: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def compared(self) -> int:
        """Items every source judged (the items kappa is computed from)."""
        return int((~np.isnan(self.labels)).all(axis=1).sum())

    @property
    def only(self) -> dict[str, int]:
        """Per source: the items it alone judged."""
        have = ~np.isnan(self.labels)
        alone = have & (have.sum(axis=1, keepdims=True) == 1)
        return {s: int(alone[:, j].sum()) for j, s in enumerate(self.sources)}

    def only_in(self, source: str) -> list[tuple[str, str]]:
        """The (query, doc) pairs only ``source`` judged."""
        if source not in self.sources:
            raise InputError(f"Agreement.only_in: {source!r} is not one of {self.sources!r}.")
        j = self.sources.index(source)
        have = ~np.isnan(self.labels)
        rows = np.flatnonzero(have[:, j] & (have.sum(axis=1) == 1))
        return [(self.queries[self.item_query[i]], self.item_doc[i]) for i in rows]

    def missing(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """Every (query, doc) pair some source did not judge, with the sources lacking it."""
        have = ~np.isnan(self.labels)
        rows = np.flatnonzero(~have.all(axis=1))
        return [
            (
                self.queries[self.item_query[i]],
                self.item_doc[i],
                tuple(s for j, s in enumerate(self.sources) if not have[i, j]),
            )
            for i in rows
        ]

    def per_query(self) -> list[dict[str, Any]]:
        """One record per query: its id, the items every source judged, kappa, alpha."""
        return [
            {
                "query": q,
                "items": int(self.per_query_items[i]),
                "kappa": float(self.per_query_kappa[i]),
                "alpha": float(self.per_query_alpha[i]),
            }
            for i, q in enumerate(self.queries)
        ]

    def to_dict(self) -> dict[str, Any]:
        """The whole result as plain Python values (what ``render('json')`` writes)."""
        two = len(self.sources) == 2
        return {
            "sources": list(self.sources),
            "statistic": ("cohen_kappa" if two else "fleiss_kappa"),
            "weights": self.weights,
            "level": self.level,
            "ci_level": self.ci_level,
            "items": len(self.labels),
            "compared": self.compared,
            "only": self.only,
            "kappa": self.kappa,
            "kappa_ci": list(self.kappa_ci),
            "kappa_bootstrap_ci": list(self.kappa_boot_ci),
            "alpha": self.alpha,
            "alpha_ci": list(self.alpha_ci),
            "n_resamples": self.n_resamples,
            "categories": [float(c) for c in self.categories],
            "confusion": None if self.confusion is None else self.confusion.tolist(),
            "per_query": self.per_query(),
        }

    def render(self, fmt: str = "table", color: bool | None = None) -> str:
        """The result as text: ``table``, ``markdown``, ``latex`` (a summary and the
        confusion table), ``csv`` (one row per query) or ``json`` (everything); see
        :mod:`ranklens.render.agreement`."""
        from ranklens.render.agreement import render

        return render(self, fmt, color=color)

    def __str__(self) -> str:
        return self.render("table", color=False)


def _align(qrels: Sequence[Any], where: str) -> tuple[list[str], np.ndarray, list[str], np.ndarray]:
    """Outer join of several Qrels on (query, doc): sorted query ids, each item's query
    code, each item's doc id and the (items, sources) labels (NaN: not judged)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ranklens.ranking.data import Qrels

    for i, q in enumerate(qrels):
        if not isinstance(q, Qrels):
            raise InputError(
                f"{where}: source {i + 1} is a {type(q).__name__}, not a Qrels; build one with "
                "Qrels.from_dict / from_frame / from_arrays, or use the array functions "
                "(cohen_kappa, krippendorff_alpha)."
            )
    tables = [q.to_arrow() for q in qrels]
    lengths = np.array([t.num_rows for t in tables])
    query = pa.concat_arrays(
        [t.column("query").combine_chunks().cast(pa.large_string()) for t in tables]
    )
    doc = pa.concat_arrays(
        [t.column("doc").combine_chunks().cast(pa.large_string()) for t in tables]
    )
    rel = np.concatenate([t.column("relevance").to_numpy() for t in tables]).astype(np.float64)
    qd = pc.dictionary_encode(query)
    dd = pc.dictionary_encode(doc)
    qdict = qd.dictionary
    rank = np.empty(len(qdict), dtype=np.int64)
    rank[np.asarray(pc.array_sort_indices(qdict))] = np.arange(len(qdict))
    qcode = rank[np.asarray(qd.indices)]
    dcode = np.asarray(dd.indices).astype(np.int64)
    key = qcode * max(len(dd.dictionary), 1) + dcode
    uniq, inv = np.unique(key, return_inverse=True)
    source = np.repeat(np.arange(len(qrels)), lengths)
    labels = np.full((len(uniq), len(qrels)), np.nan)
    labels[inv.ravel(), source] = rel
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inv.ravel()[::-1]] = np.arange(len(key))[::-1]
    queries = [str(x) for x in pc.take(qdict, pc.array_sort_indices(qdict)).to_pylist()]
    docs = [str(x) for x in pc.take(doc, pa.array(first)).to_pylist()]
    return queries, uniq // max(len(dd.dictionary), 1), docs, labels


def agreement(
    *qrels: Any,
    weights: str | None = None,
    level: str = "nominal",
    ci_level: float = 0.95,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 0,
    names: Sequence[str] | None = None,
) -> Agreement:
    """Agreement of two or more label sources given as ``Qrels`` (e.g. human and LLM
    judgments), aligned on (query, doc), per query and overall (formulas: module docs).

    Two sources: Cohen's kappa (``weights`` ``None``, ``"linear"``,
    ``"quadratic"``) with its analytic interval, and the confusion table; three
    or more: Fleiss' kappa over the items every source judged.  Always
    Krippendorff's alpha at ``level`` (``nominal``, ``ordinal``, ``interval``,
    ``ratio``) over every item with two labels or more.  Bootstrap intervals
    resample whole queries (``n_resamples`` times, percentile, seeded by ``seed``;
    resamples whose statistic is undefined are left out).  Items only one source
    judged are counted and listed (:attr:`Agreement.only`,
    :meth:`Agreement.missing`), never dropped silently.  The categories are the
    distinct grades any source gives, sorted.

    >>> from ranklens import Qrels
    >>> human = Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"a": 0, "b": 1}})
    >>> llm = Qrels.from_dict({"q1": {"a": 1, "b": 0, "c": 0}, "q2": {"a": 0, "d": 1}})
    >>> res = agreement(human, llm, names=["human", "llm"])
    >>> res.compared, res.only
    (4, {'human': 1, 'llm': 1})
    >>> round(res.kappa, 4)
    0.5
    >>> res.confusion.tolist()
    [[2, 0], [1, 1]]
    """
    from ranklens._shared.validate import check_alpha
    from ranklens.comparison.stats import bootstrap_means, check_resamples, resolve_rng

    where = "agreement"
    check_choice("the 'weights' parameter", weights, WEIGHTS, where=where)
    check_choice("the 'level' parameter", level, LEVELS, where=where)
    check_alpha(ci_level, name="ci_level", where=where)
    n_boot = check_resamples(n_resamples)
    rng = resolve_rng(seed)
    if len(qrels) < 2:
        raise InputError(f"{where}: pass two or more Qrels (label sources), got {len(qrels)}.")
    if names is None:
        names = [getattr(q, "name", None) or f"source{i + 1}" for i, q in enumerate(qrels)]
    names = [str(n) for n in names]
    if len(names) != len(qrels) or len(set(names)) != len(names):
        raise InputError(f"{where}: names must be {len(qrels)} distinct names, got {names!r}.")
    queries, item_query, docs, labels = _align(qrels, where)
    q_count = len(queries)
    have = ~np.isnan(labels)
    values = np.unique(labels[have])
    k = max(len(values), 1)
    codes = np.full(labels.shape, -1, dtype=np.int64)
    codes[have] = np.searchsorted(values, labels[have])
    full = have.all(axis=1)
    per_items = np.bincount(item_query[full], minlength=q_count)
    two = len(qrels) == 2
    d = _disagreement(k, weights)
    lo_q = (1.0 - ci_level) / 2.0
    qs = [lo_q, 1.0 - lo_q]

    def boot_ci(stats: np.ndarray) -> tuple[float, float]:
        ok = stats[np.isfinite(stats)]
        if not len(ok):
            return (math.nan, math.nan)
        lo, hi = np.quantile(ok, qs)
        return (float(lo), float(hi))

    confusion = None
    if two:
        cell = (item_query * k + codes[:, 0]) * k + codes[:, 1]
        tables = np.bincount(cell[full], minlength=q_count * k * k).reshape(q_count, k, k)
        tables = tables.astype(np.float64)
        per_kappa, _ = _kappa_tables(tables, d)
        total = tables.sum(axis=0)[None]
        kappa_all, var = _kappa_tables(total, d)
        kappa = float(kappa_all[0])
        confusion = total[0].astype(np.int64)
        if q_count:
            boot = bootstrap_means(tables.reshape(q_count, k * k), n_boot, rng)
            boot_k, _ = _kappa_tables(boot.reshape(-1, k, k), d)
            kboot = boot_ci(boot_k)
        else:
            kboot = (math.nan, math.nan)
        h = _z(ci_level) * math.sqrt(var[0]) if np.isfinite(var[0]) else math.nan
        kci = (kappa - h, kappa + h)
    else:
        fq = item_query[full]
        counts = _unit_counts(codes[full], k)
        present = np.flatnonzero(per_items)
        starts = np.searchsorted(fq, present)
        per_kappa = np.full(q_count, np.nan)
        if len(present):
            per_kappa[present] = _fleiss(counts, starts)
            kappa = float(_fleiss(counts, np.array([0]))[0])
            # bootstrap over queries: resampled sums of the per-query sums
            m = len(qrels)
            p_item = ((counts**2).sum(axis=1) - m) / (m * (m - 1.0))
            sums = np.column_stack(
                [
                    np.add.reduceat(p_item, starts),
                    per_items[present].astype(np.float64),
                    np.add.reduceat(counts, starts, axis=0),
                ]
            )
            boot = bootstrap_means(sums, n_boot, rng)
            share = boot[:, 2:] / boot[:, 2:].sum(axis=1, keepdims=True)
            pe = (share**2).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                bk = np.where(pe < 1, (boot[:, 0] / boot[:, 1] - pe) / (1 - pe), np.nan)
            kboot = boot_ci(bk)
        else:
            kappa = math.nan
            kboot = (math.nan, math.nan)
        kci = kboot
    # Krippendorff's alpha, every item
    unit_counts = _unit_counts(codes, k)
    with_items = np.flatnonzero(np.bincount(item_query, minlength=q_count))
    starts = np.searchsorted(item_query, with_items)
    o = _coincidences(unit_counts, starts)
    per_o = np.zeros((q_count, k, k))
    per_o[with_items] = o
    vals = values.astype(np.float64) if len(values) else np.zeros(1)
    per_alpha = _alpha(per_o, vals, level)
    alpha = float(_alpha(per_o.sum(axis=0)[None], vals, level)[0])
    if q_count:
        boot_o = bootstrap_means(per_o.reshape(q_count, k * k), n_boot, rng) * q_count
        aci = boot_ci(_alpha(boot_o.reshape(-1, k, k), vals, level))
    else:
        aci = (math.nan, math.nan)
    return Agreement(
        sources=tuple(names),
        queries=tuple(queries),
        item_query=item_query,
        item_doc=tuple(docs),
        labels=labels,
        categories=values,
        weights=weights,
        level=level,
        ci_level=ci_level,
        kappa=kappa,
        kappa_ci=(float(kci[0]), float(kci[1])),
        kappa_boot_ci=kboot,
        alpha=alpha,
        alpha_ci=aci,
        per_query_kappa=per_kappa,
        per_query_alpha=per_alpha,
        per_query_items=per_items,
        confusion=confusion,
        n_resamples=n_boot,
    )
