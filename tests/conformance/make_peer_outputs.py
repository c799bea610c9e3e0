"""Compute pytrec_eval's and ranx's values on the conformance fixtures, as test data.

Usage (from the repository root, in an environment with the test extras)::

    python tests/conformance/make_peer_outputs.py          # writes tests/conformance/peers/
    python tests/conformance/make_peer_outputs.py --check  # fails if the files differ

Writes ``peers/pytrec_eval.json`` and ``peers/ranx.json``: the library and its
version, and per case the fixture files, the queries left out or added (and
why), the library's options, the ranklens conventions that reproduce them and
every per-query value the library returned.  The fixtures are read with the
plain parser of ``make_fixtures.py`` (not with ranklens).

Where the peers differ from trec_eval 10 (ranklens names each difference a
convention of the profile):

- pytrec_eval (trec_eval 9.0.8 inside): scores are rounded to float32 (near-ties
  become ties), ``iprec_at_recall`` / ``11pt_avg`` find the rank for a recall level
  with ``(long)(p * R + 0.9)``, ``gm_map`` / ``gm_bpref`` per query are logarithms,
  a run query given with an empty ranking is evaluated; a query whose judgments
  are all negative makes trec_eval 9 read out of bounds (as
  tests/ranking/test_reference_pytrec_eval.py notes; query 4 is left out).
- ranx: ties keep the run's order (numba's insertion sort) only for rankings of
  up to 15 documents and follow no rule beyond (an unstable quicksort), so the
  queries with longer tied rankings are left out; queries in the qrels and not in
  the run score 0 (``make_comparable=True``); ``rbp`` sums raw grades; ``bpref``
  counts negative grades as judged non-relevant and is ``1 - 0/0`` (NaN) where no
  document is judged non-relevant; ranx's bpref loop stops at a query without
  relevant judgments (leaving 0 for the queries after it), so bpref is computed
  again without those queries.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__:  # imported by the tests (tests.conformance.make_peer_outputs)
    from .make_fixtures import DATA, read_qrels, read_run
else:  # run as a script: the repository root on the path, for tests.helpers
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from make_fixtures import DATA, read_qrels, read_run
from tests.helpers import RANX_NAMES

HERE = Path(__file__).resolve().parent
OUT = HERE / "peers"

#: ranx metric -> ranklens metric (profile ranx)
RANX_MEASURES = {
    **RANX_NAMES,
    "bpref": "bpref",
    "rbp.8": "rbp(p=0.8)",
}


def _dumps(obj: Any) -> bytes:
    """JSON with one line per measure's values (small, and readable in a diff)."""
    values = {name: case.pop("values") for name, case in obj["cases"].items()}
    text = json.dumps(obj, indent=1, ensure_ascii=False)
    for name, by_measure in values.items():
        rows = ",\n".join(
            f"    {json.dumps(m)}: {json.dumps(v, ensure_ascii=False, separators=(',', ':'))}"
            for m, v in by_measure.items()
        )
        head = f"\n  {json.dumps(name)}: {{\n"
        at = text.index(head) + len(head)
        text = text[:at] + f'   "values": {{\n{rows}\n   }},\n' + text[at:]
        obj["cases"][name]["values"] = by_measure
    return (text + "\n").encode()


