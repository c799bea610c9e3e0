"""``ranklens evaluate``, ``ranklens metrics`` and ``ranklens example``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from ranklens.cli._common import (
    check_output,
    echo_warning,
    progress,
    quiet_option,
    run_names,
    stage,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli._large import memory_options
from ranklens.cli.history import record_results, store_options, take_store
from ranklens.ranking.conventions import (
    IPREC_ROUNDING,
    MISSING_POLICIES,
    NO_RELEVANT_POLICIES,
    PROFILES,
    TIE_POLICIES,
    UNJUDGED_POLICIES,
)

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "recall@100")
# trec_eval's default ("official") measures, for --format trec without -m
TREC_OFFICIAL = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
# the -m all_trec list in trec_eval's output order (relstring, runid are not metrics)
ALL_TREC = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unj",
)
# trec_eval's default cutoffs of measures that take a list
TREC_DEFAULT_CUTOFFS = {
    "P": "5,10,15,20,30,100,200,500,1000",
    "recall": "5,10,15,20,30,100,200,500,1000",
    "ndcg_cut": "5,10,15,20,30,100,200,500,1000",
    "map_cut": "5,10,15,20,30,100,200,500,1000",
    "relative_P": "5,10,15,20,30,100,200,500,1000",
    "success": "1,5,10",
    "unj": "5,10,20",
    "iprec_at_recall": "0.00,0.10,0.20,0.30,0.40,0.50,0.60,0.70,0.80,0.90,1.00",
    "Rprec_mult": "0.20,0.40,0.60,0.80,1.00,1.20,1.40,1.60,1.80,2.00",
}
# trec_eval's measure nicknames (-m official, -m set, -m all_trec)
TREC_SET = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
)
NICKNAMES = {"official": TREC_OFFICIAL, "set": TREC_SET, "all_trec": ALL_TREC}
FORMATS = ("table", "json", "csv", "markdown", "latex", "trec")
INPUT_FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl", "json")


def split_measures(text: str) -> list[str]:
    """Several measures in one ``-m`` argument, separated by blanks as ir_measures
    writes them (``"nDCG@10 P@5 AP"``); blanks inside ``(...)``, ``[...]`` or
    ``{...}`` belong to a measure's parameters."""
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        if ch.isspace() and depth == 0:
            if current:
                parts.append(current)
            current = ""
        else:
            current += ch
    if current:
        parts.append(current)
    return parts


def check_measures(texts: Sequence[str]) -> None:
    """Every ``-m`` argument names a measure (``-m ''`` is refused, not read as none)."""
    for text in texts:
        if not split_measures(text):
            raise click.UsageError(
                f"-m {text!r} names no measure; give one, e.g. -m ndcg@10 "
                "(ranklens metrics lists them)."
            )


def expand_measures(given: Sequence[str]) -> list[str]:
    """Expand trec_eval conveniences: the nicknames ``official``, ``set`` and
    ``all_trec``, bare list measures (``P`` -> ``P.5`` ... ``P.1000``) and several
    cutoffs in one name (``P.5,10``), keeping trec_eval's order (cutoffs ascending
    within a measure) and dropping repeats; several blank-separated measures in one
    argument (ir_measures) count as several."""
    from ranklens.metrics import expand_trec_name
    from ranklens.metrics.trec_names import trec_base

    names = [
        n for text in given for item in split_measures(text) for n in NICKNAMES.get(item, (item,))
    ]
    # as trec_eval: a measure given several times takes the parameters of the first -m
    # that gives some (-m P.5,10 -m P.10,20 is P_5 and P_10; -m P -m P.7 is P_7); given
    # bare only, a list measure takes trec_eval's default cutoffs
    first: dict[str, str] = {}
    for name in names:
        base = trec_base(name)
        if base is not None and name.lower() != base.lower() and base not in first:
            first[base] = name  # a trec_eval spelling with parameters
    out: list[str] = []
    for name in names:
        base = trec_base(name)
        if base is not None and name.lower() != base.lower():
            name = first[base]
        elif base is not None and name == base:  # bare, in trec_eval's own spelling
            name = first.get(
                base,
                f"{base}.{TREC_DEFAULT_CUTOFFS[base]}" if base in TREC_DEFAULT_CUTOFFS else name,
            )
        parts = expand_trec_name(name)
        if len(parts) > 1:
            parts = sorted(parts, key=_cutoff_value)
        for p in parts:
            if p not in out:
                out.append(p)
    return out


def _trec_position(name: str) -> int:
    """A measure's place in trec_eval's output order (others after, as given)."""
    from ranklens.metrics.trec_names import trec_base

    base = trec_base(name)
    return ALL_TREC.index(base) if base in ALL_TREC else len(ALL_TREC)


