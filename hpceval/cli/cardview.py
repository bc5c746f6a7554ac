"""Terminal tables for the machine card, comparisons and histories (rich, escaped)."""
from __future__ import annotations

from typing import Any, Dict, List

from rich.markup import escape
from rich.table import Table

from hpceval.cli.common import fmt_value


def cell_text(v: Any) -> str:
    if isinstance(v, float):
        return fmt_value(v)
    return str(v)


def card_table(rows: List[Dict[str, Any]], title: str) -> Table:
    t = Table(title=title, title_justify="left")
    for col in ("section", "quantity", "value", "unit", "point", "statistic, n"):
        t.add_column(col, justify="right" if col == "value" else "left")
    last = None
    for r in rows:
        rec = r["record"]
        stat = f"{rec.get('statistic')}, n={rec['stats'].get('n')}" if rec else ""
        value = cell_text(r["value"]) if r["measured"] else f"[dim]{r['missing']}[/dim]"
        t.add_row(escape(r["section"]) if r["section"] != last else "", escape(r["quantity"]),
                  value if not r["measured"] else escape(value), escape(r["unit"]),
                  escape(r["point"]), escape(stat))
        last = r["section"]
    return t


def pct(d: Any) -> str:
    return "-" if d is None else ("best" if d == 0 else f"+{100 * d:.1f}%")
