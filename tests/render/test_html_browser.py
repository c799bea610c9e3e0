"""The HTML report in a real browser: Debian's Chromium, headless, driven by selenium
through Debian's chromedriver (nothing is downloaded).  The page loads from file://
with no console message and no request but the file itself; the per-query table sorts
and filters on clicks and typing; every chart is drawn; a screenshot is saved.

``.ci/run`` installs ``chromium`` and ``chromium-driver`` when they are missing, so
this runs in CI; elsewhere it is skipped when they are absent.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")
pytest.importorskip("selenium", reason="selenium is in the test extra")

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import ranklens
from ranklens.render.html import html_report
from ranklens.render.table import number
from tests.helpers import HOSTILE_QUERY, HOSTILE_RUN, report_case

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()),
    reason="Chromium is not installed: apt-get install chromium chromium-driver (.ci/run "
    "does it when /usr/bin/chromium is missing)",
)
N = 130  # more than a page (50 rows)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--window-size=1400,1000",
)


@pytest.fixture(scope="module")
def case() -> tuple[ranklens.Qrels, dict[str, ranklens.Run]]:
    return report_case(N, seed=11)


@pytest.fixture(scope="module")
def report(case: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    qrels, runs = case
    path = tmp_path_factory.mktemp("browser") / "report.html"
    with pytest.warns(ranklens.RanklensWarning):  # dense lacks a query
        html_report(qrels, runs, ["ndcg@10", "map", "p@5"], path=path, seed=1, n_resamples=300)
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    os.environ["SE_OFFLINE"] = "true"  # selenium manager: never fetch a driver
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(browser: Any, report: Path) -> tuple[Any, list[dict[str, Any]], list[str]]:
    """The report loaded; its console messages and the URLs it requested."""
    browser.get("about:blank")
    browser.get_log("performance")  # drop what the start page did
    browser.get_log("browser")
    browser.get(report.as_uri())
    console = browser.get_log("browser")
    events = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = [
        e["params"]["request"]["url"] for e in events if e["method"] == "Network.requestWillBeSent"
    ]
    return browser, console, urls


def _rows(driver: Any) -> list[list[str]]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#rl-queries tbody tr'), "
        "tr => Array.from(tr.cells, c => c.textContent));"
    )


def _type(box: Any, text: str) -> None:
    """Replace the text of an input as a user does (clear() fires no input event)."""
    box.send_keys(Keys.BACKSPACE * len(box.get_attribute("value")) + text)


def _header(driver: Any, label: str) -> Any:
    for button in driver.find_elements(By.CSS_SELECTOR, "#rl-queries thead button"):
        if button.text == label:
            return button
    raise AssertionError(f"no column {label!r}")


def test_loads_offline_without_errors(page: Any, report: Path) -> None:
    driver, console, urls = page
    assert console == []  # no error, no policy violation, no message at all
    assert urls == [report.as_uri()]  # the file itself and nothing else
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 - the hostile ids ran nothing
    assert driver.title == "ranklens report"


def test_sorts_and_pages(page: Any, case: Any) -> None:
    driver, _, _ = page
    qrels, runs = case
    assert len(_rows(driver)) == 50
    status = driver.find_element(By.ID, "rl-status").text
    assert status == f"Queries 1–50 of {N} shown; page 1 of 3."
    rows = _rows(driver)
    assert rows[0][0] == HOSTILE_QUERY  # shown as text, first in id order
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    _header(driver, "bm25").click()  # a value column: biggest first
    per = ranklens.evaluate(qrels, runs["bm25"], ["ndcg@10"]).per_query("ndcg@10")
    expected = sorted(per, key=lambda q: (-float(number(per[q])), q))
    assert [r[0] for r in _rows(driver)] == expected[:50]
    assert [r[1] for r in _rows(driver)] == [number(per[q]) for q in expected[:50]]
    _header(driver, "bm25").click()  # again: smallest first
    assert [r[0] for r in _rows(driver)] == sorted(per, key=lambda q: (float(number(per[q])), q))[
        :50
    ]
    driver.find_element(By.ID, "rl-next").click()
    driver.find_element(By.ID, "rl-next").click()
    assert (
        len(_rows(driver)) == N - 100
        and driver.find_element(By.ID, "rl-next").get_attribute("disabled") is not None
    )
    _header(driver, "query").click()  # back to id order
    assert _rows(driver)[0][0] == HOSTILE_QUERY


def test_filters(page: Any, case: Any) -> None:
    driver, _, _ = page
    qrels, runs = case
    box = driver.find_element(By.ID, "rl-filter")
    _type(box, "q1")
    ids = [f"q{i}" for i in range(1, N)]
    want = sorted(q for q in ids if "q1" in q)
    assert [r[0] for r in _rows(driver)] == want
    _type(box, "<SCRIPT>")  # case does not matter
    assert [r[0] for r in _rows(driver)] == [HOSTILE_QUERY]
    _type(box, "")
    assert len(_rows(driver)) == 50  # every query again, a page of them
    Select(driver.find_element(By.ID, "rl-metric")).select_by_visible_text("map")
    Select(driver.find_element(By.ID, "rl-page-size")).select_by_visible_text("500")
    Select(driver.find_element(By.ID, "rl-outcome")).select_by_visible_text("losses of dense")
    base = ranklens.evaluate(qrels, runs["bm25"], ["map"]).per_query("map")
    dense = ranklens.evaluate(qrels, runs["dense"], ["map"]).per_query("map")
    losses = sorted(q for q in dense if dense[q] - base[q] < -1e-12)
    rows = _rows(driver)
    assert [r[0] for r in rows] == losses
    column = 1 + 3 + 1  # query, three runs, then the differences (HOSTILE_RUN, dense)
    assert [r[column] for r in rows] == [number(dense[q] - base[q]) for q in losses]
    classes = driver.execute_script(
        f"return Array.from(document.querySelectorAll('#rl-queries tbody tr'), "
        f"tr => tr.cells[{column}].className);"
    )
    assert all("loss" in c for c in classes)
    header = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#rl-queries thead button")]
    assert header == ["query", "bm25", HOSTILE_RUN, "dense", f"Δ {HOSTILE_RUN}", "Δ dense"]


def test_charts_are_drawn(page: Any, tmp_path: Path) -> None:
    driver, _, _ = page
    charts = driver.execute_script("""
        return Array.from(document.querySelectorAll('svg.rl-chart'), svg => {
          const box = svg.getBoundingClientRect();
          const lines = Array.from(svg.querySelectorAll('path.rl-line'), p => {
            const b = p.getBBox();
            return [p.getAttribute('d').length, b.width, b.height, p.getTotalLength()];
          });
          return {section: svg.closest('section').id, width: box.width, height: box.height,
                  lines: lines, points: svg.querySelectorAll('circle').length};
        });""")
    sections = {c["section"] for c in charts}
    assert {"cutoffs", "pr", "distributions"} <= sections
    for c in charts:
        assert c["width"] > 100 and c["height"] > 50
        assert c["lines"], c
        assert all(n > 0 and length > 0 for n, _, _, length in c["lines"]), c
        assert any(w > 0 for _, w, _, _ in c["lines"]), c
    assert sum(c["points"] for c in charts if c["section"] == "cutoffs") > 0
    # the whole page, top to bottom, as a person would scroll through it
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    image = driver.execute_cdp_cmd(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
        },
    )
    shot = tmp_path / "report.png"
    shot.write_bytes(base64.b64decode(image["data"]))
    assert shot.stat().st_size > 10_000
