"""Render named scores (``ranklens score``: classification, regression, clustering,
entity resolution; ``ranklens detect``: the COCO summary) as text.

A score is a number, or a list of them (a confusion matrix, ``raw_values``).
Formats (:data:`FORMATS`): ``table``, ``markdown`` and ``latex`` (a ``metric``
and a ``value`` column, four decimals, lists as JSON), ``csv`` (the same two
columns in full precision) and ``json`` (``{metric: value}``, NaN and
infinities as ``null``).

    >>> print(render({"accuracy": 0.75, "mae": float("nan")}, "markdown"), end="")
    | metric | value |
    | :-- | --: |
    | accuracy | 0.7500 |
    | mae | NaN |
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ranklens.render.table import LAYOUTS, Table, json_ready, number, render_as

__all__ = ["FORMATS", "render", "scores_table"]

FORMATS: tuple[str, ...] = (*LAYOUTS, "csv", "json")


def _shown(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return json.dumps(json_ready(value))
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    return number(value)


def scores_table(values: Mapping[str, Any]) -> Table:
    """A ``metric`` and a ``value`` column, one row per score."""
    return Table(["metric", "value"], [[name, _shown(v)] for name, v in values.items()])


def _data(value: Any) -> Any:
    """A score as a CSV field: a number in full precision (NaN missing), a list as
    JSON text."""
    if isinstance(value, (list, tuple)):
        return json.dumps(json_ready(value))
    return None if isinstance(value, float) and value != value else value


def _records(values: Mapping[str, Any]) -> Any:
    """The ``metric`` and ``value`` columns: numbers in full precision (text when a
    score is a list)."""
    import pyarrow as pa

    data = [_data(v) for v in values.values()]
    numeric = all(
        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in data
    )
    column = (
        pa.array(data, type=pa.float64())
        if numeric
        else pa.array([None if v is None else str(v) for v in data], pa.string())
    )
    return pa.table({"metric": pa.array(list(values), pa.string()), "value": column})


def render(values: Mapping[str, Any], fmt: str = "table", color: bool | None = None) -> str:
    """Render scores in one of :data:`FORMATS`; the text ends with a newline."""
    return render_as(
        fmt,
        layout=lambda: scores_table(values),
        records=lambda: _records(values),
        document=lambda: dict(values),
        color=color,
    )
