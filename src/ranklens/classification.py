"""Classification metrics: confusion matrix, precision / recall / F-beta, accuracy,
ROC-AUC, average precision, log-loss and log-likelihood.

Every function validates its input once (lengths, NaN, label types, label
sets, probability ranges) and raises :class:`ranklens.errors.InputError`
naming the argument and the fix; scikit-learn computes the numbers wherever it
does so correctly (it is imported inside the functions, so ``import ranklens``
stays light) and none of its exceptions reaches the caller.  Its warnings are
re-issued as :class:`ranklens.errors.RanklensWarning`.  The log-loss and
log-likelihood are computed here because their clipping and reduction
conventions must be explicit.

Conventions
-----------
``y_true``, ``y_pred``
    Class labels, 1-d or an ``(n, 1)`` column (flattened, as scikit-learn
    does).  As in scikit-learn, numbers with a fractional part (scores, not
    classes) and a mix of string and numeric labels are errors.
``average``
    ``"binary"`` (only ``pos_label``'s score; ``y_true`` and ``y_pred``
    together hold at most two classes, either of which may be missing from
    one of them; ``labels`` is not used), ``"micro"`` (pool TP/FP/FN over
    classes), ``"macro"`` (unweighted mean over classes), ``"weighted"``
    (mean weighted by each class' support in ``y_true``) or ``None`` (one
    value per class, in ``labels`` order).
``zero_division``
    The value of a ratio whose denominator is 0: precision when nothing is
    predicted positive, recall when no sample is truly positive, F when
    neither.  ``0.0``, ``1.0`` or ``nan`` (also ``"nan"``); the default ``"warn"`` is
    scikit-learn's: 0.0 and a :class:`~ranklens.errors.RanklensWarning` saying
    which ratio was undefined (pass a number to silence it).
``labels``
    The classes, in order.  Default: the sorted classes of ``y_true`` and
    ``y_pred`` together (scikit-learn's ``unique_labels``), so a class that is
    only predicted counts too (its recall is 0/0).  For precision / recall / F
    and the confusion matrix ``labels`` may also list only some of the
    classes present (as in scikit-learn): only those are scored.  The columns
    of ``(n, n_classes)`` probabilities / scores are in ``labels`` order, in
    any order (scikit-learn's ``log_loss`` always assumes sorted columns; the
    two agree whenever ``labels`` is sorted).
``pos_label``
    The positive class of binary scores.  A 1-d probability or score is that
    of the positive class: ``pos_label`` when given, else the greater of the
    two sorted classes (scikit-learn's convention: 1 of {0, 1}, ``"yes"`` of
    {``"no"``, ``"yes"``}).
``eps``
    Probabilities are clipped to ``[eps, 1 - eps]`` before taking logs
    (default ``1e-15``), so a confident wrong prediction costs
    ``-log(1e-15) ~= 34.5`` rather than infinity.  ``eps=0`` disables
    clipping; ``eps="auto"`` clips at the float64 machine epsilon, as
    scikit-learn (>= 1.5) does.
``sample_weight``
    Non-negative, not all zero.

Where a value is undefined rather than a 0/0 ratio (ROC-AUC with a single
class, average precision without a positive sample) an ``InputError`` says
so; scikit-learn returns NaN or 0.0 with a warning there.

The recommender-system framing (the "Validation and Metrics" chapter on
recommender systems): an item is *predicted positive* when
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

A user who interacted with nothing and was recommended nothing has no
predicted and no true positive: precision, recall and F1 are 0/0, set to
``zero_division``::

    >>> clf.precision([0, 0, 0], [0, 0, 0], zero_division=0.0)
    0.0
"""

from __future__ import annotations

import math
import warnings
from typing import Any, cast

import numpy as np

from ranklens._shared.deprecation import renamed_keyword
from ranklens._shared.deps import needs
from ranklens._shared.scikit import call, is_undefined, reemit
from ranklens._shared.validate import (
    as_array,
    check_choice,
    check_number,
    check_weights,
    label_kinds,
    py_value,
    same_length,
)
from ranklens.errors import InputError, RanklensWarning, user_stacklevel
from ranklens.metrics.catalogue import AVERAGES, DEFAULT_EPS

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


# --------------------------------------------------------------------------- labels


