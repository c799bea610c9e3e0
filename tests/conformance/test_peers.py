"""ranklens' ``pytrec_eval`` and ``ranx`` profiles against those libraries' values
committed under ``tests/conformance/peers`` (made by ``make_peer_outputs.py`` on
the fixtures of ``data/``; see ``README.md``).  Every per-query value of every
measure must agree to 1e-9, on the same set of queries.  The libraries need not be
installed: their numbers are data.

:data:`KNOWN` lists the differences ranklens does not reproduce, each a strict
xfail of exactly the measure or case it affects.
"""

from __future__ import annotations

import json
import math
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import ranklens
from tests.conformance.make_fixtures import read_qrels, read_run

pytestmark = pytest.mark.conformance

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
PEERS = {name: HERE / "peers" / f"{name}.json" for name in ("pytrec_eval", "ranx")}
EVERY = "*"  # a whole case compared as one

#: (library, case, measure or EVERY) -> why ranklens differs today (none: each
#: difference is a convention of the library's profile)
KNOWN: dict[tuple[str, str, str], str] = {}


@cache
def _peer(library: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PEERS[library].read_text(encoding="utf-8"))
    return data


def _names(library: str, case: str) -> dict[str, str]:
    """``{library's measure: ranklens metric}``: pytrec_eval's names are trec_eval's,
    which ranklens takes verbatim."""
    values = _peer(library)["cases"][case]["values"]
    mapping: dict[str, str] = _peer(library).get("measures", {m: m for m in values})
    return mapping


@cache
def _evaluate(library: str, case: str) -> ranklens.Result:
    spec = _peer(library)["cases"][case]
    out = set(spec["left_out"])
    qrels = {q: j for q, j in read_qrels(DATA / spec["qrels"]).items() if q not in out}
    run = {q: r for q, r in read_run(DATA / spec["run"]).items() if q not in out}
    run.update({q: {} for q in spec["empty_rankings"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ranklens.RanklensWarning)
        return ranklens.evaluate(
            ranklens.Qrels.from_dict(qrels),
            ranklens.Run.from_dict(run),
            list(_names(library, case).values()),
            profile=_peer(library)["profile"],
            **spec["conventions"],
        )


def _params() -> list[Any]:
    params = []
    for library in PEERS:
        for case in _peer(library)["cases"]:
            measures = [EVERY] if (library, case, EVERY) in KNOWN else _names(library, case)
            for measure in measures:
                reason = KNOWN.get((library, case, measure))
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                params.append(
                    pytest.param(
                        library, case, measure, marks=marks, id=f"{library}-{case}-{measure}"
                    )
                )
    return params


def _compare(library: str, case: str, measure: str) -> None:
    want: dict[str, float] = _peer(library)["cases"][case]["values"][measure]
    got = _evaluate(library, case).per_query(_names(library, case)[measure])
    assert set(got) == set(want), (library, case, measure)
    for q, value in want.items():
        assert got[q] == pytest.approx(value, abs=1e-9, rel=1e-9, nan_ok=True), (measure, q)


@pytest.mark.parametrize("library,case,measure", _params())
def test_profile_reproduces_the_library(library: str, case: str, measure: str) -> None:
    measures = list(_names(library, case)) if measure == EVERY else [measure]
    for m in measures:
        _compare(library, case, m)


def test_peer_files_record_the_library_versions() -> None:
    for library, path in PEERS.items():
        data = _peer(library)
        assert data["library"].startswith(library.split("_")[0]), path
        assert data["version"][0].isdigit()
        for spec in data["cases"].values():
            assert (DATA / spec["qrels"]).is_file() and (DATA / spec["run"]).is_file()


def test_known_differences_name_existing_cases() -> None:
    for library, case, measure in KNOWN:
        assert case in _peer(library)["cases"]
        assert measure == EVERY or measure in _names(library, case)


def _cli_params() -> list[Any]:
    # a TREC run file cannot hold an empty ranking: the empty_ranking case is the
    # Python API's only
    return [
        pytest.param(library, case, id=f"{library}-{case}")
        for library in PEERS
        for case in _peer(library)["cases"]
        if not _peer(library)["cases"][case]["empty_rankings"]
    ]


@pytest.mark.parametrize("library,case", _cli_params())
def test_command_line_profile_reproduces_the_library(
    library: str, case: str, tmp_path: Path
) -> None:
    """``ranklens evaluate --profile <library> -q --format json`` on the same qrels and
    run written as TREC files (each query's documents in the order given): every
    per-query value of every measure not in :data:`KNOWN`."""
    from click.testing import CliRunner

    from ranklens.cli import main
    from ranklens.metrics.trec_names import trec_base

    spec = _peer(library)["cases"][case]
    out = set(spec["left_out"])
    qrels = {q: j for q, j in read_qrels(DATA / spec["qrels"]).items() if q not in out}
    run = {q: r for q, r in read_run(DATA / spec["run"]).items() if q not in out}
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, j in qrels.items() for d, g in j.items()),
        encoding="utf-8",
    )
    (tmp_path / "run").write_text(
        "".join(
            f"{q} Q0 {d} {i} {s!r} peer\n"
            for q, r in run.items()
            for i, (d, s) in enumerate(r.items(), start=1)
        ),
        encoding="utf-8",
    )
    names = {m: n for m, n in _names(library, case).items() if (library, case, m) not in KNOWN}
    options = {"rel_threshold": ["-l", "2"], "judged_only": ["-J"]}
    args = [a for k in spec["conventions"] for a in options[k]]
    # trec_eval's names as typed on its command line, one -m per measure (P.5,10,...),
    # as ranklens' CLI (like trec_eval) takes a measure's parameters from its first -m
    keys, grouped = {}, {}
    for measure, name in names.items():
        base = trec_base(name)
        if base is not None and name.startswith(base + "_"):
            keys[measure] = f"{base}.{name[len(base) + 1 :]}"
            grouped.setdefault(base, []).append(name[len(base) + 1 :])
        else:
            keys[measure] = name
            grouped[name] = []
    for base, suffixes in grouped.items():
        args += ["-m", f"{base}.{','.join(suffixes)}" if suffixes else base]
    result = CliRunner().invoke(
        main,
        [
            "evaluate",
            str(tmp_path / "qrels"),
            str(tmp_path / "run"),
            "--profile",
            _peer(library)["profile"],
            "-q",
            "--format",
            "json",
            *args,
        ],
    )
    assert result.exit_code == 0, (result.stderr, result.exception)
    per_query = json.loads(result.stdout)["runs"][0]["per_query"]
    for measure in names:
        want = spec["values"][measure]
        got = per_query[keys[measure]]
        assert set(got) == set(want), measure
        for q, value in want.items():
            if math.isnan(value):  # the JSON format writes NaN as null
                assert got[q] is None, (measure, q)
            else:
                assert got[q] == pytest.approx(value, abs=1e-9, rel=1e-9), (measure, q)
