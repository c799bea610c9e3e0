"""Render an interleaving analysis (:class:`~ranklens.online.interleaving.InterleavingAnalysis`)
as text.

Formats (:data:`FORMATS`): ``table``, ``markdown`` and ``latex`` (one row per pair of
rankers: units, wins / ties / losses, the preference Delta with its interval, the sign
test's p-value raw and adjusted, and the preferred ranker when significant; values keep
four significant digits), ``csv`` (:meth:`InterleavingAnalysis.to_arrow`, full
precision) and ``json`` (:meth:`InterleavingAnalysis.to_dict`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.render.table import LAYOUTS, Cell, Table, p_value, render_as, significant

if TYPE_CHECKING:  # the renderer does not import the result class at runtime
    from ranklens.online.interleaving import InterleavingAnalysis

__all__ = ["FORMATS", "interleaving_table", "render"]

FORMATS: tuple[str, ...] = (*LAYOUTS, "csv", "json")


def interleaving_table(result: InterleavingAnalysis) -> Table:
    """One row per pair of rankers; the settings before the table."""
    header = ["A", "B", "units", "wins", "ties", "losses", "delta [CI]", "p", "p adj.", "winner"]
    rows: list[list[Cell | str]] = [
        [
            p.a,
            p.b,
            f"{p.units}",
            f"{p.wins}",
            f"{p.ties}",
            f"{p.losses}",
            f"{significant(p.delta)} [{significant(p.ci_low)}, {significant(p.ci_high)}]",
            p_value(p.p_value),
            p_value(p.p_adjusted),
            p.winner or "-",
        ]
        for p in result.pairs
    ]
    settings = (
        f"{result.method} interleaving, units: {result.by}, {result.clicked_impressions} of "
        f"{result.impressions} impressions with clicks; alpha = {result.alpha:g}, "
        f"{result.ci} interval, sign test, correction = {result.correction}"
    )
    return Table(header, rows, n_labels=2, preamble=[settings])


def render(result: InterleavingAnalysis, fmt: str = "table", color: bool | None = None) -> str:
    """Render in one of :data:`FORMATS`; the text ends with a newline."""
    return render_as(
        fmt,
        layout=lambda: interleaving_table(result),
        records=result.to_arrow,
        document=result.to_dict,
        color=color,
    )
