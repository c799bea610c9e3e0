"""Bad input the readers name by file and line: a JSON Lines field that changes type,
JSON nested too deeply (Arrow's reader would crash the process), and standard input
given for two inputs."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ranklens.cli import main
from ranklens.errors import InputError
from ranklens.gates import read_rules
from ranklens.io import read_qrels, read_run


def _lines(n: int, bad: int, value: str) -> str:
    rows = [f'{{"query": "q{i // 10}", "doc": "d{i}", "score": {i}.5}}' for i in range(n)]
    rows[bad - 1] = f'{{"query": "q0", "doc": "dx", "score": {value}}}'
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("bad", [3, 2500])
def test_a_jsonl_score_that_turns_into_text_is_named_by_line(tmp_path: Path, bad: int) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(_lines(3000, bad, '"high"'))
    with pytest.raises(InputError) as info:
        read_run(path)
    assert str(info.value) == (
        f"{path}:{bad}: the field 'score' is text here (\"high\") but a number on line 1; "
        "give it the same type on every line (a number: no quotes)."
    )


def test_a_jsonl_line_nested_too_deeply_is_refused_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text('{"query": "q", "doc": "d", "score": 1}\n{"x": ' + deep + "}\n")
    with pytest.raises(InputError, match=rf"^{path}:2: not valid JSON Lines \(nested too deep"):
        read_run(path)


def test_a_json_file_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested too deeply"):
        read_run(path)


def test_a_rules_file_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gate.toml"
    path.write_text("[min]\nmap = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(InputError, match=rf"^{path}: the rules file is nested too deeply"):
        read_rules(str(path))


class _Stdin(io.TextIOWrapper):
    pass


def test_standard_input_read_twice_is_refused(monkeypatch: Any) -> None:
    data = b"q1 0 d1 1\n"
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(data)))
    assert len(read_qrels("-")) == 1
    with pytest.raises(InputError, match=r"standard input \('-'\) can be read only once"):
        read_run("-")


def test_evaluate_dash_dash_says_standard_input_is_read_once(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["evaluate", "-", "-", "-m", "p@1"], input="q1 0 d1 1\n")
    assert res.exit_code == 2, res.output  # the arguments' fault: a usage error
    assert "can be read only once" in res.output and "empty" not in res.output
    ok = CliRunner().invoke(  # one '-' still reads standard input
        main, ["evaluate", "-", str(_run_file(tmp_path)), "-m", "p@1"], input="q1 0 d1 1\n"
    )
    assert ok.exit_code == 0, ok.output


def _run_file(folder: Path) -> Path:
    path = folder / "run.txt"
    path.write_text("q1 Q0 d1 1 1.0 r\n")
    return path
