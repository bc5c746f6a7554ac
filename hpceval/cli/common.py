"""Options and helpers shared by several commands."""
from __future__ import annotations

import argparse
import os
from typing import Any, Callable, List, Optional, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpceval import paths
from hpceval.analysis import headlines, value
from hpceval.catalog.params import YEAR_S, ascii_float, ascii_int
from hpceval.errors import UsageError
from hpceval.quality import verdict
from hpceval.store import Store
from hpceval.simulate import mark


def declared(field: str) -> List[str]:
    """The benchmarks whose declaration has `field` (scales, tunes, model), by name."""
    from hpceval.catalog import BENCHMARKS
    return sorted(name for name, b in BENCHMARKS.items() if getattr(b, field))


def one_of(names: Sequence[str]) -> str:
    """'a, b or c'."""
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def tag_text(value: str) -> str:
    """argparse type of --tag: a label shown in tables and terminals, so no control characters
    (an escape sequence in a tag would rewrite the terminal of whoever lists the runs)."""
    if not value or len(value) > 100:
        raise argparse.ArgumentTypeError("a tag is 1-100 characters")
    if any(not ch.isprintable() for ch in value):
        raise argparse.ArgumentTypeError(f"{value!r} holds control characters")
    return value


TIMEOUT_FLOOR_S = 1.0    # a launch given less cannot even start its ranks


def timeout_seconds(text: str) -> float:
    """argparse type of every --timeout: finite seconds in ASCII digits, from TIMEOUT_FLOOR_S to
    a year (nan compares false to every deadline and would disable the limit; 1e-9 launches
    only to be killed)."""
    try:
        value = ascii_float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text[:40]!r} (seconds in "
                                         "ASCII digits: 60, 2.5, 1e3)") from None
    if not TIMEOUT_FLOOR_S <= value <= YEAR_S:     # nan fails both comparisons
        raise argparse.ArgumentTypeError(f"{text[:40]}: must be a positive number of seconds, "
                                         f"from {TIMEOUT_FLOOR_S:g} s to a year")
    return value


def _ascii_type(parse: Callable[[str], Any], kind: str, what: str) -> Callable[[str], Any]:
    """An argparse type reading ASCII digits only: argparse's int() and float() also read other
    scripts' digits ('\uff18' is 8) and '1_0' as 10. The refusal keeps argparse's wording."""
    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {kind} value: {text[:40]!r} ({what} in "
                                             "ASCII digits)") from None
    return convert


# Every integer option (--np, --nodes, --ppn, --rounds, ...); a real one (history's --threshold,
# whose range the command checks).
whole_number = _ascii_type(ascii_int, "int", "an integer")
ascii_number = _ascii_type(ascii_float, "float", "a number")


def printable(text: str) -> str:
    """Text stored elsewhere (an imported run's tags) made safe to print: control characters
    shown as escapes."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH", default=None,
                        help="results database (default: $HPCEVAL_DB or ~/.local/share/hpceval/results.sqlite)")


def db_path(args: argparse.Namespace) -> str:
    return str(args.db or paths.default_db())


def no_db_yet(args: argparse.Namespace) -> bool:
    """True when nothing is stored yet (no database at the path, which could be made); a path
    that no database can ever be at (under a regular file) is bad input."""
    path = os.path.abspath(db_path(args))
    if os.path.lexists(path):
        return False
    above = os.path.dirname(path)
    while not os.path.lexists(above):
        above = os.path.dirname(above)
    if not os.path.isdir(above):
        raise UsageError(f"--db {db_path(args)}: {above} is not a directory")
    return True


def open_store(args: argparse.Namespace, create: bool = False) -> Store:
    """The database; only commands that store something create it."""
    return Store(db_path(args), create=create)


def resolve_runs(store: Store, refs: List[str], default_all: bool) -> List[int]:
    if refs:
        return [store.resolve(r) for r in refs]
    if default_all:
        return store.run_ids()
    return [store.resolve("latest")]


def machine_history(store: Store, runs: List[dict]) -> List[dict]:
    """The reference's (runs[0]'s) machine's runs in the database, but the runs judged against
    it: how far one run of that machine lands from the next (analysis/runspread.py)."""
    from hpceval.analysis.runspread import history_runs
    ids = history_runs(store.list_runs(), runs[0], [r["id"] for r in runs[1:]])
    return [runs[0] if i == runs[0]["id"] else store.get_run(i, traces=False) for i in ids]


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


HEADLINE_COLUMNS = ("figure", "value", "unit", "statistic", "n", "95% CI of median", "quality")
# Dropped in this order while the table is wider than the terminal.
HEADLINE_DROP = ("statistic", "n", "95% CI of median")
WRAP_MIN = 24


def headline_table(records: list, title: str, width: Optional[int] = None) -> Table:
    """The run's headline figures with their statistic, n and CI (terminal form); with `width`,
    the least needed columns are left out until the table fits with the figure names and
    quality verdicts wrapped to at most WRAP_MIN wide."""
    rows = []
    for h in headlines(records):
        r = h["record"]
        s = r["stats"]
        rows.append([escape(h["label"]), fmt_value(value(r)) + mark.tag(r), r["unit"], r["statistic"], str(s["n"]),
                     f"{fmt_value(s['ci_low'])} .. {fmt_value(s['ci_high'])}", escape(verdict(r))])
    cols = list(HEADLINE_COLUMNS)
    natural = {c: max([len(c)] + [len(row[i]) for row in rows]) for i, c in enumerate(cols)}
    # The text columns may wrap down to WRAP_MIN; the others keep their width. Borders and
    # padding take 3 characters per column and 1.
    squeezed = {c: min(w, WRAP_MIN) if c in ("figure", "quality") else w for c, w in natural.items()}
    for drop in HEADLINE_DROP if width else ():
        if sum(squeezed[c] for c in cols) + 3 * len(cols) + 1 <= width:
            break
        cols.remove(drop)
    table = Table(title=title, title_justify="left")
    for c in cols:
        text = c in ("figure", "quality")
        table.add_column(c, justify="right" if c in ("value", "n") else "left", no_wrap=not text,
                         min_width=squeezed[c] if text else None)
    keep = [HEADLINE_COLUMNS.index(c) for c in cols]
    for row in rows:
        table.add_row(*(row[i] for i in keep))
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
