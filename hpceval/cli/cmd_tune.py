"""hpceval tune: measure every algorithm choice of a proxy on some rank counts and write the
tuned table (the best choice per problem and rank count, its margin and significance) as JSON an
application can read, as the CCM/MP-2D code was tuned per problem, processor count and system."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from hpceval.cli.common import add_db, console, db_path, declared, fmt_value, one_of, whole_number
from hpceval.errors import BenchmarkFailed, UsageError
from hpceval.outfiles import check_output_file, output_errors, write_text_whole

NAME = "tune"
HELP = (f"measure every algorithm choice of {one_of(declared('tunes'))} (halo, sum, transpose, "
        "process grid, mapping) and write the tuned table: the best per problem and rank count")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_db(p)
    p.add_argument("proxy", help=one_of(declared("tunes")))
    p.add_argument("--np", type=whole_number, default=None, metavar="N", help="ranks (default: 2)")
    p.add_argument("--ranks", default=None, metavar="LIST", help="several rank counts, e.g. "
                   "1,2,4 (instead of --np): shows where the best choice changes")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="sets",
                   help="a benchmark parameter (the problem: grids, truncation, ...; budget)")
    p.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write the tuned table as JSON (default: tuned-PROXY.json here)")


def execute(args: argparse.Namespace) -> int:
    from hpceval.analysis.tune import TUNABLE, tuned_table
    from hpceval.runner import run_plan
    from hpceval.store import Store
    if args.proxy not in TUNABLE:
        raise UsageError(f"tune {args.proxy}: one of {', '.join(sorted(TUNABLE))}")
    if args.np is not None and args.ranks is not None:
        raise UsageError("--np and --ranks choose the rank counts two ways: give one")
    if args.np is not None and args.np < 1:
        raise UsageError(f"--np {args.np}: need at least 1 rank")
    out = Path(args.output or f"tuned-{args.proxy}.json")
    check_output_file(out, "-o", "json")
    t = TUNABLE[args.proxy]
    ranks = args.ranks or str(args.np or 2)
    sets = [f"{args.proxy}.{s}" for s in t.sweep] + \
        [f"{args.proxy}.ranks={ranks}"] + args.sets            # the user's settings win
    db = db_path(args)
    result = run_plan([args.proxy], sets=sets, nranks=None, db=db, tags=["tune"])
    store = Store(db)
    run = store.get_run(result.run_id, traces=False)
    store.close()
    if result.failures or result.usage_errors:
        raise BenchmarkFailed(f"run {run['id']} failed: "
                              + "; ".join(result.failures + result.usage_errors))
    rows = tuned_table(run["records"], args.proxy)
    table = {"tuned_table_version": 1, "benchmark": args.proxy, "run": run["id"],
             "machine": (run.get("fingerprint") or {}).get("hash"), "rows": rows}
    with output_errors(f"-o {out}"):
        write_text_whole(out, json.dumps(table, indent=1) + "\n", "json", "-o")
    _print(rows, run["id"], out)
    return 0


def _print(rows: list, run_id: int, out: Path) -> None:
    t = Table(title=f"tuned table (run {run_id}); significant: the medians' 95% CIs do not "
                    "overlap", title_justify="left")
    for col in ("problem", "ranks", "best", "time", "runner-up", "margin", "significant", ""):
        t.add_column(col)
    for r in rows:
        t.add_row(escape(" ".join(f"{k}={v}" for k, v in r["problem"].items())), str(r["ranks"]),
                  escape(r["best_name"]), f"{fmt_value(r['best_time'])} {r['unit']}",
                  escape(r["runner_up_name"]), f"{100 * r['margin']:.1f}%",
                  "yes" if r["significant"] else "no",
                  "best changes here" if r["changed"] else "")
    console().print(t)
    print(f"wrote {out} ({len(rows)} rows)")
