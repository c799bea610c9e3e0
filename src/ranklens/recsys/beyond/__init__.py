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
``reduction="none"`` (default ``"mean"``, as across ranklens) and then returns
a :class:`UserValues` instead of the float: ``.mean`` is exactly the float
returned by default, ``.per_user()`` gives ``{user id: value}`` (NaN for a user
whose value is undefined, e.g. a one-item list for ILD), ``.to_frame()`` a
pandas frame indexed by user and ``.report`` how many users each rule touched.
``per_user=True`` is the deprecated spelling of ``reduction="none"`` (it warns
:class:`~ranklens.errors.RanklensDeprecationWarning`).  Coverage, entropy and
the Gini index describe the distribution of all recommendation slots over the
catalog and have no per-user value.

**Layout.**  :mod:`~ranklens.recsys.beyond.coverage` (coverage, entropy, Gini),
:mod:`~ranklens.recsys.beyond.popularity` (novelty, ARP, long-tail share),
:mod:`~ranklens.recsys.beyond.diversity` (ILD, personalisation),
:mod:`~ranklens.recsys.beyond.surprise` (unexpectedness, serendipity) and
:mod:`~ranklens.recsys.beyond.values` (:class:`UserValues`, ``reduction=``);
the lists are built once per call by ``_lists`` (ordering through the ranking
engine), ids are matched in ``_ids`` and item descriptions read in ``_items``.

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

from ranklens.recsys.beyond.coverage import catalog_coverage, gini_index, shannon_entropy
from ranklens.recsys.beyond.diversity import intra_list_diversity, personalisation
from ranklens.recsys.beyond.popularity import (
    average_recommendation_popularity,
    long_tail_share,
    novelty,
)
from ranklens.recsys.beyond.surprise import serendipity, unexpectedness
from ranklens.recsys.beyond.values import UserValues

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
