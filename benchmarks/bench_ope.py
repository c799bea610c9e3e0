"""Benchmark off-policy evaluation (``ranklens.online.ope``) against Open Bandit Pipeline.

Run from the repository root::

    python benchmarks/bench_ope.py                      # 1,000,000 rounds x 10 actions
    python benchmarks/bench_ope.py --rounds 100000 --quick
    python benchmarks/bench_ope.py --obp-python /tmp/ope-side/bin/python

Both libraries get the same logged bandit data (``--rounds`` rounds, ``--actions``
actions, a softmax logger, a softmax target, a noisy reward model; dense arrays of
shape (rounds, actions, 1) as OBP takes them) and estimate the same seven estimators:
DM, IPS, SNIPS, DR, SNDR, switch-DR(3) and DR-os(10).  Timed, best of ``--repeat``:

* OBP: ``OffPolicyEvaluation(bandit_feedback, ope_estimators).estimate_policy_values(
  action_dist, estimated_rewards_by_reg_model)`` (its input checks and the point
  estimates only; OBP's intervals are a per-estimator bootstrap, not timed);
* ranklens: ``ope_arrays(...)`` end to end: input checks, every estimate, its standard
  error and t interval, the effective sample sizes and the support check.

OBP 0.5.7 pins Python < 3.11 and old libraries, so it runs in a side environment
(``--obp-python``, default ``/tmp/ope-side/bin/python``; see ``benchmarks/README.md``):
the data go to a temporary ``.npz`` file and OBP is timed in that interpreter, in a
subprocess, after loading them.  Memory: the largest resident set of each process
doing its part (``ru_maxrss``, ranklens in a subprocess of its own too) and the peak
of what the call itself allocates (``tracemalloc``, which numpy reports to); the
estimates of both are compared (relative difference).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

from _timing import best

ESTIMATORS = ["dm", "ips", "snips", "dr", "sndr", "switch-dr(3)", "dr-os(10)"]

OBP_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys, time
    import numpy as np
    from obp.ope import (DirectMethod, DoublyRobust, DoublyRobustWithShrinkage,
        InverseProbabilityWeighting, OffPolicyEvaluation, SelfNormalizedDoublyRobust,
        SelfNormalizedInverseProbabilityWeighting, SwitchDoublyRobust)
    d = dict(np.load(sys.argv[1]))
    repeat = int(sys.argv[2])
    n = d["reward"].size
    fb = {"n_rounds": n, "n_actions": d["action_dist"].shape[1], "action": d["action"],
          "reward": d["reward"], "pscore": d["pscore"], "position": None,
          "context": np.zeros((n, 1))}
    ests = {"dm": DirectMethod(), "ips": InverseProbabilityWeighting(),
            "snips": SelfNormalizedInverseProbabilityWeighting(), "dr": DoublyRobust(),
            "sndr": SelfNormalizedDoublyRobust(),
            "switch-dr(3)": SwitchDoublyRobust(lambda_=3.0),
            "dr-os(10)": DoublyRobustWithShrinkage(lambda_=10.0)}
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        ope = OffPolicyEvaluation(bandit_feedback=fb, ope_estimators=list(ests.values()))
        got = ope.estimate_policy_values(action_dist=d["action_dist"],
                                         estimated_rewards_by_reg_model=d["q_hat"])
        times.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    import tracemalloc
    tracemalloc.start()
    ope = OffPolicyEvaluation(bandit_feedback=fb, ope_estimators=list(ests.values()))
    ope.estimate_policy_values(action_dist=d["action_dist"],
                               estimated_rewards_by_reg_model=d["q_hat"])
    traced = tracemalloc.get_traced_memory()[1]
    print(json.dumps({"time": min(times), "rss_kb": peak, "rss_before_kb": base,
        "traced": traced,
        "values": {k: float(got[e.estimator_name]) for k, e in ests.items()}}))
    """
)

