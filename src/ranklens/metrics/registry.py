"""The one metric registry: names, aliases, parameters, documentation, kernels.

A :class:`Metric` is a value: a family, a cutoff and explicit parameters.
``str(metric)`` is its canonical name and parses back to an equal metric.
The CLI's metric list, "did you mean" suggestions and report labels are all
generated from :data:`REGISTRY`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.errors import MetricNameError, MetricParameterError
from ranklens.metrics.grammar import format_value, parse_name

if TYPE_CHECKING:
    from ranklens.engine import Prepared

__all__ = ["REGISTRY", "Metric", "MetricDef", "Param", "get_metric", "register"]

Kernel = Callable[["Prepared", Any, dict[str, Any]], np.ndarray]


@dataclass(frozen=True)
class Param:
    """One metric parameter: its name, what values it takes, its default."""

    name: str
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None
    kind: str = "choice"  # choice | number | int | gainmap | numbers
    minimum: float | None = None
    maximum: float | None = None

    def check(self, metric: str, value: Any) -> Any:
        def fail(expect: str) -> MetricParameterError:
            return MetricParameterError(
                f"in metric {metric!r}: parameter {self.name!r} must be {expect}, got "
                f"{value!r}."
            )

        if self.kind == "choice":
            if not isinstance(value, str) or value.lower() not in (self.choices or ()):
                raise fail("one of " + ", ".join(map(repr, self.choices or ())))
            return value.lower()
        if self.kind in ("number", "int"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise fail("a number" if self.kind == "number" else "an integer")
            if self.kind == "int" and not float(value).is_integer():
                raise fail("an integer")
            lo, hi = self.minimum, self.maximum
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                rng = f"in [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"
                raise fail(f"a number {rng}")
            return int(value) if self.kind == "int" else value
        if self.kind == "gainmap":
            if isinstance(value, str) and value.lower() in (self.choices or ()):
                return value.lower()
            if isinstance(value, dict) and all(
                isinstance(k, (int, float)) and isinstance(v, (int, float))
                and not isinstance(k, bool) and not isinstance(v, bool)
                for k, v in value.items()
            ):
                return {float(k): float(v) for k, v in value.items()}
            raise fail(
                "one of " + ", ".join(map(repr, self.choices or ()))
                + " or a mapping {grade: gain, ...}"
            )
        if self.kind == "numbers":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = (value,)
            if isinstance(value, (list, tuple)) and value and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
            ):
                return tuple(float(v) for v in value)
            raise fail("a number or a list of numbers")
        raise AssertionError(self.kind)  # pragma: no cover


@dataclass(frozen=True)
class MetricDef:
    """Registry entry of one metric family."""

    name: str
    summary: str
    kernel: Kernel
    aliases: tuple[str, ...] = ()
    cutoff: str = "optional"  # optional | required | none | level (0..1) | multiple (> 0)
    params: tuple[Param, ...] = ()
    aggregate: str = "mean"  # mean | gmean | sum
    ties: frozenset[str] = frozenset({"trec", "input", "optimistic", "pessimistic"})
    binary: bool = False  # takes the rel= threshold parameter
    trec_name: str | None = None
    range: tuple[float, float] | None = (0.0, 1.0)
    # "ranking" metrics take a Prepared ranking; other domains ("classification",
    # "regression", "clustering", "entity_resolution", "detection") define their own
    # kernel signature and entry point, and share only the names, docs and parameters
    domain: str = "ranking"

    @property
    def doc(self) -> str:
        return (self.kernel.__doc__ or self.summary).strip()

    def param(self, name: str) -> Param | None:
        return next((p for p in self.all_params if p.name == name), None)

    @property
    def all_params(self) -> tuple[Param, ...]:
        if self.domain != "ranking":
            return self.params
        extra: list[Param] = [
            Param("ties", None, "tie policy for this metric (overrides the conventions)",
                  choices=tuple(sorted(self.ties))),
        ]
        if self.binary:
            extra.append(Param("rel", None, "relevance threshold (overrides the conventions)",
                               kind="number"))
        return self.params + tuple(extra)


REGISTRY: dict[str, MetricDef] = {}
_ALIASES: dict[str, str] = {}


def register(defn: MetricDef) -> MetricDef:
    for name in (defn.name, *defn.aliases):
        key = name.lower()
        if key in _ALIASES:
            raise RuntimeError(f"metric name {name!r} registered twice")
        _ALIASES[key] = defn.name
    REGISTRY[defn.name] = defn
    return defn


@dataclass(frozen=True)
class Metric:
    """A metric value: family, cutoff and explicitly given parameters.

    ``Metric.parse("ndcg(gain=exp2)@10")``; ``str(metric)`` gives the
    canonical spelling, which parses back to an equal metric.
    """

    name: str
    k: int | float | None = None
    params: tuple[tuple[str, Any], ...] = ()
    # parameters that came from a trec_eval name and so are pinned against profiles
    pinned: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def definition(self) -> MetricDef:
        return REGISTRY[self.name]

    @staticmethod
    def parse(text: str) -> Metric:
        return get_metric(text)

    def resolved_params(self, profile_defaults: dict[str, dict[str, Any]] | None = None
                        ) -> dict[str, Any]:
        """Every parameter's value: explicit, else profile default, else the default."""
        defn = self.definition
        out = {p.name: p.default for p in defn.all_params}
        explicit = dict(self.params)
        for name, value in (profile_defaults or {}).get(self.name, {}).items():
            if name in out and name not in explicit:
                out[name] = value
        out.update(explicit)
        return out

    def _raw(self) -> str:
        """The spelling of a possibly unvalidated metric, for error messages."""
        params = ",".join(f"{n}={format_value(v)}" for n, v in self.params)
        return self.name + (f"({params})" if params else "") + (
            f"@{format_value(self.k)}" if self.k is not None else "")

    def __str__(self) -> str:
        s = self.name
        if self.params:
            s += "(" + ",".join(f"{n}={format_value(v)}" for n, v in self.params) + ")"
        if self.k is not None:
            s += "@" + format_value(self.k)
        return s


