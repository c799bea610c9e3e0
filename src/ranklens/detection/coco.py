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

from ranklens.errors import InputError

__all__ = ["DEFAULT_AREA_RANGES", "CocoResult", "coco_evaluate"]

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
        if pa.types.is_list(col.type) or pa.types.is_large_list(col.type) or \
                pa.types.is_fixed_size_list(col.type):
            return np.asarray(col.to_pylist(), dtype=object) if col.null_count else \
                _stack_lists(col)
        return np.asarray(col.to_numpy(zero_copy_only=False))
    if hasattr(col, "to_numpy"):
        col = col.to_numpy()
    a = np.asarray(col)
    if a.dtype == object and a.ndim == 1 and len(a) and isinstance(
            a[0], (list, tuple, np.ndarray)):
        with contextlib.suppress(TypeError, ValueError):
            a = np.asarray([np.asarray(v, dtype=np.float64) for v in a])
    return a


def _stack_lists(col: Any) -> np.ndarray:
    import pyarrow.compute as pc

    lengths = np.asarray(pc.list_value_length(col).to_numpy(zero_copy_only=False))
    values = np.asarray(col.flatten().to_numpy(zero_copy_only=False))
    if len(lengths) and (lengths == lengths[0]).all():
        return values.reshape(len(lengths), int(lengths[0]))
    return np.asarray([values[s:s + n] for s, n in zip(
        np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths, strict=True)], dtype=object)


