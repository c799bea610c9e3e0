"""``ranklens score``: every non-ranking domain computes, through the command
line, the value its family function gives on the same arrays; CSV, TSV,
Parquet, JSON Lines and compressed tables; json/csv outputs parse; errors are
one line with exit 2 (usage: metrics, options, parameters) or 3 (bad data)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner, Result

import ranklens.classification as clf
import ranklens.clustering as clu
import ranklens.entity_resolution as er
import ranklens.regression as reg
from ranklens.cli import main
from ranklens.cli.score import DOMAINS
from tests.helpers import one_line_error

pytest.importorskip("sklearn")

EXIT_USAGE = 2
EXIT_BAD_INPUT = 3

RNG = np.random.default_rng(7)
N = 40
Y_BIN = np.tile([0, 1], N // 2)
P_BIN = np.where(RNG.random(N) < 0.7, Y_BIN, 1 - Y_BIN)
S_BIN = np.round(np.clip(0.3 * Y_BIN + 0.7 * RNG.random(N), 0.01, 0.99), 4)
Y_MC = np.arange(N) % 3
P_MC = np.where(RNG.random(N) < 0.6, Y_MC, (Y_MC + 1) % 3)
_raw = RNG.random((N, 3)) + np.eye(3)[Y_MC]
PROBA = _raw / _raw.sum(axis=1, keepdims=True)
Y_REG = np.round(RNG.normal(size=N), 4)
P_REG = np.round(Y_REG + RNG.normal(scale=0.3, size=N), 4)
X = np.round(RNG.normal(size=(N, 2)) + 3 * (np.arange(N) % 2)[:, None], 4)
C_TRUE = np.arange(N) % 2
C_PRED = np.where(RNG.random(N) < 0.8, C_TRUE, 2)
E_TRUE = np.arange(N) // 4
E_PRED = np.where(RNG.random(N) < 0.8, E_TRUE, E_TRUE + 100)
BLOCK = np.arange(N) // 8


def _columns() -> dict[str, Any]:
    return {
        "y_true": Y_BIN,
        "y_pred": P_BIN,
        "score": S_BIN,
        "mc_true": Y_MC,
        "mc_pred": P_MC,
        "p0": PROBA[:, 0],
        "p1": PROBA[:, 1],
        "p2": PROBA[:, 2],
        "t": Y_REG,
        "yhat": P_REG,
        "x1": X[:, 0],
        "x2": X[:, 1],
        "cluster_true": C_TRUE,
        "cluster": C_PRED,
        "entity": E_TRUE,
        "matched": E_PRED,
        "block": BLOCK,
    }


def _write_csv(path: Path, columns: dict[str, Any], delimiter: str = ",") -> Path:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(zip(*(np.asarray(v).tolist() for v in columns.values()), strict=True))
    data = out.getvalue().encode()
    if path.suffix == ".gz":
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_csv(tmp_path_factory.mktemp("score") / "data.csv", _columns())


def invoke(*args: str | os.PathLike[str]) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)


def score_json(*args: str | os.PathLike[str]) -> dict[str, Any]:
    result = invoke("score", *args, "--format", "json")
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert result.stderr == ""
    out: dict[str, Any] = json.loads(result.stdout)
    return out


_one_line_error = one_line_error


# ------------------------------------------------------------------------- values


def test_classification_labels_match_the_family_functions(table: Path) -> None:
    got = score_json(
        table,
        "-m",
        "accuracy",
        "-m",
        "clf_precision",
        "-m",
        "clf_recall",
        "-m",
        "clf_f1",
        "-m",
        "clf_fbeta(beta=2)",
        "-m",
        "confusion_matrix",
    )
    assert got == {
        "accuracy": pytest.approx(clf.accuracy(Y_BIN, P_BIN)),
        "clf_precision": pytest.approx(clf.precision(Y_BIN, P_BIN)),
        "clf_recall": pytest.approx(clf.recall(Y_BIN, P_BIN)),
        "clf_f1": pytest.approx(clf.f1(Y_BIN, P_BIN)),
        "clf_fbeta(beta=2)": pytest.approx(clf.fbeta(Y_BIN, P_BIN, beta=2.0)),
        "confusion_matrix": clf.confusion_matrix(Y_BIN, P_BIN).tolist(),
    }


def test_classification_scores_and_probabilities(table: Path) -> None:
    got = score_json(
        table,
        "-m",
        "auc",
        "-m",
        "pr_auc",
        "-m",
        "log_loss",
        "-m",
        "log_likelihood",
        "--score",
        "score",
    )
    assert got == pytest.approx(
        {
            "auc": clf.roc_auc(Y_BIN, S_BIN),
            "pr_auc": clf.average_precision(Y_BIN, S_BIN),
            "log_loss": clf.log_loss(Y_BIN, S_BIN),
            "log_likelihood": clf.log_likelihood(Y_BIN, S_BIN),
        }
    )
    multi = score_json(
        table,
        "-m",
        "roc_auc",
        "-m",
        "log_loss",
        "-m",
        "clf_f1",
        "--true",
        "mc_true",
        "--pred",
        "mc_pred",
        "--proba",
        "p0",
        "--proba",
        "p1",
        "--proba",
        "p2",
        "--param",
        "average=macro",
        "--param",
        "eps=1e-9",
    )
    assert multi == pytest.approx(
        {
            "roc_auc": clf.roc_auc(Y_MC, PROBA),
            "log_loss": clf.log_loss(Y_MC, PROBA, eps=1e-9),
            "clf_f1": clf.f1(Y_MC, P_MC, average="macro"),
        }
    )


def test_inline_parameters_win_over_param(table: Path) -> None:
    got = score_json(
        table,
        "-m",
        "clf_f1(average=micro)",
        "-m",
        "clf_precision",
        "--true",
        "mc_true",
        "--pred",
        "mc_pred",
        "--param",
        "average=weighted",
    )
    assert got == pytest.approx(
        {
            "clf_f1(average=micro)": clf.f1(Y_MC, P_MC, average="micro"),
            "clf_precision": clf.precision(Y_MC, P_MC, average="weighted"),
        }
    )


def test_pos_label_reaches_the_kernel(tmp_path: Path) -> None:
    path = _write_csv(
        tmp_path / "spam.csv",
        {"label": ["spam", "ham", "spam", "ham"], "prediction": ["spam", "spam", "ham", "ham"]},
    )
    got = score_json(path, "-m", "clf_precision", "-m", "accuracy", "--param", "pos_label=spam")
    t, p = ["spam", "ham", "spam", "ham"], ["spam", "spam", "ham", "ham"]
    assert got == pytest.approx(
        {"clf_precision": clf.precision(t, p, pos_label="spam"), "accuracy": clf.accuracy(t, p)}
    )


def test_log_loss_of_string_labels_and_one_probability_column(tmp_path: Path) -> None:
    # a 1-d probability is that of the greater class ("yes"), as scikit-learn reads it
    path = _write_csv(tmp_path / "yn.csv", {"label": ["no", "yes", "yes"], "prob": [0.2, 0.9, 0.7]})
    expected = -(np.log(0.8) + np.log(0.9) + np.log(0.7)) / 3
    got = score_json(path, "-m", "log_loss", "-m", "log_likelihood", "-m", "roc_auc")
    assert got == pytest.approx(
        {"log_loss": expected, "log_likelihood": -3 * expected, "roc_auc": 1.0}
    )
    sk_metrics = pytest.importorskip("sklearn.metrics")
    assert got["log_loss"] == pytest.approx(
        sk_metrics.log_loss(["no", "yes", "yes"], [0.2, 0.9, 0.7]), rel=1e-12
    )
    assert round(got["log_loss"], 4) == 0.2284
    # --param pos_label says the column is P(no)
    flipped = score_json(path, "-m", "log_loss", "--param", "pos_label=no")
    assert flipped["log_loss"] == pytest.approx(-(np.log(0.2) + np.log(0.1) + np.log(0.3)) / 3)


def test_regression_matches_the_family_functions(table: Path) -> None:
    got = score_json(
        table, "-m", "mae", "-m", "mse", "-m", "rmse", "-m", "r2", "--true", "t", "--pred", "yhat"
    )
    assert got == pytest.approx(
        {
            "mae": reg.mae(Y_REG, P_REG),
            "mse": reg.mse(Y_REG, P_REG),
            "rmse": reg.rmse(Y_REG, P_REG),
            "r2": reg.r2(Y_REG, P_REG),
        }
    )
    raw = score_json(
        table, "-m", "r2", "--true", "t", "--pred", "yhat", "--param", "multioutput=raw_values"
    )
    assert raw == {"r2": pytest.approx([reg.r2(Y_REG, P_REG)])}


def test_clustering_external_and_internal(table: Path) -> None:
    external = score_json(
        table,
        "-m",
        "ari",
        "-m",
        "nmi(average_method=max)",
        "-m",
        "purity",
        "-m",
        "pair_f1",
        "-m",
        "rand_index",
        "-m",
        "v_measure",
        "--true",
        "cluster_true",
        "--pred",
        "cluster",
    )
    assert external == pytest.approx(
        {
            "ari": clu.adjusted_rand_index(C_TRUE, C_PRED),
            "nmi(average_method=max)": clu.nmi(C_TRUE, C_PRED, average_method="max"),
            "purity": clu.purity(C_TRUE, C_PRED),
            "pair_f1": clu.pair_f1(C_TRUE, C_PRED),
            "rand_index": clu.rand_index(C_TRUE, C_PRED),
            "v_measure": clu.v_measure(C_TRUE, C_PRED),
        }
    )
    internal = score_json(
        table,
        "-m",
        "silhouette",
        "-m",
        "davies_bouldin",
        "-m",
        "chi",
        "-m",
        "dunn(variant=centroid)",
        "--pred",
        "cluster",
        "--features",
        "x1",
        "--features",
        "x2",
    )
    assert internal == pytest.approx(
        {
            "silhouette": clu.silhouette(X, C_PRED),
            "davies_bouldin": clu.davies_bouldin(X, C_PRED),
            "chi": clu.calinski_harabasz(X, C_PRED),
            "dunn(variant=centroid)": clu.dunn_index(X, C_PRED, variant="centroid"),
        }
    )
    # comma-separated features name the same columns
    assert score_json(
        table, "-m", "silhouette", "--pred", "cluster", "--features", "x1,x2"
    ) == pytest.approx({"silhouette": internal["silhouette"]})


def test_entity_resolution_matches_the_family_functions(table: Path) -> None:
    got = score_json(
        table,
        "-m",
        "bcubed_precision",
        "-m",
        "b3_recall",
        "-m",
        "bcubed_f1",
        "-m",
        "cluster_precision",
        "-m",
        "cluster_recall",
        "-m",
        "cluster_f1",
        "--true",
        "entity",
        "--pred",
        "matched",
    )
    b3 = er.bcubed(E_TRUE, E_PRED)
    cl = er.cluster_level(E_TRUE, E_PRED)
    assert got == pytest.approx(
        {
            "bcubed_precision": b3["precision"],
            "b3_recall": b3["recall"],
            "bcubed_f1": b3["f1"],
            "cluster_precision": cl["precision"],
            "cluster_recall": cl["recall"],
            "cluster_f1": cl["f1"],
        }
    )
    blocking = score_json(
        table,
        "-m",
        "reduction_ratio",
        "-m",
        "pairs_completeness",
        "-m",
        "pairs_quality",
        "--true",
        "entity",
        "--pred",
        "block",
    )
    ref = er.blocking(E_TRUE, blocks=BLOCK)
    assert blocking == pytest.approx({k: ref[k] for k in blocking})


def test_every_domain_kernel_is_mapped() -> None:
    """Each registered non-ranking kernel (of the domains score computes) has its
    data arguments in the domain's table."""
    import inspect

    from ranklens.metrics import REGISTRY

    seen = set()
    for defn in REGISTRY.values():
        if defn.domain not in DOMAINS:
            continue
        seen.add(defn.domain)
        args = inspect.signature(defn.kernel).parameters
        required = [
            a
            for a, p in args.items()
            if p.default is inspect.Parameter.empty and defn.param(a) is None
        ]
        assert set(required) <= set(DOMAINS[defn.domain]), (defn.name, required)
    assert seen == set(DOMAINS)


