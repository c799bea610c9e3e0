"""Off-policy estimators (ranklens.online.ope): hand-computed values, the table form
against the array form, errors, warnings, and a simulation of many logs against the
known value of the target policy."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from ranklens.errors import InputError, RanklensWarning
from ranklens.online import delta_method_ratio
from ranklens.online.ope import (
    OffPolicyEvaluation,
    ope_arrays,
    ope_tables,
    parse_estimator,
    policy_from_scores,
    slate_ope,
)

# four rounds, two actions; target (0.8, 0.2) everywhere; model q = (0.5, 1.0)
R = [1.0, 0.0, 1.0, 1.0]
A = [0, 1, 1, 0]
P = [0.5, 0.5, 0.25, 0.5]
PI = [[0.8, 0.2]] * 4
Q = [[0.5, 1.0]] * 4
ALL = ["dm", "ips", "snips", "clipped-ips(1)", "dr", "sndr", "switch-dr(1)", "dr-os(1)"]


def _quiet(
    fn: Callable[..., OffPolicyEvaluation], *args: Any, **kwargs: Any
) -> OffPolicyEvaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # clean data: no warning at all
        return fn(*args, **kwargs)


def test_hand_computed_estimates() -> None:
    """w = (1.6, 0.4, 0.8, 1.6), sum 4.4; m = 0.8 * 0.5 + 0.2 * 1 = 0.6;
    r - q = (0.5, -1, 0, 0.5), sum of w (r - q) = 1.2."""
    res = _quiet(
        ope_arrays, R, A, P, PI, estimated_rewards=Q, estimators=ALL, logging_dist=[[0.5, 0.5]] * 4
    )
    got = {e.estimator: e.estimate for e in res.estimates}
    shrunk = (1.6 / 3.56) * 0.5 * 2 - 0.4 / 1.16  # w / (w^2 + 1) (r - q)
    expected = {
        "dm": 0.6,
        "ips": 4.0 / 4,
        "snips": 4.0 / 4.4,
        "clipped-ips(1)": (1 + 0 + 0.8 + 1) / 4,
        "dr": 0.6 + 1.2 / 4,
        "sndr": 0.6 + 1.2 / 4.4,
        "switch-dr(1)": 0.6 + (0.4 * -1.0) / 4,  # only w <= 1 keep the correction
        "dr-os(1)": 0.6 + shrunk / 4,
    }
    assert got == pytest.approx(expected, rel=1e-12)
    ips = res.get("ips")
    # values (1.6, 0, 0.8, 1.6): sample variance 1.76 / 3, standard error sqrt(var / 4)
    assert ips.std_error == pytest.approx(math.sqrt(1.76 / 3 / 4), rel=1e-12)
    assert ips.ess == pytest.approx(4.4**2 / 5.92, rel=1e-12)
    assert res.get("dm").ess == 4
    assert res.get("clipped-ips(1)").ess == pytest.approx(3.2**2 / 2.8, rel=1e-12)  # (1, .4, .8, 1)
    assert res.max_weight == pytest.approx(1.6)
    assert res.support_deficit == 0
    assert res.warnings == ()


def test_self_normalised_standard_error_is_the_delta_method() -> None:
    w = np.array([1.6, 0.4, 0.8, 1.6])
    _, var = delta_method_ratio(w * np.array(R), w)
    res = _quiet(ope_arrays, R, A, P, PI, estimators="snips", logging_dist=[[0.5, 0.5]] * 4)
    assert res.get("snips").std_error == pytest.approx(math.sqrt(float(var)), rel=1e-12)


def test_t_interval_is_the_mean_of_the_values() -> None:
    from scipy import stats

    res = _quiet(
        ope_arrays, R, A, P, PI, estimators="ips", alpha=0.1, logging_dist=[[0.5, 0.5]] * 4
    )
    e = res.get("ips")
    h = stats.t.ppf(0.95, 3) * math.sqrt(1.76 / 3 / 4)
    assert (e.ci_lower, e.ci_upper) == pytest.approx((1.0 - h, 1.0 + h), rel=1e-12)


def test_bootstrap_intervals_are_seeded_and_bracket_the_estimate() -> None:
    rng = np.random.default_rng(1)
    n = 400
    a = rng.integers(0, 3, n)
    r = rng.random(n)
    pi = np.tile([0.2, 0.3, 0.5], (n, 1))
    one = ope_arrays(
        r, a, np.full(n, 1 / 3), pi, estimators=["ips", "snips"], ci="percentile", seed=3
    )
    two = ope_arrays(
        r, a, np.full(n, 1 / 3), pi, estimators=["ips", "snips"], ci="percentile", seed=3
    )
    assert one.to_dict() == two.to_dict()
    for e in one.estimates:
        assert e.ci_lower < e.estimate < e.ci_upper
        # the bootstrap's width is close to the t interval's on 400 rounds
        assert (e.ci_upper - e.ci_lower) == pytest.approx(2 * 1.96 * e.std_error, rel=0.2)


def test_positions_and_position_independent_policy() -> None:
    """With positions, each round uses the target's distribution at its position."""
    pi = np.zeros((2, 2, 2))
    pi[:, 0, 0] = 1.0  # position 0: always action 0
    pi[:, 1, 1] = 1.0  # position 1: always action 1
    res = _quiet(
        ope_arrays,
        [1.0, 3.0],
        [0, 0],
        [0.5, 0.25],
        pi,
        position=[0, 1],
        estimators="ips",
        logging_dist=np.full((2, 2, 2), 0.5),
    )
    assert res.get("ips").estimate == pytest.approx((1.0 / 0.5 * 1.0 + 0.0) / 2)


