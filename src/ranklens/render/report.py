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

import io
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ranklens.errors import FormatError, InputError
from ranklens.metrics.trec_names import trec_output_name
from ranklens.ranking.evaluation import Result

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
_FORMAT_ALIASES = {"md": "markdown", "tex": "latex"}

# families whose larger value is not "better" (counts) or whose smaller value is
_NO_BEST = frozenset({"num_q", "num_ret", "num_rel", "num_nonrel_judged_ret"})
_LOWER_IS_BETTER = frozenset({"unj", "rbp_resid"})

_NAN_TEXT = "NaN"  # missing values in the human-readable formats


# --------------------------------------------------------------------------------------
# trec_eval output names


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


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def display_id(text: str) -> str:
    """An id as shown in a table or report: control characters (newlines, tabs, ANSI
    escapes) written as ``\\xNN`` / ``\\uNNNN`` so that one id stays one cell and
    cannot restyle a terminal.  For display only: data formats (CSV, JSON, Parquet)
    keep ids exactly."""
    return _CONTROL.sub(lambda m: (f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                                   else f"\\u{ord(m.group()):04x}"), text)


def _labels(results: Sequence[Result]) -> list[str]:
    """Each run's name; unnamed runs are called run1, run2, ... by position."""
    return [r.run_name if r.run_name is not None else f"run{i}"
            for i, r in enumerate(results, start=1)]


def _metric_union(results: Sequence[Result]) -> list[str]:
    """Every metric of every result, in order of first appearance."""
    return list(dict.fromkeys(m for r in results for m in r.metrics))


def _aggregate_kind(results: Sequence[Result], metric: str) -> str:
    for r in results:
        if metric in r.parsed:
            return r.parsed[metric].definition.aggregate
    return "mean"  # pragma: no cover - every metric comes from some result


def _family(results: Sequence[Result], metric: str) -> str:
    for r in results:
        if metric in r.parsed:
            return r.parsed[metric].name
    return ""  # pragma: no cover


def _summary_matrix(results: Sequence[Result], metrics: Sequence[str]) -> np.ndarray:
    """(runs x metrics) aggregates; NaN where a run lacks a metric."""
    out = np.full((len(results), len(metrics)), np.nan)
    for i, r in enumerate(results):
        s = r.summary()
        for j, m in enumerate(metrics):
            if m in s:
                out[i, j] = s[m]
    return out


def _best_mask(results: Sequence[Result], metrics: Sequence[str],
               matrix: np.ndarray) -> np.ndarray:
    """Cells holding the best value of their metric (as printed, 4 decimals)."""
    best = np.zeros(matrix.shape, dtype=bool)
    if len(results) < 2:
        return best
    shown = np.round(matrix, 4)
    for j, m in enumerate(metrics):
        family = _family(results, m)
        col = shown[:, j]
        if family in _NO_BEST or np.isnan(col).all():
            continue
        target = np.nanmin(col) if family in _LOWER_IS_BETTER else np.nanmax(col)
        best[:, j] = col == target
    return best


def _format_numbers(values: np.ndarray, integer: bool) -> list[str]:
    """Four decimals (integers for summed counts); NaN as ``NaN``."""
    if integer:
        return [_NAN_TEXT if v != v else (f"{v:.0f}" if v.is_integer() else f"{v:.4f}")
                for v in values.tolist()]
    return [_NAN_TEXT if v != v else f"{v:.4f}" for v in values.tolist()]


def _grid(results: Sequence[Result], per_query: bool
          ) -> tuple[list[str], list[list[str]], list[list[bool]], int]:
    """Header, cell strings, bold flags and the number of label columns of the
    summary (``run`` + metrics) or per-query (``run``, ``query`` + metrics) table."""
    metrics = _metric_union(results)
    labels = _labels(results)
    integer = [_aggregate_kind(results, m) == "sum" for m in metrics]
    if not per_query:
        matrix = _summary_matrix(results, metrics)
        best = _best_mask(results, metrics, matrix)
        cols = [_format_numbers(matrix[:, j], integer[j]) for j in range(len(metrics))]
        rows = [[display_id(labels[i]), *(c[i] for c in cols)] for i in range(len(results))]
        bold = [[False, *best[i].tolist()] for i in range(len(results))]
        return ["run", *metrics], rows, bold, 1
    rows = []
    bold = []
    matrix = _summary_matrix(results, metrics)
    for i, (label, r) in enumerate(zip(labels, results, strict=True)):
        n = len(r.query_ids)
        cols = [_format_numbers(np.asarray(r.values[m]), integer[j]) if m in r.values
                else [_NAN_TEXT] * n for j, m in enumerate(metrics)]
        rows.extend([display_id(label), display_id(q), *cells]
                    for q, *cells in zip(r.query_ids, *cols, strict=True))
        # each run's block ends with its aggregate over the queries (trec_eval's "all")
        means = [_format_numbers(matrix[i, j:j + 1], integer[j])[0]
                 for j in range(len(metrics))]
        rows.append([display_id(label), "all", *means])
        bold.extend([[False] * (len(metrics) + 2)] * (n + 1))
    return ["run", "query", *metrics], rows, bold, 2


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
            cols[m] = (pa.array(np.asarray(r.values[m], dtype=np.float64), type=pa.float64(),
                                from_pandas=True)
                       if m in r.values else pa.nulls(n, type=pa.float64()))
        parts.append(pa.table(cols))
    return pa.concat_tables(parts)


