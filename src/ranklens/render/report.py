"""Render evaluation results as text: terminal tables, JSON, CSV, Markdown, LaTeX
and trec_eval's own output layout.

Every renderer takes one :class:`~ranklens.Result` or a sequence of them (one
per run, labelled by :attr:`Result.run_name`) and returns a string ending in
a newline::

    >>> import ranklens
    >>> from ranklens.render.report import render
    >>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}})
    >>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5}}, name="bm25")
    >>> render(ranklens.evaluate(qrels, run, ["P.5", "map"]), "trec").splitlines()
    ['P_5                   \\tall\\t0.2000', 'map                   \\tall\\t1.0000']

Formats (:data:`FORMATS`):

``table``
    a rich table for the terminal: one row per run, one column per metric,
    four decimals, the best value of each metric in bold (when there are
    several runs).  ANSI styles only when writing to a terminal.
``json``
    ``{"runs": [{"run", "summary", "per_query"?, "conventions", "report"}]}``,
    NaN written as ``null``, keys exactly the metric strings given.
``csv``
    columns ``run`` and one per metric; with ``per_query=True`` columns
    ``run``, ``query`` and one per metric, one row per run and query.  Missing
    values (NaN) are empty fields; numbers are written in full precision.
``markdown``
    a GitHub pipe table of the same shape as the CSV, four decimals.
``latex``
    a booktabs ``tabular`` of the same shape, best values in ``\\textbf``.
``trec``
    trec_eval's three-column layout (``"%-22s\\t%s\\t%6.4f"``), measure names
    in trec_eval's output spelling (:func:`trec_output_name`), so that
    scripts written for trec_eval can read it.

:func:`save_results` writes any of them (and Parquet) to a file, choosing the
format from the file's suffix.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ranklens._shared.files import atomic_path, atomic_write
from ranklens.errors import FormatError, InputError
from ranklens.metrics.trec_names import trec_output_name
from ranklens.ranking.evaluation import Result
from ranklens.render.table import (
    Cell,
    Table,
    best_mask,
    check_format,
    display_id,
    latex_escape,
    number,
    to_csv,
    to_json,
    to_latex,
    to_markdown,
    to_text,
)

__all__ = [
    "FORMATS",
    "SUFFIXES",
    "FormatError",
    "latex_escape",
    "render",
    "render_csv",
    "render_json",
    "render_latex",
    "render_markdown",
    "render_table",
    "render_trec",
    "save_results",
    "trec_output_name",
]

#: The text formats :func:`render` produces.
FORMATS: tuple[str, ...] = ("table", "json", "csv", "markdown", "latex", "trec")
#: File suffix -> format used by :func:`save_results` (``parquet`` is binary).
SUFFIXES: dict[str, str] = {
    ".json": "json",
    ".csv": "csv",
    ".parquet": "parquet",
    ".md": "markdown",
    ".tex": "latex",
    ".txt": "table",
}


# --------------------------------------------------------------------------------------
# shared helpers


def _as_results(results: Result | Sequence[Result]) -> list[Result]:
    items = [results] if isinstance(results, Result) else list(results)
    if not items:
        raise InputError("no results to render: pass at least one ranklens Result.")
    for i, r in enumerate(items):
        if not isinstance(r, Result):
            raise InputError(
                f"results[{i}] is a {type(r).__name__}, not a ranklens Result (the return "
                "value of ranklens.evaluate)."
            )
    return items


def _labels(results: Sequence[Result]) -> list[str]:
    """Each run's name; unnamed runs are called run1, run2, ... by position."""
    return [
        r.run_name if r.run_name is not None else f"run{i}" for i, r in enumerate(results, start=1)
    ]


def _metric_union(results: Sequence[Result]) -> list[str]:
    """Every metric of every result, in order of first appearance."""
    return list(dict.fromkeys(m for r in results for m in r.metrics))


def _parsed(results: Sequence[Result], metric: str) -> Any:
    """The parsed metric of the first result that has it."""
    return next(r.parsed[metric] for r in results if metric in r.parsed)


