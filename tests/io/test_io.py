"""Readers and writers of ranklens.io: exact round trips in every format and
compression, the details of TREC parsing (identical on the fast Arrow-CSV path
and the slow tokenising path), every bad-input message word for word, and
column-name handling of the tabular formats.

Tests marked ``xfail(strict=True)`` document known bugs; each reason says
precisely what goes wrong.
"""

from __future__ import annotations

import json
import os
import re
import struct
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranklens
from ranklens import Qrels, Run
from ranklens.errors import DuplicateError, InputError, RanklensWarning
from ranklens.io import (
    FORMATS,
    detect_format,
    read_qrels,
    read_run,
    read_trec_qrels,
    read_trec_run,
    write_qrels,
    write_run,
    write_trec_qrels,
    write_trec_run,
)
from ranklens.io import _trec_fast as trec_fast
from ranklens.io import _trec_format as trec_format
from ranklens.io import trec as trec_io
from tests.helpers import CONFORMANCE, NEEDS_CONFORMANCE

SUFFIX = {
    "trec": "",
    "csv": ".csv",
    "tsv": ".tsv",
    "parquet": ".parquet",
    "jsonl": ".jsonl",
    "json": ".json",
}
COMPRESSION_SUFFIX = {None: "", "gzip": ".gz", "bz2": ".bz2", "zstd": ".zst"}
MAGIC = {"gzip": b"\x1f\x8b", "bz2": b"BZh", "zstd": b"\x28\xb5\x2f\xfd"}
ROUND_TRIP = settings(
    max_examples=12, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def _write_bytes(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _file_name(kind: str, fmt: str, compression: str | None) -> str:
    stem = "qrels" if kind == "qrels" else "run"
    ext = SUFFIX[fmt] or (".txt" if kind == "run" else "")
    return f"{stem}{ext}{COMPRESSION_SUFFIX[compression]}"


def _bits(table: Qrels | Run) -> dict[tuple[str, str], float]:
    return {(q, d): v for q, d, v in table}


def _assert_same(back: Qrels | Run, original: Qrels | Run) -> None:
    assert type(back) is type(original)
    assert back == original
    got, want = _bits(back), _bits(original)
    assert got.keys() == want.keys()
    for key, value in want.items():
        # exact: no tolerance (0.0 == -0.0, see the report on CSV's sign of zero)
        assert got[key] == value, (key, got[key], value)
    for q, d, _ in back:
        assert isinstance(q, str) and isinstance(d, str)


# --------------------------------------------------------------------------------------
# strategies

SPECIAL_IDS = [
    "007",
    "0",
    "00",
    "0.0",
    "1e3",
    "42",
    "-1",
    "d#1",
    "a#b#",
    "x#",
    "é",
    "漢字",
    "🙂",
    "NA",
    "null",
    "nan",
    "None",
    "true",
]
# text ids: anything but lone surrogates (not representable in UTF-8) and NUL (NUL
# bytes are how a binary file is recognised, see the report)
any_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=0, max_size=6
)
digits = st.from_regex(r"[0-9]{1,6}", fullmatch=True)
table_ids = st.one_of(st.sampled_from(SPECIAL_IDS), digits, any_text)


def _trec_token(text: str) -> bool:
    """Text that is one TREC token for every reader: non-empty, no character that
    any tokeniser calls whitespace (ASCII, Unicode, or control separators), no
    byte-order mark (see test_bom_* below), no double quote (see
    test_trec_writer_handles_double_quotes)."""
    return (
        bool(text)
        and not any(c.isspace() for c in text)
        and "\ufeff" not in text
        and '"' not in text
    )


trec_text = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=6
).filter(_trec_token)
trec_doc_ids = st.one_of(st.sampled_from(SPECIAL_IDS), digits, trec_text)
# a query id starting with '#' makes its line a comment: see the xfail test below
trec_query_ids = trec_doc_ids.filter(lambda s: not s.startswith("#"))

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
grades = st.integers(min_value=-3, max_value=10).map(float)


def _tables(cls: type[Qrels] | type[Run], qids: Any, dids: Any, values: Any) -> Any:
    rows = st.dictionaries(st.tuples(qids, dids), values, min_size=1, max_size=12)

    def build(data: dict[tuple[str, str], float]) -> Qrels | Run:
        keys = list(data)
        return cls.from_arrays([k[0] for k in keys], [k[1] for k in keys], list(data.values()))

    return rows.map(build)


def _strategy(kind: str, fmt: str) -> Any:
    qids, dids = (trec_query_ids, trec_doc_ids) if fmt == "trec" else (table_ids, table_ids)
    if kind == "qrels":
        return _tables(Qrels, qids, dids, st.one_of(grades, finite))
    return _tables(Run, qids, dids, finite)


def _read_slow(path: Path, kind: str) -> Qrels | Run:
    """Read a TREC file through the slow (tokenising) path only."""
    layout = trec_format.QRELS if kind == "qrels" else trec_format.RUN
    cols = trec_io._columns(path, layout, fast=False)
    cls = Qrels if kind == "qrels" else Run
    return cls(cols.query, cols.doc, cols.value, name=cols.tag)


def _read_fast(path: Path, kind: str) -> Qrels | Run:
    """Read a TREC file through the fast path only (fails if it cannot take it)."""
    layout = trec_format.QRELS if kind == "qrels" else trec_format.RUN
    buf, b = trec_format.check_text(str(path), pa.py_buffer(path.read_bytes()))
    sep = trec_fast.delimiter(buf, b)
    assert sep is not None, "the file does not take the fast path"
    cols = trec_fast.read_fast(buf, sep, layout)
    assert cols is not None, "the fast CSV reader gave up on the file"
    cls = Qrels if kind == "qrels" else Run
    return cls(cols.query, cols.doc, cols.value, name=cols.tag)


def _path_taken(path: Path, kind: str) -> str:
    layout = trec_format.QRELS if kind == "qrels" else trec_format.RUN
    buf, b = trec_format.check_text(str(path), pa.py_buffer(path.read_bytes()))
    sep = trec_fast.delimiter(buf, b)
    if sep is None:
        return "slow"
    cols = trec_fast.read_fast(buf, sep, layout)
    return "fast" if cols is not None and len(cols.query) else "slow"


# --------------------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize("compression", list(COMPRESSION_SUFFIX))
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_round_trip(kind: str, fmt: str, compression: str | None) -> None:
    write = write_qrels if kind == "qrels" else write_run
    read = read_qrels if kind == "qrels" else read_run

    @ROUND_TRIP
    @given(table=_strategy(kind, fmt))
    def check(table: Qrels | Run) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / _file_name(kind, fmt, compression)
            write(table, path)  # type: ignore[arg-type]
            assert detect_format(path) == (fmt, compression)
            if compression is not None and fmt != "parquet":
                assert path.read_bytes().startswith(MAGIC[compression])
            back = read(path)
            _assert_same(back, table)
            if fmt == "trec" and compression is None:
                # both TREC readers agree on what the writer wrote
                _assert_same(_read_slow(path, kind), table)

    check()


