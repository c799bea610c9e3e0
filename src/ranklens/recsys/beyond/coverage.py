"""How the recommendation slots of all lists together spread over the catalog:
catalog coverage, Shannon entropy and the Gini index.  Properties of all lists
together, so they have no per-user value (no ``reduction`` option)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ranklens._shared.arrow import from_numpy
from ranklens.errors import InputError
from ranklens.ranking.data import Run
from ranklens.recsys.beyond._ids import distinct_ids, examples, index_in, sorted_order
from ranklens.recsys.beyond._lists import Lists, user_lists

__all__ = ["catalog_coverage", "gini_index", "shannon_entropy"]
# and, for ranklens.spark: slot_counts, catalog_counts, coverage_of, shares_of, entropy_of,
# gini_of (the same numbers from slot counts gathered elsewhere)


def catalog_coverage(
    recs: Run,
    catalog: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
) -> float:
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
    lists = user_lists(recs, k, what, ties, profile)  # which items are used is enough
    return coverage_of(catalog_counts(lists.items, lists.used().view(np.int8), catalog, what))


def coverage_of(counts: np.ndarray) -> float:
    """Catalog coverage from each catalog item's number of top-``k`` slots."""
    return float((counts > 0).sum() / counts.size)


def slot_counts(lists: Lists) -> tuple[pa.Array, np.ndarray]:
    """The items of ``lists`` (text) and how many slots of the lists each fills."""
    return lists.items, lists.item_counts


def catalog_counts(
    items: pa.Array, counts: np.ndarray, catalog: Any, what: str, *, sort: bool = False
) -> np.ndarray:
    """How often each catalog item fills a top-``k`` slot, from the distinct ``items``
    and their slot ``counts`` (catalog items in sorted id order with ``sort=True``, else
    in any order); recommended items outside the catalog raise :class:`InputError`."""
    cat, _ = distinct_ids(catalog, f"{what} catalog")
    if len(cat) == 0:
        raise InputError(f"{what}: the catalog is empty.")
    if sort:
        cat = cat.take(from_numpy(sorted_order(cat)))
    pos = index_in(items, cat)
    used = counts > 0
    bad = used & (pos < 0)
    if bad.any():
        missing = items.filter(from_numpy(bad))
        raise InputError(
            f"{what}: {len(missing)} recommended item(s) are not in the catalog, "
            f"e.g. {examples(missing)}; add them to the catalog or remove them "
            "from the recommendations."
        )
    out = np.zeros(len(cat), dtype=np.int64)
    out[pos[used]] = counts[used]
    return out


def _catalog_counts(
    recs: Run,
    catalog: Any,
    k: int | None,
    what: str,
    ties: str | None = None,
    profile: str | None = None,
    *,
    sort: bool = False,
) -> np.ndarray:
    items, counts = slot_counts(user_lists(recs, k, what, ties, profile))
    return catalog_counts(items, counts, catalog, what, sort=sort)


def shares_of(counts: np.ndarray) -> np.ndarray:
    """Each catalog item's share of the top-``k`` slots, from the counts of
    :func:`catalog_counts` (``sort=True``: items in sorted id order, the order the sums
    run in)."""
    c = counts.astype(np.float64)
    return c / c.sum()


def _shares(
    recs: Run, catalog: Any, k: int | None, what: str, ties: str | None, profile: str | None
) -> np.ndarray:
    return shares_of(_catalog_counts(recs, catalog, k, what, ties, profile, sort=True))


def shannon_entropy(
    recs: Run,
    catalog: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
    normalise: bool = False,
) -> float:
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
    return entropy_of(_shares(recs, catalog, k, "shannon_entropy", ties, profile), normalise)


def entropy_of(p: np.ndarray, normalise: bool) -> float:
    """Shannon entropy (bits) of the shares ``p`` of :func:`shares_of`."""
    nz = p[p > 0]
    h = float(-(nz * np.log2(nz)).sum())
    if normalise:
        return h / float(np.log2(p.size)) if p.size > 1 else 0.0
    return h


def gini_index(
    recs: Run,
    catalog: Any,
    *,
    k: int | None = None,
    ties: str | None = None,
    profile: str | None = None,
) -> float:
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
    return gini_of(_shares(recs, catalog, k, "gini_index", ties, profile))


def gini_of(shares: np.ndarray) -> float:
    """The Gini index of the shares of :func:`shares_of`."""
    p = np.sort(shares)
    n = p.size
    if n == 1:
        return 0.0
    j = np.arange(1, n + 1)
    # in [0, 1] up to rounding (an even spread sums to about +-1e-17): clipped there
    return float(np.clip(((2 * j - n - 1) * p).sum() / (n - 1), 0.0, 1.0))
