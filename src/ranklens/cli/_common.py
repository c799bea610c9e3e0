"""Shared command-line plumbing: the one error guard (:func:`run_guarded`,
:class:`GuardedGroup`), the one reader of input files (:func:`read_input_table`,
:func:`read_document`), warnings on stderr (:func:`warnings_to_stderr`) and the
one writer of output (:func:`check_output`, :func:`write_output`).

Exit codes: see :func:`exit_code` (the one table; the group's ``main`` applies it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ranklens.errors import FormatError, InputError, OutputPathError, RanklensError, RanklensWarning

EXIT_REGRESSION = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_INTERNAL = 4
EXIT_INTERRUPTED = 130


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
    name>`` -> ``--score-col NAME``, ``time=<column name>`` -> ``--time-column NAME``; a
    flag's ``name=True`` -> ``--flag``)."""
    options: dict[str, str] = {}
    metavars: dict[str, str] = {}
    flags: dict[str, str] = {}
    for p in command.params:
        if isinstance(p, click.Option) and p.name:
            options[p.name] = max(p.opts, key=len)
            if p.metavar and p.metavar.isupper():  # e.g. FILE
                metavars[p.name] = p.metavar
            if p.is_flag:
                flags[p.name] = options[p.name]

    def swap(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)  # value None: a placeholder such as <name>
        for key in (name, f"{name}_col", name.removesuffix("_col") + "_col", f"{name}_column"):
            if key in options:
                return f"{options[key]} {value if value is not None else metavars.get(key, 'NAME')}"
        return m.group(0)

    def name_only(m: re.Match[str]) -> str:
        return options.get(m.group(1), m.group(1)) + m.group(2)

    message = _KEYWORD.sub(swap, message)
    # "pass allow_different_qrels=True" -> "pass --allow-different-qrels"
    message = re.sub(
        r"\b([a-z][a-z_]*)=True\b", lambda m: flags.get(m.group(1), m.group(0)), message
    )
    # "rel_threshold must be a finite number" -> "--rel-threshold must be ..."
    return re.sub(r"\b([a-z][a-z_]*)( must be\b)", name_only, message)


class Reported(Exception):
    """A ranklens error, its message already in the command's own words (the group's
    ``main`` prints it and picks the exit code from :func:`exit_code`)."""

    def __init__(self, text: str, error: BaseException) -> None:
        super().__init__(text)
        self.text = text
        self.error = error


def exit_code(error: BaseException) -> int:
    """The exit code of an error: the one table of exit codes.

    0 success; 1 a regression (``gate``'s verdict, and nothing else); 2 a usage error
    (options, metric names, conventions, formats, output paths, a missing extra); 3 bad
    input data (:class:`~ranklens.errors.InputError` and every subclass: malformed
    files, stores, results that do not compare) or a file that cannot be read or
    written; 4 an internal error (a bug); 130 interrupted (Ctrl-C)."""
    if isinstance(error, Reported):
        return exit_code(error.error)
    if isinstance(error, (KeyboardInterrupt, click.exceptions.Abort)):
        return EXIT_INTERRUPTED
    if isinstance(error, click.exceptions.UsageError):
        return EXIT_USAGE
    if isinstance(error, InputError):
        return EXIT_BAD_INPUT
    if isinstance(error, RanklensError):
        return EXIT_USAGE
    if isinstance(error, OSError):
        return EXIT_BAD_INPUT
    return EXIT_INTERNAL


def run_guarded(fn: Callable[[], Any], ctx: click.Context) -> Any:
    """Run ``fn`` with every warning as one line on stderr; a ranklens error becomes
    :class:`Reported` (its advice in the command's own options)."""
    try:
        with warnings_to_stderr():
            return fn()
    except RanklensError as exc:
        if bool((ctx.obj or {}).get("debug")):
            traceback.print_exc()
        raise Reported(cli_advice(str(exc), _command(ctx)), exc) from exc