def _label_array(name: str, x: Any) -> np.ndarray:
    """Class labels: 1-d (an ``(n, 1)`` column is flattened), no NaN, no
    fractional numbers, not a mix of strings and numbers."""
    a = as_array(name, x, ndim=(1, 2))
    if a.ndim == 2:
        if a.shape[1] != 1:
            raise InputError(
                f"{name} must be 1-d or an (n, 1) column, got shape {a.shape}; multilabel "
                "and multi-output targets are not supported (score each column separately)."
            )
        a = a[:, 0]
    if a.dtype.kind == "c":
        raise InputError(f"{name} holds complex numbers; class labels must be real or text.")
    kinds = label_kinds(a)
    if len(kinds) > 1:
        raise InputError(
            f"{name} mixes string and numeric labels; convert them to one type first "
            f"(e.g. {name}=[str(v) for v in {name}])."
        )
    if kinds == {"num"} and a.dtype.kind not in "biu":
        try:
            f = a.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError(
                f"{name} must hold strings or numbers as class labels, got "
                f"values of type {type(a[0]).__name__}."
            ) from None
        if np.isinf(f).any():
            raise InputError(f"{name} contains infinite values; class labels must be finite.")
        frac = np.flatnonzero(f != np.trunc(f))
        if len(frac):
            i = int(frac[0])
            raise InputError(
                f"{name} holds numbers with a fractional part ({py_value(a[i])!r} at index "
                f"{i}), which are scores, not class labels; threshold them into classes first "
                "(e.g. y_pred = (y_score >= 0.5).astype(int)), or use ranklens.regression for "
                "continuous targets."
            )
    return a


def _same_kind(**arrays: np.ndarray) -> None:
    kinds = {k: label_kinds(v) for k, v in arrays.items()}
    if len(set().union(*kinds.values())) > 1:
        desc = ", ".join(
            f"{k} holds {'strings' if v == {'str'} else 'numbers'}" for k, v in kinds.items()
        )
        raise InputError(
            f"string and numeric labels are mixed ({desc}); convert them to one type first."
        )


def _pair(y_true: Any, y_pred: Any, pred_name: str = "y_pred") -> tuple[np.ndarray, np.ndarray]:
    t = _label_array("y_true", y_true)
    p = _label_array(pred_name, y_pred)
    same_length(y_true=t, **{pred_name: p})
    _same_kind(y_true=t, **{pred_name: p})
    return t, p


def _labels(
    y_true: np.ndarray,
    y_pred: np.ndarray | None,
    labels: Any,
    pred_name: str = "y_pred",
    *,
    subset: bool = False,
) -> np.ndarray:
    """The class list: given, else the sorted classes of y_true (y_pred must be a
    subset).  ``subset=True``: given labels may leave out classes present."""
    if labels is not None:
        lab = _label_array("labels", labels)
        if len(np.unique(lab)) != len(lab):
            raise InputError("labels contains duplicates; list every class once.")
        _same_kind(y_true=y_true, labels=lab)
        if subset:
            return lab
        for name, arr in (("y_true", y_true), (pred_name, y_pred)):
            if arr is None:
                continue
            extra = np.setdiff1d(np.unique(arr), lab)
            if len(extra):
                raise InputError(
                    f"{name} contains labels not listed in labels: {extra[:10].tolist()}; "
                    "add them to labels=."
                )
        return lab
    if y_pred is None:
        return np.unique(y_true)
    # the classes of y_true and y_pred together, as scikit-learn's unique_labels
    _same_kind(y_true=y_true, **{pred_name: y_pred})
    return np.unique(np.concatenate([np.unique(y_true), np.unique(y_pred)]))


def _binary_classes(t: np.ndarray, p: np.ndarray, pos_label: Any) -> np.ndarray:
    """The (at most two) classes of a binary problem, from y_true and y_pred together."""
    present = np.unique(np.concatenate([np.unique(t), np.unique(p)]))
    if len(present) > 2:
        raise InputError(
            f"average='binary' needs at most two classes, found {len(present)} "
            f"({present[:10].tolist()}) in y_true and y_pred; use average='micro', "
            "'macro', 'weighted' or None."
        )
    if len(present) == 2 and pos_label not in present.tolist():
        raise InputError(
            f"pos_label={pos_label!r} is not one of the classes {present.tolist()}; "
            "pass pos_label= naming the positive class."
        )
    return present


def _check_zero_division(zero_division: Any) -> float | str:
    if isinstance(zero_division, str) and zero_division in ("warn", "nan"):
        # "nan": the catalogue's spelling of NaN (a metric name has no float NaN)
        return "warn" if zero_division == "warn" else math.nan
    if (
        isinstance(zero_division, (int, float, np.integer, np.floating))
        and not isinstance(zero_division, (bool, np.bool_))
        and (zero_division in (0, 1) or math.isnan(zero_division))
    ):
        return float(zero_division)
    raise InputError(
        f"zero_division must be 0.0, 1.0, nan or 'warn' (0.0 with a warning), got "
        f"{zero_division!r}."
    )


