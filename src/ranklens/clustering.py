"""Clustering metrics (definitions as in S. Alla, "Evaluation Metrics for Machine
Learning Models", part two: clustering and ranking).

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

from typing import Any

import numpy as np

from ranklens._shared.contingency import cells, codes, pairs, ratio
from ranklens._shared.deprecation import renamed_keyword
from ranklens._shared.deps import needs
from ranklens._shared.scikit import call, reemit
from ranklens._shared.validate import (
    as_array,
    check_choice,
    check_int,
    check_number,
    same_length,
)
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


def contingency(
    labels_true: Any,
    labels_pred: Any,
    *,
    pred_name: str = "labels_pred",
    true_name: str = "labels_true",
) -> np.ndarray:
    """Non-zero cells ``n_ij`` of the (predicted cluster, true class) table, as
    a 1-d int64 array, plus nothing else: sizes follow from the codes.  O(n log n)."""
    return cells(labels_true, labels_pred, true_name, pred_name).counts


def pair_confusion(labels_true: Any, labels_pred: Any) -> dict[str, int]:
    """Pair counts (unordered pairs of distinct points): TP together in both,
    FP together only in the prediction, FN only in the truth, TN in neither.
    (scikit-learn's ``pair_confusion_matrix`` counts ordered pairs: twice these.)"""
    tp, fp, fn, tn = pairs(labels_true, labels_pred)
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn}


