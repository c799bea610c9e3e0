"""Beyond-accuracy metrics of recommendation lists.

Every function takes the recommendations as a :class:`ranklens.Run` (user =
query, item = doc, higher score ranks higher) and an optional cut-off ``k``
(each user's top ``k``).  The lists are ordered by the same ranking engine as
:func:`ranklens.evaluate` (:func:`ranklens.ranking.engine.order_rankings`): items with
equal scores by ``ties='trec'`` (the default: item id descending, as
trec_eval) or ``ties='input'`` (the order of the rows: a recommender's ranked
output), or by the tie rule of ``profile=`` (``ranx`` and ``spark`` keep the
row order).  The policies that need relevance or average over tied orders
(``optimistic``, ``pessimistic``, ``expected``, and so the ``sklearn``
profile) are refused with :class:`~ranklens.errors.UnsupportedError`.
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
from collections.abc import KeysView, Mapping, ValuesView
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens._shared.arrow import from_numpy, to_numpy
from ranklens._shared.columns import as_id_column, id_codes
from ranklens._shared.deps import needs
from ranklens.errors import InputError, RanklensWarning
from ranklens.ranking.data import Qrels, Run

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
# from this many rows on, an unordered run is sorted on both cores


# -- ids: Arrow hashing, integer codes -------------------------------------------------
#
# Ids never become Python or NumPy strings on a hot path: every id column is turned into
# (distinct ids as an Arrow string array, int32 code per entry), ids are matched between
# tables by hashing the distinct ids (``pc.index_in``), and everything per row works on
# the integer codes.  Only the few ids an error message names become Python strings.


def _id_array(values: Any, what: str) -> pa.Array:
    """An id column (list, numpy, pandas, polars, Arrow; strings or integers) as an Arrow
    string array or a dictionary array of int32 codes into the distinct ids as text."""
    if isinstance(values, (set, frozenset, KeysView, ValuesView)):
        values = list(values)
    try:
        return as_id_column(values, what, encode=True)
    except InputError:
        # Python strings and integers mixed in one list (e.g. the keys of a mapping):
        # compare them as text
        if isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray)
                                                 and values.dtype == object):
            seq = list(values)
            if all(isinstance(x, (str, int, np.integer)) and not isinstance(x, (bool, np.bool_))
                   for x in seq):
                return as_id_column([str(x) for x in seq], what)
        raise


def _ids(values: Any, what: str) -> tuple[pa.Array, np.ndarray]:
    """Distinct ids (text, any order) and each entry's int32 code into them."""
    arr = _id_array(values, what)
    if isinstance(arr, pa.ChunkedArray):   # very large text columns come back chunked
        arr = arr.combine_chunks()
    return id_codes(arr)


def _index_in(values: pa.Array, value_set: pa.Array) -> np.ndarray:
    """Position of each of ``values`` in ``value_set`` (distinct ids), -1 where absent;
    a dictionary array is looked up through its distinct ids."""
    if pa.types.is_dictionary(values.type):
        return _index_in(values.dictionary, value_set)[to_numpy(values.indices)]
    if len(values) == 0:
        return np.zeros(0, dtype=np.int32)
    if len(value_set) == 0:
        return np.full(len(values), -1, dtype=np.int32)
    if values.type != value_set.type:
        values, value_set = values.cast(pa.large_string()), value_set.cast(pa.large_string())
    return to_numpy(pc.index_in(values, value_set=value_set), fill=-1)


def _examples(ids: pa.Array, n: int = 3) -> list[Any]:
    """The first ``n`` of ``ids`` (distinct) in sorted order, as Python strings."""
    first = pc.array_sort_indices(ids).slice(0, n)
    return list(ids.take(first).to_pylist())


def _sorted_order(ids: pa.Array) -> np.ndarray:
    """Indices that sort ``ids`` (distinct strings) in byte order."""
    return to_numpy(pc.array_sort_indices(ids)).astype(np.int64)


# -- the recommendation lists, prepared once ---------------------------------------------


