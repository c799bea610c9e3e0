"""Average precision of detections: VOC 2007 11-point, VOC 2010+ all-points
and COCO 101-point interpolation, and mAP over classes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ranklens._shared.validate import as_array, check_choice, check_number, same_length
from ranklens.detection.matching import match_detections
from ranklens.errors import InputError
from ranklens.metrics.catalogue import INTERPOLATIONS

__all__ = ["INTERPOLATIONS", "average_precision", "interpolated_ap", "mean_average_precision"]


def interpolated_ap(precision: np.ndarray, recall: np.ndarray, method: str) -> float:
    """AP from a precision/recall curve (recall non-decreasing).

    * ``voc2007``: mean over recall levels r in {0, 0.1, ..., 1} of the
      largest precision at recall >= r (0 when none).
    * ``voc2010``: area under the interpolated (monotone non-increasing
      envelope) curve, sum over recall steps of delta-recall x precision.
    * ``coco``: mean over 101 recall levels {0, 0.01, ..., 1} of the envelope
      precision at the first point with recall >= r (0 when none).
    """
    check_choice("method", method, INTERPOLATIONS)
    p = np.asarray(precision, dtype=np.float64)
    r = np.asarray(recall, dtype=np.float64)
    if len(p) == 0:
        return 0.0
    env = np.maximum.accumulate(p[::-1])[::-1]
    if method == "voc2010":
        rr = np.concatenate([[0.0], r])
        return float(np.sum((rr[1:] - rr[:-1]) * env))
    levels = np.linspace(0, 1, 11 if method == "voc2007" else 101)
    idx = np.searchsorted(r, levels, side="left")
    env0 = np.concatenate([env, [0.0]])
    return float(env0[idx].mean())


def average_precision(tp: Any, scores: Any, n_gt: int, *, method: str = "voc2010") -> float:
    """AP of one class from per-detection TP flags (1 TP, 0 FP, -1 ignored),
    scores and the number of non-ignored ground-truth boxes.  Detections are
    ranked by descending score (ties: input order).  No ground truth: NaN
    (the class is left out of mAP)."""
    t = as_array("tp", tp, numeric=True) if len(tp) else np.zeros(0)
    s = as_array("scores", scores, numeric=True) if len(scores) else np.zeros(0)
    same_length(tp=t, scores=s)
    if n_gt == 0:
        return float("nan")
    order = np.argsort(-s, kind="stable")
    t = t[order]
    t = t[t >= 0]
    ctp = np.cumsum(t == 1)
    cfp = np.cumsum(t == 0)
    prec = ctp / np.maximum(ctp + cfp, np.finfo(np.float64).eps)
    return interpolated_ap(prec, ctp / n_gt, method)


def _ids(name: str, x: Any) -> np.ndarray:
    """Image or class ids: 1-d, free of NaN / None (may be empty)."""
    a = np.asarray(x)
    if a.size == 0:
        return a.reshape(0)
    return as_array(name, a)


def _box_array(name: str, x: Any) -> np.ndarray:
    """(n, 4) finite box coordinates (may be empty)."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be n boxes of 4 numbers.") from None
    if a.size == 0:
        return np.zeros((0, 4))
    if a.ndim == 1 and a.size % 4 == 0:
        a = a.reshape(-1, 4)  # a flat list of corners, as before
    a = as_array(name, a, ndim=(2,), numeric=True)
    if a.shape[1] != 4:
        raise InputError(f"{name} must have shape (n, 4), got {a.shape}.")
    return a


def _flags(name: str, x: Any, n: int) -> np.ndarray:
    if x is None:
        return np.zeros(n, bool)
    a = np.asarray(x)
    if a.size == 0:
        return np.zeros(0, bool)
    return as_array(name, a, numeric=True).astype(bool)