# ------------------------------------------------------------------------- formats


def _expected_small() -> dict[str, float]:
    return {"accuracy": clf.accuracy(Y_BIN, P_BIN), "mae": reg.mae(Y_REG, P_REG)}


@pytest.mark.parametrize("kind", ["tsv", "parquet", "jsonl", "csv.gz"])
def test_table_formats(tmp_path: Path, kind: str) -> None:
    cols = {"y_true": Y_BIN, "y_pred": P_BIN, "t": Y_REG, "yhat": P_REG}
    path = tmp_path / f"data.{kind}"
    if kind == "tsv":
        _write_csv(path, cols, delimiter="\t")
    elif kind == "csv.gz":
        _write_csv(path, cols)
    elif kind == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(pa.table(cols), path)
    else:
        path.write_text(
            "".join(
                json.dumps({k: np.asarray(v)[i].item() for k, v in cols.items()}) + "\n"
                for i in range(N)
            )
        )
    acc = score_json(path, "-m", "accuracy")
    mae = score_json(path, "-m", "mae", "--true", "t", "--pred", "yhat")
    assert {**acc, **mae} == pytest.approx(_expected_small())


def test_input_format_overrides_the_suffix(tmp_path: Path) -> None:
    path = _write_csv(tmp_path / "data.txt", {"y_true": Y_BIN, "y_pred": P_BIN})
    assert score_json(path, "-m", "accuracy", "--input-format", "csv") == pytest.approx(
        {"accuracy": clf.accuracy(Y_BIN, P_BIN)}
    )


