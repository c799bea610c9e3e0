"""Every off-policy estimator equals Open Bandit Pipeline's (``obp.ope`` 0.5.7) on OBP's
own synthetic data: bandits (binary and continuous rewards; a log with positions,
negative and graded rewards) and slates (position-based and cascade click models, and
none), every estimator and hyperparameter.  The data and OBP's numbers are committed
(``tests/online/obp/``, made by ``make_obp_outputs.py`` in a side environment), so a
plain clone checks them; ``test_live_obp_on_fresh_data`` (marked ``reference``) draws
new data with the live OBP of that side environment when it is there."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from ranklens.online.ope import ope_arrays, slate_ope

HERE = Path(__file__).parent / "obp"
OUTPUTS = json.loads((HERE / "obp_outputs.json").read_text())["cases"]
BANDIT = sorted(c for c in OUTPUTS if c.startswith("bandit"))
SLATE = sorted(c for c in OUTPUTS if c.startswith("slate"))
RTOL = 1e-12


def _load(case: str, folder: Path = HERE) -> dict[str, Any]:
    with np.load(folder / f"{case}.npz") as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("case", BANDIT)
def test_bandit_estimators_equal_obp(case: str) -> None:
    _check_bandit(_load(case), OUTPUTS[case]["obp"])


def _check_bandit(d: dict[str, Any], expected: dict[str, float]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # support deficiency on random data is expected
        res = ope_arrays(
            d["reward"],
            d["action"],
            d["pscore"],
            d["action_dist"],
            position=d.get("position"),
            estimated_rewards=d["q_hat"],
            estimators=list(expected),
        )
    got = {e.estimator: e.estimate for e in res.estimates}
    assert set(got) == set(expected)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=RTOL, abs=1e-15), name


@pytest.mark.parametrize("case", SLATE)
def test_slate_estimators_equal_obp(case: str) -> None:
    _check_slate(_load(case), OUTPUTS[case]["obp"])


def _check_slate(d: dict[str, Any], expected: dict[str, float]) -> None:
    res = slate_ope(
        d["slate"],
        d["position"],
        d["reward"],
        estimators=list(expected),
        **{k: d[k] for k in d if "pscore" in k},
        max_weight=1e9,
    )
    for name, value in expected.items():
        assert res.get(name).estimate == pytest.approx(value, rel=RTOL, abs=1e-15), name


def test_the_slate_rows_may_come_in_any_order() -> None:
    """OBP needs each slate's rows together; ranklens groups by slate id."""
    d = _load("slate_pbm")
    perm = np.random.default_rng(0).permutation(d["reward"].size)
    expected = OUTPUTS["slate_pbm"]["obp"]
    res = slate_ope(
        d["slate"][perm],
        d["position"][perm],
        d["reward"][perm],
        estimators=list(expected),
        **{k: d[k][perm] for k in d if "pscore" in k},
        max_weight=1e9,
    )
    for name, value in expected.items():
        assert res.get(name).estimate == pytest.approx(value, rel=RTOL), name


def test_the_unbiased_estimators_are_near_the_truth_on_obps_data() -> None:
    """OBP's ground truth of the target policy lies in the 99% interval of each
    unbiased estimator (a check of the intervals on data we did not make)."""
    for case in ("bandit_binary", "bandit_continuous"):
        d = _load(case)
        res = ope_arrays(
            d["reward"],
            d["action"],
            d["pscore"],
            d["action_dist"],
            estimated_rewards=d["q_hat"],
            estimators=["ips", "dr"],
            alpha=0.01,
        )
        truth = OUTPUTS[case]["truth"]
        for e in res.estimates:
            assert e.ci_lower <= truth <= e.ci_upper, (case, e)


@pytest.mark.reference
def test_live_obp_on_fresh_data(tmp_path: Path) -> None:
    """OBP draws new data (other seeds) in its side environment and estimates; ranklens
    must agree on every case.  OBP 0.5.7 needs Python < 3.11 and ranklens >= 3.11, so
    it runs in its own interpreter: ``RANKLENS_OBP_PYTHON``, default
    ``/tmp/ope-side/bin/python`` (benchmarks/README.md says how to make it)."""
    import os
    import subprocess

    python = os.environ.get("RANKLENS_OBP_PYTHON", "/tmp/ope-side/bin/python")
    if not Path(python).exists():
        pytest.skip(f"Open Bandit Pipeline's side environment ({python}) is not there")
    subprocess.run(
        [python, str(HERE / "make_obp_outputs.py"), "--out", tmp_path, "--seed-offset", "101"],
        check=True,
        capture_output=True,
    )
    fresh = json.loads((tmp_path / "obp_outputs.json").read_text())["cases"]
    assert set(fresh) == set(OUTPUTS)
    for case, out in fresh.items():
        check = _check_bandit if case.startswith("bandit") else _check_slate
        check(_load(case, tmp_path), out["obp"])


@pytest.mark.parametrize("case", SLATE)
def test_slate_tables_equal_obp(case: str) -> None:
    """The same numbers from a log table and a policy table (positions as 1-based
    labels, the policy's rows in another order)."""
    from ranklens.online.ope import slate_ope_tables

    d = _load(case)
    kinds = ["pscore", "pscore_item_position", "pscore_cascade"]
    log = pa.table(
        {
            "slate": [f"s{x}" for x in d["slate"]],
            "position": d["position"] + 1,
            "reward": d["reward"],
            **{k: d[k] for k in kinds},
        }
    )
    perm = np.random.default_rng(1).permutation(log.num_rows)
    policy = pa.table(
        {
            "slate": log["slate"].take(perm),
            "position": log["position"].take(perm),
            **{k: d[f"evaluation_policy_{k}"][perm] for k in kinds},
        }
    )
    expected = OUTPUTS[case]["obp"]
    res = slate_ope_tables(log, policy, estimators=list(expected), max_weight=1e9)
    for name, value in expected.items():
        assert res.get(name).estimate == pytest.approx(value, rel=RTOL, abs=1e-15), name