def _summary_matrix(results: Sequence[Result], metrics: Sequence[str]) -> np.ndarray:
    """(runs x metrics) aggregates; NaN where a run lacks a metric."""
    out = np.full((len(results), len(metrics)), np.nan)
    for i, r in enumerate(results):
        s = r.summary()
        for j, m in enumerate(metrics):
            if m in s:
                out[i, j] = s[m]
    return out


def _numbers(values: np.ndarray, integer: bool) -> list[str]:
    """Four decimals (integers for summed counts); NaN as ``NaN``."""
    return [number(v, integer) for v in np.asarray(values, dtype=np.float64).tolist()]


def result_table(
    results: Result | Sequence[Result], per_query: bool = False, summary: bool = True
) -> Table:
    """The summary (``run`` + metrics, the best value of each metric in bold when
    there are several runs) or per-query (``run``, ``query`` + metrics, each run's
    block ending with its ``all`` row unless ``summary=False``) table of one or
    several runs' results."""
    items = _as_results(results)
    metrics = _metric_union(items)
    labels = [display_id(x) for x in _labels(items)]
    integer = [_parsed(items, m).definition.aggregate == "sum" for m in metrics]
    matrix = _summary_matrix(items, metrics)
    means = [_numbers(matrix[:, j], integer[j]) for j in range(len(metrics))]
    if not per_query:
        best = best_mask(matrix, [_parsed(items, m).name for m in metrics])
        rows: list[list[Cell | str]] = [
            [labels[i], *(Cell(c[i], "bold" if best[i, j] else "") for j, c in enumerate(means))]
            for i in range(len(items))
        ]
        return Table(["run", *metrics], rows)
    rows = []
    for i, r in enumerate(items):
        n = len(r.query_ids)
        cols = [
            _numbers(r.values[m], integer[j]) if m in r.values else ["NaN"] * n
            for j, m in enumerate(metrics)
        ]
        rows.extend(
            [labels[i], display_id(q), *cells] for q, *cells in zip(r.query_ids, *cols, strict=True)
        )
        # each run's block ends with its aggregate over the queries (trec_eval's "all")
        if summary:
            rows.append([labels[i], "all", *(c[i] for c in means)])
    return Table(["run", "query", *metrics], rows, n_labels=2)


def _nan_to_none(values: np.ndarray) -> list[float | None]:
    """Python floats, NaN replaced by None (vectorised)."""
    v = np.asarray(values, dtype=np.float64)
    out = v.astype(object)
    out[np.isnan(v)] = None
    return out.tolist()


def _arrow_table(results: Sequence[Result], per_query: bool) -> Any:
    """The CSV/Parquet table: NaN stored as null."""
    import pyarrow as pa

    metrics = _metric_union(results)
    labels = _labels(results)
    if not per_query:
        matrix = _summary_matrix(results, metrics)
        cols: dict[str, Any] = {"run": pa.array(labels, type=pa.string())}
        for j, m in enumerate(metrics):
            cols[m] = pa.array(matrix[:, j], type=pa.float64(), from_pandas=True)
        return pa.table(cols)
    parts = []
    for label, r in zip(labels, results, strict=True):
        n = len(r.query_ids)
        cols = {
            "run": pa.array(np.full(n, label, dtype=object), type=pa.string()),
            "query": pa.array(r.query_ids, type=pa.string()),
        }
        for m in metrics:
            cols[m] = (
                pa.array(
                    np.asarray(r.values[m], dtype=np.float64), type=pa.float64(), from_pandas=True
                )
                if m in r.values
                else pa.nulls(n, type=pa.float64())
            )
        parts.append(pa.table(cols))
    return pa.concat_tables(parts)


# --------------------------------------------------------------------------------------
# formats


def render_table(
    results: Result | Sequence[Result],
    per_query: bool = False,
    color: bool | None = None,
    max_width: int | None = None,
    summary: bool = True,
) -> str:
    """A table as terminal text; ``color=None`` uses ANSI styles (bold) only when
    standard output is a terminal, ``False`` never, ``True`` always.

    A table wider than ``max_width`` (default: the terminal's width when standard
    output is a terminal, else no limit, so piped output is never cut) is printed
    with one metric per row (columns run[, query], metric, value) instead of
    wrapping."""
    return to_text(result_table(results, per_query, summary), color, max_width)


