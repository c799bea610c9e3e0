"""What a user reads: no internal notes in user-facing documentation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ranklens
from ranklens.errors import MetricNameError

SRC = Path(ranklens.__file__).parent


def test_docs_cite_sources_not_internal_seed_numbers() -> None:
    """Docstrings and metric docs cite the source by what it is ("seed 000" means
    nothing to a user)."""
    pattern = re.compile(r"\bseeds? ?0\d\d\b", re.IGNORECASE)  # "Seed 001's example" too
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in sorted(SRC.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_docs_do_not_point_at_files_users_do_not_have() -> None:
    """The package's text never sends a user to the team's planning notes
    (``DESIGN.md``, ``STYLE.md``), which are not part of it."""
    pattern = re.compile(r"\b(DESIGN|STYLE)\.md\b")
    found = [
        f"{path.relative_to(SRC)}:{n}"
        for path in sorted(SRC.rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "ndcg(gain=exp2",
            "cannot parse metric 'ndcg(gain=exp2': missing ')' at the end at position 14, "
            "marked ^ in 'ndcg(gain=exp2^'; write ndcg(gain=exp2).",
        ),
        (
            "ndcg(gain={1:3",
            "cannot parse metric 'ndcg(gain={1:3': missing '})' at the end at position 14, "
            "marked ^ in 'ndcg(gain={1:3^'; write ndcg(gain={1:3}).",
        ),
        (
            "ndcg(gain={1:3,2:9,1:4})",
            "cannot parse metric 'ndcg(gain={1:3,2:9,1:4})': grade 1 is given twice in the "
            "mapping (gains 3 and 4) at position 19, marked ^ in 'ndcg(gain={1:3,2:9,^1:4})'; "
            "give each grade once.",
        ),
        (
            "p(rel 1)",
            "cannot parse metric 'p(rel 1)': expected '=' after 'rel', found '1' at position 6, "
            "marked ^ in 'p(rel ^1)'.",
        ),
        (
            "p@",
            "cannot parse metric 'p@': the name ends where a cutoff after '@' (e.g. @10) "
            "belongs at position 2, marked ^ in 'p@^'.",
        ),
    ],
)
def test_metric_syntax_errors_say_what_is_missing_where(name: str, message: str) -> None:
    with pytest.raises(MetricNameError) as info:
        ranklens.get_metric(name)
    assert str(info.value) == message
    assert "\n" not in message  # one line, as the command line prints errors
    assert "punct" not in message and "the end," not in message


def test_a_grade_given_twice_is_refused_on_the_command_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ranklens.cli import main

    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 2\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    metric = "ndcg(gain={1:3,2:9,1:4})"
    res = CliRunner().invoke(main, ["evaluate", str(qrels), str(run), "-m", metric])
    assert res.exit_code == 2, res.output
    assert "grade 1 is given twice" in res.output and "Traceback" not in res.output


def test_metric_docs_read_dedented() -> None:
    """``ranklens metrics NAME`` prints a kernel's docstring as ``help()`` shows it:
    its body starts at the margin, not at the source's indentation."""
    from ranklens.metrics import describe
    from ranklens.metrics.catalogue import CATALOGUE

    indented = []
    for d in CATALOGUE:
        body = [line for line in describe(d.name)["doc"].splitlines()[1:] if line.strip()]
        if body and min(len(line) - len(line.lstrip()) for line in body) > 0:
            indented.append(d.name)
    assert indented == []