class GuardedGroup(click.Group):
    """A group whose sub-commands run under :func:`run_guarded`, and whose ``main`` is
    the one place where an error becomes one line on stderr and an exit code
    (:func:`exit_code`), never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        return run_guarded(lambda: super(GuardedGroup, self).invoke(ctx), ctx)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with contextlib.suppress(ValueError):  # (ValueError: not the main thread)
            # from here on, Ctrl-C is a KeyboardInterrupt, caught below
            signal.signal(signal.SIGINT, signal.default_int_handler)
        standalone = kwargs.pop("standalone_mode", True)
        if self.name == "ranklens":  # also for python -m ranklens
            kwargs.setdefault("prog_name", "ranklens")
        given = kwargs.get("args", args[0] if args else None)
        debug = "--debug" in (given if given is not None else sys.argv[1:])
        try:
            rv = click.Group.main(self, *args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
            sys.stdout.flush()  # a full device or a closed pipe fails here, not at exit
        except click.exceptions.UsageError as exc:
            hint = ""
            if exc.ctx is not None and exc.ctx.command_path:
                hint = f" (see '{exc.ctx.command_path} --help')"
            click.echo(f"ranklens: error: {exc.format_message()}{hint}", err=True)
            rv = EXIT_USAGE
        except click.exceptions.ClickException as exc:
            click.echo(f"ranklens: error: {exc.format_message()}", err=True)
            rv = exc.exit_code
        except Reported as exc:
            click.echo(f"ranklens: error: {exc.text}", err=True)
            rv = exit_code(exc)
        except (KeyboardInterrupt, click.exceptions.Abort) as exc:
            click.echo("ranklens: interrupted", err=True)
            rv = exit_code(exc)
        except OSError as exc:
            rv = _os_error(exc, debug)
        except Exception as exc:  # a bug: say so, in one line unless --debug
            if debug:
                traceback.print_exc()
            where = "" if debug else " (--debug shows the traceback)"
            click.echo(
                f"ranklens: internal error: {type(exc).__name__}: {exc}{where}; please report it.",
                err=True,
            )
            rv = EXIT_INTERNAL
        if not standalone:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def _os_error(exc: OSError, debug: bool) -> int:
    """A file that cannot be read or written outside our readers (one line naming it),
    or standard output that cannot take the output (a full device: one line; a closed
    pipe: silent)."""
    if debug:
        traceback.print_exc()
    if exc.filename:
        click.echo(f"ranklens: error: cannot use {exc.filename}: {exc.strerror or exc}.", err=True)
        return exit_code(exc)
    try:  # nothing more can be written to standard output: let the exit not try
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real stdout
        pass
    if exc.errno != errno.EPIPE:
        click.echo(f"ranklens: error: cannot write the output: {exc.strerror or exc}.", err=True)
    return exit_code(exc)


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
def warnings_to_stderr(
    prefix: str = "", loud: Callable[[str], bool] | None = None
) -> Iterator[None]:
    """Every warning raised inside as one line on stderr after the block (``prefix``
    first, e.g. the file it is about); ``loud(message)`` picks the loud ones."""
    from ranklens.errors import RanklensDeprecationWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RanklensWarning)
        warnings.simplefilter("always", RanklensDeprecationWarning)
        yield
    ctx = click.get_current_context(silent=True)
    for w in caught:
        message = str(w.message)  # a message that names its file already keeps its words
        text = message if prefix and message.startswith(prefix) else f"{prefix}{message}"
        if ctx is not None:  # Python advice in the command's own words
            text = cli_advice(text, _command(ctx))
        echo_warning(text, loud=loud is not None and loud(text))


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (progress is drawn only there)."""
    import sys

    return sys.stderr is not None and sys.stderr.isatty()