@dataclass(frozen=True)
class _Lists:
    """Top-k lists in CSR form: rows grouped by user (users in sorted id order), rank
    order inside a user; items as int32 codes into ``items``."""

    users: pa.Array        # distinct user ids (text), sorted
    user: np.ndarray       # user index per kept row (non-decreasing)
    items: pa.Array        # distinct item ids (text); may hold ids no kept row uses
    item: np.ndarray       # item code per kept row
    offsets: np.ndarray    # row offsets per user (len = n_users + 1)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def n_users(self) -> int:
        return len(self.users)

    def used(self) -> np.ndarray:
        """Which of ``items`` some kept row recommends."""
        return np.bincount(self.item, minlength=len(self.items)) > 0

    def lookup(self, ids: pa.Array) -> np.ndarray:
        """Position of each of ``items`` in ``ids`` (distinct), -1 where absent."""
        return _index_in(self.items, ids)

    def positions(self, ids: pa.Array, what: str, problem: str, tail: str) -> np.ndarray:
        """Per kept row, the position of its item in ``ids`` (distinct); recommended
        items that are not there raise :class:`InputError` ("{problem}, e.g. [...]{tail}")."""
        pos = self.lookup(ids)
        bad = (pos < 0) & self.used()
        if bad.any():
            missing = self.items.filter(from_numpy(bad))
            raise InputError(f"{what}: {len(missing)} recommended item(s) {problem}, e.g. "
                             f"{_examples(missing)}{tail}")
        return pos[self.item]


def _check_k(recs: Run, k: int | None, what: str) -> None:
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


def list_ties(ties: str | None, profile: str | None, what: str) -> str:
    """The tie policy that orders the recommendation lists: ``ties`` if given, else the
    profile's (default ``trec``: item id descending).  Only ordering policies apply to
    a list without relevance: ``trec`` or ``input``."""
    from ranklens.errors import UnsupportedError
    from ranklens.ranking.conventions import resolve_conventions

    if ties is None:
        ties = resolve_conventions(None, profile, {}).ties
        source = f"profile={profile!r} orders tied items by ties={ties!r}, which"
    else:
        if profile is not None:
            resolve_conventions(None, profile, {})  # an unknown profile is still an error
        source = f"ties={ties!r}"
    if not isinstance(ties, str) or ties not in LIST_TIES:
        if isinstance(ties, str) and ties in ("optimistic", "pessimistic", "expected",
                                              "grouped"):
            raise UnsupportedError(
                f"{what}: {source} needs relevance judgments or averages over tied "
                "orders, and a recommendation list has neither; pass ties='trec' (item id "
                "descending, trec_eval) or ties='input' (the order of the rows)."
            )
        raise InputError(
            f"{what}: ties must be one of {', '.join(map(repr, LIST_TIES))}, got {ties!r}."
        )
    return ties


LIST_TIES = ("trec", "input")


