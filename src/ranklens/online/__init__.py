"""Online evaluation: A/B assignment and experiment analysis.

- Assignment (:mod:`ranklens.online.assignment`): deterministic salted hashing of
  unit ids into weighted variants, layers of mutually exclusive experiments
  and a global holdout: :class:`Experiment`, :class:`Plan`, :func:`assign`,
  :func:`hash_units`, :func:`bucket_units`.
- Analysis (:mod:`ranklens.online.analysis`): :func:`analyze` turns an
  exposures table and an events table into per metric and variant estimates,
  differences with confidence intervals, p-values and verdicts, with a
  sample-ratio-mismatch check, CUPED, multiple-comparison correction and
  always-valid sequential monitoring.  :func:`analyze_units` (one row per
  unit) and :func:`analyze_stats` (per-variant sums, what a warehouse ``GROUP BY
  variant`` query gives; :func:`stats_columns` names them) give the same numbers
  from aggregates (:mod:`ranklens.online.aggregates`).
- Interleaving and multileaving (:mod:`ranklens.online.interleaving`): the lists
  to show from two or more rankers' runs (team-draft, balanced, probabilistic,
  optimized), credit for the clicks on them and the analysis of many impressions.
- Off-policy evaluation (:mod:`ranklens.online.ope`): the value of a new policy from
  the log of an old one: :func:`ope_arrays` (direct method, IPS, self-normalised and clipped
  IPS, doubly robust, self-normalised DR, switch-DR, DR with shrinkage) over arrays,
  :func:`ope_tables` over a log table and a policy table, :func:`slate_ope` for
  rankings (standard, independent-item and reward-interaction IPS), each estimate
  with its interval, effective sample size and support warnings
  (:class:`OffPolicyEvaluation`).
- Statistics: vectorised tests (:mod:`ranklens.online.stats`), the mSPRT
  (:mod:`ranklens.online.sequential`) and power / sample size
  (:mod:`ranklens.online.power_analysis`).

scipy and statsmodels (the ``online`` extra) are imported only when a
statistic is computed; each name here is imported on first use (a function of
the assignment needs numpy and pyarrow only).
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.online._hashing import HASH_ALGORITHMS, HashAlgorithm, hash_units
    from ranklens.online.aggregates import analyze_stats, analyze_units, stats_columns
    from ranklens.online.analysis import (
        CORRECTIONS,
        DataReport,
        ExperimentAnalysis,
        GroupEstimate,
        MetricComparison,
        SequentialTrace,
        analyze,
    )
    from ranklens.online.assignment import (
        HOLDOUT,
        NOT_ENROLLED,
        Assignment,
        Assignments,
        Experiment,
        Plan,
        assign,
        bucket_units,
    )
    from ranklens.online.metrics import EventAggregate, OnlineMetric, parse_metric
    from ranklens.online.ope import (
        OffPolicyEvaluation,
        PolicyEstimate,
        ope_arrays,
        ope_tables,
        policy_from_scores,
        slate_ope,
        slate_ope_tables,
    )
    from ranklens.online.power_analysis import (
        MDEResult,
        SampleSizeResult,
        minimum_detectable_effect,
        power,
        ratio_unit_std,
        sample_size,
    )
    from ranklens.online.sequential import SequentialTest, mixture_tau, msprt
    from ranklens.online.stats import (
        Comparison,
        SRMResult,
        cuped_theta,
        delta_method_ratio,
        normal_comparison,
        relative_difference,
        sample_ratio_mismatch,
        sign_test,
        two_proportion_ztest,
        welch_ttest,
    )

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.online._hashing": ("HASH_ALGORITHMS", "HashAlgorithm", "hash_units"),
        "ranklens.online.aggregates": ("analyze_stats", "analyze_units", "stats_columns"),
        "ranklens.online.analysis": (
            "CORRECTIONS",
            "DataReport",
            "ExperimentAnalysis",
            "GroupEstimate",
            "MetricComparison",
            "SequentialTrace",
            "analyze",
        ),
        "ranklens.online.assignment": (
            "HOLDOUT",
            "NOT_ENROLLED",
            "Assignment",
            "Assignments",
            "Experiment",
            "Plan",
            "assign",
            "bucket_units",
        ),
        "ranklens.online.metrics": ("EventAggregate", "OnlineMetric", "parse_metric"),
        "ranklens.online.ope": (
            "OffPolicyEvaluation",
            "PolicyEstimate",
            "ope_arrays",
            "ope_tables",
            "policy_from_scores",
            "slate_ope",
            "slate_ope_tables",
        ),
        "ranklens.online.power_analysis": (
            "MDEResult",
            "SampleSizeResult",
            "minimum_detectable_effect",
            "power",
            "ratio_unit_std",
            "sample_size",
        ),
        "ranklens.online.sequential": ("SequentialTest", "mixture_tau", "msprt"),
        "ranklens.online.stats": (
            "Comparison",
            "SRMResult",
            "cuped_theta",
            "delta_method_ratio",
            "normal_comparison",
            "relative_difference",
            "sample_ratio_mismatch",
            "sign_test",
            "two_proportion_ztest",
            "welch_ttest",
        ),
    },
)

__all__ = [
    "CORRECTIONS",
    "HASH_ALGORITHMS",
    "HOLDOUT",
    "NOT_ENROLLED",
    "Assignment",
    "Assignments",
    "Comparison",
    "DataReport",
    "EventAggregate",
    "Experiment",
    "ExperimentAnalysis",
    "GroupEstimate",
    "HashAlgorithm",
    "MDEResult",
    "MetricComparison",
    "OffPolicyEvaluation",
    "OnlineMetric",
    "Plan",
    "PolicyEstimate",
    "SRMResult",
    "SampleSizeResult",
    "SequentialTest",
    "SequentialTrace",
    "analyze",
    "analyze_stats",
    "analyze_units",
    "assign",
    "bucket_units",
    "cuped_theta",
    "delta_method_ratio",
    "hash_units",
    "minimum_detectable_effect",
    "mixture_tau",
    "msprt",
    "normal_comparison",
    "ope_arrays",
    "ope_tables",
    "parse_metric",
    "policy_from_scores",
    "power",
    "ratio_unit_std",
    "relative_difference",
    "sample_ratio_mismatch",
    "sample_size",
    "sign_test",
    "slate_ope",
    "slate_ope_tables",
    "stats_columns",
    "two_proportion_ztest",
    "welch_ttest",
]
