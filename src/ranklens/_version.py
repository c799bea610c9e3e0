"""The version of ranklens, in one place: ``ranklens.__version__``, ``ranklens --version``
and the package's metadata (``pyproject.toml`` reads it with setuptools' ``attr:``
without importing ranklens) all come from here."""

__version__ = "0.1.0"
