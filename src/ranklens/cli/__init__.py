"""The ``ranklens`` command line.

Sub-commands live in modules of this package and are mounted on :data:`main`.
Errors are printed to stderr as one sentence, never a traceback (``--debug``
shows it); exit codes: 0 success, 2 usage error, 3 bad input data, 1 any
other failure.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ranklens.cli._common import EXIT_BAD_INPUT, EXIT_USAGE, GuardedGroup

__all__ = ["EXIT_BAD_INPUT", "main"]


class _Group(GuardedGroup):
    """A group whose sub-commands turn our exceptions into one-line errors, and
    whose usage errors are one line too (``ranklens: error: ...``, exit 2)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its module imported on first use (see :data:`_COMMANDS`)."""
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in _COMMANDS:
            import importlib

            module, attribute = _COMMANDS[cmd_name]
            found = getattr(importlib.import_module(module), attribute)
            self.add_command(found, cmd_name)
        return found

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone = kwargs.pop("standalone_mode", True)
        try:
            rv = click.Group.main(self, *args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.exceptions.UsageError as exc:
            hint = ""
            if exc.ctx is not None and exc.ctx.command_path:
                hint = f" (see '{exc.ctx.command_path} --help')"
            click.echo(f"ranklens: error: {exc.format_message()}{hint}", err=True)
            rv = EXIT_USAGE
        except click.exceptions.ClickException as exc:
            click.echo(f"ranklens: error: {exc.format_message()}", err=True)
            rv = exc.exit_code
        except click.exceptions.Abort:
            click.echo("ranklens: aborted", err=True)
            rv = 1
        if not standalone:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(name="ranklens", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the full traceback of an error.")
@click.version_option(package_name="ranklens")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """ranklens: exact, fast evaluation of ranking and other ML systems."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


# sub-commands: name -> (module, attribute).  A command's module is imported when the
# command runs (or when --help lists them all), so `ranklens evaluate` loads neither
# the statistics of compare nor the store of history.
_COMMANDS = {
    "evaluate": ("ranklens.cli.evaluate", "evaluate_cmd"),
    "metrics": ("ranklens.cli.evaluate", "metrics_cmd"),
    "example": ("ranklens.cli.evaluate", "example_cmd"),
    "compare": ("ranklens.cli.compare", "compare_cmd"),
    "plot": ("ranklens.cli.compare", "plot_cmd"),
    "report": ("ranklens.cli.report", "report_cmd"),
    "score": ("ranklens.cli.score", "score_cmd"),
    "detect": ("ranklens.cli.detect", "detect_cmd"),
    "ab": ("ranklens.cli.ab", "ab"),
    "gate": ("ranklens.cli.gate", "gate_cmd"),
    "history": ("ranklens.cli.history", "history_cmd"),
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
