"""ranklens.render.report: every output format, exact strings on tiny hand-checked runs,
and the trec format line for line against trec_eval 10's own output files."""

from __future__ import annotations

import io
import json
import math
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import ranklens
from ranklens.io import read_trec_qrels, read_trec_run
from ranklens.metrics.trec_names import expand_trec_name
from ranklens.render.report import (
    FORMATS,
    FormatError,
    latex_escape,
    render,
    save_results,
    trec_output_name,
)
from tests.helpers import CONFORMANCE, NEEDS_CONFORMANCE

METRICS = ["P.5", "map", "ndcg@10", "num_ret"]


@pytest.fixture(scope="module")
def qrels() -> ranklens.Qrels:
    # q1: d1 rel 1, d3 rel 2 (R = 2); q2: d1 rel 1 (R = 1)
    return ranklens.Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}})


@pytest.fixture(scope="module")
def bm25(qrels: ranklens.Qrels) -> ranklens.Result:
    # q1: d1 (rel 1), d2 -> AP 1/2, ndcg = 1 / (2 + 1/log2(3)) = 0.3801
    # q2: d2, d1 -> AP 1/2, ndcg = 1/log2(3) = 0.6309
    run = ranklens.Run.from_dict(
        {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d2": 1.0, "d1": 0.5}}, name="bm25"
    )
    return ranklens.evaluate(qrels, run, METRICS)


@pytest.fixture(scope="module")
def dense(qrels: ranklens.Qrels) -> ranklens.Result:
    # q1: d3 (rel 2), d2 -> AP 1/2, ndcg = 2 / (2 + 1/log2(3)) = 0.7602; q2: d1 -> 1
    run = ranklens.Run.from_dict({"q1": {"d3": 0.9, "d2": 0.5}, "q2": {"d1": 1.0}}, name="dense_v2")
    return ranklens.evaluate(qrels, run, METRICS)


@pytest.fixture(scope="module")
def with_nan() -> ranklens.Result:
    # q2 has no relevant document: NaN under no_relevant="nan"
    qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 0}})
    run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d1": 1.0}})
    return ranklens.evaluate(qrels, run, ["P.5", "num_rel_ret"], no_relevant="nan")


# ----------------------------------------------------------------------------- table


