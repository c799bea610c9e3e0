"""Every family on the command line (issue 27, part 2): recommender evaluation from a
rank file and implicit held-out interactions, beyond-accuracy metrics with the data
they read, segments, the splitters, and the catalogue of every family; the same
numbers as the Python API."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result

from ranklens.cli import main
from ranklens.errors import RanklensWarning
from ranklens.metrics import metric_table
from ranklens.metrics.catalogue import FAMILIES
from ranklens.recsys import evaluate_interactions, evaluate_segments, split_to_files
from ranklens.recsys.splitters.files import SPLITTERS


def invoke(*args: Any) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _write(path: Path, header: str, rows: list[tuple[Any, ...]]) -> Path:
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def _summary(result: Result) -> dict[str, float]:
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout)["runs"][0]["summary"])


# ------------------------------------------------------------ the small case


@pytest.fixture
def small(tmp_path: Path) -> dict[str, Path]:
    """Hand-computed: u1's relevant b at rank 2, u2's relevant c at rank 2 (mrr 0.5);
    in the training log a is there twice, b and c once (arp = mean over the two
    lists of (2 + 1) / 2 = 1.5); a, b, c of the 4 training items are recommended
    (catalog coverage 0.75)."""
    return {
        "held": _write(tmp_path / "held.csv", "user_id,item_id", [("u1", "b"), ("u2", "c")]),
        "graded": _write(
            tmp_path / "graded.csv", "user_id,item_id,rel", [("u1", "b", 1), ("u2", "c", 1)]
        ),
        "recs": _write(
            tmp_path / "recs.csv",
            "user_id,item_id,rank",
            [("u1", "a", 1), ("u1", "b", 2), ("u2", "a", 1), ("u2", "c", 2)],
        ),
        "scores": _write(
            tmp_path / "scores.csv",
            "user_id,item_id,score",
            [("u1", "a", 0.9), ("u1", "b", 0.2), ("u2", "a", 5.0), ("u2", "c", -1.0)],
        ),
        "train": _write(
            tmp_path / "train.csv",
            "user_id,item_id",
            [("u3", "a"), ("u3", "b"), ("u4", "a"), ("u4", "c"), ("u5", "d")],
        ),
    }


def test_evaluate_reads_held_out_rows_without_a_grade_as_relevant(small: dict[str, Path]) -> None:
    """The issue's journey: `ranklens evaluate held.csv recs.csv`, the held-out rows
    with no grade column relevant (said on stderr), the rank column read as ranks."""
    res = invoke(
        "evaluate", small["held"], small["recs"], "-m", "mrr", "-m", "p@2", "--format", "json"
    )
    assert _summary(res) == {"mrr": 0.5, "p@2": 0.5}
    assert "no relevance column" in res.stderr and "--relevance-col" in res.stderr
    graded = invoke(
        "evaluate",
        small["graded"],
        small["recs"],
        "-m",
        "mrr",
        "-m",
        "p@2",
        "--format",
        "json",
        "--quiet",
    )
    assert _summary(graded) == _summary(res)
    quiet = invoke("evaluate", small["held"], small["recs"], "-m", "mrr", "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_evaluate_implicit_repeats_are_one_relevant_item(
    tmp_path: Path, small: dict[str, Path]
) -> None:
    held = _write(tmp_path / "rep.csv", "user_id,item_id", [("u1", "b"), ("u1", "b"), ("u2", "c")])
    res = invoke("evaluate", held, small["recs"], "-m", "ndcg@2", "--format", "json", "--quiet")
    # each user's one relevant item at rank 2: 1/log2(3) both
    assert _summary(res)["ndcg@2"] == pytest.approx(1 / math.log2(3), abs=1e-12)


def test_evaluate_still_refuses_a_table_without_the_query_column(tmp_path: Path) -> None:
    held = _write(tmp_path / "h.csv", "who,item_id", [("u1", "b")])
    run = _write(tmp_path / "r.csv", "user_id,item_id,score", [("u1", "b", 1.0)])
    res = invoke("evaluate", held, run, "-m", "mrr")
    assert res.exit_code == 3 and "--query-col" in res.stderr and "who" in res.stderr


def test_evaluate_points_beyond_accuracy_metrics_to_recsys(small: dict[str, Path]) -> None:
    res = invoke("evaluate", small["held"], small["recs"], "-m", "mrr", "-m", "novelty@10")
    assert res.exit_code == 2
    assert "ranklens recsys" in res.stderr and "--train FILE" in res.stderr


def test_recsys_hand_computed(small: dict[str, Path]) -> None:
    res = invoke(
        "recsys",
        small["held"],
        small["recs"],
        "-m",
        "mrr",
        "-m",
        "arp",
        "-m",
        "catalog_coverage",
        "--train",
        small["train"],
        "--format",
        "json",
    )
    assert _summary(res) == {"mrr": 0.5, "arp": 1.5, "catalog_coverage": 0.75}
    assert "'rank' column is read as ranks" in res.stderr
    assert "--train" in res.stderr  # the catalog is the training items, said in options


def test_recsys_table_has_the_totals_as_summary_columns(small: dict[str, Path]) -> None:
    res = invoke(
        "recsys",
        small["held"],
        small["recs"],
        "-m",
        "mrr",
        "-m",
        "catalog_coverage",
        "--train",
        small["train"],
        "--quiet",
    )
    assert res.exit_code == 0, res.output
    header, _, row = res.stdout.strip().splitlines()
    assert header.split() == ["run", "mrr", "catalog_coverage"]
    assert row.split() == ["recs", "0.5000", "0.7500"]
    assert res.stderr == ""
    per_user = invoke(
        "recsys",
        small["held"],
        small["recs"],
        "-m",
        "mrr",
        "-m",
        "catalog_coverage",
        "--train",
        small["train"],
        "-q",
        "--format",
        "csv",
    )
    assert per_user.exit_code == 2 and "catalog_coverage" in per_user.stderr


def test_recsys_implicit_equals_explicit_grade_one_and_ranks_equal_scores(
    small: dict[str, Path],
) -> None:
    args = [
        "-m",
        "mrr",
        "-m",
        "ndcg@2",
        "-m",
        "novelty",
        "--train",
        small["train"],
        "--format",
        "json",
        "--quiet",
    ]
    implicit = _summary(invoke("recsys", small["held"], small["recs"], *args))
    graded = _summary(
        invoke("recsys", small["graded"], small["recs"], "--relevance-col", "rel", *args)
    )
    scores = _summary(invoke("recsys", small["held"], small["scores"], *args))
    by_rank = _summary(invoke("recsys", small["held"], small["recs"], "--rank-col", "rank", *args))
    assert implicit == graded == scores == by_rank
    assert implicit["mrr"] == 0.5 and implicit["ndcg@2"] == pytest.approx(1 / math.log2(3))


def test_a_missing_training_log_names_the_option(small: dict[str, Path]) -> None:
    for metric in ("novelty@10", "arp", "catalog_coverage"):
        res = invoke("recsys", small["held"], small["recs"], "-m", metric)
        assert res.exit_code == 2, res.output
        assert "--train FILE" in res.stderr and "Traceback" not in res.stderr
    ild = invoke("recsys", small["held"], small["recs"], "-m", "ild")
    assert ild.exit_code == 2 and "--item-features FILE or --categories FILE" in ild.stderr


def test_recsys_metric_errors_are_usage_errors(small: dict[str, Path]) -> None:
    unknown = invoke("recsys", small["held"], small["recs"], "-m", "nope")
    assert unknown.exit_code == 2 and "nope" in unknown.stderr
    other = invoke("recsys", small["held"], small["recs"], "-m", "accuracy")
    assert other.exit_code == 2 and "ranklens recsys takes" in other.stderr


def test_recsys_store_records_the_result(small: dict[str, Path], tmp_path: Path) -> None:
    from ranklens.history import Store

    db = tmp_path / "r.db"
    res = invoke("recsys", small["held"], small["recs"], "-m", "mrr", "--store", db)
    assert res.exit_code == 0, res.output
    assert "recorded 1 result" in res.stderr
    with Store(str(db)) as store:
        (record,) = store.records()
        assert record.result().summary() == {"mrr": 0.5}


# ------------------------------------------------- every recsys metric: CLI == Python


@pytest.fixture(scope="module")
def random_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    rng = np.random.default_rng(7)
    tmp = tmp_path_factory.mktemp("random")
    items = [f"i{j:02d}" for j in range(30)]
    users = [f"u{j:02d}" for j in range(25)]
    recs = []
    for u in users[:22]:  # some held-out users without a list
        for r, it in enumerate(rng.choice(items[:26], size=8, replace=False), start=1):
            recs.append((u, it, round(float(rng.normal()), 6), r))
    held = sorted({(u, str(rng.choice(items))) for u in users[2:] for _ in range(3)})
    train = [(str(rng.choice(users)), str(rng.choice(items[:28]))) for _ in range(200)]
    return {
        "recs": _write(tmp / "recs.csv", "user_id,item_id,score,position", recs),
        "held": _write(tmp / "held.csv", "user_id,item_id", held),
        "train": _write(tmp / "train.csv", "user_id,item_id", train),
        "catalog": _write(tmp / "catalog.csv", "item_id", [(i,) for i in items]),
        "features": _write(
            tmp / "features.csv",
            "item_id,f1,f2,f3",
            [(i, *np.round(rng.normal(size=3), 4)) for i in items],
        ),
        "categories": _write(
            tmp / "categories.csv", "item_id,genre", [(i, f"g{j % 4}") for j, i in enumerate(items)]
        ),
    }


RECSYS = [r["name"] for r in metric_table("recsys")]
#: The parameters a metric needs on this case (no default).
PARAMS = {"serendipity": "(threshold=0.5)"}


@pytest.mark.parametrize("name", RECSYS)
@pytest.mark.parametrize("distances", ["features", "categories"])
def test_every_recsys_metric_gives_the_python_numbers(
    name: str, distances: str, random_case: dict[str, Path]
) -> None:
    c = random_case
    params = PARAMS.get(name, "")
    metrics = [f"{name}{params}@5", "ndcg@5"]
    kw: dict[str, Any] = {"train": str(c["train"]), "catalog": str(c["catalog"])}
    args = ["--train", c["train"], "--catalog", c["catalog"]]
    if distances == "features":
        kw["item_features"] = str(c["features"])
        args += ["--item-features", c["features"]]
    else:
        kw |= {"categories": str(c["categories"]), "category": "genre"}
        args += ["--categories", c["categories"], "--category-col", "genre"]
    py = evaluate_interactions(str(c["recs"]), str(c["held"]), metrics, **kw).summary()
    cli = _summary(
        invoke(
            "recsys",
            c["held"],
            c["recs"],
            *[a for m in metrics for a in ("-m", m)],
            *args,
            "--format",
            "json",
            "--quiet",
        )
    )
    assert cli.keys() == py.keys()
    for key, value in py.items():
        assert (cli[key] is None and math.isnan(value)) or cli[key] == value, key
    assert math.isfinite(py[metrics[0]])  # a case where the metric says something


def test_recsys_conventions_reach_the_library(random_case: dict[str, Path]) -> None:
    c = random_case
    for args, kw in [
        (["--missing", "skip"], {"missing": "skip"}),
        (["--unjudged", "zero"], {"unjudged": "zero"}),
        (
            ["--ties", "pessimistic", "--repeats", "binary"],
            {"ties": "pessimistic", "repeats": "binary"},
        ),
        (["-k", "3"], {"k": 3}),
        (["--rank-col", "position"], {"rank": "position", "score": None}),
    ]:
        py = evaluate_interactions(str(c["recs"]), str(c["held"]), ["ndcg", "mrr"], **kw)
        cli = invoke(
            "recsys",
            c["held"],
            c["recs"],
            "-m",
            "ndcg",
            "-m",
            "mrr",
            *args,
            "--format",
            "json",
            "--quiet",
        )
        assert _summary(cli) == py.summary(), args
    # skip and zero differ on this case (users without a list; users without held-out)
    assert (
        evaluate_interactions(str(c["recs"]), str(c["held"]), ["mrr"], missing="skip").summary()
        != evaluate_interactions(str(c["recs"]), str(c["held"]), ["mrr"]).summary()
    )


def test_recsys_help_says_its_own_defaults(small: dict[str, Path]) -> None:
    res = invoke("recsys", "--help")
    assert "zero (default; they score 0" in res.stdout and "skip (default; they" in res.stdout
    bad = invoke("recsys", small["held"], small["recs"], "--missing", "error")
    assert bad.exit_code == 2 and "'zero', 'skip'" in bad.stderr


@pytest.mark.parametrize("by", ["user", "item"])
def test_segments_give_the_python_numbers(by: str, random_case: dict[str, Path]) -> None:
    c = random_case
    with warnings.catch_warnings():  # users without held-out interactions: said, and left out
        warnings.simplefilter("ignore", RanklensWarning)
        py = evaluate_segments(
            str(c["recs"]),
            str(c["held"]),
            ["mrr", "recall@5"],
            train=str(c["train"]),
            by=by,
            hot_threshold=8,
        )
    res = invoke(
        "recsys",
        c["held"],
        c["recs"],
        "-m",
        "mrr",
        "-m",
        "recall@5",
        "--train",
        c["train"],
        "--segments",
        by,
        "--hot-threshold",
        "8",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["by"] == by and doc["segments"] == py.rows()
    assert {r["segment"] for r in py.rows()} >= {"all", "warm"}


@pytest.mark.parametrize("by", ["user", "item"])
def test_segments_with_beyond_accuracy_inputs_give_the_python_numbers(
    by: str, random_case: dict[str, Path]
) -> None:
    """--segments item once refused --categories (the library failed with a TypeError
    on the keywords); both segmentations take every input."""
    c = random_case
    metrics = ["mrr", "arp@5", "ild@5", "serendipity(threshold=0.5)@5"]
    with warnings.catch_warnings():  # users without a profile: said, and left out
        warnings.simplefilter("ignore", RanklensWarning)
        py = evaluate_segments(
            str(c["recs"]),
            str(c["held"]),
            metrics,
            train=str(c["train"]),
            categories=str(c["categories"]),
            category="genre",
            by=by,
            hot_threshold=8,
        )
    res = invoke(
        "recsys",
        c["held"],
        c["recs"],
        *[a for m in metrics for a in ("-m", m)],
        "--train",
        c["train"],
        "--categories",
        c["categories"],
        "--category-col",
        "genre",
        "--segments",
        by,
        "--hot-threshold",
        "8",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["segments"] == py.rows()
    assert set(doc["segments"][0]) == {"segment", "n_queries", *metrics}


def test_segments_need_the_training_log(small: dict[str, Path]) -> None:
    res = invoke("recsys", small["held"], small["recs"], "--segments", "user")
    assert res.exit_code == 2 and "--train FILE" in res.stderr
    hot = invoke("recsys", small["held"], small["recs"], "--hot-threshold", "2")
    assert hot.exit_code == 2 and "--segments" in hot.stderr


# -------------------------------------------------- --store, and no HELD_OUT (issue 27)


def _history(store: Path, *args: Any) -> Any:
    res = invoke("history", store, *args, "--format", "json")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_recsys_store_records_the_totals(small: dict[str, Path], tmp_path: Path) -> None:
    """mrr 0.5, arp 1.5, catalog coverage 0.75 (the small case, by hand): the coverage
    of all lists together is kept with the per-user means."""
    db = tmp_path / "r.db"
    res = invoke(
        "recsys",
        small["held"],
        small["recs"],
        *("-m", "mrr", "-m", "arp", "-m", "catalog_coverage"),
        *("--train", small["train"], "--store", db, "--tag", "model=v1", "--quiet"),
    )
    assert res.exit_code == 0, res.output
    (rec,) = _history(db)["records"]
    assert rec["command"] == "recsys" and rec["tags"] == {"model": "v1"}
    assert rec["mrr"] == 0.5 and rec["arp"] == 1.5 and rec["catalog_coverage"] == 0.75
    shown = _history(db, "show", rec["id"])
    assert shown["summary"] == {"mrr": 0.5, "arp": 1.5, "catalog_coverage": 0.75}
    text = invoke("history", db, "show", str(rec["id"]))
    assert "catalog_coverage (all lists)" in text.stdout


@pytest.mark.parametrize("by", ["user", "item"])
def test_recsys_segments_are_stored(by: str, random_case: dict[str, Path], tmp_path: Path) -> None:
    """--store with --segments (once refused): the record is the evaluation of every
    user (the segment 'all'), with the segment table in its details; history lists it
    with its command and 'show' prints the table."""
    c = random_case
    db = tmp_path / "r.db"
    args = [
        *("recsys", c["held"], c["recs"], "-m", "mrr", "-m", "arp@5", "--train", c["train"]),
        *("--segments", by, "--hot-threshold", "8", "--format", "json", "--quiet"),
    ]
    printed = invoke(*args)
    stored = invoke(*args, "--store", db)
    assert printed.exit_code == 0 and stored.exit_code == 0, stored.output
    rows = json.loads(stored.stdout)["segments"]
    assert json.loads(printed.stdout)["segments"] == rows
    (rec,) = _history(db)["records"]
    assert rec["command"] == "recsys"
    every = next(r for r in rows if r["segment"] == "all")
    assert rec["n_queries"] == every["n_queries"]
    assert rec["mrr"] == every["mrr"] and rec["arp@5"] == every["arp@5"]
    shown = _history(db, "show", rec["id"])
    assert shown["details"]["segments"]["by"] == by
    assert shown["details"]["segments"]["hot_threshold"] == 8
    assert shown["details"]["segments"]["rows"] == rows
    text = invoke("history", db, "show", str(rec["id"])).stdout
    assert f"segments of {by}s" in text and "warm" in text


def test_recsys_without_held_out(small: dict[str, Path], tmp_path: Path) -> None:
    """RECOMMENDATIONS alone, when every metric reads only the lists: training users
    u3, u4, u5; a is in 2 of their profiles, b and c in 1: u1 [a, b] and u2 [a, c]
    have novelty (log2(3/2) + log2(3)) / 2; a, b, c of a, b, c, d recommended."""
    db = tmp_path / "r.db"
    res = invoke(
        "recsys",
        small["recs"],
        *("-m", "novelty", "-m", "catalog_coverage", "--train", small["train"]),
        *("--format", "json", "--quiet", "--store", db),
    )
    want = {"novelty": (math.log2(1.5) + math.log2(3)) / 2, "catalog_coverage": 0.75}
    assert _summary(res) == pytest.approx(want, rel=1e-12)
    py = evaluate_interactions(
        str(small["recs"]), None, ["novelty", "catalog_coverage"], train=str(small["train"])
    )
    assert _summary(res) == py.summary()
    (rec,) = _history(db)["records"]
    assert rec["command"] == "recsys" and rec["n_queries"] == 2
    seg = invoke(
        "recsys", small["recs"], "-m", "novelty", "--train", small["train"], "--segments", "user"
    )
    assert seg.exit_code == 0, seg.output


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-m", "ndcg@3", "-m", "novelty"], ["'ndcg@3'", "HELD_OUT"]),
        ([], ["'ndcg@10' (a default metric; -m chooses others)", "HELD_OUT"]),
        (["-m", "serendipity(threshold=0.5)", "--categories", "CATS"], ["serendipity", "HELD_OUT"]),
        (["-m", "novelty", "--missing", "skip"], ["--missing", "no HELD_OUT"]),
        (["-m", "novelty", "--relevance-col", "rel"], ["--relevance-col", "no HELD_OUT"]),
        (["-m", "novelty", "--segments", "item"], ["--segments item", "HELD_OUT"]),
    ],
)
def test_recsys_without_held_out_names_what_needs_it(
    small: dict[str, Path], args: list[str], words: list[str]
) -> None:
    cats = _write(small["train"].parent / "cats.csv", "item_id,category", [("a", "x")])
    args = [str(cats) if a == "CATS" else a for a in args]
    res = invoke("recsys", small["recs"], "--train", small["train"], *args)
    assert res.exit_code == 2, res.output
    for w in words:
        assert w in res.stderr
    assert "Traceback" not in res.output


def test_recsys_takes_one_or_two_files(small: dict[str, Path]) -> None:
    for files in ([], [small["held"], small["recs"], small["recs"]]):
        res = invoke("recsys", *files, "-m", "novelty", "--train", small["train"])
        assert res.exit_code == 2 and "HELD_OUT RECOMMENDATIONS" in res.stderr
    assert "[HELD_OUT] RECOMMENDATIONS" in invoke("recsys", "--help").stdout


def test_recsys_records_and_reports_its_inputs_and_the_gate_compares_them(
    small: dict[str, Path], tmp_path: Path
) -> None:
    """The training log a novelty depends on is fingerprinted in the JSON report and
    the stored record; a gate between records of other training logs is refused (3)
    naming --allow-different-inputs, as other qrels are."""
    db = tmp_path / "r.db"
    other = _write(
        tmp_path / "other.csv", "user_id,item_id", [("u3", "a"), ("u4", "b"), ("u4", "c")]
    )
    docs = []
    for train in (small["train"], other):
        res = invoke(
            "recsys",
            small["held"],
            small["recs"],
            *("-m", "mrr", "-m", "novelty", "--train", train, "--store", db),
            *("--format", "json", "--quiet"),
        )
        assert res.exit_code == 0, res.output
        docs.append(json.loads(res.stdout)["runs"][0]["provenance"])
    py = evaluate_interactions(
        str(small["recs"]), str(small["held"]), ["novelty"], train=str(small["train"])
    )
    assert py.result.provenance is not None
    assert docs[0]["inputs"] == py.result.provenance.inputs  # {"train": ...}
    assert list(docs[0]["inputs"]) == ["train"]
    assert docs[0]["inputs"] != docs[1]["inputs"] and docs[0]["qrels"] == docs[1]["qrels"]
    shown = invoke("history", db, "show", "1").stdout
    assert f"inputs: train {docs[0]['inputs']['train'][:16]}" in shown
    gate = ["gate", small["held"], f"{db}#2", "--baseline", f"{db}#1"]
    refused = invoke(*gate, "--max-drop", "novelty=10")
    assert refused.exit_code == 3, refused.output
    assert "train: fingerprints" in refused.stderr and "--allow-different-inputs" in refused.stderr
    allowed = invoke(*gate, "--max-drop", "novelty=10", "--allow-different-inputs")
    assert allowed.exit_code == 0, allowed.output
    # as a record of other qrels is, one of other inputs is said on stderr
    warned = f"{db}#1 was evaluated with other inputs than {db}#2 (train: fingerprints"
    assert warned in " ".join(allowed.stderr.split())
    compared = invoke("compare", small["held"], f"{db}#1", f"{db}#2", "-m", "novelty")
    assert compared.exit_code == 0, compared.output
    assert "was evaluated with other inputs than" in " ".join(compared.stderr.split())
    assert invoke(*gate, "--max-drop", "mrr=0.1").exit_code == 0  # mrr reads no log


# ------------------------------------------------------------------------- splitters


def _log(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    rows = [
        (f"u{rng.integers(6)}", f"i{rng.integers(9):02d}", int(t), int(rng.integers(1, 3)))
        for t in rng.permutation(40)
    ]
    return _write(tmp_path / "log.csv", "user_id,item_id,timestamp,rating", rows)


#: Options that make each splitter's split the same in two calls, and valid on the log.
SPLIT_ARGS: dict[str, dict[str, str]] = {
    "random": {"--random-state": "1", "--n-splits": "2", "--test-size": "0.25"},
    "kfold": {"--n-splits": "3", "--random-state": "2"},
    "stratified": {"--n-splits": "2"},
    "group-kfold": {"--n-splits": "3"},
    "leave-p-out": {},
    "leave-last": {"--n": "2"},
    "leave-one-out": {},
    "user-ratio": {"--test-size": "0.3", "--by": "random", "--random-state": "4"},
    "time": {"--test-start": "30", "--gap": "2"},
    "time-cv": {"--n-splits": "2", "--test-size": "5"},
    "two-stage": {"--test-size": "0.25", "--local-test-size": "0.3", "--random-state": "5"},
}


def test_every_splitter_has_its_case() -> None:
    assert sorted(SPLIT_ARGS) == sorted(SPLITTERS)


@pytest.mark.parametrize("name", sorted(SPLITTERS))
def test_every_splitter_writes_the_rows_of_split_to_files(name: str, tmp_path: Path) -> None:
    log = _log(tmp_path)
    flags = ["--shuffle"] if name == "kfold" else []
    drop = name in ("random", "leave-last", "time")  # a flag of the shared parameters
    opts = [a for k, v in SPLIT_ARGS[name].items() for a in (k, v)]
    cold = ["--drop-cold-items"] if drop else []
    res = invoke("split", name, log, "-o", tmp_path / "cli", *opts, *flags, *cold)
    assert res.exit_code == 0, res.output
    defn = SPLITTERS[name]
    params = (
        {
            k.removeprefix("--").replace("-", "_"): p.convert(v)
            for k, v in SPLIT_ARGS[name].items()
            for p in defn.params
            if p.option == k
        }
        | ({"shuffle": True} if flags else {})
        | ({"drop_cold_items": True} if drop else {})
    )
    py = split_to_files(str(log), name, tmp_path / "py", params=params)
    cli_files = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert cli_files == sorted(Path(f.path).name for f in py.files)
    for f in py.files:
        assert (tmp_path / "cli" / Path(f.path).name).read_bytes() == Path(f.path).read_bytes()
    for f in py.files:  # the printed table lists each file and its rows
        assert any(
            line.split()[0].endswith(Path(f.path).name) and line.split()[-1] == str(f.rows)
            for line in res.stdout.splitlines()
        ), f


def test_split_columns_format_and_overwrite(tmp_path: Path) -> None:
    log = _write(tmp_path / "log.tsv", "who\twhat\twhen", [])
    log.write_text("who\twhat\twhen\nu1\ta\t1\nu1\tb\t2\nu2\ta\t3\nu2\tc\t4\n")
    out = tmp_path / "out"
    args = [
        "split",
        "leave-one-out",
        log,
        "-o",
        out,
        "--query-col",
        "who",
        "--doc-col",
        "what",
        "--time-col",
        "when",
        "--format",
        "jsonl",
    ]
    res = invoke(*args)
    assert res.exit_code == 0, res.output
    test = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert test == [{"who": "u1", "what": "b", "when": 2}, {"who": "u2", "what": "c", "when": 4}]
    again = invoke(*args)
    assert again.exit_code == 3 and "--force" in again.stderr
    assert invoke(*args, "--force").exit_code == 0
    bad = invoke("split", "random", log, "-o", out, "--test-size", "half")
    assert bad.exit_code == 2 and "--test-size" in bad.stderr


# --------------------------------------------------------------------- the catalogue


def test_metrics_novelty_is_described() -> None:
    res = invoke("metrics", "novelty")
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("novelty: ")
    assert "family: recsys" in res.stdout and "needs: --train" in res.stdout
    alias = invoke("metrics", "self_information")
    assert alias.exit_code == 0 and alias.stdout == res.stdout
    doc = json.loads(invoke("metrics", "novelty", "--format", "json").stdout)
    assert doc["name"] == "novelty" and doc["inputs"][0]["options"] == ["--train"]


def test_metrics_json_lists_every_family() -> None:
    res = invoke("metrics", "--format", "json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert [f["name"] for f in doc["families"]] == list(FAMILIES)
    assert {m["family"] for m in doc["metrics"]} == set(FAMILIES)
    assert [m["name"] for m in doc["metrics"]] == [r["name"] for r in metric_table()]
    table = invoke("metrics")
    for family in FAMILIES:  # a heading per family in the table
        assert f"\n{family}: " in "\n" + table.stdout


def test_metrics_family_filters() -> None:
    res = invoke("metrics", "--family", "recsys", "--format", "csv")
    assert res.exit_code == 0
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("name,family,")
    assert len(lines) - 1 == len(RECSYS) and all(
        ',"recsys",' in ln or ",recsys," in ln for ln in lines[1:]
    )
    table = invoke("metrics", "--family", "recsys")
    assert "needs --catalog or --train" in table.stdout and "ranking:" not in table.stdout
    assert invoke("metrics", "--family", "nope").exit_code == 2
    assert invoke("metrics", "ndcg", "--family", "ranking").exit_code == 2


# --------------------------------------------------------------------- -m semantics


def test_ranklens_printed_names_are_all_printed(tmp_path: Path) -> None:
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
    run = tmp_path / "r.txt"
    run.write_text("".join(f"q1 Q0 {d} {i} {10 - i} x\n" for i, d in enumerate("abcdefghijk", 1)))
    res = invoke("evaluate", qrels, run, "-m", "P_5", "-m", "P_10", "--format", "json")
    assert _summary(res) == {"P_5": 2 / 5, "P_10": 2 / 10}
    # trec_eval's own spelling keeps trec_eval's rule: the first -m's parameters
    trec = invoke("evaluate", qrels, run, "-m", "P.5", "-m", "P.10", "--format", "json")
    assert list(_summary(trec)) == ["P.5"]
