"""Compute ir_measures' values on random cases, as test data.

Usage (from the repository root, in an environment with ir-measures, a test extra)::

    python tests/ranking/make_ir_measures_outputs.py          # writes peers/ir_measures.json
    python tests/ranking/make_ir_measures_outputs.py --check  # fails if the file differs

Writes ``tests/ranking/peers/ir_measures.json``: ir_measures' version, and per random
case the qrels, the run and, for every measure of :data:`MEASURES` (ir_measures'
spelling, which ranklens reads under ``profile="ir_measures"``), ir_measures'
``iter_calc`` value per query and its ``calc_aggregate``.  The cases have graded and
negative grades, unjudged documents, tied scores, queries missing from the run or
from the qrels, queries without relevant judgment and empty rankings.

Left out of the cases, each a limitation of ir_measures (or of trec_eval 9 inside
pytrec_eval), not a convention:

- a query whose judgments are all negative (trec_eval 9 reads out of bounds);
- empty rankings for ``Judged`` and ``Compat`` (their providers divide 0 by 0, Compat
  where the query has no relevant document): they are computed on the run without
  them;
- scores that differ only in float32 (pytrec_eval rounds scores to float32, ir_measures'
  Python providers do not: one profile cannot reproduce both) and scores <= 0
  (``Compat`` orders the ideal's equal grades by run score, 0.0 for documents not
  retrieved, then by the qrels' order: the qrels are listed by document id).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "peers" / "ir_measures.json"
SEEDS = range(30)

#: ir_measures measures that run in the test environment (pytrec_eval, judged and
#: compat providers), in ir_measures' spelling
PYTREC_MEASURES = [
    "nDCG@10",
    "nDCG",
    "nDCG(gains={0:0,1:1,2:3,3:5})@5",
    "P@5",
    "P(rel=2)@5",
    "R@100",
    "R@5",
    "AP",
    "AP(rel=2)",
    "AP@10",
    "RR",
    "RR(rel=2)",
    "Rprec",
    "Bpref",
    "infAP",
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "NumRet(rel=2)",
    "SetP",
    "SetP(relative=True)",
    "SetR",
    "SetF",
    "SetF(beta=2.0)",
    "SetAP",
    "IPrec@0.1",
    "IPrec@0.5",
    "Success@5",
]
PY_MEASURES = [
    "Judged@10",
    "Judged@3",
    "Judged",
    "Compat",
    "Compat(p=0.8)",
    "Compat(p=0.5,normalize=False)",
]
MEASURES = PYTREC_MEASURES + PY_MEASURES


def random_case(seed: int) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels (listed by document id) and a run (scores k/8, k = 1..8: exact ties)."""
    rng = np.random.default_rng(seed)
    n_q = int(rng.integers(3, 12))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qi in range(n_q):
        q = f"q{qi}" if rng.random() < 0.8 else f"{qi:03d}"
        docs = [f"d{j}" for j in rng.permutation(40)[: int(rng.integers(1, 30))]]
        if rng.random() < 0.85:
            pool = docs + [f"x{j}" for j in range(10)]
            judged = rng.choice(pool, size=int(rng.integers(1, min(15, len(pool)))), replace=False)
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if rng.random() < 0.15:
                grades = np.minimum(grades, 0)  # no relevant document
            if grades.max() < 0:
                grades[0] = 0  # all negative: trec_eval 9 reads out of bounds
            qrels[q] = {str(d): int(g) for d, g in sorted(zip(judged, grades, strict=True))}
        if rng.random() < 0.9 or q not in qrels:
            scores = rng.integers(1, 9, size=len(docs)) / 8.0
            run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
            if rng.random() < 0.1:
                run[q] = {}  # named with no document: an empty ranking
    if not qrels:
        qrels["q0"] = {"d0": 1}
    if not any(run.get(q) for q in qrels):
        first = next(iter(qrels))
        run[first] = {"d0": 0.5, "d1": 0.25}
    return qrels, run


def peer_values(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> dict[str, Any]:
    """ir_measures' per-query values and aggregate of every measure."""
    import ir_measures

    out: dict[str, Any] = {}
    full = {q: dict(r) for q, r in run.items()}
    nonempty = {q: dict(r) for q, r in run.items() if r}
    for spec in MEASURES:
        measure = ir_measures.parse_measure(spec)
        r = nonempty if spec in PY_MEASURES else full
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per_query = {
                m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, r)
            }
            agg = float(ir_measures.calc_aggregate([measure], qrels, r)[measure])
        out[spec] = {"per_query": dict(sorted(per_query.items())), "aggregate": agg}
    return out


def outputs() -> dict[str, Any]:
    cases = {}
    for seed in SEEDS:
        qrels, run = random_case(seed)
        cases[str(seed)] = {"qrels": qrels, "run": run, "values": peer_values(qrels, run)}
    return {
        "library": "ir-measures",
        "version": metadata.version("ir-measures"),
        "pytrec_eval": metadata.version("pytrec-eval-terrier"),
        "profile": "ir_measures",
        "python_providers_run": "Judged, Compat: the run without its empty rankings",
        "cases": cases,
    }


def dumps() -> bytes:
    return (
        json.dumps(outputs(), indent=None, sort_keys=False, separators=(",", ":")) + "\n"
    ).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    data = dumps()
    if args.check:
        if OUT.read_bytes() != data:
            print(f"differ: {OUT}", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
