"""Public names of a package imported on first use (PEP 562), so that importing the
package costs nothing until a name is used.

A package lists ``{module: names}`` and installs the two module hooks::

    __getattr__, __dir__ = lazy_exports(__name__, {"ranklens.ranking.data": ("Qrels", "Run")})

and imports the same names under ``if TYPE_CHECKING:`` for type checkers and readers.
``tests/test_layout.py`` checks that every lazy name resolves to the object its module
defines and that ``import ranklens`` loads neither numpy nor pyarrow.

This module imports nothing at import time but ``sys`` (it is loaded by ``import
ranklens``).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # type checkers take any name TYPE_CHECKING as true
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    exports: Mapping[str, Iterable[str]],
    submodules: Iterable[str] = (),
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, which gives each name of
    ``exports`` (``{module: names}``) from its module, imported when the name is first
    used (then kept in the package, so the next use is a plain attribute), and each of
    ``submodules`` as the module ``package.NAME`` (imported on first use too).

    >>> getattr_, dir_ = lazy_exports("ranklens", {"ranklens.errors": ["InputError"]})
    >>> getattr_("InputError").__name__
    'InputError'
    >>> getattr_("nothing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'ranklens' has no attribute 'nothing'
    """
    where = {name: module for module, names in exports.items() for name in names}
    subs = frozenset(submodules)

    def __getattr__(name: str) -> object:
        import importlib

        module = where.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
            setattr(sys.modules[package], name, value)
            return value
        if name in subs:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where) | subs)

    return __getattr__, __dir__
