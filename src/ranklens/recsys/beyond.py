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
:func:`unexpectedness`                 Vargas & Castells (2011) (EPD);
                                       Kaminskas & Bridge (2014, 2016)
:func:`average_recommendation_popularity`  Abdollahpouri, Burke & Mobasher (2019)
:func:`long_tail_share`                Abdollahpouri, Burke & Mobasher (2019) (APLT)
:func:`personalisation`                Zhou et al. (2010)
=====================================  =============================================

**Per-user values.**  Every metric that is a mean over users (novelty, ARP,
long-tail share, ILD, serendipity, unexpectedness, personalisation) takes
``per_user=True`` and then returns a :class:`UserValues` instead of the float:
``.mean`` is exactly the float returned by default, ``.per_user()`` gives
``{user id: value}`` (NaN for a user whose value is undefined, e.g. a
one-item list for ILD), ``.to_frame()`` a pandas frame indexed by user and
``.report`` how many users each rule touched.  Coverage, entropy and the Gini
index describe the distribution of all recommendation slots over the catalog
and have no per-user value.

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
"Measuring surprise in recommender systems", RecSys 2014 workshop REDD.
M. Kaminskas, D. Bridge,
"Diversity, serendipity, novelty, and coverage: a survey and empirical
analysis of beyond-accuracy objectives in recommender systems", ACM TiiS 7(1),
2016.  H. Abdollahpouri, R. Burke, B. Mobasher, "Managing popularity bias in
recommender systems with personalized re-ranking", FLAIRS 2019.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np

from ranklens.data import Qrels, Run
from ranklens.errors import InputError, RanklensWarning

__all__ = [
    "UserValues",
    "average_recommendation_popularity",
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "long_tail_share",
    "novelty",
    "personalisation",
    "serendipity",
    "shannon_entropy",
    "unexpectedness",
]

# at most this many float64 values in one gathered block of feature rows (32 MiB)
_BLOCK_VALUES = 1 << 22


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
    if isinstance(arr, pa.ChunkedArray):   # large numpy inputs come back chunked
        arr = arr.combine_chunks()
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
    pos_c = np.minimum(pos, max(universe.size - 1, 0))
    bad = (pos >= universe.size) | (universe[pos_c] != values if universe.size else True)
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


# -- per-user values -------------------------------------------------------------------


def _mean(values: np.ndarray) -> float:
    """Mean of the defined (non-NaN) per-user values."""
    v = values[~np.isnan(values)]
    return float(v.mean()) if v.size else float("nan")


@dataclass(frozen=True)
class UserValues:
    """Per-user values of one beyond-accuracy metric (``per_user=True``).

    ``values[j]`` belongs to ``user_ids[j]`` (users in sorted id order, every
    user of the recommendations); NaN marks a user whose value is undefined
    under the metric's documented rule (e.g. a one-item list for ILD, a user
    without a training profile for profile-based serendipity).  ``report``
    counts the users each rule touched.

    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"b": 1}})
    >>> v = novelty(recs, ["x", "y", "x", "y"], ["a", "a", "b", "a"], per_user=True)
    >>> v.per_user()
    {'u1': 0.0, 'u2': 1.0}
    >>> v.mean
    0.5
    """

    metric: str
    user_ids: tuple[str, ...]
    values: np.ndarray
    report: Mapping[str, int] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """The mean over users with a defined value: what the metric returns by default."""
        return _mean(self.values)

    def per_user(self) -> dict[str, float]:
        """``{user id: value}``, users in sorted id order (NaN where undefined)."""
        return dict(zip(self.user_ids, self.values.tolist(), strict=True))

    def to_arrow(self) -> Any:
        """A pyarrow table with columns ``user`` and the metric name."""
        import pyarrow as pa

        return pa.table({"user": pa.array(self.user_ids, type=pa.string()),
                         self.metric: self.values})

    def to_frame(self) -> Any:
        """Per-user values as a pandas DataFrame indexed by user, one column named
        after the metric (requires pandas); join several with ``pandas.concat(...,
        axis=1)``."""
        return self.to_arrow().to_pandas().set_index("user")

    def __len__(self) -> int:
        return len(self.user_ids)

    def __repr__(self) -> str:
        defined = int((~np.isnan(self.values)).sum())
        return (f"<UserValues {self.metric}: mean={self.mean:.4f} over {defined} of "
                f"{len(self.user_ids)} users>")


def _check_per_user(per_user: Any, what: str) -> None:
    if not isinstance(per_user, (bool, np.bool_)):
        raise InputError(f"{what}: per_user must be True or False, got {per_user!r}.")