# --------------------------------------------------------------------------------------
# formats


def render_table(results: Result | Sequence[Result], per_query: bool = False,
                 color: bool | None = None, max_width: int | None = None) -> str:
    """A rich table as text; ``color=None`` uses ANSI styles (bold) only when
    standard output is a terminal, ``False`` never, ``True`` always.

    A table wider than ``max_width`` (default: the terminal's width when standard
    output is a terminal, else no limit, so piped output is never cut) is printed
    with one metric per row (columns run[, query], metric, value) instead of
    wrapping."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    items = _as_results(results)
    header, rows, bold, n_labels = _grid(items, per_query)
    if color is None:
        color = _stdout_is_terminal()
    natural = sum(max([len(h), *(len(r[i]) for r in rows)]) + 3
                  for i, h in enumerate(header)) + 4
    limit = _terminal_width() if max_width is None else max_width
    if limit and natural > limit and len(header) > n_labels + 1:
        # wider than the terminal: one metric per row rather than wrapped columns
        metrics = header[n_labels:]
        rows = [[*row[:n_labels], m, row[n_labels + j]] for row in rows
                for j, m in enumerate(metrics)]
        bold = [[*flags[:n_labels], False, flags[n_labels + j]] for flags in bold
                for j in range(len(metrics))]
        header = [*header[:n_labels], "metric", "value"]
        n_labels += 1  # the metric column is a label too
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for i, name in enumerate(header):
        table.add_column(Text(name), justify="left" if i < n_labels else "right",
                         no_wrap=True)
    for row, flags in zip(rows, bold, strict=True):
        table.add_row(*(Text(cell, style="bold" if flag else "")
                        for cell, flag in zip(row, flags, strict=True)))
    # wide enough that nothing wraps: the table keeps its natural width
    width = sum(max([len(h), *(len(r[i]) for r in rows)]) + 3
                for i, h in enumerate(header)) + 4
    out = io.StringIO()
    console = Console(file=out, width=max(width, 20), height=25, force_terminal=color,
                      color_system="standard" if color else None, no_color=True,
                      highlight=False, markup=False, emoji=False, legacy_windows=False,
                      soft_wrap=False)
    console.print(table)
    text = out.getvalue()
    # rich pads nothing past the table, but keep lines free of trailing blanks
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def _terminal_width() -> int | None:
    """The terminal's width when standard output is one (None otherwise)."""
    if not _stdout_is_terminal():
        return None
    import shutil

    return shutil.get_terminal_size(fallback=(80, 24)).columns


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # pragma: no cover - closed or replaced stdout
        return False


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, (set, frozenset)):
        return sorted(obj, key=str)
    return str(obj)


def _json_value(v: float) -> float | None:
    return None if v != v else v


def render_json(results: Result | Sequence[Result], per_query: bool = False) -> str:
    """``{"runs": [{"run", "summary", "per_query"?, "conventions", "report"}]}``."""
    items = _as_results(results)
    runs = []
    for label, r in zip(_labels(items), items, strict=True):
        entry: dict[str, Any] = {
            "run": label,
            "summary": {m: _json_value(v) for m, v in r.summary().items()},
        }
        if per_query:
            entry["per_query"] = {
                m: dict(zip(r.query_ids, _nan_to_none(r.values[m]), strict=True))
                for m in r.metrics
            }
        entry["conventions"] = _clean_json(r.conventions.as_dict())
        entry["report"] = _clean_json(dict(r.report))
        runs.append(entry)
    return json.dumps({"runs": runs}, indent=2, ensure_ascii=False, allow_nan=False,
                      default=_json_default) + "\n"