def _lists(recs: Run, k: int | None, what: str, ties: str | None = None,
           profile: str | None = None) -> _Lists:
    """Each user's top-``k`` list, ordered by :func:`ranklens.ranking.engine.order_rankings`
    (score descending, equal scores by the tie policy)."""
    from ranklens.ranking.engine import order_rankings

    _check_k(recs, k, what)
    policy = list_ties(ties, profile, what)
    pairs = recs._pairs
    qdict = pairs.query_dict
    qcode = pairs.query_code
    n_users = len(qdict)
    by_text = _sorted_order(qdict)
    users = qdict.take(from_numpy(by_text))
    urank = np.empty(n_users, dtype=np.int64)
    urank[by_text] = np.arange(n_users, dtype=np.int64)
    ucode = urank[qcode]
    within = None
    if policy == "trec":
        # the item's rank among its user's items (doc_rank numbers the rows of one user
        # consecutively in item id order): a narrow tie key
        qstart = np.zeros(n_users + 1, dtype=np.int64)
        np.cumsum(np.bincount(qcode, minlength=n_users), out=qstart[1:])
        within = np.asarray(pairs.doc_rank, dtype=np.int64) - qstart[qcode]
    rows = order_rankings(ucode, n_users, recs.scores, policy, doc_rank=within)
    counts = np.bincount(ucode, minlength=n_users)
    user = np.repeat(np.arange(n_users, dtype=np.int64), counts)
    if k is not None and int(k) < int(counts.max(initial=0)):
        starts = np.zeros(n_users, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        keep = np.arange(len(rows), dtype=np.int64) - starts[user] < int(k)
        rows, user = rows[keep], user[keep]
    d = recs._d
    if pa.types.is_dictionary(d.type):
        items = d.dictionary
        item = to_numpy(d.indices)[rows].astype(np.int32, copy=False)
    else:   # plain strings: hash the kept rows' ids only
        items, item = id_codes(d.take(from_numpy(rows)))
    lengths = np.bincount(user, minlength=n_users)
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return _Lists(users, user, items, item, offsets)


def _per_user_mean(lists: _Lists, per_row: np.ndarray) -> np.ndarray:
    sums = np.bincount(lists.user, weights=per_row, minlength=lists.n_users)
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
        with needs("pandas", "UserValues.to_frame()"):
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
    return UserValues(what, tuple(lists.users.to_pylist()), values, dict(report or {}))


# -- coverage ------------------------------------------------------------------------


def catalog_coverage(recs: Run, catalog: Any, *, k: int | None = None,
                     ties: str | None = None, profile: str | None = None) -> float:
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
    counts = _catalog_counts(recs, catalog, k, what, ties, profile)
    return float((counts > 0).sum() / counts.size)


def _catalog_counts(recs: Run, catalog: Any, k: int | None, what: str,
                    ties: str | None = None, profile: str | None = None, *,
                    sort: bool = False) -> np.ndarray:
    """How often each catalog item fills a top-``k`` slot (catalog items in sorted id
    order with ``sort=True``, else in any order); recommended items outside the
    catalog raise :class:`InputError`."""
    lists = _lists(recs, k, what, ties, profile)
    cat, _ = _ids(catalog, f"{what} catalog")
    if len(cat) == 0:
        raise InputError(f"{what}: the catalog is empty.")
    if sort:
        cat = cat.take(from_numpy(_sorted_order(cat)))
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
            profile: str | None = None,
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


# -- popularity-based ----------------------------------------------------------------


def _training_log(train_users: Any, train_items: Any, what: str, label: str
                  ) -> tuple[pa.Array, np.ndarray, pa.Array, np.ndarray]:
    """The user and item columns of training interactions, checked, as (distinct users,
    user code per row, distinct items, item code per row)."""
    of = f" of {label}" if label else ""
    if len(train_users) != len(train_items):
        raise InputError(
            f"{what}: the train_users and train_items{of} must be equally long (one entry "
            f"per training interaction); got {len(train_users)} and {len(train_items)}."
        )
    if len(train_users) == 0:
        raise InputError(f"{what}: the training interactions{f' ({label})' if label else ''} "
                         "are empty.")
    prefix = f"{what} {label} " if label else f"{what} "
    users, ucode = _ids(train_users, f"{prefix}train_users")
    items, icode = _ids(train_items, f"{prefix}train_items")
    return users, ucode, items, icode


def _popularity(train_users: Any, train_items: Any, what: str) -> tuple[pa.Array, np.ndarray,
                                                                        int]:
    """``(distinct item ids, distinct users per item, number of users)`` of the training
    log."""
    users, ucode, items, icode = _training_log(train_users, train_items, what, "")
    n_users = len(users)
    pairs = np.sort(icode.astype(np.int64) * n_users + ucode)   # sorting beats hashing here
    first = np.empty(pairs.size, dtype=bool)
    first[0] = True
    np.not_equal(pairs[1:], pairs[:-1], out=first[1:])
    users_per_item = np.bincount(pairs[first] // n_users, minlength=len(items))
    return items, users_per_item, n_users


@overload
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
            per_user: Literal[False] = ...) -> float: ...
@overload
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
            per_user: Literal[True]) -> UserValues: ...
@overload
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
            per_user: bool) -> float | UserValues: ...
