"""Out-of-core evaluation: a large TREC run evaluated within a memory budget.

Generates (deterministically, to a folder) a TREC run of N lines, grouped by query
(as trec_eval writes runs) and optionally a shuffled copy, with qrels, then runs

    ranklens evaluate QRELS RUN -m ... --memory BUDGET          (streamed)
    ranklens evaluate QRELS RUN -m ...                          (in memory; --in-memory-lines)

each in its own process, and prints the wall time, the peak RSS of that process
(read by a small launcher) and the throughput per row, and checks that the printed numbers
are the same (as the in-memory ones, or, when that ran on a smaller run, as the
first streamed case's).  The in-memory path may run on a smaller run (``--in-memory-lines``,
default: the same size), whose per-row throughput compares.

    python benchmarks/bench_large.py --lines 10000000 --memory 500MB
    python benchmarks/bench_large.py --lines 300000000 --memory 3GB --in-memory-lines 30000000
    python benchmarks/bench_large.py --lines 10000000 --shuffled --pipe

Options: ``--folder`` (default /tmp/ranklens-large; files are reused when present),
``--docs`` documents per query (default 1000), ``--shuffled`` also evaluates a copy
whose rows are interleaved across queries (every query comes back: the DuckDB path,
``pip install 'ranklens[large]'``), ``--pipe`` also streams the run through
``cat RUN |`` (standard input).  Not run by the tests or CI.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

METRICS = ("map", "ndcg@10", "P.10", "recall@100", "recip_rank", "bpref")
CHUNK = 2_000_000


def _text(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def write_run(
    path: str, lines: int, docs: int = 1000, shuffled: bool = False, seed: int = 0
) -> None:
    """A TREC run of ``lines`` lines (a multiple of ``docs``), ``docs`` per query
    (queries ``q0``...), scores with ties; ``shuffled``: the same rows, row ``i`` of
    query ``i mod n_queries`` (every query's rows spread over the whole file), else
    each query's rows are contiguous.  Written a chunk at a time; the same arguments
    give the same bytes."""
    n_queries = max(lines // docs, 1)
    with pa.OSFile(path + ".part", "wb") as out:
        for start in range(0, lines, CHUNK):
            i = np.arange(start, min(start + CHUNK, lines), dtype=np.int64)
            if shuffled:
                query, rank = i % n_queries, i // n_queries
            else:
                query, rank = i // docs, i % docs
            # doc and score are functions of (query, rank): the shuffled run holds the
            # grouped run's rows in another order (the same numbers)
            doc = (query * 7919 + rank * 104729 + seed) % 5_000_000
            score = np.round(1.0 - rank / (docs + 1) + (query * 31 + rank * 17) % 3 / 1000, 4)
            table = pa.table(
                {
                    "q": _text("q", query),
                    "q0": pa.array(["Q0"] * i.size),
                    "d": _text("d", doc),
                    "r": rank + 1,
                    "s": score,
                    "t": pa.array(["bench"] * i.size),
                }
            )
            pacsv.write_csv(
                table,
                out,
                write_options=pacsv.WriteOptions(
                    include_header=False, delimiter=" ", quoting_style="none"
                ),
            )
    os.replace(path + ".part", path)


def write_qrels(path: str, lines: int, docs: int = 1000, judged: int = 20, seed: int = 0) -> None:
    """Qrels for :func:`write_run`'s queries: ``judged`` documents per query, half of
    them retrieved (grades -1..3), and 1% of the queries judged but never retrieved."""
    n_queries = max(lines // docs, 1)
    rng = np.random.default_rng([seed, 1])
    query = np.repeat(np.arange(n_queries + n_queries // 100 + 1), judged)
    rank = rng.integers(0, 2 * docs, query.size)
    doc = (query * 7919 + rank * 104729) % 5_000_000
    pairs = pa.table(
        {"q": _text("q", query), "d": _text("d", doc), "r": rng.integers(-1, 4, query.size)}
    )
    pairs = pairs.group_by(["q", "d"], use_threads=False).aggregate([("r", "max")])
    table = pa.table(
        {
            "q": pairs["q"],
            "i": pa.array(["0"] * pairs.num_rows),
            "d": pairs["d"],
            "r": pairs["r_max"],
        }
    )
    pacsv.write_csv(
        table,
        path,
        write_options=pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )


# Run by a fresh, small interpreter: a process forked from a large one starts with
# that one's peak RSS (Linux keeps it across exec), so the command's own peak is read
# by this launcher, whose memory is small when it forks.
_LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(proc.pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss * 1024,
      os.waitstatus_to_exitcode(status), file=sys.stderr)
"""


def measure(args: list[str]) -> tuple[float, int, bytes]:
    """Wall seconds, peak RSS (bytes: the largest of the command's processes) and
    standard output of the command ``args`` run in its own process."""
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *args], capture_output=True, check=False
    )
    wall, peak, code = done.stderr.decode().split()[-3:]
    if int(code) != 0:
        sys.exit(f"failed: {' '.join(args)}\n{done.stderr.decode()}")
    return float(wall), int(peak), done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--lines", type=int, default=10_000_000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--memory", default="500MB")
    ap.add_argument("--in-memory-lines", type=int, default=None)
    ap.add_argument("--folder", default="/tmp/ranklens-large")
    ap.add_argument("--shuffled", action="store_true")
    ap.add_argument("--pipe", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.folder, exist_ok=True)
    ranklens = [sys.executable, "-m", "ranklens", "evaluate"]
    metrics = [x for m in METRICS for x in ("-m", m)] + ["--format", "json"]
    budget = ["--memory", args.memory]

    def files(lines: int, shuffled: bool = False) -> tuple[str, str]:
        qrels = os.path.join(args.folder, f"qrels.{lines}")
        run = os.path.join(args.folder, f"run.{lines}{'.shuffled' if shuffled else ''}")
        if not os.path.exists(qrels):
            write_qrels(qrels, lines, args.docs)
        if not os.path.exists(run):
            t = time.perf_counter()
            write_run(run, lines, args.docs, shuffled)
            print(
                f"wrote {run} ({os.path.getsize(run) / 1e9:.2f} GB) in "
                f"{time.perf_counter() - t:.0f} s",
                flush=True,
            )
        return qrels, run

    small = args.in_memory_lines or args.lines
    rows = []
    qrels, run = files(small)
    rows.append((f"in memory, {small:,} lines", small, measure([*ranklens, qrels, run, *metrics])))
    reference = rows[0][2][2] if small == args.lines else None
    qrels, run = files(args.lines)
    cases: list[tuple[str, list[str]]] = [
        (
            f"--memory {args.memory}, {args.lines:,} lines, grouped",
            [*ranklens, qrels, run, *metrics, *budget],
        )
    ]
    if args.pipe:
        piped = shlex.join([*ranklens, qrels, "-", *metrics, *budget])
        cases.append(
            (
                f"--memory {args.memory}, {args.lines:,} lines, grouped, from a pipe",
                ["bash", "-c", f"cat {shlex.quote(run)} | {piped}"],
            )
        )
    if args.shuffled:
        _, shuffled = files(args.lines, shuffled=True)
        cases.append(
            (
                f"--memory {args.memory}, {args.lines:,} lines, shuffled",
                [*ranklens, qrels, shuffled, *metrics, *budget],
            )
        )
    for label, command in cases:
        rows.append((label, args.lines, measure(command)))
    if reference is None:  # the in-memory run was smaller: compare the streamed ones
        reference = rows[1][2][2]
    print(f"\n{'case':<58}{'wall s':>9}{'peak RSS':>12}{'ns/row':>9}  same numbers")
    for label, lines, (wall, peak, out) in rows:
        same = (
            "" if lines != args.lines else ("yes" if _numbers(out) == _numbers(reference) else "NO")
        )
        print(f"{label:<58}{wall:>9.1f}{peak / 2**20:>9.0f} MiB{wall / lines * 1e9:>9.0f}  {same}")


def _numbers(out: bytes) -> object:
    """The metric values of ``--format json`` output (the run's name may differ: '-')."""
    import json

    data = json.loads(out)
    runs = data if isinstance(data, list) else [data]
    return [{k: v for k, v in r.items() if k not in ("run", "run_name", "name")} for r in runs]


if __name__ == "__main__":
    main()
