"""``ranklens score``: compute classification, regression, clustering and entity
resolution metrics from the columns of one table.

Each metric is looked up in the registry; its kernel's arguments are filled
from the table by a small table per domain (:data:`DOMAINS`), which says for
every kernel argument name which command-line role supplies it:

========================  ====================================================
role                      columns
========================  ====================================================
``true``  (``--true``)    true classes / values / clusters / entity ids
``pred``  (``--pred``)    predicted classes / values / clusters / entity ids
                          (for the blocking metrics: the block key per record)
``score`` (``--score``,   one score or probability column (1-d), or one
``--proba``)              probability column per class, in sorted class order
``features``              the data ``X`` of internal clustering indices
(``--features``)
========================  ====================================================

Ranking metrics are computed by ``ranklens evaluate``; detection metrics need
boxes and are computed from Python (:mod:`ranklens.detection`).
"""

from __future__ import annotations

import difflib
import inspect
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click
import numpy as np

from ranklens.cli._common import (
    TABLE_FORMATS,
    InputTable,
    check_output,
    echo_warning,
    progress,
    read_input_table,
    stage,
    write_output,
)
from ranklens.cli._options import (
    budget_option,
    check_budget,
    format_option,
    output_option,
    quiet_option,
)
from ranklens.errors import (
    InputError,
    MetricNameError,
    MetricParameterError,
    RanklensError,
    UnsupportedError,
)
from ranklens.render.scores import FORMATS as OUTPUT_FORMATS

__all__ = ["DOMAINS", "ROLES", "score_cmd"]


@dataclass(frozen=True)
class Role:
    """Where the columns of one kind of data come from."""

    option: str
    what: str
    candidates: tuple[str, ...]  # column names tried when the option is not given


ROLES: dict[str, Role] = {
    "true": Role(
        "--true",
        "true values",
        (
            "y_true",
            "true",
            "label",
            "target",
            "truth",
            "actual",
            "labels_true",
            "true_entity",
            "true_entities",
            "entity_true",
        ),
    ),
    "pred": Role(
        "--pred",
        "predictions",
        (
            "y_pred",
            "pred",
            "prediction",
            "predicted",
            "labels_pred",
            "cluster",
            "pred_entity",
            "pred_entities",
            "entity_pred",
        ),
    ),
    "score": Role(
        "--score",
        "scores or probabilities",
        ("y_score", "score", "y_prob", "prob", "proba", "probability"),
    ),
    "features": Role("--features", "features", ()),
}


@dataclass(frozen=True)
class Arg:
    """One kernel argument: the role that supplies it and whether it is numeric."""

    role: str
    numeric: bool = False


# kernel argument name -> source, per domain; kernels' other arguments keep defaults
DOMAINS: dict[str, dict[str, Arg]] = {
    "classification": {
        "y_true": Arg("true"),
        "y_pred": Arg("pred"),
        "y_score": Arg("score", True),
        "y_prob": Arg("score", True),
    },
    "regression": {"y_true": Arg("true", True), "y_pred": Arg("pred", True)},
    "clustering": {
        "labels_true": Arg("true"),
        "labels_pred": Arg("pred"),
        "X": Arg("features", True),
        "labels": Arg("pred"),
    },
    "entity_resolution": {
        "true_entities": Arg("true"),
        "pred_entities": Arg("pred"),
        "blocks": Arg("pred"),
    },
}

# scalar kernel keywords outside the registry's parameters that --param may set
EXTRA_KEYWORDS: dict[str, tuple[str, ...]] = {
    "classification": ("pos_label",),
}


# ------------------------------------------------------------------------- metrics


@dataclass(frozen=True)
class _Job:
    label: str  # the metric as the user wrote it
    metric: Any  # ranklens.metrics.Metric
    bindings: dict[str, Arg]  # kernel argument -> source
    extra: dict[str, Any]  # EXTRA_KEYWORDS the kernel takes


def _unknown(text: str, family: str) -> MetricNameError:
    from ranklens.metrics.registry import known_names, lookup

    pool = [n for n in known_names() if (d := lookup(n)) is not None and d.domain in DOMAINS]
    close = difflib.get_close_matches(family.lower(), pool, n=4, cutoff=0.6)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    return MetricNameError(
        f"unknown metric {text!r}.{hint} Run `ranklens metrics` for the full list."
    )


def _parse_param(text: str) -> tuple[str, Any]:
    name, sep, raw = text.partition("=")
    name, raw = name.strip().lower(), raw.strip()
    if not sep or not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or not raw:
        raise MetricParameterError(
            f"--param {text!r}: expected name=value, e.g. --param average=macro."
        )
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return name, raw[1:-1]
    if re.fullmatch(r"[-+]?\d+", raw):
        return name, int(raw)
    try:
        return name, float(raw)
    except ValueError:
        return name, raw


