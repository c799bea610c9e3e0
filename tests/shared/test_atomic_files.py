"""Every file ranklens writes goes through one helper (ranklens._shared.files): a
write that fails midway leaves the previous file as it was and no temporary file."""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import ranklens
from ranklens._shared import files
from ranklens._shared.files import atomic_path, atomic_write
from ranklens.errors import OutputPathError

OLD = b"the previous, good file\n"


def _full_disk(*args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _tables() -> tuple[ranklens.Qrels, ranklens.Run]:
    qrels = ranklens.Qrels(["q1", "q1", "q2"], ["d1", "d2", "d3"], [1, 0, 2])
    run = ranklens.Run(["q1", "q1", "q2"], ["d1", "d2", "d3"], [0.9, 0.5, 0.7], name="sys")
    return qrels, run


def _only_file(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_helper_failing_midway_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(OLD)
    with pytest.raises(RuntimeError, match="boom"), atomic_path(target) as tmp:
        Path(tmp).write_bytes(b"half of the new fi")
        raise RuntimeError("boom")
    assert target.read_bytes() == OLD
    assert _only_file(tmp_path) == ["out.txt"]


def test_helper_os_error_is_ours_and_names_the_path(tmp_path: Path, monkeypatch: Any) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(OLD)
    monkeypatch.setattr(files.os, "replace", _full_disk)
    with pytest.raises(OutputPathError, match=r"out\.txt.*No space left on device.*as it was"):
        atomic_write(target, "new")
    assert target.read_bytes() == OLD
    assert _only_file(tmp_path) == ["out.txt"]


def test_helper_replaces_and_keeps_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_bytes(OLD)
    os.chmod(target, 0o640)
    atomic_write(target, "new text")
    assert target.read_text() == "new text"
    assert oct(os.stat(target).st_mode & 0o777) == oct(0o640)
    assert _only_file(tmp_path) == ["out.txt"]


def test_helper_writes_a_symlinks_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(OLD)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_helper_writes_devices_in_place() -> None:
    atomic_write(os.devnull, "into the void")  # no rename over /dev/null
    assert os.path.exists(os.devnull)


class _HalfStream(io.RawIOBase):
    """A stream that writes half of what it is given, then finds the disk full."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        blob = bytes(data)
        self.real.write(blob[: len(blob) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        self.real.close()
        super().close()


@pytest.mark.parametrize("name", ["out.trec", "out.csv", "out.tsv.gz", "out.jsonl", "out.json"])
def test_io_writer_failing_midway_keeps_the_old_file(
    tmp_path: Path, monkeypatch: Any, name: str
) -> None:
    _, run = _tables()
    target = tmp_path / name
    target.write_bytes(OLD)
    real = pa.output_stream
    monkeypatch.setattr(
        pa,
        "output_stream",
        lambda p, compression=None: pa.PythonFile(
            _HalfStream(real(p, compression=compression)), mode="w"
        ),
    )
    with pytest.raises(OutputPathError, match="No space left"):
        ranklens.io.write_run(run, target)
    assert target.read_bytes() == OLD
    assert _only_file(tmp_path) == [name]


def _writers(qrels: ranklens.Qrels, run: ranklens.Run) -> dict[str, Callable[[Path], Any]]:
    from ranklens.render import plots
    from ranklens.render.html import html_report
    from ranklens.render.report import save_results

    result = ranklens.evaluate(qrels, run, ["p@1"])
    return {
        "run.trec": lambda p: ranklens.io.write_run(run, p),
        "qrels.trec": lambda p: ranklens.io.write_qrels(qrels, p),
        "run.csv": lambda p: ranklens.io.write_run(run, p),
        "run.parquet": lambda p: ranklens.io.write_run(run, p),
        "run.jsonl": lambda p: ranklens.io.write_run(run, p),
        "run.json": lambda p: ranklens.io.write_run(run, p),
        "results.parquet": lambda p: save_results(result, p),
        "results.md": lambda p: save_results(result, p),
        "report.html": lambda p: html_report(qrels, {"a": run}, ["p@1"], path=p),
        "chart.svg": lambda p: plots.plot_distribution([result], "p@1", path=p),
    }


WRITERS = [
    "run.trec",
    "qrels.trec",
    "run.csv",
    "run.parquet",
    "run.jsonl",
    "run.json",
    "results.parquet",
    "results.md",
    "report.html",
    "chart.svg",
]


@pytest.mark.parametrize("name", WRITERS)
def test_every_writer_goes_through_the_helper(tmp_path: Path, monkeypatch: Any, name: str) -> None:
    """Each writer writes a temporary file and renames it: when the rename fails, the
    old file is intact and nothing is left behind."""
    write = _writers(*_tables())[name]
    target = tmp_path / name
    write(target)  # works, and replaces nothing yet
    assert target.stat().st_size > 0
    target.write_bytes(OLD)
    monkeypatch.setattr(files.os, "replace", _full_disk)
    with pytest.raises(OutputPathError, match="No space left"):
        write(target)
    assert target.read_bytes() == OLD
    assert _only_file(tmp_path) == [name]
