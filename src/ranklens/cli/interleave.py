"""``ranklens interleave``: interleaved lists from run files, and their analysis.

``ranklens interleave lists RUN_A RUN_B [RUN ...]`` writes the lists shown (two runs:
:func:`ranklens.online.interleaving.interleave`, more: ``multileave``), in TREC run
format with the team as the run tag (``--format trec``, one list per query) or as a
table (``csv``, ``jsonl``, ``parquet``: the columns of ``Interleaving.to_arrow``).
``ranklens interleave analyze CLICKS`` reads such a table with a click column (and
optionally a user column), credits the rankers and prints wins, ties, losses and the
preference with its interval and sign test
(:func:`ranklens.online.interleaving.analyze`; ``--format`` table, markdown, latex,
csv or json).

Errors are one sentence on stderr, never a traceback: exit code 3 for bad input data
or files, 2 for bad command-line usage.
"""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import (
    GuardedGroup,
    check_output,
    progress,
    read_input_table,
    stage,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli._inputs import read_runs
from ranklens.cli._options import (
    alpha_option,
    budget_option,
    check_budget,
    correction_option,
    format_option,
    interval_options,
    output_option,
    quiet_option,
    run_input_options,
    take_run_request,
)
from ranklens.errors import InputError
from ranklens.render.interleaving import FORMATS as ANALYSIS_FORMATS

__all__ = ["interleave_group"]

LIST_FORMATS = ("trec", "csv", "jsonl", "parquet")
METHODS = ("team_draft", "balanced", "probabilistic", "optimized")

interleave_group = GuardedGroup(
    "interleave",
    help="Interleaving: the lists to show from RUNS (lists), and the analysis of the "
    "clicks on them (analyze).",
)


@interleave_group.command("lists")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default="team_draft",
    show_default=True,
    help="Interleaving method (three runs or more: team_draft or probabilistic, multileaving).",
)
@click.option(
    "-k",
    "k",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Length of the interleaved lists.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed: the lists are a function of it and the query ids.",
)
@click.option(
    "--impressions",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Independent lists per query (needs a table --format).",
)
@click.option(
    "--tau",
    type=click.FloatRange(min=0),
    default=3.0,
    show_default=True,
    help="Softmax temperature of --method probabilistic.",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="--method probabilistic: how much of each ranking the softmax covers (default all of it).",
)
@click.option(
    "--credit-function",
    type=click.Choice(("linear", "inverse")),
    default="linear",
    show_default=True,
    help="--method optimized: the credit the lists are solved for.",
)
@click.option(
    "--ties",
    type=click.Choice(("trec", "input")),
    default="trec",
    show_default=True,
    help="Equal scores: document id descending (trec) or the order of the rows.",
)
@format_option(LIST_FORMATS, default="trec", text="Output format (trec: the team is the run tag)")
@output_option
@run_input_options
@quiet_option
def lists_cmd(
    runs: tuple[str, ...],
    method: str,
    k: int,
    seed: int,
    impressions: int,
    tau: float,
    depth: int | None,
    credit_function: str,
    ties: str,
    **params: Any,
) -> None:
    """Interleave (two RUNS) or multileave (three or more) the rankings of RUNS."""
    from ranklens.online.interleaving import interleave, multileave

    if len(runs) < 2:
        raise click.UsageError("give two RUNS or more (interleaving compares rankers).")
    request = take_run_request(runs, params)
    fmt = request.output.fmt
    if fmt == "trec" and impressions > 1:
        raise click.UsageError(
            f"--format trec holds one list per query; --impressions {impressions} needs "
            "--format csv, jsonl or parquet."
        )
    if len(runs) > 2 and method not in ("team_draft", "probabilistic"):
        raise click.UsageError(
            f"--method {method} compares two runs; with {len(runs)} runs use --method "
            "team_draft or probabilistic (multileaving)."
        )
    if depth is not None and method != "probabilistic":
        raise click.UsageError("--depth goes with --method probabilistic.")
    with progress(request.output.quiet), warnings_to_stderr():
        named = read_runs(request)
        with stage("interleaving"):
            common: dict[str, Any] = dict(
                k=k, seed=seed, tau=tau, impressions=impressions, depth=depth, ties=ties
            )
            if len(named) == 2:
                result = interleave(named, method, credit_function=credit_function, **common)
            else:
                result = multileave(named, method, **common)
    for note in result.notes:
        click.echo(f"ranklens: note: {note}", err=True)
    write_output(_lists_text(result, fmt), request.output.path)


def _lists_text(result: Any, fmt: str) -> str | bytes:
    """The lists as TREC run lines (the team as the tag), CSV, JSON Lines or Parquet."""
    table = result.to_arrow()
    if fmt == "trec":
        team = [t or "-" for t in table.column("team").to_pylist()]
        lines = [
            f"{q} Q0 {d} {p} {result.k - p + 1} {t}"
            for q, d, p, t in zip(
                table.column("query").to_pylist(),
                table.column("doc").to_pylist(),
                table.column("position").to_pylist(),
                team,
                strict=True,
            )
        ]
        return "\n".join(lines) + ("\n" if lines else "")
    if fmt == "csv":
        from ranklens.render.table import to_csv

        return to_csv(table)
    if fmt == "jsonl":
        import json

        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in table.to_pylist())
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())


