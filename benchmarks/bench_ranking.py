"""Benchmark ranklens against pytrec_eval and ranx on the same synthetic data.

Run from the repository root::

    python benchmarks/bench_ranking.py                    # 10,000 x 100 and 100,000 x 100
    python benchmarks/bench_ranking.py --quick            # 1,000 x 100 smoke test
    python benchmarks/bench_ranking.py --sizes 10000x100  # one size

What is measured (see benchmarks/README.md for the details):

* end to end, from in-memory pandas DataFrames to mean metric values;
* evaluation on already built objects (ranklens ``evaluate(Qrels, Run)``,
  pytrec_eval ``evaluator.evaluate(run_dict)``, ranx ``evaluate(Qrels, Run)``);
* kernel only (ranklens's metric kernels on a prepared form; the peers have no
  separable kernel, so their number is again evaluation on built objects);
* ranklens's own phases (from_frame, judgment index, prepare, each kernel);
* agreement of the mean (and per-query) values of the three libraries;
* peak memory of an end-to-end evaluation, one subprocess per library;
* cold start: a fresh interpreter that imports the library and evaluates a
  tiny qrels/run.

Timings are wall-clock (``time.perf_counter``), best of ``--repeat`` runs,
after a warm-up on a small data set of the same shape (so ranx's numba
functions are compiled before they are timed; compilation is reported under
cold start).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

# --------------------------------------------------------------------------------------
# metrics: one row per metric, each library's own name for it
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricNames:
    label: str
    ranklens: str
    pytrec_eval: str  # the measure name, which is also the key of the result dict
    ranx: str


METRICS: tuple[MetricNames, ...] = (
    MetricNames("ndcg@10", "ndcg@10", "ndcg_cut_10", "ndcg@10"),
    MetricNames("map", "map", "map", "map"),
    MetricNames("mrr", "mrr", "recip_rank", "mrr"),
    MetricNames("p@10", "p@10", "P_10", "precision@10"),
    MetricNames("recall@100", "recall@100", "recall_100", "recall@100"),
)

PEERS = ("ranklens", "pytrec_eval", "ranx")

# --------------------------------------------------------------------------------------
# synthetic data
# --------------------------------------------------------------------------------------

CORPUS = 5_000_000  # doc ids are "d0" .. "d4999999"
JUDGED = (10, 20)  # judged docs per query, inclusive range
JUDGED_IN_RUN = 0.6  # probability that a judged doc is one of the run's docs
GRADE_P = (0.45, 0.30, 0.15, 0.10)  # probability of relevance grade 0, 1, 2, 3
NO_RELEVANT = 0.02  # fraction of queries whose judgments are all grade 0
SCORE_LEVELS = 2048  # scores are k / 1024 for k in [0, SCORE_LEVELS): exact in float32


@dataclass(frozen=True)
class Size:
    queries: int
    docs: int

    @property
    def label(self) -> str:
        return f"{self.queries:,} x {self.docs}"

    @property
    def spec(self) -> str:
        return f"{self.queries}x{self.docs}"

    @property
    def rows(self) -> int:
        return self.queries * self.docs


@dataclass
class Synthetic:
    qrels: pd.DataFrame  # query (str), doc (str), relevance (int64)
    run: pd.DataFrame  # query (str), doc (str), score (float64)
    stats: dict[str, Any] = field(default_factory=dict)


def _ids(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def make_data(size: Size, seed: int) -> Synthetic:
    """Deterministic synthetic qrels and run (same ``size`` and ``seed``, same frames).

    Every query retrieves ``size.docs`` distinct documents, in random row order,
    with scores ``k / 1024`` (ties within a query are common, and every score is
    exactly representable in float32, which pytrec_eval rounds to).  Each query
    has 10-20 judged documents with grades 0-3; about 60% of them are in the run.
    About 2% of the queries have only grade-0 judgments (no relevant document).
    """
    rng = np.random.default_rng(seed)
    nq, m = size.queries, size.docs
    # distinct docs per query: a random start plus increasing gaps (span << CORPUS)
    base = rng.integers(0, CORPUS, size=(nq, 1))
    steps = np.cumsum(rng.integers(1, 16, size=(nq, m)), axis=1)
    doc_num = (base + steps) % CORPUS
    doc_num = rng.permuted(doc_num, axis=1)  # row order unrelated to doc id
    score = rng.integers(0, SCORE_LEVELS, size=(nq, m)) / 1024.0

    # judgments: the first n_in of a random selection of run docs, then unretrieved docs
    width = JUDGED[1]
    n_judged = rng.integers(JUDGED[0], JUDGED[1] + 1, size=nq)
    n_in = np.minimum(rng.binomial(n_judged, JUDGED_IN_RUN), m)
    slot = np.arange(width)[None, :]
    take = np.argsort(rng.random((nq, m)), axis=1)[:, : min(width, m)]
    in_docs = np.take_along_axis(doc_num, take, axis=1)
    if in_docs.shape[1] < width:
        in_docs = np.pad(in_docs, ((0, 0), (0, width - in_docs.shape[1])))
    # unretrieved judged docs lie after the last retrieved one on the same id line
    out_docs = (
        base + steps[:, -1:] + np.cumsum(rng.integers(1, 16, size=(nq, width)), axis=1)
    ) % CORPUS
    judged_doc = np.where(slot < n_in[:, None], in_docs, out_docs)
    keep = slot < n_judged[:, None]
    grade = rng.choice(len(GRADE_P), size=(nq, width), p=GRADE_P)
    no_rel = rng.random(nq) < NO_RELEVANT
    grade[no_rel] = 0
    qnum = np.broadcast_to(np.arange(nq)[:, None], (nq, width))

    qrels = pa.table(
        {
            "query": _ids("q", qnum[keep]),
            "doc": _ids("d", judged_doc[keep]),
            "relevance": grade[keep].astype(np.int64),
        }
    )
    run = pa.table(
        {
            "query": _ids("q", np.repeat(np.arange(nq), m)),
            "doc": _ids("d", doc_num.ravel()),
            "score": score.ravel(),
        }
    )

    # statistics of the data, for the report
    sorted_scores = np.sort(score, axis=1)
    tied = np.zeros((nq, m), dtype=bool)
    same = sorted_scores[:, 1:] == sorted_scores[:, :-1]
    tied[:, 1:] |= same
    tied[:, :-1] |= same
    desc = sorted_scores[:, ::-1]
    k = min(10, m - 1)  # ties are adjacent once sorted: a tie touching ranks 1..10
    tie_at_10 = (desc[:, :k] == desc[:, 1 : k + 1]).any(axis=1)
    rel_any = ((grade >= 1) & keep).any(axis=1)
    stats = {
        "run rows": nq * m,
        "qrels rows": int(keep.sum()),
        "judged docs in the run": int(n_in.sum()),
        "relevant (grade >= 1) qrels rows": int(((grade >= 1) & keep).sum()),
        "queries without a relevant doc": int((~rel_any).sum()),
        "run rows whose score ties another doc of the query": int(tied.sum()),
        "queries with a tie involving the top 10": int(tie_at_10.sum()),
    }
    return Synthetic(qrels=qrels.to_pandas(), run=run.to_pandas(), stats=stats)


# --------------------------------------------------------------------------------------
# the libraries
# --------------------------------------------------------------------------------------


def _now() -> float:
    return time.perf_counter()


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence the peers' own warnings (numba emits some on ranx's kernels)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class Peer:
    """One library: end-to-end evaluation, evaluation on built objects, kernel."""

    name = ""

    def e2e(self, data: Synthetic) -> tuple[dict[str, float], dict[str, float], Any]:
        """Evaluate from the frames: (phase timings, mean values by label, handle)."""
        raise NotImplementedError

    def built(self, handle: Any) -> float:
        """Seconds to evaluate the already built objects once."""
        raise NotImplementedError

    def kernel(self, handle: Any) -> float:
        """Seconds of the metric computation alone (the peers: same as ``built``)."""
        return self.built(handle)

    def per_query(self, handle: Any, queries: list[str]) -> dict[str, np.ndarray]:
        """Per-query values by metric label, aligned with ``queries``."""
        raise NotImplementedError


class Ranklens(Peer):
    name = "ranklens"

    def __init__(self) -> None:
        import ranklens

        self.rl = ranklens
        self.names = [m.ranklens for m in METRICS]

    def e2e(self, data: Synthetic) -> tuple[dict[str, float], dict[str, float], Any]:
        rl = self.rl
        t0 = _now()
        qrels = rl.Qrels.from_frame(data.qrels, query="query", doc="doc", relevance="relevance")
        t1 = _now()
        run = rl.Run.from_frame(data.run, query="query", doc="doc", score="score")
        t2 = _now()
        res = rl.evaluate(qrels, run, self.names)
        summary = res.summary()
        t3 = _now()
        phases = {
            "Qrels.from_frame": t1 - t0,
            "Run.from_frame": t2 - t1,
            "evaluate + summary": t3 - t2,
        }
        means = {m.label: float(summary[m.ranklens]) for m in METRICS}
        return phases, means, {"qrels": qrels, "run": run, "result": res}

    def built(self, handle: Any) -> float:
        # the qrels keep their judgment index from the first evaluation, as they do
        # when one evaluates several runs against the same qrels
        t0 = _now()
        self.rl.evaluate(handle["qrels"], handle["run"], self.names).summary()
        return _now() - t0

    def kernel(self, handle: Any) -> float:
        return sum(self.kernel_times(handle).values())

    def kernel_times(self, handle: Any, prepared: Any = None) -> dict[str, float]:
        """Seconds of each metric kernel on a freshly prepared form."""
        from ranklens.ranking.engine import prepare

        if prepared is None:
            prepared = prepare(handle["qrels"], handle["run"], self.rl.Conventions())
        out = {}
        for m in METRICS:
            metric = self.rl.get_metric(m.ranklens)
            params = metric.resolved_params()
            params["ties"] = "trec"
            t0 = _now()
            metric.definition.kernel(prepared, metric.k, params)
            out[m.label] = _now() - t0
        return out

    def per_query(self, handle: Any, queries: list[str]) -> dict[str, np.ndarray]:
        return self.per_query_of(handle["result"], queries)

    def per_query_of(self, result: Any, queries: list[str]) -> dict[str, np.ndarray]:
        out = {}
        for m in METRICS:
            pq = result.per_query(m.ranklens)
            out[m.label] = np.array([pq[q] for q in queries])
        return out


def frame_to_dict(frame: pd.DataFrame, value: str) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` from a frame: the fastest plain-Python way we found
    (column lists zipped in one loop; no assumption on the row order)."""
    out: dict[str, dict[str, Any]] = {}
    for q, d, v in zip(
        frame["query"].tolist(), frame["doc"].tolist(), frame[value].tolist(), strict=True
    ):
        try:
            out[q][d] = v
        except KeyError:
            out[q] = {d: v}
    return out


