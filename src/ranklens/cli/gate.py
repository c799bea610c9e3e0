"""``ranklens gate``: fail a CI job when a candidate run regresses.

Exit codes: 0 every rule passed, 1 a rule failed (a regression), 2 usage error,
3 bad input data (including results that do not compare: other qrels, other
conventions, unless ``--allow-different-qrels`` / ``--allow-different-conventions``).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import click

from ranklens.cli._common import (
    check_output,
    correction_option,
    run_names,
    warnings_to_stderr,
    write_output,
)
from ranklens.cli.evaluate import _conventions, _conventions_options, _read_inputs, file_options
from ranklens.cli.history import read_systems, record_results, store_options, take_store
from ranklens.errors import MetricParameterError
from ranklens.ranking.evaluation import Result

__all__ = ["gate_cmd"]


def _rules(
    mins: tuple[str, ...], drops: tuple[str, ...], nis: tuple[str, ...], rules_file: str | None
) -> Any:
    from ranklens.gates import KINDS, Rule, RuleSet, read_rules

    given = []
    for (kind, option), texts in zip(KINDS.items(), (mins, drops, nis), strict=True):
        for text in texts:
            try:
                given.append(Rule.parse(kind, text))
            except MetricParameterError as exc:
                raise click.BadParameter(str(exc), param_hint=option) from None
    found = read_rules(rules_file) if rules_file is not None else RuleSet(())
    rules = (*found.rules, *given)
    if not rules:
        raise click.UsageError(
            "no rule given: add --min, --max-drop, --non-inferiority "
            "(e.g. --max-drop ndcg@10=0.01) or --rules FILE."
        )
    return RuleSet(rules, found.alpha, found.correction)


@click.command("gate")
@click.argument("qrels", type=click.Path(dir_okay=True))
@click.argument("candidate", type=click.Path(dir_okay=True))
@click.option(
    "--baseline",
    default=None,
    metavar="RUN|STORE#ID",
    help="The run to compare with: a run file, or a stored record PATH#ID "
    "(see 'ranklens history').",
)
@click.option(
    "--min",
    "mins",
    multiple=True,
    metavar="METRIC=VALUE",
    help="Floor: the candidate's METRIC must be at least VALUE (repeatable).",
)
@click.option(
    "--max-drop",
    "drops",
    multiple=True,
    metavar="METRIC=VALUE",
    help="Largest drop allowed from the baseline: absolute (ndcg@10=0.01) or "
    "relative (map=2%%) (repeatable).",
)
@click.option(
    "--non-inferiority",
    "nis",
    multiple=True,
    metavar="METRIC=MARGIN",
    help="The candidate must be shown not worse than the baseline by MARGIN or "
    "more: a one-sided paired t-test, corrected across metrics (repeatable).",
)
@click.option(
    "--rules",
    "rules_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="A TOML file of rules: [min], [max_drop], [non_inferiority] tables of "
    "metric = value, and [settings] alpha, correction.",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="Level of the non-inferiority tests (default 0.05).",
)
@functools.partial(
    correction_option,
    default=None,
    over="the non-inferiority tests (default: the rules file's, else holm)",
)
@click.option(
    "--ci",
    type=click.Choice(("t", "percentile", "bca")),
    default="t",
    show_default=True,
    help="Confidence interval of the differences.",
)
@click.option(
    "--n-resamples",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Bootstrap resamples (--ci percentile or bca).",
)
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Random seed (bootstrap).")
@click.option(
    "--allow-different-qrels", is_flag=True, help="Compare with a baseline computed on other qrels."
)
@click.option(
    "--allow-different-conventions",
    is_flag=True,
    help="Compare with a baseline computed under other conventions.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", "junit", "markdown")),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file instead of standard output.",
)
@_conventions_options
@file_options
@store_options
def gate_cmd(
    qrels: str,
    candidate: str,
    baseline: str | None,
    mins: tuple[str, ...],
    drops: tuple[str, ...],
    nis: tuple[str, ...],
    rules_file: str | None,
    alpha: float | None,
    correction: str | None,
    ci: str,
    n_resamples: int,
    seed: int | None,
    allow_different_qrels: bool,
    allow_different_conventions: bool,
    fmt: str,
    output: str | None,
    profile: str | None,
    ties: str | None,
    missing: str | None,
    complete: bool,
    no_relevant: str | None,
    unjudged: str | None,
    rel_threshold: float | None,
    depth: int | None,
    iprec_rounding: str | None,
    **cols: Any,
) -> None:
    """Check the CANDIDATE run on QRELS against rules and a --baseline.

    Exit code 0 when every rule passes, 1 when one fails (a regression), 2 on
    a usage error, 3 on bad input data.  For example:

      ranklens gate qrels.txt new.run --baseline old.run --non-inferiority ndcg@10=0.005
    """
    from ranklens.gates import gate

    store, tags = take_store(cols)
    ruleset = _rules(mins, drops, nis, rules_file)
    conv = _conventions(
        profile,
        ties,
        missing,
        complete,
        no_relevant,
        unjudged,
        rel_threshold,
        depth,
        iprec_rounding,
        cols,
    )
    check_output(output)
    paths = [candidate] if baseline is None else [candidate, baseline]
    qrels_t, systems = read_systems(qrels, paths, cols, _read_inputs)
    # named as evaluate and compare name runs: the TREC tag, else the file name; a
    # repeated name gets -2 (a candidate and a baseline often share a tag)
    for i, name in enumerate(run_names(paths, systems)):
        if isinstance(systems[i], Result):
            systems[i] = dataclasses.replace(systems[i], run_name=name)
        else:
            systems[i].name = name  # a Run this command read
    with warnings_to_stderr():  # ProvenanceError's advice: cli_advice names the flags
        verdict = gate(
            qrels_t,
            systems[0],
            None if baseline is None else systems[1],
            ruleset,
            alpha=alpha,
            correction=correction,
            ci=ci,
            n_resamples=n_resamples,
            seed=seed,
            allow_different_qrels=allow_different_qrels,
            allow_different_conventions=allow_different_conventions,
            **conv,
        )
    write_output(verdict.render(fmt), output)
    if output is not None and output != "-":
        click.echo(verdict.headline, err=True)
    record_results(store, tags, "gate", [verdict.results["candidate"]])
    click.get_current_context().exit(verdict.exit_code)