# --------------------------------------------------------------------------- counts


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: str | None = None,
) -> np.ndarray:
    """Confusion matrix ``C[i, j]`` = number of samples of true class ``labels[i]``
    predicted as ``labels[j]`` (scikit-learn's layout; binary with labels [0, 1]
    gives ``[[TN, FP], [FN, TP]]``).

    ``labels`` may reorder the classes or select some of them (samples whose
    true or predicted class is not listed are left out, as in scikit-learn);
    at least one of them must occur in ``y_true``.  Without ``labels``, a
    single class present gives a 1 x 1 matrix and a RanklensWarning (pass
    ``labels=[0, 1]`` for the binary layout).  ``normalize``: None (counts),
    ``"true"`` (rows sum to 1), ``"pred"`` (columns) or ``"all"``.

    >>> confusion_matrix([0, 1, 1, 0], [0, 1, 0, 0]).tolist()
    [[2, 0], [1, 1]]
    """
    with needs("ml", "ranklens.classification.confusion_matrix"):
        from sklearn.metrics import confusion_matrix as sk

    t, p = _pair(y_true, y_pred)
    if labels is None:
        lab = _labels(t, p, None)
        if len(lab) == 1:
            warnings.warn(
                f"a single class ({py_value(lab[0])!r}) occurs in y_true and y_pred, so the matrix "
                "is 1 x 1; pass labels= listing every class (e.g. labels=[0, 1]) for the full "
                "layout.",
                RanklensWarning,
                stacklevel=user_stacklevel(),
            )
    else:
        lab = _labels(t, p, labels, subset=True)
        if not np.isin(lab, t).any():
            raise InputError(
                f"none of labels {lab[:10].tolist()} occurs in y_true; list at least one "
                "class of y_true in labels=."
            )
    if normalize is not None:
        check_choice("normalize", normalize, ("true", "pred", "all"))
    w = check_weights(sample_weight, len(t))
    res, caught = call(
        "confusion_matrix", sk, t, p, labels=lab, sample_weight=w, normalize=normalize
    )
    reemit([c for c in caught if "single label" not in str(c.message)])  # warned above
    return cast(np.ndarray, res)


def confusion_counts(y_true: Any, y_pred: Any, *, pos_label: Any = 1) -> dict[str, int]:
    """TP, FP, FN, TN of a binary problem with positive class ``pos_label``.

    ``y_true`` and ``y_pred`` together hold at most two classes; either may
    hold a single one (a user who interacted with nothing: y_true all 0).
    The counts are scikit-learn's ``confusion_matrix(y_true, y_pred,
    labels=[negative, pos_label]).ravel()`` = (tn, fp, fn, tp); when
    ``pos_label`` does not occur at all, every sample is negative.

    >>> confusion_counts([1, 0, 1, 1], [1, 1, 0, 1])
    {'tp': 2, 'fp': 1, 'fn': 1, 'tn': 0}
    >>> confusion_counts([0, 0, 0], [0, 1, 0])
    {'tp': 0, 'fp': 1, 'fn': 0, 'tn': 2}
    """
    t, p = _pair(y_true, y_pred)
    _binary_classes(t, p, pos_label)
    tpos, ppos = t == pos_label, p == pos_label
    return {
        "tp": int(np.sum(tpos & ppos)),
        "fp": int(np.sum(~tpos & ppos)),
        "fn": int(np.sum(tpos & ~ppos)),
        "tn": int(np.sum(~tpos & ~ppos)),
    }


# --------------------------------------------------------------------------- P / R / F


def precision_recall_fscore(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    average: str | None = "binary",
    pos_label: Any = 1,
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: float | str = "warn",
) -> dict[str, Any]:
    """Precision TP/(TP+FP), recall TP/(TP+FN), F-beta
    (1+b^2) TP / ((1+b^2) TP + b^2 FN + FP) = (1+b^2) P R / (b^2 P + R) and
    support, under one averaging convention (scikit-learn's
    ``precision_recall_fscore_support``; see the module conventions for
    ``average``, ``labels`` and ``zero_division``).

    Returns ``{"precision", "recall", "fbeta", "support"}``: floats for an
    averaged result (support is then the number of samples), arrays in
    ``labels`` order for ``average=None``.  F is ``zero_division`` only when
    TP + FP + FN = 0; when precision and recall are both 0 it is 0.

    >>> r = precision_recall_fscore([0, 1, 2, 2], [0, 2, 2, 2], average="macro",
    ...                              zero_division=0.0)
    >>> round(r["precision"], 4), round(r["recall"], 4)
    (0.5556, 0.6667)
    """
    return _prf(
        y_true,
        y_pred,
        beta,
        average,
        pos_label,
        labels,
        sample_weight,
        zero_division,
        ("precision", "recall", "f-score"),
    )


