"""Compute cwl_eval's values (EU, ETU, EC, ETC, ED) on seeded random data, as test data.

Usage (from the repository root, in an environment with cwl-eval 1.0.12)::

    python tests/conformance/make_cwl_outputs.py          # writes peers/cwl_eval.json
    python tests/conformance/make_cwl_outputs.py --check  # fails if the file differs

The data (:func:`cases`) are seeded random qrels and runs: grades -1..3, unjudged
retrieved documents, tied scores, rankings longer than the depth, queries only in the
qrels and only in the run.  cwl_eval is driven through its own classes
(``TrecQrelHandler``, ``RankingMaker``, the ``*CWLMetric`` classes), as its command
line does, without its command line (which logs to ``cwl.log`` in the working
folder and imports its metric classes from a path only a source checkout has).

What cwl_eval is given, and why (ranklens names each difference a parameter):

- gains: its qrels column *is* the gain.  A grade -1 is given as gain 0 (cwl_eval
  refuses negative gains, ranklens counts a negative grade as judged non-relevant, gain
  0); case ``unit`` maps grades 0..3 to gains 0, 1/3, 2/3, 1 (ranklens
  ``gain={1: 1/3, 2: 2/3, 3: 1}``); case ``linear`` gives the grades themselves (its
  ``--max_gain 3``), for every measure but INST and NERR, which need gains in [0, 1];
- order: cwl_eval ranks the rows of each topic in file order; the runs are written by
  descending score with ties in a random order, which is ranklens' ``ties='input'``;
- costs: its default (no costs file: every item, and the padding, costs
  ``max_cost=1``), and in case ``cost2`` a costs file giving every item cost 2 with
  ``--max_cost 2 --min_cost 2`` (ranklens ``cost=2``);
- depth: its ``--max_depth`` (1000, and 20 in case ``depth20``);
- queries: cwl_eval reports the topics of the run; a run topic without judgments
  scores with gain 0 everywhere.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "peers" / "cwl_eval.json"

UNIT = {0: 0.0, 1: 1 / 3, 2: 2 / 3, 3: 1.0}

#: cwl_eval class and arguments -> the ranklens metric (without output / gain / cost)
MEASURES: list[tuple[str, tuple[Any, ...], str]] = [
    ("PrecisionCWLMetric", (1,), "cwl_p@1"),
    ("PrecisionCWLMetric", (3,), "cwl_p@3"),
    ("PrecisionCWLMetric", (10,), "cwl_p@10"),
    ("RRCWLMetric", (), "cwl_rr"),
    ("APCWLMetric", (), "cwl_ap"),
    ("TrAPCWLMetric", (), "cwl_trap"),
    ("RBPCWLMetric", (0.2,), "cwl_rbp(p=0.2)"),
    ("RBPCWLMetric", (0.8,), "cwl_rbp(p=0.8)"),
    ("RBPCWLMetric", (0.95,), "cwl_rbp(p=0.95)"),
    ("NPVCWLMetric", (0.1,), "cwl_npv(rate=0.1)"),
    ("NPVCWLMetric", (0.5,), "cwl_npv(rate=0.5)"),
    ("NDCGCWLMetric", (3,), "cwl_ndcg@3"),
    ("NDCGCWLMetric", (10,), "cwl_ndcg@10"),
    ("SETCWLMetric", (0.5, 10), "cwl_set(beta=0.5)@10"),
    ("SETCWLMetric", (0.2, 3), "cwl_set(beta=0.2)@3"),
    ("INSTCWLMetric", (1.0,), "cwl_inst(t=1)"),
    ("INSTCWLMetric", (2.5,), "cwl_inst(t=2.5)"),
    ("INSQCWLMetric", (1.0,), "cwl_insq(t=1)"),
    ("INSQCWLMetric", (3.0,), "cwl_insq(t=3)"),
    ("TBGCWLMetric", (2,), "cwl_tbg(halflife=2)"),
    ("TBGCWLMetric", (22,), "cwl_tbg(halflife=22)"),
    ("TBGCWLMetric", (224,), "cwl_tbg(halflife=224)"),
    ("UMeasureCWLMetric", (5,), "cwl_umeasure(budget=5)"),
    ("UMeasureCWLMetric", (50,), "cwl_umeasure(budget=50)"),
    ("UMeasureCWLMetric", (1000,), "cwl_umeasure(budget=1000)"),
    ("BPMCWLMetric", (1.0, 10), "cwl_bpm(budget=10,t=1)"),
    ("BPMCWLMetric", (2.0, 5), "cwl_bpm(budget=5,t=2)"),
    ("BPMCWLMetric", (1000, 10), "cwl_bpm(budget=10,t=1000)"),
    ("BPMDCWLMetric", (1.0, 10, 1.0, 1.0, 0.5), "cwl_bpm(budget=10,gain_med=0.5,hb=1,t=1)"),
    ("BPMDCWLMetric", (2.0, 20, 0.5, 3.0, 0.3), "cwl_bpm(budget=20,gain_med=0.3,hb=0.5,t=2)"),
    ("IFTGoalCWLMetric", (2.0, 0.9, 1), "cwl_ift_goal(b1=0.9,r1=1,t=2)"),
    ("IFTGoalCWLMetric", (1.0, 0.5, 100), "cwl_ift_goal(b1=0.5,r1=100,t=1)"),
    ("IFTRateCWLMetric", (0.2, 0.9, 10), "cwl_ift_rate(a=0.2,b2=0.9,r2=10)"),
    ("IFTRateCWLMetric", (0.5, 0.5, 100), "cwl_ift_rate(a=0.5,b2=0.5,r2=100)"),
    (
        "IFTGoalRateCWLMetric",
        (2.0, 0.9, 10, 2.0, 0.9, 10),
        "cwl_ift(a=2,b1=0.9,b2=0.9,r1=10,r2=10,t=2)",
    ),
    (
        "IFTGoalRateCWLMetric",
        (2.0, 0.9, 100, 0.2, 0.9, 100),
        "cwl_ift(a=0.2,b1=0.9,b2=0.9,r1=100,r2=100,t=2)",
    ),
    ("NERReq8CWLMetric", (3,), "cwl_nerr8@3"),
    ("NERReq8CWLMetric", (10,), "cwl_nerr8@10"),
    ("NERReq9CWLMetric", (3,), "cwl_nerr9@3"),
    ("NERReq9CWLMetric", (10,), "cwl_nerr9@10"),
    ("NERReq10CWLMetric", (0.5,), "cwl_nerr10(phi=0.5)"),
    ("NERReq10CWLMetric", (0.9,), "cwl_nerr10(phi=0.9)"),
    ("NERReq11CWLMetric", (1.0,), "cwl_nerr11(t=1)"),
    ("NERReq11CWLMetric", (2.0,), "cwl_nerr11(t=2)"),
]
OUTPUTS = ("eu", "etu", "ec", "etc", "ed")
UNIT_ONLY = ("INSTCWLMetric", "NERReq")  # gains in [0, 1]

#: case -> (seed, gains: unit | linear, cost, depth)
CASES: dict[str, tuple[int, str, float, int]] = {
    "unit": (0, "unit", 1.0, 1000),
    "linear": (1, "linear", 1.0, 1000),
    "cost2": (2, "unit", 2.0, 1000),
    "depth20": (3, "unit", 1.0, 20),
}

Rows = list[tuple[str, str, float]]


def dataset(seed: int) -> tuple[Rows, Rows]:
    """Qrels rows (grades -1..3) and run rows in rank order (score descending, ties in
    a random order): unjudged documents, ties, rankings of 1 to 30 documents, a query
    only in the qrels (q09) and one only in the run (q10)."""
    rng = np.random.default_rng(seed)
    qrels: Rows = []
    run: Rows = []
    for q in range(11):
        qid = f"q{q:02d}"
        docs = [f"d{i}" for i in range(int(rng.integers(1, 30)))]
        if q != 10:
            judged = rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False)
            grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
            if q == 3:
                grades = np.minimum(grades, 0)  # nothing relevant
            qrels += [(qid, str(d), float(g)) for d, g in zip(judged, grades, strict=True)]
        if q == 9:
            continue
        ranked = list(rng.permutation(docs + [f"u{i}" for i in range(int(rng.integers(0, 5)))]))
        ranked = ranked[: int(rng.integers(1, len(ranked) + 1))]
        scores = np.round(rng.normal(size=len(ranked)), 1)
        order = np.lexsort((rng.random(len(ranked)), -scores))
        run += [(qid, str(ranked[i]), float(scores[i])) for i in order]
    return qrels, run


def gain_of(grade: float, gains: str) -> float:
    """The gain cwl_eval is given for a grade (negative grades: 0)."""
    g = max(grade, 0.0)
    return UNIT[int(g)] if gains == "unit" else g


def ranklens_name(metric: str, output: str, gains: str, cost: float, depth: int) -> str:
    """The ranklens metric of a cwl_eval measure and output, in the case's settings."""
    extra = [f"output={output}"]
    if gains == "unit":
        extra.append("gain={1:0.3333333333333333,2:0.6666666666666666,3:1}")
    if cost != 1.0:
        extra.append(f"cost={cost:g}")
    if depth != 1000:
        extra.append(f"depth={depth}")
    base, at, k = metric.partition("@")
    if base.endswith(")"):
        base = base[:-1] + "," + ",".join(extra) + ")"
    else:
        base = base + "(" + ",".join(extra) + ")"
    return base + at + k


