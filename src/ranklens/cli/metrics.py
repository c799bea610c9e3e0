"""``ranklens metrics``: the catalogue of metrics (every family), or one metric's
definition."""

from __future__ import annotations

from typing import Any

import click

from ranklens.cli._common import write_output
from ranklens.cli._options import format_option, output_option

__all__ = ["metrics_cmd"]

#: ``table`` (the default) needs no numpy: ``ranklens metrics`` starts fast.
FORMATS = ("table", "markdown", "csv", "json")


def _rows() -> list[dict[str, Any]]:
    from ranklens.metrics import REGISTRY

    defs = sorted(REGISTRY.values(), key=lambda d: (d.domain != "ranking", d.domain, d.name))
    return [
        {
            "name": d.name,
            "summary": d.summary,
            "family": d.domain,
            "aliases": [a for a in d.aliases if a != d.name],
            "trec_eval": d.trec_name,
            "higher_is_better": d.higher_is_better,
        }
        for d in defs
    ]


def _listing(fmt: str) -> str:
    rows = _rows()
    if fmt == "table":
        width = max(len(r["name"]) for r in rows) + 2
        lines = []
        for r in rows:
            extra = f"  (aliases: {', '.join(r['aliases'])})" if r["aliases"] else ""
            trec = f"  [trec_eval: {r['trec_eval']}]" if r["trec_eval"] else ""
            domain = "" if r["family"] == "ranking" else f"  [{r['family']}]"
            lines.append(f"{r['name']:<{width}}{r['summary']}{extra}{trec}{domain}")
        return "\n".join(lines)
    from ranklens.render.table import Table, render_as

    def layout() -> Table:
        body: list[list[Any]] = [
            [r["name"], r["family"], r["summary"], ", ".join(r["aliases"]), r["trec_eval"] or ""]
            for r in rows
        ]
        return Table(["metric", "family", "summary", "aliases", "trec_eval"], body, n_labels=1)

    def records() -> Any:
        import pyarrow as pa

        return pa.Table.from_pylist([{**r, "aliases": " ".join(r["aliases"])} for r in rows])

    return render_as(fmt, layout=layout, records=records, document=lambda: {"metrics": rows})


def _definition(name: str, fmt: str) -> str:
    from ranklens.metrics import get_metric
    from ranklens.metrics.registry import lookup

    found = lookup(name)
    # otherwise a full metric string or a trec_eval name
    defn = found if found is not None else get_metric(name).definition
    lo, hi = defn.range if defn.range is not None else (float("-inf"), float("inf"))
    if fmt == "json":
        from ranklens.render.table import to_json

        return to_json(
            {
                "name": defn.name,
                "summary": defn.summary,
                "aliases": list(defn.aliases),
                "trec_eval": defn.trec_name,
                "family": defn.domain,
                "cutoff": defn.cutoff,
                "aggregate": defn.aggregate,
                "range": [lo, hi],
                "higher_is_better": defn.higher_is_better,
                "parameters": [
                    {"name": p.name, "default": p.default, "choices": p.choices, "doc": p.doc}
                    for p in defn.all_params
                ],
                "doc": defn.doc,
            }
        )
    if fmt not in ("table", "markdown"):
        raise click.UsageError(
            f"--format {fmt} lists the catalogue; a metric's definition is shown as table, "
            "markdown or json."
        )
    lines = [f"{defn.name}: {defn.summary}"]
    if defn.aliases:
        lines.append(f"aliases: {', '.join(defn.aliases)}")
    if defn.trec_name:
        lines.append(f"trec_eval name: {defn.trec_name}")
    cutoff = {
        "optional": "@k optional",
        "required": "@k required",
        "none": "no cutoff",
        "level": "@level (a recall level in [0, 1]) required",
        "multiple": "@x (a multiple of R) required",
    }.get(defn.cutoff, defn.cutoff)
    lines.append(f"cutoff: {cutoff}; aggregate over queries: {defn.aggregate}")
    better = {True: "higher is better", False: "lower is better", None: "a count or diagnostic"}[
        defn.higher_is_better
    ]
    lines.append(f"family: {defn.domain}; values in [{lo:g}, {hi:g}]; {better}")
    lines.append("parameters:")
    for p in defn.all_params:
        choices = f" one of {', '.join(p.choices)}" if p.choices else ""
        lines.append(f"  {p.name} (default {p.default!r}){choices}: {p.doc}")
    lines.append("")
    lines.append(defn.doc)
    return "\n".join(lines)


@click.command("metrics")
@click.argument("name", required=False)
@format_option(FORMATS)
@output_option
def metrics_cmd(name: str | None, fmt: str, output: str | None) -> None:
    """List every metric, or show the full definition of NAME."""
    from ranklens.cli._common import check_output

    check_output(output)
    write_output(_listing(fmt) if name is None else _definition(name, fmt), output)
