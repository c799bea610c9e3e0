"""``ranklens.evaluate_files``: a run streamed in blocks of whole queries (grouped runs
directly, ungrouped ones through DuckDB) gives exactly the numbers, counts, names,
warnings and errors of ``ranklens.evaluate`` on the whole files.

The blocks are made tiny (a few lines) so that every case runs through many batches."""

from __future__ import annotations

import gzip
import os
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import ranklens
import ranklens.io.stream as stream
from ranklens._shared.sizes import format_size, parse_size
from ranklens.io import read_qrels, read_run
from tests.helpers import graded_case

METRICS = [
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "ndcg",
    "ndcg@10",
    "ndcg_rel",
    "P.5",
    "recall@10",
    "map@5",
    "11pt_avg",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "success@1",
    "err@10",
    "rbp",
    "infAP",
    "iprec_at_recall.0.5",
    "set_F",
]


@pytest.fixture(autouse=True)
def tiny_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of about 300 bytes (a few lines) and groups of whole queries of about 20
    rows: every case goes through many batches."""
    monkeypatch.setattr(stream, "LARGEST_BLOCK", 300)
    monkeypatch.setattr(stream, "MIN_BLOCK", 300)


def _rows(
    seed: int, duplicates: bool
) -> tuple[dict[str, dict[str, int]], list[tuple[str, str, float]]]:
    """A random case: graded qrels with negative grades and queries absent from the run,
    a run with ties, unjudged documents, a query without judgments and (with
    ``duplicates``) repeated (query, doc) rows, not next to each other."""
    qrels_d, run_d = graded_case(seed, n_queries=(15, 30), stray_query=True)
    rng = np.random.default_rng(seed)
    for docs in qrels_d.values():
        for d in docs:
            if rng.random() < 0.1:
                docs[d] = -1
    rows = []
    for q, docs in run_d.items():
        mine = [(q, d, s) for d, s in docs.items()]
        if duplicates and len(mine) > 2 and rng.random() < 0.3:
            mine.append((q, mine[0][1], float(rng.integers(0, 6)) / 4))
        rows += mine
    return qrels_d, rows


def _write(
    folder: Path,
    qrels_d: dict[str, dict[str, int]],
    rows: list[tuple[str, str, float]],
    shuffled: bool,
    seed: int = 0,
    tags: tuple[str, ...] = ("sys",),
) -> tuple[str, str]:
    if shuffled:
        rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in qrels_d.items() for d, g in docs.items())
    )
    run = folder / "run.txt"
    run.write_text(
        "# a comment line\n"
        + "".join(
            f"{q} Q0 {d} {i + 1} {s!r} {tags[i * len(tags) // len(rows)]}\n"
            for i, (q, d, s) in enumerate(rows)
        )
    )
    return str(qrels), str(run)


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """``fn(...)`` and the warnings it gave (or the error it raised, as the result)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*args, **kwargs)
        except ranklens.RanklensError as exc:
            out = exc
    return out, sorted(str(w.message) for w in caught)


def _whole(
    qrels: str, run: str, metrics: list[str], duplicates: str = "error", **conv: Any
) -> ranklens.Result:
    return ranklens.evaluate(
        read_qrels(qrels), read_run(run, duplicates=duplicates), metrics, **conv
    )


def assert_same(got: Any, want: Any) -> None:
    """The same Result (values bit for bit, NaN where NaN), or the same error."""
    if isinstance(want, Exception):
        assert type(got) is type(want), got
        assert str(got) == str(want)
        return
    assert isinstance(got, ranklens.Result), got
    assert got.query_ids == want.query_ids
    assert got.metrics == want.metrics
    for m in want.metrics:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)
    assert got.summary() == pytest.approx(want.summary(), nan_ok=True, rel=0, abs=0)
    assert dict(got.report) == dict(want.report)
    assert got.run_name == want.run_name
    assert got.conventions == want.conventions


