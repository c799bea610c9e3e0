"""Detection: IoU, greedy matching, AP interpolations and mAP (hand-computed,
brute force, bad input)."""

from __future__ import annotations

import numpy as np
import pytest

from ranklens.detection import (
    average_precision,
    box_convert,
    interpolated_ap,
    iou,
    match_detections,
    mean_average_precision,
)
from ranklens.errors import InputError
from ranklens.metrics.registry import REGISTRY


def brute_iou(a: list[float], b: list[float]) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def test_iou_hand_and_formats() -> None:
    assert iou([[0, 0, 2, 2]], [[1, 1, 3, 3]])[0, 0] == pytest.approx(1 / 7)
    xywh = [[0, 0, 2, 2]]
    assert iou(xywh, [[1, 1, 2, 2]], fmt="xywh")[0, 0] == pytest.approx(1 / 7)
    assert iou([[1, 1, 2, 2]], [[2, 2, 2, 2]], fmt="cxcywh")[0, 0] == pytest.approx(1 / 7)
    assert box_convert([[1, 1, 2, 2]], "cxcywh").tolist() == [[0, 0, 2, 2]]


def test_iou_degenerate() -> None:
    # zero-area boxes are valid and have IoU 0, even with themselves
    assert iou([[1, 1, 1, 3]], [[1, 1, 1, 3]])[0, 0] == 0.0
    with pytest.raises(InputError, match=r"boxes2 has inverted corners .* at row 1"):
        iou([[0, 0, 1, 1]], [[0, 0, 1, 1], [2, 2, 1, 1]])
    assert iou([[0, 0, 1, 1]], [[0, 0, 1, 1], [2, 2, 1, 1]], degenerate="zero").tolist() == [
        [1.0, 0.0]
    ]


@pytest.mark.reference
def test_iou_brute_force() -> None:
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 10, (30, 2))
    a = np.hstack([a, a + rng.uniform(0, 5, (30, 2))])
    b = rng.uniform(0, 10, (20, 2))
    b = np.hstack([b, b + rng.uniform(0, 5, (20, 2))])
    out = iou(a, b)
    for i in range(30):
        for j in range(20):
            assert out[i, j] == pytest.approx(brute_iou(list(a[i]), list(b[j])))


def test_greedy_matching() -> None:
    gt = [[0, 0, 10, 10], [20, 20, 30, 30]]
    det = [[0, 0, 10, 9], [0, 0, 10, 10], [21, 21, 30, 30], [50, 50, 60, 60]]
    scores = [0.6, 0.9, 0.8, 0.7]
    # highest score takes gt 0; the 0.6 duplicate is FP; far box is FP
    assert match_detections(det, scores, gt).tolist() == [0, 1, 1, 0]
    assert match_detections(det, scores, gt, gt_ignore=[False, True]).tolist() == [0, 1, -1, 0]
    assert match_detections(det, scores, gt, iou_threshold=0.95).tolist() == [0, 1, 0, 0]


def test_ap_interpolations_seed001() -> None:
    scores = [0.8, 0.6, 0.3, 0.2, 0.9, 0.75, 0.81, 0.92]
    tp = [1, 0, 0, 1, 0, 0, 1, 1]
    # precision at each TP: 1, 2/3, 3/4, 4/8 (seed 001's non-interpolated AP 0.729);
    # the interpolated envelope lifts 2/3 to 3/4
    assert average_precision(tp, scores, 4, method="voc2010") == pytest.approx(0.75)
    # 11 points: r=0..0.2 -> 1, 0.3..0.7 -> 3/4, 0.8..1 -> 1/2
    assert average_precision(tp, scores, 4, method="voc2007") == pytest.approx(
        (3 * 1 + 5 * 0.75 + 3 * 0.5) / 11
    )
    # 101 points: r<=.25 -> 1 (26 points), .26..0.75 -> 3/4 (50), .76..1 -> 1/2 (25)
    assert average_precision(tp, scores, 4, method="coco") == pytest.approx(
        (26 + 50 * 0.75 + 25 * 0.5) / 101
    )
    # missed ground truth caps recall
    assert average_precision([1], [0.5], 2, method="voc2010") == 0.5
    assert np.isnan(average_precision([], [], 0))
    assert interpolated_ap(np.array([]), np.array([]), "coco") == 0.0


