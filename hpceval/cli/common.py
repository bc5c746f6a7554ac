"""Options and helpers shared by several commands."""
from __future__ import annotations

import argparse
import os
from typing import List, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpceval import paths
from hpceval.analysis import headlines, value
from hpceval.quality import verdict
from hpceval.store import Store


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH", default=None,
                        help="results database (default: $HPCEVAL_DB or ~/.local/share/hpceval/results.sqlite)")


def db_path(args: argparse.Namespace) -> str:
    return str(args.db or paths.default_db())


def open_store(args: argparse.Namespace, create: bool = False) -> Store:
    """The database; only commands that store something create it."""
    return Store(db_path(args), create=create)


def resolve_runs(store: Store, refs: List[str], default_all: bool) -> List[int]:
    if refs:
        return [store.resolve(r) for r in refs]
    if default_all:
        return store.run_ids()
    return [store.resolve("latest")]


def fmt_value(v: float) -> str:
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def headline_table(records: list, title: str) -> Table:
    """The run's headline figures with their statistic, n and CI (terminal form)."""
    table = Table(title=title, title_justify="left")
    for col in ("figure", "value", "unit", "statistic", "n", "95% CI of median", "quality"):
        table.add_column(col, justify="right" if col in ("value", "n") else "left")
    for h in headlines(records):
        r = h["record"]
        s = r["stats"]
        table.add_row(escape(h["label"]), fmt_value(value(r)), r["unit"], r["statistic"], str(s["n"]),
                      f"{fmt_value(s['ci_low'])} .. {fmt_value(s['ci_high'])}",
                      escape(verdict(r)))
    return table


def console() -> Console:
    """stdout console at the terminal's width, or $COLUMNS when set; wide when piped without
    COLUMNS, so tables stay one line per row in logs and scripts."""
    probe = Console()
    told = os.environ.get("COLUMNS", "").isdigit()
    return Console(highlight=False, width=None if probe.is_terminal or told else 160)


RICH_ROWS = 2000   # beyond this many rows a table is printed as plain text


def print_rows(con: Console, title: str, columns: List[str], rows: List[List[str]],
               right: Sequence[str] = ()) -> None:
    """A table of strings: rich's box table for a screenful, plain aligned columns for a big
    one (rich lays out every cell several times: 10^5 rows took minutes)."""
    if len(rows) <= RICH_ROWS:
        table = Table(title=escape(title), title_justify="left")
        for col in columns:
            table.add_column(escape(col), justify="right" if col in right else "left",
                             overflow="fold")
        for row in rows:
            table.add_row(*(escape(c) for c in row))
        con.print(table)
        return
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if col in right else c.ljust(w)
                         for c, w, col in zip(cells, widths, columns)).rstrip()
    out = [title, line(columns), line(["-" * w for w in widths])] + [line(r) for r in rows]
    con.file.write("\n".join(out) + "\n")
