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
    """Each fenced block is python, console, yaml (a CI step, whose command runs) or the
    one bash setup block."""
    text = README.read_text(encoding="utf-8")
    langs = [lang for lang, _ in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S)]
    assert set(langs) <= {"python", "console", "bash", "yaml"}, langs
    assert langs.count("bash") == 1
    assert len(_blocks("python")) == langs.count("python") >= 4
    assert len(_blocks("console")) == langs.count("console") >= 2
    assert len(_blocks("yaml")) == langs.count("yaml")


@pytest.mark.parametrize("number", range(len(_blocks("python"))))
def test_python_block_runs_on_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    monkeypatch.chdir(tmp_path)
    block = _blocks("python")[number]
    if "pyspark" in block:
        _run_spark_block_as_written(tmp_path, block)
        return
    exec(compile(block, f"{README}: python block {number + 1}", "exec"), {})


def _run_spark_block_as_written(folder: Path, block: str) -> None:
    """The Spark block runs as a user runs it: in a fresh interpreter (this one, as a
    virtual environment's python that is not activated) with ``PYSPARK_PYTHON`` unset,
    so that its workers run whatever the block says (unset, Spark would start
    ``python3`` from PATH, which does not have ranklens' dependencies).  No warning
    comes from ranklens; pyspark's own one about pandas >= 3 shows at most once (the
    session's start)."""
    import os
    import site
    import subprocess
    import sys

    import ranklens

    pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.skip("pyspark needs a Java runtime and there is no `java` on PATH")
    script = folder / "spark_block.py"
    script.write_text(block, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_")}
    # ranklens as this session imports it, and nothing else of this environment: the
    # workers of a python3 from PATH must not find this environment's packages
    env.pop("PYTHONPATH", None)
    source = str(Path(ranklens.__file__).parent.parent)
    if source not in site.getsitepackages():
        env["PYTHONPATH"] = source
    done = subprocess.run(
        [sys.executable, "-W", "default", str(script)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    warned = re.findall(r"^(\S+?\.py):\d+: (\w*Warning): (.*)$", done.stderr, flags=re.M)
    ranklens_dir = str(Path(ranklens.__file__).parent)
    assert [w for w in warned if w[0].startswith(ranklens_dir)] == [], warned
    assert sum("fully support pandas" in w[2] for w in warned) <= 1, warned


def _commands(block: str, prompt: str) -> list[str]:
    """The ``ranklens`` commands of a block (lines after ``prompt``, backslash
    continuations joined, a shell redirection of the output left out)."""
    joined = re.sub(r"\\\n\s*", " ", block)
    lines = [line.strip() for line in joined.splitlines()]
    lines = [line[len(prompt) :] if line.startswith(prompt) else line for line in lines]
    return [line.split(" >", 1)[0] for line in lines if line.startswith("ranklens ")]


def _console_lines() -> list[str]:
    return [c for block in _blocks("console") for c in _commands(block, "$ ")]


def _scratch() -> None:
    """The files the README's commands name, in the current directory: TREC files made
    from the example data shipped in the package, and the A/B sums table."""
    data = resources.files("ranklens") / "_example_data"
    with resources.as_file(data) as folder:
        for name in (
            "qrels.txt",
            "run.txt",
            "other_run.txt",
            "runs/candidate.run",
            "runs/production.run",
        ):
            Path(name).parent.mkdir(exist_ok=True)
            shutil.copy(folder / ("example.qrels" if "qrels" in name else "example.run"), name)
        for name in ("example.qrels", "example.run", "example_rerank.run"):  # first contact
            shutil.copy(folder / name, name)
    Path("sums.csv").write_text(
        "variant,count,revenue_sum,revenue_sum_sq\ncontrol,1000,5000,60000\nnew,1000,5400,66000\n"
    )
    # the recommender journey: top-3 lists by rank, implicit held-out, a training log
    users, items = [f"u{i}" for i in range(8)], [f"i{i}" for i in range(12)]
    Path("recs.csv").write_text(
        "user_id,item_id,rank\n"
        + "".join(
            f"{u},{items[(3 * n + r) % 12]},{r + 1}\n"
            for n, u in enumerate(users)
            for r in range(3)
        )
    )
    Path("held.csv").write_text(
        "user_id,item_id\n" + "".join(f"{u},{items[(2 * n) % 12]}\n" for n, u in enumerate(users))
    )
    Path("train.csv").write_text(
        "user_id,item_id\n" + "".join(f"{users[n % 5]},{items[n % 12]}\n" for n in range(36))
    )
    Path("log.csv").write_text(
        "user_id,item_id,timestamp\n"
        + "".join(f"{users[n % 8]},{items[n % 12]},{n}\n" for n in range(40))
    )
    # off-policy evaluation: a uniform logger over 3 items, a policy that prefers i2
    Path("logged.csv").write_text(
        "round,action,reward,propensity\n"
        + "".join(f"r{n},i{n % 3},{(n * 7) % 5 // 3},0.3333333333333333\n" for n in range(30))
    )
    Path("policy.csv").write_text(
        "round,action,probability,prediction\n"
        + "".join(
            f"r{n},i{a},{p},{0.2 * a}\n"
            for n in range(30)
            for a, p in ((0, 0.2), (1, 0.3), (2, 0.5))
        )
    )
    # diversity qrels of the example's queries (query intent doc relevance) and weights
    qrels = [line.split() for line in Path("qrels.txt").read_text().splitlines() if line]
    Path("diversity.qrels").write_text(
        "".join(f"{q} {n % 3} {d} {g}\n" for n, (q, _, d, g) in enumerate(qrels))
    )
    topics = sorted({q for q, *_ in qrels})
    Path("weights.txt").write_text("".join(f"{q} {i} {1 + i}\n" for q in topics for i in range(3)))


_RUNNABLE = [(lang, number) for lang in ("console", "yaml") for number in range(len(_blocks(lang)))]


@pytest.mark.parametrize(("lang", "number"), _RUNNABLE)
def test_command_block_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, number: int
) -> None:
    """The commands of a console block (or of a CI step) run in order in one directory,
    as a user types them: a later command may read what an earlier one wrote (a
    results store, say)."""
    block = _blocks(lang)[number]
    commands = _commands(block, "$ " if lang == "console" else "")
    assert commands, block
    if any(
        f" {word} " in f" {c} " for c in commands for word in ("compare", "ab", "gate", "report")
    ):
        pytest.importorskip("scipy")
        pytest.importorskip("statsmodels")
    monkeypatch.chdir(tmp_path)
    _scratch()
    for line in commands:
        result = CliRunner().invoke(main, shlex.split(line)[1:], catch_exceptions=False)
        assert result.exit_code == 0, (line, result.output)
        assert result.output.strip(), line


def test_first_contact_lines_are_what_ranklens_example_prints() -> None:
    """The console block after the setup shows compare, gate and report on the bundled
    files: the lines ``ranklens example`` prints, with the files' folder left out."""
    from ranklens.cli import example

    text = README.read_text(encoding="utf-8")
    after_setup = text.split("```bash\n", 1)[1].split("```", 1)[1]
    first = re.search(r"```console\n(.*?)```", after_setup, flags=re.S)
    assert first is not None and after_setup.index(first.group(0)) < after_setup.index("\n## ")
    shown = _commands(first.group(1), "$ ")
    assert [line.split()[1] for line in shown] == ["compare", "gate", "report"]
    paths = example.example_paths()
    printed = example._try_next(paths, "ranklens")
    folder = str(Path(paths.qrels).parent) + "/"
    assert all(shlex.quote(p).startswith(folder) for p in paths)  # plain paths here
    printed = printed.replace(folder, "")
    for line in shown:
        assert f"  {line}\n" in printed, line


def test_there_are_console_lines() -> None:
    assert len(_console_lines()) >= 7
