r"""Prediction-powered inference: a few human labels plus many cheap ones.

A per-query metric is known under human judgments (``y``) for ``n`` queries,
and under cheap judgments (an LLM judge: ``yhat``) for those ``n`` and for
``N`` more (``yhat_unlabelled``).  The prediction-powered estimate of the mean
(Angelopoulos, Bates, Fannjiang, Jordan and Zrnic 2023, "Prediction-powered
inference", Science 382; power tuning: Angelopoulos, Duchi and Zrnic 2023,
"PPI++: Efficient prediction-powered inference", arXiv:2311.01453; for
evaluation: Boyeau, Angelopoulos, Yosef, Malik and Jordan 2024, "AutoEval done
right")::

    theta = lam * mean(yhat_unlabelled) + mean(y - lam * yhat)
    se^2  = lam^2 var(yhat_unlabelled) / N + var(y - lam * yhat) / n     (var with 1/n)

and the interval is ``theta +- z se``.  ``lam = 1`` is classical PPI, ``lam = 0``
the human labels alone (the classical interval), and the power-tuned
``lam_hat`` (PPI++) minimises the variance::

    lam_hat = cov(y, yhat) / ((1 + n / N) var(yhat over all n + N queries)),  clipped to [0, 1]

(``cov`` with ``1/n``, ``var`` with ``1/(n + N - 1)``: the ``ppi_py`` package's
``_calc_lam_glm``).  The effective number of human labels is
``n * se_classical^2 / se^2``: how many human labels alone would give the same
interval width.  The difference between two systems is the same estimate on
per-query differences (``y = y_b - y_a``, ``yhat = yhat_b - yhat_a``): paired,
since both systems are scored on the same queries.

The interval is valid (covers at its nominal level for large ``n``) whatever the
quality of the cheap labels, when the ``n`` human-labelled queries are a
uniform random sample of all ``n + N``; a bad judge only widens it.

>>> res = ppi_mean([1.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 1.0], lam=1.0)
>>> res.estimate  # 3/4 + mean(y - yhat) = 0.75 + 0.25
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ranklens._shared.validate import check_alpha, check_number, floats
from ranklens.errors import InputError

__all__ = ["PPIResult", "power_tuning", "ppi_difference", "ppi_mean"]


@dataclass(frozen=True)
class PPIResult:
    """A prediction-powered estimate of a mean (module docs).

    ``estimate`` and ``low``/``high`` (the interval at ``level``), ``se``;
    ``lam`` the weight of the cheap labels used; ``classical``,
    ``classical_low``/``classical_high`` and ``classical_se`` from the ``n`` human
    labels alone; ``effective_n`` the number of human labels alone that would give
    the same standard error; ``n`` and ``N`` the labelled and unlabelled queries.
    """

    estimate: float
    low: float
    high: float
    se: float
    lam: float
    classical: float
    classical_low: float
    classical_high: float
    classical_se: float
    effective_n: float
    n: int
    N: int
    level: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        from dataclasses import asdict

        return asdict(self)


def _vector(x: Any, name: str, where: str) -> np.ndarray:
    a = floats(x, name, where, " (one metric value per query)")
    if a.ndim != 1:
        raise InputError(f"{where}: {name} must be 1-d (one value per query), got {a.shape}.")
    if not np.isfinite(a).all():
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise InputError(
            f"{where}: {name} holds a NaN or infinite value at index {bad}; every query "
            "needs a finite metric value (drop the query from every array)."
        )
    return a


def _inputs(y: Any, yhat: Any, yhat_unlabelled: Any, where: str) -> tuple[np.ndarray, ...]:
    yy = _vector(y, "y", where)
    yh = _vector(yhat, "yhat", where)
    yu = _vector(yhat_unlabelled, "yhat_unlabelled", where)
    if len(yy) != len(yh):
        raise InputError(
            f"{where}: y has {len(yy)} values and yhat {len(yh)}; both are the labelled "
            "queries (human and cheap labels of the same queries)."
        )
    if len(yy) < 2 or len(yu) < 1:
        raise InputError(
            f"{where}: need at least 2 labelled queries and 1 unlabelled one, got "
            f"n={len(yy)}, N={len(yu)}."
        )
    return yy, yh, yu


def power_tuning(y: Any, yhat: Any, yhat_unlabelled: Any) -> float:
    """``lam_hat`` of PPI++ (module docs), the weight of the cheap labels that minimises
    the variance of the estimate, clipped to [0, 1].

    >>> power_tuning([0.0, 1.0], [0.0, 1.0], [0.0, 1.0])  # cov 1/4 / ((1 + 1) * 1/3)
    0.375
    """
    yy, yh, yu = _inputs(y, yhat, yhat_unlabelled, "power_tuning")
    return _lam_hat(yy, yh, yu)


def _lam_hat(y: np.ndarray, yhat: np.ndarray, yu: np.ndarray) -> float:
    n, big_n = len(y), len(yu)
    cov = float(((y - y.mean()) * (yhat - yhat.mean())).mean())
    var = float(np.var(np.concatenate([yhat, yu]), ddof=1))
    if var <= 0:
        return 0.0  # constant cheap labels carry no information
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


def ppi_mean(
    y: Any,
    yhat: Any,
    yhat_unlabelled: Any,
    *,
    lam: float | None = None,
    level: float = 0.95,
) -> PPIResult:
    """Prediction-powered mean of a per-query metric with its interval (module docs).

    ``y``: the metric under human labels for the ``n`` labelled queries;
    ``yhat``: under cheap labels for the same queries; ``yhat_unlabelled``: under
    cheap labels for the ``N`` other queries.  ``lam=None`` tunes the weight of the
    cheap labels (PPI++); ``lam=1`` is classical PPI, ``lam=0`` the human labels
    alone.  Equal to ``ppi_py``'s ``ppi_mean_pointestimate`` and ``ppi_mean_ci``
    (``alpha = 1 - level``, with and without ``lam``).

    >>> res = ppi_mean([0.0, 1.0], [0.0, 1.0], [0.0, 1.0], lam=1.0)
    >>> res.estimate, round(res.se, 4)  # se^2 = 1/4 / 2 + 0 / 2
    (0.5, 0.3536)
    """
    where = "ppi_mean"
    yy, yh, yu = _inputs(y, yhat, yhat_unlabelled, where)
    check_alpha(level, name="level", where=where)
    if lam is None:
        lam_v = _lam_hat(yy, yh, yu)
    else:
        lam_v = check_number(
            "lam",
            lam,
            low=0,
            high=1,
            low_open=False,
            high_open=False,
            where=where,
            hint="e.g. lam=1",
        )
    return _estimate(yy, yh, yu, float(lam_v), level)


def _z(level: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + level / 2.0)


def _estimate(y: np.ndarray, yh: np.ndarray, yu: np.ndarray, lam: float, level: float) -> PPIResult:
    n, big_n = len(y), len(yu)
    rect = y - lam * yh
    est = float(lam * yu.mean() + rect.mean())
    var = lam**2 * float(np.var(yu)) / big_n + float(np.var(rect)) / n
    se = math.sqrt(var)
    cl = float(y.mean())
    cl_se = math.sqrt(float(np.var(y)) / n)
    z = _z(level)
    eff = n * cl_se**2 / var if var > 0 else math.inf
    return PPIResult(
        estimate=est,
        low=est - z * se,
        high=est + z * se,
        se=se,
        lam=lam,
        classical=cl,
        classical_low=cl - z * cl_se,
        classical_high=cl + z * cl_se,
        classical_se=cl_se,
        effective_n=float(eff),
        n=n,
        N=big_n,
        level=level,
    )


def ppi_difference(
    y_a: Any,
    y_b: Any,
    yhat_a: Any,
    yhat_b: Any,
    yhat_unlabelled_a: Any,
    yhat_unlabelled_b: Any,
    *,
    lam: float | None = None,
    level: float = 0.95,
) -> PPIResult:
    """Prediction-powered mean of ``b - a`` (system b minus system a) per query, paired:
    :func:`ppi_mean` of the per-query differences (module docs).  An interval that
    excludes 0 says the systems differ.

    >>> res = ppi_difference([0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0], [1.0], lam=1.0)
    >>> res.estimate  # 1 + mean([1, 0] - [1, 0])
    1.0
    """
    where = "ppi_difference"
    ya, yb = _vector(y_a, "y_a", where), _vector(y_b, "y_b", where)
    ha, hb = _vector(yhat_a, "yhat_a", where), _vector(yhat_b, "yhat_b", where)
    ua = _vector(yhat_unlabelled_a, "yhat_unlabelled_a", where)
    ub = _vector(yhat_unlabelled_b, "yhat_unlabelled_b", where)
    for (na, a), (nb, b) in (
        (("y_a", ya), ("y_b", yb)),
        (("yhat_a", ha), ("yhat_b", hb)),
        (("yhat_unlabelled_a", ua), ("yhat_unlabelled_b", ub)),
    ):
        if len(a) != len(b):
            raise InputError(
                f"{where}: {na} has {len(a)} values and {nb} {len(b)}; the two systems "
                "must be scored on the same queries, in the same order."
            )
    return ppi_mean(yb - ya, hb - ha, ub - ua, lam=lam, level=level)