def test_policy_from_scores_as_a_ranking() -> None:
    dist = policy_from_scores([[0.1, 0.7, 0.7, 0.2]], positions=3)
    # ranking: action 1 (tie with 2: lower code first), then 2, then 3
    assert dist[0].argmax(axis=0).tolist() == [1, 2, 3]
    assert dist.sum(axis=1).tolist() == [[1.0, 1.0, 1.0]]
    soft = policy_from_scores([[0.0, math.log(3.0)]], temperature=1.0)
    assert soft.ravel().tolist() == pytest.approx([0.25, 0.75])


# --------------------------------------------------------------------------- tables


def _long_tables(case: dict[str, np.ndarray]) -> tuple[pa.Table, pa.Table]:
    n, n_a, n_p = case["action_dist"].shape
    rid = np.array([f"r{i:05d}" for i in range(n)])
    log = pa.table(
        {
            "round": rid,
            "action": [f"item{a}" for a in case["action"]],
            "reward": case["reward"],
            "propensity": case["pscore"],
            "position": case["position"],
        }
    )
    i, a, k = np.meshgrid(np.arange(n), np.arange(n_a), np.arange(n_p), indexing="ij")
    prob = case["action_dist"][i, a, k].ravel()
    keep = (prob > 0) | (a.ravel() % 2 == 0)  # some zero rows left out, some given
    keep |= (a == case["action"][:, None, None]).ravel()  # the logged action always
    policy = pa.table(
        {
            "round": rid[i.ravel()][keep],
            "action": np.array([f"item{x}" for x in a.ravel()])[keep],
            "position": k.ravel()[keep],
            "probability": prob[keep],
            "prediction": case["q_hat"][i, a, k].ravel()[keep],
        }
    )
    return log, policy


