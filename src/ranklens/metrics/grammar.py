"""The metric-name grammar.

::

    metric   := family [ "(" [ param ("," param)* ] ")" ] [ "@" cutoff ]
    param    := name "=" value
    value    := number | word | quoted string | "[" number ("," number)* "]"
              | "{" [ number ":" number ("," ...)* ] "}"
    cutoff   := integer | decimal (a recall level for iprec)

Family and parameter names are case-insensitive.  trec_eval's own measure
names (``ndcg_cut.10``, ``P_5``, ``iprec_at_recall.0.10``, ...) are
translated by :mod:`ranklens.metrics.trec_names` before this grammar runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ranklens.errors import MetricNameError

__all__ = ["ParsedName", "format_value", "parse_name"]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<word>[A-Za-z_][A-Za-z0-9_\-]*|\d+(?![eE][-+]?\d)[A-Za-z_][A-Za-z0-9_\-]*)
      | (?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
      | (?P<str>'[^']*'|"[^"]*")
      | (?P<punct>[(),=@{}:\[\]])
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class ParsedName:
    family: str
    params: tuple[tuple[str, Any], ...]
    cutoff: int | float | None


def _number(text: str) -> int | float:
    if re.fullmatch(r"[-+]?\d+", text):
        return int(text)
    return float(text)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        i = 0
        stripped = text.rstrip()
        while i < len(stripped):
            m = _TOKEN.match(stripped, i)
            if not m or m.end() == i:
                raise MetricNameError(
                    f"cannot parse metric {text!r}: unexpected character "
                    f"{stripped[i:].lstrip()[:1]!r} at position {i}."
                )
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            i = m.end()
        self.i = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, kind: str | None = None, value: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None or (kind and tok[0] != kind) or (value and tok[1] != value):
            want = value or kind or "more"
            got = "the end" if tok is None else repr(tok[1])
            raise MetricNameError(f"cannot parse metric {self.text!r}: expected {want}, got {got}.")
        self.i += 1
        return tok

    def value(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise MetricNameError(f"cannot parse metric {self.text!r}: a parameter has no value.")
        if tok[0] == "num":
            self.i += 1
            return _number(tok[1])
        if tok[0] == "word":
            self.i += 1
            return tok[1]
        if tok[0] == "str":
            self.i += 1
            return tok[1][1:-1]
        if tok[1] == "[":
            self.i += 1
            items: list[int | float] = []
            while True:
                items.append(_number(self.take("num")[1]))
                sep = self.take("punct")[1]
                if sep == "]":
                    return tuple(items)
                if sep != ",":
                    raise MetricNameError(
                        f"cannot parse metric {self.text!r}: expected ',' or ']' in a list."
                    )
        if tok[1] == "{":
            self.i += 1
            out: dict[float, float] = {}
            if self.peek() and self.peek()[1] == "}":  # type: ignore[index]
                self.i += 1
                return out
            while True:
                k = _number(self.take("num")[1])
                self.take("punct", ":")
                v = _number(self.take("num")[1])
                out[k] = v
                sep = self.take("punct")[1]
                if sep == "}":
                    return out
                if sep != ",":
                    raise MetricNameError(
                        f"cannot parse metric {self.text!r}: expected ',' or '}}' in a mapping."
                    )
        raise MetricNameError(
            f"cannot parse metric {self.text!r}: unexpected {tok[1]!r} where a value belongs."
        )

    def parse(self) -> ParsedName:
        family = self.take("word")[1].lower()
        params: list[tuple[str, Any]] = []
        tok = self.peek()
        if tok and tok[1] == "(":
            self.i += 1
            if self.peek() and self.peek()[1] == ")":  # type: ignore[index]
                self.i += 1
            else:
                while True:
                    name = self.take("word")[1].lower()
                    self.take("punct", "=")
                    if any(name == p for p, _ in params):
                        raise MetricNameError(
                            f"metric {self.text!r} sets parameter {name!r} twice."
                        )
                    params.append((name, self.value()))
                    sep = self.take("punct")[1]
                    if sep == ")":
                        break
                    if sep != ",":
                        raise MetricNameError(
                            f"cannot parse metric {self.text!r}: expected ',' or ')'."
                        )
        cutoff: int | float | None = None
        tok = self.peek()
        if tok and tok[1] == "@":
            self.i += 1
            cutoff = _number(self.take("num")[1])
        if self.peek() is not None:
            raise MetricNameError(
                f"cannot parse metric {self.text!r}: unexpected {self.peek()[1]!r} "  # type: ignore[index]
                "after the end of the name."
            )
        return ParsedName(family, tuple(params), cutoff)


def parse_name(text: str) -> ParsedName:
    """Parse ``text`` with the grammar (no trec_eval translation, no lookup)."""
    if not isinstance(text, str) or not text.strip():
        raise MetricNameError(f"a metric name must be a non-empty string, got {text!r}.")
    return _Parser(text.strip()).parse()


def format_value(v: Any) -> str:
    if isinstance(v, (tuple, list)):
        return "[" + ",".join(format_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{format_value(k)}:{format_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    return str(v)