def _prf(
    y_true: Any,
    y_pred: Any,
    beta: float,
    average: str | None,
    pos_label: Any,
    labels: Any,
    sample_weight: Any,
    zero_division: float | str,
    warn_for: tuple[str, ...],
) -> dict[str, Any]:
    with needs("ml", "precision, recall and F-scores"):
        from sklearn.metrics import precision_recall_fscore_support

    t, p = _pair(y_true, y_pred)
    if average is not None:
        check_choice("average", average, AVERAGES)
    check_number("beta", beta, low=0, low_open=False, hint="beta=0 gives precision")
    zd = _check_zero_division(zero_division)
    w = check_weights(sample_weight, len(t))
    if average == "binary":
        _binary_classes(t, p, pos_label)
        lab = None
    else:
        lab = _labels(t, p, labels, subset=True)
    (prec, rec, f, sup), caught = call(
        "precision_recall_fscore",
        precision_recall_fscore_support,
        t,
        p,
        beta=beta,
        average=average,
        pos_label=pos_label,
        labels=lab,
        sample_weight=w,
        zero_division=zd,
        warn_for=warn_for,
    )
    reemit(caught)
    if average is None:
        return {"precision": prec, "recall": rec, "fbeta": f, "support": sup}
    return {"precision": float(prec), "recall": float(rec), "fbeta": float(f), "support": len(t)}


def precision(
    y_true: Any,
    y_pred: Any,
    *,
    average: str | None = "binary",
    pos_label: Any = 1,
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: float | str = "warn",
) -> Any:
    """Precision ``P = TP / (TP + FP)``, the share of predicted positives that are
    truly positive (scikit-learn's ``precision_score``).

    Conventions (see :func:`precision_recall_fscore` and the module notes):
    ``average`` combines classes (``binary``: ``pos_label`` alone; ``micro``: pooled
    counts; ``macro``: unweighted mean; ``weighted``: mean by support; None: per
    class); with nothing predicted positive, ``TP + FP = 0``, the value is
    ``zero_division`` (default ``"warn"``: 0.0 with a warning).

    >>> precision([1, 1, 0, 0], [1, 0, 1, 1])  # 1 of the 3 predicted positives
    0.3333333333333333
    >>> precision([1, 0], [0, 0], zero_division=1.0)  # nothing predicted positive
    1.0
    """
    return _prf(
        y_true,
        y_pred,
        1.0,
        average,
        pos_label,
        labels,
        sample_weight,
        zero_division,
        ("precision",),
    )["precision"]


def recall(
    y_true: Any,
    y_pred: Any,
    *,
    average: str | None = "binary",
    pos_label: Any = 1,
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: float | str = "warn",
) -> Any:
    """Recall ``R = TP / (TP + FN)``, the share of true positives that are predicted
    positive (scikit-learn's ``recall_score``).

    Conventions as for :func:`precision` (see :func:`precision_recall_fscore`); with
    no true positive sample, ``TP + FN = 0``, the value is ``zero_division``.

    >>> recall([1, 1, 0, 0], [1, 0, 1, 1])  # 1 of the 2 true positives
    0.5

    Per class, in ``labels`` order, with ``average=None``:

    >>> recall(["a", "b", "b"], ["a", "a", "b"], average=None).tolist()
    [1.0, 0.5]
    """
    return _prf(
        y_true, y_pred, 1.0, average, pos_label, labels, sample_weight, zero_division, ("recall",)
    )["recall"]


def fbeta(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    average: str | None = "binary",
    pos_label: Any = 1,
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: float | str = "warn",
) -> Any:
    """F-beta ``F = (1 + b^2) P R / (b^2 P + R) = (1 + b^2) TP / ((1 + b^2) TP +
    b^2 FN + FP)``: recall weighs ``b`` times as much as precision (van Rijsbergen,
    "Information Retrieval", 1979; scikit-learn's ``fbeta_score``).  ``beta`` >= 0,
    default 1: F1; 0 gives precision, as scikit-learn.  Conventions as for
    :func:`f1` (see :func:`precision_recall_fscore`): ``zero_division`` only when
    ``TP + FP + FN = 0``.

    >>> round(fbeta([1, 1, 0, 0], [1, 0, 1, 1], beta=2.0), 4)  # P = 1/3, R = 1/2
    0.4545
    """
    return _prf(
        y_true, y_pred, beta, average, pos_label, labels, sample_weight, zero_division, ("f-score",)
    )["fbeta"]


def f1(
    y_true: Any,
    y_pred: Any,
    *,
    average: str | None = "binary",
    pos_label: Any = 1,
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: float | str = "warn",
) -> Any:
    """F1, the harmonic mean of precision and recall:
    ``F1 = 2 P R / (P + R) = 2 TP / (2 TP + FP + FN)`` (van Rijsbergen 1979;
    scikit-learn's ``f1_score``).

    Conventions as for :func:`precision` (see :func:`precision_recall_fscore`): F1
    is ``zero_division`` only when ``TP + FP + FN = 0``; when precision and recall
    are both 0 it is 0.

    >>> f1([1, 1, 0, 0], [1, 0, 1, 1])  # TP 1, FP 2, FN 1: 2 / (2 + 2 + 1)
    0.4
    >>> f1(["a", "b", "b"], ["a", "a", "b"], average="macro")  # a: 2/3, b: 2/3
    0.6666666666666666
    """
    return _prf(
        y_true, y_pred, 1.0, average, pos_label, labels, sample_weight, zero_division, ("f-score",)
    )["fbeta"]


