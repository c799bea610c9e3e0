"""The rules of a regression gate (:class:`Rule`) and the small TOML file that holds them.

Three kinds, per metric:

``min``
    an absolute floor: the candidate's value must be at least the threshold
    (``--min ndcg@10=0.30``).
``max_drop``
    the largest drop allowed from the baseline, absolute (``--max-drop
    ndcg@10=0.01``) or relative to the baseline's value (``--max-drop map=2%``).
    A drop is a change in the metric's worse direction (for a metric where lower
    is better, a rise).
``non_inferiority``
    the candidate must be shown not worse than the baseline by more than a margin
    (``--non-inferiority ndcg@10=0.005``): a one-sided paired t-test of H0
    "candidate <= baseline - margin" must reject at ``alpha``, after the
    correction over every non-inferiority rule of the gate.

A rules file (``--rules gate.toml``) has one table per kind, metric = threshold,
and optional settings::

    [settings]
    alpha = 0.05
    correction = "holm"

    [min]
    "ndcg@10" = 0.30

    [max_drop]
    "ndcg@10" = 0.01
    map = "2%"

    [non_inferiority]
    "ndcg@10" = 0.005

>>> Rule.parse("max_drop", "map=2%")
Rule(kind='max_drop', metric='map', threshold=0.02, relative=True)
>>> str(Rule.parse("min", "ndcg(gain=exp2)@10=0.3"))
'min ndcg(gain=exp2)@10 >= 0.3'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ranklens._shared.validate import check_alpha, check_choice
from ranklens.errors import InputError, MetricNameError, MetricParameterError

__all__ = ["KINDS", "SETTINGS", "Rule", "RuleSet", "as_rules", "read_rules", "rules_from_mapping"]

#: The kinds of rule, with their command-line option.
KINDS: dict[str, str] = {
    "min": "--min",
    "max_drop": "--max-drop",
    "non_inferiority": "--non-inferiority",
}
#: The settings a rules file may give (``[settings]``).
SETTINGS = ("alpha", "correction")


@dataclass(frozen=True)
class Rule:
    """One rule: ``kind`` (one of :data:`KINDS`), the metric string, the threshold (a
    floor, a drop or a margin) and, for ``max_drop``, whether it is a fraction of the
    baseline's value (``relative``)."""

    kind: str
    metric: str
    threshold: float
    relative: bool = False

    def __post_init__(self) -> None:
        from ranklens.metrics import get_metric

        if self.kind not in KINDS:
            raise MetricParameterError(
                f"unknown rule kind {self.kind!r}; use one of {', '.join(map(repr, KINDS))}."
            )
        if not isinstance(self.metric, str) or not self.metric:
            raise MetricParameterError(
                f"a rule's metric must be a metric string such as 'ndcg@10', got {self.metric!r}."
            )
        metric = get_metric(self.metric)  # an unknown metric fails here, before any data is read
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t):
            raise MetricParameterError(
                f"{self.kind} {self.metric}: the threshold must be a finite number, got {t!r}."
            )
        if self.kind != "min" and t < 0:
            raise MetricParameterError(
                f"{self.kind} {self.metric}: the threshold must be 0 or more, got {t!r}."
            )
        if self.relative and self.kind != "max_drop":
            raise MetricParameterError(
                f"{self.kind} {self.metric}: only max_drop takes a "
                "relative threshold (a percentage)."
            )
        object.__setattr__(self, "threshold", float(t))
        self._check_reachable(metric)

    def _check_reachable(self, metric: Any) -> None:
        """Refuse a rule that can never pass or never fail, by the range of the metric's
        summary (the catalogue's ``range``: ``ndcg`` is in [0, 1]; for values that are
        logarithms, ``gm_map(values=log)``, the ``exp`` of it, as they are summarised)."""
        defn = metric.definition
        params = metric.resolved_params()
        rng = defn.value_range(params)
        if rng is None:
            return
        lo, hi = float(rng[0]), float(rng[1])
        if defn.aggregate_for(params) == "expmean":
            # per-query logarithms; the rule reads their summary, exp of their mean
            lo, hi = math.exp(lo), math.exp(hi)
        t, width = self.threshold, hi - lo
        span = f"{self.metric} is in [{lo:g}, {hi:g}]"
        why = ""
        if self.kind == "min" and t > hi:
            why = f"{span}, so no system can reach a floor of {t:g}: the rule can never pass"
        elif self.kind == "min" and t < lo:
            why = f"{span}, so every system is above a floor of {t:g}: the rule can never fail"
        elif self.kind == "max_drop" and not self.relative and t > width:
            why = (
                f"{span}, so it can drop by at most {width:g}: allowing {t:g} means the "
                "rule can never fail"
            )
        elif (
            self.kind == "max_drop"
            and self.relative
            and t > 1
            and lo >= 0
            and defn.higher_is_better
        ):
            why = (
                f"{span}, so it can drop by at most 100% of the baseline: allowing "
                f"{t * 100:g}% means the rule can never fail"
            )
        elif self.kind == "non_inferiority" and t > width:
            why = (
                f"{span}, so no system is worse than another by more than {width:g}: a "
                f"margin of {t:g} means the rule can never fail"
            )
        if why:
            raise MetricParameterError(
                f"{self.kind} {self.metric}: {why}; give a threshold within the metric's range."
            )

    @classmethod
    def parse(cls, kind: str, text: str) -> Rule:
        """A rule from ``METRIC=VALUE`` (``ndcg@10=0.30``; ``map=2%`` for a relative
        ``max_drop``), as the command line writes it."""
        metric, eq, value = str(text).rpartition("=")
        if not eq or not metric.strip() or not value.strip():
            raise MetricParameterError(
                f"{KINDS.get(kind, kind)} {text!r}: write METRIC=VALUE, "
                "e.g. ndcg@10=0.01 (or map=2% for a relative drop)."
            )
        try:
            return cls.of(kind, metric.strip(), value.strip())
        except MetricParameterError as exc:  # named as the command line wrote the rule
            said = f"{kind} {metric.strip()}: "
            message = str(exc)
            if not message.startswith(said):
                raise
            raise MetricParameterError(
                f"{KINDS.get(kind, kind)} {text}: {message[len(said) :]}"
            ) from None

    @classmethod
    def of(cls, kind: str, metric: str, value: Any) -> Rule:
        """A rule whose threshold is a number or text (``"0.01"``, ``"2%"``)."""
        relative = False
        if isinstance(value, str):
            text = value.strip()
            relative = text.endswith("%")
            try:
                number = float(text[:-1] if relative else text)
            except ValueError:
                raise MetricParameterError(
                    f"{kind} {metric}: {value!r} is not a number; write e.g. 0.01"
                    f"{' or 2%' if kind == 'max_drop' else ''}."
                ) from None
            value = number / 100 if relative else number
        return cls(kind, metric, value, relative)

    @property
    def needs_baseline(self) -> bool:
        return self.kind != "min"

    def __str__(self) -> str:
        t = f"{self.threshold:.6g}"
        if self.kind == "min":
            return f"min {self.metric} >= {t}"
        if self.kind == "max_drop":
            shown = f"{self.threshold * 100:.6g}%" if self.relative else t
            return f"max_drop {self.metric} <= {shown}"
        return f"non_inferiority {self.metric} margin {t}"