def render_json(
    results: Result | Sequence[Result], per_query: bool = False, summary: bool = True
) -> str:
    """``{"runs": [{"run", "summary"?, "per_query"?, "conventions", "report"}]}``."""
    items = _as_results(results)
    runs = []
    for label, r in zip(_labels(items), items, strict=True):
        entry: dict[str, Any] = {"run": label}
        if summary:
            entry["summary"] = r.summary()
        if per_query:
            entry["per_query"] = {
                m: dict(zip(r.query_ids, _nan_to_none(r.values[m]), strict=True)) for m in r.metrics
            }
        entry["conventions"] = r.conventions.as_dict()
        entry["report"] = dict(r.report)
        runs.append(entry)
    return to_json({"runs": runs})


def render_csv(results: Result | Sequence[Result], per_query: bool = False) -> str:
    """CSV with a header row; empty fields for missing values (NaN)."""
    return to_csv(_arrow_table(_as_results(results), per_query))


def render_markdown(
    results: Result | Sequence[Result], per_query: bool = False, summary: bool = True
) -> str:
    """A GitHub pipe table; numbers right-aligned with four decimals, the best value
    of each metric in bold when there are several runs (summary only)."""
    return to_markdown(result_table(results, per_query, summary))


def render_latex(
    results: Result | Sequence[Result], per_query: bool = False, summary: bool = True
) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``); the best value of
    each metric in bold when there are several runs (summary only)."""
    return to_latex(result_table(results, per_query, summary))


def _trec_value_format(result: Result, metric: str) -> tuple[bool, bool]:
    """(printed as an integer, printed per query) for one metric."""
    defn = result.parsed[metric].definition
    return defn.aggregate == "sum", defn.aggregate != "gmean" and defn.name != "num_q"


def _trec_number(v: float, undefined: bool) -> str | None:
    """``"%6.4f"`` of ``v``; a NaN is ``-nan`` (glibc's printf of trec_eval's 0/0) where
    it is an ``undefined='nan'`` value (``undefined``), else None (not printed)."""
    if v == v:
        return f"{v:6.4f}"
    return f"{'-nan':>6}" if undefined else None


def render_trec(
    results: Result | Sequence[Result],
    per_query: bool = False,
    runid: bool = False,
    summary: bool = True,
) -> str:
    """trec_eval's output: ``"%-22s\\t%s\\t%6.4f"`` lines.

    With ``per_query=True`` the per-query lines come first, query by query,
    each query's metrics in the order given (gm_map, gm_bpref and num_q are
    not printed per query, and a query whose value is NaN is left out, as
    trec_eval leaves out queries it did not evaluate, except a value 0/0 under
    ``undefined='nan'``, printed ``-nan`` as trec_eval prints it); then the summary
    block (query ``all``), starting with ``runid`` when ``runid=True``, unless
    ``summary=False`` (trec_eval ``-n``).  Summed counts (num_ret, num_rel, ...) print as
    integers.  Several runs print one block after another.
    """
    items = _as_results(results)
    lines: list[str] = []
    for label, r in zip(map(display_id, _labels(items)), items, strict=True):
        # printf's "%-22s": left-justified, padded to 22, never truncated
        heads = {m: f"{trec_output_name(m):<22}\t" for m in r.metrics}
        kinds = {m: _trec_value_format(r, m) for m in r.metrics}
        if per_query:
            columns = []
            for m in r.metrics:
                integer, printed = kinds[m]
                if not printed:
                    continue
                head = heads[m]
                vals = np.asarray(r.values[m], dtype=np.float64).tolist()
                if integer:
                    columns.append(
                        [
                            None if v != v else f"{head}{display_id(q)}\t{int(v)}"
                            for q, v in zip(r.query_ids, vals, strict=True)
                        ]
                    )
                else:
                    undefined = r.aggregation(m).endswith("+nan")
                    columns.append(
                        [
                            None
                            if (text := _trec_number(v, undefined)) is None
                            else f"{head}{display_id(q)}\t{text}"
                            for q, v in zip(r.query_ids, vals, strict=True)
                        ]
                    )
            lines.extend(s for row in zip(*columns, strict=True) for s in row if s is not None)
        if not summary:
            continue
        if runid:
            lines.append(f"{'runid':<22}\tall\t{label}")
        for m, v in r.summary().items():
            integer = kinds[m][0] and v == v
            text = _trec_number(v, r.aggregation(m).endswith("+nan")) or f"{v:6.4f}"
            lines.append(f"{heads[m]}all\t{int(v)}" if integer else f"{heads[m]}all\t{text}")
    return "\n".join(lines) + "\n" if lines else ""


# --------------------------------------------------------------------------------------
# entry points


def _check_format(fmt: str) -> str:
    hint = (
        " ('parquet' is binary: use save_results)" if str(fmt).lower().strip() == "parquet" else ""
    )
    return check_format(fmt, FORMATS, hint)


def render(
    results: Result | Sequence[Result],
    fmt: str,
    per_query: bool = False,
    runid: bool = False,
    *,
    color: bool | None = None,
    summary: bool = True,
) -> str:
    """Render one result or several runs' results in format ``fmt`` (:data:`FORMATS`).

    Parameters
    ----------
    results:
        A :class:`~ranklens.Result` or a sequence of them, one per run.
    fmt:
        ``table``, ``json``, ``csv``, ``markdown`` (``md``), ``latex`` (``tex``)
        or ``trec``.
    per_query:
        Include per-query values (JSON: a ``per_query`` entry; CSV, Markdown,
        LaTeX, table: one row per run and query; trec: trec_eval ``-q``).
    runid:
        trec format only: print the ``runid`` line at the top of each summary.
    color:
        table format only: ANSI styles (``None``: only if stdout is a terminal).
    summary:
        With ``per_query``: ``False`` leaves out the aggregate over the queries
        (trec_eval ``-n``; CSV per query has none).
    """
    key = _check_format(fmt)
    renderers: dict[str, Callable[[], str]] = {
        "table": lambda: render_table(results, per_query, color=color, summary=summary),
        "json": lambda: render_json(results, per_query, summary),
        "csv": lambda: render_csv(results, per_query),
        "markdown": lambda: render_markdown(results, per_query, summary),
        "latex": lambda: render_latex(results, per_query, summary),
        "trec": lambda: render_trec(results, per_query, runid=runid, summary=summary),
    }
    return renderers[key]()


def save_results(
    results: Result | Sequence[Result],
    path: str | os.PathLike[str],
    fmt: str | None = None,
    per_query: bool = False,
    *,
    runid: bool = False,
) -> None:
    """Write results to ``path``; the format comes from ``fmt`` or else from the
    suffix (:data:`SUFFIXES`: ``.json``, ``.csv``, ``.parquet``, ``.md``,
    ``.tex``, ``.txt`` for the plain-text table).  Parquet holds the same
    table as CSV (NaN as null)."""
    target = Path(path)
    if fmt is None:
        suffix = target.suffix.lower()
        if suffix not in SUFFIXES:
            raise FormatError(
                f"cannot tell the output format of {str(target)!r} from its suffix "
                f"{suffix or '(none)'!r}; use one of {', '.join(SUFFIXES)} or pass fmt= "
                f"(one of {', '.join(map(repr, (*FORMATS, 'parquet')))})."
            )
        key = SUFFIXES[suffix]
    else:
        key = "parquet" if str(fmt).lower().strip() == "parquet" else _check_format(fmt)
    items = _as_results(results)
    if key == "parquet":
        import pyarrow.parquet as pq

        table = _arrow_table(items, per_query)
        with atomic_path(target) as tmp:
            pq.write_table(table, tmp)
        return
    atomic_write(target, render(items, key, per_query, runid, color=False))
