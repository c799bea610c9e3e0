"""The metric catalogue: every metric of every family, declared once.

Each :class:`MetricDef` states a metric's names and aliases, its parameters
(types, ranges, choices), the combinations of parameters it allows
(:class:`Rule`), the range of its values, whether higher is better, its
trec_eval spellings, its family and its kernel.  Kernels are named by
``"module:function"`` and imported on first use, so reading the catalogue
(``import ranklens``, ``ranklens metrics``, "did you mean") loads no kernel
module and no scikit-learn.  Nothing registers itself by being imported: the
registry (:mod:`ranklens.metrics.registry`), the CLI's metric list, report
labels and the trec_eval names (:mod:`ranklens.metrics.trec_names`) all read
:data:`CATALOGUE`.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ranklens._shared.deprecation import renamed_choice
from ranklens.errors import MetricParameterError, UnsupportedError

__all__ = ["CATALOGUE", "FAMILIES", "INPUTS", "Input", "MetricDef", "Param", "Rule", "TrecName"]

INF = float("inf")

# tie policies (see ranklens.ranking.conventions)
ORDERED = frozenset({"trec", "input", "optimistic", "pessimistic", "doc_asc"})
EXPECTED = ORDERED | {"expected"}


@dataclass(frozen=True)
class Param:
    """One metric parameter: its name, what values it takes, its default."""

    name: str
    default: Any
    doc: str
    choices: tuple[str, ...] | None = None
    kind: str = "choice"  # choice | number | int | gainmap | numbers | text
    minimum: float | None = None
    maximum: float | None = None
    open_minimum: bool = False  # the minimum itself is excluded
    open_maximum: bool = False  # the maximum itself is excluded
    values: tuple[float, ...] | None = None  # the only numbers allowed (besides choices)
    renamed: tuple[tuple[str, str], ...] = ()  # deprecated choice -> its current spelling

    def check(self, metric: str, value: Any) -> Any:
        """``value`` validated and normalised, or :class:`MetricParameterError`."""

        def fail(expect: str) -> MetricParameterError:
            return MetricParameterError(
                f"in metric {metric!r}: parameter {self.name!r} must be {expect}, got {value!r}."
            )

        def number(v: Any) -> bool:
            return (
                isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != INF
            )

        if self.kind == "choice":
            if self.renamed and isinstance(value, str):
                value = renamed_choice(
                    f"metric {metric!r}", self.name, value.lower(), dict(self.renamed)
                )
            if not isinstance(value, str) or value.lower() not in (self.choices or ()):
                raise fail("one of " + ", ".join(map(repr, self.choices or ())))
            return value.lower()
        if self.kind in ("number", "int"):
            named = self.choices or ()
            if isinstance(value, str) and value.lower() in named:
                return value.lower()  # a named setting a number parameter also takes
            if isinstance(value, float) and value != value and "nan" in named:
                return "nan"  # NaN as a setting (e.g. zero_division=nan)
            extra = f" or one of {', '.join(map(repr, named))}" if named else ""
            if not number(value):
                raise fail(("a finite number" if self.kind == "number" else "an integer") + extra)
            if self.kind == "int" and not float(value).is_integer():
                raise fail("an integer" + extra)
            if self.values is not None:
                if value not in self.values:
                    raise fail(f"one of {', '.join(f'{v:g}' for v in self.values)}{extra}")
                return value
            lo, hi = self.minimum, self.maximum
            low = lo is not None and (value <= lo if self.open_minimum else value < lo)
            high = hi is not None and (value >= hi if self.open_maximum else value > hi)
            if low or high:
                rng = (
                    f"in {'(' if self.open_minimum else '['}{'-inf' if lo is None else lo}"
                    f", {'inf' if hi is None else hi}{')' if self.open_maximum else ']'}"
                )
                raise fail(f"a number {rng}{extra}")
            return int(value) if self.kind == "int" else value
        if self.kind == "gainmap":
            if isinstance(value, str) and value.lower() in (self.choices or ()):
                return value.lower()
            if (
                isinstance(value, dict)
                and value
                and all(number(k) and number(v) for k, v in value.items())
            ):
                if any(k < 0 for k in value):
                    raise fail(
                        "a mapping {grade: gain} of grades >= 0 (a negative grade is a "
                        "judgment of non-relevance and has gain 0)"
                    )
                return {float(k): float(v) for k, v in value.items()}
            raise fail(
                "one of "
                + ", ".join(map(repr, self.choices or ()))
                + " or a non-empty mapping {grade: gain, ...} of finite numbers"
            )
        if self.kind == "numbers":
            if number(value):
                value = (value,)
            if isinstance(value, (list, tuple)) and value and all(number(v) for v in value):
                lo, hi = self.minimum, self.maximum
                if any((lo is not None and v < lo) or (hi is not None and v > hi) for v in value):
                    raise fail(f"numbers in [{lo}, {hi}]")
                return tuple(float(v) for v in value)
            raise fail("a number or a list of numbers")
        if self.kind == "text":
            if not isinstance(value, str) or not value.strip() or value != value.strip():
                raise fail("a non-empty name without surrounding spaces")
            return value
        raise AssertionError(self.kind)  # pragma: no cover


@dataclass(frozen=True)
class Rule:
    """A combination of parameter values a metric restricts.

    When every ``(param, value)`` of ``when`` holds (after profile defaults are
    applied), the metric ``needs_cutoff``, or the
    parameters in ``only`` must take one of the listed values (with ``adjust``,
    a parameter left at its default is set to the first of them: e.g.
    ``ndcg(ideal=k)`` is binary; a parameter still unresolved, None, is not
    checked).  ``why`` completes the error message.
    """

    when: tuple[tuple[str, Any], ...]
    why: str
    needs_cutoff: bool = False
    only: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    with_cutoff: bool | None = None  # applies only with (True) / without (False) a cutoff
    adjust: bool = True  # set a parameter left at its default instead of raising

    def applies(self, params: dict[str, Any], cutoff: Any) -> bool:
        if self.with_cutoff is not None and self.with_cutoff != (cutoff is not None):
            return False
        return all(params.get(name) == value for name, value in self.when)


@dataclass(frozen=True)
class TrecName:
    """One trec_eval measure a metric reproduces.

    ``base`` is trec_eval's name, ``pinned`` the parameters that reproduce it
    (fixed against profiles) and ``kind`` what follows the name:
    None (nothing), ``cutoff`` (integer list), ``level`` (float list),
    ``pairs`` (``grade=gain`` or ``p=`` pairs), ``utility`` (four numbers),
    ``levels`` (one float list), ``setf`` (the F weight).
    """

    base: str
    pinned: tuple[tuple[str, Any], ...] = ()
    kind: str | None = None


@dataclass(frozen=True)
class Input:
    """A table a metric needs besides its family's main inputs (for recommender
    metrics: the recommendations, and the held-out interactions where relevance is
    read).  ``keyword`` is the keyword of the entry point that takes it
    (:func:`ranklens.recsys.evaluate_interactions`), ``option`` the command-line
    option that gives it (None: a positional argument)."""

    name: str
    keyword: str
    option: str | None
    doc: str


#: Every input a :class:`MetricDef` may name in ``inputs``.
INPUTS: dict[str, Input] = {
    i.name: i
    for i in (
        Input(
            "held_out",
            "interactions",
            None,
            "the held-out interactions (user, item[, grade]): which recommended items are "
            "relevant; rows without a grade column are relevant (implicit feedback)",
        ),
        Input(
            "train",
            "train",
            "--train",
            "the training interactions (user, item): item popularity and user profiles",
        ),
        Input(
            "catalog",
            "catalog",
            "--catalog",
            "every recommendable item id (a table with the item column, or a list of ids)",
        ),
        Input(
            "item_features",
            "item_features",
            "--item-features",
            "item feature vectors (the item column and numeric feature columns): "
            "distances are cosine distances",
        ),
        Input(
            "categories",
            "categories",
            "--categories",
            "one category per item (the item column and a category column): items of "
            "different categories are at distance 1, of the same at 0",
        ),
    )
}

#: The metric families in the order they are listed, with a one-line description.
FAMILIES: dict[str, str] = {
    "ranking": "ranked lists against relevance judgments (qrels and runs)",
    "recsys": "beyond-accuracy metrics of recommendation lists",
    "classification": "predicted classes or scores against true classes",
    "regression": "predicted values against true values",
    "clustering": "clusterings against true classes, or of the data alone",
    "entity_resolution": "predicted entities (and blockings) against true entities",
    "detection": "object detection: boxes against ground-truth boxes",
    "online": "A/B-test metrics per randomised unit, from exposure and event logs "
    "(ranklens.online.analyze computes them)",
    "overlap": "run to run: two rankings of the same queries compared, no qrels "
    "(ranklens.compare_runs)",
}


@dataclass(frozen=True)
class MetricDef:
    """The declaration of one metric family."""

    name: str
    summary: str
    impl: str | Callable[..., Any]  # "module:function", imported on first use
    aliases: tuple[str, ...] = ()
    cutoff: str = "optional"  # optional | required | none | level (0..1) | multiple (> 0)
    params: tuple[Param, ...] = ()
    rules: tuple[Rule, ...] = ()
    aggregate: str = "mean"  # mean | gmean | sum | expmean (values that are logs)
    # the aggregate under other parameter values: ((param, value), aggregate), first match
    aggregate_when: tuple[tuple[tuple[str, Any], str], ...] = ()
    ties: frozenset[str] = ORDERED
    binary: bool = False  # takes the rel= threshold parameter
    trec: tuple[TrecName, ...] = ()
    range: tuple[float, float] | None = (0.0, 1.0)
    # the range when a gain mapping has negative gains (None: unbounded)
    signed_range: tuple[float, float] | None = None
    # ranges under other parameter values: ((param, value), range or None), first match
    range_when: tuple[tuple[tuple[str, Any], tuple[float, float] | None], ...] = ()
    # parameter values under which the range is that of the judgments' gains (and 0):
    # see value_range
    range_from_gains: tuple[tuple[str, Any], ...] = ()
    higher_is_better: bool | None = True  # None: a count or diagnostic, not a score
    # the kernel takes a sorted vector of cutoffs for k and returns queries x cutoffs
    # (evaluate_cutoffs calls it once; otherwise once per cutoff)
    vector_k: bool = False
    # at an integer cutoff k the value reads only each ranking's top k (and the
    # judgments), unless a parameter takes one of the values of top_k_unless: the engine
    # then orders and judges only the top rows (ranking metrics)
    top_k: bool = False
    top_k_unless: tuple[tuple[str, Any], ...] = ()
    # "ranking" metrics take a Prepared ranking; the other families ("classification",
    # "regression", "clustering", "entity_resolution", "detection", "recsys") define their
    # own kernel signature and entry point, and share the names, docs and parameters
    domain: str = "ranking"
    # the data the metric needs besides its family's main inputs: names of INPUTS; one
    # entry "a|b" means either of them
    inputs: tuple[str, ...] = ()
    # False: one value of the whole evaluation (e.g. catalog coverage), no value per
    # query or user
    per_query: bool = True
    # the formula can divide zero by zero on some queries (an empty ranking, no gain, no
    # judged non-relevant document): the value there is the ``undefined`` convention's
    # (NaN, or 0), and under undefined='nan' a NaN of it makes its mean NaN
    zero_by_zero: bool = False
    # (part 3 of issue 26, unjudged bounds) the values with every unjudged retrieved
    # document judged non-relevant and judged at a grade g are true bounds: the value
    # under any completion of the judgments lies between them (see FILL_BOUNDED)
    fill_bounds: bool = False

    @property
    def required_inputs(self) -> tuple[tuple[Input, ...], ...]:
        """The inputs the metric needs, as groups of which any one will do."""
        return tuple(tuple(INPUTS[n] for n in group.split("|")) for group in self.inputs)

    @property
    def kernel(self) -> Callable[..., Any]:
        """The function computing the metric (its module is imported on first use;
        ``"module:Class.method"`` names a method)."""
        if callable(self.impl):
            return self.impl
        module, _, func = self.impl.partition(":")
        fn: Any = importlib.import_module(module)
        for part in func.split("."):
            fn = getattr(fn, part)
        out: Callable[..., Any] = fn
        return out

    @property
    def trec_name(self) -> str | None:
        """trec_eval's main name for this metric (None if trec_eval lacks it)."""
        return self.trec[0].base if self.trec else None

    @property
    def doc(self) -> str:
        """The kernel's docstring (its summary without one), dedented as ``help()``
        shows it."""
        import inspect

        return inspect.cleandoc(self.kernel.__doc__ or self.summary)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.all_params if p.name == name), None)

    @property
    def all_params(self) -> tuple[Param, ...]:
        if self.domain != "ranking":
            return self.params
        extra: list[Param] = [
            Param(
                "ties",
                None,
                "tie policy for this metric (overrides the conventions)",
                choices=tuple(sorted(self.ties)),
            ),
        ]
        if self.binary:
            extra.append(
                Param("rel", None, "relevance threshold (overrides the conventions)", kind="number")
            )
        return self.params + tuple(extra)

    def aggregate_for(self, params: dict[str, Any]) -> str:
        """How the per-query values aggregate under ``params`` (``aggregate`` unless a
        parameter value of ``aggregate_when`` holds)."""
        for (name, value), how in self.aggregate_when:
            if params.get(name) == value:
                return how
        return self.aggregate

    def value_range(
        self, params: dict[str, Any], gain_bounds: tuple[float, float] | None = None
    ) -> tuple[float, float] | None:
        """The range of the metric's values under ``params`` (None: unbounded).

        Under a parameter value of ``range_from_gains`` the values are weighted sums of
        raw gains and lie between the lowest and the highest gain of the judgments (and
        0): ``gain_bounds`` gives those gains (None: the range is unbounded, not knowing
        them; e.g. ``rbp(scale=none)``, ranx's graded RBP, lies in [0, the top grade])."""
        for name, value in self.range_from_gains:
            if params.get(name) == value:
                if gain_bounds is None:
                    return None
                return (min(gain_bounds[0], 0.0), max(gain_bounds[1], 0.0))
        for (name, value), rng in self.range_when:
            if params.get(name) == value:
                return rng
        gain = params.get("gain")
        if isinstance(gain, dict) and any(v < 0 for v in gain.values()):
            return self.signed_range
        return self.range

    def apply_rules(
        self, text: str, params: dict[str, Any], explicit: set[str], cutoff: Any
    ) -> dict[str, Any]:
        """``params`` with the rules applied: a parameter at its default that a rule
        restricts takes the rule's value; a forbidden combination raises
        :class:`MetricParameterError` naming the metric and the parameters."""
        out = dict(params)
        for rule in self.rules:
            if not rule.applies(out, cutoff):
                continue
            cond = ", ".join(f"{n}={v}" for n, v in rule.when)
            if rule.needs_cutoff and cutoff is None:
                raise MetricParameterError(
                    f"in metric {text!r}: {self.name}({cond}) needs a cutoff, e.g. "
                    f"{self.name}({cond})@10; {rule.why}"
                )
            for name, allowed in rule.only:
                if out.get(name) is None or out.get(name) in allowed:
                    continue
                if rule.adjust and name not in explicit:
                    out[name] = allowed[0]
                    continue
                # a tie policy comes from the conventions: the metric is not defined there
                error = UnsupportedError if name == "ties" else MetricParameterError
                raise error(
                    f"in metric {text!r}: {self.name}({cond}) cannot take {name}="
                    f"{out.get(name)}; {rule.why} Use {name}="
                    f"{' or '.join(map(str, allowed))}."
                )
        return out


