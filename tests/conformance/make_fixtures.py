"""Write the conformance fixtures: TREC qrels and runs, deterministic (seeded).

Usage (from the repository root)::

    python tests/conformance/make_fixtures.py            # writes tests/conformance/data/
    python tests/conformance/make_fixtures.py --check    # fails if the files differ

The files are committed; this script documents how they were made and remakes
them byte for byte (numpy's ``default_rng`` with fixed seeds, scores printed
with ``repr``).  Two pairs:

``main.qrels`` / ``main_c.qrels`` / ``main.run``
    the semantics: graded grades 0-4 and negative grades (trec_eval reads a
    negative grade as "in the pool but unjudged"), unjudged retrieved
    documents, score ties (also across the cutoffs 5, 10 and 100 and across
    ``-M``), near-ties (1e-9 apart: distinct in float64, equal in float32),
    scores in exponent notation and negative scores, queries in the qrels
    missing from the run (one with, one without relevant documents; only in
    ``main_c.qrels``, for ``-c``: trec_eval 10 exits with status 4 on a qrels
    query without results unless ``-c`` is given), a run
    query missing from the qrels, a query without relevant judgments, a query
    whose judgments are all negative, a query none of whose retrieved
    documents is judged (empty under ``-J``), a ranking of 1200 documents with
    relevant documents past rank 1000, one-document rankings, rank columns
    that disagree with the scores, and lines in no particular order.
``ids.qrels`` / ``ids.run``
    odd ids and layout: ``#`` inside ids, a doc id starting with ``#`` (only a
    ``#`` at the start of a line is a comment), UTF-8 ids, upper/lower case,
    digit ids that sort differently as text and as numbers (``9``, ``10``,
    ``010``; queries ``1``, ``01``, ``10``, ``2``), a 120-character id,
    comment lines, tabs and runs of blanks between columns, trailing blanks
    and extra columns after the run tag.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

# the queries of main_c.qrels that main.run lacks (left out of main.qrels)
MISSING = ("5", "6")

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]


def _score(x: float) -> str:
    return repr(float(x))


def main_case() -> tuple[Qrels, Run]:
    """The semantics case (``main.qrels``, ``main.run``), as dicts in file order."""
    rng = np.random.default_rng(20260617)
    qrels: Qrels = {}
    run: Run = {}

    # "1": graded and negative grades, unjudged documents, quarter-step ties that
    # straddle ranks 5 and 10
    docs = [f"d{j}" for j in range(40)]
    scores = np.repeat([3.0, 2.75, 2.5, 2.25, 2.0, 1.5, 1.0, 0.5, 0.25, 0.0], 4)
    run["1"] = dict(zip(docs, scores.tolist(), strict=True))
    grades = rng.choice([-2, -1, 0, 0, 1, 1, 2, 3, 4], size=30)
    qrels["1"] = {f"d{j}": int(g) for j, g in zip(rng.permutation(45)[:30], grades, strict=True)}

    # "2" and "02": one-document rankings (relevant / not relevant)
    qrels["2"] = {"a": 1, "b": 2}
    run["2"] = {"a": 0.5}
    qrels["02"] = {"a": 0, "b": 1}
    run["02"] = {"a": 1.0}

    # "10": 1200 documents, distinct scores with near-ties (1e-9 apart) and a few exact
    # ties; relevant documents spread over the whole ranking, some past rank 1000
    n = 1200
    base = np.round(np.linspace(100.0, 1.0, n), 6)
    near = rng.random(n) < 0.05
    base = np.where(near, np.roll(base, 1) + 1e-9, base)
    base[600:604] = base[600]
    long_docs = [f"L{j}" for j in rng.permutation(n)]
    run["10"] = dict(zip(long_docs, base.tolist(), strict=True))
    ranks = np.sort(rng.choice(n, size=60, replace=False))
    ranks = np.concatenate([ranks, [1000, 1001, 1100, 1199]])
    qrels["10"] = {long_docs[r]: int(rng.integers(1, 4)) for r in np.unique(ranks)}
    for j in rng.choice(n, size=80, replace=False):
        qrels["10"].setdefault(long_docs[j], 0)
    qrels["10"]["Lnot_retrieved"] = 2

    # "3": judged, no relevant document (0 and -1 grades)
    run["3"] = {f"n{j}": float(10 - j) for j in range(8)}
    qrels["3"] = {"n0": 0, "n2": 0, "n5": -1, "n9": 0}

    # "4": every judgment negative
    run["4"] = {"m1": 2.0, "m2": 1.0, "m3": 1.0}
    qrels["4"] = {"m1": -1, "m3": -2, "m9": -1}

    # "5", "6": in the qrels, not in the run (with / without relevant documents)
    qrels["5"] = {"x1": 1, "x2": 3, "x3": 0}
    qrels["6"] = {"x1": 0}

    # "7": in the run, not in the qrels
    run["7"] = {"y1": 1.0, "y2": 0.5}

    # "8": nothing retrieved is judged (an empty ranking under -J)
    run["8"] = {f"u{j}": float(j) for j in range(6)}
    qrels["8"] = {"r1": 1, "r2": 2, "r3": 0}

    # "9": every score tied; digit doc ids that sort differently as text and as numbers
    ids9 = ["9", "10", "100", "11", "2", "20", "010", "1", "99", "0"]
    run["9"] = dict.fromkeys(ids9, 1.0)
    qrels["9"] = {"9": 1, "10": 2, "100": 0, "2": 1, "010": 3, "1": -1, "0": 0}

    # "11": near-ties, long decimals, exponent notation and negative scores
    s11 = [0.5, 0.5 + 1e-9, 0.5 + 2e-9, 0.5 - 1e-12, 1e-3, 1.5e-3, -0.25, -1e2, 0.1 + 0.2, 0.3]
    run["11"] = {f"e{j}": float(s) for j, s in enumerate(s11)}
    qrels["11"] = {"e0": 1, "e1": 0, "e2": 2, "e3": 4, "e5": 1, "e7": 3, "e8": 1, "e9": 0}

    # "12": graded 1..4 over 25 documents, random scores (with a few ties)
    s12 = rng.integers(0, 12, size=25) / 3.0
    run["12"] = {f"g{j:02d}": float(s) for j, s in enumerate(s12)}
    qrels["12"] = {f"g{j:02d}": int(rng.integers(-1, 5)) for j in rng.permutation(30)[:18]}

    # "13": 15 documents, a tie group over ranks 3-7 holding relevant documents
    s13 = [9.0, 8.0] + [5.0] * 5 + [4.0, 3.0, 2.0, 1.0, 0.9, 0.8, 0.7, 0.6]
    run["13"] = {f"t{j}": s for j, s in enumerate(s13)}
    qrels["13"] = {"t0": 0, "t2": 1, "t4": 2, "t6": 1, "t9": 1, "t14": 3, "t20": 1}

    # "r0".."r3": random graded cases with ties, 5-150 documents
    for i in range(4):
        m = int(rng.integers(5, 151))
        ids = [f"c{j}" for j in rng.permutation(m + 20)[:m]]
        sc = rng.integers(0, 20, size=m) / 4.0
        run[f"r{i}"] = dict(zip(ids, sc.tolist(), strict=True))
        judged = rng.choice(m + 20, size=int(rng.integers(3, min(40, m + 10))), replace=False)
        qrels[f"r{i}"] = {f"c{j}": int(rng.choice([-1, 0, 0, 0, 1, 1, 2, 3])) for j in judged}
        if i == 0:  # at least one relevant document
            qrels["r0"][ids[int(rng.integers(0, m))]] = 2
    return qrels, run


def ids_case() -> tuple[Qrels, Run]:
    """The odd-ids case (``ids.qrels``, ``ids.run``), as dicts."""
    long_id = "long-" + "x" * 110 + "-end"
    docs = ["D#1", "#7", "dé", "dë", "Ω", "文档", "Ab", "ab", "B", "9", "10", "010", long_id, "z"]
    qrels: Qrels = {}
    run: Run = {}
    queries = ["Q#1", "héllo", "文", "1", "01", "10", "2", "a" * 80]
    rng = np.random.default_rng(7)
    for qi, q in enumerate(queries):
        order = rng.permutation(len(docs))
        # half the queries tie everything (the byte order of the ids decides)
        sc = np.ones(len(docs)) if qi % 2 == 0 else rng.integers(0, 4, size=len(docs)) / 2.0
        run[q] = {docs[j]: float(s) for j, s in zip(order, sc, strict=True)}
        qrels[q] = {docs[j]: int(rng.integers(0, 3)) for j in rng.permutation(len(docs))[:8]}
        qrels[q][docs[qi]] = 1
    return qrels, run


def _qrels_lines(qrels: Qrels) -> list[str]:
    return [f"{q} 0 {d} {g}" for q, judged in qrels.items() for d, g in judged.items()]


def _run_lines(run: Run, tag: str) -> list[str]:
    # the rank column is the line number within the query, which need not follow the
    # scores (trec_eval ignores it)
    return [
        f"{q} Q0 {d} {rank} {_score(s)} {tag}"
        for q, ranking in run.items()
        for rank, (d, s) in enumerate(ranking.items(), start=1)
    ]


def files() -> dict[str, str]:
    """Every fixture file's name and text."""
    rng = np.random.default_rng(11)
    qrels, run = main_case()
    q_lines = _qrels_lines(qrels)
    r_lines = _run_lines(run, "main")
    # lines in no particular order (shuffled in blocks: each query's lines stay in
    # order, the order ranx's input-order ties see)
    blocks: dict[str, list[str]] = {}
    for line in r_lines:
        blocks.setdefault(line.split()[0], []).append(line)
    keys = list(blocks)
    r_lines = [line for k in rng.permutation(keys) for line in blocks[str(k)]]
    q_lines = [q_lines[i] for i in rng.permutation(len(q_lines))]
    out = {
        # trec_eval 10 refuses a qrels query without results unless -c is given
        "main.qrels": "\n".join(x for x in q_lines if x.split()[0] not in MISSING) + "\n",
        "main_c.qrels": "\n".join(q_lines) + "\n",
        "main.run": "\n".join(r_lines) + "\n",
    }
    qrels, run = ids_case()
    q_lines = _qrels_lines(qrels)
    r_lines = _run_lines(run, "odd_ids")
    # layout: tabs and runs of blanks, trailing blanks, extra columns, comment lines
    q_lines = [
        line.replace(" ", "\t") if i % 3 == 0 else line.replace(" ", "   ", 1)
        for i, line in enumerate(q_lines)
    ]
    q_lines.insert(5, "# a comment line in the qrels")
    r_lines = [
        line + (" extra columns" if i % 4 == 0 else "  " if i % 4 == 1 else "")
        for i, line in enumerate(r_lines)
    ]
    r_lines = [line.replace(" ", "\t", 2) if i % 5 == 0 else line for i, line in enumerate(r_lines)]
    r_lines.insert(0, "# a comment line in the run")
    r_lines.insert(40, "#another comment")
    out["ids.qrels"] = "\n".join(q_lines) + "\n"
    out["ids.run"] = "\n".join(r_lines) + "\n"
    out.update(prefs_files())
    return out


