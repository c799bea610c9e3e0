"""``ranklens fuse RUN RUN... -m METHOD -o OUT``: fuse runs into one run file
(:func:`ranklens.fusion.fuse`), or choose the method's settings on training qrels
first (``--optimize``, :func:`ranklens.fusion.optimize_fusion`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from ranklens.cli._common import stage, warnings_to_stderr
from ranklens.cli._options import (
    Output,
    Request,
    input_options,
    output_option,
    quiet_option,
    take_inputs,
)

__all__ = ["fuse_cmd"]


def _methods() -> list[str]:
    from ranklens.fusion import METHODS

    return list(METHODS)


def _norms() -> list[str]:
    from ranklens.fusion import NORMS

    return list(NORMS)


def _choices(name: str) -> tuple[str, ...]:
    from ranklens import fusion

    return tuple(getattr(fusion, name))


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text and "e" not in text else value


def _params(texts: Sequence[str], weights: str | None) -> dict[str, Any]:
    """``--param NAME=VALUE`` (a value with commas is a list: one per run) and
    ``--weights W,W,...`` as the library's ``params``."""
    out: dict[str, Any] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        name = name.strip()
        if not sep or not name or not value.strip():
            raise click.UsageError(
                f"--param {text}: give NAME=VALUE, e.g. --param k=60 or --param "
                "weights=0.5,0.3,0.2."
            )
        try:
            parts = [_number(v.strip()) for v in value.split(",")]
        except ValueError:
            raise click.UsageError(
                f"--param {text}: {value!r} is not a number (or numbers separated by commas)."
            ) from None
        out[name] = parts if "," in value or name == "weights" else parts[0]
    if weights is not None:
        if "weights" in out:
            raise click.UsageError(
                "--weights and --param weights=... both give the weights; give one."
            )
        try:
            out["weights"] = [float(w) for w in weights.split(",")]
        except ValueError:
            raise click.UsageError(
                f"--weights {weights}: give one number per run, separated by commas "
                "(e.g. --weights 0.6,0.4)."
            ) from None
    return out


@click.command("fuse")
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=True))
@click.option(
    "-m",
    "--method",
    required=True,
    metavar="METHOD",
    help="The fusion method: " + ", ".join(_methods()) + ".",
)
@click.option(
    "--norm",
    type=click.Choice(_norms()),
    default="min-max",
    show_default=True,
    help="The normalisation of each ranking's scores before fusion.",
)
@click.option(
    "--param",
    "param_texts",
    multiple=True,
    metavar="NAME=VALUE",
    help="A setting of the method (repeatable): k=60 (rrf), gamma=0.5 (gmnz), sigma=0.01 "
    "(logn_isr), phi=0.8 (rbc), w=2 (slidefuse), n_segments=10 (probfuse), "
    "weights=0.5,0.5 (one per run).",
)
@click.option("--weights", default=None, metavar="W,W,...", help="One weight per run, in order.")
@click.option(
    "--qrels",
    default=None,
    type=click.Path(dir_okay=True),
    help="Training judgments: what bayesfuse, posfuse, probfuse, segfuse, slidefuse and "
    "mapfuse learn from, and what --optimize scores on.",
)
@click.option(
    "--optimize",
    is_flag=True,
    help="Choose the method's settings (weights, k, ...) that score best on --qrels.",
)
@click.option(
    "--metric",
    default="ndcg@10",
    show_default=True,
    help="With --optimize: the metric to maximise ('ranklens metrics' lists them).",
)
@click.option(
    "--search",
    type=click.Choice(_choices("SEARCHES")),
    default="grid",
    show_default=True,
    help="With --optimize: try every setting of ranx's grid, or --n-trials of them.",
)
@click.option("--n-trials", type=int, default=None, help="With --search random: how many.")
@click.option("--seed", type=int, default=None, help="With --search random: the random seed.")
@click.option(
    "--step", type=float, default=None, help="With --optimize: the grid step (weights 0.1)."
)
@click.option(
    "--profile",
    default="ranx",
    show_default=True,
    help="With --optimize: the conventions the metric is computed under.",
)
@click.option(
    "--ties",
    type=click.Choice(_choices("TIES")),
    default="input",
    show_default=True,
    help="Tied scores in a ranking and in the fused run: in input order (ranx) or by "
    "document id descending (trec).",
)
@click.option(
    "--missing",
    type=click.Choice(_choices("MISSING")),
    default="ignore",
    show_default=True,
    help="min / max / med: over the runs that return a document (ranx), or 0 for the others.",
)
@click.option("--depth", type=int, default=None, help="Keep the best N documents of each query.")
@click.option("--name", default=None, help="The fused run's tag (default: the method's name).")
@input_options
@quiet_option
@output_option
def fuse_cmd(
    runs: tuple[str, ...],
    method: str,
    norm: str,
    param_texts: tuple[str, ...],
    weights: str | None,
    qrels: str | None,
    optimize: bool,
    metric: str,
    search: str,
    n_trials: int | None,
    seed: int | None,
    step: float | None,
    profile: str,
    ties: str,
    missing: str,
    depth: int | None,
    name: str | None,
    quiet: bool,
    output: str | None,
    **given: Any,
) -> None:
    """Fuse two or more RUNS into one run written to -o FILE (TREC unless its suffix
    says csv, tsv, parquet, jsonl or json).

    With --optimize, the method's settings are chosen on --qrels first (ranx's
    grids: weights in steps of 0.1, k 10-100, ...) and the best are said on standard
    error.  Numbers equal ranx's fuse and optimize_fusion.
    """
    from ranklens.cli._common import check_output
    from ranklens.cli._inputs import read_qrels, read_systems

    if method not in _methods():
        raise click.UsageError(
            f"-m {method}: not a fusion method; use one of {', '.join(_methods())}."
        )
    if output is None:
        raise click.UsageError("give -o FILE: the file to write the fused run to.")
    check_output(output)
    params = _params(param_texts, weights)
    if optimize and qrels is None:
        raise click.UsageError("--optimize chooses settings on judgments: give --qrels FILE.")
    _check_settings(runs, method, params, qrels, optimize)
    request = Request(take_inputs(runs, given, qrels), output=Output("", output, quiet))
    with warnings_to_stderr():
        judged = read_qrels(request) if qrels is not None else None
        systems = list(read_systems(request, None, stored=False).values())
        with stage("fusing"):
            fused = _fused(
                systems, judged, method, norm, params, optimize, metric, search, n_trials,
                seed, step, profile, ties, missing, depth, name, quiet,
            )  # fmt: skip
        from ranklens import io

        io.write_run(fused, output)
    if not quiet:
        click.echo(
            f"ranklens: wrote {output}: {method} of {len(systems)} runs, "
            f"{fused.num_queries} queries, {len(fused)} documents",
            err=True,
        )


