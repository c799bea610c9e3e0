"""Clustering metrics (seed 004's definitions are the spec).

Internal (need the data ``X``): silhouette, Davies-Bouldin, Calinski-Harabasz
(scikit-learn) and the Dunn index (here: the classic form and torchmetrics'
centroid form).  External (compare ``labels_true`` with ``labels_pred``):
Rand, adjusted Rand, NMI, V-measure, Fowlkes-Mallows (scikit-learn) and
purity, pair precision / recall / F1 and pair-counting Jaccard (here).

Pair counting never enumerates pairs: with the contingency table
``n_ij`` (points in predicted cluster i and true class j), cluster sizes
``a_i`` and class sizes ``b_j``, and ``C(m) = m (m - 1) / 2``::

    TP = sum_ij C(n_ij)            pairs together in both
    FP = sum_i C(a_i) - TP         together in the prediction only
    FN = sum_j C(b_j) - TP         together in the truth only
    TN = C(n) - TP - FP - FN

so pair precision = TP / (TP + FP), pair recall = TP / (TP + FN),
Jaccard = TP / (TP + FP + FN), Rand = (TP + TN) / C(n).

``zero_division`` (default 0.0, as in every ranklens family; a number in
[0, 1] or nan) is the value of a 0/0 pair ratio: pair precision when the
prediction puts every point alone, pair recall when the truth does, F1 and
Jaccard when both do.  As in
scikit-learn, the internal indices take the labels as 1-d or an ``(n, 1)``
column and the external scores as 1-d; labels with a fractional part are
used as given with a :class:`~ranklens.errors.RanklensWarning` (scikit-learn
warns too); scikit-learn's own exceptions never reach the caller.

>>> t = [0, 0, 0, 1, 1, 1]
>>> p = [0, 0, 1, 1, 2, 2]
>>> pair_confusion(t, p)
{'tp': 2, 'fp': 1, 'fn': 4, 'tn': 8}
>>> round(purity(t, p), 4), round(jaccard(t, p), 4)
(0.8333, 0.2857)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ranklens._shared.deps import needs
from ranklens.classification import (
    _as_array,
    _check_choice,
    _label_kinds,
    _py,
    _reemit,
    _same_length,
    _sk,
    _stacklevel,
)
from ranklens.errors import InputError, RanklensWarning

__all__ = [
    "adjusted_rand_index",
    "calinski_harabasz",
    "contingency",
    "davies_bouldin",
    "dunn_index",
    "fowlkes_mallows",
    "jaccard",
    "nmi",
    "pair_confusion",
    "pair_f1",
    "pair_precision",
    "pair_recall",
    "purity",
    "rand_index",
    "silhouette",
    "v_measure",
]


# --------------------------------------------------------------------------- contingency

def _codes(name: str, labels: Any, *, column: bool = False,
           warn_continuous: bool = True) -> tuple[np.ndarray, int]:
    """Labels as codes 0..k-1 (and k).  ``column``: an (n, 1) column is
    flattened (scikit-learn's internal indices accept one; its external
    scores do not).  Labels with a fractional part are used as given, with a
    RanklensWarning (scikit-learn warns too): they look like scores."""
    a = _as_array(name, labels, ndim=(1, 2) if column else (1,))
    if a.ndim == 2:
        if a.shape[1] != 1:
            raise InputError(f"{name} must be 1-d or an (n, 1) column, got shape {a.shape}.")
        a = a[:, 0]
    if len(_label_kinds(a)) > 1:
        raise InputError(f"{name} mixes string and numeric labels; convert them to one "
                         "type first.")
    if warn_continuous and a.dtype.kind == "f":
        frac = np.flatnonzero(a != np.trunc(a))
        if len(frac):
            warnings.warn(
                f"{name} holds numbers with a fractional part ({_py(a[frac[0]])!r} at index "
                f"{int(frac[0])}); each distinct value is taken as one cluster.  If they are "
                "scores or measurements, cluster them first.", RanklensWarning,
                stacklevel=_stacklevel())
    try:
        _, inv = np.unique(a, return_inverse=True)
    except TypeError as exc:
        raise InputError(f"{name} holds labels that cannot be compared ({exc}); pass "
                         "strings or numbers.") from None
    inv = inv.ravel().astype(np.int64)
    return inv, int(inv.max()) + 1


def contingency(labels_true: Any, labels_pred: Any, *, pred_name: str = "labels_pred",
                true_name: str = "labels_true") -> np.ndarray:
    """Non-zero cells ``n_ij`` of the (predicted cluster, true class) table, as
    a 1-d int64 array, plus nothing else: sizes follow from the codes.  O(n log n)."""
    cells, _, _ = _contingency(labels_true, labels_pred, true_name, pred_name)
    return cells


def _contingency(labels_true: Any, labels_pred: Any, true_name: str = "labels_true",
                 pred_name: str = "labels_pred"
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(non-zero cell counts, predicted cluster sizes, true class sizes)."""
    t, nt = _codes(true_name, labels_true)
    p, _ = _codes(pred_name, labels_pred)
    _same_length(**{true_name: t, pred_name: p})
    key = p * nt + t
    _, cells = np.unique(key, return_counts=True)
    return cells.astype(np.int64), np.bincount(p), np.bincount(t)


