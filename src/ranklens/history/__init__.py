"""A history of evaluation results: :class:`Store` (one SQLite file).

``ranklens evaluate|compare|gate --store results.db --tag model=v2`` records
every evaluation; ``ranklens history results.db`` lists them and ``ranklens
history results.db show ID`` shows one; ``results.db#ID`` is a stored record
wherever a command takes a run to compare with (``compare``, ``gate
--baseline``).  From Python::

    from ranklens.history import Store
    with Store("results.db") as store:
        rid = store.record(ranklens.evaluate(qrels, run, ["ndcg@10"]), tags={"model": "v2"})
        baseline = store.get(rid).result()          # a ranklens.Result
        points = store.trend("ndcg@10", run="bm25")  # [(time, run, value, id), ...]

Layout, atomicity and concurrency: :mod:`ranklens.history.store`.
"""

from __future__ import annotations

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.history.store import (
        SCHEMA_VERSION,
        Store,
        StoredRecord,
        git_commit,
        load_ref,
        parse_time,
        split_ref,
    )

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.history.store": (
            "SCHEMA_VERSION",
            "Store",
            "StoredRecord",
            "git_commit",
            "load_ref",
            "parse_time",
            "split_ref",
        ),
    },
)

__all__ = [
    "SCHEMA_VERSION",
    "Store",
    "StoredRecord",
    "git_commit",
    "load_ref",
    "parse_time",
    "split_ref",
]