# --------------------------------------------------------------------------- ranking

_B = "ranklens.ranking.kernels.binary:"
_G = "ranklens.ranking.kernels.graded:"
_O = "ranklens.ranking.kernels.order:"
_T = "ranklens.ranking.kernels.trec:"

_GAIN = Param(
    "gain",
    "linear",
    "gain of a grade: linear (rel), exp2 (2^rel - 1), binary "
    "(1 if rel >= the relevance threshold) or a mapping {grade: gain}",
    kind="gainmap",
    choices=("linear", "exp2", "binary"),
)
_NORM = Param(
    "norm",
    "r",
    "AP normaliser: r = number relevant (trec_eval), "
    "min_r_k = min(R, k) (ml_metrics apk), retrieved = relevant retrieved (sklearn), "
    "k = the cutoff (RecTools divide_by_k)",
    choices=("r", "min_r_k", "retrieved", "k"),
)
_P = Param("p", 0.9, "persistence", kind="number", minimum=0, maximum=1)
_TREC_GAIN = Param(
    "gain",
    "linear",
    "gain of a grade: linear, exp2 or a mapping {grade: gain} (trec_eval's grade=gain pairs)",
    kind="gainmap",
    choices=("linear", "exp2"),
)
GM_FLOOR = 1e-5  # trec_eval's floor for geometric means (gm_map, gm_bpref)
_GM_VALUES = Param(
    "values",
    "value",
    "what each query reports: its value (trec_eval's per-query lines) or "
    "log(max(value, 1e-5)) (log; pytrec_eval), whose mean exponentiated is the "
    "geometric mean",
    choices=("value", "log"),
)
_GM_LOG_AGGREGATE = ((("values", "log"), "expmean"),)
_GM_LOG_RANGE: tuple[tuple[tuple[str, Any], tuple[float, float] | None], ...] = (
    (("values", "log"), (math.log(GM_FLOOR), 0.0)),
)
_UNJ = Param(
    "unjudged",
    "skip",
    "retrieved documents not in the qrels: skip them, or include them with grade 0 (zero)",
    choices=("skip", "zero"),
    renamed=(("exclude", "skip"),),
)

