"""Every off-policy estimator equals Open Bandit Pipeline's (``obp.ope`` 0.5.7) on OBP's
own synthetic data: bandits (binary and continuous rewards; a log with positions,
negative and graded rewards) and slates (position-based and cascade click models, and
none), every estimator and hyperparameter.  The data and OBP's numbers are committed
(``tests/online/obp/``, made by ``make_obp_outputs.py`` in a side environment), so a
plain clone checks them."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ranklens.online.ope import ope_arrays, slate_ope

HERE = Path(__file__).parent / "obp"
OUTPUTS = json.loads((HERE / "obp_outputs.json").read_text())["cases"]
BANDIT = sorted(c for c in OUTPUTS if c.startswith("bandit"))
SLATE = sorted(c for c in OUTPUTS if c.startswith("slate"))
RTOL = 1e-12


def _load(case: str) -> dict[str, Any]:
    with np.load(HERE / f"{case}.npz") as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("case", BANDIT)
def test_bandit_estimators_equal_obp(case: str) -> None:
    d = _load(case)
    expected = OUTPUTS[case]["obp"]
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
    d = _load(case)
    expected = OUTPUTS[case]["obp"]
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