CONVENTIONS = [
    {},
    {"missing": "zero", "unjudged": "zero"},
    {"ties": "input"},
    {"ties": "optimistic", "no_relevant": "nan"},
    {"no_relevant": "skip", "depth": 5},
    {"judged_only": True, "rel_threshold": 2},
    {"profile": "trec_eval"},
    {"profile": "ranx"},
    {"profile": "pytrec_eval", "missing": "zero"},
    {"missing": "error"},
    {"no_relevant": "error"},
]


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
@pytest.mark.parametrize(
    "conv", CONVENTIONS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default"
)
def test_streamed_equals_in_memory(tmp_path: Path, conv: dict[str, Any], shuffled: bool) -> None:
    for seed in range(2):
        qrels_d, rows = _rows(seed, duplicates=False)
        qrels, run = _write(tmp_path, qrels_d, rows, shuffled, seed)
        want, want_warnings = _quiet(_whole, qrels, run, METRICS, **conv)
        got, got_warnings = _quiet(
            ranklens.evaluate_files, qrels, run, METRICS, memory="1MB", **conv
        )
        assert_same(got, want)
        assert got_warnings == want_warnings


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
@pytest.mark.parametrize("policy", ["first", "last", "max", "error"])
def test_repeated_pairs_are_found_within_a_query(
    tmp_path: Path, policy: str, shuffled: bool
) -> None:
    """A repeated (query, doc) pair is in one batch (a batch holds whole queries): the
    duplicates rule sees it; 'first'/'last' keep the row the file order says."""
    for seed in range(3):
        qrels_d, rows = _rows(seed, duplicates=True)
        qrels, run = _write(tmp_path, qrels_d, rows, shuffled, seed)
        want, _ = _quiet(_whole, qrels, run, METRICS, duplicates=policy, ties="input")
        got, _ = _quiet(
            ranklens.evaluate_files,
            qrels,
            run,
            METRICS,
            memory="1MB",
            duplicates=policy,
            ties="input",
        )
        if policy == "error" and isinstance(want, ranklens.DuplicateError):
            # the file and the lines of the first repeated pair of its batch; the counts
            # are the batch's, and the message says so
            assert isinstance(got, ranklens.DuplicateError)
            assert str(got).startswith(f"{run}: lines ")
            assert str(got).endswith("so repeats further on are not counted.)")
            continue
        assert_same(got, want)


def test_run_tags_name_the_run_and_several_are_reported_once(tmp_path: Path) -> None:
    qrels_d, rows = _rows(3, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, False, tags=("first", "second"))
    got, got_warnings = _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")
    assert got.run_name == "second"
    assert [w for w in got_warnings if "several run tags" in w] == [
        f"{run}: the run has several run tags (e.g. 'first' and 'second'); it is named "
        "'second', after its last line, as trec_eval does. Give each system its own file."
    ]
    named, named_warnings = _quiet(
        ranklens.evaluate_files, qrels, run, ["map"], memory="1MB", name="mine"
    )
    assert named.run_name == "mine"
    assert not [w for w in named_warnings if "several run tags" in w]


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
def test_errors_name_the_line_of_the_file(tmp_path: Path, shuffled: bool) -> None:
    qrels_d, rows = _rows(4, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, shuffled)
    lines = Path(run).read_text().splitlines(keepends=True)
    for bad in ("q1 Q0 dx 3 oops tag\n", "q1 Q0 dx 3\n", "q1 Q0 dx 3 nan tag\n"):
        broken = [*lines[:-5], bad, *lines[-5:]]
        Path(run).write_text("".join(broken))
        want, _ = _quiet(_whole, qrels, run, ["map"])
        got, _ = _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")
        assert isinstance(want, ranklens.InputError)
        assert f"{run}:{len(broken) - 5}:" in str(want)
        assert_same(got, want)


def _pipe(data: bytes) -> Iterator[str]:
    """A path to a pipe that yields ``data`` (written by a thread, as ``<(cmd)`` does)."""
    r, w = os.pipe()

    def feed() -> None:
        with os.fdopen(w, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=feed)
    thread.start()
    try:
        yield f"/dev/fd/{r}"
    finally:
        thread.join()
        os.close(r)


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
@pytest.mark.parametrize("how", ["gzip file", "pipe", "gzip pipe"])
def test_compressed_and_piped_runs_stream(tmp_path: Path, how: str, shuffled: bool) -> None:
    """A compressed file, a pipe and a compressed pipe (decompressed by its first
    bytes): streamed, read once (a shuffled pipe is replayed from its spill copy)."""
    qrels_d, rows = _rows(5, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, shuffled, 5)
    want, want_warnings = _quiet(_whole, qrels, run, METRICS, missing="zero")
    text = Path(run).read_bytes()
    if how == "gzip file":
        path = str(tmp_path / "run.txt.gz")
        Path(path).write_bytes(gzip.compress(text))
        got, got_warnings = _quiet(
            ranklens.evaluate_files, qrels, path, METRICS, memory="1MB", missing="zero"
        )
    else:
        data = gzip.compress(text) if how == "gzip pipe" else text
        pipe = _pipe(data)
        path = next(pipe)
        got, got_warnings = _quiet(
            ranklens.evaluate_files,
            qrels,
            path,
            METRICS,
            memory="1MB",
            missing="zero",
            temp_dir=str(tmp_path),
        )
        next(pipe, None)
        assert not [p for p in os.listdir(tmp_path) if p.startswith("ranklens-")]  # spill gone
    assert_same(got, want)
    assert got_warnings == want_warnings


