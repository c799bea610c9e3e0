r"""The one table layer every result type is rendered through.

A result is turned into a :class:`Table` (a header, rows of :class:`Cell`, lines
before and after); one writer per layout format draws any table:

``table``
    a plain-text table for the terminal (:func:`to_text`): label columns left,
    values right, bold (and colour) only when writing to a terminal.  A table
    wider than the terminal is printed with one value per row (the label columns,
    then the column's name and its value) instead of wrapping; piped output has
    no width limit, so numbers are never cut.
``markdown``
    a GitHub pipe table (:func:`to_markdown`); text escaped with
    :func:`markdown_escape`, bold as ``**...**``, marks as ``<sup>``.
``latex``
    a booktabs ``tabular`` (:func:`to_latex`); text escaped with
    :func:`latex_escape`, bold as ``\textbf``, marks as ``$^{...}$``.

The data formats write a result's own records in full precision: ``csv``
(:func:`to_csv`, through Arrow; NaN as an empty field) and ``json``
(:func:`to_json`; NaN and infinities as ``null``).

Shared by every result: :func:`display_id` (control characters shown as
``\xNN``), :func:`number` (four decimals, ``NaN``), :func:`best_mask` (the
best value of each column, in the direction the catalogue declares: :func:`better`)
and :func:`check_format`.

    >>> t = Table(["run", "map"], [["bm25", Cell("0.5000", "bold")], ["dense", "0.2500"]])
    >>> print(to_markdown(t), end="")
    | run | map |
    | :-- | --: |
    | bm25 | **0.5000** |
    | dense | 0.2500 |
"""

from __future__ import annotations

import io
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ranklens.errors import FormatError

__all__ = [
    "LAYOUTS",
    "NAN_TEXT",
    "Cell",
    "Table",
    "best_mask",
    "better",
    "check_format",
    "display_id",
    "json_ready",
    "latex_escape",
    "markdown_escape",
    "number",
    "p_value",
    "percent",
    "render_as",
    "render_layout",
    "significant",
    "stdout_is_terminal",
    "terminal_width",
    "to_csv",
    "to_html",
    "to_json",
    "to_latex",
    "to_markdown",
    "to_text",
]

#: The layout formats every table has (the data formats are ``csv`` and ``json``).
LAYOUTS: tuple[str, ...] = ("table", "markdown", "latex")
#: A missing value (NaN) in the human-readable formats.
NAN_TEXT = "NaN"
_ALIASES = {"md": "markdown", "tex": "latex"}


@dataclass(frozen=True)
class Cell:
    """One cell: its text, a terminal style (``"bold"``, ``"green"``; ``bold`` also
    marks it in Markdown and LaTeX), superscript marks and a small annotation
    written after the value (an interval)."""

    text: str
    style: str = ""
    sup: str = ""
    small: str = ""

    @property
    def bold(self) -> bool:
        return "bold" in self.style.split()

    @property
    def plain(self) -> str:
        """The cell as plain text: value, annotation and marks."""
        return " ".join(t for t in (self.text, self.small, self.sup) if t)


@dataclass
class Table:
    """A header, rows of cells (a plain string is an unstyled cell), the number of
    leading label columns (left-aligned; the others are values, right-aligned), and
    lines printed before (``preamble``) and after (``notes``) the table."""

    header: list[str]
    rows: list[list[Cell | str]]
    n_labels: int = 1
    preamble: list[Cell | str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def cells(self) -> list[list[Cell]]:
        return [[c if isinstance(c, Cell) else Cell(c) for c in row] for row in self.rows]

    def displayed(self) -> Table:
        """The table as the layout formats draw it: control characters of every text
        (ids in cells, the header, the lines around) shown by :func:`display_id`, so
        that no id can split a row or restyle a terminal (the data formats keep them)."""

        def cell(c: Cell | str) -> Cell:
            c = c if isinstance(c, Cell) else Cell(c)
            return Cell(display_id(c.text), c.style, display_id(c.sup), display_id(c.small))

        return Table(
            [display_id(h) for h in self.header],
            [[cell(c) for c in row] for row in self.rows],
            self.n_labels,
            [cell(x) for x in self.preamble],
            [display_id(n) for n in self.notes],
        )

    def one_value_per_row(self, name: str = "metric") -> Table:
        """The same values, one per row: the label columns, the value's column
        (called ``name``) and the value."""
        n = self.n_labels
        columns = self.header[n:]
        rows: list[list[Cell | str]] = [
            [*row[:n], columns[j], row[n + j]] for row in self.rows for j in range(len(columns))
        ]
        return Table([*self.header[:n], name, "value"], rows, n + 1, self.preamble, self.notes)


# ---------------------------------------------------------------------------- text


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def display_id(text: str) -> str:
    """An id as shown in a table or report: control characters (newlines, tabs, ANSI
    escapes) written as ``\\xNN`` / ``\\uNNNN`` so that one id stays one cell and
    cannot restyle a terminal.  For display only: data formats (CSV, JSON, Parquet)
    keep ids exactly.

    >>> display_id("a\\tb")
    'a\\\\x09b'
    """
    return _CONTROL.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"
        ),
        text,
    )


