r"""Render a :class:`~ranklens.comparison.Comparison` as text.

Formats (:data:`FORMATS`):

``table``
    a terminal table (:func:`ranklens.render.table.to_text`: wider than the
    terminal, one value per row; piped, no width limit): a row per system (with its letter), a
    column per metric holding ``mean [low, high]`` and the letters of the systems it is
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

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ranklens.render.table import LAYOUTS, Cell, Table, best_mask, json_ready, number, render_as

if TYPE_CHECKING:  # the renderer does not import the result class at runtime
    from ranklens.comparison.systems import Comparison

__all__ = ["FORMATS", "comparison_table", "render"]

FORMATS: tuple[str, ...] = (*LAYOUTS, "csv", "json")


def _families(cmp: Comparison) -> list[str]:
    res = next(iter(cmp.results.values()), None)
    return [res.parsed[m].name if res is not None and m in res.parsed else "" for m in cmp.metrics]


def comparison_table(cmp: Comparison) -> Table:
    """A row per system (with its letter); per metric ``mean [low, high]`` and the
    letters of the systems it is significantly better than (the best mean in bold)
    and, with a baseline, a ``W/T/L`` column; the test named in a note."""
    header = ["system"]
    for m in cmp.metrics:
        header.append(m)
        if cmp.baseline is not None:
            header.append(f"{m} W/T/L")
    letters = cmp.letters
    best = best_mask(cmp.means, _families(cmp))
    rows: list[list[Cell | str]] = []
    for i, s in enumerate(cmp.systems):
        row: list[Cell | str] = [f"({letters[s]}) {s}"]
        for j, m in enumerate(cmp.metrics):
            row.append(
                Cell(
                    number(cmp.means[i, j]),
                    "bold" if best[i, j] else "",
                    sup="".join(letters[o] for o in cmp.better_than(s, m)),
                    small=f"[{number(cmp.ci_low[i, j])}, {number(cmp.ci_high[i, j])}]",
                )
            )
            if cmp.baseline is not None:
                p = None if s == cmp.baseline else cmp.pair(s, cmp.baseline, m)
                row.append("baseline" if p is None else f"{p.wins}/{p.ties}/{p.losses}")
        rows.append(row)
    note = "Letters: significantly better than that system; " + cmp.description
    return Table(header, rows, notes=[note])


def _document(cmp: Comparison) -> dict[str, Any]:
    """The settings, a record per (system, metric) and every pairwise test."""
    return {
        "systems": list(cmp.systems),
        "metrics": list(cmp.metrics),
        "baseline": cmp.baseline,
        "test": cmp.test,
        "correction": cmp.correction,
        "alpha": cmp.alpha,
        "ci": cmp.ci,
        "ci_level": cmp.ci_level,
        "n_resamples": cmp.n_resamples,
        "seed": cmp.seed,
        "description": cmp.description,
        "n_queries": dict(cmp.n_queries),
        "rows": cmp.to_records(),
        "tests": [asdict(p) for p in cmp.pairs],
    }


def _records(cmp: Comparison) -> Any:
    import pyarrow as pa

    return pa.Table.from_pylist(json_ready(cmp.to_records()))  # NaN as empty


def render(cmp: Comparison, fmt: str = "table", color: bool | None = None) -> str:
    """Render in one of :data:`FORMATS`; the text ends with a newline."""
    return render_as(
        fmt,
        layout=lambda: comparison_table(cmp),
        records=lambda: _records(cmp),
        document=lambda: _document(cmp),
        color=color,
    )
