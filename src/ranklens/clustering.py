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

>>> t = [0, 0, 0, 1, 1, 1]
>>> p = [0, 0, 1, 1, 2, 2]
>>> pair_confusion(t, p)
{'tp': 2, 'fp': 1, 'fn': 4, 'tn': 8}
>>> round(purity(t, p), 4), round(jaccard(t, p), 4)
(0.8333, 0.2857)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.classification import _as_array, _check_choice, _same_length
from ranklens.errors import InputError

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

def _codes(name: str, labels: Any) -> tuple[np.ndarray, int]:
    a = _as_array(name, labels)
    _, inv = np.unique(a, return_inverse=True)
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


def _ratio(num: int, den: int, zero_division: float) -> float:
    return float(num / den) if den else float(zero_division)


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


def rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Rand index (TP + TN) / C(n) (scikit-learn's ``rand_score``)."""
    from sklearn.metrics import rand_score

    return float(rand_score(*_ext(labels_true, labels_pred)))


def adjusted_rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Adjusted Rand index (Hubert & Arabie), chance-corrected; can be negative."""
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(*_ext(labels_true, labels_pred)))


def nmi(labels_true: Any, labels_pred: Any, *, average_method: str = "arithmetic") -> float:
    """Normalized mutual information I(T; P) / mean(H(T), H(P)); ``average_method``
    arithmetic (seed 004's (H+H)/2, the default), geometric, min or max."""
    from sklearn.metrics import normalized_mutual_info_score

    _check_choice("average_method", average_method, ("arithmetic", "geometric", "min", "max"))
    return float(normalized_mutual_info_score(*_ext(labels_true, labels_pred),
                                              average_method=average_method))


def v_measure(labels_true: Any, labels_pred: Any, *, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity and completeness."""
    from sklearn.metrics import v_measure_score

    return float(v_measure_score(*_ext(labels_true, labels_pred), beta=beta))


def fowlkes_mallows(labels_true: Any, labels_pred: Any) -> float:
    """Fowlkes-Mallows index sqrt(pair precision * pair recall)."""
    from sklearn.metrics import fowlkes_mallows_score

    return float(fowlkes_mallows_score(*_ext(labels_true, labels_pred)))


# --------------------------------------------------------------------------- internal

def _internal(X: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    x = _as_array("X", X, ndim=(2,), numeric=True).astype(np.float64)
    lab, k = _codes("labels", labels)
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
    """Mean silhouette coefficient (b - a) / max(a, b) (seed 004).

    Exact by default (O(n^2) time, scikit-learn computes it in chunks).  For
    large n pass ``sample_size`` to average over a random subset of that many
    points (drawn with ``random_state``, an int or ``numpy.random.Generator``
    seed, for reproducibility).  ``per_sample=True`` returns every point's
    coefficient (always exact).
    """
    from sklearn.metrics import silhouette_samples, silhouette_score

    x, lab = _internal(X, labels)
    if per_sample:
        return silhouette_samples(x, lab, metric=metric)
    if sample_size is not None:
        if isinstance(sample_size, bool) or not isinstance(sample_size, (int, np.integer)) \
                or not sample_size >= 2:
            raise InputError(f"sample_size must be an integer >= 2, got {sample_size!r}.")
        if sample_size < len(x):
            rng = np.random.default_rng(random_state)
            idx = rng.choice(len(x), size=int(sample_size), replace=False)
            x, lab = x[idx], lab[idx]
            if len(np.unique(lab)) < 2:
                raise InputError("the sample holds a single cluster; raise sample_size.")
            _, lab = np.unique(lab, return_inverse=True)
    return float(silhouette_score(x, lab, metric=metric))


def davies_bouldin(X: Any, labels: Any) -> float:
    """Davies-Bouldin index (lower is better), scikit-learn's."""
    from sklearn.metrics import davies_bouldin_score

    return float(davies_bouldin_score(*_internal(X, labels)))


def calinski_harabasz(X: Any, labels: Any) -> float:
    """Calinski-Harabasz variance ratio (higher is better), scikit-learn's."""
    from sklearn.metrics import calinski_harabasz_score

    return float(calinski_harabasz_score(*_internal(X, labels)))


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
    cluster's centroid; distances are Minkowski ``p``-norms.  O(n k).

    >>> X = [[0, 0], [0, 1], [4, 0], [4, 2]]
    >>> dunn_index(X, [0, 0, 1, 1])
    2.0
    >>> round(dunn_index(X, [0, 0, 1, 1], variant="centroid"), 4)  # sqrt(16.25) / 1
    4.0311
    """
    _check_choice("variant", variant, ("classic", "centroid"))
    x, lab = _internal_k2(X, labels)
    if variant == "centroid":
        k = int(lab.max()) + 1
        sizes = np.bincount(lab, minlength=k).astype(np.float64)
        cent = np.zeros((k, x.shape[1]))
        np.add.at(cent, lab, x)
        cent /= sizes[:, None]
        i, j = np.triu_indices(k, 1)
        inter = np.linalg.norm(cent[i] - cent[j], ord=p, axis=1).min()
        intra = np.linalg.norm(x - cent[lab], ord=p, axis=1).max()
        return float(inter / intra) if intra > 0 else float("inf")
    from scipy.spatial.distance import cdist

    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise InputError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    min_inter, max_intra = np.inf, 0.0
    for start in range(0, len(x), chunk_size):
        rows = slice(start, start + chunk_size)
        d = cdist(x[rows], x, metric=metric)
        same = lab[rows, None] == lab[None, :]
        if (~same).any():
            min_inter = min(min_inter, float(d[~same].min()))
        max_intra = max(max_intra, float(d[same].max()))
    return float(min_inter / max_intra) if max_intra > 0 else float("inf")


def _internal_k2(X: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    x = _as_array("X", X, ndim=(2,), numeric=True).astype(np.float64)
    lab, k = _codes("labels", labels)
    _same_length(X=x, labels=lab)
    if k < 2:
        raise InputError("labels must form at least 2 clusters; the index is undefined "
                         "for a single cluster.")
    return x, lab


