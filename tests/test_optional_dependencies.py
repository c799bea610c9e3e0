"""Without an optional library, every function that needs it raises our error naming
the extra to install (one line), and ``import ranklens`` still works.

Each case runs in a fresh interpreter in which the library cannot be imported (a
meta-path finder refuses it, as if it were not installed).  :data:`CALLS` holds a call of
every public function (and public method of a public class) of the classification,
regression, clustering, entity-resolution, detection, comparison and online families;
a completeness check derives that list from the families' ``__all__``, so a new function
cannot be forgotten.  With each optional library hidden, every call either works or raises
``MissingDependencyError`` naming an extra that installs the library.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

import pytest

import ranklens
from ranklens._shared.deps import EXTRAS, PACKAGES, needs, user_call
from ranklens.errors import MissingDependencyError

ROOT = Path(__file__).resolve().parents[1]

BLOCKER = textwrap.dedent("""
    import sys, json, traceback
    from importlib.abc import MetaPathFinder

    class Missing(MetaPathFinder):
        def __init__(self, tops):
            self.tops = tops
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in self.tops:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing(set(sys.argv[1].split(","))))
    import ranklens as rl
    import numpy as np
    q = rl.Qrels.from_dict({f"q{i}": {"a": 1, "b": 0} for i in range(5)})
    r = rl.Run.from_dict({f"q{i}": {"a": 1.0, "b": 2.0} for i in range(5)})
    import pyarrow as pa
    T, P = [0, 0, 1, 1], [0, 1, 1, 1]
    X, L = [[0.0, 0.0], [0.0, 1.0], [4.0, 0.0], [4.0, 1.0]], [0, 0, 1, 1]
    BOX = {"image": [1, 1], "label": [1, 1], "boxes": [[0, 0, 2, 2], [5, 5, 6, 6]]}
    DET = {**BOX, "scores": [0.9, 0.8]}
    COCO_GT = {"image_id": [1], "category_id": [1], "bbox": [[0, 0, 10, 10]]}
    COCO_DET = {**COCO_GT, "score": [0.9]}
    r2 = rl.Run.from_dict({f"q{i}": {"a": 2.0 * (i % 2), "b": 1.0} for i in range(5)})
    # its methods' own needs: no statsmodels (correction="none"), scipy for the t-test only
    CMP = lambda: rl.compare(q, {"a": r, "b": r2}, ["p@1"], test="t", correction="none")
    EXP = rl.online.Experiment("e", {"control": 1, "treatment": 1})
    PLAN = rl.online.Plan([EXP])
    UNITS = [f"u{i}" for i in range(40)]
    EXPOSURES = pa.table({"unit": UNITS, "variant": ["control", "treatment"] * 20,
                          "time": [0] * 40})
    EVENTS = pa.table({"unit": UNITS[:6], "time": [1] * 6, "event": ["purchase"] * 6})
    AN = lambda: rl.online.analyze(EXPOSURES, EVENTS, "c=proportion(purchase)")
    out = {}
    for name, call in CASES:
        try:
            call()
            out[name] = "no error"
        except Exception as exc:
            out[name] = type(exc).__name__ + ": " + str(exc)
    print(json.dumps(out))
