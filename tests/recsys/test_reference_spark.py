"""Reference tests: ranklens (profile ``spark``) against Apache Spark MLlib's ``RankingMetrics``.

The hand-computed tests need only pandas.  The reference tests need pyspark
(test extra) and a Java runtime; they use the one local Spark session of the
test run (the ``spark`` fixture of ``tests/conftest.py``) and evaluate the union of all
random cases (users named by case) in one Spark job per metric and cutoff, so the whole
module takes seconds.  A mismatch is then narrowed down to the cases that cause it.

Spark is reached two ways:

* the binary form ``(predictions, labels)`` through pyspark's Python
  ``RankingMetrics`` class and the JVM entry point it uses
  (``newRankingMetrics`` on a DataFrame of the two columns);
* the graded form ``(predictions, labels, relevance)`` through the Scala
  constructor (over py4j), because pyspark's Python class (4.3) hands only the
  first two columns to the JVM and so never computes the graded nDCG.

Data follow Spark's expectations: deduplicated predictions, labels given in
descending relevance (Spark's graded ideal list is the labels in the order
given), relevance >= 0.  Scores tie in half of the cases: Spark reads the
list in order, ranklens ``ties='input'`` keeps tied rows in row order.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.ranking.conventions import PROFILES
from ranklens.recsys import evaluate_interactions

pd = pytest.importorskip("pandas")

K = (1, 3, 5, 10)
N_CASES = 32

# ranklens metric -> RankingMetrics method (each at every k; "map" is meanAveragePrecision)
METHODS = {"p": "precisionAt", "r": "recallAt", "map": "meanAveragePrecisionAt", "ndcg": "ndcgAt"}
NAMES = [f"{m}@{k}" for m in METHODS for k in K] + ["map"]


def _spark_name(name: str) -> tuple[str, int | None]:
    if name == "map":
        return "meanAveragePrecision", None
    metric, k = name.split("@")
    return METHODS[metric], int(k)


# --------------------------------------------------------------------------------------------
# hand-computed, without pyspark
# --------------------------------------------------------------------------------------------


def _hand_data() -> tuple[Any, Any]:
    recs = pd.DataFrame(
        {
            "user_id": ["u1", "u1", "u1", "u1", "u2", "u4", "u4"],
            "item_id": ["a", "b", "c", "d", "x", "p", "q"],
            "score": [0.9, 0.8, 0.7, 0.6, 1.0, 0.5, 0.5],
        }
    )
    held = pd.DataFrame(
        {
            "user_id": ["u1", "u1", "u1", "u3", "u4"],
            "item_id": ["b", "d", "e", "a", "p"],
            "relevance": [3.0, 1.0, 2.0, 1.0, 0.0],
        }
    )
    return recs, held


def test_spark_profile_by_hand() -> None:
    recs, held = _hand_data()
    l3 = math.log2(3)
    # u1: ranking a b c d, labels b (3), d (1), e (2)
    u1 = {
        "p@1": 0.0,
        "p@3": 1 / 3,
        "r@3": 1 / 3,
        "map": (1 / 2 + 2 / 4) / 3,
        "map@3": (1 / 2) / 3,
        "ndcg@3": (7 / l3) / (7 + 3 / l3 + 1 / 2),
    }
    # u4: p and q tie, p first (row order); label p of relevance 0 is relevant, gain 0
    u4 = {"p@1": 1.0, "p@3": 1 / 3, "r@3": 1.0, "map": 1.0, "map@3": 1.0, "ndcg@3": 0.0}
    # u2 (predictions, no labels) and u3 (labels, no predictions) score 0
    ev = evaluate_interactions(
        recs, held, list(u1), weight="relevance", profile="spark", unjudged="zero"
    )
    for name in u1:
        assert ev.result.per_query(name) == pytest.approx(
            {"u1": u1[name], "u2": 0.0, "u3": 0.0, "u4": u4[name]}, abs=1e-12
        ), name
        assert ev.summary()[name] == pytest.approx((u1[name] + u4[name]) / 4, abs=1e-12)
    assert ev.report["users_evaluated"] == 4
    assert ev.report["users_without_interactions"] == 1

    # ranklens.evaluate under the profile scores u2 (no judgments) 0 as well
    qrels = ranklens.Qrels.from_frame(held, query="user_id", doc="item_id")
    run = ranklens.Run.from_frame(recs, query="user_id", doc="item_id")
    res = ranklens.evaluate(qrels, run, list(u1), profile="spark")
    assert res.query_ids == ("u1", "u2", "u3", "u4")
    assert res.report["run_queries_scored_zero_without_judgments"] == 1
    for name in u1:
        assert res[name] == pytest.approx((u1[name] + u4[name]) / 4, abs=1e-12)
    # unjudged='skip' leaves it out, with a warning
    with pytest.warns(ranklens.RanklensWarning, match="no judgments"):
        res = ranklens.evaluate(qrels, run, list(u1), profile="spark", unjudged="skip")
    assert res.query_ids == ("u1", "u3", "u4")
    for name in u1:
        assert res[name] == pytest.approx((u1[name] + u4[name]) / 3, abs=1e-12)

    # the binary form: every label of grade 1
    binary = evaluate_interactions(
        recs, held, ["ndcg@3", "ndcg@1"], profile="spark", unjudged="zero"
    )
    assert binary.result.per_query("ndcg@3")["u1"] == pytest.approx(
        (1 / l3) / (1 + 1 / l3 + 1 / 2), abs=1e-12
    )
    assert binary.result.per_query("ndcg@1")["u4"] == 1.0


def test_spark_profile_settings() -> None:
    conv = PROFILES["spark"]
    assert (conv.ties, conv.missing, conv.unjudged, conv.rel_threshold) == (
        "input",
        "zero",
        "zero",
        0,
    )
    assert conv.metric_defaults == {
        "ap": {"norm": "min_r_k"},
        "ndcg": {"gain": "exp2", "ideal": "cut"},
    }


# --------------------------------------------------------------------------------------------
# random cases
# --------------------------------------------------------------------------------------------

Row = tuple[str, str, float]  # (user, item, score or relevance)
SparkRow = tuple[list[str], list[str], list[float]]  # (predictions, labels, relevance)


class Cases:
    """The union of the random cases as ranklens inputs and Spark rows."""

    def __init__(self, n_cases: int) -> None:
        rec_rows, held_rows = [], []
        self.case_of: dict[str, int] = {}
        for c in range(n_cases):
            recs, held = _case(c)
            rec_rows += recs
            held_rows += held
            for user, _, _ in recs + held:
                self.case_of[user] = c
        # one frame each (pd.concat of per-case frames gives chunked Arrow string columns,
        # which ranklens' column reader does not combine yet)
        self.recs = pd.DataFrame(rec_rows, columns=["user_id", "item_id", "score"])
        self.held = pd.DataFrame(held_rows, columns=["user_id", "item_id", "relevance"])
        self.users = sorted(self.case_of)
        self.labelled = sorted(set(self.held["user_id"]))

    def rows(self, users: list[str], graded: bool) -> list[SparkRow]:
        """Spark rows (predicted list, labels, relevance) for ``users``; the relevance list
        is empty for the binary form."""
        recs, held = self.recs, self.held
        # the predicted list: score descending, tied rows in row order
        order = np.lexsort((np.arange(len(recs)), -recs["score"].to_numpy()))
        pred = recs.iloc[order].groupby("user_id", sort=False)["item_id"].agg(list)
        # labels in descending relevance (Spark's graded ideal list is the labels' order)
        lab_order = np.lexsort((np.arange(len(held)), -held["relevance"].to_numpy()))
        by_user = held.iloc[lab_order].groupby("user_id", sort=False)
        labels = by_user["item_id"].agg(list)
        rel = by_user["relevance"].agg(list)
        out: list[SparkRow] = []
        for u in users:
            p = pred.get(u, [])
            lab = labels.get(u, [])
            out.append((p, lab, [float(x) for x in rel.get(u, [])] if graded else []))
        return out


def _case(seed: int) -> tuple[list[Row], list[Row]]:
    """One case's (user, item, score) and (user, item, relevance) rows."""
    rng = np.random.default_rng(4400 + seed)
    ties = seed % 2 == 1
    n_items = int(rng.integers(6, 40))
    longest = 4 if seed % 4 == 0 else 20  # some cases never reach k = 5 or 10
    rec_rows: list[Row] = []
    held_rows: list[Row] = []
    for u in range(int(rng.integers(3, 16))):
        user = f"c{seed:02d}u{u:02d}"
        has_rec, has_lab = rng.random() < 0.8, rng.random() < 0.8
        if not (has_rec or has_lab):
            has_rec = has_lab = True
        if has_rec:
            n = int(rng.integers(1, min(n_items, longest) + 1))
            items = rng.choice(n_items, size=n, replace=False)
            scores = rng.integers(0, 3, size=n).astype(float) if ties else rng.permutation(n) / 3.0
            rec_rows += [(user, f"i{i}", float(s)) for i, s in zip(items, scores, strict=True)]
        if has_lab:
            m = int(rng.integers(1, min(n_items, 12) + 1))
            items = rng.choice(n_items, size=m, replace=False)
            rel = rng.choice([0.0, 0.5, 1.0, 1.0, 2.0, 3.0], size=m)
            held_rows += [(user, f"i{i}", float(r)) for i, r in zip(items, rel, strict=True)]
    # rows of all users interleaved: the order that matters is within a user
    return (
        [rec_rows[i] for i in rng.permutation(len(rec_rows))],
        [held_rows[i] for i in rng.permutation(len(held_rows))],
    )


