"""Named, switchable evaluation conventions and the profiles that set them.

Every number ranklens reports is computed under an explicit
:class:`Conventions` value, recorded in the result.  The defaults follow
trec_eval 10.  Profiles reproduce other tools:

``trec_eval``
    ties broken by score descending then document id descending (byte
    order); queries in the qrels but absent from the run are skipped
    (trec_eval without ``-c``); queries with no relevant judgment score 0;
    relevance threshold 1; no depth limit; iprec with ``lround``; with
    ``missing='zero'`` (``-c``) the summary ``num_rel`` counts every judgment with a
    grade > 0 whatever the threshold (``num_rel(summary=trec)``); a value whose
    formula divides zero by zero is NaN (``undefined='nan'``), printed ``-nan``, and
    so is its mean.
``pytrec_eval``
    as ``trec_eval`` but scores are rounded to float32 first (pytrec_eval
    passes scores to trec_eval as C floats, turning near-ties into ties),
    iprec uses trec_eval 9's ``(long)(p*R + 0.9)`` rounding, a query given in
    the run with no document (``{"q": {}}``) is evaluated with nothing
    retrieved (``empty_rankings='evaluate'``: ``num_ret`` 0, ``map`` 0, ...)
    and the geometric-mean metrics report each query's logarithm
    ``log(max(v, 1e-5))`` (``gm_map(values=log)``, ``gm_bpref(values=log)``),
    whose mean, exponentiated, is trec_eval's ``gm_map``.  Interpolated precision
    of an empty ranking is NaN where trec_eval 9 divides 0 by 0 (recall levels
    ``x`` with ``floor(x R + 0.9) = 0``; ``undefined='nan'``).
``ir_measures``
    ir_measures 0.4 (``ir_measures.calc_aggregate`` / ``iter_calc``): the
    ``pytrec_eval`` profile for the measures it hands to pytrec_eval, and for the
    measures of its own Python providers (``judged``, ``compat``) equal scores
    ordered by document id ascending (``judged(ties=doc_asc)``,
    ``compat(ties=doc_asc)``).  ir_measures' spelling (``nDCG@10``, ``P(rel=2)@5``,
    ``Judged@10``, ``Compat(p=0.8)``, ``NumRet``, ``SetP``, ...) is read in every
    profile (:mod:`ranklens.metrics.irm_names`); this profile gives its values.
``ranx``
    ranx sorts by score descending and keeps documents with equal scores in
    the order they were given (``ties='input'``); queries in the qrels but
    absent from the run score 0 and count in the mean (``missing='zero'``).
    Caveat: ranx sorts with numba's ``argsort``, an insertion sort (stable)
    for rankings of up to 15 documents but an unstable quicksort beyond, whose
    order of tied documents follows no rule; on longer rankings with tied
    scores ranx's values can differ from any rule, including this profile
    (they always lie within ``ties='optimistic'`` / ``'pessimistic'``).
    ranx's ``rbp`` sums the raw grades (``rbp(scale=none)``, values in [0, the
    highest grade]), where trec_eval rescales each query's gains to [0, 1].
    ranx counts a judgment with a negative grade as judged non-relevant
    (``negative_grades='nonrelevant'``: in ``bpref`` it ranks above relevant
    documents and counts in N), where trec_eval takes it as pooled but
    unjudged.  ranx's ``bpref`` is ``1 - 0/0`` for a relevant document of a query
    without judged non-relevant document (``bpref(no_nonrel=undefined)``: NaN under
    ``undefined='nan'``), where trec_eval counts it 1; ranx's mean of a NaN is NaN.
``sklearn``
    ``ndcg_score``/``dcg_score`` average over tied scores (``ties='expected'``)
    and build the ideal list from the scored documents only
    (``ndcg(ideal=retrieved)``); ``average_precision_score`` treats a group of
    tied scores as one threshold (``ap(ties=grouped, norm=retrieved)``).
``rectools``
    RecTools' ``calc_metrics`` on deduplicated data: users with held-out
    interactions but no recommendations score 0 (``missing='zero'``); nDCG@k
    is binary (every held-out item has gain 1, whatever its weight) and divides
    by k positions of gain 1 (``ndcg(ideal=k)``, whose gains are binary); MAP@k divides by
    the number of relevant items (``norm=r``; ``ap(norm=k)`` for its
    ``divide_by_k``).  RecTools reads ranks as literal positions and counts
    every row of a duplicated interaction or recommendation; give it (and
    :func:`ranklens.recsys.evaluate_interactions`) deduplicated lists with
    ranks 1..n for identical numbers.
``replay``
    RePlay's (``replay-rec``) ``Precision``, ``Recall``, ``MAP``, ``NDCG``,
    ``MRR`` and ``HitRate`` on deduplicated data: recommendations are ordered
    by score descending, then item id descending (string ids: the ``trec``
    tie rule; integer ids are compared as numbers there but as text here);
    users with ground truth but no recommendations score 0
    (``missing='zero'``), users without ground truth are not counted;
    precision@k divides by k; MAP@k divides by ``min(k, R)``
    (``ap(norm=min_r_k)``); NDCG@k is binary (every ground-truth item has
    gain 1) with the ideal list of ``min(k, R)`` positions of gain 1
    (``ndcg(gain=binary, ideal=cut)``).  RePlay takes a repeated ground-truth row as another
    relevant item in the MAP and NDCG normalisers, and counts a repeated
    recommendation at each of its positions in MAP and NDCG (values above 1);
    give it deduplicated lists, and ranklens ``repeats='binary'``.
``spark``
    Apache Spark MLlib's ``RankingMetrics`` (``precisionAt``, ``recallAt``,
    ``meanAveragePrecision``, ``meanAveragePrecisionAt``, ``ndcgAt``).  Spark
    reads each user's predictions as a ranked list, so items with equal scores
    keep their row order (``ties='input'``): give the rows in list order, or
    ranks.  Every label is relevant whatever its relevance value, so every
    judged item with a grade >= 0 is relevant (``rel_threshold=0``; drop the
    judged non-relevant rows of TREC-style qrels, or pass
    ``rel_threshold=1``).  Users with labels but no predictions score 0
    (``missing='zero'``).  precision@k divides by k, recall@k by R, MAP by R
    and MAP@k by ``min(R, k)`` (``ap(norm=min_r_k)``).  nDCG@k has gain
    ``2^rel - 1`` and the ideal list of the ``min(R, k)`` highest grades
    (``ndcg(gain=exp2, ideal=cut)``); Spark's binary form (no relevance
    values) is grade 1 for every label.  Spark builds the graded ideal list
    from the labels in the order given, not sorted: pass them in descending
    relevance (otherwise Spark's nDCG can exceed 1), and relevance >= 0 (a
    negative one has negative gain in Spark, 0 here).  pyspark's Python
    ``RankingMetrics`` (4.3) hands only predictions and labels to the JVM,
    so from Python ``ndcgAt`` is always the binary form.  Spark counts a
    repeated prediction at each of its positions (values above 1); ranklens
    runs hold each item once.  Spark counts a user with predictions but no
    labels as 0 in the mean (``unjudged='zero'``; in
    :func:`ranklens.recsys.evaluate_interactions` too,
    whose ``repeats='binary'`` gives Spark's label set).  A user in neither
    table is unknown to ranklens.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ranklens.errors import ConventionError

__all__ = ["PROFILES", "Conventions", "check_convention_names", "resolve_conventions"]

TIE_POLICIES = (
    "trec",
    "input",
    "optimistic",
    "pessimistic",
    "expected",
    "grouped",
    "doc_asc",
)
MISSING_POLICIES = ("zero", "skip", "error")
NO_RELEVANT_POLICIES = ("zero", "skip", "nan", "error")
UNJUDGED_POLICIES = ("skip", "zero")
IPREC_ROUNDING = ("lround", "legacy")
EMPTY_RANKINGS = ("missing", "evaluate")
NEGATIVE_GRADES = ("unjudged", "nonrelevant")
SCORE_PRECISION = ("float64", "float32")
UNDEFINED_VALUES = ("nan", "zero")


@dataclass(frozen=True)
class Conventions:
    """The rules an evaluation follows (defaults: trec_eval 10).

    Attributes
    ----------
    ties:
        How documents with equal scores are ordered within a query.
        ``trec``: document id descending (byte order), as trec_eval 10 does;
        ``input``: the order of the rows in the run;
        ``optimistic``: most relevant first; ``pessimistic``: least relevant
        first; ``expected``: the expected value of the metric over all
        orderings of each group of tied documents (McSherry & Najork, ECIR
        2008), defined for the metrics whose docstring says so;
        ``grouped``: a group of tied documents is retrieved at once (the
        threshold view of scikit-learn's ``average_precision_score``),
        defined for ``ap`` only; ``doc_asc``: document id ascending (byte
        order), as ir_measures' Python providers (``Judged``, ``Compat``) order
        equal scores.
    missing:
        Queries in the qrels that the run does not contain: ``skip`` them
        (trec_eval), score them as an empty ranking, i.e. ``zero`` (trec_eval
        ``-c``), or raise (``error``).
    no_relevant:
        Queries whose judgments contain no relevant document (at the
        relevance threshold): score ``zero``, ``skip`` them, report ``nan``
        (excluded from the mean), or raise (``error``).
    unjudged:
        Queries in the run that have no judgment at all: ``skip`` them
        (trec_eval, with a warning naming how many) or score them 0 on every
        metric and count them in the mean (``zero``; Spark's
        ``RankingMetrics``).
    rel_threshold:
        Minimum relevance for a document to count as relevant in binary
        metrics (trec_eval ``-l``).  Graded metrics use the grade itself.
    depth:
        Keep only the first ``depth`` documents of each ranking (trec_eval
        ``-M``); ``None`` keeps all.
    judged_only:
        Throw out the retrieved documents that are not judged (not in the
        qrels, or graded below 0) after the ``depth`` cut, so that the judged
        ones move up (trec_eval ``-J``, pytrec_eval ``judged_docs_only_flag``).
        A query none of whose documents is judged is scored as an empty
        ranking, not as missing.
    collection_size:
        The number of documents in the collection (trec_eval ``-N``; default 0,
        as trec_eval's).  Only ``utility`` reads it: its fourth term weighs the
        non-relevant documents not retrieved, ``N + RR - n - R``, which is
        negative unless the collection size is given.
    empty_rankings:
        A query the run names with no document (``Run.from_dict({"q": {}})``;
        see :attr:`Run.empty_queries <ranklens.Run.empty_queries>`): ``missing``
        takes it as absent from the run, so the ``missing`` rule applies (trec_eval,
        which reads run files, where a query without rows cannot be written), or
        ``evaluate`` scores it as a ranking with nothing retrieved (pytrec_eval:
        ``num_ret`` 0, ``map`` 0, ``P@k`` 0, ``gm_map`` ``log(1e-5)``).
    negative_grades:
        What a judgment with a negative grade is where judged-ness matters
        (``bpref``, ``infAP``, ``unj``, ``num_nonrel_judged_ret``, ``rbp_resid``,
        ``judged_only``): ``unjudged``, pooled but unjudged (trec_eval: skipped by
        bpref, not counted in its N), or ``nonrelevant``, judged non-relevant
        (ranx: it counts in bpref's N and as a non-relevant document above
        relevant ones).  Either way it is not relevant and has gain 0.
    undefined:
        What a metric whose formula divides zero by zero returns on a query:
        ``nan`` (trec_eval 10, pytrec_eval and ranx, whose values are NaN there; a
        NaN makes the mean NaN too, as their means do, and the trec format prints
        it ``-nan``) or ``zero``.  The metrics with such a case (the catalogue's
        ``zero_by_zero``): ``iprec`` and ``11pt_avg`` on a ranking with nothing
        retrieved, at the recall levels needing no relevant document (precision
        ``RR / n`` = 0/0; a query absent from the run that ``missing='zero'`` scores
        is ranked, as by trec_eval ``-c``, as one unjudged document, which
        ``judged_only`` throws out); ``rndcg`` with relevant judgments but no
        positive gain (no point to average); ``bpref(no_nonrel=undefined)`` (ranx)
        when a relevant document is retrieved and no document is judged
        non-relevant.  Under ``no_relevant='nan'`` every NaN is left out of the
        mean, as that convention's are.  Every other metric guards its divisions
        by a rule its docstring states.
    iprec_rounding:
        How interpolated precision finds the rank for a recall level:
        ``lround`` (trec_eval 10) or ``legacy`` (trec_eval 9 and
        pytrec_eval: ``(long)(p * R + 0.9)``).
    score_precision:
        ``float64`` (exact) or ``float32`` (round scores first, as pytrec_eval).
    metric_defaults:
        Per-metric parameter defaults a profile sets, e.g.
        ``{"ndcg": {"ideal": "retrieved"}}``; explicit metric parameters win.  The
        default, trec_eval 10's, is ``{"num_rel": {"summary": "trec"}}``: under
        ``missing='zero'`` (trec_eval ``-c``) the summary ``num_rel`` counts every
        judgment with a grade > 0, whatever ``rel_threshold`` says
        (``te_calc_avg_num_rel`` in trec_eval's ``m_num_rel.c``); the per-query
        values, and every other profile's summary, count at the threshold.
    """

    ties: str = "trec"
    missing: str = "skip"
    no_relevant: str = "zero"
    unjudged: str = "skip"
    rel_threshold: float = 1
    depth: int | None = None
    judged_only: bool = False
    collection_size: int = 0
    empty_rankings: str = "missing"
    negative_grades: str = "unjudged"
    undefined: str = "nan"
    iprec_rounding: str = "lround"
    score_precision: str = "float64"
    metric_defaults: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {"num_rel": {"summary": "trec"}}, hash=False, compare=True
    )
    profile: str | None = None

    def __post_init__(self) -> None:
        for name, allowed in (
            ("ties", TIE_POLICIES),
            ("missing", MISSING_POLICIES),
            ("no_relevant", NO_RELEVANT_POLICIES),
            ("unjudged", UNJUDGED_POLICIES),
            ("empty_rankings", EMPTY_RANKINGS),
            ("negative_grades", NEGATIVE_GRADES),
            ("undefined", UNDEFINED_VALUES),
            ("iprec_rounding", IPREC_ROUNDING),
            ("score_precision", SCORE_PRECISION),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise ConventionError(
                    f"{name}={value!r} is not a known convention; choose one of "
                    f"{', '.join(map(repr, allowed))}."
                )
        if (
            isinstance(self.rel_threshold, bool)
            or not isinstance(self.rel_threshold, (int, float))
            or not math.isfinite(self.rel_threshold)
        ):
            raise ConventionError(
                f"rel_threshold must be a finite number, got {self.rel_threshold!r}."
            )
        if not isinstance(self.judged_only, bool):
            raise ConventionError(f"judged_only must be True or False, got {self.judged_only!r}.")
        if (
            isinstance(self.collection_size, bool)
            or not isinstance(self.collection_size, int)
            or self.collection_size < 0
        ):
            raise ConventionError(
                f"collection_size must be a whole number >= 0 (the number of documents in "
                f"the collection), got {self.collection_size!r}."
            )
        if self.depth is not None and (
            isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1
        ):
            raise ConventionError(f"depth must be a positive integer or None, got {self.depth!r}.")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


PROFILES: dict[str, Conventions] = {
    "trec_eval": Conventions(profile="trec_eval"),
    "pytrec_eval": Conventions(
        iprec_rounding="legacy",
        score_precision="float32",
        empty_rankings="evaluate",
        metric_defaults={"gm_map": {"values": "log"}, "gm_bpref": {"values": "log"}},
        profile="pytrec_eval",
    ),
    "ir_measures": Conventions(
        missing="zero",
        iprec_rounding="legacy",
        score_precision="float32",
        empty_rankings="evaluate",
        metric_defaults={
            "gm_map": {"values": "log"},
            "gm_bpref": {"values": "log"},
            "judged": {"ties": "doc_asc"},
            "compat": {"ties": "doc_asc"},
        },
        profile="ir_measures",
    ),
    "ranx": Conventions(
        ties="input",
        missing="zero",
        negative_grades="nonrelevant",
        metric_defaults={"rbp": {"scale": "none"}, "bpref": {"no_nonrel": "undefined"}},
        profile="ranx",
    ),
    "rectools": Conventions(
        missing="zero",
        metric_defaults={"ndcg": {"gain": "binary", "ideal": "k"}},
        profile="rectools",
    ),
    "replay": Conventions(
        missing="zero",
        metric_defaults={"ap": {"norm": "min_r_k"}, "ndcg": {"gain": "binary", "ideal": "cut"}},
        profile="replay",
    ),
    "spark": Conventions(
        ties="input",
        missing="zero",
        unjudged="zero",
        rel_threshold=0,
        metric_defaults={"ap": {"norm": "min_r_k"}, "ndcg": {"gain": "exp2", "ideal": "cut"}},
        profile="spark",
    ),
    "sklearn": Conventions(
        ties="expected",
        missing="zero",
        metric_defaults={
            "ndcg": {"ideal": "retrieved"},
            "ap": {"ties": "grouped", "norm": "retrieved"},
        },
        profile="sklearn",
    ),
}


def resolve_conventions(
    conventions: Conventions | None, profile: str | None, overrides: dict[str, Any]
) -> Conventions:
    """Combine a profile, an explicit :class:`Conventions` and keyword overrides."""
    if conventions is not None and profile is not None:
        raise ConventionError("pass either profile= or conventions=, not both.")
    if profile is not None:
        key = profile.lower().replace("-", "_")
        if key not in PROFILES:
            close = difflib.get_close_matches(key, PROFILES, n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ConventionError(
                f"unknown profile {profile!r}; known profiles: "
                f"{', '.join(map(repr, PROFILES))}.{hint}"
            )
        base = PROFILES[key]
    else:
        base = conventions if conventions is not None else Conventions()
    check_convention_names(overrides)
    clean = {k: v for k, v in overrides.items() if v is not None}
    if not clean:
        return base
    return replace(base, **clean)


def check_convention_names(names: Iterable[str]) -> None:
    """Raise :class:`ConventionError` naming every one of ``names`` (keyword arguments
    given as conventions: to ``evaluate_cutoffs``, ``Evaluator``, ``ranklens.spark``)
    that is not a convention, with the closest one; the one check of convention names."""
    fields = sorted(Conventions.__dataclass_fields__)
    unknown = sorted(set(names) - set(fields))
    if not unknown:
        return
    told = []
    for name in unknown:
        close = difflib.get_close_matches(name, fields, n=1)
        told.append(f"{name}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ConventionError(
        f"unknown convention(s): {', '.join(told)}; the conventions are {', '.join(fields)}."
    )