def _classes() -> dict[str, Any]:
    """cwl_eval's measure classes by name (from every module of its measures
    package, as its metrics-file reader collects them)."""
    import importlib
    import pkgutil

    import cwl.ruler.measures as pkg

    found: dict[str, Any] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        found.update({k: v for k, v in vars(module).items() if k.endswith("CWLMetric")})
    return found


def cwl_values(
    qrels: Rows, run: Rows, gains: str, cost: float, depth: int
) -> dict[str, dict[str, list[float]]]:
    """cwl_eval's (EU, ETU, EC, ETC, ED) per run topic (in run order) for every measure
    of :data:`MEASURES` cwl_eval accepts with these gains."""
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    handler = TrecQrelHandler()
    for q, d, g in qrels:
        handler.put_value(q, d, gain_of(g, gains))
    costs = {"Q0": cost} if cost != 1.0 else None
    out: dict[str, dict[str, list[float]]] = {}
    topics = list(dict.fromkeys(q for q, _, _ in run))
    for cls, args, name in MEASURES:
        if gains == "linear" and cls.startswith(UNIT_ONLY):
            continue
        per: dict[str, list[float]] = {}
        for topic in topics:
            maker = RankingMaker(
                topic,
                handler,
                costs,
                max_gain=3.0 if gains == "linear" else 1.0,
                max_cost=cost,
                min_cost=cost,
                max_n=depth,
            )
            for q, d, _ in run:
                if q == topic:
                    maker.add(d, "Q0")
            metric = _classes()[cls](*args)
            metric.residuals = False
            metric.measure(maker.get_ranking())
            per[topic] = [float(v) for v in metric.get_scores()]
        out[name] = per
    return out


def cases() -> dict[str, Any]:
    """Every case: its settings, data and cwl_eval's values."""
    result: dict[str, Any] = {}
    for case, (seed, gains, cost, depth) in CASES.items():
        qrels, run = dataset(seed)
        result[case] = {
            "seed": seed,
            "gains": gains,
            "cost": cost,
            "depth": depth,
            "values": cwl_values(qrels, run, gains, cost, depth),
        }
    return result


def files() -> dict[str, bytes]:
    doc = {
        "library": "cwl-eval",
        "version": metadata.version("cwl-eval"),
        "outputs": list(OUTPUTS),
        "cases": cases(),
    }
    return {OUT.name: (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode()}


def main() -> int:
    if __package__:  # imported by the tests
        from tests.conformance.regenerate import write_or_check
    else:  # run as a script: its folder is on sys.path
        from regenerate import write_or_check  # type: ignore[no-redef]

    return write_or_check(files, OUT.parent, "cwl_eval", __doc__ or "")


if __name__ == "__main__":
    sys.exit(main())