""")

# library hidden -> [(case name, python expression), ...]; every case must need it
CASES: dict[str, list[tuple[str, str]]] = {
    "sklearn": [
        ("roc_auc", "rl.classification.roc_auc([0, 1, 1], [0.1, 0.8, 0.7])"),
        ("clf_precision", "rl.classification.precision([0, 1, 1], [0, 1, 0])"),
        ("mae", "rl.regression.mae([1.0, 2.0], [1.5, 2.5])"),
        ("ari", "rl.clustering.adjusted_rand_index([0, 0, 1], [0, 1, 1])"),
        ("kfold", "rl.recsys.KFoldSplit(2)._cv()"),
    ],
    "scipy": [
        ("compare", "rl.compare(q, {'a': r, 'b': r}, ['p@1'])"),
        ("ztest", "rl.online.two_proportion_ztest(5, 10, 6, 10)"),
        ("er_components", "rl.entity_resolution.clusters_from_pairs([[0, 1]], 3)"),
    ],
    "statsmodels": [
        ("power", "rl.online.sample_size('proportion', baseline=0.1, effect=0.01)"),
    ],
    "pandas": [
        ("result_frame", "rl.evaluate(q, r, ['p@1']).to_frame()"),
        ("qrels_frame", "q.to_frame()"),
        ("cutoffs_frame", "rl.evaluate_cutoffs(q, r, ['p'], 2).to_frame()"),
    ],
    "matplotlib": [
        ("plot", "__import__('ranklens.render.plots').render.plots.plot_cutoffs(q, [r], 'p')"),
    ],
    # ranklens.spark imports without pyspark; each function names the extra when called
    "pyspark": [
        (f"spark_{name}", f"__import__('ranklens.spark').spark.{name}({args})")
        for name, args in [
            ("evaluate", "None, None, ['p@1']"),
            ("evaluate_interactions", "None, None, ['p@1']"),
            ("catalog_coverage", "None, ['a']"),
            ("shannon_entropy", "None, ['a']"),
            ("gini_index", "None, ['a']"),
            ("novelty", "None, None"),
            ("average_recommendation_popularity", "None, None"),
            ("long_tail_share", "None, None"),
            ("personalisation", "None"),
        ]
    ],
}
EXTRA = {
    "sklearn": "ml",
    "scipy": "",
    "statsmodels": "stats",
    "pandas": "pandas",
    "matplotlib": "plot",
    "pyspark": "spark",
}


def _run(hidden: str, cases: list[tuple[str, str]]) -> dict[str, str]:
    code = "CASES = [" + ", ".join(f"({n!r}, lambda: {e})" for n, e in cases) + "]\n"
    code = BLOCKER.replace("out = {}", code + "out = {}")
    done = subprocess.run(
        [sys.executable, "-c", code, hidden], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("hidden", sorted(CASES))
def test_missing_library_names_the_extra(hidden: str) -> None:
    got = _run(hidden, CASES[hidden])
    for name, message in got.items():
        assert message.startswith("MissingDependencyError: "), (name, message)
        assert "pip install 'ranklens[" in message, (name, message)
        if EXTRA[hidden]:
            assert f"ranklens[{EXTRA[hidden]}]" in message, (name, message)
        assert "\n" not in message


def test_the_ranking_core_runs_on_the_base_install() -> None:
    hidden = "sklearn,scipy,statsmodels,pandas,polars,matplotlib,pyspark"
    got = _run(
        hidden,
        [
            ("evaluate", "rl.evaluate(q, r, ['ndcg@10', 'map', 'P.5'])"),
            ("cutoffs", "rl.evaluate_cutoffs(q, r, ['ndcg'], 3)"),
            ("beyond", "rl.recsys.catalog_coverage(r, ['a', 'b', 'c'])"),
        ],
    )
    assert got == {"evaluate": "no error", "cutoffs": "no error", "beyond": "no error"}


def _cli(tmp_path: Path, hidden: str, command: list[str]) -> subprocess.CompletedProcess[str]:
    """``ranklens COMMAND`` with the libraries ``hidden``, on three queries: RUN puts the
    relevant document first everywhere, WORSE on q0 only (p@1 0.6667 instead of 1)."""
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    worse = tmp_path / "worse.txt"
    qrels.write_text("".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(3)))
    run.write_text("".join(f"q{i} Q0 a 1 2.0 x\nq{i} Q0 b 2 1.0 x\n" for i in range(3)))
    worse.write_text(
        "q0 Q0 b 1 2.0 y\nq0 Q0 a 2 1.0 y\n"
        + "".join(f"q{i} Q0 a 1 2.0 y\nq{i} Q0 b 2 1.0 y\n" for i in (1, 2))
    )
    files = {"QRELS": qrels, "RUN": run, "WORSE": worse, "OUT": tmp_path / "r.html"}
    code = BLOCKER.split("import ranklens as rl")[0] + (
        "from ranklens.cli import main\nsys.argv = ['ranklens'] + sys.argv[2:]\nmain()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, hidden, *[str(files.get(a, a)) for a in command]],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "QRELS", "RUN", "RUN", "-m", "p@1"],
        ["gate", "QRELS", "RUN", "--baseline", "RUN", "--non-inferiority", "p@1=0.1"],
        ["report", "QRELS", "RUN", "RUN", "-m", "p@1", "-o", "OUT"],
    ],
)
def test_cli_without_scipy_is_one_line_and_exit_2(tmp_path: Path, command: list[str]) -> None:
    """The commands that need the statistics (compare, a non-inferiority gate, report)
    say in one line the command that needs it and the line that installs the extra."""
    done = _cli(tmp_path, "scipy", command)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr == (
        f"ranklens: error: ranklens {command[0]} needs scipy, which is not installed: "
        "pip install 'ranklens[stats]'\n"
    )


NO_CI = "CI not computed (scipy is not installed): pip install 'ranklens[stats]'"


@pytest.mark.parametrize(
    ("rules", "code", "reason"),
    [
        # WORSE drops p@1 by 1/3 from RUN: within 0.5, beyond 0.1; its own p@1 is 2/3
        (["--max-drop", "p@1=0.5", "--min", "p@1=0.6"], 0, None),
        (["--max-drop", "p@1=0.1"], 1, "p@1 dropped by 0.3333 (1.0000 -> 0.6667), more than"),
        (["--min", "p@1=0.7"], 1, "p@1 = 0.6667 is below the floor 0.7"),
    ],
)
def test_cli_threshold_gate_runs_on_the_base_install(
    tmp_path: Path, rules: list[str], code: int, reason: str | None
) -> None:
    """A gate of floors and maximum drops needs no statistics: without scipy (and the
    other optional libraries) it decides, and says that the intervals were not computed."""
    hidden = "sklearn,scipy,statsmodels,pandas,polars,matplotlib,pyspark,duckdb"
    done = _cli(tmp_path, hidden, ["gate", "QRELS", "WORSE", "--baseline", "RUN", *rules])
    assert done.returncode == code, (done.stdout, done.stderr)
    assert ("PASSED" if code == 0 else "FAILED") in done.stdout
    if reason is not None:
        assert reason in done.stdout
    assert (NO_CI in done.stdout) == ("--max-drop" in rules), done.stdout
    assert "Traceback" not in done.stderr


def _python(hidden: str, code: str) -> str:
    """The output of ``code`` run in a fresh interpreter where ``hidden`` cannot be
    imported."""
    program = BLOCKER.split("import ranklens as rl")[0] + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", program, hidden], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_python_threshold_gate_runs_on_the_base_install() -> None:
    """The README's Python gate (a max_drop and a min rule) without scipy: it passes, and
    its verdict says the interval was not computed; a non-inferiority rule needs the
    statistics and names the function called."""
    out = _python(
        "sklearn,scipy,statsmodels,pandas,polars,matplotlib,pyspark,duckdb",
        """
        import ranklens
        qrels = ranklens.Qrels.from_dict({"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}})
        run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.4}, "q2": {"d4": 0.3}})
        verdict = ranklens.gate(
            qrels, run, baseline=run, rules={"max_drop": {"ndcg@10": 0.01}, "min": {"map": 0.5}}
        )
        print(verdict.passed, verdict.exit_code, verdict.notes)
        print(verdict.render("text", color=False))
        try:
            ranklens.gate(qrels, run, run, {"non_inferiority": {"ndcg@10": 0.01}})
        except ranklens.errors.MissingDependencyError as exc:
            print(exc)
        """,
    )
    lines = out.splitlines()
    assert lines[0].startswith("True 0 (") and NO_CI in lines[0]
    assert NO_CI in out.split("\n", 1)[1]  # in the rendered verdict too
    assert lines[-1] == (
        "ranklens.gate() needs scipy, which is not installed: pip install 'ranklens[stats]'"
    )


# --------------------------------------------------------------------------- every function

FAMILIES = (
    "classification",
    "regression",
    "clustering",
    "entity_resolution",
    "detection",
    "comparison",
    "online",
)
# every public function of the families and every public method of their public classes
# ("family.function", "family.Class.method") -> a call with small valid inputs (names
# defined in BLOCKER)
#: an off-policy evaluation, for its methods
OPE = "rl.online.ope_arrays([1, 0], [0, 1], [.5, .5], [[.5, .5]] * 2)"

CALLS: dict[str, str] = {
    "classification.accuracy": "rl.classification.accuracy(T, P)",
    "classification.average_precision": "rl.classification.average_precision(T, [.1, .4, .3, .8])",
    "classification.confusion_counts": "rl.classification.confusion_counts(T, P)",
    "classification.confusion_matrix": "rl.classification.confusion_matrix(T, P)",
    "classification.f1": "rl.classification.f1(T, P)",
    "classification.fbeta": "rl.classification.fbeta(T, P, beta=2.0)",
    "classification.log_likelihood": "rl.classification.log_likelihood(T, [.1, .4, .3, .8])",
    "classification.log_loss": "rl.classification.log_loss(T, [.1, .4, .3, .8])",
    "classification.precision": "rl.classification.precision(T, P)",
    "classification.precision_recall_fscore": "rl.classification.precision_recall_fscore(T, P)",
    "classification.recall": "rl.classification.recall(T, P)",
    "classification.roc_auc": "rl.classification.roc_auc(T, [.1, .4, .3, .8])",
    "regression.mae": "rl.regression.mae([1.0, 2.0, 3.0], [1.5, 2.0, 2.5])",
    "regression.mse": "rl.regression.mse([1.0, 2.0, 3.0], [1.5, 2.0, 2.5])",
    "regression.r2": "rl.regression.r2([1.0, 2.0, 3.0], [1.5, 2.0, 2.5])",
    "regression.rmse": "rl.regression.rmse([1.0, 2.0, 3.0], [1.5, 2.0, 2.5])",
    "clustering.adjusted_rand_index": "rl.clustering.adjusted_rand_index(T, P)",
    "clustering.calinski_harabasz": "rl.clustering.calinski_harabasz(X, L)",
    "clustering.contingency": "rl.clustering.contingency(T, P)",
    "clustering.davies_bouldin": "rl.clustering.davies_bouldin(X, L)",
    "clustering.dunn_index": "rl.clustering.dunn_index(X, L)",
    "clustering.fowlkes_mallows": "rl.clustering.fowlkes_mallows(T, P)",
    "clustering.jaccard": "rl.clustering.jaccard(T, P)",
    "clustering.nmi": "rl.clustering.nmi(T, P)",
    "clustering.pair_confusion": "rl.clustering.pair_confusion(T, P)",
    "clustering.pair_f1": "rl.clustering.pair_f1(T, P)",
    "clustering.pair_precision": "rl.clustering.pair_precision(T, P)",
    "clustering.pair_recall": "rl.clustering.pair_recall(T, P)",
    "clustering.purity": "rl.clustering.purity(T, P)",
    "clustering.rand_index": "rl.clustering.rand_index(T, P)",
    "clustering.silhouette": "rl.clustering.silhouette(X, L)",
    "clustering.v_measure": "rl.clustering.v_measure(T, P)",
    "entity_resolution.bcubed": "rl.entity_resolution.bcubed(T, P)",
    "entity_resolution.bcubed_per_record": "rl.entity_resolution.bcubed_per_record(T, P)",
    "entity_resolution.blocking": "rl.entity_resolution.blocking(T, blocks=[0, 0, 1, 1])",
    "entity_resolution.cluster_level": "rl.entity_resolution.cluster_level(T, P)",
    "entity_resolution.clusters_from_pairs": "rl.entity_resolution.clusters_from_pairs("
    "[[0, 1]], 3)",
    "entity_resolution.pairwise": "rl.entity_resolution.pairwise(T, P)",
    "entity_resolution.pairwise_from_pairs": "rl.entity_resolution.pairwise_from_pairs("
    "[[0, 1]], [[0, 1], [1, 2]])",
    "detection.average_precision": "rl.detection.average_precision([1, 0], [0.9, 0.8], 1)",
    "detection.box_convert": "rl.detection.box_convert([[0, 0, 1, 1]], 'xywh')",
    "detection.coco_evaluate": "rl.detection.coco_evaluate(COCO_GT, COCO_DET)",
    "detection.coco_ap": "rl.detection.coco_ap(COCO_GT, COCO_DET, iou=0.5)",
    "detection.coco_ar": "rl.detection.coco_ar(COCO_GT, COCO_DET, max_dets=10)",
    "detection.interpolated_ap": "rl.detection.interpolated_ap(np.array([1.0, 0.5]), "
    "np.array([0.5, 0.5]), 'coco')",
    "detection.iou": "rl.detection.iou([[0, 0, 2, 2]], [[1, 1, 3, 3]])",
    "detection.match_detections": "rl.detection.match_detections([[0, 0, 2, 2]], [0.9], "
    "[[0, 0, 2, 2]])",
    "detection.mean_average_precision": "rl.detection.mean_average_precision(BOX, DET)",
    "comparison.bootstrap_test": "rl.comparison.bootstrap_test([0.1, 0.2, -0.1], 50, seed=0)",
    "comparison.cohens_d_paired": "rl.comparison.cohens_d_paired([1, 2, 3], [2, 2, 5])",
    "comparison.compare": "rl.compare(q, {'a': r, 'b': r2}, ['p@1'], seed=0)",
    "comparison.Comparison.value": "rl.compare(q, {'a': r, 'b': r2}, ['p@1'], seed=0).value("
    "'a', 'p@1')",
    "comparison.PowerCheck.note": "rl.comparison.power_check([0.1, 0.2, -0.1, 0.3]).note()",
    "comparison.minimum_detectable_difference": "rl.comparison.minimum_detectable_difference("
    "std=1.0, n=20)",
    "comparison.paired_power": "rl.comparison.paired_power(0.5, 20)",
    "comparison.power_check": "rl.comparison.power_check([0.1, 0.2, -0.1, 0.3])",
    "comparison.topic_set_size": "rl.comparison.topic_set_size(delta=0.5, std=1.0)",
    "entity_resolution.sampled_estimates": "rl.entity_resolution.sampled_estimates([0, 0, 1], "
    "[0, 1, 2], [5, 5, 5])",
    "comparison.correct": "rl.comparison.correct([0.01, 0.2])",
    "comparison.mean_ci": "rl.comparison.mean_ci([1.0, 2.0, 4.0])",
    "comparison.paired_ttest": "rl.comparison.paired_ttest([1, 2, 3], [2, 2, 5])",
    "comparison.randomization_test": "rl.comparison.randomization_test([0.1, 0.2], 50, seed=0)",
    "comparison.wilcoxon_test": "rl.comparison.wilcoxon_test([1, 2, 3], [2, 4, 6])",
    "comparison.Comparison.better_than": "CMP().better_than('b', 'p@1')",
    "comparison.Comparison.mean": "CMP().mean('a', 'p@1')",
    "comparison.Comparison.pair": "CMP().pair('b', 'a', 'p@1')",
    "comparison.Comparison.pairs_frame": "CMP().pairs_frame()",
    "comparison.Comparison.render": "CMP().render('csv')",
    "comparison.Comparison.to_frame": "CMP().to_frame()",
    "comparison.Comparison.to_records": "CMP().to_records()",
    "online.analyze": "AN()",
    "online.analyze_units": "rl.online.analyze_units({'unit': UNITS, 'variant': ['control', "
    "'treatment'] * 20, 'y': [float(i % 3) for i in range(40)]}, "
    "'y=mean(y)')",
    "online.analyze_stats": "rl.online.analyze_stats({'variant': ['control', 'treatment'], "
    "'count': [20, 20], 'y_sum': [20.0, 22.0], 'y_sum_sq': [40.0, "
    "50.0]}, 'y=mean(y)')",
    "online.stats_columns": "rl.online.stats_columns('y=mean(y)')",
    "online.ope_arrays": OPE,
    "online.OffPolicyEvaluation.get": OPE + ".get('ips')",
    "online.OffPolicyEvaluation.render": OPE + ".render()",
    "online.OffPolicyEvaluation.to_arrow": OPE + ".to_arrow()",
    "online.OffPolicyEvaluation.to_dict": OPE + ".to_dict()",
    "online.OffPolicyEvaluation.to_frame": OPE + ".to_frame()",
    "online.OffPolicyEvaluation.to_json": OPE + ".to_json()",
    "online.ope_tables": "rl.online.ope_tables({'round': ['a', 'b'], 'action': ['x', 'y'], "
    "'reward': [1, 0], 'propensity': [0.5, 0.5]}, {'round': ['a', 'a', 'b', 'b'], "
    "'action': ['x', 'y', 'x', 'y'], 'probability': [0.9, 0.1, 0.9, 0.1]})",
    "online.policy_from_scores": "rl.online.policy_from_scores([[0.1, 0.9], [0.8, 0.2]])",
    "online.sign_test": "rl.online.sign_test(9, 1)",
    "online.slate_ope": "rl.online.slate_ope([0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1], "
    "estimators='slate-ips', pscore=[0.25] * 4, evaluation_policy_pscore=[0.5] * 4)",
    "online.slate_ope_tables": "rl.online.slate_ope_tables({'slate': [0, 0, 1, 1], "
    "'position': [0, 1, 0, 1], 'reward': [1, 0, 0, 1], 'pscore': [0.25] * 4}, "
    "{'slate': [0, 0, 1, 1], 'position': [0, 1, 0, 1], 'pscore': [0.5] * 4}, "
    "estimators='slate-ips')",
    "online.assign": "rl.online.assign(UNITS, EXP)",
    "online.bucket_units": "rl.online.bucket_units(UNITS, 'salt')",
    "online.cuped_theta": "rl.online.cuped_theta([1.0, 2.0, 4.0], [1.0, 1.5, 3.0])",
    "online.delta_method_ratio": "rl.online.delta_method_ratio([1.0, 2.0, 0.0], [2, 3, 1])",
    "online.hash_units": "rl.online.hash_units(UNITS, 'salt')",
    "online.minimum_detectable_effect": "rl.online.minimum_detectable_effect("
    "'mean', baseline=1.0, std=1.0, n_control=100)",
    "online.mixture_tau": "rl.online.mixture_tau(0.01)",
    "online.msprt": "rl.online.msprt([0.1, 0.2], [0.1, 0.05], tau=0.3)",
    "online.normal_comparison": "rl.online.normal_comparison(1.0, 0.1, 0.8, 0.1)",
    "online.parse_metric": "rl.online.parse_metric('c=proportion(purchase)')",
    "online.power": "rl.online.power('proportion', baseline=0.1, effect=0.02, n_control=1000)",
    "online.ratio_unit_std": "rl.online.ratio_unit_std([1.0, 2.0, 0.0], [2, 3, 1])",
    "online.relative_difference": "rl.online.relative_difference(1.1, 0.01, 1.0, 0.01, 1.96)",
    "online.sample_ratio_mismatch": "rl.online.sample_ratio_mismatch({'a': 50, 'b': 55}, "
    "{'a': 1, 'b': 1})",
    "online.sample_size": "rl.online.sample_size('proportion', baseline=0.1, effect=0.01)",
    "online.two_proportion_ztest": "rl.online.two_proportion_ztest(5, 10, 6, 10)",
    "online.welch_ttest": "rl.online.welch_ttest(1.0, 1.0, 10, 0.5, 1.0, 10)",
    "online.Assignment.counts": "EXP.assign(UNITS).counts()",
    "online.Assignment.labels": "EXP.assign(UNITS).labels()",
    "online.Assignment.to_arrow": "EXP.assign(UNITS).to_arrow()",
    "online.Assignments.get": "PLAN.assign(UNITS).get('e')",
    "online.Assignments.to_arrow": "PLAN.assign(UNITS).to_arrow()",
    "online.Experiment.allocation": "EXP.allocation()",
    "online.Experiment.assign": "EXP.assign(UNITS)",
    "online.Experiment.boundaries": "EXP.boundaries()",
    "online.Experiment.to_dict": "EXP.to_dict()",
    "online.ExperimentAnalysis.get": "AN().get('c', 'treatment')",
    "online.ExperimentAnalysis.render": "AN().render('csv')",
    "online.ExperimentAnalysis.to_arrow": "AN().to_arrow()",
    "online.ExperimentAnalysis.to_dict": "AN().to_dict()",
    "online.ExperimentAnalysis.to_frame": "AN().to_frame()",
    "online.ExperimentAnalysis.to_json": "AN().to_json()",
    "online.OnlineMetric.mean": "rl.online.OnlineMetric.mean('purchase')",
    "online.OnlineMetric.parse": "rl.online.OnlineMetric.parse('c=proportion(purchase)')",
    "online.OnlineMetric.proportion": "rl.online.OnlineMetric.proportion('purchase')",
    "online.OnlineMetric.ratio": "rl.online.OnlineMetric.ratio('click', 'view')",
    "online.Plan.assign": "PLAN.assign(UNITS)",
    "online.Plan.experiment": "PLAN.experiment('e')",
    "online.Plan.from_dict": "rl.online.Plan.from_dict(PLAN.to_dict())",
    "online.Plan.to_dict": "PLAN.to_dict()",
    "online.SRMResult.describe": "rl.online.sample_ratio_mismatch({'a': 50, 'b': 55}, "
    "{'a': 1, 'b': 1}).describe()",
}


# a few functions known to need each library
NEEDS = {
    "sklearn": {"classification.roc_auc", "regression.mae", "clustering.silhouette"},
    "scipy": {
        "comparison.compare",
        "online.two_proportion_ztest",
        "entity_resolution.clusters_from_pairs",
        "clustering.dunn_index",
    },
    "statsmodels": {
        "online.sample_size",
        "online.analyze",
        "online.analyze_units",
        "online.analyze_stats",
    },
    "pandas": {"comparison.Comparison.to_frame", "online.ExperimentAnalysis.to_frame"},
}


def _public() -> set[str]:
    """``family.function`` and ``family.Class.method`` for everything the families export."""
    import importlib
    import inspect

    found = set()
    for family in FAMILIES:
        module = importlib.import_module(f"ranklens.{family}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                found.add(f"{family}.{name}")
            elif inspect.isclass(obj) and obj.__module__.startswith("ranklens."):
                found.update(
                    f"{family}.{name}.{attr}"
                    for attr, value in vars(obj).items()
                    if not attr.startswith("_")
                    and (inspect.isfunction(value) or isinstance(value, classmethod))
                )
    return found


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ ;\[]", requirement.strip(), maxsplit=1)[0].lower()


def _optional() -> dict[str, list[str]]:
    """pyproject.toml's extras: name -> requirements."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return dict(tomllib.loads(text)["project"]["optional-dependencies"])


