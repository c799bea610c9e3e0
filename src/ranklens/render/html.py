"""One self-contained HTML report of several runs (``ranklens report``).

:func:`html_report` evaluates the runs (or takes stored :class:`~ranklens.Result`
objects), compares them with :func:`ranklens.compare` and writes one HTML file
that works offline: every style, script and chart is inside it, and a strict
Content-Security-Policy forbids any request at all.  Sections:

- **Summary**: mean and confidence interval of every metric for every run, the
  letters of the runs it is significantly better than, wins/ties/losses
  against the baseline, and every paired test (difference with its interval,
  relative change, p-value before and after the correction).
- **Metric at k**: ``metric@k`` for k = 1..K (:func:`ranklens.evaluate_cutoffs`),
  one chart per metric family.
- **Precision-recall**: interpolated (trec_eval's 11 points) and raw curves
  (:func:`ranklens.precision_recall_curve`).
- **Per query**: every query's values, sortable by any column, filtered by
  query id and by outcome against the baseline, a page at a time (the data
  travel as JSON; the table is drawn by a small script); the biggest wins and
  losses against the baseline.
- **Distributions**: per-query values of each metric, and the run scores.
- **History**: a metric's trend over stored records, when given.
- **Conventions and provenance**: ranklens version, inputs, the comparison's
  settings, every convention and every count of :attr:`Result.report`.

Values are shown as every table shows them (:func:`~ranklens.render.table.number`:
four decimals); ids and names from the data are shown with
:func:`~ranklens.render.table.display_id` and escaped, so a query id such as
``<script>`` is text.  Charts are inline SVG (:mod:`ranklens.render.svg`): no
plotting library is needed.

Why the policy is ``script-src`` / ``style-src`` with SHA-256 hashes rather than
``'unsafe-inline'``: the report shows text from its inputs, and with hashes
the browser runs only the one script and the one style sheet written here,
even if some id ever slipped past the escaping.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime, timezone
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ranklens.errors import InputError, OutputPathError, UnsupportedError
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result
from ranklens.render import svg
from ranklens.render.table import (
    Cell,
    Table,
    display_id,
    number,
    p_value,
    percent,
    to_html,
)

__all__ = ["TrendPoint", "html_report"]

#: One stored record of a metric: (time, run name, value, record id).
TrendPoint = tuple[datetime, str, float, int]
_TOP = 10  # rows of the biggest wins / losses tables
_BINS = 20


@dataclass
class _System:
    """One run of the report: its name, its evaluation and its ranking (None for a
    stored result)."""

    name: str
    result: Result
    run: Run | None


# ------------------------------------------------------------------------- entry point


def html_report(
    qrels: Qrels | None,
    runs: Mapping[str, Run | Result] | Sequence[Run | Result],
    metrics: Sequence[str] | str | None = None,
    *,
    baseline: str | None = None,
    path: str | os.PathLike[str] | None = None,
    title: str = "ranklens report",
    trend: Mapping[str, Sequence[TrendPoint]] | None = None,
    provenance: Mapping[str, str] | None = None,
    max_k: int | None = None,
    test: str = "randomization",
    correction: str = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | np.random.Generator | None = None,
    ci: str = "t",
    **conventions: Any,
) -> str:
    """An HTML report of ``runs`` on ``qrels``; returned, and written to ``path``.

    Parameters
    ----------
    qrels, runs, metrics:
        As for :func:`ranklens.compare`: ``runs`` maps names to
        :class:`~ranklens.Run` (evaluated here under ``conventions``, e.g.
        ``profile="ranx"``) or to stored :class:`~ranklens.Result` objects
        (``qrels`` may then be None; their charts that need the ranking are
        left out).  One run is enough (no tests then).
    baseline:
        The run the others are tested against (default: the first).
    path:
        Where to write the report (UTF-8).
    title:
        The page's title.
    trend:
        ``{metric: [(time, run name, value, record id), ...]}``, e.g. the
        records of a results history; each metric gets a chart.
    provenance:
        Lines for the provenance section, ``{label: text}`` (the input files).
    max_k:
        The largest k of the metric@k charts (default: the largest cutoff of
        ``metrics``, at least 20; never beyond the longest ranking).
    test, correction, alpha, n_resamples, seed, ci:
        The paired tests and intervals, as for :func:`ranklens.compare`.

    >>> import ranklens
    >>> from ranklens.render.html import html_report
    >>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}})
    >>> run = ranklens.Run.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d1": 2, "d2": 1}})
    >>> page = html_report(qrels, {"bm25": run}, ["p@1"])
    >>> page.startswith("<!DOCTYPE html>") and "0.5000" in page
    True
    """
    from ranklens.comparison import compare

    out = _check_path(path)
    trend = _check_trend(trend)
    inputs = _inputs(runs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if len(inputs) > 1:
            cmp = compare(qrels, dict(inputs), metrics, baseline=baseline or inputs[0][0],
                          test=test, correction=correction, alpha=alpha,
                          n_resamples=n_resamples, seed=seed, ci=ci, **conventions)
            systems = [_System(n, cmp.results[n], r if isinstance(r, Run) else None)
                       for n, r in inputs]
            names = list(cmp.metrics)
            summary = _summary_compared(cmp)
            settings = cmp.description
        else:
            cmp = None
            systems, names = _single(qrels, inputs[0], metrics, baseline, conventions)
            summary, settings = _summary_single(systems[0], names, ci, alpha, n_resamples,
                                                seed)
        charts = _Charts(qrels, systems, names, max_k, conventions)
        body = [
            _section("summary", "Summary", summary),
            _section("cutoffs", "Metric at k", charts.cutoffs()),
            _section("pr", "Precision-recall", charts.precision_recall()),
            _section("queries", "Per query", _per_query_section(systems, names, cmp)),
            _section("distributions", "Distributions", charts.distributions()),
        ]
        if trend:
            body.append(_section("history", "History", _trend_section(trend)))
    notes = [str(w.message) for w in caught]
    for w in caught:  # still said to the caller (the command line prints them)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    body.append(_section("provenance", "Conventions and provenance",
                         _provenance(systems, settings, provenance, notes)))
    page = _page(title, systems, names, cmp, body)
    if out is not None:
        try:
            out.write_text(page, encoding="utf-8")
        except OSError as exc:
            raise OutputPathError(f"path {str(out)!r}: cannot write it: {exc.strerror}."
                                  ) from None
    return page


def _check_path(path: str | os.PathLike[str] | None) -> Path | None:
    if path is None:
        return None
    p = Path(path)
    if p.is_dir():
        raise OutputPathError(f"path {str(p)!r} is a folder; give a file name inside it.")
    if not p.parent.is_dir():
        raise OutputPathError(f"path {str(p)!r}: the folder {str(p.parent)!r} does not exist.")
    return p


def _check_trend(trend: Any) -> dict[str, list[TrendPoint]]:
    """``trend`` as ``{metric: points}``, each point checked."""
    if trend is None:
        return {}
    if not isinstance(trend, Mapping):
        raise InputError(f"trend must be a mapping {{metric: [(time, run, value, record id), "
                         f"...]}}, got {type(trend).__name__}.")
    out: dict[str, list[TrendPoint]] = {}
    for metric, points in trend.items():
        checked = []
        for i, p in enumerate(points):
            ok = (isinstance(p, (tuple, list)) and len(p) == 4 and isinstance(p[0], datetime)
                  and isinstance(p[2], (int, float, np.number)))
            if not ok:
                raise InputError(f"trend[{metric!r}][{i}] is {p!r}; each point must be "
                                 "(datetime, run name, value, record id).")
            checked.append((p[0], str(p[1]), float(p[2]), int(p[3])))
        out[str(metric)] = checked
    return out


def _inputs(runs: Any) -> list[tuple[str, Run | Result]]:
    """The runs as (name, Run or Result) pairs; a list is named by each run's name
    (made unique by :func:`ranklens.compare` the same way)."""
    if isinstance(runs, (Run, Result)):
        runs = [runs]
    if isinstance(runs, Mapping):
        items = [(str(k), v) for k, v in runs.items()]
    elif isinstance(runs, (list, tuple)):
        items = []
        for i, r in enumerate(runs, start=1):
            name = getattr(r, "run_name" if isinstance(r, Result) else "name", None)
            base = name or f"run{i}"
            name, j = base, 1
            while name in [n for n, _ in items]:
                j += 1
                name = f"{base}-{j}"
            items.append((name, r))
    else:
        raise InputError(f"runs must be a mapping {{name: Run or Result}} or a list of them, "
                         f"got {type(runs).__name__}.")
    if not items:
        raise InputError("no run to report: pass at least one ranklens.Run or Result.")
    for name, r in items:
        if not isinstance(r, (Run, Result)):
            raise InputError(f"run {name!r} is a {type(r).__name__}; pass a ranklens.Run or "
                             "a ranklens.Result (the return value of ranklens.evaluate).")
    return items


def _single(qrels: Qrels | None, item: tuple[str, Run | Result], metrics: Any,
            baseline: str | None, conventions: dict[str, Any]
            ) -> tuple[list[_System], list[str]]:
    """The one system of a report of one run, evaluated."""
    from ranklens.comparison.systems import DEFAULT_METRICS
    from ranklens.ranking.evaluation import evaluate

    name, r = item
    if baseline is not None and baseline != name:
        raise InputError(f"baseline {baseline!r} is not one of the runs ['{name}'].")
    wanted = None if metrics is None else [metrics] if isinstance(metrics, str) else list(
        metrics)
    if isinstance(r, Result):
        res = r
        names = list(r.metrics) if wanted is None else wanted
        lacking = [m for m in names if m not in r.values]
        if lacking:
            raise InputError(f"run {name!r} has no values for {lacking}; it has "
                             f"{list(r.metrics)}.")
        return [_System(name, res, None)], names
    if qrels is None:
        raise InputError(f"run {name!r} is a Run: pass the qrels to evaluate it.")
    res = evaluate(qrels, r, wanted or list(DEFAULT_METRICS), **conventions)
    return [_System(name, res, r)], list(res.metrics)


# ------------------------------------------------------------------------- summary


def _summary_compared(cmp: Any) -> str:
    """compare's own table, and every test against the baseline."""
    from ranklens.render.comparison import comparison_table

    rows: list[list[Cell | str]] = []
    for p in cmp.pairs:
        rows.append([p.system, p.metric, Cell(number(p.mean_diff),
                                              small=f"[{number(p.diff_ci_low)}, "
                                                    f"{number(p.diff_ci_high)}]"),
                     percent(p.relative), p_value(p.p_value),
                     Cell(p_value(p.p_adjusted), "bold" if p.significant else "",
                          sup="*" if p.significant else ""),
                     f"{p.wins}/{p.ties}/{p.losses}", number(p.cohens_d), str(p.n_queries)])
    tests = Table(["run", "metric", f"difference vs {cmp.baseline}", "relative", "p",
                   "p adjusted", "W/T/L", "Cohen's d", "queries"], rows, n_labels=2,
                  notes=[f"* significant at alpha {cmp.alpha:g} after the "
                         f"{cmp.correction} correction; W/T/L: queries won, tied and lost "
                         "against the baseline."])
    return (_table(comparison_table(cmp))
            + f"<h3>Against the baseline, {escape(display_id(cmp.baseline))}</h3>"
            + _table(tests))


