"""Qrels and runs in tabular formats (CSV, TSV, Parquet, JSON Lines, JSON) and
the format-dispatching ``read_qrels`` / ``read_run`` / ``write_*``.

Column names are chosen by the caller or detected from common names
(``query``/``qid``/``user_id``, ``doc``/``docno``/``item_id``,
``relevance``/``label``/``rating``, ``score``/``prediction``), case-insensitively.
Ids are always read as text, so ``007`` stays ``007``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ranklens._shared.columns import scores_from_ranks
from ranklens._shared.files import atomic_path
from ranklens._shared.frames import pick_column
from ranklens.errors import (
    DuplicateError,
    FormatError,
    InputError,
    RanklensWarning,
    user_stacklevel,
)
from ranklens.io._files import (
    check_readable,
    detect_format,
    numbers,
    output_compression,
    read_bytes,
)
from ranklens.io.trec import read_trec_qrels, read_trec_run, write_trec_qrels, write_trec_run
from ranklens.ranking.data import Qrels, Run
from ranklens.ranking.engine import index_ahead

__all__ = [
    "TABLE_FORMATS",
    "implicit_qrels",
    "read_diversity_qrels",
    "read_frame",
    "read_intent_weights",
    "read_qrels",
    "read_run",
    "read_table",
    "write_frame",
    "write_qrels",
    "write_run",
]

#: The formats :func:`read_frame` and :func:`write_frame` take.
TABLE_FORMATS = ("csv", "tsv", "parquet", "jsonl")

QUERY_NAMES = (
    "query",
    "query_id",
    "qid",
    "q_id",
    "topic",
    "topic_id",
    "user_id",
    "user",
    "uid",
    "session_id",
    "session",
)
DOC_NAMES = (
    "doc",
    "doc_id",
    "docid",
    "docno",
    "document",
    "document_id",
    "item_id",
    "item",
    "iid",
    "passage_id",
    "pid",
    "product_id",
)
RELEVANCE_NAMES = (
    "relevance",
    "rel",
    "label",
    "grade",
    "judgment",
    "judgement",
    "rating",
    "weight",
    "target",
    "qrel",
)
SCORE_NAMES = (
    "score",
    "prediction",
    "pred",
    "predicted",
    "similarity",
    "sim",
    "rank_score",
    "relevance_score",
)


def _csv_header(path: str, buf: pa.Buffer, delimiter: str) -> list[str]:
    head = bytes(buf[: min(len(buf), 1 << 20)]).split(b"\n", 1)[0].rstrip(b"\r")
    if not head.strip():
        raise InputError(f"{path}: the file is empty; expected a header line with column names.")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}:1: the header is not valid UTF-8 text.") from None
    import csv

    return next(csv.reader([text], delimiter=delimiter))


def _csv_problem(
    path: str, buf: pa.Buffer, delimiter: str, ncols: int, fmt: str, exc: Exception
) -> str:
    """Where a CSV/TSV file that Arrow refused goes wrong (file:line and what)."""
    data = bytes(buf)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return f"{path}:{line}: the file is not valid UTF-8 text; re-encode it as UTF-8."
    return csv_field_problem(path, io.StringIO(text, newline=""), delimiter, ncols, fmt, exc)


def csv_field_problem(
    path: str, text: Iterable[str], delimiter: str, ncols: int, fmt: str, exc: Exception
) -> str:
    """The first row of the CSV/TSV ``text`` (its lines) whose number of fields is not
    the header's (file:line and what), else Arrow's reason ``exc``."""
    import csv

    reader = csv.reader(text, delimiter=delimiter)
    for row in reader:
        if row and len(row) != ncols:
            return (
                f"{path}:{reader.line_num}: expected {ncols} fields like the header, "
                f"found {len(row)}."
            )
    return f"{path}: cannot read the {fmt.upper()} file: {exc}"


def _to_float(
    path: str, text: pa.ChunkedArray | pa.Array, what: str, first_line: int | np.ndarray
) -> np.ndarray:
    """The numbers of ``text``; a bad one is named by its line: ``first_line`` plus its
    row, or its entry of ``first_line`` when that is every row's line."""
    arr = text.combine_chunks() if isinstance(text, pa.ChunkedArray) else text
    if isinstance(first_line, np.ndarray):
        lines = first_line
        return numbers(arr, lambda i: f"{path}:{int(lines[i])}", what)
    return numbers(arr, lambda i: f"{path}:{first_line + i}", what)


