"""ranklens.render.html: the offline HTML report -- its structure, its policy, escaping of
every id and name, and numbers equal to evaluate's and compare's."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

import ranklens
from ranklens.comparison.stats import mean_ci
from ranklens.errors import InputError, MetricParameterError, OutputPathError, RanklensWarning
from ranklens.render import svg
from ranklens.render.html import html_report
from ranklens.render.table import number, p_value
from tests.helpers import HOSTILE_QUERY, HOSTILE_RUN, report_case

METRICS = ["ndcg@10", "map", "p@5", "recall@20"]
N = 40


class _Page(HTMLParser):
    """The parts of a page the tests read: the tables (rows of cell texts) under each
    section, the scripts, the meta policy and every attribute that could load
    something."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[list[str]]]] = {}
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.csp: str | None = None
        self.links: list[str] = []
        self.section = ""
        self._cell: list[str] | None = None
        self._script: dict[str, str | None] | None = None
        self._text: list[str] = []
        self.order: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.order.append(tag)
        for key in ("src", "href", "srcset", "action", "data", "poster", "xlink:href"):
            if a.get(key) is not None:
                self.links.append(str(a[key]))
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content")
        if tag == "section":
            self.section = str(a.get("id"))
            self.tables.setdefault(self.section, [])
        elif tag == "table":
            self.tables.setdefault(self.section, []).append([])
        elif tag == "tr":
            self.tables[self.section][-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "script":
            self._script, self._text = a, []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[self.section][-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._script is not None:
            self._text.append(data)


def _parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


def _data(page: _Page) -> dict[str, Any]:
    (text,) = [t for a, t in page.scripts if a.get("type") == "application/json"]
    return json.loads(text)


@pytest.fixture(scope="module")
def case() -> tuple[ranklens.Qrels, dict[str, ranklens.Run]]:
    return report_case(N, seed=3)


@pytest.fixture(scope="module")
def made(case: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Any]:
    qrels, runs = case
    path = tmp_path_factory.mktemp("html") / "report.html"
    with pytest.warns(RanklensWarning, match="left out of the comparison"):
        page = html_report(
            qrels,
            runs,
            METRICS,
            path=path,
            seed=7,
            n_resamples=500,
            provenance={"qrels": "judged.txt"},
        )
    with pytest.warns(RanklensWarning):
        cmp = ranklens.compare(qrels, runs, METRICS, baseline="bm25", seed=7, n_resamples=500)
    return page, path, cmp


def test_written_file_is_the_page(made: Any) -> None:
    page, path, _ = made
    assert path.read_text(encoding="utf-8") == page
    assert page.startswith("<!DOCTYPE html>")
    parsed = _parse(page)
    sections = [s for s in parsed.tables]
    for anchor in ("summary", "cutoffs", "pr", "queries", "distributions", "provenance"):
        assert anchor in sections, anchor
    assert "history" not in sections  # no trend given


def test_policy_allows_only_the_page_itself(made: Any) -> None:
    page, _, _ = made
    parsed = _parse(page)
    assert parsed.csp is not None
    # the policy comes before any style or script, in the head
    assert parsed.order.index("meta") < parsed.order.index("style")
    rules = dict(r.strip().split(" ", 1) for r in parsed.csp.split(";"))
    assert rules["default-src"] == "'none'"
    assert rules["img-src"] == "'none'" and rules["base-uri"] == "'none'"
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert style is not None
    code = [t for a, t in parsed.scripts if "type" not in a]
    assert len(code) == 1  # one script runs; the other holds data

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert rules["style-src"] == digest(style.group(1))
    assert rules["script-src"] == digest(code[0])


def test_nothing_points_outside_the_file(made: Any) -> None:
    page, _, _ = made
    parsed = _parse(page)
    assert all(link.startswith("#") for link in parsed.links), parsed.links
    urls = set(re.findall(r"[a-z][a-z0-9+.-]*://[^\s\"'<>)]*", page, re.I))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace names, loads nothing
    assert "@import" not in page and "url(" not in page
    assert "<link" not in page and "<iframe" not in page and "<img" not in page


def test_ids_and_names_are_text(made: Any) -> None:
    page, _, _ = made
    parsed = _parse(page)
    assert HOSTILE_QUERY not in page and HOSTILE_RUN not in page
    assert page.count("</script>") == 2  # the two script elements, nothing from the data
    data = _data(parsed)
    assert data["queries"][0] == HOSTILE_QUERY and HOSTILE_RUN in data["runs"]
    assert "\\u003cscript\\u003e" in page  # the JSON spells them with \u escapes
    # shown as text in the HTML tables: the run's name as a column, the id as a cell
    cells = {c for tables in parsed.tables.values() for t in tables for row in t for c in row}
    assert any(HOSTILE_RUN in c for c in cells)
    assert "&lt;img src=x onerror=alert(2)&gt;" in page


def test_summary_equals_compare(made: Any) -> None:
    page, _, cmp = made
    means, tests = _parse(page).tables["summary"]
    header, *rows = means
    assert [r[0] for r in rows] == [f"({cmp.letters[s]}) {s}" for s in cmp.systems]
    for i, s in enumerate(cmp.systems):
        for m in METRICS:
            cell = rows[i][header.index(m)]
            lo = cmp.ci_low[i, cmp.metrics.index(m)]
            hi = cmp.ci_high[i, cmp.metrics.index(m)]
            assert cell.startswith(f"{number(cmp.mean(s, m))} [{number(lo)}, {number(hi)}]")
    by_pair = {(r[0], r[1]): r for r in tests[1:]}
    for p in cmp.pairs:
        row = by_pair[(p.system, p.metric)]
        assert (
            row[2] == f"{number(p.mean_diff)} [{number(p.diff_ci_low)}, {number(p.diff_ci_high)}]"
        )
        assert row[4] == p_value(p.p_value)
        assert row[5] == p_value(p.p_adjusted) + ("*" if p.significant else "")
        assert row[6] == f"{p.wins}/{p.ties}/{p.losses}"


def test_per_query_data_equal_evaluate(case: Any, made: Any) -> None:
    qrels, runs = case
    page, _, cmp = made
    data = _data(_parse(page))
    queries = data["queries"]
    assert queries == sorted(queries) and len(queries) == N
    names = list(runs)
    base = names.index("bm25")
    assert data["runs"] == names and data["baseline"] == base
    for j, m in enumerate(METRICS):
        for r, name in enumerate(names):
            res = ranklens.evaluate(qrels, runs[name], [m])
            per = res.per_query(m)
            shown = data["values"][j][r]
            for q, v in zip(queries, shown, strict=True):
                if q not in per:
                    assert v is None  # the run lacks the query
                else:
                    assert f"{v:.4f}" == number(per[q])
            if r == base:
                assert data["deltas"][j][r] is None
                continue
            b = ranklens.evaluate(qrels, runs["bm25"], [m]).per_query(m)
            codes = data["outcomes"][j][r]
            for q, d, code in zip(queries, data["deltas"][j][r], codes, strict=True):
                if q not in per:
                    assert d is None and code == "-"
                    continue
                diff = per[q] - b[q]
                assert f"{d:.4f}" == number(diff) or (d == 0 and number(diff) == "-0.0000")
                assert code == ("w" if diff > 1e-12 else "l" if diff < -1e-12 else "t")
            # the counts agree with compare's (on the queries every run has)
            p = cmp.pair(name, "bm25", m)
            both = [
                c
                for q, c in zip(queries, codes, strict=True)
                if q in ranklens.evaluate(qrels, runs["dense"], [m]).per_query(m)
            ]
            assert (both.count("w"), both.count("t"), both.count("l")) == (p.wins, p.ties, p.losses)


def test_biggest_wins_and_losses(case: Any, made: Any) -> None:
    qrels, runs = case
    page, _, _ = made
    tables = _parse(page).tables["queries"]
    base = ranklens.evaluate(qrels, runs["bm25"], ["ndcg@10"]).per_query("ndcg@10")
    dense = ranklens.evaluate(qrels, runs["dense"], ["ndcg@10"]).per_query("ndcg@10")
    diffs = sorted(((dense[q] - base[q], q) for q in dense), key=lambda t: -t[0])
    # the tables of (first non-baseline run: HOSTILE_RUN, ...) come in run order; find dense's
    at = next(i for i, t in enumerate(tables) if t[0][:3] == ["query", "bm25", "dense"])
    wins, losses = tables[at], tables[at + 1]

    def rows(pairs: list[tuple[float, str]]) -> list[list[str]]:
        return [[q, number(base[q]), number(dense[q]), number(d)] for d, q in pairs]

    assert wins[1:] == rows([(d, q) for d, q in diffs if d > 1e-12][:10])
    ascending = sorted(((d, q) for d, q in diffs), key=lambda t: t[0])
    assert losses[1:] == rows([(d, q) for d, q in ascending if d < -1e-12][:10])
    assert len(wins) > 1 and len(losses) > 1


def test_charts_are_drawn(made: Any) -> None:
    page, _, _ = made
    for anchor in ("cutoffs", "pr", "distributions"):
        part = page.split(f'<section id="{anchor}">', 1)[1].split("</section>", 1)[0]
        assert part.count("<svg") >= 1
        paths = re.findall(r'<path class="rl-line"[^>]* d="([^"]*)"', part)
        assert paths and all(p.startswith("M") for p in paths), anchor
    cutoffs = page.split('<section id="cutoffs">', 1)[1].split("</section>", 1)[0]
    # one chart per metric family with a cutoff: ndcg, ap, p, r
    assert cutoffs.count("<svg") == 4 and "<circle" in cutoffs


def test_provenance(case: Any, made: Any) -> None:
    qrels, runs = case
    page, _, cmp = made
    tables = _parse(page).tables["provenance"]
    about = dict((r[0], r[1]) for r in tables[0][1:])
    assert about["ranklens"] == ranklens.__version__ and about["qrels"] == "judged.txt"
    assert about["statistics"] == cmp.description
    conventions = {r[0]: r[1] for r in tables[1][1:]}
    assert conventions["ties"] == "trec" and conventions["missing"] == "skip"
    prints = {r[0]: r[1:] for r in tables[2][1:]}  # the fingerprints the gate compares
    assert list(prints) == list(runs)
    for name, run in runs.items():
        assert prints[name][:3] == [qrels.fingerprint()[:16], run.fingerprint()[:16], "canonical"]
    counts = tables[3]
    assert counts[0][1:] == list(cmp.systems)
    assert "left out of the comparison" in page  # compare's warning is in the report too


def test_stored_results_and_one_run(case: Any) -> None:
    qrels, runs = case
    a = ranklens.evaluate(qrels, runs["bm25"], METRICS)
    b = ranklens.evaluate(qrels, runs[HOSTILE_RUN], METRICS)
    page = html_report(None, [a, b], seed=1, n_resamples=200)
    parsed = _parse(page)
    assert "every run was given as a stored result" in page
    data = _data(parsed)
    assert data["metrics"] == METRICS and data["runs"] == ["bm25", HOSTILE_RUN]  # run names
    cmp = ranklens.compare(None, [a, b], seed=1, n_resamples=200)
    assert parsed.tables["summary"][0][2][1].startswith(number(cmp.mean(HOSTILE_RUN, "ndcg@10")))
    # one run: values and intervals, no test; a sum's interval is n times its mean's
    # (every query retrieves 20 documents: 40 x 20 = 800, an interval of no width)
    one = _parse(html_report(qrels, {"bm25": runs["bm25"]}, ["p@5", "num_ret"]))
    res = ranklens.evaluate(qrels, runs["bm25"], ["p@5", "num_ret"])
    v = res.values["p@5"]
    lo, hi = mean_ci(v, "t", 0.95)
    assert one.tables["summary"][0][1][1:] == [
        f"{number(v.mean())} [{number(lo)}, {number(hi)}]",
        "800.0000 [800.0000, 800.0000]",
    ]
    assert _data(one)["baseline"] is None


def test_tie_policy_without_curves(case: Any) -> None:
    qrels, runs = case
    page = html_report(qrels, {"bm25": runs["bm25"]}, ["ndcg@10"], ties="expected")
    assert "No precision-recall curves: precision_recall_curve needs an ordering" in page
    cutoffs = page.split('<section id="cutoffs">', 1)[1].split("</section>", 1)[0]
    assert cutoffs.count("<svg") == 1  # metric@k is defined under expected ties


def test_trend(case: Any) -> None:
    qrels, runs = case
    t0 = datetime(2026, 10, 1, tzinfo=UTC)
    points = [
        (t0 + timedelta(days=i), "bm25" if i % 3 else HOSTILE_RUN, 0.3 + 0.01 * i, 100 + i)
        for i in range(9)
    ]
    page = html_report(qrels, {"bm25": runs["bm25"]}, ["ndcg@10"], trend={"ndcg@10": points})
    part = page.split('<section id="history">', 1)[1].split("</section>", 1)[0]
    assert part.count("<circle") == 9 and "(record 108)" in part
    assert HOSTILE_RUN not in part and "2026-10-01" in part
    with pytest.raises(InputError, match=r"trend\['ndcg@10'\]\[0\]"):
        html_report(qrels, {"bm25": runs["bm25"]}, ["ndcg@10"], trend={"ndcg@10": [(1, 2)]})


def test_errors(case: Any, tmp_path: Path) -> None:
    qrels, runs = case
    with pytest.raises(InputError, match="runs must be a mapping"):
        html_report(qrels, "bm25.run")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="is a dict"):
        html_report(qrels, {"a": {"q": {"d": 1.0}}})  # type: ignore[dict-item]
    with pytest.raises(InputError, match="baseline 'x'"):
        html_report(qrels, {"bm25": runs["bm25"]}, ["p@5"], baseline="x")
    with pytest.raises(OutputPathError, match="is a folder"):
        html_report(qrels, {"bm25": runs["bm25"]}, ["p@5"], path=tmp_path)
    with pytest.raises(InputError, match="pass the qrels"):
        html_report(None, {"bm25": runs["bm25"]}, ["p@5"])
    # one run: the options checked as compare checks them (alpha=3 was reported as a
    # confidence 'level' of -2)
    with pytest.raises(
        MetricParameterError,
        match=r"the 'alpha' parameter must be a number "
        r"in \(0, 1\), got 3;",
    ):
        html_report(qrels, {"bm25": runs["bm25"]}, ["p@5"], alpha=3)
    # bad options are one error each (they ended in TypeError or AttributeError)
    one = {"bm25": runs["bm25"]}
    for bad, message in (
        ({"title": 3}, "title must be a string"),
        ({"max_k": "x"}, "max_k must be a positive integer"),
        ({"max_k": 0}, "max_k must be a positive integer"),
        ({"provenance": ["x"]}, "provenance must be a mapping"),
        ({"trend": {"p@5": 5}}, r"trend\['p@5'\] is 5"),
        ({"path": 3}, "path must be a file name"),
        ({"metrics": 5}, "metrics must be a metric string"),
        ({"metrics": []}, "metrics is empty"),
    ):
        with pytest.raises(InputError, match=message):
            html_report(qrels, one, **{"metrics": ["p@5"], **bad})


def test_legend_keeps_the_ends_of_long_run_names() -> None:
    """Run names that differ only at the end stay apart in a legend (they were cut at
    the end: two identical entries), shortened as the matplotlib charts shorten them."""
    names = [f"bm25-tuned-with-a-very-long-suffix-{i}" for i in (1, 2)]
    chart = svg.line_chart(
        [svg.Series(n, [1, 2], [0.1, 0.2]) for n in names], title="t", x_label="x", y_label="y"
    )
    legend = chart.split('<g class="rl-legend">', 1)[1]
    assert ">bm25-tuned-w\u2026long-suffix-1<" in legend
    assert ">bm25-tuned-w\u2026long-suffix-2<" in legend


def test_svg_pieces() -> None:
    assert svg.nice_ticks(0.0, 1.0) == pytest.approx([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert svg.nice_ticks(3.0, 3.0)[0] <= 2.5 and svg.nice_ticks(3.0, 3.0)[-1] >= 3.5
    chart = svg.line_chart(
        [svg.Series("a<b", [1, 2, 3, 4], [0.1, np.nan, 0.3, 0.4])],
        title="t&t",
        x_label="k",
        y_label="v",
    )
    (d,) = re.findall(r' d="([^"]*)"', chart)
    assert d.count("M") == 2 and d.count("L") == 1  # the NaN breaks the line
    assert "a&lt;b" in chart and "t&amp;t" in chart
    step = svg.step_series("h", np.array([0.0, 1.0, 2.0]), np.array([3, 5]))
    assert list(step.x) == [0.0, 1.0, 1.0, 2.0] and list(step.y) == [3, 3, 5, 5]
