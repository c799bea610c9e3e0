"""Cold / warm / hot segments of users and items, and metrics per segment.

A user (or item) is **cold** when it has no training interaction, **warm**
when it has some, and **hot** when it has more than ``hot_threshold`` (or is
above the ``hot_quantile`` of the non-cold activity counts).  Without a hot
threshold there are only cold and warm.

:func:`evaluate_by_segment` evaluates any ranking metric once with
:func:`ranklens.evaluate` and averages the per-query values inside each user
segment (``by="user"``), or restricts the judgments to each item segment and
evaluates again (``by="item"``: e.g. recall on cold items), and returns one
table.  :func:`evaluate_segments` does the same from recommendation, held-out
and training tables or files (labelling the segments from the training log),
with the keywords of :func:`ranklens.recsys.evaluate_interactions`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.columns import as_id_column
from ranklens._shared.deps import needs
from ranklens._shared.frames import columns_from_frame
from ranklens.errors import InputError
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result, aggregate, evaluate

__all__ = [
    "SEGMENTS",
    "SegmentTable",
    "evaluate_by_segment",
    "evaluate_segments",
    "label_segments",
    "user_segments",
]

SEGMENTS = ("cold", "warm", "hot")
UNLABELLED = "unlabelled"


def _ids(values: Any, what: str) -> np.ndarray:
    """A column of ids (strings or integers, as every id column is read) as NumPy text."""
    return np.asarray(as_id_column(values, what).to_numpy(zero_copy_only=False)).astype(str)


def label_segments(
    train_ids: Any,
    ids: Any = None,
    *,
    hot_threshold: int | None = None,
    hot_quantile: float | None = None,
) -> dict[str, str]:
    """``{id: "cold" | "warm" | "hot"}`` from the ids of the training interactions.

    ``train_ids`` is the user (or item) column of the training interactions
    (one id per interaction); ``ids`` the ids to label (default: every id in
    ``train_ids``; pass the test users/items to see the cold ones).  An id with
    ``c`` training interactions is cold if ``c == 0``, hot if
    ``c > hot_threshold`` (or ``c`` above the ``hot_quantile`` quantile of the
    counts of ``ids`` with ``c > 0``), else warm.  Ids are compared as text.

    >>> label_segments(["a", "a", "a", "b"], ["a", "b", "c"], hot_threshold=2)
    {'a': 'hot', 'b': 'warm', 'c': 'cold'}
    """
    if hot_threshold is not None and hot_quantile is not None:
        raise InputError("label_segments: give hot_threshold or hot_quantile, not both.")
    if hot_threshold is not None and (
        isinstance(hot_threshold, bool)
        or not isinstance(hot_threshold, (int, np.integer))
        or hot_threshold < 1
    ):
        raise InputError(
            "label_segments: the 'hot_threshold' parameter must be an int in the range "
            f"[1, inf). Got {hot_threshold!r} instead."
        )
    if hot_quantile is not None and not (
        isinstance(hot_quantile, (int, float)) and 0 < hot_quantile < 1
    ):
        raise InputError(
            "label_segments: the 'hot_quantile' parameter must be a float in the open interval "
            f"(0, 1). Got {hot_quantile!r} instead."
        )
    train = _ids(train_ids, "train_ids")
    uniq, counts = np.unique(train, return_counts=True)
    targets = uniq if ids is None else np.unique(_ids(ids, "ids"))
    pos = np.searchsorted(uniq, targets)
    pos_c = np.minimum(pos, max(uniq.size - 1, 0))
    found = (
        (pos < uniq.size) & (uniq[pos_c] == targets) if uniq.size else np.zeros(targets.size, bool)
    )
    c = np.where(found, counts[pos_c] if uniq.size else 0, 0)
    threshold: float | None = None
    if hot_threshold is not None:
        threshold = float(hot_threshold)
    elif hot_quantile is not None and (c > 0).any():
        threshold = float(np.quantile(c[c > 0], hot_quantile))
    labels = np.where(c == 0, "cold", "warm").astype(object)
    if threshold is not None:
        labels[c > threshold] = "hot"
    return dict(zip(targets.tolist(), labels.tolist(), strict=True))


@dataclass(frozen=True)
class SegmentTable:
    """Metric aggregates per segment, with the number of queries (users) in each.

    ``values[metric][segment]`` is the aggregate (mean, unless the metric says
    otherwise) over the segment's queries; the ``"all"`` segment is every
    query.  ``results`` holds the underlying :class:`ranklens.Result` (one for
    ``by="user"``, one per segment for ``by="item"``).
    """

    by: str
    segments: tuple[str, ...]
    metrics: tuple[str, ...]
    values: Mapping[str, Mapping[str, float]]
    counts: Mapping[str, int]
    results: Mapping[str, Result]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per segment: ``segment``, ``n_queries`` and one key per metric."""
        return [
            {
                "segment": s,
                "n_queries": self.counts[s],
                **{m: self.values[m][s] for m in self.metrics},
            }
            for s in self.segments
        ]

    def to_frame(self) -> Any:
        """The table as a pandas DataFrame indexed by segment (requires pandas)."""
        with needs("pandas", "ranklens.recsys.segments.to_frame"):
            import pandas as pd

        return pd.DataFrame(self.rows()).set_index("segment")