def novelty(recs: Run, train_users: Any, train_items: Any, *, k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
    items, users_per_item, n_users = _popularity(train_users, train_items, what)
    pos = lists.positions(items, what, "have no training interaction",
                          ", so their self-information is infinite; drop cold items from the "
                          "recommendations or evaluate them separately.")
    info = -np.log2(users_per_item[pos] / n_users)
    return _result(what, lists, _per_user_mean(lists, info), per_user)


@overload
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                                      per_user: Literal[False] = ...) -> float: ...
@overload
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                                      per_user: Literal[True]) -> UserValues: ...
@overload
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                                      per_user: bool) -> float | UserValues: ...
def average_recommendation_popularity(recs: Run, train_items: Any, *, k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
    items, codes = _ids(train_items, f"{what} train_items")
    counts = np.bincount(codes, minlength=len(items))
    at = lists.lookup(items)
    phi = np.where(at >= 0, counts[np.maximum(at, 0)], 0) if counts.size else np.zeros(at.size)
    return _result(what, lists, _per_user_mean(lists, phi[lists.item].astype(np.float64)),
                   per_user)


def _lookup(keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """``values`` of ``query`` integers in sorted ``keys`` (0 where absent)."""
    if keys.size == 0:
        return np.zeros(query.size, dtype=values.dtype)
    pos = np.searchsorted(keys, query)
    pos_c = np.minimum(pos, keys.size - 1)
    found = (pos < keys.size) & (keys[pos_c] == query)
    return np.where(found, values[pos_c], 0)


@overload
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                    head_share: float = ..., per_user: Literal[False] = ...) -> float: ...
@overload
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                    head_share: float = ..., per_user: Literal[True]) -> UserValues: ...
@overload
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                    head_share: float = ..., per_user: bool) -> float | UserValues: ...
def long_tail_share(recs: Run, train_items: Any, *, k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
    items, codes = _ids(train_items, f"{what} train_items")
    counts = np.bincount(codes, minlength=len(items))
    if len(items) == 0:
        raise InputError(f"{what}: the training interactions are empty.")
    n_head = int(np.ceil(head_share * len(items)))
    # most interactions first, ties by item id (the distinct items only)
    rank = np.empty(len(items), dtype=np.int64)
    rank[_sorted_order(items)] = np.arange(len(items))
    head = np.zeros(len(items) + 1, dtype=bool)          # the last slot: unseen items
    head[np.lexsort((rank, -counts))[:n_head]] = True
    in_head = head[lists.lookup(items)][lists.item]
    return _result(what, lists, _per_user_mean(lists, (~in_head).astype(np.float64)),
                   per_user)


# -- diversity, serendipity, personalisation ---------------------------------------------


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
    ids, codes = _ids(keys, f"{what} feature item ids")
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
        raise InputError(f"{what}: the feature vector(s) of {int(bad.sum())} item(s) contain "
                         f"NaN or infinite values, e.g. {_examples(ids.filter(from_numpy(bad)))}.")
    return ids, mat


def _category_codes(values: list[Any]) -> np.ndarray:
    """A code per category label; labels are compared as text (1 and "1" are equal)."""
    arr: pa.Array | None
    try:
        arr = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        arr = None
    if arr is None or arr.null_count or not (
            pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)
            or pa.types.is_integer(arr.type)):
        arr = pa.array([str(v) for v in values], type=pa.string())
    return to_numpy(pc.dictionary_encode(arr).indices).astype(np.int64)


