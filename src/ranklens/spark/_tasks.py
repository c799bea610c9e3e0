"""The one way ranklens runs inside Spark: the rows of two DataFrames brought together
by query (a user for recommendations), whole queries per Python task, the local code
run on each task's Arrow tables, per-query values back as a DataFrame.

Two shuffles bring the rows together (``shuffle=``):

``cogroup`` (default)
    both inputs grouped by a bucket of the query id (``pmod(xxhash64(query), n)``) and
    cogrouped: ``groupBy(bucket).cogroup(...).applyInArrow``.  One Python call per bucket
    (never per query) receives the bucket's rows of both inputs as two Arrow tables.
``partition``
    the two inputs tagged, unioned and repartitioned by query (``repartition(n, query)``),
    then ``mapInArrow`` over each partition: one Python call per partition, which holds
    whole queries of both inputs.

Each task returns its per-query values and one extra row carrying, as JSON, the counts
of its report (or the :class:`~ranklens.errors.RanklensError` it raised).  The result
is persisted; one Spark job computes it and collects the extra rows only (one per
task), and the driver sums the counts, or raises the first task's error as the same
exception type with the same message.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ranklens import errors
from ranklens._shared.deps import needs
from ranklens.errors import InputError, MissingDependencyError, RanklensError

__all__ = [
    "SHUFFLES",
    "Joined",
    "by_query",
    "check_frame",
    "collect_arrow",
    "column",
    "functions",
    "id_column",
    "in_row_order",
    "number_column",
    "quiet",
    "quoted",
    "row_order",
    "values_table",
]

SHUFFLES = ("cogroup", "partition")
ROW = "_ranklens_row"
INFO = "_ranklens_info"
BUCKET = "_ranklens_bucket"
SIDE = "_ranklens_side"

Partials = dict[str, tuple[int, float]]
"""Per value column, :func:`ranklens.ranking.evaluation.partial_aggregate`'s count and
sum over some queries."""
Task = Callable[[pa.Table, pa.Table], tuple[pa.Table, dict[str, int], Partials]]
"""``(left rows, right rows) -> (per-query values, counts, partial aggregates)`` over
whole queries."""


def functions(what: str) -> Any:
    """``pyspark.sql.functions`` (raising :class:`MissingDependencyError` naming the
    ``spark`` extra when pyspark is not installed)."""
    with needs("spark", what):
        from pyspark.sql import functions as sf
    return sf


@contextmanager
def quiet() -> Iterator[None]:
    """pyspark's FutureWarning that it does not fully support the installed pandas (it
    warns on every Arrow transfer, even one that does not use pandas) is not ours to
    give."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        yield


def collect_arrow(df: Any) -> pa.Table:
    """A (small) Spark DataFrame collected to the driver as a pyarrow Table."""
    with quiet():
        if hasattr(df, "toArrow"):  # pyspark >= 4.0
            return df.toArrow()
        return pa.Table.from_batches(df._collect_as_arrow())  # pragma: no cover


def quoted(name: str) -> str:
    """A column name as Spark reads it literally (dots, ``@`` and spaces included)."""
    return "`" + name.replace("`", "``") + "`"


def check_frame(df: Any, what: str, keyword: str) -> None:
    from pyspark.sql import DataFrame

    if not isinstance(df, DataFrame):
        raise InputError(
            f"{what}: {keyword} must be a pyspark DataFrame, got "
            f"{type(df).__name__}; for local tables use the function of the "
            "same name in ranklens or ranklens.recsys."
        )


def _typed(df: Any, name: str, keyword: str, what: str) -> tuple[Any, str]:
    types = dict(df.dtypes)
    if name not in types:
        raise InputError(
            f"{what}: no column {name!r} (the {keyword}= column) in "
            f"{sorted(types)}; pass {keyword}= the name of that column."
        )
    return df[quoted(name)], types[name]


def id_column(df: Any, name: str, keyword: str, what: str) -> Any:
    """The id column ``name`` as strings (integers become their decimal text, as
    locally); other types raise :class:`InputError` naming ``keyword``."""
    col, kind = _typed(df, name, keyword, what)
    if kind == "string":
        return col
    if kind in ("tinyint", "smallint", "int", "bigint"):
        return col.cast("string")
    raise InputError(
        f"{what}: the {keyword}={name!r} column holds {kind}; ids must be strings or integers."
    )


