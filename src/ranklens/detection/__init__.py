"""Object detection metrics (seed 001): IoU, greedy matching, AP and mAP,
COCO evaluation (:func:`coco_evaluate`; one number of it: :func:`coco_ap`,
:func:`coco_ar`).

>>> from ranklens.detection import iou
>>> iou([[0, 0, 2, 2]], [[1, 1, 3, 3]]).round(4).tolist()
[[0.1429]]
"""

from ranklens.detection.ap import average_precision, interpolated_ap, mean_average_precision
from ranklens.detection.boxes import box_convert, iou
from ranklens.detection.coco import CocoResult, coco_ap, coco_ar, coco_evaluate
from ranklens.detection.matching import match_detections

__all__ = [
    "CocoResult",
    "average_precision",
    "box_convert",
    "coco_ap",
    "coco_ar",
    "coco_evaluate",
    "interpolated_ap",
    "iou",
    "match_detections",
    "mean_average_precision",
]
