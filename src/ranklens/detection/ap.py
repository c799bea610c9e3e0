"""Average precision of detections: VOC 2007 11-point, VOC 2010+ all-points
and COCO 101-point interpolation, and mAP over classes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.classification import _as_array, _check_choice, _same_length
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
    _check_choice("method", method, INTERPOLATIONS)
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
    t = _as_array("tp", tp, numeric=True) if len(tp) else np.zeros(0)
    s = _as_array("scores", scores, numeric=True) if len(scores) else np.zeros(0)
    _same_length(tp=t, scores=s)
    if n_gt == 0:
        return float("nan")
    order = np.argsort(-s, kind="stable")
    t = t[order]
    t = t[t >= 0]
    ctp = np.cumsum(t == 1)
    cfp = np.cumsum(t == 0)
    prec = ctp / np.maximum(ctp + cfp, np.finfo(np.float64).eps)
    return interpolated_ap(prec, ctp / n_gt, method)


def mean_average_precision(
    gt: dict[str, Any], det: dict[str, Any], *, iou_threshold: float = 0.5,
    method: str = "voc2010", fmt: str = "xyxy",
) -> dict[str, Any]:
    """Per-class AP and their mean (classes without ground truth are skipped).

    ``gt``: ``{"image", "label", "boxes"}`` arrays and optional
    ``"ignore"`` (difficult / crowd: matching it neither helps nor hurts);
    ``det``: ``{"image", "label", "boxes", "scores"}``.  Matching is greedy
    per (image, class), see :func:`match_detections`.

    Returns ``{"map": float, "ap": {label: AP}}``.
    """
    _check_choice("method", method, INTERPOLATIONS)
    if not 0 < iou_threshold <= 1:
        raise InputError(f"iou_threshold must be in (0, 1], got {iou_threshold!r}.")
    for name, d, keys in (("gt", gt, ("image", "label", "boxes")),
                          ("det", det, ("image", "label", "boxes", "scores"))):
        missing = [k for k in keys if k not in d]
        if missing:
            raise InputError(f"{name} is missing {missing}.")
    gi, gl = np.asarray(gt["image"]), np.asarray(gt["label"])
    gb = np.asarray(gt["boxes"], dtype=np.float64).reshape(-1, 4)
    gig = np.asarray(gt.get("ignore", np.zeros(len(gi), bool)), bool)
    di, dl = np.asarray(det["image"]), np.asarray(det["label"])
    db = np.asarray(det["boxes"], dtype=np.float64).reshape(-1, 4)
    ds = _as_array("det['scores']", det["scores"], numeric=True) if len(di) else np.zeros(0)
    _same_length(**{"gt['image']": gi, "gt['label']": gl, "gt['boxes']": gb,
                    "gt['ignore']": gig})
    _same_length(**{"det['image']": di, "det['label']": dl, "det['boxes']": db,
                    "det['scores']": ds})
    tp = np.zeros(len(di), dtype=np.int64)
    gkey = {k: np.flatnonzero((gi == k[0]) & (gl == k[1]))
            for k in set(zip(gi.tolist(), gl.tolist(), strict=True))}
    dkeys = set(zip(di.tolist(), dl.tolist(), strict=True))
    for k in dkeys:
        d_idx = np.flatnonzero((di == k[0]) & (dl == k[1]))
        g_idx = gkey.get(k, np.zeros(0, np.int64))
        tp[d_idx] = match_detections(db[d_idx], ds[d_idx], gb[g_idx],
                                     iou_threshold=iou_threshold, gt_ignore=gig[g_idx],
                                     fmt=fmt)
    aps: dict[Any, float] = {}
    for c in np.unique(gl[~gig]).tolist():
        sel = dl == c
        aps[c] = average_precision(tp[sel], ds[sel], int(np.sum((gl == c) & ~gig)),
                                   method=method)
    return {"map": float(np.mean(list(aps.values()))) if aps else float("nan"), "ap": aps}
