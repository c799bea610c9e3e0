"""Inline SVG charts for the HTML report (:mod:`ranklens.render.html`).

Plain Python and NumPy, no plotting library: the report is drawn on the base
install.  Every chart is one ``<svg>`` element (scalable, ``viewBox``), its
text shown with :func:`~ranklens.render.table.display_id` and escaped with
:func:`html.escape`; colours are presentation attributes,
never ``style`` attributes, so that the report's Content-Security-Policy needs
no ``'unsafe-inline'`` for styles.

- :func:`line_chart`: lines (solid or dashed, with or without point markers)
  over a numeric axis or a time axis, with a legend; each marker carries a
  tooltip (``<title>``).
- :func:`step_series`: the outline of a histogram as a series.
- :func:`nice_ticks`: round tick values for an axis.

    >>> svg = line_chart([Series("bm25", [1, 2, 3], [0.2, 0.4, 0.5], markers=True)],
    ...                  title="P@k", x_label="k", y_label="mean P@k")
    >>> svg.startswith("<svg") and svg.count("<circle") == 3
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np

from ranklens.render.plots import _short
from ranklens.render.table import display_id

__all__ = ["PALETTE", "Series", "line_chart", "nice_ticks", "step_series"]

#: Line colours (Okabe & Ito's colour-blind safe set, yellow left out); series past
#: the last colour take the first again with a dashed line.
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999")
_DASHES = ("", "6 3", "2 3", "8 3 2 3")
_CHAR = 7.4  # average width of a 12px sans-serif character, for layout only


@dataclass(frozen=True)
class Series:
    """One line: ``x`` and ``y`` values (NaN breaks the line), drawn ``dashed`` or
    not, with point ``markers`` (each with its tooltip from ``tips``), in the
    palette's colour number ``color`` (default: its place in the chart)."""

    name: str
    x: Sequence[float] | np.ndarray
    y: Sequence[float] | np.ndarray
    dashed: bool = False
    markers: bool = False
    color: int | None = None
    tips: Sequence[str] | None = field(default=None, repr=False)
    legend: bool = True


def _text(text: str) -> str:
    """Text from the data as SVG text: control characters shown, ``<`` and ``&`` escaped."""
    return escape(display_id(text))


def step_series(name: str, edges: np.ndarray, counts: np.ndarray, **kw: Any) -> Series:
    """A histogram's outline (``edges``: bins + 1 values) as a series of steps."""
    x = np.repeat(np.asarray(edges, dtype=np.float64), 2)[1:-1]
    y = np.repeat(np.asarray(counts, dtype=np.float64), 2)
    return Series(name, x, y, **kw)


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round values (steps of 1, 2 or 5 times a power of ten) covering
    [lo, hi].

    >>> nice_ticks(0.0, 0.83)
    [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0, 1.0]
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    raw = (hi - lo) / max(n, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= raw)
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(first, last + 1)]


def _label(value: float, step: float) -> str:
    """A tick label with as many decimals as the step needs."""
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
    return f"{value:.{decimals}f}"


def _finite_range(values: list[np.ndarray]) -> tuple[float, float]:
    finite = [v[np.isfinite(v)] for v in values]
    finite = [v for v in finite if v.size]
    if not finite:
        return 0.0, 1.0
    return float(min(v.min() for v in finite)), float(max(v.max() for v in finite))


def _clamp(lo: float, hi: float, bounds: tuple[float, float]) -> tuple[float, float]:
    """``[lo, hi]`` cut to ``bounds`` (infinite bounds cut nothing); an axis left
    empty (every value at a bound) takes the bound's side of a unit."""
    b_lo, b_hi = float(bounds[0]), float(bounds[1])
    lo, hi = max(lo, b_lo), min(hi, b_hi)
    if hi <= lo:
        if math.isfinite(b_hi) and lo >= b_hi:
            lo = max(b_lo, b_hi - 1.0) if math.isfinite(b_lo) else b_hi - 1.0
            hi = b_hi
        else:
            hi = min(b_hi, lo + 1.0)
    return lo, hi


