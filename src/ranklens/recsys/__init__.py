"""Recommender evaluation: validation splits of interaction logs, cold/warm/hot
segments, beyond-accuracy metrics and multi-stage pipeline reports.

Each name here is imported on first use, and needs only NumPy and pyarrow;
pandas, polars and scikit-learn are imported when a function needs them.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:  # at run time each name is imported on first use (__getattr__)
    from ranklens.recsys.beyond import (
        UserValues,
        average_recommendation_popularity,
        catalog_coverage,
        gini_index,
        intra_list_diversity,
        long_tail_share,
        novelty,
        personalisation,
        serendipity,
        shannon_entropy,
        unexpectedness,
    )
    from ranklens.recsys.interactions import InteractionEvaluation, evaluate_interactions
    from ranklens.recsys.pipeline import PipelineReport, oracle_run, pipeline_report
    from ranklens.recsys.segments import (
        SEGMENTS,
        SegmentTable,
        evaluate_by_segment,
        evaluate_segments,
        label_segments,
    )
    from ranklens.recsys.splitters import (
        SPLITTERS,
        FoldReport,
        GlobalTimeSplit,
        GroupKFoldSplit,
        KFoldSplit,
        LeakageError,
        LeaveLastN,
        LeaveOneOut,
        LeavePOutSplit,
        NestedTwoStageSplit,
        RandomSplit,
        SklearnSplit,
        StratifiedKFoldSplit,
        TimeRangeCV,
        TwoStageSplit,
        UserRatioSplit,
        check_leakage,
        split_to_files,
    )

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.recsys.beyond": (
            "UserValues",
            "average_recommendation_popularity",
            "catalog_coverage",
            "gini_index",
            "intra_list_diversity",
            "long_tail_share",
            "novelty",
            "personalisation",
            "serendipity",
            "shannon_entropy",
            "unexpectedness",
        ),
        "ranklens.recsys.interactions": (
            "InteractionEvaluation",
            "evaluate_interactions",
        ),
        "ranklens.recsys.pipeline": (
            "PipelineReport",
            "oracle_run",
            "pipeline_report",
        ),
        "ranklens.recsys.segments": (
            "SEGMENTS",
            "SegmentTable",
            "evaluate_by_segment",
            "evaluate_segments",
            "label_segments",
        ),
        "ranklens.recsys.splitters": (
            "SPLITTERS",
            "FoldReport",
            "GlobalTimeSplit",
            "GroupKFoldSplit",
            "KFoldSplit",
            "LeakageError",
            "LeaveLastN",
            "LeaveOneOut",
            "LeavePOutSplit",
            "NestedTwoStageSplit",
            "RandomSplit",
            "SklearnSplit",
            "StratifiedKFoldSplit",
            "TimeRangeCV",
            "TwoStageSplit",
            "UserRatioSplit",
            "check_leakage",
            "split_to_files",
        ),
    },
)

__all__ = [
    "SEGMENTS",
    "SPLITTERS",
    "FoldReport",
    "GlobalTimeSplit",
    "GroupKFoldSplit",
    "InteractionEvaluation",
    "KFoldSplit",
    "LeakageError",
    "LeaveLastN",
    "LeaveOneOut",
    "LeavePOutSplit",
    "NestedTwoStageSplit",
    "PipelineReport",
    "RandomSplit",
    "SegmentTable",
    "SklearnSplit",
    "StratifiedKFoldSplit",
    "TimeRangeCV",
    "TwoStageSplit",
    "UserRatioSplit",
    "UserValues",
    "average_recommendation_popularity",
    "catalog_coverage",
    "check_leakage",
    "evaluate_by_segment",
    "evaluate_interactions",
    "evaluate_segments",
    "gini_index",
    "intra_list_diversity",
    "label_segments",
    "long_tail_share",
    "novelty",
    "oracle_run",
    "personalisation",
    "pipeline_report",
    "serendipity",
    "shannon_entropy",
    "split_to_files",
    "unexpectedness",
]
