"""Reference tests: ranklens.fusion against ranx 0.3.21's ``fuse``,
``*_train`` and ``optimize_fusion``.

``ranx_fusion.json`` (written by ``make_ranx_fusion.py`` with ranx) holds ranx's
outputs on the cases of :mod:`tests.fusion.cases` (random runs with ties and
negative scores, different documents per run, queries missing from runs, empty
rankings, graded qrels with negative grades and unjudged documents): every method
under every normalisation (after ``borda`` only the methods that read scores alone,
since ranx ranks the documents borda adds in a Python set's order), the parameters
the trained methods learn, and five grid optimisations.  A plain clone checks them;
``test_agrees_with_live_ranx`` runs ranx itself on other seeds (marked
``reference``, skipped without ranx).

ranklens is given the runs as they are (a query a run lacks stays absent); ranx needs
every run to name every query, so it is given the missing ones as empty rankings:
the two must agree, which checks that convention too.  ranx's ``zmuv`` loses every
ranking of a run that has an empty one (numba's mean of an empty array in a parallel
loop); its references are made without the empty rankings (``make_ranx_fusion.py``).
Fused scores agree to 1e-9 (relative); the order of the fused documents too, where
ranx's scores are exactly equal (ties in first-appearance order) or apart by more
than rounding (not after ``borda`` normalisation nor under BordaFuse, where ranx's
order of tied documents follows a Python set).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ranklens import Qrels, Run
from ranklens.fusion import fuse, optimize_fusion, train_fusion
from tests.fusion.cases import TRAINED, fusion_case

DATA = json.loads(Path(__file__).with_name("ranx_fusion.json").read_text())


def _norm(text: str) -> str | None:
    return None if text == "None" else text


def _ours(case: dict[str, Any], key: str) -> Run:
    qrels_d, runs_d = fusion_case(case["seed"], ties=case["ties"])
    method, norm = key.split("|")
    params = dict(case["params"][method])
    runs = [Run.from_dict({q: d for q, d in r.items()}) for r in runs_d]
    qrels = Qrels.from_dict(qrels_d) if method in TRAINED else None
    return fuse(runs, method, _norm(norm), params or None, qrels=qrels)


def _same_run(got: Run, want_rows: dict[str, list[list[Any]]], check_order: bool) -> None:
    want = {q: [(d, s) for d, s in rows] for q, rows in want_rows.items()}
    ours = {q: docs for q, docs in got.to_dict().items() if docs}
    assert sorted(ours) == sorted(want)
    for q, pairs in want.items():
        mine = ours[q]
        assert set(mine) == {d for d, _ in pairs}, q
        for d, s in pairs:
            assert math.isclose(mine[d], s, rel_tol=1e-9, abs_tol=1e-12), (q, d, mine[d], s)
        if not check_order:
            continue
        order = list(mine)
        # ranx's order, group by group: equal scores in the same order, near-equal ones
        # (apart by rounding only) as a set
        i = 0
        while i < len(pairs):
            j = i + 1
            while j < len(pairs) and math.isclose(
                pairs[j][1], pairs[i][1], rel_tol=1e-9, abs_tol=1e-12
            ):
                j += 1
            group = [d for d, _ in pairs[i:j]]
            exact = len({s for _, s in pairs[i:j]}) == 1 and len({mine[d] for d in group}) == 1
            if exact:
                assert order[i:j] == group, (q, order, pairs)
            else:
                assert set(order[i:j]) == set(group), (q, order, pairs)
            i = j


def _order_kept(key: str, ties: bool) -> bool:
    """Whether ranx's order of tied fused documents follows a rule: not after ``borda``
    normalisation, nor under (weighted) BordaFuse, which add the documents a run lacks
    to it in a Python set's order (first appearance then depends on the set)."""
    method, norm = key.split("|")
    return ties and norm != "borda" and method not in ("bordafuse", "w_bordafuse")


FUSED = [(i, key) for i, case in enumerate(DATA["cases"]) for key in case["fused"]]