def _restrict_qrels(qrels: Qrels, keep_docs: np.ndarray) -> Qrels:
    tbl = qrels.to_arrow()
    mask = pc.is_in(tbl.column("doc"), value_set=pa.array(keep_docs.tolist(), pa.string()))
    sub = tbl.filter(mask)
    return Qrels.from_arrays(
        sub.column("query"), sub.column("doc"), sub.column("relevance"), name=qrels.name
    )


def _labels(ids: Any, seg_map: Mapping[str, str]) -> np.ndarray:
    """The label of each id (text) in ``seg_map``, ``"unlabelled"`` where it has none."""
    ids = np.asarray(ids, dtype=object).astype(str)
    keys = np.array(list(seg_map), dtype=str)
    out = np.full(ids.size, UNLABELLED, dtype=object)
    if keys.size == 0 or ids.size == 0:
        return out
    labels = np.array(list(seg_map.values()), dtype=object)
    sorter = np.argsort(keys)
    pos = np.minimum(np.searchsorted(keys, ids, sorter=sorter), keys.size - 1)
    found = keys[sorter[pos]] == ids
    out[found] = labels[sorter[pos[found]]]
    return out


def _segment_order(segments: Mapping[Any, str]) -> tuple[dict[str, str], list[str]]:
    """The segments as ``{id as text: label}`` and the labels in order (cold, warm, hot,
    then the others sorted)."""
    seg_map = {str(k): str(v) for k, v in segments.items()}
    order = [s for s in SEGMENTS if s in seg_map.values()]
    order += sorted(set(seg_map.values()) - set(order))
    return seg_map, order


def user_segments(res: Result, seg_map: Mapping[str, str], order: list[str]) -> SegmentTable:
    """The :class:`SegmentTable` of one evaluation's per-user values: each metric's
    aggregate over the users of each segment (users without a label form
    ``"unlabelled"``)."""
    order = list(order)
    labels = _labels(res.query_ids, seg_map)
    if (labels == UNLABELLED).any():
        order.append(UNLABELLED)
    values: dict[str, dict[str, float]] = {}
    for key in res.metrics:
        how = res.aggregation(key)
        v = res.values[key]
        values[key] = {"all": aggregate(v, how)}
        for s in order:
            values[key][s] = aggregate(v[labels == s], how)
    counts = {"all": len(res.query_ids), **{s: int((labels == s).sum()) for s in order}}
    return SegmentTable("user", ("all", *order), tuple(res.metrics), values, counts, {"all": res})


def evaluate_by_segment(
    qrels: Qrels,
    run: Run,
    metrics: str | Iterable[str],
    segments: Mapping[Any, str],
    *,
    by: str = "user",
    **evaluate_kwargs: Any,
) -> SegmentTable:
    """Evaluate ``metrics`` per user segment or per item segment in one call.

    ``segments`` maps user ids (``by="user"``) or item ids (``by="item"``) to
    a segment label, e.g. from :func:`label_segments`.  For users, ``run`` is
    evaluated once and each segment's row is the aggregate of its users'
    per-query values; users without a label form the ``"unlabelled"`` segment
    (so nothing is silently dropped).  For items, the judgments are restricted
    to the items of each segment (unlabelled judged items form
    ``"unlabelled"``) and the run is evaluated on the users that have
    judgments there: "how well do we find the cold items users went on to
    like".  Keyword arguments go to :func:`ranklens.evaluate` (``profile``,
    ``missing``, ...).

    >>> import ranklens
    >>> qrels = ranklens.Qrels.from_dict({"u1": {"i1": 1}, "u2": {"i2": 1}})
    >>> run = ranklens.Run.from_dict({"u1": {"i1": 1.0}, "u2": {"i3": 1.0}})
    >>> t = evaluate_by_segment(qrels, run, ["p@1"], {"u1": "warm", "u2": "cold"})
    >>> t.values["p@1"]
    {'all': 0.5, 'cold': 0.0, 'warm': 1.0}
    """
    if by not in ("user", "item"):
        raise InputError(f"evaluate_by_segment: by must be 'user' or 'item', got {by!r}.")
    if not isinstance(segments, Mapping):
        raise InputError(
            "evaluate_by_segment: segments must be a mapping {id: label}, e.g. from "
            f"label_segments; got {type(segments).__name__}."
        )
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    seg_map, order = _segment_order(segments)
    if by == "user":
        return user_segments(evaluate(qrels, run, names, **evaluate_kwargs), seg_map, order)
    order = item_order(qrels, seg_map, order)
    results: dict[str, Result] = {"all": evaluate(qrels, run, names, **evaluate_kwargs)}
    for s, sub in item_qrels(qrels, seg_map, order):
        results[s] = evaluate(sub, run.take_queries(sub.query_ids), names, **evaluate_kwargs)
    return item_table(results, order)