# --------------------------------------------------------------------------------------------
# Spark
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """pyspark's own FutureWarnings (pandas 3, SQLContext) are not ours to fail on."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def _ranking_metrics_class() -> Any:
    with _quiet():
        from pyspark.mllib.evaluation import RankingMetrics
    return RankingMetrics


def _wrap(java_metrics: Any) -> Any:
    """A JVM RankingMetrics in pyspark's Python class (whose methods call the JVM object)."""
    cls = _ranking_metrics_class()
    metrics = cls.__new__(cls)
    super(cls, metrics).__init__(java_metrics)
    return metrics


def _python_bridge(spark: Any, rows: list[SparkRow]) -> Any:
    """pyspark's Python RankingMetrics: a (prediction, label) DataFrame handed to the JVM
    by ``newRankingMetrics``.  The class builds that DataFrame from an RDD (through Python
    workers, several times slower); the rows reaching the JVM are the same."""
    from pyspark.sql.types import ArrayType, StringType, StructField, StructType

    ids = ArrayType(StringType(), False)
    schema = StructType([StructField("prediction", ids, False), StructField("label", ids, False)])
    with _quiet():
        from pyspark.mllib.common import callMLlibFunc

        frame = spark.createDataFrame([(p, lab) for p, lab, _ in rows], schema)
        return _wrap(callMLlibFunc("newRankingMetrics", frame._jdf))


