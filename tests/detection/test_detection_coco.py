"""COCO evaluation (ranklens.detection.coco_evaluate): reference test against
pycocotools' COCOeval on a synthetic data set, hand-computed tiny cases, input
forms and bad input."""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ranklens.detection import CocoResult, coco_evaluate
from ranklens.errors import InputError

CATS = [1, 4, 7, 10, 13, 16]  # 16 has no ground truth


def synthetic(n_img: int, seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """COCO gt dict and results list: several categories, crowd boxes, gt
    ``area`` unlike ``w * h``, all size ranges, duplicate gt boxes, empty
    images, images without detections, tied scores, images with > 100 dets."""
    rng = np.random.default_rng(seed)
    images = [{"id": i + 1} for i in range(n_img)]
    anns: list[dict[str, Any]] = []
    dets: list[dict[str, Any]] = []

    def box(scale: float) -> list[float]:
        w, h = rng.uniform(0.3, 1.5, 2) * scale
        x, y = rng.uniform(0, 500), rng.uniform(0, 400)
        if rng.random() < 0.05:  # integer boxes: exact IoU ties and thresholds
            return [float(round(x)), float(round(y)), float(round(w)), float(round(h))]
        return [float(x), float(y), float(w), float(h)]

    def score() -> float:
        return float(np.round(rng.random(), 2))  # many ties

    for im in images:
        iid = im["id"]
        n_gt = 0 if rng.random() < 0.1 else int(rng.integers(1, 12))
        for _ in range(n_gt):
            c = CATS[int(rng.integers(0, 5))]
            b = box(float(rng.choice([8, 30, 60, 150])))
            area = b[2] * b[3] * float(rng.uniform(0.6, 1.0))
            for _ in range(2 if rng.random() < 0.03 else 1):  # duplicate gt boxes
                anns.append(
                    {
                        "id": len(anns) + 1,
                        "image_id": iid,
                        "category_id": c,
                        "bbox": b,
                        "area": area,
                        "iscrowd": int(rng.random() < 0.06),
                    }
                )
            if rng.random() < 0.1:
                continue
            for _ in range(int(rng.integers(0, 4))):  # jittered detections
                j = rng.normal(0, 0.08, 4) * np.array([b[2], b[3], b[2], b[3]])
                dc = c if rng.random() < 0.9 else CATS[int(rng.integers(0, 6))]
                dets.append(
                    {
                        "image_id": iid,
                        "category_id": dc,
                        "score": score(),
                        "bbox": [
                            b[0] + j[0],
                            b[1] + j[1],
                            max(b[2] + j[2], 0.5),
                            max(b[3] + j[3], 0.5),
                        ],
                    }
                )
        if rng.random() < 0.1:  # no detections at all on this image
            dets = [d for d in dets if d["image_id"] != iid]
            continue
        for _ in range(int(rng.integers(0, 6))):  # background false positives
            dets.append(
                {
                    "image_id": iid,
                    "category_id": CATS[int(rng.integers(0, 6))],
                    "bbox": box(float(rng.choice([8, 30, 60, 150]))),
                    "score": score(),
                }
            )
        if rng.random() < 0.01:  # > maxDets detections of one category
            for _ in range(120):
                dets.append(
                    {
                        "image_id": iid,
                        "category_id": CATS[0],
                        "score": score(),
                        "bbox": [float(rng.uniform(0, 60)), float(rng.uniform(0, 60)), 40.0, 40.0],
                    }
                )
    gt = {
        "images": images,
        "annotations": anns,
        "categories": [{"id": c, "name": str(c)} for c in CATS],
    }
    return gt, dets


def pycoco(gt: dict[str, Any], dets: list[dict[str, Any]], **params: Any) -> Any:
    COCO = pytest.importorskip("pycocotools.coco").COCO
    COCOeval = pytest.importorskip("pycocotools.cocoeval").COCOeval
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = COCO()
        c.dataset = gt
        c.createIndex()
        cd = c.loadRes(dets)
        e = COCOeval(c, cd, "bbox")
        for k, v in params.items():
            setattr(e.params, k, v)
        e.evaluate()
        e.accumulate()
        e.summarize()
    return e


@pytest.fixture(scope="module")
def data() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return synthetic(3000)


@pytest.mark.reference
def test_matches_pycocotools(data: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    gt, dets = data
    ref = pycoco(gt, dets)
    r = coco_evaluate(gt, dets)
    assert len(r.stats) == 12
    np.testing.assert_allclose(r.stats, ref.stats, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.precision, ref.eval["precision"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.recall, ref.eval["recall"], rtol=0, atol=1e-12)
    # per class: mean of pycocotools' precision over T x R at area all, maxDets 100
    for k, c in enumerate(CATS):
        p = ref.eval["precision"][:, :, k, 0, 2]
        want = float(np.mean(p[p > -1])) if (p > -1).any() else -1.0
        assert r.per_class_ap[c] == pytest.approx(want, abs=1e-12)
    assert r.per_class_ap[16] == -1.0
    assert list(r.summary) == [
        "AP",
        "AP50",
        "AP75",
        "AP_small",
        "AP_medium",
        "AP_large",
        "AR_1",
        "AR_10",
        "AR_100",
        "AR_small",
        "AR_medium",
        "AR_large",
    ]


@pytest.mark.reference
def test_matches_pycocotools_columnar_and_params(
    data: tuple[dict[str, Any], list[dict[str, Any]]],
) -> None:
    gt, dets = data
    gt = {**gt, "images": gt["images"][:1000]}
    gt["annotations"] = [a for a in gt["annotations"] if a["image_id"] <= 1000]
    dets = [d for d in dets if d["image_id"] <= 1000]
    thr = np.array([0.3, 0.5, 0.75, 0.9])
    ranges = [[0, 1e10], [0, 20**2], [20**2, 80**2], [80**2, 1e10]]
    ref = pycoco(gt, dets, iouThrs=thr, maxDets=[2, 5, 20], areaRng=ranges)
    # the same data as pandas frames (gt without the "images" list: every image
    # with a detection counts, which is equivalent)
    gdf = pd.DataFrame(gt["annotations"])
    ddf = pd.DataFrame(dets)
    r = coco_evaluate(
        gdf,
        ddf,
        iou_thresholds=thr,
        max_dets=(20, 2, 5),
        area_ranges=dict(zip(["all", "small", "medium", "large"], map(tuple, ranges), strict=True)),
    )
    np.testing.assert_allclose(
        r.precision[:, :, :, :, :], ref.eval["precision"][:, :, :5], rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(r.stats[1:], ref.stats[1:], rtol=0, atol=1e-12)
    # deliberate difference: pycocotools' stats[0] looks for maxDets == 100 literally
    # (-1 here); ranklens uses the third max_dets value as for every other number
    assert ref.stats[0] == -1.0
    p = ref.eval["precision"][:, :, :, 0, 2]
    assert r["AP"] == pytest.approx(float(np.mean(p[p > -1])), abs=1e-12)
    assert list(r.summary)[6:9] == ["AR_2", "AR_5", "AR_20"]


def _gt(boxes: list[list[float]], **cols: Any) -> dict[str, Any]:
    n = len(boxes)
    return {
        "image_id": cols.pop("image_id", [1] * n),
        "category_id": cols.pop("category_id", [1] * n),
        "bbox": boxes,
        **cols,
    }


def _det(boxes: list[list[float]], scores: list[float], **cols: Any) -> dict[str, Any]:
    return {**_gt(boxes, **cols), "score": scores}


def test_hand_perfect_and_miss() -> None:
    r = coco_evaluate(_gt([[0, 0, 10, 10], [50, 50, 100, 100]]), _det([[0, 0, 10, 10]], [0.9]))
    # one of two found at every threshold: precision 1 up to recall .5, then 0
    assert r["AP"] == pytest.approx(51 / 101)
    assert r["AR_100"] == 0.5
    assert r["AP_small"] == pytest.approx(1.0)  # 10x10 is small; 100x100 is large
    assert r["AP_large"] == 0.0
    assert r["AP_medium"] == -1.0  # no medium ground truth
    assert r["AR_1"] == 0.5


def test_hand_iou_thresholds_and_duplicates() -> None:
    # IoU of det with gt = 80/100 = 0.8: TP at thresholds .5 .. .8 (7 of 10)
    gt = _gt([[0, 0, 10, 10]])
    det = _det([[0, 0, 10, 8], [0, 0, 10, 8]], [0.9, 0.8])
    r = coco_evaluate(gt, det)
    assert r["AP50"] == pytest.approx(1.0)
    assert r["AP75"] == pytest.approx(1.0)
    assert r["AP"] == pytest.approx(0.7)
    # the duplicate is a FP after the TP: it does not lower AP
    assert r.recall[:, 0, 0, 2].tolist() == [1.0] * 7 + [0.0] * 3
    # duplicate first (higher score, lower IoU): a TP still, the second is FP
    r2 = coco_evaluate(gt, _det([[0, 0, 10, 8], [0, 0, 10, 10]], [0.9, 0.8]))
    assert r2["AP"] == pytest.approx((7 + 3 * 0.5) / 10)


def test_hand_crowd_and_ties() -> None:
    # crowd region absorbs any number of detections inside it (IoU = inside / det area)
    gt = _gt([[0, 0, 100, 100], [200, 200, 10, 10]], iscrowd=[1, 0])
    det = _det([[10, 10, 5, 5], [20, 20, 5, 5], [200, 200, 10, 10]], [0.9, 0.9, 0.5])
    r = coco_evaluate(gt, det)
    assert r["AP"] == pytest.approx(1.0)
    # the top-1 detection is inside the crowd (ignored): nothing found at maxDets 1
    assert r["AR_1"] == 0.0 and r["AR_10"] == 1.0
    # tied scores: order by image id then input order; FP on image 1 ranked first
    gt2 = _gt([[0, 0, 10, 10], [0, 0, 10, 10]], image_id=[1, 2])
    det2 = _det([[0, 0, 10, 10], [50, 50, 10, 10]], [0.5, 0.5], image_id=[2, 1])
    assert coco_evaluate(gt2, det2)["AP"] == pytest.approx((51 * 0.5) / 101)


def test_prefers_non_ignored_gt() -> None:
    # det vs regular gt: IoU 0.9; vs crowd gt: 1.0 (inside / det area).  Up to .9
    # the regular gt wins although its IoU is lower (TP); at .95 only the crowd
    # matches and the det is ignored (no TP: precision 0)
    gt = _gt([[0, 0, 10, 10], [0, 0, 10, 10]], iscrowd=[0, 1])
    det = _det([[0, 0, 10, 9]], [0.9])
    r = coco_evaluate(gt, det)
    assert r["AP"] == pytest.approx(0.9)
    ref = pycoco(
        {
            "images": [{"id": 1}],
            "categories": [{"id": 1}],
            "annotations": [
                {
                    "id": i + 1,
                    "image_id": 1,
                    "category_id": 1,
                    "bbox": b,
                    "area": 100.0,
                    "iscrowd": c,
                }
                for i, (b, c) in enumerate(zip(gt["bbox"], [0, 1], strict=True))
            ],
        },
        [{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 9], "score": 0.9}],
    )
    np.testing.assert_allclose(r.stats, ref.stats, rtol=0, atol=1e-12)
    # "ignore" column (ranklens extension, e.g. VOC "difficult"): no usable gt -> -1
    r = coco_evaluate(
        _gt([[0, 0, 10, 10]], ignore=[True], category_id=["cat"]),
        _det([[0, 0, 10, 10]], [0.9], category_id=["cat"]),
    )
    assert r.per_class_ap == {"cat": -1.0} and r["AP"] == -1.0


def test_max_dets_and_unmatched_area() -> None:
    gt = _gt([[0, 0, 10, 10], [20, 0, 10, 10]])
    det = _det([[0, 0, 10, 10], [20, 0, 10, 10]], [0.5, 0.9])
    r = coco_evaluate(gt, det)
    assert r["AR_1"] == 0.5 and r["AR_10"] == 1.0
    # a large unmatched detection is ignored in "small", a FP in "all"
    det = _det([[0, 0, 10, 10], [100, 100, 200, 200]], [0.5, 0.9])
    r = coco_evaluate(_gt([[0, 0, 10, 10]]), det)
    assert r["AP_small"] == pytest.approx(1.0)
    assert r["AP"] == pytest.approx(0.5)


def test_input_forms_agree() -> None:
    gt, dets = synthetic(60, seed=3)
    ref = coco_evaluate(gt, dets)
    anns = pd.DataFrame(gt["annotations"])
    ddf = pd.DataFrame(dets)
    assert np.array_equal(coco_evaluate(anns, ddf).stats, ref.stats)
    assert np.array_equal(
        coco_evaluate(pa.Table.from_pandas(anns), pa.Table.from_pandas(ddf)).stats, ref.stats
    )
    pl = pytest.importorskip("polars")
    assert np.array_equal(coco_evaluate(pl.from_pandas(anns), pl.from_pandas(ddf)).stats, ref.stats)
    arr = np.array([[d["image_id"], *d["bbox"], d["score"], d["category_id"]] for d in dets])
    assert np.array_equal(coco_evaluate(gt, arr).stats, ref.stats)
    xywh = {
        "image_id": ddf["image_id"],
        "category_id": ddf["category_id"],
        "score": ddf["score"],
        **{k: np.array([b[i] for b in ddf["bbox"]]) for i, k in enumerate("xywh")},
    }
    assert np.array_equal(coco_evaluate(gt, xywh).stats, ref.stats)
    assert isinstance(ref, CocoResult)


def test_bad_input() -> None:
    gt = _gt([[0, 0, 10, 10]])
    det = _det([[0, 0, 10, 10]], [0.9])
    with pytest.raises(InputError, match=r"det\['image_id'\] has 2.*det\['score'\] has 1"):
        coco_evaluate(gt, {**det, "image_id": [1, 1]})
    with pytest.raises(
        InputError,
        match=r"gt\['bbox'\] has a negative width or height "
        r"at row 0",
    ):
        coco_evaluate(_gt([[0, 0, -1, 10]]), det)
    with pytest.raises(InputError, match=r"det\['score'\] contains NaN"):
        coco_evaluate(gt, {**det, "score": [float("nan")]})
    with pytest.raises(InputError, match=r"det\['bbox'\] contains NaN"):
        coco_evaluate(gt, _det([[0, 0, float("nan"), 1]], [0.5]))
    with pytest.raises(InputError, match=r"gt\['area'\] contains NaN"):
        coco_evaluate({**gt, "area": [float("nan")]}, det)
    with pytest.raises(InputError, match=r"det is missing \['score'\]"):
        coco_evaluate(gt, _gt([[0, 0, 1, 1]]))
    with pytest.raises(InputError, match=r"gt\['bbox'\] must be n boxes of 4"):
        coco_evaluate(_gt([[0, 0, 1]]), det)
    with pytest.raises(InputError, match=r"gt\['image_id'\] contains NaN"):
        coco_evaluate({**gt, "image_id": [float("nan")]}, det)
    with pytest.raises(InputError, match="iou_type must be 'bbox'"):
        coco_evaluate(gt, det, iou_type="segm")
    with pytest.raises(InputError, match="max_dets must be"):
        coco_evaluate(gt, det, max_dets=(1, 100))
    with pytest.raises(InputError, match="iou_thresholds must be"):
        coco_evaluate(gt, det, iou_thresholds=[1.5])
    with pytest.raises(InputError, match="not among gt\\['images'\\]"):
        coco_evaluate({"images": [{"id": 2}], "annotations": [], "categories": []}, det)
    with pytest.raises(InputError, match="gt must be a dict"):
        coco_evaluate([1, 2], det)
