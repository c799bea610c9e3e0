"""Beyond-accuracy metrics of recommendation lists.

Every function takes the recommendations as a :class:`ranklens.Run` (user =
query, item = doc, higher score ranks higher; ties broken as trec_eval does:
item id descending) and an optional cut-off ``k`` (each user's top ``k``).
All are vectorised over users (one sort, segment sums); none builds an
``n_users x n_users`` or ``n_items x n_items`` matrix.

=====================================  =============================================
function                               source
=====================================  =============================================
:func:`catalog_coverage`               Ge, Delgado-Battenfeld & Jannach (2010)
:func:`shannon_entropy`                Shani & Gunawardana (2011), Castells et al. (2015)
:func:`gini_index`                     Fleder & Hosanagar (2009), Castells et al. (2015)
:func:`novelty`                        Zhou et al. (2010); Vargas & Castells (2011)
:func:`intra_list_diversity`           Smyth & McClave (2001), Ziegler et al. (2005);
                                       Vargas & Castells (2011)
:func:`serendipity`                    Ge et al. (2010); Kaminskas & Bridge (2016)
:func:`average_recommendation_popularity`  Abdollahpouri, Burke & Mobasher (2019)
:func:`long_tail_share`                Abdollahpouri, Burke & Mobasher (2019) (APLT)
:func:`personalisation`                Zhou et al. (2010)
=====================================  =============================================

References: M. Ge, C. Delgado-Battenfeld, D. Jannach, "Beyond accuracy:
evaluating recommender systems by coverage and serendipity", RecSys 2010.
G. Shani, A. Gunawardana, "Evaluating recommendation systems", Recommender
Systems Handbook, 2011.  P. Castells, N. Hurley, S. Vargas, "Novelty and
diversity in recommender systems", Recommender Systems Handbook, 2nd ed.,
2015.  D. Fleder, K. Hosanagar, "Blockbuster culture's next rise or fall",
Management Science 55(5), 2009.  T. Zhou et al., "Solving the apparent
diversity-accuracy dilemma of recommender systems", PNAS 107(10), 2010.
S. Vargas, P. Castells, "Rank and relevance in novelty and diversity metrics
for recommender systems", RecSys 2011.  B. Smyth, P. McClave, "Similarity vs.
diversity", ICCBR 2001.  C.-N. Ziegler et al., "Improving recommendation lists
through topic diversification", WWW 2005.  M. Kaminskas, D. Bridge,
"Diversity, serendipity, novelty, and coverage: a survey and empirical
analysis of beyond-accuracy objectives in recommender systems", ACM TiiS 7(1),
2016.  H. Abdollahpouri, R. Burke, B. Mobasher, "Managing popularity bias in
recommender systems with personalized re-ranking", FLAIRS 2019.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens.data import Qrels, Run
from ranklens.errors import InputError

__all__ = [
    "average_recommendation_popularity",
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "long_tail_share",
    "novelty",
    "personalisation",
    "serendipity",
    "shannon_entropy",
]


# -- the recommendation lists, prepared once ---------------------------------------------


@dataclass(frozen=True)
class _Lists:
    """Top-k lists in CSR form: rows grouped by user, rank order inside a user."""

    users: np.ndarray      # distinct user ids (sorted)
    user: np.ndarray       # user code per kept row
    item: np.ndarray       # item id (str) per kept row
    offsets: np.ndarray    # row offsets per user (len = n_users + 1)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)


def _factorize(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct ids (as text) and each value's index into them, like
    ``np.unique(..., return_inverse=True)`` but hashing with Arrow instead of
    sorting every string."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ranklens._arrow import from_numpy, to_numpy
    from ranklens._columns import as_id_column

    arr = values if isinstance(values, pa.Array) else as_id_column(
        values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values, "ids")
    enc = pc.dictionary_encode(arr)
    order = to_numpy(pc.array_sort_indices(enc.dictionary))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    uniques = np.array(enc.dictionary.take(from_numpy(order)).to_pylist(), dtype=str)
    return uniques, rank[to_numpy(enc.indices)]


def _strings(values: Any) -> np.ndarray:
    return np.asarray(values.to_pylist() if hasattr(values, "to_pylist") else values,
                      dtype=object).astype(str)


def _lists(recs: Run, k: int | None, what: str) -> _Lists:
    if not isinstance(recs, Run):
        raise InputError(
            f"{what}: recs must be a ranklens.Run of (user, item, score) rows, got "
            f"{type(recs).__name__}; build one with Run.from_frame(df, query='user_id', "
            "doc='item_id', score='score')."
        )
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1):
        raise InputError(
            f"{what}: the 'k' parameter must be an int in the range [1, inf) or None. "
            f"Got {k!r} instead."
        )
    if len(recs) == 0:
        raise InputError(f"{what}: recs has no rows.")
    tbl = recs.to_arrow()
    users, ucode = _factorize(tbl.column("query").combine_chunks())
    items, icode = _factorize(tbl.column("doc").combine_chunks())
    score = recs.scores
    order = np.lexsort((-icode, -score, ucode))
    u = ucode[order]
    counts = np.bincount(u, minlength=users.size)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    pos = np.arange(u.size) - starts[u]
    keep = order if k is None else order[pos < k]
    u = ucode[keep]
    lengths = np.bincount(u, minlength=users.size)
    return _Lists(users, u, items[icode[keep]], np.r_[0, np.cumsum(lengths)])


def _positions(universe: np.ndarray, values: np.ndarray, what: str, problem: str,
               tail: str) -> np.ndarray:
    """Index of each of ``values`` in ``universe`` (sorted, unique); recommended ids
    that are not there raise :class:`InputError` ("{problem}, e.g. [...]{tail}")."""
    pos = np.searchsorted(universe, values)
    pos_c = np.minimum(pos, universe.size - 1)
    bad = (pos >= universe.size) | (universe[pos_c] != values)
    if bad.any():
        missing = np.unique(values[bad])
        raise InputError(f"{what}: {missing.size} recommended item(s) {problem}, e.g. "
                         f"{missing[:3].tolist()}{tail}")
    return pos_c


def _counts_over(universe: np.ndarray, values: np.ndarray, what: str, label: str) -> np.ndarray:
    """How often each id of ``universe`` (sorted, unique) occurs in ``values``; ids of
    ``values`` outside the universe raise :class:`InputError`."""
    pos = _positions(universe, values, what, f"are not in the {label}",
                     f"; add them to the {label} or remove them from the recommendations.")
    return np.bincount(pos, minlength=universe.size)


def _catalog(catalog: Any, what: str) -> np.ndarray:
    cat = np.unique(_strings(catalog))
    if cat.size == 0:
        raise InputError(f"{what}: the catalog is empty.")
    return cat


def _per_user_mean(lists: _Lists, per_row: np.ndarray) -> np.ndarray:
    sums = np.bincount(lists.user, weights=per_row, minlength=lists.users.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / lists.lengths


# -- coverage ------------------------------------------------------------------------


def catalog_coverage(recs: Run, catalog: Any, *, k: int | None = None) -> float:
    """Share of the catalog that appears in at least one top-``k`` list.

    ``coverage = |U_u L_u| / |I|`` (Ge et al. 2010; "prediction coverage" in
    Shani & Gunawardana 2011).  ``catalog`` lists every recommendable item id;
    recommended items outside it raise :class:`InputError`.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 1}})
    >>> catalog_coverage(recs, ["a", "b", "c", "d"])
    0.5
    """
    what = "catalog_coverage"
    lists = _lists(recs, k, what)
    cat = _catalog(catalog, what)
    counts = _counts_over(cat, lists.item, what, "catalog")
    return float((counts > 0).sum() / cat.size)


def _shares(recs: Run, catalog: Any, k: int | None, what: str) -> np.ndarray:
    lists = _lists(recs, k, what)
    cat = _catalog(catalog, what)
    counts = _counts_over(cat, lists.item, what, "catalog").astype(np.float64)
    return counts / counts.sum()


def shannon_entropy(recs: Run, catalog: Any, *, k: int | None = None,
                    normalise: bool = False) -> float:
    """Shannon entropy (bits) of the distribution of recommendation slots over items.

    ``H = -sum_i p_i log2 p_i`` with ``p_i`` the share of all top-``k`` slots
    taken by item ``i`` (``0 log 0 = 0``).  ``normalise=True`` divides by
    ``log2 |I|`` (1 = every catalog item recommended equally often).  Source:
    Shani & Gunawardana (2011); Castells, Hurley & Vargas (2015).

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 1, "c": 0}})
    >>> shannon_entropy(recs, ["a", "b", "c", "d"])
    1.5
    """
    what = "shannon_entropy"
    p = _shares(recs, catalog, k, what)
    nz = p[p > 0]
    h = float(-(nz * np.log2(nz)).sum())
    if normalise:
        return h / float(np.log2(p.size)) if p.size > 1 else 0.0
    return h


def gini_index(recs: Run, catalog: Any, *, k: int | None = None) -> float:
    """Gini index of how recommendation slots are spread over the catalog.

    With ``p_(1) <= ... <= p_(n)`` the items' shares of the top-``k`` slots
    (``n = |I|``, unrecommended items included with share 0):
    ``G = sum_j (2j - n - 1) p_(j) / (n - 1)``; 0 = perfectly even, 1 = every
    slot on one item.  Source: Fleder & Hosanagar (2009); Castells, Hurley &
    Vargas (2015).

    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"a": 1}})
    >>> gini_index(recs, ["a", "b"])
    1.0
    """
    what = "gini_index"
    p = np.sort(_shares(recs, catalog, k, what))
    n = p.size
    if n == 1:
        return 0.0
    j = np.arange(1, n + 1)
    return float(((2 * j - n - 1) * p).sum() / (n - 1))


# -- popularity-based ----------------------------------------------------------------


def _popularity(train_users: Any, train_items: Any, what: str) -> tuple[np.ndarray, np.ndarray,
                                                                        int]:
    """``(item ids, distinct users per item, number of users)`` of the training log."""
    u = train_users
    i = train_items
    if len(u) != len(i):
        raise InputError(
            f"{what}: train_users and train_items must be equally long (one entry per "
            f"training interaction); got {len(u)} and {len(i)}."
        )
    if len(u) == 0:
        raise InputError(f"{what}: the training interactions are empty.")
    _, ucode = _factorize(u)
    items, icode = _factorize(i)
    pairs = np.unique(icode.astype(np.int64) * (ucode.max() + 1) + ucode)
    users_per_item = np.bincount(pairs // (ucode.max() + 1), minlength=items.size)
    return items, users_per_item, int(ucode.max() + 1)


def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = None) -> float:
    """Mean self-information of the recommended items (bits), averaged over users.

    ``novelty = mean_u (1/|L_u|) sum_{i in L_u} -log2 p(i)`` with
    ``p(i) = |U_i| / |U|``: the share of training users who interacted with
    ``i`` (Zhou et al. 2010; the popularity-based novelty of Vargas & Castells
    2011).  ``train_users`` / ``train_items`` are the user and item columns
    of the training interactions.  An item no training user saw has infinite
    self-information, so it raises :class:`InputError` (filter cold items or
    add them with a prior count).

    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"b": 1}})
    >>> novelty(recs, ["x", "y", "x", "y"], ["a", "a", "b", "a"])  # p(a) = 1, p(b) = 1/2
    0.5
    """
    what = "novelty"
    lists = _lists(recs, k, what)
    items, users_per_item, n_users = _popularity(train_users, train_items, what)
    pos = _positions(items, lists.item, what, "have no training interaction",
                     ", so their self-information is infinite; drop cold items from the "
                     "recommendations or evaluate them separately.")
    info = -np.log2(users_per_item[pos] / n_users)
    return float(np.nanmean(_per_user_mean(lists, info)))


def average_recommendation_popularity(recs: Run, train_items: Any, *,
                                      k: int | None = None) -> float:
    """ARP: the mean over users of the mean training popularity of their list.

    ``ARP = (1/|U|) sum_u (1/|L_u|) sum_{i in L_u} phi(i)`` with ``phi(i)`` the
    number of training interactions of ``i`` (0 for items never seen).
    Source: Abdollahpouri, Burke & Mobasher (2019).

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}})
    >>> average_recommendation_popularity(recs, ["a", "a", "a", "b"])
    2.0
    """
    what = "average_recommendation_popularity"
    lists = _lists(recs, k, what)
    items, codes = _factorize(train_items)
    counts = np.bincount(codes, minlength=items.size)
    phi = _lookup(items, counts, lists.item)
    return float(np.nanmean(_per_user_mean(lists, phi.astype(np.float64))))


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``values`` of ``query`` ids in sorted ``keys`` (0 where absent)."""
    if keys.size == 0:
        return np.zeros(query.size, dtype=values.dtype)
    pos = np.searchsorted(keys, query)
    pos_c = np.minimum(pos, keys.size - 1)
    found = (pos < keys.size) & (keys[pos_c] == query)
    return np.where(found, values[pos_c], 0)


