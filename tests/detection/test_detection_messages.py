"""Messages show ids as the user wrote them: 99, not np.int64(99)."""

from __future__ import annotations

import numpy as np
import pytest

import ranklens
from ranklens.detection.coco import coco_evaluate
from ranklens.errors import InputError


def test_an_unknown_image_id_is_shown_as_a_python_int() -> None:
    gt = {
        "images": [{"id": 1}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2]}],
        "categories": [{"id": 1}],
    }
    det = [{"image_id": 99, "category_id": 1, "bbox": [0, 0, 2, 2], "score": 0.9}]
    with pytest.raises(InputError) as info:
        coco_evaluate(gt, det)
    assert "det['image_id'] 99 is not among gt['images']" in str(info.value)
    assert "np." not in str(info.value)


def test_from_dict_shows_numpy_values_as_python_values() -> None:
    with pytest.raises(InputError) as info:
        ranklens.Run.from_dict({"q7": {"d1": np.str_("high")}})
    assert "(query 'q7', doc 'd1') is 'high'" in str(info.value)
    assert "np." not in str(info.value)
