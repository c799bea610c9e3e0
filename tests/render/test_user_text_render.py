"""What a user reads in tables, reports and charts: differences and p-values beside the
letters, letters that do not shift the values, no 'seed None', no Python None/False/{}
in the conventions, axes within a metric's range, the user's metric spelling, bidi
controls shown, correction wording for one test."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

import ranklens
from ranklens._shared.corrections import correction_phrase
from ranklens.render import svg
from ranklens.render.comparison import comparison_table
from ranklens.render.html import convention_text, html_report
from ranklens.render.html_charts import trend_section
from ranklens.render.table import Cell, Table, to_text

pytest.importorskip("scipy")

QRELS = ranklens.Qrels.from_dict({f"q{i}": {"a": 1, "b": 0} for i in range(4)})
# base: a first on q0, q1 -> p@1 = (1 + 1 + 0 + 0) / 4 = 0.5; cand: a first everywhere = 1
BASE = ranklens.Run.from_dict(
    {f"q{i}": {"a": 2.0, "b": 1.0} if i < 2 else {"a": 1.0, "b": 2.0} for i in range(4)},
    name="base",
)
CAND = ranklens.Run.from_dict({f"q{i}": {"a": 2.0, "b": 1.0} for i in range(4)}, name="cand")


def test_compare_table_shows_differences_and_p_values() -> None:
    cmp = ranklens.compare(QRELS, {"base": BASE, "cand": CAND}, ["p@1"], baseline="base", seed=3)
    table = comparison_table(cmp)
    assert table.header == ["system", "p@1", "p@1 diff", "p@1 p", "p@1 W/T/L"]
    cand_row = [c if isinstance(c, str) else c.text for c in table.rows[1]]
    pair = cmp.pair("cand", "base", "p@1")
    assert cand_row[2] == "+0.5000"  # 1 - 0.5
    assert cand_row[3] == ranklens.render.table.p_value(pair.p_adjusted)
    assert cand_row[4] == "2/2/0"
    assert table.rows[0][2:] == ["", "", "baseline"]
    assert "one test, so no correction" in table.notes[0] and "seed 3" in table.notes[0]
    assert table.notes[1].startswith("diff: mean difference from the baseline (a) base")


def test_letters_do_not_shift_the_values() -> None:
    table = Table(
        ["system", "m"],
        [
            ["x", Cell("0.5000", sup="bc", small="[0.1000, 0.9000]")],
            ["y", Cell("1.0000", small="[-1.0000, 3.0000]")],
        ],
    )
    x, y = to_text(table, color=False).splitlines()[2:4]
    assert x.index("0.5000") == y.index("1.0000")  # the means line up
    assert x.index("]") == y.index("]")  # and so do the intervals
    assert x.endswith("] bc") or x.endswith("]   bc")


def test_no_seed_is_said_in_words() -> None:
    cmp = ranklens.compare(QRELS, {"base": BASE, "cand": CAND}, ["p@1"], baseline="base")
    assert "seed None" not in cmp.description
    assert "no fixed seed" in cmp.description


def test_correction_wording() -> None:
    assert correction_phrase("holm", 1) == "one test, so no correction"
    assert correction_phrase("holm", 2) == "Holm correction over 2 tests"
    assert correction_phrase("none", 3) == "no correction over 3 tests"
    assert correction_phrase("bh", 0) == "no test"


def test_report_conventions_are_option_values_not_python() -> None:
    page = html_report(QRELS, {"base": BASE, "cand": CAND}, ["p@1"], seed=1, n_resamples=100)
    conventions = page.split("<h3>Conventions</h3>", 1)[1].split("<h3>", 1)[0]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", conventions)
    assert not {"None", "False", "True", "{}"} & set(cells)
    assert {"none", "no"} <= set(cells)
    assert "seed None" not in page
    assert convention_text({"ndcg": {"ideal": "retrieved"}}) == "ndcg: ideal=retrieved"


def _y_ticks(chart: str) -> list[float]:
    return [float(v) for v in re.findall(r'text-anchor="end">(-?[0-9.]+)</text>', chart)]


def test_history_chart_of_a_unit_metric_stays_in_its_range() -> None:
    t0 = datetime(2026, 10, 1, tzinfo=UTC)
    points = [(t0 + timedelta(days=i), "bm25", 0.1, i) for i in range(3)]  # constant 0.1
    chart = trend_section({"ndcg@10": points})
    ticks = _y_ticks(chart)
    assert ticks and min(ticks) >= 0.0 and max(ticks) <= 1.0
    free = trend_section({"dcg@10": points})  # unbounded above: rounded out as before
    assert max(_y_ticks(free)) > 0.1


def test_svg_bounds_cut_the_rounded_axis() -> None:
    chart = svg.line_chart(
        [svg.Series("r", [1, 2], [0.1, 0.1])], title="t", x_label="x", y_label="y", y_bounds=(0, 1)
    )
    ticks = _y_ticks(chart)
    assert min(ticks) == 0.0 and -0.4 not in ticks


def test_cutoff_chart_keeps_the_users_spelling() -> None:
    page = html_report(QRELS, {"base": BASE, "cand": CAND}, ["map@3"], seed=1, n_resamples=100)
    cutoffs = page.split('<section id="cutoffs">', 1)[1].split("</section>", 1)[0]
    assert ">map@k<" in cutoffs and "ap@k" not in cutoffs.replace("map@k", "")


def test_bidi_controls_are_shown_in_the_terminal_table_and_the_report() -> None:
    name = "model\u202egpj.exe"
    run = ranklens.Run.from_dict({f"q{i}": {"a": 1.0} for i in range(4)}, name=name)
    from ranklens.render.report import render

    text = render([ranklens.evaluate(QRELS, run, ["p@1"])], "table", color=False)
    assert "\u202e" not in text and "model\\u202egpj.exe" in text
    page = html_report(QRELS, {name: run}, ["p@1"])
    assert "\u202e" not in page and "model\\u202egpj.exe" in page


def test_plot_axes_stay_in_the_metrics_range(tmp_path: object) -> None:
    pytest.importorskip("matplotlib")
    from ranklens.render import plots

    res = ranklens.evaluate(QRELS, CAND, ["p@1"])  # every value 1.0
    fig = plots.plot_distribution([res], "p@1")
    lo, hi = fig.axes[0].get_ylim()
    assert lo >= -0.03 - 1e-9 and hi <= 1.03 + 1e-9
    fig = plots.plot_cutoffs(QRELS, {"cand": CAND}, "p", max_k=2)
    lo, hi = fig.axes[0].get_ylim()
    assert lo >= -0.03 - 1e-9 and hi <= 1.03 + 1e-9
    assert np.isfinite([lo, hi]).all()


def test_plot_warnings_are_one_line_without_ranklens_source() -> None:
    pytest.importorskip("matplotlib")
    import warnings

    from ranklens.render import plots

    run = ranklens.Run.from_dict({"q0": {"a": 1.0}, "zz": {"a": 1.0}}, name="r")  # zz: unjudged
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plots.plot_cutoffs(QRELS, {"r": run}, "p", max_k=2)
    ours = [w for w in caught if issubclass(w.category, ranklens.RanklensWarning)]
    assert ours, "the unjudged query is still said"
    shown = warnings.formatwarning(
        ours[0].message, ours[0].category, ours[0].filename, ours[0].lineno, ours[0].line
    )
    assert shown.count("\n") == 1 and ".py" not in shown
    assert shown.startswith("ranklens:0: RanklensWarning: 1 run queries have no judgments")
