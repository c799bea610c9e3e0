"""Regenerate the Open Bandit Pipeline reference data and outputs of the OPE tests.

Runs in a side environment with ``obp`` 0.5.7 (it pins Python < 3.11, torch 1.12 and
old scikit-learn/pandas, so it cannot share the project's environment; see
``benchmarks/README.md``)::

    /root/.pyenv/versions/3.10.13/bin/python3.10 -m venv /tmp/ope-side
    /tmp/ope-side/bin/pip install obp==0.5.7 "matplotlib<3.6"
    /tmp/ope-side/bin/python tests/online/obp/make_obp_outputs.py

Writes, beside this script, ``<case>.npz`` (the logged data, the target policy and
the reward model's predictions, made with OBP's own synthetic generators) and
``obp_outputs.json`` (OBP's estimate for every estimator and hyperparameter of every
case).  ``tests/online/test_ope_reference.py`` reads them; a plain clone needs no OBP.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import obp
from obp.dataset import (
    SyntheticBanditDataset,
    SyntheticSlateBanditDataset,
    linear_behavior_policy,
    linear_behavior_policy_logit,
    logistic_reward_function,
)
from obp.ope import (
    DirectMethod,
    DoublyRobust,
    DoublyRobustWithShrinkage,
    InverseProbabilityWeighting,
    OffPolicyEvaluation,
    SelfNormalizedDoublyRobust,
    SelfNormalizedInverseProbabilityWeighting,
    SelfNormalizedSlateIndependentIPS,
    SelfNormalizedSlateRewardInteractionIPS,
    SelfNormalizedSlateStandardIPS,
    SlateIndependentIPS,
    SlateOffPolicyEvaluation,
    SlateRewardInteractionIPS,
    SlateStandardIPS,
    SwitchDoublyRobust,
)
from obp.utils import softmax

HERE = Path(__file__).parent

# ranklens name -> OBP estimator (name, hyperparameter as OBP takes it)
BANDIT = {
    "dm": DirectMethod(),
    "ips": InverseProbabilityWeighting(),
    "snips": SelfNormalizedInverseProbabilityWeighting(),
    "clipped-ips(2)": InverseProbabilityWeighting(lambda_=2.0, estimator_name="ipw2"),
    "clipped-ips(10)": InverseProbabilityWeighting(lambda_=10.0, estimator_name="ipw10"),
    "clipped-ips(0.5)": InverseProbabilityWeighting(lambda_=0.5, estimator_name="ipw05"),
    "dr": DoublyRobust(),
    "sndr": SelfNormalizedDoublyRobust(),
    "switch-dr(1)": SwitchDoublyRobust(lambda_=1.0, estimator_name="sw1"),
    "switch-dr(3)": SwitchDoublyRobust(lambda_=3.0, estimator_name="sw3"),
    "switch-dr(inf)": SwitchDoublyRobust(lambda_=np.inf, estimator_name="swinf"),
    "dr-os(0.1)": DoublyRobustWithShrinkage(lambda_=0.1, estimator_name="os01"),
    "dr-os(10)": DoublyRobustWithShrinkage(lambda_=10.0, estimator_name="os10"),
    "dr-os(inf)": DoublyRobustWithShrinkage(lambda_=np.inf, estimator_name="osinf"),
}


def _bandit_values(feedback: dict, action_dist: np.ndarray, q_hat: np.ndarray) -> dict:
    ope = OffPolicyEvaluation(bandit_feedback=feedback, ope_estimators=list(BANDIT.values()))
    got = ope.estimate_policy_values(action_dist=action_dist, estimated_rewards_by_reg_model=q_hat)
    return {name: float(got[est.estimator_name]) for name, est in BANDIT.items()}


def bandit_case(seed: int, reward_type: str, n_rounds: int) -> dict:
    """OBP's synthetic bandit data, an epsilon-softmax target and a noisy reward model."""
    data = SyntheticBanditDataset(
        n_actions=10,
        dim_context=5,
        reward_type=reward_type,
        reward_function=logistic_reward_function,
        behavior_policy_function=linear_behavior_policy,
        beta=-1.0,
        random_state=seed,
    )
    fb = data.obtain_batch_bandit_feedback(n_rounds=n_rounds)
    rng = np.random.default_rng(seed)
    action_dist = softmax(3.0 * fb["expected_reward"])[:, :, None]
    q_hat = fb["expected_reward"] + rng.normal(0, 0.1, fb["expected_reward"].shape)
    q_hat = q_hat[:, :, None]
    truth = float(data.calc_ground_truth_policy_value(fb["expected_reward"], action_dist))
    return {
        "arrays": {
            "reward": fb["reward"].astype(np.float64),
            "action": fb["action"].astype(np.int64),
            "pscore": fb["pscore"],
            "action_dist": action_dist,
            "q_hat": q_hat,
            "logging_dist": fb["pi_b"],
        },
        "obp": _bandit_values(fb, action_dist, q_hat),
        "truth": truth,
    }