# kernels that take a vector of cutoffs for k (see MetricDef.vector_k)
_VECTOR_K = frozenset(
    {
        "p",
        "r",
        "f1",
        "ap",
        "rr",
        "success",
        "arhr",
        "mar",
        "num_ret",
        "num_rel_ret",
        "hits",
        "num_nonrel_judged_ret",
        "dcg",
        "ndcg",
        "cg",
        "err",
        "relative_p",
        "rbp",
        "unj",
    }
)

_RANKING: tuple[MetricDef, ...] = (
    MetricDef(
        "p",
        "precision at k (the whole ranking without k)",
        _B + "precision",
        aliases=("precision", "prec"),
        binary=True,
        ties=EXPECTED,
        trec=(TrecName("P", kind="cutoff"), TrecName("set_P")),
        top_k=True,
    ),
    MetricDef(
        "r",
        "recall at k",
        _B + "recall",
        aliases=("recall",),
        binary=True,
        ties=EXPECTED,
        trec=(TrecName("recall", kind="cutoff"), TrecName("set_recall")),
        top_k=True,
    ),
    MetricDef(
        "f1",
        "F-measure at k (beta=1 by default)",
        _B + "f_measure",
        aliases=("f", "fmeasure", "f_measure"),
        binary=True,
        ties=EXPECTED,
        params=(Param("beta", 1.0, "weight of recall", kind="number", minimum=0),),
        trec=(TrecName("set_F", (("beta", 1.0),), "setf"),),
        top_k=True,
    ),
    MetricDef(
        "ap",
        "average precision (MAP is its mean)",
        _B + "average_precision",
        aliases=("map", "average_precision"),
        binary=True,
        ties=EXPECTED | {"grouped"},
        params=(_NORM,),
        rules=(
            Rule((("norm", "k"),), "it divides by the cutoff k.", needs_cutoff=True),
            Rule(
                (("norm", "retrieved"),),
                "under ties=expected the normaliser "
                "(relevant documents retrieved within k) is random too.",
                with_cutoff=True,
                adjust=False,
                only=(
                    ("ties", ("trec", "input", "optimistic", "pessimistic", "doc_asc", "grouped")),
                ),
            ),
        ),
        trec=(TrecName("map", (("norm", "r"),)), TrecName("map_cut", (("norm", "r"),), "cutoff")),
        top_k=True,
    ),
    MetricDef(
        "rr",
        "reciprocal rank of the first relevant document (MRR)",
        _B + "reciprocal_rank",
        aliases=("mrr", "recip_rank", "reciprocal_rank"),
        binary=True,
        ties=EXPECTED,
        trec=(TrecName("recip_rank"),),
        top_k=True,
    ),
    MetricDef(
        "success",
        "1 if a relevant document is in the top k",
        _B + "success",
        aliases=("hit_rate", "hitrate", "hit"),
        binary=True,
        ties=EXPECTED,
        trec=(TrecName("success", kind="cutoff"),),
        top_k=True,
    ),
    MetricDef(
        "arhr",
        "sum of reciprocal ranks of all hits in the top k",
        _B + "arhr",
        binary=True,
        ties=EXPECTED,
        range=(0.0, INF),
        top_k=True,
    ),
    MetricDef(
        "mar",
        "average recall at k (MAR is its mean)",
        _B + "average_recall",
        aliases=("ar", "average_recall"),
        binary=True,
        params=(
            Param(
                "mode",
                "relevant",
                "average over hit ranks (relevant) or over all ranks 1..k (all)",
                choices=("relevant", "all"),
            ),
        ),
    ),
    MetricDef(
        "rprec",
        "precision at rank R (number relevant)",
        _B + "r_precision",
        aliases=("r-precision", "r_precision", "rprecision"),
        binary=True,
        ties=EXPECTED,
        cutoff="none",
        trec=(TrecName("Rprec"),),
    ),
    MetricDef(
        "bpref",
        "binary preference (Buckley & Voorhees)",
        _B + "bpref",
        binary=True,
        params=(
            Param(
                "no_nonrel",
                "one",
                "a relevant document of a query without judged non-relevant documents "
                "(min(R, N) = 0) counts 1 (one: trec_eval) or 1 - 0/0 (undefined: ranx; the "
                "query's value is then the undefined convention's, NaN or 0)",
                choices=("one", "undefined"),
            ),
        ),
        trec=(TrecName("bpref"),),
        zero_by_zero=True,
    ),
    MetricDef(
        "iprec",
        "interpolated precision at a recall level (@0.3)",
        _B + "interpolated_precision",
        aliases=("iprec_at_recall",),
        binary=True,
        cutoff="level",
        trec=(TrecName("iprec_at_recall", kind="level"),),
        zero_by_zero=True,
    ),
    MetricDef(
        "11pt_avg",
        "11-point interpolated average precision",
        _B + "eleven_point",
        aliases=("11pt", "elevenpt_avg"),
        binary=True,
        cutoff="none",
        params=(
            Param("levels", None, "recall levels to average", kind="numbers", minimum=0, maximum=1),
        ),
        trec=(TrecName("11pt_avg", kind="levels"),),
        zero_by_zero=True,
    ),
    MetricDef(
        "num_ret",
        "number of documents retrieved (summed)",
        _B + "num_ret",
        aggregate="sum",
        range=(0.0, INF),
        higher_is_better=None,
        trec=(TrecName("num_ret"),),
    ),
    MetricDef(
        "num_rel",
        "number of relevant judgments (summed)",
        _B + "num_rel",
        binary=True,
        params=(
            Param(
                "summary",
                "sum",
                "the summary: the sum of the per-query values (sum), or under "
                "missing='zero' every judgment with a grade > 0 whatever the threshold "
                "(trec: trec_eval 10 -c; the trec_eval profile)",
                choices=("sum", "trec"),
            ),
        ),
        aggregate="sum",
        range=(0.0, INF),
        cutoff="none",
        higher_is_better=None,
        trec=(TrecName("num_rel"),),
    ),
    MetricDef(
        "num_rel_ret",
        "number of relevant documents retrieved (summed)",
        _B + "num_rel_ret",
        binary=True,
        aggregate="sum",
        range=(0.0, INF),
        trec=(TrecName("num_rel_ret"),),
    ),
    MetricDef(
        "hits",
        "number of relevant documents in the top k (averaged; ranx hits)",
        _B + "num_rel_ret",
        binary=True,
        range=(0.0, INF),
        top_k=True,
    ),
    MetricDef(
        "num_nonrel_judged_ret",
        "judged non-relevant documents retrieved (summed)",
        _B + "num_nonrel_judged_ret",
        binary=True,
        aggregate="sum",
        range=(0.0, INF),
        higher_is_better=False,
        trec=(TrecName("num_nonrel_judged_ret"),),
    ),
    # graded
    MetricDef(
        "dcg",
        "discounted cumulative gain at k",
        _G + "dcg",
        params=(_GAIN,),
        ties=EXPECTED,
        range=(0.0, INF),
        signed_range=None,
        top_k=True,
    ),
    MetricDef(
        "ndcg",
        "normalised discounted cumulative gain at k",
        _G + "ndcg",
        aliases=("ndcg_cut", "n_dcg"),
        params=(
            _GAIN,
            Param(
                "ideal",
                "cut",
                "ideal list: cut (all judgments, cut "
                "at k), full (not cut), retrieved (sklearn) or k "
                "(k positions of gain 1, RecTools; binary gains)",
                choices=("cut", "full", "retrieved", "k"),
            ),
        ),
        rules=(
            Rule(
                (("ideal", "k"),),
                "the ideal list is k positions of gain 1, so "
                "every relevant document must have gain 1 (otherwise nDCG would "
                "exceed 1).",
                needs_cutoff=True,
                only=(("gain", ("binary",)),),
            ),
        ),
        ties=EXPECTED,
        signed_range=(-INF, 1.0),
        trec=(
            TrecName("ndcg", (("gain", "linear"), ("ideal", "cut")), "pairs"),
            TrecName("ndcg_cut", (("gain", "linear"), ("ideal", "cut")), "cutoff"),
        ),
        top_k=True,
        top_k_unless=(("ideal", "retrieved"),),
    ),
    MetricDef(
        "cg",
        "cumulative gain at k",
        _G + "cg",
        params=(_GAIN,),
        ties=EXPECTED,
        range=(0.0, INF),
        signed_range=None,
        top_k=True,
    ),
    MetricDef(
        "err",
        "expected reciprocal rank at k",
        _G + "err",
        params=(Param("max_rel", 4, "top grade of the grading scale", kind="number", minimum=0),),
        top_k=True,
    ),
    # order agreement
    MetricDef(
        "fcp",
        "fraction of concordant pairs (scores vs grades)",
        _O + "fcp",
        aliases=("fraction_concordant_pairs",),
        cutoff="none",
        params=(
            _UNJ,
            Param(
                "score_ties",
                "discordant",
                "pairs tied on score: discordant, ignore or half",
                choices=("discordant", "ignore", "half"),
            ),
        ),
    ),
    MetricDef(
        "kendall_tau",
        "Kendall's tau-b between scores and grades",
        _O + "kendall_tau",
        aliases=("kendall", "tau", "kendalltau"),
        cutoff="none",
        params=(_UNJ,),
        range=(-1.0, 1.0),
    ),
    MetricDef(
        "spearman_rho",
        "Spearman's rho between scores and grades",
        _O + "spearman_rho",
        aliases=("spearman", "rho", "spearmanr"),
        cutoff="none",
        params=(_UNJ,),
        range=(-1.0, 1.0),
    ),
    # trec_eval's own
    MetricDef(
        "num_q",
        "number of queries evaluated (summed)",
        _T + "num_q",
        cutoff="none",
        aggregate="sum",
        range=(0.0, INF),
        higher_is_better=None,
        trec=(TrecName("num_q"),),
    ),
    MetricDef(
        "relative_p",
        "precision relative to the best possible, rel@k/min(k,R)",
        _T + "relative_precision",
        aliases=("relative_precision",),
        binary=True,
        trec=(TrecName("relative_P", kind="cutoff"), TrecName("set_relative_P")),
    ),
    MetricDef(
        "set_map",
        "set precision x set recall (RR^2 / (n R))",
        _T + "set_map",
        binary=True,
        cutoff="none",
        trec=(TrecName("set_map"),),
    ),
    MetricDef(
        "rprec_mult",
        "precision at x*R (@x)",
        _T + "rprec_mult",
        binary=True,
        cutoff="multiple",
        trec=(TrecName("Rprec_mult", kind="level"),),
    ),
    MetricDef(
        "utility",
        "linear utility a*RR + b*(n-RR) + c*(R-RR) + d*(RR-n-R)",
        _T + "utility",
        binary=True,
        cutoff="none",
        range=None,
        trec=(TrecName("utility", kind="utility"),),
        params=(
            Param("a", 1.0, "weight of relevant retrieved", kind="number"),
            Param("b", -1.0, "weight of non-relevant retrieved", kind="number"),
            Param("c", 0.0, "weight of relevant not retrieved", kind="number"),
            Param("d", 0.0, "weight of non-relevant not retrieved", kind="number"),
        ),
    ),
    MetricDef(
        "infap",
        "inferred average precision (Yilmaz & Aslam)",
        _T + "infap",
        aliases=("inf_ap",),
        binary=True,
        cutoff="none",
        trec=(TrecName("infAP"),),
    ),
    MetricDef(
        "bing",
        "binary G (trec_eval binG)",
        _T + "bin_g",
        binary=True,
        cutoff="none",
        trec=(TrecName("binG"),),
    ),
    MetricDef(
        "g",
        "G (trec_eval G)",
        _T + "g_measure",
        cutoff="none",
        params=(_TREC_GAIN,),
        trec=(TrecName("G", kind="pairs"),),
        signed_range=None,
    ),
    MetricDef(
        "ndcg_rel",
        "nDCG averaged over relevant documents (trec_eval)",
        _T + "ndcg_rel",
        cutoff="none",
        params=(_TREC_GAIN,),
        trec=(TrecName("ndcg_rel", kind="pairs"),),
        signed_range=None,
    ),
    MetricDef(
        "rndcg",
        "nDCG averaged over ideal gain boundaries (trec_eval)",
        _T + "rndcg",
        binary=True,
        cutoff="none",
        params=(_TREC_GAIN,),
        trec=(TrecName("Rndcg", kind="pairs"),),
        signed_range=None,
        zero_by_zero=True,
    ),
    MetricDef(
        "rbp",
        "rank-biased precision",
        _T + "rbp",
        params=(
            _P,
            _TREC_GAIN,
            Param(
                "scale",
                "trec",
                "gains rescaled to [0, 1] per query as trec_eval "
                "does (trec), or the raw gains (none; ranx)",
                choices=("trec", "none"),
            ),
        ),
        trec=(TrecName("rbp", (("scale", "trec"),), "pairs"),),
        signed_range=(0.0, 1.0),
        range_from_gains=(("scale", "none"),),
    ),
    MetricDef(
        "rbp_resid",
        "rank-biased precision residual",
        _T + "rbp_resid",
        params=(_P,),
        higher_is_better=None,
        trec=(TrecName("rbp_resid", kind="pairs"),),
    ),
    MetricDef(
        "unj",
        "fraction of unjudged documents in the top k",
        _T + "unjudged",
        aliases=("unjudged",),
        higher_is_better=None,
        trec=(TrecName("unj", kind="cutoff"),),
    ),
    MetricDef(
        "gm_map",
        "geometric mean average precision",
        _T + "gm_map",
        binary=True,
        aggregate="gmean",
        aggregate_when=_GM_LOG_AGGREGATE,
        cutoff="none",
        trec=(TrecName("gm_map"),),
        params=(Param("norm", "r", "AP normaliser", choices=("r",)), _GM_VALUES),
        range_when=_GM_LOG_RANGE,
    ),
    MetricDef(
        "gm_bpref",
        "bpref aggregated by geometric mean",
        _T + "gm_bpref",
        binary=True,
        aggregate="gmean",
        aggregate_when=_GM_LOG_AGGREGATE,
        cutoff="none",
        trec=(TrecName("gm_bpref"),),
        params=(_GM_VALUES,),
        range_when=_GM_LOG_RANGE,
    ),
)

