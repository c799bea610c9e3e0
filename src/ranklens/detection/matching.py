"""Greedy matching of detections to ground truth within one image and class."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens.detection.boxes import iou

__all__ = ["match_detections"]


def match_detections(
    det_boxes: Any,
    det_scores: Any,
    gt_boxes: Any,
    *,
    iou_threshold: float = 0.5,
    gt_ignore: Any = None,
    fmt: str = "xyxy",
) -> np.ndarray:
    """Greedy PASCAL VOC matching; returns per detection 1 (TP), 0 (FP) or
    -1 (ignored), in the input order.

    Detections are visited by descending score (ties: input order).  Each
    takes the ground-truth box it overlaps most (IoU >= ``iou_threshold``);
    if that box is ``gt_ignore`` ("difficult" / crowd) the detection is
    ignored, if it was already taken the detection is a false positive
    (duplicate), otherwise a true positive.

    >>> match_detections([[0, 0, 2, 2], [0, 0, 2, 2.1]], [0.9, 0.8], [[0, 0, 2, 2]]).tolist()
    [1, 0]
    """
    scores = np.asarray(det_scores, dtype=np.float64)
    ov = iou(det_boxes, gt_boxes, fmt=fmt)
    n_det, n_gt = ov.shape
    ignore = np.zeros(n_gt, bool) if gt_ignore is None else np.asarray(gt_ignore, bool)
    out = np.zeros(n_det, dtype=np.int64)
    if n_gt == 0:
        return out
    taken = np.zeros(n_gt, bool)
    best = ov.argmax(axis=1)
    best_iou = ov[np.arange(n_det), best]
    for d in np.argsort(-scores, kind="stable"):
        if best_iou[d] < iou_threshold:
            continue
        g = best[d]
        if ignore[g]:
            out[d] = -1
        elif not taken[g]:
            taken[g] = True
            out[d] = 1
    return out