def _result(what: str, lists: _Lists, values: np.ndarray, per_user: bool,
            report: Mapping[str, int] | None = None) -> float | UserValues:
    values = np.asarray(values, dtype=np.float64)
    if not per_user:
        return _mean(values)
    values.setflags(write=False)
    return UserValues(what, tuple(lists.users.tolist()), values, dict(report or {}))


# -- coverage ------------------------------------------------------------------------


def catalog_coverage(recs: Run, catalog: Any, *, k: int | None = None) -> float:
    """Share of the catalog that appears in at least one top-``k`` list.

    ``coverage = |U_u L_u| / |I|`` (Ge et al. 2010; "prediction coverage" in
    Shani & Gunawardana 2011).  ``catalog`` lists every recommendable item id;
    recommended items outside it raise :class:`InputError`.  A property of all
    lists together, so there is no per-user value (no ``per_user`` option).

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
    Shani & Gunawardana (2011); Castells, Hurley & Vargas (2015).  A property
    of the distribution over all lists, so there is no per-user value.

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
    Vargas (2015).  A property of the distribution over all lists, so there
    is no per-user value.

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


@overload
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = ...,
            per_user: Literal[False] = ...) -> float: ...
@overload
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = ...,
            per_user: Literal[True]) -> UserValues: ...
@overload
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = ...,
            per_user: bool) -> float | UserValues: ...
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = None,
            per_user: bool = False) -> float | UserValues:
    """Mean self-information of the recommended items (bits), averaged over users.

    ``novelty = mean_u novelty(u)``, ``novelty(u) = (1/|L_u|) sum_{i in L_u}
    -log2 p(i)`` with ``p(i) = |U_i| / |U|``: the share of training users who
    interacted with ``i`` (Zhou et al. 2010; the popularity-based novelty of
    Vargas & Castells 2011).  ``train_users`` / ``train_items`` are the user
    and item columns of the training interactions.  An item no training user
    saw has infinite self-information, so it raises :class:`InputError`
    (filter cold items or add them with a prior count).  ``per_user=True``
    returns the :class:`UserValues` of ``novelty(u)``.

    >>> recs = Run.from_dict({"u1": {"a": 1}, "u2": {"b": 1}})
    >>> novelty(recs, ["x", "y", "x", "y"], ["a", "a", "b", "a"])  # p(a) = 1, p(b) = 1/2
    0.5
    """
    what = "novelty"
    _check_per_user(per_user, what)
    lists = _lists(recs, k, what)
    items, users_per_item, n_users = _popularity(train_users, train_items, what)
    pos = _positions(items, lists.item, what, "have no training interaction",
                     ", so their self-information is infinite; drop cold items from the "
                     "recommendations or evaluate them separately.")
    info = -np.log2(users_per_item[pos] / n_users)
    return _result(what, lists, _per_user_mean(lists, info), per_user)


@overload
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = ...,
                                      per_user: Literal[False] = ...) -> float: ...
@overload
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = ...,
                                      per_user: Literal[True]) -> UserValues: ...
@overload
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = ...,
                                      per_user: bool) -> float | UserValues: ...
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = None,
                                      per_user: bool = False) -> float | UserValues:
    """ARP: the mean over users of the mean training popularity of their list.

    ``ARP = (1/|U|) sum_u ARP(u)``, ``ARP(u) = (1/|L_u|) sum_{i in L_u} phi(i)``
    with ``phi(i)`` the number of training interactions of ``i`` (0 for items
    never seen).  Source: Abdollahpouri, Burke & Mobasher (2019).
    ``per_user=True`` returns the :class:`UserValues` of ``ARP(u)``.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}})
    >>> average_recommendation_popularity(recs, ["a", "a", "a", "b"])
    2.0
    """
    what = "average_recommendation_popularity"
    _check_per_user(per_user, what)
    lists = _lists(recs, k, what)
    items, codes = _factorize(train_items)
    counts = np.bincount(codes, minlength=items.size)
    phi = _lookup(items, counts, lists.item)
    return _result(what, lists, _per_user_mean(lists, phi.astype(np.float64)), per_user)


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``values`` of ``query`` ids in sorted ``keys`` (0 where absent)."""
    if keys.size == 0:
        return np.zeros(query.size, dtype=values.dtype)
    pos = np.searchsorted(keys, query)
    pos_c = np.minimum(pos, keys.size - 1)
    found = (pos < keys.size) & (keys[pos_c] == query)
    return np.where(found, values[pos_c], 0)


