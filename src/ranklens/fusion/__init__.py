"""Run fusion: combine several systems' runs into one, and tune the combination.

- :func:`fuse`: CombSUM, CombMNZ, CombANZ, CombMAX, CombMIN, CombMED, CombGMNZ,
  reciprocal rank fusion, ISR, log-ISR, logN-ISR, BordaFuse (and weighted), weighted
  sum, weighted MNZ, Mixed, rank-biased centroids, BayesFuse, PosFuse, ProbFuse,
  SegFuse, SlideFuse and MAPFuse, after any of ranx's normalisations (min-max, max,
  sum, z-score, rank, Borda); numbers equal to ranx's ``fuse``;
- :func:`train_fusion`: the parameters the trained methods learn from judgments;
- :func:`optimize_fusion`: weights, ``k`` and the other settings chosen by grid or
  random search against a metric on training queries (ranx's ``optimize_fusion``).

Every method is declared once in :data:`METHODS` (formula and citation) and runs
vectorised over all queries: the runs are stacked as one table
(:mod:`ranklens.fusion.stack`), normalised per ranking
(:mod:`ranklens.fusion.norms`) and combined per (query, doc)
(:mod:`ranklens.fusion.methods`); the methods are declared in
:mod:`ranklens.fusion.spec`.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.fusion.methods import fuse
    from ranklens.fusion.norms import NORMS
    from ranklens.fusion.search import SEARCHES, Optimization, optimize_fusion
    from ranklens.fusion.spec import METHODS, MISSING, Method
    from ranklens.fusion.stack import TIES
    from ranklens.fusion.training import train_fusion

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.fusion.methods": ("fuse",),
        "ranklens.fusion.norms": ("NORMS",),
        "ranklens.fusion.search": ("SEARCHES", "Optimization", "optimize_fusion"),
        "ranklens.fusion.spec": ("METHODS", "MISSING", "Method"),
        "ranklens.fusion.stack": ("TIES",),
        "ranklens.fusion.training": ("train_fusion",),
    },
)

__all__ = [
    "METHODS",
    "MISSING",
    "NORMS",
    "SEARCHES",
    "TIES",
    "Method",
    "Optimization",
    "fuse",
    "optimize_fusion",
    "train_fusion",
]
