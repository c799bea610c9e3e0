"""Diversity fixtures and ndeval's / pyndeval's values on them, as test data.

Usage (from the repository root)::

    python tests/conformance/make_diversity_outputs.py --ndeval /path/to/ndeval
    python tests/conformance/make_diversity_outputs.py --check [--ndeval ...]

Writes, under ``tests/conformance/diversity/``:

- ``main.qrels`` (TREC diversity qrels, ``topic subtopic docno judgment``),
  ``main.run`` (a TREC run whose lines are in rank order, the rank column
  disagreeing with the scores, tied scores) and ``MANIFEST.tsv``: seeded, remade
  byte for byte;
- ``ndeval/<case>.csv``: the output of the ndeval program (TREC Web track, version
  4.5) for each case of :data:`NDEVAL_CASES` (its options), when ``--ndeval`` gives
  the program (built from ``src/ndeval.c`` of github.com/seanmacavaney/pyndeval,
  commit acde21d4cd94aeced25f909cefa670c9646c18ed: ``gcc -O2 -o ndeval ndeval.c
  -lm``); without it those files are left as they are;
- ``pyndeval.json``: pyndeval's per-query values (every measure, cutoffs 1 to 20)
  on seeded random cases (their rows are in the file) with graded and negative
  grades, several relevance levels, alpha and beta values, unjudged documents,
  tied scores and queries on one side only.  pyndeval breaks tied scores by doc id
  ascending; the rows it is given score ``-rank`` of ranklens' ``trec`` order
  (score descending, doc id descending), so both rank alike.

The fixtures are written and read without ranklens.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "diversity"
NDEVAL_COMMIT = "acde21d4cd94aeced25f909cefa670c9646c18ed"

#: case -> ndeval options (the run is main.run, the qrels main.qrels)
NDEVAL_CASES: dict[str, list[str]] = {
    "default": [],
    "traditional": ["-traditional"],
    "c": ["-c", "-traditional"],
    "M5": ["-M", "5", "-traditional"],
    "alpha_beta": ["-alpha", "0.3", "-beta", "0.8", "-traditional"],
    "alpha1_beta1": ["-alpha", "1", "-beta", "1", "-traditional"],
    "c_M3_alpha": ["-c", "-M", "3", "-alpha", "0.7"],
}

#: pyndeval's measures; cutoffs 1..20 where it takes one
MEASURES = ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA", "strec")
NO_CUTOFF = ("NRBP", "nNRBP", "MAP-IA")
CUTOFFS = (1, 2, 3, 5, 10, 20)


def _fixture() -> tuple[list[tuple[int, int, str, int]], list[tuple[int, str, int, float]]]:
    """The qrels rows (topic, subtopic, docno, judgment) and the run rows (topic, docno,
    rank, score) of main.qrels / main.run."""
    rng = np.random.default_rng(23)
    qrels: list[tuple[int, int, str, int]] = []
    run: list[tuple[int, str, int, float]] = []
    for topic in range(1, 15):
        n_docs = int(rng.integers(2, 40))
        docs = [f"d{i}" for i in range(n_docs)] + (["d010", "d9x"] if topic == 2 else [])
        n_sub = int(rng.integers(1, 7))
        for sub in range(1, n_sub + 1):
            judged = rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False)
            for d in judged:
                grade = int(rng.choice([0, 0, 0, 1, 1, 2, 3]))
                if topic == 3:
                    grade = 0  # nothing relevant: nNRBP is 0/0
                qrels.append((topic, sub, str(d), grade))
        if topic == 5:
            qrels.append((topic, 9, "d0", 0))  # a subtopic judged with nothing relevant
        if topic == 13:
            continue  # judged, not in the run (-c)
        ranked = list(rng.permutation([*docs, *[f"u{i}" for i in range(int(rng.integers(0, 5)))]]))
        ranked = ranked[: int(rng.integers(1, len(ranked) + 1))]
        scores = np.round(rng.normal(size=len(ranked)), 1)  # ties
        ranks = rng.permutation(len(ranked)) + 1  # the rank column disagrees with them
        run += [
            (topic, str(d), int(r), float(s)) for d, r, s in zip(ranked, ranks, scores, strict=True)
        ]
    run += [(20, "d1", 1, 1.0), (20, "d2", 2, 0.5)]  # a run topic without judgments
    run.sort(key=lambda row: (row[0], row[2]))  # lines in rank order
    rng.shuffle(qrels)  # ndeval sorts its qrels
    return qrels, run


def fixture_files() -> dict[str, bytes]:
    qrels, run = _fixture()
    q = "".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels)
    r = "".join(f"{t} Q0 {d} {k} {s:g} div\n" for t, d, k, s in run)
    return {"main.qrels": q.encode(), "main.run": r.encode()}


def read_qrels(path: Path) -> list[tuple[str, str, str, float]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        t, s, d, g = line.split()[:4]
        out.append((t, s, d, float(g)))
    return out


def read_run(path: Path) -> list[tuple[str, str, int, float]]:
    """(topic, docno, rank, score) rows."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        t, _, d, k, s = line.split()[:5]
        out.append((t, d, int(k), float(s)))
    return out


