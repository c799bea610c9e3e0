"""Box formats and vectorised intersection over union."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens._shared.validate import as_array, check_choice
from ranklens.errors import InputError

__all__ = ["FORMATS", "box_convert", "iou"]

FORMATS = ("xyxy", "xywh", "cxcywh")


def _boxes(name: str, boxes: Any) -> np.ndarray:
    a = np.asarray(boxes, dtype=np.float64) if not isinstance(boxes, np.ndarray) else boxes
    if a.ndim == 2 and a.shape[0] == 0:
        return np.zeros((0, 4))
    a = as_array(name, a, ndim=(2,), numeric=True).astype(np.float64)
    if a.shape[1] != 4:
        raise InputError(f"{name} must have shape (n, 4), got {a.shape}.")
    return a


def box_convert(boxes: Any, fmt: str, *, name: str = "boxes") -> np.ndarray:
    """Boxes in format ``fmt`` as ``(n, 4)`` float64 ``xyxy`` (x1, y1, x2, y2).

    ``xywh``: top-left corner, width, height (COCO); ``cxcywh``: centre,
    width, height (YOLO / DETR).
    """
    check_choice("fmt", fmt, FORMATS)
    a = _boxes(name, boxes)
    if fmt == "xyxy":
        return a
    if fmt == "xywh":
        return np.concatenate([a[:, :2], a[:, :2] + a[:, 2:]], axis=1)
    half = a[:, 2:] / 2
    return np.concatenate([a[:, :2] - half, a[:, :2] + half], axis=1)


def _check_degenerate(name: str, a: np.ndarray, degenerate: str) -> np.ndarray:
    bad = (a[:, 2] < a[:, 0]) | (a[:, 3] < a[:, 1])
    if bad.any():
        if degenerate == "error":
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{name} has inverted corners (x2 < x1 or y2 < y1) at row {i}: "
                f"{a[i].tolist()}; check the box format (fmt=) or pass degenerate='zero' "
                "to give such boxes IoU 0."
            )
        a = a.copy()
        a[bad] = np.nan  # IoU 0 below
    return a


def iou(boxes1: Any, boxes2: Any, *, fmt: str = "xyxy", degenerate: str = "error") -> np.ndarray:
    """Pairwise IoU = area(A & B) / area(A | B), an ``(n, m)`` array: the Jaccard
    index of two boxes (Jaccard 1912), the overlap criterion of PASCAL VOC
    (Everingham et al., IJCV 88, 2010) and COCO (pycocotools' ``maskUtils.iou``
    for boxes, without crowd regions).

    Degenerate boxes: a box of zero area (x1 == x2 or y1 == y2) is valid and
    has IoU 0 with everything (also with an identical zero-area box: 0/0 is
    0).  Inverted corners (x2 < x1 or y2 < y1) are an error by default;
    ``degenerate="zero"`` gives such boxes IoU 0 instead.  Coordinates are
    continuous (no +1 pixel convention, as COCO).

    >>> iou([[0, 0, 2, 2]], [[0, 0, 2, 2], [2, 2, 3, 3]], fmt="xyxy").tolist()
    [[1.0, 0.0]]
    >>> iou([[0, 0, 2, 2]], [[1, 0, 2, 2]], fmt="xywh").tolist()  # 2x2 and 2x2, overlap 1x2
    [[0.3333333333333333]]
    """
    check_choice("degenerate", degenerate, ("error", "zero"))
    a = _check_degenerate("boxes1", box_convert(boxes1, fmt, name="boxes1"), degenerate)
    b = _check_degenerate("boxes2", box_convert(boxes2, fmt, name="boxes2"), degenerate)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    w = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    h = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.clip(w, 0, None) * np.clip(h, 0, None)
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(union > 0, inter / union, 0.0)
    return np.nan_to_num(out, nan=0.0)
