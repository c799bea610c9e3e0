"""trec_eval measure names, accepted verbatim.

Both the command-line form (``P.5``, ``ndcg_cut.10``, ``iprec_at_recall.0.10``,
``ndcg.1=3,2=9``, ``utility.2,-1,0,0``) and the output form (``P_5``,
``ndcg_cut_10``, ``iprec_at_recall_0.10``) translate to a registry metric
with the parameters that reproduce trec_eval, pinned so that profiles do
not change their meaning.  A trec_eval name that lists several cutoffs
(``P.5,10``) names several values; :func:`expand_trec_name` splits it.
"""

from __future__ import annotations

import re
from typing import Any

from ranklens.errors import MetricNameError
from ranklens.metrics.catalogue import CATALOGUE

__all__ = ["TREC_NAMES", "expand_trec_name", "translate_trec_name", "trec_base", "trec_output_name"]

# trec_eval base name -> (registry family, pinned params, kind of parameter), read from
# the catalogue's TrecName declarations
_TREC: dict[str, tuple[str, dict[str, Any], str | None]] = {
    t.base: (d.name, dict(t.pinned), t.kind) for d in CATALOGUE for t in d.trec
}

TREC_NAMES: tuple[str, ...] = tuple(_TREC)
# every family name and alias of the grammar (lower case)
_GRAMMAR_NAMES = frozenset(n.lower() for d in CATALOGUE for n in (d.name, *d.aliases))
_BY_LOWER = {name.lower(): name for name in _TREC}
# longest names first so that "ndcg_cut" wins over "ndcg"
_PATTERN = re.compile(
    r"^(?P<base>"
    + "|".join(sorted(map(re.escape, _TREC), key=len, reverse=True))
    + r")(?:[._](?P<param>.+))?$",
    re.IGNORECASE,
)


