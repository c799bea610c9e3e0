"""Render an :class:`~ranklens.judging.agreement.Agreement` (and a
:class:`~ranklens.judging.ppi.PPIResult`, :func:`render_ppi`) as text.

Formats (:data:`FORMATS`):

``table`` / ``markdown`` / ``latex``
    the summary (items compared, items only one source judged, kappa and alpha
    with their intervals) as the lines before the table, and the confusion table
    (two sources: a row per grade of the first source, a column per grade of the
    second) or, for three sources or more, the per-query table.
``csv``
    one row per query: ``query, items, kappa, alpha`` in full precision.
``json``
    everything (:meth:`Agreement.to_dict`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ranklens.render.table import LAYOUTS, Table, number, render_as

if TYPE_CHECKING:  # the renderer does not import the result class at runtime
    from ranklens.judging.agreement import Agreement
    from ranklens.judging.ppi import PPIResult

__all__ = ["FORMATS", "layout", "ppi_layout", "render", "render_ppi"]

FORMATS: tuple[str, ...] = (*LAYOUTS, "csv", "json")


def _grade(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _interval(ci: tuple[float, float]) -> str:
    return f"[{number(ci[0])}, {number(ci[1])}]"


def layout(res: Agreement) -> Table:
    """The summary lines and the confusion (or per-query) table."""
    two = len(res.sources) == 2
    pct = f"{res.ci_level:.0%}"
    name = "Cohen's kappa" if two else "Fleiss' kappa"
    if two and res.weights:
        name = f"{name} ({res.weights} weights)"
    only = ", ".join(f"{n} only {s}" for s, n in res.only.items())
    pre: list[Any] = [
        f"sources: {', '.join(res.sources)}; items compared (judged by every source): "
        f"{res.compared}; {only}",
        f"{name}: {number(res.kappa)} {pct} CI {_interval(res.kappa_ci)}"
        + (f" (bootstrap over queries {_interval(res.kappa_boot_ci)})" if two else ""),
        f"Krippendorff's alpha ({res.level}): {number(res.alpha)} {pct} CI "
        f"{_interval(res.alpha_ci)}",
    ]
    notes = ["NaN: undefined (every label the same category: chance agreement is perfect)."]
    if two and res.confusion is not None:
        a, b = res.sources
        header = [f"{a} \\ {b}", *(_grade(c) for c in res.categories), "total"]
        rows: list[list[Any]] = [
            [_grade(c), *(str(int(v)) for v in row), str(int(row.sum()))]
            for c, row in zip(res.categories, res.confusion, strict=True)
        ]
        rows.append(["total", *(str(int(v)) for v in res.confusion.sum(axis=0))])
        rows[-1].append(str(int(res.confusion.sum())))
        return Table(header, rows, 1, pre, notes)
    rows = [
        [r["query"], str(r["items"]), number(r["kappa"]), number(r["alpha"])]
        for r in res.per_query()
    ]
    return Table(["query", "items", "kappa", "alpha"], rows, 1, pre, notes)


def _records(res: Agreement) -> Any:
    import pyarrow as pa

    recs = res.per_query()
    return pa.table(
        {
            "query": pa.array([r["query"] for r in recs], pa.string()),
            "items": pa.array([r["items"] for r in recs], pa.int64()),
            "kappa": pa.array([r["kappa"] for r in recs], pa.float64()),
            "alpha": pa.array([r["alpha"] for r in recs], pa.float64()),
        }
    )


def render(res: Agreement, fmt: str = "table", color: bool | None = None) -> str:
    """``res`` in one of :data:`FORMATS`."""
    return render_as(
        fmt,
        layout=lambda: layout(res),
        records=lambda: _records(res),
        document=res.to_dict,
        color=color,
    )


# --------------------------------------------------------------------------- PPI


def ppi_layout(res: PPIResult, what: str = "mean") -> Table:
    """The prediction-powered estimate and the human-labels-only one, a row each."""
    pct = f"{res.level:.0%}"
    rows: list[list[Any]] = [
        [
            f"prediction-powered (lambda {res.lam:.4g})",
            number(res.estimate),
            number(res.low),
            number(res.high),
            number(res.se),
            f"{res.effective_n:.1f}",
        ],
        [
            "human labels only",
            number(res.classical),
            number(res.classical_low),
            number(res.classical_high),
            number(res.classical_se),
            str(res.n),
        ],
    ]
    pre: list[Any] = [
        f"{what}: {res.n} queries with human and cheap labels, {res.N} with cheap labels only"
    ]
    notes = [
        f"{pct} intervals (normal); effective n: the human labels alone that would give "
        "the same standard error."
    ]
    header = [what, "estimate", "low", "high", "se", "effective n"]
    return Table(header, rows, 1, pre, notes)


def render_ppi(res: PPIResult, fmt: str = "table", what: str = "mean") -> str:
    """A :class:`~ranklens.judging.ppi.PPIResult` in one of :data:`FORMATS` (csv: one
    row with every field; json: every field)."""
    import pyarrow as pa

    doc = {"what": what, **res.to_dict()}
    return render_as(
        fmt,
        layout=lambda: ppi_layout(res, what),
        records=lambda: pa.Table.from_pylist([doc]),
        document=lambda: doc,
    )