def _clean_json(obj: Any) -> Any:
    """Mapping keys as strings and float NaN as None, recursively."""
    if isinstance(obj, Mapping):
        return {_json_key(k): _clean_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean_json(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return None if obj != obj else float(obj)
    return obj


def _json_key(key: Any) -> str:
    if isinstance(key, float) and key.is_integer():
        return str(int(key))
    return str(key)


def render_csv(results: Result | Sequence[Result], per_query: bool = False) -> str:
    """CSV with a header row; empty fields for missing values (NaN)."""
    import pyarrow.csv as pacsv

    buf = io.BytesIO()
    pacsv.write_csv(_arrow_table(_as_results(results), per_query), buf,
                    pacsv.WriteOptions(quoting_style="needed"))
    return buf.getvalue().decode("utf-8")


def _markdown_cell(text: str) -> str:
    """A Markdown table cell: the pipe and the backslash escaped, and HTML's special
    characters as entities (an id such as ``<script>`` shows as text)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("\\", "\\\\").replace("|", "\\|")


def render_markdown(results: Result | Sequence[Result], per_query: bool = False) -> str:
    """A GitHub pipe table; numbers right-aligned with four decimals."""
    header, rows, _, n_labels = _grid(_as_results(results), per_query)
    cells = [[_markdown_cell(c) for c in row] for row in [header, *rows]]
    widths = [max([3, *(len(row[i]) for row in cells)]) for i in range(len(header))]
    left = [i < n_labels for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if lft else c.rjust(w)
                                 for c, w, lft in zip(row, widths, left, strict=True)) + " |"

    rule = "|" + "|".join((":" + "-" * (w + 1)) if lft else ("-" * (w + 1) + ":")
                          for w, lft in zip(widths, left, strict=True)) + "|"
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])]) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_LATEX_RE = re.compile("|".join(map(re.escape, _LATEX_SPECIAL)))


def latex_escape(text: str) -> str:
    r"""Escape LaTeX's special characters (``P_5`` -> ``P\_5``)."""
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], text)


def render_latex(results: Result | Sequence[Result], per_query: bool = False) -> str:
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``); the best value of
    each metric in bold when there are several runs (summary only)."""
    header, rows, bold, n_labels = _grid(_as_results(results), per_query)
    spec = "l" * n_labels + "r" * (len(header) - n_labels)

    def line(row: Sequence[str], flags: Sequence[bool]) -> str:
        return " & ".join(rf"\textbf{{{latex_escape(c)}}}" if f else latex_escape(c)
                          for c, f in zip(row, flags, strict=True)) + r" \\"

    out = [
        rf"\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        line(header, [False] * len(header)),
        r"\midrule",
        *(line(r, f) for r, f in zip(rows, bold, strict=True)),
        r"\bottomrule",
        r"\end{tabular}",
    ]
    return "\n".join(out) + "\n"


def _trec_value_format(result: Result, metric: str) -> tuple[bool, bool]:
    """(printed as an integer, printed per query) for one metric."""
    defn = result.parsed[metric].definition
    return defn.aggregate == "sum", defn.aggregate != "gmean" and defn.name != "num_q"


def render_trec(results: Result | Sequence[Result], per_query: bool = False,
                runid: bool = False) -> str:
    """trec_eval's output: ``"%-22s\\t%s\\t%6.4f"`` lines.

    With ``per_query=True`` the per-query lines come first, query by query,
    each query's metrics in the order given (gm_map, gm_bpref and num_q are
    not printed per query, and a query whose value is NaN is left out, as
    trec_eval leaves out queries it did not evaluate); then the summary
    block (query ``all``), starting with ``runid`` when ``runid=True``.
    Summed counts (num_ret, num_rel, ...) print as integers.  Several runs
    print one block after another.
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
                    columns.append([None if v != v else f"{head}{display_id(q)}\t{int(v)}"
                                    for q, v in zip(r.query_ids, vals, strict=True)])
                else:
                    columns.append([None if v != v else f"{head}{display_id(q)}\t{v:6.4f}"
                                    for q, v in zip(r.query_ids, vals, strict=True)])
            lines.extend(s for row in zip(*columns, strict=True) for s in row if s is not None)
        if runid:
            lines.append(f"{'runid':<22}\tall\t{label}")
        for m, v in r.summary().items():
            integer = kinds[m][0] and v == v
            lines.append(f"{heads[m]}all\t{int(v)}" if integer else f"{heads[m]}all\t{v:6.4f}")
    return "\n".join(lines) + "\n" if lines else ""


# --------------------------------------------------------------------------------------
# entry points


def _check_format(fmt: str) -> str:
    key = fmt.lower().strip() if isinstance(fmt, str) else fmt
    key = _FORMAT_ALIASES.get(key, key)
    if key not in FORMATS:
        extra = " ('parquet' is binary: use save_results)" if key == "parquet" else ""
        raise FormatError(
            f"unknown output format {fmt!r}{extra}; choose one of "
            f"{', '.join(map(repr, FORMATS))}."
        )
    return str(key)


def render(results: Result | Sequence[Result], fmt: str, per_query: bool = False,
           runid: bool = False, *, color: bool | None = None) -> str:
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
    """
    key = _check_format(fmt)
    renderers: dict[str, Callable[[], str]] = {
        "table": lambda: render_table(results, per_query, color=color),
        "json": lambda: render_json(results, per_query),
        "csv": lambda: render_csv(results, per_query),
        "markdown": lambda: render_markdown(results, per_query),
        "latex": lambda: render_latex(results, per_query),
        "trec": lambda: render_trec(results, per_query, runid=runid),
    }
    return renderers[key]()


def save_results(results: Result | Sequence[Result], path: str | os.PathLike[str],
                 fmt: str | None = None, per_query: bool = False, *,
                 runid: bool = False) -> None:
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

        pq.write_table(_arrow_table(items, per_query), target)
        return
    text = render(items, key, per_query, runid, color=False)
    with open(target, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