def read_table(
    path: str,
    fmt: str,
    pick: Callable[[list[str]], dict[str, str]] | None = None,
    text: Sequence[str] = (),
) -> tuple[pa.Table, int]:
    """Read a CSV, TSV, Parquet or JSON Lines table.

    ``pick(columns)`` chooses the columns to keep, as ``{role: column}``
    (None keeps them all); the ``text`` roles are read as strings from CSV/TSV
    (ids stay text: ``007``).  Returns the table (the picked columns, or all)
    and the file line of its first row, for messages (0 for Parquet).
    Errors name the file and, where there is one, the line.
    """
    if fmt in ("csv", "tsv"):
        buf = read_bytes(path)
        if len(buf) >= 3 and bytes(buf[:3]) == b"\xef\xbb\xbf":
            buf = buf.slice(3)  # a UTF-8 byte-order mark (Excel's "CSV UTF-8")
        if np.any(np.frombuffer(buf, dtype=np.uint8)[:65536] == 0):
            raise InputError(f"{path}: looks like a binary file, not {fmt.upper()} text.")
        delimiter = "," if fmt == "csv" else "\t"
        columns = _csv_header(path, buf, delimiter)
        names = pick(columns) if pick is not None else None
        types = {names[r]: pa.string() for r in text if r in names} if names is not None else {}
        include = list(dict.fromkeys(names.values())) if names is not None else None
        try:
            table = pacsv.read_csv(
                pa.BufferReader(buf),
                parse_options=pacsv.ParseOptions(delimiter=delimiter),
                convert_options=pacsv.ConvertOptions(
                    column_types=types, include_columns=include, strings_can_be_null=False
                ),
            )
        except pa.ArrowInvalid as exc:
            raise InputError(_csv_problem(path, buf, delimiter, len(columns), fmt, exc)) from None
        if table.num_rows == 0:
            raise InputError(f"{path}: the file has a header but no rows.")
        return table, 2
    if fmt == "parquet":
        import pyarrow.parquet as pq

        p = check_readable(path)
        try:
            schema = pq.read_schema(str(p))
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(f"{path}: not a readable Parquet file ({exc}).") from None
        names = pick(list(schema.names)) if pick is not None else None
        include = list(dict.fromkeys(names.values())) if names is not None else None
        return pq.read_table(str(p), columns=include), 0
    if fmt == "jsonl":
        import pyarrow.json as pajson

        buf = read_bytes(path)
        if len(buf) == 0:
            raise InputError(f"{path}: the file is empty; expected one JSON object per line.")
        _check_nesting(path, buf)
        try:
            table = pajson.read_json(pa.BufferReader(buf))
        except pa.ArrowInvalid as exc:
            raise _json_lines_error(path, bytes(buf), exc) from None
        if pick is not None:
            pick(list(table.column_names))  # checks the named columns exist
        return table, 1
    raise FormatError(f"{path}: {fmt!r} is not a table format; use csv, tsv, parquet or jsonl.")


#: Lines at least this long are checked for nesting before Arrow reads the file (its
#: JSON reader recurses per level and crashes the process some thousands deep); a
#: shorter line cannot nest deeper than Python's JSON reader goes.
_LONG_LINE = 900


def _check_nesting(path: str, buf: Any) -> None:
    """Refuse a JSON Lines file with a line nested too deeply to read, naming the line.
    Only lines of :data:`_LONG_LINE` bytes or more are parsed here (rare in a run)."""
    data = np.frombuffer(buf, dtype=np.uint8)
    ends = np.flatnonzero(data == 10)
    starts = np.concatenate(([0], ends + 1))
    stops = np.concatenate((ends, [len(data)]))
    for i in np.flatnonzero(stops - starts >= _LONG_LINE).tolist():
        line = bytes(data[starts[i] : stops[i]])
        try:
            json.loads(line)
        except RecursionError:
            raise InputError(
                f"{path}:{i + 1}: not valid JSON Lines (nested too deeply to read); write "
                "one flat JSON object per line."
            ) from None
        except ValueError:
            pass  # not JSON: Arrow's error names it