def _jvm_row(spark: Any, row: SparkRow) -> Any:
    """One (predictions, labels, relevance) row as a JVM Tuple3 of String[], String[],
    double[] (a handful of py4j calls)."""
    jvm, gateway = spark.sparkContext._jvm, spark.sparkContext._gateway
    p, lab, rel = row

    def strings(xs: list[str]) -> Any:
        if not xs:
            return gateway.new_array(jvm.java.lang.String, 0)
        return jvm.java.util.regex.Pattern.compile("\x01").split("\x01".join(xs))

    def doubles(xs: list[float]) -> Any:
        if not xs:
            return gateway.new_array(jvm.double, 0)
        return jvm.org.apache.spark.mllib.linalg.Vectors.parse(
            "[" + ",".join(map(repr, xs)) + "]"
        ).toArray()

    return jvm.scala.Tuple3(strings(p), strings(lab), doubles(rel))


def _scala_api(spark: Any, jvm_rows: list[Any]) -> Any:
    """The Scala RankingMetrics built from (predictions, labels, relevance) rows, the only
    form that computes the graded nDCG (an empty relevance array is the binary form)."""
    jvm = spark.sparkContext._jvm
    rdd = spark.sparkContext._jsc.parallelize(jvm_rows, 1).rdd()
    tag = jvm.scala.reflect.ClassTag.apply(jvm.java.lang.Class.forName("java.lang.String"))
    return _wrap(jvm.org.apache.spark.mllib.evaluation.RankingMetrics(rdd, tag))


