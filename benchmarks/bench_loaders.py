"""Benchmark loading a large TREC run file: ranklens vs ranx vs pytrec_eval.

Run from the repository root::

    .venv/bin/python benchmarks/bench_loaders.py                      # 1M and 10M lines
    .venv/bin/python benchmarks/bench_loaders.py --lines 1000000      # one size
    .venv/bin/python benchmarks/bench_loaders.py --lines 200000 --loaders ranklens,ranx
    .venv/bin/python benchmarks/bench_loaders.py --dir /data/tmp --keep   # keep the files

What it does:

1. writes a synthetic TREC run (``query Q0 doc rank score tag``) of
   ``--lines`` lines to a temporary directory with pyarrow's CSV writer
   (``--docs-per-query`` documents per query, default 1,000; scores are
   random float64s printed in full precision, as real systems print them);
2. loads it with each loader in a fresh Python subprocess, one at a time:

   * ``ranklens``: ``ranklens.io.read_trec_run(path)``, end to end, i.e.
     including the validated ``Run`` (duplicate check, pair index);
   * ``ranx``: ``ranx.Run.from_file(path, kind="trec")`` (a Python line loop
     into a dict of dicts, then numba typed dicts);
   * ``pytrec_eval``: the dict-building loader its users write,
     ``pytrec_eval.parse_run(open(path))`` (``{query: {doc: float(score)}}``);

   each child first loads a two-line file (so one-time costs such as numba
   compilation or Arrow's thread pool start are not timed), then times the
   real load with ``time.perf_counter``;
3. reports the load time, the ratio to ranklens, the wall time of the whole
   child process (interpreter start, imports, warm-up, load) and memory:

   * ``peak RSS``: the child's peak resident memory (``VmHWM`` from
     ``/proc/self/status``, else ``resource.getrusage(RUSAGE_SELF).ru_maxrss``);
   * ``growth``: the peak *during the load* over the resident memory just
     before it (``VmRSS`` after the imports and the warm-up).  On Linux the
     peak is restarted at the load (``echo 5 > /proc/self/clear_refs``), so
     that nothing before it (the warm-up, a transient of the imports) can hide
     in it; elsewhere it is the peak over the peak before the load;
   * ``growth/cols``: that growth over the size of the data as Arrow columns
     (``cols``, printed above the table): the sum of the Arrow buffer sizes of
     the query and doc ids as ``string`` columns (32-bit offsets + text) and
     the scores as ``float64`` -- what the data takes in the leanest plain
     columnar form, the same yardstick for every loader;
   * ``kept``: resident memory after the load over that before it (the loaded
     object plus what the allocators still hold);

   and, for ranklens, the size of the ``Run`` as loaded: its query ids (int32
   codes into the distinct ids when dictionary-encoded), doc ids, scores and,
   if it was built on loading, its pair index.

Options: ``--lines N[,N...]`` (default ``1000000,10000000``),
``--loaders ranklens,ranx,pytrec_eval``, ``--docs-per-query``, ``--repeat``
(best of N loads inside each child; default 1), ``--timeout`` (seconds per
child, default 1800), ``--dir`` (where to write the files), ``--keep``.

Memory: a 10M-line file is about 450 MB on disk; pytrec_eval's dicts take a
few GB and ranx's more, so run it on a machine with 16 GB or more.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LOADERS = ("ranklens", "ranx", "pytrec_eval")


# --------------------------------------------------------------------------------------
# the data


def make_run(path: Path, lines: int, docs_per_query: int, seed: int = 0) -> dict[str, int]:
    """Write a TREC run of ``lines`` lines; return the Arrow sizes of its columns."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    rng = np.random.default_rng(seed)
    row = np.arange(lines, dtype=np.int64)
    qnum = row // docs_per_query
    rank = row % docs_per_query + 1
    # document numbers unique within a query (104729 is prime, so coprime with 10**9)
    dnum = (qnum * 7919 + rank * 104729) % 1_000_000_000
    scores = np.sort(rng.standard_normal(lines) * 3.0 + 10.0)[::-1].copy()
    # descending within each query, as a system writes them
    order = np.lexsort((-scores, qnum))
    scores = scores[order]

    def text(prefix: str, numbers: np.ndarray) -> pa.Array:
        return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")

    query = text("", qnum + 100_001)
    doc = text("clueweb-", dnum)
    score = pa.array(scores, type=pa.float64())
    table = pa.table(
        {
            "query": query,
            "q0": pa.repeat(pa.scalar("Q0"), lines),
            "doc": doc,
            "rank": pa.array(rank),
            "score": score,
            "tag": pa.repeat(pa.scalar("bench_run"), lines),
        }
    )
    pacsv.write_csv(
        table,
        str(path),
        write_options=pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"),
    )

    def buffers(arr: pa.Array) -> int:
        return sum(b.size for b in arr.buffers() if b is not None)

    return {"query": buffers(query), "doc": buffers(doc), "score": buffers(score)}