class PytrecEval(Peer):
    name = "pytrec_eval"

    def __init__(self) -> None:
        import pytrec_eval

        self.pe = pytrec_eval
        self.measures = {m.pytrec_eval for m in METRICS}

    def e2e(self, data: Synthetic) -> tuple[dict[str, float], dict[str, float], Any]:
        t0 = _now()
        qrels = frame_to_dict(data.qrels, "relevance")
        run = frame_to_dict(data.run, "score")
        t1 = _now()
        evaluator = self.pe.RelevanceEvaluator(qrels, self.measures)
        t2 = _now()
        out = evaluator.evaluate(run)
        means = self.means(out)
        t3 = _now()
        phases = {
            "frames -> dicts": t1 - t0,
            "RelevanceEvaluator": t2 - t1,
            "evaluate + means": t3 - t2,
        }
        return phases, means, {"evaluator": evaluator, "run": run, "out": out}

    @staticmethod
    def means(out: dict[str, dict[str, float]]) -> dict[str, float]:
        return {m.label: float(np.mean([v[m.pytrec_eval] for v in out.values()])) for m in METRICS}

    def built(self, handle: Any) -> float:
        t0 = _now()
        handle["evaluator"].evaluate(handle["run"])
        return _now() - t0

    def per_query(self, handle: Any, queries: list[str]) -> dict[str, np.ndarray]:
        out = handle["out"]
        return {m.label: np.array([out[q][m.pytrec_eval] for q in queries]) for m in METRICS}


