"""The one seam between the command line and the library: the shared options and the
typed request they build.

Every command that reads qrels and runs declares its options with
:func:`request_options` and receives one frozen :class:`Request`, built once per
invocation (conventions resolved once, metrics expanded once, output checked before
any reading).  The convention options are generated from the fields of
:class:`ranklens.ranking.conventions.Conventions`: their names, choices and help text
come from the library's declarations, so a new convention is an option of every
command at once.  Command modules import this layer (and ``_common``, ``_inputs``,
``_measures``) and the library's public API, never each other.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the library is imported when a command runs, not to declare it
    from ranklens.ranking.conventions import Conventions

__all__ = [
    "Inputs",
    "Output",
    "Request",
    "budget_option",
    "check_budget",
    "convention_options",
    "format_option",
    "input_options",
    "output_option",
    "quiet_option",
    "request_options",
    "run_input_options",
    "store_options",
    "take_inputs",
    "take_run_request",
]


# --------------------------------------------------------------------- the request


@dataclass(frozen=True)
class Inputs:
    """The input files of a command and how to read them."""

    qrels: str
    runs: tuple[str, ...]
    qrels_format: str | None = None
    run_format: str | None = None
    query_col: str | None = None
    doc_col: str | None = None
    score_col: str | None = None
    rank_col: str | None = None
    relevance_col: str | None = None
    duplicates: str = "error"
    memory: str | None = None
    temp_dir: str | None = None
    # diversity qrels (judged per intent): --intents / --qrels-format diversity,
    # --intent-col, --intent-weights
    intents: bool = False
    intent_col: str | None = None
    intent_weights: str | None = None
    # trec_eval -R: "prefs" (preference judgments) or "qrels_prefs" (qrels read as
    # preferences), from --qrels-format prefs|qrels_prefs; None: ordinary qrels
    prefs: str | None = None

    detected: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    """Each input's (format, compression), detected once when the request is built."""

    def format_of(self, path: str) -> str:
        """The format of the input ``path`` (``--qrels-format``/``--run-format``, else
        its suffix)."""
        return self.detected[path][0]

    def compressed(self, path: str) -> bool:
        return self.detected[path][1] is not None

    def run_columns(self, path: str) -> dict[str, Any]:
        """The column keywords of ``read_run`` for the run file ``path`` (none for TREC)."""
        if self.format_of(path) == "trec":
            return {}
        return {"query": self.query_col, "doc": self.doc_col, "score": self.score_col} | (
            {"rank": self.rank_col} if self.rank_col is not None else {}
        )

    def qrels_columns(self) -> dict[str, Any]:
        """The column keywords of ``read_qrels`` (none for TREC), and its intent keywords
        for diversity qrels."""
        intents: dict[str, Any] = (
            {"intents": True, "intent": self.intent_col, "weights": self.intent_weights}
            if self.intents
            else {}
        )
        if self.format_of(self.qrels) == "trec":
            return intents
        cols = {"query": self.query_col, "doc": self.doc_col, "relevance": self.relevance_col}
        return cols | intents


@dataclass(frozen=True)
class Output:
    """Where and how a command writes: ``--format``, ``-o``, ``--quiet``, and the results
    store it records into (``--store``, ``--tag``)."""

    fmt: str = "table"
    path: str | None = None
    quiet: bool = False
    store: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    """One command's request to the library, built once from its options."""

    inputs: Inputs
    metrics: tuple[str, ...] = ()  # expanded, in the order to report them
    conventions: Conventions | None = None  # None: no convention option given (defaults)
    output: Output = field(default_factory=Output)
    metric_args: tuple[str, ...] = ()  # the -m arguments as given

    def convention_kwargs(self) -> dict[str, Any]:
        """The keyword arguments that pass the conventions to the library (none when no
        convention option was given)."""
        return {} if self.conventions is None else {"conventions": self.conventions}


# -------------------------------------------------------------- convention options

