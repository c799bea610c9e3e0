"""A/B inputs: a non-numeric value deep in an events file is named by its own line and
value; exposures without times are analysed with a note that says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ranklens._shared.columns import as_float_column
from ranklens.cli import main
from ranklens.errors import InputError


def test_the_first_value_that_is_no_number_is_named() -> None:
    with pytest.raises(InputError, match=r"\(row 3: 'x'\)"):
        as_float_column(["1.0", "-2.5e3", "7", "x", "y"], "value")


def _files(folder: Path, bad: str | None) -> tuple[Path, Path]:
    exposures, events = folder / "exp.csv", folder / "ev.csv"
    exposures.write_text("unit,variant\nu1,control\nu2,treatment\nu3,control\nu4,treatment\n")
    rows = ["unit,time,event,value"] + [f"u{i},{i},click,1.0" for i in range(1, 5)]
    rows += ["u3,7,click,0.0"] * 20
    if bad is not None:
        rows.append(f"u2,9,click,{bad}")
    events.write_text("\n".join(rows) + "\n")
    return exposures, events


def test_a_non_numeric_value_deep_in_an_events_file_names_its_line(tmp_path: Path) -> None:
    exposures, events = _files(tmp_path, "high")
    res = CliRunner().invoke(
        main, ["ab", "analyze", str(exposures), str(events), "-m", "c=mean(click)"]
    )
    assert res.exit_code == 3, res.output
    assert f"{events}:26:" in res.output and "(line 26: 'high')" in res.output
    assert "'1.0'" not in res.output


def test_exposures_without_times_are_noted(tmp_path: Path) -> None:
    exposures, events = _files(tmp_path, None)
    res = CliRunner().invoke(
        main, ["ab", "analyze", str(exposures), str(events), "-m", "c=mean(click)"]
    )
    assert res.exit_code == 0, res.output
    assert "note: no exposure times" in res.output and "every event counts" in res.output


def test_assignment_docs_state_the_defaults_the_code_uses() -> None:
    import dataclasses

    from ranklens.online import _hashing, assignment

    doc = assignment.__doc__ or ""
    assert "SHA-256 by default" not in doc
    assert f'``"{_hashing.DEFAULT_ALGORITHM}"``, by default' in doc
    plan_doc = assignment.Plan.__doc__ or ""
    defaults = {f.name: f.default for f in dataclasses.fields(assignment.Plan)}
    assert f'``"{_hashing.DEFAULT_ALGORITHM}"`` (default' in plan_doc
    assert defaults["buckets"] == 10_000 and "(default 10,000)" in plan_doc
    assert defaults["holdout_salt"] == "holdout" and '(default ``"holdout"``)' in plan_doc
    assert defaults["holdout"] == 0.0 and "(default 0: none)" in plan_doc
    exp_defaults = {f.name: f.default for f in dataclasses.fields(assignment.Experiment)}
    assert exp_defaults["traffic"] == 1.0 and "(default 1:" in (assignment.Experiment.__doc__ or "")