def long_tail_share(recs: Run, train_items: Any, *, k: int | None = None,
                    head_share: float = 0.2) -> float:
    """APLT: the mean over users of the share of long-tail items in their list.

    Items are ranked by training interactions; the short head ``H`` is the
    ``ceil(head_share * m)`` most popular of the ``m`` items seen in training
    (ties at the boundary broken by item id), and the long tail is every other
    item, including items never seen in training.
    ``APLT = (1/|U|) sum_u |L_u \\ H| / |L_u|``.  Source: Abdollahpouri, Burke &
    Mobasher (2019); the head size is a parameter because papers differ
    (20 % of items is the common choice).

    >>> recs = Run.from_dict({"u1": {"a": 2, "c": 1}})
    >>> long_tail_share(recs, ["a"] * 5 + ["b"] * 2 + ["c"] + ["d"] + ["e"], head_share=0.2)
    0.5
    """
    what = "long_tail_share"
    if not isinstance(head_share, (int, float)) or not 0 < head_share < 1:
        raise InputError(
            f"{what}: the 'head_share' parameter must be a float in the open interval (0, 1). "
            f"Got {head_share!r} instead."
        )
    lists = _lists(recs, k, what)
    items, codes = _factorize(train_items)
    counts = np.bincount(codes, minlength=items.size)
    if items.size == 0:
        raise InputError(f"{what}: the training interactions are empty.")
    n_head = int(np.ceil(head_share * items.size))
    head = np.sort(items[np.lexsort((items, -counts))[:n_head]])
    in_head = _lookup(head, np.ones(head.size, dtype=bool), lists.item).astype(bool)
    return float(np.nanmean(_per_user_mean(lists, (~in_head).astype(np.float64))))


