"""``ranklens split NAME INTERACTIONS -o DIR``: one subcommand per splitter of
:data:`ranklens.recsys.splitters.files.SPLITTERS`, its options generated from the
splitter's declared parameters and :data:`~ranklens.recsys.splitters.files.SHARED_PARAMS`
(the user, item and time columns are ``--query-col``, ``--doc-col`` and
``--time-col``, as every command names its columns); the split files are written by
:func:`ranklens.recsys.split_to_files`."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import write_output
from ranklens.cli._options import quiet_option

__all__ = ["split_group"]

#: The option of a shared parameter whose name says a column in every other command.
_COLUMN_OPTIONS = {"user": "--query-col", "item": "--doc-col", "time": "--time-col"}
_COLUMN_WHAT = {"user": "User", "item": "Item", "time": "Timestamp"}


def _option_name(param: Any) -> str:
    return _COLUMN_OPTIONS.get(param.name, param.option)


def _param_option(param: Any) -> Any:
    """The click option of one :class:`~ranklens.recsys.splitters.files.SplitParam`:
    a flag for a parameter that is false by default, a choice, or text converted by
    the parameter's own ``convert`` (a bad value is a usage error naming the option)."""
    name = _option_name(param)
    default = "none" if param.default is None else str(param.default).lower()
    if param.name in _COLUMN_WHAT:
        text = f"{_COLUMN_WHAT[param.name]} column of INTERACTIONS (default {default})."
    else:
        said = "" if "default" in param.doc else f" (default {default})"
        text = f"{param.doc[:1].upper()}{param.doc[1:]}{said}."
    if param.type == "bool" and param.default is False:
        return click.option(name, param.name, is_flag=True, default=None, help=text)

    def convert(ctx: click.Context, p: click.Parameter, value: str | None) -> Any:
        if value is None:
            return None
        from ranklens.errors import InputError

        try:
            return param.convert(value)
        except InputError as exc:
            raise click.BadParameter(str(exc), ctx, p) from None

    kind: Any = click.Choice(param.choices) if param.choices else str
    metavar = None if param.choices else param.type.upper()
    return click.option(
        name, param.name, type=kind, default=None, metavar=metavar, callback=convert, help=text
    )


def _formats() -> tuple[str, ...]:
    from ranklens.io.tables import TABLE_FORMATS

    return tuple(TABLE_FORMATS)


def _splitter_command(defn: Any) -> click.Command:
    """The subcommand of one splitter."""
    from ranklens.recsys.splitters.files import SHARED_PARAMS

    def run(interactions: str, output: str, fmt: str, input_format: str | None, force: bool,
            quiet: bool, **given: Any) -> None:  # fmt: skip
        from ranklens.errors import InputError
        from ranklens.recsys import split_to_files

        params = {k: v for k, v in given.items() if v is not None}
        try:
            files = split_to_files(
                interactions,
                defn.name,
                output,
                format=fmt,
                params=params,
                input_format=input_format,
                overwrite=force,
            )
        except InputError as exc:  # the library's advice in this command's words
            text = str(exc).replace("pass overwrite=True", "pass --force")
            if text == str(exc):
                raise
            raise type(exc)(text) from None
        write_output(_table(files.rows()), None)
        if not quiet:
            click.echo(f"ranklens: {files.splitter} wrote {len(files.files)} file(s)", err=True)

    folds = {"one": "a train and a test file", "n_splits": "a train and a test file per fold",
             "stages": "a train and a test file per stage"}[defn.folds]  # fmt: skip
    fn: Any = run
    for p in reversed((*defn.params, *SHARED_PARAMS)):
        fn = _param_option(p)(fn)
    fn = quiet_option(fn)
    fn = click.option(
        "--force", is_flag=True, help="Overwrite split files that exist already in DIR."
    )(fn)
    fn = click.option(
        "--input-format",
        type=click.Choice(_formats()),
        default=None,
        help="Format of INTERACTIONS if the suffix does not say.",
    )(fn)
    fn = click.option(
        "--format",
        "fmt",
        type=click.Choice(_formats()),
        default="csv",
        show_default=True,
        help="Format of the split files.",
    )(fn)
    fn = click.option(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        type=click.Path(file_okay=False),
        help="Folder to write the split files into (made if missing).",
    )(fn)
    fn = click.argument("interactions", type=click.Path(dir_okay=False))(fn)
    return click.command(
        defn.name,
        help=f"{defn.summary[:1].upper()}{defn.summary[1:]}: writes {folds} of "
        "INTERACTIONS (every column kept) into DIR.",
        short_help=defn.summary,
    )(fn)


def _table(rows: list[dict[str, Any]]) -> str:
    from ranklens.render.table import Table, render_layout

    body: list[list[Any]] = [
        [r["path"], r["role"], "" if r["fold"] is None else str(r["fold"]), str(r["rows"])]
        for r in rows
    ]
    return render_layout(Table(["file", "role", "fold", "rows"], body, n_labels=2), "table", None)


def _group() -> click.Group:
    from ranklens.recsys.splitters.files import SPLITTERS

    group = click.Group(
        "split",
        help="Split an interaction log INTERACTIONS (user, item[, time, ...]) into train "
        "and test files in -o DIR, with one of the splitters below ('ranklens split NAME "
        "--help' lists its options).",
    )
    for defn in SPLITTERS.values():
        group.add_command(_splitter_command(defn))
    return group


split_group = _group()