def _json_kind(value: Any) -> str | None:
    """The JSON type of a value as Arrow reads a column (None: null, fits any)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "a list" if isinstance(value, list) else "an object"


def _json_lines_error(path: str, data: bytes, exc: Exception) -> InputError:
    """The error of a JSON Lines file Arrow cannot read, naming the first line (1-based)
    that is not a JSON object, or whose field changes type (a score that turns into
    text), else Arrow's reason.  Only on the error path: one pass over the lines."""
    first: dict[str, tuple[str, int]] = {}  # field -> (its JSON type, the line it came from)
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError) as err:  # JSONDecodeError, UnicodeDecodeError
            why = "nested too deeply" if isinstance(err, RecursionError) else str(err)
            return InputError(
                f"{path}:{number}: not valid JSON Lines ({why}); write one JSON object per line."
            )
        if not isinstance(value, dict):
            return InputError(
                f"{path}:{number}: not valid JSON Lines (a "
                f"{type(value).__name__}, not an object); write one JSON object "
                "per line."
            )
        for key, item in value.items():
            kind = _json_kind(item)
            if kind is None:
                continue
            was = first.setdefault(key, (kind, number))
            if was[0] != kind:
                shown = json.dumps(item)
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                return InputError(
                    f"{path}:{number}: the field {key!r} is {kind} here ({shown}) but "
                    f"{was[0]} on line {was[1]}; give it the same type on every line"
                    + (" (a number: no quotes)" if was[0] == "a number" else "")
                    + "."
                )
    return InputError(
        f"{path}: not valid JSON Lines ({exc}); give every line the same "
        "fields with values of the same type."
    )


Roles = dict[str, tuple[str | None, tuple[str, ...], str]]


def pick_roles(path: str, columns: list[str], roles: Roles) -> dict[str, str]:
    """The column of each role ({role: (given name, candidates, option)})."""
    return {
        role: pick_column(
            columns, g, role, path, candidates=c, noun="file", option=o, placeholder="name"
        )
        for role, (g, c, o) in roles.items()
    }


def run_roles(
    query: str | None, doc: str | None, score: str | None, rank: str | None = None
) -> Roles:
    """The roles of a run table's columns; with ``rank`` (a column of 1-based ranks) the
    ``score`` role is that column, and :func:`table_run` turns its ranks into scores."""
    if rank is not None:
        if score is not None:
            raise InputError(
                f"score={score!r} and rank={rank!r} both order the run; give one of them."
            )
        return {
            "query": (query, QUERY_NAMES, "query"),
            "doc": (doc, DOC_NAMES, "doc"),
            "score": (rank, (), "rank"),
        }
    return {
        "query": (query, QUERY_NAMES, "query"),
        "doc": (doc, DOC_NAMES, "doc"),
        "score": (score, SCORE_NAMES, "score"),
    }


#: The column a run table without a score column is read from as ranks (1 = best).
RANK_NAME = "rank"


def rank_column(columns: list[str], score: str | None, rank: str | None) -> str | None:
    """The column of ranks of a run table whose header is ``columns``: ``rank``, or (none
    given, and no score column of a known name) a column named ``rank``, which a
    recommender's top-n list holds (1 = best): reading it as a score would put the worst
    item first."""
    if rank is not None or score is not None:
        return rank
    lower = {c.lower(): c for c in columns}
    if any(name in lower for name in SCORE_NAMES):
        return None
    return lower.get(RANK_NAME)


@contextmanager
def named_errors(path: str) -> Iterator[None]:
    """Errors raised inside name the file ``path`` first."""
    try:
        yield
    except InputError as exc:
        if str(exc).startswith(path):
            raise
        raise type(exc)(f"{path}: {exc}") from None


def _read_table(path: str, fmt: str, roles: Roles) -> tuple[dict[str, Any], int]:
    """Read the columns for ``roles`` ({role: (given name, candidates, option)});
    returns the columns and the file line of the first row (for messages)."""
    names: dict[str, str] = {}

    def pick(columns: list[str]) -> dict[str, str]:
        names.update(pick_roles(path, columns, roles))
        return names

    table, first = read_table(path, fmt, pick, text=("query", "doc"))
    return {role: table.column(n) for role, n in names.items()}, first


