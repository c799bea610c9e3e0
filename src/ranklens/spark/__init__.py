"""ranklens on Spark (``pip install 'ranklens[spark]'``): the local evaluations run
where the data lives, with exactly the local numbers.

:func:`evaluate` and :func:`evaluate_interactions` take pyspark DataFrames (columns
named as in the local API) and accept every metric, convention and profile of
:func:`ranklens.evaluate` and :func:`ranklens.recsys.evaluate_interactions`.  The rows
of both inputs are brought together by query (a user) so that each Python task holds
whole queries, as Arrow tables; the task builds :class:`~ranklens.Qrels` and
:class:`~ranklens.Run` from them and runs the same kernels as a local evaluation
(:func:`ranklens.ranking.evaluation.compute_jobs`), one vectorised call per task, never
a Python loop over queries.  A query's value depends only on its own rows, so the
per-query values are those of the local evaluation bit for bit; the rules about
queries in one input only are applied per query and their counts summed, so
``report`` equals the local one.  Nothing but per-query values, per-task counts and
aggregates reaches the driver.

Two ways of bringing the rows together are offered (``shuffle=``): ``cogroup``
(default; buckets of queries cogrouped with ``applyInArrow``) and ``partition``
(``repartition`` by query and ``mapInArrow`` over the union of both inputs).  The
same numbers; ``cogroup`` was 1.1-1.4x faster in ``benchmarks/bench_spark.py``
(each input shuffled by itself, each task handed two ready tables).

The beyond-accuracy metrics that need statistics over all users or the training log
(:func:`catalog_coverage`, :func:`novelty`, ...) compute those statistics with Spark
aggregations and finish per user in the tasks, with the local code.

Spark's Python workers run the interpreter named by the ``PYSPARK_PYTHON``
environment variable, which pyspark reads once, when the SparkContext starts (unset,
``python3`` from ``PATH``); that interpreter must have ranklens (and numpy, pyarrow)
installed.  ranklens does not set it: the value is sent with every task to the
executors, so only the user knows the right one on a cluster.  For a local session
set it before building the session, as the README does::

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

A worker that cannot import ranklens or its dependencies fails the job with
:class:`~ranklens.errors.MissingDependencyError` naming the worker's interpreter and
this fix, instead of the worker's traceback inside a Java one.

pyspark 4 warns (a ``FutureWarning``) that it does not fully support pandas >= 3
when pandas 3 is installed: once as the session starts (pyspark's own check, left
alone), and on Arrow transfers, which ranklens's calls leave out
(:func:`ranklens.spark._tasks.quiet` filters exactly that message; ranklens does not
use pandas on Spark).

pyspark is imported on first use, never by ``import ranklens``; importing
``ranklens.spark`` changes nothing either.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.spark.beyond import (
        average_recommendation_popularity,
        catalog_coverage,
        gini_index,
        long_tail_share,
        novelty,
        personalisation,
        shannon_entropy,
    )
    from ranklens.spark.ranking import evaluate, evaluate_interactions
    from ranklens.spark.result import SparkInteractionEvaluation, SparkResult

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.spark.beyond": (
            "average_recommendation_popularity",
            "catalog_coverage",
            "gini_index",
            "long_tail_share",
            "novelty",
            "personalisation",
            "shannon_entropy",
        ),
        "ranklens.spark.ranking": ("evaluate", "evaluate_interactions"),
        "ranklens.spark.result": ("SparkInteractionEvaluation", "SparkResult"),
    },
)

__all__ = [
    "SparkInteractionEvaluation",
    "SparkResult",
    "average_recommendation_popularity",
    "catalog_coverage",
    "evaluate",
    "evaluate_interactions",
    "gini_index",
    "long_tail_share",
    "novelty",
    "personalisation",
    "shannon_entropy",
]