def test_csv_output_parses(table: Path) -> None:
    result = invoke("score", table, "-m", "accuracy", "-m", "confusion_matrix", "--format", "csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["metric", "value"]
    assert rows[1][0] == "accuracy"
    assert float(rows[1][1]) == clf.accuracy(Y_BIN, P_BIN)  # full precision
    assert json.loads(rows[2][1]) == clf.confusion_matrix(Y_BIN, P_BIN).tolist()


def test_table_output(table: Path) -> None:
    result = invoke("score", table, "-m", "acc", "-m", "clf_f1")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["metric", "value"]
    assert lines[2].split() == ["acc", f"{clf.accuracy(Y_BIN, P_BIN):.4f}"]
    assert lines[3].split() == ["clf_f1", f"{clf.f1(Y_BIN, P_BIN):.4f}"]


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_layout_formats_and_output_file(table: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"scores.{fmt}"
    result = invoke(
        "score", table, "-m", "acc", "-m", "confusion_matrix", "--format", fmt, "-o", out
    )
    assert result.exit_code == 0 and result.stdout == "", result.stderr
    text = out.read_text()
    acc = f"{clf.accuracy(Y_BIN, P_BIN):.4f}"
    if fmt == "markdown":
        assert text.splitlines()[:3] == ["| metric | value |", "| :-- | --: |", f"| acc | {acc} |"]
    else:
        assert text.splitlines()[4] == f"acc & {acc} \\\\"


def test_table_from_standard_input() -> None:
    text = "y_true,y_pred\n1,1\n0,1\n1,1\n0,0\n"
    result = CliRunner().invoke(
        main,
        ["score", "-", "--input-format", "csv", "-m", "accuracy", "--format", "json"],
        input=text,
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"accuracy": 0.75}
    unknown = CliRunner().invoke(main, ["score", "-", "-m", "accuracy"], input=text)
    _one_line_error(unknown, EXIT_USAGE, "unknown file type", "--input-format")


def test_parquet_rows_are_numbered_from_one(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "data.parquet"
    pq.write_table(pa.table({"y_true": [1.0, 2.0], "y_pred": [1.0, None]}), path)
    _one_line_error(
        invoke("score", path, "-m", "mae"),
        EXIT_BAD_INPUT,
        f"{path}: row 2: column 'y_pred' has an empty value",
    )


def test_repeated_metric_is_computed_once(table: Path) -> None:
    result = invoke("score", table, "-m", "accuracy", "-m", "accuracy", "--format", "csv")
    assert result.stdout.splitlines() == [
        "metric,value",
        f"accuracy,{clf.accuracy(Y_BIN, P_BIN)!r}",
    ]


# ------------------------------------------------------------------------- errors


def test_ranking_metric_points_to_evaluate(table: Path) -> None:
    _one_line_error(
        invoke("score", table, "-m", "ndcg@10"), EXIT_USAGE, "ranking metric", "ranklens evaluate"
    )
    _one_line_error(invoke("score", table, "-m", "P.5"), EXIT_USAGE, "ranklens evaluate")


def test_detection_metric_is_refused(table: Path) -> None:
    _one_line_error(invoke("score", table, "-m", "iou"), EXIT_USAGE, "detection")


def test_unknown_metric_suggests(table: Path) -> None:
    _one_line_error(
        invoke("score", table, "-m", "acuracy"),
        EXIT_USAGE,
        "unknown metric 'acuracy'",
        "'accuracy'",
        "ranklens metrics",
    )


def test_bad_parameters_are_usage_errors(table: Path) -> None:
    _one_line_error(
        invoke("score", table, "-m", "clf_f1", "--param", "average=bogus"), EXIT_USAGE, "average"
    )
    _one_line_error(
        invoke("score", table, "-m", "accuracy", "--param", "beta=2"),
        EXIT_USAGE,
        "'beta'",
        "none of the metrics",
    )
    _one_line_error(
        invoke("score", table, "-m", "clf_f1", "--param", "average"), EXIT_USAGE, "name=value"
    )
    _one_line_error(invoke("score", table, "-m", "clf_f1(foo=1)"), EXIT_USAGE, "foo")
    _one_line_error(invoke("score", table, "-m", "accuracy@5"), EXIT_USAGE, "cutoff")


def test_bad_options_are_usage_errors(table: Path) -> None:
    _one_line_error(invoke("score", table), EXIT_USAGE, "--metric")
    _one_line_error(
        invoke("score", table, "-m", "auc", "--score", "score", "--proba", "p0"),
        EXIT_USAGE,
        "--proba",
    )
    _one_line_error(
        invoke("score", table, "-m", "silhouette", "--pred", "cluster"),
        EXIT_USAGE,
        "silhouette",
        "--features",
    )
    _one_line_error(invoke("score", table, "-m", "accuracy", "--format", "xml"), EXIT_USAGE)


def test_missing_columns_list_the_file_columns(table: Path, tmp_path: Path) -> None:
    msg = _one_line_error(
        invoke("score", table, "-m", "accuracy", "--true", "nope"),
        EXIT_BAD_INPUT,
        "'nope'",
        "'y_true'",
        "'matched'",
    )
    assert "columns [" in msg
    path = _write_csv(tmp_path / "ab.csv", {"a": [1, 0], "b": [1, 1]})
    _one_line_error(
        invoke("score", path, "-m", "accuracy"),
        EXIT_BAD_INPUT,
        "cannot tell which column",
        "['a', 'b']",
        "--true",
    )
    _one_line_error(
        invoke("score", path, "-m", "auc", "--true", "a"), EXIT_BAD_INPUT, "--score", "--proba"
    )


def test_bad_data_is_exit_3(tmp_path: Path) -> None:
    empty_cell = tmp_path / "n.csv"
    empty_cell.write_text("y_true,y_pred\n1,2\n0,\n")
    _one_line_error(invoke("score", empty_cell, "-m", "mae"), EXIT_BAD_INPUT, "n.csv:3", "'y_pred'")
    text = tmp_path / "s.csv"
    text.write_text("y_true,y_pred\n1,x\n0,1.5\n")
    _one_line_error(invoke("score", text, "-m", "mae"), EXIT_BAD_INPUT, "s.csv:2", "'x'")
    three = _write_csv(tmp_path / "m.csv", {"y_true": [0, 1, 2], "y_pred": [0, 2, 2]})
    _one_line_error(
        invoke("score", three, "-m", "clf_f1"),
        EXIT_BAD_INPUT,
        "clf_f1:",
        "average",
        "y_true = column 'y_true'",
    )
    blank = tmp_path / "e.csv"
    blank.write_text("")
    _one_line_error(invoke("score", blank, "-m", "mae"), EXIT_BAD_INPUT, "empty")
    header_only = tmp_path / "h.csv"
    header_only.write_text("y_true,y_pred\n")
    _one_line_error(invoke("score", header_only, "-m", "mae"), EXIT_BAD_INPUT, "no rows")
    _one_line_error(
        invoke("score", tmp_path / "missing.csv", "-m", "mae"), EXIT_BAD_INPUT, "no such file"
    )


def test_unknown_table_format_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_text("y_true,y_pred\n1,1\n")
    _one_line_error(invoke("score", path, "-m", "accuracy"), EXIT_USAGE, "--input-format")


def test_listed_with_the_other_commands() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "score" in result.stdout


def test_kernel_warnings_go_to_stderr(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses
    import warnings

    from ranklens.metrics import REGISTRY

    defn = REGISTRY["accuracy"]

    def noisy(y_true: Any, y_pred: Any) -> float:
        warnings.warn("only one class predicted", UserWarning, stacklevel=2)
        return float(clf.accuracy(y_true, y_pred))

    monkeypatch.setitem(REGISTRY, "accuracy", dataclasses.replace(defn, impl=noisy))
    result = invoke("score", table, "-m", "accuracy", "--format", "json")
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert result.stderr == "ranklens: warning: accuracy: only one class predicted\n"
    assert json.loads(result.stdout) == {"accuracy": clf.accuracy(Y_BIN, P_BIN)}