def _read_json_dict(path: str) -> dict[str, Any]:
    buf = read_bytes(path)
    try:
        data = json.loads(bytes(buf).decode("utf-8"))
    except RecursionError:
        raise InputError(
            f"{path}: the JSON is nested too deeply to read; expected an object "
            "{query: {doc: value}}."
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: the file is not valid UTF-8 text ({exc.reason}).") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})."
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"{path}: expected a JSON object {{query: {{doc: value}}}}, got {type(data).__name__}."
        )
    return data


def read_qrels(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    query: str | None = None,
    doc: str | None = None,
    relevance: str | None = None,
    duplicates: str = "error",
    implicit: bool | str = False,
    intents: bool = False,
    intent: str | None = None,
    weights: Any = None,
) -> Qrels:
    """Read qrels from any supported format (chosen by suffix unless ``format``).

    ``implicit``: held-out interactions of implicit feedback, a table of (query, doc)
    rows without grades (``user_id,item_id``): every row is a relevant judgment of grade
    1.  ``False`` (default) needs a grade column (named by ``relevance``, else one of
    the usual names: ``relevance``, ``label``, ``rating``, ...); ``True`` reads the table
    so, and refuses one with a grade column (its grades would be lost) or a TREC / JSON
    qrels file (which holds grades); ``"auto"`` reads a table so when it has no grade
    column (none named, none of the usual names), with a
    :class:`~ranklens.RanklensWarning` saying so, and any other file as usual (what
    the command line does).  Read so, a (query, doc) pair given on several rows is one
    judgment (every row has grade 1, so each ``duplicates`` policy keeps the same one)
    and a :class:`~ranklens.RanklensWarning` names how many rows were folded and the
    1-based line of the first.

    ``intents=True``: diversity qrels, judged per intent (TREC ``query intent doc
    relevance``, or a table with an intent column, named by ``intent`` or found by its
    name), read as a :class:`~ranklens.DiversityQrels` whose intent weights are
    ``weights`` (a weights file, a mapping or a table; None: uniform); see
    :mod:`ranklens.io.diversity`.  A repeated (query, intent, doc) is an error.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "held_out.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("user_id,item_id\\nu1,007\\nu1,42\\nu2,007\\n")
    >>> read_qrels(path, implicit=True).to_dict()
    {'u1': {'007': 1.0, '42': 1.0}, 'u2': {'007': 1.0}}
    """
    if intents or intent is not None or weights is not None:
        if implicit is True:  # "auto" (the command line's) reads diversity qrels as given
            raise InputError(
                f"{path}: implicit= reads (query, doc) rows without grades, and intents= "
                "diversity qrels with a grade per intent; pass one of them."
            )
        if duplicates != "error":
            raise InputError(
                f"{path}: duplicates={duplicates!r} does not apply to diversity qrels, where "
                "a (query, doc) pair has one row per intent; a repeated (query, intent, "
                "doc) is an error."
            )
        return read_diversity_qrels(
            path,
            format=format,
            query=query,
            intent=intent,
            doc=doc,
            relevance=relevance,
            weights=weights,
        )
    fmt, _ = detect_format(path, format)
    name = str(path)
    mode = _implicit_mode(implicit)
    if mode == "yes" and fmt in ("trec", "json"):
        raise InputError(
            f"{name}: a {fmt.upper()} qrels file holds grades, and implicit=True reads a "
            "table of (query, doc) rows without them (csv, tsv, parquet or jsonl); leave "
            "implicit out to read the grades."
        )
    if fmt == "trec":
        _no_columns_for_trec(name, query=query, doc=doc, relevance=relevance)
        try:
            return read_trec_qrels(path, duplicates=duplicates)
        except DuplicateError as exc:
            from ranklens.io._intents import intent_column_used

            if intent_column_used(path):  # the second column is not all 0: intents
                raise DuplicateError(
                    f"{exc} The second column is not all 0: if it holds intents (TREC "
                    "diversity qrels, query intent doc relevance), pass intents=True "
                    "(command line: --qrels-format diversity)."
                ) from None
            raise
    with named_errors(name):
        if fmt == "json":
            return Qrels.from_dict(_read_json_dict(name))
        roles: Roles = {
            "query": (query, QUERY_NAMES, "query"),
            "doc": (doc, DOC_NAMES, "doc"),
            "relevance": (relevance, RELEVANCE_NAMES, "relevance"),
        }
        names: dict[str, str] = {}

        def pick(columns: list[str]) -> dict[str, str]:
            graded = _grade_column(columns, relevance)
            if mode == "yes" and graded is not None:
                raise InputError(
                    f"column {graded!r} holds grades, and implicit=True would read every "
                    "row as grade 1 and lose them; leave implicit out to read them."
                )
            wanted = dict(roles)
            if mode == "yes" or (mode == "auto" and graded is None):
                del wanted["relevance"]
            names.update(pick_roles(name, columns, wanted))
            return names

        table, first = read_table(name, fmt, pick, text=("query", "doc"))
        cols = {role: table.column(n) for role, n in names.items()}
        if "relevance" not in cols:
            if mode == "auto":
                warnings.warn(
                    f"{name} has no relevance column: every row is a relevant document of "
                    "grade 1 (implicit feedback; a pair given several times is one "
                    "judgment); pass relevance=<column name> to read grades.",
                    RanklensWarning,
                    stacklevel=user_stacklevel(),
                )
            qrels = implicit_qrels(name, cols["query"], cols["doc"], first, duplicates)
        else:
            rel = _to_float(name, cols["relevance"], "relevance", first)
            qrels = Qrels(cols["query"], cols["doc"], rel, duplicates=duplicates)
        index_ahead(qrels)  # a large qrels: its judgment index is built while the run is read
        return qrels


