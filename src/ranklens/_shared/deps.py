"""Optional dependencies: which extra installs each one, and one error when it is missing.

The base install (numpy, pyarrow, click, rich) runs the ranking core.  The other
parts import their libraries on first use, inside :func:`needs`::

    with needs("ml", "roc_auc"):
        from sklearn.metrics import roc_auc_score

so that a missing library raises :class:`~ranklens.errors.MissingDependencyError`
with one line naming what to install, never a bare ``ModuleNotFoundError``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ranklens.errors import MissingDependencyError

__all__ = ["EXTRAS", "needs"]

# the distribution each optional import comes from, and the extra that installs it
PACKAGES = {
    "sklearn": "scikit-learn",
    "scipy": "scipy",
    "statsmodels": "statsmodels",
    "pandas": "pandas",
    "polars": "polars",
    "matplotlib": "matplotlib",
    "pyspark": "pyspark",
    "duckdb": "duckdb",
}
EXTRAS = ("large", "ml", "online", "pandas", "plot", "polars", "spark", "stats")


@contextmanager
def needs(extra: str, what: str) -> Iterator[None]:
    """Turn the import of a missing optional library inside the block into
    :class:`MissingDependencyError`: "``what`` needs ``package``, which is not
    installed: pip install 'ranklens[extra]'"."""
    if extra not in EXTRAS:  # pragma: no cover - a programming error
        raise AssertionError(extra)
    try:
        yield
    except ImportError as exc:
        top = (exc.name or "").partition(".")[0]
        if top not in PACKAGES:
            raise
        raise MissingDependencyError(
            f"{what} needs {PACKAGES[top]}, which is not installed: pip install 'ranklens[{extra}]'"
        ) from None