RANKLENS_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys, tracemalloc, warnings
    import numpy as np
    from ranklens.online.ope import ope_arrays
    d = dict(np.load(sys.argv[1]))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ope_arrays(d["reward"], d["action"], d["pscore"], d["action_dist"],
                       estimated_rewards=d["q_hat"], estimators=json.loads(sys.argv[2]))
    run()  # imports (scipy) outside the traced call
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    run()
    traced = tracemalloc.get_traced_memory()[1]
    print(json.dumps({"rss_kb": peak, "rss_before_kb": base, "traced": traced}))
    """
)


def make_data(n: int, n_actions: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 1, (n, n_actions))
    logger = np.exp(logits)
    logger /= logger.sum(axis=1, keepdims=True)
    cum = logger.cumsum(axis=1)
    action = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), n_actions - 1)
    mu = 1 / (1 + np.exp(-rng.normal(0, 1, (n, n_actions))))
    reward = (rng.random(n) < mu[np.arange(n), action]).astype(np.float64)
    target = np.exp(2 * mu)
    target /= target.sum(axis=1, keepdims=True)
    q_hat = np.clip(mu + rng.normal(0, 0.1, mu.shape), 0, 1)
    return {
        "reward": reward,
        "action": action.astype(np.int64),
        "pscore": logger[np.arange(n), action],
        "action_dist": target[:, :, None],
        "q_hat": q_hat[:, :, None],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=1_000_000)
    ap.add_argument("--actions", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="one repetition")
    ap.add_argument("--obp-python", default="/tmp/ope-side/bin/python")
    ap.add_argument("--no-memory", action="store_true", help="skip ranklens's memory run")
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat

    from ranklens.online.ope import ope_arrays

    t0 = time.perf_counter()
    data = make_data(args.rounds, args.actions, args.seed)
    print(
        f"data: {args.rounds:,} rounds x {args.actions} actions "
        f"(made in {time.perf_counter() - t0:.1f} s)"
    )

    import warnings

    def run() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ope_arrays(
                data["reward"],
                data["action"],
                data["pscore"],
                data["action_dist"],
                estimated_rewards=data["q_hat"],
                estimators=ESTIMATORS,
            )

    run()  # imports (scipy.special for the t quantile) outside the timing, as OBP's are
    ours, result = best(run, repeat)
    mine = {e.estimator: e.estimate for e in result.estimates}  # type: ignore[attr-defined]
    print(f"ranklens ope_arrays, 7 estimators + CIs + ESS: {ours:8.3f} s")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.npz")
        np.savez(path, **data)
        if not args.no_memory:
            out = subprocess.run(
                [sys.executable, "-c", RANKLENS_SCRIPT, path, json.dumps(ESTIMATORS)],
                capture_output=True,
                text=True,
                check=True,
            )
            mem = json.loads(out.stdout)
            print(
                f"ranklens peak RSS {mem['rss_kb'] / 1024:8.0f} MiB; peak of its own "
                f"allocations during the call {mem['traced'] / 2**20:.0f} MiB (tracemalloc)"
            )
        if not os.path.exists(args.obp_python):
            print(f"OBP: {args.obp_python} not found; create the side environment (README).")
            return
        out = subprocess.run(
            [args.obp_python, "-c", OBP_SCRIPT, path, str(repeat)],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            print("OBP failed:\n" + out.stderr[-2000:])
            return
        obp = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"OBP estimate_policy_values, 7 estimators:      {obp['time']:8.3f} s")
    print(
        f"OBP peak RSS {obp['rss_kb'] / 1024:8.0f} MiB; peak of its own allocations during "
        f"the call {obp['traced'] / 2**20:.0f} MiB (tracemalloc)"
    )
    print(f"speed-up (OBP time / ranklens time): {obp['time'] / ours:.1f}x")
    worst = max(abs(mine[k] - v) / max(abs(v), 1e-300) for k, v in obp["values"].items())
    print(f"largest relative difference of the estimates: {worst:.2e}")


if __name__ == "__main__":
    main()
