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
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import fields
from datetime import UTC, datetime
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ranklens._shared.files import atomic_write
from ranklens._shared.validate import check_int
from ranklens.errors import InputError, OutputPathError, RanklensWarning, warn_plainly
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result
from ranklens.render.html_charts import Charts, System, TrendPoint, trend_section
from ranklens.render.html_queries import per_query_section
from ranklens.render.table import Cell, Table, display_id, number, p_value, percent, to_html

__all__ = ["TrendPoint", "html_report"]


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
    if not isinstance(title, str):
        raise InputError(f"html_report: title must be a string, got {type(title).__name__}.")
    if max_k is not None:
        check_int("max_k", max_k, where="html_report")
    if provenance is not None and not isinstance(provenance, Mapping):
        raise InputError(
            "html_report: provenance must be a mapping {label: text}, e.g. "
            f"{{'qrels': 'qrels.txt'}}, got {type(provenance).__name__}."
        )
    inputs = _inputs(runs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if len(inputs) > 1:
            cmp = compare(
                qrels,
                dict(inputs),
                metrics,
                baseline=baseline or inputs[0][0],
                test=test,
                correction=correction,
                alpha=alpha,
                n_resamples=n_resamples,
                seed=seed,
                ci=ci,
                **conventions,
            )
            systems = [
                System(n, cmp.results[n], r if isinstance(r, Run) else None) for n, r in inputs
            ]
            names = list(cmp.metrics)
            summary = _summary_compared(cmp)
            settings = cmp.description
        else:
            cmp = None
            systems, names = _single(qrels, inputs[0], metrics, baseline, conventions, alpha, ci)
            summary, settings = _summary_single(systems[0], names, ci, alpha, n_resamples, seed)
        charts = Charts(qrels, systems, names, max_k, conventions)
        body = [
            _section("summary", "Summary", summary),
            _section("cutoffs", "Metric at k", charts.cutoffs()),
            _section("pr", "Precision-recall", charts.precision_recall()),
            _section("queries", "Per query", per_query_section(systems, names, cmp)),
            _section("distributions", "Distributions", charts.distributions()),
        ]
        if trend:
            runs_shown = [s.name for s in systems]
            body.append(_section("history", "History", trend_section(trend, runs_shown)))
    notes = [str(w.message) for w in caught if issubclass(w.category, RanklensWarning)]
    for w in caught:  # still said to the caller (the command line prints them)
        if issubclass(w.category, RanklensWarning):
            warn_plainly(w.message, w.category)  # not at a line of ranklens' source
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    body.append(
        _section(
            "provenance",
            "Conventions and provenance",
            _provenance(systems, settings, provenance, notes),
        )
    )
    page = _page(title, systems, names, cmp, body)
    if out is not None:
        atomic_write(out, page)
    return page


def _check_path(path: str | os.PathLike[str] | None) -> Path | None:
    if path is None:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"html_report: path must be a file name, got {type(path).__name__}.")
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
        raise InputError(
            f"trend must be a mapping {{metric: [(time, run, value, record id), "
            f"...]}}, got {type(trend).__name__}."
        )
    out: dict[str, list[TrendPoint]] = {}
    for metric, points in trend.items():
        if not isinstance(points, Sequence) or isinstance(points, str):
            raise InputError(
                f"trend[{metric!r}] is {points!r}; it must be a list of points "
                "(datetime, run name, value, record id)."
            )
        checked = []
        for i, p in enumerate(points):
            ok = (
                isinstance(p, (tuple, list))
                and len(p) == 4
                and isinstance(p[0], datetime)
                and isinstance(p[2], (int, float, np.number))
                and isinstance(p[3], (int, np.integer))
            )
            if not ok:
                raise InputError(
                    f"trend[{metric!r}][{i}] is {p!r}; each point must be "
                    "(datetime, run name, value, record id)."
                )
            checked.append((p[0], str(p[1]), float(p[2]), int(p[3])))
        out[str(metric)] = checked
    return out


def _inputs(runs: Any) -> list[tuple[str, Run | Result]]:
    """The runs as (name, Run or Result) pairs, named as :func:`ranklens.compare`
    names them; one Run or Result alone is a list of one."""
    from ranklens.comparison.systems import named_systems

    items = named_systems([runs] if isinstance(runs, (Run, Result)) else runs)
    if not items:
        raise InputError("no run to report: pass at least one ranklens.Run or Result.")
    return items


