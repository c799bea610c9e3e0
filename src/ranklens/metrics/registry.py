"""The metric registry: the catalogue indexed by name and alias, and metric values.

:data:`REGISTRY` maps every family name of :data:`~ranklens.metrics.catalogue.CATALOGUE`
to its declaration; it is the same whatever modules were imported.  A
:class:`Metric` is a value: a family, a cutoff and explicit parameters.
``str(metric)`` is its canonical name and parses back to an equal metric.
The CLI's metric list, "did you mean" suggestions and report labels are all
generated from :data:`REGISTRY`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ranklens.errors import MetricNameError, MetricParameterError
from ranklens.metrics.catalogue import CATALOGUE, MetricDef, Param
from ranklens.metrics.grammar import format_value, parse_name
from ranklens.metrics.irm_names import translate_irm_name
from ranklens.metrics.trec_names import TREC_NAMES, translate_trec_name

if TYPE_CHECKING:
    from ranklens.ranking.conventions import Conventions

__all__ = ["REGISTRY", "Metric", "MetricDef", "Param", "get_metric"]

REGISTRY: dict[str, MetricDef] = {}
_ALIASES: dict[str, str] = {}


def _build() -> None:
    for defn in CATALOGUE:
        for name in (defn.name, *defn.aliases):
            key = name.lower()
            if key in _ALIASES:  # pragma: no cover - the catalogue is static
                raise RuntimeError(f"metric name {name!r} declared twice in the catalogue")
            _ALIASES[key] = defn.name
        REGISTRY[defn.name] = defn


_build()


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

    def resolved_params(
        self, profile_defaults: dict[str, dict[str, Any]] | None = None
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

    def resolve(self, conventions: Conventions, cutoff: Any = None) -> dict[str, Any]:
        """The parameters an evaluation under ``conventions`` uses: explicit, else the
        profile's default, else the metric's; ``ties`` from the conventions unless
        given; the catalogue's rules applied (a forbidden combination raises
        :class:`MetricParameterError` before any data is touched).  ``cutoff``
        stands for ``k`` where the cutoffs are a vector."""
        params = self.resolved_params(conventions.metric_defaults)
        if params.get("ties", False) is None:
            params["ties"] = conventions.ties
        k = self.k if cutoff is None else cutoff
        return self.definition.apply_rules(str(self), params, {n for n, _ in self.params}, k)

    def aggregation(self, conventions: Conventions) -> str:
        """How the per-query values of this metric aggregate over queries under
        ``conventions`` (whose profile may set a parameter that changes it, e.g.
        ``gm_map(values=log)``): see :meth:`MetricDef.aggregate_for`.  A metric whose
        formula can divide 0 by 0 (``zero_by_zero``) takes the ``+nan`` form under
        ``undefined='nan'`` (a NaN value makes the aggregate NaN), unless
        ``no_relevant='nan'`` marks queries left out by NaN."""
        how = self.definition.aggregate_for(self.resolved_params(conventions.metric_defaults))
        if (
            self.definition.zero_by_zero
            and conventions.undefined == "nan"
            and conventions.no_relevant != "nan"
        ):
            return how + "+nan"
        return how

    def _raw(self) -> str:
        """The spelling of a possibly unvalidated metric, for error messages."""
        params = ",".join(f"{n}={format_value(v)}" for n, v in self.params)
        return (
            self.name
            + (f"({params})" if params else "")
            + (f"@{format_value(self.k)}" if self.k is not None else "")
        )

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


def build_metric(
    text: str,
    family: str,
    params: Iterable[tuple[str, Any]],
    cutoff: int | float | None,
    pinned: Iterable[str] = (),
    every_cutoff: bool = False,
) -> Metric:
    """Validate a parsed name against the registry (``every_cutoff``: the name is
    to be evaluated at a vector of cutoffs, as if it had one)."""
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
                    f"in metric {text!r}: the multiple of R after '@' must be > 0, got {cutoff!r}."
                )
            cutoff = float(cutoff)
        else:
            if isinstance(cutoff, float) and not cutoff.is_integer():
                raise MetricParameterError(
                    f"in metric {text!r}: the cutoff k must be a positive integer, got {cutoff!r}."
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
    explicit = dict(checked)
    defaults = {p.name: p.default for p in defn.all_params}
    defn.apply_rules(
        text,
        {**defaults, **explicit},
        set(explicit),
        1 if every_cutoff and cutoff is None else cutoff,
    )
    return Metric(canonical, cutoff, tuple(sorted(checked)), frozenset(pinned))


def get_metric(spec: str | Metric, *, every_cutoff: bool = False) -> Metric:
    """Parse a metric string (our grammar, a trec_eval measure name, or ir_measures'
    spelling, :mod:`ranklens.metrics.irm_names`).

    ``every_cutoff``: the metric comes without ``@k`` because it is evaluated
    at every cutoff (:func:`ranklens.evaluate_cutoffs`)."""
    if isinstance(spec, Metric):
        # a hand-built Metric is validated like a parsed name
        if not isinstance(spec.name, str):
            raise MetricNameError(f"a Metric's name must be a string, got {spec.name!r}.")
        checked = build_metric(
            str(spec._raw()), spec.name, spec.params, spec.k, spec.pinned, every_cutoff
        )
        return checked
    if not isinstance(spec, str):
        raise MetricNameError(
            f"a metric must be a string such as 'ndcg@10' or a Metric, got {spec!r}."
        )
    trec = translate_trec_name(spec)
    if trec is not None:
        family, params, cutoff = trec
        return build_metric(
            spec, family, params, cutoff, pinned=[n for n, _ in params], every_cutoff=every_cutoff
        )
    parsed = parse_name(spec)
    family, params, cutoff = translate_irm_name(spec, parsed.family, parsed.params, parsed.cutoff)
    return build_metric(spec, family, params, cutoff, every_cutoff=every_cutoff)