def _summary_single(system: _System, names: list[str], ci: str, alpha: float,
                    n_resamples: int, seed: Any) -> tuple[str, str]:
    """Means and intervals of one run (no test: nothing to compare with)."""
    from ranklens.comparison.stats import mean_ci

    res = system.result
    row: list[Cell | str] = [system.name]
    counts = []
    for m in names:
        v = np.asarray(res.values[m], dtype=np.float64)
        v = v[~np.isnan(v)]
        counts.append(v.size)
        lo, hi = (mean_ci(v, ci, 1.0 - alpha, n_resamples, seed) if v.size else
                  (float("nan"), float("nan")))
        row.append(Cell(number(res[m]), small=f"[{number(lo)}, {number(hi)}]"))
    level = f"{1.0 - alpha:.0%} {ci} intervals over {max(counts, default=0)} queries"
    table = Table(["run", *names], [row], notes=[f"Mean [{level}]; one run, so no test."])
    return _table(table), f"one run; {level}."


# ------------------------------------------------------------------------- charts


@dataclass
class _Charts:
    """The chart sections; the ones that need a ranking use the runs given as Runs."""

    qrels: Qrels | None
    systems: list[_System]
    metrics: list[str]
    max_k: int | None
    conventions: dict[str, Any]

    def _ranked(self) -> list[tuple[int, _System]]:
        return [(i, s) for i, s in enumerate(self.systems)
                if s.run is not None and self.qrels is not None]

    def _none(self, what: str) -> str:
        return (f'<p class="rl-note">No {what}: every run was given as a stored result, '
                "which keeps per-query values but not the rankings.</p>")

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
        curves = {i: evaluate_cutoffs(self.qrels, s.run, families, k,  # type: ignore[arg-type]
                                      **self.conventions) for i, s in ranked}
        charts = []
        for fam in families:
            series = [svg.Series(self.systems[i].name, c.ks, c.curve(fam), markers=k <= 30,
                                 color=i, tips=[f"{self.systems[i].name}: {fam}@{kk} = "
                                                f"{number(v)}" for kk, v in
                                                zip(c.ks.tolist(), c.curve(fam).tolist(),
                                                    strict=True)])
                      for i, c in curves.items()]
            charts.append(svg.line_chart(series, title=f"{fam}@k", x_label="cutoff k",
                                         y_label=f"mean {fam}@k", x_range=(1, max(k, 2))))
        return _grid(charts)

    def precision_recall(self) -> str:
        from ranklens.ranking.cutoffs import precision_recall_curve
        from ranklens.render.plots import _raw_pr

        ranked = self._ranked()
        if not ranked:
            return self._none("precision-recall curves")
        series = []
        for i, s in ranked:
            try:
                cur = precision_recall_curve(self.qrels, s.run,  # type: ignore[arg-type]
                                             **self.conventions)
            except UnsupportedError as exc:
                return f'<p class="rl-note">{escape(str(exc))}</p>'
            mean = cur.mean_interpolated
            series.append(svg.Series(f"{s.name} (interpolated)", cur.levels, mean,
                                     markers=True, color=i,
                                     tips=[f"{s.name}: precision {number(p)} at recall "
                                           f"{r:.1f}" for r, p in zip(cur.levels.tolist(),
                                                                      mean.tolist(),
                                                                      strict=True)]))
            if cur.rank.size:
                depth = int(min(cur.rank.max(), max(self.max_k or 100, 100)))
                rec, prec = _raw_pr(cur, len(cur.query_ids), depth)
                series.append(svg.Series(f"{s.name} (raw, ranks 1-{depth})", rec, prec,
                                         dashed=True, color=i))
        chart = svg.line_chart(series, title="precision-recall", x_label="recall",
                               y_label="precision", x_range=(0, 1), y_range=(0, 1),
                               width=760, height=400)
        note = ('<p class="rl-note">Solid: mean interpolated precision at recall 0.0, 0.1, '
                "..., 1.0 (trec_eval's iprec_at_recall); dashed: mean recall and mean "
                "precision after each rank.</p>")
        return _wide([chart]) + note

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
            if rng is not None and rng[0] <= lo and hi <= rng[1]:
                lo, hi = rng
            edges = np.linspace(lo, hi if hi > lo else lo + 1.0, _BINS + 1)
            series = [svg.step_series(s.name, edges, np.histogram(v, edges)[0], color=i)
                      for i, (s, v) in enumerate(zip(self.systems, vals, strict=True))]
            parts.append(svg.line_chart(series, title=f"per-query {m}", x_label=m,
                                        y_label="queries", x_range=(edges[0], edges[-1])))
        scores = []
        for i, s in enumerate(self.systems):
            if s.run is None or not len(s.run):
                continue
            v = s.run.scores
            lo, hi = float(v.min()), float(v.max())
            edges = np.linspace(lo, hi if hi > lo else lo + 1.0, _BINS + 1)
            scores.append(svg.line_chart(
                [svg.step_series(s.name, edges, np.histogram(v, edges)[0], color=i)],
                title=f"scores of {s.name}", x_label="score", y_label="documents",
                x_range=(edges[0], edges[-1])))
        return _grid(parts) + ("<h3>Run scores</h3>" + _grid(scores) if scores else "")


