"""``ranklens gate``: fail a CI job when a candidate run regresses.

Exit codes: 0 every rule passed, 1 a rule failed (a regression), 2 usage error,
3 bad input data (including results that do not compare: other qrels, other
conventions, other inputs of a recommender's metrics, unless ``--allow-different-qrels``
/ ``--allow-different-conventions`` / ``--allow-different-inputs``).
"""

from __future__ import annotations

import functools
from typing import Any

import click

from ranklens.cli._common import progress, warnings_to_stderr, write_output
from ranklens.cli._inputs import read_qrels, read_systems, record_results
from ranklens.cli._options import (
    Request,
    alpha_option,
    correction_option,
    interval_options,
    request_options,
)

__all__ = ["gate_cmd"]


def _gate_formats() -> tuple[str, ...]:
    """The verdict's formats, ``table`` (the human table, as in every command) for the
    library's ``text``."""
    from ranklens.gates import FORMATS

    return tuple("table" if f == "text" else f for f in FORMATS)


def _library_format(fmt: str) -> str:
    from ranklens.gates import FORMATS

    return "text" if fmt == "table" and "table" not in FORMATS else fmt


def _runs_of(params: dict[str, Any]) -> tuple[str, ...]:
    """The runs of a gate: the candidate, and the baseline when given."""
    baseline = params.get("baseline")
    return (params["candidate"],) if baseline is None else (params["candidate"], baseline)


def _rules(
    mins: tuple[str, ...], drops: tuple[str, ...], nis: tuple[str, ...], rules_file: str | None
) -> Any:
    from ranklens.errors import MetricParameterError
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
    "relative (map=2%) (repeatable).",
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
@functools.partial(
    alpha_option, default=None, text="Level of the non-inferiority tests (default 0.05)."
)
@functools.partial(
    correction_option,
    default=None,
    over="the non-inferiority tests (default: the rules file's, else holm)",
)
@functools.partial(interval_options, resamples="Bootstrap resamples (--ci percentile or bca).")
@click.option(
    "--allow-different-qrels", is_flag=True, help="Compare with a baseline computed on other qrels."
)
@click.option(
    "--allow-different-conventions",
    is_flag=True,
    help="Compare with a baseline computed under other conventions.",
)
@click.option(
    "--allow-different-inputs",
    is_flag=True,
    help="Compare with a baseline whose metrics read another training log, catalog, item "
    "features or categories (stored 'ranklens recsys' records).",
)
@request_options(
    formats=_gate_formats(),
    deprecated_formats={"text": "table"},
    metrics=False,
    runs_of=_runs_of,
)
def gate_cmd(
    request: Request,
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
    allow_different_inputs: bool,
) -> None:
    """Check the CANDIDATE run on QRELS against rules and a --baseline.

    Exit code 0 when every rule passes, 1 when one fails (a regression) and only
    then, 2 on a usage error, 3 on bad input data.  For example:

      ranklens gate qrels.txt new.run --baseline old.run --non-inferiority ndcg@10=0.005
    """
    from ranklens.gates import gate

    ruleset = _rules(mins, drops, nis, rules_file)
    with progress(request.output.quiet):
        qrels = read_qrels(request)
        # named as evaluate and compare name runs: the TREC tag, else the file name; a
        # repeated name gets -2 (a candidate and a baseline often share a tag)
        systems = list(read_systems(request, qrels).values())
        with warnings_to_stderr():  # ProvenanceError's advice: cli_advice names the flags
            verdict = gate(
                qrels,
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
                allow_different_inputs=allow_different_inputs,
                **request.convention_kwargs(),
            )
    output = request.output.path
    write_output(verdict.render(_library_format(request.output.fmt)), output)
    if output is not None and output != "-" and not request.output.quiet:
        click.echo(verdict.headline, err=True)
    record_results(request, "gate", [verdict.results["candidate"]], verdict=verdict)
    click.get_current_context().exit(verdict.exit_code)