def position_case(seed: int, n_rounds: int, n_actions: int, n_pos: int) -> dict:
    """Logged data with positions (random, seeded): OBP's estimators with position."""
    rng = np.random.default_rng(seed)
    logging = rng.dirichlet(np.ones(n_actions), size=(n_rounds, n_pos)).transpose(0, 2, 1)
    target = rng.dirichlet(np.full(n_actions, 0.5), size=(n_rounds, n_pos)).transpose(0, 2, 1)
    position = rng.integers(0, n_pos, n_rounds)
    cum = logging[np.arange(n_rounds), :, position].cumsum(axis=1)
    action = (rng.random(n_rounds)[:, None] > cum).sum(axis=1).clip(0, n_actions - 1)
    pscore = logging[np.arange(n_rounds), action, position]
    reward = rng.integers(-1, 4, n_rounds).astype(np.float64)  # negative and graded rewards
    q_hat = rng.normal(1.0, 1.0, (n_rounds, n_actions, n_pos))
    fb = {
        "n_rounds": n_rounds,
        "n_actions": n_actions,
        "action": action,
        "position": position,
        "reward": reward,
        "pscore": pscore,
        "context": np.zeros((n_rounds, 1)),
    }
    return {
        "arrays": {
            "reward": reward,
            "action": action.astype(np.int64),
            "position": position.astype(np.int64),
            "pscore": pscore,
            "action_dist": target,
            "q_hat": q_hat,
            "logging_dist": logging,
        },
        "obp": _bandit_values(fb, target, q_hat),
    }


SLATE = {
    "slate-ips": SlateStandardIPS(len_list=3),
    "slate-iips": SlateIndependentIPS(len_list=3),
    "slate-rips": SlateRewardInteractionIPS(len_list=3),
    "slate-snips": SelfNormalizedSlateStandardIPS(len_list=3),
    "slate-sniips": SelfNormalizedSlateIndependentIPS(len_list=3),
    "slate-snrips": SelfNormalizedSlateRewardInteractionIPS(len_list=3),
}


def slate_case(seed: int, click_model: str | None, reward_type: str, n_rounds: int) -> dict:
    data = SyntheticSlateBanditDataset(
        n_unique_action=8,
        len_list=3,
        dim_context=2,
        reward_type=reward_type,
        reward_structure="cascade_additive",
        click_model=click_model,
        base_reward_function=logistic_reward_function,
        behavior_policy_function=linear_behavior_policy_logit,
        random_state=seed,
    )
    fb = data.obtain_batch_bandit_feedback(n_rounds=n_rounds, return_pscore_item_position=True)
    rng = np.random.default_rng(seed)
    logit = rng.normal(0, 1, (n_rounds, 8))
    e_pscore, e_item, e_cascade = data.obtain_pscore_given_evaluation_policy_logit(
        action=fb["action"], evaluation_policy_logit_=logit, return_pscore_item_position=True
    )
    ope = SlateOffPolicyEvaluation(bandit_feedback=fb, ope_estimators=list(SLATE.values()))
    got = ope.estimate_policy_values(
        evaluation_policy_pscore=e_pscore,
        evaluation_policy_pscore_item_position=e_item,
        evaluation_policy_pscore_cascade=e_cascade,
    )
    return {
        "arrays": {
            "slate": fb["slate_id"].astype(np.int64),
            "position": fb["position"].astype(np.int64),
            "reward": fb["reward"].astype(np.float64),
            "pscore": fb["pscore"],
            "pscore_item_position": fb["pscore_item_position"],
            "pscore_cascade": fb["pscore_cascade"],
            "evaluation_policy_pscore": e_pscore,
            "evaluation_policy_pscore_item_position": e_item,
            "evaluation_policy_pscore_cascade": e_cascade,
        },
        "obp": {name: float(got[est.estimator_name]) for name, est in SLATE.items()},
    }


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="OBP's reference data and outputs")
    ap.add_argument("--out", type=Path, default=HERE, help="folder to write (default: here)")
    ap.add_argument("--seed-offset", type=int, default=0, help="added to every case's seed")
    args = ap.parse_args()
    o = args.seed_offset
    cases = {
        "bandit_binary": bandit_case(12345 + o, "binary", 3000),
        "bandit_continuous": bandit_case(7 + o, "continuous", 2000),
        "bandit_positions": position_case(11 + o, 1500, 6, 3),
        "slate_pbm": slate_case(3 + o, "pbm", "binary", 800),
        "slate_cascade": slate_case(5 + o, "cascade", "binary", 800),
        "slate_plain": slate_case(9 + o, None, "continuous", 800),
    }
    outputs = {"obp_version": obp.__version__, "cases": {}}
    for name, case in cases.items():
        np.savez_compressed(args.out / f"{name}.npz", **case["arrays"])
        outputs["cases"][name] = {k: v for k, v in case.items() if k != "arrays"}
    text = json.dumps(outputs, indent=1, sort_keys=True) + "\n"
    (args.out / "obp_outputs.json").write_text(text)


if __name__ == "__main__":
    main()
