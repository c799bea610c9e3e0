"""Reading a :class:`~ranklens.cli._options.Request`'s inputs, once, the same way in
every command: the qrels, each run (a file, or a stored record ``STORE#ID``), every
run named the one way (:func:`ranklens.cli._common.run_names`), and evaluated in
memory when it fits the budget, streamed when it does not
(:func:`ranklens.evaluate_files`); recording results in a store."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import click

from ranklens.cli._common import echo_warning, run_names, stage, warnings_to_stderr
from ranklens.cli._options import Request

__all__ = [
    "evaluate_bounds",
    "evaluate_runs",
    "read_qrels",
    "read_run_file",
    "read_runs",
    "read_systems",
    "record_results",
]

#: The note the library gives when it reads a column named ``rank`` as ranks.
_RANKS_NOTE = r".*reading column .* as ranks"


def _quiet_notes(request: Request) -> None:
    """Under ``--quiet``, the notes that are not warnings about the data are not shown."""
    if request.output.quiet:
        warnings.filterwarnings("ignore", message=_RANKS_NOTE)


#: The note the library gives when it reads a table without grades as implicit feedback.
_IMPLICIT_NOTE = r".* has no relevance column: every row is a relevant document"


def read_qrels(request: Request) -> Any:
    """The request's qrels (a large file refused before it is read); a table without a
    grade column is read as held-out interactions of implicit feedback
    (:func:`ranklens.io.read_qrels` with ``implicit='auto'``: every row a relevant
    document of grade 1, repeated pairs folded and reported; the note that says so is
    not shown under ``--quiet``, the folded rows are)."""
    from ranklens import io
    from ranklens.io.stream import qrels_memory

    inputs = request.inputs
    qrels_memory(inputs.qrels, inputs.memory)  # large qrels refused before they are read
    with warnings_to_stderr(), warnings.catch_warnings(), stage(f"reading {inputs.qrels}"):
        if request.output.quiet:
            warnings.filterwarnings("ignore", message=_IMPLICIT_NOTE)
        return io.read_qrels(
            inputs.qrels,
            format=inputs.format_of(inputs.qrels),
            duplicates=inputs.duplicates,
            implicit="auto",
            **inputs.qrels_columns(),
        )


def _read_run(request: Request, path: str, staged: bool = True) -> Any:
    """The run file ``path``, read whole (its own stage of the progress, or part of the
    caller's)."""
    from ranklens import io

    inputs = request.inputs
    _check_fits(request, path)
    with (
        warnings_to_stderr(),
        warnings.catch_warnings(),
        stage(f"reading {path}") if staged else contextlib.nullcontext(),
    ):
        _quiet_notes(request)
        return io.read_run(
            path,
            format=inputs.format_of(path),
            duplicates=inputs.duplicates,
            **inputs.run_columns(path),
        )


def read_run_file(request: Request, path: str) -> Any:
    """The run file ``path`` of the request, read whole (a command that reads runs
    without qrels: ``ranklens overlap``)."""
    return _read_run(request, path)


def _check_fits(request: Request, path: str) -> None:
    """A run read whole (compare, gate, report, plot) must fit ``--memory`` when given."""
    memory = request.inputs.memory
    if memory is None or "#" in path:
        return
    from ranklens.io.stream import fits_in_memory, memory_needed

    fmt = request.inputs.format_of(path)
    if os.path.isfile(path) and not fits_in_memory(path, memory, fmt=fmt):
        from ranklens._shared.sizes import format_size
        from ranklens.errors import InputError

        need = format_size(memory_needed(path, fmt))
        raise InputError(
            f"{path}: the run would take about {need} in memory, more than --memory {memory}; "
            "this command reads runs whole: give a larger --memory, or evaluate the run with "
            "'ranklens evaluate --memory' (which streams it) and --store, and use the stored "
            "record STORE#ID."
        )


def _named(systems: Sequence[Any], paths: Sequence[str]) -> dict[str, Any]:
    """``{name: system}``, each run or result named as every command names them."""
    from ranklens import Result

    out: dict[str, Any] = {}
    for system, name in zip(systems, run_names(paths, systems), strict=True):
        if isinstance(system, Result):
            system = dataclasses.replace(system, run_name=name)  # frozen: a renamed copy
        else:
            system.name = name  # a Run read here
        out[name] = system
    return out


def read_runs(request: Request) -> dict[str, Any]:
    """``{run name: Run}`` for the request's run files (no qrels, no stored records),
    each read whole and named as every command names runs."""
    return _named([_read_run(request, path) for path in request.inputs.runs], request.inputs.runs)


def read_systems(request: Request, qrels: Any, stored: bool = True) -> dict[str, Any]:
    """``{run name: Run or Result}`` for the request's runs, in order: a run file is
    read whole, a stored record ``STORE#ID`` (with ``stored``) is its Result."""
    from ranklens.history import load_ref, split_ref

    systems: list[Any] = []
    first: tuple[str, Any] | None = None  # the first stored record with inputs
    for path in request.inputs.runs:
        ref = split_ref(path) if stored else None
        if ref is None:
            systems.append(_read_run(request, path))
            continue
        result = load_ref(path).result()
        prov = result.provenance
        if prov is not None and prov.same_qrels(fingerprint=qrels.fingerprint()) is False:
            echo_warning(
                f"{path} was evaluated on other qrels than {request.inputs.qrels} (content "
                f"fingerprints {str(prov.qrels)[:12]} and {qrels.fingerprint()[:12]}); "
                "its numbers may not compare with the others'."
            )
        if prov is not None and prov.inputs:
            if first is None:
                first = (path, prov)
            else:
                _warn_other_inputs(path, prov, *first)
        systems.append(result)
    return _named(systems, request.inputs.runs)


def _warn_other_inputs(path: str, prov: Any, first_path: str, first: Any) -> None:
    """A stored record whose metrics read other inputs (a recommender's training log,
    catalog, ...) than the first stored record's: said, as other qrels are."""
    shared = [n for n in prov.inputs if n in first.inputs]
    differ, _ = prov.different_inputs(first, shared)
    if differ:
        what = "; ".join(
            f"{n}: fingerprints {prov.inputs[n][:12]} and {first.inputs[n][:12]}" for n in differ
        )
        echo_warning(
            f"{path} was evaluated with other inputs than {first_path} ({what}); the "
            "numbers of the metrics that read them may not compare."
        )


def evaluate_runs(request: Request, qrels: Any, metrics: Sequence[str]) -> dict[str, Any]:
    """``{run name: Result}``: each run file evaluated on ``metrics`` under the request's
    conventions, in memory when it fits the memory budget, else streamed in blocks of
    whole queries (said on stderr when the budget is the default one)."""
    from ranklens import evaluate, evaluate_files
    from ranklens.io.stream import default_memory, fits_in_memory, memory_needed

    inputs = request.inputs
    results = []
    for path in inputs.runs:
        budget = inputs.memory
        fmt = inputs.format_of(path)
        plain = os.path.isfile(path) and not inputs.compressed(path)
        if plain and fits_in_memory(path, budget, fmt=fmt):
            with warnings_to_stderr(prefix=f"{path}: "), stage(f"evaluating {path}"):
                run = _read_run(request, path, staged=False)  # read when its turn comes
                results.append(evaluate(qrels, run, list(metrics), **request.convention_kwargs()))
            continue
        if plain and budget is None:
            from ranklens._shared.sizes import format_size

            need, limit = memory_needed(path, fmt), default_memory()
            echo_warning(
                f"{path} would take about {format_size(need)} in memory, more than half the "
                f"available memory ({format_size(limit)}): evaluating it in a stream of whole "
                "queries (same numbers); --memory SIZE sets the budget."
            )
        with (
            warnings_to_stderr(prefix=f"{path}: "),
            warnings.catch_warnings(),
            stage(f"evaluating {path}"),
        ):
            _quiet_notes(request)
            results.append(
                evaluate_files(
                    qrels,
                    path,
                    list(metrics),
                    memory=budget,
                    temp_dir=inputs.temp_dir,
                    run_format=fmt,
                    duplicates=inputs.duplicates,
                    **inputs.run_columns(path),
                    **request.convention_kwargs(),
                )
            )
    return _named(results, inputs.runs)


def evaluate_bounds(
    request: Request, qrels: Any, metrics: Sequence[str], grade: float
) -> dict[str, Any]:
    """``{run name: Result}`` with every metric beside its two unjudged fills
    (:meth:`ranklens.JudgedBounds.as_result`; ``evaluate --bounds``): each run read
    whole."""
    from ranklens import judged_bounds

    out = []
    for path in request.inputs.runs:
        with warnings_to_stderr(prefix=f"{path}: "), stage(f"evaluating {path} (bounds)"):
            run = _read_run(request, path, staged=False)
            bounds = judged_bounds(
                qrels, run, list(metrics), grade=grade, **request.convention_kwargs()
            )
            out.append(bounds.as_result())
    return _named(out, request.inputs.runs)


def record_results(
    request: Request,
    command: str,
    results: Sequence[Any],
    names: Sequence[str] | None = None,
    verdict: Any = None,
    totals: Mapping[str, float] | None = None,
    details: Mapping[str, Any] | None = None,
) -> None:
    """Record ``results`` (named ``names``, default their run names) in the request's
    ``--store`` (nothing without one), with the ``verdict`` of the gate that judged
    them, and the ``totals`` and ``details`` of the evaluation (see
    :meth:`ranklens.history.Store.record`); say so on stderr unless ``--quiet``."""
    path, tags = request.output.store, dict(request.output.tags)
    if path is None or not results:
        return
    from ranklens.history import Store, git_commit

    sha = git_commit()
    runs = names if names is not None else [r.run_name for r in results]
    with Store(path) as store:
        ids = [
            store.record(
                r,
                tags=tags,
                command=command,
                commit=sha,
                run=n,
                verdict=verdict,
                totals=totals,
                details=details,
            )
            for r, n in zip(results, runs, strict=True)
        ]
    if not request.output.quiet:
        click.echo(
            f"ranklens: recorded {len(ids)} result(s) in {path} (id {', '.join(map(str, ids))})",
            err=True,
        )
