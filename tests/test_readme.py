"""The README's tour is executed, so that it never rots.

Python blocks run in order in one namespace, in a scratch directory; console
blocks run each ``$ ranklens ...`` line through the CLI against TREC files made
from the example data shipped in the package.
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


def test_python_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _blocks("python")
    assert len(blocks) >= 2
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)


def test_console_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = resources.files("ranklens") / "_example_data"
    with resources.as_file(data) as folder:
        shutil.copy(folder / "example.qrels", "qrels.txt")
        shutil.copy(folder / "example.run", "run.txt")
        shutil.copy(folder / "example.run", "other_run.txt")
    lines = [line[2:] for block in _blocks("console") for line in block.splitlines()
             if line.startswith("$ ranklens ")]
    assert len(lines) >= 5
    runner = CliRunner()
    for line in lines:
        args = shlex.split(line)[1:]
        result = runner.invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, (line, result.output)
        assert result.output.strip(), line