# -- diversity, serendipity, personalisation ---------------------------------------------


def _feature_rows(features: Any, what: str) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(features, Mapping):
        ids = _strings(list(features.keys()))
        mat = np.asarray(list(features.values()), dtype=np.float64)
    elif isinstance(features, tuple) and len(features) == 2:
        ids = _strings(features[0])
        mat = np.asarray(features[1], dtype=np.float64)
    else:
        raise InputError(
            f"{what}: features must be a mapping {{item: vector}} or a tuple (item_ids, "
            f"matrix); got {type(features).__name__}."
        )
    if mat.ndim != 2 or mat.shape[0] != ids.size:
        raise InputError(
            f"{what}: the feature matrix must have one row per item id ({ids.size}); got "
            f"shape {mat.shape}."
        )
    order = np.argsort(ids, kind="stable")
    ids, mat = ids[order], mat[order]
    if ids.size > 1 and (ids[1:] == ids[:-1]).any():
        raise InputError(f"{what}: item ids in features are not unique.")
    return ids, mat


def intra_list_diversity(
    recs: Run,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    k: int | None = None,
) -> float:
    """Mean intra-list diversity: average pairwise distance inside each list.

    ``ILD(L) = 1 / (|L| (|L| - 1)) sum_{i != j in L} d(i, j)``, averaged over
    users whose list has at least two items.  ``d = 1 - cos(f_i, f_j)`` for
    item feature vectors (``features``: ``{item: vector}`` or
    ``(item_ids, matrix)``), or ``d = 1`` when two items' ``categories``
    differ and 0 when equal.  Computed without pairs: with unit vectors
    ``sum_{i != j} cos = |sum_i f_i|^2 - |L|``.  Every recommended item must
    have a feature vector / category (:class:`InputError` otherwise), and
    feature vectors must be non-zero.  Sources: Smyth & McClave (2001),
    Ziegler et al. (2005); Vargas & Castells (2011).

    >>> recs = Run.from_dict({"u1": {"a": 3, "b": 2, "c": 1}})
    >>> round(intra_list_diversity(recs, categories={"a": "x", "b": "x", "c": "y"}), 4)
    0.6667
    """
    what = "intra_list_diversity"
    if (features is None) == (categories is None):
        raise InputError(f"{what}: give exactly one of features and categories.")
    lists = _lists(recs, k, what)
    if features is not None:
        ids, mat = _feature_rows(features, what)
        label = "features"
    else:
        assert categories is not None
        ids = _strings(list(categories.keys()))
        cats, ccode = np.unique(_strings(list(categories.values())), return_inverse=True)
        order = np.argsort(ids, kind="stable")
        ids = ids[order]
        mat = np.eye(cats.size)[ccode[order]]
        label = "categories"
    pos_c = _positions(ids, lists.item, what, f"have no {label}",
                       f"; add them to {label} or remove them from the recommendations.")
    norms = np.linalg.norm(mat, axis=1)
    if (norms[pos_c] == 0).any():
        zero = np.unique(lists.item[norms[pos_c] == 0])
        raise InputError(f"{what}: item(s) {zero[:3].tolist()} have an all-zero feature "
                         "vector, so their cosine distance is undefined.")
    unit = mat[pos_c] / norms[pos_c, None]
    sums = np.zeros((lists.users.size, unit.shape[1]))
    np.add.at(sums, lists.user, unit)
    n = lists.lengths.astype(np.float64)
    pair_sim = (sums * sums).sum(axis=1) - n
    ok = n >= 2
    if not ok.any():
        raise InputError(f"{what}: no list has two or more items, so ILD is undefined.")
    ild = 1.0 - pair_sim[ok] / (n[ok] * (n[ok] - 1))
    return float(ild.mean())