def mean_average_precision(
    gt: dict[str, Any],
    det: dict[str, Any],
    *,
    iou_threshold: float = 0.5,
    method: str = "voc2010",
    fmt: str = "xyxy",
) -> dict[str, Any]:
    """Per-class AP and their mean, ``mAP = (1/|K|) sum_{c in K} AP_c`` over the
    classes K with ground truth that is not ignored (PASCAL VOC, Everingham et al.,
    "The PASCAL Visual Object Classes (VOC) Challenge", IJCV 88, 2010).

    ``gt``: ``{"image", "label", "boxes"}`` arrays and optional
    ``"ignore"`` (difficult / crowd: matching it neither helps nor hurts);
    ``det``: ``{"image", "label", "boxes", "scores"}``.  Matching is greedy
    per (image, class), see :func:`match_detections`: a detection is a true
    positive when its best-overlapping box has IoU >= ``iou_threshold`` and is not
    taken yet, else a false positive.  Per class, the detections ranked by
    descending score (ties: input order) give precision ``P_n = TP_n / n`` and
    recall ``R_n = TP_n / n_gt``, and AP interpolates that curve by ``method``
    (:func:`interpolated_ap`): ``voc2007`` the mean over recall 0, 0.1, ..., 1 of
    the best precision at recall >= r; ``voc2010`` (default) the area under the
    precision envelope, ``sum_n (R_n - R_(n-1)) max_(m>=n) P_m``; ``coco`` the
    101-point mean.  A class with ground truth but no detection has AP 0; a class
    with detections but no ground truth is left out.

    Returns ``{"map": float, "ap": {label: AP}}``; InputError when no class has
    ground truth that is not ignored (mAP is then undefined).

    One image: the cat's first box is found (precision 1 at recall 1/2), its
    second box is missed and a false detection follows; the dog is found:

    >>> gt = {"image": [0, 0, 0], "label": ["cat", "cat", "dog"],
    ...       "boxes": [[0, 0, 2, 2], [10, 10, 12, 12], [20, 20, 22, 22]]}
    >>> det = {"image": [0, 0, 0], "label": ["cat", "cat", "dog"],
    ...        "boxes": [[0, 0, 2, 2], [5, 5, 6, 6], [20, 20, 22, 22]],
    ...        "scores": [0.9, 0.8, 0.7]}
    >>> mean_average_precision(gt, det)  # cat: 1/2 * 1; dog: 1
    {'map': 0.75, 'ap': {'cat': 0.5, 'dog': 1.0}}
    >>> round(mean_average_precision(gt, det, method="voc2007")["ap"]["cat"], 4)  # 6/11
    0.5455
    """
    check_choice("method", method, INTERPOLATIONS)
    check_number("iou_threshold", iou_threshold, low=0, high=1, high_open=False)
    for name, d, keys in (
        ("gt", gt, ("image", "label", "boxes")),
        ("det", det, ("image", "label", "boxes", "scores")),
    ):
        if not isinstance(d, Mapping):
            raise InputError(
                f"{name} must be a dict of arrays {list(keys)}, got {type(d).__name__}."
            )
        missing = [k for k in keys if k not in d]
        if missing:
            raise InputError(f"{name} is missing {missing}.")
    gi, gl = _ids("gt['image']", gt["image"]), _ids("gt['label']", gt["label"])
    gb = _box_array("gt['boxes']", gt["boxes"])
    gig = _flags("gt['ignore']", gt.get("ignore"), len(gi))
    di, dl = _ids("det['image']", det["image"]), _ids("det['label']", det["label"])
    db = _box_array("det['boxes']", det["boxes"])
    ds = (
        as_array("det['scores']", det["scores"], numeric=True)
        if np.asarray(det["scores"]).size
        else np.zeros(0)
    )
    if ds.ndim != 1:
        raise InputError(f"det['scores'] must be 1-d, got shape {ds.shape}.")
    same_length(**{"gt['image']": gi, "gt['label']": gl, "gt['boxes']": gb, "gt['ignore']": gig})
    same_length(**{"det['image']": di, "det['label']": dl, "det['boxes']": db, "det['scores']": ds})
    tp = np.zeros(len(di), dtype=np.int64)
    gkey = {
        k: np.flatnonzero((gi == k[0]) & (gl == k[1]))
        for k in set(zip(gi.tolist(), gl.tolist(), strict=True))
    }
    dkeys = set(zip(di.tolist(), dl.tolist(), strict=True))
    for k in dkeys:
        d_idx = np.flatnonzero((di == k[0]) & (dl == k[1]))
        g_idx = gkey.get(k, np.zeros(0, np.int64))
        tp[d_idx] = match_detections(
            db[d_idx],
            ds[d_idx],
            gb[g_idx],
            iou_threshold=iou_threshold,
            gt_ignore=gig[g_idx],
            fmt=fmt,
        )
    aps: dict[Any, float] = {}
    for c in np.unique(gl[~gig]).tolist():
        sel = dl == c
        aps[c] = average_precision(tp[sel], ds[sel], int(np.sum((gl == c) & ~gig)), method=method)
    if not aps:
        raise InputError(
            "mAP is undefined: no class has ground truth that is not ignored "
            "(every class' AP would be 0/0)."
        )
    return {"map": float(np.mean(list(aps.values()))), "ap": aps}