def _self(requirement: str) -> list[str]:
    """The extras of a requirement of ranklens itself (``ranklens[stats]`` -> [stats]),
    else []."""
    if _name(requirement) != "ranklens":
        return []
    return [e.strip() for e in requirement.split("[", 1)[1].split("]", 1)[0].split(",")]


def _installs() -> dict[str, set[str]]:
    """extra -> the distributions it installs (pyproject.toml's optional dependencies,
    ranklens' own extras they name, and, as installed, their own dependencies:
    statsmodels brings pandas)."""
    extras = _optional()
    out = {}
    for extra, requirements in extras.items():
        todo = list(requirements)
        seen: set[str] = set()
        while todo:
            req = todo.pop()
            if _self(req):
                todo += [r for e in _self(req) for r in extras[e]]
                continue
            dist = _name(req)
            if dist not in seen:
                seen.add(dist)
                with contextlib.suppress(PackageNotFoundError):  # not installed here
                    todo += [r for r in requires(dist) or [] if "extra ==" not in r]
        out[extra] = seen
    return out


def test_one_extra_per_purpose() -> None:
    """The extras the errors name (EXTRAS) are pyproject's runtime extras, no two the
    same; ``online`` is only an alias of ``stats`` (its 0.1.0 name); ``all`` installs every
    runtime extra and ``test`` installs ``all``."""
    extras = _optional()
    aliases = {k: _self(v[0]) for k, v in extras.items() if len(v) == 1 and _self(v[0])}
    assert aliases == {"online": ["stats"], "all": sorted(EXTRAS)}
    runtime = set(extras) - {"all", "test", "bench", "online"}
    assert runtime == set(EXTRAS)
    assert extras["all"] == [f"ranklens[{','.join(sorted(EXTRAS))}]"]
    assert "ranklens[all]" in extras["test"]
    lists = [tuple(sorted(extras[e])) for e in sorted(runtime)]
    assert len(set(lists)) == len(lists), "two extras install the same packages"
    installs = _installs()
    assert installs["all"] == set().union(*(installs[e] for e in EXTRAS))
    assert installs["online"] == installs["stats"]
    assert installs["all"] <= installs["test"]
    # every optional library is installed by some extra
    assert all(any(PACKAGES[top] in installs[e] for e in EXTRAS) for top in PACKAGES)


