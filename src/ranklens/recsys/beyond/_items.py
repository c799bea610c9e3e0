"""Item descriptions for the distance-based metrics (intra-list diversity,
unexpectedness, serendipity): unit feature vectors or category codes, one row per item
id, and the bound on how much of them one gathered block may hold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens.errors import InputError
from ranklens.recsys.beyond._ids import distinct_ids, examples
from ranklens.recsys.beyond._lists import Lists

__all__ = ["BLOCK_VALUES", "Items", "check_nonzero", "item_table"]

BLOCK_VALUES = 1 << 22
"""At most this many float64 values in one gathered block of feature rows (32 MiB)."""


def _feature_rows(features: Any, what: str) -> tuple[pa.Array, np.ndarray]:
    """The item id of each feature row (text, distinct) and the float64 matrix."""
    if isinstance(features, Mapping):
        keys: Any = list(features.keys())
        mat = np.asarray(list(features.values()), dtype=np.float64)
    elif isinstance(features, tuple) and len(features) == 2:
        keys = features[0]
        mat = np.asarray(features[1], dtype=np.float64)
    else:
        raise InputError(
            f"{what}: features must be a mapping {{item: vector}} or a tuple (item_ids, "
            f"matrix); got {type(features).__name__}."
        )
    ids, codes = distinct_ids(keys, f"{what} feature item ids")
    if mat.ndim != 2 or mat.shape[0] != codes.size:
        raise InputError(
            f"{what}: the feature matrix must have one row per item id ({codes.size}); got "
            f"shape {mat.shape}."
        )
    if len(ids) != codes.size:
        raise InputError(f"{what}: item ids in features are not unique.")
    ids = ids.take(from_numpy(codes))
    bad = ~np.isfinite(mat).all(axis=1).reshape(-1)
    if bad.any():
        raise InputError(
            f"{what}: the feature vector(s) of {int(bad.sum())} item(s) contain "
            f"NaN or infinite values, e.g. {examples(ids.filter(from_numpy(bad)))}."
        )
    return ids, mat


def _category_codes(values: list[Any]) -> np.ndarray:
    """A code per category label; labels are compared as text (1 and "1" are equal)."""
    arr: pa.Array | None
    try:
        arr = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        arr = None
    if (
        arr is None
        or arr.null_count
        or not (
            pa.types.is_string(arr.type)
            or pa.types.is_large_string(arr.type)
            or pa.types.is_integer(arr.type)
        )
    ):
        arr = pa.array([str(v) for v in values], type=pa.string())
    return to_numpy(pc.dictionary_encode(arr).indices).astype(np.int64)


@dataclass(frozen=True)
class Items:
    """Item descriptions, one row per item id: unit feature vectors or category codes."""

    ids: pa.Array  # distinct item ids (text), one per row
    label: str  # "features" | "categories"
    unit: np.ndarray | None = None  # unit vectors (all-zero rows stay zero)
    norm: np.ndarray | None = None
    cat: np.ndarray | None = None  # category code per item

    def rows_of(self, lists: Lists, what: str) -> np.ndarray:
        """Per kept row of ``lists``, the row of its item here; recommended items
        without a description raise :class:`InputError`."""
        return lists.positions(
            self.ids,
            what,
            f"have no {self.label}",
            f"; add them to {self.label} or remove them from the recommendations.",
        )


def item_table(features: Any, categories: Any, what: str) -> Items:
    """The item descriptions given as ``features`` (``{item: vector}`` or ``(item_ids,
    matrix)``) or ``categories`` (``{item: category}``): exactly one of them."""
    if (features is None) == (categories is None):
        raise InputError(
            f"{what}: give exactly one of features and categories (what the "
            "distance between a recommended item and the profile items is "
            "measured on)."
        )
    if features is not None:
        ids, mat = _feature_rows(features, what)
        norm = np.linalg.norm(mat, axis=1)
        unit = mat / np.where(norm > 0, norm, 1.0)[:, None]
        return Items(ids, "features", unit=unit, norm=norm)
    if not isinstance(categories, Mapping):
        raise InputError(
            f"{what}: categories must be a mapping {{item: category}}; got "
            f"{type(categories).__name__}."
        )
    ids, codes = distinct_ids(list(categories.keys()), f"{what} category item ids")
    if len(ids) != codes.size:
        raise InputError(f"{what}: item ids in categories are not unique (as text).")
    return Items(
        ids.take(from_numpy(codes)), "categories", cat=_category_codes(list(categories.values()))
    )


def check_nonzero(items: Items, pos: np.ndarray, what: str) -> None:
    """The feature vectors of the rows ``pos`` are non-zero (a cosine needs a length)."""
    assert items.norm is not None
    zero = items.norm[pos] == 0
    if zero.any():
        bad = items.ids.take(from_numpy(np.unique(pos[zero])))
        raise InputError(
            f"{what}: item(s) {examples(bad)} have an all-zero feature "
            "vector, so their cosine distance is undefined."
        )