def number(value: float | None, integer: bool = False) -> str:
    """A value as printed in tables: four decimals, ``NaN`` when missing; with
    ``integer`` a whole number prints without decimals (summed counts).

    >>> number(0.25), number(float("nan")), number(4.0, integer=True)
    ('0.2500', 'NaN', '4')
    """
    if value is None or value != value:
        return NAN_TEXT
    if integer and float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.4f}"


def significant(value: float | None) -> str:
    """A value in its own units (an A/B metric: a rate, revenue): four significant
    digits, ``.3g`` for the very small and the very large, ``NaN`` when missing.

    >>> significant(0.031234), significant(1234567.0), significant(None)
    ('0.03123', '1.23e+06', 'NaN')
    """
    if value is None or value != value:
        return NAN_TEXT
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
        return f"{value:.3g}"
    return f"{value:.4g}"


def percent(value: float | None) -> str:
    """A relative change with its sign: ``+5.00%``; ``NaN`` when missing."""
    return NAN_TEXT if value is None or value != value else f"{value:+.2%}"


def p_value(value: float | None) -> str:
    """A p-value: four decimals, ``<1e-4`` below; ``NaN`` when missing."""
    if value is None or value != value:
        return NAN_TEXT
    return "<1e-4" if value < 1e-4 else f"{value:.4f}"


def markdown_escape(text: str) -> str:
    """Text for a Markdown table cell: the pipe and the backslash escaped, and HTML's
    special characters as entities (an id such as ``<script>`` shows as text)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("|", "\\|")


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_LATEX_RE = re.compile("|".join(map(re.escape, _LATEX_SPECIAL)))


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters (``P_5`` -> ``P\_5``)."""
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], text)


# ---------------------------------------------------------------------------- best


def better(family: str) -> bool | None:
    """The direction the metric catalogue declares for a metric family (or alias):
    True when a larger value is better, False when a smaller one is, None for a count
    or diagnostic (no value is "best"); a name the catalogue does not know (a column of
    another kind) counts as larger-is-better.

    >>> better("map"), better("num_ret"), better("num_nonrel_judged_ret")
    (True, None, False)
    """
    from ranklens.metrics.registry import lookup

    defn = lookup(family)
    return True if defn is None else defn.higher_is_better


def best_mask(values: np.ndarray, families: Sequence[str]) -> np.ndarray:
    """Cells holding the best value of their column (as printed, four decimals): the
    largest, or the smallest, as the catalogue declares the family's direction
    (:func:`better`); none for counts and diagnostics, all-NaN columns or a single row."""
    best = np.zeros(values.shape, dtype=bool)
    if values.shape[0] < 2:
        return best
    shown = np.round(values, 4)
    for j, family in enumerate(families):
        col = shown[:, j]
        direction = better(family)
        if direction is None or np.isnan(col).all():
            continue
        best[:, j] = col == (np.nanmax(col) if direction else np.nanmin(col))
    return best


# ---------------------------------------------------------------------------- formats


def check_format(fmt: str, formats: Sequence[str], hint: str = "") -> str:
    """``fmt`` as one of ``formats`` (``md`` and ``tex`` are Markdown and LaTeX);
    a :class:`~ranklens.errors.FormatError` naming the choices otherwise."""
    key = fmt.lower().strip() if isinstance(fmt, str) else fmt
    key = _ALIASES.get(key, key)
    if key not in formats:
        raise FormatError(
            f"unknown output format {fmt!r}{hint}; choose one of {', '.join(map(repr, formats))}."
        )
    return str(key)


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (ANSI styles and a width limit)."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # pragma: no cover - closed or replaced stdout
        return False


def terminal_width() -> int | None:
    """The terminal's width when standard output is one (None otherwise: no limit)."""
    if not stdout_is_terminal():
        return None
    import shutil

    return shutil.get_terminal_size(fallback=(80, 24)).columns