def number_column(df: Any, name: str, keyword: str, what: str) -> Any:
    """The numeric column ``name`` as double; other types raise :class:`InputError`."""
    col, kind = _typed(df, name, keyword, what)
    if kind in ("tinyint", "smallint", "int", "bigint", "float", "double") or kind.startswith(
        "decimal"
    ):
        return col.cast("double")
    raise InputError(f"{what}: the {keyword}={name!r} column holds {kind}; it must be numeric.")


def row_order(sf: Any) -> Any:
    """A column numbering the rows in the DataFrame's order (partition, then row), taken
    before any shuffle: the row order that ``ties='input'`` keeps."""
    return sf.monotonically_increasing_id().alias(ROW)


def in_row_order(table: pa.Table) -> pa.Table:
    """``table``'s rows in the order :func:`row_order` numbered (as they are if it did
    not), without that column."""
    if ROW not in table.column_names:
        return table
    order = pc.sort_indices(table[ROW])
    return table.take(order).drop_columns([ROW])


def column(table: pa.Table, name: str) -> pa.Array:
    """One column of a task's table as a single Arrow array."""
    col = table[name]
    return col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)


@dataclass(frozen=True)
class Joined:
    """What :func:`by_query` computed: the per-query values (persisted) and the summed
    counts of every task's report."""

    values: Any
    counts: dict[str, int]
    partials: Partials
    persisted: Any

    def aggregate(self, column: str, how: str) -> float:
        """The aggregate of one value column over every query (see
        :func:`ranklens.ranking.evaluation.aggregate`), from the tasks' partial
        aggregates: counts added, sums added exactly (``math.fsum``) and rounded once."""
        from ranklens.ranking.evaluation import finish_aggregate

        count, total = self.partials.get(column, (0, 0.0))
        return finish_aggregate(count, total, how)


def values_table(ids: pa.Array, values: Sequence[np.ndarray], names: Sequence[str]) -> pa.Table:
    """A task's per-query values: ``names[0]`` the ids, then one float64 column per
    value array (the columns :func:`by_query` was given)."""
    cols = [
        ids.cast(pa.string()),
        *(pa.array(np.asarray(v, dtype=np.float64), type=pa.float64()) for v in values),
        pa.nulls(len(ids), pa.string()),
    ]
    return pa.table(cols, names=[*names, INFO])


def _info_table(names: Sequence[str], info: dict[str, Any]) -> pa.Table:
    cols = [
        pa.nulls(1, pa.string()),
        *(pa.nulls(1, pa.float64()) for _ in names[1:]),
        pa.array([json.dumps(info)], type=pa.string()),
    ]
    return pa.table(cols, names=[*names, INFO])


def _guarded(task: Task, names: Sequence[str]) -> Callable[[pa.Table, pa.Table], pa.Table]:
    """``task`` returning its values and its counts (or its error) as one table."""

    def run(left: pa.Table, right: pa.Table) -> pa.Table:
        try:
            values, counts, partials = task(left, right)
        except RanklensError as exc:
            return _info_table(names, {"error": type(exc).__name__, "message": str(exc)})
        counts = {"left_rows": left.num_rows, "right_rows": right.num_rows, **counts}
        info = {"counts": counts, "partials": partials}
        return pa.concat_tables([values, _info_table(names, info)])

    return run


def _raise(info: dict[str, Any]) -> None:
    cls = getattr(errors, str(info["error"]), None)
    if not (isinstance(cls, type) and issubclass(cls, RanklensError)):
        cls = RanklensError
    raise cls(info["message"])