def _check_settings(
    runs: Sequence[str], method: str, params: dict[str, Any], qrels: str | None, optimize: bool
) -> None:
    """What the method needs and the command line lacks, said in its options."""
    from ranklens.fusion import METHODS

    if len(runs) < 2:
        raise click.UsageError(f"fusion needs two or more RUNS, got {len(runs)}.")
    spec = METHODS[method]
    if spec.trained and qrels is None and not all(t in params for t in spec.trained):
        raise click.UsageError(
            f"-m {method} learns from judgments: give --qrels FILE (training qrels)."
        )
    needed = [
        p
        for p in spec.params
        if p not in spec.trained and p not in spec.training and p not in spec.defaults
    ]
    if not all(t in params for t in spec.trained):
        needed += list(spec.training)  # probfuse trains with n_segments
    if optimize:
        return
    for p in needed:
        if p not in params:
            how = "--weights W,W,..." if p == "weights" else f"--param {p}=VALUE"
            raise click.UsageError(
                f"-m {method} needs {how}, or --optimize --qrels FILE to choose it."
            )


def _fused(
    systems: list[Any],
    judged: Any,
    method: str,
    norm: str,
    params: dict[str, Any],
    optimize: bool,
    metric: str,
    search: str,
    n_trials: int | None,
    seed: int | None,
    step: float | None,
    profile: str,
    ties: str,
    missing: str,
    depth: int | None,
    name: str | None,
    quiet: bool,
) -> Any:
    from ranklens.fusion import fuse, optimize_fusion

    if not optimize:
        return fuse(
            systems, method, norm, params, qrels=judged, ties=ties, missing=missing,
            depth=depth, name=name,
        )  # fmt: skip
    found = optimize_fusion(
        judged, systems, method, metric, norm, search=search, n_trials=n_trials, seed=seed,
        step=step, params=params, profile=profile, ties=ties, missing=missing, name=name,
    )  # fmt: skip
    if not quiet:
        chosen = ", ".join(
            f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
            for k, v in found.best_params.items()
            if k not in ("probs", "log_odds", "map_scores")
        )
        click.echo(
            f"ranklens: best of {len(found.trials)} settings: "
            f"{chosen or 'trained parameters'} ({found.metric} {found.best_score:.4f})",
            err=True,
        )
    if depth is None:
        return found.run
    best = {k: v for k, v in found.best_params.items()} | params
    return fuse(
        systems, method, norm, best, qrels=judged, ties=ties, missing=missing, depth=depth,
        name=name,
    )  # fmt: skip
