"""``ranklens metrics``: the catalogue of metrics (every family, grouped), or one
metric's definition (:func:`ranklens.metrics.metric_table` and
:func:`ranklens.metrics.describe` are the data; this module only lays them out)."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import write_output
from ranklens.cli._options import format_option, output_option

__all__ = ["metrics_cmd"]

#: ``table`` (the default) needs no numpy: ``ranklens metrics`` starts fast.
FORMATS = ("table", "markdown", "csv", "json")

#: The columns of a listing, in the order a CSV or Markdown table shows them.
_COLUMNS = (
    "name",
    "family",
    "summary",
    "aliases",
    "cutoff",
    "params",
    "inputs",
    "per_query",
    "min",
    "max",
    "better",
    "trec_eval",
)


def _families() -> list[str]:
    from ranklens.metrics.catalogue import FAMILIES

    return list(FAMILIES)


def _options_of(inputs: str) -> str:
    """A record's ``inputs`` (``catalog or train``) in the command's options
    (``--catalog or --train``)."""
    from ranklens.metrics.catalogue import INPUTS

    def option(name: str) -> str:
        i = INPUTS.get(name)
        return name if i is None else (i.option or i.name.replace("_", "-").upper())

    return "; ".join(
        " or ".join(option(n.strip()) for n in group.split(" or "))
        for group in inputs.split(";")
        if group.strip()
    )


def _listing(fmt: str, family: str | None) -> str:
    from ranklens.metrics import metric_table
    from ranklens.metrics.catalogue import FAMILIES

    rows = metric_table(family)
    if fmt == "table":
        width = max(len(r["name"]) for r in rows) + 2
        lines: list[str] = []
        for fam in FAMILIES:
            members = [r for r in rows if r["family"] == fam]
            if not members:
                continue
            if lines:
                lines.append("")
            lines.append(f"{fam}: {FAMILIES[fam]}")
            for r in members:
                extra = f"  (aliases: {r['aliases']})" if r["aliases"] else ""
                trec = f"  [trec_eval: {r['trec_eval']}]" if r["trec_eval"] else ""
                needs = f"  [needs {_options_of(r['inputs'])}]" if r["inputs"] else ""
                lines.append(f"  {r['name']:<{width}}{r['summary']}{extra}{trec}{needs}")
        return "\n".join(lines)
    from ranklens.render.table import Table, render_as

    def layout() -> Table:
        body: list[list[Any]] = [
            [r["name"], r["family"], r["summary"], r["aliases"], r["inputs"], r["trec_eval"]]
            for r in rows
        ]
        header = ["metric", "family", "summary", "aliases", "inputs", "trec_eval"]
        return Table(header, body, n_labels=len(header))  # text only: every column left

    def records() -> Any:
        import pyarrow as pa

        return pa.Table.from_pylist(
            [{c: (str(r[c]) if c in ("min", "max") else r[c]) for c in _COLUMNS} for r in rows]
        )

    def document() -> Any:
        shown = [f for f in FAMILIES if family is None or f == family]
        return {
            "families": [{"name": f, "summary": FAMILIES[f]} for f in shown],
            "metrics": [{c: r[c] for c in _COLUMNS} for r in rows],
        }

    return render_as(fmt, layout=layout, records=records, document=document)


def _definition(name: str, fmt: str) -> str:
    from ranklens.metrics import describe

    d = describe(name)
    if fmt == "json":
        from ranklens.render.table import to_json

        return to_json(d)
    if fmt not in ("table", "markdown"):
        raise click.UsageError(
            f"--format {fmt} lists the catalogue; a metric's definition is shown as table, "
            "markdown or json."
        )
    lines = [f"{d['name']}: {d['summary']}"]
    if d["aliases"]:
        lines.append(f"aliases: {', '.join(d['aliases'])}")
    if d["trec_eval"]:
        lines.append(f"trec_eval name: {d['trec_eval']}")
    lines.append(f"cutoff: {d['cutoff']}; aggregate over queries: {d['aggregate']}")
    better = {"higher": "higher is better", "lower": "lower is better"}.get(
        d["better"], "a count or diagnostic"
    )
    whole = "" if d["per_query"] else "; one value of all lists together"
    lo, hi = (f"{x:g}" if isinstance(x, float) else str(x) for x in (d["min"], d["max"]))
    lines.append(f"family: {d['family']}; values in [{lo}, {hi}]; {better}{whole}")
    for group in d["inputs"]:
        how = " or ".join(group["options"] or group["keywords"])
        lines.append(f"needs: {how} ({group['doc']})")
    lines.append("parameters:" if d["parameters"] else "parameters: none")
    for p in d["parameters"]:
        choices = f" one of {', '.join(p['choices'])}" if p["choices"] else ""
        lines.append(f"  {p['name']} (default {p['default']!r}){choices}: {p['doc']}")
    lines.append("")
    lines.append(d["doc"])
    return "\n".join(lines)


@click.command("metrics")
@click.argument("name", required=False)
@click.option(
    "--family",
    type=click.Choice(_families()),
    default=None,
    help="List only the metrics of this family (default: every family, grouped).",
)
@format_option(FORMATS)
@output_option
def metrics_cmd(name: str | None, family: str | None, fmt: str, output: str | None) -> None:
    """List every metric of every family, or show the full definition of NAME (a name,
    an alias, a metric string such as ndcg@10, or a trec_eval name)."""
    from ranklens.cli._common import check_output

    check_output(output)
    if name is not None and family is not None:
        raise click.UsageError(
            "--family filters the list of metrics; with a metric NAME leave it out."
        )
    write_output(_listing(fmt, family) if name is None else _definition(name, fmt), output)