def test_table_several_runs(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    assert render([bm25, dense], "table", color=False) == (
        "run           P.5      map   ndcg@10   num_ret\n"
        "──────────────────────────────────────────────\n"
        "bm25       0.2000   0.5000    0.5055         4\n"
        "dense_v2   0.2000   0.7500    0.8801         3\n"
    )


def test_table_per_query(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    assert render([bm25, dense], "table", per_query=True, color=False) == (
        "run        query      P.5      map   ndcg@10   num_ret\n"
        "──────────────────────────────────────────────────────\n"
        "bm25       q1      0.2000   0.5000    0.3801         2\n"
        "bm25       q2      0.2000   0.5000    0.6309         2\n"
        "bm25       all     0.2000   0.5000    0.5055         4\n"
        "dense_v2   q1      0.2000   0.5000    0.7602         2\n"
        "dense_v2   q2      0.2000   1.0000    1.0000         1\n"
        "dense_v2   all     0.2000   0.7500    0.8801         3\n"
    )


def test_table_single_run_and_plain_when_not_a_terminal(bm25: ranklens.Result) -> None:
    expected = (
        "run       P.5      map   ndcg@10   num_ret\n"
        "──────────────────────────────────────────\n"
        "bm25   0.2000   0.5000    0.5055         4\n"
    )
    assert render(bm25, "table", color=False) == expected
    # under pytest stdout is captured, not a terminal: no ANSI codes by default
    assert render(bm25, "table") == expected


def test_table_bold_marks_the_best_value(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    text = render([bm25, dense], "table", color=True)
    bold = "\x1b[1m"
    lines = text.splitlines()
    bm25_line = next(line for line in lines if line.startswith("bm25"))
    dense_line = next(line for line in lines if line.startswith("dense_v2"))
    # P.5 ties (both bold); map and ndcg@10 go to dense_v2; counts are never bold
    assert bm25_line.count(bold) == 1 and f"{bold}0.2000" in bm25_line
    assert dense_line.count(bold) == 3
    assert "\x1b[1m4" not in bm25_line and "\x1b[1m3" not in dense_line
    assert "\x1b[3" not in text  # no colours, only bold


def test_table_one_run_has_no_bold(bm25: ranklens.Result) -> None:
    body = render(bm25, "table", color=True).splitlines()[2:]
    assert all("\x1b[1m" not in line for line in body)


def test_table_wide_names_do_not_wrap(qrels: ranklens.Qrels) -> None:
    metrics = [f"ndcg_cut.{k}" for k in range(1, 30)] + ["ndcg(gain={1:3,2:9})@10"]
    run = ranklens.Run.from_dict({"q1": {"d1": 0.9}}, name="a" * 40)
    text = render(ranklens.evaluate(qrels, run, metrics), "table", color=False)
    header, _, row = text.splitlines()
    assert header.split() == ["run", *metrics]
    assert row.split()[0] == "a" * 40 and len(row.split()) == len(metrics) + 1


# ----------------------------------------------------------------------------- json


def test_json(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    data = json.loads(render([bm25, dense], "json"))
    assert [r["run"] for r in data["runs"]] == ["bm25", "dense_v2"]
    first = data["runs"][0]
    assert list(first) == ["run", "summary", "conventions", "report"]
    assert list(first["summary"]) == METRICS  # exactly the user's strings, in order
    assert first["summary"] == {"P.5": 0.2, "map": 0.5, "ndcg@10": bm25["ndcg@10"], "num_ret": 4.0}
    assert first["conventions"] == bm25.conventions.as_dict()
    assert first["report"] == dict(bm25.report)
    assert data["runs"][1]["summary"]["map"] == 0.75


def test_json_per_query_exact(bm25: ranklens.Result) -> None:
    text = render(bm25, "json", per_query=True)
    start = text.index('"per_query"')
    end = text.index('"conventions"')
    assert text[start:end] == (
        '"per_query": {\n'
        '        "P.5": {\n'
        '          "q1": 0.2,\n'
        '          "q2": 0.2\n'
        "        },\n"
        '        "map": {\n'
        '          "q1": 0.5,\n'
        '          "q2": 0.5\n'
        "        },\n"
        '        "ndcg@10": {\n'
        '          "q1": 0.38009376671593426,\n'
        '          "q2": 0.6309297535714575\n'
        "        },\n"
        '        "num_ret": {\n'
        '          "q1": 2.0,\n'
        '          "q2": 2.0\n'
        "        }\n"
        "      },\n"
        "      "
    )
    assert text.endswith("}\n")


def test_json_nan_is_null(with_nan: ranklens.Result) -> None:
    text = render(with_nan, "json", per_query=True)
    assert "NaN" not in text
    run = json.loads(text)["runs"][0]
    assert run["run"] == "run1"  # unnamed runs are numbered
    assert run["per_query"]["P.5"] == {"q1": 0.2, "q2": None}
    assert run["summary"] == {"P.5": 0.2, "num_rel_ret": 1.0}
    assert run["conventions"]["no_relevant"] == "nan"


def test_json_all_nan_summary_is_null() -> None:
    qrels = ranklens.Qrels.from_dict({"q": {"d1": 0}})
    run = ranklens.Run.from_dict({"q": {"d1": 1.0}})
    res = ranklens.evaluate(qrels, run, ["P.5"], no_relevant="nan")
    assert json.loads(render(res, "json"))["runs"][0]["summary"] == {"P.5": None}


# ----------------------------------------------------------------------------- csv


def test_csv(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    # quoted only where a field must be (as Python's csv module writes)
    assert render([bm25, dense], "csv") == (
        "run,P.5,map,ndcg@10,num_ret\n"
        "bm25,0.2,0.5,0.5055117601436959,4\n"
        "dense_v2,0.2,0.75,0.8800937667159343,3\n"
    )


def test_csv_per_query(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    assert render([bm25, dense], "csv", per_query=True) == (
        "run,query,P.5,map,ndcg@10,num_ret\n"
        "bm25,q1,0.2,0.5,0.38009376671593426,2\n"
        "bm25,q2,0.2,0.5,0.6309297535714575,2\n"
        "dense_v2,q1,0.2,0.5,0.7601875334318685,2\n"
        "dense_v2,q2,0.2,1,1,1\n"
    )


def test_csv_nan_is_an_empty_field(with_nan: ranklens.Result) -> None:
    assert render(with_nan, "csv", per_query=True) == (
        "run,query,P.5,num_rel_ret\nrun1,q1,0.2,1\nrun1,q2,,\n"
    )


def test_csv_quotes_only_the_fields_that_need_it(bm25: ranklens.Result) -> None:
    from dataclasses import replace

    text = render([replace(bm25, run_name='a,"b"'), bm25], "csv")
    assert text.splitlines()[1].startswith('"a,""b""",0.2,')
    assert text.splitlines()[0] == "run,P.5,map,ndcg@10,num_ret"


def test_csv_runs_with_different_metrics(qrels: ranklens.Qrels, bm25: ranklens.Result) -> None:
    # q2 is not in this run (skipped); q1: AP = 1/2 (R = 2), RR = 1
    run = ranklens.Run.from_dict({"q1": {"d1": 1.0}}, name="other")
    other = ranklens.evaluate(qrels, run, ["map", "recip_rank"])
    assert render([bm25, other], "csv") == (
        "run,P.5,map,ndcg@10,num_ret,recip_rank\n"
        "bm25,0.2,0.5,0.5055117601436959,4,\n"
        "other,,0.5,,,1\n"
    )


# ----------------------------------------------------------------------------- markdown


def test_markdown(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    # the one Markdown writer of every result (compare, score, ab): cells unpadded, the
    # best value of each metric in bold as in the other layouts (counts never)
    assert render([bm25, dense], "markdown") == (
        "| run | P.5 | map | ndcg@10 | num_ret |\n"
        "| :-- | --: | --: | --: | --: |\n"
        "| bm25 | **0.2000** | 0.5000 | 0.5055 | 4 |\n"
        "| dense_v2 | **0.2000** | **0.7500** | **0.8801** | 3 |\n"
    )


def test_markdown_per_query_and_nan(with_nan: ranklens.Result) -> None:
    assert render(with_nan, "md", per_query=True) == (
        "| run | query | P.5 | num_rel_ret |\n"
        "| :-- | :-- | --: | --: |\n"
        "| run1 | q1 | 0.2000 | 1 |\n"
        "| run1 | q2 | NaN | NaN |\n"
        "| run1 | all | 0.2000 | 1 |\n"
    )


def test_markdown_escapes_pipes(bm25: ranklens.Result) -> None:
    from dataclasses import replace

    text = render(replace(bm25, run_name="a|b"), "markdown")
    assert text.splitlines()[2].startswith("| a\\|b |")


# ----------------------------------------------------------------------------- latex


def test_latex(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    assert render([bm25, dense], "latex") == (
        "\\begin{tabular}{lrrrr}\n"
        "\\toprule\n"
        "run & P.5 & map & ndcg@10 & num\\_ret \\\\\n"
        "\\midrule\n"
        "bm25 & \\textbf{0.2000} & 0.5000 & 0.5055 & 4 \\\\\n"
        "dense\\_v2 & \\textbf{0.2000} & \\textbf{0.7500} & \\textbf{0.8801} & 3 \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
    )


def test_latex_per_query(bm25: ranklens.Result) -> None:
    assert render(bm25, "tex", per_query=True) == (
        "\\begin{tabular}{llrrrr}\n"
        "\\toprule\n"
        "run & query & P.5 & map & ndcg@10 & num\\_ret \\\\\n"
        "\\midrule\n"
        "bm25 & q1 & 0.2000 & 0.5000 & 0.3801 & 2 \\\\\n"
        "bm25 & q2 & 0.2000 & 0.5000 & 0.6309 & 2 \\\\\n"
        "bm25 & all & 0.2000 & 0.5000 & 0.5055 & 4 \\\\\n"
        "\\bottomrule\n"
        "\\end{tabular}\n"
    )


def test_latex_escape() -> None:
    assert latex_escape("a_b#c%d&e$f{g}h~i^j\\k<l>m|n") == (
        r"a\_b\#c\%d\&e\$f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
        r"\textless{}l\textgreater{}m\textbar{}n"
    )
    assert latex_escape("ndcg@10 (x=1.5)") == "ndcg@10 (x=1.5)"


def test_latex_escapes_metric_and_run_names(qrels: ranklens.Qrels) -> None:
    run = ranklens.Run.from_dict({"q1": {"d1": 1.0}}, name="bm25 #1 & 50%_x")
    res = ranklens.evaluate(qrels, run, ["ndcg(gain={1:3,2:9})@10", "num_rel_ret"])
    lines = render(res, "latex").splitlines()
    assert lines[2] == r"run & ndcg(gain=\{1:3,2:9\})@10 & num\_rel\_ret \\"
    assert lines[4].startswith(r"bm25 \#1 \& 50\%\_x & ")


def test_latex_best_lower_is_better_and_nan(qrels: ranklens.Qrels) -> None:
    # num_nonrel_judged_ret: lower is better, as the catalogue declares (a retrieves the
    # judged non-relevant d2: 1; b none: 0); P.2 higher (a 1/2, b 2/2)
    names = ["num_nonrel_judged_ret", "P.2"]
    a = ranklens.evaluate(
        qrels, ranklens.Run.from_dict({"q1": {"d1": 1.0, "d2": 0.5}}, name="a"), names
    )
    b = ranklens.evaluate(
        qrels, ranklens.Run.from_dict({"q1": {"d1": 1.0, "d3": 0.5}}, name="b"), names
    )
    rows = render([a, b], "latex").splitlines()[4:6]
    assert rows == [r"a & 1 & 0.5000 \\", r"b & \textbf{0} & \textbf{1.0000} \\"]


def test_a_diagnostic_has_no_best(qrels: ranklens.Qrels) -> None:
    """unj (the fraction unjudged) is a diagnostic in the catalogue: no value is bold."""
    a = ranklens.evaluate(
        qrels, ranklens.Run.from_dict({"q1": {"d1": 1.0, "x": 0.5}}, name="a"), ["unj.2"]
    )
    b = ranklens.evaluate(
        qrels, ranklens.Run.from_dict({"q1": {"d1": 1.0, "d3": 0.5}}, name="b"), ["unj.2"]
    )
    assert "textbf" not in render([a, b], "latex")


# ----------------------------------------------------------------------------- trec


def test_trec_summary(bm25: ranklens.Result, dense: ranklens.Result) -> None:
    assert render([bm25, dense], "trec", runid=True).splitlines() == [
        "runid                 \tall\tbm25",
        "P_5                   \tall\t0.2000",
        "map                   \tall\t0.5000",
        "ndcg@10               \tall\t0.5055",
        "num_ret               \tall\t4",
        "runid                 \tall\tdense_v2",
        "P_5                   \tall\t0.2000",
        "map                   \tall\t0.7500",
        "ndcg@10               \tall\t0.8801",
        "num_ret               \tall\t3",
    ]


def test_trec_per_query(bm25: ranklens.Result) -> None:
    assert render(bm25, "trec", per_query=True) == (
        "P_5                   \tq1\t0.2000\n"
        "map                   \tq1\t0.5000\n"
        "ndcg@10               \tq1\t0.3801\n"
        "num_ret               \tq1\t2\n"
        "P_5                   \tq2\t0.2000\n"
        "map                   \tq2\t0.5000\n"
        "ndcg@10               \tq2\t0.6309\n"
        "num_ret               \tq2\t2\n"
        "P_5                   \tall\t0.2000\n"
        "map                   \tall\t0.5000\n"
        "ndcg@10               \tall\t0.5055\n"
        "num_ret               \tall\t4\n"
    )


def test_trec_gm_and_num_q_only_in_the_summary(qrels: ranklens.Qrels) -> None:
    # AP and bpref: q1 1/2 (R = 2), q2 1; geometric means sqrt(1/2)
    run = ranklens.Run.from_dict({"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}, name="r")
    res = ranklens.evaluate(qrels, run, ["num_q", "gm_map", "gm_bpref", "map"])
    lines = render(res, "trec", per_query=True).splitlines()
    assert [line.split("\t")[0].strip() for line in lines if "\tall\t" not in line] == [
        "map",
        "map",
    ]
    assert lines[-4:] == [
        "num_q                 \tall\t2",
        "gm_map                \tall\t0.7071",
        "gm_bpref              \tall\t0.7071",
        "map                   \tall\t0.7500",
    ]


def test_trec_nan(with_nan: ranklens.Result) -> None:
    # a query without a value is left out (trec_eval prints only evaluated queries)
    assert render(with_nan, "trec", per_query=True, runid=True).splitlines() == [
        "P_5                   \tq1\t0.2000",
        "num_rel_ret           \tq1\t1",
        "runid                 \tall\trun1",
        "P_5                   \tall\t0.2000",
        "num_rel_ret           \tall\t1",
    ]
    qrels = ranklens.Qrels.from_dict({"q": {"d1": 0}})
    run = ranklens.Run.from_dict({"q": {"d1": 1.0}})
    res = ranklens.evaluate(qrels, run, ["P.5", "num_rel_ret"], no_relevant="nan")
    assert render(res, "trec").splitlines() == [
        "P_5                   \tall\t   nan",
        "num_rel_ret           \tall\t   nan",
    ]


def test_trec_long_names_are_not_truncated(qrels: ranklens.Qrels) -> None:
    # gains 1->3, 2->9: DCG 3, ideal 9 + 3/log2(3): 0.2754
    run = ranklens.Run.from_dict({"q1": {"d1": 1.0}})
    res = ranklens.evaluate(qrels, run, ["iprec_at_recall.0.1", "ndcg.1=3,2=9,4=4.5"])
    assert render(res, "trec").splitlines() == [
        "iprec_at_recall_0.10  \tall\t1.0000",
        "ndcg_1=3,2=9,4=4.5    \tall\t0.2754",
    ]


@pytest.mark.parametrize(
    ("given", "printed"),
    [
        ("P.5", "P_5"),
        ("p.5", "P_5"),
        ("recall.20", "recall_20"),
        ("ndcg_cut.10", "ndcg_cut_10"),
        ("success.2", "success_2"),
        ("map_cut.5", "map_cut_5"),
        ("relative_P.5", "relative_P_5"),
        ("unj.5", "unj_5"),
        ("ndcg_cut.23.4", "ndcg_cut_23"),
        ("iprec_at_recall.0.1", "iprec_at_recall_0.10"),
        ("iprec_at_recall..25", "iprec_at_recall_0.25"),
        ("Rprec_mult.0.2", "Rprec_mult_0.20"),
        ("Rprec_mult.5", "Rprec_mult_5.00"),
        ("utility.2,-1,0,0", "utility_2,-1,0,0"),
        ("11pt_avg..25,.5,.75", "11pt_avg_.25,.5,.75"),
        ("ndcg.1=3,2=9,4=4.5", "ndcg_1=3,2=9,4=4.5"),
        ("set_F.0.5", "set_F_0.5"),
        ("rbp.p=0.8", "rbp_p=0.8"),
        ("rbp_resid.p=0.5", "rbp_resid_p=0.5"),
        ("P_5", "P_5"),
        ("iprec_at_recall_0.10", "iprec_at_recall_0.10"),
        ("ndcg_cut_10", "ndcg_cut_10"),
        ("utility_2,-1,0,0", "utility_2,-1,0,0"),
        ("ndcg@10", "ndcg@10"),
        ("ndcg(gain={1:3,2:9})@10", "ndcg(gain={1:3,2:9})@10"),
        ("map", "map"),
        ("Rprec_mult", "Rprec_mult"),
        ("ndcg_cut", "ndcg_cut"),
        ("num_rel_ret", "num_rel_ret"),
        ("set_recall", "set_recall"),
        ("mrr", "mrr"),
        ("P.5,10", "P.5,10"),
    ],
)
def test_trec_output_name(given: str, printed: str) -> None:
    assert trec_output_name(given) == printed


# --------------------------------------------------------------- trec vs trec_eval itself


# file -> (qrels, run, conventions) of the trec_eval command that made it
OUTPUTS: dict[str, tuple[str, str, dict[str, object]]] = {
    "out.test": ("qrels.test", "results.test", {}),
    "out.test.a": ("qrels.test", "results.test", {}),
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"missing": "zero"}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"missing": "zero", "depth": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"rel_threshold": 2}),
    "out.302.iprec.v10": ("qrels-302.test", "results-302.test", {}),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", {}),
}


def _measure(line: str) -> str:
    return line.split("\t", 1)[0].rstrip()


def _evaluate(
    qrels_file: str, run_file: str, metrics: list[str], opts: dict[str, object]
) -> ranklens.Result:
    with warnings.catch_warnings():
        # results.comment.test has topics without judgments: trec_eval skips them too
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        return ranklens.evaluate(
            read_trec_qrels(CONFORMANCE / qrels_file),
            read_trec_run(CONFORMANCE / run_file),
            metrics,
            profile="trec_eval",
            **opts,
        )  # type: ignore[arg-type]


@NEEDS_CONFORMANCE
@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_trec_format_is_trec_eval_output(name: str) -> None:
    """Metrics named as trec_eval prints them, in its order: every line identical."""
    qrels_file, run_file, opts = OUTPUTS[name]
    lines = (CONFORMANCE / name).read_text().splitlines()
    # relstring is string-valued and not a ranklens metric
    expected = [line for line in lines if not _measure(line).startswith("relstring")]
    summary = [line for line in expected if line.split("\t")[1] == "all"]
    metrics = [_measure(line) for line in summary if _measure(line) != "runid"]
    per_query = len(summary) < len(expected)
    runid = any(_measure(line) == "runid" for line in summary)
    res = _evaluate(qrels_file, run_file, metrics, opts)
    got = render(res, "trec", per_query=per_query, runid=runid).splitlines()
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g == e, (name, i)


def _manifest_command(name: str) -> str:
    for row in (CONFORMANCE / "MANIFEST.tsv").read_text().splitlines():
        cells = row.split("\t")
        if cells[0] == name:
            return cells[-1]
    raise AssertionError(f"{name} not in MANIFEST.tsv")


def _measures_of(command: str) -> list[str]:
    """The -m measures of a trec_eval command, one metric string per printed value
    (several cutoffs split, and sorted ascending as trec_eval does)."""
    args = shlex.split(command)[1:]
    names: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "-m":
            i += 1
            names.append(args[i])
        elif args[i].startswith("-m"):
            names.append(args[i][2:])
        i += 1
    out: list[str] = []
    for name in names:
        parts = expand_trec_name(name)
        if len(parts) > 1:
            parts.sort(key=lambda p: float(p.split(".", 1)[1]))
        out.extend(parts)
    return out


@NEEDS_CONFORMANCE
def test_trec_format_meas_params_from_the_command_line() -> None:
    """The measure names exactly as typed on trec_eval's command line."""
    metrics = _measures_of(_manifest_command("out.test.meas_params"))
    assert metrics[:6] == [
        "iprec_at_recall..10",
        "iprec_at_recall..20",
        "iprec_at_recall..25",
        "iprec_at_recall..50",
        "iprec_at_recall..75",
        "P.3",
    ]
    assert "ndcg_cut.23.4" in metrics and "utility.2,-1,0,0" in metrics
    res = _evaluate("qrels.test", "results.test", metrics, {})
    got = render(res, "trec", per_query=True).splitlines()
    expected = (CONFORMANCE / "out.test.meas_params").read_text().splitlines()
    assert len(got) == len(expected) == 88
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        assert g == e, i


# ----------------------------------------------------------------------------- files


def test_save_and_read_back_csv_and_parquet(
    tmp_path: Path, bm25: ranklens.Result, dense: ranklens.Result, with_nan: ranklens.Result
) -> None:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    for per_query in (False, True):
        save_results([bm25, dense, with_nan], tmp_path / "r.csv", per_query=per_query)
        save_results([bm25, dense, with_nan], tmp_path / "r.parquet", per_query=per_query)
        from_csv = pacsv.read_csv(tmp_path / "r.csv")
        from_parquet = pq.read_table(tmp_path / "r.parquet")
        assert from_csv.column_names == from_parquet.column_names
        assert from_csv.num_rows == from_parquet.num_rows == (6 if per_query else 3)
        for name in from_parquet.column_names:
            want = from_parquet[name].to_pylist()
            got = from_csv[name].to_pylist()
            if name in ("run", "query"):
                assert got == want
            else:  # float64 written in full precision: read back exactly
                assert [None if v is None else float(v) for v in got] == want
        if per_query:
            rows = from_parquet.to_pylist()
            assert rows[2] == {
                "run": "dense_v2",
                "query": "q1",
                "P.5": 0.2,
                "map": 0.5,
                "ndcg@10": dense.per_query("ndcg@10")["q1"],
                "num_ret": 2.0,
                "num_rel_ret": None,
            }
            assert rows[-1]["P.5"] is None and rows[-1]["num_rel_ret"] is None
        else:
            assert from_parquet["map"].to_pylist() == [0.5, 0.75, None]


def test_parquet_round_trips_through_pandas(tmp_path: Path, bm25: ranklens.Result) -> None:
    pd = pytest.importorskip("pandas")
    save_results(bm25, tmp_path / "r.parquet", per_query=True)
    frame = pd.read_parquet(tmp_path / "r.parquet")
    expected = bm25.to_frame()
    assert list(frame["query"]) == list(expected.index)
    for m in METRICS:
        np.testing.assert_array_equal(frame[m].to_numpy(), expected[m].to_numpy())


@pytest.mark.parametrize(
    ("suffix", "fmt"),
    [
        (".json", "json"),
        (".csv", "csv"),
        (".md", "markdown"),
        (".tex", "latex"),
        (".txt", "table"),
        (".JSON", "json"),
    ],
)
def test_save_chooses_the_format_from_the_suffix(
    tmp_path: Path, bm25: ranklens.Result, suffix: str, fmt: str
) -> None:
    path = tmp_path / f"out{suffix}"
    save_results([bm25], path, per_query=True)
    assert path.read_text(encoding="utf-8") == render(bm25, fmt, per_query=True, color=False)


def test_save_fmt_overrides_the_suffix(tmp_path: Path, bm25: ranklens.Result) -> None:
    path = tmp_path / "out.txt"
    save_results(bm25, path, fmt="trec", runid=True)
    assert path.read_text().splitlines()[0] == "runid                 \tall\tbm25"
    save_results(bm25, tmp_path / "x.data", fmt="parquet")
    assert (tmp_path / "x.data").read_bytes()[:4] == b"PAR1"


def test_unknown_formats(tmp_path: Path, bm25: ranklens.Result) -> None:
    with pytest.raises(
        FormatError, match="'table', 'json', 'csv', 'markdown', 'latex', 'trec'"
    ) as info:
        render(bm25, "xlsx")
    assert isinstance(info.value, ranklens.FormatError) and isinstance(info.value, ValueError)
    with pytest.raises(FormatError, match="binary"):
        render(bm25, "parquet")
    with pytest.raises(FormatError, match=r"\.json, \.csv, \.parquet, \.md, \.tex, \.txt"):
        save_results(bm25, tmp_path / "out.xlsx")
    with pytest.raises(FormatError, match="suffix"):
        save_results(bm25, tmp_path / "out")
    with pytest.raises(FormatError):
        save_results(bm25, tmp_path / "out.csv", fmt="excel")
    assert not list(tmp_path.iterdir())


def test_bad_results() -> None:
    with pytest.raises(ranklens.InputError, match="no results"):
        render([], "csv")
    with pytest.raises(ranklens.InputError, match=r"results\[0\] is a dict"):
        render([{"map": 0.5}], "csv")  # type: ignore[list-item]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_ends_with_a_newline(fmt: str, bm25: ranklens.Result) -> None:
    for per_query in (False, True):
        text = render(bm25, fmt, per_query=per_query, color=False)
        assert text.endswith("\n") and not text.endswith("\n\n")


def test_trec_per_query_scales() -> None:
    """Per-query trec lines for 20,000 queries are built without Python-level
    per-value formatting overhead beyond one f-string each."""
    import time

    rng = np.random.default_rng(0)
    n = 20_000
    qids = np.char.add("q", np.arange(n).astype(str))
    qrels = ranklens.Qrels.from_arrays(qids, np.full(n, "d1"), rng.integers(0, 2, n))
    run = ranklens.Run.from_arrays(np.repeat(qids, 2), np.tile(["d1", "d2"], n), rng.random(2 * n))
    res = ranklens.evaluate(qrels, run, ["P.5", "map", "ndcg@10", "num_ret"], no_relevant="nan")
    start = time.perf_counter()
    text = render(res, "trec", per_query=True)
    elapsed = time.perf_counter() - start
    n_valued = int(np.count_nonzero(~np.isnan(res.values["map"])))
    assert text.count("\n") == 4 * n_valued + 4
    assert elapsed < 2.0
    assert io.StringIO(text).readline().startswith("P_5                   \tq")
    assert not math.isnan(res["map"])


def test_import_is_lazy() -> None:
    """Importing ranklens.render.report does not import rich (the table renderer does)."""
    code = "import sys, ranklens.render.report; assert 'rich' not in sys.modules, 'rich imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
    code = "import sys, ranklens; assert 'ranklens.render.report' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_table_wider_than_the_terminal_has_one_metric_per_row(
    bm25: ranklens.Result, dense: ranklens.Result
) -> None:
    from ranklens.render.report import render_table

    wide = render_table([bm25, dense], color=False, max_width=30)
    assert wide.splitlines()[0].split() == ["run", "metric", "value"]
    assert "bm25       P.5       0.2000" in wide
    assert len(wide.splitlines()) == 2 + 2 * 4
    # no limit (standard output is not a terminal here): the usual columns, never cut
    assert render_table([bm25, dense], color=False) == render([bm25, dense], "table", color=False)
    assert render_table([bm25, dense], color=False, max_width=500).splitlines()[0].split()[:2] == [
        "run",
        "P.5",
    ]
    per_query = render_table(bm25, per_query=True, color=False, max_width=30)
    assert per_query.splitlines()[0].split() == ["run", "query", "metric", "value"]