def _cutoff_value(name: str) -> float:
    from ranklens.metrics import get_metric

    m = get_metric(name)
    return float(m.k) if m.k is not None else 0.0


def _choice(flag: str, choices: Sequence[str], text: str) -> Any:
    """A convention option: one of ``choices``, unset unless given."""
    return click.option(flag, type=click.Choice(choices), default=None, help=text)


def _conventions_options(fn: Any) -> Any:
    """The options that set the evaluation conventions (evaluate, compare, plot)."""
    options = [
        _choice("--profile", sorted(PROFILES), "Reproduce another tool's conventions at once."),
        _choice(
            "--ties", TIE_POLICIES, "How documents with equal scores are ordered (default trec)."
        ),
        _choice(
            "--missing",
            MISSING_POLICIES,
            "Queries in the qrels absent from the run (default skip; trec_eval -c is zero).",
        ),
        click.option(
            "-c",
            "complete",
            is_flag=True,
            help="trec_eval's -c: score missing queries as 0 (--missing zero).",
        ),
        _choice(
            "--no-relevant",
            NO_RELEVANT_POLICIES,
            "Queries without a relevant judgment (default zero).",
        ),
        _choice(
            "--unjudged",
            UNJUDGED_POLICIES,
            "Run queries without any judgment (default skip; zero scores them 0, as Spark does).",
        ),
        click.option(
            "--rel-threshold",
            "-l",
            type=float,
            default=None,
            help="Minimum relevance of a relevant document (default 1).",
        ),
        click.option(
            "--depth",
            "-M",
            type=click.IntRange(min=1),
            default=None,
            help="Keep only the first N documents of each ranking (trec_eval -M).",
        ),
        click.option(
            "--judged-only",
            "-J",
            "judged_only",
            is_flag=True,
            help="Throw out unjudged documents before scoring (trec_eval -J).",
        ),
        click.option(
            "--collection-size",
            "-N",
            "collection_size",
            type=click.IntRange(min=0),
            default=None,
            help="Number of documents in the collection (trec_eval -N; utility's "
            "non-relevant documents not retrieved).",
        ),
        _choice(
            "--iprec-rounding",
            IPREC_ROUNDING,
            "Rank for a recall level: lround (trec_eval 10) or legacy.",
        ),
    ]
    for opt in reversed(options):
        fn = opt(fn)
    return fn


def _conventions(
    profile: str | None,
    ties: str | None,
    missing: str | None,
    complete: bool,
    no_relevant: str | None,
    unjudged: str | None,
    rel_threshold: float | None,
    depth: int | None,
    iprec_rounding: str | None,
    cols: dict[str, Any],
) -> dict[str, Any]:
    """The convention options given (``-c`` as ``--missing zero``, ``-J`` and ``-N``
    taken out of ``cols``), checked before any file is read; keyword arguments for the library."""
    if complete:
        if missing not in (None, "zero"):
            raise click.UsageError(
                f"-c means --missing zero; do not combine it with --missing {missing}."
            )
        missing = "zero"
    given = dict(
        profile=profile,
        ties=ties,
        missing=missing,
        no_relevant=no_relevant,
        unjudged=unjudged,
        rel_threshold=rel_threshold,
        depth=depth,
        judged_only=cols.pop("judged_only", False) or None,
        collection_size=cols.pop("collection_size", None),
        iprec_rounding=iprec_rounding,
    )
    out = {k: v for k, v in given.items() if v is not None}
    from ranklens.ranking.conventions import resolve_conventions

    overrides = {k: v for k, v in out.items() if k != "profile"}
    resolve_conventions(None, profile, overrides)  # fail before any reading
    return out


def file_options(fn: Any) -> Any:
    """The options that say how to read the input files (evaluate, compare, plot)."""
    for opt in reversed(
        [
            click.option(
                "--query-col", default=None, help="Query id column of CSV/Parquet/JSONL files."
            ),
            click.option(
                "--doc-col", default=None, help="Document id column of CSV/Parquet/JSONL files."
            ),
            click.option("--score-col", default=None, help="Score column of run files."),
            click.option("--relevance-col", default=None, help="Relevance column of qrels files."),
            click.option(
                "--qrels-format",
                default=None,
                help=f"Qrels format if not given by the suffix: {', '.join(INPUT_FORMATS)}.",
            ),
            click.option(
                "--run-format",
                default=None,
                help=f"Run format if not given by the suffix: {', '.join(INPUT_FORMATS)}.",
            ),
            click.option(
                "--duplicates",
                type=click.Choice(("error", "max", "first", "last")),
                default="error",
                show_default=True,
                help="A (query, doc) pair given twice: an error, or keep the highest "
                "value, the first or the last row.",
            ),
        ]
    ):
        fn = opt(fn)
    return fn


