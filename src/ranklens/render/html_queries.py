"""The per-query section of the HTML report (:mod:`ranklens.render.html`): the
data of a sortable, filterable table (drawn by the page's script, a page at a
time) and the biggest wins and losses against the baseline.

The data travel as JSON inside ``<script type="application/json">``, made safe
by :func:`script_json`; values as :func:`~ranklens.render.table.number` prints
them, so that the script shows exactly what every ranklens table shows.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

import numpy as np

from ranklens.render.html_charts import System
from ranklens.render.table import Table, display_id, number, to_html

__all__ = ["per_query_section", "script_json"]

_TOP = 10  # rows of the biggest wins / losses tables


def _aligned(
    systems: list[System], metrics: list[str]
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Every query id of any run (sorted), which run has which query, and every
    metric's values as (runs x queries) (NaN where a run lacks the query)."""
    ids = [np.asarray(s.result.query_ids, dtype=object) for s in systems]
    union, inverse = np.unique(
        np.concatenate(ids) if ids else np.zeros(0, object), return_inverse=True
    )
    where = np.split(inverse.reshape(-1), np.cumsum([len(i) for i in ids])[:-1])
    present = np.zeros((len(systems), union.size), dtype=bool)
    values = {m: np.full((len(systems), union.size), np.nan) for m in metrics}
    for r, (s, pos) in enumerate(zip(systems, where, strict=True)):
        present[r, pos] = True
        for m in metrics:
            values[m][r, pos] = np.asarray(s.result.values[m], dtype=np.float64)
    return union, present, values


def _shown(values: np.ndarray, present: np.ndarray) -> list[Any]:
    """Values for the page's data: as :func:`number` prints them (a JSON number the
    script prints back with four decimals), ``"NaN"`` when undefined, null when
    the run lacks the query."""
    return [
        None if not p else float(t) if t != "NaN" and "inf" not in t else t
        for t, p in zip(map(number, values.tolist()), present.tolist(), strict=True)
    ]


def per_query_section(systems: list[System], metrics: list[str], cmp: Any) -> str:
    """The controls and the empty table the page's script fills, the data as JSON
    (query ids, every run's values, differences from the baseline and their outcome:
    ``w``/``l``/``t`` as compare counts wins, losses and ties, ``-`` where either
    value is missing or undefined), and the biggest wins and losses of every run on
    every metric (``cmp`` is the :class:`~ranklens.Comparison`, None for one run)."""
    from ranklens.comparison.scales import scale_of
    from ranklens.comparison.systems import TIE_TOLERANCE

    union, present, values = _aligned(systems, metrics)
    base = None if cmp is None else [s.name for s in systems].index(cmp.baseline)
    data: dict[str, Any] = {
        "queries": [display_id(str(q)) for q in union.tolist()],
        "runs": [display_id(s.name) for s in systems],
        "baseline": base,
        "metrics": [display_id(m) for m in metrics],
        "values": [],
        "deltas": [],
        "outcomes": [],
    }
    tops = []
    for m in metrics:
        data["values"].append([_shown(values[m][r], present[r]) for r in range(len(systems))])
        deltas: list[Any] = []
        outcomes: list[Any] = []
        for r, s in enumerate(systems):
            if base is None or r == base:
                deltas.append(None)
                outcomes.append(None)
                continue
            both = present[r] & present[base]
            d = values[m][r] - values[m][base]
            deltas.append(_shown(d, both))
            # counted on the terms compare tests (a geometric mean's floored logarithms)
            sc = scale_of(cmp.aggregates.get(m, "mean"))
            t = sc.per_query(values[m][r]) - sc.per_query(values[m][base])
            code = np.where(t > TIE_TOLERANCE, "w", np.where(t < -TIE_TOLERANCE, "l", "t"))
            outcomes.append("".join(np.where(both & ~np.isnan(d), code, "-").tolist()))
            tops.append(
                (
                    m,
                    s.name,
                    _wins_losses(
                        union, values[m][base], values[m][r], d, both, systems[base].name, s.name
                    ),
                )
            )
        data["deltas"].append(deltas)
        data["outcomes"].append(outcomes)
    filters = ""
    if base is not None:
        options = "".join(
            f'<option value="{o}:{r}">{word} of {escape(display_id(s.name))}</option>'
            for r, s in enumerate(systems)
            if r != base
            for o, word in (("w", "wins"), ("l", "losses"), ("t", "ties"))
        )
        filters = (
            ' <label>outcome vs baseline <select id="rl-outcome"><option value="">'
            f"all queries</option>{options}</select></label>"
        )
    metric_options = "".join(
        f'<option value="{i}">{escape(display_id(m))}</option>' for i, m in enumerate(metrics)
    )
    table = (
        '<div class="rl-controls"><label>metric <select id="rl-metric">'
        f'{metric_options}</select></label> <label>query id contains <input id="rl-filter" '
        f'type="search" autocomplete="off"></label>{filters} <label>rows per page '
        '<select id="rl-page-size"><option>25</option><option selected>50</option>'
        "<option>100</option><option>500</option></select></label></div>"
        '<table id="rl-queries" class="rl-table rl-sortable"><thead><tr></tr></thead>'
        '<tbody></tbody></table><div class="rl-pager"><button type="button" id="rl-prev">'
        'previous</button> <span id="rl-status" aria-live="polite"></span> '
        '<button type="button" id="rl-next">next</button></div>'
        "<noscript><p>The per-query table needs JavaScript.</p></noscript>"
        '<p class="rl-note">Click a column heading to sort by it (again to reverse); '
        "queries a run lacks show as —. Values to four decimals, as in every ranklens "
        "table; <code>ranklens evaluate --per-query --format csv</code> gives them in "
        "full.</p>"
    )
    script = f'<script type="application/json" id="rl-data">{script_json(data)}</script>'
    wins = ""
    if tops:
        wins = "<h3>Biggest wins and losses against the baseline</h3>" + "".join(
            f"<details{' open' if i == 0 else ''}><summary>{escape(display_id(name))}: "
            f"{escape(display_id(m))}</summary>{html}</details>"
            for i, (m, name, html) in enumerate(tops)
        )
    return table + script + wins


def _wins_losses(
    ids: np.ndarray,
    base: np.ndarray,
    run: np.ndarray,
    d: np.ndarray,
    both: np.ndarray,
    base_name: str,
    name: str,
) -> str:
    """The queries ``run`` gains most and loses most on against ``base``."""
    from ranklens.comparison.systems import TIE_TOLERANCE

    ok = np.flatnonzero(both & ~np.isnan(d))  # equal differences: in query id order
    wins = [
        i for i in ok[np.argsort(-d[ok], kind="stable")][:_TOP].tolist() if d[i] > TIE_TOLERANCE
    ]
    losses = [
        i for i in ok[np.argsort(d[ok], kind="stable")][:_TOP].tolist() if d[i] < -TIE_TOLERANCE
    ]

    def table(rows: list[int], what: str) -> str:
        if not rows:
            return f'<p class="rl-note">No {what}.</p>'
        return to_html(
            Table(
                ["query", base_name, name, "difference"],
                [[str(ids[i]), number(base[i]), number(run[i]), number(d[i])] for i in rows],
            )
        )

    return (
        '<div class="rl-pair"><div><h4>wins</h4>'
        + table(wins, "wins")
        + "</div><div><h4>losses</h4>"
        + table(losses, "losses")
        + "</div></div>"
    )


def script_json(data: Any) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` (and the two line
    separators) as ``\\u`` escapes, so that no text can close the element."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for ch, esc in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(ch, esc)
    return text
