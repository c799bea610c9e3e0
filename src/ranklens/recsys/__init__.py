"""Recommender evaluation: validation splits of interaction logs, cold/warm/hot
segments, beyond-accuracy metrics and multi-stage pipeline reports.

Importing this package imports only NumPy and pyarrow; pandas, polars and
scikit-learn are imported when a function needs them.
"""

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