def ndeval_files(ndeval: str) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    manifest = ["case\tcommand\texit_status"]
    for case, options in NDEVAL_CASES.items():
        cmd = [ndeval, *options, "main.qrels", "main.run"]
        done = subprocess.run(cmd, cwd=OUT, capture_output=True, check=False)
        out[f"ndeval/{case}.csv"] = done.stdout
        manifest.append(
            f"{case}\tndeval {' '.join([*options, 'main.qrels', 'main.run'])}\t{done.returncode}"
        )
    manifest.append(f"# ndeval 4.5 built from pyndeval's src/ndeval.c at {NDEVAL_COMMIT}")
    out["ndeval/MANIFEST.tsv"] = ("\n".join(manifest) + "\n").encode()
    return out


# ------------------------------------------------------------------------ pyndeval


def _random_case(seed: int) -> dict[str, Any]:
    """Random diversity qrels and a run: graded and negative grades, 1-5 intents,
    unjudged documents, tied scores, a query only in the qrels and one only in the
    run."""
    rng = np.random.default_rng(seed)
    qrels: list[list[Any]] = []
    run: list[list[Any]] = []
    for q in range(10):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        if q != 9:  # q9: only in the run
            for it in range(int(rng.integers(1, 6))):
                judged = rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False)
                for d in judged:
                    qrels.append([qid, f"i{it}", str(d), int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))])
        if q == 8:
            continue  # only in the qrels
        pool = [*docs, *[f"u{i}" for i in range(int(rng.integers(0, 4)))]]
        ranked = list(rng.permutation(pool))[: int(rng.integers(1, len(pool) + 1))]
        scores = np.round(rng.normal(size=len(ranked)), 1 if q % 2 else 0)
        run += [[qid, str(d), float(s)] for d, s in zip(ranked, scores, strict=True)]
    return {"qrels": qrels, "run": run}


def trec_order(run: list[list[Any]]) -> list[list[Any]]:
    """The run's rows ranked as ranklens' ``trec`` ties do (query, score descending,
    doc id descending in byte order)."""
    by_doc = sorted(run, key=lambda r: r[1].encode(), reverse=True)
    return sorted(by_doc, key=lambda r: (r[0], -r[2]))


#: (seed, alpha, beta, relevance level)
PYNDEVAL_CASES = ((1, 0.5, 0.5, 1), (2, 0.3, 0.8, 1), (3, 0.5, 0.5, 2), (4, 0.9, 0.2, 1))


def pyndeval_outputs() -> dict[str, Any]:
    import pyndeval

    measures = [f"{m}@{k}" for m in MEASURES for k in CUTOFFS] + list(NO_CUTOFF)
    cases: dict[str, Any] = {}
    for seed, alpha, beta, level in PYNDEVAL_CASES:
        case = _random_case(seed)
        ranked: list[tuple[str, str, float]] = []
        rank: dict[str, int] = {}
        for q, d, _ in trec_order(case["run"]):
            rank[q] = rank.get(q, 0) + 1
            ranked.append((q, d, -float(rank[q])))
        ev = pyndeval.RelevanceEvaluator(
            [tuple(r) for r in case["qrels"]],
            measures,
            relevance_level=level,
            alpha=alpha,
            beta=beta,
        )
        values = ev.evaluate(ranked)
        cases[f"seed{seed}"] = {
            "alpha": alpha,
            "beta": beta,
            "relevance_level": level,
            "qrels": case["qrels"],
            "run": case["run"],
            "values": {
                q: {m: (None if v != v else v) for m, v in vals.items()}
                for q, vals in sorted(values.items())
            },
        }
    return {
        "library": "pyndeval",
        "version": metadata.version("pyndeval"),
        "note": "NaN is written as null",
        "cases": cases,
    }


def files(ndeval: str | None) -> dict[str, bytes]:
    out = fixture_files()
    if ndeval is not None:
        for name, data in out.items():  # ndeval reads the fixtures from disk
            (OUT / name).write_bytes(data)
        out |= ndeval_files(ndeval)
    text = json.dumps(pyndeval_outputs(), indent=None, separators=(",", ":"))
    out["pyndeval.json"] = (text.replace('},"', '},\n"') + "\n").encode()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--ndeval", default=None, help="the ndeval program")
    args = parser.parse_args(argv)
    if args.check and args.ndeval is not None:
        parser.error("--check compares the files made without running ndeval; drop --ndeval")
    out = files(None if args.check else args.ndeval)
    if args.check:
        differ = [n for n, b in out.items() if (OUT / n).read_bytes() != b]
        if differ:
            print(f"differ: {differ}", file=sys.stderr)
            return 1
        return 0
    (OUT / "ndeval").mkdir(parents=True, exist_ok=True)
    for name, data in out.items():
        (OUT / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
