"""ranklens.render.plots: every chart renders to a valid, non-empty PNG and SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

import ranklens
from ranklens.errors import UnsupportedError
from ranklens.render import plots

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _tables() -> tuple[ranklens.Qrels, dict[str, ranklens.Run]]:
    rng = np.random.default_rng(0)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(10)} for i in range(15)}
    runs = {name: ranklens.Run.from_dict(
        {q: {d: float(r + rng.normal(0, noise)) for d, r in docs.items()}
         for q, docs in qrels.items()}, name=name) for name, noise in (("bm25", 2.0),
                                                                       ("dense", 0.7))}
    return ranklens.Qrels.from_dict(qrels), runs


def _check_image(path: Path) -> None:
    data = path.read_bytes()
    assert len(data) > 1000
    if path.suffix == ".png":
        assert data.startswith(PNG_MAGIC)
    else:
        root = ET.fromstring(data)
        assert root.tag.endswith("svg")


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_every_plot_renders(tmp_path: Path, suffix: str) -> None:
    from matplotlib.figure import Figure

    qrels, runs = _tables()
    res = {n: ranklens.evaluate(qrels, r, ["ndcg@5"]) for n, r in runs.items()}
    made = {
        "cutoffs": plots.plot_cutoffs(qrels, runs, "ndcg", 10, tmp_path / f"c{suffix}"),
        "pr": plots.plot_pr_curves(qrels, runs, path=tmp_path / f"pr{suffix}"),
        "pri": plots.plot_pr_curves(qrels, list(runs.values()), "interpolated",
                                    path=tmp_path / f"pri{suffix}"),
        "prr": plots.plot_pr_curves(qrels, runs, "raw", path=tmp_path / f"prr{suffix}"),
        "diff": plots.plot_differences(res["bm25"], res["dense"], "ndcg@5",
                                       tmp_path / f"diff{suffix}"),
        "box": plots.plot_distribution(res, "ndcg@5", path=tmp_path / f"box{suffix}"),
        "hist": plots.plot_distribution(list(res.values()), "ndcg@5", "hist",
                                        tmp_path / f"hist{suffix}"),
    }
    for name, fig in made.items():
        assert isinstance(fig, Figure), name
    for name in ("c", "pr", "pri", "prr", "diff", "box", "hist"):
        _check_image(tmp_path / f"{name}{suffix}")


def test_cutoff_chart_plots_evaluate_cutoffs(tmp_path: Path) -> None:
    qrels, runs = _tables()
    fig = plots.plot_cutoffs(qrels, runs, "p", 5)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2
    want = ranklens.evaluate_cutoffs(qrels, runs["bm25"], ["p"], 5).curve("p")
    np.testing.assert_allclose(lines[0].get_ydata(), want)


def test_raw_pr_curve_means() -> None:
    qrels, runs = _tables()
    fig = plots.plot_pr_curves(qrels, runs, "raw")
    line = fig.axes[0].get_lines()[0]
    ev = ranklens.evaluate(qrels, runs["bm25"], ["p@3", "r@3"]).summary()
    assert line.get_ydata()[2] == pytest.approx(ev["p@3"])
    assert line.get_xdata()[2] == pytest.approx(ev["r@3"])


def test_bad_suffix_and_kind(tmp_path: Path) -> None:
    qrels, runs = _tables()
    with pytest.raises(UnsupportedError, match=r"\.png or \.svg"):
        plots.plot_cutoffs(qrels, runs, path=tmp_path / "x.jpg")
    with pytest.raises(UnsupportedError, match="kind"):
        plots.plot_pr_curves(qrels, runs, "smooth")


def test_cutoff_plot_stops_at_the_longest_ranking_and_draws_names_literally(tmp_path):
    import ranklens as rl
    from ranklens.render import plots

    qrels = rl.Qrels.from_dict({"q": {"a": 1, "b": 0}})
    run = rl.Run.from_dict({"q": {"a": 2.0, "b": 1.0, "c": 0.5}})
    fig = plots.plot_cutoffs(qrels, {"cost $5": run}, "p", max_k=100_000_000)
    ax = fig.axes[0]
    line = ax.get_lines()[0]
    assert list(line.get_xdata()) == [1, 2, 3]  # the longest ranking has 3 documents
    assert ax.get_legend().get_texts()[0].get_text() == r"cost \$5"
    assert all(float(t).is_integer() for t in ax.get_xticks())