def pytrec_eval_outputs() -> dict[str, Any]:
    import pytrec_eval

    measures = sorted(set(pytrec_eval.supported_measures) - {"runid", "relstring", "num_q"})
    qrels = read_qrels(DATA / "main.qrels")
    qrels_c = read_qrels(DATA / "main_c.qrels")
    run = read_run(DATA / "main.run")
    drop = {"4": "every judgment negative: trec_eval 9 reads out of bounds"}
    cases: dict[str, Any] = {}
    specs = {
        "default": ({}, {}, "main.qrels", {}),
        "l2": ({"relevance_level": 2}, {"rel_threshold": 2}, "main.qrels", {}),
        "J": ({"judged_docs_only_flag": True}, {"judged_only": True}, "main.qrels", {}),
        # query 5 is judged and given with an empty ranking
        "empty_ranking": ({}, {}, "main_c.qrels", {"5": {}}),
    }
    for name, (options, conventions, qrels_file, extra) in specs.items():
        q = {k: v for k, v in (qrels_c if qrels_file == "main_c.qrels" else qrels).items()}
        q = {k: v for k, v in q.items() if k not in drop}
        r = {**{k: v for k, v in run.items() if k not in drop}, **extra}
        values = pytrec_eval.RelevanceEvaluator(q, set(measures), **options).evaluate(r)
        cases[name] = {
            "qrels": qrels_file,
            "run": "main.run",
            "left_out": drop,
            "empty_rankings": sorted(extra),
            "options": options,
            "conventions": conventions,
            "values": {
                m: {qid: values[qid][m] for qid in sorted(values)}
                for m in sorted(next(iter(values.values())))
            },
        }
    return {
        "library": "pytrec_eval-terrier",
        "version": metadata.version("pytrec_eval-terrier"),
        "profile": "pytrec_eval",
        "cases": cases,
    }


def ranx_outputs() -> dict[str, Any]:
    import ranx

    qrels = read_qrels(DATA / "main_c.qrels")
    run = read_run(DATA / "main.run")
    left_out = {
        q: "more than 15 documents with tied scores: ranx's order of them follows no rule"
        for q, ranking in run.items()
        if len(ranking) > 15 and len(set(ranking.values())) < len(ranking)
    }
    q = {k: v for k, v in qrels.items() if k not in left_out}
    r = {k: v for k, v in run.items() if k not in left_out and k in qrels}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rq = ranx.Qrels(q)
        got = ranx.evaluate(
            rq, ranx.Run(r), list(RANX_MEASURES), return_mean=False, make_comparable=True
        )
    order = list(rq.keys())
    values = {m: dict(zip(order, [float(x) for x in got[m]], strict=True)) for m in RANX_MEASURES}
    # ranx's bpref divides by the number of relevant judgments inside a numba prange
    # loop: a query with none raises a ZeroDivisionError that ranx does not report, and
    # every query after it in the loop keeps 0 (ranx 0.3.21: queries 3 and 4 turned 9,
    # r0 and r2 into 0); bpref of the queries with a relevant judgment is computed again
    # without them
    with_rel = {k: v for k, v in q.items() if any(g >= 1 for g in v.values())}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rq_rel = ranx.Qrels(with_rel)
        bpref = ranx.evaluate(
            rq_rel,
            ranx.Run({k: v for k, v in r.items() if k in with_rel}),
            ["bpref"],
            return_mean=False,
            make_comparable=True,
        )  # one metric: its array (ranx returns a dict only for several)
    values["bpref"].update(zip(rq_rel.keys(), [float(x) for x in bpref], strict=True))
    return {
        "library": "ranx",
        "version": metadata.version("ranx"),
        "profile": "ranx",
        "measures": RANX_MEASURES,
        "cases": {
            "default": {
                "qrels": "main_c.qrels",
                "run": "main.run",
                "left_out": {**left_out, "7": "not judged: ranx needs the qrels' queries"},
                "empty_rankings": [],
                "options": {"make_comparable": True},
                "notes": {
                    "bpref": "computed again on the queries with a relevant judgment: "
                    "ranx's bpref raises ZeroDivisionError inside its numba loop on a "
                    "query without one and leaves 0 for the queries after it"
                },
                "conventions": {},
                "values": {m: {k: v[k] for k in sorted(v)} for m, v in values.items()},
            }
        },
    }


def files() -> dict[str, bytes]:
    return {
        "pytrec_eval.json": _dumps(pytrec_eval_outputs()),
        "ranx.json": _dumps(ranx_outputs()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    out = files()
    if args.check:
        differ = [n for n, b in out.items() if (OUT / n).read_bytes() != b]
        if differ:
            print(f"differ: {differ}", file=sys.stderr)
            return 1
        return 0
    OUT.mkdir(exist_ok=True)
    for name, data in out.items():
        (OUT / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
