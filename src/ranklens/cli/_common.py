"""Shared command-line plumbing: error handling and exit codes."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

import click

from ranklens.errors import InputError, RanklensError

EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3


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
        click.echo(f"ranklens: error: {exc}", err=True)
        code = EXIT_BAD_INPUT if isinstance(exc, InputError) else EXIT_USAGE
        ctx.exit(code)
    except KeyboardInterrupt:  # pragma: no cover
        click.echo("ranklens: interrupted", err=True)
        ctx.exit(130)
    return None