def _grid(items: Sequence[str]) -> str:
    return '<div class="rl-grid">' + "".join(f"<figure>{c}</figure>" for c in items) + "</div>"


def _wide(items: Sequence[str]) -> str:
    return "".join(f'<figure class="rl-wide">{c}</figure>' for c in items)


def _table(table: Table) -> str:
    """A table that scrolls sideways when it is wider than the page."""
    return f'<div class="rl-scroll">{to_html(table)}</div>'


# ------------------------------------------------------------------------- per query


def _aligned(systems: list[_System], metrics: list[str]
             ) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Every query id of any run (sorted), which run has which query, and every
    metric's values as (runs x queries) (NaN where a run lacks the query)."""
    ids = [np.asarray(s.result.query_ids, dtype=object) for s in systems]
    union, inverse = np.unique(np.concatenate(ids) if ids else np.zeros(0, object),
                               return_inverse=True)
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
    return [None if not p else float(t) if t != "NaN" and "inf" not in t else t
            for t, p in zip(map(number, values.tolist()), present.tolist(), strict=True)]


def _per_query_section(systems: list[_System], metrics: list[str], cmp: Any) -> str:
    from ranklens.comparison.systems import TIE_TOLERANCE

    union, present, values = _aligned(systems, metrics)
    base = None if cmp is None else [s.name for s in systems].index(cmp.baseline)
    data: dict[str, Any] = {
        "queries": [display_id(str(q)) for q in union.tolist()],
        "runs": [display_id(s.name) for s in systems], "baseline": base,
        "metrics": [display_id(m) for m in metrics], "values": [], "deltas": [],
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
            code = np.where(d > TIE_TOLERANCE, "w", np.where(d < -TIE_TOLERANCE, "l", "t"))
            outcomes.append("".join(np.where(both & ~np.isnan(d), code, "-").tolist()))
            tops.append((m, s.name, _wins_losses(union, values[m][base], values[m][r], d,
                                                 both, systems[base].name, s.name)))
        data["deltas"].append(deltas)
        data["outcomes"].append(outcomes)
    filters = ""
    if base is not None:
        options = "".join(f'<option value="{o}:{r}">{word} of {escape(display_id(s.name))}'
                          "</option>" for r, s in enumerate(systems) if r != base
                          for o, word in (("w", "wins"), ("l", "losses"), ("t", "ties")))
        filters = (' <label>outcome vs baseline <select id="rl-outcome"><option value="">'
                   f"all queries</option>{options}</select></label>")
    metric_options = "".join(f'<option value="{i}">{escape(display_id(m))}</option>'
                             for i, m in enumerate(metrics))
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
        "full.</p>")
    script = ('<script type="application/json" id="rl-data">'
              f"{_script_json(data)}</script>")
    wins = ""
    if tops:
        wins = "<h3>Biggest wins and losses against the baseline</h3>" + "".join(
            f"<details{' open' if i == 0 else ''}><summary>{escape(display_id(name))}: "
            f"{escape(display_id(m))}</summary>{html}</details>"
            for i, (m, name, html) in enumerate(tops))
    return table + script + wins