def test_every_needs_call_names_a_known_extra() -> None:
    """needs("extra", ...) with a literal extra, everywhere in src/, names one of EXTRAS
    (needs() itself checks only when the library is missing)."""
    found = []
    for path in (ROOT / "src" / "ranklens").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "needs"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.append((path.name, node.args[0].value))
    assert len(found) > 40
    assert [f for f in found if f[1] not in EXTRAS] == []


def _missing(extra: str, what: str, why: str = "") -> str:
    """The message of needs(extra, what, why) when scipy is missing, called from here (a
    test module: not a ranklens function, so ``what`` or user_call names it)."""
    with pytest.raises(MissingDependencyError) as info, needs(extra, what, why):
        raise ModuleNotFoundError("No module named 'scipy'", name="scipy")
    assert info.value.package == "scipy"
    assert info.value.install == f"pip install 'ranklens[{extra}]'"
    return str(info.value)


def test_user_call_names_what_the_user_ran() -> None:
    """user_call() (the command line's one line) names what the user ran in every
    message inside it; the outermost one wins; outside, ``what`` does."""
    tail = " needs scipy, which is not installed: pip install 'ranklens[stats]'"
    assert _missing("stats", "the work") == "the work" + tail
    assert _missing("stats", "the work", "for the t-test") == (
        "the work needs scipy (for the t-test), which is not installed: "
        "pip install 'ranklens[stats]'"
    )
    with user_call("ranklens gate --non-inferiority"):
        with user_call("ranklens.gate()"):
            assert _missing("stats", "the work") == "ranklens gate --non-inferiority" + tail
        assert _missing("stats", "x") == "ranklens gate --non-inferiority" + tail
    assert _missing("stats", "the work") == "the work" + tail