@ROUND_TRIP
@given(run=_strategy("run", "trec"), tag=trec_text)
def test_trec_run_tag_round_trips(run: Run, tag: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        write_trec_run(run, path, tag=tag)
        back = read_trec_run(path)
    assert back.name == tag
    _assert_same(back, run)


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "trec"])
def test_explicit_format_overrides_the_suffix(tmp_path: Path, fmt: str) -> None:
    run = Run.from_dict({"007": {"1": 0.5, "02": 1.25}})
    path = tmp_path / "data.bin"
    write_run(run, path, format=fmt)
    _assert_same(read_run(path, format=fmt), run)


def test_trec_writer_orders_by_score_with_ranks(tmp_path: Path) -> None:
    run = Run.from_dict(
        {"q2": {"a": 0.1, "b": 0.7}, "q1": {"x": 3.0, "y": 5.0, "z": 3.0}}, name="sys"
    )
    path = tmp_path / "run.txt"
    write_run(run, path)
    assert path.read_text().splitlines() == [
        "q1 Q0 y 1 5 sys",
        "q1 Q0 z 2 3 sys",
        "q1 Q0 x 3 3 sys",
        "q2 Q0 b 1 0.7 sys",
        "q2 Q0 a 2 0.1 sys",
    ]


def test_trec_qrels_writer_layout(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    write_qrels(Qrels.from_dict({"007": {"d#1": 2, "d2": 0.5}}), path)
    assert sorted(path.read_text().splitlines()) == ["007 0 d#1 2", "007 0 d2 0.5"]


@pytest.mark.parametrize(
    "char",
    [
        " ",
        "\t",
        "\n",
        "\r",
        "\f",
        pytest.param("\v"),
    ],
)
@pytest.mark.parametrize("where", ["query", "doc"])
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_trec_writer_rejects_whitespace_ids(
    tmp_path: Path, kind: str, where: str, char: str
) -> None:
    bad = f"a{char}b"
    q, d = (bad, "d1") if where == "query" else ("q1", bad)
    if kind == "qrels":
        table: Qrels | Run = Qrels.from_arrays([q], [d], [1])
        write: Any = write_trec_qrels
    else:
        table = Run.from_arrays([q], [d], [1.0])
        write = write_trec_run
    path = tmp_path / "out"
    expected = (
        f"cannot write {kind} as TREC: the {where} id {bad!r} contains whitespace; "
        "the TREC format cannot hold it, write CSV, Parquet or JSON Lines instead."
    )
    with pytest.raises(InputError, match=f"^{re.escape(expected)}$"):
        write(table, path)


@settings(max_examples=25, deadline=None, database=None)
@given(prefix=trec_text, space=st.sampled_from(" \t\n\r\f"), suffix=trec_text)
def test_trec_writer_rejects_whitespace_ids_property(prefix: str, space: str, suffix: str) -> None:
    run = Run.from_arrays(["q"], [prefix + space + suffix], [1.0])
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(InputError, match="whitespace"):
        write_trec_run(run, Path(tmp) / "run")


def test_trec_writer_rejects_a_tag_with_whitespace(tmp_path: Path) -> None:
    run = Run.from_dict({"q": {"d": 1.0}}, name="my run")
    with pytest.raises(InputError) as exc:
        write_trec_run(run, tmp_path / "run")
    assert str(exc.value) == "cannot write the run tag 'my run' as TREC: it contains whitespace."


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_trec_writer_handles_double_quotes(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "out"
    if kind == "qrels":
        qrels = Qrels.from_arrays(['q"1'], ['say"hi"'], [1])
        write_trec_qrels(qrels, path)
        _assert_same(read_trec_qrels(path), qrels)
    else:
        run = Run.from_arrays(['q"1'], ['say"hi"'], [1.0])
        write_trec_run(run, path)
        _assert_same(read_trec_run(path), run)


def test_trec_readers_keep_double_quotes(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", 'q"1 Q0 "d" 1 1.5 t\n"q2" Q0 d"x 1 1 t\n')
    assert _path_taken(path, "run") == "fast"
    expected = Run.from_dict({'q"1': {'"d"': 1.5}, '"q2"': {'d"x': 1.0}})
    _assert_same(read_trec_run(path), expected)
    _assert_same(_read_slow(path, "run"), expected)


def test_trec_writer_rejects_empty_ids(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        write_trec_qrels(Qrels.from_arrays(["q1"], [""], [1]), tmp_path / "qrels")


def test_trec_writer_refuses_query_ids_that_read_back_as_comments(tmp_path: Path) -> None:
    qrels = Qrels.from_arrays(["#q1", "q2"], ["d", "d"], [1, 0])
    path = tmp_path / "qrels"
    try:
        write_trec_qrels(qrels, path)
    except InputError:
        return
    assert read_trec_qrels(path) == qrels


@pytest.mark.parametrize("suffix", ["run.txt.gzip", "run.tsv.zstd"])
def test_long_compression_suffixes_round_trip(tmp_path: Path, suffix: str) -> None:
    run = Run.from_dict({"q": {"d": 1.5}}, name="t")
    write_run(run, tmp_path / suffix)
    _assert_same(read_run(tmp_path / suffix), run)


@pytest.mark.parametrize("compression", ["gzip", "bz2", "zstd"])
def test_compressed_trec_files_from_other_tools(tmp_path: Path, compression: str) -> None:
    text = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n"
    path = tmp_path / f"run{COMPRESSION_SUFFIX[compression]}"
    with pa.output_stream(str(path), compression=compression) as out:
        out.write(text.encode())
    assert read_trec_run(path) == Run.from_dict({"q1": {"d1": 2.5, "d2": 1.5}})


def test_corrupt_compressed_file(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run.gz", "q1 Q0 d1 1 2.5 tag\n")
    with pytest.raises(InputError, match="^" + re.escape(f"{path}: cannot read the gzip file (")):
        read_run(path)


# --------------------------------------------------------------------------------------
# TREC parsing details

ROWS = [("q1", "d1", "1", "2.5"), ("q1", "d#2", "2", "1.5"), ("007", "d3", "1", "-0.25")]
EXPECTED_RUN = Run.from_dict({"q1": {"d1": 2.5, "d#2": 1.5}, "007": {"d3": -0.25}})


def _run_text(
    sep: str = " ", end: str = "\n", extra: str = "", lead: str = "", blank: str = ""
) -> str:
    lines = [lead + sep.join([q, "Q0", d, r, s, "tag"]) + extra for q, d, r, s in ROWS]
    return (end + blank).join(lines) + end


# name -> (text, the path it takes)
RUN_LAYOUTS = {
    "plain": (_run_text(), "fast"),
    "no final newline": (_run_text().rstrip("\n"), "fast"),
    "crlf": (_run_text(end="\r\n"), "fast"),
    "crlf and blank lines": (_run_text(end="\r\n", blank="\r\n"), "fast"),
    "tabs": (_run_text(sep="\t"), "fast"),
    "tabs crlf": (_run_text(sep="\t", end="\r\n"), "fast"),
    "blank lines": (_run_text(blank="\n\n"), "fast"),
    "extra columns": (_run_text(extra=" junk more junk"), "fast"),
    "multiple spaces": (_run_text(sep="   "), "slow"),
    "tabs and spaces": (_run_text(sep=" \t "), "slow"),
    "leading blanks": (_run_text(lead="  \t"), "slow"),
    "trailing blanks": (_run_text(extra="  "), "slow"),
    "blank lines with spaces": (_run_text(blank="   \n"), "slow"),
    "comment line": ("# a comment\n" + _run_text(), "slow"),
    "indented comment": (_run_text() + "   # an indented comment\n", "slow"),
    "tab-indented comment": ("\t#comment\n" + _run_text(), "slow"),
    "comment with crlf": ("# c\r\n" + _run_text(end="\r\n"), "slow"),
    "extra columns of varying number": (
        _run_text().replace("tag\n", "tag x\n", 1).replace("tag\n", "tag x y z\n", 1),
        "slow",
    ),
    "extra columns on a comment-ful file": ("#\n" + _run_text(extra=" a b"), "slow"),
}


@pytest.mark.parametrize("layout", list(RUN_LAYOUTS))
def test_trec_run_layouts(tmp_path: Path, layout: str) -> None:
    text, path_taken = RUN_LAYOUTS[layout]
    path = _write_bytes(tmp_path / "run.txt", text)
    assert _path_taken(path, "run") == path_taken
    run = read_trec_run(path)
    _assert_same(run, EXPECTED_RUN)
    assert run.name == "tag"
    _assert_same(_read_slow(path, "run"), EXPECTED_RUN)
    if path_taken == "fast":
        _assert_same(_read_fast(path, "run"), EXPECTED_RUN)


@pytest.mark.parametrize(
    "layout", ["plain", "crlf", "tabs", "multiple spaces", "comment line", "extra columns"]
)
def test_trec_qrels_layouts(tmp_path: Path, layout: str) -> None:
    run_text, path_taken = RUN_LAYOUTS[layout]
    # the same layout, qrels columns: query iter doc relevance
    text = re.sub(
        r"(\S+)([ \t]+)Q0([ \t]+)(\S+)([ \t]+)(\S+)([ \t]+)\S+([ \t]+)tag",
        r"\1\g<2>0\3\4\5\6",
        run_text,
    )
    path = _write_bytes(tmp_path / "qrels", text)
    assert _path_taken(path, "qrels") == path_taken
    expected = Qrels.from_dict({"q1": {"d1": 1, "d#2": 2}, "007": {"d3": 1}})
    _assert_same(read_trec_qrels(path), expected)
    _assert_same(_read_slow(path, "qrels"), expected)


def test_hash_inside_ids_is_text_not_a_comment(tmp_path: Path) -> None:
    text = "q#1 0 #d 1\nq#1 0 d#x# 2\nq2 0 # 1\n# q3 0 d 1\n"
    path = _write_bytes(tmp_path / "qrels", text)
    assert read_trec_qrels(path) == Qrels.from_dict({"q#1": {"#d": 1, "d#x#": 2}, "q2": {"#": 1}})


def test_rank_column_is_ignored_for_ordering(tmp_path: Path) -> None:
    qrels = Qrels.from_dict({"q": {"good": 1, "bad": 0}})
    # ranks say bad first, scores say good first: scores win (as in trec_eval)
    a = _write_bytes(tmp_path / "a", "q Q0 bad 1 0.1 t\nq Q0 good 2 0.9 t\n")
    b = _write_bytes(tmp_path / "b", "q Q0 bad 7 0.1 t\nq Q0 good 7 0.9 t\n")
    c = _write_bytes(tmp_path / "c", "q Q0 bad x 0.1 t\nq Q0 good -3 0.9 t\n")
    runs = [read_trec_run(p) for p in (a, b, c)]
    assert runs[0] == runs[1] == runs[2]
    for run in runs:
        assert ranklens.evaluate(qrels, run, ["P@1", "rr"]).summary() == {"P@1": 1.0, "rr": 1.0}


def test_run_name_is_the_tag_of_the_last_line(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", "q Q0 a 1 2 first\nq Q0 b 2 1 last\n")
    with pytest.warns(RanklensWarning, match="several run tags"):
        assert read_trec_run(path).name == "last"
    assert read_run(path, name="mine").name == "mine"
    slow = _write_bytes(tmp_path / "run2", "#\nq Q0 a 1 2 first\nq  Q0 b 2 1 last\n")
    with pytest.warns(RanklensWarning, match="several run tags"):
        assert read_trec_run(slow).name == "last"


def test_qrels_extra_columns_and_tag_like_text(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "qrels", "q 0 d 3 extra\nq 0 e 0 more cols\n")
    assert read_trec_qrels(path) == Qrels.from_dict({"q": {"d": 3, "e": 0}})


@pytest.mark.parametrize(
    "number,value",
    [
        ("1", 1.0),
        ("-2", -2.0),
        ("+1.5e3", 1500.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1E-3", 0.001),
        ("-0", -0.0),
        ("0.1", 0.1),
        ("1e308", 1e308),
        ("4.9e-324", 5e-324),
        ("0.30000000000000004", 0.30000000000000004),
        ("123456789012345678901234567890", 1.2345678901234568e29),
    ],
)
def test_number_syntax_is_the_same_on_both_paths(tmp_path: Path, number: str, value: float) -> None:
    fast = _write_bytes(tmp_path / "fast", f"q Q0 d 1 {number} t\n")
    slow = _write_bytes(tmp_path / "slow", f"#\nq Q0 d 1 {number} t\n")
    assert _path_taken(fast, "run") == "fast" and _path_taken(slow, "run") == "slow"
    for path in (fast, slow):
        (got,) = read_trec_run(path).scores.tolist()
        assert struct.pack("<d", got) == struct.pack("<d", value)


@settings(max_examples=40, deadline=None, database=None)
@given(
    rows=st.lists(
        st.tuples(trec_query_ids, trec_doc_ids, finite, st.integers(0, 999)),
        min_size=1,
        max_size=8,
        unique_by=lambda r: (r[0], r[1]),
    ),
    sep=st.sampled_from([" ", "\t", "  ", " \t"]),
    end=st.sampled_from(["\n", "\r\n"]),
    comment=st.booleans(),
    blank=st.booleans(),
)
def test_fast_and_slow_paths_agree(
    rows: list[tuple[str, str, float, int]], sep: str, end: str, comment: bool, blank: bool
) -> None:
    lines = [sep.join([q, "Q0", d, str(rank), repr(score), "tag"]) for q, d, score, rank in rows]
    text = ("# hello" + end if comment else "") + (end + end if blank else end).join(lines) + end
    expected = Run.from_arrays([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    with tempfile.TemporaryDirectory() as tmp:
        path = _write_bytes(Path(tmp) / "run", text)
        _assert_same(read_trec_run(path), expected)
        _assert_same(_read_slow(path, "run"), expected)
        if sep in (" ", "\t") and not comment:
            assert _path_taken(path, "run") == "fast"
            _assert_same(_read_fast(path, "run"), expected)


@NEEDS_CONFORMANCE
@pytest.mark.parametrize(
    "name,kind",
    [
        ("qrels.test", "qrels"),
        ("qrels.test.with-comments", "qrels"),
        ("qrels.comment.test", "qrels"),
        ("qrels.rel_level", "qrels"),
        ("qrels-302.test", "qrels"),
        ("results.test", "run"),
        ("results.trunc", "run"),
        ("results-302.test", "run"),
        ("results.comment.test", "run"),
    ],
)
def test_conformance_files_read_the_same_on_both_paths(name: str, kind: str) -> None:
    path = CONFORMANCE / name
    read = read_trec_qrels if kind == "qrels" else read_trec_run
    got = read(path)
    slow = _read_slow(path, kind)
    _assert_same(got, slow)
    # and both agree with a plain Python reading of the first columns
    rows = [
        line.split()
        for line in path.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if kind == "qrels":
        want: Qrels | Run = Qrels.from_arrays(
            [r[0] for r in rows], [r[2] for r in rows], [float(r[3]) for r in rows]
        )
    else:
        want = Run.from_arrays(
            [r[0] for r in rows], [r[2] for r in rows], [float(r[4]) for r in rows]
        )
        assert got.name == rows[-1][5]
    _assert_same(got, want)


@NEEDS_CONFORMANCE
def test_conformance_comment_and_hash_files() -> None:
    plain = read_trec_qrels(CONFORMANCE / "qrels.test")
    commented = read_trec_qrels(CONFORMANCE / "qrels.test.with-comments")
    assert len(commented) == len(plain)
    assert ("301", "CR#93E-1860", 0.0) in set(commented)
    assert ("301", "CR93E-1860", 0.0) in set(plain)
    # results.trunc: trailing junk columns after the tag, tab-separated
    trunc = read_trec_run(CONFORMANCE / "results.trunc")
    assert trunc.name == "STANDARD"
    assert trunc.query_ids == ["301", "303"]
    assert len(trunc) == 584
    docs = read_trec_run(CONFORMANCE / "results.comment.test")
    assert all("#" in d for _, d, _ in list(docs)[:100])


# --- fast and slow paths disagree (known bugs) -----------------------------------------


@pytest.mark.parametrize(
    "char",
    [
        pytest.param(c, id=name)
        for c, name in [
            ("\u00a0", "NBSP U+00A0"),
            ("\u3000", "IDEOGRAPHIC SPACE U+3000"),
            ("\u2028", "LINE SEPARATOR U+2028"),
            ("\x85", "NEL U+0085"),
            ("\x1c", "FILE SEPARATOR U+001C"),
            ("\v", "VT U+000B"),
            ("\f", "FF U+000C"),
        ]
    ],
)
def test_fast_and_slow_paths_agree_on_unusual_whitespace(tmp_path: Path, char: str) -> None:
    # trec_eval splits on ASCII whitespace (C isspace): vertical tab and form feed
    # separate columns (the slow path's job), other characters are part of an id
    path = _write_bytes(tmp_path / "qrels", f"q1 0 d{char}x 1\nq1 0 d2 0\n")
    if char in "\v\f":
        assert _path_taken(path, "qrels") == "slow"
        # "d", "x" are two columns, so the relevance column holds "x"
        message = f"{path}:1: the relevance 'x' is not a number."
        assert _message(read_trec_qrels, path) == message
        assert _message(_read_slow, path, "qrels") == message
        return
    assert _path_taken(path, "qrels") == "fast"
    _assert_same(_read_slow(path, "qrels"), read_trec_qrels(path))


def test_bom_is_handled_the_same_on_both_paths(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", b"\xef\xbb\xbfq1 Q0 d1 1 1.5 t\n")
    assert _path_taken(path, "run") == "fast"
    assert read_trec_run(path).query_ids == ["q1"]
    assert _read_slow(path, "run").query_ids == ["q1"]


def test_invalid_utf8_in_an_ignored_column_is_treated_the_same(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", b"q1 Q0 d1 \xff 1.5 t\n")
    with pytest.raises(InputError, match=r":1: the file is not valid UTF-8 text"):
        read_trec_run(path)
    with pytest.raises(InputError, match=r":1: the file is not valid UTF-8 text"):
        _read_slow(path, "run")


def test_carriage_return_inside_a_line_takes_the_slow_path(tmp_path: Path) -> None:
    # the CSV reader would end the line at a lone CR; trec_eval (C isspace) reads it as
    # whitespace between columns, so "d3 1" are extra columns of line 2
    path = _write_bytes(tmp_path / "qrels", "q1 0 d1 1\nq1 0 d2 0\rq1 0 d3 1\n")
    assert _path_taken(path, "qrels") == "slow"
    expected = Qrels.from_dict({"q1": {"d1": 1, "d2": 0}})
    _assert_same(read_trec_qrels(path), expected)
    _assert_same(_read_slow(path, "qrels"), expected)


# --------------------------------------------------------------------------------------
# the fast path streams: the file is checked a chunk at a time, and the columns are
# built from the CSV reader's blocks as they come (query ids dictionary-encoded)


def _interleaved_run(n_queries: int = 7, docs: int = 60) -> tuple[str, Run]:
    """A run whose queries interleave (every block sees most of them again), with ids of
    varying length and non-ASCII text."""
    rows = [
        (
            f"q{i}" if i % 3 else f"q\u00e9{i}",
            f"doc{'x' * (j % 5)}{j}\u00fc{i}",
            float(docs - j) + i / 8,
        )
        for j in range(docs)
        for i in range(n_queries)
    ]
    text = "".join(f"{q} Q0 {d} {r} {s!r} tag\n" for r, (q, d, s) in enumerate(rows, 1))
    expected = Run.from_arrays([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    return text, expected


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_fast_path_builds_the_columns_over_many_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sep: str
) -> None:
    monkeypatch.setattr(trec_fast, "BLOCK_SIZE", 256)
    batches: list[int] = []
    next_batch = trec_fast.next_batch

    def counting(reader: Any) -> Any:
        batch = next_batch(reader)
        batches.append(0 if batch is None else batch.num_rows)
        return batch

    monkeypatch.setattr(trec_fast, "next_batch", counting)
    text, expected = _interleaved_run()
    text = text.replace(" ", sep)
    path = _write_bytes(tmp_path / "run", text)
    run = read_trec_run(path)
    assert sum(b > 0 for b in batches) > 20
    assert _path_taken(path, "run") == "fast"
    _assert_same(run, expected)
    _assert_same(_read_fast(path, "run"), expected)
    _assert_same(_read_slow(path, "run"), expected)
    assert run.name == "tag"
    # query ids: int32 codes into the distinct ids, in order of first appearance
    assert run._q.type == pa.dictionary(pa.int32(), pa.string())
    first_seen = list(dict.fromkeys(line.split(sep)[0] for line in text.splitlines()))
    assert run._q.dictionary.to_pylist() == first_seen
    # doc ids: one string column holding exactly the ids' text
    assert run._d.type == pa.string()
    assert run._d.buffers()[2].size == sum(len(d.encode()) for _, d, _ in expected)
    qrels = Qrels.from_dict(
        {q: {d: int(v) % 3 for _, d, v in expected if _ == q} for q in first_seen}
    )
    metrics = ["map", "ndcg", "P@5", "rr"]
    assert (
        ranklens.evaluate(qrels, run, metrics).summary()
        == ranklens.evaluate(qrels, expected, metrics).summary()
    )


@pytest.mark.parametrize(
    "change", ["comment line", "doubled delimiter", "indented line", "blank lines"]
)
def test_fast_path_judges_every_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    # what only the slow path may read, late in the file: the fast path gives up there
    monkeypatch.setattr(trec_fast, "BLOCK_SIZE", 256)
    text, expected = _interleaved_run()
    lines = text.splitlines(keepends=True)
    k = len(lines) - 3
    if change == "comment line":
        lines.insert(k, "# a comment\n")
    elif change == "doubled delimiter":
        lines[k] = lines[k].replace(" Q0 ", "  Q0 ")
    elif change == "indented line":
        lines[k] = " " + lines[k]
    else:
        lines.insert(k, "\n\n")
    path = _write_bytes(tmp_path / "run", "".join(lines))
    assert _path_taken(path, "run") == ("fast" if change == "blank lines" else "slow")
    _assert_same(read_trec_run(path), expected)
    _assert_same(_read_slow(path, "run"), expected)


def test_fast_path_columns_outgrow_a_low_row_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trec_fast, "BLOCK_SIZE", 256)
    text, expected = _interleaved_run()
    path = _write_bytes(tmp_path / "run", text)
    sep, head, tail, lines = trec_fast.scan(str(path))
    assert (sep, lines) == (" ", text.count("\n"))
    cols = trec_fast.read_fast(str(path), sep, trec_format.RUN, head, tail, rows=3)
    assert cols is not None
    _assert_same(Run(cols.query, cols.doc, cols.value), expected)


def test_growing_column() -> None:
    col = trec_fast.Growing(np.int64, 4)
    for i in range(10):
        col.slot(3)[:] = np.arange(3) + 3 * i
    assert col.finish().tolist() == list(range(30))
    # more than can be reserved: start from the fallback size and grow
    huge = trec_fast.Growing(np.uint8, 1 << 62, 100)
    assert len(huge.array) == 100
    huge.slot(300)[:] = 7
    assert huge.finish().tolist() == [7] * 300


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 0.5 t\n",
        "q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 0.5 t",
        "\ufeffq1 Q0 d1 1 1.5 t\r\nq1 Q0 d2 2 0.5 t\r\n",
        "q1\tQ0\td1\t1\t1.5\tt\n\nq1\tQ0\td2\t2\t0.5\tt\n",
        "q1 Q0 d1 1 1.5 t\n" + "q1 Q0 " + "d" * 50 + " 2 0.5 t\n",
        "q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 0.5 t\rq1 Q0 d3 3 0.1 t\n",
        "q1 Q0 d1 1 1.5 t\nq1 Q0\td2 2 0.5 t\n",
        "q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 0.5\ft\n",
    ],
    ids=[
        "plain",
        "no last line end",
        "bom crlf",
        "tabs, blank line",
        "long line",
        "lone cr",
        "tab and space",
        "form feed",
    ],
)
def test_scan_in_small_chunks_agrees_with_one_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    path = str(_write_bytes(tmp_path / "run", text))
    sep, head, tail, lines = trec_fast.scan(path)
    assert lines == text.count("\n") + (not text.endswith("\n"))
    assert head == text.lstrip("\ufeff").encode() and tail == text.encode()
    for chunk in (1, 5, 16):
        monkeypatch.setattr(trec_fast, "SCAN_CHUNK", chunk)
        small = trec_fast.scan(path)
        assert (small[0], small[2], small[3]) == (sep, tail, lines)
        assert head.startswith(small[1])
    # the delimiter the scan of a file and the byte count of its text find agree
    buf = pa.py_buffer(text.encode())
    assert trec_fast.delimiter(*trec_format.check_text(path, buf)) == sep


def test_invalid_utf8_line_is_found_in_any_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = b"q1 Q0 d1 1 1.5 t\n"
    path = _write_bytes(tmp_path / "run", line * 5 + b"q1 Q0 d\xff 1 1.5 t\n" + line)
    for chunk in (3, 7, 40, 1 << 20):
        monkeypatch.setattr(trec_fast, "SCAN_CHUNK", chunk)
        assert _message(read_trec_run, path) == (
            f"{path}:6: the file is not valid UTF-8 text; re-encode it as UTF-8."
        )


# --------------------------------------------------------------------------------------
# bad input: exact messages


def _message(fn: Any, *args: Any, exc: type[Exception] = InputError, **kwargs: Any) -> str:
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("layout", ["fast", "slow"])
def test_wrong_number_of_columns(tmp_path: Path, layout: str) -> None:
    head = "#\n" if layout == "slow" else ""
    run = _write_bytes(tmp_path / "run", head + "q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2\n")
    line = 3 if layout == "slow" else 2
    assert _message(read_trec_run, run) == (
        f"{run}:{line}: expected 6 columns (query Q0 doc rank score tag), found 4."
    )
    qrels = _write_bytes(tmp_path / "qrels", head + "q1 0 d1 1\n\nq1 0 d2\n")
    line = 4 if layout == "slow" else 3
    assert _message(read_trec_qrels, qrels) == (
        f"{qrels}:{line}: expected 4 columns (query iter doc relevance), found 3."
    )


def test_wrong_number_of_columns_in_a_one_line_file(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", "q1 Q0 d1 1 1.5")
    assert _message(read_run, path) == (
        f"{path}:1: expected 6 columns (query Q0 doc rank score tag), found 5."
    )


@pytest.mark.parametrize("head", ["", "# comment\n\n"])
def test_non_numeric_score_and_relevance(tmp_path: Path, head: str) -> None:
    line = 1 + head.count("\n")
    run = _write_bytes(tmp_path / "run", head + "q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 high t\n")
    assert _message(read_trec_run, run) == f"{run}:{line + 1}: the score 'high' is not a number."
    qrels = _write_bytes(tmp_path / "qrels", head + "q1 0 d1 rel\n")
    assert _message(read_trec_qrels, qrels) == (
        f"{qrels}:{line}: the relevance 'rel' is not a number."
    )


@pytest.mark.parametrize("text", ["1_0", "\uff11"])
def test_number_python_accepts_but_arrow_does_not(tmp_path: Path, text: str) -> None:
    run = _write_bytes(tmp_path / "run", f"q1 Q0 d1 1 {text} t\n")
    assert _message(read_trec_run, run) == f"{run}:1: the score {text!r} is not a number."


def test_csv_number_python_accepts_but_arrow_does_not(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run.csv", "query,doc,score\nq,d,1_0\n")
    assert _message(read_run, path) == f"{path}:2: the score '1_0' is not a number."


def test_non_finite_values_name_the_file(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", "q1 Q0 d1 1 nan t\nq1 Q0 d2 2 inf t\n")
    assert _message(read_trec_run, path) == (
        f"{path}:1: the score 'nan' is not a finite number; every score must be a finite "
        "number (2 row(s) are not)."
    )
    csv_path = _write_bytes(tmp_path / "run.csv", "query,doc,score\nq1,d1,1\nq1,d2,\n")
    assert _message(read_run, csv_path) == (
        f"{csv_path}:3: the score is missing (empty, NA or NaN); every score must be a "
        "finite number (1 row(s) are not)."
    )


def test_empty_file(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "qrels", b"")
    assert _message(read_trec_qrels, path) == f"{path}: the file is empty; expected TREC lines."
    assert _message(read_qrels, path) == f"{path}: the file is empty; expected TREC lines."


def test_file_of_only_comments_and_blank_lines(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", "# nothing\n\n   \n")
    assert _message(read_trec_run, path) == (
        f"{path}: the file is empty: no data lines (only blank lines or comments)."
    )


def test_empty_tabular_files(tmp_path: Path) -> None:
    csv = _write_bytes(tmp_path / "q.csv", b"")
    assert _message(read_qrels, csv) == (
        f"{csv}: the file is empty; expected a header line with column names."
    )
    header = _write_bytes(tmp_path / "h.csv", "query,doc,relevance\n")
    assert _message(read_qrels, header) == f"{header}: the file has a header but no rows."
    jsonl = _write_bytes(tmp_path / "q.jsonl", b"")
    assert _message(read_qrels, jsonl) == (
        f"{jsonl}: the file is empty; expected one JSON object per line."
    )


def test_binary_file(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
    path = _write_bytes(tmp_path / "run", png)
    assert _message(read_trec_run, path) == (
        f"{path}: looks like a binary file, not a TREC text file."
    )
    csv = _write_bytes(tmp_path / "run.csv", b"query,doc,score\n" + png)
    assert _message(read_run, csv) == f"{csv}: looks like a binary file, not CSV text."


@pytest.mark.parametrize("head", ["", "# latin-1 below\n"])
def test_non_utf8_file(tmp_path: Path, head: str) -> None:
    data = head.encode() + "q1 0 d1 1\nq1 0 caf\u00e9 1\n".encode("latin-1")
    path = _write_bytes(tmp_path / "qrels", data)
    line = 2 + head.count("\n")
    assert _message(read_trec_qrels, path) == (
        f"{path}:{line}: the file is not valid UTF-8 text; re-encode it as UTF-8."
    )


def test_non_utf8_csv_header(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "q.csv", b"qu\xe9ry,doc,relevance\nq,d,1\n")
    assert _message(read_qrels, path) == f"{path}:1: the header is not valid UTF-8 text."


def test_non_utf8_csv_row_names_the_line(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "q.csv", b"query,doc,relevance\nq1,d,1\nq\xe9,d,1\n")
    assert _message(read_qrels, path).startswith(f"{path}:3: ")


def test_csv_wrong_number_of_fields_names_the_line(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "q.csv", "query,doc,relevance\nq,d,1\nq,e\n")
    assert _message(read_qrels, path).startswith(f"{path}:3: ")


def test_csv_non_numeric_value(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "q.csv", "qid,docno,label\n1,a,1\n2,b,x\n")
    assert _message(read_qrels, path) == f"{path}:3: the relevance 'x' is not a number."
    tsv = _write_bytes(tmp_path / "r.tsv", "query\tdoc\tscore\nq\td\t0.5\nq\te\thigh\n")
    assert _message(read_run, tsv) == f"{tsv}:3: the score 'high' is not a number."


@pytest.mark.parametrize("reader", [read_qrels, read_run, read_trec_qrels, read_trec_run])
@pytest.mark.parametrize(
    "name", ["missing.txt", "missing.csv", "missing.parquet", "missing.json", "missing.jsonl.gz"]
)
def test_missing_file(tmp_path: Path, reader: Any, name: str) -> None:
    path = tmp_path / name
    assert _message(reader, path) == f"{path}: no such file; check the path."


@pytest.mark.parametrize("reader", [read_qrels, read_run])
@pytest.mark.parametrize("name", ["dir", "dir.csv", "dir.parquet", "dir.json"])
def test_directory_given_as_a_file(tmp_path: Path, reader: Any, name: str) -> None:
    path = tmp_path / name
    path.mkdir()
    assert _message(reader, path) == (
        f"{path}: is a directory, not a file; give the path of a file in it."
    )


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions and a non-root user"
)
def test_unreadable_file(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", "q Q0 d 1 1 t\n")
    path.chmod(0)
    try:
        assert _message(read_run, path) == f"{path}: permission denied; the file is not readable."
    finally:
        path.chmod(0o600)


@pytest.mark.parametrize("head", ["", "# c\n"])
def test_duplicate_lines_are_named(tmp_path: Path, head: str) -> None:
    off = head.count("\n")
    path = _write_bytes(tmp_path / "qrels", head + "q1 0 d1 1\nq1 0 d2 1\n\nq1 0 d1 0\nq2 0 d1 1\n")
    assert _message(read_trec_qrels, path, exc=DuplicateError) == (
        f"{path}: lines {1 + off} and {4 + off} repeat (query 'q1', doc 'd1'); Qrels: 1 "
        "(query, doc) pair(s) occur more than once (1 extra row(s)), e.g. ('q1', 'd1'). "
        "Remove them, or keep one relevance per pair: pass duplicates='max' (the highest), "
        "duplicates='first' or duplicates='last'."
    )
    run = _write_bytes(tmp_path / "run", head + "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 a 3 1 t\n")
    assert _message(read_run, run, exc=DuplicateError) == (
        f"{run}: lines {1 + off} and {3 + off} repeat (query 'q', doc 'a'); Run: 1 "
        "(query, doc) pair(s) occur more than once (1 extra row(s)), e.g. ('q', 'a'). "
        "Remove them, or keep one score per pair: pass duplicates='max' (the highest), "
        "duplicates='first' or duplicates='last'."
    )


@pytest.mark.parametrize("policy,value", [("max", 3.0), ("first", 3.0), ("last", 1.0)])
def test_duplicate_policies_when_reading(tmp_path: Path, policy: str, value: float) -> None:
    path = _write_bytes(tmp_path / "run", "q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 a 3 1 t\n")
    run = read_run(path, duplicates=policy)
    assert _bits(run) == {("q", "a"): value, ("q", "b"): 2.0}
    assert run.dropped_duplicates == 1


def test_duplicates_in_a_csv(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run.csv", "query,doc,score\nq,a,1\nq,a,2\n")
    assert _message(read_run, path, exc=DuplicateError) == (
        f"{path}: Run: 1 (query, doc) pair(s) occur more than once (1 extra row(s)), e.g. "
        "('q', 'a'). Remove them, or keep one score per pair: pass duplicates='max' (the "
        "highest), duplicates='first' or duplicates='last'."
    )


def test_csv_missing_the_named_column(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run.csv", "user,item,pred\nu,i,1\n")
    assert _message(read_run, path, score="prediction") == (
        f"{path}: no column named 'prediction' for the score; the file has columns "
        "['user', 'item', 'pred']. Pass score=<name>."
    )
    pq_path = tmp_path / "q.parquet"
    pq.write_table(pa.table({"uid": ["1"], "iid": ["2"], "rating": [4]}), pq_path)
    assert _message(read_qrels, pq_path, relevance="grade") == (
        f"{pq_path}: no column named 'grade' for the relevance; the file has columns "
        "['uid', 'iid', 'rating']. Pass relevance=<name>."
    )


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".jsonl"])
def test_column_that_cannot_be_detected(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"run{suffix}"
    _write_table(pa.table({"a": ["q"], "b": ["d"], "c": [1.0]}), path)
    assert _message(read_run, path) == (
        f"{path}: cannot tell which column holds the query; the file has columns "
        "['a', 'b', 'c']. Pass query=<name>."
    )
    assert _message(read_run, path, query="a") == (
        f"{path}: cannot tell which column holds the doc; the file has columns "
        "['a', 'b', 'c']. Pass doc=<name>."
    )
    assert _message(read_run, path, query="a", doc="b") == (
        f"{path}: cannot tell which column holds the score; the file has columns "
        "['a', 'b', 'c']. Pass score=<name>."
    )


def test_unknown_format(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run", "q Q0 d 1 1 t\n")
    expected = "unknown format 'xml'; choose one of trec, csv, tsv, parquet, jsonl, json."
    err = ranklens.FormatError  # a usage error (exit 2 on the command line), not bad data
    assert _message(read_run, path, format="xml", exc=err) == expected
    assert _message(read_qrels, path, format="xml", exc=err) == expected
    assert (
        _message(write_run, Run.from_dict({"q": {"d": 1}}), path, format="xml", exc=err) == expected
    )
    assert _message(detect_format, path, "xml", exc=err) == expected


def test_bad_json_files(tmp_path: Path) -> None:
    bad = _write_bytes(tmp_path / "q.json", '{"q": {"d": 1}')
    assert _message(read_qrels, bad) == (
        f"{bad}:1: not valid JSON (Expecting ',' delimiter, column 15)."
    )
    lst = _write_bytes(tmp_path / "l.json", "[1, 2]")
    assert _message(read_qrels, lst) == (
        f"{lst}: expected a JSON object {{query: {{doc: value}}}}, got list."
    )
    text = _write_bytes(tmp_path / "s.json", '{"q": {"d": "x"}}')
    assert _message(read_qrels, text) == (
        f"{text}: Qrels.from_dict: the relevance of (query 'q', doc 'd') is 'x', which is not "
        "a number."
    )


def test_not_a_parquet_file(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run.parquet", "hello")
    assert _message(read_run, path).startswith(f"{path}: not a readable Parquet file (")


# --------------------------------------------------------------------------------------
# tabular formats: column names


def _write_table(table: pa.Table, path: Path) -> None:
    fmt, _ = detect_format(path)
    if fmt in ("csv", "tsv"):
        pacsv.write_csv(
            table, str(path), pacsv.WriteOptions(delimiter="," if fmt == "csv" else "\t")
        )
    elif fmt == "parquet":
        pq.write_table(table, path)
    elif fmt == "jsonl":
        rows = table.to_pylist()
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    else:  # pragma: no cover
        raise AssertionError(fmt)


TABULAR = [".csv", ".tsv", ".parquet", ".jsonl"]


@pytest.mark.parametrize("suffix", TABULAR)
def test_custom_column_names(tmp_path: Path, suffix: str) -> None:
    run_path = tmp_path / f"run{suffix}"
    _write_table(
        pa.table(
            {
                "u": ["007", "007", "8"],
                "x": ["i1", "i2", "0042"],
                "s": [0.5, 1.5, -2.0],
                "other": [1, 2, 3],
            }
        ),
        run_path,
    )
    run = read_run(run_path, query="u", doc="x", score="s")
    _assert_same(run, Run.from_dict({"007": {"i1": 0.5, "i2": 1.5}, "8": {"0042": -2.0}}))
    assert run.name == run_path.name
    assert read_run(run_path, query="u", doc="x", score="s", name="mine").name == "mine"
    qrels_path = tmp_path / f"qrels{suffix}"
    _write_table(pa.table({"topic_no": ["1"], "d": ["a"], "g": [3]}), qrels_path)
    _assert_same(
        read_qrels(qrels_path, query="topic_no", doc="d", relevance="g"),
        Qrels.from_dict({"1": {"a": 3}}),
    )


@pytest.mark.parametrize("suffix", TABULAR)
@pytest.mark.parametrize(
    "names",
    [
        ("user_id", "item_id", "prediction"),
        ("qid", "docno", "score"),
        ("QUERY", "Doc_Id", "Similarity"),
        ("session_id", "product_id", "pred"),
    ],
)
def test_run_columns_detected_from_common_names(
    tmp_path: Path, suffix: str, names: tuple[str, str, str]
) -> None:
    path = tmp_path / f"run{suffix}"
    _write_table(
        pa.table(
            {
                "noise": [1, 2],
                names[0]: ["u1", "u1"],
                names[1]: ["i9", "007"],
                names[2]: [0.25, 0.75],
            }
        ),
        path,
    )
    _assert_same(read_run(path), Run.from_dict({"u1": {"i9": 0.25, "007": 0.75}}))


@pytest.mark.parametrize("suffix", TABULAR)
@pytest.mark.parametrize(
    "names",
    [
        ("qid", "docno", "label"),
        ("user_id", "item_id", "rating"),
        ("topic", "doc", "relevance"),
        ("Query_Id", "PID", "Grade"),
    ],
)
def test_qrels_columns_detected_from_common_names(
    tmp_path: Path, suffix: str, names: tuple[str, str, str]
) -> None:
    path = tmp_path / f"qrels{suffix}"
    _write_table(
        pa.table({names[0]: ["1", "1", "2"], names[1]: ["a", "b", "a"], names[2]: [2, 0, 1]}), path
    )
    _assert_same(read_qrels(path), Qrels.from_dict({"1": {"a": 2, "b": 0}, "2": {"a": 1}}))


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_digit_ids_stay_text_in_csv(tmp_path: Path, suffix: str) -> None:
    sep = "," if suffix == ".csv" else "\t"
    path = _write_bytes(
        tmp_path / f"q{suffix}",
        sep.join(["qid", "docno", "label"])
        + "\n"
        + sep.join(["007", "0042", "1"])
        + "\n"
        + sep.join(["7", "42", "0"])
        + "\n",
    )
    qrels = read_qrels(path)
    assert set(qrels) == {("007", "0042", 1.0), ("7", "42", 0.0)}


def test_integer_id_columns_in_parquet_and_jsonl(tmp_path: Path) -> None:
    pq_path = tmp_path / "q.parquet"
    pq.write_table(pa.table({"qid": [1, 2], "docno": [10, 20], "label": [1, 0]}), pq_path)
    jsonl = _write_bytes(
        tmp_path / "q.jsonl",
        '{"qid": 1, "docno": 10, "label": 1}\n{"qid": 2, "docno": 20, "label": 0}\n',
    )
    expected = Qrels.from_dict({"1": {"10": 1}, "2": {"20": 0}})
    _assert_same(read_qrels(pq_path), expected)
    _assert_same(read_qrels(jsonl), expected)


def test_dict_of_dicts_json_as_ranx_and_pytrec_eval_keep_it(tmp_path: Path) -> None:
    qrels_path = _write_bytes(
        tmp_path / "qrels.json", json.dumps({"q_1": {"doc_12": 5, "doc_25": 3}, "007": {"1": 0}})
    )
    run_path = _write_bytes(
        tmp_path / "run.json", json.dumps({"q_1": {"doc_12": 0.9, "doc_23": 0.8}})
    )
    assert set(read_qrels(qrels_path)) == {
        ("q_1", "doc_12", 5.0),
        ("q_1", "doc_25", 3.0),
        ("007", "1", 0.0),
    }
    run = read_run(run_path)
    assert set(run) == {("q_1", "doc_12", 0.9), ("q_1", "doc_23", 0.8)}
    assert run.name == "run.json"


def test_csv_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = _write_bytes(tmp_path / "run.csv", b"\xef\xbb\xbfquery,doc,score\nq,d,1\n")
    assert read_run(path) == Run.from_dict({"q": {"d": 1.0}})


def test_csv_quoting_and_special_characters_in_ids(tmp_path: Path) -> None:
    ids = ["a,b", 'a"b', "a\nb", "a\tb", "", " lead", "trail ", "#", "NA", "null"]
    run = Run.from_arrays(ids, [f"d{i}" for i in range(len(ids))], np.arange(len(ids)) / 7)
    for suffix in (".csv", ".tsv", ".jsonl", ".json", ".parquet"):
        path = tmp_path / f"run{suffix}"
        write_run(run, path)
        _assert_same(read_run(path), run)


@pytest.mark.parametrize("path", [None, 123])
def test_paths_of_the_wrong_type(path: object) -> None:
    for fn in (read_run, read_qrels):
        with pytest.raises(InputError, match="a file path must be a string or a path"):
            fn(path)  # type: ignore[arg-type]


def test_trec_files_refuse_column_names_and_runs_as_qrels(tmp_path: Path) -> None:
    run = _write_bytes(tmp_path / "run", "q Q0 a 1 2 t\nq Q0 b 2 1 t\n")
    with pytest.raises(InputError, match=r"run:1: this looks like a run line"):
        read_trec_qrels(run)
    slow = _write_bytes(tmp_path / "run2", "# c\nq  Q0 a 1 2 t\n")
    with pytest.raises(InputError, match=r"run2:2: this looks like a run line"):
        read_trec_qrels(slow)
    with pytest.raises(InputError, match=r"fixed columns, so score=<column> does not apply"):
        read_run(run, score="s")
    qrels = _write_bytes(tmp_path / "qrels", "q 0 a 1\n")
    with pytest.raises(InputError, match=r"fixed columns, so doc=<column> does not apply"):
        read_qrels(qrels, doc="d")


def test_several_run_tags_warn_on_both_readers(tmp_path: Path) -> None:
    fast = _write_bytes(tmp_path / "run", "q Q0 a 1 2 first\nq Q0 b 2 1 last\n")
    slow = _write_bytes(tmp_path / "run2", "#\nq Q0 a 1 2 x\nq  Q0 b 2 1 y\nq Q0 c 3 0 x\n")
    with pytest.warns(RanklensWarning, match=r"several run tags \(e\.g\. 'first' and 'last'\)"):
        assert read_trec_run(fast).name == "last"
    with pytest.warns(RanklensWarning, match=r"several run tags \(e\.g\. 'y' and 'x'\)"):
        assert read_trec_run(slow).name == "x"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_run(fast, name="mine").name == "mine"  # named: nothing to say


def test_a_score_that_is_not_utf8_is_named_by_its_line(tmp_path: Path) -> None:
    # Arrow reads a CSV column that is not UTF-8 as binary: casting it to text for the
    # message ended in ArrowInvalid 'Invalid UTF8 payload'
    path = tmp_path / "run.csv"
    path.write_bytes(b"query,doc,score\nq1,d1,0.5\nq1,d2,\xff\xfe\n")
    with pytest.raises(ranklens.InputError, match=r"run\.csv:3: the score .* is not a number"):
        ranklens.io.read_run(str(path))
