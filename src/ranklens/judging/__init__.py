"""Building the ground truth: choosing what to label (pooling, sampling), the file to
label and reading the labels back; label sources, their agreement, and what it does to
results.

Names are imported on first use (:func:`ranklens._shared.lazy.lazy_exports`); the
submodules :mod:`ranklens.judging.agreement` (Cohen's and Fleiss' kappa,
Krippendorff's alpha, per query and overall), :mod:`ranklens.judging.stability` (the
ordering of systems under two sets of judgments) and :mod:`ranklens.judging.ppi`
(prediction-powered inference: many cheap labels plus a few human ones) too.
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ranklens.judging.er import PairSample, sample_clusters, sample_pairs
    from ranklens.judging.labels import Labels, read_labels, write_label_file
    from ranklens.judging.pooling import Pool, pool
    from ranklens.judging.sampling import Sample, sample_pool

__all__ = [
    "Labels",
    "PairSample",
    "Pool",
    "Sample",
    "pool",
    "read_labels",
    "sample_clusters",
    "sample_pairs",
    "sample_pool",
    "write_label_file",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.judging.er": ("PairSample", "sample_clusters", "sample_pairs"),
        "ranklens.judging.labels": ("Labels", "read_labels", "write_label_file"),
        "ranklens.judging.pooling": ("Pool", "pool"),
        "ranklens.judging.sampling": ("Sample", "sample_pool"),
    },
)