def test_mean_average_precision() -> None:
    gt = {
        "image": [0, 0, 1],
        "label": ["cat", "dog", "cat"],
        "boxes": [[0, 0, 10, 10], [20, 20, 30, 30], [0, 0, 5, 5]],
        "ignore": [False, False, False],
    }
    det = {
        "image": [0, 0, 1, 1],
        "label": ["cat", "dog", "cat", "cat"],
        "boxes": [[0, 0, 10, 10], [0, 0, 5, 5], [0, 0, 5, 5], [6, 6, 9, 9]],
        "scores": [0.9, 0.8, 0.7, 0.95],
    }
    r = mean_average_precision(gt, det)
    # cat: ranking FP(.95) TP(.9) TP(.7) over 2 gts: envelope 2/3 at r=.5 and 1 -> 2/3
    assert r["ap"] == {"cat": pytest.approx(2 / 3), "dog": 0.0}
    assert r["map"] == pytest.approx(1 / 3)
    gt["ignore"] = [False, True, False]  # "difficult" dog: class dropped
    assert mean_average_precision(gt, det)["ap"] == {"cat": pytest.approx(2 / 3)}


def test_bad_input() -> None:
    with pytest.raises(InputError, match=r"boxes1 must have shape \(n, 4\)"):
        iou([[0, 0, 1]], [[0, 0, 1, 1]])
    with pytest.raises(InputError, match="fmt must be one of"):
        iou([[0, 0, 1, 1]], [[0, 0, 1, 1]], fmt="yxyx")
    with pytest.raises(InputError, match="boxes2 contains NaN"):
        iou([[0, 0, 1, 1]], [[0, 0, float("nan"), 1]])
    with pytest.raises(InputError, match="method must be one of"):
        average_precision([1], [0.5], 1, method="voc2012")
    with pytest.raises(InputError, match="tp has 2, scores has 1"):
        average_precision([1, 0], [0.5], 1)
    with pytest.raises(InputError, match="det is missing"):
        mean_average_precision({"image": [], "label": [], "boxes": []}, {})
    with pytest.raises(
        InputError,
        match=r"det\['image'\] has 1, det\['label'\] has 1, "
        r"det\['boxes'\] has 1, det\['scores'\] has 2",
    ):
        mean_average_precision(
            {"image": [0], "label": [0], "boxes": [[0, 0, 1, 1]]},
            {"image": [0], "label": [0], "boxes": [[0, 0, 1, 1]], "scores": [0.1, 0.2]},
        )


def test_registered() -> None:
    assert REGISTRY["iou"].domain == "detection"
    assert REGISTRY["det_map"].domain == "detection"


# ------------------------------------------------------------------ found by the contract
# (tests/test_contract_families.py)

_GT = {
    "image": [0, 0, 1],
    "label": [0, 1, 0],
    "boxes": [[0, 0, 10, 10], [20, 20, 30, 30], [0, 0, 5, 5]],
}
_DET = {
    "image": [0, 1],
    "label": [0, 0],
    "boxes": [[0, 0, 10, 10], [0, 0, 5, 5]],
    "scores": [0.9, 0.8],
}


@pytest.mark.parametrize(
    "side,key",
    [
        ("gt", "image"),
        ("gt", "label"),
        ("det", "image"),
        ("det", "label"),
        ("gt", "boxes"),
        ("det", "boxes"),
        ("det", "scores"),
    ],
)
def test_map_refuses_nan_anywhere(side: str, key: str) -> None:
    # a NaN image or class id used to give a number (a NaN class was its own class)
    gt = {k: np.array(v, dtype=float) for k, v in _GT.items()}
    det = {k: np.array(v, dtype=float) for k, v in _DET.items()}
    d = gt if side == "gt" else det
    d[key].reshape(-1)[0] = np.nan
    with pytest.raises(InputError, match=rf"{side}\['{key}'\] contains NaN"):
        mean_average_precision(gt, det)
    if key in ("image", "label"):  # ids may be objects: None is missing too
        d[key] = np.array([None, *d[key][1:].tolist()], dtype=object)
        with pytest.raises(InputError, match=rf"{side}\['{key}'\] contains NaN or None"):
            mean_average_precision(gt, det)


def test_map_iou_threshold_type_and_no_ground_truth() -> None:
    assert mean_average_precision(_GT, _DET)["map"] == pytest.approx(0.5)
    for bad in ("0.5", None, True, [0.5], float("nan"), 0, 1.5):
        with pytest.raises(InputError, match="iou_threshold must be a number in"):
            mean_average_precision(_GT, _DET, iou_threshold=bad)  # type: ignore[arg-type]
    # no ground truth that counts: mAP is undefined, not NaN
    with pytest.raises(InputError, match="mAP is undefined"):
        mean_average_precision({**_GT, "ignore": [True, True, True]}, _DET)
    with pytest.raises(InputError, match="mAP is undefined"):
        mean_average_precision({"image": [], "label": [], "boxes": []}, _DET)
    # an empty detection set is still fine
    empty = {"image": [], "label": [], "boxes": [], "scores": []}
    assert mean_average_precision(_GT, empty)["map"] == 0.0