class Ranx(Peer):
    name = "ranx"

    def __init__(self) -> None:
        with _quiet():
            import ranx

        self.rx = ranx
        self.names = [m.ranx for m in METRICS]

    def e2e(self, data: Synthetic) -> tuple[dict[str, float], dict[str, float], Any]:
        rx = self.rx
        with _quiet():
            t0 = _now()
            # ranx's from_df asserts object-dtype id columns; pandas >= 3 makes "str"
            # (Arrow-backed) columns by default, so a user has to convert them first
            qf = data.qrels.astype({"query": object, "doc": object})
            rf = data.run.astype({"query": object, "doc": object})
            t1 = _now()
            qrels = rx.Qrels.from_df(qf, q_id_col="query", doc_id_col="doc", score_col="relevance")
            t2 = _now()
            run = rx.Run.from_df(rf, q_id_col="query", doc_id_col="doc", score_col="score")
            t3 = _now()
            res = rx.evaluate(qrels, run, self.names)
            t4 = _now()
        phases = {
            "astype(object)": t1 - t0,
            "Qrels.from_df": t2 - t1,
            "Run.from_df": t3 - t2,
            "evaluate": t4 - t3,
        }
        means = {m.label: float(res[m.ranx]) for m in METRICS}
        return phases, means, {"qrels": qrels, "run": run}

    def built(self, handle: Any) -> float:
        with _quiet():
            t0 = _now()
            self.rx.evaluate(handle["qrels"], handle["run"], self.names)
            return _now() - t0

    def per_query(self, handle: Any, queries: list[str]) -> dict[str, np.ndarray]:
        scores = handle["run"].scores  # filled in by ranx.evaluate
        return {
            m.label: np.array([scores[m.ranx][q] for q in queries], dtype=np.float64)
            for m in METRICS
        }