@dataclass(frozen=True)
class RuleSet:
    """Rules and the settings a rules file gave (None: not given)."""

    rules: tuple[Rule, ...]
    alpha: float | None = None
    correction: str | None = None


def rules_from_mapping(doc: Mapping[str, Any], where: str = "rules") -> RuleSet:
    """Rules from ``{"min": {metric: value}, "max_drop": {...}, "non_inferiority":
    {...}, "settings": {"alpha": ..., "correction": ...}}`` (the layout of a rules
    file)."""
    return _from_mapping(doc, lambda *_: where)


def _from_mapping(doc: Mapping[str, Any], place: Any) -> RuleSet:
    """``place(section, key)`` names where a key is (``gate.toml:7``) in messages."""
    if not isinstance(doc, Mapping):
        raise InputError(
            f"{place(None, None)}: the rules must be a table of sections "
            f"({', '.join(KINDS)}), got {type(doc).__name__}."
        )
    rules: list[Rule] = []
    settings: dict[str, Any] = {}
    for section, body in doc.items():
        if section != "settings" and section not in KINDS:
            raise InputError(
                f"{place(section, None)}: unknown section [{section}]; use "
                f"[{'], ['.join(KINDS)}] or [settings]."
            )
        if not isinstance(body, Mapping):
            raise InputError(
                f"{place(section, None)}: [{section}] must be a table of "
                f"metric = value, got {body!r}."
            )
        for key, value in body.items():
            if section == "settings":
                if key not in SETTINGS:
                    raise InputError(
                        f"{place(section, key)}: unknown setting {key!r}; the "
                        f"settings are {', '.join(SETTINGS)}."
                    )
                settings[key] = value
                continue
            if not isinstance(value, (int, float, str)) or isinstance(value, bool):
                raise InputError(
                    f"{place(section, key)}: {section} {key} = {value!r}: the "
                    'value must be a number (or a percentage such as "2%").'
                )
            try:
                rules.append(Rule.of(section, key, value))
            except MetricNameError as exc:  # an unknown metric or a bad value
                raise InputError(f"{place(section, key)}: {exc}") from None
    # checked here, so that the messages name the file's line; "the ... setting", so that
    # the command line does not read them as its --alpha / --correction options
    alpha = settings.get("alpha")
    if alpha is not None:
        alpha = check_alpha(
            alpha,
            name="the alpha setting",
            where=place("settings", "alpha"),
            example="alpha = 0.05",
        )
    correction = settings.get("correction")
    if correction is not None:
        from ranklens._shared.corrections import CORRECTIONS, canonical

        correction = check_choice(
            "the correction setting",
            canonical("gate", correction),
            CORRECTIONS,
            where=place("settings", "correction"),
        )
    return RuleSet(tuple(rules), None if alpha is None else float(alpha), correction)


