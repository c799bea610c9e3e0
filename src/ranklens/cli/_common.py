"""Shared command-line plumbing: error handling and exit codes."""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from typing import Any

import click

from ranklens.errors import InputError, OutputPathError, RanklensError

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3


def _command(ctx: click.Context) -> click.Command:
    """The command a context runs (the subcommand, for a group)."""
    command = ctx.command
    while isinstance(command, click.Group) and ctx.invoked_subcommand:
        sub = command.get_command(ctx, ctx.invoked_subcommand)
        if sub is None:
            break
        command = sub
        if not isinstance(sub, click.Group):
            break
    return command


_KEYWORD = re.compile(r"\b([a-z][a-z_]*)=(?:'([^']*)'|<([^>]*)>)")


def cli_advice(message: str, command: click.Command) -> str:
    """A library message with its Python advice in the command's own words: a keyword
    the command has an option for becomes that option (``duplicates='max'`` ->
    ``--duplicates max``, ``missing='zero'`` -> ``--missing zero``, ``score=<column
    name>`` -> ``--score-col NAME``)."""
    options: dict[str, str] = {}
    for p in command.params:
        if isinstance(p, click.Option) and p.name:
            options[p.name] = max(p.opts, key=len)

    def swap(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)  # value None: a placeholder such as <name>
        for key in (name, f"{name}_col", name.removesuffix("_col") + "_col"):
            if key in options:
                return f"{options[key]} {value if value is not None else 'NAME'}"
        return m.group(0)

    def name_only(m: re.Match[str]) -> str:
        return options.get(m.group(1), m.group(1)) + m.group(2)

    message = _KEYWORD.sub(swap, message)
    # "rel_threshold must be a finite number" -> "--rel-threshold must be ..."
    return re.sub(r"\b([a-z][a-z_]*)( must be\b)", name_only, message)


def run_guarded(fn: Callable[[], Any], ctx: click.Context) -> Any:
    """Run ``fn``; turn ranklens errors into one line on stderr and an exit code."""
    try:
        return fn()
    except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
        raise
    except RanklensError as exc:
        debug = bool((ctx.obj or {}).get("debug"))
        if debug:
            traceback.print_exc()
        click.echo(f"ranklens: error: {cli_advice(str(exc), _command(ctx))}", err=True)
        code = EXIT_BAD_INPUT if isinstance(exc, InputError) else EXIT_USAGE
        ctx.exit(code)
    except KeyboardInterrupt:  # pragma: no cover
        click.echo("ranklens: interrupted", err=True)
        ctx.exit(130)
    return None




def check_output(path: str | None, option: str = "-o") -> None:
    """Refuse, before any work, an output path that cannot be written: its folder
    must exist and it must not be a folder itself."""
    if path is None or path == "-":
        return
    import os

    parent = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise OutputPathError(f"{option} {path}: is a folder; give a file name inside it.")
    if not os.path.isdir(parent):
        raise OutputPathError(
            f"{option} {path}: the folder {os.path.dirname(path) or parent!r} does not exist; "
            "create it first or choose another path."
        )
    if not os.access(parent, os.W_OK):
        raise OutputPathError(f"{option} {path}: the folder is not writable.")


def write_output(text: str, path: str | None) -> None:
    """``text`` to the file ``path`` (ending in a newline), or to standard output."""
    if path is None or path == "-":
        click.echo(text.rstrip("\n"), color=True)  # never strip bytes of the ids
        return
    check_output(path)
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        raise OutputPathError(f"-o {path}: cannot write it: {exc.strerror}.") from None