PEER_CLASSES: dict[str, Callable[[], Peer]] = {
    "ranklens": Ranklens,
    "pytrec_eval": PytrecEval,
    "ranx": Ranx,
}

# --------------------------------------------------------------------------------------
# memory: one subprocess per library
# --------------------------------------------------------------------------------------


def _status_kb(field_name: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark to the current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def memory_child(peer_name: str, size: Size, seed: int) -> None:
    """Runs in a subprocess: build the data, warm up, then one end-to-end evaluation."""
    data = make_data(size, seed)
    peer = PEER_CLASSES[peer_name]()
    peer.e2e(make_data(Size(200, size.docs), seed + 1))  # warm-up (numba compile)
    gc.collect()
    base = _status_kb("VmRSS")
    reset = _reset_peak_rss()
    t0 = _now()
    peer.e2e(data)
    seconds = _now() - t0
    peak = _status_kb("VmHWM") if reset else None
    if peak is None:  # whole-process peak (includes building the data)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"base_kb": base, "peak_kb": peak, "reset": reset, "seconds": seconds}))


def measure_memory(peer_name: str, size: Size, seed: int) -> dict[str, Any]:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--memory-child",
        peer_name,
        "--sizes",
        size.spec,
        "--seed",
        str(seed),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


# --------------------------------------------------------------------------------------
# cold start: a fresh interpreter per measurement
# --------------------------------------------------------------------------------------

_TINY_QRELS = "{'q1': {'d1': 2, 'd2': 0, 'd3': 1}, 'q2': {'d1': 1, 'd4': 3}}"
_TINY_RUN = "{'q1': {'d1': 0.5, 'd2': 0.25, 'd3': 0.25}, 'q2': {'d1': 1.0, 'd4': 0.5}}"

COLD_START: dict[str, tuple[str, str]] = {  # name -> (import only, import + first evaluation)
    "ranklens": (
        "import ranklens",
        "import ranklens\n"
        f"q = ranklens.Qrels.from_dict({_TINY_QRELS})\n"
        f"r = ranklens.Run.from_dict({_TINY_RUN})\n"
        f"ranklens.evaluate(q, r, {[m.ranklens for m in METRICS]!r}).summary()\n",
    ),
    "pytrec_eval": (
        "import pytrec_eval",
        "import numpy, pytrec_eval\n"
        f"e = pytrec_eval.RelevanceEvaluator({_TINY_QRELS}, "
        f"{sorted(m.pytrec_eval for m in METRICS)!r})\n"
        f"out = e.evaluate({_TINY_RUN})\n"
        "{m: numpy.mean([v[m] for v in out.values()]) for m in next(iter(out.values()))}\n",
    ),
    "ranx": (
        "import ranx",
        "import ranx\n"
        f"ranx.evaluate(ranx.Qrels({_TINY_QRELS}), ranx.Run({_TINY_RUN}), "
        f"{[m.ranx for m in METRICS]!r})\n",
    ),
}


def _time_python(code: str, env: dict[str, str] | None = None) -> float:
    t0 = _now()
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = _now() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"cold-start snippet failed:\n{code}\n{proc.stderr}")
    return seconds


