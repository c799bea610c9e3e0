"""Benchmark the intent-aware metrics against pyndeval (ndeval's C code inside).

Run from the repository root::

    python benchmarks/bench_diversity.py                  # 10,000 queries x 100 documents
    python benchmarks/bench_diversity.py --queries 2000 --quick

Both get the same diversity qrels (``--intents`` intents per query at most, each
judging a share of ``--judged`` documents per query, graded 0-2) and the same run
(``--docs`` documents per query, scores with ties, ranked alike: pyndeval gets scores
``-rank`` of ranklens' tie order) and compute ndeval's 21 columns (ERR-IA, nERR-IA,
alpha-DCG, alpha-nDCG at 5, 10, 20, NRBP, nNRBP, MAP-IA, P-IA and strec at 5, 10,
20) per query, in one process.  Timed, best of ``--repeat``, from rows already in
memory (each library's input form: Arrow arrays for ranklens, tuples for pyndeval),
after a warm-up call of ranklens (its first imports):

* pyndeval: ``RelevanceEvaluator(qrels, measures)`` and ``evaluate(run)``;
* ranklens: ``DiversityQrels.from_arrays``, ``Run.from_arrays`` and
  ``ranklens.evaluate`` of the 21 metrics.

Peak memory: the growth of the process's peak resident set during one call of
each (Linux: the peak is reset before each).  The per-query values are checked to
agree (1e-9).
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from _timing import best

COLUMNS = [
    f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)
]
COLUMNS += ["NRBP", "nNRBP", "MAP-IA"]
COLUMNS += [f"{m}@{k}" for m in ("P-IA", "strec") for k in (5, 10, 20)]
FAMILY = {
    "ERR-IA": "err_ia",
    "nERR-IA": "nerr_ia",
    "alpha-DCG": "alpha_dcg",
    "alpha-nDCG": "alpha_ndcg",
    "NRBP": "nrbp",
    "nNRBP": "nnrbp",
    "MAP-IA": "map_ia",
    "P-IA": "p_ia",
    "strec": "strec",
}


def ranklens_name(column: str) -> str:
    base, _, k = column.partition("@")
    return FAMILY[base] + (f"@{k}" if k else "")


def make_data(n_queries: int, n_docs: int, n_judged: int, max_intents: int, seed: int) -> Any:
    """Diversity qrels rows (query, intent, doc, grade) and run rows (query, doc, score)
    as numpy arrays, and the run's rows in ranklens' trec order."""
    rng = np.random.default_rng(seed)
    qids = np.array([f"q{i}" for i in range(n_queries)], dtype=object)
    dids = np.array([f"d{j}" for j in range(n_docs)], dtype=object)
    n_int = rng.integers(1, max_intents + 1, n_queries)
    # every (query, intent) judges the first n_judged documents with probability 0.7
    q_i = np.repeat(np.arange(n_queries), n_int)
    i_i = np.arange(len(q_i)) - np.repeat(np.cumsum(n_int) - n_int, n_int)
    qq = np.repeat(q_i, n_judged)
    ii = np.repeat(i_i, n_judged)
    dd = np.tile(np.arange(n_judged), len(q_i))
    keep = rng.random(len(qq)) < 0.7
    qq, ii, dd = qq[keep], ii[keep], dd[keep]
    grade = rng.choice([0, 0, 0, 1, 1, 2], size=len(qq))
    qrels = (
        qids[qq],
        np.array([f"i{x}" for x in range(max_intents)], dtype=object)[ii],
        dids[dd],
        grade,
    )
    rq = np.repeat(np.arange(n_queries), n_docs)
    rd = np.tile(np.arange(n_docs), n_queries)
    score = np.round(rng.normal(size=len(rq)), 2)  # some ties
    run = (qids[rq], dids[rd], score)
    # ranklens' trec order: query, score descending, doc id descending
    order = sorted(range(len(rq)), key=lambda r: (rq[r], -score[r], _desc(dids[rd[r]])))
    return qrels, run, order


def _desc(s: str) -> tuple[int, ...]:
    b = s.encode()
    return (*(-c for c in b), 1)  # a prefix sorts after its extensions (descending)


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _status_kb(key: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_growth_mb(fn: Any) -> float | None:
    """The growth of the peak resident set during ``fn()`` (MB), None if unknown."""
    if not _reset_peak():
        return None
    before = _status_kb("VmRSS")
    fn()
    peak = _status_kb("VmHWM")
    if before is None or peak is None:
        return None
    return (peak - before) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--judged", type=int, default=40)
    ap.add_argument("--intents", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one repeat")
    args = ap.parse_args()
    repeat = 1 if args.quick else args.repeat

    import pyndeval

    import ranklens

    (qq, qi, qd, qg), (rq, rd, rs), order = make_data(
        args.queries, args.docs, args.judged, args.intents, 0
    )
    print(
        f"{args.queries:,} queries x {args.docs} documents; {len(qq):,} intent judgments "
        f"(up to {args.intents} intents per query)"
    )
    # pyndeval's input: tuples, the run ranked as ranklens ranks it
    nd_qrels = list(zip(qq.tolist(), qi.tolist(), qd.tolist(), qg.tolist(), strict=True))
    rank: dict[str, int] = {}
    nd_run = []
    for r in order:
        q = rq[r]
        rank[q] = rank.get(q, 0) + 1
        nd_run.append((q, rd[r], -float(rank[q])))

    def run_pyndeval() -> Any:
        return pyndeval.RelevanceEvaluator(nd_qrels, COLUMNS).evaluate(nd_run)

    names = [ranklens_name(c) for c in COLUMNS]
    import pyarrow as pa

    aq, ai, ad, arq, ard = (pa.array(x.tolist(), type=pa.string()) for x in (qq, qi, qd, rq, rd))

    def run_ranklens() -> Any:
        qrels = ranklens.DiversityQrels.from_arrays(aq, ai, ad, qg)
        run = ranklens.Run.from_arrays(arq, ard, rs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ranklens.RanklensWarning)
            return ranklens.evaluate(qrels, run, names)

    run_ranklens()  # warm-up: first imports
    t_nd, theirs = best(run_pyndeval, repeat)
    t_rl, ours = best(run_ranklens, repeat)
    worst = 0.0
    for c, n in zip(COLUMNS, names, strict=True):
        mine = ours.per_query(n)
        for q, vals in theirs.items():
            a, b = mine[q], vals[c]
            if math.isnan(a) and math.isnan(b):
                continue
            worst = max(worst, abs(a - b))
    assert worst < 1e-9, worst
    m_rl = peak_growth_mb(run_ranklens)
    m_nd = peak_growth_mb(run_pyndeval)
    print(f"pyndeval  {t_nd:8.3f} s   peak +{m_nd if m_nd is not None else float('nan'):7.1f} MB")
    print(f"ranklens  {t_rl:8.3f} s   peak +{m_rl if m_rl is not None else float('nan'):7.1f} MB")
    print(f"speed-up  {t_nd / t_rl:8.1f} x   (21 columns per query agree to {worst:.1e})")


if __name__ == "__main__":
    main()