def _spark_value(metrics: Any, name: str) -> float:
    method, k = _spark_name(name)
    if k is None:
        return float(getattr(metrics, method))
    return float(getattr(metrics, method)(k))


@pytest.fixture(scope="module")
def cases() -> Cases:
    return Cases(N_CASES)


class SparkReference:
    """Spark's RankingMetrics over the rows of some users of the random cases: the
    binary form through pyspark's Python bridge, the graded form through Scala."""

    def __init__(self, spark: Any, cases: Cases) -> None:
        self.spark = spark
        self.cases = cases
        self._graded_rows: dict[str, Any] = {}  # user -> JVM Tuple3

    def metrics(self, users: list[str], graded: bool) -> Any:
        rows = self.cases.rows(users, graded)
        if not graded:
            return _python_bridge(self.spark, rows)
        for u, row in zip(users, rows, strict=True):
            if u not in self._graded_rows:
                self._graded_rows[u] = _jvm_row(self.spark, row)
        return _scala_api(self.spark, [self._graded_rows[u] for u in users])


@pytest.fixture(scope="module")
def reference(spark: Any, cases: Cases) -> SparkReference:
    return SparkReference(spark, cases)


def _check(
    reference: SparkReference, users: list[str], graded: bool, res: ranklens.Result, tag: str
) -> None:
    """ranklens' means (over ``users``) equal Spark's over the same users' rows; on a
    mismatch, name the cases that differ."""
    assert set(res.query_ids) == set(users), tag
    want_all = reference.metrics(users, graded)
    got = res.summary()
    bad = [
        n for n in NAMES if got[n] != pytest.approx(_spark_value(want_all, n), abs=1e-9, rel=1e-9)
    ]
    if not bad:
        return
    case_of = reference.cases.case_of
    culprits = []
    for c in sorted({case_of[u] for u in users}):
        mine = [u for u in users if case_of[u] == c]
        want = reference.metrics(mine, graded)
        for n in bad:
            per_query = res.per_query(n)
            ours = float(np.mean([per_query[u] for u in mine]))
            if ours != pytest.approx(_spark_value(want, n), abs=1e-9, rel=1e-9):
                culprits.append((c, n, ours, _spark_value(want, n)))
    pytest.fail(
        f"{tag}: ranklens differs from Spark on {bad}; "
        f"(case, metric, ranklens, spark): {culprits[:10]}"
    )


@pytest.mark.reference
@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
def test_evaluate_interactions_agrees_with_spark(reference: SparkReference, graded: bool) -> None:
    cases = reference.cases
    # every user on either side is a Spark row; users without labels score 0
    ev = evaluate_interactions(
        cases.recs,
        cases.held,
        NAMES,
        score="score",
        weight="relevance" if graded else None,
        repeats="sum" if graded else "binary",
        profile="spark",
        unjudged="zero",
    )
    assert ev.report["users_without_interactions"] > 0
    assert ev.report["users_without_recommendations"] > 0
    _check(reference, cases.users, graded, ev.result, "evaluate_interactions")


