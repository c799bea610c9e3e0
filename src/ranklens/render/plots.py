"""Charts for comparing systems (matplotlib, an optional dependency, imported lazily).

Every function builds a :class:`matplotlib.figure.Figure` without touching
pyplot's global state (so nothing accumulates across calls and no GUI is
needed), saves it when ``path`` is given (PNG or SVG, chosen by the suffix)
and returns it.

- :func:`plot_cutoffs`: a metric at every cutoff k = 1..K, one line per system
  (the "where is the elbow" chart; :func:`ranklens.evaluate_cutoffs`).
- :func:`plot_pr_curves`: precision-recall curves, interpolated (trec_eval's
  11 points, :func:`ranklens.precision_recall_curve`) and raw (mean precision
  vs mean recall after each rank k).
- :func:`plot_differences`: per-query differences B - A, sorted, as bars.
- :func:`plot_distribution`: per-query values of several systems (box or
  histogram).
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import numpy as np

from ranklens._shared.deps import needs
from ranklens._shared.files import atomic_path
from ranklens.errors import InputError, RanklensWarning, UnsupportedError, warn_plainly
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.evaluation import Result

__all__ = [
    "IMAGE_SUFFIXES",
    "declared_range",
    "plot_cutoffs",
    "plot_differences",
    "plot_distribution",
    "plot_pr_curves",
]

IMAGE_SUFFIXES: tuple[str, ...] = (".png", ".svg")
PathLike = str | os.PathLike[str]


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _plain_warnings(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Our warnings raised while a chart is made (a run with unjudged queries, ...)
    told on one line without ranklens' file and line (:func:`ranklens.errors.
    warn_plainly`); other warnings (matplotlib's) as they were."""

    @functools.wraps(fn)
    def plotted(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        told: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    return fn(*args, **kwargs)
                finally:
                    told = list(caught)
        finally:  # outside the block: the caller's filters decide
            for w in told:
                if issubclass(w.category, RanklensWarning):
                    warn_plainly(w.message, w.category)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)

    return plotted


def _figure(width: float = 6.4, height: float = 4.2) -> Any:
    with needs("plot", "plotting"):
        import matplotlib
    if os.name != "nt" and not os.environ.get("DISPLAY") and not os.environ.get("MPLBACKEND"):
        matplotlib.use("Agg")
    with needs("plot", "plotting"):
        from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _check_path(path: PathLike | None) -> Path | None:
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in IMAGE_SUFFIXES:
        raise UnsupportedError(
            f"cannot save a chart as {p.name!r}: the file name must end in .png or .svg."
        )
    return p


def _save(fig: Any, path: Path | None) -> Any:
    if path is not None:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=path.suffix.lower()[1:], dpi=150)
    return fig


#: the most characters of a run name drawn in a legend, a tick label or a title
NAME_CHARS = 32
#: the most characters of a title line (a longer title is wrapped)
TITLE_CHARS = 64


def _short(name: object, chars: int = NAME_CHARS) -> str:
    """A run name that fits a chart (at most ``chars`` characters): a long one keeps its
    start and end around an ellipsis (run names often differ only at the end)."""
    text = str(name)
    if len(text) <= chars:
        return text
    head = (chars - 1) // 2
    return text[:head] + "\u2026" + text[len(text) - (chars - 1 - head) :]


def _literal(text: str) -> str:
    """Text drawn as written: matplotlib reads ``$...$`` as mathematics."""
    return text.replace("$", r"\$")


def _label(name: object) -> str:
    """A run name as a legend entry or tick label: shortened, drawn literally."""
    return _literal(_short(name))


def _title(ax: Any, text: str) -> None:
    """A title that fits the figure: wrapped into lines of :data:`TITLE_CHARS`."""
    import textwrap

    ax.set_title(_literal("\n".join(textwrap.wrap(text, TITLE_CHARS, break_long_words=True))))


def declared_range(metric: str) -> tuple[float, float] | None:
    """The catalogue's range of ``metric``'s values, for clamping a chart's axis (None:
    unbounded, or not a metric string).

    >>> declared_range("ndcg@10"), declared_range("dcg@10"), declared_range("nosuch")
    ((0.0, 1.0), (0.0, inf), None)
    """
    from ranklens.errors import MetricNameError
    from ranklens.metrics import get_metric

    try:
        m = get_metric(metric)
    except MetricNameError:
        return None
    rng = m.definition.value_range(m.resolved_params())
    return None if rng is None else (float(rng[0]), float(rng[1]))


