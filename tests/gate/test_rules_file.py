"""Rules files (TOML): the layout, and errors that name the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ranklens.errors import InputError
from ranklens.gates import Rule, read_rules, rules_from_mapping


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "gate.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_rules_file(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
[min]  # floors
"ndcg@10" = 0.30
[settings]
correction = "bh"
alpha = 0.1
[max_drop]
"ndcg@10" = 0.01
map = "2%"
[non_inferiority]
'ndcg@10' = 0.005
""",
    )
    rs = read_rules(path)
    assert rs.alpha == 0.1 and rs.correction == "bh"
    assert rs.rules == (
        Rule("min", "ndcg@10", 0.3),
        Rule("max_drop", "ndcg@10", 0.01),
        Rule("max_drop", "map", 0.02, relative=True),
        Rule("non_inferiority", "ndcg@10", 0.005),
    )
    assert rules_from_mapping({"max_drop": {"map": "2%"}}).rules == (rs.rules[2],)


@pytest.mark.parametrize(
    ("text", "line", "match"),
    [
        ('[min]\n"ndcg@10" = = 0.3\n', 2, "not valid TOML"),
        ("[min]\nmap = 0.1\n\n[maximum_drop]\nmap = 0.1\n", 4, r"unknown section \[maximum_drop\]"),
        ('[max_drop]\nmap = 0.1\n"ndcg@10" = "two"\n', 3, "'two' is not a number"),
        ("[max_drop]\nmap = true\n", 2, "must be a number"),
        ("[min]\n'nosuch@3' = 0.1\n", 2, "nosuch"),
        ('[non_inferiority]\nmap = "2%"\n', 2, "only max_drop takes a relative"),
        (
            "[settings]\nalpha = 2\n[min]\nmap = 0.1\n",
            2,
            r"the alpha setting must be a number in \(0, 1\), got 2; e\.g\. alpha = 0\.05",
        ),
        ("[settings]\nlevel = 2\n", 2, "unknown setting 'level'"),
        (
            '[min]\nmap = 0.1\n[settings]\ncorrection = "holmes"\n',
            4,
            "the correction setting must be one of 'holm'",
        ),
        ("[settings]\ncorrection = 1\n", 2, "the correction setting must be one of"),
        ("min = 3\n", None, r"\[min\] must be a table"),
    ],
)
def test_errors_name_the_file_and_line(
    tmp_path: Path, text: str, line: int | None, match: str
) -> None:
    path = _write(tmp_path, text)
    where = f"{path}:{line}: " if line else f"{path}"
    with pytest.raises(InputError, match=match) as info:
        read_rules(path)
    assert str(info.value).startswith(where)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="has no rule"):
        read_rules(_write(tmp_path, "# nothing\n"))
    with pytest.raises(InputError, match="cannot read the rules file"):
        read_rules(str(tmp_path / "absent.toml"))