def _wins_losses(ids: np.ndarray, base: np.ndarray, run: np.ndarray, d: np.ndarray,
                 both: np.ndarray, base_name: str, name: str) -> str:
    """The queries ``run`` gains most and loses most on against ``base``."""
    from ranklens.comparison.systems import TIE_TOLERANCE

    ok = both & ~np.isnan(d)
    order = np.flatnonzero(ok)[np.argsort(-d[ok], kind="stable")]
    wins = [i for i in order[:_TOP].tolist() if d[i] > TIE_TOLERANCE]
    losses = [i for i in order[::-1][:_TOP].tolist() if d[i] < -TIE_TOLERANCE]

    def table(rows: list[int], what: str) -> str:
        if not rows:
            return f'<p class="rl-note">No {what}.</p>'
        return _table(Table(["query", base_name, name, "difference"],
                             [[str(ids[i]), number(base[i]), number(run[i]), number(d[i])]
                              for i in rows]))

    return ('<div class="rl-pair"><div><h4>wins</h4>' + table(wins, "wins") +
            "</div><div><h4>losses</h4>" + table(losses, "losses") + "</div></div>")


def _script_json(data: Any) -> str:
    """JSON safe inside ``<script>``: ``<``, ``>`` and ``&`` (and the two line
    separators) as ``\\u`` escapes, so that no text can close the element."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


# ------------------------------------------------------------------------- history


def _trend_section(trend: Mapping[str, list[TrendPoint]]) -> str:
    charts = []
    for metric, points in trend.items():
        if not points:
            continue
        points = sorted(points, key=lambda p: (p[0].timestamp(), p[3]))
        times = np.array([p[0].timestamp() for p in points])
        lo, hi = float(times.min()), float(times.max())
        span = hi - lo
        fmt = "%Y-%m-%d" if span > 3 * 86400 else "%Y-%m-%d %H:%M"
        ticks = [(lo + span * i / 4, datetime.fromtimestamp(lo + span * i / 4,
                                                            points[0][0].tzinfo).strftime(fmt))
                 for i in range(5)] if span else [(lo, points[0][0].strftime(fmt))]
        names = list(dict.fromkeys(p[1] for p in points))
        series = []
        for i, name in enumerate(names):
            mine = [(t, p) for t, p in zip(times.tolist(), points, strict=True) if p[1] == name]
            series.append(svg.Series(
                name, [t for t, _ in mine], [p[2] for _, p in mine], markers=True, color=i,
                tips=[f"{name}: {metric} = {number(p[2])} on "
                      f"{p[0].isoformat(sep=' ', timespec='minutes')} (record {p[3]})"
                      for _, p in mine]))
        charts.append(svg.line_chart(series, title=f"{metric} over time", x_label="time",
                                     y_label=metric, x_ticks=ticks,
                                     x_range=(lo, hi) if span else (lo - 1, lo + 1),
                                     width=760))
    return _wide(charts) if charts else '<p class="rl-note">No stored record.</p>'


# ------------------------------------------------------------------------- provenance


def _provenance(systems: list[_System], settings: str, provenance: Mapping[str, str] | None,
                notes: list[str]) -> str:
    import ranklens

    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    lines = [("ranklens", ranklens.__version__), ("generated", now), ("statistics", settings),
             *((str(k), str(v)) for k, v in (provenance or {}).items())]
    about = _table(Table(["item", "value"], [[k, v] for k, v in lines], n_labels=2))
    names = [s.name for s in systems]
    conv = [s.result.conventions for s in systems]
    same = all(c == conv[0] for c in conv)
    cols = ["all runs"] if same else names
    rows: list[list[Cell | str]] = [
        [f.name, *(str(getattr(c, f.name)) for c in (conv[:1] if same else conv))]
        for f in fields(conv[0])]
    keys = list(dict.fromkeys(k for s in systems for k in s.result.report))
    counts: list[list[Cell | str]] = [[k, *(str(s.result.report.get(k, "")) for s in systems)]
                                      for k in keys]
    metrics = {m: p.definition.summary for s in systems for m, p in s.result.parsed.items()}
    warned = "".join(f"<li>{escape(display_id(n))}</li>" for n in notes)
    return (about + "<h3>Conventions</h3>" + _table(Table(["convention", *cols], rows))
            + "<h3>Counts</h3>" + _table(Table(["count", *names], counts))
            + "<h3>Metrics</h3>" + _table(Table(["metric", "definition"],
                                                [[m, d] for m, d in metrics.items()],
                                                n_labels=2))
            + (f"<h3>Warnings</h3><ul>{warned}</ul>" if notes else ""))


# ------------------------------------------------------------------------- page


def _asset(name: str) -> str:
    return (resources.files("ranklens.render") / "assets" / name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _section(anchor: str, heading: str, content: str) -> tuple[str, str, str]:
    return anchor, heading, content


def _page(title: str, systems: list[_System], metrics: list[str], cmp: Any,
          sections: list[tuple[str, str, str]]) -> str:
    style, script = _asset("report.css"), _asset("report.js")
    csp = (f"default-src 'none'; style-src {_hash(style)}; script-src {_hash(script)}; "
           "img-src 'none'; base-uri 'none'; form-action 'none'")
    n_queries = len(set().union(*(s.result.query_ids for s in systems)))
    base = "" if cmp is None else f"; baseline {cmp.baseline}"
    lead = (f"{len(systems)} run{'s' if len(systems) > 1 else ''} × {len(metrics)} "
            f"metric{'s' if len(metrics) > 1 else ''} on {n_queries} queries{base}")
    nav = "".join(f'<a href="#{a}">{escape(h)}</a>' for a, h, _ in sections)
    body = "".join(f'<section id="{a}"><h2>{escape(h)}</h2>{c}</section>'
                   for a, h, c in sections)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="generator" content="ranklens">'
        f"<title>{escape(display_id(title))}</title><style>{style}</style></head><body>"
        f"<header><h1>{escape(display_id(title))}</h1><p>{escape(display_id(lead))}</p>"
        f"<nav>{nav}</nav></header><main>{body}</main><script>{script}</script>"
        "</body></html>\n")
