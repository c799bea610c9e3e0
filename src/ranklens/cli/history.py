"""``ranklens history``: the records of a results store (made by ``--store`` on
``evaluate``, ``compare`` and ``gate``), listed, filtered, or one shown."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import check_output, echo_warning, write_output
from ranklens.cli._options import format_option, output_option, quiet_option, tag_pairs

__all__ = ["history_cmd"]

FORMATS = ("table", "markdown", "csv", "json")


# --------------------------------------------------------------------------- history


def _time(value: str | None, option: str) -> Any:
    if value is None:
        return None
    from ranklens.errors import InputError
    from ranklens.history import parse_time

    try:
        parse_time(value, option)
    except InputError as exc:
        raise click.BadParameter(str(exc).replace(f"{option}=", ""), param_hint=option) from None
    return value


@click.command("history")
@click.argument("path", type=click.Path(dir_okay=False))
@click.argument("action", nargs=-1)
@click.option("--run", default=None, help="Only the records of this run.")
@click.option(
    "-m",
    "--metric",
    default=None,
    help="Only records holding this metric (as recorded, e.g. ndcg@10); the table "
    "shows that metric only.",
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="KEY=VALUE",
    help="Only records with this tag (repeatable: all must match).",
)
@click.option(
    "--since",
    default=None,
    help="Only records made at or after this time (UTC): 2026-11-01, "
    "2026-11-01T12:00, or a duration back from now: 30d, 2 weeks.",
)
@click.option(
    "--until", default=None, help="Only records made at or before this time (a date: its end)."
)
@click.option("-q", "--per-query", is_flag=True, help="show: every query's values too.")
@format_option(FORMATS)
@output_option
@quiet_option
def history_cmd(
    path: str,
    action: tuple[str, ...],
    run: str | None,
    metric: str | None,
    tags: tuple[str, ...],
    since: str | None,
    until: str | None,
    per_query: bool,
    fmt: str,
    output: str | None,
    quiet: bool,
) -> None:
    """List the records of the results store PATH, or show one: PATH show ID.

    Records are made by 'ranklens evaluate|compare|gate|recsys --store PATH'.  A
    record is named PATH#ID wherever a run is compared with (compare, gate
    --baseline).  A recsys record holds the metrics of all lists together
    (catalog coverage ...) with the per-user means, and, with --segments, the
    segment table, which 'show' prints after them.
    """
    from ranklens.history import Store

    if action and (
        action[0] != "show" or len(action) != 2 or not (action[1].isascii() and action[1].isdigit())
    ):  # not int('²')
        raise click.UsageError(
            f"unexpected {' '.join(action)!r}: write 'ranklens history "
            "PATH' to list the records or 'ranklens history PATH show ID'."
        )
    filters = dict(
        run=run,
        metric=metric,
        tags=tag_pairs(tags),
        since=_time(since, "--since"),
        until=_time(until, "--until"),
    )
    check_output(output)
    with Store(path, create=False) as store:
        if action:
            if any(v for v in filters.values()):
                raise click.UsageError(
                    "show takes no filter (--run, --metric, --tag, --since, --until)."
                )
            rec = store.get(int(action[1]))
            text = _render_record(rec, store.load_result(rec), per_query, fmt)
        else:
            records = store.records(**filters)
            if not records and not quiet:
                echo_warning(f"{path}: no record matches.")
            text = _render_list(records, metric, fmt)
    write_output(text, output)


def _verdict_word(passed: bool | None) -> str | None:
    """A gate's verdict kept with a record: ``passed`` / ``failed``; None when no gate
    judged it."""
    return None if passed is None else ("passed" if passed else "failed")


def _render_list(records: list[Any], metric: str | None, fmt: str) -> str:
    from ranklens.render.table import Table, display_id, number, render_as

    # the per-query metrics' means and the totals (metrics of the whole evaluation)
    metrics = [metric] if metric else list(dict.fromkeys(m for r in records for m in r.summary))

    def rows() -> list[dict[str, Any]]:
        return [
            {
                "id": r.id,
                "time": r.created.isoformat(),
                "run": r.run,
                "command": r.command,
                "verdict": _verdict_word(r.passed),
                "git_commit": r.git_commit,
                "tags": r.tags,
                "n_queries": r.n_queries,
                **{m: r.summary.get(m) for m in metrics},
            }
            for r in records
        ]

    def layout() -> Table:
        body: list[list[Any]] = [
            [
                str(r.id),
                r.created.strftime("%Y-%m-%d %H:%M:%S"),
                display_id(r.run or ""),
                r.command,
                _verdict_word(r.passed) or "",
                (r.git_commit or "")[:8],
                display_id(" ".join(f"{k}={v}" for k, v in r.tags.items())),
                *(number(r.summary[m]) if m in r.summary else "" for m in metrics),
            ]
            for r in records
        ]
        head = ["id", "time (UTC)", "run", "command", "verdict", "commit", "tags"]
        return Table([*head, *metrics], body, n_labels=len(head))

    def flat() -> Any:
        import pyarrow as pa

        return pa.Table.from_pylist(
            [
                {**row, "tags": " ".join(f"{k}={v}" for k, v in row["tags"].items())}
                for row in rows()
            ]
        )

    return render_as(fmt, layout=layout, records=flat, document=lambda: {"records": rows()})


def _render_record(rec: Any, result: Any, per_query: bool, fmt: str) -> str:
    from ranklens.render.table import Cell, Table, display_id, number, render_as

    about = {
        "id": rec.id,
        "time": rec.created.isoformat(),
        "run": rec.run,
        "command": rec.command,
        "git_commit": rec.git_commit,
        "ranklens": rec.version,
        "n_queries": rec.n_queries,
        "tags": rec.tags,
        "conventions": rec.conventions,
        "report": rec.report,
        "provenance": rec.provenance,
        **({} if rec.details is None else {"details": rec.details}),
    }
    totals = rec.totals

    def layout() -> Table:
        pre: list[Cell | str] = [
            f"record {rec.id} of {display_id(rec.path)}: run {display_id(rec.run or '')}, "
            f"{rec.created:%Y-%m-%d %H:%M:%S} UTC, by 'ranklens {rec.command}' "
            f"(ranklens {rec.version})",
            f"git commit: {rec.git_commit or 'none'}; tags: "
            f"{display_id(' '.join(f'{k}={v}' for k, v in rec.tags.items())) or 'none'}",
        ]
        if rec.provenance:
            p = rec.provenance
            # a fingerprint is None where its large table was gone before it was read
            qrels, run = ((p[k] or "unknown")[:16] for k in ("qrels", "run"))
            pre.append(
                f"qrels {qrels}, run {run} ({p['run_form']}), "
                f"conventions {p['conventions_fingerprint'][:16]}"
            )
            inputs = p.get("inputs") or {}
            if inputs:  # what a recommender's beyond-accuracy metrics read
                pre.append("inputs: " + ", ".join(f"{k} {str(v)[:16]}" for k, v in inputs.items()))
        if per_query:
            body: list[list[Cell | str]] = [
                [display_id(q), *(number(result.values[m][i]) for m in result.metrics)]
                for i, q in enumerate(result.query_ids)
            ]
            return Table(["query", *result.metrics], body, preamble=pre)
        body = [
            [f"{m} (all lists)" if m in totals else m, number(v)] for m, v in rec.summary.items()
        ]
        notes = (
            ["(all lists): a metric of the whole evaluation, not a mean over queries."]
            if totals
            else []
        )
        return Table(
            ["metric", f"mean over {rec.n_queries} queries"], body, preamble=pre, notes=notes
        )

    def flat() -> Any:
        if per_query:
            return result.to_arrow()
        import pyarrow as pa

        return pa.table({"metric": list(rec.summary), "value": list(rec.summary.values())})

    def document() -> dict[str, Any]:
        doc = {**about, "summary": rec.summary}
        if per_query:
            doc["per_query"] = result.per_query_all()
        return doc

    text = render_as(fmt, layout=layout, records=flat, document=document)
    segments = (rec.details or {}).get("segments")
    if fmt in ("table", "markdown") and isinstance(segments, dict) and not per_query:
        text = text.rstrip("\n") + "\n\n" + _segment_table(segments, fmt)
    return text


def _segment_table(segments: dict[str, Any], fmt: str) -> str:
    """The segment table a ``recsys --segments`` record holds, as that command prints
    it."""
    from ranklens.render.table import Table, display_id, number, render_layout

    rows = list(segments.get("rows") or [])
    by = str(segments.get("by", ""))
    metrics = [k for k in (rows[0] if rows else {}) if k not in ("segment", "n_queries")]
    body: list[list[Any]] = [
        [
            display_id(str(r.get("segment"))),
            str(r.get("n_queries")),
            *(number(r[m]) for m in metrics),
        ]
        for r in rows
    ]
    return render_layout(
        Table(
            ["segment", f"{by}s", *metrics],
            body,
            preamble=[f"segments of {by}s (--segments {by}):"],
        ),
        fmt,
        None,
    )
