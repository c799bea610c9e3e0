"""The ``ranklens`` command line.

Sub-commands live in modules of this package and are mounted on :data:`main`; a
command's module is imported only when that command runs (``ranklens --help``
lists them from :data:`_COMMANDS` without importing any).  Command modules import
the shared layer (``ranklens.cli._*``: options, the typed request, reading and
writing) and the library's public API, never each other.

Errors are one line on stderr, never a traceback (``--debug`` shows it); the exit
codes are those of :func:`ranklens.cli._common.exit_code`: 0 success, 1 a
regression (``gate``) and nothing else, 2 usage error, 3 bad input data, 4
internal error, 130 interrupted.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_early(signum: int, frame: object) -> None:  # pragma: no cover - timing
    """Ctrl-C while the command line is still being imported: one line, exit 130."""
    os.write(2, b"ranklens: interrupted\n")
    os._exit(130)


if os.path.basename(sys.argv[0] if sys.argv else "") == "ranklens":  # the console script
    signal.signal(signal.SIGINT, _interrupted_early)

import click  # noqa: E402

from ranklens.cli._common import EXIT_BAD_INPUT, GuardedGroup  # noqa: E402

__all__ = ["EXIT_BAD_INPUT", "main"]


class _Group(GuardedGroup):
    """The ``ranklens`` group: sub-commands imported on first use (its ``main``, where
    an error becomes one line on stderr and an exit code, is :class:`GuardedGroup`'s)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its module imported on first use (see :data:`_COMMANDS`)."""
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in _COMMANDS:
            import importlib

            module, attribute, _ = _COMMANDS[cmd_name]
            found = getattr(importlib.import_module(module), attribute)
            self.add_command(found, cmd_name)
        return found

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands with their one-line summaries, without importing them."""
        rows = [(name, _COMMANDS[name][2]) for name in sorted(_COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(name="ranklens", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show the full traceback of an error.")
@click.version_option(package_name="ranklens", prog_name="ranklens")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """ranklens: exact, fast evaluation of ranking and other ML systems."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


# sub-commands: name -> (module, attribute, summary).  A command's module is imported
# when the command runs, so `ranklens evaluate` loads neither the statistics of compare
# nor the store of history, and `ranklens --help` none of them.
_COMMANDS = {
    "evaluate": (
        "ranklens.cli.evaluate",
        "evaluate_cmd",
        "Evaluate one or more RUNS against QRELS.",
    ),
    "metrics": (
        "ranklens.cli.metrics",
        "metrics_cmd",
        "List every metric of every family, or show the full definition of NAME.",
    ),
    "recsys": (
        "ranklens.cli.recsys",
        "recsys_cmd",
        "Evaluate RECOMMENDATIONS against HELD_OUT interactions: ranking and beyond-accuracy "
        "metrics, per segment.",
    ),
    "split": (
        "ranklens.cli.split",
        "split_group",
        "Split an interaction log into train and test files (every splitter of ranklens.recsys).",
    ),
    "example": (
        "ranklens.cli.example",
        "example_cmd",
        "Evaluate the example run shipped with ranklens (checks an installation).",
    ),
    "compare": (
        "ranklens.cli.compare",
        "compare_cmd",
        "Compare two or more RUNS on QRELS: means, confidence intervals, paired tests.",
    ),
    "plot": ("ranklens.cli.compare", "plot_cmd", "Draw a chart of RUNS on QRELS into -o FILE."),
    "report": (
        "ranklens.cli.report",
        "report_cmd",
        "Write an HTML report of RUNS on QRELS to -o FILE.",
    ),
    "score": (
        "ranklens.cli.score",
        "score_cmd",
        "Classification, regression, clustering or entity-resolution metrics of a table.",
    ),
    "detect": ("ranklens.cli.detect", "detect_cmd", "COCO mAP and the other COCO numbers."),
    "ab": ("ranklens.cli.ab", "ab", "A/B tests: assign units to variants and analyse them."),
    "interleave": (
        "ranklens.cli.interleave",
        "interleave_group",
        "Interleaving: lists to show from RUNS, and the analysis of the clicks on them.",
    ),
    "ope": (
        "ranklens.cli.ope",
        "ope_cmd",
        "Off-policy evaluation: the value of a POLICY from the LOG of another (IPS, DR, ...).",
    ),
    "gate": (
        "ranklens.cli.gate",
        "gate_cmd",
        "Check a CANDIDATE run against rules and a baseline (exit 1: a regression).",
    ),
    "fuse": (
        "ranklens.cli.fuse",
        "fuse_cmd",
        "Fuse two or more RUNS into one run file (RRF, CombSUM, BordaFuse, ...; --optimize).",
    ),
    "history": (
        "ranklens.cli.history",
        "history_cmd",
        "List the records of a results store, or show one.",
    ),
    # labels from several sources (issue 26, part 2)
    "agree": (
        "ranklens.cli.judge",
        "agree_cmd",
        "Agreement of two or more QRELS: kappa, Krippendorff's alpha, confusion table.",
    ),
    "ppi": (
        "ranklens.cli.judge",
        "ppi_cmd",
        "Prediction-powered mean of a per-query metric: few human labels, many cheap ones.",
    ),
    "overlap": (
        "ranklens.cli.overlap",
        "overlap_cmd",
        "Compare RUN_A's and RUN_B's rankings: rank-biased overlap, Jaccard@k, Kendall's tau.",
    ),
    # building the ground truth (issue 26): what to label
    "pool": ("ranklens.cli.judging", "pool_cmd", "Pool RUNS into a file of documents to label."),
    "sample": (
        "ranklens.cli.judging",
        "sample_cmd",
        "Sample the pool of RUNS to label, with inclusion probabilities.",
    ),
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