@pytest.mark.reference
@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
def test_evaluate_agrees_with_spark_on_labelled_users(
    reference: SparkReference, graded: bool
) -> None:
    cases = reference.cases
    held = cases.held if graded else cases.held.assign(relevance=1.0)
    qrels = ranklens.Qrels.from_frame(held, query="user_id", doc="item_id")
    run = ranklens.Run.from_frame(cases.recs, query="user_id", doc="item_id")
    # the profile scores users without labels 0, as Spark does
    _check(
        reference,
        cases.users,
        graded,
        ranklens.evaluate(qrels, run, NAMES, profile="spark"),
        "evaluate",
    )
    # unjudged='skip' (and evaluate_interactions by default) leave them out: Spark over
    # the labelled users' rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)  # users without labels
        res = ranklens.evaluate(qrels, run, NAMES, profile="spark", unjudged="skip")
    _check(reference, cases.labelled, graded, res, "evaluate")
    ev = evaluate_interactions(cases.recs, held, NAMES, weight="relevance", profile="spark")
    assert ev.result.query_ids == res.query_ids
    for n in NAMES:
        assert np.array_equal(ev.result.values[n], res.values[n]), n


@pytest.mark.reference
def test_spark_graded_ideal_is_the_label_order(spark: Any) -> None:
    # a documented difference: Spark's graded ideal list is the labels in the order given,
    # so labels out of relevance order give nDCG above 1; ranklens sorts the ideal list
    l3 = math.log2(3)
    row = _jvm_row(spark, (["b", "a"], ["a", "b"], [1.0, 3.0]))
    assert _scala_api(spark, [row]).ndcgAt(2) == pytest.approx(
        (7 + 1 / l3) / (1 + 7 / l3), abs=1e-12
    )
    held = pd.DataFrame({"user_id": ["u", "u"], "item_id": ["a", "b"], "relevance": [1.0, 3.0]})
    recs = pd.DataFrame({"user_id": ["u", "u"], "item_id": ["b", "a"], "score": [2.0, 1.0]})
    ev = evaluate_interactions(recs, held, ["ndcg@2"], weight="relevance", profile="spark")
    assert ev.summary()["ndcg@2"] == 1.0


@pytest.mark.reference
def test_pyspark_python_class_drops_the_relevance(spark: Any) -> None:
    # a documented difference: pyspark's Python RankingMetrics hands only the first two
    # columns to the JVM, so its ndcgAt is binary even for (prediction, label, relevance)
    from pyspark.sql.types import ArrayType, DoubleType, StringType, StructField, StructType

    ids = ArrayType(StringType(), False)
    schema = StructType(
        [
            StructField("prediction", ids, False),
            StructField("label", ids, False),
            StructField("relevance", ArrayType(DoubleType(), False), False),
        ]
    )
    with _quiet():
        from pyspark.mllib.common import callMLlibFunc

        frame = spark.createDataFrame(
            [(["b", "a"], ["a", "b"], [3.0, 1.0]), (["a", "c"], ["a", "b"], [3.0, 1.0])], schema
        )
        python = _wrap(callMLlibFunc("newRankingMetrics", frame._jdf))
    l3 = math.log2(3)
    # binary: user 1 finds both labels (1), user 2 one label at rank 1 of two
    assert python.ndcgAt(2) == pytest.approx((1 + 1 / (1 + 1 / l3)) / 2, abs=1e-12)


@pytest.mark.reference
@pytest.mark.parametrize("graded", [False, True], ids=["binary", "graded"])
def test_ranklens_on_spark_agrees_with_spark(reference: SparkReference, graded: bool) -> None:
    # the same comparison with ranklens running inside Spark (ranklens.spark), whose
    # per-user values are then those of the local evaluation
    import ranklens.spark as rs

    cases = reference.cases
    with _quiet():
        recs = reference.spark.createDataFrame(cases.recs)
        held = reference.spark.createDataFrame(cases.held)
    ev = rs.evaluate_interactions(
        recs,
        held,
        NAMES,
        score="score",
        weight="relevance" if graded else None,
        repeats="sum" if graded else "binary",
        profile="spark",
        unjudged="zero",
    )
    local = ev.to_local()
    _check(reference, cases.users, graded, local.result, "ranklens.spark")
    summary = ev.summary()
    for n in NAMES:
        assert summary[n] == pytest.approx(local.result[n], abs=1e-12), n
