"""Object detection metrics (Everingham et al. 2010, PASCAL VOC): IoU, greedy matching,
AP and mAP, COCO evaluation (:func:`coco_evaluate`; one number of it: :func:`coco_ap`,
:func:`coco_ar`).

>>> from ranklens.detection import iou
>>> iou([[0, 0, 2, 2]], [[1, 1, 3, 3]]).round(4).tolist()
[[0.1429]]
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.detection.ap import average_precision, interpolated_ap, mean_average_precision
    from ranklens.detection.boxes import box_convert, iou
    from ranklens.detection.coco import CocoResult, coco_ap, coco_ar, coco_evaluate
    from ranklens.detection.matching import match_detections

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.detection.ap": (
            "average_precision",
            "interpolated_ap",
            "mean_average_precision",
        ),
        "ranklens.detection.boxes": (
            "box_convert",
            "iou",
        ),
        "ranklens.detection.coco": (
            "CocoResult",
            "coco_ap",
            "coco_ar",
            "coco_evaluate",
        ),
        "ranklens.detection.matching": ("match_detections",),
    },
)

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
