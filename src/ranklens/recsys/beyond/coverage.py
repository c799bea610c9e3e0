"""How the recommendation slots of all lists together spread over the catalog:
catalog coverage, Shannon entropy and the Gini index.  Properties of all lists
together, so they have no per-user value (no ``reduction`` option)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ranklens._shared.arrow import from_numpy
from ranklens.errors import InputError
from ranklens.ranking.data import Run
from ranklens.recsys.beyond._ids import distinct_ids, sorted_order
from ranklens.recsys.beyond._lists import user_lists

__all__ = ["catalog_coverage", "gini_index", "shannon_entropy"]


def catalog_coverage(recs: Run, catalog: Any, *, k: int | None = None,
                     ties: str | None = None, profile: str | None = None) -> float:
    """Share of the catalog that appears in at least one top-``k`` list.

    ``coverage = |U_u L_u| / |I|`` (Ge et al. 2010; "prediction coverage" in
    Shani & Gunawardana 2011).  ``catalog`` lists every recommendable item id;
    recommended items outside it raise :class:`InputError`.  A property of all
    lists together, so there is no per-user value (no ``reduction`` option).

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 1}})
    >>> catalog_coverage(recs, ["a", "b", "c", "d"])
    0.5
    """
    what = "catalog_coverage"
    counts = _catalog_counts(recs, catalog, k, what, ties, profile)
    return float((counts > 0).sum() / counts.size)


def _catalog_counts(recs: Run, catalog: Any, k: int | None, what: str,
                    ties: str | None = None, profile: str | None = None, *,
                    sort: bool = False) -> np.ndarray:
    """How often each catalog item fills a top-``k`` slot (catalog items in sorted id
    order with ``sort=True``, else in any order); recommended items outside the
    catalog raise :class:`InputError`."""
    lists = user_lists(recs, k, what, ties, profile)
    cat, _ = distinct_ids(catalog, f"{what} catalog")
    if len(cat) == 0:
        raise InputError(f"{what}: the catalog is empty.")
    if sort:
        cat = cat.take(from_numpy(sorted_order(cat)))
    pos = lists.positions(cat, what, "are not in the catalog",
                          "; add them to the catalog or remove them from the recommendations.")
    return np.bincount(pos, minlength=len(cat))


def _shares(recs: Run, catalog: Any, k: int | None, what: str, ties: str | None,
            profile: str | None) -> np.ndarray:
    """Each catalog item's share of the top-``k`` slots, items in sorted id order (the
    order the sums run in)."""
    counts = _catalog_counts(recs, catalog, k, what, ties, profile, sort=True).astype(
        np.float64)
    return counts / counts.sum()


def shannon_entropy(recs: Run, catalog: Any, *, k: int | None = None, ties: str | None = None,
                    profile: str | None = None, normalise: bool = False) -> float:
    """Shannon entropy (bits) of the distribution of recommendation slots over items.

    ``H = -sum_i p_i log2 p_i`` with ``p_i`` the share of all top-``k`` slots
    taken by item ``i`` (``0 log 0 = 0``).  ``normalise=True`` divides by
    ``log2 |I|`` (1 = every catalog item recommended equally often).  Source:
    Shani & Gunawardana (2011); Castells, Hurley & Vargas (2015).  A property
    of the distribution over all lists, so there is no per-user value.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 1, "c": 0}})
    >>> shannon_entropy(recs, ["a", "b", "c", "d"])
    1.5
    """
    what = "shannon_entropy"
    p = _shares(recs, catalog, k, what, ties, profile)
    nz = p[p > 0]
    h = float(-(nz * np.log2(nz)).sum())
    if normalise:
        return h / float(np.log2(p.size)) if p.size > 1 else 0.0
    return h


def gini_index(recs: Run, catalog: Any, *, k: int | None = None, ties: str | None = None,
               profile: str | None = None) -> float:
    """Gini index of how recommendation slots are spread over the catalog.

    With ``p_(1) <= ... <= p_(n)`` the items' shares of the top-``k`` slots
    (``n = |I|``, unrecommended items included with share 0):
    ``G = sum_j (2j - n - 1) p_(j) / (n - 1)``; 0 = perfectly even, 1 = every
    slot on one item.  Source: Fleder & Hosanagar (2009); Castells, Hurley &
    Vargas (2015).  A property of the distribution over all lists, so there
    is no per-user value.

    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"a": 1}})
    >>> gini_index(recs, ["a", "b"])
    1.0
    """
    what = "gini_index"
    p = np.sort(_shares(recs, catalog, k, what, ties, profile))
    n = p.size
    if n == 1:
        return 0.0
    j = np.arange(1, n + 1)
    return float(((2 * j - n - 1) * p).sum() / (n - 1))
