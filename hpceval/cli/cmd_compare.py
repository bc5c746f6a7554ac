"""hpceval compare: runs side by side, every shared metric normalised by the best run."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from hpceval.cli.cardview import pct
from hpceval.cli.common import add_db, console, fmt_value, open_store, print_rows
from hpceval.cli.outputs import check_output_dir, output_errors
from hpceval.errors import UsageError
from hpceval.store import dump_json

NAME = "compare"
HELP = "compare runs (of this or imported machines): every shared metric, (value - best) / best"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more runs")
    add_db(p)
    p.add_argument("--all", action="store_true", help="every shared point, not only the headline figures")
    p.add_argument("--json", action="store_true", help="the comparison as JSON")
    p.add_argument("--figures", metavar="DIR", default=None,
                   help="save figures overlaying the runs' curves in DIR (SVG and PNG)")
    p.add_argument("--pdf", action="store_true", help="with --figures: PDF too")


def _run_name(run: dict) -> str:
    host = (run.get("fingerprint") or {}).get("hostname") or "?"
    tags = ",".join(run.get("tags") or [])
    return f"#{run['id']} {host}" + (f" [{tags}]" if tags else "")


def execute(args: argparse.Namespace) -> int:
    if len(args.runs) < 2:
        raise UsageError("compare needs at least two runs")
    if args.pdf and not args.figures:
        raise UsageError("--pdf needs --figures DIR")
    if args.figures:
        check_output_dir(args.figures, "--figures")
    store = open_store(args)
    ids = list(dict.fromkeys(store.resolve(r) for r in args.runs))
    if len(ids) < 2:
        raise UsageError("compare needs two different runs")
    runs = [store.get_run(i, traces=False) for i in ids]
    from hpceval.analysis.compare import compare   # numpy: only when run
    result = compare(runs)
    if args.json:
        dump_json(result, sys.stdout)
    else:
        con = console()
        rows = result["rows"] if args.all else result["headline"]
        what = "every shared point" if args.all else "headline figures"
        names = [_run_name(run) for run in runs]
        cells = []
        for r in rows:
            label = r["label"] if not args.all else f"{r['label']} " + " ".join(
                f"{k}={v}" for k, v in r["params"].items())
            cells.append([label, r["unit"], r["better"],
                          *(f"{fmt_value(v)} ({pct(d)})" for v, d in zip(r["values"], r["deficits"]))])
        print_rows(con, f"comparison ({what}; +x% = worse than the best run)",
                   ["quantity", "unit", "better", *names], cells, right=names)
        s = Table(title="summary over every shared point", title_justify="left")
        for col in ("run", "shared points", "best in", "median deficit", "geometric mean ratio to best"):
            s.add_column(col)
        for run, x in zip(runs, result["summary"]):
            s.add_row(escape(_run_name(run)), str(x["shared"]), str(x["best_in"]), pct(x["median_deficit"]),
                      "-" if x["geomean_ratio"] is None else f"{x['geomean_ratio']:.3f}")
        con.print(s)
        if not result["rows"]:
            print("the runs share no metric")
    if args.figures:
        from hpceval.report import save_comparison_figures   # matplotlib only when asked
        with output_errors("--figures"):
            written = save_comparison_figures(runs, Path(args.figures), pdf=args.pdf)
        print(f"wrote {len(written)} figure files to {args.figures}")
    return 0
