"""Labels from several sources: ranklens against its peers on the same data, one process.

* Cohen's kappa per query (``--queries`` queries x ``--docs`` judged docs, 4 grades,
  linear weights): ranklens' one grouped ``bincount`` vs scikit-learn's
  ``cohen_kappa_score`` called once per query (what a user would write);
* Krippendorff's alpha (ordinal) of 2 raters over every item: ranklens vs the
  ``krippendorff`` package;
* PPI++ mean (power-tuned) of ``--ppi-n`` labelled and 10x as many unlabelled
  queries: ranklens vs ``ppi_py``.

Prints times (best of ``--repeat``), the ratio peer / ranklens, the largest
difference between the values and the peak traced memory (tracemalloc) of each.

    python benchmarks/bench_agreement.py                 # 2,000 queries x 50 docs
    python benchmarks/bench_agreement.py --queries 200   # quick
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from _timing import best


def _peak(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def _row(
    name: str,
    ours: tuple[float, Any],
    peer: tuple[float, Any],
    diff: float,
    mem: tuple[float, float],
) -> None:
    print(
        f"{name:<34} ranklens {ours[0] * 1e3:9.1f} ms  peer {peer[0] * 1e3:9.1f} ms  "
        f"ratio {peer[0] / ours[0]:7.1f}x  max|diff| {diff:.1e}  "
        f"peak MiB ranklens {mem[0]:.1f} peer {mem[1]:.1f}"
    )


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--queries", type=int, default=2000)
    p.add_argument("--docs", type=int, default=50)
    p.add_argument("--ppi-n", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    import krippendorff
    import ppi_py
    from sklearn.metrics import cohen_kappa_score

    from ranklens import Qrels
    from ranklens.judging.agreement import agreement, krippendorff_alpha
    from ranklens.judging.ppi import ppi_mean

    rng = np.random.default_rng(args.seed)
    q, d = args.queries, args.docs
    a = rng.integers(0, 4, (q, d))
    b = np.where(rng.random((q, d)) < 0.7, a, rng.integers(0, 4, (q, d)))
    qid = np.repeat([f"q{i}" for i in range(q)], d)
    did = np.tile([f"d{j}" for j in range(d)], q)
    qa = Qrels.from_arrays(qid, did, a.ravel())
    qb = Qrels.from_arrays(qid, did, b.ravel())
    print(f"{q} queries x {d} docs, 4 grades; PPI n={args.ppi_n}, N={10 * args.ppi_n}")

    def ours_kappa() -> np.ndarray:
        return agreement(qa, qb, weights="linear", n_resamples=1, seed=0).per_query_kappa

    def peer_kappa() -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.array(
                [
                    cohen_kappa_score(a[i], b[i], weights="linear", labels=[0, 1, 2, 3])
                    for i in range(q)
                ]
            )

    o, pk = best(ours_kappa, args.repeat), best(peer_kappa, args.repeat)
    order = np.argsort([f"q{i}" for i in range(q)], kind="stable")  # ranklens sorts query ids
    diff = float(np.nanmax(np.abs(o[1] - pk[1][order])))
    _row("per-query Cohen's kappa (linear)", o, pk, diff, (_peak(ours_kappa), _peak(peer_kappa)))

    data = np.vstack([a.ravel(), b.ravel()]).astype(float)
    data[0, rng.random(data.shape[1]) < 0.1] = np.nan

    def ours_alpha() -> float:
        return krippendorff_alpha(data, "ordinal")

    def peer_alpha() -> float:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))

    o, pk = best(ours_alpha, args.repeat), best(peer_alpha, args.repeat)
    _row(
        "Krippendorff's alpha (ordinal)",
        o,
        pk,
        abs(o[1] - pk[1]),
        (_peak(ours_alpha), _peak(peer_alpha)),
    )

    n = args.ppi_n
    y = rng.random(n * 11)
    yhat = y + rng.normal(0, 0.1, n * 11)

    def ours_ppi() -> tuple[float, float]:
        r = ppi_mean(y[:n], yhat[:n], yhat[n:], level=0.9)
        return r.low, r.high

    def peer_ppi() -> tuple[float, float]:
        lo, hi = ppi_py.ppi_mean_ci(y[:n], yhat[:n], yhat[n:], alpha=0.1)
        return float(np.ravel(lo)[0]), float(np.ravel(hi)[0])

    o, pk = best(ours_ppi, args.repeat), best(peer_ppi, args.repeat)
    diff = max(abs(o[1][0] - pk[1][0]), abs(o[1][1] - pk[1][1]))
    _row("PPI++ mean interval", o, pk, diff, (_peak(ours_ppi), _peak(peer_ppi)))


if __name__ == "__main__":
    main()
