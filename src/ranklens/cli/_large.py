"""``ranklens evaluate --memory SIZE``: run files evaluated within a memory budget,
streamed when they are larger (:func:`ranklens.io.evaluate_files`)."""

from __future__ import annotations

import os
from typing import Any

import click

from ranklens.cli._common import echo_warning

__all__ = ["check_memory", "evaluate_run_file", "memory_options"]


def check_memory(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--memory``: a size of memory (``500MB``, ``2GB``, ``1.5GiB``: the one grammar of
    :func:`ranklens._shared.sizes.parse_size`), kept as given (the library parses it
    again and its messages quote it)."""
    from ranklens._shared.sizes import parse_size
    from ranklens.errors import InputError

    if value is None:
        return None
    try:
        parse_size(value, "memory")
    except InputError:
        raise click.BadParameter(
            f"{value!r} is not a size; give a number and a unit, e.g. --memory 500MB, "
            "--memory 2GB or --memory 1.5GiB (KB/MB/GB are powers of 1000, KiB/MiB/GiB of "
            "1024).",
            ctx,
            param,
        ) from None
    return value


def memory_options(fn: Any) -> Any:
    """The options ``--memory`` and ``--temp-dir``."""
    fn = click.option(
        "--temp-dir",
        type=click.Path(file_okay=False),
        default=None,
        help="Where an ungrouped run larger than the memory budget is "
        "spilled while it is grouped by query (default: the system's "
        "temporary folder).",
    )(fn)
    return click.option(
        "--memory",
        metavar="SIZE",
        callback=check_memory,
        default=None,
        help="Memory budget, e.g. 500MB, 2GB, 1.5GiB (default: half the available memory). "
        "A run that does not fit is streamed in blocks of whole queries, with the "
        "same numbers.",
    )(fn)


def evaluate_run_file(
    qrels: Any,
    path: str,
    names: list[str],
    conv: dict[str, Any],
    opts: dict[str, Any],
    memory: str | None,
    temp_dir: str | None,
    columns: dict[str, Any],
) -> Any:
    """One run file evaluated against the qrels: in memory when it fits the budget, else
    streamed (said on stderr when the budget is the default one)."""
    from ranklens._shared.sizes import format_size
    from ranklens.io._files import is_stream, output_compression
    from ranklens.io.stream import default_memory, evaluate_files, memory_needed

    fmt = opts["run_format"]
    # (a compressed file or a stream is always read in blocks, one when it is small: no
    # estimate of its size, and nothing to say)
    if (
        memory is None
        and not is_stream(path)
        and os.path.isfile(path)
        and output_compression(path) is None
    ):
        need, budget = memory_needed(path, fmt), default_memory()
        if need > budget:  # as fits_in_memory decides, with one look at the file
            echo_warning(
                f"{path} would take about {format_size(need)} in memory, more "
                f"than half the available memory ({format_size(budget)}): "
                "evaluating it in a stream of whole queries (same numbers); "
                "--memory SIZE sets the budget."
            )
    return evaluate_files(
        qrels,
        path,
        names,
        memory=memory,
        temp_dir=temp_dir,
        run_format=fmt,
        duplicates=opts["duplicates"],
        **columns,
        **conv,
    )
