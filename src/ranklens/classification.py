"""Classification metrics: confusion matrix, precision / recall / F-beta, accuracy,
ROC-AUC, average precision, log-loss and log-likelihood.

Every function validates its input once (lengths, NaN, label sets, probability
ranges) and raises :class:`ranklens.errors.InputError` naming the argument;
scikit-learn computes the numbers wherever it does so correctly (it is
imported inside the functions, so ``import ranklens`` stays light).  The
log-loss and log-likelihood are computed here because their clipping and
reduction conventions must be explicit.

Conventions
-----------
``average``
    ``"binary"`` (only ``pos_label``'s score; needs at most two classes),
    ``"micro"`` (pool TP/FP/FN over classes), ``"macro"`` (unweighted mean over
    classes), ``"weighted"`` (mean weighted by each class' support in
    ``y_true``) or ``None`` (one value per class, in ``labels`` order).
``zero_division``
    The value of a ratio whose denominator is 0 (e.g. precision when nothing is
    predicted positive).  Default 0.0, as scikit-learn's default does.
``labels``
    The classes, in order.  Default: the sorted classes of ``y_true``; a class
    that occurs in ``y_pred`` but not in ``y_true`` is then an error (pass
    ``labels=`` listing every class to allow it).
``eps``
    Probabilities are clipped to ``[eps, 1 - eps]`` before taking logs
    (default ``1e-15``), so a confident wrong prediction costs
    ``-log(1e-15) ~= 34.5`` rather than infinity.  ``eps=0`` disables clipping.

The recommender-system framing (seed 003): an item is *predicted positive* when
it was recommended and *truly positive* when the user interacted with it, so
TP = recommended and interacted, FP = recommended, not interacted, FN = not
recommended but interacted, TN = neither::

    >>> import ranklens.classification as clf
    >>> interacted  = [1, 0, 0, 1, 0, 0]
    >>> recommended = [0, 0, 1, 1, 0, 0]
    >>> clf.confusion_counts(interacted, recommended)
    {'tp': 1, 'fp': 1, 'fn': 1, 'tn': 3}
    >>> clf.precision(interacted, recommended), clf.recall(interacted, recommended)
    (0.5, 0.5)
    >>> clf.f1(interacted, recommended)
    0.5
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ranklens.errors import InputError

__all__ = [
    "accuracy",
    "average_precision",
    "confusion_counts",
    "confusion_matrix",
    "f1",
    "fbeta",
    "log_likelihood",
    "log_loss",
    "precision",
    "precision_recall_fscore",
    "recall",
    "roc_auc",
]

AVERAGES = ("binary", "micro", "macro", "weighted")
DEFAULT_EPS = 1e-15


# --------------------------------------------------------------------------- checks
# (shared with ranklens.regression, ranklens.clustering and ranklens.entity_resolution)

def _has_nan(a: np.ndarray) -> bool:
    if a.dtype.kind in "fc":
        return bool(np.isnan(a).any())
    if a.dtype.kind == "O":
        return any(v is None or (isinstance(v, float) and v != v) for v in a.ravel())
    return False


def _as_array(name: str, x: Any, *, ndim: tuple[int, ...] = (1,),
              numeric: bool = False) -> np.ndarray:
    """``x`` as an array of one of the allowed dimensions, free of NaN."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name} must be array-like: {exc}") from None
    if a.ndim not in ndim:
        want = " or ".join(f"{d}-d" for d in ndim)
        raise InputError(f"{name} must be a {want} array, got shape {a.shape}.")
    if a.size == 0:
        raise InputError(f"{name} is empty; at least one sample is needed.")
    if numeric:
        if a.dtype.kind not in "biuf":
            try:
                a = a.astype(np.float64)
            except (TypeError, ValueError):
                raise InputError(
                    f"{name} must be numeric, got values of type {a.dtype}."
                ) from None
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            bad = int(np.flatnonzero(~np.isfinite(a.ravel()))[0])
            raise InputError(
                f"{name} contains NaN or infinite values (first at flat index {bad}); "
                "drop or impute them first."
            )
    elif _has_nan(a):
        raise InputError(f"{name} contains NaN or None; drop or impute those samples first.")
    return a


def _same_length(**arrays: np.ndarray) -> int:
    """The common number of samples (first axis); error naming the arrays otherwise."""
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise InputError(f"inconsistent numbers of samples: {desc}; they must be equal.")
    return next(iter(lengths.values()))