def cold_start(peers: list[str], repeat: int) -> list[list[str]]:
    rows = []
    base = min(_time_python("pass") for _ in range(repeat))
    rows.append(["python -c pass (interpreter only)", f"{base:.2f}", "-"])
    for name in peers:
        imp, full = COLD_START[name]
        if name != "ranx":
            t_imp = min(_time_python(imp) for _ in range(repeat))
            t_full = min(_time_python(full) for _ in range(repeat))
            rows.append([name, f"{t_imp:.2f}", f"{t_full:.2f}"])
            continue
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            t_imp = min(_time_python(imp, env) for _ in range(repeat))
            t_empty = _time_python(full, env)  # compiles, and fills the cache
            t_warm = min(_time_python(full, env) for _ in range(repeat))
        rows.append(["ranx, empty numba cache (compiles)", f"{t_imp:.2f}", f"{t_empty:.2f}"])
        rows.append(["ranx, warm numba cache", f"{t_imp:.2f}", f"{t_warm:.2f}"])
    return rows


# --------------------------------------------------------------------------------------
# report helpers
# --------------------------------------------------------------------------------------


def table(headers: list[str], rows: list[list[str]], left: int = 1) -> str:
    """A plain-text table; the first ``left`` columns are left-aligned, the rest right."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(
            f"{c!s:<{w}}" if i < left else f"{c!s:>{w}}"
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return "\n".join([fmt(headers), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows])


def say(text: str = "") -> None:
    print(text, flush=True)


def ratio(num: float | None, den: float | None) -> str:
    if num is None or den is None or den <= 0:
        return "-"
    return f"{num / den:.2f}x"


def secs(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def best_of(repeat: int, fn: Callable[[], float]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        times.append(fn())
    return min(times)


def parse_size(text: str) -> Size:
    q, _, d = text.lower().replace(",", "").replace("_", "").partition("x")
    try:
        size = Size(int(q), int(d) if d else 100)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"size {text!r} must look like 10000x100 (queries x docs per query) or 10000"
        ) from None
    if size.queries < 1 or size.docs < 1:
        raise argparse.ArgumentTypeError(f"size {text!r} must be positive")
    return size


# --------------------------------------------------------------------------------------
# the benchmark of one size
# --------------------------------------------------------------------------------------


@dataclass
class SizeResult:
    e2e: dict[str, float] = field(default_factory=dict)
    built: dict[str, float] = field(default_factory=dict)
    kernel: dict[str, float] = field(default_factory=dict)
    phases: dict[str, dict[str, float]] = field(default_factory=dict)
    means: dict[str, dict[str, float]] = field(default_factory=dict)
    per_query: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    memory: dict[str, dict[str, Any]] = field(default_factory=dict)


def ranklens_phases(peer: Ranklens, data: Synthetic, repeat: int) -> list[list[str]]:
    """Time ranklens's phases one by one, each the best of ``repeat`` runs."""
    from ranklens.ranking.engine import prepare

    rl = peer.rl
    conv = rl.Conventions()

    def qrels_from_frame() -> Any:
        return rl.Qrels.from_frame(data.qrels, query="query", doc="doc", relevance="relevance")

    def run_from_frame() -> Any:
        return rl.Run.from_frame(data.run, query="query", doc="doc", score="score")

    def timed(fn: Callable[[], Any]) -> float:
        t0 = _now()
        fn()
        return _now() - t0

    qrels, run = qrels_from_frame(), run_from_frame()
    t_qrels = best_of(repeat, lambda: timed(qrels_from_frame))
    t_run = best_of(repeat, lambda: timed(run_from_frame))

    def first_prepare() -> float:  # a fresh Qrels: builds its judgment index
        fresh = qrels_from_frame()
        return timed(lambda: prepare(fresh, run, conv))

    t_first = best_of(repeat, first_prepare)
    prepare(qrels, run, conv)  # caches the index on ``qrels``
    t_prep = best_of(repeat, lambda: timed(lambda: prepare(qrels, run, conv)))
    kernels: dict[str, float] = {}
    for _ in range(repeat):
        gc.collect()
        for k, v in peer.kernel_times({"qrels": qrels, "run": run}).items():
            kernels[k] = min(v, kernels.get(k, v))
    t_built = best_of(repeat, lambda: timed(lambda: rl.evaluate(qrels, run, peer.names).summary()))

    def fresh_evaluate() -> float:
        fresh = qrels_from_frame()
        return timed(lambda: rl.evaluate(fresh, run, peer.names).summary())

    t_eval = best_of(repeat, fresh_evaluate)
    rows = [
        ["Qrels.from_frame", secs(t_qrels)],
        ["Run.from_frame", secs(t_run)],
        ["evaluate + summary, fresh Qrels (as in end to end)", secs(t_eval)],
        ["  judgment index of the qrels (prepare, fresh - cached)", secs(t_first - t_prep)],
        ["  evaluate + summary, judgment index cached", secs(t_built)],
        ["    prepare (join, sort, CSR layout)", secs(t_prep)],
    ]
    rows += [[f"    kernel {k}", secs(v)] for k, v in kernels.items()]
    rows.append(
        ["    rest (evaluate - prepare - kernels)", secs(t_built - t_prep - sum(kernels.values()))]
    )
    rows.append(["sum: from_frame x 2 + evaluate (fresh Qrels)", secs(t_qrels + t_run + t_eval)])
    return rows