# ------------------------------------------------ ranking: intent-aware and diversity
# (issue 23 part 1) metrics of per-intent judgments (ranklens.DiversityQrels; a plain
# Qrels is one intent per query), as ndeval (TREC Web track) computes them
_D = "ranklens.ranking.kernels.diversity:"
_ALPHA = Param(
    "alpha",
    0.5,
    "redundancy penalty: a document's gain for an intent shrinks by the factor "
    "(1 - alpha) per document above it relevant to that intent (ndeval -alpha)",
    kind="number",
    minimum=0.0,
    maximum=1.0,
)
_BETA = Param("beta", 0.5, "NRBP's patience (ndeval -beta)", kind="number", minimum=0, maximum=1)
_WEIGHTS = Param(
    "weights",
    "qrels",
    "intent weights: the qrels' (uniform if they give none), or uniform",
    choices=("qrels", "uniform"),
)
_DIVERSITY: tuple[MetricDef, ...] = tuple(
    replace(d, binary=True)
    for d in (
        MetricDef(
            "alpha_ndcg",
            "alpha-nDCG at k: novelty-discounted DCG over the greedy ideal's (ndeval)",
            _D + "alpha_ndcg",
            aliases=("alpha-ndcg", "a_ndcg", "alphandcg"),
            cutoff="required",
            params=(_ALPHA, _WEIGHTS),
            range=(0.0, INF),  # the greedy ideal ranking is not always the best one
            top_k=True,
        ),
        MetricDef(
            "alpha_dcg",
            "alpha-DCG at k over the ideal ideal ranking's (ndeval alpha-DCG)",
            _D + "alpha_dcg",
            aliases=("alpha-dcg",),
            cutoff="required",
            params=(_ALPHA, _WEIGHTS),
            top_k=True,
        ),
        MetricDef(
            "err_ia",
            "intent-aware expected reciprocal rank at k (ndeval ERR-IA)",
            _D + "err_ia",
            aliases=("err-ia",),
            cutoff="required",
            params=(_ALPHA, _WEIGHTS),
            top_k=True,
        ),
        MetricDef(
            "nerr_ia",
            "ERR-IA at k over the greedy ideal ranking's (ndeval nERR-IA)",
            _D + "nerr_ia",
            aliases=("nerr-ia",),
            cutoff="required",
            params=(_ALPHA, _WEIGHTS),
            range=(0.0, INF),
            top_k=True,
        ),
        MetricDef(
            "ndcg_ia",
            "intent-aware nDCG at k: the intents' nDCG@k, weighted (Agrawal et al.)",
            _D + "ndcg_ia",
            aliases=("ndcg-ia", "n_dcg_ia"),
            cutoff="required",
            params=(_GAIN, _WEIGHTS),
            top_k=True,
        ),
        MetricDef(
            "nrbp",
            "novelty- and rank-biased precision (ndeval NRBP)",
            _D + "nrbp",
            cutoff="none",
            params=(_ALPHA, _BETA, _WEIGHTS),
        ),
        MetricDef(
            "nnrbp",
            "NRBP over the greedy ideal ranking's (ndeval nNRBP)",
            _D + "nnrbp",
            aliases=("n_nrbp",),
            cutoff="none",
            params=(_ALPHA, _BETA, _WEIGHTS),
            range=(0.0, INF),
            zero_by_zero=True,
        ),
        MetricDef(
            "map_ia",
            "intent-aware average precision (MAP-IA is its mean; ndeval MAP-IA)",
            _D + "map_ia",
            aliases=("map-ia", "ap_ia", "ap-ia"),
            cutoff="none",
            params=(_WEIGHTS,),
        ),
        MetricDef(
            "p_ia",
            "intent-aware precision at k (ndeval P-IA)",
            _D + "p_ia",
            aliases=("p-ia", "precision_ia"),
            cutoff="required",
            params=(_WEIGHTS,),
            top_k=True,
        ),
        MetricDef(
            "strec",
            "subtopic (intent) recall at k: share of the intents covered (ndeval strec)",
            _D + "subtopic_recall",
            aliases=("subtopic_recall", "st_recall", "strecall", "s-recall", "intent_recall"),
            cutoff="required",
            params=(_WEIGHTS,),
            top_k=True,
        ),
    )
)