def _read_inputs(
    qrels_path: str, run_paths: Sequence[str], opts: dict[str, Any], read_runs: bool = True
) -> tuple[Any, list[Any]]:
    """The qrels and (``read_runs``) the runs, read as the file options say."""
    from ranklens.io import read_qrels, read_run

    with warnings_to_stderr():
        return _read_files(qrels_path, run_paths, opts, read_qrels, read_run if read_runs else None)


def _read_files(
    qrels_path: str, run_paths: Sequence[str], opts: dict[str, Any], read_qrels: Any, read_run: Any
) -> tuple[Any, list[Any]]:
    from ranklens.io import detect_format

    tables = [(qrels_path, opts["qrels_format"])] + [(p, opts["run_format"]) for p in run_paths]
    for name in ("query", "doc", "score", "relevance"):
        if opts.get(f"{name}_col") is not None and all(
            detect_format(p, f)[0] == "trec" for p, f in tables
        ):
            raise click.UsageError(
                f"--{name}-col names a column, but every input is a TREC file, whose columns "
                "are fixed; leave it out."
            )
    with stage(f"reading {qrels_path}"):
        qrels = read_qrels(
            qrels_path,
            format=opts["qrels_format"],
            duplicates=opts.get("duplicates", "error"),
            **file_columns(qrels_path, opts["qrels_format"], ("query", "doc", "relevance"), opts),
        )
    runs = []
    for path in run_paths if read_run is not None else ():
        with stage(f"reading {path}"):
            runs.append(
                read_run(
                    path,
                    format=opts["run_format"],
                    duplicates=opts.get("duplicates", "error"),
                    **file_columns(path, opts["run_format"], ("query", "doc", "score"), opts),
                )
            )
    return qrels, runs


def file_columns(
    path: str, fmt: str | None, names: tuple[str, ...], opts: dict[str, Any]
) -> dict[str, Any]:
    """The column options for one file: none for a TREC file (fixed columns)."""
    from ranklens.io import detect_format

    trec = detect_format(path, fmt)[0] == "trec"
    return {n: None if trec else opts[f"{n}_col"] for n in names}


@click.command("evaluate")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "-m",
    "--metric",
    "metrics",
    multiple=True,
    help="A metric (repeatable): ndcg@10, map, P.5, all_trec, ... "
    "Default: ndcg@10 map mrr p@10 recall@100 (trec_eval's set with "
    "--format trec).",
)
@click.option("-q", "--per-query", is_flag=True, help="Also print every query's values.")
@click.option(
    "-n",
    "--no-summary",
    is_flag=True,
    help="With -q: leave out the aggregate over the queries (trec_eval -n).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    help="Output format; trec prints trec_eval's three columns.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file instead of standard output.",
)
@_conventions_options
@file_options
@store_options
@quiet_option
@memory_options
def evaluate_cmd(
    qrels: str,
    runs: tuple[str, ...],
    metrics: tuple[str, ...],
    per_query: bool,
    no_summary: bool,
    fmt: str,
    output: str | None,
    profile: str | None,
    ties: str | None,
    missing: str | None,
    complete: bool,
    no_relevant: str | None,
    unjudged: str | None,
    rel_threshold: float | None,
    depth: int | None,
    iprec_rounding: str | None,
    **cols: Any,
) -> None:
    """Evaluate one or more RUNS against QRELS.

    Several runs print one table, one row per run.  Files may be TREC, CSV,
    TSV, Parquet, JSON Lines or JSON (dict of dicts), optionally .gz/.bz2/.zst.
    """
    from ranklens.cli._large import evaluate_run_file
    from ranklens.io.stream import qrels_memory
    from ranklens.render.report import render

    if no_summary and not per_query:
        raise click.UsageError(
            "-n leaves out the summary, so give -q too (each query's "
            "values), or there is nothing to print."
        )
    check_measures(metrics)
    given = [m for text in metrics for m in split_measures(text) if m != "runid"]
    # trec_eval prints its runid line with its default measures, all_trec or -m runid
    runid = fmt == "trec" and (
        not metrics
        or any(m in ("runid", *NICKNAMES) for text in metrics for m in split_measures(text))
    )
    names = expand_measures(given or list(TREC_OFFICIAL if fmt == "trec" else DEFAULT_METRICS))
    if fmt == "trec":  # trec_eval prints its measures in its own order, whatever -m says
        names = sorted(names, key=_trec_position)
    store, tags = take_store(cols)
    conv = _conventions(
        profile,
        ties,
        missing,
        complete,
        no_relevant,
        unjudged,
        rel_threshold,
        depth,
        iprec_rounding,
        cols,
    )
    check_output(output)
    budget = cols.pop("memory"), cols.pop("temp_dir")
    qrels_memory(qrels, budget[0])  # large qrels refused before they are read
    with progress(cols.pop("quiet", False)):
        qrels_t, _ = _read_inputs(qrels, runs, cols, read_runs=False)  # runs: one at a time
        results = []
        for path in runs:
            with warnings_to_stderr(prefix=f"{path}: "), stage(f"evaluating {path}"):
                res = evaluate_run_file(
                    qrels_t,
                    path,
                    names,
                    conv,
                    cols,
                    *budget,
                    file_columns(path, cols["run_format"], ("query", "doc", "score"), cols),
                )
            results.append(res)
    for res, name in zip(results, run_names(runs, results), strict=True):
        object.__setattr__(res, "run_name", name)  # as compare, plot, report and gate name them
    _warn_different_queries(results)
    write_output(
        render(results, fmt, per_query=per_query, runid=runid, summary=not no_summary), output
    )
    record_results(store, tags, "evaluate", results)