def bench_size(size: Size, peers: list[str], repeat: int, seed: int, memory: bool) -> SizeResult:
    say(f"\n{'=' * 88}\n{size.label}: {size.rows:,} run rows\n{'=' * 88}")
    t0 = _now()
    data = make_data(size, seed)
    warm = make_data(Size(200, size.docs), seed + 1)
    say(
        f"data built in {_now() - t0:.1f} s; pandas dtypes: "
        f"query={data.run['query'].dtype}, doc={data.run['doc'].dtype}, "
        f"score={data.run['score'].dtype}, relevance={data.qrels['relevance'].dtype}"
    )
    say(table(["data", "count"], [[k, f"{v:,}"] for k, v in data.stats.items()]))

    res = SizeResult()
    queries: list[str] = []
    for name in peers:
        peer = PEER_CLASSES[name]()
        peer.e2e(warm)  # warm-up: first calls, numba compilation for ranx
        times, handle = [], None
        for _ in range(repeat):
            handle = None
            gc.collect()
            phases, means, handle = peer.e2e(data)
            times.append(sum(phases.values()))
            if times[-1] == min(times):
                res.phases[name] = phases
        res.e2e[name] = min(times)
        res.means[name] = means
        res.built[name] = best_of(repeat, lambda p=peer, h=handle: p.built(h))
        # the peers have no kernel apart from their evaluate: the same call as ``built``
        res.kernel[name] = (
            best_of(repeat, lambda p=peer, h=handle: p.kernel(h))
            if name == "ranklens"
            else res.built[name]
        )
        if name == "ranklens":
            queries = list(handle["result"].query_ids)
            rl_peer: Any = peer
            for label, kw in (
                ("ties=input", {"ties": "input"}),
                ("ties=optimistic", {"ties": "optimistic"}),
                ("ties=pessimistic", {"ties": "pessimistic"}),
                ("profile=ranx", {"profile": "ranx"}),
            ):
                r = rl_peer.rl.evaluate(handle["qrels"], handle["run"], rl_peer.names, **kw)
                res.per_query[f"ranklens {label}"] = rl_peer.per_query_of(r, queries)
        res.per_query[name] = peer.per_query(handle, queries)
        say(
            f"{name}: end to end {res.e2e[name]:.3f} s, on built objects "
            f"{res.built[name]:.3f} s, kernel {res.kernel[name]:.3f} s"
        )
        del handle
        if name == "ranklens":
            say("\nranklens phases (seconds)")
            say(table(["phase", "s"], ranklens_phases(peer, data, repeat)))
            say("")
        del peer
        gc.collect()

    say("\nend-to-end phases (seconds, best run)")
    rows = [
        [name, " | ".join(f"{k} {v:.3f}" for k, v in res.phases[name].items())] for name in peers
    ]
    say(table(["library", "phases"], rows, left=2))

    report_agreement(res, peers)

    if memory:
        for name in peers:
            res.memory[name] = measure_memory(name, size, seed)
        rows = []
        for name in peers:
            mem = res.memory[name]
            if "error" in mem:
                rows.append([name, "-", "-", "-", "-", mem["error"]])
                continue
            base, peak = mem["base_kb"] / 1024, mem["peak_kb"] / 1024
            note = "" if mem["reset"] else "peak includes building the data"
            rows.append(
                [
                    name,
                    f"{base:,.0f}",
                    f"{peak:,.0f}",
                    f"{peak - base:,.0f}",
                    f"{mem['seconds']:.2f}",
                    note,
                ]
            )
        say("\npeak memory of one end-to-end evaluation (a fresh subprocess per library; MiB)")
        say(
            table(
                [
                    "library",
                    "RSS before",
                    "peak RSS",
                    "peak - before",
                    "e2e s (fresh process)",
                    "note",
                ],
                rows,
                left=1,
            )
        )
    return res


