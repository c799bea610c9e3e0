"""Without an optional library, every function that needs it raises our error naming
the extra to install (one line), and ``import ranklens`` still works.

Each case runs in a fresh interpreter in which the library cannot be imported (a
meta-path finder refuses it, as if it were not installed).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

BLOCKER = textwrap.dedent('''
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
    out = {}
    for name, call in CASES:
        try:
            call()
            out[name] = "no error"
        except Exception as exc:
            out[name] = type(exc).__name__ + ": " + str(exc)
    print(json.dumps(out))
''')

# library hidden -> [(case name, python expression), ...]; every case must need it
CASES: dict[str, list[tuple[str, str]]] = {
    "sklearn": [
        ("roc_auc", "rl.classification.roc_auc([0, 1, 1], [0.1, 0.8, 0.7])"),
        ("clf_precision", "rl.classification.precision([0, 1, 1], [0, 1, 0])"),
        ("mae", "rl.regression.mae([1.0, 2.0], [1.5, 2.5])"),
        ("ari", "rl.clustering.adjusted_rand_index([0, 0, 1], [0, 1, 1])"),
        ("kfold", "rl.recsys.KFoldSplit(2)._make_cv()"),
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
}
EXTRA = {"sklearn": "ml", "scipy": "", "statsmodels": "online", "pandas": "pandas",
         "matplotlib": "plot"}


def _run(hidden: str, cases: list[tuple[str, str]]) -> dict[str, str]:
    code = "CASES = [" + ", ".join(f"({n!r}, lambda: {e})" for n, e in cases) + "]\n"
    code = BLOCKER.replace("out = {}", code + "out = {}")
    done = subprocess.run([sys.executable, "-c", code, hidden], capture_output=True,
                          text=True, timeout=120)
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
    got = _run(hidden, [("evaluate", "rl.evaluate(q, r, ['ndcg@10', 'map', 'P.5'])"),
                        ("cutoffs", "rl.evaluate_cutoffs(q, r, ['ndcg'], 3)"),
                        ("beyond", "rl.recsys.catalog_coverage(r, ['a', 'b', 'c'])")])
    assert got == {"evaluate": "no error", "cutoffs": "no error", "beyond": "no error"}


def test_cli_compare_without_scipy_is_one_line_and_exit_2(tmp_path) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(3)))
    run.write_text("".join(f"q{i} Q0 a 1 2.0 x\nq{i} Q0 b 2 1.0 x\n" for i in range(3)))
    code = BLOCKER.split("import ranklens as rl")[0] + (
        "from ranklens.cli import main\nsys.argv = ['ranklens'] + sys.argv[2:]\nmain()\n")
    done = subprocess.run([sys.executable, "-c", code, "scipy", "compare", str(qrels),
                           str(run), str(run), "-m", "p@1"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1, done.stderr
    assert "pip install 'ranklens[stats]'" in done.stderr
    assert "Traceback" not in done.stderr
