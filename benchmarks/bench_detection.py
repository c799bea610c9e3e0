"""Benchmark ranklens' COCO evaluation against pycocotools and faster-coco-eval.

Run from the repository root::

    python benchmarks/bench_detection.py                # 5,000 images
    python benchmarks/bench_detection.py --images 20000 --repeat 1

Synthetic data: ``--images`` images, ``--cats`` categories, 0-11 ground-truth
boxes per image of all COCO size ranges (6% crowd, ``area`` unlike ``w * h``),
10% empty images, 0-3 jittered detections per ground truth plus 0-5 background
detections per image, scores rounded to 2 decimals (ties), 10% of images
without detections.

Measured (wall clock, best of ``--repeat``), all single-threaded Python calls:

* ``eval``: evaluation of already built inputs -- ranklens ``coco_evaluate`` on
  dicts of numpy arrays; the peers' ``COCOeval`` evaluate + accumulate +
  summarize on already built ``COCO`` objects;
* ``end to end``: from the COCO gt dict and results list -- ranklens
  ``coco_evaluate(gt_dict, results)``; the peers' ``COCO()`` + ``createIndex``
  + ``loadRes`` + evaluate + accumulate + summarize.

Agreement: largest absolute difference of the 12 summary numbers from
pycocotools'.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import platform
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from _timing import best
from ranklens.detection import coco_evaluate


def synthetic(n_img: int, n_cat: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = np.random.default_rng(seed)
    cats = np.arange(1, n_cat + 1)
    n_gt = np.where(rng.random(n_img) < 0.1, 0, rng.integers(1, 12, n_img))
    g_img = np.repeat(np.arange(1, n_img + 1), n_gt)
    ng = len(g_img)
    scale = rng.choice([8.0, 30.0, 60.0, 150.0], ng)
    wh = rng.uniform(0.3, 1.5, (ng, 2)) * scale[:, None]
    xy = rng.uniform(0, 1, (ng, 2)) * [500, 400]
    g_box = np.hstack([xy, wh])
    g_cat = rng.choice(cats, ng)
    g_area = wh[:, 0] * wh[:, 1] * rng.uniform(0.6, 1.0, ng)
    g_crowd = (rng.random(ng) < 0.06).astype(int)
    anns = [
        {
            "id": i + 1,
            "image_id": int(g_img[i]),
            "category_id": int(g_cat[i]),
            "bbox": g_box[i].tolist(),
            "area": float(g_area[i]),
            "iscrowd": int(g_crowd[i]),
        }
        for i in range(ng)
    ]
    # jittered true detections
    k = rng.integers(0, 4, ng)
    src = np.repeat(np.arange(ng), k)
    jit = rng.normal(0, 0.08, (len(src), 4)) * np.hstack([wh[src], wh[src]])
    t_box = g_box[src] + jit
    t_box[:, 2:] = np.maximum(t_box[:, 2:], 0.5)
    t_cat = np.where(rng.random(len(src)) < 0.9, g_cat[src], rng.choice(cats, len(src)))
    t_img = g_img[src]
    # background detections
    nb = rng.integers(0, 6, n_img)
    b_img = np.repeat(np.arange(1, n_img + 1), nb)
    bs = rng.choice([8.0, 30.0, 60.0, 150.0], len(b_img))
    b_box = np.hstack(
        [
            rng.uniform(0, 1, (len(b_img), 2)) * [500, 400],
            rng.uniform(0.3, 1.5, (len(b_img), 2)) * bs[:, None],
        ]
    )
    b_cat = rng.choice(cats, len(b_img))
    d_img = np.concatenate([t_img, b_img])
    d_box = np.vstack([t_box, b_box])
    d_cat = np.concatenate([t_cat, b_cat])
    no_det = rng.random(n_img + 1) < 0.1
    keep = ~no_det[d_img]
    d_img, d_box, d_cat = d_img[keep], d_box[keep], d_cat[keep]
    score = np.round(rng.random(len(d_img)), 2)
    dets = [
        {
            "image_id": int(d_img[i]),
            "category_id": int(d_cat[i]),
            "bbox": d_box[i].tolist(),
            "score": float(score[i]),
        }
        for i in range(len(d_img))
    ]
    gt = {
        "images": [{"id": i} for i in range(1, n_img + 1)],
        "annotations": anns,
        "categories": [{"id": int(c)} for c in cats],
    }
    return gt, dets


def columns(anns: list[dict[str, Any]], det: bool) -> dict[str, np.ndarray]:
    out = {
        "image_id": np.array([a["image_id"] for a in anns]),
        "category_id": np.array([a["category_id"] for a in anns]),
        "bbox": np.array([a["bbox"] for a in anns], dtype=np.float64),
    }
    if det:
        out["score"] = np.array([a["score"] for a in anns])
    else:
        out["area"] = np.array([a["area"] for a in anns])
        out["iscrowd"] = np.array([a["iscrowd"] for a in anns])
    return out


def peer(
    module: str, gt: dict[str, Any], dets: list[dict[str, Any]]
) -> tuple[Callable[[], Any], Callable[[], Any]]:
    if module == "pycocotools":
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval as Eval
    else:
        from faster_coco_eval import COCO
        from faster_coco_eval import COCOeval_faster as Eval

    def build() -> tuple[Any, Any]:
        c = COCO()
        c.dataset = gt
        c.createIndex()
        return c, c.loadRes(dets)

    def evaluate(objs: tuple[Any, Any]) -> np.ndarray:
        e = Eval(objs[0], objs[1], "bbox")
        e.evaluate()
        e.accumulate()
        e.summarize()
        return np.asarray(e.stats[:12], dtype=np.float64)

    with quiet():
        objs = build()
    return (lambda: evaluate(objs)), (lambda: evaluate(build()))


@contextlib.contextmanager
def quiet() -> Any:
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--images", type=int, default=5000)
    ap.add_argument("--cats", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    gt, dets = synthetic(args.images, args.cats, args.seed)
    gcol, dcol = columns(gt["annotations"], False), columns(dets, True)
    print(
        f"{args.images} images, {args.cats} categories, {len(gt['annotations'])} gt boxes, "
        f"{len(dets)} detections; python {platform.python_version()}, "
        f"{platform.machine()}; best of {args.repeat}"
    )
    coco_evaluate(gcol, dcol)  # warm-up (imports)
    rows: dict[str, dict[str, float]] = {}
    stats: dict[str, np.ndarray] = {}
    t_eval, r = best(lambda: coco_evaluate(gcol, dcol), args.repeat)
    t_e2e, _ = best(lambda: coco_evaluate(gt, dets), args.repeat)
    rows["ranklens"] = {"eval": t_eval, "end to end": t_e2e}
    stats["ranklens"] = r.stats
    for name, module in (("pycocotools", "pycocotools"), ("faster-coco-eval", "faster")):
        try:
            ev, e2e = peer(module, gt, dets)
        except ImportError as exc:
            print(f"{name}: not installed ({exc})")
            continue
        with quiet():
            t_eval, s = best(ev, args.repeat)
            t_e2e, _ = best(e2e, args.repeat)
        rows[name] = {"eval": t_eval, "end to end": t_e2e}
        stats[name] = s
    base = rows["ranklens"]
    print(
        f"{'library':<18}{'eval s':>10}{'x ranklens':>12}{'end-to-end s':>15}{'x ranklens':>12}"
        f"{'max |stats - pycocotools|':>28}"
    )
    ref = stats.get("pycocotools")
    for name, row in rows.items():
        diff = float(np.abs(stats[name] - ref).max()) if ref is not None else float("nan")
        print(
            f"{name:<18}{row['eval']:>10.3f}{row['eval'] / base['eval']:>12.1f}"
            f"{row['end to end']:>15.3f}{row['end to end'] / base['end to end']:>12.1f}"
            f"{diff:>28.2e}"
        )


if __name__ == "__main__":
    main()