@interleave_group.command("analyze")
@click.argument("clicks", metavar="CLICKS")
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default=None,
    help="The method that made the lists (it decides how clicks are credited); required.",
)
@click.option(
    "-k",
    "k",
    type=click.IntRange(min=1),
    default=None,
    help="--method optimized: the k of the lists (default: the longest list).",
)
@click.option(
    "--credit-function",
    type=click.Choice(("linear", "inverse")),
    default="linear",
    show_default=True,
    help="--method optimized: the credit the lists were solved for.",
)
@click.option(
    "--by",
    type=click.Choice(("query", "user", "impression")),
    default="query",
    show_default=True,
    help="The unit that wins, ties or loses.",
)
@click.option(
    "--click-column",
    default="click",
    show_default=True,
    help="Column of the clicks (0/1 or true/false) in CLICKS.",
)
@click.option(
    "--user-column",
    default=None,
    help="Column of the user of each impression (for --by user; default: 'user' if there is one).",
)
@alpha_option
@correction_option
@interval_options
@format_option(ANALYSIS_FORMATS)
@output_option
@quiet_option
@budget_option
def analyze_cmd(
    clicks: str,
    method: str | None,
    k: int | None,
    credit_function: str,
    by: str,
    click_column: str,
    user_column: str | None,
    alpha: float,
    correction: str,
    ci: str,
    n_resamples: int,
    seed: int | None,
    fmt: str,
    output: str | None,
    quiet: bool,
    memory: str | None,
) -> None:
    """Credit the rankers for the clicks in CLICKS (a table written by 'ranklens interleave
    lists', with a click column) and test which is preferred."""
    from ranklens.online.interleaving import Interleaving, analyze, credit
    from ranklens.render.interleaving import render

    if method is None:
        raise click.UsageError(
            "give --method: the method that made the lists decides how clicks are credited "
            f"({', '.join(METHODS)})."
        )
    check_output(output)
    check_budget([clicks], memory)
    with progress(quiet), warnings_to_stderr():
        # ids as text ("007" stays "007"); a table without them is refused by from_arrow
        ids = [
            (_named_or_first(c), "--format csv of 'ranklens interleave lists' and its column")
            for c in ("query", "doc")
        ]
        data = read_input_table(clicks, "clicks", text=ids)
        table = data.table
        if click_column not in data.columns:
            raise InputError(
                f"{clicks}: no column named {click_column!r} in the clicks table; it has "
                f"columns {data.columns}. Pass --click-column NAME."
            )
        users = user_column or ("user" if "user" in data.columns else None)
        if users is not None and users not in data.columns:
            raise InputError(
                f"{clicks}: no column named {users!r} in the clicks table; it has columns "
                f"{data.columns}. Pass --user-column NAME."
            )
        lists = Interleaving.from_arrow(
            table, method=method, k=k, credit_function=credit_function, where=clicks
        )
        clicked = _clicks(table, click_column, data.where)
        order = _row_order(table, lists)
        user_ids = None
        if users is not None:
            user_ids = _impression_users(table, users, order, lists, data.where)
        outcomes = credit(lists, clicked[order], users=user_ids)
        result = analyze(
            outcomes,
            by,
            alpha=alpha,
            ci=ci,
            n_resamples=n_resamples,
            seed=0 if seed is None else seed,
            correction=correction,
        )
    write_output(render(result, fmt), output)


def _named_or_first(name: str) -> Any:
    return lambda columns: name if name in columns else columns[0]


def _clicks(table: Any, column: str, where: Any) -> Any:
    """The click column as booleans: 0/1 or true/false, anything else refused with its
    line."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table.column(column).combine_chunks()
    if pa.types.is_boolean(col.type) and col.null_count == 0:
        return np.asarray(col.to_numpy(zero_copy_only=False), dtype=bool)
    if pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
        values = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
        bad = np.flatnonzero(~np.isin(values, (0.0, 1.0)))
        if bad.size == 0 and col.null_count == 0:
            return values == 1.0
        i = int(bad[0]) if bad.size else int(np.flatnonzero(pc.is_null(col).to_numpy())[0])
    else:
        i = 0
    raise InputError(
        f"{where(i)}: the click column {column!r} must hold 0/1 or true/false, got "
        f"{col[i].as_py()!r}."
    )


def _row_order(table: Any, lists: Any) -> Any:
    """The table's rows in the order of ``lists`` (by query, impression, position)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = table.num_rows
    query = table.column("query").combine_chunks().cast(pa.large_string())
    enc = pc.dictionary_encode(query)
    qcode = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    imp = (
        np.asarray(table.column("impression").to_numpy(), dtype=np.int64)
        if "impression" in table.column_names
        else np.zeros(n, dtype=np.int64)
    )
    pos = np.asarray(table.column("position").to_numpy(), dtype=np.int64)
    return np.lexsort((pos, imp, qcode))


def _impression_users(table: Any, column: str, order: Any, lists: Any, where: Any) -> Any:
    """One user per impression (every row of an impression must name the same user)."""
    import numpy as np
    import pyarrow as pa

    users = table.column(column).combine_chunks().cast(pa.large_string()).to_pylist()
    users = [users[i] for i in order]
    starts = lists.offsets[:-1]
    first = [users[s] for s in starts]
    per_row = np.repeat(np.arange(len(starts)), np.diff(lists.offsets))
    bad = next((j for j, u in enumerate(users) if u != first[per_row[j]]), None)
    if bad is not None:
        raise InputError(
            f"{where(int(order[bad]))}: user {users[bad]!r} differs from the user of the "
            f"other rows of its impression ({first[per_row[bad]]!r}); one impression is "
            "shown to one user."
        )
    return first
