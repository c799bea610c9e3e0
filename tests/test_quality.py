"""The repository contract, checked by the suite: lint, format and type clean (ruff,
``ruff format``, mypy); one declared Python floor that ruff, mypy and the interpreter
running the suite are held to; one version; a license that matches the metadata."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT: dict[str, Any] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _tool(name: str) -> str:
    exe = Path(sys.executable).with_name(name)
    found = str(exe) if exe.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (it comes with the test extra)")
    return found


def test_ruff_clean() -> None:
    out = subprocess.run(
        [_tool("ruff"), "check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_format_clean() -> None:
    out = subprocess.run(
        [_tool("ruff"), "format", "--check", "src", "tests", "benchmarks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_clean() -> None:
    out = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


# --------------------------------------------------------------------------- Python floor


def _floor() -> tuple[int, int]:
    """The oldest Python declared (``requires-python = ">=3.X"``)."""
    spec = PYPROJECT["project"]["requires-python"]
    found = re.fullmatch(r">=\s*3\.(\d+)", spec)
    assert found, f"requires-python should be '>=3.X' (the oldest Python tested), got {spec!r}"
    return 3, int(found.group(1))


def test_the_python_floor_is_one_setting() -> None:
    """ruff's target, mypy's version and the classifiers say the floor that
    requires-python declares, and the suite runs on the floor or newer.  The
    classifiers name only the Pythons the CI runs the suite on (the floor): add one
    with the CI job that runs it."""
    major, minor = _floor()
    assert PYPROJECT["tool"]["ruff"]["target-version"] == f"py{major}{minor}"
    assert PYPROJECT["tool"]["mypy"]["python_version"] == f"{major}.{minor}"
    versions = [
        c.rsplit(" :: ", 1)[1]
        for c in PYPROJECT["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert versions == [f"{major}.{minor}"]
    assert sys.version_info[:2] >= (major, minor)
    # nothing asks for a Python below the floor any more
    assert not any("python_version" in r for r in PYPROJECT["project"]["dependencies"])


def test_features_newer_than_the_floor_are_refused(tmp_path: Path) -> None:
    """What keeps the floor honest when the suite runs on a newer Python: ruff (at the
    floor's target) refuses newer syntax and mypy (at the floor's version, over all of
    src/) newer standard-library names.  Checked on a file of such features, with the
    project's own settings."""
    newer = tmp_path / "newer.py"
    newer.write_text(
        "from itertools import batched  # 3.12\n"
        "from typing import override  # 3.12\n\n"
        "type Pairs = list[tuple[int, int]]  # 3.12 syntax\n\n\n"
        "def first[T](x: list[T]) -> T:  # 3.12 syntax\n"
        "    return x[0]\n\n\n"
        "print(batched, override)\n"
    )
    config = str(ROOT / "pyproject.toml")
    ruff = subprocess.run(
        [_tool("ruff"), "check", "--no-cache", "--config", config, str(newer)],
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 1 and ruff.stdout.count("Python 3.12") >= 2, ruff.stdout
    syntax = newer.read_text().split("type Pairs")[0]
    newer.write_text(syntax + "\nprint(batched, override)\n")
    mypy = subprocess.run(
        [_tool("mypy"), "--config-file", config, "--no-incremental", str(newer)],
        capture_output=True,
        text=True,
    )
    assert mypy.returncode == 1, mypy.stdout
    for name in ("batched", "override"):
        assert f'has no attribute "{name}"' in mypy.stdout, mypy.stdout


# --------------------------------------------------------------------------- version, license


def test_the_version_has_one_place() -> None:
    """The metadata's version is read by setuptools from ranklens/_version.py, which holds
    a literal (read without importing ranklens, whose dependencies a build lacks);
    ranklens.__version__, the installed metadata and ``ranklens --version`` agree."""
    from importlib.metadata import PackageNotFoundError, version

    from click.testing import CliRunner

    import ranklens
    from ranklens.cli import main

    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, _, name = attr.rpartition(".")
    source = ROOT / "src" / Path(*module.split(".")).with_suffix(".py")
    literal = {
        node.targets[0].id: node.value.value
        for node in ast.parse(source.read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
    }
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.dev\d+)?", literal[name])
    assert ranklens.__version__ == literal[name]
    try:
        installed = version("ranklens")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        installed = None
    assert installed in (None, ranklens.__version__), (
        f"the installed metadata says {installed}, the source {ranklens.__version__}: "
        "reinstall (pip install -e .)"
    )
    out = CliRunner().invoke(main, ["--version"])
    assert out.exit_code == 0 and out.stdout.split()[-1] == ranklens.__version__, out.stdout


def test_the_license_matches_the_metadata() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n") and "ranklens contributors" in text