class _Bar:
    """The listener that draws the library's progress reports: one line per stage
    (``reading run.txt``, ``evaluating run.txt``, ``resampling``) with a bar and a
    percentage, on standard error."""

    def __init__(self, bars: Any) -> None:
        self.bars = bars
        self.label = ""
        self.kind: str | None = None  # the library task reported last in this stage
        self.task: Any = None

    def stage(self, label: str) -> None:
        self.label, self.kind = label, None
        self.task = self.bars.add_task(label, total=None)  # a pulse until a report comes

    def __call__(self, kind: str, done: float, total: float) -> None:
        if self.task is None:
            self.stage(kind)
        elif self.kind is not None and kind != self.kind:  # a new step of the stage
            self.bars.update(self.task, completed=1, total=1)
            self.task = self.bars.add_task(f"{self.label}: {kind}", total=None)
        elif self.kind is None and not self.label.startswith(kind):
            self.bars.update(self.task, description=f"{self.label}: {kind}")
        self.kind = kind
        self.bars.update(self.task, completed=done, total=max(total, 1))


_BAR: _Bar | None = None


@contextmanager
def progress(quiet: bool = False) -> Iterator[None]:
    """Long work inside the block shows its progress (a percentage per stage) on
    standard error when it is a terminal, unless ``quiet``; nothing otherwise (so
    piped or redirected output never gets control characters)."""
    global _BAR
    if quiet or not stderr_is_terminal() or _BAR is not None:
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    from ranklens._shared.progress import listening

    bars = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    _BAR = _Bar(bars)
    try:
        with bars, listening(_BAR):
            yield
    finally:
        _BAR = None


@contextmanager
def stage(label: str) -> Iterator[None]:
    """The work inside the block is ``label`` in the progress display (if shown)."""
    if _BAR is not None:
        _BAR.stage(label)
    yield


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
    from ranklens.io import COMPRESSIONS, detect_format

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
        f".jsonl{also}, optionally compressed (.gz, .bz2, .zst){how}."
    )


def read_input_table(
    path: str,
    what: str,
    *,
    fmt: str | None = None,
    text: Sequence[tuple[str | Callable[[list[str]], str], str]] = (),
    option: str | None = None,
    lines: bool = False,
) -> InputTable:
    """Read the ``what`` table (CSV, TSV, Parquet, JSON Lines, optionally compressed;
    with ``lines`` a .txt file or ``-`` holds one id per line, as column ``unit``) from
    a file or ``-`` (standard input, read once).  ``text`` names the columns to read
    as text, each with the option that names it (``("unit", "--unit-column")``: ids
    keep their leading zeros); they must exist.  A column the header decides is given
    as a function of the header's column names.  ``fmt`` overrides the suffix (the
    command's option ``option``).  Errors name the file and the 1-based line."""
    import pyarrow as pa

    from ranklens.io import read_bytes
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
        if table.num_rows == 0:
            raise InputError(f"{path}: the file holds no ids; write one id per line.")
        return InputTable(path, table, lambda i: f"{path}: id {i + 1}")
    table, first = read_table(
        path,
        kind,
        lambda cols: _text_columns(path, what, cols, text),
        text=tuple(f"text:{i}" for i in range(len(text))),
    )
    if table.num_rows == 0:
        raise InputError(f"{path}: the {what} table has no rows.")
    if kind == "parquet":
        return InputTable(path, table, lambda i: f"{path}: row {i + 1}")
    return InputTable(path, table, lambda i: f"{path}:{first + i}")


def _text_columns(
    path: str,
    what: str,
    columns: list[str],
    text: Sequence[tuple[str | Callable[[list[str]], str], str]],
) -> dict[str, str]:
    """Every column (read them all), and the ``text`` ones as roles ``text:i``: they
    must be among them."""
    out = {c: c for c in columns}
    for i, (given, option) in enumerate(text):
        name = given(columns) if callable(given) else given
        if name not in columns:
            raise InputError(
                f"{path}: no column named {name!r} in the {what} table; it has "
                f"columns {columns}. Pass {option} NAME."
            )
        out[f"text:{i}"] = name
    return out


_ROW = re.compile(r"\brow (\d+)\b")


