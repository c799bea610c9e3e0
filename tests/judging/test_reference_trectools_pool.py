"""Reference tests: :func:`ranklens.judging.pool` against trectools' ``TrecPoolMaker``.

Random runs written as TREC files and read by trectools' ``TrecRun`` (which sorts a
run by score descending, then docid *ascending*): scores drawn from a few values, so
many documents tie, at the pool's boundary too; queries missing from some runs; doc
ids of different lengths (``d9`` > ``d10`` in byte order); runs of different lengths.
The file's rank column is each document's position in trectools' order (trectools
weighs ``rrf``/``rbp`` by that column, ranklens by the position), and every pool is
built with ``ties="trectools"``.  Every strategy and parameter of ``make_pool``:
``topX`` (1, 3, 10), ``rrf`` with ``rrf_den`` (0, 2.5, 60), ``rbp`` with ``rbp_p``
(0.5, 0.8, 0.95) and ``rbp_strategy`` (sum, max).  trectools' ``rrf``/``rbp`` pools
key queries by ``int(query)``: the ids here are integers.  A query named by an empty
ranking (which a TREC file cannot hold) has an empty pool in ranklens; trectools does
not know it, so empty pools are left out of the comparison.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from ranklens import Run
from ranklens.judging import pool

trectools = pytest.importorskip("trectools")

pytestmark = pytest.mark.reference


def _runs(seed: int, tmp: Path, n_runs: int) -> tuple[list[Run], list[str]]:
    rng = np.random.default_rng(seed)
    runs, files = [], []
    n_q = int(rng.integers(1, 7))
    for j in range(n_runs):
        rows: dict[str, dict[str, float]] = {}
        lines = []
        for q in range(n_q):
            if rng.random() < 0.2:
                continue  # this run misses the query
            n = int(rng.integers(1, 25))
            docs = rng.choice(40, size=n, replace=False)
            scores = rng.integers(0, 5, size=n).astype(float) / 2  # many ties
            ranking = {f"d{d}": float(s) for d, s in zip(docs, scores, strict=True)}
            rows[str(q + 1)] = ranking
            ordered = sorted(ranking.items(), key=lambda kv: (-kv[1], kv[0]))
            lines += [f"{q + 1} Q0 {d} {r} {s} r{j}" for r, (d, s) in enumerate(ordered, 1)]
        if seed % 4 == 0:
            rows[str(n_q + 1)] = {}  # an empty ranking
        path = tmp / f"run{j}.txt"
        path.write_text("\n".join(lines) + "\n" if lines else f"1 Q0 dx 1 -9 r{j}\n")
        if not lines:
            rows["1"] = {"dx": -9.0}
        files.append(str(path))
        runs.append(Run.from_dict(rows, name=f"r{j}"))
    return runs, files


def _theirs(files: list[str], **kw: object) -> dict[str, set[str]]:
    maker = trectools.TrecPoolMaker()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = [trectools.TrecRun(f) for f in files]
        got = maker.make_pool(runs, **kw).pool
    return {str(q): set(d) for q, d in got.items() if d}


def _ours(runs: list[Run], **kw: object) -> dict[str, set[str]]:
    return {q: d for q, d in pool(runs, ties="trectools", **kw).to_dict().items() if d}  # type: ignore[arg-type]


@pytest.mark.parametrize("depth", [1, 3, 10])
@pytest.mark.parametrize("seed", range(6))
def test_top_x_equals_trectools(seed: int, depth: int, tmp_path: Path) -> None:
    runs, files = _runs(seed, tmp_path, 1 + seed % 4)
    assert _ours(runs, depth=depth) == _theirs(files, strategy="topX", topX=depth)


@pytest.mark.parametrize("den", [0.0, 2.5, 60.0])
@pytest.mark.parametrize("depth", [1, 4, 10])
@pytest.mark.parametrize("seed", range(4))
def test_rrf_equals_trectools(seed: int, depth: int, den: float, tmp_path: Path) -> None:
    runs, files = _runs(100 + seed, tmp_path, 1 + seed % 3)
    ours = _ours(runs, depth=depth, strategy="rrf", rrf_k=den)
    assert ours == _theirs(files, strategy="rrf", topX=depth, rrf_den=den)


@pytest.mark.parametrize("merge", ["sum", "max"])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("depth", [1, 4, 10])
@pytest.mark.parametrize("seed", range(3))
def test_rbp_equals_trectools(seed: int, depth: int, p: float, merge: str, tmp_path: Path) -> None:
    runs, files = _runs(200 + seed, tmp_path, 1 + seed % 3)
    ours = _ours(runs, depth=depth, strategy="rbp", rbp_p=p, rbp_merge=merge)
    theirs = _theirs(files, strategy="rbp", topX=depth, rbp_p=p, rbp_strategy=merge)
    assert ours == theirs
