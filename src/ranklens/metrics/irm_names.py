"""ir_measures' measure names, read by the one grammar.

ir_measures (MacAvaney et al., ECIR 2022) writes measures in the grammar's own
shape, ``Family(param=value,...)@cutoff`` (``nDCG@10``, ``P(rel=2)@5``,
``Compat(p=0.8)``, ``IPrec@0.1``).  Most of its family names already name the same
ranklens metric (the grammar is case-insensitive: ``nDCG`` is ``ndcg``, ``AP`` is
``ap``, ``RR`` is ``rr``, ``Bpref`` is ``bpref``, ``infAP`` is ``infap``,
``Judged`` is ``judged``, ``Compat`` is ``compat``); the others and the parameters
ir_measures spells differently are translated here, after :func:`parse_name
<ranklens.metrics.grammar.parse_name>` and before the registry lookup.  The
translation is the same in every profile (no ir_measures name means something
else in ranklens); the ``ir_measures`` profile gives ir_measures' values.

========================  ==============================================
ir_measures               ranklens
========================  ==============================================
``NumRet``                ``num_ret``; ``NumRet(rel=r)``: ``num_rel_ret(rel=r)``
``NumRel``, ``NumRelRet``  ``num_rel``, ``num_rel_ret``
``NumQ``                  ``num_q``
``SetP``, ``SetR``        ``p``, ``r`` (no cutoff: the whole ranking)
``SetP(relative=True)``   ``relative_p``; ``SetRelP`` too
``SetF(beta=x)``          ``f1(beta=sqrt(x))`` (ir_measures passes its beta to
                          trec_eval's ``set_F.x``, whose ``x`` is beta squared)
``SetAP``                 ``set_map``
``nDCG(gains={..})``      ``ndcg(gain={..})``; ``dcg='log2'`` is the default,
                          ``dcg='exp-log2'`` is ``gain=exp2``
``alpha_nDCG``            ``alpha_ndcg``; ``ERR_IA``: ``err_ia`` (diversity)
========================  ==============================================

ir_measures' ``judged_only=True`` is a convention in ranklens (``judged_only=True``,
``--judged-only``), not a metric parameter: it is refused with that advice.
"""

from __future__ import annotations

from typing import Any

from ranklens.errors import MetricNameError, MetricParameterError

__all__ = ["IRM_NAMES", "translate_irm_name"]

# ir_measures family (lower case) -> ranklens family
IRM_NAMES: dict[str, str] = {
    "numret": "num_ret",
    "numrel": "num_rel",
    "numrelret": "num_rel_ret",
    "numq": "num_q",
    "setp": "p",
    "setrelp": "relative_p",
    "setr": "r",
    "setf": "f1",
    "setap": "set_map",
    "ndcg": "ndcg",
    "alpha_ndcg": "alpha_ndcg",
    "err_ia": "err_ia",
}
_SET_MEASURES = frozenset({"setp", "setrelp", "setr", "setf", "setap"})
# ir_measures measures ranklens does not compute (yet): the name, for the error
_NOT_HERE = {
    "nerr8": "NERR8",
    "nerr9": "NERR9",
    "nerr10": "NERR10",
    "nerr11": "NERR11",
    "sdcg": "SDCG",
    "inst": "INST",
    "insq": "INSQ",
    "bpm": "BPM",
}


def _true(value: Any) -> bool:
    return (isinstance(value, str) and value.lower() == "true") or value is True


def translate_irm_name(
    text: str, family: str, params: tuple[tuple[str, Any], ...], cutoff: int | float | None
) -> tuple[str, tuple[tuple[str, Any], ...], int | float | None]:
    """The ranklens ``(family, params, cutoff)`` of a parsed name in ir_measures'
    spelling; other names come back unchanged."""
    key = family.lower()
    if key in _NOT_HERE:
        raise MetricNameError(
            f"metric {text!r}: ir_measures' {_NOT_HERE[key]} is not computed by ranklens; "
            "run `ranklens metrics` for the measures it has."
        )
    out: dict[str, Any] = {}
    for name, value in params:
        low = name.lower()
        if low == "judged_only":
            if _true(value):
                raise MetricParameterError(
                    f"in metric {text!r}: ir_measures' per-metric flag judged_only is a "
                    "convention in ranklens, for every metric at once: remove it from the "
                    "metric and pass judged_only=True."
                )
            continue  # judged_only=False is every metric's default
        out[low] = value
    target = IRM_NAMES.get(key)
    if target is None:
        return family, tuple(out.items()), cutoff
    if key in _SET_MEASURES and cutoff is not None:
        raise MetricParameterError(
            f"in metric {text!r}: ir_measures' {family} is a set measure without a cutoff "
            f"(@k); remove the cutoff, or use {'P' if key == 'setp' else family[3:]}@k."
        )
    if key in ("setp", "setrelp") and "relative" in out and _true(out.pop("relative")):
        target = "relative_p"
    if key == "setf" and isinstance(out.get("beta"), (int, float)):
        # ir_measures hands its beta to trec_eval's set_F.x, whose x weighs
        # (x + 1) P R / (x P + R): x is beta^2
        out["beta"] = out["beta"] ** 0.5 if out["beta"] >= 0 else out["beta"]
    if key == "numret" and "rel" in out:
        target = "num_rel_ret"
    if key == "ndcg":
        if "gains" in out:
            out["gain"] = out.pop("gains")
        dcg = out.pop("dcg", "log2")
        if dcg == "exp-log2":
            out["gain"] = "exp2"
        elif dcg != "log2":
            raise MetricParameterError(
                f"in metric {text!r}: parameter 'dcg' must be 'log2' or 'exp-log2', got {dcg!r}."
            )
    return target, tuple(out.items()), cutoff