#: The intent-aware metrics (they read a DiversityQrels' intents).
INTENT_AWARE = frozenset(d.name for d in _DIVERSITY)

# --------------------------------------------------------------------------- C/W/L measures
# (issue 23 part 2: cwl_eval's user models; kernels in ranklens.ranking.kernels.cwl)

_CWL = "ranklens.ranking.kernels.cwl:"
_CWL_OUTPUT = Param(
    "output",
    "eu",
    "what the user model reports (cwl_eval's columns): eu expected utility per item, "
    "etu expected total utility, ec expected cost per item, etc expected total cost, "
    "ed expected depth",
    choices=("eu", "etu", "ec", "etc", "ed"),
)
_CWL_DEPTH = Param(
    "depth",
    1000,
    "ranks the user model covers: rankings are cut there and padded to it with gain 0 "
    "(cwl_eval's --max_depth)",
    kind="int",
    minimum=1,
)
_CWL_COST = Param(
    "cost",
    1.0,
    "cost of every item, ranked or padding (cwl_eval without a costs file: 1)",
    kind="number",
    minimum=0.0,
    open_minimum=True,
)
_CWL_T = Param(
    "t", 1.0, "gain the user wants (cwl_eval's T)", kind="number", minimum=0.0, open_minimum=True
)
_CWL_COMMON = (_CWL_OUTPUT, _GAIN, _CWL_DEPTH, _CWL_COST)
_CWL_RANGE: tuple[tuple[tuple[str, Any], tuple[float, float] | None], ...] = tuple(
    (("output", o), None) for o in ("etu", "ec", "etc", "ed")
)


def _cwl(
    name: str, summary: str, *params: Param, cutoff: str = "none", common: tuple[Param, ...] = ()
) -> MetricDef:
    return MetricDef(
        name,
        summary,
        _CWL + name,
        cutoff=cutoff,
        params=params + (common or _CWL_COMMON),
        range=None,
        signed_range=None,
        range_when=_CWL_RANGE,
        range_from_gains=(("output", "eu"),),
    )


