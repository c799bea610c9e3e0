"""Building the ground truth: choosing what to label (pooling, sampling), the file to
label and reading the labels back.

Names are imported on first use (:func:`ranklens._shared.lazy.lazy_exports`).
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ranklens.judging.pooling import Pool, pool
    from ranklens.judging.sampling import Sample, sample_pool

__all__ = ["Pool", "Sample", "pool", "sample_pool"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.judging.pooling": ("Pool", "pool"),
        "ranklens.judging.sampling": ("Sample", "sample_pool"),
    },
)
