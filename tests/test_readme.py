"""The README's tour is executed, so that it never rots.

Every Python block runs on its own (a fresh namespace and a scratch directory:
its imports and data must be in it); every ``$ ranklens ...`` line of the console
blocks runs through the CLI against TREC files made from the example data shipped
in the package (and the A/B sums table the README describes); the one bash block
is the setup, whose test command is .ci/run's.
"""

from __future__ import annotations

import re
import shlex
import shutil
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from ranklens.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks(lang: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_readme_starts_with_the_two_setup_commands() -> None:
    first = README.read_text(encoding="utf-8").split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in first.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert "ranklens example" in commands[0]
    assert 'pip install -e ".[test]"' in commands[1] and "pytest" in commands[1]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci


def test_every_block_is_run_here() -> None:
    """Each fenced block is python, console or the one bash setup block."""
    text = README.read_text(encoding="utf-8")
    langs = [lang for lang, _ in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S)]
    assert set(langs) <= {"python", "console", "bash"}, langs
    assert langs.count("bash") == 1
    assert len(_blocks("python")) == langs.count("python") >= 4
    assert len(_blocks("console")) == langs.count("console") >= 2


@pytest.mark.parametrize("number", range(len(_blocks("python"))))
def test_python_block_runs_on_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      number: int) -> None:
    monkeypatch.chdir(tmp_path)
    block = _blocks("python")[number]
    exec(compile(block, f"{README}: python block {number + 1}", "exec"), {})


def _console_lines() -> list[str]:
    return [line[2:] for block in _blocks("console") for line in block.splitlines()
            if line.startswith("$ ranklens ")]


@pytest.mark.parametrize("line", _console_lines())
def test_console_line_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    if " compare " in line or " ab " in line:
        pytest.importorskip("scipy")
        pytest.importorskip("statsmodels")
    monkeypatch.chdir(tmp_path)
    data = resources.files("ranklens") / "_example_data"
    with resources.as_file(data) as folder:
        shutil.copy(folder / "example.qrels", "qrels.txt")
        shutil.copy(folder / "example.run", "run.txt")
        shutil.copy(folder / "example.run", "other_run.txt")
    Path("sums.csv").write_text("variant,count,revenue_sum,revenue_sum_sq\n"
                                "control,1000,5000,60000\nnew,1000,5400,66000\n")
    result = CliRunner().invoke(main, shlex.split(line)[1:], catch_exceptions=False)
    assert result.exit_code == 0, (line, result.output)
    assert result.output.strip(), line


def test_there_are_console_lines() -> None:
    assert len(_console_lines()) >= 7