def _implicit_mode(implicit: Any) -> str:
    """``implicit=`` as ``no``, ``yes`` or ``auto`` (anything else refused)."""
    if implicit is False:
        return "no"
    if implicit is True:
        return "yes"
    if implicit == "auto":
        return "auto"
    raise InputError(f"implicit must be False, True or 'auto', got {implicit!r}.")


def _grade_column(columns: list[str], relevance: str | None) -> str | None:
    """The table's grade column: the one named (``relevance``), else the first of the
    usual names present (case-insensitively), else None."""
    if relevance is not None:
        return relevance
    lower = {c.lower(): c for c in columns}
    return next((lower[n] for n in RELEVANCE_NAMES if n in lower), None)


def implicit_qrels(
    path: str,
    query: Any,
    doc: Any,
    first: int | np.ndarray,
    duplicates: str = "error",
) -> Qrels:
    """Judgments of implicit feedback: every (query, doc) row of a table a relevant
    document of grade 1, a pair given on several rows one judgment.  The folded rows
    are reported by a :class:`~ranklens.RanklensWarning` naming their number and the
    1-based line of the first (``first``: the file line of the first row, or every
    row's line); ``duplicates`` is checked to be a known policy, and every policy
    keeps the same judgment (all grades are 1)."""
    from ranklens._shared.duplicates import DUPLICATE_POLICIES, format_pairs
    from ranklens._shared.sorting import pair_index

    if duplicates not in DUPLICATE_POLICIES:
        raise InputError(
            f"{path}: duplicates={duplicates!r} is not a known policy; use "
            f"{', '.join(map(repr, DUPLICATE_POLICIES[:-1]))} or {DUPLICATE_POLICIES[-1]!r}."
        )
    n = len(query)
    qrels = Qrels(query, doc, np.ones(n), duplicates="first")
    folded = qrels.dropped_duplicates
    if folded:
        q = query.combine_chunks() if isinstance(query, pa.ChunkedArray) else query
        d = doc.combine_chunks() if isinstance(doc, pa.ChunkedArray) else doc
        row = int(pair_index(q, d).dup_rows.min())  # the first row repeating an earlier one
        if isinstance(first, np.ndarray):
            where = f"line {int(first[row])}"
        else:  # Parquet has no lines (first is 0): its row
            where = f"line {first + row}" if first > 0 else f"row {row + 1}"
        warnings.warn(
            f"{path}: {folded} row(s) repeat the (query, doc) pair of an earlier row and "
            "were folded into its judgment (implicit feedback, grade 1); the first is "
            f"{where}, {format_pairs(q, d, np.array([row]))}.",
            RanklensWarning,
            stacklevel=user_stacklevel(),
        )
    return qrels