def _check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    if sample_weight is None:
        return None
    w = _as_array("sample_weight", sample_weight, numeric=True).astype(np.float64)
    _same_length(y_true=np.empty(n), sample_weight=w)
    if (w < 0).any():
        raise InputError("sample_weight must be non-negative.")
    return w


def _check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    if value not in choices:
        raise InputError(
            f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}."
        )


def _labels(y_true: np.ndarray, y_pred: np.ndarray | None, labels: Any,
            pred_name: str = "y_pred") -> np.ndarray:
    """The class list: given, else the sorted classes of y_true (y_pred must be a subset)."""
    if labels is not None:
        lab = _as_array("labels", labels)
        if len(np.unique(lab)) != len(lab):
            raise InputError("labels contains duplicates.")
        for name, arr in (("y_true", y_true), (pred_name, y_pred)):
            if arr is None:
                continue
            extra = np.setdiff1d(np.unique(arr), lab)
            if len(extra):
                raise InputError(
                    f"{name} contains labels not listed in labels: {extra[:10].tolist()}."
                )
        return lab
    lab = np.unique(y_true)
    if y_pred is not None:
        extra = np.setdiff1d(np.unique(y_pred), lab)
        if len(extra):
            raise InputError(
                f"{pred_name} contains labels that never occur in y_true: "
                f"{extra[:10].tolist()}; pass labels=[...] listing every class to allow them."
            )
    return lab


def _check_average(average: str | None, pos_label: Any, labels: np.ndarray,
                   explicit_labels: bool) -> None:
    if average is not None:
        _check_choice("average", average, AVERAGES)
    if average == "binary":
        if len(labels) > 2:
            raise InputError(
                f"average='binary' needs at most two classes, found {len(labels)} "
                f"({labels[:10].tolist()}); use average='micro', 'macro' or 'weighted'."
            )
        if pos_label not in labels.tolist() and (explicit_labels or len(labels) == 2):
            raise InputError(
                f"pos_label={pos_label!r} is not one of the classes {labels.tolist()}; "
                "pass pos_label= naming the positive class."
            )


def _pair(y_true: Any, y_pred: Any, pred_name: str = "y_pred"
          ) -> tuple[np.ndarray, np.ndarray]:
    t = _as_array("y_true", y_true)
    p = _as_array(pred_name, y_pred)
    _same_length(y_true=t, **{pred_name: p})
    return t, p


# --------------------------------------------------------------------------- counts

def confusion_matrix(y_true: Any, y_pred: Any, *, labels: Any = None,
                     sample_weight: Any = None, normalize: str | None = None) -> np.ndarray:
    """Confusion matrix ``C[i, j]`` = number of samples of true class ``labels[i]``
    predicted as ``labels[j]`` (scikit-learn's layout; binary with labels [0, 1]
    gives ``[[TN, FP], [FN, TP]]``).

    ``normalize``: None (counts), ``"true"`` (rows sum to 1), ``"pred"``
    (columns) or ``"all"``.

    >>> confusion_matrix([0, 1, 1, 0], [0, 1, 0, 0]).tolist()
    [[2, 0], [1, 1]]
    """
    from sklearn.metrics import confusion_matrix as sk

    t, p = _pair(y_true, y_pred)
    lab = _labels(t, p, labels)
    if normalize is not None:
        _check_choice("normalize", normalize, ("true", "pred", "all"))
    w = _check_weights(sample_weight, len(t))
    return cast(np.ndarray, sk(t, p, labels=lab, sample_weight=w, normalize=normalize))


def confusion_counts(y_true: Any, y_pred: Any, *, pos_label: Any = 1) -> dict[str, int]:
    """TP, FP, FN, TN of a binary problem with positive class ``pos_label``.

    >>> confusion_counts([1, 0, 1, 1], [1, 1, 0, 1])
    {'tp': 2, 'fp': 1, 'fn': 1, 'tn': 0}
    """
    t, p = _pair(y_true, y_pred)
    lab = _labels(t, p, None)
    _check_average("binary", pos_label, lab, False)
    tpos, ppos = t == pos_label, p == pos_label
    return {"tp": int(np.sum(tpos & ppos)), "fp": int(np.sum(~tpos & ppos)),
            "fn": int(np.sum(tpos & ~ppos)), "tn": int(np.sum(~tpos & ~ppos))}


# --------------------------------------------------------------------------- P / R / F

