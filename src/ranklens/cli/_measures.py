"""The metric list of a command: ``-m`` arguments expanded once (trec_eval's nicknames,
bare list measures and several cutoffs in one name; several blank-separated measures
in one argument, as ir_measures writes them)."""

from __future__ import annotations

from collections.abc import Sequence

import click

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "p@10", "recall@100")
# trec_eval's default ("official") measures, for --format trec without -m
TREC_OFFICIAL = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
# the -m all_trec list in trec_eval's output order (relstring, runid are not metrics)
ALL_TREC = (
    *TREC_OFFICIAL,
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    "unj",
)
# trec_eval's default cutoffs of measures that take a list
TREC_DEFAULT_CUTOFFS = {
    "P": "5,10,15,20,30,100,200,500,1000",
    "recall": "5,10,15,20,30,100,200,500,1000",
    "ndcg_cut": "5,10,15,20,30,100,200,500,1000",
    "map_cut": "5,10,15,20,30,100,200,500,1000",
    "relative_P": "5,10,15,20,30,100,200,500,1000",
    "success": "1,5,10",
    "unj": "5,10,20",
    "iprec_at_recall": "0.00,0.10,0.20,0.30,0.40,0.50,0.60,0.70,0.80,0.90,1.00",
    "Rprec_mult": "0.20,0.40,0.60,0.80,1.00,1.20,1.40,1.60,1.80,2.00",
}
# trec_eval's measure nicknames (-m official, -m set, -m all_trec)
TREC_SET = (
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
)
NICKNAMES = {"official": TREC_OFFICIAL, "set": TREC_SET, "all_trec": ALL_TREC}
FORMATS = ("table", "json", "csv", "markdown", "latex", "trec")
INPUT_FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl", "json")


def split_measures(text: str) -> list[str]:
    """Several measures in one ``-m`` argument, separated by blanks as ir_measures
    writes them (``"nDCG@10 P@5 AP"``); blanks inside ``(...)``, ``[...]`` or
    ``{...}`` belong to a measure's parameters."""
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(depth - 1, 0)
        if ch.isspace() and depth == 0:
            if current:
                parts.append(current)
            current = ""
        else:
            current += ch
    if current:
        parts.append(current)
    return parts


def check_measures(texts: Sequence[str]) -> None:
    """Every ``-m`` argument names a measure (``-m ''`` is refused, not read as none)."""
    for text in texts:
        if not split_measures(text):
            raise click.UsageError(
                f"-m {text!r} names no measure; give one, e.g. -m ndcg@10 "
                "(ranklens metrics lists them)."
            )


def expand_measures(given: Sequence[str]) -> list[str]:
    """Expand trec_eval conveniences: the nicknames ``official``, ``set`` and
    ``all_trec``, bare list measures (``P`` -> ``P.5`` ... ``P.1000``) and several
    cutoffs in one name (``P.5,10``), keeping trec_eval's order (cutoffs ascending
    within a measure) and dropping repeats; several blank-separated measures in one
    argument (ir_measures) count as several."""
    from ranklens.metrics import expand_trec_name
    from ranklens.metrics.trec_names import trec_base

    names = [
        n for text in given for item in split_measures(text) for n in NICKNAMES.get(item, (item,))
    ]
    # as trec_eval: a measure given several times in trec_eval's own spelling takes the
    # parameters of the first -m that gives some (-m P.5,10 -m P.10,20 is P_5 and P_10;
    # -m P -m P.7 is P_7); given bare only, a list measure takes trec_eval's default
    # cutoffs.  ranklens' printed names (P_5, ndcg_cut_10) are measures of their own:
    # -m P_5 -m P_10 is both.
    first: dict[str, str] = {}
    for name in names:
        base = trec_base(name)
        if base is not None and _with_trec_params(name, base) and base not in first:
            first[base] = name  # a trec_eval spelling with parameters
    out: list[str] = []
    seen: set[str] = set()
    for name in names:
        base = trec_base(name)
        if base is not None and _with_trec_params(name, base):
            name = first[base]
        elif base is not None and name == base:  # bare, in trec_eval's own spelling
            name = first.get(
                base,
                f"{base}.{TREC_DEFAULT_CUTOFFS[base]}" if base in TREC_DEFAULT_CUTOFFS else name,
            )
        parts = expand_trec_name(name)
        if len(parts) > 1:
            parts = sorted(parts, key=_cutoff_value)
        for p in parts:
            if p not in out and _parsed(p) not in seen:
                out.append(p)
                seen.add(_parsed(p))
    return out


def _parsed(name: str) -> str:
    """The metric ``name`` parses to (``P_5`` and ``P.5`` are one), or the name itself
    when it is not one (the evaluation names the error)."""
    from ranklens.errors import RanklensError
    from ranklens.metrics import get_metric

    try:
        return repr(get_metric(name))  # (a metric's parameters may not be hashable)
    except RanklensError:
        return name


def _with_trec_params(name: str, base: str) -> bool:
    """``name`` is trec_eval's measure ``base`` with parameters, as trec_eval's ``-m``
    takes them (``P.5,10``, ``ndcg.1=3``), not a printed name such as ``P_5``."""
    return name.lower().startswith(base.lower() + ".")


def trec_position(name: str) -> int:
    """A measure's place in trec_eval's output order (others after, as given)."""
    from ranklens.metrics.trec_names import trec_base

    base = trec_base(name)
    return ALL_TREC.index(base) if base in ALL_TREC else len(ALL_TREC)


def _cutoff_value(name: str) -> float:
    from ranklens.metrics import get_metric

    m = get_metric(name)
    return float(m.k) if m.k is not None else 0.0
