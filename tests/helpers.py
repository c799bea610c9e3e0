"""Paths and random-case generators shared by the test packages."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
CONFORMANCE = REPO.parent / "shared" / "conformance" / "trec_eval"
# trec_eval's own regression suite, read where it lies beside the repository: an extra
# check, not the evidence (that is tests/conformance, marked `conformance`, which needs
# nothing outside the repository); the tests that read it skip, saying why, elsewhere
NEEDS_CONFORMANCE = pytest.mark.skipif(
    not CONFORMANCE.is_dir(),
    reason="trec_eval's own suite (../shared/conformance) is not beside the repository; "
    "this is an extra check, tests/conformance holds the evidence",
)

Qrels = dict[str, dict[str, int]]
RunDict = dict[str, dict[str, float]]


def graded_case(
    seed: int,
    *,
    n_queries: tuple[int, int] = (2, 10),
    longest: int = 15,
    max_judged: int = 12,
    ties: bool = True,
    binary: bool = False,
    every_query_both: bool = False,
    stray_query: bool = False,
    negative: bool = False,
) -> tuple[Qrels, RunDict]:
    """Random graded qrels and a run as dicts, in the shape peers such as ranx read.

    Queries ``q0..``; each ranks up to ``longest`` of 40 documents, judges up to
    ``max_judged`` of them and 8 unretrieved ones (grades 0-3, or 0-1 with
    ``binary``); 15% of queries have no relevant judgment (unless
    ``every_query_both``), 15% are missing from the run; ``negative``: grades -1-3,
    and with ``every_query_both`` every query judges a document non-relevant (grade
    0 or -1) as well as a relevant one.  Scores tie often with
    ``ties`` (quarter steps), else are distinct.  ``stray_query`` adds, half the
    time, a run query without judgments.  The run shares a query with the qrels.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels: Qrels = {}
    run: RunDict = {}
    for qi in range(int(rng.integers(*n_queries))):
        q = f"q{qi}"
        docs = [f"d{j}" for j in rng.permutation(40)[: int(rng.integers(1, longest + 1))]]
        pool = docs + [f"x{j}" for j in range(8)]
        judged = rng.choice(
            pool, size=int(rng.integers(1, min(max_judged, len(pool)))), replace=False
        )
        levels = [0, 1] if binary else [0, 0, 1, 1, 2, 3]
        grades = rng.choice([-1, *levels] if negative else levels, size=len(judged))
        if rng.random() < 0.15 and not every_query_both:
            grades[:] = 0
        if negative and every_query_both:
            if len(grades) < 2:
                judged = np.append(judged, "x7" if judged[0] != "x7" else "x6")
                grades = np.append(grades, 0)
            grades[0] = max(grades[0], 1)
            grades[1] = min(grades[1], int(rng.choice([0, -1])))
        qrels[q] = {str(d): int(g) for d, g in zip(judged, grades, strict=True)}
        if rng.random() < 0.85:
            scores = (
                rng.integers(0, 6, size=len(docs)) / 4.0
                if ties
                else rng.permutation(len(docs)) / 7.0
            )
            run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
    if stray_query and rng.random() < 0.5:
        run["zz"] = {"d1": 1.0}  # a run query without judgments
    if not set(run) & set(qrels):
        run["q0"] = {"d0": 1.0}
    return qrels, run


def user_lists_case(
    seed: int, scores: Callable[[Any, int], Any] | None = None
) -> tuple[list[tuple[str, str, float]], list[tuple[str, str]]]:
    """Random recommendation lists and held-out interactions as rows.

    5-29 users; 85% get 1-14 of 60 items, ranked 1.. (``scores=None``) or scored
    by ``scores(rng, n)``; 90% have 1-7 held-out items.  Returns
    ``(user, item, rank or score)`` rows and ``(user, item)`` rows.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    rec_rows: list[tuple[str, str, float]] = []
    int_rows: list[tuple[str, str]] = []
    for u in range(int(rng.integers(5, 30))):
        user = f"u{u}"
        items = rng.permutation(60)
        if rng.random() < 0.85:  # some users get no recommendations
            n = int(rng.integers(1, 15))
            values = np.arange(1, n + 1) if scores is None else scores(rng, n)
            rec_rows += [
                (user, f"i{it}", int(v) if scores is None else float(v))
                for it, v in zip(items[:n], values, strict=True)
            ]
        if rng.random() < 0.9:  # some users have no held-out interactions
            held = rng.choice(60, size=int(rng.integers(1, 8)), replace=False)
            int_rows += [(user, f"i{it}") for it in held]
    return rec_rows, int_rows


def system_files(
    folder: Path, n_queries: int = 30, noise: dict[str, float] | None = None, seed: int = 0
) -> dict[str, Path]:
    """TREC files of one graded qrels (``qrels``) and runs of systems that rank by the
    grade plus Gaussian noise of the given size (default ``good`` 0.3, ``bad`` 3.0:
    a clear regression); each run's tag is its name."""
    import numpy as np

    rng = np.random.default_rng(seed)
    noise = noise or {"good": 0.3, "bad": 3.0}
    qrels_lines: list[str] = []
    runs: dict[str, list[str]] = {name: [] for name in noise}
    for q in range(n_queries):
        rels = rng.integers(0, 3, 8)
        qrels_lines += [f"q{q} 0 d{d} {r}" for d, r in enumerate(rels)]
        for name, size in noise.items():
            scores = rels + rng.normal(0, size, 8)
            for rank, d in enumerate(np.argsort(-scores), start=1):
                runs[name].append(f"q{q} Q0 d{d} {rank} {scores[d]:.6f} {name}")
    out = {"qrels": folder / "qrels.txt"}
    out["qrels"].write_text("\n".join(qrels_lines) + "\n")
    for name, lines in runs.items():
        out[name] = folder / f"{name}.run"
        out[name].write_text("\n".join(lines) + "\n")
    return out