def _segment_sums(unit: np.ndarray, row: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment of ``offsets`` (every one non-empty), the sum of the feature rows
    ``unit[row[j]]``, added one after another in row order (as ``np.add.at`` would).

    Segments of one length ``L`` are gathered together (``np.take``, in blocks of at most
    ``_BLOCK_VALUES`` numbers) as a ``(segments, L, dim)`` array and summed with ``L``
    vectorised additions: no loop over segments, no scatter-add."""
    lengths = np.diff(offsets)
    dim = unit.shape[1]
    out = np.empty((lengths.size, dim))
    step = max(_BLOCK_VALUES // max(dim, 1), 1)
    for length in np.unique(lengths).tolist():
        segs = np.flatnonzero(lengths == length)
        per = max(step // length, 1)
        for s0 in range(0, segs.size, per):
            seg = segs[s0:s0 + per]
            if seg[-1] - seg[0] + 1 == seg.size:        # consecutive segments: one slice
                rows = row[offsets[seg[0]]:offsets[seg[-1] + 1]]
            else:
                rows = row[(offsets[seg][:, None] + np.arange(length)).ravel()]
            block = np.take(unit, rows, axis=0).reshape(seg.size, length, dim)
            acc = block[:, 0].copy()
            for j in range(1, length):
                acc += block[:, j]
            out[seg] = acc
    return out


def _same_category_counts(user: np.ndarray, cat: np.ndarray, n_users: int) -> np.ndarray:
    """Per user, ``sum_c n_c^2`` over the categories ``c`` of the user's rows (``n_c``
    rows in category ``c``): the number of ordered same-category pairs, ``i = j``
    included."""
    n_cats = np.int64(cat.max() + 1) if cat.size else np.int64(1)
    key = np.sort(user.astype(np.int64) * n_cats + cat)
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[starts, key.size]).astype(np.float64)
    return np.bincount(key[starts] // n_cats, weights=counts * counts, minlength=n_users)


@overload
def intra_list_diversity(recs: Run, *, features: Any = ...,
                         categories: Mapping[Any, Any] | None = ..., k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                         per_user: Literal[False] = ...) -> float: ...
@overload
def intra_list_diversity(recs: Run, *, features: Any = ...,
                         categories: Mapping[Any, Any] | None = ..., k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                         per_user: Literal[True]) -> UserValues: ...
@overload
def intra_list_diversity(recs: Run, *, features: Any = ...,
                         categories: Mapping[Any, Any] | None = ..., k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                         per_user: bool) -> float | UserValues: ...
def intra_list_diversity(
    recs: Run,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
    items = _item_table(features, categories, what)
    row = lists.positions(items.ids, what, f"have no {items.label}",
                          f"; add them to {items.label} or remove them from the "
                          "recommendations.")
    n = lists.lengths.astype(np.float64)
    if items.cat is not None:
        # cos is 1 for the same category, else 0
        pair_sim = _same_category_counts(lists.user, items.cat[row], lists.n_users) - n
    else:
        _check_nonzero(items, row, what)
        assert items.unit is not None
        sums = _segment_sums(items.unit, row, lists.offsets)
        pair_sim = (sums * sums).sum(axis=1) - n
    ok = n >= 2
    if not ok.any():
        raise InputError(f"{what}: no list has two or more items, so ILD is undefined.")
    ild = np.full(n.size, np.nan)
    ild[ok] = 1.0 - pair_sim[ok] / (n[ok] * (n[ok] - 1))
    return _result(what, lists, ild, per_user, {"users_with_one_item": int((~ok).sum())})


def _pairs_in(lists: _Lists, user: np.ndarray, item: np.ndarray) -> np.ndarray:
    """For each kept row, whether its (user, item) is among the pairs ``(user, item)``
    (codes of ``lists``; -1 for a user or item that is not there)."""
    ok = (user >= 0) & (item >= 0)
    n_items = np.int64(max(len(lists.items), 1))
    keys = np.sort(user[ok].astype(np.int64) * n_items + item[ok])
    rec = lists.user.astype(np.int64) * n_items + lists.item
    return _lookup(keys, np.ones(keys.size, dtype=bool), rec).astype(bool)


def _pair_rows(lists: _Lists, other: _Lists) -> np.ndarray:
    """For each kept row, whether its (user, item) pair is in the lists ``other``."""
    user = _index_in(other.users, lists.users)[other.user]
    item = _index_in(other.items, lists.items)[other.item]
    return _pairs_in(lists, user, item)


def _relevant_rows(lists: _Lists, qrels: Qrels, rel_threshold: float) -> tuple[np.ndarray, int]:
    """Whether each recommended row is relevant, and how many users have no judgment."""
    pairs = qrels._pairs
    user_of = _index_in(pairs.query_dict, lists.users)     # per distinct qrels user
    rows = np.flatnonzero((qrels.relevance >= rel_threshold) & (user_of[pairs.query_code] >= 0))
    d = qrels._d
    if pa.types.is_dictionary(d.type):
        item = _index_in(d.dictionary, lists.items)[to_numpy(d.indices)[rows]]
    else:
        item = _index_in(d.take(from_numpy(rows)), lists.items)
    hit = _pairs_in(lists, user_of[pairs.query_code[rows]], item)
    return hit, int((_index_in(lists.users, pairs.query_dict) < 0).sum())


# -- unexpectedness against the user's training profile ------------------------------------


@dataclass(frozen=True)
class _Items:
    """Item descriptions, one row per item id: unit feature vectors or category codes."""

    ids: pa.Array                     # distinct item ids (text), one per row
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
    ids, codes = _ids(list(categories.keys()), f"{what} category item ids")
    if len(ids) != codes.size:
        raise InputError(f"{what}: item ids in categories are not unique (as text).")
    return _Items(ids.take(from_numpy(codes)), "categories",
                  cat=_category_codes(list(categories.values())))


def _check_nonzero(items: _Items, pos: np.ndarray, what: str) -> None:
    assert items.norm is not None
    zero = items.norm[pos] == 0
    if zero.any():
        bad = items.ids.take(from_numpy(np.unique(pos[zero])))
        raise InputError(f"{what}: item(s) {_examples(bad)} have an all-zero feature "
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
    uids, ucode, iids, icode = _training_log(profiles[0], profiles[1], what, "profiles")
    rec_code = _index_in(uids, lists.users)[ucode]
    keep = rec_code >= 0                      # interactions of recommended users only
    pair_user = rec_code[keep].astype(np.int64)
    pair_item = icode[keep]
    used = np.flatnonzero(np.bincount(pair_item, minlength=len(iids)))
    row = _index_in(iids.take(from_numpy(used)), items.ids)
    if (row < 0).any():
        missing = iids.take(from_numpy(used[row < 0]))
        raise InputError(
            f"{what}: {len(missing)} item(s) in the training profiles of recommended users "
            f"have no {items.label}, e.g. {_examples(missing)}; add them to {items.label} "
            "or drop those interactions from profiles."
        )
    # distinct (user, item) pairs, sorted by user, then item id: the order profile sums run in
    n_items = np.int64(len(items.ids))
    by_id = _sorted_order(items.ids)
    id_rank = np.empty(by_id.size, dtype=np.int64)
    id_rank[by_id] = np.arange(by_id.size)
    rank_of = np.zeros(len(iids), dtype=np.int64)
    rank_of[used] = id_rank[row]
    key = np.sort(pair_user * n_items + rank_of[pair_item])
    key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key   # distinct pairs
    size = np.bincount(key // n_items, minlength=lists.n_users)
    return _Profiles(by_id[key % n_items], size, np.r_[0, np.cumsum(size)])


def _profile_similarity(lists: _Lists, rec_pos: np.ndarray, prof: _Profiles,
                        unit: np.ndarray, how: str) -> np.ndarray:
    """Mean (``how="mean"``) or largest (``"min"`` distance) cosine similarity of each
    recommended row with its user's profile items; NaN for users without a profile.

    Users are processed in blocks of consecutive users so that no gathered block of
    feature rows holds more than ``_BLOCK_VALUES`` numbers (one user that needs more
    is a block on its own); there is no loop over single users."""
    n_users = lists.n_users
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
                sums[has] = np.add.reduceat(np.take(unit, prof.pos[p0:p1], axis=0),
                                            prof.offsets[a:b][has] - p0, axis=0)
                sim = np.einsum("ij,ij->i", np.take(unit, pos, axis=0),
                                np.take(sums, user - a, axis=0)) / cnt
            else:
                # every (recommended item, profile item) pair of the block, then a segment max
                first = np.cumsum(cnt) - cnt
                row = np.repeat(np.arange(sel.size), cnt)
                within = np.arange(row.size) - first[row]
                other = prof.pos[prof.offsets[user][row] + within]
                sims = np.einsum("ij,ij->i", np.take(unit, pos[row], axis=0),
                                 np.take(unit, other, axis=0))
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
    rec_pos = lists.positions(items.ids, what, f"have no {items.label}",
                              f"; add them to {items.label} or remove them from the "
                              "recommendations.")
    prof = _profiles(profiles, lists, items, what)
    if items.unit is not None:
        _check_nonzero(items, rec_pos, what)
        _check_nonzero(items, prof.pos, what)
    missing = prof.size == 0
    n_users = lists.n_users
    if missing.all():
        raise InputError(
            f"{what}: none of the {n_users} recommended user(s) has a training profile "
            f"(e.g. {lists.users.slice(0, 3).to_pylist()}); check that the user ids of recs and profiles "
            "match."
        )
    if missing.any():
        m = int(missing.sum())
        examples = lists.users.filter(from_numpy(missing)).slice(0, 3).to_pylist()
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
                   k: int | None = ..., ties: str | None = ...,
            profile: str | None = ..., no_profile: str = ...,
                   per_user: Literal[False] = ...) -> float: ...
@overload
def unexpectedness(recs: Run, profiles: Any, *, features: Any = ...,
                   categories: Mapping[Any, Any] | None = ..., profile_distance: str = ...,
                   k: int | None = ..., ties: str | None = ...,
            profile: str | None = ..., no_profile: str = ...,
                   per_user: Literal[True]) -> UserValues: ...
@overload
def unexpectedness(recs: Run, profiles: Any, *, features: Any = ...,
                   categories: Mapping[Any, Any] | None = ..., profile_distance: str = ...,
                   k: int | None = ..., ties: str | None = ...,
            profile: str | None = ..., no_profile: str = ...,
                   per_user: bool) -> float | UserValues: ...
def unexpectedness(
    recs: Run,
    profiles: Any,
    *,
    features: Any = None,
    categories: Mapping[Any, Any] | None = None,
    profile_distance: str = "mean",
    k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
    unexp, missing = _unexpectedness_rows(lists, profiles, features, categories,
                                          profile_distance, no_profile, what)
    return _result(what, lists, _per_user_mean(lists, unexp), per_user,
                   {"users_without_profile": int(missing.sum())})


# -- serendipity ---------------------------------------------------------------------------


@overload
def serendipity(recs: Run, qrels: Qrels, baseline: Run | None = ..., *, profiles: Any = ...,
                features: Any = ..., categories: Mapping[Any, Any] | None = ...,
                threshold: float | None = ..., profile_distance: str = ...,
                k: int | None = ..., ties: str | None = ...,
            profile: str | None = ..., rel_threshold: float = ..., no_profile: str = ...,
                per_user: Literal[False] = ...) -> float: ...
@overload
def serendipity(recs: Run, qrels: Qrels, baseline: Run | None = ..., *, profiles: Any = ...,
                features: Any = ..., categories: Mapping[Any, Any] | None = ...,
                threshold: float | None = ..., profile_distance: str = ...,
                k: int | None = ..., ties: str | None = ...,
            profile: str | None = ..., rel_threshold: float = ..., no_profile: str = ...,
                per_user: Literal[True]) -> UserValues: ...
@overload
def serendipity(recs: Run, qrels: Qrels, baseline: Run | None = ..., *, profiles: Any = ...,
                features: Any = ..., categories: Mapping[Any, Any] | None = ...,
                threshold: float | None = ..., profile_distance: str = ...,
                k: int | None = ..., ties: str | None = ...,
            profile: str | None = ..., rel_threshold: float = ..., no_profile: str = ...,
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
    k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
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
        base = _lists(baseline, k, what, ties, profile)
        hit = relevant & ~_pair_rows(lists, base)
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
def personalisation(recs: Run, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                    per_user: Literal[False] = ...) -> float: ...
@overload
def personalisation(recs: Run, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                    per_user: Literal[True]) -> UserValues: ...
@overload
def personalisation(recs: Run, *, k: int | None = ..., ties: str | None = ...,
            profile: str | None = ...,
                    per_user: bool) -> float | UserValues: ...
def personalisation(recs: Run, *, k: int | None = None, ties: str | None = None,
            profile: str | None = None,
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
    lists = _lists(recs, k, what, ties, profile)
    n = lists.n_users
    if n < 2:
        raise InputError(f"{what}: needs recommendations for at least 2 users, got {n}.")
    weight = 1.0 / np.sqrt(lists.lengths[lists.user])
    s = np.bincount(lists.item, weights=weight, minlength=len(lists.items))
    dot = np.bincount(lists.user, weights=weight * s[lists.item], minlength=n)   # y_u . S
    return _result(what, lists, 1.0 - (dot - 1.0) / (n - 1), per_user)
