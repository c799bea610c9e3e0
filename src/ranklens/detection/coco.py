"""COCO-style detection evaluation (mAP@[.5:.95], maxDets, area ranges, crowd).

:func:`coco_evaluate` computes the 12 numbers of the COCO summary (the
``stats`` of pycocotools' ``COCOeval.summarize()``) and per-class AP, with the
conventions of pycocotools' ``COCOeval`` for ``iouType="bbox"``:

* Images are the sorted unique image ids (ground truth and detections);
  categories are the sorted unique ground-truth category ids (or the
  ``categories`` list of a COCO dict).  Detections of other categories are
  dropped.
* Per (image, category), detections are ranked by descending score, ties in
  input order (a stable sort), and only the first ``max(max_dets)`` are kept.
* IoU of a detection ``d`` and a ground truth ``g`` (both ``xywh``):
  ``w = min(dx + dw, gx + gw) - max(dx, gx)`` (0 when ``<= 0``), ``h`` alike,
  ``i = w * h``, IoU = ``i / (dw*dh + gw*gh - i)``; for a crowd ``g`` it is
  ``i / (dw*dh)`` (the fraction of the detection inside the crowd region).
* Ground truth is *ignored* in an area range when it is crowd (or flagged
  ``ignore``, a ranklens extension for "difficult" boxes) or its ``area`` is
  outside ``[lo, hi]`` (inclusive).  Ground truth ``area`` defaults to
  ``w * h``; a detection's area is always ``w * h``.
* Greedy matching, per IoU threshold ``t`` (used as ``min(t, 1 - 1e-10)``):
  detections in rank order each take, among the ground truths still free
  (crowd ground truth is never used up) with IoU >= t, the one of largest
  IoU, preferring any non-ignored one over every ignored one; ties go to the
  later ground truth in input order.  A detection matched to an ignored
  ground truth is ignored; an unmatched detection whose area is outside the
  range is ignored; other detections are TP (matched) or FP.
* Per category, area range and ``max_det``: the first ``max_det`` detections
  of every image are pooled and ranked by descending score, ties by image
  (sorted id) then rank in the image; precision ``tp / (tp + fp + eps)``
  (``eps = np.spacing(1)``) is replaced by its running maximum from the
  right; AP is its mean at the 101 recall levels ``0, 0.01, ..., 1``, taking
  for each level the first point whose recall is >= the level (0 when none);
  recall is the final ``tp / n_gt``.  A category without non-ignored ground
  truth has precision and recall -1 and is left out of the means.
* A summary number is the mean over all thresholds (or only 0.5 / 0.75),
  categories and recall levels of the entries that are not -1; -1 when there
  are none.

Deliberate differences from pycocotools (none affects the numbers on valid
COCO data): pycocotools marks "unmatched" by a ground-truth id of 0, so an
annotation with id 0 behaves as unmatched there; ranklens has no ids.  Its
``summarize()`` takes AP from the ``maxDets == 100`` column literally (-1
when 100 is not among ``maxDets``); ranklens uses the third smallest
``max_dets`` value, as pycocotools does for every other summary number.  The
summary thresholds 0.5 and 0.75 are found with a 1e-12 tolerance rather than
exact float equality.

Vectorisation: IoU is computed at once for every (detection, ground truth)
pair of the same image and category; pairs with IoU below every threshold are
dropped.  The greedy matching runs one step per detection rank (at most
``max(max_dets)`` steps per area range), each step handling the detections of
that rank of every (image, category) group at once, for all thresholds.
Accumulation is vectorised over area ranges and thresholds, with a Python
loop over categories x ``max_dets`` only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens._shared.frames import column_names, columns_from_frame, is_table, materialise
from ranklens.errors import InputError

__all__ = ["DEFAULT_AREA_RANGES", "CocoResult", "coco_ap", "coco_ar", "coco_evaluate"]

DEFAULT_AREA_RANGES: dict[str, tuple[float, float]] = {
    "all": (0.0, 1e10),
    "small": (0.0, 32.0**2),
    "medium": (32.0**2, 96.0**2),
    "large": (96.0**2, 1e10),
}
_REC_THRS = np.linspace(0.0, 1.0, 101)


@dataclass(frozen=True)
class CocoResult:
    """Result of :func:`coco_evaluate`.

    ``stats``: the 12 summary numbers in pycocotools' order (AP, AP50, AP75,
    AP_small, AP_medium, AP_large, AR_1, AR_10, AR_100, AR_small, AR_medium,
    AR_large; AR_k named after ``max_dets``); ``summary``: the same by name;
    ``per_class_ap``: AP@[.5:.95] (area "all", third max_det) per category,
    -1 for a category without non-ignored ground truth; ``precision``
    (T x 101 x K x A x M) and ``recall`` (T x K x A x M) as pycocotools'
    ``eval["precision"]`` / ``eval["recall"]``.
    """

    stats: np.ndarray
    summary: dict[str, float]
    per_class_ap: dict[Any, float]
    precision: np.ndarray = field(repr=False)
    recall: np.ndarray = field(repr=False)
    categories: list[Any] = field(repr=False)
    iou_thresholds: np.ndarray = field(repr=False)
    area_labels: list[str] = field(repr=False)
    max_dets: tuple[int, ...] = field(repr=False)

    def __getitem__(self, key: str) -> float:
        return self.summary[key]


# --------------------------------------------------------------------------- input


def _col_to_numpy(col: Any) -> np.ndarray:
    """A column of a frame / dict as numpy; list columns as (n, k) arrays."""
    if hasattr(col, "to_arrow") and not type(col).__module__.startswith("pyarrow"):
        col = col.to_arrow()  # polars Series
    if type(col).__module__.startswith("pyarrow"):
        import pyarrow as pa

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if (
            pa.types.is_list(col.type)
            or pa.types.is_large_list(col.type)
            or pa.types.is_fixed_size_list(col.type)
        ):
            return (
                np.asarray(col.to_pylist(), dtype=object) if col.null_count else _stack_lists(col)
            )
        return np.asarray(col.to_numpy(zero_copy_only=False))
    if hasattr(col, "to_numpy"):
        col = col.to_numpy()
    a = np.asarray(col)
    if a.dtype == object and a.ndim == 1 and len(a) and isinstance(a[0], (list, tuple, np.ndarray)):
        with contextlib.suppress(TypeError, ValueError):
            a = np.asarray([np.asarray(v, dtype=np.float64) for v in a])
    return a


def _stack_lists(col: Any) -> np.ndarray:
    import pyarrow.compute as pc

    lengths = np.asarray(pc.list_value_length(col).to_numpy(zero_copy_only=False))
    values = np.asarray(col.flatten().to_numpy(zero_copy_only=False))
    if len(lengths) and (lengths == lengths[0]).all():
        return values.reshape(len(lengths), int(lengths[0]))
    return np.asarray(
        [
            values[s : s + n]
            for s, n in zip(np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths, strict=True)
        ],
        dtype=object,
    )


def _columns(name: str, obj: Any) -> tuple[list[str], Any]:
    """The column names of a table and a getter of its columns by name."""
    if not is_table(obj):
        raise InputError(
            f"{name} must be a dict of arrays, a pandas / polars DataFrame, a pyarrow Table "
            f"or a COCO-format dict, got {type(obj).__name__}."
        )
    obj = materialise(obj)
    return column_names(obj, name), lambda k: columns_from_frame(obj, {k: k}, name)[k]


def _from_coco_anns(name: str, anns: Sequence[Any], *, det: bool) -> dict[str, Any]:
    cols: dict[str, list[Any]] = {"image_id": [], "category_id": [], "bbox": []}
    extra = ("score",) if det else ("area", "iscrowd")
    for k in extra:
        cols[k] = []
    for i, a in enumerate(anns):
        if not isinstance(a, Mapping):
            raise InputError(f"{name}[{i}] must be a dict (a COCO annotation).")
        for k in ("image_id", "category_id", "bbox") + (("score",) if det else ()):
            if k not in a:
                raise InputError(f"{name}[{i}] has no {k!r}.")
            cols[k].append(a[k])
        if not det:
            b = a["bbox"]
            cols["area"].append(a.get("area", b[2] * b[3] if len(b) == 4 else np.nan))
            cols["iscrowd"].append(a.get("iscrowd", 0))
    out: dict[str, Any] = {k: np.asarray(v) for k, v in cols.items() if k != "bbox"}
    try:
        out["bbox"] = (
            np.asarray(cols["bbox"], dtype=np.float64).reshape(-1, 4)
            if len(anns)
            else np.zeros((0, 4))
        )
    except (TypeError, ValueError):
        raise InputError(f"{name}: every 'bbox' must be 4 numbers [x, y, w, h].") from None
    return out


@dataclass
class _Table:
    image: np.ndarray
    category: np.ndarray
    box: np.ndarray  # (n, 4) xywh float64
    score: np.ndarray  # detections only
    area: np.ndarray
    crowd: np.ndarray  # bool
    ignore: np.ndarray  # bool


def _table(name: str, obj: Any, *, det: bool) -> tuple[_Table, Any, Any]:
    """Parse ``obj``; returns the table and, for a COCO dict, its image and
    category id lists (else None)."""
    images: Any = None
    cats: Any = None
    if det and isinstance(obj, np.ndarray) and obj.ndim == 2 and obj.shape[1] == 7:
        obj = {
            "image_id": obj[:, 0].astype(np.int64),
            "bbox": obj[:, 1:5],
            "score": obj[:, 5],
            "category_id": obj[:, 6].astype(np.int64),
        }
    elif det and isinstance(obj, (list, tuple)):
        obj = _from_coco_anns(name, obj, det=True)
    elif isinstance(obj, Mapping) and "annotations" in obj and "image_id" not in obj:
        anns = obj["annotations"]
        if not det:
            if "images" in obj:
                images = [im["id"] for im in obj["images"]]
            if "categories" in obj:
                cats = [c["id"] for c in obj["categories"]]
        obj = _from_coco_anns(f"{name}['annotations']", anns, det=det)
    names, get = _columns(name, obj)
    need = ["image_id", "category_id"] + (["score"] if det else [])
    has_xywh = all(k in names for k in ("x", "y", "w", "h"))
    if "bbox" not in names and not has_xywh:
        need.append("bbox")
    missing = [k for k in need if k not in names]
    if missing:
        raise InputError(f"{name} is missing {missing} (has {names}).")

    def arr(k: str) -> np.ndarray:
        return _col_to_numpy(get(k))

    if "bbox" in names:
        box = arr("bbox")
        bname = f"{name}['bbox']"
    else:
        box = (
            np.stack([np.asarray(arr(k), dtype=np.float64) for k in "xywh"], axis=1)
            if len(arr("x"))
            else np.zeros((0, 4))
        )
        bname = f"{name}['x'/'y'/'w'/'h']"
    if box.ndim == 1 and len(box) == 0:
        box = np.zeros((0, 4))
    if box.dtype == object or box.ndim != 2 or box.shape[1] != 4:
        raise InputError(
            f"{bname} must be n boxes of 4 numbers [x, y, w, h], "
            f"got an array of shape {box.shape} and dtype {box.dtype}."
        )
    box = _numeric(bname, box)
    image = arr("image_id")
    category = arr("category_id")
    for k, a in (("image_id", image), ("category_id", category)):
        if a.ndim != 1:
            raise InputError(f"{name}['{k}'] must be 1-d, got shape {a.shape}.")
        if (a.dtype.kind == "f" and np.isnan(a).any()) or (
            a.dtype == object and any(v is None or v != v for v in a)
        ):
            raise InputError(f"{name}['{k}'] contains NaN or None.")
    n = len(image)
    cols: dict[str, np.ndarray] = {
        f"{name}['image_id']": image,
        f"{name}['category_id']": category,
        bname: box,
    }
    score = np.zeros(n)
    if det:
        score = _numeric(f"{name}['score']", arr("score"))
        cols[f"{name}['score']"] = score
    area = box[:, 2] * box[:, 3]
    crowd = np.zeros(n, bool)
    ignore = np.zeros(n, bool)
    if not det:
        if "area" in names:
            area = _numeric(f"{name}['area']", arr("area"))
            cols[f"{name}['area']"] = area
        if "iscrowd" in names:
            crowd = _flag(f"{name}['iscrowd']", arr("iscrowd"))
            cols[f"{name}['iscrowd']"] = crowd
        if "ignore" in names:
            ignore = _flag(f"{name}['ignore']", arr("ignore"))
            cols[f"{name}['ignore']"] = ignore
    lengths = {k: len(v) for k, v in cols.items()}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise InputError(f"inconsistent numbers of rows: {desc}; they must be equal.")
    bad = (box[:, 2] < 0) | (box[:, 3] < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{bname} has a negative width or height at row {i}: "
            f"{box[i].tolist()}; boxes must be [x, y, w, h] with w, h >= 0."
        )
    return _Table(image, category, box, score, area, crowd, ignore), images, cats


def _numeric(name: str, x: Any) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be numeric, got values of type {a.dtype}.") from None
    a = a.astype(np.float64, copy=False)
    if not np.isfinite(a).all():
        bad = int(np.flatnonzero(~np.isfinite(a.ravel()))[0])
        raise InputError(
            f"{name} contains NaN or infinite values (first at flat index "
            f"{bad}); drop or impute them first."
        )
    return a


def _flag(name: str, x: Any) -> np.ndarray:
    a = _numeric(name, x)
    if a.ndim != 1:
        raise InputError(f"{name} must be 1-d, got shape {a.shape}.")
    return a != 0


# --------------------------------------------------------------------------- kernel


def _pair_iou(db: np.ndarray, gb: np.ndarray, crowd: np.ndarray) -> np.ndarray:
    """IoU of paired rows (pycocotools' bbox arithmetic, operation for operation)."""
    w = np.minimum(db[:, 2] + db[:, 0], gb[:, 2] + gb[:, 0]) - np.maximum(db[:, 0], gb[:, 0])
    h = np.minimum(db[:, 3] + db[:, 1], gb[:, 3] + gb[:, 1]) - np.maximum(db[:, 1], gb[:, 1])
    ok = (w > 0) & (h > 0)
    inter = w * h
    da = db[:, 2] * db[:, 3]
    union = np.where(crowd, da, da + gb[:, 2] * gb[:, 3] - inter)
    out = np.zeros(len(db))
    np.divide(inter, union, out=out, where=ok)
    return out


def _segments(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start of each run of equal values in sorted ``keys`` and each element's
    position within its run."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    lens = np.diff(np.concatenate([starts, [n]]))
    pos = np.arange(n) - np.repeat(starts, lens)
    return starts, pos


def coco_evaluate(
    gt: Any,
    det: Any,
    *,
    iou_thresholds: Any = None,
    max_dets: Sequence[int] = (1, 10, 100),
    area_ranges: Mapping[str, tuple[float, float]] | None = None,
    iou_type: str = "bbox",
) -> CocoResult:
    """COCO evaluation of detections ``det`` against ground truth ``gt``.

    ``gt``: columns ``image_id``, ``category_id``, ``bbox`` (``[x, y, w, h]``
    per row, or four columns ``x``, ``y``, ``w``, ``h``), optional ``area``
    (default ``w * h``), ``iscrowd`` and ``ignore``; ``det``: ``image_id``,
    ``category_id``, ``bbox``, ``score``.  Each may be a dict of arrays, a
    pandas or polars DataFrame or a pyarrow Table; ``gt`` may also be a
    COCO-format dict (``images`` / ``annotations`` / ``categories``) and
    ``det`` a COCO results list (``[{"image_id", "category_id", "bbox",
    "score"}, ...]``), a COCO-format dict or an ``(n, 7)`` array
    ``[image_id, x, y, w, h, score, category_id]``.

    ``iou_thresholds`` default ``np.linspace(.5, .95, 10)``; ``max_dets``
    detections per image and category (sorted; the largest bounds matching);
    ``area_ranges``: label -> ``(lo, hi)`` (default all / small / medium /
    large as COCO).  See the module documentation for the conventions.

    The steps: :func:`_options` (checked parameters), :func:`_table` (reading
    ``gt`` and ``det``), :func:`_code_ids` (images and categories as codes),
    :func:`_rank_detections` and :func:`_group_ground_truth` (grouped by image and
    category), :func:`_match` (greedy matching per area range and threshold),
    :func:`_accumulate` (precision and recall per category, area and
    ``max_det``) and :func:`_summarize` (the 12 numbers and per-class AP).

    >>> r = coco_evaluate({"image_id": [1], "category_id": [1], "bbox": [[0, 0, 10, 10]]},
    ...                   {"image_id": [1], "category_id": [1], "bbox": [[0, 0, 10, 10]],
    ...                    "score": [0.9]})
    >>> round(r["AP"], 12), r["AR_100"]  # precision is tp / (tp + fp + 2.2e-16)
    (1.0, 1.0)
    """
    opts = _options(iou_thresholds, max_dets, area_ranges, iou_type)
    g, images, cat_list = _table("gt", gt, det=False)
    d, _, _ = _table("det", det, det=True)
    ids = _code_ids(g, d, images, cat_list)
    dets = _rank_detections(d, ids, opts.max_dets[-1])
    gts = _group_ground_truth(g, ids)
    tp, fp, g_ignored = _match(dets, gts, opts)
    precision, recall = _accumulate(dets, gts, ids, opts, tp, fp, g_ignored)
    return _summarize(precision, recall, ids.cats, opts)


@dataclass(frozen=True)
class _Options:
    """The checked parameters: IoU thresholds, sorted ``max_dets``, area range labels
    and their ``(lo, hi)`` rows."""

    thr: np.ndarray
    max_dets: tuple[int, ...]
    labels: list[str]
    ranges: np.ndarray


def _options(
    iou_thresholds: Any,
    max_dets: Sequence[int],
    area_ranges: Mapping[str, tuple[float, float]] | None,
    iou_type: str,
) -> _Options:
    """Check :func:`coco_evaluate`'s parameters (before any data is read)."""
    if iou_type != "bbox":
        raise InputError(
            f"iou_type must be 'bbox' (segm / keypoints are not supported), got {iou_type!r}."
        )
    thr = np.asarray(
        np.linspace(0.5, 0.95, 10) if iou_thresholds is None else iou_thresholds, dtype=np.float64
    ).ravel()
    if thr.size == 0 or not np.isfinite(thr).all() or (thr < 0).any() or (thr > 1).any():
        raise InputError(f"iou_thresholds must be non-empty values in [0, 1], got {thr}.")
    try:
        mdets = tuple(sorted(int(m) for m in max_dets))
    except (TypeError, ValueError):
        raise InputError(f"max_dets must be positive integers, got {max_dets!r}.") from None
    if len(mdets) < 3 or mdets[0] < 1 or len(set(mdets)) < len(mdets):
        raise InputError(
            f"max_dets must be at least three distinct positive integers "
            f"(AR is reported at the three smallest), got {max_dets!r}."
        )
    ranges = dict(DEFAULT_AREA_RANGES if area_ranges is None else area_ranges)
    if not ranges:
        raise InputError("area_ranges must name at least one (lo, hi) range.")
    try:
        rng = np.asarray([tuple(map(float, v)) for v in ranges.values()], dtype=np.float64)
    except (TypeError, ValueError):
        rng = np.zeros((0,))
    if rng.ndim != 2 or rng.shape[1] != 2 or np.isnan(rng).any():
        raise InputError(f"area_ranges values must be (lo, hi) pairs, got {ranges!r}.")
    return _Options(thr, mdets, list(ranges), rng)


@dataclass(frozen=True)
class _Ids:
    """Images and categories as codes: ``cats`` the sorted category ids, each
    annotation's image and category code, and the detections kept (``d_keep``: those
    of a ground-truth category)."""

    cats: np.ndarray
    g_img: np.ndarray
    g_cat: np.ndarray
    d_img: np.ndarray
    d_cat: np.ndarray
    d_keep: np.ndarray


def _code_ids(g: _Table, d: _Table, images: Any, cat_list: Any) -> _Ids:
    """Code image and category ids by their sorted unique values (images of the COCO
    dict, or of both tables; categories of the COCO dict or of the ground truth), and
    check that the ids refer to listed images and categories."""
    if cat_list is not None:
        cats = np.unique(np.asarray(cat_list))
    else:
        cats = np.unique(g.category) if len(g.category) else np.zeros(0, np.int64)
    try:
        if images is not None:
            img_ids = np.unique(np.asarray(images))
            unknown = ~np.isin(d.image, img_ids)
            if unknown.any():
                raise InputError(
                    f"det['image_id'] {d.image[np.flatnonzero(unknown)[0]]!r} is not among "
                    "gt['images'] (pycocotools refuses such results too)."
                )
        else:
            img_ids = np.unique(np.concatenate([g.image, d.image]))
        g_img = np.searchsorted(img_ids, g.image)
        d_img = np.searchsorted(img_ids, d.image)
        g_cat = np.searchsorted(cats, g.category)
        d_cat = np.searchsorted(cats, d.category)
    except TypeError as exc:
        raise InputError(f"gt and det ids must be comparable values of one type: {exc}") from None
    if len(g_cat) and (
        (g_cat >= len(cats)).any()
        or not (cats[np.minimum(g_cat, len(cats) - 1)] == g.category).all()
    ):
        raise InputError("gt['category_id'] has ids not listed in gt['categories'].")
    if (
        images is not None
        and len(g_img)
        and not (img_ids[np.minimum(g_img, len(img_ids) - 1)] == g.image).all()
    ):
        raise InputError("gt annotations refer to image ids not listed in gt['images'].")
    keep = d_cat < len(cats)
    keep[keep] = cats[d_cat[keep]] == d.category[keep]
    return _Ids(cats, g_img, g_cat, d_img, d_cat, np.flatnonzero(keep))


@dataclass(frozen=True)
class _Detections:
    """The detections kept, grouped by (image, category) and ranked by descending
    score within a group (``rank``, 0-based; at most ``max(max_dets)`` per group)."""

    rows: np.ndarray  # index into the detection table
    group: np.ndarray
    rank: np.ndarray
    box: np.ndarray
    score: np.ndarray
    area: np.ndarray
    img: np.ndarray
    cat: np.ndarray


def _rank_detections(d: _Table, ids: _Ids, cap: int) -> _Detections:
    """Group the detections by (image, category), rank them by score (ties in input
    order) and keep the first ``cap`` of each group."""
    n_cat = len(ids.cats)
    dsel = ids.d_keep
    d_group = ids.d_img[dsel] * n_cat + ids.d_cat[dsel]
    order = np.lexsort((dsel, -d.score[dsel], d_group))
    dsel, d_group = dsel[order], d_group[order]
    _, d_rank = _segments(d_group)
    keep = d_rank < cap
    dsel, d_group, d_rank = dsel[keep], d_group[keep], d_rank[keep]
    box = d.box[dsel]
    return _Detections(
        dsel,
        d_group,
        d_rank,
        box,
        d.score[dsel],
        box[:, 2] * box[:, 3],
        ids.d_img[dsel],
        ids.d_cat[dsel],
    )


@dataclass(frozen=True)
class _GroundTruth:
    """The ground truth sorted by (image, category) group, input order within one."""

    group: np.ndarray
    box: np.ndarray
    area: np.ndarray
    crowd: np.ndarray
    ignored: np.ndarray  # crowd or flagged ignore (before area ranges)
    cat: np.ndarray


def _group_ground_truth(g: _Table, ids: _Ids) -> _GroundTruth:
    """Sort the ground truth by (image, category) group, stably."""
    g_group = ids.g_img * len(ids.cats) + ids.g_cat
    order = np.argsort(g_group, kind="stable")
    return _GroundTruth(
        g_group[order],
        g.box[order],
        g.area[order],
        g.crowd[order],
        (g.crowd | g.ignore)[order],
        ids.g_cat[order],
    )


def _pairs(
    dets: _Detections, gts: _GroundTruth, thr_min: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (detection, ground truth) pair of one group with its IoU, the pairs below
    every threshold dropped: detection index, ground-truth index, IoU."""
    lo = np.searchsorted(gts.group, dets.group, side="left")
    hi = np.searchsorted(gts.group, dets.group, side="right")
    cnt = hi - lo
    p_det = np.repeat(np.arange(len(dets.rows)), cnt)
    p_gt = np.repeat(lo, cnt) + (np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt, cnt))
    p_iou = _pair_iou(dets.box[p_det], gts.box[p_gt], gts.crowd[p_gt])
    live = p_iou >= thr_min
    return p_det[live], p_gt[live], p_iou[live]


def _match(
    dets: _Detections, gts: _GroundTruth, opts: _Options
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy matching for every area range and threshold; returns the true and false
    positives (area range x threshold x detection) and which ground truth each area
    range ignores (area range x ground truth).

    One step per detection rank handles the detections of that rank of every group at
    once, for all thresholds: each takes the first of its candidates (non-ignored
    first, larger IoU, later ground truth) that is still free (crowd never is used
    up) and reaches the threshold."""
    thr_eff = np.minimum(opts.thr, 1 - 1e-10)
    p_det, p_gt, p_iou = _pairs(dets, gts, thr_eff.min())
    p_rank = dets.rank[p_det]
    n_a, n_t, nd, ng = len(opts.ranges), len(opts.thr), len(dets.rows), len(gts.group)
    rng, cap = opts.ranges, opts.max_dets[-1]
    # matched gt (index into the sorted gt arrays) per area range, threshold, det; -1 none
    match = np.full((n_a, n_t, nd), -1, np.int64)
    g_ignored = np.empty((n_a, ng), bool)
    for a in range(n_a):
        ign = gts.ignored | (gts.area < rng[a, 0]) | (gts.area > rng[a, 1])
        g_ignored[a] = ign
        if len(p_det) == 0:
            continue
        po = np.lexsort((-p_gt, -p_iou, ign[p_gt], p_det, p_rank))
        s_det, s_gt, s_iou, s_rank = p_det[po], p_gt[po], p_iou[po], p_rank[po]
        valid_iou = s_iou[:, None] >= thr_eff[None, :]
        used = np.zeros((ng, n_t), bool)
        bounds = np.searchsorted(s_rank, np.arange(cap + 1))
        for r in range(cap):
            s, e = bounds[r], bounds[r + 1]
            if s == e:
                continue
            gt_rows = s_gt[s:e]
            ok = valid_iou[s:e] & (~used[gt_rows] | gts.crowd[gt_rows, None])
            dstart, _ = _segments(s_det[s:e])
            pos = np.where(ok, np.arange(e - s)[:, None], e - s)
            first = np.minimum.reduceat(pos, dstart, axis=0)  # (n dets, T)
            di, ti = np.nonzero(first < e - s)
            chosen = gt_rows[first[di, ti]]
            used[chosen, ti] = True
            match[a, ti, s_det[s:e][dstart[di]]] = chosen
    d_out = (dets.area[None, :] < rng[:, 0:1]) | (dets.area[None, :] > rng[:, 1:2])  # (A, D)
    matched = match >= 0
    m_ign = (
        np.take_along_axis(g_ignored[:, None, :].repeat(n_t, 1), np.maximum(match, 0), axis=2)
        if ng
        else np.zeros_like(matched)
    )
    return matched & ~m_ign, ~matched & ~d_out[:, None, :], g_ignored


def _accumulate(
    dets: _Detections,
    gts: _GroundTruth,
    ids: _Ids,
    opts: _Options,
    tp: np.ndarray,
    fp: np.ndarray,
    g_ignored: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Precision (T x 101 x K x A x M) and recall (T x K x A x M) as pycocotools'
    ``accumulate``: per category and ``max_det``, the detections of every image pooled
    by descending score (ties by image, then rank in the image); -1 where a category
    has no non-ignored ground truth in an area range."""
    n_t, n_r, n_cat = len(opts.thr), len(_REC_THRS), len(ids.cats)
    n_a, n_m = len(opts.ranges), len(opts.max_dets)
    precision = -np.ones((n_t, n_r, n_cat, n_a, n_m))
    recall = -np.ones((n_t, n_cat, n_a, n_m))
    npig = np.zeros((n_cat, n_a), np.int64)
    for a in range(n_a):
        npig[:, a] = np.bincount(gts.cat[~g_ignored[a]], minlength=n_cat)
    acc = np.lexsort((dets.rank, dets.img, -dets.score, dets.cat))
    cstart = np.searchsorted(dets.cat[acc], np.arange(n_cat + 1))
    for k in range(n_cat):
        idx_k = acc[cstart[k] : cstart[k + 1]]
        for mi, md in enumerate(opts.max_dets):
            idx = idx_k[dets.rank[idx_k] < md]
            tps = np.cumsum(tp[:, :, idx], axis=2).astype(np.float64)  # (A, T, n)
            fps = np.cumsum(fp[:, :, idx], axis=2).astype(np.float64)
            for a in range(n_a):
                npg = int(npig[k, a])
                if npg == 0:
                    continue
                if len(idx) == 0:
                    precision[:, :, k, a, mi] = 0.0
                    recall[:, k, a, mi] = 0.0
                    continue
                recall[:, k, a, mi] = tps[a][:, -1] / npg
                precision[:, :, k, a, mi] = _interpolated_precision(tps[a], fps[a], npg)
    return precision, recall


def _interpolated_precision(tp: np.ndarray, fp: np.ndarray, npg: int) -> np.ndarray:
    """Precision at the 101 recall levels for each threshold (rows of the cumulative
    ``tp`` / ``fp`` counts): the running maximum from the right of ``tp / (tp + fp +
    eps)`` at the first point whose recall ``tp / npg`` reaches the level, 0 where
    none does."""
    n_t, n = tp.shape
    n_r = len(_REC_THRS)
    pr = tp / (fp + tp + np.spacing(1))
    env = np.maximum.accumulate(pr[:, ::-1], axis=1)[:, ::-1]
    # first point with recall tp/npg >= level: tp >= j*, the least integer with
    # float(j / npg) >= level (exact, no float offsets)
    j = np.ceil(_REC_THRS * npg)
    j = np.where((j > 0) & ((j - 1) / npg >= _REC_THRS), j - 1, j)
    j = np.where(j / npg < _REC_THRS, j + 1, j)
    j = np.minimum(j, n + 1).astype(np.int64)
    band = n + 2
    flat = (tp.astype(np.int64) + (np.arange(n_t) * band)[:, None]).ravel()
    tgt = j[None, :] + (np.arange(n_t) * band)[:, None]
    pos = np.searchsorted(flat, tgt.ravel(), side="left").reshape(n_t, n_r)
    pos -= (np.arange(n_t) * n)[:, None]
    envp = np.concatenate([env, np.zeros((n_t, 1))], axis=1)
    return np.take_along_axis(envp, pos, axis=1)


def _summarize(
    precision: np.ndarray, recall: np.ndarray, cats: np.ndarray, opts: _Options
) -> CocoResult:
    """The 12 numbers of pycocotools' ``summarize()`` and AP per category: means of
    the entries that are not -1 (-1 when there are none)."""
    labels, thr, mdets = opts.labels, opts.thr, opts.max_dets

    def mean_valid(x: np.ndarray) -> float:
        v = x[x > -1]
        return float(np.mean(v)) if v.size else -1.0

    def ap(t: float | None = None, area: str = "all") -> float:
        if area not in labels:
            return -1.0
        s = precision[..., labels.index(area), 2]
        if t is not None:
            sel = np.flatnonzero(np.abs(thr - t) < 1e-12)
            s = s[sel]
        return mean_valid(s)

    def ar(m: int, area: str = "all") -> float:
        if area not in labels:
            return -1.0
        return mean_valid(recall[:, :, labels.index(area), m])

    summary = {
        "AP": ap(),
        "AP50": ap(0.5),
        "AP75": ap(0.75),
        "AP_small": ap(area="small"),
        "AP_medium": ap(area="medium"),
        "AP_large": ap(area="large"),
    }
    for i in range(3):
        summary[f"AR_{mdets[i]}"] = ar(i)
    summary.update(
        {"AR_small": ar(2, "small"), "AR_medium": ar(2, "medium"), "AR_large": ar(2, "large")}
    )
    stats = np.array(list(summary.values()), dtype=np.float64)
    a_all = labels.index("all") if "all" in labels else 0
    per_class = {c: mean_valid(precision[:, :, k, a_all, 2]) for k, c in enumerate(cats.tolist())}
    return CocoResult(
        stats=stats,
        summary=summary,
        per_class_ap=per_class,
        precision=precision,
        recall=recall,
        categories=cats.tolist(),
        iou_thresholds=thr,
        area_labels=labels,
        max_dets=mdets,
    )


# --------------------------------------------------------------------------- one number


def _defined_mean(x: np.ndarray) -> float:
    """The mean of the entries that are not -1 (pycocotools' "undefined"), NaN if none."""
    v = x[x > -1]
    return float(np.mean(v)) if v.size else float("nan")


def _area_index(result: CocoResult, area: Any) -> int:
    if not isinstance(area, str) or area not in result.area_labels:
        raise InputError(
            f"the 'area' parameter must be one of {', '.join(map(repr, result.area_labels))}. "
            f"Got {area!r} instead."
        )
    return result.area_labels.index(area)


def coco_ap(gt: Any, det: Any, *, iou: Any = "mean", area: str = "all") -> float:
    """COCO average precision: one number of the COCO summary, by its parameters.

    ``AP = mean over categories c and thresholds t of (1/101) sum_{r in 0, 0.01, ...,
    1} p_interp(r)``, ``p_interp(r)`` the largest precision at a recall ``>= r``, with
    the 100 best detections per image (the third ``max_dets``) and the ground truth
    of the ``area`` range (``all``, ``small`` < 32^2, ``medium``, ``large`` > 96^2);
    ``iou="mean"`` averages the thresholds 0.50, 0.55, ..., 0.95 (COCO's headline
    AP), ``iou=0.5`` / ``0.75`` take one (AP50, AP75).  Exactly the numbers of
    :func:`coco_evaluate` (``AP``, ``AP50``, ``AP75``, ``AP_small``, ...) and of
    pycocotools' ``COCOeval.summarize()``, except that a number without any
    category with ground truth in the range is NaN here (pycocotools: -1).  Source:
    Lin et al., "Microsoft COCO: common objects in context", ECCV 2014;
    the conventions are those of :mod:`ranklens.detection.coco`.

    >>> gt = {"image_id": [1, 1], "category_id": [1, 1],
    ...       "bbox": [[0, 0, 10, 10], [20, 20, 10, 10]]}
    >>> det = {"image_id": [1, 1], "category_id": [1, 1],
    ...        "bbox": [[0, 0, 10, 10], [50, 50, 10, 10]], "score": [0.9, 0.8]}
    >>> round(coco_ap(gt, det, iou=0.5), 4)  # recall 1/2 at precision 1: 51 of 101 levels
    0.505
    """
    if iou == "mean":
        sel: Any = slice(None)
    elif isinstance(iou, (int, float)) and not isinstance(iou, bool) and iou in (0.5, 0.75):
        sel = None
    else:
        raise InputError(f"the 'iou' parameter must be 0.5, 0.75 or 'mean'. Got {iou!r} instead.")
    r = coco_evaluate(gt, det)
    a = _area_index(r, area)
    if sel is None:
        sel = np.flatnonzero(np.abs(r.iou_thresholds - float(iou)) < 1e-12)
    return _defined_mean(r.precision[sel, :, :, a, 2])


def coco_ar(gt: Any, det: Any, *, max_dets: int = 100, area: str = "all") -> float:
    """COCO average recall: one number of the COCO summary, by its parameters.

    ``AR = mean over categories c and thresholds t in 0.50, 0.55, ..., 0.95 of
    recall_{c,t}``, the share of the ground truth of the ``area`` range (``all``,
    ``small`` < 32^2, ``medium``, ``large`` > 96^2) matched by the ``max_dets`` (1, 10
    or 100) best detections per image.  Exactly the numbers ``AR_1``, ``AR_10``,
    ``AR_100``, ``AR_small``, ... of :func:`coco_evaluate` and of pycocotools'
    ``COCOeval.summarize()``, except that a number without any category with
    ground truth in the range is NaN here (pycocotools: -1).  Source: Lin et al.,
    "Microsoft COCO: common objects in context", ECCV 2014; Hosang et al., "What
    makes for effective detection proposals?", TPAMI 2016.

    >>> gt = {"image_id": [1, 1], "category_id": [1, 1],
    ...       "bbox": [[0, 0, 10, 10], [20, 20, 10, 10]]}
    >>> det = {"image_id": [1, 1], "category_id": [1, 1],
    ...        "bbox": [[0, 0, 10, 10], [20, 20, 10, 10]], "score": [0.9, 0.8]}
    >>> coco_ar(gt, det), coco_ar(gt, det, max_dets=1)  # one box per image finds half
    (1.0, 0.5)
    """
    if (
        isinstance(max_dets, bool)
        or not isinstance(max_dets, (int, np.integer))
        or int(max_dets) not in (1, 10, 100)
    ):
        raise InputError(
            f"the 'max_dets' parameter must be 1, 10 or 100. Got {max_dets!r} instead."
        )
    r = coco_evaluate(gt, det)
    a = _area_index(r, area)
    return _defined_mean(r.recall[:, :, a, r.max_dets.index(int(max_dets))])