def _codes(keys: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each ``query`` value in sorted ``keys`` and whether it is there."""
    if keys.size == 0:
        return np.zeros(query.size, dtype=np.int64), np.zeros(query.size, dtype=bool)
    pos = np.minimum(np.searchsorted(keys, query), keys.size - 1)
    return pos, keys[pos] == query


@overload
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = ...,
                    head_share: float = ..., per_user: Literal[False] = ...) -> float: ...
@overload
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = ...,
                    head_share: float = ..., per_user: Literal[True]) -> UserValues: ...
@overload
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = ...,
                    head_share: float = ..., per_user: bool) -> float | UserValues: ...
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = None,
                    head_share: float = 0.2, per_user: bool = False) -> float | UserValues:
    """APLT: the mean over users of the share of long-tail items in their list.

    Items are ranked by training interactions; the short head ``H`` is the
    ``ceil(head_share * m)`` most popular of the ``m`` items seen in training
    (ties at the boundary broken by item id), and the long tail is every other
    item, including items never seen in training.
    ``APLT = (1/|U|) sum_u |L_u \\ H| / |L_u|``.  Source: Abdollahpouri, Burke &
    Mobasher (2019); the head size is a parameter because papers differ
    (20 % of items is the common choice).  ``per_user=True`` returns the
    :class:`UserValues` of ``|L_u \\ H| / |L_u|``.

    >>> recs = Run.from_dict({"u1": {"a": 2, "c": 1}})
    >>> long_tail_share(recs, ["a"] * 5 + ["b"] * 2 + ["c"] + ["d"] + ["e"], head_share=0.2)
    0.5
    """
    what = "long_tail_share"
    _check_per_user(per_user, what)
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
    return _result(what, lists, _per_user_mean(lists, (~in_head).astype(np.float64)),
                   per_user)


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
    bad = ~np.isfinite(mat).all(axis=1)
    if bad.any():
        raise InputError(f"{what}: the feature vector(s) of {int(bad.sum())} item(s) contain "
                         f"NaN or infinite values, e.g. {ids[bad][:3].tolist()}.")
    return ids, mat


@overload
def intra_list_diversity(recs: Run, *, features: Any = ...,
                         categories: Mapping[Any, Any] | None = ..., k: int | None = ...,
                         per_user: Literal[False] = ...) -> float: ...
@overload
def intra_list_diversity(recs: Run, *, features: Any = ...,
                         categories: Mapping[Any, Any] | None = ..., k: int | None = ...,
                         per_user: Literal[True]) -> UserValues: ...
@overload
def intra_list_diversity(recs: Run, *, features: Any = ...,
                         categories: Mapping[Any, Any] | None = ..., k: int | None = ...,
                         per_user: bool) -> float | UserValues: ...
def intra_list_diversity(
    recs: Run,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    k: int | None = None,
    per_user: bool = False,
) -> float | UserValues:
    """Mean intra-list diversity: average pairwise distance inside each list.

    ``ILD(L) = 1 / (|L| (|L| - 1)) sum_{i != j in L} d(i, j)``, averaged over
    users whose list has at least two items.  ``d = 1 - cos(f_i, f_j)`` for
    item feature vectors (``features``: ``{item: vector}`` or
    ``(item_ids, matrix)``), or ``d = 1`` when two items' ``categories``
    differ and 0 when equal.  Computed without pairs: with unit vectors
    ``sum_{i != j} cos = |sum_i f_i|^2 - |L|``.  Every recommended item must
    have a feature vector / category (:class:`InputError` otherwise), and
    feature vectors must be non-zero and finite.  ``per_user=True`` returns the
    :class:`UserValues` of ``ILD(L_u)``: NaN for one-item lists (counted in
    ``report["users_with_one_item"]``).  Sources: Smyth & McClave (2001),
    Ziegler et al. (2005); Vargas & Castells (2011).

    >>> recs = Run.from_dict({"u1": {"a": 3, "b": 2, "c": 1}})
    >>> round(intra_list_diversity(recs, categories={"a": "x", "b": "x", "c": "y"}), 4)
    0.6667
    """
    what = "intra_list_diversity"
    _check_per_user(per_user, what)
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
    ild = np.full(n.size, np.nan)
    ild[ok] = 1.0 - pair_sim[ok] / (n[ok] * (n[ok] - 1))
    return _result(what, lists, ild, per_user, {"users_with_one_item": int((~ok).sum())})


def _pair_rows(lists: _Lists, users: np.ndarray, items: np.ndarray) -> np.ndarray:
    """For each recommended row, whether its (user, item) pair is among ``(users, items)``."""
    ucode, known = _codes(lists.users, users)
    items = items[known]
    universe = np.unique(np.concatenate([lists.item, items]))
    n = np.int64(universe.size)
    rec_keys = lists.user.astype(np.int64) * n + np.searchsorted(universe, lists.item)
    keys = ucode[known].astype(np.int64) * n + np.searchsorted(universe, items)
    return np.isin(rec_keys, keys)


def _relevant_rows(lists: _Lists, qrels: Qrels, rel_threshold: float) -> tuple[np.ndarray, int]:
    """Whether each recommended row is relevant, and how many users have no judgment."""
    q = qrels.to_arrow()
    q_users = _strings(q.column("query"))
    rel = qrels.relevance >= rel_threshold
    hit = _pair_rows(lists, q_users[rel], _strings(q.column("doc"))[rel])
    return hit, int((~np.isin(lists.users, q_users)).sum())


# -- unexpectedness against the user's training profile ------------------------------------


@dataclass(frozen=True)
class _Items:
    """Item descriptions sorted by id: unit feature vectors or category codes."""

    ids: np.ndarray
    label: str                        # "features" | "categories"
    unit: np.ndarray | None = None    # unit vectors (all-zero rows stay zero)
    norm: np.ndarray | None = None
    cat: np.ndarray | None = None     # category code per item


def _item_table(features: Any, categories: Any, what: str) -> _Items:
    if (features is None) == (categories is None):
        raise InputError(f"{what}: give exactly one of features and categories (what the "
                         "distance between a recommended item and the profile items is "
                         "measured on).")
    if features is not None:
        ids, mat = _feature_rows(features, what)
        norm = np.linalg.norm(mat, axis=1)
        unit = mat / np.where(norm > 0, norm, 1.0)[:, None]
        return _Items(ids, "features", unit=unit, norm=norm)
    if not isinstance(categories, Mapping):
        raise InputError(f"{what}: categories must be a mapping {{item: category}}; got "
                         f"{type(categories).__name__}.")
    ids = _strings(list(categories.keys()))
    _, code = np.unique(_strings(list(categories.values())), return_inverse=True)
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    if ids.size > 1 and (ids[1:] == ids[:-1]).any():
        raise InputError(f"{what}: item ids in categories are not unique (as text).")
    return _Items(ids, "categories", cat=code.reshape(-1)[order].astype(np.int64))


def _check_nonzero(items: _Items, pos: np.ndarray, what: str) -> None:
    assert items.norm is not None
    zero = items.norm[pos] == 0
    if zero.any():
        bad = np.unique(items.ids[pos[zero]])
        raise InputError(f"{what}: item(s) {bad[:3].tolist()} have an all-zero feature "
                         "vector, so their cosine distance is undefined.")


@dataclass(frozen=True)
class _Profiles:
    """Distinct (recommended user, profile item) pairs in CSR form, grouped by user."""

    pos: np.ndarray       # row of each profile item in the item table
    size: np.ndarray      # |P_u| per recommended user (0 = no profile)
    offsets: np.ndarray   # pair offsets per user (len = n_users + 1)


def _profiles(profiles: Any, lists: _Lists, items: _Items, what: str) -> _Profiles:
    if not (isinstance(profiles, tuple) and len(profiles) == 2):
        raise InputError(
            f"{what}: profiles must be a tuple (train_users, train_items): the user and "
            f"item columns of the training interactions; got {type(profiles).__name__}."
        )
    train_users, train_items = profiles
    if len(train_users) != len(train_items):
        raise InputError(
            f"{what}: the train_users and train_items of profiles must be equally long (one "
            f"entry per training interaction); got {len(train_users)} and {len(train_items)}."
        )
    if len(train_users) == 0:
        raise InputError(f"{what}: the training interactions (profiles) are empty.")
    uids, ucode = _factorize(train_users)
    iids, icode = _factorize(train_items)
    rec_code, is_rec = _codes(lists.users, uids)
    keep = is_rec[ucode]                      # interactions of recommended users only
    pair_user = rec_code[ucode[keep]].astype(np.int64)
    pair_item = icode[keep]
    used = np.flatnonzero(np.bincount(pair_item, minlength=iids.size))
    row, found = _codes(items.ids, iids[used])
    if not found.all():
        missing = iids[used[~found]]
        raise InputError(
            f"{what}: {missing.size} item(s) in the training profiles of recommended users "
            f"have no {items.label}, e.g. {missing[:3].tolist()}; add them to {items.label} "
            "or drop those interactions from profiles."
        )
    row_of = np.zeros(iids.size, dtype=np.int64)
    row_of[used] = row
    n_items = np.int64(items.ids.size)
    key = np.sort(pair_user * n_items + row_of[pair_item])     # sorted by user, then item
    key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key   # distinct pairs
    size = np.bincount(key // n_items, minlength=lists.users.size)
    return _Profiles(key % n_items, size, np.r_[0, np.cumsum(size)])


def _profile_similarity(lists: _Lists, rec_pos: np.ndarray, prof: _Profiles,
                        unit: np.ndarray, how: str) -> np.ndarray:
    """Mean (``how="mean"``) or largest (``"min"`` distance) cosine similarity of each
    recommended row with its user's profile items; NaN for users without a profile.

    Users are processed in blocks of consecutive users so that no gathered block of
    feature rows holds more than ``_BLOCK_VALUES`` numbers (one user that needs more
    is a block on its own); there is no loop over single users."""
    n_users = lists.users.size
    dim = max(unit.shape[1], 1)
    n_rec = lists.lengths.astype(np.int64)
    n_prof = prof.size.astype(np.int64)
    cost = (n_rec * n_prof if how == "min" else n_rec + n_prof + 1) * dim
    cum = np.cumsum(cost)
    out = np.full(rec_pos.size, np.nan)
    a = 0
    while a < n_users:
        done = int(cum[a - 1]) if a else 0
        b = max(int(np.searchsorted(cum, done + _BLOCK_VALUES, side="right")), a + 1)
        r0, r1 = int(lists.offsets[a]), int(lists.offsets[b])
        user = lists.user[r0:r1]
        sel = np.flatnonzero(n_prof[user] > 0)
        if sel.size:
            user, pos, cnt = user[sel], rec_pos[r0:r1][sel], n_prof[user[sel]]
            if how == "mean":
                # segment sum of the unit profile vectors of the users in [a, b)
                p0, p1 = int(prof.offsets[a]), int(prof.offsets[b])
                has = np.flatnonzero(n_prof[a:b] > 0)
                sums = np.zeros((b - a, unit.shape[1]))
                sums[has] = np.add.reduceat(unit[prof.pos[p0:p1]],
                                            prof.offsets[a:b][has] - p0, axis=0)
                sim = np.einsum("ij,ij->i", unit[pos], sums[user - a]) / cnt
            else:
                # every (recommended item, profile item) pair of the block, then a segment max
                first = np.cumsum(cnt) - cnt
                row = np.repeat(np.arange(sel.size), cnt)
                within = np.arange(row.size) - first[row]
                other = prof.pos[prof.offsets[user][row] + within]
                sims = np.einsum("ij,ij->i", unit[pos[row]], unit[other])
                sim = np.maximum.reduceat(sims, first)
            out[r0 + sel] = sim
        a = b
    return out


def _unexpectedness_rows(lists: _Lists, profiles: Any, features: Any, categories: Any,
                         profile_distance: str, no_profile: str,
                         what: str) -> tuple[np.ndarray, np.ndarray]:
    """``unexp(i, u)`` of every recommended row (NaN for users without a profile) and
    the mask of those users."""
    if profile_distance not in ("mean", "min"):
        raise InputError(f"{what}: profile_distance must be 'mean' or 'min', got "
                         f"{profile_distance!r}.")
    if no_profile not in ("skip", "error"):
        raise InputError(f"{what}: no_profile must be 'skip' or 'error', got {no_profile!r}.")
    items = _item_table(features, categories, what)
    rec_pos = _positions(items.ids, lists.item, what, f"have no {items.label}",
                         f"; add them to {items.label} or remove them from the "
                         "recommendations.")
    prof = _profiles(profiles, lists, items, what)
    if items.unit is not None:
        _check_nonzero(items, rec_pos, what)
        _check_nonzero(items, prof.pos, what)
    missing = prof.size == 0
    n_users = lists.users.size
    if missing.all():
        raise InputError(
            f"{what}: none of the {n_users} recommended user(s) has a training profile "
            f"(e.g. {lists.users[:3].tolist()}); check that the user ids of recs and profiles "
            "match."
        )
    if missing.any():
        m = int(missing.sum())
        examples = lists.users[missing][:3].tolist()
        if no_profile == "error":
            raise InputError(
                f"{what}: {m} recommended user(s) have no training profile, e.g. {examples}, "
                "so their unexpectedness is undefined; drop them from the recommendations or "
                "pass no_profile='skip' to leave them out of the mean."
            )
        warnings.warn(
            f"{what}: {m} of {n_users} recommended user(s) have no training profile, e.g. "
            f"{examples}; their unexpectedness is undefined, so they are left out of the mean "
            "(no_profile='skip'; per_user=True shows them as NaN).",
            RanklensWarning,
            stacklevel=3,
        )
    if items.cat is not None:
        # categories: cos is 1 for the same category, else 0 -> count same-category items
        n_cats = np.int64(items.cat.max() + 1)
        user_prof = np.repeat(np.arange(n_users, dtype=np.int64), prof.size)
        keys = np.sort(user_prof * n_cats + items.cat[prof.pos])
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        keys, counts = keys[starts], np.diff(np.r_[starts, keys.size])
        same = _lookup(keys, counts, lists.user.astype(np.int64) * n_cats + items.cat[rec_pos])
        with np.errstate(invalid="ignore", divide="ignore"):
            sim = (same / prof.size[lists.user] if profile_distance == "mean"
                   else (same > 0).astype(np.float64))
        sim[missing[lists.user]] = np.nan
    else:
        assert items.unit is not None
        sim = _profile_similarity(lists, rec_pos, prof, items.unit, profile_distance)
    return 1.0 - sim, missing


def _threshold(threshold: Any, what: str) -> float:
    if threshold is None:
        raise InputError(
            f"{what}: with profiles=... give threshold=: a recommended item is unexpected "
            "when its distance to the user's profile is above it (cosine distances lie in "
            "[0, 2], category distances in [0, 1])."
        )
    if (isinstance(threshold, (bool, np.bool_))
            or not isinstance(threshold, (int, float, np.integer, np.floating))
            or not np.isfinite(threshold)):
        raise InputError(f"{what}: the 'threshold' parameter must be a finite number. "
                         f"Got {threshold!r} instead.")
    return float(threshold)


@overload
def unexpectedness(recs: Run, profiles: Any, *, features: Any = ...,
                   categories: Mapping[Any, Any] | None = ..., profile_distance: str = ...,
                   k: int | None = ..., no_profile: str = ...,
                   per_user: Literal[False] = ...) -> float: ...
@overload
def unexpectedness(recs: Run, profiles: Any, *, features: Any = ...,
                   categories: Mapping[Any, Any] | None = ..., profile_distance: str = ...,
                   k: int | None = ..., no_profile: str = ...,
                   per_user: Literal[True]) -> UserValues: ...
@overload
def unexpectedness(recs: Run, profiles: Any, *, features: Any = ...,
                   categories: Mapping[Any, Any] | None = ..., profile_distance: str = ...,
                   k: int | None = ..., no_profile: str = ...,
                   per_user: bool) -> float | UserValues: ...
def unexpectedness(
    recs: Run,
    profiles: Any,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    profile_distance: str = "mean",
    k: int | None = None,
    no_profile: str = "skip",
    per_user: bool = False,
) -> float | UserValues:
    """Mean distance of the recommended items from the user's training profile.

    ``P_u`` is the set of distinct items in user ``u``'s training interactions
    (``profiles = (train_users, train_items)``, the user and item columns of
    the training log; repeats count once).  The distance ``d(i, j)`` of two
    items is ``1 - cos(f_i, f_j)`` for feature vectors (``features``:
    ``{item: vector}`` or ``(item_ids, matrix)``; in ``[0, 2]``) or 1 when
    their ``categories`` differ and 0 when equal, as in
    :func:`intra_list_diversity`.  The unexpectedness of item ``i`` for ``u``:

    * ``profile_distance="mean"`` (default):
      ``unexp(i, u) = (1/|P_u|) sum_{j in P_u} d(i, j)``, the expected profile
      distance (EPD) of Vargas & Castells (2011) without rank or relevance
      discount, the content-based unexpectedness surveyed by Kaminskas &
      Bridge (2016).  Computed exactly without pairs:
      ``unexp(i, u) = 1 - f_i . c_u`` with unit vectors and
      ``c_u = (1/|P_u|) sum_{j in P_u} f_j`` (a segment sum per user), so the
      cost is ``O((|L| + |P|) dim)``.  This is the mean distance, not the
      cosine distance to the normalised centroid (which would weigh a
      profile's spread differently).
    * ``profile_distance="min"``: ``unexp(i, u) = min_{j in P_u} d(i, j)``, the
      content-based surprise of Kaminskas & Bridge (2014): an item is only as
      surprising as the closest item the user already knows, so a broad
      profile does not dilute it.  Needs every (recommended item, profile
      item) pair: ``sum_u |L_u| |P_u|`` dot products, vectorised over blocks
      of users with bounded memory.

    With categories both variants count same-category profile items
    (``mean``: ``1 - |{j in P_u : c_j = c_i}| / |P_u|``; ``min``: 0 if any
    profile item shares ``i``'s category, else 1) and need no vectors.

    ``unexpectedness = mean_u (1/|L_u|) sum_{i in L_u} unexp(i, u)`` over
    users with a profile.  A recommended user without any training
    interaction has no profile, so their value is undefined:
    ``no_profile="skip"`` (default) leaves them out of the mean with a
    :class:`~ranklens.errors.RanklensWarning` that gives their number
    (``report["users_without_profile"]``; NaN in ``per_user=True``),
    ``no_profile="error"`` raises :class:`InputError`.  Recommended items
    and the profile items of recommended users must all have features
    (non-zero, finite) or a category: unknown ids raise :class:`InputError`
    (never silently dropped); training interactions of users who are not
    recommended to are ignored.  ``per_user=True`` returns the
    :class:`UserValues` of the per-user means.

    >>> recs = Run.from_dict({"u1": {"a": 2, "c": 1}})
    >>> profile = (["u1", "u1"], ["a", "b"])          # u1 knows a and b
    >>> cats = {"a": "x", "b": "x", "c": "y"}
    >>> unexpectedness(recs, profile, categories=cats)  # a: 0, c: 1
    0.5
    >>> feats = {"a": [1, 0], "b": [0, 1], "c": [1, 1]}
    >>> # mean: a (0 + 1) / 2, c (2 - sqrt 2) / 2; min: a 0, c 1 - 1 / sqrt 2
    >>> round(unexpectedness(recs, profile, features=feats), 4)
    0.3964
    >>> round(unexpectedness(recs, profile, features=feats, profile_distance="min"), 4)
    0.1464
    """
    what = "unexpectedness"
    _check_per_user(per_user, what)
    lists = _lists(recs, k, what)
    unexp, missing = _unexpectedness_rows(lists, profiles, features, categories,
                                          profile_distance, no_profile, what)
    return _result(what, lists, _per_user_mean(lists, unexp), per_user,
                   {"users_without_profile": int(missing.sum())})


# -- serendipity ---------------------------------------------------------------------------


@overload
def serendipity(recs: Run, qrels: Qrels, baseline: Run | None = ..., *, profiles: Any = ...,
                features: Any = ..., categories: Mapping[Any, Any] | None = ...,
                threshold: float | None = ..., profile_distance: str = ...,
                k: int | None = ..., rel_threshold: float = ..., no_profile: str = ...,
                per_user: Literal[False] = ...) -> float: ...
@overload
def serendipity(recs: Run, qrels: Qrels, baseline: Run | None = ..., *, profiles: Any = ...,
                features: Any = ..., categories: Mapping[Any, Any] | None = ...,
                threshold: float | None = ..., profile_distance: str = ...,
                k: int | None = ..., rel_threshold: float = ..., no_profile: str = ...,
                per_user: Literal[True]) -> UserValues: ...
@overload
def serendipity(recs: Run, qrels: Qrels, baseline: Run | None = ..., *, profiles: Any = ...,
                features: Any = ..., categories: Mapping[Any, Any] | None = ...,
                threshold: float | None = ..., profile_distance: str = ...,
                k: int | None = ..., rel_threshold: float = ..., no_profile: str = ...,
                per_user: bool) -> float | UserValues: ...
def serendipity(
    recs: Run,
    qrels: Qrels,
    baseline: Run | None = None,
    *,
    profiles: Any = None,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    threshold: float | None = None,
    profile_distance: str = "mean",
    k: int | None = None,
    rel_threshold: float = 1.0,
    no_profile: str = "skip",
    per_user: bool = False,
) -> float | UserValues:
    """Share of recommended items that are both relevant and unexpected, averaged
    over users.

    ``ser(u) = |{i in L_u : rel(u, i) >= rel_threshold and i is unexpected}| / |L_u|``
    and ``serendipity = mean_u ser(u)``.  Users absent from ``qrels``
    contribute 0 (``report["users_without_judgments"]``).  Give exactly one
    of two definitions of "unexpected":

    * ``baseline`` (a :class:`~ranklens.Run`): ``i`` is unexpected when it is
      not in ``PM_u``, user ``u``'s top-``k`` list from a primitive baseline
      recommender (e.g. most popular): what any simple system would have
      shown is not serendipitous.  Source: Ge, Delgado-Battenfeld & Jannach
      (2010); survey in Kaminskas & Bridge (2016).
    * ``profiles=(train_users, train_items)`` with ``features`` or
      ``categories`` and ``threshold``: ``i`` is unexpected when
      ``unexp(i, u) > threshold``, its distance from ``u``'s training profile
      as defined by :func:`unexpectedness` (``profile_distance="mean"``: mean
      distance to the profile items; ``"min"``: distance to the closest one).
      Source: the profile-based unexpectedness of Kaminskas & Bridge (2014,
      2016) and Vargas & Castells (2011).  Users without a training profile
      follow ``no_profile`` (default ``"skip"``: left out of the mean with a
      warning, counted in ``report["users_without_profile"]``).

    ``per_user=True`` returns the :class:`UserValues` of ``ser(u)``.

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}})
    >>> qrels = Qrels.from_dict({"u1": {"a": 1, "b": 1}})
    >>> serendipity(recs, qrels, Run.from_dict({"u1": {"a": 1}}))
    0.5
    >>> cats = {"a": "x", "b": "y", "c": "x"}
    >>> serendipity(recs, qrels, profiles=(["u1"], ["c"]), categories=cats, threshold=0.5)
    0.5
    """
    what = "serendipity"
    _check_per_user(per_user, what)
    if not isinstance(qrels, Qrels):
        raise InputError(f"{what}: qrels must be a ranklens.Qrels, got {type(qrels).__name__}.")
    if (baseline is None) == (profiles is None):
        raise InputError(
            f"{what}: give exactly one of baseline (a primitive recommender's Run: Ge et al. "
            "2010) and profiles=(train_users, train_items) (distance from the user's profile: "
            "Kaminskas & Bridge 2016)."
        )
    lists = _lists(recs, k, what)
    relevant, unjudged = _relevant_rows(lists, qrels, rel_threshold)
    report = {"users_without_judgments": unjudged}
    if baseline is not None:
        extra = [name for name, value in (("features", features), ("categories", categories),
                                          ("threshold", threshold)) if value is not None]
        if extra:
            raise InputError(
                f"{what}: {', '.join(extra)} only apply with profiles=...; with baseline=... "
                "an item is unexpected when the baseline does not recommend it."
            )
        base = _lists(baseline, k, what)
        hit = relevant & ~_pair_rows(lists, base.users[base.user], base.item)
        return _result(what, lists, _per_user_mean(lists, hit.astype(np.float64)), per_user,
                       report)
    limit = _threshold(threshold, what)
    unexp, missing = _unexpectedness_rows(lists, profiles, features, categories,
                                          profile_distance, no_profile, what)
    values = _per_user_mean(lists, (relevant & (unexp > limit)).astype(np.float64))
    values[missing] = np.nan
    report["users_without_profile"] = int(missing.sum())
    return _result(what, lists, values, per_user, report)


# -- personalisation -----------------------------------------------------------------------


@overload
def personalisation(recs: Run, *, k: int | None = ...,
                    per_user: Literal[False] = ...) -> float: ...
@overload
def personalisation(recs: Run, *, k: int | None = ...,
                    per_user: Literal[True]) -> UserValues: ...
@overload
def personalisation(recs: Run, *, k: int | None = ...,
                    per_user: bool) -> float | UserValues: ...
def personalisation(recs: Run, *, k: int | None = None,
                    per_user: bool = False) -> float | UserValues:
    """Personalisation: one minus the mean cosine similarity of two users' lists.

    With ``x_u`` the 0/1 item vector of user ``u``'s top-``k`` list,
    ``P = 1 - (1 / (n (n - 1))) sum_{u != v} cos(x_u, x_v)``; for lists of
    equal length ``L`` the cosine is the overlap ``|L_u & L_v| / L``, i.e. the
    mean Hamming distance of Zhou et al. (2010).  Computed exactly in
    ``O(rows)`` (no ``n x n`` matrix): with ``y_u = x_u / |x_u|`` and
    ``S = sum_v y_v``, ``sum_{v != u} cos(x_u, x_v) = y_u . S - 1``.  Needs two
    or more users.  ``per_user=True`` returns the :class:`UserValues` of
    ``P(u) = 1 - (y_u . S - 1) / (n - 1)``: one minus ``u``'s mean cosine
    similarity to every other user's list (their mean is ``P``).

    >>> recs = Run.from_dict({"u1": {"a": 2, "b": 1}, "u2": {"a": 2, "c": 1}})
    >>> round(personalisation(recs), 12)
    0.5
    """
    what = "personalisation"
    _check_per_user(per_user, what)
    lists = _lists(recs, k, what)
    n = lists.users.size
    if n < 2:
        raise InputError(f"{what}: needs recommendations for at least 2 users, got {n}.")
    items, icode = np.unique(lists.item, return_inverse=True)
    weight = 1.0 / np.sqrt(lists.lengths[lists.user])
    s = np.bincount(icode, weights=weight, minlength=items.size)
    dot = np.bincount(lists.user, weights=weight * s[icode], minlength=n)   # y_u . S
    return _result(what, lists, 1.0 - (dot - 1.0) / (n - 1), per_user)
