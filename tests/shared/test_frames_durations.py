"""The shared table adapter (_shared.frames) and the one duration grammar
(_shared.durations) that recsys and online both use."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from ranklens._shared.durations import as_duration, parse_duration
from ranklens._shared.frames import (
    TimeKind,
    as_time_column,
    columns_from_frame,
    n_rows,
    pick_column,
    take_rows,
)
from ranklens.errors import InputError

HOUR = 3_600 * 10**9
STAMP = TimeKind("timestamp")
NUMBER = TimeKind("number")


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        # pandas' spelling (recsys) and the words (online) are one grammar
        ("7D", 168),
        ("7d", 168),
        ("7 days", 168),
        ("1 day", 24),
        ("D", 24),
        ("1W", 168),
        ("2 weeks", 336),
        ("1h", 1),
        ("12H", 12),
        ("1.5h", 1.5),
        ("90min", 1.5),
        ("90T", 1.5),
        ("90 minutes", 1.5),
        ("5400s", 1.5),
        ("5400 seconds", 1.5),
        (" 3 hours ", 3),
    ],
)
def test_duration_text(text: str, hours: float) -> None:
    assert parse_duration(text) == round(hours * HOUR)
    assert as_duration(text, STAMP, "window") == round(hours * HOUR)


def test_duration_objects_and_numbers() -> None:
    for value in (
        dt.timedelta(hours=36),
        np.timedelta64(36, "h"),
        pd.Timedelta("36h"),
        pd.Timedelta(days=1.5),
    ):
        assert as_duration(value, STAMP, "window") == 36 * HOUR
    assert as_duration(pd.Timedelta(1, "ns"), STAMP, "window") == 1
    assert as_duration(2, NUMBER, "window") == 2.0
    assert as_duration(None, STAMP, "gap", zero_ok=True) == 0
    assert as_duration("0s", STAMP, "gap", zero_ok=True) == 0


@pytest.mark.parametrize(
    ("value", "kind", "message"),
    [
        (
            "fortnightly",
            STAMP,
            "f: look_every: cannot read 'fortnightly' as a duration; use e.g. "
            "'7D', '7 days', '2 weeks', '12h', '90min', '30s' or a datetime.timedelta.",
        ),
        ("1M", STAMP, "f: look_every: cannot read '1M' as a duration"),  # a month? a minute?
        ("-1d", STAMP, "f: look_every: cannot read '-1d' as a duration"),
        (3, STAMP, "f: look_every: cannot read 3 as a duration"),
        (np.timedelta64("NaT"), STAMP, "f: look_every: cannot read"),
        (
            dt.timedelta(0),
            STAMP,
            "f: look_every must be a positive duration, got datetime.timedelta(0).",
        ),
        (
            "1d",
            NUMBER,
            "f: look_every='1d' must be a number (in the time column's unit) because "
            "the time column holds numbers, not datetimes.",
        ),
        (float("inf"), NUMBER, "f: look_every must be a finite number, got inf."),
        (-2, NUMBER, "f: look_every must be a positive duration, got -2."),
        (None, NUMBER, "f: look_every is required: give a duration such as '7D'"),
    ],
)
def test_bad_durations_name_the_parameter(value: object, kind: TimeKind, message: str) -> None:
    with pytest.raises(InputError) as e:
        as_duration(value, kind, "look_every", "f")
    assert str(e.value).startswith(message)


def test_time_columns() -> None:
    t, kind = as_time_column(["2024-05-01T00:00:00+02:00", "2024-05-01T01:00:00Z"], "t")
    assert kind == TimeKind("timestamp", "UTC") and (t[1] - t[0]) == 3 * HOUR
    assert kind.text(t[0]) == "2024-04-30T22:00:00.000000000Z"
    paris = pd.Series(pd.to_datetime(["2024-05-01 00:00"])).dt.tz_localize("Europe/Paris")
    t2, kind2 = as_time_column(paris, "t")
    assert t2[0] == t[0] and kind2.tz == "Europe/Paris"
    days = pl.Series([dt.date(2024, 5, 1), dt.date(2024, 5, 2)])
    t3, kind3 = as_time_column(days, "t")
    assert kind3 == STAMP and t3[1] - t3[0] == 24 * HOUR
    t4, kind4 = as_time_column(np.array([3, 1]), "t")
    assert kind4 == NUMBER and t4.dtype == np.float64 and kind4.text(2.5) == "2.5"
    with pytest.raises(InputError, match=r"t: cannot read row 2 \('soon'\) as a time"):
        as_time_column(["2024-05-01", "2024-05-02", "soon", "later"], "t")
    with pytest.raises(InputError, match=r"t: 1 NaN or infinite time\(s\), the first at row 1"):
        as_time_column([1.0, np.inf], "t")
    with pytest.raises(
        InputError,
        match=r"t: 1 missing time\(s\) \(null or NaT\), the first at "
        "row 0",
    ):
        as_time_column(pd.Series([None, 1.0]), "t")


def test_columns_by_name_from_every_kind_of_table() -> None:
    data = {"q": ["a", "b"], "d": [1, 2]}
    for table in (
        data,
        pd.DataFrame(data),
        pl.DataFrame(data),
        pl.DataFrame(data).lazy(),
        pa.table(data),
    ):
        cols = columns_from_frame(table, {"query": "q", "doc": "d"}, "Run.from_frame")
        assert list(np.asarray(cols["doc"])) == [1, 2], type(table)
        assert n_rows(table, "x") == 2
    with pytest.raises(InputError) as e:
        columns_from_frame(pl.DataFrame(data), {"score": "s"}, "Run.from_frame")
    assert str(e.value) == (
        "Run.from_frame: no column named 's' for the score; the table has "
        "columns ['q', 'd']. Pass score=<column name>."
    )
    with pytest.raises(InputError, match="x: expected a pandas, polars or pyarrow table"):
        columns_from_frame([1, 2], {"query": "q"}, "x")
    with pytest.raises(InputError, match=r"x: the columns have different lengths"):
        n_rows({"a": [1, 2], "b": [1]}, "x")
    assert take_rows(data, np.array([1]))["q"].tolist() == ["b"]
    assert pick_column(["QID", "docno"], None, "query", "f", candidates=("qid",)) == "QID"
    with pytest.raises(
        InputError,
        match="f: cannot tell which column holds the query; the file "
        r"has columns \['x'\]. Pass query=<name>.",
    ):
        pick_column(["x"], None, "query", "f", candidates=("qid",), noun="file", placeholder="name")