def serendipity(recs: Run, qrels: Qrels, baseline: Run, *, k: int | None = None,
                rel_threshold: float = 1.0) -> float:
    """Share of recommended items that are both relevant and unexpected, averaged
    over users.

    ``ser(u) = |{i in L_u : rel(u, i) >= rel_threshold and i not in PM_u}| / |L_u|``
    where ``PM_u`` is user ``u``'s top-``k`` list from a primitive ``baseline``
    recommender (e.g. most popular): what any simple system would have shown
    is not serendipitous.  Users absent from ``qrels`` contribute 0.  Source:
    Ge, Delgado-Battenfeld & Jannach (2010); survey in Kaminskas & Bridge (2016).

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}})
    >>> qrels = Qrels.from_dict({"u1": {"a": 1, "b": 1}})
    >>> serendipity(recs, qrels, Run.from_dict({"u1": {"a": 1}}))
    0.5
    """
    what = "serendipity"
    if not isinstance(qrels, Qrels):
        raise InputError(f"{what}: qrels must be a ranklens.Qrels, got {type(qrels).__name__}.")
    lists = _lists(recs, k, what)
    base = _lists(baseline, k, what)
    q = qrels.to_arrow()
    rel = qrels.relevance >= rel_threshold
    q_users = _strings(q.column("query"))[rel]
    q_items = _strings(q.column("doc"))[rel]
    all_items = np.unique(np.concatenate([lists.item, base.item, q_items]))
    n_items = np.int64(all_items.size)

    def keys(users: np.ndarray, items: np.ndarray) -> np.ndarray:
        ucode = _lookup(lists.users, np.arange(lists.users.size), users)
        known = np.isin(users, lists.users)
        return np.where(known, ucode * n_items + np.searchsorted(all_items, items), -1)

    rec_keys = lists.user.astype(np.int64) * n_items + np.searchsorted(all_items, lists.item)
    rel_keys = keys(q_users, q_items)
    base_keys = keys(base.users[base.user], base.item)
    hit = np.isin(rec_keys, rel_keys) & ~np.isin(rec_keys, base_keys)
    return float(np.nanmean(_per_user_mean(lists, hit.astype(np.float64))))


