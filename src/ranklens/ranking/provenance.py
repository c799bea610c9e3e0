"""Provenance: what an evaluation result was computed from.

Every :class:`~ranklens.Result` of :func:`ranklens.evaluate` and of
:class:`~ranklens.Evaluator` carries a :class:`Provenance`: SHA-256 fingerprints
of the qrels content, of the run content, of the metrics and of the
conventions, and the ranklens version.  A recommender evaluation
(:func:`ranklens.recsys.evaluate_interactions`) also fingerprints the other inputs
its beyond-accuracy metrics read (``inputs``: the training log, the catalog, the
item features, the item categories), which a gate compares as it compares qrels.
Two results whose ``qrels`` and ``conventions`` fingerprints agree were computed on
the same judgments under the same rules, so their numbers compare (what
:func:`ranklens.gate` checks).

Fingerprints of the data (:meth:`ranklens.Qrels.fingerprint`,
:meth:`ranklens.Run.fingerprint`) are of the rows sorted by (query, doc): the
order of the rows in a file does not change them, because it cannot change any
number -- except under ``ties='input'``, where the order of tied documents
decides the ranking: a run evaluated with an ``input`` tie rule is fingerprinted
in its row order (``run_form == "input"``).

They are computed lazily: :func:`ranklens.evaluate` pays nothing for them until
``result.provenance.qrels`` (or ``run``, or :meth:`Provenance.as_dict`) is first
read, and the tables keep their fingerprints.  Until then the provenance refers
to the two tables: a small one (under 200,000 rows) is held, a large one only
weakly, so that results kept in a loop over many large runs do not keep every run
in memory.  A large table that is gone before its fingerprint was read leaves it
unknown (None); read ``result.provenance`` (or record the result in a store)
while the table exists.  An :class:`~ranklens.Evaluator` keeps no
data, so it fingerprints every batch as it comes; the fingerprint of several
batches is one digest of the batches' fingerprints (the same whatever their
order, but not that of one :func:`ranklens.evaluate` over the same rows): such a
fingerprint shows equal qrels when it is equal, and nothing when it is not
(:meth:`Provenance.same_qrels`).

>>> import ranklens
>>> qrels = ranklens.Qrels.from_dict({"q1": {"d1": 1}})
>>> run = ranklens.Run.from_dict({"q1": {"d1": 0.9, "d2": 0.5}})
>>> p = ranklens.evaluate(qrels, run, ["p@1"]).provenance
>>> p.qrels == qrels.fingerprint(), p.run_form, p.metrics
(True, 'canonical', ('p@1',))
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ranklens._shared.fingerprints import combine, json_digest
from ranklens.errors import InputError

if TYPE_CHECKING:
    from ranklens.ranking.conventions import Conventions
    from ranklens.ranking.data import Qrels, Run

__all__ = ["Provenance", "ranklens_version"]


@functools.cache
def ranklens_version() -> str:
    """The ranklens version (``ranklens.__version__``; reading the installed package's
    metadata would import importlib.metadata, 13 ms of every command's start)."""
    import ranklens

    return str(ranklens.__version__)


def conventions_document(conv: Conventions) -> dict[str, Any]:
    """The conventions as a JSON document (``rel_threshold`` as a float, so that 1 and
    1.0 are one convention)."""
    doc = dict(conv.as_dict())
    doc["rel_threshold"] = float(doc["rel_threshold"])
    for name, default in _LATER_CONVENTIONS.items():
        if doc.get(name) == default:
            del doc[name]
    return doc


# conventions added after results were first stored: at their default (the behaviour
# before they existed) they are left out of the document, so that the fingerprint of
# the same conventions stays what it was
_LATER_CONVENTIONS = {
    "empty_rankings": "missing",
    "negative_grades": "unjudged",
    "undefined": "zero",
}


class Provenance:
    """Fingerprints of what a result was computed from.

    Attributes
    ----------
    qrels, run:
        SHA-256 (hex) of the qrels and of the run content (computed on first read).
    run_form:
        ``canonical`` (rows sorted; row order does not matter) or ``input`` (rows in
        their order: the run was evaluated with ``ties='input'``).
    metrics:
        The metrics in their canonical spelling (``ndcg_cut.10`` is ``ndcg@10``).
    conventions:
        The conventions as a dict; ``conventions_fingerprint`` is its digest.
    version:
        The ranklens version that computed the result.
    batches:
        How many batches an :class:`~ranklens.Evaluator` saw (1 for ``evaluate``).
    inputs:
        ``{input name: fingerprint}`` of the inputs besides the qrels and the run that
        the metrics read (names of :data:`ranklens.metrics.catalogue.INPUTS`:
        ``train``, ``catalog``, ``item_features``, ``categories``); empty when they
        read none.
    """

    __slots__ = (
        "_qrels",
        "_qrels_table",
        "_run",
        "_run_table",
        "batches",
        "conventions",
        "inputs",
        "metrics",
        "run_form",
        "version",
    )

    def __init__(
        self,
        *,
        qrels: str | Qrels | None,
        run: str | Run | None,
        run_form: str,
        metrics: tuple[str, ...],
        conventions: Mapping[str, Any],
        version: str | None = None,
        batches: int = 1,
        inputs: Mapping[str, str] | None = None,
    ) -> None:
        self._qrels_table = _refer(qrels)
        self._run_table = _refer(run)
        self._qrels = qrels if isinstance(qrels, str) else None
        self._run = run if isinstance(run, str) else None
        self.run_form = run_form
        self.metrics = tuple(metrics)
        self.conventions = dict(conventions)
        self.version = version or ranklens_version()
        self.batches = batches
        self.inputs = dict(inputs or {})

    @classmethod
    def of_evaluation(
        cls,
        qrels: Qrels,
        run: Run,
        metrics: tuple[str, ...],
        conventions: Conventions,
        input_order: bool,
    ) -> Provenance:
        """The (lazy) provenance of one evaluation of ``run`` on ``qrels``."""
        return cls(
            qrels=qrels,
            run=run,
            run_form="input" if input_order else "canonical",
            metrics=metrics,
            conventions=conventions_document(conventions),
        )

    @classmethod
    def of_batches(
        cls,
        batches: list[tuple[str, str]],
        run_form: str,
        metrics: tuple[str, ...],
        conventions: Conventions,
    ) -> Provenance:
        """The provenance of an evaluation in batches, from each batch's (qrels, run)
        fingerprints."""
        if len(batches) == 1:
            q, r = batches[0]
        else:
            q = combine([b[0] for b in batches], "qrels")
            r = combine([b[1] for b in batches], "run")
        return cls(
            qrels=q,
            run=r,
            run_form=run_form,
            metrics=metrics,
            conventions=conventions_document(conventions),
            batches=len(batches),
        )

    @property
    def qrels(self) -> str | None:
        """Fingerprint of the qrels (None: a large qrels was gone before it was read)."""
        if self._qrels is None and self._qrels_table is not None:
            table = self._qrels_table()
            self._qrels = None if table is None else table.fingerprint()
            self._qrels_table = None
        return self._qrels

    @property
    def run(self) -> str | None:
        """Fingerprint of the run (None: a large run was gone before it was read)."""
        if self._run is None and self._run_table is not None:
            table = self._run_table()
            self._run = None if table is None else table.fingerprint(self.run_form)
            self._run_table = None
        return self._run

    def same_qrels(
        self, other: Provenance | None = None, *, fingerprint: str | None = None
    ) -> bool | None:
        """Whether this result's qrels are those of ``other`` (or of the table whose
        fingerprint is ``fingerprint``): True when the fingerprints are equal, False when
        they differ and each is of one table, None when that cannot be told (a
        fingerprint unknown, or a digest of several batches' fingerprints, which does not
        compare with the fingerprint of the same rows in other batches or in one table).

        >>> one = Provenance(qrels="a" * 64, run=None, run_form="canonical", metrics=(),
        ...                  conventions={})
        >>> two = Provenance(qrels="b" * 64, run=None, run_form="canonical", metrics=(),
        ...                  conventions={}, batches=2)
        >>> one.same_qrels(fingerprint="a" * 64), one.same_qrels(fingerprint="c" * 64)
        (True, False)
        >>> print(one.same_qrels(two))
        None
        """
        mine, theirs = self.qrels, (fingerprint if other is None else other.qrels)
        if mine is None or theirs is None:
            return None
        if mine == theirs:
            return True
        batches = 1 if other is None else other.batches
        return False if self.batches == 1 and batches == 1 else None

    def different_inputs(
        self, other: Provenance, names: Iterable[str]
    ) -> tuple[list[str], list[str]]:
        """Which of the inputs ``names`` (e.g. those a metric reads) differ from
        ``other``'s, and which cannot be told: ``(differ, unknown)``.  An input differs
        when both fingerprints are known and unequal, or when one result read it and the
        other, which records its inputs, did not; it is unknown when the result without
        it records no input at all (made by a ranklens before inputs were recorded).

        >>> a = Provenance(qrels=None, run=None, run_form="canonical", metrics=(),
        ...                conventions={}, inputs={"train": "a" * 64})
        >>> b = Provenance(qrels=None, run=None, run_form="canonical", metrics=(),
        ...                conventions={}, inputs={"train": "b" * 64})
        >>> old = Provenance(qrels=None, run=None, run_form="canonical", metrics=(),
        ...                  conventions={})
        >>> a.different_inputs(b, ["train", "catalog"]), a.different_inputs(old, ["train"])
        ((['train'], []), ([], ['train']))
        """
        differ: list[str] = []
        unknown: list[str] = []
        for name in dict.fromkeys(names):
            mine, theirs = self.inputs.get(name), other.inputs.get(name)
            if mine == theirs:
                continue
            if (mine is None and not self.inputs) or (theirs is None and not other.inputs):
                unknown.append(name)
            else:
                differ.append(name)
        return differ, unknown

    @property
    def conventions_fingerprint(self) -> str:
        """Digest of the rules (the profile's name is left out: ``profile='trec_eval'``
        and the defaults are the same conventions)."""
        return json_digest({k: v for k, v in self.conventions.items() if k != "profile"})

    @property
    def metrics_fingerprint(self) -> str:
        return json_digest(list(self.metrics))

    @property
    def fingerprint(self) -> str:
        """One digest of everything above (two results with equal fingerprints were
        computed from the same data, metrics and conventions by the same version)."""
        return json_digest(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready data (:meth:`from_dict` reads it back); ``inputs``
        only when there are some (so that a result that reads none keeps the
        fingerprint it had before inputs were recorded)."""
        doc = {
            "qrels": self.qrels,
            "run": self.run,
            "run_form": self.run_form,
            "metrics": list(self.metrics),
            "conventions": self.conventions,
            "conventions_fingerprint": self.conventions_fingerprint,
            "version": self.version,
            "batches": self.batches,
        }
        if self.inputs:
            doc["inputs"] = dict(self.inputs)
        return doc

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Provenance:
        try:
            return cls(
                qrels=_text(doc["qrels"]),
                run=_text(doc["run"]),
                run_form=str(doc["run_form"]),
                metrics=tuple(doc["metrics"]),
                conventions=dict(doc["conventions"]),
                version=str(doc["version"]),
                batches=int(doc.get("batches", 1)),
                inputs={str(k): str(v) for k, v in dict(doc.get("inputs") or {}).items()},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(
                f"a provenance record lacks or garbles {exc}; expected the "
                "fields of Provenance.as_dict()."
            ) from None

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Pickled with its fingerprints computed, never with the tables."""
        return (Provenance.from_dict, (self.as_dict(),))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Provenance):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        q = self._qrels[:12] if self._qrels else "(lazy)"
        r = self._run[:12] if self._run else "(lazy)"
        return (
            f"<Provenance qrels={q} run={r} ({self.run_form}) metrics="
            f"{list(self.metrics)} ranklens {self.version}>"
        )


def _refer(table: str | Qrels | Run | None) -> Callable[[], Any] | None:
    """How a provenance refers to a table until its fingerprint is read: a small table
    is held, a large one only weakly (results must not keep large runs alive)."""
    from ranklens._shared.parallel import LARGE_ROWS

    if table is None or isinstance(table, str):
        return None
    if len(table) < LARGE_ROWS:
        return lambda: table
    return weakref.ref(table)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
