"""Splitters of ranklens.recsys: hand-computed folds, pandas/polars agreement,
scikit-learn equivalence, invariants and bad input with exact messages."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranklens
import ranklens.recsys as rs
from ranklens.errors import InputError


def log() -> pd.DataFrame:
    # user a: days 1,2,3,8 ; user b: days 2,9 ; user c: day 10 (cold after a day-8 cut)
    return pd.DataFrame(
        {
            "user_id": ["a", "a", "a", "a", "b", "b", "c"],
            "item_id": [1, 2, 3, 4, 1, 5, 1],
            "timestamp": pd.to_datetime(
                [
                    "2024-01-01",
                    "2024-01-02",
                    "2024-01-03",
                    "2024-01-08",
                    "2024-01-02",
                    "2024-01-09",
                    "2024-01-10",
                ]
            ),
            "rating": [1, 0, 1, 0, 1, 0, 1],
        }
    )


def folds(splitter, X, **kw):
    return [(tr.tolist(), te.tolist()) for tr, te in splitter.split(X, **kw)]


def random_log(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "user_id": rng.integers(0, max(n // 5, 2), n),
            "item_id": rng.integers(0, 30, n),
            "timestamp": rng.integers(0, 1000, n).astype(np.float64),
        }
    )


def test_import_is_lazy():
    code = (
        "import sys, ranklens, ranklens.recsys; "
        "print(any(m in sys.modules for m in ('pandas', 'polars', 'sklearn')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- global time split ------------------------------------------------------------------


def test_global_time_split_at_date():
    s = rs.GlobalTimeSplit("2024-01-08")
    assert folds(s, log()) == [([0, 1, 2, 4], [3, 5, 6])]
    rep = s.report_[0]
    assert (rep.n_train, rep.n_test, rep.test_start) == (4, 3, "2024-01-08T00:00:00.000000000")
    assert s.get_n_splits() == 1


def test_global_time_split_gap_and_end():
    s = rs.GlobalTimeSplit("2024-01-08", gap="2D", test_end="2024-01-10")
    # train t < Jan 6; test Jan 8 <= t < Jan 10
    assert folds(s, log()) == [([0, 1, 2, 4], [3, 5])]
    s = rs.GlobalTimeSplit("2024-01-03", gap=dt.timedelta(days=1))
    assert folds(s, log()) == [([0], [2, 3, 5, 6])]


def test_global_time_split_fraction_ties_go_to_test():
    df = pd.DataFrame({"user_id": [1] * 5, "item_id": range(5), "timestamp": [1, 2, 3, 3, 4]})
    # 40% of 5 = 2 rows -> cut at the 4th smallest timestamp (3); the tie joins test
    assert folds(rs.GlobalTimeSplit(test_size=0.4), df) == [([0, 1], [2, 3, 4])]


def test_pandas_and_polars_agree():
    df = log()
    for s in (
        rs.GlobalTimeSplit("2024-01-03"),
        rs.LeaveLastN(2),
        rs.UserRatioSplit(0.5),
        rs.TimeRangeCV(2, test_size="4D"),
        rs.RandomSplit(0.3, random_state=1),
    ):
        assert folds(s, df) == folds(s, pl.from_pandas(df)), s


def test_split_frames_and_tz_aware():
    df = log()
    df["timestamp"] = df["timestamp"].dt.tz_localize("Europe/Paris")
    train, test = next(rs.GlobalTimeSplit("2024-01-07T23:30").split_frames(df))
    # 2024-01-08 00:00 Paris is 2024-01-07 23:00 UTC: before the cut
    assert train.index.tolist() == [0, 1, 2, 3, 4] and test.index.tolist() == [5, 6]


def test_numeric_timestamps():
    df = pd.DataFrame({"user_id": [1, 1, 2], "item_id": [1, 2, 3], "timestamp": [10, 20, 30]})
    assert folds(rs.GlobalTimeSplit(20), df) == [([0], [1, 2])]
    assert folds(rs.GlobalTimeSplit(20, gap=5), df) == [([0], [1, 2])]
    with pytest.raises(InputError, match="fold 0 has an empty training side"):
        list(rs.GlobalTimeSplit(20, gap=15).split(df))


def test_durations_have_one_grammar():
    # '4D' as pandas writes it, as text, in weeks and hours, and as timedelta objects
    want = folds(rs.TimeRangeCV(2, test_size="4D"), log())
    for window in (
        "4d",
        "4 days",
        "4 day",
        "96h",
        "96 hours",
        "5760min",
        "4 D",
        dt.timedelta(days=4),
        pd.Timedelta(days=4),
        np.timedelta64(4, "D"),
    ):
        assert folds(rs.TimeRangeCV(2, test_size=window), log()) == want, window
    s = rs.GlobalTimeSplit("2024-01-08", gap="2D", test_end="2024-01-10")
    for gap in ("2 days", "2d", "48h", "2880 minutes", dt.timedelta(hours=48)):
        assert folds(
            rs.GlobalTimeSplit("2024-01-08", gap=gap, test_end="2024-01-10"), log()
        ) == folds(s, log())
    # half a week: training ends 3.5 days before the cut
    s = rs.GlobalTimeSplit("2024-01-08", gap="0.5 weeks")
    assert folds(s, log()) == [([0, 1, 2, 4], [3, 5, 6])]
    assert s.report_[0].train_end == "2024-01-04T12:00:00.000000000"


def test_time_columns_of_every_kind():
    # ISO-8601 text, dates, time-zone aware timestamps and numbers are all time columns
    df = log()
    want = folds(rs.GlobalTimeSplit("2024-01-08"), df)
    text = df.assign(timestamp=df["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S"))
    assert folds(rs.GlobalTimeSplit("2024-01-08"), text) == want
    dates = df.assign(timestamp=df["timestamp"].dt.date)
    assert folds(rs.GlobalTimeSplit("2024-01-08"), dates) == want
    s = rs.GlobalTimeSplit("2024-01-08")
    utc = df.assign(timestamp=df["timestamp"].dt.tz_localize("UTC"))
    assert folds(s, utc) == want
    assert s.report_[0].test_start == "2024-01-08T00:00:00.000000000Z"
    assert folds(rs.GlobalTimeSplit("2024-01-08"), pa_table(df)) == want
    assert folds(rs.GlobalTimeSplit("2024-01-08"), {c: df[c].to_numpy() for c in df}) == want


def pa_table(df: pd.DataFrame):
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False)


def test_column_keywords_and_their_deprecated_spellings():
    df = log().rename(columns={"user_id": "u", "item_id": "i", "timestamp": "t", "rating": "r"})
    want = folds(rs.LeaveOneOut(drop_cold_users=True), log())
    new = rs.LeaveOneOut(user="u", item="i", time="t", drop_cold_users=True)
    assert folds(new, df) == want
    with pytest.warns(ranklens.RanklensDeprecationWarning) as seen:
        old = rs.LeaveOneOut(user_col="u", item_col="i", time_col="t", drop_cold_users=True)
    assert [str(w.message) for w in seen] == [
        f"LeaveOneOut: {k}_col={v!r} is deprecated and goes in the next release; pass {k}={v!r}"
        for k, v in (("user", "u"), ("item", "i"), ("time", "t"))
    ]
    assert (old.user, old.item, old.time) == ("u", "i", "t")
    assert folds(old, df) == want
    with pytest.warns(ranklens.RanklensDeprecationWarning, match="pass time='t'"):
        assert folds(
            rs.GlobalTimeSplit("2024-01-08", time_col="t", user="u", item="i"), df
        ) == folds(rs.GlobalTimeSplit("2024-01-08"), log())
    from sklearn.model_selection import GroupKFold, StratifiedKFold

    X = np.zeros((len(df), 1))
    strat = [(a.tolist(), b.tolist()) for a, b in StratifiedKFold(2).split(X, df.r)]
    assert folds(rs.StratifiedKFoldSplit(2, y="r", user="u", item="i"), df) == strat
    with pytest.warns(ranklens.RanklensDeprecationWarning, match="pass y='r'"):
        assert folds(rs.StratifiedKFoldSplit(2, y_col="r", user="u", item="i"), df) == strat
    groups = [(a.tolist(), b.tolist()) for a, b in GroupKFold(2).split(X, groups=df.u)]
    assert folds(rs.GroupKFoldSplit(2, groups="u", user="u", item="i"), df) == groups
    with pytest.warns(ranklens.RanklensDeprecationWarning, match="pass groups='u'"):
        assert folds(rs.GroupKFoldSplit(2, groups_col="u", user="u", item="i"), df) == groups
    with pytest.warns(ranklens.RanklensDeprecationWarning, match="pass y='r'"):
        assert rs.SklearnSplit(StratifiedKFold(2), y_col="r").y == "r"
    assert rs.SklearnSplit(StratifiedKFold(2), y="r", groups="u").groups == "u"
    with pytest.warns(ranklens.RanklensDeprecationWarning, match="pass user='u'"):
        rs.check_leakage(df, [0, 4], [1, 2], time="t", user_col="u")
    with (
        pytest.warns(ranklens.RanklensDeprecationWarning, match="pass time='t'"),
        pytest.raises(rs.LeakageError, match="user 'a' at 2024-01-02"),
    ):
        rs.check_leakage(df, [0, 2], [1], time_col="t", user="u")
    with pytest.raises(TypeError):
        rs.GroupKFoldSplit(drop_cold_users=True)  # a cold-user protocol has only cold users


# -- time range CV --------------------------------------------------------------------


def test_time_range_cv_windows():
    s = rs.TimeRangeCV(3, test_size="3D")
    # T = Jan 10; windows (Jan 1, Jan 4], (Jan 4, Jan 7], (Jan 7, Jan 10]; the middle one
    # holds no interaction
    with pytest.raises(InputError, match="fold 1 tests"):
        list(s.split(log()))
    s = rs.TimeRangeCV(2, test_size="4D")
    # windows (Jan 2, Jan 6] and (Jan 6, Jan 10]
    assert folds(s, log()) == [([0, 1, 4], [2]), ([0, 1, 2, 4], [3, 5, 6])]
    assert [r.test_end for r in s.report_] == [
        "2024-01-06T00:00:00.000000000",
        "2024-01-10T00:00:00.000000000",
    ]
    assert s.get_n_splits() == 2


def test_time_range_cv_gap_numeric():
    df = pd.DataFrame({"user_id": [1] * 6, "item_id": range(6), "timestamp": range(1, 7)})
    assert folds(rs.TimeRangeCV(2, test_size=2, gap=1), df) == [([0], [2, 3]), ([0, 1, 2], [4, 5])]


def test_time_range_window_beyond_data():
    with pytest.raises(InputError) as e:
        list(rs.TimeRangeCV(4, test_size="3D").split(log()))
    assert str(e.value) == (
        "TimeRangeCV: the oldest test window starts at 2023-12-29T00:00:00.000000000, before "
        "the first interaction (2024-01-01T00:00:00.000000000), so fold 0 would have no "
        "training data; use at most n_splits=3 with test_size='3D', or a shorter window."
    )


# -- per user -------------------------------------------------------------------------


def test_leave_last_n_and_loo():
    assert folds(rs.LeaveLastN(2), log()) == [([0, 1], [2, 3, 4, 5, 6])]
    s = rs.LeaveOneOut(drop_cold_users=True)
    assert folds(s, log()) == [([0, 1, 2, 4], [3, 5])]
    rep = s.report_[0]
    assert (rep.cold_users_dropped, rep.test_rows_dropped) == (1, 1)
    assert repr(s) == (
        "LeaveOneOut(user='user_id', item='item_id', time='timestamp', "
        "drop_cold_users=True, drop_cold_items=False)"
    )
    assert repr(rs.GlobalTimeSplit("2024-01-08", gap="1D")).startswith(
        "GlobalTimeSplit(test_start='2024-01-08', test_size=None, test_end=None, gap='1D', "
        "user='user_id'"
    )


def test_leave_last_n_equal_timestamps_keep_input_order():
    df = pd.DataFrame({"user_id": [1, 1, 1], "item_id": [1, 2, 3], "timestamp": [5, 5, 5]})
    assert folds(rs.LeaveLastN(1), df) == [([0, 1], [2])]


def test_user_ratio_split():
    # a has 4 rows -> 2 test; b 2 -> 1; c 1 -> floor(0.5 + 0.5) = 1
    assert folds(rs.UserRatioSplit(0.5), log()) == [([0, 1, 4], [2, 3, 5, 6])]
    r1 = folds(rs.UserRatioSplit(0.5, by="random", random_state=3), log())
    assert r1 == folds(rs.UserRatioSplit(0.5, by="random", random_state=3), log())
    assert len(r1[0][1]) == 4


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(0, 10**6), st.integers(1, 3))
def test_leave_last_n_properties(n, seed, k):
    df = random_log(n, seed)
    try:
        tr, te = next(rs.LeaveLastN(k).split(df))
    except InputError as e:  # every user has <= k interactions: nothing left to train on
        assert "empty training side" in str(e)
        assert (df.groupby("user_id").size() <= k).all()
        return
    assert np.array_equal(np.sort(np.r_[tr, te]), np.arange(n))
    counts = df.iloc[te].groupby("user_id").size()
    totals = df.groupby("user_id").size()
    assert (counts == np.minimum(totals, k)).all()
    rs.check_leakage(df, tr, te, user="user_id")


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 60), st.integers(0, 10**6), st.floats(0.05, 0.95))
def test_ratio_and_random_partition(n, seed, frac):
    df = random_log(n, seed)
    for s in (rs.UserRatioSplit(frac), rs.RandomSplit(frac, random_state=seed)):
        try:
            tr, te = next(s.split(df))
        except InputError as e:  # a tiny table can leave one side empty: said so
            assert "empty" in str(e)
            continue
        assert np.array_equal(np.sort(np.r_[tr, te]), np.arange(n))


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 80), st.integers(0, 10**6), st.floats(0.1, 0.9))
def test_global_split_never_leaks(n, seed, frac):
    df = random_log(n, seed)
    try:
        tr, te = next(rs.GlobalTimeSplit(test_size=frac, drop_cold_users=True).split(df))
    except InputError:
        return
    assert df.timestamp.iloc[te].min() >= df.timestamp.iloc[tr].max()
    assert set(df.user_id.iloc[te]) <= set(df.user_id.iloc[tr])


# -- random / scikit-learn --------------------------------------------------------------


def test_random_split_seeded():
    a = folds(rs.RandomSplit(0.3, n_splits=2, random_state=7), log())
    assert a == folds(rs.RandomSplit(0.3, n_splits=2, random_state=7), log())
    assert len(a) == 2 and all(len(te) == 2 for _, te in a)


def test_sklearn_equivalence():
    from sklearn.model_selection import GroupKFold, KFold, LeavePOut, StratifiedKFold

    df = random_log(40, 0)
    df["rating"] = np.arange(40) % 2
    X = np.zeros((40, 1))
    pairs = [
        (
            rs.KFoldSplit(4, shuffle=True, random_state=0),
            KFold(4, shuffle=True, random_state=0).split(X),
        ),
        (rs.StratifiedKFoldSplit(3, y="rating"), StratifiedKFold(3).split(X, df.rating)),
        (rs.GroupKFoldSplit(3), GroupKFold(3).split(X, groups=df.user_id)),
        (rs.SklearnSplit(KFold(2)), KFold(2).split(X)),
    ]
    for ours, theirs in pairs:
        assert folds(ours, df) == [(a.tolist(), b.tolist()) for a, b in theirs]
    small = df.iloc[:5]
    lpo = rs.LeavePOutSplit(2)
    assert folds(lpo, small) == [
        (a.tolist(), b.tolist()) for a, b in LeavePOut(2).split(np.zeros((5, 1)))
    ]
    assert lpo.get_n_splits(small) == 10
    assert rs.KFoldSplit(4).get_n_splits() == 4


def test_sklearn_split_cold_items():
    df = log()
    from sklearn.model_selection import KFold

    s = rs.SklearnSplit(KFold(7), drop_cold_items=True)
    with pytest.raises(InputError, match="fold 1 has no test rows left"):
        list(s.split(df))


# -- nested two-stage -------------------------------------------------------------------


def test_nested_two_stage():
    df = random_log(300, 5)
    s = rs.NestedTwoStageSplit(
        test_start=800.0, local_test_start=600.0, ranker_test_size=0.5, random_state=0
    )
    st_ = s.split_stages(df)
    t = df.timestamp.to_numpy()
    assert t[st_.global_train].max() < 800 <= t[st_.global_test].min()
    assert np.array_equal(np.sort(np.r_[st_.local_train, st_.local_test]), st_.global_train)
    assert t[st_.local_train].max() < 600 <= t[st_.local_test].min()
    assert np.array_equal(np.sort(np.r_[st_.ranker_train, st_.ranker_test]), st_.local_test)
    u = df.user_id.to_numpy()
    assert not set(u[st_.ranker_train]) & set(u[st_.ranker_test])
    assert set(st_.as_dict()) == {
        "global_train",
        "global_test",
        "local_train",
        "local_test",
        "ranker_train",
        "ranker_test",
    }
    ((tr, te),) = list(s.split(df))
    assert np.array_equal(tr, st_.global_train) and np.array_equal(te, st_.global_test)
    again = s.split_stages(df)
    assert np.array_equal(again.ranker_test, st_.ranker_test)


def test_nested_two_stage_drop_cold_reports():
    day = pd.Timestamp("2024-01-01")
    df = pd.DataFrame(
        {
            "user_id": ["a", "a", "a", "b", "b", "b", "c", "d"],
            "item_id": [1, 2, 3, 1, 2, 4, 1, 2],
            "timestamp": [day + pd.Timedelta(days=d) for d in (0, 2, 7, 0, 3, 8, 9, 2)],
        }
    )
    s = rs.NestedTwoStageSplit(
        "2024-01-08", local_test_start="2024-01-03", drop_cold_users=True, random_state=0
    )
    out = s.split_stages(df)
    assert out.global_train.tolist() == [0, 1, 3, 4, 7]
    assert out.global_test.tolist() == [2, 5]  # user c (cold) dropped
    assert out.reports["global"].cold_users_dropped == 1
    assert out.local_train.tolist() == [0, 3]
    assert out.local_test.tolist() == [1, 4]  # user d is cold locally
    assert out.reports["local"].cold_users_dropped == 1
    assert sorted(out.ranker_train.tolist() + out.ranker_test.tolist()) == [1, 4]
    assert len(out.ranker_test) == 1
    with pytest.raises(InputError) as e:
        rs.NestedTwoStageSplit("2024-01-08", local_test_start="2024-01-05").split_stages(df)
    assert str(e.value) == (
        "NestedTwoStageSplit (local split): local_test_start='2024-01-05' is after the last "
        "interaction (2024-01-04T00:00:00.000000000), so the test side would be empty; choose "
        "an earlier local_test_start."
    )
    with pytest.raises(InputError) as e:
        rs.NestedTwoStageSplit(
            "2024-01-08", local_test_start="2024-01-04", drop_cold_users=True
        ).split_stages(df)
    assert str(e.value) == (
        "NestedTwoStageSplit: the local test side has 1 user(s); splitting it by users into "
        "ranker train and ranker test needs at least 2. Choose an earlier local_test_start or "
        "a larger local_test_size."
    )


# -- leakage and bad input --------------------------------------------------------------


def test_check_leakage():
    df = log()
    rs.check_leakage(df, [0, 1], [2, 3])
    with pytest.raises(rs.LeakageError) as e:
        rs.check_leakage(df, [0, 3], [1, 2])
    assert str(e.value) == (
        "check_leakage: 2 test interaction(s) precede the training cut "
        "2024-01-08T00:00:00.000000000 (the earliest at 2024-01-02T00:00:00.000000000); the "
        "split puts future data into training."
    )
    rs.check_leakage(df, [0, 4], [1, 2], user="user_id")
    with pytest.raises(rs.LeakageError, match="user 'a' at 2024-01-02"):
        rs.check_leakage(df, [0, 2], [1], user="user_id")
    assert issubclass(rs.LeakageError, ValueError)


def test_timestamps_that_are_not_timestamps():
    df = log()
    df["timestamp"] = ["yesterday"] * 7
    with pytest.raises(InputError) as e:
        list(rs.GlobalTimeSplit("2024-01-08").split(df))
    assert str(e.value) == (
        "GlobalTimeSplit time column 'timestamp': cannot read row 0 ('yesterday') as a time; "
        "give timestamps (datetime64, dates or ISO-8601 text such as '2024-05-01T12:00:00') or "
        "numbers (e.g. Unix seconds): convert them, e.g. with pandas.to_datetime or polars' "
        "str.to_datetime."
    )
    df = log()
    df.loc[2, "timestamp"] = pd.NaT
    with pytest.raises(
        InputError,
        match=re.escape(
            "LeaveLastN time column 'timestamp': 1 missing time(s) (null or NaT), the first at "
            "row 2; drop or fill them first."
        ),
    ):
        list(rs.LeaveLastN().split(df))
    df = log()
    df["timestamp"] = [True] * 7
    with pytest.raises(
        InputError, match="times must be timestamps, dates, ISO-8601 text or numbers"
    ):
        list(rs.LeaveLastN().split(df))


def test_test_window_beyond_the_data():
    with pytest.raises(InputError) as e:
        list(rs.GlobalTimeSplit("2025-01-01").split(log()))
    assert str(e.value) == (
        "GlobalTimeSplit: test_start='2025-01-01' is after the last interaction "
        "(2024-01-10T00:00:00.000000000), so the test side would be empty; choose an earlier "
        "test_start."
    )


def test_empty_fold():
    with pytest.raises(InputError) as e:
        list(rs.GlobalTimeSplit("2023-12-01").split(log()))
    assert str(e.value) == (
        "GlobalTimeSplit: fold 0 has an empty training side (7 test rows); choose a later "
        "cut, fewer folds or a smaller test size."
    )


def test_cold_users_dropped_reported_and_all_cold():
    s = rs.GlobalTimeSplit("2024-01-08", drop_cold_users=True, drop_cold_items=True)
    with pytest.raises(InputError) as e:
        list(s.split(log()))
    assert str(e.value) == (
        "GlobalTimeSplit: fold 0 has no test rows left after dropping cold users/items "
        "(3 rows of 1 cold users and 2 cold items removed); use a longer training period or "
        "keep cold users/items."
    )
    s = rs.GlobalTimeSplit("2024-01-08", drop_cold_users=True)
    assert folds(s, log()) == [([0, 1, 2, 4], [3, 5])]
    assert s.report_[0] == rs.FoldReport(
        0, 4, 2, 1, 0, 1, "2024-01-08T00:00:00.000000000", "2024-01-08T00:00:00.000000000", None
    )


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: rs.GlobalTimeSplit(), "GlobalTimeSplit: give exactly one of test_start"),
        (
            lambda: rs.GlobalTimeSplit(test_size=1.5),
            "GlobalTimeSplit: the 'test_size' parameter must be a float in the open interval "
            "(0, 1). Got 1.5 instead.",
        ),
        (
            lambda: rs.GlobalTimeSplit(5),
            "GlobalTimeSplit: test_start=5 is a number but the time "
            "column holds datetimes; pass a date such as '2024-01-31' or a datetime.",
        ),
        (
            lambda: rs.TimeRangeCV(2, test_size="7 parsecs"),
            "TimeRangeCV: test_size: cannot read "
            "'7 parsecs' as a duration; use e.g. '7D', '7 days', '2 weeks', '12h', '90min', "
            "'30s' or a datetime.timedelta.",
        ),
        (
            lambda: rs.TimeRangeCV(2, test_size=7),
            "TimeRangeCV: test_size: cannot read 7 as a duration; use e.g. '7D'",
        ),
        (
            lambda: rs.GlobalTimeSplit("2024-01-08", gap="-1D"),
            "GlobalTimeSplit: gap: cannot read '-1D' as a duration",
        ),
        (
            lambda: rs.GlobalTimeSplit("2024-01-08", gap=dt.timedelta(days=-1)),
            "GlobalTimeSplit: gap "
            "must be a non-negative duration, got datetime.timedelta(days=-1).",
        ),
        (
            lambda: rs.TimeRangeCV(2, test_size="0h"),
            "TimeRangeCV: test_size must be a positive duration, got '0h'.",
        ),
        (
            lambda: rs.TimeRangeCV(0),
            "TimeRangeCV: the 'n_splits' parameter must be an int in the "
            "range [1, inf). Got 0 instead.",
        ),
        (
            lambda: rs.LeaveLastN(0),
            "LeaveLastN: the 'n' parameter must be an int in the range [1, inf). Got 0 instead.",
        ),
        (
            lambda: rs.UserRatioSplit(by="size"),
            "UserRatioSplit: by must be 'time' or 'random', got 'size'.",
        ),
        (
            lambda: rs.LeaveLastN(user="uid"),
            "LeaveLastN: no column named 'uid' for the user; "
            "the table has columns ['user_id', 'item_id', 'timestamp', 'rating']. Pass "
            "user=<column name>.",
        ),
    ],
)
def test_bad_parameters(make, message):
    with pytest.raises(InputError) as e:
        list(make().split(log()))
    assert str(e.value).startswith(message)


def test_bad_tables():
    with pytest.raises(InputError, match="LeaveLastN: expected a pandas, polars or pyarrow table"):
        list(rs.LeaveLastN().split([[1, 2, 3]]))
    with pytest.raises(InputError, match="the interaction table has no rows"):
        list(rs.LeaveLastN().split(log().iloc[:0]))