def lookup(name: str) -> MetricDef | None:
    """The definition a family name or alias names (case-insensitive), if any."""
    canonical = _ALIASES.get(name.lower())
    return REGISTRY[canonical] if canonical else None


def is_known_name(name: str) -> bool:
    """Whether ``name`` is a registered family name or alias."""
    return name.lower() in _ALIASES


def known_names() -> list[str]:
    return sorted(_ALIASES)


def _suggest(word: str, extra: Iterable[str] = (), domain: str = "ranking") -> str:
    names = [a for a, c in _ALIASES.items() if REGISTRY[c].domain == domain]
    pool = list(dict.fromkeys(names + [e.lower() for e in extra]))
    close = difflib.get_close_matches(word.lower(), pool, n=4, cutoff=0.6)
    if not close:
        close = [n for n in pool if n.startswith(word.lower()[:2])][:4]
    return f" Did you mean {', '.join(map(repr, close))}?" if close else ""


def build_metric(text: str, family: str, params: Iterable[tuple[str, Any]],
                 cutoff: int | float | None, pinned: Iterable[str] = ()) -> Metric:
    """Validate a parsed name against the registry."""
    from ranklens.metrics.trec_names import TREC_NAMES

    canonical = _ALIASES.get(family.lower())
    if canonical is None:
        raise MetricNameError(
            f"unknown metric {text!r}.{_suggest(family, TREC_NAMES)} "
            "Run `ranklens metrics` for the full list."
        )
    defn = REGISTRY[canonical]
    checked: list[tuple[str, Any]] = []
    for pname, value in params:
        p = defn.param(pname.lower())
        if p is None:
            names = ", ".join(repr(q.name) for q in defn.all_params)
            raise MetricParameterError(
                f"in metric {text!r}: unknown parameter {pname!r} for {defn.name}; it takes "
                f"{names}."
            )
        checked.append((p.name, p.check(text, value)))
    if cutoff is not None:
        if defn.cutoff == "none":
            raise MetricParameterError(
                f"in metric {text!r}: {defn.name} takes no cutoff (@k); remove it."
            )
        if defn.cutoff == "level":
            if not 0 <= cutoff <= 1:
                raise MetricParameterError(
                    f"in metric {text!r}: the recall level after '@' must be in [0, 1], got "
                    f"{cutoff!r}."
                )
            cutoff = float(cutoff)
        elif defn.cutoff == "multiple":
            if cutoff <= 0:
                raise MetricParameterError(
                    f"in metric {text!r}: the multiple of R after '@' must be > 0, got "
                    f"{cutoff!r}."
                )
            cutoff = float(cutoff)
        else:
            if isinstance(cutoff, float) and not cutoff.is_integer():
                raise MetricParameterError(
                    f"in metric {text!r}: the cutoff k must be a positive integer, got "
                    f"{cutoff!r}."
                )
            if cutoff <= 0:
                raise MetricParameterError(
                    f"in metric {text!r}: the cutoff k must be a positive integer (k >= 1), "
                    f"got {cutoff!r}."
                )
            cutoff = int(cutoff)
    elif defn.cutoff in ("required", "level", "multiple"):
        what = "a recall level, e.g. @0.3" if defn.cutoff == "level" else "a cutoff, e.g. @10"
        raise MetricParameterError(f"in metric {text!r}: {defn.name} needs {what}.")
    return Metric(canonical, cutoff, tuple(sorted(checked)), frozenset(pinned))


def get_metric(spec: str | Metric) -> Metric:
    """Parse a metric string (our grammar or a trec_eval measure name)."""
    if isinstance(spec, Metric):
        # a hand-built Metric is validated like a parsed name
        if not isinstance(spec.name, str):
            raise MetricNameError(f"a Metric's name must be a string, got {spec.name!r}.")
        checked = build_metric(str(spec._raw()), spec.name, spec.params, spec.k, spec.pinned)
        return checked
    if not isinstance(spec, str):
        raise MetricNameError(
            f"a metric must be a string such as 'ndcg@10' or a Metric, got {spec!r}."
        )
    from ranklens.metrics.trec_names import translate_trec_name

    trec = translate_trec_name(spec)
    if trec is not None:
        family, params, cutoff = trec
        return build_metric(spec, family, params, cutoff, pinned=[n for n, _ in params])
    parsed = parse_name(spec)
    return build_metric(spec, parsed.family, parsed.params, parsed.cutoff)