def _no_columns_for_trec(path: str, **columns: str | None) -> None:
    """A TREC file has fixed columns: a column name given for one is a mistake."""
    given = [k for k, v in columns.items() if v is not None]
    if given:
        raise InputError(
            f"{path}: a TREC file has fixed columns, so {given[0]}=<column> does not apply; "
            "leave it out, or give a CSV, TSV, Parquet or JSON Lines file."
        )


def read_run(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    query: str | None = None,
    doc: str | None = None,
    score: str | None = None,
    name: str | None = None,
    duplicates: str = "error",
    rank: str | None = None,
) -> Run:
    """Read a run from any supported format (chosen by suffix unless ``format``).
    The run's name is ``name``, else the TREC tag, else the file name.

    ``rank``: a column of 1-based ranks (1 = best) instead of scores, as recommenders
    write their top-n lists (the scores are ``-rank``, as :meth:`Run.from_frame`'s
    ``rank=``).  A table with no score column (none named, none of a known name) and
    a column named ``rank`` is read as ranks, with a :class:`RanklensWarning` saying so.
    """
    fmt, _ = detect_format(path, format)
    text = str(path)
    if fmt == "trec":
        _no_columns_for_trec(text, query=query, doc=doc, score=score, rank=rank)
        with warnings.catch_warnings():
            if name is not None:  # named by the caller: the file's tags do not matter
                warnings.filterwarnings(
                    "ignore", message=".*several run tags", category=RanklensWarning
                )
            run = read_trec_run(path, duplicates=duplicates)
        if name is not None:
            run.name = name
        return run
    label = name or os.path.basename(text)
    with named_errors(text):
        if fmt == "json":
            if rank is not None:
                raise InputError(
                    f"rank={rank!r} names a column, but a JSON run {{query: {{doc: score}}}} "
                    "holds scores; leave it out."
                )
            return Run.from_dict(_read_json_dict(text), name=label)
        found: list[str] = []
        names: dict[str, str] = {}

        def pick(columns: list[str]) -> dict[str, str]:
            ranks = rank_column(columns, score, rank)
            if ranks is not None:
                found.append(ranks)
            names.update(pick_roles(text, columns, run_roles(query, doc, score, ranks)))
            return names

        table, first = read_table(text, fmt, pick, text=("query", "doc"))
        cols = {role: table.column(n) for role, n in names.items()}
        if found and rank is None:
            warnings.warn(
                f"{text}: no score column; reading column {found[0]!r} as ranks (1 = best; "
                f"pass rank=<column name> to say so, or score=<column name> to read scores).",
                RanklensWarning,
                stacklevel=user_stacklevel(),
            )
        return table_run(text, cols, first, label, duplicates, ranks=bool(found))


def table_run(
    path: str,
    cols: dict[str, Any],
    first: int | np.ndarray,
    name: str,
    duplicates: str,
    *,
    ranks: bool = False,
) -> Run:
    """The run of a table's columns (roles query, doc, score; ``first``: the file line
    of the first row, or the line of every row, for messages), checked now, so that a
    repeated pair is reported against this file.  With ``ranks`` the score column holds
    1-based ranks (1 = best), which become the scores ``-rank``."""
    if not ranks:
        sc = _to_float(path, cols["score"], "score", first)
        return Run(cols["query"], cols["doc"], sc, name=name, duplicates=duplicates).validate()
    values = _to_float(path, cols["score"], "rank", first)
    low = np.flatnonzero(values < 1)
    if low.size:
        i = int(low[0])
        line = int(first[i]) if isinstance(first, np.ndarray) else first + i
        raise InputError(f"{path}:{line}: the rank is {values[i]:g}; ranks start at 1 (1 = best).")
    sc = scores_from_ranks(values, f"{path} rank")
    return Run(cols["query"], cols["doc"], sc, name=name, duplicates=duplicates).validate()


def _write_table(table: pa.Table, path: str, fmt: str) -> None:
    with atomic_path(path) as tmp:
        _write_table_to(table, tmp, fmt, output_compression(path))


def _write_table_to(table: pa.Table, path: str, fmt: str, compression: str | None) -> None:
    if fmt in ("csv", "tsv"):
        with pa.output_stream(path, compression=compression) as out:
            pacsv.write_csv(
                table,
                out,
                write_options=pacsv.WriteOptions(delimiter="," if fmt == "csv" else "\t"),
            )
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    elif fmt == "jsonl":
        names = table.column_names
        rows = zip(*(table.column(n).to_pylist() for n in names), strict=True)
        text = "".join(json.dumps(dict(zip(names, r, strict=True))) + "\n" for r in rows)
        with pa.output_stream(path, compression=compression) as out:
            out.write(text.encode("utf-8"))
    else:  # pragma: no cover
        raise AssertionError(fmt)


