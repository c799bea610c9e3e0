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
from typing import Any, NoReturn

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
    """A recursive-descent parser whose errors say, in the user's terms, what is
    missing or unexpected, with the position (0-based column) and a caret under it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        self.closers: list[str] = []  # the brackets open at this point, innermost last
        i = 0
        stripped = text.rstrip()
        while i < len(stripped):
            m = _TOKEN.match(stripped, i)
            if not m or m.end() == i:
                at = i + len(stripped[i:]) - len(stripped[i:].lstrip())
                self.fail(at, f"unexpected character {stripped[at : at + 1]!r}")
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            i = m.end()
        self.i = 0

    def fail(self, at: int, why: str, fix: str = "") -> NoReturn:
        """Raise the error ``why`` at column ``at`` (0-based), shown by a caret in the
        metric string (one line: errors are one line on the command line), with the
        ``fix`` if one is known."""
        marked = self.text[:at] + "^" + self.text[at:]
        raise MetricNameError(
            f"cannot parse metric {self.text!r}: {why} at position {at}, marked ^ in "
            f"{marked!r}{'; ' + fix if fix else ''}."
        )

    def at_end(self, want: str) -> NoReturn:
        """Raise the error of a name that ends where ``want`` belongs."""
        closing = "".join(reversed(self.closers))
        if want in ("',' or ')'", "',' or ']'", "',' or '}'"):
            self.fail(
                len(self.text), f"missing {closing!r} at the end", f"write {self.text}{closing}"
            )
        why = f"the name ends where {want} belongs" + (
            f" (and {closing!r} would close it)" if closing else ""
        )
        self.fail(len(self.text), why)

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, kind: str, want: str, value: str | None = None) -> tuple[str, str, int]:
        """The next token, of ``kind`` (and ``value``); else an error saying ``want``
        (what belongs there, in the user's terms)."""
        tok = self.peek()
        if tok is None:
            self.at_end(want)
        if tok[0] != kind or (value and tok[1] != value):
            self.fail(tok[2], f"expected {want}, found {tok[1]!r}")
        self.i += 1
        return tok

    def separator(self, close: str) -> bool:
        """After an item: True at ``close``, False at ``,``; else an error."""
        want = f"',' or {close!r}"
        sep = self.take("punct", want)
        if sep[1] == close:
            self.closers.pop()
            return True
        if sep[1] != ",":
            self.fail(sep[2], f"expected {want}, found {sep[1]!r}")
        return False

    def value(self) -> Any:
        tok = self.peek()
        if tok is None:
            self.at_end("a value")
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
            self.closers.append("]")
            items: list[int | float] = []
            while True:
                items.append(_number(self.take("num", "a number in the list")[1]))
                if self.separator("]"):
                    return tuple(items)
        if tok[1] == "{":
            self.i += 1
            self.closers.append("}")
            out: dict[float, float] = {}
            if self.peek() and self.peek()[1] == "}":  # type: ignore[index]
                self.i += 1
                self.closers.pop()
                return out
            while True:
                key_tok = self.take("num", "a number (a grade) in the mapping")
                k = _number(key_tok[1])
                self.take("punct", "':' between a grade and its gain", ":")
                v = _number(self.take("num", "a number (the gain of the grade)")[1])
                if k in out:
                    self.fail(
                        key_tok[2],
                        f"grade {key_tok[1]} is given twice in the mapping (gains "
                        f"{format_value(out[k])} and {format_value(v)})",
                        "give each grade once",
                    )
                out[k] = v
                if self.separator("}"):
                    return out
        self.fail(tok[2], f"unexpected {tok[1]!r} where a value belongs")

    def parse(self) -> ParsedName:
        family = self.take("word", "a metric name such as ndcg")[1].lower()
        params: list[tuple[str, Any]] = []
        tok = self.peek()
        if tok and tok[1] == "(":
            self.i += 1
            self.closers.append(")")
            if self.peek() and self.peek()[1] == ")":  # type: ignore[index]
                self.i += 1
                self.closers.pop()
            else:
                while True:
                    name_tok = self.take("word", "a parameter name (e.g. gain=exp2)")
                    name = name_tok[1].lower()
                    self.take("punct", f"'=' after {name_tok[1]!r}", "=")
                    if any(name == p for p, _ in params):
                        raise MetricNameError(
                            f"metric {self.text!r} sets parameter {name!r} twice."
                        )
                    params.append((name, self.value()))
                    if self.separator(")"):
                        break
        cutoff: int | float | None = None
        tok = self.peek()
        if tok and tok[1] == "@":
            self.i += 1
            cutoff = _number(self.take("num", "a cutoff after '@' (e.g. @10)")[1])
        tok = self.peek()
        if tok is not None:
            self.fail(tok[2], f"unexpected {tok[1]!r} after the end of the name")
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
