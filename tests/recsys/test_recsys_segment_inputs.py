"""Segments with beyond-accuracy inputs (issue 27's remaining gaps): every ``by=``
value with every beyond-accuracy metric of the catalogue, the keywords of
``evaluate_interactions`` read by ``evaluate_segments(by="item")`` (they once reached
``ranklens.evaluate`` and failed with a TypeError), and the held-out interactions
needed only by the metrics that read them."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.metrics.catalogue import CATALOGUE
from ranklens.recsys import evaluate_interactions, evaluate_segments, label_segments
from tests.recsys.test_recsys_from_files import CATS, HELD, RECS, TRAIN, _random_case

#: Every beyond-accuracy metric of the catalogue, at a cutoff, with the parameters it
#: must be given (serendipity: an unexpectedness threshold).
BEYOND = [
    d.name + ("(threshold=0.5)" if d.name == "serendipity" else "") + "@3"
    for d in CATALOGUE
    if d.domain == "recsys"
]
PER_USER = [
    m
    for m, d in zip(BEYOND, [d for d in CATALOGUE if d.domain == "recsys"], strict=True)
    if d.per_query
]
WHOLE = [m for m in BEYOND if m not in PER_USER]


def test_the_catalogue_has_both_kinds() -> None:
    assert "novelty@3" in PER_USER and "catalog_coverage@3" in WHOLE


# ---------------------------------------------------------------- the TypeError, by hand


def test_item_segments_take_the_beyond_accuracy_keywords() -> None:
    """Once a TypeError (evaluate() got an unexpected keyword argument 'catalog'): the
    keywords of evaluate_interactions are read, and ranking numbers do not change."""
    plain = evaluate_segments(RECS, HELD, ["p@2"], train=TRAIN, by="item", hot_threshold=1)
    extra = evaluate_segments(
        RECS,
        HELD,
        ["p@2"],
        train=TRAIN,
        by="item",
        hot_threshold=1,
        catalog=["a", "b", "c", "d", "e"],
        categories=CATS,
        category="category",
        item_features={i: [1.0, float(n)] for n, i in enumerate("abcd")},
    )
    assert extra.rows() == plain.rows()


def test_item_segments_by_hand() -> None:
    """Training interactions per item: a 4, b 2, c 2, d 1, x 0; with hot_threshold=1
    the held-out items are x cold, d warm, b and c hot.  Lists (top 2): u1 [a, b], u2
    [b, d], u3 [a]; held out: u1 c, u2 b d, u3 x."""
    table = evaluate_segments(
        RECS,
        HELD,
        ["p@2", "arp@2", "serendipity(threshold=0.5)@2"],
        train=TRAIN,
        categories=CATS,
        by="item",
        hot_threshold=1,
    )
    assert table.segments == ("all", "cold", "warm", "hot")
    # users with a held-out item of the segment: cold u3 (x); warm u2 (d); hot u1 (c), u2 (b)
    assert table.counts == {"all": 3, "cold": 1, "warm": 1, "hot": 2}
    # p@2: all (0 + 1 + 0) / 3; cold u3 0; warm u2 d of [b, d] 1/2; hot u1 0, u2 b 1/2
    assert table.values["p@2"] == pytest.approx({"all": 1 / 3, "cold": 0, "warm": 0.5, "hot": 0.25})
    # arp@2 of the users' lists: u1 (4 + 2) / 2, u2 (2 + 1) / 2, u3 4
    assert table.values["arp@2"] == pytest.approx(
        {"all": 8.5 / 3, "cold": 4.0, "warm": 1.5, "hot": 2.25}
    )
    # serendipitous: relevant in the segment and off the profile (u1 {a: x}, u2 {c: y},
    # u3 {b: x}): u2's b (x) only, which is hot; u2's d (y) is on its profile
    assert table.values["serendipity(threshold=0.5)@2"] == pytest.approx(
        {"all": 0.5 / 3, "cold": 0.0, "warm": 0.0, "hot": 0.25}
    )


# ---------------------------------------------------- every metric, every by=, generated


def _case(seed: int) -> dict[str, Any]:
    c = _random_case(seed)
    # users u0, u1 and items i00, i01 become cold; cold items are not recommended (their
    # novelty would be infinite)
    rec_ok = [i not in ("i00", "i01") for i in c["recs"]["item_id"]]
    c["recs"] = {
        k: [v for v, ok in zip(col, rec_ok, strict=True) if ok] for k, col in c["recs"].items()
    }
    keep = [
        u not in ("u0", "u1") and i not in ("i00", "i01")
        for u, i in zip(c["train"]["user_id"], c["train"]["item_id"], strict=True)
    ]
    c["train"] = {
        k: [v for v, ok in zip(col, keep, strict=True) if ok] for k, col in c["train"].items()
    }
    return c


def _kwargs(c: dict[str, Any], metric: str, seed: int) -> dict[str, Any]:
    """Every input a metric may read; item features or categories by the seed."""
    items = {"item_features": c["feats"]} if seed % 2 else {"categories": c["cats"]}
    return {"train": c["train"], "catalog": sorted(set(c["train"]["item_id"])), **items}


#: cold users have no training profile: their unexpectedness and serendipity are
#: undefined, left out of the means, and a warning says so
NO_PROFILE = pytest.mark.filterwarnings(
    "ignore:.*no training profile:ranklens.errors.RanklensWarning"
)


def _mean(values: np.ndarray) -> float:
    ok = values[~np.isnan(values)]
    return float(ok.mean()) if ok.size else math.nan


def _same(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    np.testing.assert_allclose(list(a.values()), list(b.values()), rtol=1e-12, atol=0)


@NO_PROFILE
@pytest.mark.parametrize("metric", PER_USER)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_user_segments_are_the_means_of_each_users_values(metric: str, seed: int) -> None:
    c = _case(seed)
    kw = _kwargs(c, metric, seed)
    table = evaluate_segments(
        c["recs"], c["held"], [metric, "p@2"], by="user", hot_quantile=0.5, **kw
    )
    ev = evaluate_interactions(c["recs"], c["held"], [metric, "p@2"], **kw)
    labels = label_segments(c["train"]["user_id"], ev.result.query_ids, hot_quantile=0.5)
    assert "cold" in labels.values()
    users = np.array(ev.result.query_ids)
    seg = np.array([labels[u] for u in ev.result.query_ids])
    for m in (metric, "p@2"):
        v = np.asarray(ev.result.values[m])
        want = {"all": _mean(v), **{s: _mean(v[seg == s]) for s in table.segments[1:]}}
        _same(table.values[m], want)
    assert table.counts == {
        "all": len(users),
        **{s: int((seg == s).sum()) for s in table.segments[1:]},
    }


@NO_PROFILE
@pytest.mark.parametrize("metric", PER_USER)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_item_segments_are_evaluations_of_each_segments_interactions(
    metric: str, seed: int
) -> None:
    """Each item segment's row is over the users with a held-out row of that segment's
    items: a ranking metric is evaluate_interactions on those rows; a beyond-accuracy
    metric is the mean of those users' values (as by="user" takes them), one that reads
    relevance (serendipity) with the segment's rows as the relevant items."""
    c = _case(seed)
    kw = _kwargs(c, metric, seed)
    table = evaluate_segments(
        c["recs"], c["held"], [metric, "p@2"], by="item", hot_quantile=0.5, **kw
    )
    labels = label_segments(c["train"]["item_id"], c["held"]["item_id"], hot_quantile=0.5)
    assert "cold" in labels.values()
    held = c["held"]
    every = evaluate_interactions(c["recs"], held, [metric, "p@2"], **kw).result
    per_user = {m: every.per_query(m) for m in (metric, "p@2")}
    reads_relevance = metric.startswith("serendipity")
    want: dict[str, dict[str, float]] = {metric: {}, "p@2": {}}
    counts = {}
    for s in table.segments:
        rows = [s == "all" or labels[i] == s for i in held["item_id"]]
        part = {k: [v for v, ok in zip(col, rows, strict=True) if ok] for k, col in held.items()}
        users = sorted(set(part["user_id"]))
        recs = {
            k: [v for v, u in zip(col, c["recs"]["user_id"], strict=True) if u in users]
            for k, col in c["recs"].items()
        }
        ev = evaluate_interactions(recs, part, ["p@2"], **kw)
        assert sorted(ev.result.query_ids) == users
        want["p@2"][s] = ev.summary()["p@2"]
        if reads_relevance:  # every list, the segment's relevant items
            zero = evaluate_interactions(c["recs"], part, [metric], unjudged="zero", **kw)
            values = zero.result.per_query(metric)
        else:
            values = per_user[metric]
        want[metric][s] = _mean(np.array([values[u] for u in users]))
        counts[s] = len(users)
    for m in want:
        _same(table.values[m], want[m])
    assert table.counts == counts