def _num(text: str, name: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise MetricNameError(f"trec_eval measure {name!r}: {text!r} is not a number.") from None


def _cutoff(text: str, name: str) -> int:
    """A trec_eval cutoff: an integer read exactly (any size), or a number truncated as
    trec_eval truncates it (``ndcg_cut.23.4`` -> 23)."""
    try:
        return int(text)
    except ValueError:
        pass
    v = _num(text, name)
    if v != v or v in (float("inf"), float("-inf")):
        raise MetricNameError(
            f"trec_eval measure {name!r}: the cutoff must be a positive integer, got {text!r}."
        )
    return int(v)


def _split_values(param: str) -> list[str]:
    return [p for p in param.split(",") if p != ""]


def expand_trec_name(name: str) -> list[str]:
    """Split a trec_eval name with several cutoffs/levels into one name each
    (``P.5,10`` -> ``P.5``, ``P.10``); other names come back unchanged (grammar names
    too: ``p_ia@5`` is not trec_eval's ``P`` with a parameter)."""
    if any(c in name for c in "@()"):
        return [name]  # grammar syntax; no trec_eval name contains these
    m = _PATTERN.match(name.strip())
    if not m or m.group("param") is None:
        return [name]
    base = _BY_LOWER[m.group("base").lower()]
    kind = _TREC[base][2]
    if kind in ("cutoff", "level"):
        sep = name[m.end("base")]
        return [f"{base}{sep}{v}" for v in _split_values(m.group("param"))]
    return [name]


def translate_trec_name(
    name: str,
) -> tuple[str, tuple[tuple[str, Any], ...], int | float | None] | None:
    """``(family, params, cutoff)`` for a trec_eval name, or None if ``name`` is
    not one (it is then parsed by the ranklens grammar)."""
    text = name.strip()
    if any(c in text for c in "@()"):
        return None  # grammar syntax; no trec_eval name contains these
    m = _PATTERN.match(text)
    if not m:
        return None
    base = _BY_LOWER[m.group("base").lower()]
    param = m.group("param")
    family, pinned, kind = _TREC[base]
    # plain grammar names that happen to equal a trec base keep the grammar's meaning
    if param is None and text.lower() in _GRAMMAR_NAMES:
        # a plain name the grammar knows too ("map", "ndcg", "P", "bpref") keeps the
        # grammar's meaning, so that profiles and conventions apply to it
        return None
    params: dict[str, Any] = dict(pinned)
    cutoff: int | float | None = None
    if param is not None:
        if kind is None:
            # e.g. "map_5" is not a trec name; let the grammar report it
            return None
        values = _split_values(param)
        if kind == "setf" and len(values) > 1:
            values = values[:1]  # trec_eval reads the first weight of set_F.1,2
        if kind in ("cutoff", "level", "setf") and len(values) != 1:
            raise MetricNameError(
                f"trec_eval measure {name!r} names {len(values)} values; give one per "
                f"metric, e.g. {', '.join(expand_trec_name(text))}."
            )
        if kind == "cutoff":
            cutoff = _cutoff(values[0], name)
            if cutoff <= 0:
                raise MetricNameError(
                    f"trec_eval measure {name!r}: the cutoff must be a positive integer."
                )
        elif kind == "level":
            cutoff = _num(values[0], name)
        elif kind == "setf":
            # trec_eval's set_F parameter x weighs (x+1) P R / (x P + R): x is beta^2
            x = _num(values[0], name)
            if x < 0:
                raise MetricNameError(f"trec_eval measure {name!r}: the weight must be >= 0.")
            params["beta"] = x**0.5
        elif kind == "levels":
            params["levels"] = tuple(_num(v, name) for v in values)
        elif kind == "utility":
            if len(values) != 4:
                raise MetricNameError(
                    f"trec_eval measure {name!r}: utility takes four numbers "
                    "(rel_ret, nonrel_ret, rel_nonret, nonrel_nonret), e.g. utility.1,-1,0,0."
                )
            for letter, text_value in zip(("a", "b", "c", "d"), values, strict=True):
                params[letter] = _num(text_value, name)
        elif kind == "pairs":
            gm: dict[float, float] = {}
            for item in values:
                if "=" not in item:
                    raise MetricNameError(
                        f"trec_eval measure {name!r}: parameters are written key=value, "
                        "e.g. ndcg.1=3,2=9 or rbp.p=0.8."
                    )
                key, val = item.split("=", 1)
                if key.strip().lower() == "p" and family in ("rbp", "rbp_resid"):
                    params["p"] = _num(val, name)
                elif re.fullmatch(r"[-+]?\d+", key.strip()):
                    gm[float(key)] = _num(val, name)
                else:
                    raise MetricNameError(
                        f"trec_eval measure {name!r}: unknown parameter {key!r}; give "
                        "grade=gain pairs"
                        + (" or p=<persistence>." if family.startswith("rbp") else ".")
                    )
            if gm:
                if family == "rbp_resid":
                    raise MetricNameError(
                        f"trec_eval measure {name!r}: rbp_resid takes only p=<persistence>."
                    )
                params["gain"] = gm
    return family, tuple(params.items()), cutoff


def trec_base(metric: str) -> str | None:
    """trec_eval's base measure a trec_eval spelling names (``P.5`` -> ``P``), else None."""
    text = metric.strip()
    if any(c in text for c in "@()"):
        return None
    m = _PATTERN.match(text)
    return None if m is None else _BY_LOWER[m.group("base").lower()]


def trec_output_name(metric: str) -> str:
    """The name trec_eval prints for the measure a metric string names.

    Long cutoffs print as ``%ld`` (``P.5`` -> ``P_5``, ``ndcg_cut.23.4`` ->
    ``ndcg_cut_23``), double cutoffs as ``%3.2f`` (``iprec_at_recall.0.1`` ->
    ``iprec_at_recall_0.10``), other parameters exactly as typed
    (``utility.2,-1,0,0`` -> ``utility_2,-1,0,0``, ``rbp.p=0.8`` -> ``rbp_p=0.8``).
    Printed names (``P_5``), plain names (``map``), grammar names (``ndcg@10``)
    and names of several values (``P.5,10``) come back unchanged.

    >>> trec_output_name("ndcg_cut.10"), trec_output_name("iprec_at_recall.0.1")
    ('ndcg_cut_10', 'iprec_at_recall_0.10')
    """
    text = metric.strip()
    if any(c in text for c in "@()"):
        return metric
    m = _PATTERN.match(text)
    if m is None or m.group("param") is None:
        return metric
    base = _BY_LOWER[m.group("base").lower()]
    kind = _TREC[base][2]
    param = m.group("param")
    if kind is None:
        return metric
    if kind in ("cutoff", "level"):
        try:
            value = float(param)
        except ValueError:
            return metric  # several cutoffs, or not a number
        if value != value or value in (float("inf"), float("-inf")):
            return metric
        if kind == "cutoff":
            return f"{base}_{_cutoff(param, metric)}"
        return f"{base}_{value:3.2f}"
    return f"{base}_{param}"