@pytest.mark.parametrize(
    ("index", "key"), FUSED, ids=[f"{DATA['cases'][i]['seed']}-{k}" for i, k in FUSED]
)
def test_fuse_equals_ranx(index: int, key: str) -> None:
    case = DATA["cases"][index]
    _same_run(_ours(case, key), case["fused"][key], check_order=_order_kept(key, case["ties"]))


TRAINS = [(i, key) for i, case in enumerate(DATA["cases"]) for key in case["trained"]]


@pytest.mark.parametrize(
    ("index", "key"), TRAINS, ids=[f"{DATA['cases'][i]['seed']}-{k}" for i, k in TRAINS]
)
def test_training_equals_ranx(index: int, key: str) -> None:
    case = DATA["cases"][index]
    qrels_d, runs_d = fusion_case(case["seed"], ties=case["ties"])
    method, norm = key.split("|")
    params = {k: v for k, v in case["params"][method].items() if k == "n_segments"}
    got = train_fusion(
        Qrels.from_dict(qrels_d), [Run.from_dict(r) for r in runs_d], method, _norm(norm), params
    )
    for name, want in case["trained"][key].items():
        mine = got[name]
        if name == "log_odds":  # the file keeps each segment's value (see the maker)
            from tests.fusion.make_ranx_fusion import BAYES_STARTS

            assert all(len(a) == 1000 for a in mine)
            mine = [np.asarray(a)[list(BAYES_STARTS)] for a in mine]
        if name == "map_scores":
            assert np.allclose(mine, want, rtol=1e-9, atol=1e-12)
            continue
        assert len(mine) == len(want)
        for a, b in zip(mine, want, strict=True):
            assert np.allclose(
                np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12, equal_nan=True
            ), (name, a, b)


def _config(setting: dict[str, Any]) -> str:
    (value,) = setting.values()
    return str(tuple(value)) if isinstance(value, list) else str(value)


@pytest.mark.parametrize(
    "index",
    range(len(DATA["optimize"])),
    ids=[f"{o['method']}-{o['metric']}" for o in DATA["optimize"]],
)
def test_optimize_equals_ranx(index: int) -> None:
    spec = DATA["optimize"][index]
    qrels_d, runs_d = fusion_case(spec["seed"], ties=True)
    found = optimize_fusion(
        Qrels.from_dict(qrels_d),
        [Run.from_dict(r) for r in runs_d],
        spec["method"],
        spec["metric"],
        spec["norm"],
    )
    # ranx's weights are NumPy floats, printed as np.float64(0.1) by NumPy 2
    ranx_configs = [re.sub(r"np\.float64\(([^)]*)\)", r"\1", c) for c, _ in spec["trials"]]
    assert [_config(s) for s, _ in found.trials] == ranx_configs
    assert [s for _, s in found.trials] == pytest.approx(
        [s for _, s in spec["trials"]], rel=1e-9, abs=1e-12
    )
    # ranx keeps the last of the best scores
    scores = [s for _, s in spec["trials"]]
    ranx_best = [c for c, s in zip(ranx_configs, scores, strict=True) if s == max(scores)][-1]
    setting = {k: v for k, v in found.best_params.items() if k in found.trials[0][0]}
    assert _config(setting) == ranx_best
    for name, value in spec["best"].items():
        mine = found.best_params[name]
        assert (list(mine) if isinstance(value, list) else mine) == value


@pytest.mark.reference
@pytest.mark.parametrize("seed", [201, 202])
@pytest.mark.parametrize("ties", [True, False], ids=["ties", "distinct"])
def test_agrees_with_live_ranx(seed: int, ties: bool) -> None:
    pytest.importorskip("ranx", reason="ranx (the peer) is not installed")
    from tests.fusion.make_ranx_fusion import ranx_case

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        case = ranx_case(seed, ties)
    for key, rows in case["fused"].items():
        _same_run(_ours(case, key), rows, check_order=_order_kept(key, ties))