def _single(
    qrels: Qrels | None,
    item: tuple[str, Run | Result],
    metrics: Any,
    baseline: str | None,
    conventions: dict[str, Any],
    alpha: float,
    ci: str,
) -> tuple[list[System], list[str]]:
    """The one system of a report of one run, evaluated (the metrics, the options and
    the result checked as :func:`ranklens.compare` checks them: it has no pair to test)."""
    from ranklens.comparison import stats as st
    from ranklens.comparison.systems import evaluated_systems

    name, r = item
    if baseline is not None and baseline != name:
        raise InputError(f"baseline {baseline!r} is not one of the runs ['{name}'].")
    st.check_alpha(alpha)
    st._check_choice("ci", ci, st.CI_METHODS)
    results, names = evaluated_systems(qrels, [item], metrics, conventions)
    return [System(name, results[name], r if isinstance(r, Run) else None)], names


# ------------------------------------------------------------------------- summary


def _summary_compared(cmp: Any) -> str:
    """compare's own table, and every test against the baseline."""
    from ranklens.render.comparison import aggregate_notes, comparison_table

    rows: list[list[Cell | str]] = []
    for p in cmp.pairs:
        rows.append(
            [
                p.system,
                p.metric,
                Cell(
                    ("ratio " if p.contrast == "ratio" else "") + number(p.mean_diff),
                    small=f"[{number(p.diff_ci_low)}, {number(p.diff_ci_high)}]",
                ),
                percent(p.relative),
                p_value(p.p_value),
                Cell(
                    p_value(p.p_adjusted),
                    "bold" if p.significant else "",
                    sup="*" if p.significant else "",
                ),
                f"{p.wins}/{p.ties}/{p.losses}",
                number(p.cohens_d),
                str(p.n_queries),
            ]
        )
    tests = Table(
        [
            "run",
            "metric",
            f"difference vs {cmp.baseline}",
            "relative",
            "p",
            "p adjusted",
            "W/T/L",
            "Cohen's d",
            "queries",
        ],
        rows,
        n_labels=2,
        notes=[
            f"* significant at alpha {cmp.alpha:g} after the "
            f"{cmp.correction} correction; W/T/L: queries won, tied and lost "
            "against the baseline.",
            *aggregate_notes(cmp.aggregates),
        ],
    )
    return (
        to_html(comparison_table(cmp))
        + f"<h3>Against the baseline, {escape(display_id(cmp.baseline))}</h3>"
        + to_html(tests)
    )


def _summary_single(
    system: System, names: list[str], ci: str, alpha: float, n_resamples: int, seed: Any
) -> tuple[str, str]:
    """Values and intervals of one run (no test: nothing to compare with); a value is
    the metric's own aggregate, its interval on that scale (as compare's)."""
    from ranklens.comparison.scales import scale_of
    from ranklens.comparison.stats import mean_ci
    from ranklens.render.comparison import aggregate_notes

    res = system.result
    row: list[Cell | str] = [system.name]
    counts = []
    for m in names:
        sc = scale_of(res.aggregation(m))
        v = np.asarray(res.aggregated_values(m), dtype=np.float64)
        v = sc.per_query(v[~np.isnan(v)])
        counts.append(v.size)
        lo, hi = (
            mean_ci(v, ci, 1.0 - alpha, n_resamples, seed)
            if v.size
            else (float("nan"), float("nan"))
        )
        lo, hi = (float(x) for x in sc.from_mean([lo, hi], v.size))
        row.append(Cell(number(res[m]), small=f"[{number(lo)}, {number(hi)}]"))
    level = f"{1.0 - alpha:.0%} {ci} intervals over {max(counts, default=0)} queries"
    notes = [
        f"Value [{level}]; one run, so no test.",
        *aggregate_notes({m: res.aggregation(m) for m in names}),
    ]
    table = Table(["run", *names], [row], notes=notes)
    return to_html(table), f"one run; {level}."


# ------------------------------------------------------------------------- provenance


