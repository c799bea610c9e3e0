"""The chart sections of the HTML report (:mod:`ranklens.render.html`), drawn as
inline SVG by :mod:`ranklens.render.svg`: metric@k curves
(:func:`ranklens.evaluate_cutoffs`), precision-recall curves
(:func:`ranklens.precision_recall_curve`), distributions of per-query values
and of run scores, and the trend of stored records over time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from html import escape
from typing import Any

import numpy as np

from ranklens.errors import UnsupportedError
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result
from ranklens.render import svg
from ranklens.render.table import number

__all__ = ["Charts", "System", "TrendPoint", "grid", "trend_section", "wide"]

#: One stored record of a metric: (time, run name, value, record id).
TrendPoint = tuple[datetime, str, float, int]
_BINS = 20


@dataclass
class System:
    """One run of the report: its name, its evaluation and its ranking (None for a
    stored result)."""

    name: str
    result: Result
    run: Run | None


@dataclass
class Charts:
    """The chart sections; the ones that need a ranking use the runs given as Runs."""

    qrels: Qrels | None
    systems: list[System]
    metrics: list[str]
    max_k: int | None
    conventions: dict[str, Any]

    def _ranked(self) -> list[tuple[int, System]]:
        return [
            (i, s)
            for i, s in enumerate(self.systems)
            if s.run is not None and self.qrels is not None
        ]

    def _none(self, what: str) -> str:
        return (
            f'<p class="rl-note">No {what}: every run was given as a stored result, '
            "which keeps per-query values but not the rankings.</p>"
        )

    def cutoffs(self) -> str:
        from ranklens.metrics import get_metric
        from ranklens.ranking.cutoffs import CUTOFF_FAMILIES, evaluate_cutoffs
        from ranklens.render.plots import _longest

        ranked = self._ranked()
        if not ranked:
            return self._none("metric@k curves")
        families: list[str] = []
        ks = [20 if self.max_k is None else self.max_k]
        for m in self.metrics:
            parsed = get_metric(m)
            if parsed.name in CUTOFF_FAMILIES:
                fam = str(replace(parsed, k=None))
                if fam not in families:
                    families.append(fam)
                if self.max_k is None and isinstance(parsed.k, int):
                    ks.append(parsed.k)
        if not families:
            return '<p class="rl-note">None of the metrics takes a cutoff k.</p>'
        longest = max(_longest(s.run) for _, s in ranked if s.run is not None)
        k = max(1, min(max(ks), longest))
        curves = {
            i: evaluate_cutoffs(
                self.qrels,  # type: ignore[arg-type]  # not None in _ranked()
                s.run,  # type: ignore[arg-type]
                families,
                k,
                **self.conventions,
            )
            for i, s in ranked
        }
        charts = []
        for fam in families:
            series = [
                svg.Series(
                    self.systems[i].name,
                    c.ks,
                    c.curve(fam),
                    markers=k <= 30,
                    color=i,
                    tips=[
                        f"{self.systems[i].name}: {fam}@{kk} = {number(v)}"
                        for kk, v in zip(c.ks.tolist(), c.curve(fam).tolist(), strict=True)
                    ],
                )
                for i, c in curves.items()
            ]
            charts.append(
                svg.line_chart(
                    series,
                    title=f"{fam}@k",
                    x_label="cutoff k",
                    y_label=f"mean {fam}@k",
                    x_range=(1, max(k, 2)),
                )
            )
        return grid(charts)

    def precision_recall(self) -> str:
        from ranklens.ranking.cutoffs import precision_recall_curve
        from ranklens.render.plots import _raw_pr

        ranked = self._ranked()
        if not ranked:
            return self._none("precision-recall curves")
        series = []
        depth = 0
        for i, s in ranked:
            try:
                cur = precision_recall_curve(
                    self.qrels,  # type: ignore[arg-type]  # not None in _ranked()
                    s.run,  # type: ignore[arg-type]
                    **self.conventions,
                )
            except UnsupportedError as exc:
                return f'<p class="rl-note">No precision-recall curves: {escape(str(exc))}</p>'
            mean = cur.mean_interpolated
            series.append(
                svg.Series(
                    s.name,
                    cur.levels,
                    mean,
                    markers=True,
                    color=i,
                    tips=[
                        f"{s.name}: precision {number(p)} at recall {r:.1f}"
                        for r, p in zip(cur.levels.tolist(), mean.tolist(), strict=True)
                    ],
                )
            )
            if cur.rank.size:
                ranks = int(min(cur.rank.max(), max(self.max_k or 100, 100)))
                depth = max(depth, ranks)
                rec, prec = _raw_pr(cur, len(cur.query_ids), ranks)
                series.append(svg.Series(s.name, rec, prec, dashed=True, color=i, legend=False))
        chart = svg.line_chart(
            series,
            title="precision-recall",
            x_label="recall",
            y_label="precision",
            x_range=(0, 1),
            y_range=(0, 1),
            width=760,
            height=400,
        )
        note = (
            '<p class="rl-note">Solid, with points: mean interpolated precision at '
            "recall 0.0, 0.1, ..., 1.0 (trec_eval's iprec_at_recall); dashed: mean "
            f"recall and mean precision after each rank 1 to {depth}.</p>"
        )
        return wide([chart]) + note

    def distributions(self) -> str:
        """A histogram of per-query values per metric, and of the run scores."""
        parts = []
        for m in self.metrics:
            vals = [np.asarray(s.result.values[m], dtype=np.float64) for s in self.systems]
            vals = [v[np.isfinite(v)] for v in vals]
            if not any(v.size for v in vals):
                continue
            lo = min(float(v.min()) for v in vals if v.size)
            hi = max(float(v.max()) for v in vals if v.size)
            rng = self.systems[0].result.parsed[m].definition.range
            if rng is not None and np.isfinite(rng).all() and rng[0] <= lo and hi <= rng[1]:
                lo, hi = rng
            edges = np.linspace(lo, hi if hi > lo else lo + 1.0, _BINS + 1)
            series = [
                svg.step_series(s.name, edges, np.histogram(v, edges)[0], color=i)
                for i, (s, v) in enumerate(zip(self.systems, vals, strict=True))
            ]
            parts.append(
                svg.line_chart(
                    series,
                    title=f"per-query {m}",
                    x_label=m,
                    y_label="queries",
                    x_range=(edges[0], edges[-1]),
                )
            )
        scores = []
        for i, s in enumerate(self.systems):
            if s.run is None or not len(s.run):
                continue
            v = s.run.scores
            lo, hi = float(v.min()), float(v.max())
            edges = np.linspace(lo, hi if hi > lo else lo + 1.0, _BINS + 1)
            scores.append(
                svg.line_chart(
                    [svg.step_series(s.name, edges, np.histogram(v, edges)[0], color=i)],
                    title=f"scores of {s.name}",
                    x_label="score",
                    y_label="documents",
                    x_range=(edges[0], edges[-1]),
                )
            )
        return grid(parts) + ("<h3>Run scores</h3>" + grid(scores) if scores else "")


def grid(items: Sequence[str]) -> str:
    return '<div class="rl-grid">' + "".join(f"<figure>{c}</figure>" for c in items) + "</div>"


def wide(items: Sequence[str]) -> str:
    return "".join(f'<figure class="rl-wide">{c}</figure>' for c in items)


# ------------------------------------------------------------------------- history


def trend_section(trend: Mapping[str, list[TrendPoint]], runs: Sequence[str] = ()) -> str:
    """A chart per metric of its stored values over time, a line per run name; a run
    of the report (``runs``) keeps its colour."""
    charts = []
    for metric, points in trend.items():
        if not points:
            continue
        points = sorted(points, key=lambda p: (p[0].timestamp(), p[3]))
        times = np.array([p[0].timestamp() for p in points])
        lo, hi = float(times.min()), float(times.max())
        span = hi - lo
        fmt = "%Y-%m-%d" if span > 3 * 86400 else "%Y-%m-%d %H:%M"
        ticks = (
            [
                (
                    lo + span * i / 4,
                    datetime.fromtimestamp(lo + span * i / 4, points[0][0].tzinfo).strftime(fmt),
                )
                for i in range(5)
            ]
            if span
            else [(lo, points[0][0].strftime(fmt))]
        )
        names = list(dict.fromkeys(p[1] for p in points))
        others = [n for n in names if n not in runs]
        series = []
        for name in names:
            i = list(runs).index(name) if name in runs else len(runs) + others.index(name)
            mine = [(t, p) for t, p in zip(times.tolist(), points, strict=True) if p[1] == name]
            series.append(
                svg.Series(
                    name,
                    [t for t, _ in mine],
                    [p[2] for _, p in mine],
                    markers=True,
                    color=i,
                    tips=[
                        f"{name}: {metric} = {number(p[2])} on "
                        f"{p[0].isoformat(sep=' ', timespec='minutes')} (record {p[3]})"
                        for _, p in mine
                    ],
                )
            )
        charts.append(
            svg.line_chart(
                series,
                title=f"{metric} over time",
                x_label="time",
                y_label=metric,
                x_ticks=ticks,
                x_range=(lo, hi) if span else (lo - 1, lo + 1),
                width=760,
            )
        )
    return wide(charts) if charts else '<p class="rl-note">No stored record.</p>'