def item_order(qrels: Qrels, seg_map: Mapping[str, str], order: list[str]) -> list[str]:
    """The segments of the judged items in order, ``"unlabelled"`` last when a judged
    item has no label."""
    judged = np.unique(_ids(qrels.to_arrow().column("doc"), "qrels doc column"))
    if (_labels(judged, seg_map) == UNLABELLED).any():
        return [*order, UNLABELLED]
    return list(order)


def item_qrels(
    qrels: Qrels, seg_map: Mapping[str, str], order: list[str]
) -> Iterable[tuple[str, Qrels]]:
    """``(segment, the judgments of its items)`` of every segment with a judged item."""
    judged = np.unique(_ids(qrels.to_arrow().column("doc"), "qrels doc column"))
    labels = _labels(judged, seg_map)
    for s in order:
        keep = judged[labels == s]
        if keep.size:
            yield s, _restrict_qrels(qrels, keep)


def item_table(results: Mapping[str, Result], order: list[str]) -> SegmentTable:
    """The :class:`SegmentTable` of one result per item segment (``"all"``: every
    judgment); a segment without a judged item has NaN values and no query."""
    keys = results["all"].metrics
    values = {
        k: {s: (results[s].summary()[k] if s in results else float("nan")) for s in ("all", *order)}
        for k in keys
    }
    counts = {s: (len(results[s].query_ids) if s in results else 0) for s in ("all", *order)}
    return SegmentTable("item", ("all", *order), tuple(keys), values, counts, dict(results))