def _provenance(
    systems: list[System], settings: str, provenance: Mapping[str, str] | None, notes: list[str]
) -> str:
    import ranklens

    now = datetime.now(UTC).isoformat(timespec="seconds")
    lines = [
        ("ranklens", ranklens.__version__),
        ("generated", now),
        ("statistics", settings),
        *((str(k), str(v)) for k, v in (provenance or {}).items()),
    ]
    about = to_html(Table(["item", "value"], [[k, v] for k, v in lines], n_labels=2))
    names = [s.name for s in systems]
    conv = [s.result.conventions for s in systems]
    same = all(c == conv[0] for c in conv)
    cols = ["all runs"] if same else names
    rows: list[list[Cell | str]] = [
        [f.name, *(convention_text(getattr(c, f.name)) for c in (conv[:1] if same else conv))]
        for f in fields(conv[0])
    ]
    keys = list(dict.fromkeys(k for s in systems for k in s.result.report))
    counts: list[list[Cell | str]] = [
        [k, *(str(s.result.report.get(k, "")) for s in systems)] for k in keys
    ]
    metrics = {m: p.definition.summary for s in systems for m, p in s.result.parsed.items()}
    warned = "".join(f"<li>{escape(display_id(n))}</li>" for n in notes)
    return (
        about
        + "<h3>Conventions</h3>"
        + to_html(Table(["convention", *cols], rows))
        + "<h3>Content fingerprints</h3>"
        + to_html(_fingerprints(systems))
        + "<h3>Counts</h3>"
        + to_html(Table(["count", *names], counts))
        + "<h3>Metrics</h3>"
        + to_html(Table(["metric", "definition"], [[m, d] for m, d in metrics.items()], n_labels=2))
        + (f"<h3>Warnings</h3><ul>{warned}</ul>" if notes else "")
    )


def convention_text(value: Any) -> str:
    """A convention's value as a user writes it (an option's value), not as Python
    prints it: ``None`` and an empty mapping are ``none``, booleans ``yes`` / ``no``,
    a whole number without a decimal point, per-metric defaults as ``metric:
    name=value``.

    >>> [convention_text(v) for v in (None, False, {}, 1.0, "trec")]
    ['none', 'no', 'none', '1', 'trec']
    >>> convention_text({"ndcg": {"ideal": "retrieved"}, "rbp": {"scale": "none"}})
    'ndcg: ideal=retrieved; rbp: scale=none'
    """
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return "; ".join(
            f"{k}: " + ", ".join(f"{n}={convention_text(v)}" for n, v in sub.items())
            if isinstance(sub, Mapping)
            else f"{k}={convention_text(sub)}"
            for k, sub in value.items()
        )
    return str(value)


def _fingerprints(systems: list[System]) -> Table:
    """Each run's provenance (:mod:`ranklens.ranking.provenance`): SHA-256 of the qrels
    and of the run content, and of the conventions, as ``ranklens gate`` compares them;
    "—" where a result has none (built by hand, or its large run was gone)."""

    def short(value: str | None) -> str:
        return "—" if value is None else value[:16]

    # the other inputs a recommender's metrics read (training log, catalog, ...)
    inputs = list(
        dict.fromkeys(
            n
            for s in systems
            if s.result.provenance is not None
            for n in s.result.provenance.inputs
        )
    )
    rows: list[list[Cell | str]] = []
    for s in systems:
        p = s.result.provenance
        rows.append(
            [
                s.name,
                *(
                    ["—"] * (4 + len(inputs))
                    if p is None
                    else [
                        short(p.qrels),
                        short(p.run),
                        p.run_form,
                        short(p.conventions_fingerprint),
                        *(short(p.inputs.get(n)) for n in inputs),
                    ]
                ),
            ]
        )
    return Table(["run", "qrels", "run content", "run form", "conventions", *inputs], rows)


# ------------------------------------------------------------------------- page


def _asset(name: str) -> str:
    return (resources.files("ranklens.render") / "assets" / name).read_text(encoding="utf-8")


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _section(anchor: str, heading: str, content: str) -> tuple[str, str, str]:
    return anchor, heading, content


def _page(
    title: str,
    systems: list[System],
    metrics: list[str],
    cmp: Any,
    sections: list[tuple[str, str, str]],
) -> str:
    style, script = _asset("report.css"), _asset("report.js")
    csp = (
        f"default-src 'none'; style-src {_hash(style)}; script-src {_hash(script)}; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )
    n_queries = len(set().union(*(s.result.query_ids for s in systems)))
    base = "" if cmp is None else f"; baseline {cmp.baseline}"
    lead = (
        f"{len(systems)} run{'s' if len(systems) > 1 else ''} × {len(metrics)} "
        f"metric{'s' if len(metrics) > 1 else ''} on {n_queries} queries{base}"
    )
    nav = "".join(f'<a href="#{a}">{escape(h)}</a>' for a, h, _ in sections)
    body = "".join(f'<section id="{a}"><h2>{escape(h)}</h2>{c}</section>' for a, h, c in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="generator" content="ranklens">'
        f"<title>{escape(display_id(title))}</title><style>{style}</style></head><body>"
        f"<header><h1>{escape(display_id(title))}</h1><p>{escape(display_id(lead))}</p>"
        f"<nav>{nav}</nav></header><main>{body}</main><script>{script}</script>"
        "</body></html>\n"
    )
