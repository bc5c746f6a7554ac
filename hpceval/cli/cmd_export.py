"""hpceval export: runs as JSON (docs/export.md) or CSV, to stdout."""
from __future__ import annotations

import argparse
import csv
import math
import json
import os
import sys

from hpceval.cli.common import add_db, db_path, open_store, resolve_runs
from hpceval.store import STATS, dump_json

NAME = "export"
HELP = "export runs (all by default) as JSON or CSV on stdout"

CSV_COLUMNS = ("run_id", "run_uuid", "started", "suite", "status", "hostname", "benchmark", "params",
               "metric", "unit", "statistic", "better") + STATS + ("converged",)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN")
    add_db(p)
    p.add_argument("--format", choices=("json", "csv"), default="json")


def _cell(v):
    """A statistic as a CSV cell: a value that is not a finite number is an empty cell (a
    spreadsheet reads "nan" or "inf" as text or as a number that was never measured)."""
    return v if isinstance(v, (int, float)) and math.isfinite(v) else ""


def execute(args: argparse.Namespace) -> int:
    if not args.runs and not os.path.exists(db_path(args)):
        runs = []                      # nothing stored yet: an empty export, and no new file
    else:
        store = open_store(args)
        runs = [store.get_run(i) for i in resolve_runs(store, args.runs, default_all=True)]
    if args.format == "json":
        dump_json(runs, sys.stdout)
        return 0
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for run in runs:
        for r in run["records"]:
            w.writerow([run["id"], run["uuid"], run["started"], run["suite"], run["status"],
                        run["fingerprint"].get("hostname"), r["benchmark"],
                        json.dumps(r["params"], sort_keys=True), r["metric"], r["unit"],
                        r["statistic"], r["better"], *(_cell(r["stats"][k]) for k in STATS),
                        int(r["converged"])])
    return 0
