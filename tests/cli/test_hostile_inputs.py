"""Malformed and hostile inputs to every command: each one exits 2 (usage) or 3 (bad
data) with exactly one line on standard error that names what and where (the file,
the option), never a traceback; or it succeeds, and then its output is right (ids
round-trip exactly in data formats and are escaped for display)."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from ranklens.cli import main

pytest.importorskip("scipy")
pytest.importorskip("statsmodels")

QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d4 0\n"
RUN = b"q1 Q0 d1 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\nq1 Q0 d3 3 1.0 sys\nq2 Q0 d4 1 1.0 sys\n"
RUN2 = b"q1 Q0 d3 1 3.0 alt\nq1 Q0 d1 2 2.0 alt\nq2 Q0 d1 1 1.0 alt\n"
GARBAGE = bytes(range(256)) * 4
SCORED = b"y,p,s\n0,0,0.1\n1,1,0.9\n1,0,0.4\n0,1,0.6\n"
GT = json.dumps(
    {
        "images": [{"id": 1}],
        "categories": [{"id": 1}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [0, 0, 10, 10],
                "area": 100,
                "iscrowd": 0,
            }
        ],
    }
).encode()
DET = json.dumps([{"image_id": 1, "category_id": 1, "bbox": [0, 0, 10, 10], "score": 0.9}]).encode()
EXPOSURES = b"unit,variant\nu1,control\nu2,b\nu3,control\nu4,b\n"
EVENTS = b"unit,event,value\nu1,buy,1.5\nu2,buy,2.0\nu4,buy,3.0\n"


@dataclass
class Case:
    """``files`` are written into a scratch folder; ``{name}`` in ``args`` is that
    file's path.  ``code`` is the exit status expected (0: success), ``says`` the
    texts the error line (or, on success, the output) must contain."""

    id: str
    args: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    code: int = 3
    says: tuple[str, ...] = ()


def C(id: str, args: str | list[str], code: int = 3, *says: str, **files: bytes) -> Case:
    return Case(
        id,
        args.split() if isinstance(args, str) else args,
        {k.replace("__", "."): v for k, v in files.items()},
        code,
        says,
    )


EVAL = "evaluate {qrels.txt} {run.txt}"
CASES = [
    # --- evaluate: files that are not what they claim
    C("empty qrels", EVAL, 3, "qrels.txt", qrels__txt=b"", run__txt=RUN),
    C("empty run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=b""),
    C("blank-lines run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=b"\n\n  \n"),
    C("binary run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=GARBAGE),
    C("binary qrels", EVAL, 3, "qrels.txt", qrels__txt=GARBAGE, run__txt=RUN),
    C("comma run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=RUN.replace(b" ", b",")),
    C(
        "semicolon csv run",
        "evaluate {qrels.txt} {run.csv}",
        3,
        "run.csv",
        qrels__txt=QRELS,
        run__csv=b"query;doc;score\nq1;d1;1.0\n",
    ),
    C("run given as qrels", "evaluate {run.txt} {run.txt}", 3, "run.txt", run__txt=RUN),
    C("qrels given as run", "evaluate {qrels.txt} {qrels.txt}", 3, "qrels.txt", qrels__txt=QRELS),
    C("five-column run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=b"q1 Q0 d1 1 3.0\n"),
    # trec_eval reads the first six columns of a longer line, and so does ranklens
    C(
        "seven-column run",
        EVAL + " -m P.1 --format trec",
        0,
        "P_1",
        qrels__txt=QRELS,
        run__txt=b"q1 Q0 d1 1 3.0 sys extra\n",
    ),
    C(
        "text score",
        EVAL,
        3,
        "run.txt:2",
        qrels__txt=QRELS,
        run__txt=b"q1 Q0 d1 1 3.0 s\nq1 Q0 d2 2 high s\n",
    ),
    C(
        "NaN score",
        EVAL,
        3,
        "run.txt:2",
        qrels__txt=QRELS,
        run__txt=b"q1 Q0 d1 1 3.0 s\nq1 Q0 d2 2 nan s\n",
    ),
    C("inf score", EVAL, 3, "run.txt:1", qrels__txt=QRELS, run__txt=b"q1 Q0 d1 1 inf s\n"),
    C(
        "overflowing score",
        EVAL,
        3,
        "run.txt:1",
        qrels__txt=QRELS,
        run__txt=b"q1 Q0 d1 1 1e400 s\n",
    ),
    C(
        "NaN relevance",
        EVAL,
        3,
        "qrels.txt:2",
        qrels__txt=b"q1 0 d1 1\nq1 0 d2 nan\n",
        run__txt=RUN,
    ),
    C(
        "huge relevance",
        EVAL + " -m map",
        0,
        "map",
        qrels__txt=b"q1 0 d1 99999999999999999999\n",
        run__txt=RUN,
    ),
    C(
        "BOM run",
        EVAL + " -m P.1 --format trec",
        0,
        "P_1",
        qrels__txt=QRELS,
        run__txt=b"\xef\xbb\xbf" + RUN,
    ),
    C(
        "BOM qrels",
        EVAL + " -m P.1 --format trec",
        0,
        "P_1",
        qrels__txt=b"\xef\xbb\xbf" + QRELS,
        run__txt=RUN,
    ),
    C(
        "CRLF run and qrels",
        EVAL + " -m P.1 --format trec",
        0,
        "P_1",
        qrels__txt=QRELS.replace(b"\n", b"\r\n"),
        run__txt=RUN.replace(b"\n", b"\r\n"),
    ),
    C("not UTF-8 run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=b"q1 Q0 d\xff 1 3.0 s\n"),
    C(
        "plain text named .gz",
        "evaluate {qrels.txt} {run.txt.gz}",
        3,
        "run.txt.gz",
        qrels__txt=QRELS,
        run__txt__gz=RUN,
    ),
    C(
        "truncated gzip",
        "evaluate {qrels.txt} {run.txt.gz}",
        3,
        "run.txt.gz",
        qrels__txt=QRELS,
        run__txt__gz=gzip.compress(RUN)[:30],
    ),
    C(
        "csv run without score",
        "evaluate {qrels.txt} {run.csv}",
        3,
        "run.csv",
        qrels__txt=QRELS,
        run__csv=b"query,doc\nq1,d1\n",
    ),
    C(
        "csv run header only",
        "evaluate {qrels.txt} {run.csv}",
        3,
        "run.csv",
        qrels__txt=QRELS,
        run__csv=b"query,doc,score\n",
    ),
    C(
        "csv run missing score cell",
        "evaluate {qrels.txt} {run.csv}",
        3,
        "run.csv:3",
        qrels__txt=QRELS,
        run__csv=b"query,doc,score\nq1,d1,1\nq1,d2,\n",
    ),
    C(
        "jsonl broken line",
        "evaluate {qrels.txt} {run.jsonl}",
        3,
        "run.jsonl:2",
        qrels__txt=QRELS,
        run__jsonl=b'{"query": "q1", "doc": "d1", "score": 1}\n{"query": "q1", "doc"\n',
    ),
    C(
        "jsonl array line",
        "evaluate {qrels.txt} {run.jsonl}",
        3,
        "run.jsonl:2",
        qrels__txt=QRELS,
        run__jsonl=b'{"query": "q1", "doc": "d1", "score": 1}\n[1, 2]\n',
    ),
    C(
        "text named .parquet",
        "evaluate {qrels.txt} {run.parquet}",
        3,
        "run.parquet",
        qrels__txt=QRELS,
        run__parquet=RUN,
    ),
    C("missing run file", "evaluate {qrels.txt} nope.txt", 3, "nope.txt", qrels__txt=QRELS),
    C("missing qrels file", "evaluate nope.txt {run.txt}", 3, "nope.txt", run__txt=RUN),
    C("folder as run", "evaluate {qrels.txt} {tmp}", 3, "is a directory", qrels__txt=QRELS),
    C("folder as qrels", "evaluate {tmp} {run.txt}", 3, "is a directory", run__txt=RUN),
    # --- evaluate: options
    C("unknown option", EVAL + " --frobnicate", 2, "--frobnicate", qrels__txt=QRELS, run__txt=RUN),
    C("negative depth", EVAL + " -M -1", 2, "-M", qrels__txt=QRELS, run__txt=RUN),
    C(
        "huge depth",
        EVAL + " -M 99999999999999999999 -m P.1",
        0,
        "P.1",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C("negative cutoff", EVAL + " -m P.-5", 2, "P.-5", qrels__txt=QRELS, run__txt=RUN),
    C("zero cutoff", EVAL + " -m ndcg@0", 2, "ndcg@0", qrels__txt=QRELS, run__txt=RUN),
    C(
        "huge cutoff",
        EVAL + " -m P.99999999999999999999 --format trec",
        0,
        "P_99999999999999999999\tall\t0.0000",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C("infinite cutoff", EVAL + " -m P.inf", 2, "P.inf", qrels__txt=QRELS, run__txt=RUN),
    C(
        "empty measure",
        EVAL + " -m ''",
        2,
        "-m '' names no measure",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "blank measure in compare",
        "compare {qrels.txt} {run.txt} {run.txt} -m ' '",
        2,
        "names no measure",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "unbalanced measure",
        EVAL + " -m ndcg(gain=",
        2,
        "ndcg(gain=",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C("unknown measure", EVAL + " -m ndgc@10", 2, "ndcg", qrels__txt=QRELS, run__txt=RUN),
    C("NaN threshold", EVAL + " -l nan", 2, "--rel-threshold", qrels__txt=QRELS, run__txt=RUN),
    C("text threshold", EVAL + " -l high", 2, "-l", qrels__txt=QRELS, run__txt=RUN),
    C("unknown format", EVAL + " --format xml", 2, "--format", qrels__txt=QRELS, run__txt=RUN),
    C("unknown profile", EVAL + " --profile trec", 2, "--profile", qrels__txt=QRELS, run__txt=RUN),
    C("unknown run format", EVAL + " --run-format xlsx", 2, "xlsx", qrels__txt=QRELS, run__txt=RUN),
    C(
        "output into a missing folder",
        EVAL + " -o nowhere/out.txt",
        2,
        "nowhere",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C("negative collection size", EVAL + " -N -3", 2, "-N", qrels__txt=QRELS, run__txt=RUN),
    # --- ids that are hostile to outputs (data formats keep them; display escapes them)
    C(
        "tab-separated run with a blank id",
        EVAL,
        3,
        "run.txt",
        qrels__txt=QRELS,
        run__txt=b"q1\tQ0\t\t1\t3.0\ts\n",
    ),
    # --- compare
    C(
        "compare one run",
        "compare {qrels.txt} {run.txt}",
        2,
        "at least two",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "compare negative seed",
        "compare {qrels.txt} {run.txt} {run2.txt} --seed -1",
        2,
        "--seed",
        qrels__txt=QRELS,
        run__txt=RUN,
        run2__txt=RUN2,
    ),
    C(
        "compare no resamples",
        "compare {qrels.txt} {run.txt} {run2.txt} --n-resamples 0",
        2,
        "--n-resamples",
        qrels__txt=QRELS,
        run__txt=RUN,
        run2__txt=RUN2,
    ),
    C(
        "compare alpha 2",
        "compare {qrels.txt} {run.txt} {run2.txt} --alpha 2",
        2,
        "--alpha",
        qrels__txt=QRELS,
        run__txt=RUN,
        run2__txt=RUN2,
    ),
    C(
        "compare unknown baseline",
        "compare {qrels.txt} {run.txt} {run2.txt} --baseline x",
        2,
        "--baseline",
        qrels__txt=QRELS,
        run__txt=RUN,
        run2__txt=RUN2,
    ),
    C(
        "compare binary run",
        "compare {qrels.txt} {run.txt} {run2.txt}",
        3,
        "run2.txt",
        qrels__txt=QRELS,
        run__txt=RUN,
        run2__txt=GARBAGE,
    ),
    C(
        "compare runs without a common query",
        "compare {qrels.txt} {run.txt} {run2.txt}",
        3,
        "query",
        qrels__txt=QRELS,
        run__txt=b"q1 Q0 d1 1 1.0 a\n",
        run2__txt=b"q2 Q0 d1 1 1.0 b\n",
    ),
    # --- plot
    C(
        "plot max-k 0",
        "plot cutoffs {qrels.txt} {run.txt} -o out.png --max-k 0",
        2,
        "--max-k",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "plot text suffix",
        "plot cutoffs {qrels.txt} {run.txt} -o out.txt",
        2,
        "out.txt",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "plot unknown kind",
        "plot pie {qrels.txt} {run.txt} -o out.png",
        2,
        "pie",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "plot diff of three",
        "plot diff {qrels.txt} {run.txt} {run.txt} {run.txt} -o o.png",
        2,
        "exactly two",
        qrels__txt=QRELS,
        run__txt=RUN,
    ),
    C(
        "plot empty run",
        "plot dist {qrels.txt} {run.txt} -o out.png",
        3,
        "run.txt",
        qrels__txt=QRELS,
        run__txt=b"",
    ),
    # --- score
    C("score empty file", "score {t.csv} -m accuracy --true y --pred p", 3, "t.csv", t__csv=b""),
    C("score binary", "score {t.csv} -m accuracy --true y --pred p", 3, "t.csv", t__csv=GARBAGE),
    C(
        "score NaN truth",
        "score {t.csv} -m rmse --true y --pred p",
        3,
        "t.csv",
        t__csv=b"y,p\n1,1\nnan,2\n",
    ),
    C(
        "score missing column",
        "score {t.csv} -m accuracy --true y --pred q",
        3,
        "'q'",
        t__csv=SCORED,
    ),
    C(
        "score unknown metric",
        "score {t.csv} -m acuracy --true y --pred p",
        2,
        "acuracy",
        t__csv=SCORED,
    ),
    C(
        "score huge numbers",
        "score {t.csv} -m rmse --true y --pred p",
        0,
        "rmse",
        t__csv=b"y,p\n1e308,-1e308\n0,1\n",
    ),
    C(
        "score folder",
        "score {tmp} -m accuracy --true y --pred p",
        2,
        "",
    ),
    # --- detect
    C(
        "detect empty file",
        "detect {gt.json} {det.json}",
        3,
        "det.json",
        gt__json=GT,
        det__json=b"",
    ),
    C(
        "detect invalid JSON",
        "detect {gt.json} {det.json}",
        3,
        "det.json:1",
        gt__json=GT,
        det__json=b"[{",
    ),
    C(
        "detect NaN box",
        "detect {gt.json} {det.json}",
        3,
        "det.json",
        gt__json=GT,
        det__json=b'[{"image_id": 1, "category_id": 1, "bbox": [NaN, 0, 1, 1], "score": 1}]',
    ),
    C(
        "detect swapped files",
        "detect {det.json} {gt.json}",
        3,
        "det.json",
        gt__json=GT,
        det__json=DET,
    ),
    C(
        "detect binary",
        "detect {gt.json} {det.json}",
        3,
        "det.json",
        gt__json=GT,
        det__json=GARBAGE,
    ),
    # --- ab
    C("assign empty ids", "ab assign {ids.txt} -e x --variants a,b", 3, "ids.txt", ids__txt=b""),
    C(
        "assign zero weight",
        "ab assign {ids.txt} -e x --variants a=0,b=1",
        2,
        "--variants",
        ids__txt=b"u1\n",
    ),
    C(
        "assign binary ids",
        "ab assign {ids.txt} -e x --variants a,b",
        3,
        "ids.txt",
        ids__txt=GARBAGE,
    ),
    C(
        "assign xlsx output",
        "ab assign {ids.txt} -e x --variants a,b -o out.xlsx",
        2,
        "out.xlsx",
        ids__txt=b"u1\n",
    ),
    C(
        "analyze NaN value",
        "ab analyze {e.csv} {v.csv} -m r=mean(buy) --control control",
        3,
        "v.csv:3",
        e__csv=EXPOSURES,
        v__csv=b"unit,event,value\nu1,buy,1\nu2,buy,nan\n",
    ),
    C(
        "analyze semicolons",
        "ab analyze {e.csv} {v.csv} -m r=mean(buy)",
        3,
        "e.csv",
        e__csv=EXPOSURES.replace(b",", b";"),
        v__csv=EVENTS,
    ),
    C(
        "analyze alpha 0",
        "ab analyze {e.csv} {v.csv} -m r=mean(buy) --alpha 0",
        2,
        "--alpha",
        e__csv=EXPOSURES,
        v__csv=EVENTS,
    ),
    C(
        "analyze bad metric",
        "ab analyze {e.csv} {v.csv} -m r=median(buy)",
        2,
        "--metric",
        e__csv=EXPOSURES,
        v__csv=EVENTS,
    ),
    C(
        "analyze unknown event",
        "ab analyze {e.csv} {v.csv} -m r=mean(bye)",
        3,
        "'buy'",
        e__csv=EXPOSURES,
        v__csv=EVENTS,
    ),
    C(
        "analyze binary events",
        "ab analyze {e.csv} {v.csv} -m r=mean(buy)",
        3,
        "v.csv",
        e__csv=EXPOSURES,
        v__csv=GARBAGE,
    ),
    C(
        "analyze stats negative count",
        "ab analyze --stats {s.csv} -m r=mean(r)",
        3,
        "s.csv",
        s__csv=b"variant,count,r_sum,r_sum_sq\ncontrol,-5,1,1\nb,5,1,1\n",
    ),
    C(
        "analyze units repeated unit",
        "ab analyze --units {u.csv} -m r=mean(r)",
        3,
        "u.csv:3",
        u__csv=b"unit,variant,r\nu1,control,1\nu1,b,2\n",
    ),
    C(
        "plan with one variant",
        "ab assign {ids.txt} --plan {plan.json}",
        3,
        "plan.json: Experiment 'x': needs at least two variants",
        ids__txt=b"u1\n",
        plan__json=b'{"experiments": [{"name": "x", "variants": {"a": 1}}]}',
    ),
    C(
        "plan not TOML",
        "ab assign {ids.txt} --plan {plan.toml}",
        3,
        "plan.toml",
        ids__txt=b"u1\n",
        plan__toml=b"experiments = [",
    ),
    C(
        "units without the metric column",
        "ab analyze --units {u.csv} -m r=mean(nope)",
        3,
        "u.csv: units: no column(s) ['nope'], which metric 'r' reads",
        u__csv=b"unit,variant,r\nu1,control,1\nu2,b,2\n",
    ),
    C(
        "cuped without exposure times",
        "ab analyze {e.csv} {v.csv} -m r=mean(buy) --cuped",
        3,
        "needs the exposure times; pass --time-column NAME, or the covariates as a table "
        "(--covariates FILE)",
        e__csv=EXPOSURES,
        v__csv=EVENTS,
    ),
    C(
        "sequential without exposure times",
        "ab analyze {e.csv} {v.csv} -m r=mean(buy) --sequential",
        3,
        "--time-column NAME",
        e__csv=EXPOSURES,
        v__csv=EVENTS,
    ),
    C(
        "units and stats together",
        "ab analyze --units {u.csv} --stats {u.csv} -m r=mean(r)",
        2,
        "exactly one",
        u__csv=b"unit,variant,r\nu1,control,1\n",
    ),
    # --- metrics and example
    C("metrics unknown", "metrics ndgc", 2, "ndcg"),
    C("metrics malformed", "metrics ndcg(gain=", 2, "ndcg(gain="),
    C("example bad format", "example --format xml", 2, "--format"),
]


def _run(case: Case, tmp_path: Path) -> tuple[int, str, str, BaseException | None]:
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    args = []
    for a in case.args:
        for name in [*case.files, "run.txt", "tmp"]:
            a = a.replace("{" + name + "}", str(tmp_path / name if name != "tmp" else tmp_path))
        args.append(a.strip("'"))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = CliRunner().invoke(main, args)
    finally:
        os.chdir(cwd)
    exc = res.exception if not isinstance(res.exception, SystemExit) else None
    return res.exit_code, res.stdout, res.stderr, exc


def test_there_are_many_cases() -> None:
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_input_gets_one_clear_line(case: Case, tmp_path: Path) -> None:
    code, out, err, exc = _run(case, tmp_path)
    assert exc is None, f"{case.id}: {type(exc).__name__}: {exc}"
    assert code == case.code, (case.id, code, out, err)
    if code == 0:
        for text in case.says:
            assert text in out, (case.id, out)
        return
    lines = err.splitlines()
    assert len(lines) == 1, (case.id, err)
    assert lines[0].startswith("ranklens: error: ") and "Traceback" not in err
    assert out == ""
    for text in case.says:
        assert text in lines[0], (case.id, lines[0])


ODD_IDS = [
    "q\n1",
    "q|1",
    "<script>alert(1)</script>",
    "q\x1b[31mred",
    "q\t1",
    "é ü",
    "=cmd|' /C calc'!A0",
]


def _csv(path: Path, header: list[str], value: dict[str, float]) -> Path:
    """A CSV table with two documents of every odd query id."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows([q, doc, v] for q in ODD_IDS for doc, v in value.items())
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def _csv_case(tmp_path: Path) -> tuple[Path, Path]:
    return (
        _csv(tmp_path / "qrels.csv", ["query", "doc", "relevance"], {"d1": 1, "d2": 0}),
        _csv(tmp_path / "run.csv", ["query", "doc", "score"], {"d1": 2.0, "d2": 1.0}),
    )


