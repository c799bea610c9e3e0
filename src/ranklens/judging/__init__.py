"""Building the ground truth: choosing what to label (pooling, sampling), the file to
label and reading the labels back.

Names are imported on first use (:func:`ranklens._shared.lazy.lazy_exports`).
"""

from ranklens._shared.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ranklens.judging.pooling import Pool, pool

__all__ = ["Pool", "pool"]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "ranklens.judging.pooling": ("Pool", "pool"),
    },
)