def _plan(metrics: Sequence[str], params: Sequence[str]) -> list[_Job]:
    """Validate every metric and its parameters before any data is read."""
    from ranklens.metrics.grammar import parse_name
    from ranklens.metrics.registry import build_metric, lookup
    from ranklens.metrics.trec_names import translate_trec_name

    given = [_parse_param(p) for p in params]
    used: set[str] = set()
    takes: set[str] = set()
    jobs: list[_Job] = []
    for raw in dict.fromkeys(m.strip() for m in metrics):
        try:
            trec = translate_trec_name(raw)
        except MetricNameError:
            trec = None
        if trec is not None:
            family, inline, cutoff = trec
        else:
            parsed = parse_name(raw)
            family, inline, cutoff = parsed.family, parsed.params, parsed.cutoff
        defn = lookup(family)
        if defn is None:
            raise _unknown(raw, family)
        if defn.domain == "ranking":
            raise UnsupportedError(
                f"{raw!r} is a ranking metric; compute it with `ranklens evaluate QRELS RUN "
                f"-m {raw}`."
            )
        if defn.domain not in DOMAINS:
            raise UnsupportedError(
                f"{raw!r} is a {defn.domain} metric, which `ranklens score` does not "
                f"compute; use ranklens.{defn.domain} from Python."
            )
        kernel_args = inspect.signature(defn.kernel).parameters
        inline_names = {n.lower() for n, _ in inline}
        merged = list(inline)
        extra: dict[str, Any] = {}
        for name, value in given:
            if name in inline_names:
                used.add(name)
                continue  # the metric's own spelling wins
            if defn.param(name) is not None:
                merged.append((name, value))
                used.add(name)
            elif name in EXTRA_KEYWORDS.get(defn.domain, ()) and name in kernel_args:
                extra[name] = value
                used.add(name)
        metric = build_metric(raw, family, merged, cutoff)
        table = DOMAINS[defn.domain]
        bindings = {a: table[a] for a in kernel_args if a in table}
        missing = [
            a
            for a, p in kernel_args.items()
            if p.default is inspect.Parameter.empty
            and p.kind is not inspect.Parameter.VAR_KEYWORD
            and a not in bindings
            and defn.param(a) is None
        ]
        if missing:  # pragma: no cover - every registered kernel is mapped
            raise UnsupportedError(f"{raw!r}: cannot supply the argument(s) {missing}.")
        jobs.append(_Job(raw, metric, bindings, extra))
        takes.update(p.name for p in defn.params)
        takes.update(k for k in EXTRA_KEYWORDS.get(defn.domain, ()) if k in kernel_args)
    unused = [n for n, _ in given if n not in used]
    if unused:
        raise MetricParameterError(
            f"--param {unused[0]!r} is taken by none of the metrics "
            f"{', '.join(j.label for j in jobs)}; they take "
            f"{', '.join(map(repr, sorted(takes))) if takes else 'no parameters'}."
        )
    return jobs


# ------------------------------------------------------------------------- the table


def _find(t: InputTable, role: str, given: Sequence[str], who: str) -> list[str]:
    """The column names for a role: given (exactly, or comma-separated), else detected."""
    spec = ROLES[role]
    cols = t.columns
    if given:
        names: list[str] = []
        for g in given:
            parts = [g] if g in cols or "," not in g else [s.strip() for s in g.split(",")]
            for name in parts:
                if name not in cols:
                    raise InputError(
                        f"{t.path}: no column named {name!r} for the {spec.what}; the file "
                        f"has columns {cols}."
                    )
                names.append(name)
        return names
    lower = {c.lower(): c for c in cols}
    for cand in spec.candidates:
        if cand in lower:
            return [lower[cand]]
    if role == "features":
        raise click.UsageError(
            f"{who} needs the data it clusters: pass --features COL "
            "(repeatable, or comma-separated)."
        )
    option = "--score COL or --proba COL ..." if role == "score" else f"{spec.option} COL"
    raise InputError(
        f"{t.path}: cannot tell which column holds the {spec.what}; the file has columns "
        f"{cols}. Pass {option}."
    )


def _column(t: InputTable, name: str, numeric: bool) -> np.ndarray:
    import pyarrow as pa

    from ranklens.io import numbers

    col = t.table.column(name)
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if arr.null_count:
        i = int(np.flatnonzero(~np.asarray(arr.is_valid().to_numpy(zero_copy_only=False)))[0])
        raise InputError(
            f"{t.where(i)}: column {name!r} has an empty value; every row "
            "needs one (drop or impute it)."
        )
    if numeric:
        if pa.types.is_boolean(arr.type):
            arr = arr.cast(pa.int8())
        return numbers(arr, t.where, f"{name!r} value")
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    return np.asarray(arr.to_numpy(zero_copy_only=False))


def _data(
    t: InputTable, role: str, numeric: bool, cols: dict[str, Sequence[str]], who: str
) -> tuple[np.ndarray, list[str]]:
    names = _find(t, role, cols[role], who)
    arrays = [_column(t, n, numeric) for n in names]
    if role == "features" or (role == "score" and len(arrays) > 1):
        return np.column_stack(arrays), names
    return arrays[0], names


