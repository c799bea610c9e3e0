"""ranklens.render.table: the one table layer (model, writers, escaping, width rule)
and the results that feed it (comparison, scores)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ranklens
from ranklens.errors import FormatError
from ranklens.render import scores
from ranklens.render.table import (
    Cell,
    Table,
    best_mask,
    check_format,
    to_csv,
    to_json,
    to_latex,
    to_markdown,
    to_text,
)


def _table() -> Table:
    return Table(
        ["run", "map", "P.5"],
        [
            ["a|<b>", Cell("0.5000", "bold", sup="b", small="[0.4, 0.6]"), "0.1000"],
            ["c_d", "0.2500", "NaN"],
        ],
        preamble=["before"],
        notes=["after 5%"],
    )


def test_text_plain_and_styles() -> None:
    text = to_text(_table(), color=False)
    assert text.splitlines() == [
        "before",
        "run                   map          P.5",
        "──────────────────────────────────────",
        # the means line up (the interval and the letters have columns of their own)
        "a|<b>   0.5000 [0.4, 0.6]   b   0.1000",
        "c_d     0.2500                     NaN",
        "",
        "after 5%",
    ]
    assert "\x1b[1m0.5000" in to_text(_table(), color=True)


def test_text_wider_than_the_limit_has_one_value_per_row() -> None:
    text = to_text(_table(), color=False, max_width=20)
    lines = text.splitlines()
    assert lines[1].split() == ["run", "metric", "value"]
    assert lines[3].split() == ["a|<b>", "map", "0.5000", "[0.4,", "0.6]", "b"]
    assert len(lines) == 1 + 2 + 4 + 2
    # one value column: nothing to turn
    single = Table(["metric", "value"], [["x" * 50, "1.0000"]])
    assert to_text(single, color=False, max_width=20).splitlines()[2].split() == [
        "x" * 50,
        "1.0000",
    ]


def test_markdown_escapes_and_marks() -> None:
    assert to_markdown(_table()) == (
        "before\n\n"
        "| run | map | P.5 |\n"
        "| :-- | --: | --: |\n"
        "| a\\|&lt;b&gt; | **0.5000**<sup>b</sup> [0.4, 0.6] | 0.1000 |\n"
        "| c_d | 0.2500 | NaN |\n"
        "\n"
        "after 5%\n"
    )


def test_latex_escapes_and_marks() -> None:
    lines = to_latex(_table()).splitlines()
    assert lines[0] == r"\begin{tabular}{lrr}"
    assert lines[4] == (
        r"a\textbar{}\textless{}b\textgreater{} & \textbf{0.5000}$^{b}$ "
        r"{\scriptsize [0.4, 0.6]} & 0.1000 \\"
    )
    assert lines[-3:-1] == [
        r"\multicolumn{3}{l}{\footnotesize before} \\",
        r"\multicolumn{3}{l}{\footnotesize after 5\%} \\",
    ]


def test_csv_and_json() -> None:
    import pyarrow as pa

    table = pa.table({"name": ["a", "b,c"], "x": [0.1, float("nan")], "n": [1, None]})
    assert to_csv(table) == 'name,x,n\n"a",0.1,1\n"b,c",,\n'
    assert to_csv(table.slice(0, 1)) == "name,x,n\na,0.1,1\n"
    assert json.loads(
        to_json({"x": float("nan"), "y": np.float64(2.5), "z": (1, float("inf"))})
    ) == {"x": None, "y": 2.5, "z": [1, None]}
    assert to_json({"id": "é"}) == '{\n  "id": "é"\n}\n'


def test_best_mask_directions() -> None:
    """The direction of each column is the catalogue's: map larger, the count of judged
    non-relevant documents retrieved smaller, a count (num_ret) none."""
    values = np.array([[0.5, 2.0, 3.0], [0.7, 1.0, 4.0]])
    families = ["map", "num_nonrel_judged_ret", "num_ret"]
    mask = best_mask(values, families)
    assert mask.tolist() == [[False, False, False], [True, True, False]]
    assert not best_mask(values[:1], families).any()


def test_best_mask_follows_the_catalogue_for_every_metric() -> None:
    """No list of directions of its own: every family of the catalogue is marked as its
    higher_is_better says (the smaller of 0.2 and 0.4 for lower-is-better, none for
    counts and diagnostics)."""
    from ranklens.metrics import REGISTRY

    values = np.array([[0.2], [0.4]])
    for name, defn in REGISTRY.items():
        expected = {True: [[False], [True]], False: [[True], [False]], None: [[False], [False]]}
        assert best_mask(values, [name]).tolist() == expected[defn.higher_is_better], name


def test_check_format() -> None:
    assert check_format("MD", ("table", "markdown")) == "markdown"
    with pytest.raises(FormatError, match="unknown output format 'xml'; choose one of"):
        check_format("xml", ("table", "markdown"))


def test_scores_in_every_format() -> None:
    values = {"accuracy": 0.75, "cm": [[1, 2], [3, 4]], "r2": float("nan")}
    assert scores.render(values, "table", color=False).splitlines()[2:] == [
        "accuracy             0.7500",
        "cm         [[1, 2], [3, 4]]",
        "r2                      NaN",
    ]
    assert scores.render(values, "csv") == (
        'metric,value\n"accuracy","0.75"\n"cm","[[1, 2], [3, 4]]"\n"r2",\n'
    )
    assert scores.render({"mae": 0.5, "n": 3}, "csv") == "metric,value\nmae,0.5\nn,3\n"
    assert json.loads(scores.render(values, "json")) == {
        "accuracy": 0.75,
        "cm": [[1, 2], [3, 4]],
        "r2": None,
    }


def test_comparison_table_follows_the_width_rule() -> None:
    pytest.importorskip("scipy")
    from ranklens.render.comparison import comparison_table

    rng = np.random.default_rng(1)
    qrels = ranklens.Qrels.from_dict({f"q{i}": {"a": 1, "b": 0} for i in range(12)})
    runs = {
        n: ranklens.Run.from_dict(
            {f"q{i}": {"a": float(rng.random()), "b": float(rng.random())} for i in range(12)}
        )
        for n in ("bm25", "dense")
    }
    cmp = ranklens.compare(qrels, runs, ["map", "ndcg@5"], baseline="bm25", seed=0, n_resamples=100)
    wide = to_text(comparison_table(cmp), color=False)  # piped: no limit
    assert wide.splitlines()[0].split() == [
        "system",
        *("map", "map", "diff", "map", "p", "map", "W/T/L"),
        *("ndcg@5", "ndcg@5", "diff", "ndcg@5", "p", "ndcg@5", "W/T/L"),
    ]
    narrow = to_text(comparison_table(cmp), color=False, max_width=40)
    assert narrow.splitlines()[0].split() == ["system", "metric", "value"]
    assert narrow.splitlines()[-2].startswith("Letters: ")
    assert narrow.splitlines()[-1].startswith("diff: mean difference from the baseline")
    assert cmp.render("table", color=False) == wide
