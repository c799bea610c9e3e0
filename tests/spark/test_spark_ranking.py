"""ranklens.spark.evaluate equals ranklens.evaluate: every ranking metric of the
catalogue (every variant of tests/ranking/test_contract_ranking.py) under every profile,
the conventions about queries in one input only, the reports, warnings and errors.

All tests share the one local Spark session (``spark`` fixture, tests/conftest.py) and
evaluate many metrics per Spark job, so the module takes seconds per profile.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ranklens as rl
from tests.helpers import graded_case
from tests.ranking.test_contract_ranking import DATA, PROFILES, VARIANTS, _plannable

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning")


def _frame(spark: Any, rows: list[tuple[str, str, float]], value: str) -> Any:
    """The rows as a Spark DataFrame (in this order: the row order ``ties='input'``
    keeps)."""
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("query", StringType(), False),
            StructField("doc", StringType(), False),
            StructField(value, DoubleType(), False),
        ]
    )
    return spark.createDataFrame(rows, schema)


def _union(data: list[tuple[list[Any], list[Any]]]) -> tuple[list[Any], list[Any]]:
    """The datasets as one, queries renamed per dataset (a query's value depends on its
    own rows only, so one evaluation covers them all)."""
    qrels, run = [], []
    for i, (q_rows, r_rows) in enumerate(data):
        qrels += [(f"s{i}{q}", d, v) for q, d, v in q_rows]
        run += [(f"s{i}{q}", d, v) for q, d, v in r_rows]
    return qrels, run


def _local(qrels_rows: list[Any], run_rows: list[Any], metrics: list[str], **kw: Any) -> rl.Result:
    q, d, v = zip(*qrels_rows, strict=True)
    qrels = rl.Qrels.from_arrays(list(q), list(d), list(v))
    q, d, v = zip(*run_rows, strict=True)
    run = rl.Run.from_arrays(list(q), list(d), list(v))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        return rl.evaluate(qrels, run, metrics, **kw)


def _same(got: rl.Result, want: rl.Result, tol: float = 1e-12) -> None:
    assert got.query_ids == want.query_ids
    assert dict(got.report) == dict(want.report)
    for m in want.metrics:
        np.testing.assert_allclose(
            got.values[m], want.values[m], rtol=0, atol=tol, equal_nan=True, err_msg=m
        )


def _spark_evaluate(*args: Any, **kw: Any) -> Any:
    import ranklens.spark as rs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rl.RanklensWarning)
        return rs.evaluate(*args, **kw)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p or "default")
def test_every_catalogue_metric_equals_local(spark: Any, profile: str | None) -> None:
    qrels_rows, run_rows = _union(DATA)
    # every variant under the default conventions; under a profile, every variant at
    # one cutoff (k = 1 and 3 left out), which keeps each Spark job at seconds
    keys = [
        key
        for family in sorted(VARIANTS)
        for key, metric in _plannable(VARIANTS[family], profile, {})
        if profile is None or metric.k not in (1, 3)
    ]
    assert len(keys) > 300
    try:
        want = _local(qrels_rows, run_rows, keys, profile=profile)
    except rl.MetricParameterError as exc:  # err's scale and C/W/L's gain checks: the data
        assert "max_rel" in str(exc) or "gains in [0, 1]" in str(exc)
        unit = ("cwl_inst", "cwl_nerr8", "cwl_nerr9", "cwl_nerr10", "cwl_nerr11")
        keys = [
            k
            for k in keys
            if (not k.startswith("err") or "max_rel=4.5" in k)
            and (not k.startswith(unit) or "gain=binary" in k)
        ]
        want = _local(qrels_rows, run_rows, keys, profile=profile)
    shuffle = "partition" if profile == "ranx" else "cogroup"
    res = _spark_evaluate(
        _frame(spark, qrels_rows, "relevance"),
        _frame(spark, run_rows, "score"),
        keys,
        profile=profile,
        shuffle=shuffle,
        partitions=2,
    )
    got = res.to_result()
    _same(got, want)
    # the summary computed in Spark: the local one up to the order of summation
    summary, local = res.summary(), want.summary()
    for k in keys:
        assert summary[k] == pytest.approx(local[k], rel=1e-12, abs=1e-12, nan_ok=True), k
    res.unpersist()


CONVENTIONS = [
    {"missing": "zero", "unjudged": "zero"},
    {"missing": "skip", "unjudged": "skip", "no_relevant": "nan"},
    {"missing": "zero", "no_relevant": "skip", "depth": 5, "judged_only": True},
    {"ties": "input", "rel_threshold": 2, "score_precision": "float32"},
]


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: ",".join(map(str, c.values())))
def test_conventions_and_report_equal_local(spark: Any, conv: dict[str, Any]) -> None:
    qrels_rows, run_rows = [], []
    for seed in range(6):  # graded_case's queries in the qrels only, in the run only
        q, r = graded_case(seed, stray_query=True)
        qrels_rows += [(f"c{seed}{qq}", d, float(g)) for qq, ds in q.items() for d, g in ds.items()]
        run_rows += [(f"c{seed}{qq}", d, float(s)) for qq, ds in r.items() for d, s in ds.items()]
    metrics = [
        "ndcg@10",
        "map",
        "P.5",
        "recip_rank",
        "gm_map",
        "num_ret",
        "bpref",
        "ap(ties=expected)" if conv.get("ties") != "input" else "err@5",
    ]
    want = _local(qrels_rows, run_rows, metrics, **conv)
    for shuffle in ("cogroup", "partition"):
        res = _spark_evaluate(
            _frame(spark, qrels_rows, "relevance"),
            _frame(spark, run_rows, "score"),
            metrics,
            shuffle=shuffle,
            partitions=4,
            **conv,
        )
        assert res.report == dict(want.report)
        _same(res.to_result(), want)
        frame = res.to_frame()
        assert frame.columns == ["query", *metrics]
        assert frame.count() == len(want.query_ids)
        res.unpersist()


def test_columns_integer_ids_and_names(spark: Any) -> None:
    import ranklens.spark as rs

    qrels = spark.createDataFrame(
        [(1, 10, 2), (1, 11, 0), (2, 10, 1)], "qid bigint, docno int, rel int"
    )
    run = spark.createDataFrame(
        [(1, 10, 0.5), (1, 11, 0.7), (2, 12, 0.1)], "qid bigint, docno int, sc double"
    )
    res = rs.evaluate(
        qrels, run, ["P.1", "ndcg"], query="qid", doc="docno", relevance="rel", score="sc"
    )
    local = rl.evaluate(
        rl.Qrels.from_arrays([1, 1, 2], [10, 11, 10], [2, 0, 1]),
        rl.Run.from_arrays([1, 1, 2], [10, 11, 12], [0.5, 0.7, 0.1]),
        ["P.1", "ndcg"],
    )
    _same(res.to_result(), local)
    assert res.to_frame().columns == ["qid", "P.1", "ndcg"]
    assert res["P.1"] == pytest.approx(local["P.1"], abs=1e-15)
    assert res["P@1"] == res["P.1"]  # another spelling of the same metric
    assert "P.1" in repr(res)
    with pytest.raises(rl.MetricNameError, match="was not evaluated"):
        res["map"]
    with pytest.raises(rl.InputError, match="max_queries=1"):
        res.to_result(max_queries=1)


def test_errors_and_warnings_are_the_local_ones(spark: Any) -> None:
    import ranklens.spark as rs

    qrels = _frame(spark, [("q1", "a", 1.0), ("q2", "b", 1.0)], "relevance")
    run = _frame(spark, [("q1", "a", 1.0), ("q1", "c", 0.5)], "score")
    with pytest.raises(rl.InputError, match=r"1 queries in the qrels are not in the run: 'q2'"):
        rs.evaluate(qrels, run, ["map"], missing="error")
    # counted over every query (not per task), the first five in id order, as locally
    many = [(f"q{i:02d}", "a", 1.0) for i in range(12)]
    with pytest.raises(
        rl.InputError,
        match=r"11 queries in the qrels are not in the run: "
        r"'q00', 'q02', 'q03', 'q04', 'q05' and 6 more",
    ) as spark_error:
        rs.evaluate(
            _frame(spark, many, "relevance"),
            _frame(spark, [("q01", "a", 1.0)], "score"),
            ["map"],
            missing="error",
            partitions=4,
        )
    with pytest.raises(rl.InputError) as local_error:
        _local(many, [("q01", "a", 1.0)], ["map"], missing="error")
    assert str(spark_error.value) == str(local_error.value)
    dup = _frame(spark, [("q1", "a", 1.0), ("q1", "a", 0.5)], "score")
    with pytest.raises(rl.DuplicateError):
        rs.evaluate(qrels, dup, ["map"])
    with pytest.raises(rl.InputError, match="The qrels are empty"):
        rs.evaluate(qrels.limit(0), run, ["map"])
    with pytest.raises(rl.InputError, match="The run is empty"):
        rs.evaluate(qrels, run.limit(0), ["map"])
    stray = _frame(spark, [("zz", "a", 1.0)], "score")
    with pytest.warns(rl.RanklensWarning, match="shares no query"):
        rs.evaluate(qrels, stray, ["map"])
    with pytest.raises(rl.InputError, match=r"no column 'score' \(the score= column\)"):
        rs.evaluate(qrels, qrels, ["map"])
    with pytest.raises(rl.InputError, match="must be a pyspark DataFrame"):
        rs.evaluate({"q1": {"a": 1}}, run, ["map"])
    with pytest.raises(rl.ConventionError, match="unknown convention"):
        rs.evaluate(qrels, run, ["map"], tie="input")
    with pytest.raises(rl.MetricNameError):
        rs.evaluate(qrels, run, ["nonsense@3"])
    with pytest.raises(rl.InputError, match="shuffle"):
        rs.evaluate(qrels, run, ["map"], shuffle="sideways")


def test_a_worker_python_that_cannot_import_ranklens_is_named() -> None:
    """A Spark job whose Python worker failed to import a module (the worker runs
    PYSPARK_PYTHON, python3 from PATH when unset) raises MissingDependencyError naming
    the worker's interpreter, PYSPARK_PYTHON and the fix; other errors are left alone.
    (No Spark needed: the job's error text is pyspark's, as a worker's traceback.)"""
    from types import SimpleNamespace

    from ranklens.errors import MissingDependencyError
    from ranklens.spark._tasks import _worker_python

    session = SimpleNamespace(sparkContext=SimpleNamespace(pythonExec="python3"))
    failed = RuntimeError(
        "[PYTHON_EXCEPTION] An exception was thrown from the Python worker: Traceback "
        '(most recent call last):\n  File "/x/ranklens/ranking/evaluation.py", line 11, in '
        "<module>\n    import pyarrow as pa\nModuleNotFoundError: No module named 'pyarrow'\n"
    )
    with pytest.raises(MissingDependencyError) as info:
        _worker_python(failed, session, "ranklens.spark.evaluate()")
    message = str(info.value)
    assert message.startswith("ranklens.spark.evaluate(): Spark's Python workers could not")
    assert "'pyarrow'" in message and "'python3'" in message and "PYSPARK_PYTHON" in message
    assert "os.environ.setdefault('PYSPARK_PYTHON', sys.executable)" in message
    assert info.value.package == "pyarrow"
    assert _worker_python(RuntimeError("Task failed: out of memory"), session, "x") is None