def _natural_width(header: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The width of a table whose columns hold their longest text without wrapping."""
    return sum(max([len(h), *(len(r[i]) for r in rows)]) + 3 for i, h in enumerate(header)) + 4


def to_text(table: Table, color: bool | None = None, max_width: int | None = None) -> str:
    """The table as terminal text; ``color=None`` uses ANSI styles only when standard
    output is a terminal.  Wider than ``max_width`` (default: the terminal's width
    when standard output is one, else no limit): one value per row."""
    if color is None:
        color = stdout_is_terminal()
    table = table.displayed()
    limit = terminal_width() if max_width is None else max_width
    texts = [[c.plain for c in row] for row in table.cells()]
    if (
        limit
        and _natural_width(table.header, texts) > limit
        and len(table.header) > table.n_labels + 1
    ):
        table = table.one_value_per_row()
    from rich import box
    from rich.console import Console
    from rich.table import Table as RichTable
    from rich.text import Text

    cells = table.cells()
    texts = [[c.plain for c in row] for row in cells]
    grid = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for i, name in enumerate(table.header):
        grid.add_column(Text(name), justify="left" if i < table.n_labels else "right", no_wrap=True)
    for row, text in zip(cells, texts, strict=True):
        grid.add_row(*(Text(t, style=c.style) for t, c in zip(text, row, strict=True)))
    out = io.StringIO()
    # wide enough that nothing wraps: the table keeps its natural width
    console = Console(
        file=out,
        width=max(_natural_width(table.header, texts), 20),
        height=25,
        force_terminal=color,
        color_system="standard" if color else None,
        no_color=not color,
        highlight=False,
        markup=False,
        emoji=False,
        legacy_windows=False,
        soft_wrap=False,
    )
    for line in table.preamble:  # lines around the table are never wrapped
        cell = line if isinstance(line, Cell) else Cell(line)
        console.print(Text(cell.text, style=cell.style), soft_wrap=True)
    console.print(grid)
    if table.notes:
        console.print()
        for note in table.notes:
            console.print(Text(note), soft_wrap=True)
    # rich pads nothing past the table, but keep lines free of trailing blanks
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"


def to_markdown(table: Table) -> str:
    """A GitHub pipe table: labels left-aligned, values right-aligned; the preamble
    before it and the notes after it as paragraphs."""

    def cell(c: Cell) -> str:
        text = markdown_escape(c.text)
        if c.bold and text:
            text = f"**{text}**"
        if c.sup:
            text += f"<sup>{markdown_escape(c.sup)}</sup>"
        return " ".join(t for t in (text, markdown_escape(c.small)) if t)

    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(cells) + " |"

    table = table.displayed()
    n = table.n_labels
    out = [
        *_paragraphs(table.preamble, markdown_escape),
        line(markdown_escape(h) for h in table.header),
        line(":--" if i < n else "--:" for i in range(len(table.header))),
        *(line(cell(c) for c in row) for row in table.cells()),
    ]
    if table.notes:
        out.extend(["", *_paragraphs(table.notes, markdown_escape)[:-1]])
    return "\n".join(out) + "\n"


def _paragraphs(lines: Sequence[Cell | str], escape: Callable[[str], str]) -> list[str]:
    """Lines as Markdown paragraphs, each followed by a blank line."""
    return [p for x in lines for p in (escape(x.text if isinstance(x, Cell) else x), "")]


def to_latex(table: Table) -> str:
    r"""A booktabs ``tabular`` (needs ``\usepackage{booktabs}``); the preamble and the
    notes as small full-width rows after the rule."""

    def cell(c: Cell) -> str:
        text = latex_escape(c.text)
        if c.bold:
            text = rf"\textbf{{{text}}}"
        if c.sup:
            text += f"$^{{{latex_escape(c.sup)}}}$"
        if c.small:
            text += rf" {{\scriptsize {latex_escape(c.small)}}}"
        return text

    table = table.displayed()
    n = len(table.header)
    spec = "l" * table.n_labels + "r" * (n - table.n_labels)
    extra = [
        rf"\multicolumn{{{n}}}{{l}}{{\footnotesize {latex_escape(t)}}} \\"
        for t in [*(x.text if isinstance(x, Cell) else x for x in table.preamble), *table.notes]
    ]
    out = [
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in table.header) + r" \\",
        r"\midrule",
        *(" & ".join(cell(c) for c in row) + r" \\" for row in table.cells()),
        r"\bottomrule",
        *extra,
        r"\end{tabular}",
    ]
    return "\n".join(out) + "\n"


def to_html(table: Table) -> str:
    """An HTML ``<table>`` (for :mod:`ranklens.render.html`; in a ``<div>`` that scrolls
    sideways when the table is wider than the page): every text shown with
    :func:`display_id` and :func:`html.escape` (an id such as ``<script>`` is text),
    label columns as row headers, values in ``class="num"`` cells, bold as
    ``<strong>``, marks as ``<sup>``, the annotation in ``<small>``; the preamble
    and the notes as paragraphs around it.

    >>> to_html(Table(["q", "v"], [["<b>", Cell("1.0000", "bold", sup="a")]]))
    '<div class="rl-scroll"><table class="rl-table"><thead><tr><th scope="col">q</th>\
<th scope="col" class="num">v</th></tr></thead><tbody><tr><th scope="row">&lt;b&gt;</th>\
<td class="num"><strong>1.0000</strong><sup>a</sup></td></tr></tbody></table></div>'
    """
    from html import escape

    def text(t: str) -> str:
        return escape(display_id(t))

    def cell(c: Cell) -> str:
        out = f"<strong>{text(c.text)}</strong>" if c.bold else text(c.text)
        if c.small:
            out += f" <small>{text(c.small)}</small>"
        return out + (f"<sup>{text(c.sup)}</sup>" if c.sup else "")

    n = table.n_labels
    num = ' class="num"'
    head = "".join(
        f'<th scope="col"{num if i >= n else ""}>{text(h)}</th>' for i, h in enumerate(table.header)
    )
    rows = "".join(
        "<tr>"
        + "".join(
            f'<th scope="row">{cell(c)}</th>' if i < n else f"<td{num}>{cell(c)}</td>"
            for i, c in enumerate(row)
        )
        + "</tr>"
        for row in table.cells()
    )
    before = "".join(f"<p>{text(x.text if isinstance(x, Cell) else x)}</p>" for x in table.preamble)
    after = "".join(f'<p class="rl-note">{text(x)}</p>' for x in table.notes)
    return (
        f'<div class="rl-scroll">{before}<table class="rl-table"><thead><tr>{head}</tr>'
        f"</thead><tbody>{rows}</tbody></table>{after}</div>"
    )


def render_layout(table: Table, fmt: str, color: bool | None = None) -> str:
    """``table``, ``markdown`` or ``latex`` (:data:`LAYOUTS`)."""
    if fmt == "table":
        return to_text(table, color)
    return to_markdown(table) if fmt == "markdown" else to_latex(table)


def render_as(
    fmt: str,
    *,
    layout: Callable[[], Table],
    records: Callable[[], Any],
    document: Callable[[], Any],
    color: bool | None = None,
) -> str:
    """A result in ``fmt``: one of :data:`LAYOUTS` (its ``layout()`` table), ``csv``
    (its ``records()``, an Arrow table) or ``json`` (its ``document()``)."""
    key = check_format(fmt, (*LAYOUTS, "csv", "json"))
    if key == "json":
        return to_json(document())
    if key == "csv":
        return to_csv(records())
    return render_layout(layout(), key, color)


# ---------------------------------------------------------------------------- data


def to_csv(table: Any) -> str:
    """An Arrow table as CSV: a header row, fields quoted only where they must be
    (a comma, a quote or a line break in them), numbers in full precision, missing
    values (null) as empty fields."""
    import csv

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    for i, column in enumerate(table.columns):  # NaN is missing, as null is
        if pa.types.is_floating(column.type):
            table = table.set_column(i, table.field(i), pc.if_else(pc.is_nan(column), None, column))
    head = io.StringIO()
    csv.writer(head, lineterminator="\n").writerow(table.column_names)
    body = io.BytesIO()
    try:  # Arrow quotes every text field, or none: none unless one needs it
        pacsv.write_csv(table, body, pacsv.WriteOptions(include_header=False, quoting_style="none"))
    except pa.ArrowInvalid:
        body = io.BytesIO()
        pacsv.write_csv(
            table, body, pacsv.WriteOptions(include_header=False, quoting_style="needed")
        )
    return head.getvalue() + body.getvalue().decode("utf-8")


def json_ready(obj: Any) -> Any:
    """Mappings with string keys, tuples as lists, numpy scalars as Python numbers and
    NaN or infinite floats as None, recursively."""
    if isinstance(obj, Mapping):
        return {_json_key(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_ready(obj.tolist())
    if isinstance(obj, np.generic):
        return json_ready(obj.item())
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    return obj


def _json_key(key: Any) -> str:
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return str(key)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return str(obj)


def to_json(doc: Any) -> str:
    """Strict JSON (:func:`json_ready`), indented by two, non-ASCII text as is; ends
    with a newline."""
    return (
        json.dumps(
            json_ready(doc), indent=2, ensure_ascii=False, allow_nan=False, default=_json_default
        )
        + "\n"
    )