_CWL_MEASURES: tuple[MetricDef, ...] = (
    _cwl("cwl_p", "C/W/L precision at k (cwl_eval P@k)", cutoff="required"),
    _cwl("cwl_rr", "C/W/L reciprocal rank (cwl_eval RR)"),
    _cwl("cwl_ap", "C/W/L average precision (cwl_eval AP)"),
    replace(
        _cwl("cwl_trap", "C/W/L AP over the relevant retrieved (cwl_eval TrAP)"),
        range_from_gains=(),
    ),
    _cwl("cwl_rbp", "C/W/L rank-biased precision (cwl_eval RBP)", _P),
    _cwl(
        "cwl_npv",
        "C/W/L net present value (cwl_eval NPV)",
        Param("rate", 0.1, "discount rate", kind="number", minimum=0.0),
    ),
    _cwl("cwl_ndcg", "C/W/L scaled DCG at k (cwl_eval NDCG-k)", cutoff="required"),
    _cwl(
        "cwl_set",
        "C/W/L search economic measure at k (cwl_eval SET)",
        Param(
            "beta",
            0.5,
            "diminishing returns",
            kind="number",
            minimum=0.0,
            maximum=1.0,
            open_minimum=True,
        ),
        cutoff="required",
    ),
    _cwl("cwl_inst", "C/W/L INST, adaptive to the gain wanted (cwl_eval INST)", _CWL_T),
    _cwl("cwl_insq", "C/W/L INSQ (cwl_eval INSQ)", _CWL_T),
    _cwl(
        "cwl_tbg",
        "C/W/L time-biased gain (cwl_eval TBG)",
        Param(
            "halflife",
            224.0,
            "half-life, in cost units",
            kind="number",
            minimum=0.0,
            open_minimum=True,
        ),
    ),
    _cwl(
        "cwl_umeasure",
        "C/W/L U-measure (cwl_eval U)",
        Param(
            "budget",
            1000.0,
            "reading budget, in cost units (cwl_eval's L)",
            kind="number",
            minimum=0.0,
            open_minimum=True,
        ),
        common=(_CWL_OUTPUT, _GAIN, replace(_CWL_DEPTH, minimum=2), _CWL_COST),
    ),
    _cwl(
        "cwl_bpm",
        "C/W/L bejeweled player model (cwl_eval BPM static and dynamic)",
        _CWL_T,
        Param(
            "budget", 10.0, "cost the user will spend (cwl_eval's K)", kind="number", minimum=0.0
        ),
        Param("hb", 0.0, "goal change per unit of gain above gain_med (0: static)", kind="number"),
        Param("gain_med", 0.5, "median gain (dynamic model)", kind="number"),
    ),
    _cwl(
        "cwl_ift_goal",
        "C/W/L information foraging, goal (cwl_eval IFT-C1)",
        _CWL_T,
        Param("b1", 0.9, "intercept", kind="number", minimum=0.0),
        Param("r1", 10.0, "rationality", kind="number", minimum=0.0),
    ),
    _cwl(
        "cwl_ift_rate",
        "C/W/L information foraging, rate (cwl_eval IFT-C2)",
        Param("a", 0.2, "rate of gain wanted", kind="number"),
        Param("b2", 0.9, "intercept", kind="number", minimum=0.0),
        Param("r2", 10.0, "rationality", kind="number", minimum=0.0),
    ),
    _cwl(
        "cwl_ift",
        "C/W/L information foraging, goal and rate (cwl_eval IFT-C1-C2)",
        _CWL_T,
        Param("b1", 0.9, "intercept of the goal", kind="number", minimum=0.0),
        Param("r1", 10.0, "rationality of the goal", kind="number", minimum=0.0),
        Param("a", 0.2, "rate of gain wanted", kind="number"),
        Param("b2", 0.9, "intercept of the rate", kind="number", minimum=0.0),
        Param("r2", 10.0, "rationality of the rate", kind="number", minimum=0.0),
    ),
    _cwl("cwl_nerr8", "C/W/L not-quite ERR at k, eq. 8 (cwl_eval NERReq8)", cutoff="required"),
    _cwl("cwl_nerr9", "C/W/L not-quite ERR at k, eq. 9 (cwl_eval NERReq9)", cutoff="required"),
    _cwl(
        "cwl_nerr10",
        "C/W/L not-quite ERR, eq. 10 (cwl_eval NERReq10)",
        Param("phi", 0.9, "patience", kind="number", minimum=0.0, maximum=1.0),
    ),
    _cwl("cwl_nerr11", "C/W/L not-quite ERR, eq. 11 (cwl_eval NERReq11)", _CWL_T),
)

# --- ir_measures' own measures (issue 23 part 3): its Python providers' Judged@k and
# Compat; the ir_measures profile orders their ties by document id ascending
_IRM = "ranklens.ranking.kernels.irm:"
_RANKING_IRM: tuple[MetricDef, ...] = (
    MetricDef(
        "judged",
        "fraction of the top k with a judgment, of min(k, n) (ir_measures Judged@k)",
        _IRM + "judged",
        aliases=("judged_rate",),
        ties=EXPECTED,
        higher_is_better=None,
        top_k=True,
    ),
    MetricDef(
        "compat",
        "compatibility: rank-biased overlap with the ideal ranking (Clarke et al. 2021)",
        _IRM + "compat",
        aliases=("compatibility",),
        cutoff="none",
        params=(
            Param("p", 0.95, "persistence", kind="number", minimum=0, maximum=1),
            Param(
                "normalize",
                "true",
                "divide by the ideal ranking's own overlap (true) or not (false)",
                choices=("true", "false"),
            ),
        ),
    ),
)
_VECTOR_K = _VECTOR_K | {"judged"}

# --- issue 26 part 3 (how far to trust a metric): metrics whose two fills bound them --
# A ranking metric is a true bound of its fills when it is non-decreasing in the grade of
# every retrieved document and reads nothing else of the judgments (no number of relevant
# documents, no ideal ranking, no judged/unjudged distinction): filling every unjudged
# retrieved document with grade 0 gives its least value, with grade g its greatest.
# Not AP, R, F, nDCG, R-prec, bpref, infAP (R and the ideal gains grow with the fill),
# nor ERR (its gains are scaled by the query's highest grade).  rbp(scale=trec) rescales
# a query's gains by its highest grade when that exceeds 1: a true bound for g <= 1 only
# (ranklens.ranking.bounds.fill_bounded says so per metric and grade).
FILL_BOUNDED = frozenset(
    {"p", "success", "rr", "arhr", "num_rel_ret", "hits", "dcg", "cg", "rbp", "num_ret"}
)
RANKING = tuple(
    replace(d, vector_k=d.name in _VECTOR_K, fill_bounds=d.name in FILL_BOUNDED)
    for d in _RANKING + _DIVERSITY + _CWL_MEASURES + _RANKING_IRM
)

# --------------------------------------------------------------------------- other families

AVERAGES = ("binary", "micro", "macro", "weighted")
MULTIOUTPUT = ("uniform_average", "raw_values")
INTERPOLATIONS = ("voc2007", "voc2010", "coco")
DEFAULT_EPS = 1e-15

_C = "ranklens.classification:"
_avg = Param("average", "binary", "binary | micro | macro | weighted", choices=AVERAGES)
_zd = Param(
    "zero_division",
    0.0,
    "value of 0/0: a number in [0, 1], or nan",
    kind="number",
    minimum=0.0,
    maximum=1.0,
    choices=("nan",),
)
_zd_warn = Param(
    "zero_division",
    "warn",
    "value of 0/0: 0, 1, nan, or warn (0 with a warning, as scikit-learn)",
    kind="number",
    values=(0.0, 1.0),
    choices=("warn", "nan"),
)
_eps = Param(
    "eps",
    DEFAULT_EPS,
    "probabilities clipped to [eps, 1-eps], or auto (the dtype's machine epsilon, as scikit-learn)",
    kind="number",
    minimum=0.0,
    maximum=0.5,
    choices=("auto",),
)


def _family(
    domain: str,
    prefix: str,
    rows: list[
        tuple[
            str,
            str,
            str,
            tuple[str, ...],
            tuple[Param, ...],
            tuple[float, float] | None,
            bool | None,
        ]
    ],
) -> tuple[MetricDef, ...]:
    return tuple(
        MetricDef(
            name,
            summary,
            prefix + fn,
            aliases=aliases,
            params=params,
            cutoff="none",
            range=rng,
            higher_is_better=better,
            domain=domain,
        )
        for name, summary, fn, aliases, params, rng, better in rows
    )


