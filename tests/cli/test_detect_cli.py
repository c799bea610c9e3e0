"""``ranklens detect``: COCO files in, pycocotools' numbers out."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ranklens.cli import main


def _files(tmp_path: Path) -> tuple[Path, Path, dict, list]:
    rng = np.random.default_rng(3)
    images = [{"id": i, "width": 200, "height": 200} for i in range(1, 41)]
    cats = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 7, "name": "c"}]
    anns, dets, k = [], [], 1
    for i in range(1, 41):
        for _ in range(int(rng.integers(0, 4))):
            x, y = (float(v) for v in rng.integers(0, 120, 2))
            w, h = (float(v) for v in rng.integers(4, 80, 2))
            c = int(rng.choice([1, 2, 7]))
            anns.append(
                {
                    "id": k,
                    "image_id": i,
                    "category_id": c,
                    "bbox": [x, y, w, h],
                    "area": w * h,
                    "iscrowd": int(rng.random() < 0.05),
                }
            )
            k += 1
            dets.append(
                {
                    "image_id": i,
                    "category_id": c,
                    "bbox": [x + float(rng.normal(0, 3)), y, w, h],
                    "score": float(rng.random()),
                }
            )
            if rng.random() < 0.5:
                dets.append(
                    {
                        "image_id": i,
                        "category_id": c,
                        "bbox": [x + 20, y + 5, w, h],
                        "score": float(rng.random()),
                    }
                )
    gt = {"images": images, "annotations": anns, "categories": cats}
    gt_path, det_path = tmp_path / "gt.json", tmp_path / "det.json"
    gt_path.write_text(json.dumps(gt))
    det_path.write_text(json.dumps(dets))
    return gt_path, det_path, gt, dets


def test_detect_matches_pycocotools(tmp_path: Path) -> None:
    coco = pytest.importorskip("pycocotools.coco")
    cocoeval = pytest.importorskip("pycocotools.cocoeval")
    gt_path, det_path, gt, dets = _files(tmp_path)
    result = CliRunner().invoke(
        main, ["detect", str(gt_path), str(det_path), "--format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    ours = json.loads(result.output)
    with contextlib.redirect_stdout(io.StringIO()):
        ref = coco.COCO()
        ref.dataset = gt
        ref.createIndex()
        ev = cocoeval.COCOeval(ref, ref.loadRes(dets), "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    np.testing.assert_allclose(list(ours.values())[:12], ev.stats, atol=1e-12)


def test_detect_errors(tmp_path: Path) -> None:
    gt_path, det_path, _, _ = _files(tmp_path)
    runner = CliRunner()
    missing = runner.invoke(main, ["detect", str(gt_path), str(tmp_path / "nope.json")])
    assert missing.exit_code == 3
    assert "no such file" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    broken = runner.invoke(main, ["detect", str(bad), str(det_path)])
    assert broken.exit_code == 3
    assert f"{bad}:1: not valid JSON" in broken.stderr
    usage = runner.invoke(main, ["detect", str(gt_path), str(det_path), "--max-dets", "x"])
    assert usage.exit_code == 2


def test_detect_table_and_csv(tmp_path: Path) -> None:
    gt_path, det_path, _, _ = _files(tmp_path)
    runner = CliRunner()
    table = runner.invoke(main, ["detect", str(gt_path), str(det_path), "--per-class"])
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    # the one table writer of every command: a header, then a metric a row
    assert lines[0].split() == ["metric", "value"] and lines[2].split()[0] == "AP"
    assert lines[-1].split()[0] == "AP[7]"  # per class, by category id
    out = tmp_path / "coco.csv"
    csv = runner.invoke(
        main, ["detect", str(gt_path), str(det_path), "--format", "csv", "-o", str(out)]
    )
    assert csv.exit_code == 0 and csv.stdout == ""
    rows = out.read_text().splitlines()
    assert rows[0] == "metric,value" and len(rows) == 13
    doc = json.loads(
        runner.invoke(main, ["detect", str(gt_path), str(det_path), "--format", "json"]).stdout
    )
    assert float(rows[1].split(",")[1]) == doc["AP"]
