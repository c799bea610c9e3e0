"""``ranklens history`` and the ``--store`` / ``--tag`` options of ``evaluate``,
``compare`` and ``gate`` (recording every evaluation in a results store), and
stored records as inputs (``results.db#ID``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from ranklens.cli._common import check_output, echo_warning, write_output

__all__ = ["history_cmd", "read_systems", "record_results", "store_options", "take_store"]

FORMATS = ("table", "markdown", "csv", "json")


def _tag_pairs(texts: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for text in texts:
        key, eq, value = text.partition("=")
        if not eq or not key.strip():
            raise click.BadParameter(
                f"{text!r}: write KEY=VALUE, e.g. --tag model=bm25.", param_hint="--tag"
            )
        out[key.strip()] = value.strip()
    return out


def store_options(fn: Any) -> Any:
    """``--store PATH`` and ``--tag KEY=VALUE`` (repeatable)."""
    fn = click.option(
        "--tag",
        "tags",
        multiple=True,
        metavar="KEY=VALUE",
        help="A tag recorded with each result (repeatable; with --store).",
    )(fn)
    return click.option(
        "--store",
        "store",
        default=None,
        metavar="PATH",
        help="Record every evaluation in this results store (SQLite; made "
        "if missing): see 'ranklens history'.",
    )(fn)


def take_store(cols: dict[str, Any]) -> tuple[str | None, dict[str, str]]:
    """The ``--store`` path and ``--tag`` pairs (taken out of ``cols``), checked before
    any input is read: the store must open (a foreign or corrupt file is refused)."""
    path, tags = cols.pop("store", None), _tag_pairs(cols.pop("tags", ()))
    if tags and path is None:
        raise click.UsageError("--tag labels what --store records; give --store PATH too.")
    if path is not None:
        import os

        from ranklens.errors import StoreError
        from ranklens.history import Store

        if os.path.exists(path):
            Store(path, create=False).close()  # a foreign or corrupt file fails here
        elif not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise StoreError(f"--store {path}: the folder does not exist; create it first.")
    return path, tags


def record_results(
    path: str | None,
    tags: dict[str, str],
    command: str,
    results: Sequence[Any],
    names: Sequence[str] | None = None,
) -> None:
    """Record ``results`` (named ``names``, default their run names) in the store at
    ``path`` (nothing without one); say so on stderr."""
    if path is None or not results:
        return
    from ranklens.history import Store, git_commit

    sha = git_commit()
    runs = names if names is not None else [r.run_name for r in results]
    with Store(path) as store:
        ids = [
            store.record(r, tags=tags, command=command, commit=sha, run=n)
            for r, n in zip(results, runs, strict=True)
        ]
    click.echo(
        f"ranklens: recorded {len(ids)} result(s) in {path} (id {', '.join(map(str, ids))})",
        err=True,
    )


def read_systems(
    qrels_path: str,
    paths: Sequence[str],
    cols: dict[str, Any],
    reader: Callable[..., tuple[Any, list[Any]]],
) -> tuple[Any, list[Any]]:
    """The qrels and, for each of ``paths``, a Run read from the file or the
    :class:`~ranklens.Result` of a stored record ``PATH#ID``."""
    from ranklens.history import load_ref, split_ref

    refs = [split_ref(p) for p in paths]
    qrels, runs = reader(
        qrels_path, [p for p, r in zip(paths, refs, strict=True) if r is None], cols
    )
    files = iter(runs)
    out = [
        next(files) if r is None else load_ref(p).result() for p, r in zip(paths, refs, strict=True)
    ]
    for path, ref, system in zip(paths, refs, out, strict=True):
        prov = None if ref is None else system.provenance
        if prov is not None and prov.same_qrels(fingerprint=qrels.fingerprint()) is False:
            echo_warning(
                f"{path} was evaluated on other qrels than {qrels_path} (content "
                f"fingerprints {str(prov.qrels)[:12]} and {qrels.fingerprint()[:12]}); "
                "its numbers may not compare with the others'."
            )
    return qrels, out


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
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file instead of standard output.",
)
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
) -> None:
    """List the records of the results store PATH, or show one: PATH show ID.

    Records are made by 'ranklens evaluate|compare|gate --store PATH'.  A
    record is named PATH#ID wherever a run is compared with (compare, gate
    --baseline).
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
        tags=_tag_pairs(tags),
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
            if not records:
                echo_warning(f"{path}: no record matches.")
            text = _render_list(records, metric, fmt)
    write_output(text, output)


def _render_list(records: list[Any], metric: str | None, fmt: str) -> str:
    from ranklens.render.table import Table, display_id, number, render_as

    metrics = [metric] if metric else list(dict.fromkeys(m for r in records for m in r.metrics))

    def rows() -> list[dict[str, Any]]:
        return [
            {
                "id": r.id,
                "time": r.created.isoformat(),
                "run": r.run,
                "command": r.command,
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
                (r.git_commit or "")[:8],
                display_id(" ".join(f"{k}={v}" for k, v in r.tags.items())),
                *(number(r.summary[m]) if m in r.summary else "" for m in metrics),
            ]
            for r in records
        ]
        return Table(["id", "time (UTC)", "run", "commit", "tags", *metrics], body, n_labels=5)

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
    }

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
        if per_query:
            body: list[list[Cell | str]] = [
                [display_id(q), *(number(result.values[m][i]) for m in result.metrics)]
                for i, q in enumerate(result.query_ids)
            ]
            return Table(["query", *result.metrics], body, preamble=pre)
        body = [[m, number(v)] for m, v in rec.summary.items()]
        return Table(["metric", f"mean over {rec.n_queries} queries"], body, preamble=pre)

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

    return render_as(fmt, layout=layout, records=flat, document=document)