#: A query id and a run name that would run script if the HTML report did not escape them.
HOSTILE_QUERY = "<script>alert(1)</script>"
HOSTILE_RUN = "<img src=x onerror=alert(2)>"


def report_case(n_queries: int, seed: int = 0, *, docs: int = 20) -> tuple[Any, dict[str, Any]]:
    """Graded qrels and three runs of ``docs`` scored documents per query (noisier to
    better: ``bm25``, :data:`HOSTILE_RUN`, ``dense``) as ranklens objects, for reports.

    Query ``q0`` is :data:`HOSTILE_QUERY`; ``dense`` lacks the last query.
    """
    import numpy as np

    import ranklens

    rng = np.random.default_rng(seed)
    ids = [HOSTILE_QUERY] + [f"q{i}" for i in range(1, n_queries)]
    rels = rng.integers(0, 3, size=(n_queries, docs))
    doc_ids = [f"d{j}" for j in range(docs)]
    q = np.repeat(np.asarray(ids, dtype=object), docs)
    d = np.tile(np.asarray(doc_ids, dtype=object), n_queries)
    qrels = ranklens.Qrels.from_arrays(q, d, rels.reshape(-1))
    runs = {}
    for name, noise in (("bm25", 2.0), (HOSTILE_RUN, 1.2), ("dense", 0.8)):
        scores = (rels + rng.normal(0, noise, rels.shape)).reshape(-1)
        keep = slice(None) if name != "dense" else slice(0, (n_queries - 1) * docs)
        runs[name] = ranklens.Run.from_arrays(q[keep], d[keep], scores[keep], name=name)
    return qrels, runs


def one_line_error(result: Any, code: int, *fragments: str, message: str | None = None) -> str:
    """A CLI call (click's CliRunner result) that failed as ranklens' CLI must: exit
    ``code``, nothing on stdout, one ``ranklens: error: ...`` line on stderr (no
    traceback) holding every fragment, or exactly ``message``; returns that line."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("ranklens: error: ")
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    if message is not None:
        assert lines[0] == f"ranklens: error: {message}"
    line: str = lines[0]
    return line


def doc_gaps(doc: str | None, name: str | None = None, shared: bool = False) -> list[str]:
    """What a metric kernel's docstring lacks of the catalogue's contract: a
    ``formula`` (an equation, a sum or a ratio), a ``source`` (a year, "et al." or
    the reference tool it reproduces) and a ``doctest`` (an example: a ``>>>`` line
    with code, not only a comment).  A kernel ``shared`` by several entries names
    each of them (``name``, in double backquotes) beside its formula (``metric``)."""
    import re

    text = doc or ""
    gaps = []
    if not re.search(r"=|\bsum\b|/", text):
        gaps.append("formula")
    if not re.search(r"\b(19|20)\d\d\b|et al\.|Source|trec_eval|scikit-learn|pycocotools", text):
        gaps.append("source")
    if not re.search(r"^\s*>>> +[^#\s]", text, re.MULTILINE):
        gaps.append("doctest")
    if shared and name is not None and f"``{name}``" not in text:
        gaps.append("metric")
    return gaps


#: ranx metric names -> ranklens metric strings (profile ranx), the ones every ranx
#: comparison reads; the reference test and the peer outputs add their own
RANX_NAMES = {
    "hits@5": "hits@5",
    "hit_rate@3": "hit_rate@3",
    "precision@5": "p@5",
    "recall@10": "r@10",
    "f1@5": "f1@5",
    "r-precision": "rprec",
    "mrr": "mrr",
    "mrr@3": "rr@3",
    "map": "map",
    "map@5": "map@5",
    "ndcg": "ndcg",
    "ndcg@10": "ndcg@10",
    "ndcg_burges@10": "ndcg(gain=exp2)@10",
    "dcg@5": "dcg@5",
    "dcg_burges@5": "dcg(gain=exp2)@5",
}