def accuracy(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    reduction: str = "mean",
    normalize: bool = True,
    per_sample: bool | None = None,
) -> Any:
    """Fraction of samples predicted correctly,
    ``accuracy = (1/n) sum_i [y_i = yhat_i]`` (weighted mean
    ``sum_i w_i [y_i = yhat_i] / sum_i w_i`` if weights are given; scikit-learn's
    ``accuracy_score``).  Every class counts alike, so it is never 0/0.

    ``normalize=False`` returns the (weighted) number of correct samples
    instead, ``reduction="none"`` the 0/1 correctness of each sample
    (unweighted).  ``per_sample=True`` is the deprecated spelling of
    ``reduction="none"``.

    >>> accuracy([0, 1, 2, 2], [0, 2, 2, 2])
    0.75
    >>> accuracy([0, 1, 2, 2], [0, 2, 2, 2], reduction="none").tolist()
    [1.0, 0.0, 1.0, 1.0]
    """
    reduction = renamed_keyword(
        "accuracy",
        "per_sample",
        per_sample,
        "reduction",
        reduction,
        convert=lambda v: "none" if v else "mean",
    )
    check_choice("reduction", reduction, ("mean", "none"))
    t, p = _pair(y_true, y_pred)
    correct = (t == p).astype(np.float64)
    if reduction == "none":
        return correct
    w = check_weights(sample_weight, len(t))
    if not normalize:
        return float(correct.sum() if w is None else (correct * w).sum())
    return float(np.average(correct, weights=w))


# --------------------------------------------------------------------------- scores


def _scores(y_true: Any, y_score: Any, name: str = "y_score") -> tuple[np.ndarray, np.ndarray]:
    t = _label_array("y_true", y_true)
    s = as_array(name, y_score, ndim=(1, 2), numeric=True).astype(np.float64)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s[:, 0]  # one column: the positive class' score, as scikit-learn reads it
    same_length(y_true=t, **{name: s})
    return t, s


def _need_two_classes(t: np.ndarray, what: str) -> np.ndarray:
    lab = np.unique(t)
    if len(lab) < 2:
        raise InputError(
            f"{what} needs samples of at least two classes in y_true, found only "
            f"{lab.tolist()}; it is undefined for a single class."
        )
    return lab


def _class_weights_positive(
    t: np.ndarray, classes: np.ndarray, w: np.ndarray | None, what: str
) -> None:
    for c in classes.tolist():
        mask = t == c
        if not mask.any():
            raise InputError(
                f"class {c!r} listed in labels has no sample in y_true, so its one-vs-rest "
                f"{what} is undefined; drop it from labels= (and its column from y_score), "
                "or use multi_class='ovo'."
            )
        if w is not None and not (w[mask] > 0).any():
            raise InputError(
                f"every sample of class {c!r} has sample_weight 0, so {what} is undefined; "
                "give some of them a positive weight."
            )


def _raise_undefined(what: str, caught: list[warnings.WarningMessage], res: Any) -> None:
    undefined = [str(w.message) for w in caught if is_undefined(w)]
    if undefined or np.isnan(np.asarray(res, dtype=np.float64)).any():
        why = undefined[0] if undefined else "a per-class value is NaN"
        raise InputError(f"{what} is undefined for this input: {why}")


def roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    average: str | None = "macro",
    multi_class: str = "ovr",
    labels: Any = None,
    pos_label: Any = None,
    sample_weight: Any = None,
    max_fpr: float | None = None,
) -> Any:
    """Area under the ROC curve (trapezoidal; tied scores count half), as
    scikit-learn's ``roc_auc_score``.

    Binary: ``y_score`` is 1-d (or an ``(n, 1)`` column), the score of the
    positive class (``pos_label``, default the greater of the two classes);
    ``max_fpr`` gives the McClish-standardised partial AUC over FPR in
    [0, max_fpr].  Two-column scores of a binary ``y_true`` are an error (pass
    the positive class' column).  Multi-class: ``y_score`` is
    ``(n, n_classes)`` probabilities in ``labels`` order (any order; default
    the sorted classes; rows must sum to 1), ``multi_class="ovr"``
    (one-vs-rest; ``average`` macro, weighted, micro or None for per-class
    values in ``labels`` order) or ``"ovo"`` (Hand & Till one-vs-one; macro or
    weighted).

    Undefined (InputError, where scikit-learn returns NaN): a single class in
    ``y_true``, a class whose samples all have weight 0, and for ``ovr`` a
    class listed in ``labels`` without samples.

    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    with needs("ml", "ranklens.classification.roc_auc"):
        from sklearn.metrics import roc_auc_score

    t, s = _scores(y_true, y_score)
    lab = _need_two_classes(t, "roc_auc")
    w = check_weights(sample_weight, len(t))
    if average is not None:
        check_choice("average", average, ("macro", "weighted", "micro"))
    if s.ndim == 2 and s.shape[1] == 2 and len(lab) == 2:
        raise InputError(
            "y_true is binary but y_score has 2 columns; pass the positive class' scores "
            f"as a 1-d y_score (y_score[:, 1] for class {py_value(lab[1])!r} when the columns are "
            "in sorted class order)."
        )
    if s.ndim == 1:
        if len(lab) > 2:
            raise InputError(
                f"y_true has {len(lab)} classes but y_score is 1-d; pass (n, n_classes) "
                "probabilities for a multi-class ROC-AUC."
            )
        if max_fpr is not None:
            check_number("max_fpr", max_fpr, low=0, high=1, high_open=False)
        if pos_label is not None:
            if pos_label not in lab.tolist():
                raise InputError(
                    f"pos_label={pos_label!r} is not one of {lab.tolist()}; "
                    "pass pos_label= naming the positive class."
                )
            t = (t == pos_label).astype(int)
            lab = np.array([0, 1])
        _class_weights_positive(t, lab, w, "roc_auc")
        res, caught = call("roc_auc", roc_auc_score, t, s, sample_weight=w, max_fpr=max_fpr)
        _raise_undefined("roc_auc", caught, res)
        reemit(caught)
        return float(res)
    if max_fpr is not None:
        raise InputError(
            "max_fpr (partial AUC) is defined for a binary y_true with 1-d "
            "scores only; leave max_fpr=None for multi-class."
        )
    check_choice("multi_class", multi_class, ("ovr", "ovo"))
    lab = _labels(t, None, labels)
    _check_prob_rows("y_score", s, len(lab))
    if multi_class == "ovo" and average not in ("macro", "weighted"):
        raise InputError(
            f"average={average!r} is not defined for multi_class='ovo'; use "
            "average='macro' or 'weighted', or multi_class='ovr' for per-class "
            "(average=None) or micro-averaged values."
        )
    if multi_class == "ovo" and w is not None:
        raise InputError(
            "sample_weight is not defined for the one-vs-one (Hand & Till) "
            "ROC-AUC; use multi_class='ovr' or leave sample_weight=None."
        )
    order = np.argsort(lab, kind="stable")  # scikit-learn needs sorted labels
    if multi_class == "ovr":
        _class_weights_positive(t, lab, w, "roc_auc")
    res, caught = call(
        "roc_auc",
        roc_auc_score,
        t,
        s[:, order],
        average=average,
        multi_class=multi_class,
        labels=lab[order],
        sample_weight=w,
    )
    _raise_undefined("roc_auc", caught, res)
    reemit(caught)
    if average is None:
        out = np.empty(len(lab))
        out[order] = res
        return out
    return float(res)


def average_precision(
    y_true: Any, y_score: Any, *, pos_label: Any = 1, sample_weight: Any = None
) -> float:
    """Average precision of a binary score: sum_n (R_n - R_{n-1}) P_n over
    thresholds (no interpolation; tied scores form one threshold), as
    scikit-learn's ``average_precision_score``.  For interpolated detection AP
    see :mod:`ranklens.detection`.

    ``y_score`` is 1-d (or an ``(n, 1)`` column), the score of ``pos_label``.
    When ``y_true`` holds no sample of ``pos_label`` (one class only) it is 0.0
    with a :class:`~ranklens.errors.RanklensWarning`, as scikit-learn (which
    sets recall to one at every threshold); when samples of ``pos_label``
    exist but all have weight 0 it is undefined (InputError).

    A worked example (M. S. Ibrahim, "Machine Learning: Evaluation Metrics",
    course notes, 2023): by descending score the positives are at ranks 1, 3, 4
    and 8, so AP = ``(1 + 2/3 + 3/4 + 4/8) / 4``:

    >>> y = [1, 0, 0, 1, 0, 0, 1, 1]
    >>> s = [0.8, 0.6, 0.3, 0.2, 0.9, 0.75, 0.81, 0.92]
    >>> round(average_precision(y, s), 4)
    0.7292
    """
    with needs("ml", "ranklens.classification.average_precision"):
        from sklearn.metrics import average_precision_score

    t, s = _scores(y_true, y_score)
    if s.ndim != 1:
        raise InputError("y_score must be 1-d (the positive class' score).")
    lab = np.unique(t)
    if len(lab) > 2:
        raise InputError(f"average_precision is binary; y_true has classes {lab.tolist()}.")
    if pos_label not in lab.tolist():
        if len(lab) == 2:
            raise InputError(
                f"pos_label={pos_label!r} is not one of the classes "
                f"{lab.tolist()}; pass pos_label= naming the positive class."
            )
        warnings.warn(
            f"No positive class found in y_true (pos_label={pos_label!r}), recall is set to "
            "one for all thresholds and average precision is 0.0, as scikit-learn does.",
            RanklensWarning,
            stacklevel=user_stacklevel(),
        )
        return 0.0
    w = check_weights(sample_weight, len(t))
    if w is not None and not (w[t == pos_label] > 0).any():
        raise InputError(
            f"every sample of the positive class pos_label={pos_label!r} has sample_weight "
            "0; average precision is undefined without positives."
        )
    res, caught = call(
        "average_precision", average_precision_score, t == pos_label, s, sample_weight=w
    )
    _raise_undefined("average_precision", caught, res)
    reemit(caught)
    return float(res)


# --------------------------------------------------------------------------- likelihood


def _check_prob_rows(
    name: str, prob: np.ndarray, n_classes: int, *, atol: float = 1e-6, renormalize: bool = False
) -> np.ndarray:
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
            f"rows of {name} must sum to 1; row {int(bad[0])} sums to {float(sums[bad[0]])!r} "
            f"({len(bad)} rows off by more than {atol}); pass renormalize=True to "
            "divide each row by its sum."
        )
    return prob


def _check_unit_interval(name: str, prob: np.ndarray) -> None:
    if (prob < 0).any() or (prob > 1).any():
        flat = prob.ravel()
        bad = int(np.flatnonzero((flat < 0) | (flat > 1))[0])
        raise InputError(
            f"{name} must hold probabilities in [0, 1]; found {float(flat[bad])!r} at flat "
            f"index {bad}.  Apply a sigmoid/softmax to scores first."
        )


def _bernoulli_positive(t: np.ndarray, labels: Any, pos_label: Any) -> Any:
    """The class whose probability a 1-d y_prob is."""
    if labels is not None:
        lab = _labels(t, None, labels)
        if len(lab) != 2:
            raise InputError(
                f"a 1-d y_prob is the probability of the positive class of two, but labels "
                f"lists {len(lab)} classes ({lab[:10].tolist()}); pass labels= with two "
                "classes, or (n, n_classes) probabilities for a categorical model."
            )
        classes = np.sort(lab)
    else:
        classes = np.unique(t)
        if len(classes) > 2:
            raise InputError(
                f"1-d y_prob is a Bernoulli model P(y = positive class), so y_true must hold "
                f"at most two outcomes; found classes {classes[:10].tolist()}.  Pass "
                "(n, n_classes) probabilities for a categorical model."
            )
    if pos_label is not None:
        if len(classes) == 2 and pos_label not in classes.tolist():
            raise InputError(
                f"pos_label={pos_label!r} is not one of the classes "
                f"{classes.tolist()}; pass pos_label= naming the positive class."
            )
        return pos_label
    if len(classes) == 2:
        return classes[1]
    only = classes[0]
    if classes.dtype.kind in "biuf" and only in (0, 1):
        return 1  # outcomes coded 0/1: the probability is P(y = 1)
    raise InputError(
        f"y_true holds the single class {py_value(only)!r}, so the class a 1-d y_prob is the "
        "probability of is unknown; pass labels=[negative, positive] (the greater is the "
        "positive class) or pos_label=."
    )


def _true_class_prob(
    y_true: Any, y_prob: Any, labels: Any, pos_label: Any, renormalize: bool
) -> np.ndarray:
    """Probability each sample's model assigned to its observed outcome."""
    t, p = _scores(y_true, y_prob, "y_prob")
    if p.ndim == 1:  # Bernoulli: p = P(y = positive class)
        _check_unit_interval("y_prob", p)
        pos = _bernoulli_positive(t, labels, pos_label)
        return np.where(t == pos, p, 1.0 - p)
    lab = _labels(t, None, labels)
    p = _check_prob_rows("y_prob", p, len(lab), renormalize=renormalize)
    col = np.searchsorted(lab, t) if labels is None else _index_of(lab, t)
    return p[np.arange(len(t)), col]


