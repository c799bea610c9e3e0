"""Multiple-comparison corrections: one list, one spelling each.

:func:`ranklens.compare`, the online A/B analysis
(:func:`ranklens.online.analyze`) and the command line (``--correction`` of
``ranklens compare`` and ``ranklens ab analyze``) take the same names.  The
adjusted p-values are those of statsmodels' ``multipletests`` (the method named in
:data:`STATSMODELS`), computed here with numpy (:func:`adjust`); ``none`` leaves
the p-values as they are.

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
#: statsmodels ``multipletests`` method of each correction (``none`` has none): the
#: reference the tests check :func:`adjust` against.
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
    out of the family and stay NaN, as R's ``p.adjust`` does.  The numbers are those of
    statsmodels' ``multipletests`` (the method named in :data:`STATSMODELS`; the tests
    check them against it), computed here with numpy so that no statistics package is
    imported (``extra`` and ``where`` are kept for the callers' signature).  p-values of
    0 or 1 are fine (Sidak's ``log1p(-p)`` is infinite there; no warning leaks).

    >>> adjust([0.01, 0.04, 0.03], "holm", 0.05, "", "")
    array([0.03, 0.06, 0.06])
    >>> adjust([0.01, 0.04, 0.03, float("nan")], "bh", 0.05, "", "").round(12)
    array([0.03, 0.04, 0.04,  nan])
    """
    import numpy as np

    out = np.array(p, dtype=np.float64)
    ok = np.isfinite(out)
    if correction == "none" or not ok.any():
        return out
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out[ok] = _adjusted(out[ok], correction, alpha)
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


def _adjusted(p: Any, correction: str, alpha: float) -> Any:
    """``p`` (finite, at least one) adjusted by ``correction``: the formulas, and the
    order of the floating-point operations, of statsmodels' ``multipletests`` (default
    ``maxiter=1`` for the two-stage FDR methods), so the numbers are the same bits."""
    import numpy as np

    order = np.argsort(p)  # statsmodels' sort (ties give the same numbers in any order)
    ps = p[order]
    n = ps.size
    down = np.arange(n, 0, -1)  # n, n-1, ..., 1
    if correction == "bonferroni":
        adj = ps * float(n)
    elif correction == "sidak":
        adj = -np.expm1(n * np.log1p(-ps))
    elif correction == "holm":
        adj = np.maximum.accumulate(ps * down)
    elif correction == "holm-sidak":
        adj = np.maximum.accumulate(-np.expm1(down * np.log1p(-ps)))
    elif correction == "simes-hochberg":
        adj = np.minimum.accumulate((down * ps)[::-1])[::-1]
    elif correction == "hommel":
        adj = ps.copy()
        for m in range(n, 1, -1):  # over the tests (a family is small), as statsmodels
            cim = np.min(m * ps[-m:] / np.arange(1, m + 1.0))
            adj[-m:] = np.maximum(adj[-m:], cim)
            adj[:-m] = np.maximum(adj[:-m], np.minimum(m * ps[:-m], cim))
    elif correction in ("bh", "by"):
        adj = _step_up(ps, 1.0 if correction == "bh" else float(np.sum(1.0 / np.arange(1, n + 1))))
    else:  # two-stage FDR (Benjamini, Krieger & Yekutieli 2006): tsbh, tsbky
        fact = 1.0 + alpha if correction == "tsbky" else 1.0
        ecdf = np.arange(1, n + 1) / float(n)
        below = np.flatnonzero(ps <= ecdf * (alpha / fact))  # the first stage's rejections
        rejected = 0 if below.size == 0 else int(below[-1]) + 1
        adj = _step_up(ps, 1.0)
        if rejected in (0, n):
            adj *= fact
        else:
            adj *= (1.0 * n - rejected) * 1.0 / n
            if correction == "tsbky":
                adj *= 1.0 + alpha
    adj[adj > 1] = 1
    out = np.empty_like(adj)
    out[order] = adj
    return out


def _step_up(ps: Any, cm: float) -> Any:
    """Benjamini-Hochberg adjusted p-values of the sorted ``ps`` (Benjamini-Yekutieli with
    ``cm`` = the harmonic number of the family's size), capped at 1."""
    import numpy as np

    n = ps.size
    ecdf = np.arange(1, n + 1) / float(n)
    adj = np.minimum.accumulate((ps / (ecdf if cm == 1.0 else ecdf / cm))[::-1])[::-1]
    adj[adj > 1] = 1
    return adj
