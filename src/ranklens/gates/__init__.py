"""Regression gates: does a candidate system pass its rules against a baseline?

:func:`gate` (also ``ranklens.gate``) checks floors (``min``), maximum drops
(``max_drop``, absolute or relative) and non-inferiority (one-sided paired
t-tests with a margin, corrected over the metrics) and returns a
:class:`Verdict`; ``ranklens gate`` is its command line (exit code 1 on a
regression).  Rules: :mod:`ranklens.gates.rules`; formats of a verdict:
:mod:`ranklens.gates.verdict`.  The package is ``gates`` so that no module hides
behind the function ``ranklens.gate``.
"""

from __future__ import annotations

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.gates.core import gate
    from ranklens.gates.rules import KINDS, Rule, RuleSet, read_rules, rules_from_mapping
    from ranklens.gates.verdict import FORMATS, RuleOutcome, Verdict

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.gates.core": ("gate",),
        "ranklens.gates.rules": ("KINDS", "Rule", "RuleSet", "read_rules", "rules_from_mapping"),
        "ranklens.gates.verdict": ("FORMATS", "RuleOutcome", "Verdict"),
    },
)

__all__ = [
    "FORMATS",
    "KINDS",
    "Rule",
    "RuleOutcome",
    "RuleSet",
    "Verdict",
    "gate",
    "read_rules",
    "rules_from_mapping",
]