def test_odd_ids_round_trip_in_data_formats(tmp_path: Path) -> None:
    qrels, run = _csv_case(tmp_path)
    res = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(run), "-m", "P.1", "-q", "--format", "csv"]
    )
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert sorted(r["query"] for r in rows) == sorted(ODD_IDS)
    res = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(run), "-m", "P.1", "-q", "--format", "json"]
    )
    assert set(json.loads(res.stdout)["runs"][0]["per_query"]["P.1"]) == set(ODD_IDS)


@pytest.mark.parametrize("fmt", ["table", "trec", "markdown", "latex"])
def test_odd_ids_are_escaped_for_display(tmp_path: Path, fmt: str) -> None:
    qrels, run = _csv_case(tmp_path)
    res = CliRunner().invoke(
        main, ["evaluate", str(qrels), str(run), "-m", "P.1", "-q", "--format", fmt]
    )
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "\x1b" not in text and "\t1" not in text.replace("\t1.0000", "")
    lines = text.splitlines()
    # every id on one line (no raw newline or tab splits it), and the mean row
    assert len([ln for ln in lines if "1.0000" in ln]) == len(ODD_IDS) + 1
    if fmt == "markdown":
        assert "<script>" not in text and "&lt;script&gt;" in text
        assert all(
            ln.count("|") - ln.count("\\|") == lines[0].count("|")
            for ln in lines
            if ln.startswith("|")
        )


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root reads files whatever their permissions",
)
def test_unreadable_file_is_one_line(tmp_path: Path) -> None:
    case = C("unreadable run", EVAL, 3, "run.txt", qrels__txt=QRELS, run__txt=RUN)
    (tmp_path / "run.txt").write_bytes(RUN)
    (tmp_path / "run.txt").chmod(0)
    try:
        code, _, err, exc = _run(Case(case.id, case.args, {"qrels.txt": QRELS}), tmp_path)
    finally:
        (tmp_path / "run.txt").chmod(0o600)
    assert exc is None and code == 3 and len(err.splitlines()) == 1
    assert "run.txt" in err


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "csv", "json"])
def test_odd_variant_names_in_ab_analyze(tmp_path: Path, fmt: str) -> None:
    """A variant name with a newline, an ANSI escape, '|' or '<script>' stays one cell of
    the layout formats (escaped for display, in the lines around the table too) and
    is kept exactly in the data formats."""
    odd = "b|<script>\x1b[31m\nx"
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows(
        [["unit", "variant"], ["u1", "control"], ["u2", odd], ["u3", "control"], ["u4", odd]]
    )
    (tmp_path / "e.csv").write_text(buf.getvalue(), encoding="utf-8")
    (tmp_path / "v.csv").write_bytes(EVENTS)
    res = CliRunner().invoke(
        main,
        [
            "ab",
            "analyze",
            str(tmp_path / "e.csv"),
            str(tmp_path / "v.csv"),
            "-m",
            "r=mean(buy)",
            "--format",
            fmt,
        ],
    )
    assert res.exit_code == 0, res.output
    if fmt == "csv":
        assert [r["variant"] for r in csv.DictReader(io.StringIO(res.stdout))] == [odd]
    elif fmt == "json":
        assert json.loads(res.stdout)["variants"] == ["control", odd]
    else:
        assert "\x1b" not in res.stdout and "x0ax" in res.stdout
        rows = [ln for ln in res.stdout.splitlines() if "mean" not in ln and "Welch" in ln]
        assert len(rows) == 1  # the comparison's row is one line
