"""hpceval compare: runs side by side, every shared metric normalised by the best run."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from hpceval.analysis.decide import TOLERANCE, UNDECIDED, ratio_text
from hpceval.cli.cardview import pct
from hpceval.cli.compareview import print_machines
from hpceval.cli.common import (RICH_ROWS, add_db, ascii_number, console, fmt_value,
                                machine_history, open_store, print_rows)
from hpceval.outfiles import check_output_dir, output_errors
from hpceval.cli.summaryview import comparison_table, comparison_text
from hpceval.errors import UsageError
from hpceval.store import dump_json

NAME = "compare"
HELP = ("compare runs (of this or imported machines): every shared point's ratio to the "
        "reference with its 95%% interval and a verdict (faster, slower, same, undecided)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", metavar="RUN", help="two or more runs")
    add_db(p)
    p.add_argument("--reference", metavar="RUN", default=None,
                   help="the run the others are judged against (ratios, better/worse); it becomes the "
                        "first column and is added if not among RUN (default: the first RUN)")
    p.add_argument("--tolerance", type=ascii_number, default=TOLERANCE, metavar="FRACTION",
                   help="a ratio whose 95%% interval lies within 1 +- FRACTION is 'same'; beyond "
                        "it faster or slower; across an edge undecided (default %(default)g: 5%%)")
    p.add_argument("--no-history", action="store_true",
                   help="intervals from the two runs' samples only, not widened to the run-to-run "
                        "spread of the reference machine's other runs in the database")
    p.add_argument("--all", action="store_true", help="every shared point and the deficit summary, not only the verdicts and headline figures")
    p.add_argument("--json", action="store_true", help="the comparison as JSON")
    p.add_argument("--figures", metavar="DIR", default=None,
                   help="save figures overlaying the runs' curves in DIR (SVG and PNG)")
    p.add_argument("--pdf", action="store_true", help="with --figures: PDF too")


def _run_name(run: dict) -> str:
    host = (run.get("fingerprint") or {}).get("hostname") or "?"
    tags = ",".join(run.get("tags") or [])
    return f"#{run['id']} {host}" + (f" [{tags}]" if tags else "")


def _print(result: dict, runs: list, every: bool) -> None:
    """The verdicts first, then the headline figures; every shared point with --all."""
    con = console()
    for line in comparison_text(result, runs):
        con.print(line)
    names = "  ".join(escape(_run_name(r)) for r in runs)
    tol = f"{100 * result['tolerance']:g}%"
    con.print(f"[dim]runs: {names}. Each later run's value / the first's, xR (low-high): the "
              f"ratio and its 95% interval, a percentile bootstrap of the two points' samples "
              f"(from their stored CIs where a point has none), widened where wider to the "
              f"point's run-to-run spread over {_spread_runs(result)}. same: the interval inside "
              f"±{tol}; faster, slower: wholly beyond it; undecided: across an edge.[/dim]")
    con.print(comparison_table(result, runs, result["headline"], "headline figures"))
    for line in _undecided(result["headline"], runs):
        con.print(f"[dim]{escape(line)}[/dim]")
    print_machines(con, result["machines"], runs)
    if not every:
        con.print(f"[dim]{len(result['rows'])} shared points: --all lists them, with the reason "
                  "for each undecided one.[/dim]")
        return
    if len(result["rows"]) > RICH_ROWS:
        _print_plain(con, result, runs)
    else:
        rows = [{**r, "show_params": True} for r in result["rows"]]
        con.print(comparison_table(result, runs, rows, "every shared point"))
    for line in _undecided(result["rows"], runs, params=True):
        con.print(escape(line))
    s = Table(title="summary over every shared point (deficit: (value - best) / best)",
              title_justify="left")
    for col in ("run", "shared", "best in", "median deficit", "geomean ratio to best"):
        s.add_column(col, overflow="fold")
    for run, x in zip(runs, result["summary"]):
        s.add_row(escape(_run_name(run)), str(x["shared"]), str(x["best_in"]), pct(x["median_deficit"]),
                  "-" if x["geomean_ratio"] is None else f"{x['geomean_ratio']:.3f}")
    con.print(s)
    if not result["rows"]:
        con.print("the runs share no metric")


def _spread_runs(result: dict) -> str:
    n = len(result["interval"]["history"])
    if result["interval"]["points_with_spread"]:
        return f"the reference machine's {n} runs in the database"
    return (f"3 or more runs of the reference machine (the database has {n}: no point widened; "
            "the verdicts say how this run differs, not how the machine does)")


def _label(r: dict, params: bool) -> str:
    shown = " ".join(f"{k}={v}" for k, v in r["params"].items()) if params else ""
    return f"{r['label']} {shown}".rstrip()


def _undecided(rows: list, runs: list, params: bool = False) -> list:
    """'undecided: LABEL, #2: why' for every undecided cell of rows."""
    return [f"undecided: {_label(r, params)}, #{runs[i]['id']}: {r['why'][i]}"
            for r in rows for i, v in enumerate(r["verdicts"]) if v == UNDECIDED]


def _print_plain(con, result: dict, runs: list) -> None:
    """Every shared point as plain columns: rich lays out each cell several times, and 10^5
    rows took minutes."""
    names = [_run_name(run) for run in runs]
    cells = [[_label(r, True), r["unit"], r["better"],
              *(f"{fmt_value(v)} ({pct(d)})" + ("" if i == 0 else
                f" {r['verdicts'][i]} {ratio_text(r['ratios'][i], r['intervals'][i])}".rstrip())
                for i, (v, d) in enumerate(zip(r["values"], r["deficits"])))]
             for r in result["rows"]]
    print_rows(con, "every shared point (+x% = worse than the best run; the verdict, ratio and "
               "95% interval against the first)",
               ["quantity", "unit", "better", *names], cells, right=names)


def execute(args: argparse.Namespace) -> int:
    if len(args.runs) + (args.reference is not None) < 2:
        raise UsageError("compare needs at least two runs")
    if args.pdf and not args.figures:
        raise UsageError("--pdf needs --figures DIR")
    if not 0 < args.tolerance < 1:
        raise UsageError(f"--tolerance {args.tolerance:g}: must be a fraction between 0 and 1 "
                         "(0.05 = 5%)")
    if args.figures:
        check_output_dir(args.figures, "--figures")
    store = open_store(args)
    ids = list(dict.fromkeys(store.resolve(r) for r in args.runs))
    if args.reference is not None:       # the reference first: every verdict is against it
        ref = store.resolve(args.reference)
        ids = [ref] + [i for i in ids if i != ref]
    if len(ids) < 2:
        raise UsageError("compare needs two different runs")
    runs = [store.get_run(i, traces=False, samples=True) for i in ids]
    from hpceval.analysis.compare import compare   # numpy: only when run
    from hpceval.analysis.sidebyside import machines
    result = compare(runs, args.tolerance, None if args.no_history else machine_history(store, runs))
    result["machines"] = machines(runs, 0, args.tolerance)
    if args.json:
        dump_json(result, sys.stdout)
    else:
        _print(result, runs, args.all)
    if args.figures:
        from hpceval.report import save_comparison_figures   # matplotlib only when asked
        with output_errors("--figures"):
            written = save_comparison_figures(runs, Path(args.figures), pdf=args.pdf)
        print(f"wrote {len(written)} figure files to {args.figures}")
    return 0