def report_agreement(res: SizeResult, peers: list[str]) -> None:
    say("\nmean values (each library's own aggregation)")
    rows = []
    for m in METRICS:
        row = [m.label] + [f"{res.means[p][m.label]:.10f}" for p in peers]
        ref = res.means["ranklens"][m.label]
        row += [f"{abs(res.means[p][m.label] - ref):.2e}" for p in peers if p != "ranklens"]
        rows.append(row)
    say(table(["metric", *peers, *[f"|{p} - ranklens|" for p in peers if p != "ranklens"]], rows))

    say("\nper-query agreement with ranklens (default ties='trec'); tolerance 1e-9")
    ref = res.per_query["ranklens"]
    opt, pes = res.per_query["ranklens ties=optimistic"], res.per_query["ranklens ties=pessimistic"]
    inp = res.per_query["ranklens ties=input"]
    prx = res.per_query["ranklens profile=ranx"]
    headers = ["metric", "queries"]
    for p in peers[1:]:
        headers += [f"{p} differs"]
    if "ranx" in peers:
        headers += [
            "ranx within tie bounds",
            "ranx = ranklens ties=input",
            "ranx = ranklens profile=ranx",
        ]
    rows = []
    for m in METRICS:
        r = ref[m.label]
        row = [m.label, f"{len(r):,}"]
        for p in peers[1:]:
            row.append(
                f"{int((~np.isclose(res.per_query[p][m.label], r, rtol=0, atol=1e-9)).sum()):,}"
            )
        if "ranx" in peers:
            x = res.per_query["ranx"][m.label]
            lo, hi = np.minimum(opt[m.label], pes[m.label]), np.maximum(opt[m.label], pes[m.label])
            within = (x >= lo - 1e-9) & (x <= hi + 1e-9)
            row.append(f"{int(within.sum()):,}")
            row.append(f"{int(np.isclose(x, inp[m.label], rtol=0, atol=1e-9).sum()):,}")
            row.append(f"{int(np.isclose(x, prx[m.label], rtol=0, atol=1e-9).sum()):,}")
        rows.append(row)
    say(table(headers, rows))
    spread = sum(
        int((~np.isclose(opt[m.label], pes[m.label], rtol=0, atol=1e-9)).sum()) for m in METRICS
    )
    say(f"(queries x metrics whose value depends on how ties are broken: {spread:,})")