def test_tables_give_the_numbers_of_the_arrays() -> None:
    rng = np.random.default_rng(5)
    n, n_a, n_p = 300, 4, 2
    dist = rng.dirichlet(np.ones(n_a), size=(n, n_p)).transpose(0, 2, 1)
    dist[dist < 0.1] = 0.0  # sparse: zeros the table leaves out
    dist /= dist.sum(axis=1, keepdims=True)
    case = {
        "action_dist": dist,
        "action": rng.integers(0, n_a, n),
        "position": rng.integers(0, n_p, n),
        "reward": rng.integers(-1, 3, n).astype(float),
        "pscore": rng.uniform(0.2, 0.6, n),
        "q_hat": rng.normal(size=(n, n_a, n_p)),
    }
    log, policy = _long_tables(case)
    a = ope_arrays(
        case["reward"],
        case["action"],
        case["pscore"],
        dist,
        position=case["position"],
        estimated_rewards=case["q_hat"],
        estimators=ALL,
    )
    shuffled = policy.take(rng.permutation(policy.num_rows))
    b = ope_tables(log, shuffled, estimators=ALL, position="position")
    for x, y in zip(a.estimates, b.estimates, strict=True):
        assert x.estimator == y.estimator
        assert y.estimate == pytest.approx(x.estimate, rel=1e-12)
        assert y.std_error == pytest.approx(x.std_error, rel=1e-9)
    assert b.support_deficit == pytest.approx(a.support_deficit, abs=1e-15)


def test_tables_keyed_by_context() -> None:
    """The policy per user: every round of a user gets that user's distribution."""
    log = pa.table(
        {
            "user": ["u1", "u1", "u2"],
            "action": ["a", "b", "a"],
            "reward": [1.0, 0.0, 1.0],
            "propensity": [0.5, 0.5, 0.5],
        }
    )
    policy = pa.table(
        {
            "user": ["u1", "u2", "u2"],
            "action": ["a", "a", "b"],
            "probability": [1.0, 0.5, 0.5],
        }
    )
    res = _quiet(ope_tables, log, policy, estimators="ips", context="user")
    # w = (2, 0, 1): (2 * 1 + 0 + 1 * 1) / 3
    assert res.get("ips").estimate == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("log_cols", "policy_cols", "message"),
    [
        ({"propensity": [0.0, 0.5]}, {}, "row 0 is 0, not a probability in (0, 1]"),
        ({}, {"probability": [0.7, 1.0]}, "row 0 is round '1', whose probabilities"),
        ({"round": [1, 1]}, {}, "row 1 repeats round '1'"),
        ({}, {"round": [1, 1], "action": ["x", "x"]}, "row 1 repeats the probability"),
        ({"reward": [1.0, float("nan")]}, {}, "log column 'reward': row 1 is NaN"),
        ({}, {"round": [1, 3]}, "policy column 'round': row 1 is round '3', which the log"),
    ],
)
def test_table_errors_name_the_row(
    log_cols: dict[str, list[object]], policy_cols: dict[str, list[object]], message: str
) -> None:
    log = {"round": [1, 2], "action": ["x", "y"], "reward": [1.0, 0.0], "propensity": [0.5, 0.5]}
    policy = {"round": [1, 2], "action": ["x", "x"], "probability": [1.0, 1.0]}
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ope_tables(pa.table(log | log_cols), pa.table(policy | policy_cols), estimators="ips")


