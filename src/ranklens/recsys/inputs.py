"""The tables of a recommender evaluation, from frames or files, and the
beyond-accuracy metrics computed per user of one evaluation.

Used by :func:`ranklens.recsys.evaluate_interactions`: a path is read by
:func:`ranklens.io.read_frame` (ids as text) or, for TREC / JSON runs and
qrels, by :func:`ranklens.io.read_run` / :func:`ranklens.io.read_qrels`; the
inputs a metric needs are those its catalogue entry declares
(:attr:`ranklens.metrics.MetricDef.inputs`), checked before any data is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.frames import column_names, columns_from_frame, is_table
from ranklens.errors import InputError, MetricNameError
from ranklens.io import detect_format, read_frame, read_qrels, read_run
from ranklens.metrics import Metric, get_metric
from ranklens.metrics.catalogue import Input, MetricDef
from ranklens.ranking.data import Qrels, Run

__all__ = [
    "BeyondInputs",
    "check_inputs",
    "input_fingerprints",
    "inputs_read",
    "missing_inputs",
    "parse_metrics",
    "per_user_values",
    "read_held_out",
    "read_input",
    "recommendation_columns",
]

Path = str | os.PathLike[str]


def read_input(data: Any, what: str, id_columns: Sequence[str], value: str | None = None) -> Any:
    """A table given as a frame (returned as it is) or a path: CSV, TSV, Parquet or
    JSON Lines (every column, the ``id_columns`` as text), or a TREC / JSON run or
    qrels file, whose columns are renamed to ``id_columns`` (user, item) and ``value``
    (the score or grade column; None: dropped)."""
    if not isinstance(data, (str, os.PathLike)):
        return data
    fmt, _ = detect_format(data)
    if fmt in ("trec", "json"):
        reader = read_run if value == "score" else read_qrels
        table = reader(data).to_arrow()
        names = {"query": id_columns[0], "doc": id_columns[1]}
        cols = {names[n]: table.column(n) for n in ("query", "doc")}
        if value is not None:
            cols[value] = table.column(table.column_names[2])
        return pa.table(cols)
    return read_frame(data, text=id_columns)


def read_held_out(
    interactions: Any, user: str, item: str, weight: str | None
) -> tuple[Any, str | None]:
    """The held-out interactions (a frame, or a file read by :func:`read_input`) and
    the grade column to read: ``weight``, or for a TREC / JSON qrels file without
    ``weight=`` its grades (``relevance``)."""
    held = read_input(interactions, "interactions", (user, item), weight or "relevance")
    if (
        weight is None
        and isinstance(interactions, (str, os.PathLike))
        and detect_format(interactions)[0] in ("trec", "json")
    ):
        weight = "relevance"
    return held, weight


def recommendation_columns(
    recommendations: Any, score: str | None, rank: str | None
) -> tuple[str | None, str | None, str | None]:
    """The score and rank columns to read, and a note when a ``rank`` column is read
    because the table has no ``score`` column (the default ``score=`` was not given
    otherwise)."""
    if rank is not None or score != "score":
        return score, rank, None
    names = column_names(recommendations, "recommendations")
    if "score" not in names and "rank" in names:
        return (
            None,
            "rank",
            "the recommendations have no 'score' column; their 'rank' column is read as "
            "ranks (1 = best, lower is better). Pass rank= or score= to choose.",
        )
    return score, rank, None


def parse_metrics(
    metrics: Any, k: int | None
) -> tuple[list[tuple[str, Metric]], list[tuple[str, Metric]]]:
    """``(key, metric)`` pairs of the ranking metrics and of the beyond-accuracy
    (recsys) ones, keys as given (with ``@k`` added where ``k`` applies: to every
    metric that takes a cutoff and has none)."""
    from ranklens.ranking.evaluation import metric_list

    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise InputError(f"the 'k' parameter must be an int in the range [1, inf). Got {k!r}.")
    names = metric_list(metrics)
    if not names:
        raise MetricNameError("no metric given: pass at least one, e.g. ['ndcg@10', 'novelty@10'].")
    ranking: list[tuple[str, Metric]] = []
    beyond: list[tuple[str, Metric]] = []
    for spec in names:
        m = get_metric(spec)
        key = str(spec)
        if k is not None and m.k is None and m.definition.cutoff in ("optional", "required"):
            m = get_metric(Metric(m.name, int(k), m.params, m.pinned))
            key = f"{key}@{int(k)}"
        domain = m.definition.domain
        if domain == "ranking":
            ranking.append((key, m))
        elif domain == "recsys":
            beyond.append((key, m))
        else:
            raise MetricNameError(
                f"metric {key!r} is a {domain} metric; evaluate_interactions takes ranking and "
                "recommender (recsys) metrics. Run `ranklens metrics` for the list."
            )
    keys = [key for key, _ in ranking + beyond]
    dup = sorted({key for key in keys if keys.count(key) > 1})
    if dup:
        raise MetricNameError(f"metric(s) {dup} given more than once.")
    return ranking, beyond


def missing_inputs(
    beyond: list[tuple[str, Metric]], given: Mapping[str, bool]
) -> list[tuple[str, tuple[Input, ...]]]:
    """``(metric key, group of inputs)`` for every input group a metric needs (its
    catalogue entry's ``inputs``) of which none is ``given`` (``{input name: given}``),
    in metric order: a command line names its options from the group's ``option``s."""
    return [
        (key, group)
        for key, m in beyond
        for group in m.definition.required_inputs
        if not any(given.get(i.name, False) for i in group)
    ]


def check_inputs(beyond: list[tuple[str, Metric]], given: Mapping[str, bool]) -> None:
    """Every input the metrics need is given; else an :class:`InputError` that names
    the metric and the keyword to pass."""
    for key, group in missing_inputs(beyond, given)[:1]:
        what = " or ".join(f"{i.keyword}= ({i.doc})" for i in group)
        raise InputError(f"metric {key!r} needs {what}; pass {group[0].keyword}=.")


@dataclass(frozen=True)
class BeyondInputs:
    """The data beyond-accuracy metrics read besides the recommendations, as the
    metric functions take it, and the fingerprints of those the metrics read
    (:func:`input_fingerprints`)."""

    qrels: Qrels | None
    train: tuple[Any, Any] | None  # (users, items) of the training log
    catalog: Any  # item ids, or None
    features: Any  # (item ids, matrix) or None
    categories: Mapping[Any, Any] | None
    fingerprints: Mapping[str, str] = field(default_factory=dict)


def inputs_read(beyond: list[tuple[str, Metric]], given: Mapping[str, bool]) -> list[str]:
    """The names of the inputs (besides the held-out interactions) the metrics read:
    of each group of a metric's catalogue ``inputs``, the first one ``given`` (as the
    metric functions are called: the catalog, else the training log's items; item
    features, else categories)."""
    read: dict[str, None] = {}
    for _, m in beyond:
        for group in m.definition.required_inputs:
            first = next((i.name for i in group if given.get(i.name, False)), None)
            if first is not None and first != "held_out":
                read[first] = None
    return list(read)


def input_fingerprints(data: BeyondInputs, names: Sequence[str]) -> dict[str, str]:
    """``{name: SHA-256}`` of the inputs ``names`` of ``data``, by content (see
    :mod:`ranklens._shared.fingerprints`): the training log as a multiset of (user,
    item) rows, the catalog as a set of ids, item features and categories as rows
    keyed by item; the order of rows and the encoding of ids do not change them."""
    from ranklens._shared.fingerprints import ids_digest, keyed_digest, pairs_digest

    out: dict[str, str] = {}
    for name in names:
        if name == "train" and data.train is not None:
            out[name] = pairs_digest(*data.train, "train")
        elif name == "catalog" and data.catalog is not None:
            out[name] = ids_digest(_id_values(data.catalog), "catalog")
        elif name == "item_features" and data.features is not None:
            ids, matrix = (
                data.features
                if isinstance(data.features, tuple)
                else (
                    list(data.features),
                    np.array([np.asarray(v, dtype=np.float64) for v in data.features.values()]),
                )
            )
            out[name] = keyed_digest(_id_values(ids), np.asarray(matrix), "item_features")
        elif name == "categories" and data.categories is not None:
            cats = data.categories
            out[name] = keyed_digest(list(cats), list(cats.values()), "categories")
    return out


def _id_values(ids: Any) -> Any:
    """Ids given as a set (a catalog may be one) as a list; others as they are."""
    return sorted(ids, key=str) if isinstance(ids, (set, frozenset)) else ids


def train_columns(train: Any, user: str, item: str) -> tuple[Any, Any] | None:
    if train is None:
        return None
    cols = columns_from_frame(
        read_input(train, "train", (user, item)), {"user": user, "item": item}, "train"
    )
    return cols["user"], cols["item"]


def catalog_ids(catalog: Any, item: str) -> Any:
    """Item ids from a list / array of ids, a table with the item column, or a path."""
    if catalog is None:
        return None
    if isinstance(catalog, (str, os.PathLike)):
        catalog = read_input(catalog, "catalog", (item,))
    if is_table(catalog) and not isinstance(catalog, (set, frozenset)):
        return columns_from_frame(catalog, {"item": item}, "catalog")["item"]
    return catalog  # a sequence of ids


def item_features(features: Any, item: str) -> Any:
    """Feature vectors: a mapping or ``(ids, matrix)`` as they are; a table (or path)
    of the item column and numeric feature columns as ``(ids, matrix)``."""
    if features is None or isinstance(features, tuple):
        return features
    if isinstance(features, Mapping) and item not in features:
        return features  # {item: vector}; a dict of columns has the item column
    table = read_input(features, "item_features", (item,))
    names = column_names(table, "item_features")
    cols = columns_from_frame(table, {n: n for n in names}, "item_features")
    if item not in cols:
        columns_from_frame(table, {"item": item}, "item_features")  # the error
    from ranklens._shared.columns import as_float_column

    rest = [n for n in names if n != item]
    if not rest:
        raise InputError(f"item_features: the table has no feature column besides {item!r}.")
    matrix = np.column_stack(
        [as_float_column(cols[n], f"item_features column {n!r}") for n in rest]
    )
    return cols[item], matrix


def item_categories(categories: Any, item: str, category: str) -> Mapping[Any, Any] | None:
    """``{item: category}`` from a mapping or a table (or path) with the item and
    ``category`` columns."""
    if categories is None:
        return None
    if isinstance(categories, Mapping) and not (item in categories and category in categories):
        return categories  # {item: category}; a dict of columns has both columns
    table = read_input(categories, "categories", (item, category))
    cols = columns_from_frame(table, {"item": item, "category": category}, "categories")
    from ranklens._shared.columns import to_arrow

    ids = to_arrow(cols["item"], "categories item column").to_pylist()
    labels = to_arrow(cols["category"], "categories category column").to_pylist()
    out = dict(zip(ids, labels, strict=True))
    if len(out) != len(ids):
        raise InputError(
            f"categories: {len(ids) - len(out)} item(s) have more than one row; give one "
            "category per item."
        )
    return out


def _call(
    defn: MetricDef, m: Metric, recs: Run, data: BeyondInputs, list_options: dict[str, Any]
) -> Any:
    """The metric function's value for ``recs``: per user (``reduction="none"``), or one
    number for a metric of all lists together."""
    fn = defn.kernel
    kwargs: dict[str, Any] = {**list_options, **dict(m.params), "k": m.k}
    if defn.per_query:
        kwargs["reduction"] = "none"
    name = defn.name
    items = (
        {"features": data.features}
        if data.features is not None
        else {"categories": data.categories}
    )
    if name in ("novelty",):
        assert data.train is not None
        return fn(recs, *data.train, **kwargs)
    if name in ("arp", "long_tail_share"):
        assert data.train is not None
        return fn(recs, data.train[1], **kwargs)
    if name in ("catalog_coverage", "entropy", "gini"):
        catalog = data.catalog
        if catalog is None:
            assert data.train is not None
            catalog = data.train[1]
        return fn(recs, catalog, **kwargs)
    if name == "ild":
        return fn(recs, **items, **kwargs)
    if name == "personalisation":
        return fn(recs, **kwargs)
    if name == "unexpectedness":
        return fn(recs, data.train, **items, **kwargs)
    if name == "serendipity":
        assert data.qrels is not None
        return fn(recs, data.qrels, profiles=data.train, **items, **kwargs)
    raise AssertionError(name)  # pragma: no cover - every recsys metric is above


def per_user_values(
    beyond: list[tuple[str, Metric]],
    recs: Run,
    users: Sequence[str],
    data: BeyondInputs,
    list_options: dict[str, Any],
) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, int]]:
    """Each beyond-accuracy metric on the lists of ``recs``: per user of ``users``
    (NaN for a user without a list or whose value is undefined), or one value for
    the metrics of all lists together; and the rules' counts (``report`` of the
    metric functions, summed under their names)."""
    values: dict[str, np.ndarray] = {}
    totals: dict[str, float] = {}
    report: dict[str, int] = {}
    import pyarrow.compute as pc

    from ranklens._shared.arrow import to_numpy

    user_set = pa.array(list(users), type=pa.string())
    for key, m in beyond:
        defn = m.definition
        out = _call(defn, m, recs, data, list_options)
        if not defn.per_query:
            totals[key] = float(out)
            continue
        v = np.full(len(users), np.nan)
        pos = pc.index_in(pa.array(out.user_ids, type=pa.string()), value_set=user_set)
        v[to_numpy(pos)] = out.values  # every listed user is one of ``users``
        v.setflags(write=False)
        values[key] = v
        for rule, count in out.report.items():
            report[rule] = max(report.get(rule, 0), int(count))
    return values, totals, report