def _index_of(lab: np.ndarray, t: np.ndarray) -> np.ndarray:
    order = np.argsort(lab, kind="stable")
    return order[np.searchsorted(lab[order], t)]


def _check_eps(eps: Any) -> float:
    if isinstance(eps, str) and eps == "auto":
        return float(np.finfo(np.float64).eps)
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps <= 0.5:
        raise InputError(f"eps must be a number in [0, 0.5] or 'auto', got {eps!r}.")
    return float(eps)


def log_likelihood(
    y_true: Any,
    y_prob: Any,
    *,
    reduction: str = "sum",
    labels: Any = None,
    pos_label: Any = None,
    eps: float | str = DEFAULT_EPS,
    renormalize: bool = False,
    sample_weight: Any = None,
) -> Any:
    """Log-likelihood of the observed outcomes under predicted probabilities.

    ``sum_i w_i log p_i(y_i)``, where ``p_i(y_i)`` is the probability the model
    gave to sample ``i``'s observed outcome (``w_i`` = 1 without
    ``sample_weight``):

    * Bernoulli: ``y_prob`` is 1-d (or an ``(n, 1)`` column), the probability
      of the positive class: ``pos_label`` when given, else the greater of the
      two classes of ``labels`` or ``y_true`` (scikit-learn's convention; 1 for
      0/1 outcomes, also when ``y_true`` holds only one of them).  An outcome
      equal to it contributes ``log p``, the other ``log(1 - p)``.  Used for
      implicit-feedback latent factor models (the "Evaluation Frameworks" notes).
    * categorical: ``y_prob`` is ``(n, n_classes)``, columns in ``labels``
      order (default: sorted classes of ``y_true``); rows must sum to 1 (or
      ``renormalize=True``).

    Probabilities are clipped to ``[eps, 1 - eps]`` first (default 1e-15;
    ``"auto"``: float64 machine epsilon, as scikit-learn).  ``reduction``:
    ``"sum"`` (total log-likelihood), ``"mean"`` (weighted mean per sample;
    equals ``-log_loss``) or ``"none"`` (per-sample values, unweighted: no
    ``sample_weight`` then).

    >>> round(log_likelihood([1, 0], [0.8, 0.4]), 6)  # log .8 + log .6
    -0.733969
    >>> round(log_likelihood(["no", "yes"], [0.2, 0.6]), 6)  # P(yes): log .8 + log .6
    -0.733969
    """
    check_choice("reduction", reduction, ("sum", "mean", "none"))
    eps_v = _check_eps(eps)
    q = _true_class_prob(y_true, y_prob, labels, pos_label, renormalize)
    w = check_weights(sample_weight, len(q))
    if w is not None and reduction == "none":
        raise InputError(
            "sample_weight weighs the 'sum' and 'mean' reductions; with "
            "reduction='none' multiply the per-sample values by it yourself."
        )
    if eps_v > 0:
        q = np.clip(q, eps_v, 1.0 - eps_v)
    with np.errstate(divide="ignore"):
        ll = np.log(q)
    if reduction == "none":
        return ll
    if w is not None:
        with np.errstate(invalid="ignore"):
            ll = np.where(w > 0, ll * w, 0.0)
        return float(ll.sum() if reduction == "sum" else ll.sum() / w.sum())
    return float(ll.sum() if reduction == "sum" else ll.mean())


