"""A record's totals (metrics of the whole evaluation, with no per-query value) and
details (what else the command computed, as JSON) are kept with it: in its summary
and trend, not in its Result; bad ones are refused by keyword."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import ranklens
from ranklens.errors import InputError
from ranklens.history import Store

QRELS = ranklens.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
RUN = ranklens.Run.from_dict({"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 2.0, "b": 1.0}}, name="r")


def test_totals_and_details_are_kept(tmp_path: Path) -> None:
    res = ranklens.evaluate(QRELS, RUN, ["p@1"])  # q1 1, q2 0
    rows = [{"segment": "all", "n_queries": 2, "p@1": 0.5}, {"segment": "cold", "p@1": math.nan}]
    with Store(tmp_path / "r.db") as store:
        rid = store.record(
            res,
            commit=None,
            totals={"coverage": 0.75, "gini": 0.125},
            details={"segments": {"by": "user", "rows": rows}},
        )
        rec = store.get(rid)
        assert rec.metrics == ("p@1",)
        assert rec.summary == {"p@1": 0.5, "coverage": 0.75, "gini": 0.125}
        assert rec.totals == {"coverage": 0.75, "gini": 0.125}
        assert rec.details is not None
        assert rec.details["segments"]["rows"][0] == rows[0]
        assert math.isnan(rec.details["segments"]["rows"][1]["p@1"])
        assert rec.result().metrics == ("p@1",)  # per-query values only
        assert rec.result().per_query("p@1") == {"q1": 1.0, "q2": 0.0}
        assert [t[2] for t in store.trend("coverage")] == [0.75]
        assert [r.id for r in store.records(metric="gini")] == [rid]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"totals": {"p@1": 0.5}}, "totals: 'p@1' must be a metric key .* not one of"),
        ({"totals": {"coverage": "high"}}, "the value of 'coverage' must be a number"),
        ({"totals": [("coverage", 1.0)]}, "totals must be a mapping"),
        ({"details": ["segments"]}, "details must be a mapping"),
    ],
)
def test_bad_totals_and_details_are_refused_by_keyword(
    tmp_path: Path, kwargs: dict[str, object], match: str
) -> None:
    res = ranklens.evaluate(QRELS, RUN, ["p@1"])
    with Store(tmp_path / "r.db") as store:
        with pytest.raises(InputError, match=match):
            store.record(res, commit=None, **kwargs)  # type: ignore[arg-type]
        assert len(store) == 0