def _clamp_y(ax: Any, metric: str) -> None:
    """Keep the y axis within the metric's declared range (and a small margin for the
    markers): matplotlib's margins would otherwise draw a [0, 1] metric from -0.05, a
    constant one from -0.4."""
    rng = declared_range(metric)
    if rng is None:
        return
    lo, hi = ax.get_ylim()
    width = rng[1] - rng[0] if np.isfinite(rng).all() else hi - lo
    pad = 0.03 * width
    lo, hi = max(lo, rng[0] - pad), min(hi, rng[1] + pad)
    if hi <= lo:
        lo, hi = rng[0] - pad, rng[1] + pad
    ax.set_ylim(lo, hi)


def _shared_queries(names: Sequence[str], query_sets: Sequence[set[str]]) -> None:
    """Several runs must have a query in common, or their charts do not compare."""
    if len(query_sets) > 1 and not set.intersection(*query_sets):
        counts = ", ".join(f"{n}: {len(q)}" for n, q in zip(names, query_sets, strict=True))
        raise InputError(
            f"the runs share no query ({counts} queries), so their charts do not "
            "compare; check that they answer the same topics."
        )


def _runs(runs: Mapping[str, Run] | Sequence[Run]) -> list[tuple[str, Run]]:
    """(name drawn, run) of each run; several runs must share a query."""
    items = (
        list(runs.items())
        if isinstance(runs, Mapping)
        else [(r.name or f"run{i}", r) for i, r in enumerate(runs, start=1)]
    )
    if not items:
        raise InputError("no run to plot: pass at least one ranklens.Run.")
    for name, r in items:
        if not isinstance(r, Run):
            raise InputError(f"{name!r} is a {type(r).__name__}, not a ranklens.Run.")
    _shared_queries([str(n) for n, _ in items], [set(r.query_ids) for _, r in items])
    return [(_label(n), r) for n, r in items]


def _longest(run: Run) -> int:
    """The length of the run's longest ranking."""
    return int(np.bincount(run._pairs.query_code).max(initial=0))


@_plain_warnings
def plot_cutoffs(
    qrels: Qrels,
    runs: Mapping[str, Run] | Sequence[Run],
    metric: str = "ndcg",
    max_k: int = 20,
    path: PathLike | None = None,
    **conventions: Any,
) -> Any:
    """Mean ``metric@k`` for k = 1..``max_k``, one line per run.

    ``metric`` is a metric without a cutoff (``p``, ``r``, ``f1``, ``ap``,
    ``ndcg``, ``dcg``, ``success``, ``rr``, ``arhr``, ... with parameters if
    needed); conventions as in :func:`ranklens.evaluate`.  k stops at the
    longest ranking of the runs (beyond it nothing changes but P@k's
    denominator), so a huge ``max_k`` costs nothing.
    """
    from ranklens.ranking.cutoffs import evaluate_cutoffs

    out = _check_path(path)
    named = _runs(runs)
    k = max(1, min(int(max_k), max(_longest(r) for _, r in named)))
    fig = _figure()  # says which extra to install when matplotlib is missing
    from matplotlib.ticker import MaxNLocator

    ax = fig.add_subplot()
    for name, run in named:
        cur = evaluate_cutoffs(qrels, run, [metric], k, **conventions)
        ax.plot(cur.ks, cur.curve(metric), marker="o", markersize=3, label=name)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("cutoff k")
    ax.set_ylabel(f"mean {metric}@k")
    _clamp_y(ax, metric)
    _title(ax, f"{metric} at every cutoff")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, out)


