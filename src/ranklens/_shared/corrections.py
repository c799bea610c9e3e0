"""Multiple-comparison corrections: one list, one spelling each.

:func:`ranklens.compare`, the online A/B analysis
(:func:`ranklens.online.analyze`) and the command line (``--correction`` of
``ranklens compare`` and ``ranklens ab analyze``) take the same names.  The
adjusted p-values are statsmodels' ``multipletests`` (the method named in
:data:`STATSMODELS`); ``none`` leaves the p-values as they are.

========================  ===================================================
``holm``                  Holm (1979) step-down, family-wise error rate
``bonferroni``            Bonferroni, family-wise error rate
``bh``                    Benjamini & Hochberg (1995), false discovery rate
``sidak``                 Sidak single step
``holm-sidak``            Holm step-down with Sidak adjustments
``simes-hochberg``        Hochberg (1988) step-up
``hommel``                Hommel (1988) closed Simes test
``by``                    Benjamini & Yekutieli (2001), FDR under dependence
``tsbh``                  two-stage Benjamini-Hochberg FDR
``tsbky``                 two-stage Benjamini-Krieger-Yekutieli FDR
``none``                  no correction
========================  ===================================================

statsmodels' own spellings of the FDR methods (``fdr_bh``, ``fdr_by``,
``fdr_tsbh``, ``fdr_tsbky``) still work for one release and warn
:class:`~ranklens.RanklensDeprecationWarning`:

>>> import warnings
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     canonical("analyze", "fdr_bh")
'bh'
>>> print(seen[0].message)
analyze: correction='fdr_bh' is deprecated and goes in the next release; pass correction='bh'
>>> STATSMODELS["bh"]
'fdr_bh'
"""

from __future__ import annotations

from typing import Any

from ranklens._shared.deprecation import renamed_choice

__all__ = [
    "CORRECTIONS",
    "DEPRECATED",
    "NAMES",
    "STATSMODELS",
    "adjust",
    "canonical",
    "correction_phrase",
]

#: Display names (for reports), keyed by the one spelling each correction has.
NAMES: dict[str, str] = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "sidak": "Sidak",
    "holm-sidak": "Holm-Sidak",
    "simes-hochberg": "Simes-Hochberg",
    "hommel": "Hommel",
    "by": "Benjamini-Yekutieli",
    "tsbh": "two-stage Benjamini-Hochberg",
    "tsbky": "two-stage Benjamini-Krieger-Yekutieli",
    "none": "no correction",
}
#: The corrections, by their one spelling.
CORRECTIONS: tuple[str, ...] = tuple(NAMES)
#: statsmodels ``multipletests`` method of each correction (``none`` has none).
STATSMODELS: dict[str, str] = {
    "holm": "holm",
    "bonferroni": "bonferroni",
    "bh": "fdr_bh",
    "sidak": "sidak",
    "holm-sidak": "holm-sidak",
    "simes-hochberg": "simes-hochberg",
    "hommel": "hommel",
    "by": "fdr_by",
    "tsbh": "fdr_tsbh",
    "tsbky": "fdr_tsbky",
}
#: Old spellings kept for one release -> the spelling to use.
DEPRECATED: dict[str, str] = {
    "fdr_bh": "bh",
    "fdr_by": "by",
    "fdr_tsbh": "tsbh",
    "fdr_tsbky": "tsbky",
}


def canonical(where: str, correction: Any) -> Any:
    """``correction`` in its one spelling: a deprecated spelling warns and is
    replaced; anything else is returned as given (the caller checks it against
    :data:`CORRECTIONS`)."""
    return renamed_choice(where, "correction", correction, DEPRECATED)


def adjust(p: Any, correction: str, alpha: float, extra: str, where: str) -> Any:
    """The p-values ``p`` (a float array, checked by the caller) adjusted together by
    ``correction`` (one of :data:`CORRECTIONS`): NaN p-values (tests not made) are left
    out of the family and stay NaN, as R's ``p.adjust`` does.  statsmodels comes from
    the ``extra`` (named, with ``where``, when it is missing).  p-values of 0 or 1 are
    fine (Sidak's ``log1p(-p)`` is infinite there; no warning leaks)."""
    import numpy as np

    from ranklens._shared.deps import needs

    out = np.array(p, dtype=np.float64)
    ok = np.isfinite(out)
    if correction == "none" or not ok.any():
        return out
    with needs(extra, where):
        from statsmodels.stats.multitest import multipletests  # type: ignore[import-untyped, unused-ignore]
    with np.errstate(divide="ignore", invalid="ignore"):
        out[ok] = multipletests(out[ok], alpha=alpha, method=STATSMODELS[correction])[1]
    return out


def correction_phrase(correction: str, n_tests: int) -> str:
    """How the tests were corrected, in words: ``Holm correction over 3 tests``; ``one
    test, so no correction``; ``no correction over 3 tests``.

    >>> correction_phrase("holm", 3), correction_phrase("holm", 1), correction_phrase("none", 2)
    ('Holm correction over 3 tests', 'one test, so no correction', 'no correction over 2 tests')
    """
    if n_tests == 0:
        return "no test"
    if n_tests == 1:
        return "one test, so no correction"
    name = NAMES[correction]
    return f"{name if correction == 'none' else name + ' correction'} over {n_tests} tests"
