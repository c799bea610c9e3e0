"""What a gate decided (:class:`Verdict`, one :class:`RuleOutcome` per rule) and its
formats: ``text`` (a terminal table and the reason of every failure), ``markdown``
(a job summary or a pull-request comment), ``json`` and ``junit`` (JUnit XML: one
test case per rule, a failed rule is a failed test, so CI systems list them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ranklens.gates.rules import Rule
from ranklens.render.table import (
    Cell,
    Table,
    check_format,
    display_id,
    number,
    p_value,
    render_layout,
    to_json,
)

if TYPE_CHECKING:
    from ranklens.ranking.evaluation import Result

__all__ = ["FORMATS", "RuleOutcome", "Verdict"]

#: The formats of :meth:`Verdict.render`.
FORMATS: tuple[str, ...] = ("text", "markdown", "json", "junit")
_NAN = float("nan")


@dataclass(frozen=True)
class RuleOutcome:
    """How one rule fared.

    ``candidate`` and ``baseline`` are the metric's values (the baseline's NaN for a
    ``min`` rule); ``difference`` is candidate minus baseline on the queries both
    have, ``relative_difference`` that over the baseline's value, ``ci_low`` /
    ``ci_high`` its confidence interval (level ``1 - alpha``); ``p_value`` and
    ``p_adjusted`` the one-sided non-inferiority test's (NaN for the other kinds);
    ``n_queries`` the queries compared; ``reason`` says why it passed or failed.
    """

    rule: Rule
    passed: bool
    reason: str
    candidate: float
    baseline: float = _NAN
    difference: float = _NAN
    relative_difference: float = _NAN
    ci_low: float = _NAN
    ci_high: float = _NAN
    p_value: float = _NAN
    p_adjusted: float = _NAN
    n_queries: int = 0

    @property
    def metric(self) -> str:
        return self.rule.metric

    @property
    def kind(self) -> str:
        return self.rule.kind

    @property
    def threshold(self) -> float:
        return self.rule.threshold

    def as_dict(self) -> dict[str, Any]:
        out = {
            "rule": str(self.rule),
            "kind": self.kind,
            "metric": self.metric,
            "threshold": self.threshold,
            "relative": self.rule.relative,
        }
        out.update({k: v for k, v in asdict(self).items() if k != "rule"})
        return out


@dataclass(frozen=True)
class Verdict:
    """The decision of :func:`ranklens.gate`: ``passed`` when every rule passed.

    ``outcomes`` has one :class:`RuleOutcome` per rule, in order; ``candidate`` and
    ``baseline`` name the two systems; ``settings`` records alpha, the correction
    and the interval; ``provenance`` the two results' fingerprints; ``notes`` what
    the reader should know (provenance checks overridden, queries left out);
    ``results`` the two :class:`~ranklens.Result` compared (``candidate``,
    ``baseline``).
    """

    passed: bool
    outcomes: tuple[RuleOutcome, ...]
    candidate: str
    baseline: str | None
    settings: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    results: Mapping[str, Result] = field(default_factory=dict, repr=False, compare=False)

    @property
    def failures(self) -> tuple[RuleOutcome, ...]:
        return tuple(o for o in self.outcomes if not o.passed)

    @property
    def exit_code(self) -> int:
        """0 when the gate passed, 1 on a regression (the command line's exit code)."""
        return 0 if self.passed else 1

    def __bool__(self) -> bool:
        return self.passed

    @property
    def headline(self) -> str:
        n, bad = len(self.outcomes), len(self.failures)
        against = f" against {self.baseline}" if self.baseline is not None else ""
        if self.passed:
            return f"ranklens gate: PASSED: {self.candidate}{against}, {n} of {n} rules pass."
        return f"ranklens gate: FAILED: {self.candidate}{against}, {bad} of {n} rules failed."

    def as_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "headline": self.headline,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "settings": self.settings,
            "rules": [o.as_dict() for o in self.outcomes],
            "provenance": self.provenance,
            "notes": list(self.notes),
        }

    def table(self) -> Table:
        """One row per rule: the rule, the values, the difference with its interval,
        the p-value and the result; the reasons of the failures after it."""
        level = f"{1 - float(self.settings.get('alpha', 0.05)):.0%}"
        header = [
            "rule",
            "candidate",
            "baseline",
            "difference",
            f"{level} CI",
            "p (adj.)",
            "result",
        ]
        rows: list[list[Cell | str]] = []
        for o in self.outcomes:
            ci = "" if o.ci_low != o.ci_low else f"[{number(o.ci_low)}, {number(o.ci_high)}]"
            p = "" if o.p_value != o.p_value else f"{p_value(o.p_value)} ({p_value(o.p_adjusted)})"
            rows.append(
                [
                    display_id(str(o.rule)),
                    number(o.candidate),
                    "" if o.baseline != o.baseline else number(o.baseline),
                    "" if o.difference != o.difference else f"{o.difference:+.4f}",
                    ci,
                    p,
                    Cell("pass", "green") if o.passed else Cell("FAIL", "bold red"),
                ]
            )
        head = Cell(self.headline, "bold green" if self.passed else "bold red")
        notes = [f"FAIL {display_id(str(o.rule))}: {display_id(o.reason)}" for o in self.failures]
        notes += [display_id(n) for n in self.notes]
        return Table(header, rows, n_labels=1, preamble=[head], notes=notes)

    def render(self, fmt: str = "text", color: bool | None = None) -> str:
        """The verdict in one of :data:`FORMATS`; the text ends with a newline."""
        key = check_format("markdown" if fmt == "md" else fmt, FORMATS)
        if key == "json":
            return to_json(self.as_dict())
        if key == "junit":
            return self.junit()
        return render_layout(self.table(), "table" if key == "text" else "markdown", color)

    def junit(self) -> str:
        """JUnit XML: a ``testsuite`` named ``ranklens gate`` with one ``testcase`` per
        rule; a failed rule carries a ``failure`` whose message is the reason."""
        import xml.etree.ElementTree as ET

        shown: list[bool] = []

        def text(value: str) -> str:  # as tables show it, noting that it was changed
            out = display_id(value)
            shown.append(out != value)
            return out

        suite = ET.Element(
            "testsuite",
            name="ranklens gate",
            tests=str(len(self.outcomes)),
            failures=str(len(self.failures)),
            errors="0",
            skipped="0",
        )
        props = ET.SubElement(suite, "properties")
        for k, v in (
            ("candidate", self.candidate),
            ("baseline", self.baseline or ""),
            *((k, str(v)) for k, v in self.settings.items()),
        ):
            ET.SubElement(props, "property", name=k, value=text(str(v)))
        for o in self.outcomes:
            # ids and names with control characters would make the XML invalid
            reason = text(o.reason)
            case = ET.SubElement(
                suite, "testcase", classname=f"ranklens.gate.{o.kind}", name=text(str(o.rule))
            )
            if not o.passed:
                fail = ET.SubElement(case, "failure", message=reason, type="regression")
                fail.text = reason
            else:
                ET.SubElement(case, "system-out").text = reason
        root = ET.Element(
            "testsuites",
            name="ranklens gate",
            tests=str(len(self.outcomes)),
            failures=str(len(self.failures)),
        )
        root.append(suite)
        notes = [text(n) for n in self.notes]
        if any(shown):
            notes.append(
                "some names or reasons held control characters, bidirectional controls or "
                "code points XML cannot carry (U+FFFE); they are written as \\uNNNN."
            )
        if notes:
            ET.SubElement(suite, "system-err").text = "\n".join(notes)
        ET.indent(root)
        return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"

    def __str__(self) -> str:
        return self.render("text", color=False)