def test_a_file_that_fits_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels_d, rows = _rows(6, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, True)
    monkeypatch.setattr(stream, "Source", None)  # streaming would fail
    assert stream.fits_in_memory(run, "1GB")
    assert_same(
        _quiet(ranklens.evaluate_files, qrels, run, METRICS, memory="1GB")[0],
        _quiet(_whole, qrels, run, METRICS)[0],
    )


def test_without_duckdb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the 'large' extra a grouped run still streams; an ungrouped one that does
    not fit fails with one line naming the extra."""
    import builtins

    real = builtins.__import__

    def no_duckdb(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.partition(".")[0] == "duckdb":
            raise ModuleNotFoundError("No module named 'duckdb'", name="duckdb")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_duckdb)
    qrels_d, rows = _rows(7, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, False)
    assert_same(
        _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")[0],
        _quiet(_whole, qrels, run, ["map"])[0],
    )
    qrels, run = _write(tmp_path, qrels_d, rows, True, 7)
    got, _ = _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")
    assert isinstance(got, ranklens.errors.MissingDependencyError)
    assert "pip install 'ranklens[large]'" in str(got)


def test_large_qrels_are_refused_naming_memory(tmp_path: Path) -> None:
    qrels_d, rows = _rows(8, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, False)
    with pytest.raises(ranklens.InputError, match=r"qrels would take about .* memory='"):
        ranklens.evaluate_files(qrels, run, ["map"], memory="1KB")


def test_an_empty_run_is_named(tmp_path: Path) -> None:
    qrels_d, rows = _rows(9, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, False)
    Path(run).write_text("")
    got, _ = _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")
    assert_same(got, _quiet(_whole, qrels, run, ["map"])[0])


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("500MB", 500 * 10**6),
        ("2GB", 2 * 10**9),
        ("1.5 GiB", 3 * 2**29),
        ("64k", 2**16),
        ("100", 100),
        (" 3 mib ", 3 * 2**20),
        (2**30, 2**30),
    ],
)
def test_sizes(text: Any, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "MB", "5 XB", "-1GB", "0", "1e3MB", "2 G B"])
def test_bad_sizes_name_the_keyword(text: str) -> None:
    with pytest.raises(ranklens.InputError, match="memory="):
        parse_size(text)
    with pytest.raises(ranklens.InputError, match="memory="):
        ranklens.evaluate_files("qrels", "run", ["map"], memory=text)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -2.0, True, [1]])
def test_bad_numeric_sizes_name_the_keyword(value: Any) -> None:
    # a NaN or infinite number of bytes ended in int()'s ValueError / OverflowError
    with pytest.raises(ranklens.InputError, match="memory"):
        parse_size(value)


def test_numpy_sizes() -> None:
    assert parse_size(np.int64(2**20)) == 2**20


def test_format_size() -> None:
    assert format_size(500 * 10**6) == "477 MiB"
    assert format_size(12) == "12 B"


def _write_table(
    folder: Path, rows: list[tuple[str, str, float]], fmt: str, shuffled: bool, seed: int = 0
) -> str:
    if shuffled:
        rows = [rows[i] for i in np.random.default_rng(seed).permutation(len(rows))]
    sep = "," if fmt == "csv" else "\t"
    path = folder / f"run.{fmt}"
    path.write_text(
        sep.join(("score", "user_id", "item_id"))
        + "\n"
        + "".join(f"{s!r}{sep}{q}{sep}{d}\n" for q, d, s in rows)
    )
    return str(path)


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_runs_stream(tmp_path: Path, fmt: str, shuffled: bool) -> None:
    for seed, conv in enumerate(CONVENTIONS[:4]):
        qrels_d, rows = _rows(seed, duplicates=seed == 1)
        qrels, _ = _write(tmp_path, qrels_d, rows, False)
        run = _write_table(tmp_path, rows, fmt, shuffled, seed)
        dup = "last" if seed == 1 else "error"
        want, want_warnings = _quiet(_whole, qrels, run, METRICS, duplicates=dup, **conv)
        got, got_warnings = _quiet(
            ranklens.evaluate_files, qrels, run, METRICS, memory="1MB", duplicates=dup, **conv
        )
        assert_same(got, want)
        assert got_warnings == want_warnings
        pipe = _pipe(Path(run).read_bytes())
        piped, _ = _quiet(
            ranklens.evaluate_files,
            qrels,
            next(pipe),
            METRICS,
            memory="1MB",
            duplicates=dup,
            run_format=fmt,
            name=want.run_name,
            **conv,
        )
        next(pipe, None)
        assert_same(piped, want)


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
def test_csv_errors_name_the_line(tmp_path: Path, shuffled: bool) -> None:
    qrels_d, rows = _rows(12, duplicates=False)
    qrels, _ = _write(tmp_path, qrels_d, rows, False)
    run = _write_table(tmp_path, rows, "csv", shuffled, 12)
    lines = Path(run).read_text().splitlines(keepends=True)
    broken = [*lines[:-5], "high,q1,dx\n", *lines[-5:]]
    Path(run).write_text("".join(broken))
    want, _ = _quiet(_whole, qrels, run, ["map"])
    got, _ = _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")
    assert f"{run}:{len(broken) - 5}: the score 'high' is not a number" in str(want)
    assert_same(got, want)
    Path(run).write_text(lines[0])
    assert_same(
        _quiet(ranklens.evaluate_files, qrels, run, ["map"], memory="1MB")[0],
        _quiet(_whole, qrels, run, ["map"])[0],
    )
    with pytest.raises(ranklens.InputError, match="Pass doc=<name>"):
        ranklens.evaluate_files(qrels, run, ["map"], memory="1MB", doc="nope")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_regrouped_table_names_the_line_of_a_bad_score(tmp_path: Path, fmt: str) -> None:
    # a query's rows regrouped by DuckDB are not consecutive lines: the line of a bad
    # score was the first line of its group plus its place in the group
    qrels_d, rows = _rows(13, duplicates=False)
    qrels, _ = _write(tmp_path, qrels_d, rows, False)
    run = _write_table(tmp_path, rows, "csv", True, 13)
    lines = Path(run).read_text().splitlines(keepends=True)
    middle = len(lines) // 2
    query = lines[middle].split(",")[1]
    lines.insert(middle, f"high,{query},dx\n")
    Path(run).write_text("".join(lines))
    where = f"{run}:{middle + 1}"
    if fmt == "parquet":
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq

        table = pacsv.read_csv(
            run, convert_options=pacsv.ConvertOptions(column_types={"score": pa.string()})
        )
        run = str(tmp_path / "run.parquet")
        pq.write_table(table, run)
        where = f"{run}:{middle - 1}"  # rows counted from 0
    with pytest.raises(ranklens.InputError) as whole:
        _whole(qrels, run, ["map"])
    with pytest.raises(ranklens.InputError) as streamed:
        ranklens.evaluate_files(qrels, run, ["map"], memory="1MB")
    assert str(whole.value).startswith(f"{where}: the score")
    assert str(streamed.value).startswith(f"{where}: the score")


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
def test_parquet_runs_stream(tmp_path: Path, shuffled: bool) -> None:
    """Parquet runs are read a batch of rows at a time (integer ids too)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    qrels_d, rows = _rows(13, duplicates=False)
    qrels, _ = _write(tmp_path, qrels_d, rows, False)
    if shuffled:
        rows = [rows[i] for i in np.random.default_rng(13).permutation(len(rows))]
    run = str(tmp_path / "run.parquet")
    pq.write_table(
        pa.table(
            {
                "qid": [q for q, _, _ in rows],
                "docno": [d for _, d, _ in rows],
                "score": [s for _, _, s in rows],
            }
        ),
        run,
        row_group_size=7,
    )
    for conv in CONVENTIONS[:3]:
        want, want_warnings = _quiet(_whole, qrels, run, METRICS, **conv)
        got, got_warnings = _quiet(
            ranklens.evaluate_files, qrels, run, METRICS, memory="1MB", **conv
        )
        assert_same(got, want)
        assert got_warnings == want_warnings