CLASSIFICATION = _family(
    "classification",
    _C,
    [
        (
            "clf_precision",
            "classification precision TP/(TP+FP)",
            "precision",
            (),
            (_avg, _zd_warn),
            (0.0, 1.0),
            True,
        ),
        (
            "clf_recall",
            "classification recall TP/(TP+FN)",
            "recall",
            (),
            (_avg, _zd_warn),
            (0.0, 1.0),
            True,
        ),
        (
            "clf_f1",
            "classification F1",
            "f1",
            ("clf_f_measure",),
            (_avg, _zd_warn),
            (0.0, 1.0),
            True,
        ),
        (
            "clf_fbeta",
            "classification F-beta",
            "fbeta",
            (),
            (_avg, _zd_warn, Param("beta", 1.0, "weight of recall", kind="number", minimum=0.0)),
            (0.0, 1.0),
            True,
        ),
        (
            "accuracy",
            "fraction of samples classified correctly",
            "accuracy",
            ("acc",),
            (),
            (0.0, 1.0),
            True,
        ),
        (
            "confusion_matrix",
            "counts of (true, predicted) classes",
            "confusion_matrix",
            (),
            (),
            None,
            None,
        ),
        ("roc_auc", "area under the ROC curve", "roc_auc", ("auc", "auroc"), (), (0.0, 1.0), True),
        (
            "clf_average_precision",
            "average precision of a binary score (sklearn)",
            "average_precision",
            ("pr_auc", "clf_ap"),
            (),
            (0.0, 1.0),
            True,
        ),
        (
            "log_loss",
            "cross-entropy, negative mean log-likelihood",
            "log_loss",
            ("cross_entropy", "logloss"),
            (_eps,),
            (0.0, INF),
            False,
        ),
        (
            "log_likelihood",
            "total (or mean) log-likelihood of observed outcomes",
            "log_likelihood",
            ("loglik",),
            (_eps, Param("reduction", "sum", "sum | mean | none", choices=("sum", "mean", "none"))),
            (-INF, 0.0),
            True,
        ),
    ],
)

_mo = Param("multioutput", "uniform_average", "uniform_average | raw_values", choices=MULTIOUTPUT)
REGRESSION = _family(
    "regression",
    "ranklens.regression:",
    [
        ("mae", "mean absolute error", "mae", ("mean_absolute_error",), (_mo,), (0.0, INF), False),
        ("mse", "mean squared error", "mse", ("mean_squared_error",), (_mo,), (0.0, INF), False),
        (
            "rmse",
            "root mean squared error",
            "rmse",
            ("root_mean_squared_error",),
            (_mo,),
            (0.0, INF),
            False,
        ),
        (
            "r2",
            "coefficient of determination R^2",
            "r2",
            ("r2_score", "r_squared"),
            (_mo,),
            (-INF, 1.0),
            True,
        ),
    ],
)