# --------------------------------------------------------------------------------------
# the child: load once (warm-up on a tiny file first), report timings


def _load(loader: str, path: str) -> Any:
    if loader == "ranklens":
        from ranklens.io import read_trec_run

        return read_trec_run(path)
    if loader == "ranx":
        from ranx import Run

        return Run.from_file(path, kind="trec")
    if loader == "pytrec_eval":
        import pytrec_eval

        parse = getattr(pytrec_eval, "parse_run", None)
        with open(path, encoding="utf-8") as fh:
            if parse is not None:
                return parse(fh)
            run: dict[str, dict[str, float]] = {}
            for line in fh:
                q, _, d, _, s, _ = line.split()
                run.setdefault(q, {})[d] = float(s)
            return run
    raise SystemExit(f"unknown loader {loader!r}")


def _rows(loader: str, obj: Any) -> int:
    if loader == "ranklens":
        return len(obj)
    if loader == "ranx":
        return sum(len(v) for v in obj.run.values())
    return sum(len(v) for v in obj.values())


def _arrow_bytes(arr: Any) -> int:
    """Bytes of an Arrow array's buffers (with the dictionary of an encoded one)."""
    if hasattr(arr, "dictionary"):
        return _arrow_bytes(arr.indices) + _arrow_bytes(arr.dictionary)
    return sum(b.size for b in arr.buffers() if b is not None)


def _ranklens_footprint(obj: Any) -> dict[str, int]:
    """Bytes of a loaded ranklens Run: its columns as kept (without decoding
    dictionary-encoded ids) and its pair index if it was built on loading."""
    out = {
        "query": _arrow_bytes(obj._q),
        "doc": _arrow_bytes(obj._d),
        "score": int(obj.scores.nbytes),
    }
    pairs = obj._cache.get("pairs")
    if pairs is not None:
        import numpy as np

        size = int(pairs.doc_rank.nbytes + pairs.dup_rows.nbytes) + _arrow_bytes(pairs.query_dict)
        codes = obj._q.indices.buffers()[1] if hasattr(obj._q, "dictionary") else None
        if codes is None or not np.may_share_memory(
            pairs.query_code, np.frombuffer(codes, dtype=np.uint8)
        ):
            size += int(pairs.query_code.nbytes)  # else: the encoded query column's codes
        out["pair index"] = size
    return out


def _status_mb(field: str) -> float | None:
    """A memory figure of this process from /proc/self/status (Linux), in MiB."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _peak_rss_mb() -> float:
    """This process's peak resident set size: VmHWM where /proc has it (it starts
    afresh at exec, unlike ru_maxrss, which on Linux keeps the high-water mark of
    the forked parent image), else ru_maxrss."""
    peak = _status_mb("VmHWM")
    if peak is not None:
        return peak
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / 2**20 if sys.platform == "darwin" else maxrss / 1024


def _restart_peak() -> bool:
    """Restart the peak (VmHWM) at the current resident size (Linux 4.0+)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def child(loader: str, path: str, repeat: int) -> None:
    import warnings

    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    tiny = Path(tempfile.mkdtemp()) / "tiny.run"
    tiny.write_text("1 Q0 a 1 2.5 t\n1 Q0 b 2 1.5 t\n")
    _load(loader, str(tiny))  # imports + one-time costs
    shutil.rmtree(tiny.parent)
    warm = time.perf_counter() - t0
    rss_now = _status_mb("VmRSS")
    restarted = rss_now is not None and _restart_peak()
    # the baseline: resident memory now, or (no restart possible) the peak so far
    rss_before = rss_now if restarted and rss_now is not None else _peak_rss_mb()
    best = float("inf")
    obj: Any = None
    for _ in range(repeat):
        obj = None
        start = time.perf_counter()
        obj = _load(loader, path)
        best = min(best, time.perf_counter() - start)
    peak = _peak_rss_mb()
    rss_after = _status_mb("VmRSS")
    out = {
        "loader": loader,
        "load_s": best,
        "warmup_s": warm,
        "rows": _rows(loader, obj),
        "rss_before_mb": rss_before,
        "peak_rss_mb": peak,
        "peak_restarted": restarted,
        "kept_mb": rss_after - rss_now if restarted and rss_after and rss_now else None,
    }
    if loader == "ranklens":
        out["footprint"] = _ranklens_footprint(obj)
    print(json.dumps(out))