#: Short spellings and trec_eval equivalents of some conventions (the names, choices
#: and descriptions are the library's).
_SHORT: dict[str, tuple[str, ...]] = {
    "rel_threshold": ("-l",),
    "depth": ("-M",),
    "judged_only": ("-J",),
    "collection_size": ("-N",),
}
_TREC_EVAL = {
    "missing": "trec_eval -c is zero, also spelt -c",
    "rel_threshold": "trec_eval -l",
    "depth": "trec_eval -M",
    "judged_only": "trec_eval -J",
    "collection_size": "trec_eval -N",
}
#: Fields of Conventions that are not command-line options (a profile sets them).
_NOT_OPTIONS = ("metric_defaults", "profile")


def _descriptions() -> dict[str, str]:
    """Each convention's description, the first sentence of its entry in the
    ``Attributes`` section of :class:`Conventions`' docstring."""
    from ranklens.ranking.conventions import Conventions

    doc = Conventions.__doc__ or ""
    out: dict[str, str] = {}
    name: str | None = None
    for line in doc.split("Attributes", 1)[-1].splitlines():
        m = re.fullmatch(r"    ([a-z_]+):\s*", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif name is not None and line.startswith("        "):
            out[name] += " " + line.strip()
    for key, text in out.items():
        text = re.sub(r":[a-z]+:`~?([^`<]+?)\s*(<[^>]*>)?`", r"\1", text)  # :attr:`X <y>` -> X
        text = text.replace("``", "").strip()
        first = re.split(r"(?<!i\.e\.)(?<!e\.g\.)(?<=[.])\s+", text, maxsplit=1)[0]
        out[key] = first
    return out


def _choices(name: str, value: Any) -> tuple[str, ...] | None:
    """The values a text convention accepts, as the library's check lists them."""
    from ranklens.errors import ConventionError
    from ranklens.ranking.conventions import Conventions

    try:
        probe: dict[str, Any] = {name: "\x00"}
        Conventions(**probe)
    except ConventionError as exc:
        m = re.search(r"choose one of (.*?)\.?$", str(exc))
        if m:
            found = ast.literal_eval(f"[{m.group(1)}]")
            if all(isinstance(c, str) for c in found):
                return tuple(found)
    except (TypeError, ValueError):  # pragma: no cover - a field of another kind
        return None
    return None


@functools.lru_cache(maxsize=1)
def _convention_params() -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """``(field, option decorator)`` for every convention (``--profile`` first)."""
    from ranklens.ranking.conventions import PROFILES, Conventions

    described = _descriptions()
    defaults = Conventions()
    made: list[tuple[str, Callable[[Any], Any]]] = [
        (
            "profile",
            click.option(
                "--profile",
                type=click.Choice(sorted(PROFILES)),
                default=None,
                help="Reproduce another tool's conventions at once (the options below "
                "override single ones).",
            ),
        )
    ]
    for f in dataclasses.fields(Conventions):
        if f.name in _NOT_OPTIONS:
            continue
        value = getattr(defaults, f.name)
        flags = (f"--{f.name.replace('_', '-')}", *_SHORT.get(f.name, ()))
        about = described.get(f.name, f.name.replace("_", " ").capitalize() + ".")
        about = about.removesuffix(".")
        said = _TREC_EVAL.get(f.name, "")
        trec = f"; {said}" if said and said.split(",")[0] not in about else ""
        shown = "none" if value is None else str(value).lower()
        text = f"{about} (default {shown}{trec})."
        kind: Any
        annotation = str(f.type)
        if annotation == "bool":
            made.append(
                (f.name, click.option(*flags, f.name, is_flag=True, default=None, help=text))
            )
            continue
        if annotation == "str":
            choices = _choices(f.name, value)
            kind = click.Choice(choices) if choices else str
        elif annotation.startswith("int"):  # a count (>= 0), a depth (>= 1) or None
            kind = click.IntRange(min=1 if "None" in annotation else 0)
        elif annotation.startswith("float"):
            kind = float
        else:  # pragma: no cover - a convention of another kind: its text, checked there
            kind = str
        made.append((f.name, click.option(*flags, f.name, type=kind, default=None, help=text)))
        if f.name == "missing":
            made.append(
                (
                    "complete",
                    click.option(
                        "-c",
                        "complete",
                        is_flag=True,
                        help="trec_eval's -c: score queries absent from a run as 0 "
                        "(--missing zero).",
                    ),
                )
            )
    return tuple(made)


def convention_names() -> tuple[str, ...]:
    """The parameter names the convention options add (``profile``, ``complete``, the
    fields of Conventions)."""
    return tuple(name for name, _ in _convention_params())


def convention_options(fn: Any) -> Any:
    """Every convention option (see the module's docstring)."""
    for _, opt in reversed(_convention_params()):
        fn = opt(fn)
    return fn


def take_conventions(params: dict[str, Any]) -> Conventions | None:
    """The :class:`Conventions` the options in ``params`` give (taken out of it), or
    None when none was given; checked before any file is read."""
    from ranklens.ranking.conventions import resolve_conventions

    given = {name: params.pop(name, None) for name in convention_names()}
    complete = bool(given.pop("complete", False))
    if complete:
        if given.get("missing") not in (None, "zero"):
            raise click.UsageError(
                f"-c means --missing zero; do not combine it with --missing {given['missing']}."
            )
        given["missing"] = "zero"
    if given.get("judged_only") is False:
        given["judged_only"] = None
    profile = given.pop("profile", None)
    overrides = {k: v for k, v in given.items() if v is not None}
    if profile is None and not overrides:
        return None
    return resolve_conventions(None, profile, overrides)


# -------------------------------------------------------------------- input options


def _duplicate_policies() -> tuple[str, ...]:
    from ranklens._shared.duplicates import DUPLICATE_POLICIES

    return DUPLICATE_POLICIES


def _input_formats() -> tuple[str, ...]:
    from ranklens.io import FORMATS

    return tuple(FORMATS)


def check_memory(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--memory``: a size of memory (``500MB``, ``2GB``, ``1.5GiB``: the one grammar of
    :func:`ranklens._shared.sizes.parse_size`), kept as given (the library's messages
    quote it)."""
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
    """``--memory SIZE`` and ``--temp-dir DIR``."""
    fn = click.option(
        "--temp-dir",
        type=click.Path(file_okay=False),
        default=None,
        help="Where an ungrouped run larger than the memory budget is spilled while it is "
        "grouped by query (default: the system's temporary folder).",
    )(fn)
    return click.option(
        "--memory",
        metavar="SIZE",
        callback=check_memory,
        default=None,
        help="Memory budget, e.g. 500MB, 2GB, 1.5GiB (default: half the available memory). "
        "A run that does not fit is streamed in blocks of whole queries, with the same "
        "numbers.",
    )(fn)


def budget_option(fn: Any) -> Any:
    """``--memory SIZE`` of a command that reads its inputs whole (score, detect, ab): an
    input that would not fit is refused before it is read (:func:`check_budget`)."""
    return click.option(
        "--memory",
        metavar="SIZE",
        callback=check_memory,
        default=None,
        help="Memory budget, e.g. 500MB, 2GB (default: none): an input that would not fit "
        "is refused before it is read (this command reads its inputs whole).",
    )(fn)


def check_budget(paths: Sequence[str | None], memory: str | None) -> None:
    """Refuse, before any reading, an input file whose estimated size in memory exceeds
    ``--memory`` (the library's estimate for its format: ``memory_needed``)."""
    if memory is None:
        return
    import os

    from ranklens._shared.sizes import format_size, parse_size
    from ranklens.errors import InputError
    from ranklens.io.stream import memory_needed

    budget = parse_size(memory, "memory")
    for path in paths:
        if path is None or not os.path.isfile(path):
            continue
        need = memory_needed(path)
        if need > budget:
            raise InputError(
                f"{path}: reading it would take about {format_size(need)} in memory, more "
                f"than --memory {memory}; give a larger --memory, or a smaller input."
            )


def _input_option_list() -> list[tuple[Any, ...]]:  # (name, option, ...)
    """The options of :func:`input_options`, in order, each with its parameter name."""
    formats = ", ".join(_input_formats())
    return [
        (
            "query_col",
            click.option(
                "--query-col", default=None, help="Query id column of CSV/Parquet/JSONL files."
            ),
        ),
        (
            "doc_col",
            click.option(
                "--doc-col", default=None, help="Document id column of CSV/Parquet/JSONL files."
            ),
        ),
        (
            "score_col",
            click.option(
                "--score-col",
                default=None,
                help="Score column of run files (higher is better).",
            ),
        ),
        (
            "rank_col",
            click.option(
                "--rank-col",
                default=None,
                help="Rank column of run files (1 = best), instead of a score column; a run "
                "table with no score column and a column named 'rank' is read as ranks.",
            ),
        ),
        (
            "relevance_col",
            click.option("--relevance-col", default=None, help="Relevance column of qrels files."),
        ),
        (
            "qrels_format",
            click.option(
                "--qrels-format",
                type=click.Choice((*_input_formats(), "diversity", "prefs", "qrels_prefs")),
                default=None,
                help=f"Qrels format if the suffix does not say: {formats}; diversity: TREC "
                "diversity qrels (query intent doc relevance), as --intents; prefs / qrels_prefs: "
                "trec_eval -R prefs (query jg jsg doc rel_level) / -R qrels_prefs, for the "
                "prefs_* measures with --format trec.",
            ),
        ),
        (
            "intents",
            click.option(
                "--intents",
                is_flag=True,
                default=None,
                help="The qrels judge each document per intent (subtopic): TREC `query "
                "intent doc relevance` lines, or a table with an intent column. Needed by "
                "the intent-aware metrics (alpha_ndcg, err_ia, nrbp, map_ia, p_ia, strec).",
            ),
        ),
        (
            "intent_col",
            click.option(
                "--intent-col",
                default=None,
                help="Intent column of CSV/Parquet/JSONL diversity qrels (implies --intents).",
            ),
        ),
        (
            "intent_weights",
            click.option(
                "--intent-weights",
                type=click.Path(dir_okay=False),
                default=None,
                help="Intent weights: `query intent weight` lines or a table (implies "
                "--intents; default: uniform).",
            ),
        ),
        (
            "run_format",
            click.option(
                "--run-format",
                type=click.Choice(_input_formats()),
                default=None,
                help=f"Run format if the suffix does not say: {formats}.",
            ),
        ),
        (
            "duplicates",
            click.option(
                "--duplicates",
                type=click.Choice(_duplicate_policies()),
                default="error",
                show_default=True,
                help="A (query, doc) pair given twice: an error, or keep the highest "
                "value, the first or the last row.",
            ),
        ),
    ]


def input_options(fn: Any, qrels: bool = True) -> Any:
    """The options that say how to read qrels and run files (``qrels=False``: run
    files only, as :func:`run_input_options`)."""
    if not qrels:
        return run_input_options(fn)
    for _, opt in reversed(_input_option_list()):
        fn = opt(fn)
    return fn


#: What the run options of :func:`run_input_options` leave out of :func:`input_options`.
_QRELS_ONLY = ("relevance_col", "qrels_format", "intents", "intent_col", "intent_weights")


def run_input_options(fn: Any) -> Any:
    """The options of :func:`input_options` that say how to read run files, for a
    command that reads runs and no qrels (``ranklens interleave lists``)."""
    for name, *opts in reversed(_input_option_list()):
        if name not in _QRELS_ONLY:
            for opt in reversed(opts):
                fn = opt(fn)
    return fn


_INPUT_PARAMS = (
    "intents",
    "intent_col",
    "intent_weights",
    "qrels_format",
    "run_format",
    "query_col",
    "doc_col",
    "score_col",
    "rank_col",
    "relevance_col",
    "duplicates",
)


def _take_inputs(qrels: str, runs: Sequence[str], params: dict[str, Any]) -> Inputs:
    """The :class:`Inputs` of the options in ``params`` (taken out of it), checked."""
    from ranklens.io import detect_format

    given = {k: params.pop(k, None) for k in _INPUT_PARAMS}
    given["duplicates"] = given["duplicates"] or "error"
    if given["qrels_format"] == "diversity":  # TREC diversity qrels
        given["qrels_format"], given["intents"] = "trec", True
    if given["qrels_format"] in ("prefs", "qrels_prefs"):  # trec_eval -R
        given["prefs"], given["qrels_format"] = given["qrels_format"], "trec"
    given["intents"] = bool(
        given["intents"] or given["intent_col"] is not None or given["intent_weights"]
    )
    memory, temp_dir = params.pop("memory", None), params.pop("temp_dir", None)
    detected = {qrels: detect_format(qrels, given["qrels_format"])} if qrels else {}
    detected |= {p: detect_format(p, given["run_format"]) for p in runs if p not in detected}
    inputs = Inputs(
        qrels, tuple(runs), memory=memory, temp_dir=temp_dir, detected=detected, **given
    )
    paths = [qrels, *runs] if qrels else list(runs)
    if paths.count("-") > 1:
        raise click.UsageError(
            "- (standard input) is given more than once; standard input can be read only "
            "once: give the other inputs as files."
        )
    if inputs.score_col is not None and inputs.rank_col is not None:
        raise click.UsageError(
            "--score-col and --rank-col both order a run; give one of them (--rank-col for "
            "ranks, 1 = best; --score-col for scores, higher = better)."
        )
    if inputs.score_col is not None and inputs.score_col.lower() == "rank":
        raise click.UsageError(
            f"--score-col {inputs.score_col}: a column named {inputs.score_col!r} holds ranks "
            "(1 = best), and read as scores (higher = better) they would put the worst "
            f"document first; pass --rank-col {inputs.score_col} (or rename the column if it "
            "really holds scores)."
        )
    files = [p for p in paths if "#" not in p or p == qrels]  # (not stored records)
    for name in ("query", "doc", "score", "rank", "relevance", "intent"):
        if getattr(inputs, f"{name}_col") is not None and all(
            inputs.format_of(p) == "trec" for p in files
        ):
            raise click.UsageError(
                f"--{name}-col names a column, but every input is a TREC file, whose columns "
                "are fixed; leave it out."
            )
    return inputs


def take_run_request(runs: Sequence[str], params: dict[str, Any]) -> Request:
    """The :class:`Request` of a command that reads ``runs`` and no qrels (``qrels`` is
    empty): the run options of ``params`` (taken out of it), checked as
    :func:`input_options`' are."""
    from ranklens.cli._common import check_output

    inputs = take_inputs(runs, params)
    output = params.pop("output", None)
    check_output(output)
    quiet = bool(params.pop("quiet", False))
    return Request(inputs, output=Output(params.pop("fmt", None) or "", output, quiet))


def take_inputs(runs: Sequence[str], params: dict[str, Any], qrels: str | None = None) -> Inputs:
    """The :class:`Inputs` of a command whose QRELS are optional (``ranklens fuse``'s
    ``--qrels``), from the :func:`input_options` in ``params`` (taken out of it);
    without qrels, ``Inputs.qrels`` is ``""``."""
    return _take_inputs(qrels or "", runs, params)


# ------------------------------------------------------------------- output options


def quiet_option(fn: Any) -> Any:
    """``--quiet``: no progress and no notes on standard error (errors and warnings
    about the data are still shown)."""
    return click.option(
        "--quiet",
        is_flag=True,
        help="Show no progress and no notes on standard error (shown only when it is "
        "a terminal; errors and warnings are still shown).",
    )(fn)


def output_option(
    fn: Any, *, required: bool = False, text: str = "Write to this file instead of standard output."
) -> Any:
    """``-o/--output FILE``."""
    # (no default=None: click 8.5 counts a given None as a value of a required option)
    return click.option(
        "-o", "--output", required=required, type=click.Path(dir_okay=False), help=text
    )(fn)


def format_option(
    formats: Sequence[str],
    default: str | None = "table",
    deprecated: Mapping[str, str] | None = None,
    text: str = "Output format",
) -> Callable[[Any], Any]:
    """``--format``: one of ``formats`` (a library's declared list); ``table`` is the
    human table everywhere.  A ``deprecated`` spelling still works, and warns."""
    old = dict(deprecated or {})

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value in old:
            from ranklens.cli._common import echo_warning

            echo_warning(
                f"--format {value} is deprecated and goes in the next release; pass "
                f"--format {old[value]}."
            )
            return old[value]
        return value

    shown = f" (default {default})" if default is not None else ""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice([*formats, *old]),
        default=default,
        callback=check,
        metavar="|".join(formats),
        help=f"{text}: {', '.join(formats)}{shown}.",
    )


def tag_pairs(texts: Sequence[str]) -> dict[str, str]:
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
    """``--store PATH`` (record into that results store) and ``--tag KEY=VALUE``."""
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
        help="Record every evaluation in this results store (SQLite; made if missing): "
        "see 'ranklens history'.",
    )(fn)


def take_store(params: dict[str, Any]) -> tuple[str | None, dict[str, str]]:
    """The ``--store`` path and ``--tag`` pairs (taken out of ``params``), checked before
    any input is read: the store must open (a foreign or corrupt file is refused) and
    take a record (a read-only one is refused)."""
    path, tags = params.pop("store", None), tag_pairs(params.pop("tags", ()) or ())
    if tags and path is None:
        raise click.UsageError("--tag labels what --store records; give --store PATH too.")
    if path is not None:
        import os

        from ranklens.errors import StoreError
        from ranklens.history import Store

        if os.path.exists(path):
            with Store(path, create=False) as store:  # a foreign or corrupt file fails here
                store.check_writable()  # and a read-only one, before any work
        elif not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise StoreError(f"--store {path}: the folder does not exist; create it first.")
    return path, tags


# -------------------------------------------------------------------- the decorator


def request_options(
    *,
    formats: Sequence[str] | None = None,
    deprecated_formats: Mapping[str, str] | None = None,
    metrics: bool = True,
    store: bool = True,
    output_required: bool = False,
    output_text: str = "Write to this file instead of standard output.",
    expand: Callable[[Sequence[str], str], Sequence[str]] | None = None,
    runs_of: Callable[[dict[str, Any]], tuple[str, ...]] | None = None,
    metric_help: str = "A metric (repeatable): ndcg@10, map, P.5, ... ('ranklens metrics' "
    "lists them). Default: ndcg@10 map mrr p@10 recall@100.",
    qrels: bool = True,
    conventions: bool = True,
) -> Callable[[Any], Any]:
    """The shared options of a command that reads QRELS and RUNS (its arguments
    ``qrels`` and ``runs``, or ``candidate``/``baseline`` for gate), and the one place
    that turns them into a :class:`Request`: the command function is called as
    ``fn(request, **its own options)``.

    ``formats``: the ``--format`` choices (None: no ``--format``); ``metrics``: a
    ``-m/--metric`` option, expanded by ``expand(given, fmt)``; ``store``:
    ``--store``/``--tag``; ``runs_of(params)``: the run paths when the command's
    arguments are not ``runs``; ``qrels=False``: a command without qrels (its request's
    ``inputs.qrels`` is empty); ``conventions=False``: no convention options (a command
    that compares runs with each other declares the few it reads itself)."""

    def decorate(fn: Any) -> Any:
        @functools.wraps(fn)
        def run(**params: Any) -> Any:
            from ranklens.cli._common import check_output

            qrels_path = params.pop("qrels") if qrels else ""
            paths = tuple(params.pop("runs")) if runs_of is None else runs_of(params)
            fmt = params.pop("fmt", None) if formats is not None else None
            given = tuple(params.pop("metrics", ()) or ()) if metrics else ()
            names: tuple[str, ...] = ()
            if metrics:
                from ranklens.cli._measures import check_measures

                check_measures(given)
                names = tuple(expand(given, fmt or "") if expand is not None else given)
            path, tags = take_store(params) if store else (None, {})
            conv = take_conventions(params) if conventions else None
            inputs = _take_inputs(qrels_path, paths, params)
            output = params.pop("output", None)
            check_output(output)
            quiet = bool(params.pop("quiet", False))
            out = Output(fmt or "", output, quiet, path, tags)
            return fn(Request(inputs, names, conv, out, given), **params)

        options: list[Callable[[Any], Any]] = []
        if metrics:
            options.append(
                click.option(
                    "-m",
                    "--metric",
                    "metrics",
                    multiple=True,
                    help=metric_help,
                )
            )
        if formats is not None:
            options.append(format_option(formats, "table", deprecated_formats))
        options.append(functools.partial(output_option, required=output_required, text=output_text))
        if conventions:
            options.append(convention_options)
        options.append(functools.partial(input_options, qrels=qrels))
        options.append(memory_options)
        if store:
            options.append(store_options)
        options.append(quiet_option)
        for opt in reversed(options):
            run = opt(run)
        return run

    return decorate


# ------------------------------------------------------------------ statistics options


def correction_option(fn: Any, default: str | None = "holm", over: str = "all tests") -> Any:
    """``--correction``: the one list of multiple-comparison corrections
    (:mod:`ranklens._shared.corrections`), the same for ``compare``, ``report``, ``ab
    analyze`` and ``gate`` (``default=None``: the rules file decides); statsmodels'
    deprecated spellings (``fdr_bh`` ...) still pass, and warn."""
    from ranklens._shared.corrections import CORRECTIONS, DEPRECATED

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        if value is not None and value not in CORRECTIONS and value not in DEPRECATED:
            import difflib

            close = difflib.get_close_matches(value, [*CORRECTIONS, *DEPRECATED], n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.BadParameter(
                f"{value!r} is not one of {', '.join(CORRECTIONS)}.{hint}", ctx, param
            )
        return value

    return click.option(
        "--correction",
        default=default,
        show_default=default is not None,
        callback=check,
        metavar="|".join(CORRECTIONS),
        help=f"Multiple-comparison correction over {over}: {', '.join(CORRECTIONS)} "
        f"({', '.join(DEPRECATED)} are deprecated spellings).",
    )(fn)


def alpha_option(fn: Any, default: float | None = 0.05, text: str = "Significance level.") -> Any:
    """``--alpha``: a level in (0, 1)."""
    return click.option(
        "--alpha",
        type=click.FloatRange(0, 1, min_open=True, max_open=True),
        default=default,
        show_default=default is not None,
        help=text,
    )(fn)


def interval_options(fn: Any, resamples: str = "Permutations / bootstrap resamples.") -> Any:
    """``--ci``, ``--n-resamples`` and ``--seed``: the library's interval methods."""
    from ranklens.comparison.stats import CI_METHODS

    for opt in reversed(
        [
            click.option(
                "--ci",
                type=click.Choice(CI_METHODS),
                default="t",
                show_default=True,
                help="Confidence interval method.",
            ),
            click.option(
                "--n-resamples",
                type=click.IntRange(min=1),
                default=10_000,
                show_default=True,
                help=resamples,
            ),
            click.option(
                "--seed",
                type=click.IntRange(min=0),
                default=None,
                help="Random seed (reproducible p-values and intervals).",
            ),
        ]
    ):
        fn = opt(fn)
    return fn


def stats_options(fn: Any) -> Any:
    """The options of the paired tests and intervals (compare, report): ``--test``
    (the library's tests), ``--correction``, ``--alpha``, ``--ci``, ``--n-resamples``,
    ``--seed``."""
    from ranklens.comparison.stats import TESTS

    fn = interval_options(fn)
    fn = alpha_option(fn)
    fn = correction_option(fn)
    return click.option(
        "--test",
        type=click.Choice(TESTS),
        default="randomization",
        show_default=True,
        help="Paired significance test.",
    )(fn)


def baseline_name(request: Request, names: Sequence[str], baseline: str | None) -> None:
    """``--baseline`` must name one of the runs (their names, as every command gives
    them)."""
    if baseline is not None and baseline not in names:
        raise click.UsageError(
            f"--baseline {baseline!r} is not a run name; the runs are {', '.join(names)}."
        )