def test_model_estimators_need_a_prediction_of_the_logged_action() -> None:
    log = pa.table({"round": [1], "action": ["y"], "reward": [1.0], "propensity": [0.5]})
    policy = pa.table({"round": [1], "action": ["x"], "probability": [1.0], "prediction": [0.3]})
    with pytest.raises(InputError, match="row 0 is action 'y', which the policy table"):
        ope_tables(log, policy, estimators="dr")
    with pytest.raises(InputError, match=r"need.* the reward model's predictions"):
        ope_tables(log, policy.drop(["prediction"]), estimators="dm")


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"propensity": [0.5, 0.0, 0.25, 0.5]}, "propensity at round 1 is 0"),
        ({"action_dist": [[0.8, 0.3]] * 4}, "action_dist at round 0 .* sums to 1.1"),
        ({"action_dist": [[1.2, -0.2]] * 4}, "round 0 holds .*, not probabilities in"),
        ({"action": [0, 2, 1, 0]}, "action at round 1 is 2, outside 0..1"),
        ({"reward": [1.0, 0.0, 1.0]}, "propensity has 4 value"),
        ({"estimators": "dr"}, "dr need.* a reward model: pass estimated_rewards"),
        ({"estimators": "slate-ips"}, "belong to slate_ope"),
        ({"estimators": ["ips", "ipw"]}, "ips given twice"),
        ({"alpha": 1.5}, "alpha must be a number in"),
        ({"ci": "normal"}, "ci must be one of"),
    ],
)
def test_errors(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "reward": R,
        "action": A,
        "propensity": P,
        "action_dist": PI,
        "estimators": "ips",
    }
    with pytest.raises(InputError, match=message):
        ope_arrays(**(args | kwargs))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("clipped-ips", "needs its clipping threshold L"),
        ("switch-dr(-1)", "must be a number >= 0"),
        ("ips(3)", "takes no parameter"),
        ("magic", "must be one of"),
        ("dr(", "not of the form NAME or NAME"),
    ],
)
def test_estimator_names(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_estimator(spec)


def test_estimator_aliases_and_infinity() -> None:
    assert parse_estimator("IPW").label == "ips"
    assert parse_estimator("dr-os(inf)").label == "dr-os(inf)"
    assert parse_estimator("switch_dr( 2.5 )").label == "switch-dr(2.5)"


# --------------------------------------------------------------------------- warnings


def test_tiny_propensity_warning() -> None:
    with pytest.warns(RanklensWarning, match=r"tiny propensities: 1 of 4 rounds .* round 2"):
        res = ope_arrays(
            R,
            A,
            [0.5, 0.5, 0.0001, 0.5],
            PI,
            estimators="ips",
            logging_dist=[[0.5, 0.5]] * 4,
        )
    assert res.tiny_propensities == 1
    assert res.max_weight == pytest.approx(2000.0)
    # the threshold is a parameter
    _quiet(
        ope_arrays,
        R,
        A,
        [0.5, 0.5, 0.0001, 0.5],
        PI,
        estimators="ips",
        max_weight=1e4,
        logging_dist=[[0.5, 0.5]] * 4,
    )


def test_support_deficiency_warning() -> None:
    """The target puts 0.2 on action 1 where the logger never acts."""
    logging = [[1.0, 0.0]] * 4
    with pytest.warns(RanklensWarning, match="support deficiency: .* puts 0.2 of its"):
        res = ope_arrays(R, [0, 0, 0, 0], [1.0] * 4, PI, estimators="ips", logging_dist=logging)
    assert res.support_deficit == pytest.approx(0.2)
    # without the logger's distribution: action 1 never appears in the log
    with pytest.warns(RanklensWarning, match="support deficiency"):
        res = ope_arrays(R, [0, 0, 0, 0], [1.0] * 4, PI, estimators="ips")
    assert res.support_deficit == pytest.approx(0.2)
    assert len(res.warnings) == 1


# --------------------------------------------------------------------------- slates


def test_slate_hand_computed() -> None:
    """Two slates of two positions; row weights by kind."""
    kw = {
        "pscore": [0.2, 0.2, 0.4, 0.4],
        "evaluation_policy_pscore": [0.4, 0.4, 0.2, 0.2],  # w = 2, 2, 0.5, 0.5
        "pscore_item_position": [0.5, 0.5, 0.5, 0.5],
        "evaluation_policy_pscore_item_position": [0.5, 1.0, 0.25, 0.5],  # w = 1, 2, .5, 1
        "pscore_cascade": [0.5, 0.25, 0.5, 0.25],
        "evaluation_policy_pscore_cascade": [1.0, 0.25, 0.5, 0.5],  # w = 2, 1, 1, 2
    }
    res = _quiet(
        slate_ope,
        ["a", "a", "b", "b"],
        [0, 1, 0, 1],
        [1.0, 0.0, 1.0, 1.0],
        estimators=["slate-ips", "slate-iips", "slate-rips", "slate-snips", "slate-sniips"],
        **kw,
    )
    got = {e.estimator: e.estimate for e in res.estimates}
    assert got == pytest.approx(
        {
            "slate-ips": (2.0 + 0.5 + 0.5) / 2,
            "slate-iips": (1.0 + 0.5 + 1.0) / 2,
            "slate-rips": (2.0 + 1.0 + 2.0) / 2,
            # mean weight of all rows: 1.25
            "slate-snips": (2.0 + 0.5 + 0.5) / 1.25 / 2,
            # mean weight at position 0: 0.75, at position 1: 1.5
            "slate-sniips": (1.0 / 0.75 + 0.5 / 0.75 + 1.0 / 1.5) / 2,
        },
        rel=1e-12,
    )
    assert res.n == 2


def test_slate_needs_its_propensities() -> None:
    with pytest.raises(InputError, match=r"slate-rips weight.* by pscore_cascade"):
        slate_ope(
            [1], [0], [1.0], estimators="slate-rips", pscore=[0.5], evaluation_policy_pscore=[0.5]
        )


# --------------------------------------------------------------------------- simulation


def test_unbiased_estimators_over_many_logs() -> None:
    """200 logs of 400 rounds from a known contextual bandit: the mean of each unbiased
    estimator over the logs is within its 99.9% interval of the true value, and each
    log's 95% interval covers the truth in about 95% of the logs."""
    rng = np.random.default_rng(2024)
    n_ctx, n_a, n, logs = 6, 4, 400, 200
    mu = rng.uniform(0.1, 0.9, (n_ctx, n_a))  # expected reward of (context, action)
    logger = rng.dirichlet(np.full(n_a, 3.0), n_ctx)
    logger = 0.8 * logger + 0.2 / n_a  # full support
    target = rng.dirichlet(np.full(n_a, 0.7), n_ctx)
    truth = float((target * mu).sum(axis=1).mean())  # contexts uniform
    model = np.clip(mu + rng.normal(0, 0.15, mu.shape), 0, 1)  # a wrong reward model
    unbiased = ["ips", "dr", "clipped-ips(100)", "switch-dr(100)", "dr-os(inf)"]
    consistent = ["snips", "sndr"]
    est: dict[str, list[float]] = {name: [] for name in unbiased + consistent}
    covered = {name: 0 for name in unbiased + consistent}
    for _ in range(logs):
        x = rng.integers(0, n_ctx, n)
        cum = logger[x].cumsum(axis=1)
        a = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), n_a - 1)
        r = (rng.random(n) < mu[x, a]).astype(float)
        res = ope_arrays(
            r,
            a,
            logger[x, a],
            target[x],
            estimated_rewards=model[x],
            logging_dist=logger[x],
            estimators=unbiased + consistent,
        )
        for e in res.estimates:
            est[e.estimator].append(e.estimate)
            covered[e.estimator] += e.ci_lower <= truth <= e.ci_upper
    for name in unbiased:
        v = np.array(est[name])
        half = 3.29 * v.std(ddof=1) / math.sqrt(logs)
        assert abs(v.mean() - truth) <= half, (name, v.mean(), truth, half)
    for name in consistent:  # biased by O(1/n): within a few standard errors
        v = np.array(est[name])
        assert abs(v.mean() - truth) <= 5 * v.std(ddof=1) / math.sqrt(logs), name
    for name, c in covered.items():
        assert 0.90 <= c / logs <= 0.99, (name, c)
    # DM with the wrong model is biased: the simulation can tell
    dm_bias = float((target * (model - mu)).sum(axis=1).mean())
    assert abs(dm_bias) > 0.01