def personalisation(recs: Run, *, k: int | None = None) -> float:
    """Personalisation: one minus the mean cosine similarity of two users' lists.

    With ``x_u`` the 0/1 item vector of user ``u``'s top-``k`` list,
    ``P = 1 - (1 / (n (n - 1))) sum_{u != v} cos(x_u, x_v)``; for lists of
    equal length ``L`` the cosine is the overlap ``|L_u & L_v| / L``, i.e. the
    mean Hamming distance of Zhou et al. (2010).  Computed exactly in
    ``O(rows)`` (no ``n x n`` matrix): with ``y_u = x_u / |x_u|``,
    ``sum_{u != v} y_u . y_v = |sum_u y_u|^2 - n``.  Needs two or more users.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}})
    >>> round(personalisation(recs), 12)
    0.5
    """
    what = "personalisation"
    lists = _lists(recs, k, what)
    n = lists.users.size
    if n < 2:
        raise InputError(f"{what}: needs recommendations for at least 2 users, got {n}.")
    items, icode = np.unique(lists.item, return_inverse=True)
    weight = 1.0 / np.sqrt(lists.lengths[lists.user])
    s = np.bincount(icode, weights=weight, minlength=items.size)
    return float(1.0 - ((s * s).sum() - n) / (n * (n - 1)))