def _warn_different_queries(results: list[Any]) -> None:
    """Runs evaluated on different queries have means that do not compare: say so (as
    compare does)."""
    sets = [set(r.query_ids) for r in results]
    if len(sets) < 2 or all(q == sets[0] for q in sets[1:]):
        return
    common = set.intersection(*sets)
    counts = ", ".join(f"{r.run_name}: {len(q)}" for r, q in zip(results, sets, strict=True))
    n_out = len(set.union(*sets) - common)
    echo_warning(
        f"the runs were evaluated on different queries ({counts}; {n_out} not in "
        "every run), so their means do not compare; -c scores the queries a run "
        "lacks as 0."
    )


@click.command("metrics")
@click.argument("name", required=False)
def metrics_cmd(name: str | None) -> None:
    """List every metric, or show the full definition of NAME."""
    from ranklens.metrics import REGISTRY, get_metric

    if name is None:
        width = max(len(n) for n in REGISTRY) + 2
        for defn in sorted(
            REGISTRY.values(), key=lambda d: (d.domain != "ranking", d.domain, d.name)
        ):
            aliases = [a for a in defn.aliases if a != defn.name]
            extra = f"  (aliases: {', '.join(aliases)})" if aliases else ""
            trec = f"  [trec_eval: {defn.trec_name}]" if defn.trec_name else ""
            domain = "" if defn.domain == "ranking" else f"  [{defn.domain}]"
            click.echo(f"{defn.name:<{width}}{defn.summary}{extra}{trec}{domain}")
        return
    from ranklens.metrics.registry import lookup

    found = lookup(name)
    # otherwise a full metric string or a trec_eval name
    defn = found if found is not None else get_metric(name).definition
    click.echo(f"{defn.name}: {defn.summary}")
    if defn.aliases:
        click.echo(f"aliases: {', '.join(defn.aliases)}")
    if defn.trec_name:
        click.echo(f"trec_eval name: {defn.trec_name}")
    cutoff = {
        "optional": "@k optional",
        "required": "@k required",
        "none": "no cutoff",
        "level": "@level (a recall level in [0, 1]) required",
        "multiple": "@x (a multiple of R) required",
    }[defn.cutoff]
    click.echo(f"cutoff: {cutoff}; aggregate over queries: {defn.aggregate}")
    lo, hi = defn.range if defn.range is not None else (float("-inf"), float("inf"))
    better = {True: "higher is better", False: "lower is better", None: "a count or diagnostic"}[
        defn.higher_is_better
    ]
    click.echo(f"family: {defn.domain}; values in [{lo:g}, {hi:g}]; {better}")
    click.echo("parameters:")
    for p in defn.all_params:
        choices = f" one of {', '.join(p.choices)}" if p.choices else ""
        click.echo(f"  {p.name} (default {p.default!r}){choices}: {p.doc}")
    click.echo("")
    click.echo(defn.doc)


@click.command("example")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table")
def example_cmd(fmt: str) -> None:
    """Evaluate the example run shipped with ranklens (checks an installation)."""
    from ranklens.cli.example import example_files, run_example
    from ranklens.render.report import render

    write_output(render([run_example()], fmt), None)
    if fmt == "table":  # the data formats stay machine-readable
        import shlex

        qrels, run = example_files()
        files = f"{shlex.quote(qrels)} {shlex.quote(run)}"
        click.echo(
            f"\nThe example files: {qrels}\n                   {run}\n"
            "Try next:\n"
            f"  ranklens evaluate {files} -m ndcg@10 -m P.5 -q\n"
            f"  ranklens evaluate {files} -m all_trec --format trec\n"
            "  ranklens metrics            (every metric, its definition and parameters)"
        )
