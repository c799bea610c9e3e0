"""``ranklens ope``: the value of a new policy from the log of an old one.

``ranklens ope LOG POLICY -e ips -e dr`` reads the LOG (one row per round: round id
or context, action, reward, logging propensity, optionally position) and the target
POLICY in long form (one row per round or context, action[, position] with its
probability, and the reward model's prediction for the model-based estimators), and
prints each estimator's estimate with its interval and effective sample size
(:func:`ranklens.online.ope_tables`; ``--format`` table, markdown, latex, csv or json,
:mod:`ranklens.render.online`).  With ``--slate-col`` the LOG has one row per shown
(slate, position) and the POLICY the target's probabilities of the same rows
(:func:`ranklens.online.slate_ope_tables`; columns ``pscore``,
``pscore_item_position``, ``pscore_cascade`` as Open Bandit Pipeline names them).
Tables are CSV/TSV (optionally compressed), Parquet or JSON Lines, read by the
commands' one reader.  Errors are one sentence on stderr naming
the file and its 1-based line: exit code 3 for bad input data, 2 for bad usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from ranklens.cli._common import (
    check_output,
    lines_named,
    parse_each,
    progress,
    read_input_table,
    stage,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli._options import (
    alpha_option,
    budget_option,
    check_budget,
    format_option,
    interval_options,
    output_option,
    quiet_option,
)
from ranklens.render.online import FORMATS

__all__ = ["ope_cmd"]


def _estimators(specs: Sequence[str]) -> list[Any]:
    from ranklens.online.ope import parse_estimator

    return parse_each(specs, parse_estimator, "--estimator")


@click.command("ope")
@click.argument("log", metavar="LOG")
@click.argument("policy", metavar="POLICY")
@click.option(
    "--estimator",
    "-e",
    "estimator_specs",
    multiple=True,
    metavar="NAME[(PARAM)]",
    help="Estimator, repeatable (default: ips, snips): dm, ips, snips, clipped-ips(L), dr, "
    "sndr, switch-dr(T), dr-os(L); dm and the dr family need --prediction-col.  With "
    "--slate-col (default: slate-ips, slate-iips, slate-rips): slate-ips, slate-iips, "
    "slate-rips, slate-snips, slate-sniips, slate-snrips.",
)
@click.option(
    "--slate-col",
    default=None,
    help="Slates: the slate id column of LOG and POLICY (one row per shown position, "
    "probability columns pscore, pscore_item_position, pscore_cascade).",
)
@click.option(
    "--round-col",
    default="round",
    show_default=True,
    help="Round id column of LOG and POLICY (the policy's distribution per round).",
)
@click.option(
    "--context-col",
    default=None,
    help="Instead of rounds: the context (user) column of LOG and POLICY; every round of a "
    "context has that context's distribution.",
)
@click.option("--action-col", default="action", show_default=True, help="Action (item) column.")
@click.option("--reward-col", default="reward", show_default=True, help="Reward column of LOG.")
@click.option(
    "--propensity-col",
    default="propensity",
    show_default=True,
    help="Logging propensity column of LOG (the logger's probability of the action).",
)
@click.option(
    "--position-col",
    default=None,
    help="Position column of LOG and POLICY (slots of a list) [default with --slate-col: "
    "position].",
)
@click.option(
    "--probability-col",
    default="probability",
    show_default=True,
    help="Target probability column of POLICY.",
)
@click.option(
    "--prediction-col",
    default=None,
    help="Reward model column of POLICY [default: prediction, when present].",
)
@click.option(
    "--max-weight",
    type=click.FloatRange(0, min_open=True),
    default=1000.0,
    show_default=True,
    help="Warn about rounds whose importance weight exceeds this (tiny propensities).",
)
@alpha_option
@interval_options
@format_option(FORMATS)
@output_option
@quiet_option
@budget_option
def ope_cmd(
    log: str,
    policy: str,
    estimator_specs: tuple[str, ...],
    slate_col: str | None,
    round_col: str,
    context_col: str | None,
    action_col: str,
    reward_col: str,
    propensity_col: str,
    position_col: str | None,
    probability_col: str,
    prediction_col: str | None,
    max_weight: float,
    alpha: float,
    ci: str,
    n_resamples: int,
    seed: int | None,
    fmt: str,
    output: str | None,
    quiet: bool,
    memory: str | None,
) -> None:
    """Estimate the value of the target POLICY from the LOG of a logging policy
    (off-policy evaluation: IPS, doubly robust and the others)."""
    from ranklens.online.ope import ope_tables, slate_ope_tables

    slates = slate_col is not None
    default = ("slate-ips", "slate-iips", "slate-rips") if slates else ("ips", "snips")
    estimators = _estimators(estimator_specs or default)
    check_output(output)
    check_budget([log, policy], memory)
    if slates:
        if context_col is not None:
            raise click.UsageError(
                "--context-col goes with rounds; slates are keyed by --slate-col."
            )
        position_col = position_col or "position"
    key = slate_col or context_col or round_col
    key_option = "--slate-col" if slates else "--context-col" if context_col else "--round-col"
    text: list[tuple[Any, str]] = [(key, key_option)]
    if not slates:
        text.append((action_col, "--action-col"))
    if position_col is not None:
        text.append((position_col, "--position-col"))
    with progress(quiet), warnings_to_stderr(loud=lambda m: m.startswith("support")):
        with stage(f"reading {log}"):
            log_table = read_input_table(log, "log", text=text)
        with stage(f"reading {policy}"):
            policy_table = read_input_table(policy, "policy", text=text)
        stats: dict[str, Any] = dict(
            alpha=alpha, ci=ci, n_resamples=n_resamples, seed=seed, max_weight=max_weight
        )
        with lines_named({"log": log_table, "policy": policy_table}), stage("estimating"):
            if slates:
                assert slate_col is not None and position_col is not None
                result = slate_ope_tables(
                    log_table.table,
                    policy_table.table,
                    estimators=estimators,
                    slate=slate_col,
                    position=position_col,
                    reward=reward_col,
                    **stats,
                )
            else:
                result = ope_tables(
                    log_table.table,
                    policy_table.table,
                    estimators=estimators,
                    round=None if context_col is not None else round_col,
                    context=context_col,
                    action=action_col,
                    reward=reward_col,
                    propensity=propensity_col,
                    position=position_col,
                    probability=probability_col,
                    prediction=prediction_col,
                    **stats,
                )
    write_output(result.render(fmt), output)