def _c2(m: np.ndarray) -> int:
    m = m.astype(np.int64)
    return int((m * (m - 1) // 2).sum())


def _pairs(labels_true: Any, labels_pred: Any, true_name: str = "labels_true",
           pred_name: str = "labels_pred") -> tuple[int, int, int, int]:
    cells, a, b = _contingency(labels_true, labels_pred, true_name, pred_name)
    n = int(a.sum())
    tp = _c2(cells)
    fp = _c2(a) - tp
    fn = _c2(b) - tp
    return tp, fp, fn, n * (n - 1) // 2 - tp - fp - fn


def _check_zd(zero_division: Any) -> float:
    """The value of a 0/0 ratio: a number in [0, 1] (a ratio's range) or NaN
    (also spelled ``"nan"``, as the metric grammar writes it)."""
    if isinstance(zero_division, str) and zero_division == "nan":
        return float("nan")
    if isinstance(zero_division, (bool, np.bool_)) \
            or not isinstance(zero_division, (int, float, np.integer, np.floating)) \
            or not (0 <= zero_division <= 1 or zero_division != zero_division):
        raise InputError(f"zero_division (the value of 0/0) must be a number in [0, 1] "
                         f"such as 0.0 or 1.0, or nan, got {zero_division!r}.")
    return float(zero_division)


def _ratio(num: int, den: int, zero_division: float) -> float:
    zd = _check_zd(zero_division)
    return float(num / den) if den else zd


def pair_confusion(labels_true: Any, labels_pred: Any) -> dict[str, int]:
    """Pair counts (unordered pairs of distinct points): TP together in both,
    FP together only in the prediction, FN only in the truth, TN in neither.
    (scikit-learn's ``pair_confusion_matrix`` counts ordered pairs: twice these.)"""
    tp, fp, fn, tn = _pairs(labels_true, labels_pred)
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn}


def pair_precision(labels_true: Any, labels_pred: Any, *,
                   zero_division: float = 0.0) -> float:
    """TP / (TP + FP): share of predicted co-clustered pairs that are truly together.
    ``zero_division`` when the prediction puts every point alone."""
    tp, fp, _, _ = _pairs(labels_true, labels_pred)
    return _ratio(tp, tp + fp, zero_division)


def pair_recall(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """TP / (TP + FN): share of truly co-clustered pairs that are predicted together."""
    tp, _, fn, _ = _pairs(labels_true, labels_pred)
    return _ratio(tp, tp + fn, zero_division)


def pair_f1(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """Harmonic mean of pair precision and recall, 2 TP / (2 TP + FP + FN)."""
    tp, fp, fn, _ = _pairs(labels_true, labels_pred)
    return _ratio(2 * tp, 2 * tp + fp + fn, zero_division)


def jaccard(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """Pair-counting Jaccard index TP / (TP + FP + FN) (seed 004)."""
    tp, fp, fn, _ = _pairs(labels_true, labels_pred)
    return _ratio(tp, tp + fp + fn, zero_division)


def purity(labels_true: Any, labels_pred: Any) -> float:
    """Purity = (1/N) sum over predicted clusters of the size of its most
    frequent true class (seed 004).  1 when every point is its own cluster."""
    t, nt = _codes("labels_true", labels_true)
    p, _ = _codes("labels_pred", labels_pred)
    _same_length(labels_true=t, labels_pred=p)
    key = p * nt + t
    uniq, cells = np.unique(key, return_counts=True)
    cluster = uniq // nt
    best = np.zeros(int(p.max()) + 1, dtype=np.int64)
    np.maximum.at(best, cluster, cells)
    return float(best.sum() / len(t))


# --------------------------------------------------------------------------- sklearn external

def _ext(labels_true: Any, labels_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t, _ = _codes("labels_true", labels_true)
    p, _ = _codes("labels_pred", labels_pred)
    _same_length(labels_true=t, labels_pred=p)
    return t, p


def _unit(value: Any) -> float:
    """A score in [0, 1] computed by scikit-learn, with its rounding past the
    bounds removed (e.g. NMI with ``average_method="min"`` gives 1.0000000000000002
    for a prediction that splits every class)."""
    return min(1.0, max(0.0, float(value)))


def rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Rand index (TP + TN) / C(n) (scikit-learn's ``rand_score``)."""
    with needs("ml", "ranklens.clustering.rand_index"):
        from sklearn.metrics import rand_score

    return float(rand_score(*_ext(labels_true, labels_pred)))


def adjusted_rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Adjusted Rand index (Hubert & Arabie), chance-corrected; can be negative."""
    with needs("ml", "ranklens.clustering.adjusted_rand_index"):
        from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(*_ext(labels_true, labels_pred)))


def nmi(labels_true: Any, labels_pred: Any, *, average_method: str = "arithmetic") -> float:
    """Normalized mutual information I(T; P) / mean(H(T), H(P)); ``average_method``
    arithmetic (seed 004's (H+H)/2, the default), geometric, min or max."""
    with needs("ml", "ranklens.clustering.nmi"):
        from sklearn.metrics import normalized_mutual_info_score

    _check_choice("average_method", average_method, ("arithmetic", "geometric", "min", "max"))
    return _unit(normalized_mutual_info_score(*_ext(labels_true, labels_pred),
                                              average_method=average_method))


def v_measure(labels_true: Any, labels_pred: Any, *, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness,
    (1 + beta) h c / (beta h + c) (Rosenberg & Hirschberg 2007); ``beta`` >= 0."""
    with needs("ml", "ranklens.clustering.v_measure"):
        from sklearn.metrics import v_measure_score

    if isinstance(beta, bool) or not isinstance(beta, (int, float)) \
            or not 0 <= beta < float("inf"):
        raise InputError(f"beta must be a finite number >= 0, got {beta!r}.")
    return _unit(v_measure_score(*_ext(labels_true, labels_pred), beta=beta))


def fowlkes_mallows(labels_true: Any, labels_pred: Any) -> float:
    """Fowlkes-Mallows index sqrt(pair precision * pair recall)."""
    with needs("ml", "ranklens.clustering.fowlkes_mallows"):
        from sklearn.metrics import fowlkes_mallows_score

    return _unit(fowlkes_mallows_score(*_ext(labels_true, labels_pred)))


# --------------------------------------------------------------------------- internal

def _internal(X: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    x = _as_array("X", X, ndim=(2,), numeric=True).astype(np.float64)
    lab, k = _codes("labels", labels, column=True, warn_continuous=False)
    _same_length(X=x, labels=lab)
    if not 2 <= k <= len(x) - 1:
        raise InputError(
            f"labels must form between 2 and n_samples - 1 = {len(x) - 1} clusters, got "
            f"{k}; the index is undefined otherwise."
        )
    return x, lab


def silhouette(X: Any, labels: Any, *, metric: str = "euclidean",
               sample_size: int | None = None, random_state: Any = None,
               per_sample: bool = False) -> Any:
    """Mean silhouette coefficient (b - a) / max(a, b) (seed 004), scikit-learn's.

    Exact by default (O(n^2) time, scikit-learn computes it in chunks).  For
    large n pass ``sample_size`` to average over a random subset of that many
    points, drawn as scikit-learn's ``silhouette_score`` draws them
    (``random_state`` an int, ``numpy.random.RandomState`` or None: the first
    ``sample_size`` of a random permutation, so the value equals
    scikit-learn's for the same ``random_state``; a ``numpy.random.Generator``
    is also accepted).  With ``metric="precomputed"`` ``X`` is the n x n
    distance matrix and the sample takes its rows and columns.
    ``per_sample=True`` returns every point's coefficient (always exact).
    """
    with needs("ml", "ranklens.clustering.silhouette"):
        from sklearn.metrics import silhouette_samples, silhouette_score

    x, lab = _internal(X, labels)
    if per_sample:
        res, caught = _sk("silhouette", silhouette_samples, x, lab, metric=metric)
        _reemit(caught)
        return res
    if sample_size is not None:
        with needs("ml", "ranklens.clustering.silhouette"):
            from sklearn.utils import check_random_state

        if isinstance(sample_size, bool) or not isinstance(sample_size, (int, np.integer)) \
                or not sample_size >= 3:
            # a silhouette needs 2 to n_samples - 1 clusters, so at least 3 points
            raise InputError(f"sample_size must be an integer >= 3 (a silhouette needs "
                             f"between 2 and n - 1 clusters of n points), got "
                             f"{sample_size!r}.")
        if isinstance(random_state, np.random.Generator):
            idx = random_state.permutation(len(x))[:sample_size]
        else:
            try:
                rs = check_random_state(random_state)
            except ValueError:
                raise InputError(f"random_state must be None, an int, a numpy RandomState or "
                                 f"Generator, got {random_state!r}.") from None
            idx = rs.permutation(len(x))[:sample_size]
        x = x[idx][:, idx] if metric == "precomputed" else x[idx]
        lab = lab[idx]
        if len(np.unique(lab)) < 2:
            raise InputError("the sample holds a single cluster; raise sample_size.")
        _, lab = np.unique(lab, return_inverse=True)
    res, caught = _sk("silhouette", silhouette_score, x, lab, metric=metric)
    _reemit(caught)
    return float(res)


def davies_bouldin(X: Any, labels: Any) -> float:
    """Davies-Bouldin index (lower is better), scikit-learn's."""
    with needs("ml", "ranklens.clustering.davies_bouldin"):
        from sklearn.metrics import davies_bouldin_score

    res, caught = _sk("davies_bouldin", davies_bouldin_score, *_internal(X, labels))
    _reemit(caught)
    return float(res)


def calinski_harabasz(X: Any, labels: Any) -> float:
    """Calinski-Harabasz variance ratio (higher is better), scikit-learn's."""
    with needs("ml", "ranklens.clustering.calinski_harabasz"):
        from sklearn.metrics import calinski_harabasz_score

    res, caught = _sk("calinski_harabasz", calinski_harabasz_score, *_internal(X, labels))
    _reemit(caught)
    return float(res)


def dunn_index(X: Any, labels: Any, *, variant: str = "classic", metric: str = "euclidean",
               p: float = 2.0, chunk_size: int = 2048) -> float:
    """Dunn index: smallest between-cluster separation over largest cluster size.

    ``variant="classic"`` (seed 004, Dunn 1974): min over pairs of points in
    different clusters of their distance, divided by the max over clusters of
    the cluster diameter (largest distance between two of its points).  It is
    computed in row chunks of ``chunk_size`` x n distances (scipy's ``cdist``
    with ``metric``), so memory stays O(chunk_size * n) and no n x n matrix is
    built; time is O(n^2).

    ``variant="centroid"`` (torchmetrics' ``dunn_index``): min distance between
    two cluster centroids, divided by the max distance from a point to its own
    cluster's centroid; distances are Minkowski ``p``-norms (``p`` >= 1).  O(n k).

    Both are ``inf`` when the clusters have zero size (single points, or
    coinciding points) but are apart, and undefined (InputError) when the
    separation is 0 too.

    >>> X = [[0, 0], [0, 1], [4, 0], [4, 2]]
    >>> dunn_index(X, [0, 0, 1, 1])
    2.0
    >>> round(dunn_index(X, [0, 0, 1, 1], variant="centroid"), 4)  # sqrt(16.25) / 1
    4.0311
    """
    _check_choice("variant", variant, ("classic", "centroid"))
    x, lab = _internal_k2(X, labels)
    if variant == "centroid":
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not p >= 1:
            raise InputError(f"p must be a number >= 1 (a Minkowski norm; inf allowed), "
                             f"got {p!r}.")
        k = int(lab.max()) + 1
        sizes = np.bincount(lab, minlength=k).astype(np.float64)
        cent = np.zeros((k, x.shape[1]))
        np.add.at(cent, lab, x)
        cent /= sizes[:, None]
        i, j = np.triu_indices(k, 1)
        inter = float(np.linalg.norm(cent[i] - cent[j], ord=p, axis=1).min())
        intra = float(np.linalg.norm(x - cent[lab], ord=p, axis=1).max())
        return _dunn_ratio(inter, intra)
    with needs("ml", "ranklens.clustering.dunn_index"):
        from scipy.spatial.distance import cdist

    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    min_inter, max_intra = np.inf, 0.0
    for start in range(0, len(x), chunk_size):
        rows = slice(start, start + chunk_size)
        try:
            d = cdist(x[rows], x, metric=metric)
        except (ValueError, TypeError) as exc:
            raise InputError(f"dunn_index: metric={metric!r}: {exc}") from None
        same = lab[rows, None] == lab[None, :]
        if (~same).any():
            min_inter = min(min_inter, float(d[~same].min()))
        max_intra = max(max_intra, float(d[same].max()))
    return _dunn_ratio(float(min_inter), max_intra)


def _dunn_ratio(inter: float, intra: float) -> float:
    if intra > 0:
        return inter / intra
    if inter > 0:
        return float("inf")  # compact (zero-size) clusters apart from each other
    raise InputError("the Dunn index is 0/0 here: every point coincides with the points of "
                     "its own and of another cluster (zero separation and zero size).")


def _internal_k2(X: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    x = _as_array("X", X, ndim=(2,), numeric=True).astype(np.float64)
    lab, k = _codes("labels", labels, column=True, warn_continuous=False)
    _same_length(X=x, labels=lab)
    if k < 2:
        raise InputError("labels must form at least 2 clusters; the index is undefined "
                         "for a single cluster.")
    return x, lab


