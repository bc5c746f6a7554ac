"""Terminal forms of the one-screen summary, the warnings and the comparison verdicts (rich,
escaped; rich wraps the cells to the terminal's width)."""
from __future__ import annotations

from typing import Any, Dict, List

from rich.markup import escape
from rich.table import Table

from hpceval.analysis import decide as dec
from hpceval.analysis.summary import comparison_lines, machine_line, summary_rows
from hpceval.analysis.warnings import warnings
from hpceval.cli.common import fmt_value
from hpceval.simulate import mark

STYLE = {dec.FASTER: "green", dec.SLOWER: "red", dec.SAME: "dim", dec.UNDECIDED: "yellow",
         dec.NOT_COMPARABLE: "yellow", "baseline": "dim"}


def _ci(lo: Any, hi: Any) -> str:
    return "-" if lo is None or hi is None else f"{fmt_value(lo)}..{fmt_value(hi)}"


def summary_table(run: Dict[str, Any]) -> Table:
    t = Table(title=escape(f"summary: {machine_line(run)}"), title_justify="left")
    for col, just in (("quantity", "left"), ("value", "right"), ("unit", "left"),
                      ("95% CI", "right"), ("where", "left"), ("quality", "left")):
        t.add_column(col, justify=just, overflow="fold")
    for r in summary_rows(run):
        q = escape(r["quality"])
        t.add_row(escape(f"{r['section']}: {r['quantity']}"),
                  fmt_value(float(r["value"])) + (mark.SUFFIX if r.get("simulated") else ""),
                  escape(r["unit"]), _ci(r["ci_low"], r["ci_high"]), escape(r["point"]),
                  q if r["quality"] == "ok" else f"[yellow]{q}[/yellow]")
    return t


def warning_lines(run: Dict[str, Any]) -> List[str]:
    """Rich markup lines: 'warning (kind): text', or one line saying there is none."""
    ws = warnings(run)
    if not ws:
        return ["[green]no warnings[/green]"]
    return [f"[{'red' if w.severity == 'bad' else 'yellow'}]warning ({w.kind}):[/] {escape(w.text)}"
            for w in ws]


def comparison_table(result: Dict[str, Any], runs: List[Dict[str, Any]], rows: List[Dict[str, Any]],
                     title: str) -> Table:
    """One column per run: value, and for the later runs the verdict against the first with the
    ratio and its 95% interval."""
    t = Table(title=title, title_justify="left")
    t.add_column("quantity", overflow="fold")
    t.add_column("unit")
    for run in runs:
        t.add_column(f"#{run.get('id')}{mark.run_tag(run)}", justify="right", overflow="fold")
    for r in rows:
        sims = r.get("simulated") or [False] * len(r["values"])
        label = r["label"] if not r.get("show_params") else f"{r['label']} " + " ".join(
            f"{k}={v}" for k, v in r["params"].items())
        ratios = r.get("ratios") or [None] * len(r["values"])
        intervals = r.get("intervals") or [None] * len(r["values"])
        cells = []
        for i, (v, verdict) in enumerate(zip(r["values"], r["verdicts"])):
            word = "" if i == 0 else f"{verdict} {dec.ratio_text(ratios[i], intervals[i])}".rstrip()
            cells.append(f"{fmt_value(v)}{mark.SUFFIX if sims[i] else ''}"
                         + (f" [{STYLE.get(verdict, '')}]{escape(word)}[/]" if word else ""))
        t.add_row(escape(label), escape(r["unit"]), *cells)
    return t


def comparison_text(result: Dict[str, Any], runs: List[Dict[str, Any]]) -> List[str]:
    return [f"[red]{escape(l['text'])}[/red]" if l["kind"] == "bad" else escape(l["text"])
            for l in comparison_lines(result, runs)]