def by_query(
    left: Any,
    right: Any | None,
    key: str,
    task: Task,
    names: Sequence[str],
    *,
    partitions: int | None,
    shuffle: str,
    what: str,
) -> Joined:
    """Run ``task`` on whole queries of ``left`` and ``right`` (both with the string
    column ``key``) and return its per-query values: a DataFrame with the string column
    ``names[0]`` and a double column for each other name, persisted.  Without ``right``
    (one input) the rows are repartitioned by ``key`` and the task's right table is
    empty."""
    from pyspark import StorageLevel
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    from ranklens._shared.validate import check_choice, check_int
    from ranklens.ranking.evaluator import sum_reports

    sf = functions(what)
    check_choice("shuffle", shuffle, SHUFFLES, where=what)
    session = left.sparkSession
    if partitions is None:
        partitions = int(session.conf.get("spark.sql.shuffle.partitions"))
    check_int("partitions", partitions, where=what)
    schema = StructType(
        [
            StructField(names[0], StringType(), True),
            *(StructField(n, DoubleType(), True) for n in names[1:]),
            StructField(INFO, StringType(), True),
        ]
    )
    with quiet():  # pyspark checks its pandas version on every Arrow function
        run = _guarded(task, names)
        if shuffle == "cogroup" and right is not None:
            bucket = sf.pmod(sf.xxhash64(sf.col(key)), sf.lit(partitions))
            out = (
                left.withColumn(BUCKET, bucket)
                .groupBy(BUCKET)
                .cogroup(right.withColumn(BUCKET, bucket).groupBy(BUCKET))
                .applyInArrow(
                    lambda lt, rt: run(lt.drop_columns([BUCKET]), rt.drop_columns([BUCKET])), schema
                )
            )
        else:
            left_cols = list(left.columns)
            right_cols = list(right.columns) if right is not None else left_cols
            tagged = left.withColumn(SIDE, sf.lit(0))
            if right is not None:
                tagged = tagged.unionByName(
                    right.withColumn(SIDE, sf.lit(1)), allowMissingColumns=True
                )
            tagged = tagged.repartition(partitions, sf.col(key))

            def per_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
                parts = list(batches)
                if not parts:
                    return
                table = pa.Table.from_batches(parts)
                if table.num_rows == 0:
                    return
                side = pc.equal(table[SIDE], 0)
                yield from run(
                    table.filter(side).select(left_cols),
                    table.filter(pc.invert(side)).select(right_cols),
                ).to_batches()

            out = tagged.mapInArrow(per_partition, schema)
        out = out.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            rows = out.where(sf.col(INFO).isNotNull()).select(INFO).collect()
        except Exception as exc:  # a worker that cannot import us: say which Python it is
            _worker_python(exc, session, what)
            raise
        infos = [json.loads(r[0]) for r in rows]
    failed = [i for i in infos if "error" in i]
    if failed:
        out.unpersist()
        _raise(failed[0])
    values = out.where(sf.col(INFO).isNull()).drop(INFO)
    return Joined(
        values,
        sum_reports(i["counts"] for i in infos),
        _add_partials([i["partials"] for i in infos]),
        out,
    )


def _worker_python(exc: Exception, session: Any, what: str) -> None:
    """Raise :class:`MissingDependencyError` naming ``PYSPARK_PYTHON`` when ``exc`` (a
    failed Spark job) is a Python worker's ``ModuleNotFoundError``: Spark's workers run
    the interpreter that variable named when the session started (``python3`` from
    PATH when unset), and it lacks what ranklens needs.  Any other error: return."""
    import re

    found = re.search(r"ModuleNotFoundError: No module named '([^']+)'", str(exc))
    if found is None:
        return
    python = getattr(session.sparkContext, "pythonExec", None) or "python3"
    error = MissingDependencyError(
        f"{what}: Spark's Python workers could not import {found.group(1)!r}: they run "
        f"{python!r} (PYSPARK_PYTHON when the session started; python3 from PATH when "
        "unset), which does not have ranklens and its dependencies.  Set PYSPARK_PYTHON "
        "to a Python that has them before the session starts (locally: "
        "os.environ.setdefault('PYSPARK_PYTHON', sys.executable), then build the session)."
    )
    error.package = found.group(1).partition(".")[0]
    raise error from None


def _add_partials(parts: list[dict[str, list[Any]]]) -> Partials:
    """The tasks' partial aggregates added: counts exactly, sums by ``math.fsum`` (exact,
    rounded once, so the task order does not matter)."""
    out: Partials = {}
    for name in {n for p in parts for n in p}:
        pairs = [p[name] for p in parts if name in p]
        out[name] = (sum(int(c) for c, _ in pairs), math.fsum(float(t) for _, t in pairs))
    return out