def log_loss(
    y_true: Any,
    y_prob: Any,
    *,
    labels: Any = None,
    pos_label: Any = None,
    eps: float | str = DEFAULT_EPS,
    renormalize: bool = False,
    reduction: str = "mean",
    sample_weight: Any = None,
    per_sample: bool | None = None,
) -> Any:
    """Cross-entropy: ``-(sum_i w_i log p_i(y_i)) / sum_i w_i``, the negative
    (weighted) mean log-likelihood (see :func:`log_likelihood` for the
    Bernoulli/categorical forms, the positive class of a 1-d ``y_prob`` and
    the clipping ``eps``).  Equals scikit-learn's ``log_loss`` whenever no
    probability needs clipping, and always with ``eps="auto"`` (scikit-learn
    clips at the machine epsilon); scikit-learn accepts rows that do not sum
    to 1 with a warning, ranklens asks for ``renormalize=True``.
    ``reduction="none"`` returns each sample's ``-log p_i(y_i)`` (unweighted);
    ``per_sample=True`` is its deprecated spelling.

    >>> round(log_loss([1, 0], [0.8, 0.4]), 6)
    0.366985
    >>> round(log_loss(["no", "yes", "yes"], [0.2, 0.9, 0.7]), 4)  # P(y = "yes")
    0.2284
    """
    reduction = renamed_keyword(
        "log_loss",
        "per_sample",
        per_sample,
        "reduction",
        reduction,
        convert=lambda v: "none" if v else "mean",
    )
    check_choice("reduction", reduction, ("mean", "none"))
    if reduction == "none" and sample_weight is not None:
        raise InputError(
            "reduction='none' returns unweighted per-sample losses; leave "
            "sample_weight=None (multiply by it yourself)."
        )
    return -log_likelihood(
        y_true,
        y_prob,
        reduction=reduction,
        labels=labels,
        pos_label=pos_label,
        eps=eps,
        renormalize=renormalize,
        sample_weight=sample_weight,
    )