def _columns(name: str, obj: Any) -> tuple[list[str], Any]:
    if isinstance(obj, Mapping):
        return [str(k) for k in obj], lambda k: obj[k]
    if hasattr(obj, "column_names") and hasattr(obj, "column"):  # pyarrow Table
        return list(obj.column_names), obj.column
    if hasattr(obj, "columns") and hasattr(obj, "__getitem__"):  # pandas / polars
        return [str(c) for c in obj.columns], lambda k: obj[k]
    raise InputError(
        f"{name} must be a dict of arrays, a pandas / polars DataFrame, a pyarrow Table "
        f"or a COCO-format dict, got {type(obj).__name__}."
    )


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
        out["bbox"] = np.asarray(cols["bbox"], dtype=np.float64).reshape(-1, 4) \
            if len(anns) else np.zeros((0, 4))
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
        obj = {"image_id": obj[:, 0].astype(np.int64), "bbox": obj[:, 1:5],
               "score": obj[:, 5], "category_id": obj[:, 6].astype(np.int64)}
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
        box = np.stack([np.asarray(arr(k), dtype=np.float64) for k in "xywh"], axis=1) \
            if len(arr("x")) else np.zeros((0, 4))
        bname = f"{name}['x'/'y'/'w'/'h']"
    if box.ndim == 1 and len(box) == 0:
        box = np.zeros((0, 4))
    if box.dtype == object or box.ndim != 2 or box.shape[1] != 4:
        raise InputError(f"{bname} must be n boxes of 4 numbers [x, y, w, h], "
                         f"got an array of shape {box.shape} and dtype {box.dtype}.")
    box = _numeric(bname, box)
    image = arr("image_id")
    category = arr("category_id")
    for k, a in (("image_id", image), ("category_id", category)):
        if a.ndim != 1:
            raise InputError(f"{name}['{k}'] must be 1-d, got shape {a.shape}.")
        if (a.dtype.kind == "f" and np.isnan(a).any()) or (a.dtype == object and any(
                v is None or v != v for v in a)):
            raise InputError(f"{name}['{k}'] contains NaN or None.")
    n = len(image)
    cols: dict[str, np.ndarray] = {f"{name}['image_id']": image,
                                   f"{name}['category_id']": category, bname: box}
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
        raise InputError(f"{bname} has a negative width or height at row {i}: "
                         f"{box[i].tolist()}; boxes must be [x, y, w, h] with w, h >= 0.")
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
        raise InputError(f"{name} contains NaN or infinite values (first at flat index "
                         f"{bad}); drop or impute them first.")
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

    >>> r = coco_evaluate({"image_id": [1], "category_id": [1], "bbox": [[0, 0, 10, 10]]},
    ...                   {"image_id": [1], "category_id": [1], "bbox": [[0, 0, 10, 10]],
    ...                    "score": [0.9]})
    >>> round(r["AP"], 12), r["AR_100"]  # precision is tp / (tp + fp + 2.2e-16)
    (1.0, 1.0)
    """
    if iou_type != "bbox":
        raise InputError(f"iou_type must be 'bbox' (segm / keypoints are not supported), "
                         f"got {iou_type!r}.")
    thr = np.asarray(np.linspace(0.5, 0.95, 10) if iou_thresholds is None else iou_thresholds,
                     dtype=np.float64).ravel()
    if thr.size == 0 or not np.isfinite(thr).all() or (thr < 0).any() or (thr > 1).any():
        raise InputError(f"iou_thresholds must be non-empty values in [0, 1], got {thr}.")
    try:
        mdets = tuple(sorted(int(m) for m in max_dets))
    except (TypeError, ValueError):
        raise InputError(f"max_dets must be positive integers, got {max_dets!r}.") from None
    if len(mdets) < 3 or mdets[0] < 1 or len(set(mdets)) < len(mdets):
        raise InputError(f"max_dets must be at least three distinct positive integers "
                         f"(AR is reported at the three smallest), got {max_dets!r}.")
    ranges = dict(DEFAULT_AREA_RANGES if area_ranges is None else area_ranges)
    if not ranges:
        raise InputError("area_ranges must name at least one (lo, hi) range.")
    try:
        rng = np.asarray([tuple(map(float, v)) for v in ranges.values()], dtype=np.float64)
    except (TypeError, ValueError):
        rng = np.zeros((0,))
    if rng.ndim != 2 or rng.shape[1] != 2 or np.isnan(rng).any():
        raise InputError(f"area_ranges values must be (lo, hi) pairs, got {ranges!r}.")

    g, images, cat_list = _table("gt", gt, det=False)
    d, _, _ = _table("det", det, det=True)

    # ---- ids -> codes
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
                    "gt['images'] (pycocotools refuses such results too).")
        else:
            img_ids = np.unique(np.concatenate([g.image, d.image]))
        g_img = np.searchsorted(img_ids, g.image)
        d_img = np.searchsorted(img_ids, d.image)
        g_cat = np.searchsorted(cats, g.category)
        d_cat = np.searchsorted(cats, d.category)
    except TypeError as exc:
        raise InputError(f"gt and det ids must be comparable values of one type: {exc}"
                         ) from None
    if len(g_cat) and ((g_cat >= len(cats)).any() or not (
            cats[np.minimum(g_cat, len(cats) - 1)] == g.category).all()):
        raise InputError("gt['category_id'] has ids not listed in gt['categories'].")
    if images is not None and len(g_img) and not (
            img_ids[np.minimum(g_img, len(img_ids) - 1)] == g.image).all():
        raise InputError("gt annotations refer to image ids not listed in gt['images'].")
    n_cat = len(cats)
    keep = d_cat < n_cat
    keep[keep] = cats[d_cat[keep]] == d.category[keep]
    dsel = np.flatnonzero(keep)

    # ---- detections: group by (image, category), rank by score, cap at max(max_dets)
    d_group = d_img[dsel] * n_cat + d_cat[dsel]
    order = np.lexsort((dsel, -d.score[dsel], d_group))
    dsel, d_group = dsel[order], d_group[order]
    _, d_rank = _segments(d_group)
    cap = d_rank < mdets[-1]
    dsel, d_group, d_rank = dsel[cap], d_group[cap], d_rank[cap]
    nd = len(dsel)
    dbox, dscore = d.box[dsel], d.score[dsel]
    darea = dbox[:, 2] * dbox[:, 3]

    # ---- ground truth grouped the same way (input order within a group)
    g_group = g_img * n_cat + g_cat
    gorder = np.argsort(g_group, kind="stable")
    gg_sorted = g_group[gorder]
    gbox, garea = g.box[gorder], g.area[gorder]
    gcrowd, gign0 = g.crowd[gorder], (g.crowd | g.ignore)[gorder]
    ng = len(gorder)

    # ---- all (det, gt) pairs within a group, IoU, drop those below every threshold
    lo = np.searchsorted(gg_sorted, d_group, side="left")
    hi = np.searchsorted(gg_sorted, d_group, side="right")
    cnt = hi - lo
    p_det = np.repeat(np.arange(nd), cnt)
    p_gt = np.repeat(lo, cnt) + (np.arange(int(cnt.sum())) - np.repeat(np.cumsum(cnt) - cnt,
                                                                        cnt))
    p_iou = _pair_iou(dbox[p_det], gbox[p_gt], gcrowd[p_gt])
    thr_eff = np.minimum(thr, 1 - 1e-10)
    live = p_iou >= thr_eff.min()
    p_det, p_gt, p_iou = p_det[live], p_gt[live], p_iou[live]
    p_rank = d_rank[p_det]

    n_t, n_a = len(thr), len(rng)
    # matched gt (index into the sorted gt arrays) per area range, threshold, det; -1 none
    match = np.full((n_a, n_t, nd), -1, np.int64)
    g_ignored = np.empty((n_a, ng), bool)
    for a in range(n_a):
        ign = gign0 | (garea < rng[a, 0]) | (garea > rng[a, 1])
        g_ignored[a] = ign
        if len(p_det) == 0:
            continue
        # candidates of a det in preference order: non-ignored first, larger IoU, later gt
        po = np.lexsort((-p_gt, -p_iou, ign[p_gt], p_det, p_rank))
        s_det, s_gt, s_iou, s_rank = p_det[po], p_gt[po], p_iou[po], p_rank[po]
        valid_iou = s_iou[:, None] >= thr_eff[None, :]
        used = np.zeros((ng, n_t), bool)
        bounds = np.searchsorted(s_rank, np.arange(mdets[-1] + 1))
        for r in range(mdets[-1]):
            s, e = bounds[r], bounds[r + 1]
            if s == e:
                continue
            gts = s_gt[s:e]
            ok = valid_iou[s:e] & (~used[gts] | gcrowd[gts, None])
            dstart, _ = _segments(s_det[s:e])
            pos = np.where(ok, np.arange(e - s)[:, None], e - s)
            first = np.minimum.reduceat(pos, dstart, axis=0)  # (n dets, T)
            hit = first < e - s
            di, ti = np.nonzero(hit)
            chosen = gts[first[di, ti]]
            used[chosen, ti] = True
            match[a, ti, s_det[s:e][dstart[di]]] = chosen

    d_out = (darea[None, :] < rng[:, 0:1]) | (darea[None, :] > rng[:, 1:2])  # (A, D)
    matched = match >= 0
    m_ign = np.take_along_axis(g_ignored[:, None, :].repeat(n_t, 1),
                               np.maximum(match, 0), axis=2) if ng else np.zeros_like(matched)
    tp = matched & ~m_ign
    fp = ~matched & ~d_out[:, None, :]

    # ---- accumulate per category and max_det
    n_r, n_m = len(_REC_THRS), len(mdets)
    precision = -np.ones((n_t, n_r, n_cat, n_a, n_m))
    recall = -np.ones((n_t, n_cat, n_a, n_m))
    gcat_sorted = g_cat[gorder]
    npig = np.zeros((n_cat, n_a), np.int64)
    for a in range(n_a):
        npig[:, a] = np.bincount(gcat_sorted[~g_ignored[a]], minlength=n_cat)
    d_catc = d_cat[dsel]
    acc = np.lexsort((d_rank, d_img[dsel], -dscore, d_catc))
    cstart = np.searchsorted(d_catc[acc], np.arange(n_cat + 1))
    spacing = np.spacing(1)
    for k in range(n_cat):
        idx_k = acc[cstart[k]:cstart[k + 1]]
        for mi, md in enumerate(mdets):
            idx = idx_k[d_rank[idx_k] < md]
            n = len(idx)
            tps = np.cumsum(tp[:, :, idx], axis=2).astype(np.float64)  # (A, T, n)
            fps = np.cumsum(fp[:, :, idx], axis=2).astype(np.float64)
            for a in range(n_a):
                npg = int(npig[k, a])
                if npg == 0:
                    continue
                if n == 0:
                    precision[:, :, k, a, mi] = 0.0
                    recall[:, k, a, mi] = 0.0
                    continue
                tp_a, fp_a = tps[a], fps[a]
                recall[:, k, a, mi] = tp_a[:, -1] / npg
                pr = tp_a / (fp_a + tp_a + spacing)
                env = np.maximum.accumulate(pr[:, ::-1], axis=1)[:, ::-1]
                # first point with recall tp/npg >= level: tp >= j*, the least
                # integer with float(j / npg) >= level (exact, no float offsets)
                j = np.ceil(_REC_THRS * npg)
                j = np.where((j > 0) & ((j - 1) / npg >= _REC_THRS), j - 1, j)
                j = np.where(j / npg < _REC_THRS, j + 1, j)
                j = np.minimum(j, n + 1).astype(np.int64)
                band = n + 2
                flat = (tp_a.astype(np.int64) + (np.arange(n_t) * band)[:, None]).ravel()
                tgt = j[None, :] + (np.arange(n_t) * band)[:, None]
                pos = np.searchsorted(flat, tgt.ravel(), side="left").reshape(n_t, n_r)
                pos -= (np.arange(n_t) * n)[:, None]
                envp = np.concatenate([env, np.zeros((n_t, 1))], axis=1)
                precision[:, :, k, a, mi] = np.take_along_axis(envp, pos, axis=1)

    # ---- summary
    labels = list(ranges)

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
        "AP": ap(), "AP50": ap(0.5), "AP75": ap(0.75),
        "AP_small": ap(area="small"), "AP_medium": ap(area="medium"),
        "AP_large": ap(area="large"),
    }
    for i in range(3):
        summary[f"AR_{mdets[i]}"] = ar(i)
    summary.update({"AR_small": ar(2, "small"), "AR_medium": ar(2, "medium"),
                    "AR_large": ar(2, "large")})
    stats = np.array(list(summary.values()), dtype=np.float64)
    per_class: dict[Any, float] = {}
    a_all = labels.index("all") if "all" in labels else 0
    for k, c in enumerate(cats.tolist()):
        per_class[c] = mean_valid(precision[:, :, k, a_all, 2])
    return CocoResult(stats=stats, summary=summary, per_class_ap=per_class,
                      precision=precision, recall=recall, categories=cats.tolist(),
                      iou_thresholds=thr, area_labels=labels, max_dets=mdets)