CLUSTERING = _family(
    "clustering",
    "ranklens.clustering:",
    [
        (
            "silhouette",
            "mean silhouette coefficient",
            "silhouette",
            ("silhouette_score",),
            (Param("sample_size", None, "points sampled (None: exact)", kind="int", minimum=3),),
            (-1.0, 1.0),
            True,
        ),
        (
            "davies_bouldin",
            "Davies-Bouldin index (lower is better)",
            "davies_bouldin",
            ("dbi",),
            (),
            (0.0, INF),
            False,
        ),
        (
            "calinski_harabasz",
            "Calinski-Harabasz variance ratio",
            "calinski_harabasz",
            ("chi", "variance_ratio"),
            (),
            (0.0, INF),
            True,
        ),
        (
            "dunn",
            "Dunn index, classic or centroid variant",
            "dunn_index",
            ("dunn_index",),
            (Param("variant", "classic", "classic | centroid", choices=("classic", "centroid")),),
            (0.0, INF),
            True,
        ),
        ("rand_index", "Rand index", "rand_index", ("ri", "rand"), (), (0.0, 1.0), True),
        (
            "ari",
            "adjusted Rand index",
            "adjusted_rand_index",
            ("adjusted_rand_index",),
            (),
            (-0.5, 1.0),
            True,
        ),
        (
            "nmi",
            "normalized mutual information",
            "nmi",
            ("normalized_mutual_info",),
            (
                Param(
                    "average_method",
                    "arithmetic",
                    "normaliser",
                    choices=("arithmetic", "geometric", "min", "max"),
                ),
            ),
            (0.0, 1.0),
            True,
        ),
        ("v_measure", "V-measure", "v_measure", (), (), (0.0, 1.0), True),
        (
            "fowlkes_mallows",
            "Fowlkes-Mallows index",
            "fowlkes_mallows",
            ("fmi",),
            (),
            (0.0, 1.0),
            True,
        ),
        ("purity", "cluster purity", "purity", (), (), (0.0, 1.0), True),
        (
            "pair_jaccard",
            "pair-counting Jaccard index",
            "jaccard",
            ("cluster_jaccard",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        (
            "pair_precision",
            "pair-counting precision",
            "pair_precision",
            ("pairwise_precision",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        (
            "pair_recall",
            "pair-counting recall",
            "pair_recall",
            ("pairwise_recall",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        ("pair_f1", "pair-counting F1", "pair_f1", ("pairwise_f1",), (_zd,), (0.0, 1.0), True),
    ],
)

ENTITY_RESOLUTION = _family(
    "entity_resolution",
    "ranklens.entity_resolution:",
    [
        (
            "bcubed_precision",
            "B-cubed precision (mean per record)",
            "bcubed",
            ("b3_precision",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        (
            "bcubed_recall",
            "B-cubed recall (mean per record)",
            "bcubed",
            ("b3_recall",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        ("bcubed_f1", "B-cubed F1", "bcubed", ("b3_f1",), (_zd,), (0.0, 1.0), True),
        (
            "cluster_precision",
            "exact entity match precision",
            "cluster_level",
            (),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        (
            "cluster_recall",
            "exact entity match recall",
            "cluster_level",
            (),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        ("cluster_f1", "exact entity match F1", "cluster_level", (), (_zd,), (0.0, 1.0), True),
        (
            "reduction_ratio",
            "blocking: 1 - candidates / all pairs",
            "blocking",
            ("rr_blocking",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        (
            "pairs_completeness",
            "blocking: true matches kept / true matches",
            "blocking",
            ("pc_blocking",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
        (
            "pairs_quality",
            "blocking: true matches kept / candidates",
            "blocking",
            ("pq_blocking",),
            (_zd,),
            (0.0, 1.0),
            True,
        ),
    ],
)


_R = "ranklens.recsys.beyond."
_CATALOG = "catalog|train"  # a catalog, else the items of the training log
_ITEMS = "item_features|categories"
_DISTANCE = Param(
    "profile_distance",
    "mean",
    "mean: mean distance to the profile's items; min: distance to the closest one",
    choices=("mean", "min"),
)
_NO_PROFILE = Param(
    "no_profile",
    "skip",
    "a recommended user without training interactions: skip (left out, with a warning) or error",
    choices=("skip", "error"),
)

# beyond-accuracy metrics of recommendation lists: the cutoff @k is each user's top k
# (default: the whole list); evaluated by ranklens.recsys.evaluate_interactions
RECSYS: tuple[MetricDef, ...] = tuple(
    replace(d, domain="recsys")
    for d in (
        MetricDef(
            "novelty",
            "mean self-information -log2(share of training users) of the recommended items",
            _R + "popularity:novelty",
            aliases=("self_information",),
            inputs=("train",),
            range=(0.0, INF),
        ),
        MetricDef(
            "arp",
            "average recommendation popularity: mean training interactions of the "
            "recommended items (lower: less popularity bias)",
            _R + "popularity:average_recommendation_popularity",
            aliases=("average_recommendation_popularity", "popularity"),
            inputs=("train",),
            range=(0.0, INF),
            higher_is_better=False,
        ),
        MetricDef(
            "long_tail_share",
            "APLT: share of each list outside the training log's most popular items",
            _R + "popularity:long_tail_share",
            aliases=("aplt", "long_tail"),
            params=(
                Param(
                    "head_share",
                    0.2,
                    "share of the training log's items that form the popular head",
                    kind="number",
                    minimum=0.0,
                    maximum=1.0,
                    open_minimum=True,
                    open_maximum=True,
                ),
            ),
            inputs=("train",),
        ),
        MetricDef(
            "catalog_coverage",
            "share of the catalog recommended to at least one user",
            _R + "coverage:catalog_coverage",
            aliases=("coverage", "item_coverage"),
            inputs=(_CATALOG,),
            per_query=False,
        ),
        MetricDef(
            "entropy",
            "Shannon entropy (bits) of the recommendation slots over the catalog",
            _R + "coverage:shannon_entropy",
            aliases=("shannon_entropy",),
            inputs=(_CATALOG,),
            per_query=False,
            range=(0.0, INF),
        ),
        MetricDef(
            "gini",
            "Gini index of the recommendation slots over the catalog (0: even)",
            _R + "coverage:gini_index",
            aliases=("gini_index",),
            inputs=(_CATALOG,),
            per_query=False,
            higher_is_better=False,
        ),
        MetricDef(
            "ild",
            "intra-list diversity: mean distance of two items of a list",
            _R + "diversity:intra_list_diversity",
            aliases=("intra_list_diversity", "diversity"),
            inputs=(_ITEMS,),
            range=(0.0, 2.0),
        ),
        MetricDef(
            "personalisation",
            "one minus the mean cosine similarity of two users' lists",
            _R + "diversity:personalisation",
            aliases=("personalization",),
        ),
        MetricDef(
            "unexpectedness",
            "mean distance of the recommended items from the user's training profile",
            _R + "surprise:unexpectedness",
            aliases=("surprise",),
            params=(_DISTANCE, _NO_PROFILE),
            inputs=("train", _ITEMS),
            range=(0.0, 2.0),
        ),
        MetricDef(
            "serendipity",
            "share of each list both relevant and unexpected (farther than threshold "
            "from the user's training profile)",
            _R + "surprise:serendipity",
            params=(
                Param(
                    "threshold",
                    None,
                    "distance from the profile above which an item is unexpected "
                    "(cosine distances lie in [0, 2], category distances in [0, 1])",
                    kind="number",
                    minimum=0.0,
                    maximum=2.0,
                ),
                _DISTANCE,
                _NO_PROFILE,
            ),
            inputs=("held_out", "train", _ITEMS),
        ),
    )
)

_AREA = Param(
    "area",
    "all",
    "object sizes: all, small (< 32^2), medium or large (> 96^2 pixels)",
    choices=("all", "small", "medium", "large"),
)

DETECTION: tuple[MetricDef, ...] = (
    MetricDef(
        "iou",
        "intersection over union of boxes",
        "ranklens.detection.boxes:iou",
        aliases=("box_iou", "jaccard_boxes"),
        cutoff="none",
        domain="detection",
    ),
    MetricDef(
        "det_map",
        "detection mAP over classes at one IoU threshold",
        "ranklens.detection.ap:mean_average_precision",
        aliases=("voc_map", "detection_map"),
        params=(
            Param("method", "voc2010", "voc2007 | voc2010 | coco", choices=INTERPOLATIONS),
            Param(
                "iou_threshold",
                0.5,
                "match threshold",
                kind="number",
                minimum=0.0,
                maximum=1.0,
                open_minimum=True,
            ),
        ),
        cutoff="none",
        domain="detection",
    ),
    MetricDef(
        "coco_ap",
        "COCO average precision over categories (101-point interpolation)",
        "ranklens.detection.coco:coco_ap",
        aliases=("coco_map",),
        params=(
            Param(
                "iou",
                "mean",
                "IoU threshold: 0.5, 0.75, or mean (the mean over 0.50, 0.55, ..., 0.95)",
                kind="number",
                values=(0.5, 0.75),
                choices=("mean",),
            ),
            _AREA,
        ),
        cutoff="none",
        domain="detection",
    ),
    MetricDef(
        "coco_ar",
        "COCO average recall over categories and IoU thresholds 0.50, ..., 0.95",
        "ranklens.detection.coco:coco_ar",
        params=(
            Param(
                "max_dets",
                100,
                "detections kept per image: 1, 10 or 100",
                kind="int",
                values=(1, 10, 100),
            ),
            _AREA,
        ),
        cutoff="none",
        domain="detection",
    ),
)

_AGG = ("sum", "count", "any")
_AB = "ranklens.online.metrics:OnlineMetric."


def _event(name: str, doc: str) -> Param:
    return Param(name, None, doc, kind="text")


# A/B-test metrics: their kernel builds the OnlineMetric that ranklens.online.analyze
# computes per unit and tests (the same metric `ranklens ab -m proportion(purchase)` reads)
ONLINE: tuple[MetricDef, ...] = tuple(
    replace(d, domain="online", cutoff="none", higher_is_better=None)
    for d in (
        MetricDef(
            "proportion",
            "share of units with at least one event (conversion rate)",
            _AB + "proportion",
            aliases=("conversion",),
            params=(_event("event", "the event type, e.g. purchase"),),
        ),
        MetricDef(
            "mean",
            "mean over units of a per-unit aggregate of one event type (revenue per user)",
            _AB + "mean",
            aliases=("per_unit_mean",),
            params=(
                _event("event", "the event type, e.g. purchase"),
                Param("agg", "sum", "per-unit sum of values, count, or any (0/1)", choices=_AGG),
            ),
            range=None,
        ),
        MetricDef(
            "ratio",
            "sum over units of one aggregate over the sum of another (click-through rate)",
            _AB + "ratio",
            aliases=("ratio_metric",),
            params=(
                _event("numerator", "the numerator's event type, e.g. click"),
                _event("denominator", "the denominator's event type, e.g. impression"),
                Param("numerator_agg", "sum", "sum, count or any per unit", choices=_AGG),
                Param("denominator_agg", "sum", "sum, count or any per unit", choices=_AGG),
            ),
            range=None,
        ),
    )
)

# --------------------------------------------------------------------------- run-to-run
# (issue 23 part 4: two rankings of the same queries compared; ranklens.ranking.overlap)

_OV = "ranklens.ranking.overlap:"
OVERLAP: tuple[MetricDef, ...] = (
    MetricDef(
        "rbo",
        "rank-biased overlap of two runs' rankings (Webber et al. 2010)",
        _OV + "rbo_kernel",
        aliases=("rank_biased_overlap",),
        params=(
            Param(
                "p",
                0.9,
                "persistence",
                kind="number",
                minimum=0.0,
                maximum=1.0,
                open_minimum=True,
                open_maximum=True,
            ),
            Param(
                "variant",
                "ext",
                "ext (extrapolated), trunc (the seen prefix), min = lower and "
                "upper (bounds), res (residual)",
                choices=("ext", "trunc", "min", "lower", "upper", "res"),
            ),
        ),
        domain="overlap",
        higher_is_better=None,
    ),
    MetricDef(
        "run_jaccard",
        "Jaccard index of two runs' (top-k) document sets",
        _OV + "jaccard_kernel",
        aliases=("jaccard_runs",),
        domain="overlap",
        higher_is_better=None,
    ),
    MetricDef(
        "run_kendall_tau",
        "Kendall's tau between two runs' scores of the same documents",
        _OV + "kendall_tau_kernel",
        aliases=("kendall_tau_runs",),
        params=(
            Param("variant", "b", "tau-b or tau-c (scipy's variant)", choices=("b", "c")),
            Param(
                "items",
                "common",
                "common: the documents both runs rank; union: every document either "
                "ranks (a missing one below the run's lowest score)",
                choices=("common", "union"),
            ),
        ),
        domain="overlap",
        range=(-1.0, 1.0),
        higher_is_better=None,
    ),
)

CATALOGUE: tuple[MetricDef, ...] = (
    RANKING
    + RECSYS
    + CLASSIFICATION
    + REGRESSION
    + CLUSTERING
    + ENTITY_RESOLUTION
    + DETECTION
    + ONLINE
    + OVERLAP
)
