"""Render an A/B test's analysis (:class:`~ranklens.online.ExperimentAnalysis`) and an
off-policy evaluation (:class:`~ranklens.online.OffPolicyEvaluation`) as text.

Formats (:data:`FORMATS`):

``table``, ``markdown``, ``latex``
    the units per variant and the sample-ratio check, then one row per metric
    and treatment variant: its size, the control's and the variant's values, the
    difference and the relative difference with their intervals, the p-value
    (raw and adjusted), with sequential monitoring the always-valid p-value and
    the confidence sequence, the verdict (green for an increase, red for a
    decrease on a terminal) and the test; the analysis' notes after it.  Values
    keep four significant digits (:func:`ranklens.render.table.significant`).
``csv``
    :meth:`ExperimentAnalysis.to_arrow`: one row per comparison, full precision.
``json``
    :meth:`ExperimentAnalysis.to_dict`.

An off-policy evaluation (:func:`render_ope`) in the same formats: one row per
estimator (estimate, standard error, interval, effective sample size), the rounds,
the interval method and the weights' diagnostics before the table and the warnings
after it; ``csv`` is :meth:`OffPolicyEvaluation.to_arrow`, ``json`` its ``to_dict``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ranklens.render.table import LAYOUTS, Cell, Table, p_value, percent, render_as, significant

if TYPE_CHECKING:  # the renderer does not import the result class at runtime
    from ranklens.online.ope import OffPolicyEvaluation
    from ranklens.online.results import ExperimentAnalysis, MetricComparison

__all__ = ["FORMATS", "analysis_table", "ope_table", "render", "render_ope"]

FORMATS: tuple[str, ...] = (*LAYOUTS, "csv", "json")
_VERDICT_STYLE = {"increase": "green", "decrease": "red"}


def _row(c: MetricComparison, sequential: bool) -> list[Cell | str]:
    cells: list[Cell | str] = [
        c.metric,
        c.variant,
        f"{c.n}",
        significant(c.control_estimate),
        significant(c.estimate),
        f"{significant(c.diff)} [{significant(c.ci_lower)}, {significant(c.ci_upper)}]",
        f"{percent(c.rel_diff)} [{percent(c.rel_ci_lower)}, {percent(c.rel_ci_upper)}]",
        p_value(c.p_value),
        p_value(c.p_adjusted),
    ]
    if sequential:
        cells += [
            p_value(c.seq_p_adjusted),
            f"[{significant(c.cs_lower)}, {significant(c.cs_upper)}]",
        ]
    verdict = c.verdict + (f" ({c.note})" if c.note else "")
    return [*cells, Cell(verdict, _VERDICT_STYLE.get(c.verdict, "")), c.test]


def analysis_table(result: ExperimentAnalysis) -> Table:
    """One row per (metric, treatment variant); the units and the sample-ratio check
    before the table, the settings and the analysis' notes after it."""
    sequential = result.sequential is not None
    header = [
        "metric",
        "variant",
        "n",
        "control",
        "variant value",
        "diff [CI]",
        "rel. diff [CI]",
        "p",
        "p adj.",
    ]
    if sequential:
        header += ["seq. p adj.", "conf. sequence"]
    header += ["verdict", "test"]
    srm = result.srm
    units = ", ".join(f"{v}: {n}" for v, n in result.report.units_per_variant.items())
    check = (
        f"Units: {units}.  SRM check: chi2 = {significant(srm.statistic)}, "
        f"p = {p_value(srm.p_value)}" + (" MISMATCH" if srm.mismatch else " (ok)")
    )
    settings = (
        f"control = {result.control}, alpha = {result.alpha:g}, correction = "
        f"{result.correction}" + (", sequential (mSPRT)" if sequential else "")
    )
    return Table(
        header,
        [_row(c, sequential) for c in result.comparisons],
        n_labels=2,
        preamble=[Cell(check, "bold red" if srm.mismatch else ""), settings],
        notes=[f"note: {note}" for note in result.report.notes],
    )


def render(result: ExperimentAnalysis, fmt: str = "table", color: bool | None = None) -> str:
    """Render in one of :data:`FORMATS`; the text ends with a newline."""
    return render_as(
        fmt,
        layout=lambda: analysis_table(result),
        records=result.to_arrow,
        document=result.to_dict,
        color=color,
    )


def ope_table(result: OffPolicyEvaluation) -> Table:
    """One row per estimator; the rounds, the interval and the weights before the
    table, the warnings after it."""
    level = f"{1 - result.alpha:.0%}"
    method = {"t": "t (own variance)", "percentile": "bootstrap percentile", "bca": "BCa"}
    header = ["estimator", "estimate", "std. error", f"{level} CI", "ESS"]
    rows: list[list[Cell | str]] = [
        [
            e.estimator,
            significant(e.estimate),
            significant(e.std_error),
            f"[{significant(e.ci_lower)}, {significant(e.ci_upper)}]",
            f"{e.ess:.1f}",
        ]
        for e in result.estimates
    ]
    unit = "slates" if result.kind == "slate" else "rounds"
    about = (
        f"{result.n} {unit}; interval: {method.get(result.ci, result.ci)}; importance "
        f"weights: ESS {result.ess:.1f}, largest {significant(result.max_weight)}"
    )
    if result.support_deficit is not None:
        about += f"; target mass off the logger's support {significant(result.support_deficit)}"
    return Table(
        header,
        rows,
        n_labels=1,
        preamble=[about],
        notes=[f"warning: {w}" for w in result.warnings],
    )


def render_ope(result: OffPolicyEvaluation, fmt: str = "table", color: bool | None = None) -> str:
    """Render an off-policy evaluation in one of :data:`FORMATS`; the text ends with a
    newline."""
    return render_as(
        fmt,
        layout=lambda: ope_table(result),
        records=result.to_arrow,
        document=result.to_dict,
        color=color,
    )
