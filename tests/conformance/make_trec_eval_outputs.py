"""Run trec_eval 10 on the conformance fixtures and write its outputs as test data.

Usage (from the repository root, with trec_eval 10 built outside the repository)::

    git clone https://github.com/usnistgov/trec_eval /tmp/trec_eval   # tag v10.0
    make -C /tmp/trec_eval
    python tests/conformance/make_fixtures.py
    python tests/conformance/make_trec_eval_outputs.py /tmp/trec_eval/trec_eval \\
        --commit "$(git -C /tmp/trec_eval rev-parse HEAD)"

Writes ``tests/conformance/trec_eval/out.<case>`` (trec_eval's standard output)
for every case in :data:`CASES`, ``<case>.stderr`` where trec_eval wrote to
standard error, and ``MANIFEST.tsv``: trec_eval's version and commit, then one
row per case with its exit status, the size of its output and the exact
command line (run in ``tests/conformance/data``).  ``--check`` compares instead
of writing.  Nothing of trec_eval itself is kept in the repository.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
OUT = HERE / "trec_eval"

M = "main.qrels main.run"
C = "main_c.qrels main.run"
IDS = "ids.qrels ids.run"
PREFS = "prefs.prefs prefs.run"
QPREFS = "prefs.qrels prefs.run"

#: case name -> trec_eval arguments (files relative to tests/conformance/data)
CASES: dict[str, str] = {
    # the option sets
    "main": M,
    "main.q": f"-q {M}",
    "main.a": f"-m all_trec {M}",
    "main.aq": f"-q -m all_trec {M}",
    "main.qn": f"-q -n {M}",
    "main.c": f"-c {C}",
    "main.aqc": f"-q -c -m all_trec {C}",
    "main.missing": C,  # trec_eval 10 refuses a qrels query without results (exit 4)
    "main.aqJ": f"-q -J -m all_trec {M}",
    "main.aqM10": f"-q -M 10 -m all_trec {M}",
    "main.qM1000": f"-q -M1000 -m official -m P.1000,1100 -m recall.1000,1100 {M}",
    "main.qN": f"-q -N 3000 -m utility.1,-1,0.5,0.25 -m set {M}",
    "main.aql2": f"-q -l 2 -m all_trec {M}",
    "main.ql4": f"-q -l4 -m official -m ndcg -m set {M}",
    # combinations
    "main.aqcMl": f"-q -c -M100 -l2 -m all_trec {C}",
    "main.acJMNl": f"-c -J -M 5 -N 500 -l 3 -m all_trec {C}",
    "main.qncJ": f"-q -n -c -J -m official -m ndcg_cut.3,7 {C}",
    # parameterised measures, several parameter sets
    "main.cutoffs": (
        f"-q -m P.1,3,7,11,1100 -m recall.1,3,1100 -m success.1,2,50 -m map_cut.1,7,1100 "
        f"-m relative_P.3,50 -m unj.1,7,50 -m ndcg_cut.1,3,7.5,1100 {M}"
    ),
    "main.levels": (
        f"-q -m iprec_at_recall.0,.15,.33,1 -m 11pt_avg.0.2,0.4 -m Rprec_mult.0.5,1.5,3 {M}"
    ),
    "main.gains1": f"-q -m ndcg.1=3,2=9 -m G.1=2,2=4 -m ndcg_rel.1=3,2=9 -m Rndcg.1=3,2=9 {M}",
    "main.gains2": f"-q -m ndcg.0=1,1=2,3=10 -m G.2=1 -m Rndcg.4=1,1=4 {M}",
    # a gain for grade -1, which trec_eval gives every unjudged document (ranklens
    # refuses gains of negative grades)
    "main.gains_negative": f"-q -m ndcg.0=1,1=2,3=10,-1=-2 {M}",
    "main.params1": (f"-q -m utility.2,-1,0,0 -m set_F.0.5 -m rbp.p=0.5 -m rbp_resid.p=0.5 {M}"),
    "main.params2": (
        f"-q -N 2000 -m utility.1,-1,0.5,0.25 -m set_F.2 -m rbp.p=0.95 -m rbp_resid.p=0.95 {M}"
    ),
    "main.params_cMl": (
        f"-q -c -M 100 -l 2 -m ndcg.1=3,2=9 -m P.5,1100 -m iprec_at_recall.0.5 -m rbp.p=0.8 {C}"
    ),
    # rbp alone: trec_eval's te_calc_rbp reads its min and max uninitialised, so its
    # value after other gain measures (main.params_cMl) depends on the stack
    "main.rbp_cMl": f"-q -c -M 100 -l 2 -m rbp.p=0.8 {C}",
    # odd ids and file layout
    "ids": IDS,
    "ids.aq": f"-q -m all_trec {IDS}",
    # preference judgments (-R prefs, -R qrels_prefs); p11 is judged but not in the
    # run, so these need -c (without it trec_eval 10 exits 4, as in main.missing)
    "prefs.qc": f"-q -c -m all_prefs -R prefs {PREFS}",
    "prefs.c": f"-c -m all_prefs -R prefs {PREFS}",
    "prefs.missing": f"-q -m all_prefs -R prefs {PREFS}",
    "qrels_prefs.qc": f"-q -c -m all_prefs -R qrels_prefs {QPREFS}",
    # judgment groups (-R qrels_jg): the second qrels column is the assessor
    "qrels_jg.qc": f"-q -c -m qrels_jg -R qrels_jg {QPREFS}",
    # relstring: text per query (default cutoff 10; -M cuts the ranking first)
    "main.relstring": f"-q -m relstring {M}",
    "main.relstring5M3": f"-q -M 3 -m relstring.5 {M}",
    "ids.relstring": f"-q -m relstring.1200 {IDS}",
    "qrels_prefs.qcM5": f"-q -c -M 5 -m prefs_simp -m prefs_pair_imp -R qrels_prefs {QPREFS}",
}


def _version(trec_eval: str) -> str:
    done = subprocess.run([trec_eval, "-v"], capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).strip()


def outputs(trec_eval: str, commit: str) -> dict[str, bytes]:
    """Every file to write: the outputs, the stderr files and the manifest."""
    version = _version(trec_eval)
    if not version.startswith("trec_eval version 10."):
        raise SystemExit(f"{trec_eval} is not trec_eval 10 ({version!r})")
    files: dict[str, bytes] = {}
    rows = [
        f"# {version}, built with make from github.com/usnistgov/trec_eval (tag v10.0) "
        f"commit {commit}",
        "# run in tests/conformance/data; stdout -> out.<case>, stderr -> <case>.stderr",
        "file\texit_status\tbytes\tcommand",
    ]
    for case, args in CASES.items():
        done = subprocess.run(
            [trec_eval, *shlex.split(args)], cwd=DATA, capture_output=True, check=False
        )
        files[f"out.{case}"] = done.stdout
        if done.stderr:
            files[f"{case}.stderr"] = done.stderr
        rows.append(f"out.{case}\t{done.returncode}\t{len(done.stdout)}\ttrec_eval {args}")
    files["MANIFEST.tsv"] = ("\n".join(rows) + "\n").encode()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trec_eval", help="path of a trec_eval 10 executable")
    parser.add_argument("--commit", required=True, help="the trec_eval commit it was built from")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    files = outputs(args.trec_eval, args.commit)
    if args.check:
        differ = [
            n for n, b in files.items() if not (OUT / n).is_file() or (OUT / n).read_bytes() != b
        ]
        stale = sorted({p.name for p in OUT.iterdir()} - set(files) - {"README.md"})
        if differ or stale:
            print(f"differ: {differ}; not made by this script: {stale}", file=sys.stderr)
            return 1
        return 0
    OUT.mkdir(exist_ok=True)
    for old in OUT.iterdir():
        if old.name != "README.md":
            old.unlink()
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