@contextmanager
def lines_named(tables: dict[str, InputTable]) -> Iterator[None]:
    """A library error about a table read from a file names the file, and a row of
    it (0-based in the library) by the file's 1-based line (``events column 'value':
    row 3 is NaN`` -> ``events.csv:5: events column 'value' is NaN``).  ``tables``
    maps the first word of the library's messages (``events``, ``log``) to the table."""
    try:
        yield
    except InputError as exc:
        text = str(exc)
        first = re.match(r"^(\w+)\b", text)
        if first is None or first.group(1) not in tables:
            raise
        table = tables[first.group(1)]
        row = _ROW.search(text)
        if row is None:
            raise type(exc)(f"{table.path}: {text}") from None
        where = table.where(int(row.group(1)))
        # "<table ...>: row N is NaN" -> "<where>: <table ...> is NaN"; elsewhere in the
        # sentence, "row N" -> "line L" (Parquet: "row N", 1-based)
        if text[row.start() - 2 : row.start()] == ": " and ":" not in text[: row.start() - 2]:
            text = text[: row.start() - 2] + " " + text[row.end() + 1 :]
        else:
            spot = where[len(table.path) :].lstrip(":").strip()
            text = (
                text[: row.start()]
                + (f"line {spot}" if spot.isdigit() else spot)
                + text[row.end() :]
            )
        raise type(exc)(f"{where}: {text}") from None


def read_document(path: str, what: str) -> Any:
    """A JSON document (TOML for a .toml file) from a file or ``-``; errors name the
    file and the 1-based line."""
    import json

    from ranklens.io import read_bytes

    data = bytes(read_bytes(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: the {what} file is not valid UTF-8 text ({exc.reason})."
        ) from None
    if path.lower().endswith(".toml"):
        from ranklens._shared.toml import loads

        return loads(text, path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})."
        ) from None


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
    output (bytes only to a file).  A file is written to a temporary file beside it
    and renamed (:func:`ranklens._shared.files.atomic_write`), so a failed write
    leaves the previous file as it was."""
    if isinstance(data, bytes):
        if path is None or path == "-":
            raise click.UsageError("a binary format needs -o FILE.")
        _write(path, data)
        return
    if path is None or path == "-":
        click.echo(data.rstrip("\n"), color=True)  # never strip bytes of the ids
        return
    check_output(path)
    _write(path, data if data.endswith("\n") else data + "\n")


def _write(path: str, data: str | bytes) -> None:
    """``data`` written atomically to ``path``; a failure names the ``-o`` option."""
    from ranklens._shared.files import atomic_write

    try:
        atomic_write(path, data)
    except OutputPathError as exc:
        why = str(exc).split(": cannot write it: ", 1)[-1]
        raise OutputPathError(f"-o {path}: cannot write it: {why}") from None


# ------------------------------------------------------------------------ run names


def _stem(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".bz2", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return Path(name).stem or name


def run_names(paths: Sequence[str], runs: Sequence[Any]) -> list[str]:
    """Each run's name, the same in every command (evaluate, compare, plot, report,
    gate): its TREC run tag (a stored result's run name); where several runs share a
    tag, or a run has none, its file name (``bm25`` for ``bm25.run.gz``); a name still
    repeated gets ``-2``, ``-3``, ...

    >>> class R:
    ...     def __init__(self, name): self.name = name
    >>> run_names(["a.run", "b.run", "c.tsv", "x/c.tsv"], [R("bm25"), R("bm25"), R(None), R(None)])
    ['a', 'b', 'c', 'c-2']
    """
    from collections import Counter

    tags = [
        getattr(r, "run_name", None) if hasattr(r, "run_name") else getattr(r, "name", None)
        for r in runs
    ]
    shared = Counter(t for t in tags if t)
    out: list[str] = []
    for path, tag in zip(paths, tags, strict=True):
        base = tag if tag and shared[tag] == 1 else _stem(path)
        name, i = base, 1
        while name in out:
            i += 1
            name = f"{base}-{i}"
        out.append(name)
    return out


def parse_each(specs: Sequence[str], parse: Callable[[str], Any], option: str) -> list[Any]:
    """``parse`` of every text given to ``option``; a spec the library refuses is a usage
    error naming the option (exit 2)."""
    out = []
    for spec in specs:
        try:
            out.append(parse(spec))
        except RanklensError as exc:
            raise click.BadParameter(str(exc), param_hint=option) from None
    return out