def precision_recall_fscore(
    y_true: Any, y_pred: Any, *, beta: float = 1.0, average: str | None = "binary",
    pos_label: Any = 1, labels: Any = None, sample_weight: Any = None,
    zero_division: float = 0.0,
) -> dict[str, Any]:
    """Precision TP/(TP+FP), recall TP/(TP+FN), F-beta
    (1+b^2) P R / (b^2 P + R) and support, under one averaging convention.

    Returns ``{"precision", "recall", "fbeta", "support"}``: floats for an
    averaged result (support is then the number of samples), arrays in
    ``labels`` order for ``average=None``.

    >>> r = precision_recall_fscore([0, 1, 2, 2], [0, 2, 2, 2], average="macro")
    >>> round(r["precision"], 4), round(r["recall"], 4)
    (0.5556, 0.6667)
    """
    from sklearn.metrics import precision_recall_fscore_support

    t, p = _pair(y_true, y_pred)
    lab = _labels(t, p, labels)
    _check_average(average, pos_label, lab, labels is not None)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not beta > 0:
        raise InputError(f"beta must be a positive number, got {beta!r}.")
    if not isinstance(zero_division, (int, float)) or isinstance(zero_division, bool):
        raise InputError(f"zero_division must be a number, got {zero_division!r}.")
    w = _check_weights(sample_weight, len(t))
    if average == "binary" and len(lab) < 2:
        # a single observed class: binary counts on pos_label, still well defined
        lab = np.array(sorted({*lab.tolist(), pos_label}, key=str))
    prec, rec, f, sup = precision_recall_fscore_support(
        t, p, beta=beta, average=average, pos_label=pos_label,
        labels=lab if average != "binary" else None, sample_weight=w,
        zero_division=float(zero_division),
    )
    if average is None:
        return {"precision": prec, "recall": rec, "fbeta": f, "support": sup}
    return {"precision": float(prec), "recall": float(rec), "fbeta": float(f),
            "support": len(t)}


def precision(y_true: Any, y_pred: Any, *, average: str | None = "binary",
              pos_label: Any = 1, labels: Any = None, sample_weight: Any = None,
              zero_division: float = 0.0) -> Any:
    """Precision TP / (TP + FP); see :func:`precision_recall_fscore` for conventions."""
    return precision_recall_fscore(
        y_true, y_pred, average=average, pos_label=pos_label, labels=labels,
        sample_weight=sample_weight, zero_division=zero_division)["precision"]


def recall(y_true: Any, y_pred: Any, *, average: str | None = "binary",
           pos_label: Any = 1, labels: Any = None, sample_weight: Any = None,
           zero_division: float = 0.0) -> Any:
    """Recall TP / (TP + FN); see :func:`precision_recall_fscore` for conventions."""
    return precision_recall_fscore(
        y_true, y_pred, average=average, pos_label=pos_label, labels=labels,
        sample_weight=sample_weight, zero_division=zero_division)["recall"]


def fbeta(y_true: Any, y_pred: Any, *, beta: float, average: str | None = "binary",
          pos_label: Any = 1, labels: Any = None, sample_weight: Any = None,
          zero_division: float = 0.0) -> Any:
    """F-beta (1 + b^2) P R / (b^2 P + R); see :func:`precision_recall_fscore`."""
    return precision_recall_fscore(
        y_true, y_pred, beta=beta, average=average, pos_label=pos_label, labels=labels,
        sample_weight=sample_weight, zero_division=zero_division)["fbeta"]


def f1(y_true: Any, y_pred: Any, *, average: str | None = "binary",
       pos_label: Any = 1, labels: Any = None, sample_weight: Any = None,
       zero_division: float = 0.0) -> Any:
    """F1 = 2 P R / (P + R); see :func:`precision_recall_fscore` for conventions."""
    return fbeta(y_true, y_pred, beta=1.0, average=average, pos_label=pos_label,
                 labels=labels, sample_weight=sample_weight, zero_division=zero_division)


def accuracy(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
             per_sample: bool = False) -> Any:
    """Fraction of samples predicted correctly (weighted mean if weights are given).

    ``per_sample=True`` returns the 0/1 correctness of each sample.

    >>> accuracy([0, 1, 2, 2], [0, 2, 2, 2])
    0.75
    """
    t, p = _pair(y_true, y_pred)
    correct = (t == p).astype(np.float64)
    if per_sample:
        return correct
    w = _check_weights(sample_weight, len(t))
    if w is not None and w.sum() == 0:
        raise InputError("sample_weight sums to 0.")
    return float(np.average(correct, weights=w))


# --------------------------------------------------------------------------- scores

def _scores(y_true: Any, y_score: Any) -> tuple[np.ndarray, np.ndarray]:
    t = _as_array("y_true", y_true)
    s = _as_array("y_score", y_score, ndim=(1, 2), numeric=True).astype(np.float64)
    _same_length(y_true=t, y_score=s)
    return t, s