def _write_json(data: dict[str, dict[str, float]], path: str) -> None:
    buf = io.StringIO()
    json.dump(data, buf)
    with (
        atomic_path(path) as tmp,
        pa.output_stream(tmp, compression=output_compression(path)) as out,
    ):
        out.write(buf.getvalue().encode("utf-8"))


def write_qrels(qrels: Qrels, path: str | os.PathLike[str], *, format: str | None = None) -> None:
    """Write qrels in any supported format (chosen by suffix unless ``format``)."""
    fmt, _ = detect_format(path, format)
    if fmt == "trec":
        write_trec_qrels(qrels, path)
    elif fmt == "json":
        _write_json(qrels.to_dict(), str(path))
    else:
        _write_table(qrels.to_arrow(), str(path), fmt)


def write_run(
    run: Run, path: str | os.PathLike[str], *, format: str | None = None, tag: str | None = None
) -> None:
    """Write a run in any supported format (chosen by suffix unless ``format``).

    Only ``json`` (``{query: {doc: score}}``) holds the run's empty rankings
    (:attr:`Run.empty_queries <ranklens.Run.empty_queries>`); the formats of one row
    per document leave them out, with a :class:`~ranklens.RanklensWarning`."""
    fmt, _ = detect_format(path, format)
    if run.empty_queries and fmt != "json":
        warnings.warn(
            f"{path}: the run names {len(run.empty_queries)} queries without any document "
            f"({', '.join(map(repr, run.empty_queries[:5]))}), which a {fmt} file (one row "
            "per document) cannot hold; they are left out. Write json to keep them.",
            RanklensWarning,
            stacklevel=2,
        )
    if fmt == "trec":
        write_trec_run(run, path, tag=tag)
    elif fmt == "json":
        _write_json(run.to_dict(), str(path))
    else:
        _write_table(run.to_arrow(), str(path), fmt)


def _table_format(path: str | os.PathLike[str], format: str | None, what: str) -> str:
    fmt, _ = detect_format(path, format)
    if fmt not in TABLE_FORMATS:
        raise FormatError(
            f"{path}: {what} must be a table ({', '.join(TABLE_FORMATS)}; chosen by the "
            f"suffix or format=), not {fmt!r}."
        )
    return fmt


def read_frame(
    path: str | os.PathLike[str], *, format: str | None = None, text: Iterable[str] = ()
) -> pa.Table:
    """Every column of a CSV, TSV, Parquet or JSON Lines file, as a pyarrow Table.

    The columns named in ``text`` (ids) are read as strings from CSV / TSV, so
    ``007`` stays ``007`` (names not in the file are ignored here; the caller
    says which columns it needs).  The format comes from the suffix (after
    ``.gz`` / ``.bz2`` / ``.zst``) unless ``format`` is given.  :func:`write_frame`
    writes what this reads, exactly.
    """
    fmt = _table_format(path, format, "the file")
    wanted = list(text)
    table, _ = read_table(str(path), fmt, lambda columns: {c: c for c in columns}, text=wanted)
    return table