@pytest.mark.parametrize("metric", WHOLE)
@pytest.mark.parametrize("by", ["user", "item"])
def test_metrics_of_all_lists_are_refused_by_name(metric: str, by: str) -> None:
    c = _case(0)
    with pytest.raises(ranklens.InputError, match=f"'{metric}'.*no per-user values"):
        evaluate_segments(c["recs"], c["held"], [metric], by=by, **_kwargs(c, metric, 0))


@pytest.mark.parametrize("by", ["user", "item"])
def test_a_missing_input_is_named_by_its_keyword(by: str) -> None:
    c = _case(0)
    with pytest.raises(ranklens.InputError, match="'ild@3' needs item_features="):
        evaluate_segments(c["recs"], c["held"], ["ild@3"], train=c["train"], by=by)


# ------------------------------------------------ held-out interactions only when read


@NO_PROFILE
@pytest.mark.parametrize("metric", BEYOND)
def test_held_out_interactions_only_for_the_metrics_that_read_them(metric: str) -> None:
    """Every beyond-accuracy metric of the catalogue: without the held-out interactions
    it is evaluated over every recommended user, or, when its catalogue entry reads
    them (serendipity), refused naming it and interactions=."""
    c = _case(1)
    kw = _kwargs(c, metric, 1)
    defn = next(d for d in CATALOGUE if d.domain == "recsys" and metric.startswith(d.name))
    if "held_out" in defn.inputs:
        with pytest.raises(ranklens.InputError, match=re.escape(f"'{metric}' needs interactions=")):
            evaluate_interactions(c["recs"], None, [metric], **kw)
        return
    ev = evaluate_interactions(c["recs"], None, [metric], **kw)
    assert ev.result.query_ids == tuple(sorted(set(c["recs"]["user_id"])))
    # the values of the lists alone: those of the evaluation with held-out interactions
    # that keeps every listed user (unjudged="zero")
    full = evaluate_interactions(c["recs"], c["held"], [metric], unjudged="zero", **kw)
    listed = set(c["recs"]["user_id"])
    if defn.per_query:
        want = {u: v for u, v in full.result.per_query(metric).items() if u in listed}
        got = ev.result.per_query(metric)
        assert got.keys() == want.keys()
        np.testing.assert_allclose(
            [got[u] for u in want], list(want.values()), rtol=1e-12, equal_nan=True
        )
    else:
        assert ev.totals[metric] == pytest.approx(full.totals[metric], rel=1e-12)


def test_user_segments_without_held_out_interactions() -> None:
    """u1, u2, u3 have a training profile of one interaction each: all warm; arp@2 of
    their lists (a 4, b 2, c 2, d 1 training interactions): u1 3, u2 1.5, u3 4."""
    t = evaluate_segments(RECS, None, ["arp@2"], train=TRAIN)
    assert t.values["arp@2"] == pytest.approx({"all": 8.5 / 3, "warm": 8.5 / 3})
    with pytest.raises(ranklens.InputError, match="'mrr' needs the held-out interactions"):
        evaluate_segments(RECS, None, ["mrr"], train=TRAIN)