def read_rules(path: str) -> RuleSet:
    """The rules file ``path`` (TOML; layout in the module documentation).  Errors
    name the file and, where it can be known, the 1-based line."""
    from ranklens._shared.toml import loads

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the rules file ({exc.strerror}).") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: the rules file is not UTF-8 text.") from None
    doc = loads(text, path, "rules file")
    lines = text.splitlines()

    def place(section: str | None, key: str | None) -> str:
        line = _line_of(lines, section, key)
        return f"{path}:{line}" if line else path

    out = _from_mapping(doc, place)
    if not out.rules:
        raise InputError(
            f'{path}: the rules file has no rule; add e.g. [max_drop] with "ndcg@10" = 0.01.'
        )
    return out


def _line_of(lines: list[str], section: str | None, key: str | None) -> int | None:
    """The 1-based line of ``[section]`` or of ``key`` inside it (best effort)."""
    if section is None:
        return None
    head = re.compile(rf"^\s*\[\s*\"?{re.escape(section)}\"?\s*\]")
    start = next((i for i, ln in enumerate(lines) if head.match(ln)), None)
    if start is None:
        return None
    if key is None:
        return start + 1
    item = re.compile(rf"^\s*(\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=")
    for i in range(start + 1, len(lines)):
        if lines[i].lstrip().startswith("["):
            break
        if item.match(lines[i]):
            return i + 1
    return start + 1


def as_rules(rules: Any) -> RuleSet:
    """What :func:`ranklens.gate` takes as ``rules``: a :class:`Rule`, an iterable of
    them, a mapping in the rules-file layout, or a :class:`RuleSet`."""
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, Rule):
        return RuleSet((rules,))
    if isinstance(rules, Mapping):
        return rules_from_mapping(rules)
    if isinstance(rules, Iterable) and not isinstance(rules, (str, bytes)):
        items = tuple(rules)
        bad = next((r for r in items if not isinstance(r, Rule)), None)
        if bad is None:
            return RuleSet(items)
        raise InputError(
            f"rules: {bad!r} is not a ranklens.gates.Rule; build rules with "
            "Rule.parse('max_drop', 'ndcg@10=0.01') or Rule('min', 'map', 0.3)."
        )
    raise InputError(
        f"rules must be Rule objects or a mapping such as {{'max_drop': "
        f"{{'ndcg@10': 0.01}}}}, got {type(rules).__name__}."
    )
