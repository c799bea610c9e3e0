"""Bad input is rejected by every public entry point with ranklens' own exception
types and a message that says what is wrong, where, and how to fix it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import ranklens as rl
from ranklens.io import read_trec_qrels, read_trec_run

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.1}, "q2": {"d4": 1.0}}


def qrels():
    return rl.Qrels.from_dict(QRELS)


def run():
    return rl.Run.from_dict(RUN)


def ev(metrics, **kw):
    return rl.evaluate(qrels(), run(), metrics, **kw)


def test_exception_hierarchy():
    assert issubclass(rl.InputError, rl.RanklensError)
    assert issubclass(rl.InputError, ValueError)
    assert issubclass(rl.DuplicateError, rl.InputError)
    assert issubclass(rl.MetricNameError, rl.RanklensError)
    assert issubclass(rl.MetricNameError, ValueError)
    assert issubclass(rl.MetricParameterError, rl.MetricNameError)
    assert issubclass(rl.ConventionError, rl.RanklensError)
    assert issubclass(rl.ConventionError, ValueError)
    assert issubclass(rl.UnsupportedError, rl.RanklensError)
    assert issubclass(rl.RanklensWarning, UserWarning)


# ---------------------------------------------------------------------------------------
# duplicates
# ---------------------------------------------------------------------------------------


def test_duplicate_pairs_in_a_run_are_named():
    with pytest.raises(rl.DuplicateError) as err:
        rl.Run.from_arrays(
            ["q1", "q1", "q1", "q2", "q2"], ["d1", "d2", "d1", "d3", "d3"], [1, 2, 3, 4, 5]
        )
    msg = str(err.value)
    assert msg.startswith("Run")
    assert "2 (query, doc) pair(s) occur more than once" in msg
    assert "('q1', 'd1')" in msg and "('q2', 'd3')" in msg
    assert "duplicates='max'" in msg and "'first'" in msg and "'last'" in msg


def test_duplicate_pairs_in_qrels_and_frames():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "a"], "relevance": [1, 0]})
    with pytest.raises(rl.DuplicateError, match=r"Qrels: 1 \(query, doc\) pair.*\('q', 'a'\)"):
        rl.Qrels.from_frame(frame)
    # an integer id and its decimal text are the same id
    with pytest.raises(rl.DuplicateError, match=r"\('q', '7'\)"):
        rl.Qrels.from_dict({"q": {7: 1, "7": 0}})


def test_many_duplicates_are_summarised():
    docs = [f"d{i}" for i in range(8)]
    with pytest.raises(rl.DuplicateError) as err:
        rl.Run.from_arrays(["q"] * 16, docs + docs, list(range(16)))
    msg = str(err.value)
    assert "8 (query, doc) pair(s) occur more than once (8 extra row(s))" in msg
    assert "and 3 more" in msg  # five are listed
    assert len(re.findall(r"\('q', 'd\d'\)", msg)) == 5


def test_duplicate_message_names_each_pair_once():
    with pytest.raises(rl.DuplicateError) as err:
        rl.Run.from_arrays(["q"] * 7 + ["q"] * 2, ["a"] * 7 + ["b"] * 2, list(range(9)))
    msg = str(err.value)
    assert msg.count("('q', 'a')") == 1
    assert "('q', 'b')" in msg
    assert "2 (query, doc) pair(s) occur more than once (7 extra row(s))" in msg


@pytest.mark.parametrize(
    ("policy", "kept"),
    [
        ("max", {"d1": 9.0, "d2": 2.0}),
        ("first", {"d1": 1.0, "d2": 2.0}),
        ("last", {"d1": 3.0, "d2": 2.0}),
    ],
)
def test_duplicate_policies(policy, kept):
    r = rl.Run.from_arrays(
        ["q", "q", "q", "q"], ["d1", "d2", "d1", "d1"], [1.0, 2.0, 9.0, 3.0], duplicates=policy
    )
    assert r.to_dict() == {"q": kept}
    assert r.dropped_duplicates == 2
    assert len(r) == 2


def test_duplicate_policy_max_ranks_by_the_kept_score():
    q = rl.Qrels.from_dict({"q": {"d1": 1, "d2": 0}})
    r = rl.Run.from_arrays(["q", "q", "q"], ["d1", "d2", "d1"], [0.1, 0.5, 0.9], duplicates="max")
    assert rl.evaluate(q, r, "p@1")["p@1"] == 1.0
    first = rl.Run.from_arrays(
        ["q", "q", "q"], ["d1", "d2", "d1"], [0.1, 0.5, 0.9], duplicates="first"
    )
    assert rl.evaluate(q, first, "p@1")["p@1"] == 0.0


def test_duplicate_qrels_policy():
    q = rl.Qrels.from_arrays(["q", "q"], ["a", "a"], [0, 2], duplicates="max")
    assert q.to_dict() == {"q": {"a": 2.0}}
    assert q.dropped_duplicates == 1


def test_unknown_duplicate_policy():
    with pytest.raises(rl.InputError, match=r"duplicates='min'.*'error', 'max', 'first'"):
        rl.Run.from_arrays(["q"], ["d"], [1.0], duplicates="min")


# ---------------------------------------------------------------------------------------
# NaN, infinite and non-numeric values
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_scores_name_query_and_doc(bad):
    with pytest.raises(rl.InputError) as err:
        rl.Run.from_dict({"q1": {"d1": 1.0, "d2": bad}, "q2": {"d3": 0.5}})
    msg = str(err.value)
    assert "('q1', 'd2')" in msg
    assert "NaN or infinite" in msg
    assert "finite number" in msg


def test_non_finite_values_from_arrays_and_polars():
    with pytest.raises(rl.InputError, match=r"2 score\(s\).*\('q', 'b'\), \('q', 'c'\)"):
        rl.Run.from_arrays(
            np.array(["q", "q", "q"]), np.array(["a", "b", "c"]), np.array([1.0, np.inf, np.nan])
        )
    with pytest.raises(rl.InputError, match=r"relevance.*\('q', 'a'\)"):
        rl.Qrels.from_arrays(np.array(["q"]), np.array(["a"]), np.array([np.nan]))
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, math.nan]})
    with pytest.raises(rl.InputError, match=r"\('q', 'b'\)"):
        rl.Run.from_frame(frame)


@pytest.mark.parametrize("source", ["pandas", "pandas_inf", "list", "list_of_one"])
def test_nan_in_a_pandas_column_or_list_names_query_and_doc(source):
    # NaN is reported as NaN with its (query, doc), not as a missing (null) value
    if source.startswith("pandas"):
        pd = pytest.importorskip("pandas")
        bad = np.inf if source == "pandas_inf" else np.nan
        frame = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, bad]})
        make = lambda: rl.Run.from_frame(frame)  # noqa: E731
    elif source == "list":
        make = lambda: rl.Run.from_arrays(["q", "q"], ["a", "b"], [1.0, math.nan])  # noqa: E731
    else:
        make = lambda: rl.Run.from_arrays(["q"], ["b"], [math.nan])  # noqa: E731
    with pytest.raises(rl.InputError) as err:
        make()
    assert "('q', 'b')" in str(err.value)
    assert "NaN or infinite" in str(err.value)


def test_null_values_are_missing_not_nan():
    with pytest.raises(rl.InputError, match=r"score column: row 1 has a missing \(null\)"):
        rl.Run.from_arrays(["q", "q"], ["a", "b"], [1.0, None])


def test_non_numeric_relevance_from_dict():
    with pytest.raises(rl.InputError) as err:
        rl.Qrels.from_dict({"q1": {"d1": 1, "d2": "high"}})
    msg = str(err.value)
    assert "query 'q1'" in msg and "doc 'd2'" in msg and "'high'" in msg
    assert "not a number" in msg
    with pytest.raises(rl.InputError, match="score"):
        rl.Run.from_dict({"q": {"d": [1]}})


def test_non_numeric_columns():
    with pytest.raises(rl.InputError, match=r"relevance column.*numeric.*row 1: 'x'"):
        rl.Qrels.from_arrays(["q", "q"], ["a", "b"], ["1", "x"])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": ["q"], "doc": ["a"], "score": ["0.5"]})
    with pytest.raises(rl.InputError, match=r"score column: values must be numeric"):
        rl.Run.from_frame(frame)
    # None becomes NaN: rejected, naming the pair
    with pytest.raises(rl.InputError, match=r"\('q', 'd'\)"):
        rl.Run.from_dict({"q": {"d": None}})


def test_numeric_strings_are_rejected_by_every_constructor():
    with pytest.raises(rl.InputError, match="numeric"):
        rl.Qrels.from_arrays(["q"], ["d"], ["1"])
    with pytest.raises(
        rl.InputError,
        match=r"\(query 'q', doc 'd'\) is '1', which is not a "
        r"number",
    ):
        rl.Qrels.from_dict({"q": {"d": "1"}})


def test_bytes_values_are_rejected_by_from_dict():
    with pytest.raises(rl.InputError, match=r"doc 'd'\) is b'0.5', which is not a number"):
        rl.Run.from_dict({"q": {"a": 1.0, "d": b"0.5"}})


def test_null_ids_are_rejected():
    with pytest.raises(rl.InputError, match=r"query column: row 1 has a missing \(null\) id"):
        rl.Run.from_arrays(["q", None], ["a", "b"], [1.0, 2.0])
    with pytest.raises(rl.InputError, match=r"doc column: every id is missing"):
        rl.Run.from_arrays(["q"], [None], [1.0])


# ---------------------------------------------------------------------------------------
# wrong shapes and types
# ---------------------------------------------------------------------------------------


def test_from_dict_needs_nested_mappings():
    with pytest.raises(rl.InputError, match=r"Run.from_dict expects a mapping.*got list"):
        rl.Run.from_dict([("q", "d", 1.0)])
    with pytest.raises(rl.InputError, match=r"value for query 'q' must be a mapping"):
        rl.Qrels.from_dict({"q": [1, 2]})


def test_columns_of_different_lengths():
    with pytest.raises(rl.InputError, match=r"different lengths \(2, 1, 1\)"):
        rl.Run.from_arrays(["q", "q"], ["d"], [1.0])


def test_multidimensional_arrays():
    with pytest.raises(rl.InputError, match="one-dimensional"):
        rl.Run.from_arrays(np.array([["q"]]), ["d"], [1.0])
    with pytest.raises(rl.InputError, match="one-dimensional"):
        rl.Run.from_arrays(["q"], ["d"], np.array([[1.0]]))


def test_unsupported_column_container():
    with pytest.raises(rl.InputError, match="expected a list, numpy array"):
        rl.Run.from_arrays("qqq", ["d"], [1.0])
    with pytest.raises(rl.InputError, match="expected a pandas, polars or pyarrow table"):
        rl.Run.from_frame([1, 2, 3])


def test_evaluate_needs_qrels_and_run_objects():
    with pytest.raises(
        rl.InputError,
        match=r"qrels must be a ranklens.Qrels, got dict.*"
        r"Qrels.from_dict",
    ):
        rl.evaluate(QRELS, run(), ["p@1"])
    with pytest.raises(rl.InputError, match=r"run must be a ranklens.Run, got dict"):
        rl.evaluate(qrels(), RUN, ["p@1"])
    # swapped arguments
    with pytest.raises(rl.InputError, match=r"qrels must be a ranklens.Qrels, got Run"):
        rl.evaluate(run(), qrels(), ["p@1"])


# ---------------------------------------------------------------------------------------
# empty data
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [{}, {"q1": {}}])
def test_empty_run(empty):
    with pytest.raises(rl.InputError, match=r"The run is empty.*right file or frame"):
        rl.evaluate(qrels(), rl.Run.from_dict(empty), ["p@1"])


@pytest.mark.parametrize("empty", [{}, {"q1": {}}])
def test_empty_qrels(empty):
    with pytest.raises(rl.InputError, match="The qrels are empty"):
        rl.evaluate(rl.Qrels.from_dict(empty), run(), ["p@1"])


def test_empty_arrays_and_frames():
    with pytest.raises(rl.InputError, match="The run is empty"):
        rl.evaluate(qrels(), rl.Run.from_arrays([], [], []), ["p@1"])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": [], "doc": [], "relevance": []})
    with pytest.raises(rl.InputError, match="The qrels are empty"):
        rl.evaluate(rl.Qrels.from_frame(frame.astype({"query": str, "doc": str})), run(), ["p@1"])


def test_no_metric():
    with pytest.raises(rl.MetricNameError, match="no metric given"):
        ev([])


# ---------------------------------------------------------------------------------------
# metric names, cutoffs and parameters
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["p@0", "p@-3", "ndcg@0", "success@-1", "map@0"])
def test_cutoff_must_be_positive(name):
    with pytest.raises(rl.MetricParameterError, match=r"positive integer \(k >= 1\)") as err:
        rl.get_metric(name)
    assert repr(name) in str(err.value)


def test_trec_cutoff_must_be_positive():
    with pytest.raises(rl.MetricNameError, match=r"'P.0'.*positive integer"):
        rl.get_metric("P.0")
    with pytest.raises(rl.MetricNameError, match=r"'ndcg_cut.-2'.*positive integer"):
        rl.get_metric("ndcg_cut.-2")


def test_fractional_cutoff():
    with pytest.raises(rl.MetricParameterError, match=r"'p@2.5'.*positive integer, got 2.5"):
        rl.get_metric("p@2.5")


def test_cutoff_kinds():
    with pytest.raises(rl.MetricParameterError, match=r"rprec takes no cutoff.*remove it"):
        rl.get_metric("rprec@10")
    with pytest.raises(rl.MetricParameterError, match=r"iprec needs a recall level, e\.g\."):
        rl.get_metric("iprec")
    with pytest.raises(rl.MetricParameterError, match=r"recall level.*\[0, 1\], got 2"):
        rl.get_metric("iprec@2")
    with pytest.raises(rl.MetricParameterError, match=r"multiple of R.*> 0"):
        rl.get_metric("rprec_mult@0")


def test_unknown_parameter_lists_the_known_ones():
    with pytest.raises(rl.MetricParameterError) as err:
        rl.get_metric("ndcg(foo=1)@10")
    msg = str(err.value)
    assert "'ndcg(foo=1)@10'" in msg
    assert "unknown parameter 'foo'" in msg
    assert "'gain'" in msg and "'ideal'" in msg and "'ties'" in msg


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        (
            "ndcg(gain=3)@10",
            r"'gain' must be one of 'linear', 'exp2', 'binary' or a "
            r"non-empty mapping",
        ),
        ("ndcg(ideal=best)@10", r"'ideal' must be one of 'cut', 'full', 'retrieved'"),
        ("f1(beta=abc)@10", r"'beta' must be a finite number, got 'abc'"),
        ("rbp(p=2)", r"'p' must be a number in \[0, 1\], got 2"),
        ("ap(norm=sum)", r"'norm' must be one of 'r', 'min_r_k', 'retrieved'"),
        ("p(rel=high)@5", r"'rel' must be a finite number"),
        ("err(max_rel=-1)", r"'max_rel' must be a number in \[0, inf\]"),
        ("mar(mode=3)@5", r"'mode' must be one of 'relevant', 'all'"),
        ("err(ties=expected)@5", r"'ties' must be one of 'doc_asc', 'input', 'optimistic'"),
    ],
)
def test_wrong_parameter_values(name, expect):
    with pytest.raises(rl.MetricParameterError, match=expect) as err:
        rl.get_metric(name)
    assert repr(name) in str(err.value)
    # the same error from evaluate
    with pytest.raises(rl.MetricParameterError, match=expect):
        ev([name])


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [
        ("ndgc@10", "'ndcg'"),
        ("precison@5", "'precision'"),
        ("mrrr", "'mrr'"),
        ("recal@5", "'recall'"),
        ("bperf", "'bpref'"),
        ("sucess@3", "'success'"),
    ],
)
def test_unknown_metric_suggests_close_names(typo, suggestion):
    with pytest.raises(rl.MetricNameError) as err:
        rl.get_metric(typo)
    msg = str(err.value)
    assert f"unknown metric {typo!r}" in msg
    assert "Did you mean" in msg and suggestion in msg
    assert not isinstance(err.value, rl.MetricParameterError)


@pytest.mark.parametrize("typo", ["ndgc@10", "recal@5", "precison@5", "Rprc"])
def test_suggestions_are_not_repeated(typo):
    with pytest.raises(rl.MetricNameError) as err:
        rl.get_metric(typo)
    shown = re.search(r"Did you mean (.*)\?", str(err.value)).group(1).split(", ")
    assert len(shown) == len(set(shown))


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        ("", "non-empty string"),
        ("   ", "non-empty string"),
        ("ndcg(gain=exp2", "cannot parse metric 'ndcg\\(gain=exp2'"),
        ("p@", "cannot parse metric 'p@'"),
        ("p@5 x", "after the end of the name"),
        ("p(rel=1,rel=2)@5", "sets parameter 'rel' twice"),
        ("ndcg(gain={1:})", "cannot parse"),
        ("p@5;", "unexpected character ';'"),
        ("P.5,10", r"names 2 values; give one per metric, e.g. P.5, P.10"),
        ("utility.1,2", "utility takes four numbers"),
        ("ndcg.x=3", "grade=gain pairs"),
    ],
)
def test_unparsable_metric_names(name, expect):
    with pytest.raises(rl.MetricNameError, match=expect):
        rl.get_metric(name)


def test_metric_must_be_a_string():
    with pytest.raises(rl.MetricNameError, match="must be a string such as 'ndcg@10'"):
        rl.get_metric(5)
    with pytest.raises(rl.MetricNameError, match="must be a string"):
        ev([5])


def test_metric_given_twice():
    with pytest.raises(rl.MetricNameError, match=r"\['p@5'\] given more than once"):
        ev(["p@5", "p@5"])


def test_result_lookup_of_a_metric_not_evaluated():
    res = ev(["p@1"])
    with pytest.raises(rl.MetricNameError, match=r"'map' was not evaluated.*\['p@1'\]"):
        res.per_query("map")
    with pytest.raises(rl.MetricNameError, match="unknown metric"):
        res["ndgc@3"]


# ---------------------------------------------------------------------------------------
# conventions and profiles
# ---------------------------------------------------------------------------------------


def test_unknown_profile_suggests_the_close_one():
    with pytest.raises(rl.ConventionError) as err:
        ev(["p@1"], profile="skleran")
    msg = str(err.value)
    assert "unknown profile 'skleran'" in msg
    assert "'trec_eval'" in msg and "'ranx'" in msg
    assert "Did you mean 'sklearn'?" in msg


def test_profile_spelling_is_lenient():
    assert ev(["p@1"], profile="TREC-EVAL").conventions.profile == "trec_eval"


@pytest.mark.parametrize(
    ("kw", "expect"),
    [
        ({"ties": "random"}, r"ties='random' is not a known convention.*'trec', 'input'"),
        ({"missing": "ignore"}, r"missing='ignore'.*'zero', 'skip', 'error'"),
        ({"no_relevant": "drop"}, r"no_relevant='drop'.*'zero', 'skip', 'nan', 'error'"),
        ({"iprec_rounding": "round"}, r"iprec_rounding='round'.*'lround', 'legacy'"),
        ({"score_precision": "float16"}, r"score_precision='float16'.*'float64', 'float32'"),
        ({"rel_threshold": "1"}, r"rel_threshold must be a finite number, got '1'"),
        ({"rel_threshold": True}, r"rel_threshold must be a finite number"),
        ({"depth": 0}, r"depth must be a positive integer or None, got 0"),
        ({"depth": 1.5}, r"depth must be a positive integer or None, got 1.5"),
        ({"depth": True}, r"depth must be a positive integer or None, got True"),
    ],
)
def test_bad_conventions(kw, expect):
    with pytest.raises(rl.ConventionError, match=expect):
        ev(["p@1"], **kw)
    with pytest.raises(rl.ConventionError, match=expect):
        rl.Conventions(**kw)


def test_profile_and_conventions_together():
    with pytest.raises(rl.ConventionError, match="either profile= or conventions="):
        ev(["p@1"], profile="ranx", conventions=rl.Conventions())


def test_missing_error_lists_the_queries():
    with pytest.raises(rl.InputError) as err:
        rl.evaluate(qrels(), rl.Run.from_dict({"q1": {"d1": 1.0}}), ["p@1"], missing="error")
    msg = str(err.value)
    assert "1 queries in the qrels are not in the run: 'q2'" in msg
    assert "missing='zero'" in msg and "missing='skip'" in msg


def test_no_relevant_error_lists_the_queries():
    q = rl.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d4": 0}})
    with pytest.raises(rl.InputError) as err:
        rl.evaluate(q, run(), ["p@1"], no_relevant="error")
    msg = str(err.value)
    assert "no relevant judgment (relevance >= 1): 'q2'" in msg
    assert "no_relevant='zero'" in msg


# ---------------------------------------------------------------------------------------
# tie policies a metric does not define
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "ties"),
    [
        ("err@5", "expected"),
        ("bpref", "expected"),
        ("kendall_tau", "expected"),
        ("p@5", "grouped"),
        ("ndcg@5", "grouped"),
        ("rr", "grouped"),
    ],
)
def test_unsupported_tie_policy(metric, ties):
    with pytest.raises(rl.UnsupportedError) as err:
        ev([metric], ties=ties)
    msg = str(err.value)
    assert f"the tie policy {ties!r} is not defined for" in msg
    assert repr(metric) in msg
    assert "'trec'" in msg  # what it supports


def test_sklearn_profile_with_a_metric_without_expected_ties():
    with pytest.raises(rl.UnsupportedError, match=r"'expected' is not defined for err"):
        ev(["err@5"], profile="sklearn")
    # an explicit tie policy on the metric resolves it
    assert ev(["err(ties=trec)@5"], profile="sklearn")["err(ties=trec)@5"] >= 0


# ---------------------------------------------------------------------------------------
# ids
# ---------------------------------------------------------------------------------------


def test_unicode_ids_survive_exactly():
    q = rl.Qrels.from_dict({"007": {"é": 1, "日本": 0, "😀 doc": 2}, "ﬁ": {"x": 1}})
    r = rl.Run.from_dict({"007": {"é": 0.1, "日本": 0.9, "😀 doc": 0.5}, "ﬁ": {"x": 1.0}})
    res = rl.evaluate(q, r, ["p@1", "ndcg@3"])
    assert set(res.per_query("p@1")) == {"007", "ﬁ"}
    assert res.per_query("p@1")["007"] == 0.0  # 日本 (grade 0) first
    assert q.to_dict() == {"007": {"é": 1.0, "日本": 0.0, "😀 doc": 2.0}, "ﬁ": {"x": 1.0}}
    assert r.query_ids == ["007", "ﬁ"]


def test_ids_are_not_normalised():
    # NFC "é" and NFD "e\u0301" are different ids; so are " q" and "q"
    q = rl.Qrels.from_dict({"q": {"\u00e9": 1}})
    r = rl.Run.from_dict({"q": {"e\u0301": 1.0}})
    res = rl.evaluate(q, r, ["p@1", "unj@1"])
    assert res["p@1"] == 0.0
    assert res["unj@1"] == 1.0
    with pytest.warns(rl.RanklensWarning, match="shares no query"):
        res = rl.evaluate(q, rl.Run.from_dict({" q": {"\u00e9": 1.0}}), ["p@1"], missing="zero")
    assert res.per_query("p@1") == {"q": 0.0}


def test_leading_zeros_are_kept():
    q = rl.Qrels.from_dict({"007": {"d": 1}})
    assert q.query_ids == ["007"]
    r7 = rl.Run.from_dict({7: {"d": 1.0}})
    assert r7.query_ids == ["7"]
    with pytest.warns(rl.RanklensWarning) as rec:
        res = rl.evaluate(q, r7, ["p@1"])
    msg = str(rec[0].message)
    assert "shares no query" in msg
    assert "'q1' vs '1'" in msg
    assert res.query_ids == ()  # trec_eval's rule: missing queries are skipped
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": ["007"], "doc": ["d"], "score": [1.0]})
    res = rl.evaluate(q, rl.Run.from_frame(frame), ["p@1"])
    assert res.per_query("p@1") == {"007": 1.0}


def test_run_sharing_no_query_with_the_qrels():
    # a warning that says so, and the result is still correct: every query is missing
    run = rl.Run.from_dict({"x": {"d1": 1.0}, "y": {"d1": 1.0}})
    with pytest.warns(rl.RanklensWarning) as rec:
        res = rl.evaluate(qrels(), run, ["p@1", "ndcg@3"], missing="zero")
    msg = str(rec[0].message)
    assert "shares no query with the qrels" in msg
    assert "check that the query ids match" in msg
    assert res.summary() == {"p@1": 0.0, "ndcg@3": 0.0}
    assert res.report["run_queries_matched"] == 0
    with pytest.warns(rl.RanklensWarning, match="shares no query"):
        skipped = rl.evaluate(qrels(), run, ["p@1"])
    assert skipped.query_ids == ()
    assert np.isnan(skipped.summary()["p@1"])


def test_run_queries_without_judgments_warn():
    r = rl.Run.from_dict({**RUN, "extra": {"d1": 1.0, "d9": 0.5}})
    with pytest.warns(rl.RanklensWarning, match=r"1 run queries have no judgments.*\(2 rows\)"):
        res = rl.evaluate(qrels(), r, ["p@1"])
    assert set(res.query_ids) == {"q1", "q2"}


@pytest.mark.parametrize("ids", [[1.0, 2.0], np.array([1.5, 2.5])])
def test_float_ids_are_rejected(ids):
    with pytest.raises(
        rl.InputError,
        match=r"query column: ids must be strings or integers, "
        r"got values of type double.*Convert",
    ):
        rl.Run.from_arrays(ids, ["a", "b"], [1.0, 2.0])


def test_float_and_bool_ids_are_rejected_everywhere():
    with pytest.raises(
        rl.InputError,
        match=r"query ids must be strings \(or integers\), got "
        r"1.5 of type float",
    ):
        rl.Run.from_dict({1.5: {"d": 1.0}})
    with pytest.raises(rl.InputError, match=r"doc ids must be strings.*True of type bool"):
        rl.Qrels.from_dict({"q": {True: 1}})
    with pytest.raises(
        rl.InputError,
        match=r"doc column: ids must be strings or integers, "
        r"got values of type bool",
    ):
        rl.Run.from_arrays(["q"], [True], [1.0])
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": ["q", "q"], "doc": [1.0, 2.0], "score": [1.0, 2.0]})
    with pytest.raises(rl.InputError, match=r"doc column: ids must be strings or integers"):
        rl.Run.from_frame(frame)
    pl = pytest.importorskip("polars")
    with pytest.raises(rl.InputError, match=r"query column: ids must be strings"):
        rl.Qrels.from_frame(pl.DataFrame({"query": [1.0], "doc": ["a"], "relevance": [1]}))


# ---------------------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_missing_column_lists_the_available_ones(kind):
    mod = pytest.importorskip(kind)
    cols = {"qid": ["q1"], "docno": ["d1"], "score": [1.0]}
    frame = mod.table(cols) if kind == "pyarrow" else mod.DataFrame(cols)
    with pytest.raises(rl.InputError) as err:
        rl.Run.from_frame(frame)
    msg = str(err.value)
    assert "Run.from_frame: no column named 'query' for the query" in msg
    assert "['qid', 'docno', 'score']" in msg
    assert "Pass query=<column name>" in msg
    # naming the columns works
    r = rl.Run.from_frame(frame, query="qid", doc="docno")
    assert r.to_dict() == {"q1": {"d1": 1.0}}
    with pytest.raises(rl.InputError, match=r"no column named 'rel' for the relevance"):
        rl.Qrels.from_frame(frame, query="qid", doc="docno", relevance="rel")


# ---------------------------------------------------------------------------------------
# the other public entry points
# ---------------------------------------------------------------------------------------


def test_take_queries_rejects_a_non_sequence():
    with pytest.raises(rl.InputError, match="queries: expected a list"):
        run().take_queries(5)


def test_evaluate_cutoffs_bad_input():
    with pytest.raises(rl.MetricParameterError, match=r"without '@k' \(e\.g\. 'p'\)"):
        rl.evaluate_cutoffs(qrels(), run(), ["p@5"])
    with pytest.raises(rl.UnsupportedError, match=r"'rprec' takes no integer cutoff"):
        rl.evaluate_cutoffs(qrels(), run(), ["rprec"])
    with pytest.raises(rl.MetricParameterError, match="max_k must be a positive integer"):
        rl.evaluate_cutoffs(qrels(), run(), ["p"], max_k=0)
    with pytest.raises(rl.ConventionError, match=r"unknown convention\(s\): foo"):
        rl.evaluate_cutoffs(qrels(), run(), ["p"], foo=1)
    # a misspelt convention is refused even when its value is None (not silently dropped)
    with pytest.raises(rl.ConventionError, match=r"tie \(did you mean 'ties'\?\)"):
        rl.evaluate_cutoffs(qrels(), run(), ["p"], tie=None)
    with pytest.raises(rl.UnsupportedError, match="'expected' is not defined for bpref"):
        rl.evaluate_cutoffs(qrels(), run(), ["bpref"], ties="expected")
    with pytest.raises(rl.MetricNameError, match="Did you mean"):
        rl.evaluate_cutoffs(qrels(), run(), ["ndgc"])


def test_precision_recall_curve_bad_input():
    with pytest.raises(rl.UnsupportedError, match="needs an ordering tie policy"):
        rl.precision_recall_curve(qrels(), run(), ties="expected")
    for levels in ([1.5], [], [-0.1]):
        with pytest.raises(rl.MetricParameterError, match=r"recall levels.*\[0, 1\]"):
            rl.precision_recall_curve(qrels(), run(), levels=levels)
    with pytest.raises(rl.InputError, match="The run is empty"):
        rl.precision_recall_curve(qrels(), rl.Run.from_dict({}))


@pytest.mark.parametrize("entry", ["evaluate_cutoffs", "precision_recall_curve"])
def test_curves_need_qrels_and_run_objects(entry):
    with pytest.raises(rl.InputError, match=r"qrels must be a ranklens.Qrels, got dict"):
        getattr(rl, entry)(QRELS, run())
    with pytest.raises(rl.InputError, match=r"run must be a ranklens.Run, got dict"):
        getattr(rl, entry)(qrels(), RUN)


def test_trec_readers_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.qrels"
    bad.write_text("q1 0 d1 1\nq1 0 d2 x\n")
    with pytest.raises(
        rl.InputError, match=re.escape(f"{bad}:2: the relevance 'x' is not a number")
    ):
        read_trec_qrels(bad)
    short = tmp_path / "short.run"
    short.write_text("q1 Q0 d1 1 0.5\n")
    with pytest.raises(rl.InputError, match=r"short.run:1: expected 6 columns.*found 5"):
        read_trec_run(short)
    short_q = tmp_path / "short.qrels"
    short_q.write_text("q1 0 d1\n")
    with pytest.raises(rl.InputError, match=r"short.qrels:1: expected 4 columns"):
        read_trec_qrels(short_q)
    empty = tmp_path / "empty.run"
    empty.write_text("# a comment\n\n")
    with pytest.raises(rl.InputError, match=r"empty.run: the file is empty"):
        read_trec_run(empty)
    latin = tmp_path / "latin.run"
    latin.write_bytes("q1 Q0 d1 1 0.5 t\nq1 Q0 d\xe9 2 0.4 t\n".encode("latin-1"))
    with pytest.raises(rl.InputError, match=r"latin.run:2: the file is not valid UTF-8"):
        read_trec_run(latin)
    with pytest.raises(rl.InputError, match="no such file"):
        read_trec_run(tmp_path / "nope.run")
    with pytest.raises(rl.InputError, match="is a directory"):
        read_trec_qrels(tmp_path)
    nan = tmp_path / "nan.run"
    nan.write_text("q1 Q0 d1 1 nan tag\n")
    with pytest.raises(rl.InputError, match=r"nan\.run:1: the score 'nan' is not a finite"):
        read_trec_run(nan)
    dup = tmp_path / "dup.run"
    dup.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d1 2 0.4 tag\n")
    with pytest.raises(rl.DuplicateError, match=r"\('q1', 'd1'\)"):
        read_trec_run(dup)


@pytest.mark.parametrize(
    ("metric", "error"),
    [
        (rl.Metric("p", 0), rl.MetricParameterError),
        (rl.Metric("p", -2), rl.MetricParameterError),
        (rl.Metric("nope"), rl.MetricNameError),
        (rl.Metric("ndcg", 3, (("gain", "bogus"),)), rl.MetricParameterError),
        (rl.Metric("ndcg", 3, (("foo", 1),)), rl.MetricParameterError),
    ],
)
def test_metric_values_are_validated_by_evaluate(metric, error):
    with pytest.raises(error):
        rl.evaluate(qrels(), run(), metric)


@pytest.mark.parametrize("metrics", [None, 5, 2.5])
def test_metrics_of_the_wrong_type_are_rejected(metrics: object) -> None:
    with pytest.raises(rl.MetricNameError, match="metrics must be a metric string"):
        rl.evaluate(qrels(), run(), metrics)  # type: ignore[arg-type]
    with pytest.raises(rl.MetricNameError, match="metrics must be a metric string"):
        rl.evaluate_cutoffs(qrels(), run(), metrics)  # type: ignore[arg-type]


def test_complex_scores_and_repeated_column_names_are_input_errors():
    import numpy as np

    for scores in (np.array([1 + 2j]), [1 + 2j]):
        with pytest.raises(rl.InputError, match=r"complex|unsupported"):
            rl.Run.from_arrays(["q"], ["a"], scores)
    pd = pytest.importorskip("pandas")
    import pyarrow as pa

    with pytest.raises(rl.InputError, match="complex numbers"):
        rl.Run.from_arrays(["q"], ["a"], pd.Series([1 + 2j]))
    for frame in (
        pd.DataFrame([["q", "a", 1.0]], columns=["query", "doc", "doc"]),
        pa.table([["q"], ["a"], [1.0]], names=["query", "doc", "doc"]),
    ):
        with pytest.raises(rl.InputError, match=r"2 columns named 'doc'.*rename them"):
            rl.Run.from_frame(frame, query="query", doc="doc", score="doc")


@pytest.mark.parametrize(
    "values",
    [
        [2**53 + 1, 3],
        np.array([3, -(2**60)]),
        np.array([2**63 + 5, 1], dtype=np.uint64),
        pa.array([2**53 + 1, 3]),
    ],
)
def test_an_integer_a_float_cannot_hold_is_refused(values: object) -> None:
    """Scores and grades are float64: an integer beyond +-2**53 would be rounded (two
    distinct scores could tie), so it is an error naming the row, whatever the container
    (it was pyarrow's ArrowInvalid for lists, and silently rounded for NumPy arrays)."""
    with pytest.raises(rl.InputError, match=r"row [01] is .*beyond \+-2\*\*53"):
        rl.Run.from_arrays(["q", "q"], ["a", "b"], values)
    exact = rl.Run.from_arrays(["q", "q"], ["a", "b"], np.array([2**53, -(2**53)]))
    assert exact.scores.tolist() == [2.0**53, -(2.0**53)]


def test_a_csv_integer_a_float_cannot_hold_names_the_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ranklens.cli import main
    from tests.helpers import one_line_error

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "run.csv"
    run.write_text("query,doc,score\nq1,d2,3\nq1,d1,9007199254740993\n")
    result = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-m", "map"])
    one_line_error(result, 3, f"{run}:3: the score is 9007199254740993", "beyond +-2**53")