def pair_precision(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """Pair-counting precision ``TP / (TP + FP)``: the share of pairs the prediction
    puts together that are truly together (Manning, Raghavan & Schütze,
    "Introduction to Information Retrieval", 2008, section 16.3).
    ``zero_division`` when the prediction puts every point alone (no predicted
    pair).

    Manning et al.'s example (17 points, classes x=0, o=1, diamond=2; TP = 20,
    FP = 20, FN = 24):

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> pair_precision(t, p)  # 20 / 40
    0.5
    >>> pair_precision([0, 0, 1], [0, 1, 2], zero_division=1.0)  # no predicted pair
    1.0
    """
    tp, fp, _, _ = pairs(labels_true, labels_pred)
    return ratio(tp, tp + fp, zero_division)


def pair_recall(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """Pair-counting recall ``TP / (TP + FN)``: the share of truly co-clustered pairs
    that are predicted together (Manning, Raghavan & Schütze 2008, section 16.3).
    ``zero_division`` when the truth puts every point alone (no true pair).

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> round(pair_recall(t, p), 4)  # 20 / 44
    0.4545
    """
    tp, _, fn, _ = pairs(labels_true, labels_pred)
    return ratio(tp, tp + fn, zero_division)


def pair_f1(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """Pair-counting F1, the harmonic mean of pair precision and recall:
    ``F1 = 2 TP / (2 TP + FP + FN)`` (Manning, Raghavan & Schütze 2008, section
    16.3).  ``zero_division`` only when ``TP + FP + FN = 0`` (no predicted and no
    true pair); 0 when precision and recall are both 0.

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> round(pair_f1(t, p), 4)  # 40 / (40 + 20 + 24)
    0.4762
    """
    tp, fp, fn, _ = pairs(labels_true, labels_pred)
    return ratio(2 * tp, 2 * tp + fp + fn, zero_division)


def jaccard(labels_true: Any, labels_pred: Any, *, zero_division: float = 0.0) -> float:
    """Pair-counting Jaccard index ``J = TP / (TP + FP + FN)``: the pairs together in
    both over the pairs together in either (Halkidi, Batistakis & Vazirgiannis,
    "On clustering validation techniques", J. Intell. Inf. Syst. 17, 2001).  Pairs
    apart in both (TN) do not count.  ``zero_division`` when ``TP + FP + FN = 0``.

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> jaccard(t, p)  # 20 / (20 + 20 + 24)
    0.3125
    """
    tp, fp, fn, _ = pairs(labels_true, labels_pred)
    return ratio(tp, tp + fp + fn, zero_division)


def purity(labels_true: Any, labels_pred: Any) -> float:
    """Purity ``= (1/N) sum_i max_j n_ij``: each predicted cluster i counts the
    points of its most frequent true class j (Manning, Raghavan & Schütze,
    "Introduction to Information Retrieval", 2008, section 16.3).  1 when every
    point is its own cluster (purity rewards splitting; pair it with a recall-like
    score).  Never 0/0 (at least one point).

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> round(purity(t, p), 4)  # (5 + 4 + 3) / 17
    0.7059
    >>> purity([0, 0, 1], [0, 1, 2])  # singletons
    1.0
    """
    c = cells(labels_true, labels_pred)
    best = np.zeros(len(c.pred_sizes), dtype=np.int64)
    np.maximum.at(best, c.pred, c.counts)
    return float(best.sum() / len(c.true_codes))


# --------------------------------------------------------------------------- sklearn external


def _ext(labels_true: Any, labels_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    t, _ = codes("labels_true", labels_true)
    p, _ = codes("labels_pred", labels_pred)
    same_length(labels_true=t, labels_pred=p)
    return t, p


def _unit(value: Any) -> float:
    """A score in [0, 1] computed by scikit-learn, with its rounding past the
    bounds removed (e.g. NMI with ``average_method="min"`` gives 1.0000000000000002
    for a prediction that splits every class)."""
    return min(1.0, max(0.0, float(value)))


def rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Rand index ``RI = (TP + TN) / C(n)`` over the ``C(n) = n (n - 1) / 2`` pairs
    of points: the share of pairs on which the two partitions agree (together in
    both, or apart in both) (Rand, "Objective criteria for the evaluation of
    clustering methods", JASA 66, 1971; scikit-learn's ``rand_score``).  1.0 for
    fewer than two points (no pair), as scikit-learn.

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> round(rand_index(t, p), 4)  # (20 + 72) / 136
    0.6765
    """
    with needs("ml", "ranklens.clustering.rand_index"):
        from sklearn.metrics import rand_score

    return float(rand_score(*_ext(labels_true, labels_pred)))


def adjusted_rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Adjusted Rand index (Hubert & Arabie, "Comparing partitions", J. Classification
    2, 1985; scikit-learn's ``adjusted_rand_score``), the Rand index corrected for
    chance: ``ARI = (sum_ij C(n_ij) - E) / ((sum_i C(a_i) + sum_j C(b_j)) / 2 - E)``
    with ``E = sum_i C(a_i) sum_j C(b_j) / C(n)`` (cells ``n_ij``, cluster sizes
    ``a_i``, class sizes ``b_j``, ``C(m) = m (m - 1) / 2``).  1 for identical
    partitions, about 0 for random ones, and it can be negative (down to -0.5).
    When the denominator is 0 (both partitions a single cluster, or both all
    singletons) it is 1.0, as scikit-learn.

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> round(adjusted_rand_index(t, p), 4)  # E = 40 * 44 / 136: (20 - E) / (42 - E)
    0.2429
    >>> adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1])  # (0 - 1/3) / (1 - 1/3)
    -0.5
    """
    with needs("ml", "ranklens.clustering.adjusted_rand_index"):
        from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(*_ext(labels_true, labels_pred)))


def nmi(labels_true: Any, labels_pred: Any, *, average_method: str = "arithmetic") -> float:
    """Normalized mutual information ``NMI = I(T; P) / mean(H(T), H(P))`` with the
    entropies and mutual information of the true classes T and predicted clusters
    P (natural logarithms; the base cancels); ``average_method`` arithmetic
    (``(H(T) + H(P)) / 2``, the default), geometric (``sqrt(H(T) H(P))``; Strehl &
    Ghosh, "Cluster ensembles", JMLR 3, 2002), min or max (Vinh, Epps & Bailey,
    JMLR 11, 2010); scikit-learn's ``normalized_mutual_info_score``.  With a single
    class and a single cluster (both entropies 0) it is 1.0, as scikit-learn.  The
    arithmetic NMI equals the V-measure (:func:`v_measure`).

    Four points in two classes, each predicted alone: ``I = H(T) = ln 2``,
    ``H(P) = ln 4``:

    >>> nmi([0, 0, 1, 1], [0, 1, 2, 3])  # ln 2 / (1.5 ln 2)
    0.6666666666666666
    >>> [round(nmi([0, 0, 1, 1], [0, 1, 2, 3], average_method=m), 4)
    ...  for m in ("geometric", "min", "max")]  # 1/sqrt(2), 1, 1/2
    [0.7071, 1.0, 0.5]
    """
    with needs("ml", "ranklens.clustering.nmi"):
        from sklearn.metrics import normalized_mutual_info_score

    check_choice("average_method", average_method, ("arithmetic", "geometric", "min", "max"))
    return _unit(
        normalized_mutual_info_score(*_ext(labels_true, labels_pred), average_method=average_method)
    )


def v_measure(labels_true: Any, labels_pred: Any, *, beta: float = 1.0) -> float:
    """V-measure: weighted harmonic mean of homogeneity ``h = 1 - H(T|P) / H(T)``
    (each cluster holds one class) and completeness ``c = 1 - H(P|T) / H(P)``
    (each class sits in one cluster), ``V = (1 + beta) h c / (beta h + c)``
    (Rosenberg & Hirschberg 2007; scikit-learn's ``v_measure_score``); ``beta`` >= 0
    weighs completeness (beta > 1) or homogeneity (beta < 1).  ``h`` is 1 when
    ``H(T) = 0``, ``c`` when ``H(P) = 0``; V is 0 when ``h + c = 0``.

    Two classes, every point predicted alone: ``h = 1``, ``c = ln 2 / ln 4 = 1/2``:

    >>> v_measure([0, 0, 1, 1], [0, 1, 2, 3])  # 2 * 1 * 0.5 / 1.5
    0.6666666666666666
    >>> round(v_measure([0, 0, 1, 1], [0, 1, 2, 3], beta=2.0), 4)  # 3 * 0.5 / 2.5
    0.6
    """
    with needs("ml", "ranklens.clustering.v_measure"):
        from sklearn.metrics import v_measure_score

    check_number("beta", beta, low=0, low_open=False)
    return _unit(v_measure_score(*_ext(labels_true, labels_pred), beta=beta))


def fowlkes_mallows(labels_true: Any, labels_pred: Any) -> float:
    """Fowlkes-Mallows index ``FMI = TP / sqrt((TP + FP)(TP + FN))``, the geometric
    mean of pair precision and pair recall (Fowlkes & Mallows, "A method for
    comparing two hierarchical clusterings", JASA 78, 1983; scikit-learn's
    ``fowlkes_mallows_score``).  0 when ``TP = 0``, so whenever either partition
    has no pair together, even for two identical partitions into singletons.

    >>> t = [0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 2, 0, 0, 2, 2, 2]  # Manning et al.'s
    >>> p = [0] * 6 + [1] * 6 + [2] * 5
    >>> round(fowlkes_mallows(t, p), 4)  # 20 / sqrt(40 * 44)
    0.4767
    """
    with needs("ml", "ranklens.clustering.fowlkes_mallows"):
        from sklearn.metrics import fowlkes_mallows_score

    return _unit(fowlkes_mallows_score(*_ext(labels_true, labels_pred)))


# --------------------------------------------------------------------------- internal


def _internal(X: Any, labels: Any, *, singletons: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """X and the cluster codes of an internal index: 2 to n - 1 clusters (2 or more
    with ``singletons``: every point may be its own cluster)."""
    x = as_array("X", X, ndim=(2,), numeric=True).astype(np.float64)
    lab, k = codes("labels", labels, column=True, warn_continuous=False)
    same_length(X=x, labels=lab)
    if singletons and k < 2:
        raise InputError(
            "labels must form at least 2 clusters; the index is undefined for a single cluster."
        )
    if not singletons and not 2 <= k <= len(x) - 1:
        raise InputError(
            f"labels must form between 2 and n_samples - 1 = {len(x) - 1} clusters, got "
            f"{k}; the index is undefined otherwise."
        )
    return x, lab


def silhouette(
    X: Any,
    labels: Any,
    *,
    metric: str = "euclidean",
    sample_size: int | None = None,
    random_state: Any = None,
    reduction: str = "mean",
    per_sample: bool | None = None,
) -> Any:
    """Mean silhouette coefficient (b - a) / max(a, b) (Rousseeuw 1987), scikit-learn's.

    Exact by default (O(n^2) time, scikit-learn computes it in chunks).  For
    large n pass ``sample_size`` to average over a random subset of that many
    points, drawn as scikit-learn's ``silhouette_score`` draws them
    (``random_state`` an int, ``numpy.random.RandomState`` or None: the first
    ``sample_size`` of a random permutation, so the value equals
    scikit-learn's for the same ``random_state``; a ``numpy.random.Generator``
    is also accepted).  With ``metric="precomputed"`` ``X`` is the n x n
    distance matrix and the sample takes its rows and columns.
    ``reduction="none"`` returns every point's coefficient (always exact);
    ``per_sample=True`` is its deprecated spelling.

    >>> X = [[0, 0], [0, 1], [4, 0], [4, 1]]
    >>> round(silhouette(X, [0, 0, 1, 1]), 4)
    0.7538
    >>> silhouette(X, [0, 0, 1, 1], reduction="none").round(4).tolist()
    [0.7538, 0.7538, 0.7538, 0.7538]
    """
    with needs("ml", "ranklens.clustering.silhouette"):
        from sklearn.metrics import silhouette_samples, silhouette_score

    reduction = renamed_keyword(
        "silhouette",
        "per_sample",
        per_sample,
        "reduction",
        reduction,
        convert=lambda v: "none" if v else "mean",
    )
    check_choice("reduction", reduction, ("mean", "none"))
    x, lab = _internal(X, labels)
    if reduction == "none":
        res, caught = call("silhouette", silhouette_samples, x, lab, metric=metric)
        reemit(caught)
        return res
    if sample_size is not None:
        with needs("ml", "ranklens.clustering.silhouette"):
            from sklearn.utils import check_random_state

        # a silhouette needs 2 to n_samples - 1 clusters, so at least 3 points
        check_int(
            "sample_size",
            sample_size,
            low=3,
            hint="a silhouette needs between 2 and n - 1 clusters of n points",
        )
        if isinstance(random_state, np.random.Generator):
            idx = random_state.permutation(len(x))[:sample_size]
        else:
            try:
                rs = check_random_state(random_state)
            except ValueError:
                raise InputError(
                    f"random_state must be None, an int, a numpy RandomState or "
                    f"Generator, got {random_state!r}."
                ) from None
            idx = rs.permutation(len(x))[:sample_size]
        x = x[idx][:, idx] if metric == "precomputed" else x[idx]
        lab = lab[idx]
        if len(np.unique(lab)) < 2:
            raise InputError("the sample holds a single cluster; raise sample_size.")
        _, lab = np.unique(lab, return_inverse=True)
    res, caught = call("silhouette", silhouette_score, x, lab, metric=metric)
    reemit(caught)
    return float(res)


def davies_bouldin(X: Any, labels: Any) -> float:
    """Davies-Bouldin index (lower is better; Davies & Bouldin, "A cluster separation
    measure", IEEE TPAMI 1(2), 1979; scikit-learn's ``davies_bouldin_score``):
    ``DB = (1/k) sum_i max_{j != i} (s_i + s_j) / d(c_i, c_j)`` over the k clusters,
    with ``s_i`` the mean Euclidean distance of cluster i's points to its centroid
    ``c_i``.  Two clusters with the same centroid add 0 (scikit-learn's
    convention); 0 when every ``s_i`` is 0.  Needs 2 to n - 1 clusters.

    Two clusters of two points 2 apart, centroids 4 apart: ``(1 + 1) / 4``:

    >>> davies_bouldin([[0, 0], [0, 2], [4, 0], [4, 2]], [0, 0, 1, 1])
    0.5
    """
    with needs("ml", "ranklens.clustering.davies_bouldin"):
        from sklearn.metrics import davies_bouldin_score

    res, caught = call("davies_bouldin", davies_bouldin_score, *_internal(X, labels))
    reemit(caught)
    return float(res)


def calinski_harabasz(X: Any, labels: Any) -> float:
    """Calinski-Harabasz variance ratio (higher is better; Caliński & Harabasz, "A
    dendrite method for cluster analysis", Communications in Statistics 3(1), 1974;
    scikit-learn's ``calinski_harabasz_score``):
    ``CH = (B / (k - 1)) / (W / (n - k))`` with the between-cluster dispersion
    ``B = sum_i n_i ||c_i - c||^2`` and the within-cluster dispersion
    ``W = sum_x ||x - c_(cluster of x)||^2`` (centroids ``c_i``, overall mean ``c``).
    1.0 when ``W = 0`` (every point on its centroid; scikit-learn's convention).
    Needs 2 to n - 1 clusters.

    >>> calinski_harabasz([[0, 0], [0, 2], [4, 0], [4, 2]], [0, 0, 1, 1])  # (16/1) / (4/2)
    8.0
    >>> calinski_harabasz([[0, 0], [0, 0], [1, 1], [1, 1]], [0, 0, 1, 1])  # W = 0
    1.0
    """
    with needs("ml", "ranklens.clustering.calinski_harabasz"):
        from sklearn.metrics import calinski_harabasz_score

    res, caught = call("calinski_harabasz", calinski_harabasz_score, *_internal(X, labels))
    reemit(caught)
    return float(res)


def dunn_index(
    X: Any,
    labels: Any,
    *,
    variant: str = "classic",
    metric: str = "euclidean",
    p: float = 2.0,
    chunk_size: int = 2048,
) -> float:
    """Dunn index: smallest between-cluster separation over largest cluster size.

    ``variant="classic"`` (Dunn 1974): min over pairs of points in
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
    check_choice("variant", variant, ("classic", "centroid"))
    x, lab = _internal(X, labels, singletons=True)
    if variant == "centroid":
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not p >= 1:
            raise InputError(f"p must be a number >= 1 (a Minkowski norm; inf allowed), got {p!r}.")
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

    check_int("chunk_size", chunk_size)
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
    raise InputError(
        "the Dunn index is 0/0 here: every point coincides with the points of "
        "its own and of another cluster (zero separation and zero size)."
    )