def _path(px: np.ndarray, py: np.ndarray) -> str:
    """An SVG path through the points; a NaN starts a new piece."""
    parts: list[str] = []
    pen_up = True
    for x, y in zip(px.tolist(), py.tolist(), strict=True):
        if not (math.isfinite(x) and math.isfinite(y)):
            pen_up = True
            continue
        parts.append(f"{'M' if pen_up else 'L'}{x:.1f},{y:.1f}")
        pen_up = False
    return "".join(parts)


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    x_ticks: Sequence[tuple[float, str]] | None = None,
    y_bounds: tuple[float, float] | None = None,
    width: int = 640,
    height: int = 340,
) -> str:
    """One chart as an ``<svg>`` element: axes with round ticks (``x_ticks`` gives
    the x ticks as (value, label) pairs, for a time axis), a grid, every series
    and a legend on the right.  ``x_range`` / ``y_range`` fix an axis (default:
    the data's range, rounded out to ticks); ``y_bounds`` is the range the values
    can take (a metric's declared range, e.g. [0, 1]): the y axis never reaches
    beyond it, however it is rounded out."""
    xs = [np.asarray(s.x, dtype=np.float64) for s in series]
    ys = [np.asarray(s.y, dtype=np.float64) for s in series]
    shown = [s for s in series if s.legend]
    legend_w = 0 if not shown else int(min(220, 34 + _CHAR * max(len(s.name) for s in shown)))
    left, right, top, bottom = 62, 14 + legend_w, 30, 46
    pw, ph = width - left - right, height - top - bottom

    y_lo, y_hi = y_range if y_range is not None else _finite_range(ys)
    yt = nice_ticks(y_lo, y_hi)
    if y_range is None:
        y_lo, y_hi = yt[0], yt[-1]
        if y_bounds is not None:  # rounded out, but not past what the values can be
            y_lo, y_hi = _clamp(y_lo, y_hi, y_bounds)
    yt = [t for t in yt if y_lo - 1e-9 <= t <= y_hi + 1e-9] or [y_lo, y_hi]
    x_lo, x_hi = x_range if x_range is not None else _finite_range(xs)
    if x_hi <= x_lo:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    if x_ticks is None:
        xt = [t for t in nice_ticks(x_lo, x_hi, 6) if x_lo - 1e-9 <= t <= x_hi + 1e-9]
        step = xt[1] - xt[0] if len(xt) > 1 else 1.0
        x_ticks = [(t, _label(t, step)) for t in xt]
    y_step = yt[1] - yt[0] if len(yt) > 1 else 1.0
    if y_hi <= y_lo:
        y_lo, y_hi = y_lo - 0.5, y_hi + 0.5

    def sx(v: Any) -> Any:  # a value or an array, in data units -> pixels
        return left + (v - x_lo) / (x_hi - x_lo) * pw

    def sy(v: Any) -> Any:
        return top + ph - (v - y_lo) / (y_hi - y_lo) * ph

    out = [
        f'<svg class="rl-chart" viewBox="0 0 {width} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{_text(title)}</title>',
        f'<text class="rl-chart-title" x="{left}" y="18">{_text(title)}</text>',
        '<g class="rl-gridlines">',
    ]
    for t in yt:
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{sy(t):.1f}" y2="{sy(t):.1f}"/>')
    out.append("</g>")
    out.append(
        f'<g class="rl-axis"><line x1="{left}" x2="{left + pw}" y1="{top + ph}" '
        f'y2="{top + ph}"/><line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}"/>'
    )
    for t in yt:
        out.append(
            f'<text x="{left - 6}" y="{sy(t) + 4:.1f}" text-anchor="end">'
            f"{_text(_label(t, y_step))}</text>"
        )
    for value, text in x_ticks:
        px = sx(value)
        out.append(
            f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{top + ph}" y2="{top + ph + 4}"/>'
            f'<text x="{px:.1f}" y="{top + ph + 17}" text-anchor="middle">'
            f"{_text(text)}</text>"
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 8}" text-anchor="middle">'
        f"{_text(x_label)}</text>"
    )
    out.append(
        f'<text transform="translate(14,{top + ph / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{_text(y_label)}</text></g>'
    )
    for i, (s, x, y) in enumerate(zip(series, xs, ys, strict=True)):
        color, dash = _look(s, i)
        px, py = np.asarray(sx(x)), np.asarray(sy(y))
        attrs = f'stroke="{color}"' + (f' stroke-dasharray="{dash}"' if dash else "")
        out.append(
            f'<g class="rl-series" data-series="{_text(s.name)}">'
            f'<path class="rl-line" fill="none" {attrs} d="{_path(px, py)}"/>'
        )
        if s.markers:
            tips = s.tips or [f"{s.name}: {a:g}, {b:.4f}" for a, b in zip(x, y, strict=True)]
            for a, b, tip in zip(px.tolist(), py.tolist(), tips, strict=True):
                if math.isfinite(a) and math.isfinite(b):
                    out.append(
                        f'<circle class="rl-point" cx="{a:.1f}" cy="{b:.1f}" r="3" '
                        f'fill="{color}"><title>{_text(tip)}</title></circle>'
                    )
        out.append("</g>")
    out.append(_legend(series, left + pw + 14, top))
    out.append("</svg>")
    return "".join(out)


def _look(s: Series, i: int) -> tuple[str, str]:
    """A series' colour and dash pattern."""
    n = i if s.color is None else s.color
    dash = _DASHES[(n // len(PALETTE)) % len(_DASHES)]
    if s.dashed and not dash:
        dash = "6 3"
    return PALETTE[n % len(PALETTE)], dash


def _legend(series: Sequence[Series], x: float, y: float) -> str:
    out = ['<g class="rl-legend">']
    row = 0
    for i, s in enumerate(series):
        if not s.legend:
            continue
        color, dash = _look(s, i)
        top = y + 18 * row
        name = _short(s.name, 26)  # as the matplotlib charts shorten it
        attrs = f'stroke="{color}"' + (f' stroke-dasharray="{dash}"' if dash else "")
        out.append(
            f'<line x1="{x:.1f}" x2="{x + 22:.1f}" y1="{top + 6:.1f}" y2="{top + 6:.1f}" '
            f'{attrs}/><text x="{x + 28:.1f}" y="{top + 10:.1f}">{_text(name)}'
            f"<title>{_text(s.name)}</title></text>"
        )
        row += 1
    out.append("</g>")
    return "".join(out)
