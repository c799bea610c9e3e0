"""Regenerate ``interleaving_kato.json``: the credit that Kato & Manabe's
``interleaving`` package (https://github.com/mpkato/interleaving, commit 7907f7d, MIT;
GitHub only: the PyPI name ``interleaving`` is someone else's empty placeholder) gives
to random lists and clicks, for ``tests/online/test_interleaving_reference.py``.

Its deterministic parts are compared: given two rankings, an interleaved list its own
sampler made (numpy seeded here) and clicks, the scores of ``compute_scores`` for
team-draft (clicks per team), balanced (Joachims' rule), probabilistic (two rankers:
its enumeration of every assignment, Hofmann et al. 2011) and optimized (the credits
``-rank`` and ``1/rank`` of its lists).  Run it in a side environment (the package
pins nothing but needs numpy, scipy and pulp; see benchmarks/README.md)::

    python3 -m venv /tmp/interleave-side
    /tmp/interleave-side/bin/pip install numpy scipy pulp
    git clone https://github.com/mpkato/interleaving /tmp/interleave-side/mpkato
    /tmp/interleave-side/bin/python tests/online/peers/make_interleaving_reference.py \\
        --source /tmp/interleave-side/mpkato
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
from pathlib import Path

OUT = Path(__file__).with_name("interleaving_kato.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", required=True, help="a checkout of mpkato/interleaving")
    parser.add_argument("--cases", type=int, default=60)
    args = parser.parse_args()
    sys.path.insert(0, args.source)
    import numpy as np
    from interleaving import Balanced, Optimized, Probabilistic, TeamDraft

    rnd = random.Random(2024)
    np.random.seed(2024)  # noqa: NPY002 - the package samples with the legacy global RNG
    cases = []
    for i in range(args.cases):
        pool = [f"d{j}" for j in range(rnd.randint(3, 9))]
        k = rnd.randint(2, 6)
        size = min(k, len(pool))
        a = rnd.sample(pool, rnd.randint(size, len(pool)))
        b = rnd.sample(pool, rnd.randint(size, len(pool)))
        method = ["team_draft", "balanced", "probabilistic", "optimized"][i % 4]
        case: dict[str, object] = {"method": method, "a": a, "b": b, "k": k}
        if method == "team_draft":
            ranking = TeamDraft([a, b], max_length=k).interleave()
            case["teams"] = [0 if d in ranking.teams[0] else 1 for d in ranking]
        elif method == "balanced":
            with contextlib.redirect_stdout(io.StringIO()):  # its sampler prints
                ranking = Balanced([a, b], max_length=k).interleave()
        elif method == "probabilistic":
            tau = rnd.choice([1.0, 2.0, 3.0])
            case["tau"] = tau
            # its sampler fails when a ranker runs out of documents: rankings of one set
            b = rnd.sample(a, len(a))
            case["b"] = b
            ranking = Probabilistic([a, b], max_length=k, tau=tau).interleave()
            # each ranker's probability of each shown document, as its softmax gives it
            soft = [Probabilistic.Softmax(tau, lst) for lst in (a, b)]
            case["p"] = [[float(s.delete(d)) for s in soft] for d in ranking]
        else:
            a, b = a[:k], b[:k]  # lists of k: a document outside one has rank k + 1
            if len(a) < k or len(b) < k:
                a, b = (pool * 2)[:k], list(reversed(pool))[:k]
            case["a"], case["b"] = a, b
            function = rnd.choice(["negative", "inverse"])
            case["credit_function"] = {"negative": "linear", "inverse": "inverse"}[function]
            opt = Optimized.__new__(Optimized)
            opt._credit_func = (lambda x: -x) if function == "negative" else (lambda x: 1.0 / x)
            ranking = opt._sample(k, [a, b])
        docs = list(ranking)
        clicks = [rnd.random() < 0.5 for _ in docs]
        clicked = [j for j, c in enumerate(clicks) if c]
        case["docs"] = docs
        case["clicks"] = clicks
        if method == "team_draft":
            scores = TeamDraft.compute_scores(ranking, clicked)
            case["scores"] = [float(scores[0]), float(scores[1])]
        elif method == "balanced":
            scores = Balanced.compute_scores(ranking, clicked)
            case["scores"] = [float(scores[0]), float(scores[1])]
        elif method == "probabilistic":
            o = Probabilistic.compute_scores(ranking, clicked, tau=case["tau"])
            total = sum(p for _, p in o.allocations.values())
            case["p_wins"] = [float(o[0] / total), float(o[1] / total)]
        else:
            scores = Optimized.compute_scores(ranking, clicked)
            case["scores"] = [float(scores[0]), float(scores[1])]
        cases.append(case)
    OUT.write_text(json.dumps({"source": "mpkato/interleaving@7907f7d", "cases": cases}, indent=1))
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