def test_a_json_run_over_the_budget_is_refused(tmp_path: Path) -> None:
    qrels_d, rows = _rows(14, duplicates=False)
    qrels, _ = _write(tmp_path, qrels_d, rows, False)
    run = tmp_path / "run.jsonl"
    run.write_text(
        "".join(f'{{"query": "{q}", "doc": "{d}", "score": {s!r}}}\n' for q, d, s in rows)
    )
    with pytest.raises(ranklens.InputError, match=r"read whole.*TREC, CSV, TSV or Parquet"):
        ranklens.evaluate_files(qrels, str(run), ["map"], memory="1MB")
    assert_same(
        _quiet(ranklens.evaluate_files, qrels, str(run), ["map"], memory="2GB")[0],
        _quiet(_whole, qrels, str(run), ["map"])[0],
    )


def test_duckdb_out_of_memory_is_one_error_naming_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ranklens.io._partition as partition

    qrels_d, rows = _rows(15, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, True, 15)

    class Failing(partition.Partitioner):
        def add(self, rows: Any) -> None:
            self._con.execute("SET memory_limit='1KB'")
            super().add(rows)

    monkeypatch.setattr(partition, "Partitioner", Failing)
    with pytest.raises(
        ranklens.RanklensError, match=r"grouping the ungrouped run .* failed: .*memory='\.\.\.'"
    ):
        ranklens.evaluate_files(qrels, run, ["map"], memory="1MB")