def prefs_files() -> dict[str, str]:
    """Preference judgments (trec_eval ``-R prefs``), a qrels read as preferences
    (``-R qrels_prefs``) and a run for both.

    Queries p1-p6 have judgment groups with one sub-group (equivalence classes:
    levels -1 to 3, ties within a level, judged documents the run misses); p7-p9
    have groups of two or three sub-groups that agree with one hidden order of the
    documents, so that the closure adds transitive preferences; p10 mixes both
    kinds; p11 is judged but not in the run (evaluated under ``-c``); p12 is in the
    run only.  The run ties scores (trec_eval breaks them by docno *ascending* here)
    and retrieves unjudged documents; p5 retrieves no judged document, p6 all.
    """
    rng = np.random.default_rng(23)
    prefs: list[str] = []
    qrels: list[str] = []
    run: list[str] = []
    docs = [f"d{i:02d}" for i in range(1, 41)] + ["D7", "d100", "d9x"]
    for qn in range(1, 13):
        q = f"p{qn}"
        pool = [str(d) for d in rng.choice(docs, size=18, replace=False)]
        judged = pool[:12]
        if qn <= 6 or qn == 10:
            for jg in ["A"] if qn in (1, 5) else ["A", "B", "C"][: 2 + qn % 2]:
                sub = [
                    str(d) for d in rng.choice(judged, size=int(rng.integers(3, 10)), replace=False)
                ]
                for d in sub:
                    prefs.append(f"{q} {jg} 0 {d} {int(rng.integers(-1, 4))}")
        if qn in (7, 8, 9, 10, 11):
            hidden = {d: float(rng.random()) for d in judged}
            for jg in ["X", "Y"][: 1 + qn % 2]:
                for jsg in ["s1", "s2", "s3"][: 2 + qn % 2]:
                    sub = [
                        str(d)
                        for d in rng.choice(judged, size=int(rng.integers(3, 7)), replace=False)
                    ]
                    k = float(rng.integers(2, 5))
                    for d in sub:
                        u = hidden[d]
                        level = 0 if u < 0.3 else 1 + int((u - 0.3) * k)
                        prefs.append(f"{q} {jg} {jsg} {d} {level}")
        for it in ("0", "1")[: 1 + qn % 2]:
            for d in rng.choice(judged, size=int(rng.integers(2, 9)), replace=False):
                qrels.append(f"{q} {it} {d} {int(rng.integers(-1, 4))}")
        if qn == 11:
            continue
        if qn == 5:
            ranked = pool[12:]
        elif qn == 6:
            ranked = judged
        else:
            ranked = [
                str(d) for d in rng.choice(pool, size=int(rng.integers(6, 16)), replace=False)
            ]
        scores = rng.integers(0, 6, size=len(ranked)) / 2  # ties
        for rank, (d, s) in enumerate(zip(ranked, scores, strict=True), start=1):
            run.append(f"{q} Q0 {d} {rank} {_score(float(s))} prefs")
    prefs.insert(3, "# a comment line")
    order = rng.permutation(len(prefs))
    return {
        "prefs.prefs": "\n".join(prefs[i] for i in order) + "\n",
        "prefs.qrels": "\n".join(qrels) + "\n",
        "prefs.run": "\n".join(run) + "\n",
    }


def read_qrels(path: Path) -> Qrels:
    """A fixture qrels file as ``{query: {doc: grade}}`` in file order (plain Python, for
    the peers; ``#`` lines are comments)."""
    out: Qrels = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            q, _, d, g = line.split()[:4]
            out.setdefault(q, {})[d] = int(g)
    return out


def read_run(path: Path) -> Run:
    """A fixture run file as ``{query: {doc: score}}`` in file order (plain Python)."""
    out: Run = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            q, _, d, _, s = line.split()[:5]
            out.setdefault(q, {})[d] = float(s)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    DATA.mkdir(exist_ok=True)
    differ = []
    for name, text in files().items():
        path = DATA / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                differ.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if differ:
        print(f"differ from the generator: {', '.join(differ)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