def _subject(message: str) -> str:
    """What a missing-dependency message says the user ran."""
    return message.removeprefix("MissingDependencyError: ").split(" needs ", 1)[0]


def _public_call(subject: str) -> bool:
    """``ranklens.a.b()``: a public name reached from ``ranklens`` by attributes."""
    if not re.fullmatch(r"ranklens(\.[A-Za-z]\w*)+\(\)", subject):
        return False
    obj: object = ranklens
    for part in subject.removesuffix("()").split(".")[1:]:
        obj = getattr(obj, part)
    return callable(obj)


def test_every_public_function_has_a_case() -> None:
    public = _public()
    assert public - set(CALLS) == set(), "add a call with small valid inputs to CALLS"
    assert set(CALLS) - public == set(), "CALLS names functions that no longer exist"


def test_every_case_runs_with_every_library() -> None:
    got = _run("", list(CALLS.items()))
    assert {k: v for k, v in got.items() if v != "no error"} == {}


@pytest.mark.parametrize("hidden", sorted(PACKAGES))
def test_every_function_without_its_library_names_the_extra(hidden: str) -> None:
    installs = _installs()
    got = _run(hidden, list(CALLS.items()))
    assert set(got) == set(CALLS)
    needing = []
    for name, message in got.items():
        if message == "no error":
            continue
        needing.append(name)
        assert message.startswith("MissingDependencyError: "), (name, message)
        assert "\n" not in message, (name, message)
        extras = re.findall(r"pip install 'ranklens\[(\w+)\]'", message)
        assert len(extras) == 1, (name, message)
        assert extras[0] in EXTRAS and PACKAGES[hidden] in installs[extras[0]], (name, message)
        # it names the public function the user called (a direct call: that one)
        subject = _subject(message)
        assert _public_call(subject), (name, message)
        family, _, function = name.partition(".")
        if CALLS[name].startswith(f"rl.{family}.{function}("):
            top = getattr(ranklens, function, None) is getattr(ranklens, family).__dict__.get(
                function
            )
            assert subject == f"ranklens.{function}()" if top else f"ranklens.{name}()", (
                name,
                message,
            )
    # the blocker works: functions known to need the library are among those that failed
    assert NEEDS.get(hidden, set()) <= set(needing), needing