def _need_two_classes(t: np.ndarray, what: str) -> np.ndarray:
    lab = np.unique(t)
    if len(lab) < 2:
        raise InputError(
            f"{what} needs samples of at least two classes in y_true, found only "
            f"{lab.tolist()}; it is undefined for a single class."
        )
    return lab


def roc_auc(y_true: Any, y_score: Any, *, average: str | None = "macro",
            multi_class: str = "ovr", labels: Any = None, pos_label: Any = None,
            sample_weight: Any = None) -> Any:
    """Area under the ROC curve (trapezoidal; tied scores count half).

    Binary: ``y_score`` is 1-d, the score of the positive class (``pos_label``,
    default the larger of the two classes).  Multi-class: ``y_score`` is
    ``(n, n_classes)`` probabilities in ``labels`` order (rows must sum to 1),
    ``multi_class="ovr"`` (one-vs-rest, ``average`` macro or weighted) or
    ``"ovo"`` (Hand & Till one-vs-one).

    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    from sklearn.metrics import roc_auc_score

    t, s = _scores(y_true, y_score)
    lab = _need_two_classes(t, "roc_auc")
    w = _check_weights(sample_weight, len(t))
    if s.ndim == 1:
        if len(lab) > 2:
            raise InputError(
                f"y_true has {len(lab)} classes but y_score is 1-d; pass (n, n_classes) "
                "probabilities for a multi-class ROC-AUC."
            )
        if pos_label is not None:
            if pos_label not in lab.tolist():
                raise InputError(f"pos_label={pos_label!r} is not one of {lab.tolist()}.")
            t = (t == pos_label).astype(int)
        return float(roc_auc_score(t, s, sample_weight=w))
    _check_choice("multi_class", multi_class, ("ovr", "ovo"))
    lab = _labels(t, None, labels)
    _check_prob_rows("y_score", s, len(lab))
    if average is not None:
        _check_choice("average", average, ("macro", "weighted"))
    res = roc_auc_score(t, s, average=average, multi_class=multi_class, labels=lab,
                        sample_weight=w)
    return res if average is None else float(res)


def average_precision(y_true: Any, y_score: Any, *, pos_label: Any = 1,
                      sample_weight: Any = None) -> float:
    """Average precision of a binary score: sum_n (R_n - R_{n-1}) P_n over
    thresholds (no interpolation; tied scores form one threshold), as
    scikit-learn's ``average_precision_score``.  For interpolated detection AP
    see :mod:`ranklens.detection`.

    Seed 001's worked example:

    >>> y = [1, 0, 0, 1, 0, 0, 1, 1]
    >>> s = [0.8, 0.6, 0.3, 0.2, 0.9, 0.75, 0.81, 0.92]
    >>> round(average_precision(y, s), 4)
    0.7292
    """
    from sklearn.metrics import average_precision_score

    t, s = _scores(y_true, y_score)
    if s.ndim != 1:
        raise InputError("y_score must be 1-d (the positive class' score).")
    lab = np.unique(t)
    if len(lab) > 2:
        raise InputError(f"average_precision is binary; y_true has classes {lab.tolist()}.")
    if pos_label not in lab.tolist():
        raise InputError(
            f"y_true has no sample of the positive class pos_label={pos_label!r}; "
            "average precision is undefined without positives."
        )
    w = _check_weights(sample_weight, len(t))
    return float(average_precision_score(t == pos_label, s, sample_weight=w))


# --------------------------------------------------------------------------- likelihood

def _check_prob_rows(name: str, prob: np.ndarray, n_classes: int, *, atol: float = 1e-6,
                     renormalize: bool = False) -> np.ndarray:
    if prob.shape[1] != n_classes:
        raise InputError(
            f"{name} has {prob.shape[1]} columns but there are {n_classes} classes; "
            "pass labels= naming the class of every column."
        )
    _check_unit_interval(name, prob)
    sums = prob.sum(axis=1)
    if renormalize:
        if (sums == 0).any():
            raise InputError(f"a row of {name} sums to 0 and cannot be renormalised.")
        return prob / sums[:, None]
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if len(bad):
        raise InputError(
            f"rows of {name} must sum to 1; row {int(bad[0])} sums to {sums[bad[0]]!r} "
            f"({len(bad)} rows off by more than {atol}); pass renormalize=True to "
            "divide each row by its sum."
        )
    return prob


def _check_unit_interval(name: str, prob: np.ndarray) -> None:
    if (prob < 0).any() or (prob > 1).any():
        flat = prob.ravel()
        bad = int(np.flatnonzero((flat < 0) | (flat > 1))[0])
        raise InputError(
            f"{name} must hold probabilities in [0, 1]; found {flat[bad]!r} at flat "
            f"index {bad}.  Apply a sigmoid/softmax to scores first."
        )


def _true_class_prob(y_true: Any, y_prob: Any, labels: Any, pos_label: Any,
                     renormalize: bool) -> np.ndarray:
    """Probability each sample's model assigned to its observed outcome."""
    t = _as_array("y_true", y_true)
    p = _as_array("y_prob", y_prob, ndim=(1, 2), numeric=True).astype(np.float64)
    _same_length(y_true=t, y_prob=p)
    if p.ndim == 1:  # Bernoulli: p = P(y = pos_label)
        _check_unit_interval("y_prob", p)
        lab = np.unique(t)
        if len(lab) > 2 or (lab.dtype.kind in "biuf" and pos_label == 1
                            and not np.isin(lab, [0, 1]).all()):
            raise InputError(
                f"1-d y_prob is a Bernoulli model P(y = {pos_label!r}), so y_true must hold "
                f"two outcomes (0/1); found classes {lab[:10].tolist()}.  Pass "
                "(n, n_classes) probabilities for a categorical model."
            )
        pos = t == pos_label
        return np.where(pos, p, 1.0 - p)
    lab = _labels(t, None, labels)
    p = _check_prob_rows("y_prob", p, len(lab), renormalize=renormalize)
    col = np.searchsorted(lab, t) if labels is None else _index_of(lab, t)
    return p[np.arange(len(t)), col]


