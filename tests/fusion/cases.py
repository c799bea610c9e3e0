"""Random fusion cases shared by the ranx reference tests and the script that
writes ranx's outputs (``make_ranx_fusion.py``).

A case is two to four runs over three to five queries as ``{query: {doc: score}}``
dicts, and graded qrels over every query.  Each run leaves out some queries (given
to ranx as empty rankings: ranx needs every run to name the same queries, and a
query a run lacks is an empty ranking under ranklens' convention) and names some
with no document; documents come from a pool per query, so the runs return
different documents.  ``ties``: scores from a few quarter steps, negative ones
among them, on rankings of at most 15 documents (ranx's sort is stable only
there), else distinct scores on rankings of up to 20.  Grades run from -1 to 3
and some judged documents are never retrieved, some retrieved ones never judged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RunDict = dict[str, dict[str, float]]

#: Methods whose fused score reads only the scores (not the positions): the only
#: ones compared with ranx after ``borda`` normalisation, where ranx ranks the
#: documents it adds in a Python set's order.
SCORE_ONLY = ("sum", "mnz", "anz", "max", "min", "med", "gmnz", "wsum", "wmnz", "mixed")
NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda", None)
TRAINED = ("bayesfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse")


def fusion_case(seed: int, *, ties: bool = True) -> tuple[dict[str, dict[str, int]], list[RunDict]]:
    rng = np.random.default_rng(seed)
    n_runs = int(rng.integers(2, 5))
    n_queries = int(rng.integers(3, 6))
    pool_size = 15 if ties else 20
    queries = [f"q{i}" for i in range(n_queries)]
    runs: list[RunDict] = []
    for _ in range(n_runs):
        run: RunDict = {}
        for q in queries:
            u = rng.random()
            if u < 0.12:
                continue  # the run lacks the query
            if u < 0.2:
                run[q] = {}  # an empty ranking
                continue
            n = int(rng.integers(1, pool_size + 1))
            docs = [f"d{j}" for j in rng.permutation(pool_size)[:n]]
            if ties:
                scores = rng.integers(-2, 5, size=n) / 4.0
            else:
                scores = np.round(rng.permutation(n) / 7.0 + rng.random() * 3 - 1, 6)
            run[q] = {d: float(s) for d, s in zip(docs, scores, strict=True)}
        runs.append(run)
    qrels: dict[str, dict[str, int]] = {}
    for q in queries:
        docs = [f"d{j}" for j in rng.permutation(pool_size)[: int(rng.integers(1, 9))]]
        docs.append("never-retrieved")
        qrels[q] = {
            d: int(g) for d, g in zip(docs, rng.integers(-1, 4, size=len(docs)), strict=True)
        }
    return qrels, runs


def params_for(method: str, n_runs: int, seed: int) -> dict[str, Any]:
    """Parameters of a method that are not learnt (random but fixed by ``seed``)."""
    rng = np.random.default_rng(seed)
    weights = [float(w) for w in np.round(rng.random(n_runs), 2)]
    return {
        "rrf": {"k": int(rng.choice([0, 10, 60]))},
        "gmnz": {"gamma": float(np.round(rng.random(), 2))},
        "logn_isr": {"sigma": float(np.round(rng.random(), 2))},
        "rbc": {"phi": float(np.round(rng.uniform(0.1, 0.95), 2))},
        "wsum": {"weights": weights},
        "wmnz": {"weights": weights},
        "mixed": {"weights": weights},
        "w_bordafuse": {"weights": weights},
        "slidefuse": {"w": int(rng.integers(0, 4))},
        "probfuse": {"n_segments": int(rng.integers(1, 6))},
    }.get(method, {})


def padded(runs: list[RunDict]) -> list[RunDict]:
    """Every run naming every query (the ones it lacks as empty rankings), as ranx
    needs."""
    queries = sorted({q for r in runs for q in r})
    return [{q: dict(r.get(q, {})) for q in queries} for r in runs]