# ------------------------------------------------------------------------- values


def _plain(value: Any) -> Any:
    """A kernel's result as JSON-able Python: float, int or nested lists."""
    if isinstance(value, np.ndarray):
        return value.item() if value.ndim == 0 else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _pick(name: str, value: Any) -> Any:
    """A dict result's entry for the metric: its name, else its last word
    (``bcubed_precision`` -> ``precision``)."""
    if isinstance(value, dict):
        key = name if name in value else name.rsplit("_", 1)[-1]
        return value[key]
    return value


def _compute(job: _Job, t: InputTable, cols: dict[str, Sequence[str]]) -> tuple[Any, list[str]]:
    defn = job.metric.definition
    kwargs: dict[str, Any] = {}
    described: list[str] = []
    for arg, src in job.bindings.items():
        kwargs[arg], names = _data(t, src.role, src.numeric, cols, job.label)
        described.append(
            f"{arg} = column{'s' if len(names) > 1 else ''} {', '.join(map(repr, names))}"
        )
    kwargs.update(job.metric.params)  # the kernel's own defaults for the others
    kwargs.update(job.extra)
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = defn.kernel(**kwargs)
        except RanklensError as exc:
            raise type(exc)(f"{job.label}: {exc} ({'; '.join(described)})") from exc
        except (ValueError, TypeError) as exc:  # e.g. scikit-learn's own checks
            raise InputError(
                f"{job.label}: cannot compute it: {exc} ({'; '.join(described)})"
            ) from exc
    notes.extend(f"{job.label}: {w.message}" for w in caught)
    return _plain(_pick(defn.name, value)), notes


# ------------------------------------------------------------------------- command


@click.command("score")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    required=True,
    help="A metric (repeatable): accuracy, clf_f1, roc_auc, log_loss, rmse, r2, "
    "ari, silhouette, bcubed_f1, ...; parameters inline too: "
    "'clf_f1(average=macro)'. `ranklens metrics` lists them.",
)
@click.option(
    "--true",
    "true_col",
    multiple=True,
    help="Column of the true classes / values / clusters / entity ids.",
)
@click.option(
    "--pred",
    "pred_col",
    multiple=True,
    help="Column of the predicted classes / values / clusters / entity ids "
    "(blocking metrics: the block key of each record).",
)
@click.option(
    "--score",
    "score_col",
    multiple=True,
    help="Column of a binary score or probability (roc_auc, log_loss, ...).",
)
@click.option(
    "--proba",
    "proba_cols",
    multiple=True,
    help="Probability columns, one per class in sorted class order (repeatable).",
)
@click.option(
    "--features",
    "feature_cols",
    multiple=True,
    help="Feature columns of internal clustering indices (repeatable or comma-separated).",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="A parameter for every metric that takes it (repeatable), e.g. "
    "average=macro, beta=2, pos_label=spam.",
)
@format_option(OUTPUT_FORMATS)
@output_option
@click.option(
    "--input-format",
    type=click.Choice(TABLE_FORMATS),
    default=None,
    help="Format of TABLE when its suffix does not say.",
)
@quiet_option
@budget_option
def score_cmd(
    table: str,
    metrics: tuple[str, ...],
    true_col: tuple[str, ...],
    pred_col: tuple[str, ...],
    score_col: tuple[str, ...],
    proba_cols: tuple[str, ...],
    feature_cols: tuple[str, ...],
    params: tuple[str, ...],
    fmt: str,
    output: str | None,
    input_format: str | None,
    quiet: bool,
    memory: str | None,
) -> None:
    """Compute classification, regression, clustering or entity-resolution METRICs
    from the columns of TABLE (CSV, TSV, Parquet or JSON Lines, optionally
    compressed).  Columns not named are looked for under common names (y_true,
    label, y_pred, prediction, score, ...).  Ranking metrics: `ranklens evaluate`."""
    if len(true_col) > 1 or len(pred_col) > 1 or len(score_col) > 1:
        raise click.UsageError("--true, --pred and --score each name one column.")
    if score_col and proba_cols:
        raise click.UsageError(
            "pass either --score (one column) or --proba (one column per class), not both."
        )
    from ranklens.render.scores import render

    jobs = _plan(metrics, params)
    check_output(output)
    check_budget([table], memory)
    cols: dict[str, Sequence[str]] = {
        "true": true_col,
        "pred": pred_col,
        "score": score_col or proba_cols,
        "features": feature_cols,
    }
    values: dict[str, Any] = {}
    with progress(quiet):
        with stage(f"reading {table}"):
            data = read_input_table(table, "scored", fmt=input_format, option="--input-format")
        for job in jobs:
            with stage(f"computing {job.label}"):
                values[job.label], notes = _compute(job, data, cols)
            for note in notes:
                echo_warning(note)
    write_output(render(values, fmt), output)