def write_frame(
    table: pa.Table, path: str | os.PathLike[str], *, format: str | None = None
) -> None:
    """Write a pyarrow Table as CSV, TSV, Parquet or JSON Lines (by suffix unless
    ``format``), to a temporary file in the same folder renamed over ``path`` at the
    end, so that a failed write leaves no partial file.  Text columns stay text:
    :func:`read_frame` with them in ``text`` gives the same values back."""
    fmt = _table_format(path, format, "the output")
    target = os.fspath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{os.getpid()}.tmp.{name}")  # keeps the suffixes
    try:
        try:
            _write_table(table, tmp, fmt)
        except pa.ArrowException as exc:
            raise InputError(f"{target}: cannot write this table as {fmt}: {exc}") from None
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def read_diversity_qrels(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    query: str | None = None,
    intent: str | None = None,
    doc: str | None = None,
    relevance: str | None = None,
    weights: Any = None,
) -> Any:
    """Read diversity qrels from any supported format (chosen by suffix unless
    ``format``); ``weights``: intent weights (a path to a weights file, a mapping or a
    table; None: uniform)."""
    from ranklens.io._intents import INTENT_NAMES
    from ranklens.io._trec_format import QRELS, Layout
    from ranklens.io.trec import checked_columns
    from ranklens.ranking.intents import DiversityQrels

    fmt, _ = detect_format(path, format)
    name = str(path)
    if isinstance(weights, (str, os.PathLike)):
        weights = read_intent_weights(weights)
    if fmt == "trec":
        given = [k for k, v in (("query", query), ("intent", intent), ("doc", doc)) if v]
        if given or relevance:
            raise InputError(
                f"{name}: a TREC diversity qrels file has fixed columns (query intent doc "
                f"relevance), so {(given or ['relevance'])[0]}=<column> does not apply; "
                "leave it out."
            )
        data = read_bytes(path)  # read once: the two passes read the same bytes
        docs = checked_columns(path, QRELS, data)
        # the same lines, the intent read where the doc is
        intents = checked_columns(
            path, Layout("qrels", 4, 0, 1, 3, "relevance", QRELS.header), data
        )
        with named_errors(name):
            return DiversityQrels(
                docs.query, intents.doc, docs.doc, docs.value, weights=weights, name=None
            )
    with named_errors(name):
        if fmt == "json":
            return DiversityQrels.from_dict(_read_json_dict(name), weights=weights)
        cols, first = _read_table(
            name,
            fmt,
            {
                "query": (query, QUERY_NAMES, "query"),
                "intent": (intent, INTENT_NAMES, "intent"),
                "doc": (doc, DOC_NAMES, "doc"),
                "relevance": (relevance, RELEVANCE_NAMES, "relevance"),
            },
        )
        rel = _to_float(name, cols["relevance"], "relevance", first)
        return DiversityQrels(
            cols["query"], cols["intent"], cols["doc"], rel, weights=weights, name=None
        )


def read_intent_weights(path: str | os.PathLike[str], *, format: str | None = None) -> pa.Table:
    """Read intent weights: ``query intent weight`` lines (TREC-like, ``#`` comments),
    or a CSV/TSV/Parquet/JSON Lines table with query, intent and weight columns.
    Returns a table with those three columns (ids as text, weights float64)."""
    from ranklens.io._intents import INTENT_NAMES

    fmt, _ = detect_format(path, format)
    name = str(path)
    if fmt in ("csv", "tsv", "parquet", "jsonl"):
        with named_errors(name):
            cols, first = _read_table(
                name,
                fmt,
                {
                    "query": (None, QUERY_NAMES, "query"),
                    "intent": (None, INTENT_NAMES, "intent"),
                    "weight": (None, ("weight", "probability", "prob", "p"), "weight"),
                },
            )
            w = _to_float(name, cols["weight"], "weight", first)
            return pa.table({"query": cols["query"], "intent": cols["intent"], "weight": w})
    if fmt == "json":
        raise InputError(
            f"{name}: intent weights are read from `query intent weight` lines or a table; "
            "from Python, pass a mapping {query: {intent: weight}}."
        )
    try:
        text = bytes(read_bytes(path)).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: the file is not valid UTF-8 text.") from None
    qs: list[str] = []
    is_: list[str] = []
    ws: list[float] = []
    for line_no, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) < 3:
            raise InputError(
                f"{name}:{line_no}: expected `query intent weight`, got {line.strip()!r}."
            )
        try:
            weight = float(fields[2])
        except ValueError:
            raise InputError(
                f"{name}:{line_no}: the weight {fields[2]!r} is not a number."
            ) from None
        if not np.isfinite(weight) or weight < 0:
            raise InputError(
                f"{name}:{line_no}: the weight {fields[2]!r} must be a finite number >= 0."
            )
        qs.append(fields[0])
        is_.append(fields[1])
        ws.append(weight)
    if not qs:
        raise InputError(f"{name}: no intent weight in the file; expected `query intent weight`.")
    return pa.table(
        {
            "query": pa.array(qs, type=pa.large_string()),
            "intent": pa.array(is_, type=pa.large_string()),
            "weight": np.array(ws, dtype=np.float64),
        }
    )
