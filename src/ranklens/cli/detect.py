"""``ranklens detect``: COCO evaluation of detections from COCO-format files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ranklens.errors import InputError

FORMATS = ("table", "json", "csv")


def _load_json(path: str, what: str) -> Any:
    from ranklens.io._files import read_bytes

    data = read_bytes(path)
    try:
        return json.loads(bytes(data).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the {what} file is not valid UTF-8 text ({exc.reason}).") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column "
                         f"{exc.colno}).") from None


@click.command("detect")
@click.argument("ground_truth", type=click.Path(dir_okay=True))
@click.argument("detections", type=click.Path(dir_okay=True))
@click.option("--max-dets", default="1,10,100", show_default=True,
              help="Detections per image kept for the recall numbers (three values).")
@click.option("--iou", "iou", default=None,
              help="IoU thresholds, comma separated (default 0.50:0.05:0.95).")
@click.option("--per-class", is_flag=True, help="Also print the AP of every category.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table")
def detect_cmd(ground_truth: str, detections: str, max_dets: str, iou: str | None,
               per_class: bool, fmt: str) -> None:
    """COCO mAP@[.5:.95] and the other COCO summary numbers of DETECTIONS (a COCO
    results list, JSON) against GROUND_TRUTH (a COCO annotations file, JSON);
    the numbers are identical to pycocotools' COCOeval."""
    import numpy as np

    from ranklens.detection import coco_evaluate

    try:
        dets = tuple(int(x) for x in max_dets.split(","))
        thresholds = None if iou is None else np.array([float(x) for x in iou.split(",")])
    except ValueError:
        raise click.UsageError("--max-dets and --iou take comma-separated numbers.") from None
    for path in (ground_truth, detections):
        if Path(path).is_dir():
            raise InputError(f"{path}: is a directory, not a file; give a JSON file.")
    gt = _load_json(ground_truth, "ground-truth")
    det = _load_json(detections, "detections")
    res = coco_evaluate(gt, det, iou_thresholds=thresholds, max_dets=dets)
    rows = dict(res.summary)
    if per_class:
        rows.update({f"AP[{k}]": v for k, v in res.per_class_ap.items()})
    if fmt == "json":
        click.echo(json.dumps({k: (None if v != v else v) for k, v in rows.items()}, indent=2))
    elif fmt == "csv":
        click.echo("metric,value")
        for k, v in rows.items():
            click.echo(f"{k},{v!r}")
    else:
        width = max(map(len, rows))
        for k, v in rows.items():
            click.echo(f"{k:<{width}}  {v:.4f}")