def evaluate_segments(
    recommendations: Any,
    interactions: Any,
    metrics: Any,
    *,
    train: Any,
    by: str = "user",
    hot_threshold: int | None = None,
    hot_quantile: float | None = None,
    user: str = "user_id",
    item: str = "item_id",
    **options: Any,
) -> SegmentTable:
    """Evaluate recommendations per cold / warm / hot segment of users or items, the
    segments taken from the training log: the one call for tables and files.

    The tables and every keyword are those of
    :func:`ranklens.recsys.evaluate_interactions` (``score=``, ``rank=``,
    ``weight=``, ``k=``, ``item_features=``, conventions, ...); ``train`` (a table or
    path with the ``user`` and ``item`` columns) labels each user (``by="user"``) or
    held-out item (``by="item"``) cold (no training interaction), warm or hot (more
    than ``hot_threshold`` interactions, or above the ``hot_quantile`` of the warm
    counts), as :func:`label_segments`.

    ``by="user"``: one evaluation, then each metric's aggregate over each segment's
    users (ranking and per-user beyond-accuracy metrics).  ``by="item"``: the
    held-out interactions restricted to each item segment and evaluated again, as
    :func:`evaluate_by_segment` does ("how well do we find the cold items users went
    on to like"): each segment's row is :func:`evaluate_interactions` on the held-out
    interactions with that segment's items, so a ranking metric is over those
    judgments, a per-user beyond-accuracy metric is the mean over the users who have
    one (novelty, ILD, ... of their whole lists), and serendipity counts the
    segment's relevant items only.  Metrics of all lists together (coverage,
    entropy, Gini) have no per-user values and are refused.  Without
    ``interactions`` (None) only ``by="user"`` works, with metrics that read no
    held-out interactions.

    >>> recs = {"user_id": ["u1", "u2"], "item_id": ["a", "b"], "score": [1.0, 1.0]}
    >>> held = {"user_id": ["u1", "u2"], "item_id": ["a", "c"]}
    >>> train = {"user_id": ["u1"], "item_id": ["x"]}
    >>> evaluate_segments(recs, held, ["p@1"], train=train).values["p@1"]
    {'all': 0.5, 'cold': 0.0, 'warm': 1.0}
    >>> by_item = evaluate_segments(recs, held, ["p@1", "arp"], train=train, by="item")
    >>> by_item.values["p@1"], by_item.counts  # a and c were never seen in training
    ({'all': 0.5, 'cold': 0.5}, {'all': 2, 'cold': 2})
    """
    from ranklens.recsys.inputs import parse_metrics, per_user_values, read_input
    from ranklens.recsys.interactions import (
        Tables,
        beyond_inputs,
        check_needs,
        check_options,
        evaluate_interactions,
        evaluate_tables,
        read_tables,
    )

    if by not in ("user", "item"):
        raise InputError(f"evaluate_segments: by must be 'user' or 'item', got {by!r}.")
    ranking, beyond = parse_metrics(metrics, options.get("k"))
    whole = [key for key, m in beyond if not m.definition.per_query]
    if whole:
        raise InputError(
            f"evaluate_segments: {', '.join(map(repr, whole))} describe all lists together "
            "and have no per-user values to split by segment; evaluate them with "
            "evaluate_interactions."
        )
    if train is None:
        raise InputError("evaluate_segments: pass train= (the training log) to label segments.")
    if by == "item" and interactions is None:
        raise InputError(
            "evaluate_segments: by='item' splits the held-out interactions by item; pass "
            "interactions=."
        )
    log = columns_from_frame(
        read_input(train, "train", (user, item)), {"user": user, "item": item}, "train"
    )
    train = {user: log["user"], item: log["item"]}  # read once
    if by == "user":
        ev = evaluate_interactions(
            recommendations, interactions, metrics, train=train, user=user, item=item, **options
        )
        labels = label_segments(
            log["user"], ev.result.query_ids, hot_threshold=hot_threshold, hot_quantile=hot_quantile
        )
        return user_segments(ev.result, *_segment_order(labels))
    # by item: every keyword of evaluate_interactions, read once; each segment's
    # held-out interactions evaluated as evaluate_interactions evaluates them
    given = {n: options.pop(n, None) for n in ("catalog", "item_features", "categories")}
    given["train"] = train
    category = options.pop("category", "category")
    columns = {
        n: options.pop(n, d) for n, d in (("score", "score"), ("rank", None), ("weight", None))
    }
    repeats, duplicates = options.pop("repeats", "sum"), options.pop("duplicates", "error")
    missing = options.pop("missing", "zero")
    unjudged = check_options(
        repeats,
        missing,
        duplicates,
        options.pop("unjudged", "skip"),
        options.pop("unjudged_users", None),
    )
    options.pop("k", None)  # applied by parse_metrics
    check_needs(ranking, beyond, True, given)
    tables = read_tables(
        recommendations,
        interactions,
        user=user,
        item=item,
        repeats=repeats,
        duplicates=duplicates,
        **columns,
    )
    data = beyond_inputs(beyond, given, user=user, item=item, category=category)
    assert tables.qrels is not None  # interactions were given

    # per segment: the ranking metrics on the segment's judgments; the beyond-accuracy
    # metrics are values of the users' lists (those that read relevance, serendipity,
    # with the segment's judgments), taken from the evaluation of all judgments for the
    # segment's users, as by="user" takes them
    kwargs: dict[str, Any] = {"missing": missing, "unjudged": unjudged, "conventions": options}
    every = evaluate_tables(tables, ranking, beyond, data, **kwargs).result
    relevance = [(key, m) for key, m in beyond if _reads_held_out(m)]
    lists = tables.run.take_queries(list(every.query_ids))

    def part(qrels: Qrels) -> Result:
        sub = Tables(qrels, tables.run.take_queries(qrels.query_ids))
        res = evaluate_tables(sub, ranking, [], None, **kwargs).result
        values = dict(every.values)
        if relevance:
            values.update(
                per_user_values(
                    relevance,
                    lists,
                    every.query_ids,
                    dataclasses.replace(data, qrels=qrels),
                    {"ties": every.conventions.ties},
                )[0]
            )
        return _with_values(res, every, values, [key for key, _ in beyond])

    labels = label_segments(
        log["item"],
        tables.qrels.to_arrow().column("doc"),
        hot_threshold=hot_threshold,
        hot_quantile=hot_quantile,
    )
    seg_map, order = _segment_order(labels)
    order = item_order(tables.qrels, seg_map, order)
    results = {"all": every}
    for s, sub in item_qrels(tables.qrels, seg_map, order):
        results[s] = part(sub)
    return item_table(results, order)


def _reads_held_out(m: Any) -> bool:
    return any(i.name == "held_out" for group in m.definition.required_inputs for i in group)


def _with_values(
    res: Result, every: Result, values: Mapping[str, np.ndarray], keys: list[str]
) -> Result:
    """``res`` with the values of ``keys`` of its users taken from ``values`` (of the
    users of ``every``, a superset of its users), the metrics in ``every``'s order."""
    from ranklens._shared.arrow import to_numpy

    if not keys:
        return res
    pos = to_numpy(
        pc.index_in(
            pa.array(res.query_ids, pa.string()), value_set=pa.array(every.query_ids, pa.string())
        )
    )
    mine = {**res.values, **{k: values[k][pos] for k in keys}}
    return dataclasses.replace(
        res,
        metrics=every.metrics,
        values={k: mine[k] for k in every.metrics},
        parsed={k: every.parsed[k] for k in every.metrics},
    )
