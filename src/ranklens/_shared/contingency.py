"""Contingency counts of two labelings, and pair counts from them (never enumerating pairs).

Clustering (``labels_true`` / ``labels_pred``) and entity resolution
(``true_entities`` / ``pred_entities``) compare two labelings of the same
points.  With the contingency table ``n_ij`` (points in predicted group i and
true group j), predicted sizes ``a_i``, true sizes ``b_j`` and
``C(m) = m (m - 1) / 2``::

    TP = sum_ij C(n_ij)            pairs together in both
    FP = sum_i C(a_i) - TP         together in the prediction only
    FN = sum_j C(b_j) - TP         together in the truth only
    TN = C(n) - TP - FP - FN

>>> pairs([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
(2, 1, 4, 8)
>>> ratio(0, 0, 1.0), ratio(1, 4, 0.0)
(1.0, 0.25)
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np

from ranklens._shared.validate import (
    as_array,
    check_zero_division,
    label_kinds,
    py_value,
    same_length,
)
from ranklens.errors import InputError, RanklensWarning, user_stacklevel

__all__ = ["Cells", "cells", "codes", "pairs", "ratio"]


def codes(
    name: str, labels: Any, *, column: bool = False, warn_continuous: bool = True
) -> tuple[np.ndarray, int]:
    """Labels as codes 0..k-1 (and k).  ``column``: an (n, 1) column is
    flattened (scikit-learn's internal clustering indices accept one; its
    external scores do not).  Labels with a fractional part are used as
    given, with a RanklensWarning (scikit-learn warns too): they look like
    scores."""
    a = as_array(name, labels, ndim=(1, 2) if column else (1,))
    if a.ndim == 2:
        if a.shape[1] != 1:
            raise InputError(f"{name} must be 1-d or an (n, 1) column, got shape {a.shape}.")
        a = a[:, 0]
    if len(label_kinds(a)) > 1:
        raise InputError(f"{name} mixes string and numeric labels; convert them to one type first.")
    if warn_continuous and a.dtype.kind == "f":
        frac = np.flatnonzero(a != np.trunc(a))
        if len(frac):
            warnings.warn(
                f"{name} holds numbers with a fractional part ({py_value(a[frac[0]])!r} at "
                f"index {int(frac[0])}); each distinct value is taken as one cluster.  If they "
                "are scores or measurements, cluster them first.",
                RanklensWarning,
                stacklevel=user_stacklevel(),
            )
    try:
        _, inv = np.unique(a, return_inverse=True)
    except TypeError as exc:
        raise InputError(
            f"{name} holds labels that cannot be compared ({exc}); pass strings or numbers."
        ) from None
    inv = inv.ravel().astype(np.int64)
    return inv, int(inv.max()) + 1


class Cells(NamedTuple):
    """The non-zero cells of the (predicted, true) table of two labelings of n points."""

    counts: np.ndarray  # n_ij of each non-zero cell (int64)
    pred: np.ndarray  # the predicted group of each cell
    true: np.ndarray  # the true group of each cell
    pred_sizes: np.ndarray  # a_i, per predicted group
    true_sizes: np.ndarray  # b_j, per true group
    true_codes: np.ndarray  # each point's true group
    pred_codes: np.ndarray  # each point's predicted group
    inverse: np.ndarray  # each point's cell (index into counts)


def cells(
    labels_true: Any,
    labels_pred: Any,
    true_name: str = "labels_true",
    pred_name: str = "labels_pred",
) -> Cells:
    """The contingency table of two labelings of the same points.  O(n log n)."""
    t, nt = codes(true_name, labels_true)
    p, _ = codes(pred_name, labels_pred)
    same_length(**{true_name: t, pred_name: p})
    uniq, inv, counts = np.unique(p * nt + t, return_inverse=True, return_counts=True)
    return Cells(
        counts.astype(np.int64),
        uniq // nt,
        uniq % nt,
        np.bincount(p),
        np.bincount(t),
        t,
        p,
        inv.ravel(),
    )


def _c2(m: np.ndarray) -> int:
    m = m.astype(np.int64)
    return int((m * (m - 1) // 2).sum())


def pairs(
    labels_true: Any,
    labels_pred: Any,
    true_name: str = "labels_true",
    pred_name: str = "labels_pred",
) -> tuple[int, int, int, int]:
    """(TP, FP, FN, TN) over unordered pairs of distinct points."""
    c = cells(labels_true, labels_pred, true_name, pred_name)
    n = int(c.pred_sizes.sum())
    tp = _c2(c.counts)
    fp = _c2(c.pred_sizes) - tp
    fn = _c2(c.true_sizes) - tp
    return tp, fp, fn, n * (n - 1) // 2 - tp - fp - fn


def ratio(num: int, den: int, zero_division: Any) -> float:
    """``num / den``, or ``zero_division`` (checked) when ``den`` is 0."""
    zd = check_zero_division(zero_division)
    return float(num / den) if den else zd
