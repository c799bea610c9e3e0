"""Optional dependencies: which extra installs each one, and one error when it is missing.

The base install (numpy, pyarrow, click, rich) runs the ranking core.  The other
parts import their libraries on first use, inside :func:`needs`::

    with needs("ml", "ranklens.classification.roc_auc()"):
        from sklearn.metrics import roc_auc_score

so that a missing library raises :class:`~ranklens.errors.MissingDependencyError`
with one line naming what the user ran and the line that installs the extra, never
a bare ``ModuleNotFoundError``::

    ranklens.compare() needs scipy, which is not installed: pip install 'ranklens[stats]'
    ranklens gate needs scipy, which is not installed: pip install 'ranklens[stats]'

What the user ran is, in this order:

1. the name given to :func:`user_call` around the work (a command that wants to name
   its option too: ``with user_call("ranklens gate --non-inferiority"): ...``);
2. on the command line, the command (``ranklens gate``, from click's context);
3. in Python, the public function the user called: the outermost ranklens function
   on the stack, named where the package exports it (``ranklens.compare()``, not the
   ``ranklens.comparison.stats.paired_ttest`` it calls);
4. else ``what``, as given to :func:`needs`.

The name is looked up only when the library is missing (nothing is spent otherwise).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import FrameType

from ranklens.errors import MissingDependencyError

__all__ = ["EXTRAS", "PACKAGES", "needs", "user_call"]

# the distribution each optional import comes from (the extras that install them are
# in pyproject.toml; tests/test_optional_dependencies.py checks that they match)
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
#: The extras, one per purpose (``all`` installs every one; ``online`` is an alias of
#: ``stats`` kept for 0.1.0's users and never named here).
EXTRAS = ("large", "ml", "pandas", "plot", "polars", "spark", "stats")

_USER_CALL: ContextVar[str | None] = ContextVar("ranklens_user_call", default=None)


@contextmanager
def user_call(name: str) -> Iterator[None]:
    """Name what the user ran (``"ranklens gate --non-inferiority"``) in the message of
    every missing library inside the block; an enclosing ``user_call`` wins, so the
    outermost caller (the command line) names it once for all the work below it."""
    token = _USER_CALL.set(name) if _USER_CALL.get() is None else None
    try:
        yield
    finally:
        if token is not None:
            _USER_CALL.reset(token)


@contextmanager
def needs(extra: str, what: str, why: str = "") -> Iterator[None]:
    """Turn the import of a missing optional library inside the block into
    :class:`MissingDependencyError`: "``<what the user ran>`` needs ``package`` (``why``,
    when given), which is not installed: pip install 'ranklens[extra]'" (``what`` names the
    work when the user's call cannot be told: see the module docs; ``why`` says what the
    library is for when the call alone does not, e.g. only an ungrouped run needs DuckDB)."""
    if extra not in EXTRAS:  # pragma: no cover - a programming error
        raise AssertionError(extra)
    try:
        yield
    except ImportError as exc:
        top = (exc.name or "").partition(".")[0]
        if top not in PACKAGES:
            raise
        ran = _USER_CALL.get() or _ran(sys._getframe(1)) or what
        install = f"pip install 'ranklens[{extra}]'"
        because = f" ({why})" if why else ""
        error = MissingDependencyError(
            f"{ran} needs {PACKAGES[top]}{because}, which is not installed: {install}"
        )
        error.package, error.install = PACKAGES[top], install
        raise error from None


def _ran(frame: FrameType | None) -> str | None:
    """What the user ran, from the stack above ``frame``: the command of the command
    line, or the public ranklens function the user called (None when neither shows)."""
    outer = None
    while frame is not None:
        module = frame.f_globals.get("__name__") or ""
        if module == "ranklens" or module.startswith("ranklens."):
            outer = frame
        elif outer is not None and module != "contextlib":  # needs() is entered through it
            break
        frame = frame.f_back
    if outer is None:
        return None
    module = outer.f_globals["__name__"]
    if module == "ranklens.cli" or module.startswith("ranklens.cli."):
        click = sys.modules.get("click")
        ctx = None if click is None else click.get_current_context(silent=True)
        return None if ctx is None else str(ctx.command_path)
    parts = outer.f_code.co_qualname.split(".")
    if parts[-1] == "__init__":  # a public class built: name the class
        parts.pop()
    if any(p.startswith("_") or p.startswith("<") for p in parts):
        return None  # a private helper or a nested function: not something the user called
    names = module.split(".")
    for i in range(1, len(names) + 1):  # the shortest public path that exports it
        if names[i - 1].startswith("_"):
            break
        package = sys.modules.get(".".join(names[:i]))
        if package is None or parts[0] not in getattr(package, "__all__", ()):
            continue
        try:  # a lazily exported name is imported already: its function is running
            obj = getattr(package, parts[0])
        except Exception:  # pragma: no cover - an export that does not import
            continue
        if getattr(obj, "__module__", None) == module:
            return f"{package.__name__}.{'.'.join(parts)}()"
    return None
