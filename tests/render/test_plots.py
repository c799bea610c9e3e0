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
    runs = {
        name: ranklens.Run.from_dict(
            {
                q: {d: float(r + rng.normal(0, noise)) for d, r in docs.items()}
                for q, docs in qrels.items()
            },
            name=name,
        )
        for name, noise in (("bm25", 2.0), ("dense", 0.7))
    }
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
        "pri": plots.plot_pr_curves(
            qrels, list(runs.values()), "interpolated", path=tmp_path / f"pri{suffix}"
        ),
        "prr": plots.plot_pr_curves(qrels, runs, "raw", path=tmp_path / f"prr{suffix}"),
        "diff": plots.plot_differences(
            res["bm25"], res["dense"], "ndcg@5", tmp_path / f"diff{suffix}"
        ),
        "box": plots.plot_distribution(res, "ndcg@5", path=tmp_path / f"box{suffix}"),
        "hist": plots.plot_distribution(
            list(res.values()), "ndcg@5", "hist", tmp_path / f"hist{suffix}"
        ),
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


def test_long_names_and_titles_fit(tmp_path: Path) -> None:
    """Run names are shortened around an ellipsis (start and end kept) in legends, tick
    labels and titles; titles wrap; a '$' stays literal everywhere."""
    qrels, runs = _tables()
    long_a = "bm25_" + "x" * 80 + "_final$v1"
    long_b = "dense_" + "y" * 80 + "_final$v2"
    named = {long_a: runs["bm25"], long_b: runs["dense"]}
    fig = plots.plot_cutoffs(qrels, named, "ndcg", 5)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    for text, name in zip(texts, named, strict=True):
        plain = text.replace(r"\$", "$")
        assert len(plain) == plots.NAME_CHARS and "\u2026" in plain
        assert name.startswith(plain.split("\u2026")[0])
        assert name.endswith(plain.split("\u2026")[1])
    res = {n: ranklens.evaluate(qrels, r, ["ndcg@10"]) for n, r in named.items()}
    fig = plots.plot_differences(res[long_a], res[long_b], "ndcg@10", labels=(long_a, long_b))
    title = fig.axes[0].get_title()
    assert all(len(line) <= plots.TITLE_CHARS + 2 for line in title.split("\n"))
    assert "\n" in title and "$" not in title.replace(r"\$", "")
    fig = plots.plot_distribution(res, "ndcg@10")
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert all(len(t.replace(r"\$", "$")) <= plots.NAME_CHARS for t in ticks)
    assert all("$" not in t.replace(r"\$", "") for t in ticks)


def test_runs_that_share_no_query_are_refused() -> None:
    from ranklens.errors import InputError

    qrels = ranklens.Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 1}})
    a = ranklens.Run.from_dict({"q1": {"a": 1.0}})
    b = ranklens.Run.from_dict({"q2": {"b": 1.0}})
    message = r"the runs share no query \(a: 1, b: 1 queries\)"
    for call in (
        lambda: plots.plot_cutoffs(qrels, {"a": a, "b": b}),
        lambda: plots.plot_pr_curves(qrels, {"a": a, "b": b}),
        lambda: plots.plot_differences(
            ranklens.evaluate(qrels, a, ["p@1"]),
            ranklens.evaluate(qrels, b, ["p@1"]),
            "p@1",
            labels=("a", "b"),
        ),
        lambda: plots.plot_distribution(
            {"a": ranklens.evaluate(qrels, a, ["p@1"]), "b": ranklens.evaluate(qrels, b, ["p@1"])},
            "p@1",
        ),
    ):
        with pytest.raises(InputError, match=message):
            call()


@pytest.mark.parametrize("kind", ["cutoffs", "pr", "diff", "dist"])
def test_plot_command_refuses_runs_without_a_common_query(tmp_path: Path, kind: str) -> None:
    from click.testing import CliRunner

    from ranklens.cli import main

    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "a.txt").write_text("q1 Q0 a 1 1.0 ra\n")
    (tmp_path / "b.txt").write_text("q2 Q0 b 1 1.0 rb\n")
    res = CliRunner().invoke(
        main,
        [
            "plot",
            kind,
            str(tmp_path / "qrels.txt"),
            str(tmp_path / "a.txt"),
            str(tmp_path / "b.txt"),
            "-o",
            str(tmp_path / "out.png"),
        ],
    )
    assert res.exit_code == 3, res.output
    assert res.stderr.splitlines() == [
        "ranklens: error: the runs share no query (ra: 1, rb: 1 queries), so their charts "
        "do not compare; check that they answer the same topics."
    ]
    assert not (tmp_path / "out.png").exists()
