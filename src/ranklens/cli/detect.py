"""``ranklens detect``: COCO evaluation of detections from COCO-format files."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import click

from ranklens.cli._common import (
    check_output,
    progress,
    read_document,
    stage,
    write_output,
)
from ranklens.cli._options import (
    budget_option,
    check_budget,
    format_option,
    output_option,
    quiet_option,
)
from ranklens.errors import InputError
from ranklens.render.scores import FORMATS

__all__ = ["detect_cmd"]


def _numbers(max_dets: str, iou: str | None) -> tuple[tuple[int, ...], list[float] | None]:
    """--max-dets and --iou as numbers."""
    try:
        dets = tuple(int(x) for x in max_dets.split(","))
        thresholds = None if iou is None else [float(x) for x in iou.split(",")]
    except ValueError:
        raise click.UsageError("--max-dets and --iou take comma-separated numbers.") from None
    return dets, thresholds


_INPUT = re.compile(r"^(gt|det)\b(?:\[(\d+)\])?")


@contextmanager
def _files_named(paths: dict[str, str]) -> Iterator[None]:
    """A library error about ``gt`` or ``det`` names the file it was read from, and an
    object of its list by its 1-based number (``det[0] has no 'score'`` ->
    ``det.json: det, object 1 of the list, has no 'score'``)."""
    try:
        yield
    except InputError as exc:
        m = _INPUT.match(str(exc))
        if m is None:
            if str(exc).startswith("mAP is undefined"):  # about the ground truth
                raise InputError(f"{paths['gt']}: {exc}") from None
            raise
        rest = str(exc)[m.end() :]
        if m.group(2) is not None:
            rest = f", object {int(m.group(2)) + 1} of the list,{rest}"
        raise InputError(f"{paths[m.group(1)]}: {m.group(1)}{rest}") from None


@click.command("detect")
@click.argument("ground_truth", type=click.Path(dir_okay=True))
@click.argument("detections", type=click.Path(dir_okay=True))
@click.option(
    "--max-dets",
    default="1,10,100",
    show_default=True,
    help="Detections per image kept for the recall numbers (three values).",
)
@click.option(
    "--iou", "iou", default=None, help="IoU thresholds, comma separated (default 0.50:0.05:0.95)."
)
@click.option("--per-class", is_flag=True, help="Also print the AP of every category.")
@format_option(FORMATS)
@output_option
@quiet_option
@budget_option
def detect_cmd(
    ground_truth: str,
    detections: str,
    max_dets: str,
    iou: str | None,
    per_class: bool,
    fmt: str,
    output: str | None,
    quiet: bool,
    memory: str | None,
) -> None:
    """COCO mAP@[.5:.95] and the other COCO summary numbers of DETECTIONS (a COCO
    results list, JSON) against GROUND_TRUTH (a COCO annotations file, JSON);
    the numbers are identical to pycocotools' COCOeval."""
    import numpy as np

    from ranklens.detection import coco_evaluate
    from ranklens.render.scores import render

    dets, thresholds = _numbers(max_dets, iou)
    check_output(output)
    check_budget([ground_truth, detections], memory)
    with progress(quiet):
        with stage(f"reading {ground_truth}"):
            gt = read_document(ground_truth, "ground-truth")
        with stage(f"reading {detections}"):
            det = read_document(detections, "detections")
        with _files_named({"gt": ground_truth, "det": detections}), stage("evaluating"):
            res = coco_evaluate(
                gt,
                det,
                iou_thresholds=None if thresholds is None else np.array(thresholds),
                max_dets=dets,
            )
    rows = dict(res.summary)
    if per_class:
        rows.update({f"AP[{k}]": v for k, v in res.per_class_ap.items()})
    write_output(render(rows, fmt), output)