def _index_of(lab: np.ndarray, t: np.ndarray) -> np.ndarray:
    order = np.argsort(lab, kind="stable")
    return order[np.searchsorted(lab[order], t)]


def log_likelihood(y_true: Any, y_prob: Any, *, reduction: str = "sum",
                   labels: Any = None, pos_label: Any = 1, eps: float = DEFAULT_EPS,
                   renormalize: bool = False) -> Any:
    """Log-likelihood of the observed outcomes under predicted probabilities.

    ``sum_i log p_i(y_i)``, where ``p_i(y_i)`` is the probability the model
    gave to sample ``i``'s observed outcome:

    * Bernoulli: ``y_prob`` is 1-d, ``P(y = pos_label)``; an outcome equal to
      ``pos_label`` contributes ``log p``, any other ``log(1 - p)``.  Used for
      implicit-feedback latent factor models (seed 000).
    * categorical: ``y_prob`` is ``(n, n_classes)``, columns in ``labels``
      order (default: sorted classes of ``y_true``); rows must sum to 1 (or
      ``renormalize=True``).

    Probabilities are clipped to ``[eps, 1 - eps]`` first (default 1e-15).
    ``reduction``: ``"sum"`` (total log-likelihood), ``"mean"`` (per sample;
    equals ``-log_loss``) or ``"none"`` (per-sample values).

    >>> round(log_likelihood([1, 0], [0.8, 0.4]), 6)  # log .8 + log .6
    -0.733969
    """
    _check_choice("reduction", reduction, ("sum", "mean", "none"))
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps < 0.5:
        raise InputError(f"eps must be a number in [0, 0.5), got {eps!r}.")
    q = _true_class_prob(y_true, y_prob, labels, pos_label, renormalize)
    if eps > 0:
        q = np.clip(q, eps, 1.0 - eps)
    with np.errstate(divide="ignore"):
        ll = np.log(q)
    if reduction == "none":
        return ll
    return float(ll.sum() if reduction == "sum" else ll.mean())


def log_loss(y_true: Any, y_prob: Any, *, labels: Any = None, pos_label: Any = 1,
             eps: float = DEFAULT_EPS, renormalize: bool = False,
             per_sample: bool = False) -> Any:
    """Cross-entropy: ``-(1/n) sum_i log p_i(y_i)``, the negative mean
    log-likelihood (see :func:`log_likelihood` for the Bernoulli/categorical
    forms and the clipping ``eps``).  Matches scikit-learn's ``log_loss``
    whenever no probability needs clipping (scikit-learn clips at the dtype's
    machine epsilon instead).

    >>> round(log_loss([1, 0], [0.8, 0.4]), 6)
    0.366985
    """
    ll = log_likelihood(y_true, y_prob, reduction="none", labels=labels,
                        pos_label=pos_label, eps=eps, renormalize=renormalize)
    return -ll if per_sample else float(-ll.mean())