def test_the_default_budget_is_half_the_available_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    from ranklens._shared.sizes import available_memory

    free = available_memory()
    assert free is None or free > 0
    monkeypatch.setattr(stream, "available_memory", lambda: 8 * 2**30)
    assert stream.default_memory() == 4 * 2**30
    monkeypatch.setattr(stream, "available_memory", lambda: 2**20)
    assert stream.default_memory() == 512 * 2**20
    monkeypatch.setattr(stream, "available_memory", lambda: None)
    assert stream.default_memory() == 2 * 2**30


def test_temp_dir_must_be_a_folder(tmp_path: Path) -> None:
    qrels_d, rows = _rows(16, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, True, 16)
    with pytest.raises(ranklens.InputError, match=r"temp_dir='.*nope' is not a folder"):
        ranklens.evaluate_files(qrels, run, ["map"], memory="1MB", temp_dir=str(tmp_path / "nope"))


def test_a_temp_dir_without_room_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a folder that cannot be written to (e.g. /proc, read-only) ended in mkdtemp's OSError
    qrels_d, rows = _rows(16, duplicates=False)
    qrels, run = _write(tmp_path, qrels_d, rows, True, 16)

    def refused(*args: Any, **kwargs: Any) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(stream.tempfile, "mkdtemp", refused)
    with pytest.raises(ranklens.InputError, match=r"temp_dir='.*' to spill .*Permission denied"):
        ranklens.evaluate_files(qrels, run, ["map"], memory="1MB", temp_dir=str(tmp_path))


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
def test_streamed_csv_parse_errors_name_the_line(tmp_path: Path, shuffled: bool) -> None:
    # Arrow's streaming CSV reader says what is wrong but not where: the file is read
    # again, line by line, for the line (as the one-file reader names it)
    qrels_d, rows = _rows(17, duplicates=False)
    qrels, _ = _write(tmp_path, qrels_d, rows, False)
    run = _write_table(tmp_path, rows, "csv", shuffled, 17)
    lines = Path(run).read_bytes().splitlines(keepends=True)
    middle = len(lines) // 2
    for bad, what in (
        (b"0.5,q1,dx,more\n", "expected 3 fields like the header, found 4"),
        (b"0.5,q1,d\xff\n", "the file is not valid UTF-8 text"),
    ):
        Path(run).write_bytes(b"".join([*lines[:middle], bad, *lines[middle:]]))
        with pytest.raises(ranklens.InputError) as whole:
            _whole(qrels, run, ["map"])
        with pytest.raises(ranklens.InputError) as streamed:
            ranklens.evaluate_files(qrels, run, ["map"], memory="1MB")
        assert str(whole.value).startswith(f"{run}:{middle + 1}: {what}")
        assert str(streamed.value) == str(whole.value)
