"""Write ``ranx_fusion.json``: ranx's fused runs, trained parameters and fusion
optimisations on the cases of :mod:`tests.fusion.cases`, which
``test_reference_ranx_fusion.py`` checks ranklens against without ranx.

Run from the repository root with ranx installed (0.3.21 made the committed file)::

    PYTHONPATH=src python tests/fusion/make_ranx_fusion.py          # rewrite
    PYTHONPATH=src python tests/fusion/make_ranx_fusion.py --check  # compare

The first run compiles ranx's numba functions (minutes); later runs read numba's
cache.  ranx's ``zmuv`` normalisation loses every ranking of a run that has an empty
one (numba's mean of an empty array in its parallel loop, no error raised), so the
``zmuv`` references normalise the runs without their empty rankings (see
``_normalised``): ranklens normalises an empty ranking to nothing and the others as
usual.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fusion.cases import (
    NORMS,
    SCORE_ONLY,
    TRAINED,
    fusion_case,
    padded,
    params_for,
)

OUT = Path(__file__).with_name("ranx_fusion.json")
#: BayesFuse's log-odds are constant between its cut-offs (0, 5, 10, 15, 20, 30, 100,
#: 200, 500, 1000): the file keeps the value at each segment's start
BAYES_STARTS = (0, 5, 10, 15, 20, 30, 100, 200, 500)
METHODS = (
    "sum", "mnz", "anz", "max", "min", "med", "gmnz", "rrf", "isr", "log_isr", "logn_isr",
    "bordafuse", "w_bordafuse", "wsum", "wmnz", "mixed", "rbc",
    "bayesfuse", "posfuse", "probfuse", "segfuse", "slidefuse", "mapfuse",
)  # fmt: skip
CASES = [(1, True), (2, True), (101, False)]
OPTIMISE = [  # (case seed, method, norm, metric)
    (1, "wsum", "min-max", "ndcg@10"),
    (2, "rrf", "min-max", "map"),
    (3, "gmnz", "max", "ndcg"),
    (1, "probfuse", "min-max", "ndcg@5"),
    (2, "mixed", "sum", "mrr"),
]


def _rows(run: Any) -> dict[str, list[list[Any]]]:
    """``{query: [[doc, score], ...]}`` in ranx's order (queries without documents left
    out)."""
    return {
        q: [[d, float(s)] for d, s in docs.items()]
        for q, docs in sorted(run.to_dict().items())
        if docs
    }


def _normalised(runs: list[Any], norm: str | None) -> list[Any]:
    """ranx's normalisation of each run.  ranx's ``zmuv`` drops every ranking of a run
    that has an empty one (numba's mean of an empty array inside its parallel loop), so
    for ``zmuv`` the runs are normalised without their empty rankings, which are added
    back afterwards."""
    from ranx import Run
    from ranx.normalization import norm_switch

    if norm is None:
        return runs
    if norm == "borda":
        return list(norm_switch(norm)(runs))
    if norm != "zmuv":
        return [norm_switch(norm)(r) for r in runs]
    out = []
    for r in runs:
        full = r.to_dict()
        ranked = Run({q: d for q, d in full.items() if d})
        normal = norm_switch("zmuv")(ranked).to_dict()
        out.append(Run({q: dict(normal.get(q, {})) for q in sorted(full)}))
    return out


def _arrays(x: Any) -> Any:
    import numpy as np

    if isinstance(x, dict):
        return {k: _arrays(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, (str, int, float)):
        return x
    return [_arrays(v) for v in x]  # lists, tuples, numba typed lists


def _trained(
    qrels: Any, norm_runs: list[Any], method: str, params: dict[str, Any]
) -> dict[str, Any]:
    from ranx import fusion as f

    if method == "bayesfuse":
        return {"log_odds": f.bayesfuse_train(qrels, norm_runs)}
    if method in ("posfuse", "slidefuse"):
        return {"probs": f.posfuse_train(qrels, norm_runs)}
    if method == "segfuse":
        return {"probs": f.segfuse_train(qrels, norm_runs)}
    if method == "probfuse":
        return {"probs": f.probfuse_train(qrels, norm_runs, params["n_segments"])}
    return {"map_scores": f.mapfuse_train(qrels, norm_runs)}


def ranx_case(seed: int, ties: bool) -> dict[str, Any]:
    """ranx's fused runs (every method and normalisation) and trained parameters on
    the case ``seed``."""
    from ranx import Qrels, Run, fuse

    qrels_d, runs_d = fusion_case(seed, ties=ties)
    runs_p = padded(runs_d)
    case: dict[str, Any] = {"seed": seed, "ties": ties, "fused": {}, "trained": {}, "params": {}}
    for method in METHODS:
        print(f"case {seed}: {method}", file=sys.stderr, flush=True)
        params = params_for(method, len(runs_d), seed)
        case["params"][method] = params
        for norm in NORMS:
            if norm == "borda" and method not in SCORE_ONLY:
                continue  # ranx ranks the documents borda adds in a set's order
            runs = [Run(r, name=f"r{i}") for i, r in enumerate(runs_p)]
            qrels = Qrels(qrels_d)
            given = {k: v for k, v in params.items() if k != "n_segments"}
            key = f"{method}|{norm}"
            norm_runs = _normalised(runs, norm)
            if method in TRAINED:
                trained = _trained(qrels, norm_runs, method, params)
                kept = dict(trained)
                if "log_odds" in kept:  # constant within each cut-off segment: one value each
                    kept["log_odds"] = [[a[c] for c in BAYES_STARTS] for a in kept["log_odds"]]
                case["trained"][key] = _arrays(kept)
                given |= trained
            if norm == "zmuv":  # normalised above (see _normalised)
                fused = fuse(norm_runs, norm=None, method=method, params=given)
            else:
                fused = fuse(runs, norm=norm, method=method, params=given)
            case["fused"][key] = _rows(fused)
    return case


def make() -> dict[str, Any]:
    from ranx import Qrels, Run, optimize_fusion

    out: dict[str, Any] = {"cases": [ranx_case(seed, ties) for seed, ties in CASES]}
    out["optimize"] = []
    for seed, method, norm, metric in OPTIMISE:
        qrels_d, runs_d = fusion_case(seed, ties=True)
        runs = [Run(r) for r in padded(runs_d)]
        best, report = optimize_fusion(
            Qrels(qrels_d),
            runs,
            norm=norm,
            method=method,
            metric=metric,
            show_progress=False,
            return_optimization_report=True,
        )
        best = {k: v for k, v in best.items() if k != "probs"}
        out["optimize"].append(
            {
                "seed": seed,
                "method": method,
                "norm": norm,
                "metric": metric,
                "best": _arrays(best),
                "trials": [
                    [str(c), float(s)] for c, s in zip(report.configs, report.results, strict=True)
                ],
            }
        )
    return out


def main() -> int:
    warnings.simplefilter("ignore")
    text = json.dumps(make(), indent=None, separators=(",", ":")) + "\n"
    if "--check" in sys.argv:
        same = OUT.read_text() == text
        print("same" if same else f"{OUT} differs from what ranx gives now")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
