"""Reading trec_eval: its command lines, its output files and a MANIFEST of both.

Shared by the conformance tests of ``tests/conformance`` (the committed evidence)
and the extra checks against trec_eval's own suite in ``../shared/conformance``.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: trec_eval lines that are strings, not numbers; ranklens does not print them
STRING_MEASURES = ("runid", "relstring")


@dataclass
class TrecCommand:
    """A trec_eval command line read into what ranklens takes.

    ``conventions`` are :func:`ranklens.evaluate` keywords (``-c`` is
    ``missing='zero'``, ``-M`` ``depth``, ``-l`` ``rel_threshold``, ``-J``
    ``judged_only``, ``-N`` ``collection_size``); ``measures`` are the ``-m``
    arguments as typed; ``per_query`` is ``-q``, ``summary`` is not ``-n``.
    """

    args: list[str]
    conventions: dict[str, Any] = field(default_factory=dict)
    measures: list[str] = field(default_factory=list)
    per_query: bool = False
    summary: bool = True
    qrels: str = ""
    run: str = ""


def parse_command(command: str | list[str]) -> TrecCommand:
    """A trec_eval command line (``trec_eval`` itself optional) as a :class:`TrecCommand`;
    options take their value attached (``-M100``) or as the next argument (``-M 100``)."""
    args = shlex.split(command) if isinstance(command, str) else list(command)
    if args and Path(args[0]).name == "trec_eval":
        args = args[1:]
    cmd = TrecCommand(args=args)
    files: list[str] = []
    valued = {"-m": "m", "-M": "depth", "-l": "rel_threshold", "-N": "collection_size"}
    i = 0
    while i < len(args):
        a = args[i]
        if a[:2] in valued:
            value = a[2:]
            if not value:
                i += 1
                value = args[i]
            key = valued[a[:2]]
            if key == "m":
                cmd.measures.append(value)
            else:
                cmd.conventions[key] = int(value)
        elif a == "-q":
            cmd.per_query = True
        elif a == "-n":
            cmd.summary = False
        elif a == "-c":
            cmd.conventions["missing"] = "zero"
        elif a == "-J":
            cmd.conventions["judged_only"] = True
        elif a.startswith("-"):
            raise ValueError(f"trec_eval option {a!r} is not one ranklens reads")
        else:
            files.append(a)
        i += 1
    cmd.qrels, cmd.run = files
    return cmd


def output_lines(text: str) -> list[tuple[str, str, str]]:
    """``(measure, query, value)`` of every line of a trec_eval output, in order,
    with the string measures (:data:`STRING_MEASURES`) left out."""
    out = []
    for line in text.splitlines():
        measure, query, value = line.split("\t")
        measure = measure.rstrip()
        if measure.startswith(STRING_MEASURES):
            continue
        out.append((measure, query, value.strip()))
    return out


def read_values(text: str) -> dict[str, dict[str, float]]:
    """``{measure: {query or 'all': value}}`` of a trec_eval output (``-nan`` is NaN)."""
    values: dict[str, dict[str, float]] = {}
    for measure, query, value in output_lines(text):
        values.setdefault(measure, {})[query] = float(value.replace("-nan", "nan"))
    return values


def close(got: float, want: float, tol: float) -> bool:
    """Equal within ``tol`` (plus 1e-12 for the binary error of a printed decimal such
    as 0.0563 against 0.05625), NaN equal to NaN only."""
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= tol + 1e-12


@dataclass(frozen=True)
class Case:
    """One row of ``tests/conformance/trec_eval/MANIFEST.tsv``."""

    name: str  # the output file, out.<case>
    exit_status: int
    command: str

    @property
    def id(self) -> str:
        return self.name.removeprefix("out.")


def read_manifest(path: Path) -> tuple[list[str], list[Case]]:
    """The MANIFEST's ``#`` header lines and its rows."""
    header: list[str] = []
    rows: list[Case] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            header.append(line)
            continue
        name, status, _size, command = line.split("\t")
        if name == "file":
            continue
        rows.append(Case(name, int(status), command))
    return header, rows
