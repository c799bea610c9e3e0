"""The catalogue as data: one record per metric for listings, and the full
description of one metric.

:func:`metric_table` is what ``ranklens metrics`` lists (every metric of every
family, grouped by family, as plain records a table / CSV / JSON / Markdown
renderer prints); :func:`describe` is what ``ranklens metrics NAME`` shows.
Listing reads only the catalogue: no kernel module is imported (a description
imports its one kernel, for the docstring).
"""

from __future__ import annotations

from typing import Any

from ranklens.errors import InputError
from ranklens.metrics.catalogue import FAMILIES, MetricDef
from ranklens.metrics.registry import REGISTRY, get_metric, lookup

__all__ = ["CUTOFFS", "describe", "metric_table"]

#: What a metric's ``cutoff`` declaration means, in words.
CUTOFFS = {
    "optional": "@k optional",
    "required": "@k required",
    "none": "no cutoff",
    "level": "@level (a recall level in [0, 1]) required",
    "multiple": "@x (a multiple of R) required",
}

_DIRECTION = {True: "higher", False: "lower", None: "none"}


def _number(x: float) -> float | str:
    """A range bound as a JSON-safe value: a float, or ``"inf"`` / ``"-inf"``."""
    return x if abs(x) != float("inf") else ("inf" if x > 0 else "-inf")


def _inputs(defn: MetricDef) -> str:
    return "; ".join(" or ".join(i.name for i in group) for group in defn.required_inputs)


def _record(defn: MetricDef) -> dict[str, Any]:
    lo, hi = defn.range if defn.range is not None else (float("-inf"), float("inf"))
    return {
        "family": defn.domain,
        "name": defn.name,
        "aliases": ", ".join(a for a in defn.aliases if a != defn.name),
        "summary": defn.summary,
        "cutoff": CUTOFFS[defn.cutoff],
        "params": ", ".join(p.name for p in defn.all_params),
        "inputs": _inputs(defn),
        "per_query": defn.per_query,
        "min": _number(lo),
        "max": _number(hi),
        "better": _DIRECTION[defn.higher_is_better],
        "trec_eval": defn.trec_name or "",
    }


def metric_table(family: str | None = None) -> list[dict[str, Any]]:
    """One record per metric of the catalogue, grouped by family (in the order of
    :data:`~ranklens.metrics.catalogue.FAMILIES`) and sorted by name inside each.

    Every record has the same keys: ``family``, ``name``, ``aliases`` (comma
    separated), ``summary``, ``cutoff`` (in words), ``params`` (the parameter
    names), ``inputs`` (the data it needs besides its family's main inputs:
    groups separated by ``;``, alternatives by ``or``), ``per_query`` (False: one
    value of the whole evaluation), ``min`` / ``max`` (the range; ``"inf"`` /
    ``"-inf"`` when unbounded), ``better`` (``higher``, ``lower`` or ``none``)
    and ``trec_eval`` (its trec_eval name, or empty).  ``family`` keeps one
    family's metrics.

    >>> rows = metric_table("recsys")
    >>> [(r["name"], r["inputs"]) for r in rows][:2]
    [('arp', 'train'), ('catalog_coverage', 'catalog or train')]
    >>> sorted({r["family"] for r in metric_table()}) == sorted(FAMILIES)
    True
    """
    if family is not None and family not in FAMILIES:
        raise InputError(
            f"unknown metric family {family!r}; the families are {', '.join(map(repr, FAMILIES))}."
        )
    order = {f: i for i, f in enumerate(FAMILIES)}
    defs = sorted(REGISTRY.values(), key=lambda d: (order[d.domain], d.name))
    return [_record(d) for d in defs if family is None or d.domain == family]


def describe(name: str) -> dict[str, Any]:
    """The full description of the metric ``name`` (a name, an alias, a metric
    string such as ``"ndcg(gain=exp2)@10"`` or a trec_eval name), as one record:
    the keys of :func:`metric_table`, with ``aliases`` a list, and ``aggregate``
    (how per-query values combine), ``parameters`` (one record per parameter:
    ``name``, ``default``, ``choices``, ``doc``), ``inputs`` (one record per
    group of alternatives: ``names``, ``keywords``, ``options``, ``doc``) and
    ``doc`` (the kernel's docstring: formula, conventions, source, example).

    >>> d = describe("aplt")
    >>> d["name"], d["family"], [p["name"] for p in d["parameters"]]
    ('long_tail_share', 'recsys', ['head_share'])
    >>> d["inputs"][0]["options"]
    ['--train']
    """
    if not isinstance(name, str):
        raise InputError(f"describe: a metric name must be a string, got {name!r}.")
    found = lookup(name)
    defn = found if found is not None else get_metric(name).definition
    out = _record(defn)
    out["aliases"] = [a for a in defn.aliases if a != defn.name]
    out["aggregate"] = defn.aggregate
    out["parameters"] = [
        {
            "name": p.name,
            "default": p.default,
            "choices": list(p.choices or ()),
            "doc": p.doc,
        }
        for p in defn.all_params
    ]
    out["inputs"] = [
        {
            "names": [i.name for i in group],
            "keywords": [i.keyword for i in group],
            "options": [i.option for i in group if i.option is not None],
            "doc": "; or ".join(i.doc for i in group),
        }
        for group in defn.required_inputs
    ]
    out["doc"] = defn.doc
    return out