def summary(results: dict[Size, SizeResult], peers: list[str]) -> None:
    say(
        f"\n{'=' * 88}\nsummary (seconds; ratio = peer / ranklens, > 1 means ranklens is "
        f"faster)\n{'=' * 88}"
    )
    others = [p for p in peers if p != "ranklens"]
    headers = ["size", "measure", *peers, *[f"{p}/ranklens" for p in others]]
    rows = []
    for size, res in results.items():
        for label, d in (
            ("end to end (from DataFrames)", res.e2e),
            ("evaluate on built objects", res.built),
            ("kernel only (*)", res.kernel),
        ):
            rows.append(
                [
                    size.label,
                    label,
                    *[secs(d.get(p)) for p in peers],
                    *[ratio(d.get(p), d.get("ranklens")) for p in others],
                ]
            )
    say(table(headers, rows, left=2))
    say(
        "(*) ranklens: its metric kernels on an already prepared (joined, sorted) form. The\n"
        "    peers have no separate kernel: their number is the 'evaluate on built objects'\n"
        "    one (the same call), which includes their own sorting and joining. The\n"
        "    like-for-like comparison is 'evaluate on built objects'."
    )
    if any(res.memory for res in results.values()):
        headers = ["size", *[f"{p} peak - before (MiB)" for p in peers]]
        rows = []
        for size, res in results.items():
            row = [size.label]
            for p in peers:
                mem = res.memory.get(p, {})
                row.append(
                    "-"
                    if "peak_kb" not in mem
                    else f"{(mem['peak_kb'] - mem['base_kb']) / 1024:,.0f}"
                )
            rows.append(row)
        say("")
        say(table(headers, rows))


def versions(peers: list[str]) -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"python {platform.python_version()}"]
    for pkg in ("ranklens", "pytrec-eval-terrier", "ranx", "numba", "numpy", "pandas", "pyarrow"):
        try:
            parts.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            parts.append(f"{pkg} (not installed)")
    threads = ""
    if "ranx" in peers:
        with _quiet():
            import numba

        threads = f"; numba threads (ranx): {numba.get_num_threads()}"
    return (
        ", ".join(parts)
        + f"\n{platform.platform()}, {os.cpu_count()} CPUs{threads}"
        + f"\nranklens source: {_git_state()}"
    )


def _git_state() -> str:
    """The commit of the repository this script lives in, and whether src/ is modified."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(
            ["git", "-C", root, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", root, "status", "--porcelain", "--", "src"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"commit {head}" + (" + uncommitted changes in src/" if dirty else "")


# --------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes",
        type=lambda s: [parse_size(x) for x in s.split(",") if x],
        default=None,
        help="comma-separated QUERIESxDOCS sizes (default: 10000x100,100000x100)",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smoke test: 1000x100, one repetition (overridden by --sizes)",
    )
    ap.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="repetitions per timing, the best is kept (default: 3 for up to "
        "10M run rows, 1 above; 1 with --quick)",
    )
    ap.add_argument(
        "--peers",
        default=",".join(PEERS),
        help="comma-separated libraries (ranklens is always included)",
    )
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    ap.add_argument("--no-cold-start", action="store_true", help="skip the cold-start runs")
    ap.add_argument("--memory-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    sizes: list[Size] = args.sizes or (
        [Size(1_000, 100)] if args.quick else [Size(10_000, 100), Size(100_000, 100)]
    )
    if args.memory_child:
        memory_child(args.memory_child, sizes[0], args.seed)
        return 0
    peers = ["ranklens"] + [p for p in args.peers.split(",") if p and p != "ranklens"]
    unknown = [p for p in peers if p not in PEER_CLASSES]
    if unknown:
        ap.error(f"unknown peer(s) {unknown}; choose from {list(PEERS)}")

    started = _now()
    say("ranklens vs " + " vs ".join(peers[1:]) if len(peers) > 1 else "ranklens")
    say(versions(peers))
    say(
        "metrics: "
        + "; ".join(
            f"{m.label} = ranklens {m.ranklens!r}, pytrec_eval {m.pytrec_eval!r}, ranx {m.ranx!r}"
            for m in METRICS
        )
    )
    results: dict[Size, SizeResult] = {}
    for size in sizes:
        repeat = args.repeat or (1 if args.quick or size.rows > 10_000_000 else 3)
        results[size] = bench_size(size, peers, repeat, args.seed, memory=not args.no_memory)

    if not args.no_cold_start:
        say(
            f"\n{'=' * 88}\ncold start: a fresh `python -c` that imports the library and "
            f"evaluates a tiny\nqrels/run (2 queries, the 5 metrics); wall seconds, "
            f"best of {1 if args.quick else 3}\n{'=' * 88}"
        )
        say(
            table(
                ["library", "import only", "import + first evaluation"],
                cold_start(peers, 1 if args.quick else 3),
            )
        )

    summary(results, peers)
    say(f"\ntotal benchmark time: {_now() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
