"""Shared command-line plumbing: the one error guard (:func:`run_guarded`,
:class:`GuardedGroup`), the one reader of input files (:func:`read_input_table`,
:func:`read_document`), warnings on stderr (:func:`warnings_to_stderr`) and the
one writer of output (:func:`check_output`, :func:`write_output`).

Exit codes: 0 success, 2 usage error, 3 bad input data, 1 any other failure.
"""

from __future__ import annotations

import re
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ranklens.errors import FormatError, InputError, OutputPathError, RanklensError, RanklensWarning

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
    name>`` -> ``--score-col NAME``, ``time=<column name>`` -> ``--time-column NAME``)."""
    options: dict[str, str] = {}
    for p in command.params:
        if isinstance(p, click.Option) and p.name:
            options[p.name] = max(p.opts, key=len)

    def swap(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)  # value None: a placeholder such as <name>
        for key in (name, f"{name}_col", name.removesuffix("_col") + "_col",
                    f"{name}_column"):
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


class GuardedGroup(click.Group):
    """A group whose sub-commands run under :func:`run_guarded` (one line on stderr
    and an exit code for our errors, never a traceback)."""

    def invoke(self, ctx: click.Context) -> Any:
        return run_guarded(lambda: super(GuardedGroup, self).invoke(ctx), ctx)


# --------------------------------------------------------------------------- warnings


def echo_warning(message: str, *, loud: bool = False) -> None:
    """One warning on stderr (``ranklens: warning: ...``); a loud one between two
    red bars (an A/B test's sample ratio mismatch)."""
    if not loud:
        click.echo(f"ranklens: warning: {message}", err=True)
        return
    bar = click.style("!" * 78, fg="red", bold=True)
    click.echo(bar, err=True)
    click.echo(click.style(f"ranklens: WARNING: {message}", fg="red", bold=True), err=True)
    click.echo(bar, err=True)


@contextmanager
def warnings_to_stderr(prefix: str = "", loud: Callable[[str], bool] | None = None
                       ) -> Iterator[None]:
    """Every warning raised inside as one line on stderr after the block (``prefix``
    first, e.g. the file it is about); ``loud(message)`` picks the loud ones."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RanklensWarning)
        yield
    for w in caught:
        message = str(w.message)  # a message that names its file already keeps its words
        text = message if prefix and message.startswith(prefix) else f"{prefix}{message}"
        echo_warning(text, loud=loud is not None and loud(text))


# --------------------------------------------------------------------------- reading

#: The table formats :func:`read_input_table` reads (``lines``: one id per line).
TABLE_FORMATS = ("csv", "tsv", "parquet", "jsonl")


@dataclass
class InputTable:
    """A table read from ``path``; ``where(i)`` names row ``i`` (0-based) in messages
    as the file and its 1-based line (``run.csv:7``), or row for Parquet."""

    path: str
    table: Any  # pyarrow.Table
    where: Callable[[int], str]

    @property
    def columns(self) -> list[str]:
        return list(self.table.column_names)


def _table_format(path: str, fmt: str | None, option: str | None, lines: bool) -> str:
    from ranklens.io._files import COMPRESSIONS, detect_format

    if fmt is not None:
        return fmt
    name = Path(path).name.lower()
    for suffix in COMPRESSIONS:
        name = name.removesuffix(suffix)
    suffix = Path(name).suffix
    kind = detect_format(path)[0]
    if kind in TABLE_FORMATS or kind == "json":
        return "jsonl" if kind == "json" else kind  # a table in JSON: one object a line
    if lines and (path == "-" or suffix in (".txt", ".ids")):
        return "lines"
    also = ", .txt (one id per line)" if lines else ""
    how = f", or pass {option}" if option else ""
    raise FormatError(
        f"{path}: unknown file type {suffix or '(no suffix)'!r}; use .csv, .tsv, .parquet, "
        f".jsonl{also}, optionally compressed (.gz, .bz2, .zst){how}.")


def read_input_table(path: str, what: str, *, fmt: str | None = None,
                     text: Sequence[tuple[str, str]] = (), option: str | None = None,
                     lines: bool = False) -> InputTable:
    """Read the ``what`` table (CSV, TSV, Parquet, JSON Lines, optionally compressed;
    with ``lines`` a .txt file or ``-`` holds one id per line, as column ``unit``) from
    a file or ``-`` (standard input, read once).  ``text`` names the columns to read
    as text, each with the option that names it (``("unit", "--unit-column")``: ids
    keep their leading zeros); they must exist.  ``fmt`` overrides the suffix (the
    command's option ``option``).  Errors name the file and the 1-based line."""
    import pyarrow as pa

    from ranklens.io._files import read_bytes
    from ranklens.io.tables import read_table

    kind = _table_format(path, fmt, option, lines)
    if kind == "lines":
        data = bytes(read_bytes(path))
        try:
            ids = [ln.strip() for ln in data.decode("utf-8").splitlines()]
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise InputError(f"{path}:{line}: not valid UTF-8 text.") from None
        table = pa.table({"unit": pa.array([i for i in ids if i], type=pa.string())})
        return InputTable(path, table, lambda i: f"{path}: id {i + 1}")
    if kind == "jsonl":
        return _read_jsonl(path, text)
    table, first = read_table(path, kind, lambda cols: _text_columns(path, what, cols, text),
                              text=tuple(c for c, _ in text))
    if table.num_rows == 0:
        raise InputError(f"{path}: the {what} table has no rows.")
    if kind == "parquet":
        return InputTable(path, table, lambda i: f"{path}: row {i + 1}")
    return InputTable(path, table, lambda i: f"{path}:{first + i}")


def _text_columns(path: str, what: str, columns: list[str],
                  text: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Every column (read them all); the ``text`` ones must be among them."""
    for name, option in text:
        if name not in columns:
            raise InputError(f"{path}: no column named {name!r} in the {what} table; it has "
                             f"columns {columns}. Pass {option} NAME.")
    return {c: c for c in columns}


def _read_jsonl(path: str, text: Sequence[tuple[str, str]]) -> InputTable:
    """JSON Lines; a line that is not a JSON object is named by its 1-based number."""
    import json

    import pyarrow as pa
    import pyarrow.json as pajson

    from ranklens.io._files import read_bytes

    buf = read_bytes(path)
    try:
        table = pajson.read_json(pa.BufferReader(buf))
    except pa.ArrowInvalid as exc:
        for number, line in enumerate(bytes(buf).splitlines(), start=1):
            try:
                if line.strip() and not isinstance(json.loads(line), dict):
                    raise ValueError("not a JSON object")
            except ValueError as err:  # JSONDecodeError and UnicodeDecodeError too
                raise InputError(f"{path}:{number}: not valid JSON Lines ({err}).") from None
        raise InputError(f"{path}: not valid JSON Lines ({exc}).") from None
    if table.num_rows == 0:
        raise InputError(f"{path}: the file is empty; expected one JSON object per line.")
    _text_columns(path, "input", list(table.column_names), text)
    return InputTable(path, table, lambda i: f"{path}:{i + 1}")


def read_document(path: str, what: str) -> Any:
    """A JSON document (TOML for a .toml file) from a file or ``-``; errors name the
    file and the 1-based line."""
    import json

    from ranklens.io._files import read_bytes

    data = bytes(read_bytes(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the {what} file is not valid UTF-8 text "
                         f"({exc.reason}).") from None
    if path.lower().endswith(".toml"):
        try:
            import tomllib
        except ImportError:  # Python 3.10
            raise InputError(f"{path}: reading TOML needs Python 3.11 or later; write the "
                             f"{what} as JSON instead.") from None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{path}: the {what} is not valid TOML ({exc}).") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column "
                         f"{exc.colno}).") from None


# --------------------------------------------------------------------------- writing


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


def write_output(data: str | bytes, path: str | None) -> None:
    """``data`` to the file ``path`` (text ending in a newline), or to standard
    output (bytes only to a file)."""
    if isinstance(data, bytes):
        if path is None or path == "-":
            raise click.UsageError("a binary format needs -o FILE.")
        _write(path, lambda: Path(path).write_bytes(data))
        return
    if path is None or path == "-":
        click.echo(data.rstrip("\n"), color=True)  # never strip bytes of the ids
        return
    check_output(path)
    _write(path, lambda: Path(path).write_text(data if data.endswith("\n") else data + "\n",
                                               encoding="utf-8"))


def _write(path: str, write: Callable[[], Any]) -> None:
    try:
        write()
    except OSError as exc:
        raise OutputPathError(f"-o {path}: cannot write it: {exc.strerror}.") from None
