r"""Render a :class:`~ranklens.comparison.Comparison` as text.

Formats (:data:`FORMATS`):

``table``
    a rich terminal table: a row per system (with its letter), a column per
    metric holding ``mean [low, high]`` and the letters of the systems it is
    significantly better than; with a baseline, a ``W/T/L`` column per metric
    (queries won, tied, lost against the baseline).  The best mean of each
    metric is bold; a footnote names the test, correction, alpha and interval.
``markdown``
    the same grid as a GitHub pipe table, best in ``**bold**``, letters as
    ``<sup>``.
``latex``
    a booktabs ``tabular``: best mean in ``\textbf``, letters as
    ``$^{ab}$`` superscripts (as ranx's report does), the interval in
    ``\scriptsize``, and a last row naming the test and the correction.
``csv`` / ``json``
    :meth:`Comparison.to_records` in full precision (NaN as empty / ``null``);
    JSON also carries the settings and every pairwise test.
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ranklens.errors import UnsupportedError

if TYPE_CHECKING:
    from ranklens.comparison.systems import Comparison

__all__ = ["FORMATS", "render"]

FORMATS: tuple[str, ...] = ("table", "markdown", "latex", "csv", "json")


def _best(cmp: Comparison) -> np.ndarray:
    from ranklens.render.report import _LOWER_IS_BETTER, _NO_BEST

    best = np.zeros(cmp.means.shape, dtype=bool)
    shown = np.round(cmp.means, 4)
    for j, m in enumerate(cmp.metrics):
        res = next(iter(cmp.results.values()), None)
        family = res.parsed[m].name if res is not None and m in res.parsed else ""
        col = shown[:, j]
        if family in _NO_BEST or np.isnan(col).all():
            continue
        best[:, j] = col == (np.nanmin(col) if family in _LOWER_IS_BETTER else np.nanmax(col))
    return best


def _num(v: float) -> str:
    return "NaN" if v != v else f"{v:.4f}"


def _cells(cmp: Comparison) -> tuple[list[str], list[list[tuple[str, str, str, bool]]]]:
    """Header and, per system, per metric: (mean, interval, letters, best) and W/T/L."""
    header = ["system"]
    for m in cmp.metrics:
        header.append(m)
        if cmp.baseline is not None:
            header.append(f"{m} W/T/L")
    letters = cmp.letters
    best = _best(cmp)
    rows = []
    for i, s in enumerate(cmp.systems):
        row = [(f"({letters[s]}) {s}", "", "", False)]
        for j, m in enumerate(cmp.metrics):
            beat = "".join(letters[o] for o in cmp.better_than(s, m))
            interval = f"[{_num(cmp.ci_low[i, j])}, {_num(cmp.ci_high[i, j])}]"
            row.append((_num(cmp.means[i, j]), interval, beat, bool(best[i, j])))
            if cmp.baseline is not None:
                if s == cmp.baseline:
                    row.append(("baseline", "", "", False))
                else:
                    p = cmp.pair(s, cmp.baseline, m)
                    row.append((f"{p.wins}/{p.ties}/{p.losses}", "", "", False))
        rows.append(row)
    return header, rows


def _footnote(cmp: Comparison) -> str:
    return ("Letters: significantly better than that system; " + cmp.description)


def render_table(cmp: Comparison, color: bool | None = None) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ranklens.render.report import _stdout_is_terminal

    header, rows = _cells(cmp)
    texts = [[" ".join(t for t in (c[0], c[1], c[2]) if t) for c in row] for row in rows]
    if color is None:
        color = _stdout_is_terminal()
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for k, h in enumerate(header):
        table.add_column(Text(h), justify="left" if k == 0 else "right", no_wrap=True)
    for row, text in zip(rows, texts, strict=True):
        table.add_row(*(Text(t, style="bold" if c[3] else "") for t, c in
                        zip(text, row, strict=True)))
    width = sum(max([len(h), *(len(t[k]) for t in texts)]) + 3
                for k, h in enumerate(header)) + 4
    out = io.StringIO()
    console = Console(file=out, width=max(width, 20), force_terminal=color,
                      color_system="standard" if color else None, no_color=True,
                      highlight=False, markup=False, emoji=False, soft_wrap=False)
    console.print(table)
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    return "\n".join([*lines, "", _footnote(cmp)]) + "\n"


def render_markdown(cmp: Comparison) -> str:
    header, rows = _cells(cmp)

    def cell(c: tuple[str, str, str, bool]) -> str:
        mean = f"**{c[0]}**" if c[3] else c[0]
        sup = f"<sup>{c[2]}</sup>" if c[2] else ""
        return " ".join(t for t in (mean + sup, c[1]) if t).replace("|", "\\|")

    out = ["| " + " | ".join(header) + " |",
           "| " + " | ".join([":--"] + ["--:"] * (len(header) - 1)) + " |"]
    out.extend("| " + " | ".join(cell(c) for c in row) + " |" for row in rows)
    return "\n".join([*out, "", _footnote(cmp)]) + "\n"


def render_latex(cmp: Comparison) -> str:
    from ranklens.render.report import latex_escape

    header, rows = _cells(cmp)

    def cell(c: tuple[str, str, str, bool]) -> str:
        mean = rf"\textbf{{{c[0]}}}" if c[3] else latex_escape(c[0])
        sup = f"$^{{{c[2]}}}$" if c[2] else ""
        interval = rf" {{\scriptsize {c[1]}}}" if c[1] else ""
        return mean + sup + interval

    spec = "l" + "r" * (len(header) - 1)
    note = latex_escape(_footnote(cmp))
    out = [
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in header) + r" \\",
        r"\midrule",
        *(" & ".join(cell(c) for c in row) + r" \\" for row in rows),
        r"\bottomrule",
        rf"\multicolumn{{{len(header)}}}{{l}}{{\footnotesize {note}}} \\",
        r"\end{tabular}",
    ]
    return "\n".join(out) + "\n"


def _clean(v: Any) -> Any:
    if isinstance(v, float) and v != v:
        return None
    return v


def render_json(cmp: Comparison) -> str:
    doc = {
        "systems": list(cmp.systems), "metrics": list(cmp.metrics),
        "baseline": cmp.baseline, "test": cmp.test, "correction": cmp.correction,
        "alpha": cmp.alpha, "ci": cmp.ci, "ci_level": cmp.ci_level,
        "n_resamples": cmp.n_resamples, "seed": cmp.seed, "description": cmp.description,
        "n_queries": dict(cmp.n_queries),
        "rows": [{k: _clean(v) for k, v in r.items()} for r in cmp.to_records()],
        "tests": [{k: _clean(v) for k, v in asdict(p).items()} for p in cmp.pairs],
    }
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


def render_csv(cmp: Comparison) -> str:
    import csv

    records = cmp.to_records()
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow({k: "" if v is None or (isinstance(v, float) and v != v) else
                         (repr(v) if isinstance(v, float) else v) for k, v in r.items()})
    return out.getvalue()


def render(cmp: Comparison, fmt: str = "table", color: bool | None = None) -> str:
    """Render in one of :data:`FORMATS`; the text ends with a newline."""
    if fmt not in FORMATS:
        raise UnsupportedError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    if fmt == "table":
        return render_table(cmp, color)
    fns: dict[str, Any] = {"markdown": render_markdown, "latex": render_latex,
                           "csv": render_csv, "json": render_json}
    return str(fns[fmt](cmp))
