"""hpceval report: a self-contained HTML report of stored runs."""
from __future__ import annotations

import argparse

from hpceval import specsheet
from hpceval.cli.common import add_db, machine_history, open_store, resolve_runs
from hpceval.outfiles import check_output_dir, check_output_file, output_errors
from hpceval.errors import UsageError

NAME = "report"
HELP = "write a self-contained HTML report of runs (default: the latest)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN")
    add_db(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE.html")
    p.add_argument("--figures", metavar="DIR", default=None,
                   help="also save every figure as SVG and PNG in DIR")
    p.add_argument("--pdf", action="store_true", help="with --figures: save PDF as well")
    p.add_argument("--spec", metavar="FILE", default=None,
                   help="a spec sheet to set the runs against (instead of one stored with them)")


def execute(args: argparse.Namespace) -> int:
    if args.pdf and not args.figures:
        raise UsageError("--pdf needs --figures DIR")
    out = check_output_file(args.output, "-o", "html")
    if args.figures:
        check_output_dir(args.figures, "--figures")
    spec = specsheet.load(args.spec) if args.spec else None
    store = open_store(args)
    ids = resolve_runs(store, args.runs, default_all=False)
    # several runs are compared, from their samples (analysis/decide.py)
    runs = [store.get_run(i, samples=len(ids) > 1) for i in ids]
    for run in runs if spec else []:
        run["settings"] = {**(run.get("settings") or {}), "spec": spec}
    from hpceval.report import write_report   # matplotlib: slow to import; after every check
    with output_errors("report"):
        write_report(runs, out, figure_dir=args.figures, pdf=args.pdf,
                     history=machine_history(store, runs) if len(runs) > 1 else None)
    print(f"wrote {out} ({len(runs)} run{'s' if len(runs) != 1 else ''})")
    return 0