# --------------------------------------------------------------------------------------
# the parent


def run_child(loader: str, path: Path, repeat: int, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", loader, str(path), "--repeat", str(repeat)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"loader": loader, "error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - start
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = proc.stderr.strip().splitlines()[-1:] or [""]
        return {"loader": loader, "error": f"exit {proc.returncode}: {tail[0]}"[:160]}
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_s"] = wall
    return result


def _mb(n: float) -> str:
    return f"{n:,.0f}"


def report(
    lines: int, path: Path, columns: dict[str, int], results: list[dict[str, Any]], gen_s: float
) -> None:
    col_bytes = sum(columns.values())
    print()
    print(
        f"== {lines:,} lines  ({path.stat().st_size / 2**20:,.0f} MiB on disk, written in "
        f"{gen_s:.1f} s)"
    )
    print(
        f"   cols: the data as Arrow columns (ids as string, score as float64) = "
        f"{col_bytes / 2**20:,.0f} MiB (query {columns['query'] / 2**20:,.0f}, "
        f"doc {columns['doc'] / 2**20:,.0f}, score {columns['score'] / 2**20:,.0f})"
    )
    base = next((r for r in results if r["loader"] == "ranklens" and "error" not in r), None)
    header = (
        f"   {'loader':<12} {'load s':>8} {'x ranklens':>10} {'process s':>9} "
        f"{'peak RSS MiB':>12} {'growth MiB':>10} {'growth/cols':>11} {'kept MiB':>8} "
        f"{'rows':>12}"
    )
    print(header)
    print("   " + "-" * (len(header) - 3))
    for r in results:
        if "error" in r:
            print(f"   {r['loader']:<12} failed: {r['error']}")
            continue
        ratio = r["load_s"] / base["load_s"] if base else float("nan")
        growth = r["peak_rss_mb"] - r["rss_before_mb"]
        kept = "" if r.get("kept_mb") is None else _mb(r["kept_mb"])
        print(
            f"   {r['loader']:<12} {r['load_s']:>8.2f} {ratio:>10.1f} {r['process_s']:>9.1f} "
            f"{_mb(r['peak_rss_mb']):>12} {_mb(growth):>10} "
            f"{growth * 2**20 / col_bytes:>11.2f} {kept:>8} {r['rows']:>12,}"
        )
    if base and "footprint" in base:
        parts = base["footprint"]
        total = sum(parts.values())
        print(
            f"   ranklens Run as loaded: {total / 2**20:,.0f} MiB = {total / col_bytes:.2f} cols ("
            + ", ".join(f"{k} {v / 2**20:,.0f}" for k, v in parts.items())
            + ")"
        )
    if any("error" not in r and not r.get("peak_restarted") for r in results):
        print("   (no /proc/self/clear_refs: growth is the peak over the peak before the load)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--lines",
        default="1000000,10000000",
        help="number of lines, comma separated (default 1000000,10000000)",
    )
    parser.add_argument(
        "--loaders", default=",".join(LOADERS), help="comma separated: ranklens,ranx,pytrec_eval"
    )
    parser.add_argument("--docs-per-query", type=int, default=1000)
    parser.add_argument(
        "--repeat", type=int, default=1, help="loads per child, the best is reported (default 1)"
    )
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child")
    parser.add_argument("--dir", default=None, help="directory for the generated files")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--child", nargs=2, metavar=("LOADER", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        child(args.child[0], args.child[1], args.repeat)
        return 0

    loaders = [name.strip() for name in args.loaders.split(",") if name.strip()]
    unknown = sorted(set(loaders) - set(LOADERS))
    if unknown:
        parser.error(f"unknown loader(s) {', '.join(unknown)}; choose from {', '.join(LOADERS)}")
    sizes = [int(float(x)) for x in args.lines.split(",") if x.strip()]
    workdir = Path(tempfile.mkdtemp(prefix="ranklens-bench-", dir=args.dir))
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; files in {workdir}"
    )
    try:
        for lines in sizes:
            path = workdir / f"run_{lines}.txt"
            start = time.perf_counter()
            columns = make_run(path, lines, args.docs_per_query)
            gen_s = time.perf_counter() - start
            results = [run_child(name, path, args.repeat, args.timeout) for name in loaders]
            report(lines, path, columns, results, gen_s)
            if not args.keep:
                path.unlink()
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
