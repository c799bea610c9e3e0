"""Online metrics: what is computed per randomised unit, and how it is tested.

A metric names a per-unit aggregate of the events of one type
(``sum``: the sum of the event values, where a missing value column counts
every event as 1; ``count``: the number of events; ``any``: 1 if the unit
has at least one such event, else 0) and a kind:

``proportion(EVENT)``
    Share of units with at least one ``EVENT`` (conversion).  Two-proportion
    z-test.
``mean(AGG)``
    Mean over units of a per-unit aggregate (revenue per user, page views per
    user, time on site).  Welch t-test.
``ratio(AGG, AGG)``
    ``sum over units of numerator / sum over units of denominator`` when the
    unit of analysis (impression, session) differs from the unit of
    randomisation (user), e.g. CTR = clicks / impressions.  Delta-method
    z-test.

``AGG`` is ``EVENT`` (short for ``sum(EVENT)``), ``sum(EVENT)``,
``count(EVENT)`` or ``any(EVENT)``.  A metric string is
``[name=]kind(args)``, e.g. ``conversion=proportion(purchase)``,
``revenue=mean(sum(purchase))``, ``ctr=ratio(count(click), count(impression))``;
``str(metric)`` gives the canonical string, which parses back to an equal
metric.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from ranklens._shared.validate import check_choice
from ranklens.errors import MetricNameError

__all__ = ["Aggregate", "EventAggregate", "MetricKind", "OnlineMetric", "parse_metric"]

MetricKind = Literal["proportion", "mean", "ratio"]
Aggregate = Literal["sum", "count", "any"]
_KINDS: tuple[str, ...] = get_args(MetricKind)
_AGGS: tuple[str, ...] = get_args(Aggregate)
_FORBIDDEN = set("(),=")


def _check_event(event: object, where: str) -> str:
    if not isinstance(event, str) or not event.strip():
        raise MetricNameError(f"{where}: an event type must be a non-empty string, got {event!r}.")
    if event != event.strip() or _FORBIDDEN & set(event):
        raise MetricNameError(
            f"{where}: event type {event!r} may not contain '(', ')', ',', '=' or surrounding "
            "spaces."
        )
    return event


@dataclass(frozen=True)
class EventAggregate:
    """A per-unit aggregate of one event type: ``sum``, ``count`` or ``any``."""

    event: str
    agg: Aggregate = "sum"

    def __post_init__(self) -> None:
        _check_event(self.event, "EventAggregate")
        check_choice("agg", self.agg, _AGGS, where="EventAggregate", error=MetricNameError)

    def __str__(self) -> str:
        return self.event if self.agg == "sum" else f"{self.agg}({self.event})"


@dataclass(frozen=True)
class OnlineMetric:
    """An A/B-test metric (see the module documentation for the kinds).

    Build with :meth:`proportion`, :meth:`mean`, :meth:`ratio` or
    :meth:`parse`.

    >>> m = OnlineMetric.parse("ctr=ratio(count(click), count(impression))")
    >>> m.kind, str(m.numerator), str(m)
    ('ratio', 'count(click)', 'ctr=ratio(count(click), count(impression))')
    >>> OnlineMetric.parse(str(m)) == m
    True
    """

    name: str
    kind: MetricKind
    numerator: EventAggregate
    denominator: EventAggregate | None = None

    def __post_init__(self) -> None:
        if (
            not isinstance(self.name, str)
            or not self.name.strip()
            or "=" in self.name
            or self.name != self.name.strip()
        ):
            raise MetricNameError(
                f"OnlineMetric: the name must be a non-empty string without '=' or surrounding "
                f"spaces, got {self.name!r}."
            )
        check_choice(
            "kind", self.kind, _KINDS, where=f"OnlineMetric {self.name!r}", error=MetricNameError
        )
        if not isinstance(self.numerator, EventAggregate):
            raise MetricNameError(
                f"OnlineMetric {self.name!r}: numerator must be an EventAggregate."
            )
        if (self.kind == "ratio") != (self.denominator is not None):
            raise MetricNameError(
                f"OnlineMetric {self.name!r}: a denominator is required for ratio metrics and "
                "not allowed for the others."
            )
        if self.name != self.spec and ("(" in self.name or ")" in self.name):
            raise MetricNameError(
                f"OnlineMetric: the name {self.name!r} may not contain parentheses (only the "
                "default name, the definition itself, does)."
            )
        if self.kind == "proportion" and self.numerator.agg != "any":
            raise MetricNameError(
                f"OnlineMetric {self.name!r}: a proportion counts units with any event; use "
                "OnlineMetric.proportion(event)."
            )

    # -- constructors ------------------------------------------------------------
    @classmethod
    def proportion(cls, event: str, *, name: str | None = None) -> OnlineMetric:
        """Share of units with at least one ``event`` (conversion rate).

        ``p = (1/n) sum_u 1[u has an event]`` over the ``n`` units of a variant;
        :func:`ranklens.online.analyze` compares two variants' ``p`` with the
        two-proportion z-test.  Source: Kohavi, Tang & Xu, "Trustworthy Online
        Controlled Experiments", Cambridge University Press, 2020.

        >>> str(OnlineMetric.proportion("purchase", name="conversion"))
        'conversion=proportion(purchase)'
        """
        agg = EventAggregate(event, "any")
        return cls(name or f"proportion({event})", "proportion", agg)

    @classmethod
    def mean(cls, event: str, *, agg: Aggregate = "sum", name: str | None = None) -> OnlineMetric:
        """Mean over units of the per-unit ``agg`` of ``event``.

        ``m = (1/n) sum_u a_u`` with ``a_u`` the unit's ``sum`` of event values
        (1 per event without a value column), ``count`` of events or ``any``
        (0/1); :func:`ranklens.online.analyze` compares two variants with Welch's
        t-test.  Source: Kohavi, Tang & Xu, "Trustworthy Online Controlled
        Experiments", Cambridge University Press, 2020.

        >>> str(OnlineMetric.mean("purchase", agg="count"))
        'mean(count(purchase))'
        """
        a = EventAggregate(event, agg)
        return cls(name or f"mean({a})", "mean", a)

    @classmethod
    def ratio(
        cls,
        numerator: str,
        denominator: str,
        *,
        numerator_agg: Aggregate = "sum",
        denominator_agg: Aggregate = "sum",
        name: str | None = None,
    ) -> OnlineMetric:
        """``sum(numerator) / sum(denominator)`` over units (e.g. CTR).

        ``r = sum_u x_u / sum_u y_u`` of the per-unit aggregates of the two event
        types, for a unit of analysis (impression) finer than the unit of
        randomisation (user); :func:`ranklens.online.analyze` tests it with the
        delta method.  Source: Deng, Knoblich & Lu, "Applying the delta method in
        metric analytics", KDD 2018.

        >>> str(OnlineMetric.ratio("click", "impression", numerator_agg="count"))
        'ratio(count(click), impression)'
        """
        n = EventAggregate(numerator, numerator_agg)
        d = EventAggregate(denominator, denominator_agg)
        return cls(name or f"ratio({n}, {d})", "ratio", n, d)

    @classmethod
    def parse(cls, text: str) -> OnlineMetric:
        """Parse ``[name=]kind(args)``; see the module documentation."""
        return parse_metric(text)

    # -- text --------------------------------------------------------------------
    @property
    def spec(self) -> str:
        """The metric definition without its name, e.g. ``ratio(click, impression)``."""
        if self.kind == "proportion":
            return f"proportion({self.numerator.event})"
        if self.kind == "mean":
            return f"mean({self.numerator})"
        return f"ratio({self.numerator}, {self.denominator})"

    def __str__(self) -> str:
        return self.spec if self.name == self.spec else f"{self.name}={self.spec}"

    @property
    def events(self) -> tuple[str, ...]:
        """Event types the metric reads."""
        evs = [self.numerator.event]
        if self.denominator is not None and self.denominator.event not in evs:
            evs.append(self.denominator.event)
        return tuple(evs)


_AGG_RE = re.compile(r"^\s*(sum|count|any)\s*\(\s*(.*?)\s*\)\s*$")
_METRIC_RE = re.compile(r"^\s*(?:([^=()]+?)\s*=\s*)?([A-Za-z_]+)\s*\((.*)\)\s*$")


def _parse_agg(text: str, where: str) -> EventAggregate:
    m = _AGG_RE.match(text)
    if m:
        return EventAggregate(_check_event(m.group(2), where), m.group(1))  # type: ignore[arg-type]
    if "(" in text or ")" in text:
        raise MetricNameError(
            f"{where}: cannot read {text.strip()!r}; use EVENT, sum(EVENT), count(EVENT) or "
            "any(EVENT)."
        )
    return EventAggregate(_check_event(text.strip(), where), "sum")


def parse_metric(text: str) -> OnlineMetric:
    """Parse a metric string such as ``ctr=ratio(click, impression)``.

    >>> parse_metric("conversion=proportion(purchase)").kind
    'proportion'
    """
    if not isinstance(text, str):
        raise MetricNameError(f"online metric: expected a string, got {type(text).__name__}.")
    where = f"online metric {text!r}"
    m = _METRIC_RE.match(text)
    if not m:
        raise MetricNameError(
            f"{where}: expected [name=]kind(args), e.g. 'conversion=proportion(purchase)', "
            "'revenue=mean(sum(purchase))' or 'ctr=ratio(count(click), count(impression))'."
        )
    name, kind, body = m.group(1), m.group(2).lower(), m.group(3)
    if kind not in _KINDS:
        raise MetricNameError(
            f"{where}: unknown metric kind {m.group(2)!r}; use proportion, mean or ratio."
        )
    # split the arguments on top-level commas
    args: list[str] = []
    depth, cur = 0, ""
    for ch in body:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise MetricNameError(f"{where}: unbalanced parentheses.")
        if ch == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += ch
    if depth != 0:
        raise MetricNameError(f"{where}: unbalanced parentheses.")
    args.append(cur)
    want = 2 if kind == "ratio" else 1
    if len(args) != want:
        raise MetricNameError(f"{where}: {kind} takes {want} argument(s), got {len(args)}.")
    aggs = [_parse_agg(a, where) for a in args]
    if kind == "proportion":
        explicit_sum = aggs[0].agg == "sum" and "(" in args[0]
        if aggs[0].agg == "count" or explicit_sum:
            raise MetricNameError(
                f"{where}: proportion takes a bare event type, e.g. proportion(purchase)."
            )
        metric = OnlineMetric.proportion(aggs[0].event)
    elif kind == "mean":
        metric = OnlineMetric.mean(aggs[0].event, agg=aggs[0].agg)
    else:
        metric = OnlineMetric.ratio(
            aggs[0].event, aggs[1].event, numerator_agg=aggs[0].agg, denominator_agg=aggs[1].agg
        )
    if name is not None:
        metric = OnlineMetric(name.strip(), metric.kind, metric.numerator, metric.denominator)
    return metric
