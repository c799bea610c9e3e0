"""Start-up time of the command line and the package, and the in-memory evaluation
speed, each against its target (issue 27, part 5).

Each command runs in a fresh interpreter (best of ``--repeat`` wall times, after one
untimed run that writes the bytecode cache, as an installed package has one):

* ``python -c pass``: the baseline;
* ``python -c "import ranklens"``: at most 0.15 s above the baseline;
* ``ranklens --help``: at most 0.15 s above the baseline;
* ``ranklens evaluate`` on the bundled example (8 queries): under 0.3 s;
* ``ranklens compare`` of the bundled run and a second one written to a temporary
  folder (8 queries, the default metrics, test and correction): under 1.5 s;

and, in this process, an evaluation of ``--size`` (10,000 x 100) from pandas frames
(``Qrels.from_frame`` + ``Run.from_frame`` + ``ranklens.evaluate`` of ndcg@10, map and
P.5 + ``summary()``, the data of ``bench_ranking.py``) against one ``np.lexsort((-score,
query_codes))`` of the run's columns (the query codes made beforehand): at most 1.5x.

The checkout's ``src`` comes first on ``PYTHONPATH`` (so this measures the checkout)
and the bytecode goes to a temporary ``PYTHONPYCACHEPREFIX`` (``PYTHONDONTWRITEBYTECODE``
is dropped for the subprocesses: without a bytecode cache every start compiles the
package and measures the compiler).  The load average is printed before and after:
other work on the machine inflates every number, the in-memory ratio least.

    python benchmarks/bench_startup.py                 # everything, best of 7
    python benchmarks/bench_startup.py --repeat 15 --size 1000x100
    python benchmarks/bench_startup.py --no-inmem      # start-up only (no pandas needed)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "src" / "ranklens" / "_example_data"
ABOVE_BARE = 0.15  # seconds above a bare interpreter: import ranklens, ranklens --help
EVALUATE = 0.3  # seconds: a small ranklens evaluate
COMPARE = 1.5  # seconds: a small ranklens compare
RATIO = 1.5  # in-memory evaluate / one lexsort of the run's query and score columns


def _env(cache: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    return env


def _ranklens() -> list[str]:
    """The console script next to this interpreter (what users run), else ``-m``."""
    script = Path(sys.executable).parent / "ranklens"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ranklens"]


def _time(cmd: list[str], env: dict[str, str], repeat: int) -> float:
    """Best wall time of ``repeat`` runs of ``cmd`` (after one untimed run); a command
    that fails stops the benchmark with its output."""
    times = []
    for i in range(repeat + 1):
        t = time.perf_counter()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        elapsed = time.perf_counter() - t
        if done.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
        if i:
            times.append(elapsed)
    return min(times)


def _second_run(folder: Path) -> Path:
    """The bundled run with each query's scores reversed in every other query (so the
    two runs differ), written as a TREC run named ``example_rev``."""
    lines = (EXAMPLE / "example.run").read_text().splitlines()
    by_query: dict[str, list[list[str]]] = {}
    for line in lines:
        fields = line.split()
        by_query.setdefault(fields[0], []).append(fields)
    out = []
    for i, rows in enumerate(by_query.values()):
        scores = [r[4] for r in rows]
        if i % 2 == 0:
            scores = scores[::-1]
        for rank, (r, s) in enumerate(zip(rows, scores, strict=True), start=1):
            out.append(f"{r[0]} Q0 {r[2]} {rank} {s} example_rev")
    path = folder / "second.run"
    path.write_text("\n".join(out) + "\n")
    return path


def startup(repeat: int) -> list[tuple[str, float, float, str]]:
    """(what, seconds, target, how the target reads) of each start-up measurement."""
    cache = tempfile.mkdtemp(prefix="ranklens-pyc-")
    folder = Path(tempfile.mkdtemp(prefix="ranklens-bench-"))
    try:
        env = _env(cache)
        qrels, run = str(EXAMPLE / "example.qrels"), str(EXAMPLE / "example.run")
        second = str(_second_run(folder))
        cli = _ranklens()
        bare = _time([sys.executable, "-c", "pass"], env, repeat)
        rows = [("python -c pass", bare, float("nan"), "baseline")]
        imp = _time([sys.executable, "-c", "import ranklens"], env, repeat)
        rows.append(("import ranklens", imp, bare + ABOVE_BARE, f"bare + {ABOVE_BARE}"))
        helped = _time([*cli, "--help"], env, repeat)
        rows.append(("ranklens --help", helped, bare + ABOVE_BARE, f"bare + {ABOVE_BARE}"))
        ev = _time([*cli, "evaluate", qrels, run], env, repeat)
        rows.append(("ranklens evaluate (8 queries)", ev, EVALUATE, f"{EVALUATE}"))
        cmp_ = _time([*cli, "compare", qrels, run, second], env, repeat)
        rows.append(("ranklens compare (2 runs, 8 queries)", cmp_, COMPARE, f"{COMPARE}"))
        return rows
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


def in_memory(size: str, repeat: int) -> tuple[float, float]:
    """(seconds of the evaluation from frames, seconds of one lexsort), best of
    ``repeat`` each, in this process."""
    sys.path.insert(0, str(ROOT / "src"))
    import numpy as np
    import pandas as pd

    import ranklens
    from bench_ranking import Size, make_data

    queries, _, docs = size.partition("x")
    data = make_data(Size(int(queries), int(docs or 100)), 0)
    codes = pd.factorize(data.run["query"])[0]
    score = data.run["score"].to_numpy()

    def evaluate() -> dict[str, float]:
        qrels = ranklens.Qrels.from_frame(data.qrels)
        run = ranklens.Run.from_frame(data.run)
        return ranklens.evaluate(qrels, run, ["ndcg@10", "map", "P.5"]).summary()

    def best(fn: object) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()  # type: ignore[operator]
            times.append(time.perf_counter() - t)
        return min(times)

    evaluate()  # first-call costs (imports, the thread pool) are start-up, not speed
    return best(evaluate), best(lambda: np.lexsort((-score, codes)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per timing (best)")
    parser.add_argument("--size", default="10000x100", help="queries x docs, in memory")
    parser.add_argument("--no-inmem", action="store_true", help="skip the in-memory ratio")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    verdicts = []
    print(f"\n{'what':40} {'best s':>8} {'target s':>10}  verdict")
    for what, got, target, reads in startup(args.repeat):
        verdict = "" if reads == "baseline" else ("PASS" if got <= target else "FAIL")
        verdicts.append(verdict)
        print(f"{what:40} {got:8.3f} {reads:>10}  {verdict}")
    if not args.no_inmem:
        ev, lex = in_memory(args.size, args.repeat)
        verdict = "PASS" if ev <= RATIO * lex else "FAIL"
        verdicts.append(verdict)
        print(f"\nin memory, {args.size} from pandas frames (ndcg@10, map, P.5):")
        print(f"  evaluate {ev:.3f} s, np.lexsort((-score, query_codes)) {lex:.3f} s")
        print(f"  ratio {ev / lex:.2f} (target <= {RATIO})  {verdict}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{verdicts.count('PASS')} PASS, {verdicts.count('FAIL')} FAIL")


if __name__ == "__main__":
    main()
