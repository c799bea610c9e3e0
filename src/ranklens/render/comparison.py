r"""Render a :class:`~ranklens.comparison.Comparison` as text.

Formats (:data:`FORMATS`):

``table``
    a terminal table (:func:`ranklens.render.table.to_text`: wider than the
    terminal, one value per row; piped, no width limit): a row per system (with its letter), a
    column per metric holding ``mean [low, high]`` and the letters of the systems it is
    significantly better than; with a baseline, a ``diff`` column per metric
    (``ratio`` for a geometric mean), its p-value and a ``W/T/L`` column
    (queries won, tied, lost against the baseline).  A value is the metric's own
    aggregate, as ``ranklens evaluate`` reports it; a note names the sums and
    geometric means.  The best mean of each
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

from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from ranklens.render.table import (
    LAYOUTS,
    Cell,
    Table,
    best_mask,
    json_ready,
    number,
    p_value,
    render_as,
)

if TYPE_CHECKING:  # the renderer does not import the result class at runtime
    from ranklens.comparison.systems import Comparison

__all__ = ["FORMATS", "aggregate_notes", "comparison_table", "render"]

FORMATS: tuple[str, ...] = (*LAYOUTS, "csv", "json")
_GEOMETRIC = ("gmean", "expmean")


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
            header += [f"{m} {_contrast(cmp, m)}", f"{m} p", f"{m} W/T/L"]
    letters = cmp.letters
    best = best_mask(cmp.means, _families(cmp))
    rows: list[list[Cell | str]] = []
    for i, s in enumerate(cmp.systems):
        row: list[Cell | str] = [f"({letters[s]}) {s}"]
        for j, m in enumerate(cmp.metrics):
            row.append(
                Cell(
                    number(cmp.means[i, j], integer=cmp.aggregates.get(m) == "sum"),
                    "bold" if best[i, j] else "",
                    sup="".join(letters[o] for o in cmp.better_than(s, m)),
                    small=f"[{number(cmp.ci_low[i, j])}, {number(cmp.ci_high[i, j])}]",
                )
            )
            if cmp.baseline is not None:
                p = None if s == cmp.baseline else cmp.pair(s, cmp.baseline, m)
                if p is None:
                    row += ["", "", "baseline"]
                else:
                    diff = (
                        "NaN"
                        if p.mean_diff != p.mean_diff
                        else (
                            f"{p.mean_diff:.4f}" if p.contrast == "ratio" else f"{p.mean_diff:+.4f}"
                        )
                    )
                    row += [diff, p_value(p.p_adjusted), f"{p.wins}/{p.ties}/{p.losses}"]
        rows.append(row)
    notes = ["Letters: significantly better than that system; " + cmp.description]
    notes += aggregate_notes(cmp.aggregates)
    if cmp.baseline is not None:
        adjusted = "" if len(cmp.pairs) < 2 or cmp.correction == "none" else " (adjusted)"
        ratio = (
            "; ratio: the geometric mean over the baseline's (1 is no change)"
            if any(_contrast(cmp, m) == "ratio" for m in cmp.metrics)
            else ""
        )
        means_only = all(cmp.aggregates.get(m, "mean").startswith("mean") for m in cmp.metrics)
        notes.append(
            f"diff: {'mean ' if means_only else ''}difference from the baseline "
            f"({letters[cmp.baseline]}) "
            f"{cmp.baseline}{ratio}; p: the test's p-value{adjusted}; W/T/L: queries won, "
            "tied and lost against the baseline."
        )
    return Table(header, rows, notes=notes)


def _contrast(cmp: Comparison, metric: str) -> str:
    """The header word of ``metric``'s contrast with the baseline: ``diff`` or ``ratio``."""
    return "ratio" if cmp.aggregates.get(metric, "mean") in _GEOMETRIC else "diff"


def aggregate_notes(aggregates: Mapping[str, str]) -> list[str]:
    """Notes naming the metrics whose value is not a mean, from ``{metric: aggregate}``
    (``Result.aggregation``'s names): the sums and the geometric means, as ``ranklens
    evaluate`` reports them, and the scale their intervals and tests are on."""
    sums = [m for m, how in aggregates.items() if how.removesuffix("+nan") == "sum"]
    geo = [m for m, how in aggregates.items() if how.removesuffix("+nan") in _GEOMETRIC]
    notes = []
    if sums:
        notes.append(
            f"Sums over the queries: {', '.join(sums)} (intervals and differences are of "
            "the sums, n times the per-query mean's)."
        )
    if geo:
        notes.append(
            f"Geometric means: {', '.join(geo)} (intervals and tests on the per-query "
            "logarithms, values floored at 1e-5 as trec_eval does; compared as ratios)."
        )
    return notes


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