def _raw_pr(curve: Any, n_queries: int, max_rank: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean recall and precision after each rank k = 1..max_rank over queries (a
    query with fewer documents keeps its last values)."""
    rec = np.zeros((n_queries, max_rank))
    prec = np.zeros((n_queries, max_rank))
    keep = curve.rank <= max_rank
    q, k = curve.query[keep], curve.rank[keep] - 1
    rec[q, k] = curve.recall[keep]
    prec[q, k] = curve.precision[keep]
    filled = np.zeros((n_queries, max_rank), dtype=bool)
    filled[q, k] = True
    # carry each query's last value forward past its last rank
    idx = np.where(filled, np.arange(max_rank), 0)
    np.maximum.accumulate(idx, axis=1, out=idx)
    rows = np.arange(n_queries)[:, None]
    return rec[rows, idx].mean(axis=0), prec[rows, idx].mean(axis=0)


@_plain_warnings
def plot_pr_curves(
    qrels: Qrels,
    runs: Mapping[str, Run] | Sequence[Run],
    kind: str = "both",
    max_rank: int = 1000,
    path: PathLike | None = None,
    **conventions: Any,
) -> Any:
    """Precision-recall curves, one colour per run.

    ``kind="interpolated"``: mean interpolated precision at recall 0.0, 0.1,
    ..., 1.0 (trec_eval ``iprec_at_recall``); ``"raw"``: mean recall vs mean
    precision after each rank 1..``max_rank``; ``"both"`` (default) draws
    interpolated as solid and raw as dashed lines.
    """
    from ranklens.ranking.cutoffs import precision_recall_curve

    if kind not in ("interpolated", "raw", "both"):
        raise UnsupportedError(f"kind must be 'interpolated', 'raw' or 'both'; got {kind!r}.")
    out = _check_path(path)
    fig = _figure()
    ax = fig.add_subplot()
    cycle = [c["color"] for c in __import__("matplotlib").rcParams["axes.prop_cycle"]]
    for i, (name, run) in enumerate(_runs(runs)):
        color = cycle[i % len(cycle)]
        cur = precision_recall_curve(qrels, run, **conventions)
        if kind in ("interpolated", "both"):
            ax.plot(
                cur.levels,
                cur.mean_interpolated,
                marker="o",
                markersize=3,
                color=color,
                label=f"{name} (interpolated)" if kind == "both" else name,
            )
        if kind in ("raw", "both") and cur.rank.size:
            r, p = _raw_pr(cur, len(cur.query_ids), int(min(max_rank, cur.rank.max())))
            ax.plot(
                r, p, linestyle="--", color=color, label=f"{name} (raw)" if kind == "both" else name
            )
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    _title(ax, "precision-recall")
    ax.grid(alpha=0.3)
    ax.legend()
    return _save(fig, out)


def _aligned(a: Result, b: Result, metric: str) -> tuple[list[str], np.ndarray]:
    if not isinstance(a, Result) or not isinstance(b, Result):
        raise InputError("plot_differences takes two ranklens Results (ranklens.evaluate).")
    va, vb = a.per_query(metric), b.per_query(metric)
    ids = sorted(set(va) & set(vb))
    d = np.array([vb[q] - va[q] for q in ids], dtype=np.float64)
    keep = ~np.isnan(d)
    return [q for q, k in zip(ids, keep, strict=True) if k], d[keep]


@_plain_warnings
def plot_differences(
    a: Result,
    b: Result,
    metric: str,
    path: PathLike | None = None,
    labels: tuple[str, str] | None = None,
) -> Any:
    """Per-query differences ``B - A`` of ``metric``, sorted, as bars (green: B
    better, red: A better), on the queries both results have."""
    out = _check_path(path)
    name_a, name_b = labels or (a.run_name or "A", b.run_name or "B")
    _shared_queries([name_a, name_b], [set(a.query_ids), set(b.query_ids)])
    _, d = _aligned(a, b, metric)
    d = np.sort(d)[::-1]
    fig = _figure()
    ax = fig.add_subplot()
    colors = np.where(d > 0, "tab:green", np.where(d < 0, "tab:red", "tab:gray"))
    ax.bar(np.arange(d.size), d, width=1.0, color=colors.tolist())
    ax.axhline(0.0, color="black", linewidth=0.8)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    _title(
        ax,
        f"{metric}: {_short(name_b)} - {_short(name_a)} per query "
        f"({wins} better, {d.size - wins - losses} tied, {losses} worse)",
    )
    ax.set_xlabel("queries (sorted by difference)")
    ax.set_ylabel(f"difference in {metric}")
    return _save(fig, out)


@_plain_warnings
def plot_distribution(
    results: Mapping[str, Result] | Sequence[Result],
    metric: str,
    kind: str = "box",
    path: PathLike | None = None,
) -> Any:
    """Distribution of per-query ``metric`` values of each result: ``kind="box"``
    (box plot with the mean marked) or ``"hist"`` (overlaid histograms)."""
    if kind not in ("box", "hist"):
        raise UnsupportedError(f"kind must be 'box' or 'hist'; got {kind!r}.")
    out = _check_path(path)
    items = (
        list(results.items())
        if isinstance(results, Mapping)
        else [(r.run_name or f"run{i}", r) for i, r in enumerate(results, start=1)]
    )
    if not items:
        raise InputError("no result to plot: pass at least one ranklens Result.")
    data = []
    for name, r in items:
        if not isinstance(r, Result):
            raise InputError(f"{name!r} is a {type(r).__name__}, not a ranklens Result.")
        v = np.asarray(r.values[r._key(metric)], dtype=np.float64)
        data.append(v[~np.isnan(v)])
    _shared_queries([str(n) for n, _ in items], [set(r.query_ids) for _, r in items])
    names = [_label(n) for n, _ in items]
    fig = _figure()
    ax = fig.add_subplot()
    if kind == "box":
        ax.boxplot(data, tick_labels=names, showmeans=True)
        ax.set_ylabel(metric)
        _clamp_y(ax, metric)
    else:
        for name, v in zip(names, data, strict=True):
            ax.hist(v, bins=20, alpha=0.5, label=name)
        ax.set_xlabel(metric)
        ax.set_ylabel("queries")
        ax.legend()
    _title(ax, f"per-query {metric}")
    return _save(fig, out)
